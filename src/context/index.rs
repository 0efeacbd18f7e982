//! The reference index: which file of the project names which other file.
//!
//! Built from one walk of the project root (the workspace's walk: the same
//! candidate files a directory check reads, `.gitignore` respected, no link
//! followed out of the root) and one bounded read of each file (regular
//! files only, under the size cap). A file is looked at further only when
//! its bytes hold one of the [`REFERENCE_KEYS`] (one multi-pattern search);
//! then a small scanner takes the value written after each key — `key=v`,
//! `key: v`, `"key": "v"`, `set_property("key", "v")` — without parsing
//! the file. The index may name a file that does not really load the
//! target (a commented-out line, a disabled group): that costs a file read
//! for context, never a finding, because the element graph built from it
//! decides what is loaded. What it misses (a path assembled at run time) is
//! unknown to dslint anyway.
//!
//! # Adding a reference key
//!
//! The keys are the front ends' own lists,
//! [`crate::model::frontend::REFERENCE_KEYS`]: a front end that follows a
//! new path-valued key adds it there, and the scanner reads the syntaxes
//! above (key-file, YAML, protobuf text, Python calls and dicts, gst-launch
//! `name=value`), so nothing else changes. A key written in a file the
//! walk does not look at yet also needs that extension in the workspace's
//! walk (`model::workspace::is_candidate`), which the index shares.
//! `tests/context.rs` names a referenced file of each form and expects
//! its pipeline's findings.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use aho_corasick::{AhoCorasick, MatchKind};
use rayon::prelude::*;

use crate::files::read;
use crate::files::root::{Place, ProjectRoot};
use crate::model::frontend::REFERENCE_KEYS;
use crate::model::workspace::{self, MAX_FILE_BYTES, normalize};

/// Who references a file, by the referenced file's name.
#[derive(Debug, Default)]
pub struct Index {
    /// Files that name at least one other file, as walked (absolute).
    referrers: Vec<PathBuf>,
    /// A referenced file's name → (referrer, the path as written, joined
    /// to the referrer's folder and folded lexically).
    by_name: HashMap<OsString, Vec<(usize, PathBuf)>>,
    pub stats: Stats,
}

/// What building the index cost.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Candidate files walked and read.
    pub files: usize,
    pub bytes: u64,
    /// Files whose bytes hold a reference key (scanned further).
    pub candidates: usize,
    /// Paths found after a reference key.
    pub references: usize,
}

impl Index {
    /// Walk the project root and index every reference.
    pub fn build(root: &ProjectRoot) -> Index {
        let files = workspace::walk_candidates(root, root.path()).files;
        Index::of_files(&files)
    }

    /// Index these files (absolute paths).
    pub fn of_files(files: &[PathBuf]) -> Index {
        let keys = matcher();
        let scanned: Vec<Scanned> = files
            .par_iter()
            .map(|p| {
                let Ok(bytes) = read::read_regular(p, MAX_FILE_BYTES) else {
                    return (0, None);
                };
                let n = bytes.len() as u64;
                if !keys.is_match(&bytes) {
                    return (n, None);
                }
                let dir = p.parent().unwrap_or(Path::new("/"));
                let targets = referenced_paths(&keys, &bytes)
                    .into_iter()
                    .map(|raw| normalize(&dir.join(raw)))
                    .collect();
                (n, Some((p.clone(), targets)))
            })
            .collect();
        let mut index = Index::default();
        index.stats.files = files.len();
        for (n, found) in scanned {
            index.stats.bytes += n;
            let Some((referrer, targets)) = found else { continue };
            index.stats.candidates += 1;
            index.stats.references += targets.len();
            let id = index.referrers.len();
            index.referrers.push(referrer);
            for t in targets {
                if let Some(name) = t.file_name() {
                    index.by_name.entry(name.to_os_string()).or_default().push((id, t));
                }
            }
        }
        index
    }

    /// The files that reference `target` (its real path, inside the root),
    /// looked up by each of `names` (the name it was given by and its real
    /// name, which differ through a link) and confirmed by placing the
    /// written path against the root.
    pub fn referrers_of<'i>(&'i self, root: &ProjectRoot, target: &Path, names: &[&OsStr]) -> Vec<&'i Path> {
        let mut out: Vec<&Path> = Vec::new();
        let mut found: HashSet<usize> = HashSet::new();
        for name in names {
            for (id, written) in self.by_name.get(*name).into_iter().flatten() {
                if found.contains(id) {
                    continue;
                }
                if matches!(root.place(written), Place::Inside(real) if real == target) {
                    found.insert(*id);
                    out.push(self.referrers[*id].as_path());
                }
            }
        }
        out
    }
}

/// One file read for the index: its size, and when it names other files,
/// its path and theirs.
type Scanned = (u64, Option<(PathBuf, Vec<PathBuf>)>);

/// One search for every spelling of every reference key.
fn matcher() -> AhoCorasick {
    let mut needles: Vec<String> = Vec::new();
    // GObject property names (`config_file_path`) and protobuf fields
    // (`labelfile_path`) are matched with `_` as well as `-`.
    for key in REFERENCE_KEYS.iter().flat_map(|(_, keys)| keys.iter()) {
        needles.push((*key).to_string());
        needles.push(key.replace('-', "_"));
    }
    needles.sort();
    needles.dedup();
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .build(&needles)
        .expect("reference keys are plain strings")
}

/// Bytes that may be part of a key name: a key found inside a longer name
/// (`my-config-file`) is not that key.
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// The paths written after a reference key: `key=v`, `key = v`, `key: v`,
/// `"key": "v"`, `("key", "v")`, with the value quoted or not. An unquoted
/// value gives both the rest of its line (a key-file value may hold
/// spaces) and its first word (YAML, gst-launch and Python stop there);
/// `file://` is dropped as the workspace's resolver drops it.
fn referenced_paths<'t>(keys: &AhoCorasick, text: &'t [u8]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    // A set, not `out.contains`: a file of 100k distinct paths stays linear.
    let mut seen: HashSet<&[u8]> = HashSet::new();
    let mut push = |raw: &'t [u8]| {
        let raw = raw.strip_prefix(b"file://").unwrap_or(raw);
        let raw = raw.trim_ascii();
        if raw.is_empty() || raw.windows(3).any(|w| w == b"://") {
            return;
        }
        if seen.insert(raw) {
            out.push(PathBuf::from(OsStr::from_bytes(raw)));
        }
    };
    for m in keys.find_iter(text) {
        let (start, end) = (m.start(), m.end());
        if (start > 0 && is_name_byte(text[start - 1])) || text.get(end).is_some_and(|&b| is_name_byte(b)) {
            continue;
        }
        let mut i = end;
        let blank = |i: &mut usize| {
            while text.get(*i).is_some_and(|&b| b == b' ' || b == b'\t') {
                *i += 1;
            }
        };
        if text.get(i).is_some_and(|&b| b == b'"' || b == b'\'') {
            i += 1;
        }
        blank(&mut i);
        if !text.get(i).is_some_and(|&b| matches!(b, b'=' | b':' | b',')) {
            continue;
        }
        i += 1;
        blank(&mut i);
        let line_end = text[i..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .map_or(text.len(), |n| i + n);
        let rest = &text[i..line_end];
        match rest.first() {
            Some(&q @ (b'"' | b'\'')) => {
                let inner = &rest[1..];
                push(&inner[..inner.iter().position(|&b| b == q).unwrap_or(inner.len())]);
            }
            Some(_) => {
                push(rest);
                let word = rest
                    .iter()
                    .position(|&b| b.is_ascii_whitespace() || matches!(b, b';' | b'#' | b',' | b')' | b']' | b'}'))
                    .unwrap_or(rest.len());
                push(&rest[..word]);
            }
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<String> {
        referenced_paths(&matcher(), text.as_bytes())
            .into_iter()
            .map(|p| p.display().to_string())
            .collect()
    }

    #[test]
    fn finds_the_path_after_each_spelling_of_a_key() {
        assert_eq!(paths("[primary-gie]\nconfig-file=pgie.txt\n"), ["pgie.txt"]);
        assert_eq!(
            paths("config-file = models/my pgie.txt\n"),
            ["models/my pgie.txt", "models/my"]
        );
        assert_eq!(
            paths("tracker:\n  ll-config-file: tracker.yml # NvDCF\n"),
            ["tracker.yml # NvDCF", "tracker.yml"]
        );
        assert_eq!(paths("  config-file-path: \"a b/pgie.yml\"\n"), ["a b/pgie.yml"]);
        assert_eq!(
            paths("pgie.set_property('config-file-path', 'dstest_pgie.txt')\n"),
            ["dstest_pgie.txt"]
        );
        assert_eq!(paths("props = {\"config_file_path\": \"x.txt\"}\n"), ["x.txt"]);
        assert_eq!(
            paths("nvinfer config-file-path=pgie.txt batch-size=4 ! nvtracker\n")[1],
            "pgie.txt"
        );
        assert_eq!(
            paths("uri=file:///data/v.mp4\nlabelfile-path=file://labels.txt\n"),
            ["labels.txt"]
        );
        // Inside a longer name, without a value, or with a URL: nothing.
        assert!(paths("my-config-file=a.txt\nconfig-files=b.txt\nconfig-file\nconfig-file=\n").is_empty());
        assert!(paths("config-file=http://host/pgie.txt\n").is_empty());
        assert!(paths("# the config-file key names the nvinfer config\n").is_empty());
    }

    #[test]
    fn indexes_and_confirms_through_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        let top = std::fs::canonicalize(tmp.path()).unwrap();
        std::fs::create_dir_all(top.join("apps")).unwrap();
        std::fs::create_dir_all(top.join("models")).unwrap();
        // 45, 35 and twice 24 bytes.
        std::fs::write(
            top.join("apps/app.txt"),
            "[primary-gie]\nconfig-file=../models/pgie.txt\n",
        )
        .unwrap();
        std::fs::write(top.join("apps/other.txt"), "[primary-gie]\nconfig-file=pgie.txt\n").unwrap();
        std::fs::write(top.join("models/pgie.txt"), "[property]\nbatch-size=1\n").unwrap();
        std::fs::write(top.join("apps/pgie.txt"), "[property]\nbatch-size=1\n").unwrap();
        let root = ProjectRoot::at(&top).unwrap();
        let index = Index::build(&root);
        assert_eq!(
            index.stats,
            Stats {
                files: 4,
                bytes: 45 + 35 + 24 + 24,
                candidates: 2,
                references: 2
            }
        );
        let target = top.join("models/pgie.txt");
        assert_eq!(
            index.referrers_of(&root, &target, &[OsStr::new("pgie.txt")]),
            [top.join("apps/app.txt").as_path()]
        );
        assert_eq!(
            index.referrers_of(&root, &top.join("apps/pgie.txt"), &[OsStr::new("pgie.txt")]),
            [top.join("apps/other.txt").as_path()]
        );
    }
}
