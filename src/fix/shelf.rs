//! What a fix run's checks made for texts a file or pipeline no longer
//! has, kept to be taken back when the tree goes back to those texts: the
//! guard's restart goes back to the starting texts, and its second loop
//! gives most files again the texts the first loop gave them. Taking a
//! parsed document or a built pipeline back is what parsing or building the
//! same texts again gives, without the work.
//!
//! Each text a file is given has a version: 0 for the text it was loaded
//! with, a new number for each text parsed since (the same text parsed
//! twice gets two numbers: a miss, never a wrong hit). A pipeline's build
//! and findings are kept with the versions of the files it reads or its
//! findings name (`recheck::files_named`): the files whose change makes the
//! incremental check build it again. Where those files have those versions
//! again, the kept build is the one a build would make.
//!
//! Memory stays bounded: each file and pipeline keeps at most two, the
//! loaded one and the last other one, moved in and out, never copied.

use std::collections::HashMap;
use std::hash::Hash;

use crate::base::diagnostic::Diagnostic;
use crate::syntax::{Document, LineIndex};

/// The version of every file's loaded text.
pub const LOADED: u64 = 0;

/// A file's parsed text and its own findings (DS001–DS006).
pub struct Parsed {
    pub doc: Document,
    pub lines: LineIndex,
    pub version: u64,
    pub found: Vec<Diagnostic>,
}

/// Whether what is kept was made from loaded texts only.
pub trait Kept {
    fn loaded(&self) -> bool;
}

impl Kept for Parsed {
    fn loaded(&self) -> bool {
        self.version == LOADED
    }
}

/// At most two things kept per key: the loaded one and the last other.
pub struct Shelf<K, T> {
    slots: HashMap<K, [Option<T>; 2]>,
}

impl<K, T> Default for Shelf<K, T> {
    fn default() -> Self {
        Shelf { slots: HashMap::new() }
    }
}

impl<K: Hash + Eq, T: Kept> Shelf<K, T> {
    /// Keep `item` for `key`, in place of the one of its kind (loaded or
    /// other) kept before.
    pub fn put(&mut self, key: K, item: T) {
        let slot = usize::from(!item.loaded());
        self.slots.entry(key).or_default()[slot] = Some(item);
    }

    /// Take back what is kept for `key` and `fits`.
    pub fn take(&mut self, key: &K, fits: impl Fn(&T) -> bool) -> Option<T> {
        let slots = self.slots.get_mut(key)?;
        let at = slots.iter().position(|s| s.as_ref().is_some_and(&fits))?;
        slots[at].take()
    }

    /// What is kept for `key` from loaded texts.
    pub fn loaded(&self, key: &K) -> Option<&T> {
        self.slots.get(key)?[0].as_ref()
    }
}
