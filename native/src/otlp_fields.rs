//! The OTLP JSON field vocabulary and the small readers the span converter shares:
//! enum names, hex ids, the member checks of an object, attributes and the status.
//! `convert.rs` holds the builder and the line; `span_records.rs` the resource, scope
//! and span records.

use std::borrow::Cow;

use crate::columns::{Dict, MapCol, StrCol};
use crate::json::Json;
use crate::values::{any_value, int64, Decline, Mode, Result};

pub(crate) const KINDS: [(&str, &str); 6] = [
    ("SPAN_KIND_UNSPECIFIED", "Unspecified"),
    ("SPAN_KIND_INTERNAL", "Internal"),
    ("SPAN_KIND_SERVER", "Server"),
    ("SPAN_KIND_CLIENT", "Client"),
    ("SPAN_KIND_PRODUCER", "Producer"),
    ("SPAN_KIND_CONSUMER", "Consumer"),
];
// The members of each object that may appear once (see `member`).
pub(crate) const KEY_VALUE: [&str; 2] = ["key", "value"];
pub(crate) const SCOPE: [&str; 2] = ["name", "version"];
pub(crate) const EVENT: [&str; 3] = ["timeUnixNano", "name", "attributes"];
pub(crate) const LINK: [&str; 4] = ["traceId", "spanId", "traceState", "attributes"];
pub(crate) const STATUS: [&str; 2] = ["code", "message"];

pub(crate) const CODES: [(&str, &str); 3] = [
    ("STATUS_CODE_UNSET", "Unset"),
    ("STATUS_CODE_OK", "Ok"),
    ("STATUS_CODE_ERROR", "Error"),
];

/// pdata's `String()` of a span kind or status code given as a number or as its enum name;
/// any other number or name gives "".
pub(crate) fn enum_name(p: &mut Json, names: &[(&str, &'static str)]) -> Result<&'static str> {
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
pub(crate) fn hex_id<const N: usize>(text: &str, out: &mut [u8]) -> Result<bool> {
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
pub(crate) fn optional_id<const N: usize>(text: &str, col: &mut StrCol) -> Result<()> {
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
pub(crate) fn once(seen: &mut u32, bit: u32) -> Result<()> {
    if *seen & (1 << bit) != 0 {
        return Err(Decline);
    }
    *seen |= 1 << bit;
    Ok(())
}

/// Notes that an object has the member `key`, if it is one of `names` (member number = its
/// index there; see `once`).
pub(crate) fn member(seen: &mut u32, key: &str, names: &[&str]) -> Result<()> {
    match names.iter().position(|name| *name == key) {
        Some(i) => once(seen, i as u32),
        None => Ok(()),
    }
}

/// Whether member number `bit` was seen.
pub(crate) fn has(seen: u32, bit: u32) -> bool {
    seen & (1 << bit) != 0
}

// Member numbers read back after an object (indexes in the tables below).
pub(crate) const KEY: u32 = 0;
pub(crate) const VALUE: u32 = 1;
pub(crate) const EVENT_ATTRIBUTES: u32 = 2;
pub(crate) const LINK_ATTRIBUTES: u32 = 3;
/// A span's `attributes` member number (see `once`).
pub(crate) const ATTRIBUTES: u32 = 8;

/// A list of attributes as one row of `map`.
pub(crate) fn attribute_row(p: &mut Json, map: &mut MapCol, max_chars: usize) -> Result<()> {
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
pub(crate) fn attributes(
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
pub(crate) fn attribute_value(p: &mut Json, values: &mut StrCol, max_chars: usize) -> Result<()> {
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

pub(crate) fn status<'a>(p: &mut Json<'a>) -> Result<(&'static str, Cow<'a, str>)> {
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
