//! `Shared`: an immutable string that many owners hold at the cost of one
//! allocation. A key or value is parsed once into the document's entry and
//! then appears in every pipeline that reads the file (a primary config
//! shared by hundreds of apps), in its element's property name and in the
//! site of each setting: copying it each time was the largest share of a
//! check's memory. Cloning one is a reference count.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Shared(Arc<str>);

impl Shared {
    pub fn as_str(&self) -> &str {
        &self.0
    }
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
}
