//! OTLP JSON lines to `otel_traces` columns, with the rules of
//! `ragfunnel/analyzer/ingest/rows.py` (which documents them).
//!
//! One pass over the line: attribute values are written into their columns as they are parsed.
//! A line is taken whole or not at all: anything that Python would report (a skipped span, a
//! repaired value, a duration clamped to 0) or that this module does not handle makes the line
//! `Outcome::Declined`, with every column cut back to where it was, and the Python path reads it.
//! So does a resource that comes after its spans, or a scope after its spans (the SDK and the
//! collector write them first).

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use crate::columns::{Dict, DictCol, MapCol, StrCol, MAX_BYTES};
use crate::json::Json;
use crate::values::{any_value, int64, Decline, Mode, Result};

pub enum Outcome {
    /// Spans added and duplicates passed over.
    Taken(usize, usize),
    Declined,
    /// The chunk's columns would outgrow 32-bit offsets: end the chunk, then offer it again.
    Full,
}

type Key = [u8; 48];

/// Two copies of a span whose start times differ by less than this (ns) are the same span:
/// Jaeger keeps microseconds only (`span_fields.py`, `SAME_START_NS`).
pub const SAME_START_NS: i64 = 1_000;

pub struct Builder {
    max_value_chars: usize,
    /// The chunk's spans so far, by identity: their start times.
    pub seen: FxHashMap<Key, i64>,
    pub start: Vec<i64>,
    pub trace: StrCol,
    pub span: StrCol,
    pub parent: StrCol,
    pub state: StrCol,
    pub name: DictCol,
    pub kind: DictCol,
    pub service: DictCol,
    pub resource: MapCol,
    pub scope_name: DictCol,
    pub scope_version: DictCol,
    pub attributes: MapCol,
    pub duration: Vec<u64>,
    pub code: DictCol,
    pub message: StrCol,
    pub event_offsets: Vec<i32>,
    pub event_time: Vec<i64>,
    pub event_name: StrCol,
    pub event_attributes: MapCol,
    pub link_offsets: Vec<i32>,
    pub link_trace: StrCol,
    pub link_span: StrCol,
    pub link_state: StrCol,
    pub link_attributes: MapCol,
    pub low: i64,
    pub high: i64,
    line_keys: Vec<Key>,
}

/// Where the columns stood: rows, events and links.
#[derive(Clone, Copy)]
struct Mark {
    rows: usize,
    events: usize,
    links: usize,
}

/// A resource's attributes, converted once for all its spans.
#[derive(Default)]
struct ResourceRow {
    keys: Vec<i32>,
    values: StrCol,
    service: i32,
}

const KINDS: [(&str, &str); 6] = [
    ("SPAN_KIND_UNSPECIFIED", "Unspecified"),
    ("SPAN_KIND_INTERNAL", "Internal"),
    ("SPAN_KIND_SERVER", "Server"),
    ("SPAN_KIND_CLIENT", "Client"),
    ("SPAN_KIND_PRODUCER", "Producer"),
    ("SPAN_KIND_CONSUMER", "Consumer"),
];
// The members of each object that may appear once (see `member`).
const KEY_VALUE: [&str; 2] = ["key", "value"];
const SCOPE: [&str; 2] = ["name", "version"];
const EVENT: [&str; 3] = ["timeUnixNano", "name", "attributes"];
const LINK: [&str; 4] = ["traceId", "spanId", "traceState", "attributes"];
const STATUS: [&str; 2] = ["code", "message"];

const CODES: [(&str, &str); 3] = [
    ("STATUS_CODE_UNSET", "Unset"),
    ("STATUS_CODE_OK", "Ok"),
    ("STATUS_CODE_ERROR", "Error"),
];

/// pdata's `String()` of a span kind or status code given as a number or as its enum name;
/// any other number or name gives "".
fn enum_name(p: &mut Json, names: &[(&str, &'static str)]) -> Result<&'static str> {
    if p.peek()? == b'"' {
        let text = p.string()?;
        return Ok(names
            .iter()
            .find(|(name, _)| *name == text)
            .map_or("", |(_, v)| v));
    }
    let v = int64(p, true)?;
    Ok(usize::try_from(v)
        .ok()
        .and_then(|i| names.get(i))
        .map_or("", |(_, v)| v))
}

/// A hex id of `N` digits in lowercase into `out`; `Ok(false)` for all zeros.
fn hex_id<const N: usize>(text: &str, out: &mut [u8]) -> Result<bool> {
    let bytes = text.as_bytes();
    if bytes.len() != N {
        return Err(Decline); // base64 ids and wrong lengths: the Python path
    }
    let mut nonzero = false;
    for (slot, &b) in out.iter_mut().zip(bytes) {
        *slot = match b {
            b'0'..=b'9' | b'a'..=b'f' => b,
            b'A'..=b'F' => b + 32,
            _ => return Err(Decline),
        };
        nonzero |= b != b'0';
    }
    Ok(nonzero)
}

/// An optional id: empty or all zeros give "".
fn optional_id<const N: usize>(text: &str, col: &mut StrCol) -> Result<()> {
    let mut id = [0u8; N];
    if text.is_empty() || !hex_id::<N>(text, &mut id)? {
        col.push(b"");
    } else {
        col.push(&id);
    }
    Ok(())
}

/// Notes member number `bit` of an object; refuses one seen twice (msgspec would keep the
/// last: the Python path decides).
fn once(seen: &mut u32, bit: u32) -> Result<()> {
    if *seen & (1 << bit) != 0 {
        return Err(Decline);
    }
    *seen |= 1 << bit;
    Ok(())
}

/// Notes that an object has the member `key`, if it is one of `names` (member number = its
/// index there; see `once`).
fn member(seen: &mut u32, key: &str, names: &[&str]) -> Result<()> {
    match names.iter().position(|name| *name == key) {
        Some(i) => once(seen, i as u32),
        None => Ok(()),
    }
}

/// Whether member number `bit` was seen.
fn has(seen: u32, bit: u32) -> bool {
    seen & (1 << bit) != 0
}

// Member numbers read back after an object (indexes in the tables below).
const KEY: u32 = 0;
const VALUE: u32 = 1;
const EVENT_ATTRIBUTES: u32 = 2;
const LINK_ATTRIBUTES: u32 = 3;
/// A span's `attributes` member number (see `once`).
const ATTRIBUTES: u32 = 8;

/// A list of attributes as one row of `map`.
fn attribute_row(p: &mut Json, map: &mut MapCol, max_chars: usize) -> Result<()> {
    attributes(
        p,
        &mut map.key_dict,
        &mut map.keys,
        &mut map.values,
        max_chars,
    )?;
    map.end_row();
    Ok(())
}

/// Parse a list of `KeyValue`s into `keys` and `values` (one entry each per attribute).
fn attributes(
    p: &mut Json,
    dict: &mut Dict,
    keys: &mut Vec<i32>,
    values: &mut StrCol,
    max_chars: usize,
) -> Result<()> {
    p.array()?;
    let mut first = true;
    while p.item(&mut first)? {
        p.object()?;
        let mut first_key = true;
        let mut seen = 0;
        // The usual `{"key":"…","value":{…}}`, written compactly, skips the general key path.
        if p.exactly(b"\"key\":") {
            (first_key, seen) = (false, 1 << KEY);
            keys.push(dict.code(p.string()?.as_bytes()));
            if p.exactly(b",\"value\":") {
                seen |= 1 << VALUE;
                attribute_value(p, values, max_chars)?;
            }
        }
        while let Some(name) = p.key(&mut first_key)? {
            member(&mut seen, &name, &KEY_VALUE)?;
            match &*name {
                "key" => keys.push(dict.code(p.string()?.as_bytes())),
                "value" => attribute_value(p, values, max_chars)?,
                _ => p.skip()?,
            }
        }
        if !has(seen, KEY) {
            keys.push(dict.code(b""));
        }
        if !has(seen, VALUE) {
            values.end();
        }
    }
    Ok(())
}

/// An attribute's value, as the column's next string ("" for null).
fn attribute_value(p: &mut Json, values: &mut StrCol, max_chars: usize) -> Result<()> {
    if !p.null()? {
        let start = values.data.len();
        any_value(p, &mut values.data, Mode::Column)?;
        let written = &values.data[start..];
        // Cut to the limit, with a note, by the Python path.
        if written.len() > max_chars
            && std::str::from_utf8(written)
                .map_err(|_| Decline)?
                .chars()
                .count()
                > max_chars
        {
            return Err(Decline);
        }
    }
    values.end();
    Ok(())
}

impl Builder {
    pub fn new(max_value_chars: usize) -> Self {
        Builder {
            max_value_chars,
            seen: FxHashMap::default(),
            start: Vec::new(),
            trace: StrCol::new(),
            span: StrCol::new(),
            parent: StrCol::new(),
            state: StrCol::new(),
            name: DictCol::new(),
            kind: DictCol::new(),
            service: DictCol::new(),
            resource: MapCol::new(),
            scope_name: DictCol::new(),
            scope_version: DictCol::new(),
            attributes: MapCol::new(),
            duration: Vec::new(),
            code: DictCol::new(),
            message: StrCol::new(),
            event_offsets: vec![0],
            event_time: Vec::new(),
            event_name: StrCol::new(),
            event_attributes: MapCol::new(),
            link_offsets: vec![0],
            link_trace: StrCol::new(),
            link_span: StrCol::new(),
            link_state: StrCol::new(),
            link_attributes: MapCol::new(),
            low: 0,
            high: 0,
            line_keys: Vec::new(),
        }
    }

    pub fn rows(&self) -> usize {
        self.start.len()
    }

    /// Bytes held in the columns (roughly).
    pub fn nbytes(&self) -> usize {
        self.rows() * 120
            + self.attributes.nbytes()
            + self.resource.nbytes()
            + self.event_attributes.nbytes()
            + self.link_attributes.nbytes()
            + self.state.data.len()
            + self.message.data.len()
            + self.event_name.data.len()
    }

    fn biggest_buffer(&self) -> usize {
        [
            self.attributes.values.data.len(),
            self.resource.values.data.len(),
            self.event_attributes.values.data.len(),
            self.link_attributes.values.data.len(),
            self.state.data.len(),
            self.message.data.len(),
            self.event_name.data.len(),
            self.link_state.data.len(),
            self.name.dict.values.data.len(),
            self.attributes.keys.len(),
            self.resource.keys.len(),
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
    }

    /// Forget the rows and the keys seen (after the chunk was taken).
    pub fn clear(&mut self) {
        self.seen.clear();
        self.truncate(Mark {
            rows: 0,
            events: 0,
            links: 0,
        });
        for col in [
            &mut self.name,
            &mut self.kind,
            &mut self.service,
            &mut self.scope_name,
            &mut self.scope_version,
            &mut self.code,
        ] {
            col.clear();
        }
        for col in [
            &mut self.resource,
            &mut self.attributes,
            &mut self.event_attributes,
            &mut self.link_attributes,
        ] {
            col.clear();
        }
        self.low = 0;
        self.high = 0;
    }

    fn mark(&self) -> Mark {
        Mark {
            rows: self.rows(),
            events: self.event_time.len(),
            links: self.link_trace.len(),
        }
    }

    /// Cut every column back to `mark` (dictionaries keep their entries: unused ones are harmless).
    fn truncate(&mut self, mark: Mark) {
        let rows = mark.rows;
        self.start.truncate(rows);
        for col in [
            &mut self.trace,
            &mut self.span,
            &mut self.parent,
            &mut self.state,
            &mut self.message,
        ] {
            col.truncate(rows);
        }
        for col in [
            &mut self.name,
            &mut self.kind,
            &mut self.service,
            &mut self.scope_name,
            &mut self.scope_version,
            &mut self.code,
        ] {
            col.codes.truncate(rows);
        }
        self.resource.truncate(rows);
        self.attributes.truncate(rows);
        self.duration.truncate(rows);
        self.event_offsets.truncate(rows + 1);
        self.link_offsets.truncate(rows + 1);
        self.event_time.truncate(mark.events);
        self.event_name.truncate(mark.events);
        self.event_attributes.truncate(mark.events);
        self.link_trace.truncate(mark.links);
        self.link_span.truncate(mark.links);
        self.link_state.truncate(mark.links);
        self.link_attributes.truncate(mark.links);
    }

    pub fn add_line(&mut self, line: &[u8]) -> Outcome {
        let mark = self.mark();
        let (low, high) = (self.low, self.high);
        self.line_keys.clear();
        let mut counts = (0, 0);
        let taken = self.line(&mut Json::new(line), &mut counts);
        if taken.is_err() || self.biggest_buffer() >= MAX_BYTES {
            self.truncate(mark);
            self.low = low;
            self.high = high;
            for key in self.line_keys.drain(..) {
                self.seen.remove(&key);
            }
            return if taken.is_ok() && mark.rows > 0 {
                Outcome::Full
            } else {
                Outcome::Declined
            };
        }
        Outcome::Taken(counts.0, counts.1)
    }

    /// `{"resourceSpans": [...]}` or `{"result": {"resourceSpans": [...]}}`.
    fn line(&mut self, p: &mut Json, counts: &mut (usize, usize)) -> Result<()> {
        p.object()?;
        let mut first = true;
        let mut seen = 0;
        while let Some(key) = p.key(&mut first)? {
            // Both, or either twice: the Python path decides.
            member(
                &mut seen,
                if key == "result" {
                    "resourceSpans"
                } else {
                    &key
                },
                &["resourceSpans"],
            )?;
            match &*key {
                "resourceSpans" => self.resource_spans_list(p, counts)?,
                "result" => {
                    p.object()?;
                    let mut first_inner = true;
                    let mut inner = 0;
                    while let Some(key) = p.key(&mut first_inner)? {
                        member(&mut inner, &key, &["resourceSpans"])?;
                        if key == "resourceSpans" {
                            self.resource_spans_list(p, counts)?;
                        } else {
                            p.skip()?;
                        }
                    }
                }
                _ => p.skip()?,
            }
        }
        if seen == 0 {
            return Err(Decline); // not OTLP: a Jaeger export, an error answer...
        }
        p.end()
    }

    fn resource_spans_list(&mut self, p: &mut Json, counts: &mut (usize, usize)) -> Result<()> {
        p.array()?;
        let mut first = true;
        while p.item(&mut first)? {
            p.object()?;
            let mut first_key = true;
            let mut resource: Option<ResourceRow> = None;
            let mut seen = 0;
            while let Some(key) = p.key(&mut first_key)? {
                member(&mut seen, &key, &["scopeSpans"])?;
                match &*key {
                    "resource" => {
                        if resource.is_some() {
                            return Err(Decline); // twice, or after its spans
                        }
                        resource = Some(self.resource_row(p)?);
                    }
                    "scopeSpans" => {
                        let resource = resource.get_or_insert_with(|| self.empty_resource());
                        self.scope_spans_list(p, resource, counts)?;
                    }
                    _ => p.skip()?,
                }
            }
        }
        Ok(())
    }

    fn empty_resource(&mut self) -> ResourceRow {
        ResourceRow {
            service: self.service.dict.code(b""),
            ..ResourceRow::default()
        }
    }

    fn resource_row(&mut self, p: &mut Json) -> Result<ResourceRow> {
        let mut row = self.empty_resource();
        if p.null()? {
            return Ok(row);
        }
        p.object()?;
        let mut first = true;
        let mut seen = 0;
        while let Some(key) = p.key(&mut first)? {
            member(&mut seen, &key, &["attributes"])?;
            if key == "attributes" {
                attributes(
                    p,
                    &mut self.resource.key_dict,
                    &mut row.keys,
                    &mut row.values,
                    self.max_value_chars,
                )?;
            } else {
                p.skip()?;
            }
        }
        // pdata's Map.Get, which the exporter uses, finds the first entry with the key.
        if let Some(code) = self.resource.key_dict.get(b"service.name") {
            if let Some(i) = row.keys.iter().position(|&k| k == code) {
                let value = &row.values.data
                    [row.values.offsets[i] as usize..row.values.offsets[i + 1] as usize];
                row.service = self.service.dict.code(value);
            }
        }
        Ok(row)
    }

    fn scope_spans_list(
        &mut self,
        p: &mut Json,
        resource: &ResourceRow,
        counts: &mut (usize, usize),
    ) -> Result<()> {
        p.array()?;
        let mut first = true;
        while p.item(&mut first)? {
            p.object()?;
            let mut first_key = true;
            let mut scope: Option<(i32, i32)> = None;
            let mut seen = 0;
            while let Some(key) = p.key(&mut first_key)? {
                match &*key {
                    "scope" => {
                        if scope.is_some() {
                            return Err(Decline); // twice, or after its spans
                        }
                        scope = Some(self.scope(p)?);
                    }
                    "spans" => {
                        member(&mut seen, &key, &["spans"])?;
                        let scope = *scope.get_or_insert_with(|| {
                            (
                                self.scope_name.dict.code(b""),
                                self.scope_version.dict.code(b""),
                            )
                        });
                        p.array()?;
                        let mut first_span = true;
                        while p.item(&mut first_span)? {
                            if self.span(p, resource, scope)? {
                                counts.0 += 1;
                            } else {
                                counts.1 += 1;
                            }
                        }
                    }
                    _ => p.skip()?,
                }
            }
        }
        Ok(())
    }

    fn scope(&mut self, p: &mut Json) -> Result<(i32, i32)> {
        let (mut name, mut version) = (Cow::Borrowed(""), Cow::Borrowed(""));
        if !p.null()? {
            p.object()?;
            let mut first = true;
            let mut seen = 0;
            while let Some(key) = p.key(&mut first)? {
                member(&mut seen, &key, &SCOPE)?;
                match &*key {
                    "name" => name = p.string()?,
                    "version" => version = p.string()?,
                    _ => p.skip()?,
                }
            }
        }
        Ok((
            self.scope_name.dict.code(name.as_bytes()),
            self.scope_version.dict.code(version.as_bytes()),
        ))
    }

    /// Parse and add one span; `Ok(false)` for a duplicate of a span already in this chunk
    /// (a copy with another start time declines the line).
    fn span(&mut self, p: &mut Json, resource: &ResourceRow, scope: (i32, i32)) -> Result<bool> {
        let before = self.mark();
        let max = self.max_value_chars;
        let (mut trace_id, mut span_id, mut parent, mut state, mut name) = (
            Cow::Borrowed(""),
            Cow::Borrowed(""),
            Cow::Borrowed(""),
            Cow::Borrowed(""),
            Cow::Borrowed(""),
        );
        let mut kind = "Unspecified";
        let (mut start, mut end) = (0, 0);
        let (mut code, mut message) = ("Unset", Cow::Borrowed(""));
        let mut seen = 0;
        p.object()?;
        let mut first = true;
        while let Some(key) = p.key(&mut first)? {
            let bit = match &*key {
                "traceId" => {
                    trace_id = p.string()?;
                    0
                }
                "spanId" => {
                    span_id = p.string()?;
                    1
                }
                "parentSpanId" => {
                    parent = p.string()?;
                    2
                }
                "traceState" => {
                    state = p.string()?;
                    3
                }
                "name" => {
                    name = p.string()?;
                    4
                }
                "kind" => {
                    kind = enum_name(p, &KINDS)?;
                    5
                }
                "startTimeUnixNano" => {
                    start = int64(p, false)?;
                    6
                }
                "endTimeUnixNano" => {
                    end = int64(p, false)?;
                    7
                }
                "attributes" => {
                    attribute_row(p, &mut self.attributes, max)?;
                    ATTRIBUTES
                }
                "events" => {
                    self.events(p)?;
                    9
                }
                "links" => {
                    self.links(p)?;
                    10
                }
                "status" => {
                    if !p.null()? {
                        (code, message) = status(p)?;
                    }
                    11
                }
                _ => {
                    p.skip()?;
                    continue;
                }
            };
            once(&mut seen, bit)?;
        }
        let mut key: Key = [0; 48];
        if !hex_id::<32>(&trace_id, &mut key[..32])? || !hex_id::<16>(&span_id, &mut key[32..])? {
            return Err(Decline); // "no traceId" / "no spanId"
        }
        if let Some(&earlier) = self.seen.get(&key) {
            if earlier.abs_diff(start) >= SAME_START_NS as u64 {
                // A copy with other content: Python names it, with its file and line.
                return Err(Decline);
            }
            // What this duplicate wrote of its attributes, events and links goes.
            self.truncate(before);
            return Ok(false);
        }
        self.seen.insert(key, start);
        self.line_keys.push(key);
        if start == 0 || end < start {
            return Err(Decline); // skipped, or Duration set to 0 with a note
        }
        optional_id::<16>(&parent, &mut self.parent)?;
        if seen & (1 << ATTRIBUTES) == 0 {
            self.attributes.end_row();
        }
        self.start.push(start);
        self.trace.push(&key[..32]);
        self.span.push(&key[32..]);
        self.state.push(state.as_bytes());
        self.name.push(name.as_bytes());
        self.kind.push(kind.as_bytes());
        self.service.codes.push(resource.service);
        let base = self.resource.values.data.len() as i32;
        self.resource.keys.extend_from_slice(&resource.keys);
        self.resource
            .values
            .data
            .extend_from_slice(&resource.values.data);
        self.resource
            .values
            .offsets
            .extend(resource.values.offsets[1..].iter().map(|o| o + base));
        self.resource.end_row();
        self.scope_name.codes.push(scope.0);
        self.scope_version.codes.push(scope.1);
        self.duration.push((end - start) as u64);
        self.code.push(code.as_bytes());
        self.message.push(message.as_bytes());
        self.event_offsets.push(self.event_time.len() as i32);
        self.link_offsets.push(self.link_trace.len() as i32);
        if self.low == 0 || start < self.low {
            self.low = start;
        }
        self.high = self.high.max(start);
        Ok(true)
    }

    fn events(&mut self, p: &mut Json) -> Result<()> {
        let max = self.max_value_chars;
        p.array()?;
        let mut first = true;
        while p.item(&mut first)? {
            let (mut time, mut name) = (0, Cow::Borrowed(""));
            let mut seen = 0;
            p.object()?;
            let mut first_key = true;
            while let Some(key) = p.key(&mut first_key)? {
                member(&mut seen, &key, &EVENT)?;
                match &*key {
                    "timeUnixNano" => time = int64(p, false)?,
                    "name" => name = p.string()?,
                    "attributes" => attribute_row(p, &mut self.event_attributes, max)?,
                    _ => p.skip()?,
                }
            }
            if !has(seen, EVENT_ATTRIBUTES) {
                self.event_attributes.end_row();
            }
            self.event_time.push(time);
            self.event_name.push(name.as_bytes());
        }
        Ok(())
    }

    fn links(&mut self, p: &mut Json) -> Result<()> {
        let max = self.max_value_chars;
        p.array()?;
        let mut first = true;
        while p.item(&mut first)? {
            let (mut trace_id, mut span_id, mut state) =
                (Cow::Borrowed(""), Cow::Borrowed(""), Cow::Borrowed(""));
            let mut seen = 0;
            p.object()?;
            let mut first_key = true;
            while let Some(key) = p.key(&mut first_key)? {
                member(&mut seen, &key, &LINK)?;
                match &*key {
                    "traceId" => trace_id = p.string()?,
                    "spanId" => span_id = p.string()?,
                    "traceState" => state = p.string()?,
                    "attributes" => attribute_row(p, &mut self.link_attributes, max)?,
                    _ => p.skip()?,
                }
            }
            if !has(seen, LINK_ATTRIBUTES) {
                self.link_attributes.end_row();
            }
            optional_id::<32>(&trace_id, &mut self.link_trace)?;
            optional_id::<16>(&span_id, &mut self.link_span)?;
            self.link_state.push(state.as_bytes());
        }
        Ok(())
    }
}

fn status<'a>(p: &mut Json<'a>) -> Result<(&'static str, Cow<'a, str>)> {
    let (mut code, mut message) = ("Unset", Cow::Borrowed(""));
    p.object()?;
    let mut first = true;
    let mut seen = 0;
    while let Some(key) = p.key(&mut first)? {
        member(&mut seen, &key, &STATUS)?;
        match &*key {
            "code" => code = enum_name(p, &CODES)?,
            "message" => message = p.string()?,
            _ => p.skip()?,
        }
    }
    Ok((code, message))
}
