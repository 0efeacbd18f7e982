//! `Shared`: an immutable string that many owners hold at the cost of one
//! allocation. A key or value is parsed once into the document's entry and
//! then appears in every pipeline that reads the file (a primary config
//! shared by hundreds of apps), in its element's property name and in the
//! site of each setting: copying it each time was the largest share of a
//! check's memory. Cloning one is a reference count.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::fmt;
use std::hash::BuildHasher;
use std::ops::Deref;
use std::sync::Arc;

#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Shared(Arc<str>);

impl Shared {
    pub fn as_str(&self) -> &str {
        &self.0
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
            return Shared::from(s);
        }
        INTERNED.with_borrow_mut(|Interned { table, hasher }| {
            let h = hasher.hash_one(s);
            if let Some(found) = table.find(h, |t| t.as_str() == s) {
                return found.clone();
            }
            let new = Shared::from(s);
            if table.len() < MAX_INTERNED {
                table.insert_unique(h, new.clone(), |t| hasher.hash_one(t.as_str()));
            }
            new
        })
    }
}

/// Texts longer than this are not looked up in the table.
const MAX_INTERNED_LEN: usize = 48;

/// At most this many texts a thread (a few MiB at most).
const MAX_INTERNED: usize = 1 << 16;

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

impl Deref for Shared {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Shared {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Shared {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl From<String> for Shared {
    fn from(s: String) -> Shared {
        Shared(s.into())
    }
}

impl From<&str> for Shared {
    fn from(s: &str) -> Shared {
        Shared(s.into())
    }
}

impl From<&String> for Shared {
    fn from(s: &String) -> Shared {
        Shared(s.as_str().into())
    }
}

impl From<Shared> for String {
    fn from(s: Shared) -> String {
        s.0.to_string()
    }
}

impl PartialEq<str> for Shared {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Shared {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Shared {
    fn eq(&self, other: &String) -> bool {
        &*self.0 == other.as_str()
    }
}

impl PartialEq<Shared> for str {
    fn eq(&self, other: &Shared) -> bool {
        self == &*other.0
    }
}

impl PartialEq<Shared> for &str {
    fn eq(&self, other: &Shared) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<Shared> for String {
    fn eq(&self, other: &Shared) -> bool {
        self.as_str() == &*other.0
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
}
