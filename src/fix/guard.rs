//! The fix loop checks itself (Precision 10): when the loop is done, the
//! pipelines are checked again (the loop's last check); a fix after which a
//! finding at warning or above appears that the tree did not have before
//! fixing is dropped and the run starts over without it, as ruff reverts a
//! fix that breaks a file. The DS403 preset named by a path that does not
//! exist (DS704) is the case in point. The end state is what is judged, not
//! each pass: an FP16 fix makes the engine name wrong (DS207) for one pass,
//! until the rename that follows it.
//!
//! A finding is "the same" by its file and code: lines move under other
//! fixes (DS006 moves a comment above its key), values change (that is the
//! point of fixing), so the count of findings per (file, code) at warning
//! or above is compared with the count before the first pass.
//!
//! The restart need not run the whole loop again (`engine::narrow`): the
//! files are split in groups that no list of findings crosses in any check
//! the run made (`Links`); outside the groups of the fixes dropped, the
//! loop without them is the loop with them, pass by pass, so only those
//! groups run again and the rest is kept. `narrow_restart_equals_full_restart`
//! and `narrow_restart_on_a_large_tree_equals_full_restart` (tests/fix.rs)
//! compare it with the whole loop run again.

use std::collections::HashSet;
use std::path::PathBuf;

use crate::base::FileId;
use crate::base::diagnostic::{Diagnostic, Severity};
use crate::base::key::Key;
use rayon::prelude::*;

/// Findings at warning or above, counted by (canonical file, code): each
/// pair once, sorted by the file's canonical path (as bytes) and the code.
/// A sorted list, not a map: it is made on all threads (a sort), and
/// `introduced` looks its pairs up on all threads; one thread hashing a
/// key for each pair (thousands of paths a count on the 10k bench tree)
/// was a serial step of each loop's first and last check.
#[derive(Default)]
pub struct Counts(Vec<((Key, &'static str), usize)>);

impl Counts {
    /// How many findings of this pair, 0 where none.
    fn get(&self, pair: &(Key, &'static str)) -> usize {
        self.0
            .binary_search_by(|(p, _)| order(p, pair))
            .map_or(0, |at| self.0[at].1)
    }
}

/// The order of `Counts`: the key's bytes, then the code.
fn order(a: &(Key, &'static str), b: &(Key, &'static str)) -> std::cmp::Ordering {
    fn bytes(k: &Key) -> &[u8] {
        std::borrow::Borrow::borrow(k)
    }
    (bytes(&a.0), a.1).cmp(&(bytes(&b.0), b.1))
}

/// (`key`: a file's canonical path, found once a file: each file's is
/// asked first on all threads.)
pub fn warned<'k>(diagnostics: &[Diagnostic], key: impl Fn(FileId) -> &'k Key + Sync) -> Counts {
    // Counted by file id first: a path is copied once a (file, code) pair,
    // not once a finding.
    let mut by_id: Vec<(FileId, &'static str)> = diagnostics
        .par_iter()
        .filter(|d| d.severity() >= Severity::Warning)
        .map(|d| (d.file, d.code()))
        .collect();
    by_id.par_sort_unstable();
    let mut pairs: Vec<((FileId, &'static str), usize)> = Vec::new();
    for p in by_id {
        match pairs.last_mut() {
            Some((last, n)) if *last == p => *n += 1,
            _ => pairs.push((p, 1)),
        }
    }
    // A key is a canonical path (`fs::canonicalize`, a system call a
    // component): the first loop's first count asks one for thousands of
    // files (~0.04 s on one thread at 10k files).
    let mut counts: Vec<((Key, &'static str), usize)> = pairs
        .into_par_iter()
        .map(|((file, code), n)| ((key(file).clone(), code), n))
        .collect();
    counts.par_sort_unstable_by(|(a, _), (b, _)| order(a, b));
    // Two files of one canonical path (named twice) are one.
    counts.dedup_by(|(later, n), (kept, m)| {
        let same = order(later, kept).is_eq();
        if same {
            *m += *n;
        }
        same
    });
    Counts(counts)
}

/// The (file, code) pairs with more findings than before fixing, sorted
/// (by path, as `Path` orders).
pub fn introduced(before: &Counts, now: &Counts) -> Vec<(Key, &'static str)> {
    let mut new: Vec<(Key, &'static str)> = now
        .0
        .par_iter()
        .filter(|(k, n)| *n > before.get(k))
        .map(|(k, _)| k.clone())
        .collect();
    new.sort_by(|(a, x), (b, y)| (a.as_path(), x).cmp(&(b.as_path(), y)));
    new
}

/// A fix as the loop knows it across passes: the file of its finding
/// (canonical), its code and its title. Offsets are not part of it: they
/// move as other fixes land.
pub type FixKey = (Key, &'static str, String);

/// One fix the loop applied.
pub struct PassFix {
    pub key: FixKey,
    /// Where its finding is, as reported (`path:line`).
    pub file: PathBuf,
    pub line: usize,
    /// The files it edits (canonical).
    pub edits: Vec<Key>,
    /// The pass that applied it (from 0).
    pub pass: usize,
    /// Its finding's file, then the files it edits, by id.
    pub at: Vec<FileId>,
}

/// How many times a fix run starts over without the fixes it blamed.
pub const MAX_RESTARTS: usize = 3;
/// Above this many files the guard restarts once and tries no suspect
/// alone: it drops every suspect instead. Each try is a whole fix loop;
/// its checks redo only what its edits touch (`fix::recheck`), but on a
/// tree whose first pass edits shared primaries that is most pipelines,
/// and a 10k-file tree holds hundreds of suspects. Kept so that `fix`
/// stays bounded (two loops at most on a large tree) and says what it said.
pub const TRIAL_FILES: usize = 200;
/// How many suspects are each tried left out, at most, per restart.
const MAX_TRIALS: usize = 8;

/// The applied fixes to blame for `new`. Suspects are the fixes that edit a
/// file holding a new finding, or whose finding is in one (all fixes when
/// none does). One suspect is blamed outright; of several, the ones whose
/// leaving out (`clears`: the run without it has nothing new) is enough,
/// the last applied first; all of them when none is enough alone.
pub fn blame<'a>(
    applied: &'a [PassFix],
    new: &[(Key, &'static str)],
    mut clears: impl FnMut(&FixKey) -> bool,
) -> Vec<&'a PassFix> {
    let files: HashSet<&Key> = new.iter().map(|(p, _)| p).collect();
    let touches = |f: &PassFix| files.contains(&f.key.0) || f.edits.iter().any(|p| files.contains(p));
    let mut suspects: Vec<&PassFix> = applied.iter().filter(|f| touches(f)).collect();
    if suspects.is_empty() {
        suspects = applied.iter().collect();
    }
    // A fix applied in several passes (a fixed point revisited) is one suspect.
    let mut seen = HashSet::new();
    suspects.retain(|f| seen.insert(f.key.clone()));
    if suspects.len() <= 1 {
        return suspects;
    }
    let guilty = suspects.iter().rev().take(MAX_TRIALS).find(|f| clears(&f.key));
    match guilty {
        Some(f) => vec![*f],
        None => suspects,
    }
}

/// A fix undone because a finding appeared after it; listed by
/// `--show-fixes` and in `fix --format json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DroppedFix {
    pub file: PathBuf,
    pub line: usize,
    pub code: &'static str,
    pub title: String,
    /// What appeared: `CODE in path`.
    pub introduced: Vec<String>,
}

impl std::fmt::Display for DroppedFix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {} {} dropped: it would introduce {}",
            self.file.display(),
            self.line,
            self.code,
            self.title,
            self.introduced.join(", ")
        )
    }
}

/// Which files can bear on one another's findings, as far as a fix run's
/// checks have shown: two files are linked when one list of findings reads
/// or names both (a pipeline's files and what its findings name, a file's
/// own findings, a standalone element's). Every list is joined after every
/// check, so a group (a connected set) holds every file whose findings or
/// texts a change in the group could move, in any state the run has seen.
/// The guard's narrow restart (`engine`) runs again only the groups of the
/// fixes it drops.
#[derive(Default)]
pub struct Links {
    parent: Vec<usize>,
}

impl Links {
    fn root(&mut self, mut f: usize) -> usize {
        if f >= self.parent.len() {
            return f;
        }
        while self.parent[f] != f {
            self.parent[f] = self.parent[self.parent[f]];
            f = self.parent[f];
        }
        f
    }

    /// Put `a` and `b` in one group.
    pub fn join(&mut self, a: FileId, b: FileId) {
        if a == b {
            return;
        }
        let most = a.max(b);
        if most >= self.parent.len() {
            let len = self.parent.len();
            self.parent.extend(len..=most);
        }
        let (ra, rb) = (self.root(a), self.root(b));
        if ra != rb {
            // The lower root stays: a group is named by its first file.
            let (keep, under) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[under] = keep;
        }
    }

    /// The files of `files` in the groups of `seeds`, marked.
    pub fn groups_of(&mut self, seeds: impl IntoIterator<Item = FileId>, files: usize) -> Vec<bool> {
        let roots: HashSet<usize> = seeds.into_iter().map(|f| self.root(f)).collect();
        (0..files).map(|f| roots.contains(&self.root(f))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Groups are what joins chain, whatever the order; a file never
    /// joined is a group of its own.
    #[test]
    fn links_group_what_joins_chain() {
        let mut links = Links::default();
        links.join(5, 2);
        links.join(7, 9);
        links.join(2, 9);
        links.join(3, 3);
        let marked = |links: &mut Links, seeds: &[FileId]| -> Vec<FileId> {
            let m = links.groups_of(seeds.iter().copied(), 11);
            (0..11).filter(|&f| m[f]).collect()
        };
        assert_eq!(marked(&mut links, &[9]), vec![2, 5, 7, 9]);
        assert_eq!(marked(&mut links, &[3]), vec![3]);
        assert_eq!(marked(&mut links, &[10, 0]), vec![0, 10]);
        assert_eq!(marked(&mut links, &[]), Vec::<FileId>::new());
        links.join(10, 5);
        assert_eq!(marked(&mut links, &[0, 7]), vec![0, 2, 5, 7, 9, 10]);
    }
}
