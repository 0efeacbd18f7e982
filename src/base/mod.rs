//! The ground floor: the small types every other module shares and that
//! depend on nothing above them — byte spans, file ids, edits and fixes,
//! diagnostics and their severities, and the rule registry. Nothing here imports from `syntax`,
//! `model`, `rules` or `fix`, so data can flow one way above it.

pub mod diagnostic;
pub mod edit;
pub mod rule;
pub mod shared;

use std::ops::Range;

/// A byte range into one file's text.
pub type Span = Range<usize>;

/// A file loaded into the workspace: an index into `Workspace::files`.
pub type FileId = usize;
