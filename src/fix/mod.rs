//! Surgical rewrites: edits on byte spans, applied without touching any
//! other byte, to a fixed point.

pub mod apply;
pub mod diff;
pub mod engine;
pub mod guard;
pub mod hunks;
pub mod inert;
pub mod patch;
pub mod recheck;
pub mod report;
pub mod shelf;
pub mod variant;
pub mod write;
