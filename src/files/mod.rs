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

/// A path as `Path::display` writes it, borrowed when it is UTF-8 (as
/// nearly every path is): `display` and `to_string_lossy` decode it a
/// chunk at a time, and findings name a path each, some several.
pub fn shown(path: &std::path::Path) -> std::borrow::Cow<'_, str> {
    match path.to_str() {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => path.to_string_lossy(),
    }
}

#[cfg(test)]
mod tests {
    /// The same text as `display` and `to_string_lossy`, UTF-8 or not.
    #[test]
    fn shown_is_display() {
        use std::os::unix::ffi::OsStrExt;
        for p in [&b"a/b.txt"[..], "é/ü".as_bytes(), b"a\xff/b\xc3", b""] {
            let p = std::path::Path::new(std::ffi::OsStr::from_bytes(p));
            assert_eq!(super::shown(p), p.display().to_string());
            assert_eq!(super::shown(p), p.to_string_lossy());
        }
        assert!(matches!(
            super::shown(std::path::Path::new("a/b")),
            std::borrow::Cow::Borrowed("a/b")
        ));
    }
}
