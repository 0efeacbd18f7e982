//! Answers about paths remembered for one workspace: rules on all threads
//! ask the same question of the same path (each nvinfer that shares a
//! model or an engine), and the answer costs a look at the disk.

use std::collections::HashMap;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Mutex;

/// Answers by the path asked, keyed by its bytes (`Path`'s hash parses
/// components), at most `MAX` of them: past that, answers are made again
/// rather than held (memory stays bounded on a hostile tree).
#[derive(Debug)]
pub struct PathMemo<V, const MAX: usize> {
    known: Mutex<HashMap<Box<[u8]>, V, foldhash::fast::RandomState>>,
}

impl<V, const MAX: usize> Default for PathMemo<V, MAX> {
    fn default() -> Self {
        Self {
            known: Mutex::new(HashMap::default()),
        }
    }
}

impl<V: Copy, const MAX: usize> PathMemo<V, MAX> {
    /// The answer for `path`: remembered, or made by `answer` (with no lock
    /// held, so two threads may make the same answer once each).
    pub fn get_or(&self, path: &Path, answer: impl FnOnce() -> V) -> V {
        let key = path.as_os_str().as_bytes();
        if let Some(&known) = self.known.lock().ok().as_ref().and_then(|m| m.get(key)) {
            return known;
        }
        let value = answer();
        if let Ok(mut m) = self.known.lock()
            && m.len() < MAX
        {
            m.insert(key.into(), value);
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn answers_are_made_once_a_path_up_to_the_bound() {
        let memo: PathMemo<u32, 2> = PathMemo::default();
        let made = Cell::new(0);
        let ask = |p: &str| {
            memo.get_or(Path::new(p), || {
                made.set(made.get() + 1);
                made.get()
            })
        };
        assert_eq!((ask("a"), ask("a"), ask("b"), ask("b")), (1, 1, 2, 2));
        // A third path is past the bound: answered each time, not held.
        assert_eq!((ask("c"), ask("c"), ask("a")), (3, 4, 1));
    }
}
