//! dslint: a linter and fixer for NVIDIA DeepStream pipeline configuration,
//! driven by measurement.
//!
//! - [`base`]: the ground floor: spans, file ids, edits, diagnostics and
//!   the rule registry, shared by everything above.
//! - [`files`]: the project root, bounded reads, confined writes.
//! - [`syntax`]: lossless key-file and YAML documents with byte spans.
//! - [`model`]: file kinds, key tables, the pipeline built from many files,
//!   the facts file.
//! - [`context`]: the pipelines around files named on the command line
//!   (a reference index of the project) and which findings a run reports.
//! - [`rules`]: the rule book (DS0xx–DS7xx) and its pages.
//! - [`fix`]: surgical edits, the fix loop and safe writes.
//! - [`output`]: human and machine renderings.
pub mod base;
pub mod config;
pub mod context;
pub mod files;
pub mod fix;
pub mod measure;
pub mod model;
pub mod nsys;
pub mod output;
pub mod report;
pub mod rules;
pub mod syntax;
