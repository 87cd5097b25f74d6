//! OTLP JSON lines to `otel_traces` columns, with the rules of
//! `ragfunnel/analyzer/ingest/rows.py` (which documents them).
//!
//! One pass over the line: attribute values are written into their columns as they are parsed.
//! A line is taken whole or not at all: anything that Python would report (a skipped span, a
//! repaired value, a duration clamped to 0) or that this module does not handle makes the line
//! `Outcome::Declined`, with every column cut back to where it was, and the Python path reads it.
//! So does a resource that comes after its spans, or a scope after its spans (the SDK and the
//! collector write them first).
//!
//! This module holds the builder, its columns and the line; `span_records.rs` the resource,
//! scope and span records it writes; `otlp_fields.rs` the field vocabulary and small readers.

use rustc_hash::FxHashMap;

use crate::columns::{DictCol, MapCol, StrCol, MAX_BYTES};
use crate::json::Json;
use crate::otlp_fields::member;
use crate::values::{Decline, Result};

pub enum Outcome {
    /// Spans added and duplicates passed over.
    Taken(usize, usize),
    Declined,
    /// The chunk's columns would outgrow 32-bit offsets: end the chunk, then offer it again.
    Full,
}

pub(crate) type Key = [u8; 48];

/// Two copies of a span whose start times differ by less than this (ns) are the same span:
/// Jaeger keeps microseconds only (`span_fields.py`, `SAME_START_NS`).
pub const SAME_START_NS: i64 = 1_000;

pub struct Builder {
    pub(crate) max_value_chars: usize,
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
    pub(crate) line_keys: Vec<Key>,
}

/// Where the columns stood: rows, events and links.
#[derive(Clone, Copy)]
pub(crate) struct Mark {
    rows: usize,
    events: usize,
    links: usize,
}

/// A resource's attributes, converted once for all its spans.
#[derive(Default)]
pub(crate) struct ResourceRow {
    pub(crate) keys: Vec<i32>,
    pub(crate) values: StrCol,
    pub(crate) service: i32,
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

    pub(crate) fn mark(&self) -> Mark {
        Mark {
            rows: self.rows(),
            events: self.event_time.len(),
            links: self.link_trace.len(),
        }
    }

    /// Cut every column back to `mark` (dictionaries keep their entries: unused ones are harmless).
    pub(crate) fn truncate(&mut self, mark: Mark) {
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
}
