//! Touching the file system on untrusted input: the project root that
//! bounds every read and write, bounded reads of regular files only, and
//! writes and creations that never leave the root nor go through a name
//! planted in advance. Everything else in dslint reads and writes through
//! here.

pub mod read;
pub mod root;
pub mod signals;
pub mod stdio;
pub mod walk;
pub mod write;
