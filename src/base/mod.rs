//! The ground floor: the small types every other module shares and that
//! depend on nothing above them — byte spans, file ids, edits and fixes,
//! diagnostics and their severities, and the rule registry. Nothing here imports from `syntax`,
//! `model`, `rules` or `fix`, so data can flow one way above it.

pub mod decimal;
pub mod diagnostic;
pub mod edit;
pub mod key;
pub mod path_order;
pub mod rule;
pub mod shared;

use std::ops::Range;

/// A byte range into one file's text.
pub type Span = Range<usize>;

/// A [`Span`] in 32-bit positions, for what a run keeps by the million (a
/// document's entries, the graph's settings): 8 bytes instead of 16. A
/// file is at most `MAX_FILE_BYTES` (10 MiB), so every position fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span32 {
    start: u32,
    end: u32,
}

impl Span32 {
    pub fn get(self) -> Span {
        self.start as usize..self.end as usize
    }
}

impl From<Span> for Span32 {
    fn from(s: Span) -> Span32 {
        let small = |i: usize| u32::try_from(i).expect("a position in a file of at most MAX_FILE_BYTES fits 32 bits");
        Span32 {
            start: small(s.start),
            end: small(s.end),
        }
    }
}

/// Where one `key=value` line or `key: value` pair is, in [`Span32`]s: its
/// key, its value (a quoted YAML scalar with its quotes) and its whole
/// line(s) with the line end. A document's entries and the graph's sites
/// hold one each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineSpans {
    key: Span32,
    value: Span32,
    line: Span32,
}

impl LineSpans {
    pub fn new(key: Span, value: Span, line: Span) -> LineSpans {
        LineSpans {
            key: key.into(),
            value: value.into(),
            line: line.into(),
        }
    }

    pub fn key(&self) -> Span {
        self.key.get()
    }

    pub fn value(&self) -> Span {
        self.value.get()
    }

    pub fn line(&self) -> Span {
        self.line.get()
    }

    pub fn set_key(&mut self, span: Span) {
        self.key = span.into();
    }

    pub fn set_value(&mut self, span: Span) {
        self.value = span.into();
    }

    pub fn set_line(&mut self, span: Span) {
        self.line = span.into();
    }
}

/// A file loaded into the workspace: an index into `Workspace::files`.
pub type FileId = usize;
