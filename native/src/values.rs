//! Attribute values as the collector's clickhouseexporter stores them (pdata `Value.AsString`).
//!
//! The same rules as `ragfunnel/analyzer/ingest/values.py`, which documents them: strings as
//! they are, integers in decimal, doubles in Go's JSON number format, booleans `true`/`false`,
//! arrays as compact JSON. Values this module does not handle — maps, bytes, doubles written
//! as strings, integers written other than as plain digits, an explicit `null`, two value
//! fields in one — give `Err(Decline)`: the Python path reads the line instead. (A NaN or an
//! infinity inside an array, which makes the exporter write "", can only come from a string
//! double here, so it never reaches this module.)

use crate::json::{parse_number, Json, Number};

/// This line is left to the Python path (it may need a message, or a rule only Python has).
#[derive(Debug)]
pub struct Decline;

pub type Result<T> = std::result::Result<T, Decline>;

/// Where a value's text goes: a column as it is, or inside an array's JSON.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Column,
    Json,
}

/// An int64 written as plain decimal digits (and a sign, if `signed`).
pub fn parse_digits(text: &str, signed: bool) -> Result<i64> {
    // Only the canonical form: Python's int() also takes spaces, '+', '_' and other scripts'
    // digits, which the Python path handles.
    let digits = match text.strip_prefix('-') {
        Some(rest) if signed => rest,
        _ => text,
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Decline);
    }
    text.parse::<i64>().map_err(|_| Decline)
}

/// protobuf JSON's int64: a JSON integer or a string of digits.
pub fn int64(p: &mut Json, signed: bool) -> Result<i64> {
    let v = if p.peek()? == b'"' {
        parse_digits(&p.string()?, signed)?
    } else {
        match p.number()? {
            Number::Int(v) => v,
            Number::Float(_) => return Err(Decline),
        }
    };
    if !signed && v < 0 {
        return Err(Decline);
    }
    Ok(v)
}

/// Parse one OTLP `AnyValue` object and append its text to `out`.
pub fn any_value(p: &mut Json, out: &mut Vec<u8>, mode: Mode) -> Result<()> {
    p.object()?;
    let mut first = true;
    let mut set = false;
    // The usual cases, `{"stringValue":…}` and `{"doubleValue":…}` written compactly, skip the
    // general key path.
    let fast = if p.exactly(b"\"stringValue\":") {
        Some("stringValue")
    } else if p.exactly(b"\"doubleValue\":") {
        Some("doubleValue")
    } else {
        None
    };
    if let Some(key) = fast {
        (first, set) = (false, true);
        value_field(p, key, out, mode)?;
    }
    while let Some(key) = p.key(&mut first)? {
        match &*key {
            "stringValue" | "intValue" | "doubleValue" | "boolValue" | "arrayValue" => {}
            "kvlistValue" | "bytesValue" => return Err(Decline),
            _ => {
                p.skip()?;
                continue;
            }
        }
        if set {
            return Err(Decline);
        }
        set = true;
        value_field(p, &key, out, mode)?;
    }
    if !set && mode == Mode::Json {
        out.extend_from_slice(b"null");
    }
    Ok(())
}

/// One of `AnyValue`'s value fields, `key`, which is not null.
fn value_field(p: &mut Json, key: &str, out: &mut Vec<u8>, mode: Mode) -> Result<()> {
    if p.null()? {
        return Err(Decline);
    }
    match key {
        "stringValue" => string_value(p, out, mode)?,
        "intValue" => write_int(int64(p, true)?, out),
        "doubleValue" => {
            if p.peek()? == b'"' {
                return Err(Decline);
            }
            let (text, integer) = p.number_text()?;
            if let Some(same) = shortest_as_written(text, integer) {
                out.extend_from_slice(same.as_bytes());
            } else {
                let v = match parse_number(text, integer)? {
                    Number::Int(v) => v as f64,
                    Number::Float(v) => v,
                };
                go_float(v, out);
            }
        }
        "boolValue" => out.extend_from_slice(if p.boolean()? { b"true" } else { b"false" }),
        _ => array_value(p, out)?,
    }
    Ok(())
}

fn string_value(p: &mut Json, out: &mut Vec<u8>, mode: Mode) -> Result<()> {
    let (text, plain) = p.string_raw()?;
    if mode == Mode::Column {
        out.extend_from_slice(text.as_bytes());
    } else if plain && (text.is_ascii() || !has_line_separators(&text)) {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        json_string(&text, out);
    }
    Ok(())
}

fn array_value(p: &mut Json, out: &mut Vec<u8>) -> Result<()> {
    p.object()?;
    let mut first = true;
    let mut found = false;
    if p.exactly(b"\"values\":") {
        (first, found) = (false, true);
        array_values(p, out)?;
    }
    while let Some(key) = p.key(&mut first)? {
        if key != "values" {
            p.skip()?;
            continue;
        }
        if found {
            return Err(Decline);
        }
        found = true;
        array_values(p, out)?;
    }
    if !found {
        out.extend_from_slice(b"[]");
    }
    Ok(())
}

/// An `ArrayValue`'s `values` list, as JSON.
fn array_values(p: &mut Json, out: &mut Vec<u8>) -> Result<()> {
    if p.null()? {
        return Err(Decline);
    }
    p.array()?;
    out.push(b'[');
    let mut first = true;
    let mut count = 0;
    while p.item(&mut first)? {
        if count > 0 {
            out.push(b',');
        }
        count += 1;
        any_value(p, out, Mode::Json)?;
    }
    out.push(b']');
    Ok(())
}

pub fn write_int(v: i64, out: &mut Vec<u8>) {
    let mut buf = [0u8; 20];
    let mut n = v.unsigned_abs();
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&buf[i..]);
}

/// The text Go would write for the double a JSON number's `text` denotes, when that is the
/// text itself (or it without a `.0`): a plain decimal of at most 15 significant digits, none
/// of them a trailing zero, in Go's fixed-notation range. Such a decimal is the shortest that
/// reads back as its double (two decimals of 15 digits never share a double), so formatting
/// the parsed double would give it back. Scores are usually written so.
fn shortest_as_written(text: &str, integer: bool) -> Option<&str> {
    let body = text.strip_prefix('-').unwrap_or(text);
    if integer {
        // A JSON integer read as a double; "-0" is the double 0, written "0".
        return (body.len() <= 15 && text != "-0").then_some(text);
    }
    let (whole, fraction) = body.split_once('.')?;
    if fraction.contains(['e', 'E']) || whole.len() > 15 {
        return None;
    }
    if fraction == "0" {
        return Some(&text[..text.len() - 2]); // "2.0" is written "2", "-0.0" "-0"
    }
    if fraction.ends_with('0') {
        return None;
    }
    let significant = if whole == "0" {
        let zeros = fraction.len() - fraction.trim_start_matches('0').len();
        if zeros >= 6 {
            return None; // below 1e-6: exponent notation
        }
        fraction.len() - zeros
    } else {
        whole.len() + fraction.len()
    };
    (significant <= 15).then_some(text)
}

/// A finite double as Go's encoding/json writes it: shortest round-trip digits, fixed
/// notation for magnitudes in [1e-6, 1e21), exponent notation (`1e+21`, `1.5e-7`) outside.
pub fn go_float(v: f64, out: &mut Vec<u8>) {
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(v).as_bytes(); // "1.5e-7", "1e21", "0.001", "12.0"
    let (negative, text) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    if negative {
        out.push(b'-');
    }
    // Shortest digits and the decimal exponent of the first one: v = d.ddd × 10^exponent.
    let (mantissa, mut exponent) = match text.iter().position(|&b| b == b'e') {
        Some(e) => (
            &text[..e],
            std::str::from_utf8(&text[e + 1..])
                .unwrap()
                .parse::<i32>()
                .unwrap(),
        ),
        None => (text, 0),
    };
    let point = mantissa
        .iter()
        .position(|&b| b == b'.')
        .unwrap_or(mantissa.len());
    let mut digits = [0u8; 32];
    let mut n = 0;
    for &b in mantissa.iter().filter(|b| b.is_ascii_digit()) {
        digits[n] = b;
        n += 1;
    }
    exponent += point as i32 - 1;
    let leading = digits[..n].iter().take_while(|&&d| d == b'0').count();
    if leading == n {
        out.push(b'0'); // zero (the sign is already written)
        return;
    }
    exponent -= leading as i32;
    let mut digits = &digits[leading..n];
    while digits.len() > 1 && digits[digits.len() - 1] == b'0' {
        digits = &digits[..digits.len() - 1];
    }
    if !(-7 < exponent && exponent < 21) {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if exponent < 0 { b'-' } else { b'+' });
        write_int(i64::from(exponent.unsigned_abs()), out);
    } else if exponent >= 0 {
        let whole = exponent as usize + 1;
        for i in 0..whole {
            out.push(*digits.get(i).unwrap_or(&b'0'));
        }
        if digits.len() > whole {
            out.push(b'.');
            out.extend_from_slice(&digits[whole..]);
        }
    } else {
        out.extend_from_slice(b"0.");
        out.resize(out.len() + (-exponent - 1) as usize, b'0');
        out.extend_from_slice(digits);
    }
}

fn has_line_separators(text: &str) -> bool {
    // U+2028 and U+2029 are E2 80 A8 / E2 80 A9.
    text.contains('\u{2028}') || text.contains('\u{2029}')
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// `text` as a JSON string, escaped as Go's encoder does without HTML escaping: `"`, `\`,
/// control characters (`\b \f \n \r \t`, else `\u00XX`), and U+2028 / U+2029.
pub fn json_string(text: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let mut buf = [0u8; 4];
    for ch in text.chars() {
        match ch {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            '\u{2028}' => out.extend_from_slice(b"\\u2028"),
            '\u{2029}' => out.extend_from_slice(b"\\u2029"),
            c if (c as u32) < 0x20 => {
                let b = c as u8;
                out.extend_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[(b >> 4) as usize],
                    HEX[(b & 15) as usize],
                ]);
            }
            c => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
    out.push(b'"');
}
