//! Sorting by `Path`'s order without its component walk.
//!
//! `Path::cmp` parses both paths into components for every comparison
//! (~570 instructions a pair of the bench tree's paths): sorting the
//! report's 20k files by path for each report `fix` makes, and putting
//! the 4.5k changed files in their map, were ~0.16G instructions of `fix
//! --diff` on the 10k bench tree. A path spelt plainly (no empty, `.` or
//! `..` component: what the walk and the canonical keys give) is its
//! components joined by `/`, so for two plain paths the order of their
//! components is the order of their bytes with `/` below every other byte
//! (a component that is a prefix of another sorts first, as its end meets
//! the other's next byte). A sort whose paths are not all plain compares
//! them as `Path` does.

use std::cmp::Ordering;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Whether `path` is its components joined by `/` (after a leading `/`
/// when rooted): no empty, `.` or `..` component, no trailing `/`.
pub fn is_plain(path: &Path) -> bool {
    let bytes = path.as_os_str().as_bytes();
    let rest = bytes.strip_prefix(b"/").unwrap_or(bytes);
    !rest.is_empty()
        && rest
            .split(|&b| b == b'/')
            .all(|c| !c.is_empty() && c != b"." && c != b"..")
}

/// `a.cmp(b)` for two plain paths ([`is_plain`]): their bytes compared
/// with `/` as the lowest byte.
pub fn cmp_plain(a: &Path, b: &Path) -> Ordering {
    let (a, b) = (a.as_os_str().as_bytes(), b.as_os_str().as_bytes());
    let i = common_prefix(a, b);
    let low = |c: Option<&u8>| c.map(|&c| if c == b'/' { 0 } else { c });
    low(a.get(i)).cmp(&low(b.get(i)))
}

/// How `Path` orders paths, as a comparison for a sort of `paths`: the
/// bytes' order where every path is plain, else `Path::cmp`.
pub fn comparator<'p>(mut paths: impl Iterator<Item = &'p Path>) -> fn(&Path, &Path) -> Ordering {
    if paths.all(is_plain) {
        cmp_plain
    } else {
        |a: &Path, b: &Path| a.cmp(b)
    }
}

/// Bytes two slices share at the start, eight at a time.
pub(crate) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let word = |s: &[u8]| u64::from_le_bytes(s[i..i + 8].try_into().unwrap_or_default());
        let x = word(a) ^ word(b);
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_paths() {
        for p in ["/a", "a", "/a/b.txt", "a b/c", "/t/-x/.hidden", "/a/...", "/a/b\\c"] {
            assert!(is_plain(Path::new(p)), "{p}");
        }
        for p in ["", "/", "./a", "a/./b", "a/../b", "a//b", "a/", "/a/b/", "..", "/.."] {
            assert!(!is_plain(Path::new(p)), "{p}");
        }
    }

    /// A component ends before any byte of a longer one, and a rooted
    /// path sorts before a relative one, as `Path` has it (bytes alone
    /// would put `a-b` before `a/b` and `/` after `-`).
    #[test]
    fn a_component_ends_below_every_byte() {
        let sorted = ["/a/b", "/a-b", "/a.b/c", "/a0", "a", "a/b", "a!"];
        for (i, x) in sorted.iter().enumerate() {
            for (j, y) in sorted.iter().enumerate() {
                let (x, y) = (Path::new(x), Path::new(y));
                assert_eq!(cmp_plain(x, y), i.cmp(&j), "{x:?} {y:?}");
                assert_eq!(cmp_plain(x, y), x.cmp(y), "{x:?} {y:?}");
            }
        }
    }

    fn component() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("a".to_string()),
            Just("a-b".to_string()),
            Just("a.b".to_string()),
            Just("ab".to_string()),
            Just(".".to_string()),
            Just("..".to_string()),
            Just("".to_string()),
            Just("\u{e9}".to_string()),
            Just("a b".to_string()),
            "[a-c/.!~-]{1,12}",
        ]
    }

    fn path() -> impl Strategy<Value = String> {
        (any::<bool>(), prop::collection::vec(component(), 0..6)).prop_map(|(rooted, c)| {
            let joined = c.join("/");
            if rooted { format!("/{joined}") } else { joined }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// The comparison a sort is given orders as `Path` does, plain
        /// paths or not.
        #[test]
        fn the_comparator_is_paths_order(a in path(), b in path()) {
            let (a, b) = (Path::new(&a), Path::new(&b));
            let cmp = comparator([a, b].into_iter());
            prop_assert_eq!(cmp(a, b), a.cmp(b));
            if is_plain(a) && is_plain(b) {
                prop_assert_eq!(cmp_plain(a, b), a.cmp(b));
            }
        }
    }
}
