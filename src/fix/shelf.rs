//! What a fix run's checks made for texts a file or pipeline no longer
//! has, kept to be taken back when the tree goes back to those texts: the
//! guard's restart goes back to the starting texts, and its second loop
//! gives most files again the texts the first loop gave them. Taking a
//! parsed document or a built pipeline back is what parsing or building the
//! same texts again gives, without the work.
//!
//! Each text a file is given has a version: 0 for the text it was loaded
//! with, a number for each other text, the same each time the file has
//! that text again in the run (`Versions`). A pipeline's build
//! and findings are kept with the versions of the files it reads or its
//! findings name (`recheck::files_named`): the files whose change makes the
//! incremental check build it again. Where those files have those versions
//! again, the kept build is the one a build would make.
//!
//! Memory stays bounded: each file keeps at most `OTHERS_KEPT` + 1
//! documents, the loaded one and the last others; each pipeline at most
//! `BUILDS_KEPT` builds; moved in and out, never copied.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

use crate::base::FileId;
use crate::base::diagnostic::Diagnostic;
use crate::model::graph::Pipeline;
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

/// How many things made from other texts than the loaded ones are kept per
/// key, at most (the last ones put). A file a loop edits in several passes
/// (its first fix, then an engine renamed after it) has that many texts;
/// the guard's second loop gives it those texts again, in the same order.
/// With one kept, the second loop of the 10k bench tree parsed again 1,344
/// documents that the first had parsed.
const OTHERS_KEPT: usize = 4;

/// What is kept per key: the loaded one and the last `OTHERS_KEPT` others.
pub struct Shelf<K, T> {
    slots: HashMap<K, Slots<T>>,
}

struct Slots<T> {
    loaded: Option<T>,
    /// Oldest first.
    others: VecDeque<T>,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots {
            loaded: None,
            others: VecDeque::new(),
        }
    }
}

impl<K, T> Default for Shelf<K, T> {
    fn default() -> Self {
        Shelf { slots: HashMap::new() }
    }
}

impl<K: Hash + Eq, T: Kept> Shelf<K, T> {
    /// Keep `item` for `key`: in place of the loaded one kept before, or
    /// after the others (the oldest let go past `OTHERS_KEPT`).
    pub fn put(&mut self, key: K, item: T) {
        let slots = self.slots.entry(key).or_default();
        if item.loaded() {
            slots.loaded = Some(item);
            return;
        }
        if slots.others.len() == OTHERS_KEPT {
            slots.others.pop_front();
        }
        slots.others.push_back(item);
    }

    /// Take back what is kept for `key` and `fits`: the loaded one first,
    /// then the others, the last put first.
    pub fn take(&mut self, key: &K, fits: impl Fn(&T) -> bool) -> Option<T> {
        let slots = self.slots.get_mut(key)?;
        if slots.loaded.as_ref().is_some_and(&fits) {
            return slots.loaded.take();
        }
        let at = slots.others.iter().rposition(&fits)?;
        slots.others.remove(at)
    }

    /// What is kept for `key` from loaded texts.
    pub fn loaded(&self, key: &K) -> Option<&T> {
        self.slots.get(key)?.loaded.as_ref()
    }
}

/// The versions of each file's texts: the same text of a file has the same
/// version all through a run (the loaded text `LOADED`), wherever it was
/// parsed, so a build kept for those versions fits again whenever the
/// files have those texts again (the guard's second loop gives most files
/// the texts the first gave them, pass after pass).
///
/// A text is known by its SipHash and length, as the fix loop already
/// tells a text a file had before (`engine::hash`).
#[derive(Default)]
pub struct Versions {
    known: HashMap<(FileId, u64, usize), u64>,
    next: u64,
}

impl Versions {
    /// The version of `text` in `file`: the one it had before, or a new one.
    pub fn of(&mut self, file: FileId, text: &str) -> u64 {
        self.of_print(file, Print::of(text))
    }

    /// `of` for a text known by its fingerprint.
    pub fn of_print(&mut self, file: FileId, print: Print) -> u64 {
        let next = &mut self.next;
        *self.known.entry((file, print.0, print.1)).or_insert_with(|| {
            *next += 1;
            *next
        })
    }

    /// Note that `text` is `file`'s loaded text (version `LOADED`).
    pub fn loaded(&mut self, file: FileId, text: &str) {
        self.loaded_print(file, Print::of(text));
    }

    /// `loaded` for a text known by its fingerprint.
    pub fn loaded_print(&mut self, file: FileId, print: Print) {
        self.known.insert((file, print.0, print.1), LOADED);
    }
}

/// A text's fingerprint as `Versions` knows it: its hash
/// (`engine::hash`) and length; taken apart from the versions' map so
/// that a pass's texts are fingerprinted on all threads.
#[derive(Debug, Clone, Copy)]
pub struct Print(u64, usize);

impl Print {
    pub fn of(text: &str) -> Print {
        Print(super::engine::hash(text), text.len())
    }
}

/// A pipeline's build with its findings and the files it reads or its
/// findings name (`recheck::files_named`), kept with those files'
/// versions when it was made.
pub struct Build {
    pub pipeline: Pipeline,
    pub found: Vec<Diagnostic>,
    pub files: Vec<FileId>,
    pub versions: Vec<u64>,
}

/// How many builds of one pipeline are kept, at most: one a pass of a fix
/// loop. Older ones are let go first.
const BUILDS_KEPT: usize = super::engine::MAX_PASSES;

/// The builds a pipeline had, by its position in the graph, to take back
/// when its files have again the versions a build was made from: what a
/// build of the same texts makes, without building or checking again.
#[derive(Default)]
pub struct Builds {
    kept: HashMap<usize, VecDeque<Build>>,
}

impl Builds {
    /// Keep `build`; what is let go (the oldest, or `build` itself) is
    /// given back, to be freed off the main thread.
    ///
    /// A build made from loaded texts only is not kept: the guard's restart
    /// goes back to the loaded texts without building (`recheck`), and a
    /// loop gives all of a pipeline's files their loaded texts again only
    /// where fixes undo one another in all of them. On the 10k bench tree
    /// keeping them cost ~110 MiB of peak memory for ~20 builds taken back.
    pub fn put(&mut self, pipeline: usize, build: Build) -> Option<Build> {
        if build.versions.iter().all(|v| *v == LOADED) {
            return Some(build);
        }
        let kept = self.kept.entry(pipeline).or_default();
        let old = if kept.len() == BUILDS_KEPT {
            kept.pop_front()
        } else {
            None
        };
        kept.push_back(build);
        old
    }

    /// Take back the build of `pipeline` made from the files' versions now.
    pub fn take(&mut self, pipeline: usize, now: &[u64]) -> Option<Build> {
        let kept = self.kept.get_mut(&pipeline)?;
        let fits = |b: &Build| b.files.iter().zip(&b.versions).all(|(f, v)| now[*f] == *v);
        let at = kept.iter().position(fits)?;
        kept.remove(at)
    }
}
