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

/// `dir.join(rel)`, in one allocation of the joined length: `join` copies
/// `dir` to a buffer of its own length, then grows it for `rel` (a
/// reallocation and a second copy, for every path placed or resolved).
pub fn join(dir: &std::path::Path, rel: impl AsRef<std::path::Path>) -> std::path::PathBuf {
    let rel = rel.as_ref();
    let mut out = std::path::PathBuf::with_capacity(dir.as_os_str().len() + 1 + rel.as_os_str().len());
    out.push(dir);
    out.push(rel);
    out
}

/// `(path.parent(), name)` where the path's last component is the name
/// `name`, cut from the bytes where they plainly say so: the part before
/// the last `/` and the part after it, when the name is neither empty,
/// `.` nor `..` and the part before is not empty and ends in neither `/`
/// nor a `.` name (what `parent` would trim). `None` otherwise: ask
/// `Path` (which parses the components: a few hundred instructions, for
/// every path placed or resolved).
pub fn split_name(path: &std::path::Path) -> Option<(&std::path::Path, &std::ffi::OsStr)> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let i = memchr::memrchr(b'/', bytes)?;
    let (head, name) = (&bytes[..i], &bytes[i + 1..]);
    let plain_head = !head.is_empty() && !head.ends_with(b"/") && head != b"." && !head.ends_with(b"/.");
    let plain_name = !name.is_empty() && name != b"." && name != b"..";
    (plain_head && plain_name).then(|| {
        (
            std::path::Path::new(std::ffi::OsStr::from_bytes(head)),
            std::ffi::OsStr::from_bytes(name),
        )
    })
}

/// `path.parent()`, through [`split_name`] where it can.
pub fn parent(path: &std::path::Path) -> Option<&std::path::Path> {
    match split_name(path) {
        Some((parent, _)) => Some(parent),
        None => path.parent(),
    }
}

/// `path.extension()`, cut from the bytes where the last name is plain (not
/// empty, `.` nor `..`: a walk's entry): `extension` parses the path's
/// components first, and every file a walk lists is asked its extension
/// two or three times.
pub fn extension(path: &std::path::Path) -> Option<&std::ffi::OsStr> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    let name = memchr::memrchr(b'/', bytes).map_or(bytes, |i| &bytes[i + 1..]);
    if name.is_empty() || name == b"." || name == b".." {
        return path.extension();
    }
    match memchr::memrchr(b'.', name) {
        None | Some(0) => None,
        Some(i) => Some(std::ffi::OsStr::from_bytes(&name[i + 1..])),
    }
}

#[cfg(test)]
mod tests {
    /// `split_name` and `parent` say what `Path` says, for every path of
    /// up to seven of `a . /` (and a few longer).
    #[test]
    fn split_name_and_parent_are_paths_own() {
        use std::path::{Component, Path};
        let mut paths: Vec<String> = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..7 {
            last = last
                .iter()
                .flat_map(|p| ["a", ".", "/"].map(|c| format!("{p}{c}")))
                .collect();
            paths.extend(last.iter().cloned());
        }
        paths.extend(
            [
                "/tmp/t/site001/p00012/app.txt",
                "./t/a b/c.yml",
                "../../x/y",
                "a/../b/./c/d",
                "a/..",
            ]
            .map(String::from),
        );
        let mut fast = 0;
        for p in &paths {
            let p = Path::new(p);
            assert_eq!(super::parent(p), p.parent(), "{p:?}");
            if let Some((parent, name)) = super::split_name(p) {
                fast += 1;
                assert_eq!(Some(parent), p.parent(), "{p:?}");
                assert_eq!(p.components().next_back(), Some(Component::Normal(name)), "{p:?}");
            }
        }
        assert!(fast > 100, "most of them are cut from the bytes");
    }

    /// `extension` is `Path::extension`.
    #[test]
    fn extension_is_path_extension() {
        use std::path::Path;
        for p in [
            "",
            "/",
            ".",
            "..",
            "a",
            "a.txt",
            "/x/a.tar.gz",
            "a/.bashrc",
            ".a.b",
            "a.",
            "a/b.c/",
            "a/b.c/.",
            "a/..",
            "a.b/c",
            "x/y.yml",
            "a//b.c",
            "./c.h",
            "é.ü",
        ] {
            assert_eq!(super::extension(Path::new(p)), Path::new(p).extension(), "{p:?}");
        }
    }

    /// `join` is `Path::join`, whatever the two paths.
    #[test]
    fn join_is_path_join() {
        use std::path::Path;
        for dir in ["", "/", "a", "a/", "/a/b", "a//", "."] {
            for rel in ["", "b", "b/c", "/abs", "../x", "./y", "z/"] {
                assert_eq!(
                    super::join(Path::new(dir), rel),
                    Path::new(dir).join(rel),
                    "{dir:?} {rel:?}"
                );
            }
        }
    }

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
