//! `Shared`: an immutable string that many owners hold at the cost of one
//! allocation. A key or value is parsed once into the document's entry and
//! then appears in every pipeline that reads the file (a primary config
//! shared by hundreds of apps), in its element's property name and in the
//! site of each setting: copying it each time was the largest share of a
//! check's memory. Cloning one is a reference count.
//!
//! A `Shared` is one pointer (8 bytes; `Option<Shared>` too), not the 16 of
//! an `Arc<str>` (pointer and length): it is a `triomphe::ThinArc`, which
//! keeps the length in the allocation, beside the count, where `Arc<str>`
//! keeps a second (weak) count no `Shared` uses. Every document's entry
//! holds two (its key and value) to the end of a check, so an entry is 48
//! bytes instead of 64 (a tenth of a 10k-file check's memory at its peak
//! was the parses' entries).
//!
//! An interned text ([`Shared::interned`], [`Shared::of_static`]) lasts to
//! the end of the process and is not counted: its clones copy the pointer
//! and its drops do nothing. The parsers' keys and short values are
//! cloned into the settings of every pipeline that reads their file, on
//! all threads, and a count written by two threads bounces its cache line
//! between their cores: a 10k-file check ran ~25% more CPU on 2 threads
//! than on 1 for the same instructions, much of it in the clones and drops
//! of settings, properties and parses. Whether a text lasts is a flag in
//! its allocation's header, read (never written) on each clone and drop.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher};
use std::mem::ManuallyDrop;
use std::ops::Deref;

use triomphe::ThinArc;

/// The text's bytes, always UTF-8: only `new` makes one, from a `&str`.
pub struct Shared(ManuallyDrop<ThinArc<Lasting, u8>>);

/// Whether a text lasts to the end of the process, uncounted (the module's
/// comment). Only a thread's tables make such a text: at most
/// [`MAX_INTERNED`] short texts, and the program's fixed texts, so what is
/// never freed is bounded by the threads a process makes.
#[derive(Clone, Copy)]
struct Lasting(bool);

impl Shared {
    fn new(s: &str) -> Shared {
        Shared(ManuallyDrop::new(ThinArc::from_header_and_slice(
            Lasting(false),
            s.as_bytes(),
        )))
    }

    /// A text for a table of interned texts: never freed, never counted.
    fn lasting(s: &str) -> Shared {
        Shared(ManuallyDrop::new(ThinArc::from_header_and_slice(
            Lasting(true),
            s.as_bytes(),
        )))
    }

    fn lasts(&self) -> bool {
        self.0.header.header.0
    }

    pub fn as_str(&self) -> &str {
        // SAFETY: the bytes were copied from a `&str` (`new`) and a
        // `ThinArc` never lets them be written again.
        unsafe { std::str::from_utf8_unchecked(&self.0.slice) }
    }

    /// The same text as an earlier call on this thread made, when it is
    /// short: the parsers give every key (`batch-size`) and short value
    /// (`1`, `true`) of every file one allocation per thread, not one per
    /// line (at 10k files, a million allocations fewer, and the pages they
    /// fault in). Longer texts (paths, lists) are rarely repeated and are
    /// allocated as before. The table is bounded (`MAX_INTERNED`): past it,
    /// texts it does not hold are allocated, so a file of a million
    /// distinct keys costs what it did.
    pub fn interned(s: &str) -> Shared {
        if s.len() > MAX_INTERNED_LEN {
            return Shared::new(s);
        }
        INTERNED.with_borrow_mut(|Interned { table, hasher }| {
            let h = text_hash(hasher, s);
            if let Some(found) = table.find(h, |t| t.as_str() == s) {
                return found.clone();
            }
            if table.len() >= MAX_INTERNED || !take_lasting(s.len()) {
                return Shared::new(s);
            }
            let new = Shared::lasting(s);
            table.insert_unique(h, new.clone(), |t| text_hash(hasher, t.as_str()));
            new
        })
    }
}

impl Shared {
    /// The text of a `&'static str` (a fixed text in the program: a
    /// finding's `why`), made once on this thread and shared by every call
    /// with the same `&'static str` after: found by its address, not its
    /// text. The fixed texts are finitely many, so the table is bounded.
    pub fn of_static(s: &'static str) -> Shared {
        STATICS.with_borrow_mut(|table| {
            table
                .entry((s.as_ptr() as usize, s.len()))
                .or_insert_with(|| Shared::lasting(s))
                .clone()
        })
    }
}

thread_local! {
    /// [`Shared::of_static`]'s table: a fixed text's address and length to
    /// its `Shared`.
    static STATICS: RefCell<std::collections::HashMap<(usize, usize), Shared, foldhash::fast::RandomState>> =
        RefCell::default();
}

/// A text's hash in the table: its bytes in one write (hashing a `str`
/// writes a terminator byte after them, a second round of the hasher).
fn text_hash(hasher: &foldhash::fast::RandomState, s: &str) -> u64 {
    let mut h = hasher.build_hasher();
    h.write(s.as_bytes());
    h.finish()
}

/// Texts longer than this are not looked up in the table.
const MAX_INTERNED_LEN: usize = 48;

/// At most this many texts a thread (a few MiB at most).
const MAX_INTERNED: usize = 1 << 16;

/// At most this many bytes of interned texts a process (their bytes and
/// [`LASTING_OVERHEAD`] each), over all its threads' tables. A thread's
/// table outlives nothing but its texts, which last to the end of the
/// process: every thread that parses adds a table's worth, and threads
/// come and go (a lazy walk of the whole root asked from a pool's thread
/// runs on a pool of its own, new threads each time: `files::walk`'s
/// `on_a_pool`; the `ignore` crate's walker, used until walk8, started a
/// set a walk), so a bound a thread alone let a
/// tree of many distinct short keys and values keep ~5 MiB a thread
/// (a 21 MB tree: 23 MiB peak on 1 thread, 200 MiB on 32, never freed).
/// Past it, texts the thread's table does not hold are allocated and
/// counted, as a long text is.
const MAX_LASTING_BYTES: usize = 8 << 20;

/// What an interned text costs beside its bytes: its allocation's count,
/// flag and length (24 bytes), its slot in the table and the allocator's
/// rounding.
const LASTING_OVERHEAD: usize = 32;

/// The bytes of interned texts made so far in this process
/// ([`MAX_LASTING_BYTES`]).
static LASTING_BYTES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Take room for one more interned text of `len` bytes, if the process's
/// bound leaves it.
fn take_lasting(len: usize) -> bool {
    use std::sync::atomic::Ordering;
    let cost = len + LASTING_OVERHEAD;
    LASTING_BYTES
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
            (used + cost <= MAX_LASTING_BYTES).then_some(used + cost)
        })
        .is_ok()
}

/// One thread's table: no lock on the parsers' path. Seeded at random
/// (foldhash): the texts come from the files, and a fixed seed would let a
/// crafted file collide them.
#[derive(Default)]
struct Interned {
    table: hashbrown::HashTable<Shared>,
    hasher: foldhash::fast::RandomState,
}

thread_local! {
    static INTERNED: RefCell<Interned> = RefCell::new(Interned::default());
}

impl Clone for Shared {
    fn clone(&self) -> Shared {
        if self.lasts() {
            // SAFETY: a lasting text is never freed (no drop of any of its
            // owners touches it), so a copy of its pointer stays valid for
            // the rest of the process, as a counted clone would.
            Shared(unsafe { std::ptr::read(&self.0) })
        } else {
            Shared(ManuallyDrop::new(ThinArc::clone(&self.0)))
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        if !self.lasts() {
            // SAFETY: dropped once, here, and `self.0` is not used after.
            unsafe { ManuallyDrop::drop(&mut self.0) }
        }
    }
}

impl Default for Shared {
    fn default() -> Shared {
        Shared::new("")
    }
}

impl PartialEq for Shared {
    fn eq(&self, other: &Shared) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Shared {}

impl PartialOrd for Shared {
    fn partial_cmp(&self, other: &Shared) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Shared {
    fn cmp(&self, other: &Shared) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

/// Hashed as its text, as `Borrow<str>` requires (and as `Arc<str>` was).
impl Hash for Shared {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl Deref for Shared {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Shared {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Shared {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl From<String> for Shared {
    fn from(s: String) -> Shared {
        Shared::new(&s)
    }
}

impl From<&str> for Shared {
    fn from(s: &str) -> Shared {
        Shared::new(s)
    }
}

impl From<&String> for Shared {
    fn from(s: &String) -> Shared {
        Shared::new(s)
    }
}

impl From<Shared> for String {
    fn from(s: Shared) -> String {
        s.as_str().to_string()
    }
}

impl PartialEq<str> for Shared {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Shared {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Shared {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Shared> for str {
    fn eq(&self, other: &Shared) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Shared> for &str {
    fn eq(&self, other: &Shared) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Shared> for String {
    fn eq(&self, other: &Shared) -> bool {
        self.as_str() == other.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::Shared;

    #[test]
    fn compares_and_shows_as_its_text() {
        let s = Shared::from("batch-size".to_string());
        let t = s.clone();
        assert!(std::ptr::eq(s.as_str(), t.as_str()), "a clone shares the bytes");
        assert_eq!(s, "batch-size");
        assert_eq!("batch-size", s);
        assert_eq!(s, "batch-size".to_string());
        assert_eq!(format!("{s} {s:?}"), "batch-size \"batch-size\"");
        assert_eq!(&s[..5], "batch");
    }

    #[test]
    fn interned_texts_share_one_allocation_when_short() {
        let a = Shared::interned("batch-size");
        let b = Shared::interned(&String::from("batch-size"));
        assert!(std::ptr::eq(a.as_str(), b.as_str()), "one allocation for both");
        assert_eq!(a, "batch-size");
        let long = "x".repeat(super::MAX_INTERNED_LEN + 1);
        let (c, d) = (Shared::interned(&long), Shared::interned(&long));
        assert!(!std::ptr::eq(c.as_str(), d.as_str()), "a long text is not looked up");
        assert_eq!(c, d);
    }

    /// An interned text's clones and drops leave its count alone: the
    /// parsers' keys and short values are cloned into every pipeline's
    /// settings on all threads, and a count that several threads write
    /// bounces its cache line between their cores (a 10k-file check took
    /// ~25% more CPU on 2 threads than on 1 for the same instructions). A
    /// text made for one owner is counted as before, and freed.
    #[test]
    fn interned_texts_are_not_counted() {
        let count = |s: &Shared| s.0.with_arc(triomphe::Arc::count);
        let a = Shared::interned("batch-size");
        let before = count(&a);
        let copies: Vec<Shared> = (0..10).map(|_| a.clone()).collect();
        assert_eq!(count(&a), before, "a clone of an interned text is not counted");
        drop(copies);
        assert_eq!(count(&a), before, "nor a drop");
        let why = Shared::of_static("a fixed why");
        let before = count(&why);
        let copy = why.clone();
        assert_eq!(count(&why), before, "nor a fixed text's clone");
        drop(copy);
        let b = Shared::from("model.engine");
        assert_eq!(count(&b), 1);
        let c = b.clone();
        assert_eq!(count(&b), 2, "a text made for its owner is counted");
        drop(c);
        assert_eq!(count(&b), 1);
    }

    #[test]
    fn is_one_pointer() {
        assert_eq!(std::mem::size_of::<Shared>(), 8);
        assert_eq!(std::mem::size_of::<Option<Shared>>(), 8);
    }

    #[test]
    fn owners_on_many_threads_share_and_free_one_text() {
        let texts: Vec<Shared> = ["", "1", "batch-size", &"long value ".repeat(40)]
            .iter()
            .map(|t| Shared::from(*t))
            .collect();
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..1000 {
                        let copies: Vec<Shared> = texts.iter().map(Shared::clone).collect();
                        assert_eq!(copies, texts);
                    }
                });
            }
        });
        assert_eq!(texts[0], "");
        assert_eq!(Shared::default(), "");
        assert_eq!(texts[3].len(), 440);
        assert_eq!(String::from(texts[2].clone()), "batch-size");
    }

    #[test]
    fn orders_and_hashes_as_its_text() {
        use std::collections::HashMap;
        let (a, b) = (Shared::from("a"), Shared::from("b"));
        assert!(a < b);
        assert_eq!(b.partial_cmp(&a), Some(std::cmp::Ordering::Greater));
        assert_eq!(a.cmp(&Shared::from("a".to_string())), std::cmp::Ordering::Equal);
        let map: HashMap<Shared, u32> = [(a.clone(), 1), (b, 2)].into();
        assert_eq!(map.get("a"), Some(&1), "looked up by `str`");
        assert_eq!(map.get("b"), Some(&2));
    }
}
