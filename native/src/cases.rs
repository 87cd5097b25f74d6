//! Plain JSON Lines cases as Arrow column buffers: the columns `plain_shapes.plain_batch` makes,
//! without a Python object per case.
//!
//! A narrower subset than the Python path's plain shapes, read exactly as msgspec reads it: each
//! line one object of the keys `id` and `question` (strings), and optionally `evidence` (null, a
//! string, a list of strings, or an object of exactly one of `all_of` / `any_of` holding a list
//! of strings), `facts` (null, a string or a list of strings), `reference` (null or a string)
//! and `answerable` (null or a boolean), each key once. Anything else anywhere in the block —
//! a blank line, a `\r`, another key, a document leaf, a number — declines the whole block, and
//! the Python path reads it as before: the checks that flag a case for the full validation stay
//! in Python, on these columns.

use crate::columns::{StrCol, MAX_BYTES};
use crate::json::Json;
use crate::values::{Decline, Result};

/// Root kinds, as `plain_batch` names them: no evidence, one leaf, `all_of`, `any_of`.
pub const KIND_NONE: u8 = 0;
pub const KIND_LEAF: u8 = 1;
pub const KIND_ALL: u8 = 2;
pub const KIND_ANY: u8 = 3;

/// Null, false and true of a nullable boolean column.
pub const NULL: u8 = 2;

/// Lists of strings: list offsets into the strings.
pub struct ListCol {
    pub offsets: Vec<i32>,
    pub values: StrCol,
}

impl ListCol {
    fn new() -> Self {
        ListCol {
            offsets: vec![0],
            values: StrCol::new(),
        }
    }
    fn end(&mut self) {
        self.offsets.push(self.values.len() as i32);
    }
}

/// The columns of a block of plain cases, a row per line.
pub struct Cases {
    pub id: StrCol,
    pub question: StrCol,
    /// 0 false, 1 true, [`NULL`] absent or null.
    pub answerable: Vec<u8>,
    pub kind: Vec<u8>,
    pub items: ListCol,
    pub facts: ListCol,
    pub reference: StrCol,
    /// 1 where a reference was given.
    pub has_reference: Vec<u8>,
}

impl Cases {
    fn new() -> Self {
        Cases {
            id: StrCol::new(),
            question: StrCol::new(),
            answerable: Vec::new(),
            kind: Vec::new(),
            items: ListCol::new(),
            facts: ListCol::new(),
            reference: StrCol::new(),
            has_reference: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.kind.len()
    }
}

/// Every line of `block` (lines end with `\n`; the last may lack it) as plain cases, or
/// `Decline` when any line is not in this module's subset.
pub fn read_block(block: &[u8]) -> Result<Cases> {
    if block.len() >= MAX_BYTES {
        return Err(Decline);
    }
    let body = block.strip_suffix(b"\n").unwrap_or(block);
    let mut out = Cases::new();
    if block.is_empty() {
        return Ok(out);
    }
    for line in body.split(|&b| b == b'\n') {
        if line.contains(&b'\r') {
            return Err(Decline);
        }
        read_line(line, &mut out)?;
    }
    Ok(out)
}

const ID: u8 = 1;
const QUESTION: u8 = 2;
const EVIDENCE: u8 = 4;
const FACTS: u8 = 8;
const REFERENCE: u8 = 16;
const ANSWERABLE: u8 = 32;

fn read_line(line: &[u8], out: &mut Cases) -> Result<()> {
    // Values go straight into the columns: a line declined declines the whole block, so no
    // column is ever left half written. Absent keys get their defaults at the end.
    let mut p = Json::new(line);
    p.object()?;
    let mut seen = 0u8;
    let mut first = true;
    while let Some(key) = p.key(&mut first)? {
        let bit = match key.as_ref() {
            "id" => ID,
            "question" => QUESTION,
            "evidence" => EVIDENCE,
            "facts" => FACTS,
            "reference" => REFERENCE,
            "answerable" => ANSWERABLE,
            _ => return Err(Decline),
        };
        if seen & bit != 0 {
            return Err(Decline); // a key twice: the Python path decides which one counts
        }
        seen |= bit;
        match bit {
            ID => out.id.push(p.string()?.as_bytes()),
            QUESTION => out.question.push(p.string()?.as_bytes()),
            REFERENCE => {
                let given = !p.null()?;
                if given {
                    out.reference.push(p.string()?.as_bytes());
                } else {
                    out.reference.end();
                }
                out.has_reference.push(u8::from(given));
            }
            ANSWERABLE => {
                let value = if p.null()? {
                    NULL
                } else {
                    u8::from(p.boolean()?)
                };
                out.answerable.push(value);
            }
            FACTS => {
                if !p.null()? {
                    one_or_list(&mut p, &mut out.facts.values)?;
                }
            }
            _ => {
                let kind = if p.null()? {
                    KIND_NONE
                } else {
                    evidence(&mut p, &mut out.items.values)?
                };
                out.kind.push(kind);
            }
        }
    }
    p.end()?;
    if seen & (ID | QUESTION) != ID | QUESTION {
        return Err(Decline);
    }
    if seen & REFERENCE == 0 {
        out.reference.end();
        out.has_reference.push(0);
    }
    if seen & ANSWERABLE == 0 {
        out.answerable.push(NULL);
    }
    if seen & EVIDENCE == 0 {
        out.kind.push(KIND_NONE);
    }
    out.items.end();
    out.facts.end();
    Ok(())
}

/// A string (one value) or a list of strings, appended to `into`.
fn one_or_list(p: &mut Json, into: &mut StrCol) -> Result<()> {
    if p.peek()? == b'"' {
        into.push(p.string()?.as_bytes());
        return Ok(());
    }
    strings(p, into)
}

fn strings(p: &mut Json, into: &mut StrCol) -> Result<()> {
    p.array()?;
    let mut first = true;
    while p.item(&mut first)? {
        into.push(p.string()?.as_bytes());
    }
    Ok(())
}

/// The evidence's root kind, its ids appended to `items`.
fn evidence(p: &mut Json, items: &mut StrCol) -> Result<u8> {
    match p.peek()? {
        b'"' => {
            items.push(p.string()?.as_bytes());
            Ok(KIND_LEAF)
        }
        b'[' => {
            strings(p, items)?;
            Ok(KIND_ALL)
        }
        _ => {
            p.object()?;
            let mut first = true;
            let key = p.key(&mut first)?.ok_or(Decline)?;
            let kind = match key.as_ref() {
                "all_of" => KIND_ALL,
                "any_of" => KIND_ANY,
                _ => return Err(Decline),
            };
            strings(p, items)?;
            if p.key(&mut first)?.is_some() {
                return Err(Decline); // both groups, or a document leaf's keys too
            }
            Ok(kind)
        }
    }
}
