//! A file's key in the fix loop's maps: its canonical path, hashed and
//! compared as bytes.
//!
//! `Path`'s own `Hash` walks the path component by component (a write to
//! the hasher for each): on the 10k bench tree's `fix --diff`, hashing the
//! loop's keys was 0.137G of the 0.60G instructions its main thread ran
//! alone (callgrind). A canonical path (`fs::canonicalize`: absolute, no
//! `.`, `..` or doubled separators) is spelt one way, so its bytes name
//! it as its components do.

use std::borrow::Borrow;
use std::hash::{Hash, Hasher};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A canonical path, hashed and compared by its bytes. Looked up by
/// `&[u8]` (`Key::bytes_of`) where only a path is at hand.
#[derive(Debug, Clone, Default)]
pub struct Key(PathBuf);

impl Key {
    pub fn new(path: PathBuf) -> Key {
        Key(path)
    }

    pub fn as_path(&self) -> &Path {
        &self.0
    }

    pub fn into_path_buf(self) -> PathBuf {
        self.0
    }

    /// The bytes a key of `path` is looked up by.
    pub fn bytes_of(path: &Path) -> &[u8] {
        path.as_os_str().as_bytes()
    }

    fn bytes(&self) -> &[u8] {
        Key::bytes_of(&self.0)
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.bytes() == other.bytes()
    }
}

impl Eq for Key {}

/// As `[u8]` hashes (so that a lookup by bytes finds the key).
impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.bytes().hash(state);
    }
}

impl Borrow<[u8]> for Key {
    fn borrow(&self) -> &[u8] {
        self.bytes()
    }
}

impl std::ops::Deref for Key {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Key {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl From<PathBuf> for Key {
    fn from(path: PathBuf) -> Key {
        Key(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A key is found by its bytes, as a map keyed by the path finds it.
    #[test]
    fn a_key_is_found_by_its_bytes() {
        let mut map: HashMap<Key, u32, foldhash::fast::RandomState> = HashMap::default();
        map.insert(Key::new(PathBuf::from("/a/b.txt")), 1);
        map.insert(Key::new(PathBuf::from("/a/b")), 2);
        assert_eq!(map.get(Key::bytes_of(Path::new("/a/b.txt"))), Some(&1));
        assert_eq!(map.get(&Key::new(PathBuf::from("/a/b"))), Some(&2));
        assert_eq!(map.get(Key::bytes_of(Path::new("/a/c"))), None);
    }
}
