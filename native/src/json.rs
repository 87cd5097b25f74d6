//! A strict JSON pull parser over one line, borrowing from it.
//!
//! Strict as Python's and msgspec's decoders are: RFC 8259 grammar, strings of valid UTF-8
//! without raw control characters, escapes checked (a lone UTF-16 surrogate is refused: the
//! Python path replaces it with U+FFFD and says so), numbers that fit a double. Anything else
//! is `Decline`, and the line goes to the Python path, which names the problem.

use std::borrow::Cow;

use crate::values::{Decline, Result};

/// Nesting deeper than this is left to the Python path, which reads such a line span by span
/// and rejects the spans nested too deep (`ragfunnel/analyzer/ingest/depth.py`, `MAX_DEPTH`):
/// the parser's recursion is bounded by it.
const MAX_DEPTH: u32 = 128;

/// Bytes inside a string: 0 plain ASCII, 1 quote or backslash, 2 control, 3 beyond ASCII.
const CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = if i < 0x20 {
            2
        } else if i == b'"' as usize || i == b'\\' as usize {
            1
        } else if i >= 0x80 {
            3
        } else {
            0
        };
        i += 1;
    }
    table
};

pub struct Json<'a> {
    b: &'a [u8],
    i: usize,
    depth: u32,
}

/// A JSON number: an integer that fits an int64, or any other number as a finite double.
pub enum Number {
    Int(i64),
    Float(f64),
}

/// Past one or more ASCII digits from `i`.
fn digits(b: &[u8], mut i: usize) -> Result<usize> {
    let start = i;
    while let Some(b'0'..=b'9') = b.get(i) {
        i += 1;
    }
    if i == start {
        return Err(Decline);
    }
    Ok(i)
}

/// The value of a number's text (see [`Json::number_text`]).
pub fn parse_number(text: &str, integer: bool) -> Result<Number> {
    if integer {
        if let Ok(v) = text.parse::<i64>() {
            return Ok(Number::Int(v));
        }
    }
    let v: f64 = text.parse().map_err(|_| Decline)?;
    if !v.is_finite() {
        return Err(Decline); // "Number out of range"
    }
    Ok(Number::Float(v))
}

impl<'a> Json<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Json { b, i: 0, depth: 0 }
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    /// The next significant byte, not consumed.
    #[inline]
    pub fn peek(&mut self) -> Result<u8> {
        self.ws();
        self.b.get(self.i).copied().ok_or(Decline)
    }

    #[inline]
    fn eat(&mut self, c: u8) -> Result<()> {
        if self.peek()? == c {
            self.i += 1;
            Ok(())
        } else {
            Err(Decline)
        }
    }

    /// Only whitespace is left.
    pub fn end(&mut self) -> Result<()> {
        self.ws();
        if self.i == self.b.len() {
            Ok(())
        } else {
            Err(Decline)
        }
    }

    /// Whether `text` comes next, byte for byte (consumed if so). A fast path for compact JSON:
    /// on false nothing is consumed and the general path reads on.
    #[inline]
    pub fn exactly(&mut self, text: &[u8]) -> bool {
        let found = self.b[self.i..].starts_with(text);
        if found {
            self.i += text.len();
        }
        found
    }

    /// Whether the next value is `null` (consumed if so).
    pub fn null(&mut self) -> Result<bool> {
        if self.peek()? == b'n' {
            self.literal(b"null")?;
            return Ok(true);
        }
        Ok(false)
    }

    fn literal(&mut self, word: &[u8]) -> Result<()> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(Decline)
        }
    }

    pub fn boolean(&mut self) -> Result<bool> {
        match self.peek()? {
            b't' => self.literal(b"true").map(|_| true),
            b'f' => self.literal(b"false").map(|_| false),
            _ => Err(Decline),
        }
    }

    /// Enter an object: `{`.
    pub fn object(&mut self) -> Result<()> {
        self.eat(b'{')?;
        self.enter()
    }

    /// Enter an array: `[`.
    pub fn array(&mut self) -> Result<()> {
        self.eat(b'[')?;
        self.enter()
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Decline);
        }
        Ok(())
    }

    /// The next member's key (the parser then stands at its value), or None after the `}`.
    /// `first` is true before the first member.
    pub fn key(&mut self, first: &mut bool) -> Result<Option<Cow<'a, str>>> {
        if !self.next(b'}', first)? {
            return Ok(None);
        }
        let key = self.string()?;
        self.eat(b':')?;
        Ok(Some(key))
    }

    /// Whether another array item follows (the parser then stands at it), false after the `]`.
    pub fn item(&mut self, first: &mut bool) -> Result<bool> {
        self.next(b']', first)
    }

    /// Past the `,` before the next element of a container, or past its `close` (false).
    fn next(&mut self, close: u8, first: &mut bool) -> Result<bool> {
        let c = self.peek()?;
        if c == close {
            self.i += 1;
            self.depth -= 1;
            return Ok(false);
        }
        if !*first {
            if c != b',' {
                return Err(Decline);
            }
            self.i += 1;
        }
        *first = false;
        Ok(true)
    }

    /// A string, and whether its JSON text needed no escape (then it is its own JSON form
    /// between quotes, unless it holds U+2028 / U+2029, which Go escapes).
    pub fn string_raw(&mut self) -> Result<(Cow<'a, str>, bool)> {
        self.eat(b'"')?;
        let start = self.i;
        let (end, ascii) = self.scan(start)?;
        if self.b[end] == b'"' {
            self.i = end + 1;
            let plain = &self.b[start..end];
            let text = if ascii {
                // SAFETY: every byte is ASCII.
                unsafe { std::str::from_utf8_unchecked(plain) }
            } else {
                std::str::from_utf8(plain).map_err(|_| Decline)?
            };
            return Ok((Cow::Borrowed(text), true));
        }
        let mut out: Vec<u8> = self.b[start..end].to_vec();
        self.i = end;
        loop {
            self.escape(&mut out)?;
            let from = self.i;
            let (end, _) = self.scan(from)?;
            out.extend_from_slice(&self.b[from..end]);
            self.i = end + 1;
            if self.b[end] == b'"' {
                break;
            }
            self.i = end;
        }
        let text = String::from_utf8(out).map_err(|_| Decline)?;
        Ok((Cow::Owned(text), false))
    }

    /// From `from`, the position of the next `"` or `\\`, and whether all before it is ASCII;
    /// a raw control character (or the end of the line) is refused.
    #[inline]
    fn scan(&self, from: usize) -> Result<(usize, bool)> {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let b = self.b;
        let mut i = from;
        let mut ascii = true;
        loop {
            // Eight bytes at a time while they are plain ASCII (no quote, backslash, control
            // or non-ASCII byte). A borrow only flags bytes above a special one, so the lowest
            // flagged byte is the first special one.
            while let Some(word) = b.get(i..i + 8) {
                let x = u64::from_le_bytes(word.try_into().unwrap());
                let quote = x ^ (ONES * u64::from(b'"'));
                let slash = x ^ (ONES * u64::from(b'\\'));
                let special = (x.wrapping_sub(ONES * 0x20)
                    | quote.wrapping_sub(ONES)
                    | slash.wrapping_sub(ONES)
                    | x)
                    & HIGH;
                if special != 0 {
                    i += (special.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            let c = *b.get(i).ok_or(Decline)?;
            match CLASS[c as usize] {
                0 => {}
                1 => return Ok((i, ascii)),
                2 => return Err(Decline),
                _ => ascii = false,
            }
            i += 1;
        }
    }

    pub fn string(&mut self) -> Result<Cow<'a, str>> {
        self.string_raw().map(|(text, _)| text)
    }

    fn hex4(&mut self) -> Result<u32> {
        let digits = self.b.get(self.i..self.i + 4).ok_or(Decline)?;
        let mut v = 0;
        for &d in digits {
            v = v * 16 + (d as char).to_digit(16).ok_or(Decline)?;
        }
        self.i += 4;
        Ok(v)
    }

    fn escape(&mut self, out: &mut Vec<u8>) -> Result<()> {
        // At the backslash.
        let c = *self.b.get(self.i + 1).ok_or(Decline)?;
        self.i += 2;
        let simple = match c {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let mut code = self.hex4()?;
                if (0xd800..0xdc00).contains(&code) {
                    if self.b.get(self.i..self.i + 2) != Some(b"\\u") {
                        return Err(Decline);
                    }
                    self.i += 2;
                    let low = self.hex4()?;
                    if !(0xdc00..0xe000).contains(&low) {
                        return Err(Decline);
                    }
                    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                } else if (0xdc00..0xe000).contains(&code) {
                    return Err(Decline);
                }
                let ch = char::from_u32(code).ok_or(Decline)?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                return Ok(());
            }
            _ => return Err(Decline),
        };
        out.push(simple);
        Ok(())
    }

    /// A number's text, checked against JSON's grammar, and whether it is an integer
    /// (no fraction, no exponent).
    pub fn number_text(&mut self) -> Result<(&'a str, bool)> {
        self.ws();
        let start = self.i;
        let b = self.b;
        let mut i = start;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while let Some(b'0'..=b'9') = b.get(i) {
                    i += 1;
                }
            }
            _ => return Err(Decline),
        }
        let mut integer = true;
        if b.get(i) == Some(&b'.') {
            integer = false;
            i = digits(b, i + 1)?;
        }
        if let Some(b'e' | b'E') = b.get(i) {
            integer = false;
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            i = digits(b, i)?;
        }
        self.i = i;
        // SAFETY: the bytes are ASCII digits, signs, '.', 'e' and 'E'.
        Ok((
            unsafe { std::str::from_utf8_unchecked(&b[start..i]) },
            integer,
        ))
    }

    /// A number, checked against JSON's grammar.
    pub fn number(&mut self) -> Result<Number> {
        let (text, integer) = self.number_text()?;
        parse_number(text, integer)
    }

    /// Pass over any value, checking it: with a stack of the containers open, not recursion.
    pub fn skip(&mut self) -> Result<()> {
        // Each open container: its closing byte, and whether its first element is still ahead.
        let mut open: Vec<(u8, bool)> = Vec::new();
        loop {
            match self.peek()? {
                b'"' => self.string().map(|_| ())?,
                b'{' => {
                    self.object()?;
                    open.push((b'}', true));
                }
                b'[' => {
                    self.array()?;
                    open.push((b']', true));
                }
                b't' | b'f' => self.boolean().map(|_| ())?,
                b'n' => self.literal(b"null")?,
                _ => self.number().map(|_| ())?,
            }
            // Up to the next value to pass over, closing the containers that end here.
            loop {
                let Some((close, first)) = open.last_mut() else {
                    return Ok(());
                };
                let more = if *close == b'}' {
                    self.key(first)?.is_some()
                } else {
                    self.item(first)?
                };
                if more {
                    break;
                }
                open.pop();
            }
        }
    }
}
