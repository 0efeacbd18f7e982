//! Fixes as data: byte-range edits with an applicability, as ruff does.

use std::ops::Range;

use serde::Serialize;

use crate::base::FileId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Applied only with `--unsafe-fixes`: it may change results.
    Unsafe,
    /// Applied by `dslint fix`: it keeps what the pipeline computes.
    Safe,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Unsafe => "unsafe",
            Applicability::Safe => "safe",
        }
    }
}

/// Replace `range` of one file's text with `text` (an insertion when the
/// range is empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub file: FileId,
    pub range: Range<usize>,
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct Fix {
    pub applicability: Applicability,
    /// What the fix does, in a few words ("set batch-size=4").
    pub title: String,
    pub edits: Vec<Edit>,
}

impl Fix {
    pub fn safe(title: impl Into<String>, edits: Vec<Edit>) -> Fix {
        Fix::new(Applicability::Safe, title.into(), edits)
    }
    pub fn unsafe_(title: impl Into<String>, edits: Vec<Edit>) -> Fix {
        Fix::new(Applicability::Unsafe, title.into(), edits)
    }

    /// A fix as it is held until the output, with its finding: its texts
    /// and edits without the room that formatting and pushing left.
    fn new(applicability: Applicability, mut title: String, mut edits: Vec<Edit>) -> Fix {
        title.shrink_to_fit();
        edits.shrink_to_fit();
        for e in &mut edits {
            e.text.shrink_to_fit();
        }
        Fix {
            applicability,
            title,
            edits,
        }
    }
}
