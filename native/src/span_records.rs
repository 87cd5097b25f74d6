//! The records of one OTLP JSON line, written into the builder's columns: a resource,
//! a scope, and each span with its events and links (the rules of
//! `ragfunnel/analyzer/ingest/rows.py`).

use std::borrow::Cow;

use crate::convert::{Builder, Key, ResourceRow, SAME_START_NS};
use crate::json::Json;
use crate::otlp_fields::*;
use crate::values::{int64, Decline, Result};

impl Builder {
    pub(crate) fn empty_resource(&mut self) -> ResourceRow {
        ResourceRow {
            service: self.service.dict.code(b""),
            ..ResourceRow::default()
        }
    }

    pub(crate) fn resource_row(&mut self, p: &mut Json) -> Result<ResourceRow> {
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

    pub(crate) fn scope_spans_list(
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

    pub(crate) fn scope(&mut self, p: &mut Json) -> Result<(i32, i32)> {
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
    pub(crate) fn span(
        &mut self,
        p: &mut Json,
        resource: &ResourceRow,
        scope: (i32, i32),
    ) -> Result<bool> {
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

    pub(crate) fn events(&mut self, p: &mut Json) -> Result<()> {
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

    pub(crate) fn links(&mut self, p: &mut Json) -> Result<()> {
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
