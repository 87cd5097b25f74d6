//! ragfunnel's native ingest converter: OTLP JSON lines to the Arrow buffers of
//! `otel_traces` rows, exactly as `ragfunnel.analyzer.ingest.rows.RowBuilder` makes them; and
//! plain JSON Lines cases to the columns `plain_shapes.plain_batch` makes (`cases.rs`).
//!
//! Python keeps every decision that needs words (skips, notes, file:line messages): this module
//! takes a line only when the Python path would take it silently, and declines it otherwise.

mod cases;
mod columns;
mod convert;
mod json;
mod otlp_fields;
mod span_records;
mod values;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

use columns::{DictCol, MapCol, StrCol};
use convert::{Builder, Outcome};

/// Accumulates OTLP JSON lines as `otel_traces` columns for one chunk.
#[pyclass(module = "ragfunnel_native")]
struct Converter {
    builder: Builder,
}

fn raw<T: Copy>(values: &[T]) -> &[u8] {
    // SAFETY: plain integers, read as their bytes in native order, as Arrow buffers hold them.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
    }
}

fn bytes<'py, T: Copy>(py: Python<'py>, values: &[T]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, raw(values))
}

fn strings<'py>(py: Python<'py>, col: &StrCol) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, [bytes(py, &col.offsets), bytes(py, &col.data)])
}

fn dictionary<'py>(py: Python<'py>, col: &DictCol) -> PyResult<Bound<'py, PyTuple>> {
    let values = &col.dict.values;
    PyTuple::new(
        py,
        [
            bytes(py, &col.codes),
            bytes(py, &values.offsets),
            bytes(py, &values.data),
        ],
    )
}

fn map<'py>(py: Python<'py>, col: &MapCol) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(
        py,
        [
            bytes(py, &col.offsets),
            bytes(py, &col.keys),
            bytes(py, &col.key_dict.values.offsets),
            bytes(py, &col.key_dict.values.data),
            bytes(py, &col.values.offsets),
            bytes(py, &col.values.data),
        ],
    )
}

#[pymethods]
impl Converter {
    #[new]
    fn new(max_value_chars: usize) -> Self {
        Converter {
            builder: Builder::new(max_value_chars),
        }
    }

    /// Take one line: ``(0, spans added, duplicates passed over)``; ``(1, 0, 0)`` when it is
    /// left to the Python path; ``(2, 0, 0)`` when the chunk is full (take it, then retry).
    fn add_line(&mut self, py: Python<'_>, line: &[u8]) -> (u8, usize, usize) {
        let builder = &mut self.builder;
        match py.detach(|| builder.add_line(line)) {
            Outcome::Taken(added, duplicates) => (0, added, duplicates),
            Outcome::Declined => (1, 0, 0),
            Outcome::Full => (2, 0, 0),
        }
    }

    fn __len__(&self) -> usize {
        self.builder.rows()
    }

    /// Approximate bytes held.
    #[getter]
    fn nbytes(&self) -> usize {
        self.builder.nbytes()
    }

    /// Earliest and latest span start (ns) of the rows; 0 when there are none.
    #[getter]
    fn low(&self) -> i64 {
        self.builder.low
    }

    #[getter]
    fn high(&self) -> i64 {
        self.builder.high
    }

    /// The start time (ns) of the span ``TraceId + SpanId`` (48 lowercase hex digits) in this
    /// chunk, or None.
    fn seen_get(&self, key: &str) -> Option<i64> {
        <[u8; 48]>::try_from(key.as_bytes())
            .ok()
            .and_then(|k| self.builder.seen.get(&k).copied())
    }

    /// Record a span added by the Python path, with its start time, so that either path sees
    /// the other's spans.
    fn seen_add(&mut self, key: &str, start: i64) -> PyResult<()> {
        let key = <[u8; 48]>::try_from(key.as_bytes())
            .map_err(|_| pyo3::exceptions::PyValueError::new_err("a key is 48 hex digits"))?;
        self.builder.seen.insert(key, start);
        Ok(())
    }

    /// Forget the keys (the Python path's builder clears them with its rows).
    fn seen_clear(&mut self) {
        self.builder.seen.clear();
    }

    /// The buffers of every column, by ``otel_traces`` column name; the converter is cleared.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let b = &self.builder;
        let out = PyDict::new(py);
        out.set_item("rows", b.rows())?;
        out.set_item("Timestamp", PyTuple::new(py, [bytes(py, &b.start)])?)?;
        out.set_item("TraceId", strings(py, &b.trace)?)?;
        out.set_item("SpanId", strings(py, &b.span)?)?;
        out.set_item("ParentSpanId", strings(py, &b.parent)?)?;
        out.set_item("TraceState", strings(py, &b.state)?)?;
        out.set_item("SpanName", dictionary(py, &b.name)?)?;
        out.set_item("SpanKind", dictionary(py, &b.kind)?)?;
        out.set_item("ServiceName", dictionary(py, &b.service)?)?;
        out.set_item("ResourceAttributes", map(py, &b.resource)?)?;
        out.set_item("ScopeName", dictionary(py, &b.scope_name)?)?;
        out.set_item("ScopeVersion", dictionary(py, &b.scope_version)?)?;
        out.set_item("SpanAttributes", map(py, &b.attributes)?)?;
        out.set_item("Duration", PyTuple::new(py, [bytes(py, &b.duration)])?)?;
        out.set_item("StatusCode", dictionary(py, &b.code)?)?;
        out.set_item("StatusMessage", strings(py, &b.message)?)?;
        let events = bytes(py, &b.event_offsets);
        out.set_item("Events.Timestamp", (&events, bytes(py, &b.event_time)))?;
        out.set_item("Events.Name", (&events, strings(py, &b.event_name)?))?;
        out.set_item(
            "Events.Attributes",
            (&events, map(py, &b.event_attributes)?),
        )?;
        let links = bytes(py, &b.link_offsets);
        out.set_item("Links.TraceId", (&links, strings(py, &b.link_trace)?))?;
        out.set_item("Links.SpanId", (&links, strings(py, &b.link_span)?))?;
        out.set_item("Links.TraceState", (&links, strings(py, &b.link_state)?))?;
        out.set_item("Links.Attributes", (&links, map(py, &b.link_attributes)?))?;
        self.builder.clear();
        Ok(out)
    }
}

/// The plain cases of a block of JSON Lines (`cases.rs`) as Arrow buffers, or None: the Python
/// path reads the block. `(rows, id, question, answerable, kind, items, facts, reference,
/// has_reference)`: strings as `(offsets, data)`, lists as `(list offsets, offsets, data)`,
/// one byte a row for the rest.
#[pyfunction]
fn plain_cases<'py>(py: Python<'py>, block: &[u8]) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let Ok(found) = cases::read_block(block) else {
        return Ok(None);
    };
    let list = |col: &cases::ListCol| {
        PyTuple::new(
            py,
            [
                bytes(py, &col.offsets),
                bytes(py, &col.values.offsets),
                bytes(py, &col.values.data),
            ],
        )
    };
    let parts: [Bound<'py, PyAny>; 9] = [
        found.len().into_pyobject(py)?.into_any(),
        strings(py, &found.id)?.into_any(),
        strings(py, &found.question)?.into_any(),
        bytes(py, &found.answerable).into_any(),
        bytes(py, &found.kind).into_any(),
        list(&found.items)?.into_any(),
        list(&found.facts)?.into_any(),
        strings(py, &found.reference)?.into_any(),
        bytes(py, &found.has_reference).into_any(),
    ];
    Ok(Some(PyTuple::new(py, parts)?))
}

#[pymodule]
fn ragfunnel_native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Converter>()?;
    module.add_function(wrap_pyfunction!(plain_cases, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
