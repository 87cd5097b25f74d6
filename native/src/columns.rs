//! Arrow-layout column buffers: strings as offsets + bytes, dictionary strings as indices into
//! a per-chunk dictionary, maps as offsets + key indices + value strings. Every column can be
//! cut back to an earlier length, so a line that turns out to be the Python path's business
//! leaves no trace.

use rustc_hash::FxHashMap;

/// Offsets past this are refused (Arrow's 32-bit offsets): the caller ends the chunk first.
pub const MAX_BYTES: usize = i32::MAX as usize;

pub struct StrCol {
    pub offsets: Vec<i32>,
    pub data: Vec<u8>,
}

impl Default for StrCol {
    fn default() -> Self {
        StrCol::new()
    }
}

impl StrCol {
    pub fn new() -> Self {
        StrCol {
            offsets: vec![0],
            data: Vec::new(),
        }
    }
    pub fn push(&mut self, value: &[u8]) {
        self.data.extend_from_slice(value);
        self.end();
    }
    /// Close the value written straight into `data`.
    pub fn end(&mut self) {
        self.offsets.push(self.data.len() as i32);
    }
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }
    pub fn truncate(&mut self, len: usize) {
        self.offsets.truncate(len + 1);
        self.data.truncate(self.offsets[len] as usize);
    }
    pub fn clear(&mut self) {
        self.truncate(0);
    }
}

/// Strings seen in a chunk, each once, numbered in order of appearance.
pub struct Dict {
    index: FxHashMap<Box<[u8]>, i32>,
    pub values: StrCol,
}

impl Dict {
    pub fn new() -> Self {
        Dict {
            index: FxHashMap::default(),
            values: StrCol::new(),
        }
    }
    pub fn get(&self, value: &[u8]) -> Option<i32> {
        self.index.get(value).copied()
    }
    pub fn code(&mut self, value: &[u8]) -> i32 {
        if let Some(code) = self.index.get(value) {
            return *code;
        }
        let code = self.values.len() as i32;
        self.values.push(value);
        self.index.insert(value.into(), code);
        code
    }
    pub fn clear(&mut self) {
        self.index.clear();
        self.values.clear();
    }
}

/// A `LowCardinality(String)` column.
pub struct DictCol {
    pub codes: Vec<i32>,
    pub dict: Dict,
}

impl DictCol {
    pub fn new() -> Self {
        DictCol {
            codes: Vec::new(),
            dict: Dict::new(),
        }
    }
    pub fn push(&mut self, value: &[u8]) {
        let code = self.dict.code(value);
        self.codes.push(code);
    }
    pub fn clear(&mut self) {
        self.codes.clear();
        self.dict.clear();
    }
}

/// A `Map(LowCardinality(String), String)` column.
pub struct MapCol {
    pub offsets: Vec<i32>,
    pub keys: Vec<i32>,
    pub key_dict: Dict,
    pub values: StrCol,
}

impl MapCol {
    pub fn new() -> Self {
        MapCol {
            offsets: vec![0],
            keys: Vec::new(),
            key_dict: Dict::new(),
            values: StrCol::new(),
        }
    }
    /// Close the row whose entries were pushed since the last one.
    pub fn end_row(&mut self) {
        self.offsets.push(self.keys.len() as i32);
    }
    pub fn truncate(&mut self, rows: usize) {
        self.offsets.truncate(rows + 1);
        let entries = self.offsets[rows] as usize;
        self.keys.truncate(entries);
        self.values.truncate(entries);
    }
    pub fn clear(&mut self) {
        self.truncate(0);
        self.key_dict.clear();
    }
    pub fn nbytes(&self) -> usize {
        self.values.data.len() + self.keys.len() * 8
    }
}
