//! The fix loop: check, take the wanted fixes that do not overlap, apply
//! them in memory, check again (only what the edits touched:
//! `fix::recheck`), until nothing changes (at most `MAX_PASSES`). Files are
//! written only at the end, and only when asked.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use crate::base::FileId;
use crate::base::diagnostic::Diagnostic;
use crate::base::edit::{Applicability, Fix};
use crate::base::key::Key;
use crate::base::path_order;
use crate::base::rule::Rule;
use crate::context::edits_outside;
use crate::files::root::ProjectRoot;
use crate::fix::guard::{self, DroppedFix, FixKey, Links, PassFix};
use crate::fix::recheck::{Checked, Checker, Checks, Kept, Recheck};
use crate::fix::{apply, inert};
use crate::model::facts::Facts;
use crate::model::workspace::Workspace;
use crate::rules::Settings;
use crate::rules::context::Profile;
use rayon::prelude::*;

pub const MAX_PASSES: usize = 10;

/// The loop's maps by canonical path (`Key`: hashed as bytes), hashed
/// with foldhash: a pass of the 10k bench tree puts thousands of paths in
/// them, and SipHash over a path's components was most of their cost.
pub(super) type PathMap<V> = HashMap<Key, V, foldhash::fast::RandomState>;
type PathSet = HashSet<Key, foldhash::fast::RandomState>;

pub struct FixOptions<'a> {
    pub facts: Option<&'a Facts>,
    pub profile: Profile,
    pub unsafe_fixes: bool,
    /// Which codes are reported and fixed.
    pub selection: Settings,
    /// The project root (`None`: discovered from the paths).
    pub root: Option<ProjectRoot>,
    /// Also apply the fixes of named files' findings that edit other files
    /// (the app of a named nvinfer config); without it, only fixes whose
    /// edits all lie in the named files are applied.
    pub fix_related: bool,
}

#[derive(Default)]
pub struct FixOutcome {
    /// path → (original text, fixed text), for files that changed.
    pub changed: BTreeMap<PathBuf, (String, String)>,
    pub applied: BTreeMap<&'static str, usize>,
    /// Unsafe fixes not applied (no `--unsafe-fixes`), by code.
    pub unsafe_left: BTreeMap<&'static str, usize>,
    pub passes: usize,
    /// Every fix applied, in the order applied.
    pub log: Vec<AppliedFix>,
    /// Fixes not applied because they edit files that were not named (no
    /// `--fix-related`).
    pub related_left: Vec<RelatedLeft>,
    /// What is left after fixing.
    pub remaining: Vec<Diagnostic>,
    pub final_ws: Workspace,
    /// Files whose fixes undid one another (left unfixed from then on).
    pub conflicting: Vec<PathBuf>,
    /// Fixes undone because a finding at warning or above appeared after
    /// them that the tree did not have (Precision 10).
    pub dropped: Vec<DroppedFix>,
    /// Changed files `--write` could not write (refused: changed since
    /// they were read, …), and how many fixes edit them
    /// ([`FixOutcome::keep_written`]).
    pub not_written: Vec<PathBuf>,
    pub unwritten_fixes: usize,
    /// How the checks were made (whole tree, or what edits touched).
    pub checks: Checks,
    /// The rest of what the run built (`recheck::Kept`).
    pub kept: Kept,
    /// The guard's restarts that ran again only the groups of the fixes
    /// they dropped (`engine::narrow`).
    pub narrowed_restarts: usize,
}

/// A fix left because it edits files that were not named: where its
/// finding is, its code and title, and the files it would edit besides.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RelatedLeft {
    pub file: PathBuf,
    pub line: usize,
    pub code: &'static str,
    pub title: String,
    /// The files it would edit that were not named.
    pub edits: Vec<PathBuf>,
}

impl std::fmt::Display for RelatedLeft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let edits: Vec<String> = self.edits.iter().map(|p| p.display().to_string()).collect();
        write!(
            f,
            "{}:{}: {} {} (edits {})",
            self.file.display(),
            self.line,
            self.code,
            self.title,
            edits.join(", ")
        )
    }
}

/// One fix applied: where (the line in the text that pass fixed), which
/// code, and what it did. Shown as `path:line: CODE title`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AppliedFix {
    pub file: PathBuf,
    pub line: usize,
    pub code: &'static str,
    pub title: String,
    /// The files it edits, as `FixOutcome::changed` names them, each once.
    #[serde(skip)]
    pub edits: Vec<PathBuf>,
}

impl FixOutcome {
    /// After `--write`: leave out what was not written. The files in
    /// `failed` go from `changed` to `not_written`, and a fix that edits one
    /// of them from the log and the counts (to `unwritten_fixes`): what the
    /// summary says was fixed is what the files on disk now hold.
    pub fn keep_written(&mut self, failed: &HashSet<PathBuf>) {
        if failed.is_empty() {
            return;
        }
        self.not_written = self.changed.keys().filter(|p| failed.contains(*p)).cloned().collect();
        self.changed.retain(|p, _| !failed.contains(p));
        let before = self.log.len();
        self.log.retain(|f| !f.edits.iter().any(|p| failed.contains(p)));
        self.unwritten_fixes = before - self.log.len();
        self.applied.clear();
        for f in &self.log {
            *self.applied.entry(f.code).or_default() += 1;
        }
    }
}

impl std::fmt::Display for AppliedFix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {} {}", self.file.display(), self.line, self.code, self.title)
    }
}

pub fn run(paths: &[PathBuf], opts: &FixOptions) -> FixOutcome {
    run_with(paths, opts, HashMap::new())
}

/// `run` with every check a load and check of the whole tree: what the
/// incremental checks are tested against.
pub fn run_checking_all(paths: &[PathBuf], opts: &FixOptions) -> FixOutcome {
    run_in(paths, opts, HashMap::new(), Recheck::All, true, Renames::Local)
}

/// `run` with every restart of the guard a whole fix loop from the
/// starting texts: what the narrow restart is tested against.
pub fn run_restarting_fully(paths: &[PathBuf], opts: &FixOptions) -> FixOutcome {
    run_in(paths, opts, HashMap::new(), Recheck::Touched, false, Renames::Local)
}

/// `run` with every engine rename (DS207) waiting while any other fix is
/// wanted anywhere in the tree (and every restart a whole loop): what
/// letting renames go beside inert fixes and fixes elsewhere (`waiting`)
/// is tested against.
pub fn run_renames_waiting_for_all(paths: &[PathBuf], opts: &FixOptions) -> FixOutcome {
    run_in(
        paths,
        opts,
        HashMap::new(),
        Recheck::Touched,
        false,
        Renames::WaitForAll,
    )
}

/// When an engine rename (DS207) waits for the pass's other fixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Renames {
    /// Only for those that may move it (`waiting`).
    Local,
    /// For any other fix wanted in the tree (the reference `Local` is
    /// tested against).
    WaitForAll,
}

/// Fix starting from texts already edited in memory (by canonical path);
/// `changed` then compares against those starting texts.
///
/// Each check after the first gives the files the last pass changed their
/// new text and runs again only the rules they feed (`fix::recheck`). A fix
/// that would give a file a text it already had in this run (it undoes an
/// earlier fix) is applied once — the earlier fix may have rested on a
/// value another fix then changed — but a file that would come back a
/// second time is in a cycle (two pipelines sharing it want different
/// values, or a fix changes nothing): that pass's fixes to it are not
/// applied, nor any later one, the file is put back as it was, and its
/// findings are left for the user, with the file named in `conflicting`,
/// instead of the file flipping until `MAX_PASSES`.
pub fn run_with(paths: &[PathBuf], opts: &FixOptions, start: HashMap<PathBuf, String>) -> FixOutcome {
    run_in(paths, opts, start, Recheck::Touched, true, Renames::Local)
}

/// `narrowing`: whether the guard's restart may run again only the groups
/// of the fixes it drops (`narrow`).
fn run_in(
    paths: &[PathBuf],
    opts: &FixOptions,
    start: HashMap<PathBuf, String>,
    recheck: Recheck,
    narrowing: bool,
    renames: Renames,
) -> FixOutcome {
    let mut checker = Checker::new(paths, opts, recheck);
    let mut banned: HashSet<FixKey> = HashSet::new();
    let mut dropped: Vec<DroppedFix> = Vec::new();
    let mut restarts = 0;
    // The findings before any fix: every loop starts from the same texts,
    // so the first loop's count is each loop's.
    let mut before: Option<Rc<guard::Counts>> = None;
    let mut links = Links::default();
    // The loop the restart may narrow, and the files of the fixes dropped.
    let mut narrowable: Option<(Run, Vec<FileId>)> = None;
    let mut narrowed_restarts = 0;
    let starting = || -> PathMap<Arc<String>> {
        start
            .iter()
            .map(|(k, t)| (Key::new(k.clone()), Arc::new(t.clone())))
            .collect()
    };
    loop {
        let narrowed = narrowable
            .take()
            .and_then(|(reference, seeds)| narrow(&mut checker, opts, &start, &banned, &mut links, reference, &seeds));
        let once = |checker: &mut Checker,
                    banned: &HashSet<FixKey>,
                    before: &mut Option<Rc<guard::Counts>>,
                    links: &mut Links| {
            run_once(checker, opts, starting(), banned, before, links, None, renames)
        };
        let run = match narrowed {
            Some(run) => {
                narrowed_restarts += 1;
                run
            }
            None => once(&mut checker, &banned, &mut before, &mut links).expect("a whole loop always ends"),
        };
        let new = run.introduced();
        // A restart goes back to the starting texts and a trial is a whole
        // fix loop, each checking again only what its edits touch; on a
        // large tree the guard still restarts once and blames without
        // trials, so `fix` costs at most two loops there (bounded by the
        // tree, not by its defects), and the output stays what it was.
        let large = checker.last().map_or(0, |c| c.ws.files.len()) > guard::TRIAL_FILES;
        let max_restarts = if large { 1 } else { guard::MAX_RESTARTS };
        if new.is_empty() || restarts == max_restarts {
            // What the run leaves and changed is read from its last check
            // (the checker's last), made only for the run that is returned.
            // The run's texts are then its own (the check's share let go):
            // `finish` moves them into `changed`.
            checker.release_texts();
            let mut out = match checker.last() {
                Some(last) => run.finish(last, opts),
                None => FixOutcome::default(),
            };
            out.dropped = dropped;
            out.checks = checker.counts();
            out.narrowed_restarts = narrowed_restarts;
            // What is left is the last check's report, moved out.
            (out.final_ws, out.remaining, out.kept) = checker.into_ws_and_report();
            return out;
        }
        restarts += 1;
        let shown: Vec<String> = match checker.last() {
            Some(c) => new
                .iter()
                .map(|(path, code)| {
                    let at =
                        c.ws.get(path)
                            .map_or(path.to_path_buf(), |id| c.ws.files[id].path.clone());
                    format!("{code} in {}", at.display())
                })
                .collect(),
            None => Vec::new(),
        };
        let clears = |suspect: &FixKey| {
            if large {
                return false;
            }
            let mut without = banned.clone();
            without.insert(suspect.clone());
            once(&mut checker, &without, &mut before, &mut links).is_some_and(|run| run.introduced().is_empty())
        };
        let mut seeds: Vec<FileId> = Vec::new();
        for f in guard::blame(&run.applied, &new, clears) {
            seeds.extend(&f.at);
            banned.insert(f.key.clone());
            dropped.push(DroppedFix {
                file: f.file.clone(),
                line: f.line,
                code: f.key.1,
                title: f.key.2.clone(),
                introduced: shown.clone(),
            });
        }
        // Only the first restart is narrowed, from the whole loop before it.
        if narrowing && restarts == 1 && run.exact {
            narrowable = Some((run, seeds));
        }
    }
}

/// One fix loop, the fixes in `banned` left out.
struct Run {
    passes: usize,
    /// The texts the loop ends with (by canonical path; shared with the
    /// checks' workspace, `OverlayTexts`), and each changed file's path and
    /// text before its first fix.
    overlay: PathMap<Arc<String>>,
    originals: PathMap<(PathBuf, String)>,
    /// Every fix applied with the files it edits.
    logged: Vec<(AppliedFix, Vec<Key>)>,
    /// Files left unfixed (their fixes undid one another).
    frozen: BTreeSet<PathBuf>,
    /// Findings at warning or above before the first pass.
    before: Rc<guard::Counts>,
    /// And after the last.
    after: guard::Counts,
    /// Every fix applied, in order.
    applied: Vec<PassFix>,
    /// Each pass's wanted fixes before the engine names waited
    /// (`Wanted`).
    wanted: Vec<Wanted>,
    /// Whether the loop can be narrowed from (`narrow`): every check gave
    /// the files the ids the first gave them (`Checker::same_ids`), no
    /// file put back, fewer than `MAX_PASSES` passes.
    exact: bool,
}

/// A pass's wanted fixes, as the guard's narrow restart needs them: each
/// one's finding's file and whether it waited (an engine rename, DS207,
/// waiting for fixes that may move it: `waiting`).
#[derive(Default)]
struct Wanted {
    fixes: Vec<(FileId, bool)>,
}

impl Run {
    /// The (file, code) pairs at warning or above that the loop made more of.
    fn introduced(&self) -> Vec<(Key, &'static str)> {
        guard::introduced(&self.before, &self.after)
    }

    /// What the loop did and left (but the findings left: the caller moves
    /// them out of the last check), `last` its last check: the guard's
    /// restart and trials only ask `introduced`, so a run they replace
    /// copies no text nor finding for an outcome no one reads.
    fn finish(self, last: &Checked, opts: &FixOptions) -> FixOutcome {
        let Run {
            passes,
            overlay,
            originals,
            logged,
            frozen,
            applied,
            wanted,
            after,
            ..
        } = self;
        let ws = &last.ws;
        let diagnostics: &[Diagnostic] = &last.diagnostics;
        let covered = opts.selection.scope(ws).covered(ws);
        let applicable = |f: &Fix| f.applicability == Applicability::Safe || opts.unsafe_fixes;
        let in_scope = |f: &Fix| opts.fix_related || f.edits.iter().all(|e| covered[e.file]);
        let mut out = FixOutcome {
            passes,
            ..FixOutcome::default()
        };
        // Every finding looked at on all threads (each list in report
        // order): one thread's walks over them were most of `finish`.
        if !opts.unsafe_fixes {
            out.unsafe_left = diagnostics
                .par_iter()
                .filter(|d| d.fix.as_ref().is_some_and(|f| f.applicability == Applicability::Unsafe))
                .fold(BTreeMap::new, |mut by_code, d| {
                    *by_code.entry(d.code()).or_default() += 1;
                    by_code
                })
                .reduce(BTreeMap::new, add_counts);
        }
        out.related_left = diagnostics
            .par_iter()
            .filter_map(|d| {
                let f = d.fix.as_ref().filter(|f| applicable(f) && !in_scope(f))?;
                let edits = edits_outside(&covered, f)
                    .into_iter()
                    .map(|file| ws.files[file].path.clone())
                    .collect();
                Some(RelatedLeft {
                    file: ws.files[d.file].path.clone(),
                    line: ws.files[d.file].position(d.span.start).0,
                    code: d.code(),
                    title: f.title.clone(),
                    edits,
                })
            })
            .collect();
        out.conflicting = frozen
            .iter()
            .filter_map(|k| ws.get(k).map(|id| ws.files[id].path.clone()))
            .collect();
        // The files not left unfixed whose final text differs from their
        // original, each compared once (not once a fix that edits them).
        // The texts are moved, not copied: the run's overlay ends here.
        let mut overlay = overlay;
        // Each file's texts paired here, compared on all threads (the
        // texts of thousands of files).
        let paired: Vec<(Key, PathBuf, String, Arc<String>)> = originals
            .into_iter()
            .filter_map(|(key, (path, original))| {
                let new = overlay.remove(&key)?;
                Some((key, path, original, new))
            })
            .collect();
        // Each new text is this run's alone by now (`release_texts`): taken
        // out of its `Arc`, not copied.
        let paired: Vec<(Key, PathBuf, String, String)> = paired
            .into_par_iter()
            .filter(|(_, _, original, new)| **new != *original)
            .map(|(key, path, original, new)| {
                let new = Arc::try_unwrap(new).unwrap_or_else(|shared| String::clone(&shared));
                (key, path, original, new)
            })
            .collect();
        // The files that differ, each with the path `changed` names it by.
        let mut differ: PathMap<PathBuf> = PathMap::default();
        let mut changed: Vec<(PathBuf, (String, String))> = Vec::with_capacity(paired.len());
        for (key, path, original, new) in paired {
            if !frozen.contains(key.as_path()) {
                differ.insert(key, path.clone());
            }
            changed.push((path, (original, new)));
        }
        // Sorted first with `path_order` (inserted one by one, the map's
        // path comparisons were ~48M instructions of the main thread's on
        // the 10k bench tree): the map is then built from a sorted run.
        // (Stable, on all threads, as `sort_by`.)
        let cmp = path_order::comparator(changed.iter().map(|(p, _)| p.as_path()));
        changed.par_sort_by(|(a, _), (b, _)| cmp(a, b));
        out.changed = changed.into_iter().collect();
        // What the run did is what its final texts hold: a fix to a file that
        // ended as it began (later fixes undid it, the file shared by
        // pipelines that want different values) or that was left unfixed is
        // not reported as applied, nor counted.
        // (Each file looked up once: `None` where one is not kept.)
        // (On all threads, in the order applied.)
        out.log = logged
            .into_par_iter()
            .filter_map(|(mut fix, files)| {
                fix.edits = files.iter().map(|k| differ.get(k).cloned()).collect::<Option<_>>()?;
                Some(fix)
            })
            .collect();
        for fix in &out.log {
            *out.applied.entry(fix.code).or_default() += 1;
        }
        // What else the loop kept (every fix applied, with its keys and
        // title: ~13M instructions to free on the 10k bench tree) is freed
        // off the main thread.
        rayon::spawn(move || drop((applied, wanted, after)));
        out
    }
}

/// What a narrowed loop keeps of the loop it narrows (`narrow`): the
/// files it runs again (by id), and the other files' wanted fixes, pass by
/// pass, with whether the renames waited then.
struct Region {
    files: Vec<bool>,
    reference: Vec<Wanted>,
}

/// One fix loop, the fixes in `banned` left out. With `region`, the loop
/// starts from `start` (the overlay given) and fixes only the region's
/// files (`narrow`); `None` where the region's loop cannot be shown to be
/// the whole loop's (it wants a fix elsewhere, a file cycles,
/// `MAX_PASSES`).
#[allow(clippy::too_many_arguments)]
fn run_once(
    checker: &mut Checker,
    opts: &FixOptions,
    start: PathMap<Arc<String>>,
    banned: &HashSet<FixKey>,
    before: &mut Option<Rc<guard::Counts>>,
    links: &mut Links,
    region: Option<&Region>,
    renames: Renames,
) -> Option<Run> {
    let mut applied: Vec<PassFix> = Vec::new();
    // Every fix applied with the files it edits, kept in the log at the end
    // only if those files hold it.
    let mut logged: Vec<(AppliedFix, Vec<Key>)> = Vec::new();
    let banned_titles: HashSet<&str> = banned.iter().map(|(_, _, title)| title.as_str()).collect();
    let mut overlay = start;
    // By hash: a path compares component by component, and a pass adds
    // thousands of files (`changed` is sorted by path in `finish`).
    let mut originals: PathMap<(PathBuf, String)> = PathMap::default();
    let mut passes = 0;
    let mut returns = Returns::default();
    let mut frozen: BTreeSet<PathBuf> = BTreeSet::new();
    let mut wanted_by_pass: Vec<Wanted> = Vec::new();
    let mut exact = true;
    // A narrowed loop's pass that fixed nothing in the region (the other
    // files' fixes stood for it): the texts are the same, so is the check.
    let mut same_texts = false;
    // Findings at warning or above before any fix (Precision 10): counted
    // by the first loop's first check, the same in every loop.
    let after = loop {
        let checked = if same_texts {
            checker.last()?
        } else {
            let checked = checker.check(&overlay);
            checked.link(links);
            checked
        };
        same_texts = false;
        let ws = &checked.ws;
        let key = |file: FileId| checked.key(file).clone();
        let diagnostics: &[Diagnostic] = &checked.diagnostics;
        if before.is_none() {
            *before = Some(Rc::new(guard::warned(diagnostics, |f| checked.key(f))));
        }
        let covered = opts.selection.scope(ws).covered(ws);
        let applicable = |f: &Fix| f.applicability == Applicability::Safe || opts.unsafe_fixes;
        // (`edits_outside` is empty: every file it edits is covered.)
        let in_scope = |f: &Fix| opts.fix_related || f.edits.iter().all(|e| covered[e.file]);
        // Whether a finding's fix is banned: its key is made (a path and a
        // title copied) only for a fix whose title a banned fix has.
        let allowed = |d: &Diagnostic| match &d.fix {
            Some(f) if banned_titles.contains(f.title.as_str()) => {
                !banned.contains(&(key(d.file), d.code(), f.title.clone()))
            }
            _ => true,
        };
        // A fix whose edits write the bytes already there changes nothing: it
        // is not applied (nor counted), and cannot make a file look as if it
        // came back to an earlier text.
        let changes = |f: &Fix| {
            f.edits
                .iter()
                .any(|e| ws.files[e.file].doc.text.get(e.range.clone()) != Some(e.text.as_str()))
        };
        let wanted = |d: &&Diagnostic| {
            d.fix
                .as_ref()
                .is_some_and(|f| applicable(f) && in_scope(f) && changes(f))
                && allowed(d)
        };
        let is_rename = |d: &Diagnostic| d.rule() == Rule::EngineNameMismatch;
        // A file put back this pass: the findings must be read again from
        // the texts that will be written.
        let mut reverted = false;
        let pass = if passes >= MAX_PASSES {
            if region.is_some() {
                return None;
            }
            exact = false;
            None
        } else {
            loop {
                // Every finding looked at on all threads, in report order.
                let mut fixable: Vec<&Diagnostic> = diagnostics
                    .par_iter()
                    .filter(wanted)
                    .filter(|d| {
                        d.fix.as_ref().is_some_and(|f| {
                            frozen.is_empty() || f.edits.iter().all(|e| !frozen.contains(checked.key(e.file).as_path()))
                        })
                    })
                    .collect();
                // An engine name (DS207) follows the batch, GPU and precision
                // other fixes may be changing in this pass: it is renamed
                // only once they are done, against the values they leave
                // (`waiting`).
                let waits = match renames {
                    Renames::Local => waiting(checked, &fixable),
                    Renames::WaitForAll => {
                        let wait = fixable.iter().any(|d| !is_rename(d));
                        fixable.iter().map(|d| wait && is_rename(d)).collect()
                    }
                };
                // The other files' fixes in this pass of the loop narrowed
                // (the same in this one): whether any was applied. Which
                // renames wait is the region's own affair (`waiting` looks
                // only at files read together, which `Links` joins).
                let mut others = false;
                if let Some(r) = region {
                    if fixable.iter().any(|d| !r.files[d.file]) {
                        return None;
                    }
                    let elsewhere = r.reference.get(passes).map_or(&[][..], |w| &w.fixes[..]);
                    others = elsewhere.iter().any(|&(f, waited)| !r.files[f] && !waited);
                }
                let wanted_here = Wanted {
                    fixes: fixable.iter().zip(&waits).map(|(d, w)| (d.file, *w)).collect(),
                };
                let mut waited = waits.iter();
                fixable.retain(|_| waited.next().is_some_and(|w| !*w));
                if fixable.is_empty() {
                    if others {
                        break Some(None);
                    }
                    break None;
                }
                let (taken, _deferred) = apply::select(fixable.iter().filter_map(|d| d.fix.as_deref()));
                let texts: BTreeMap<usize, String> =
                    apply::applied(taken.iter().flat_map(|f| f.edits.iter()), |file| {
                        &ws.files[file].doc.text
                    });
                // Each file's texts before and after, fingerprinted (and its
                // key found) on all threads.
                let prints: Vec<(u64, u64)> = texts
                    .par_iter()
                    .map(|(&file, text)| {
                        checked.key(file);
                        (hash(&ws.files[file].doc.text), hash(text))
                    })
                    .collect();
                let cycling = returns.pass(
                    texts
                        .keys()
                        .zip(prints)
                        .map(|(&file, (was, now))| (key(file), was, now)),
                );
                if cycling.is_empty() {
                    break Some(Some((fixable, taken, texts, wanted_here)));
                }
                if region.is_some() {
                    return None;
                }
                exact = false;
                reverted |= freeze(cycling, &originals, &mut overlay, &mut frozen);
            }
        };
        let Some(pass) = pass else {
            // Reached exactly when this pass found a cycle and, with the
            // cycling files frozen, nothing else was left to fix: a file
            // cycles only after a pass that changed it was applied (it must
            // have come back once, `Returns::pass`), so `originals` holds it
            // and `freeze` always puts it back. The findings above were read
            // from the texts before that: read them again from the texts that
            // will be written, before `after` counts them. Not removable
            // while the cycle guard stands; no input found reaches the guard
            // (see the tests below), so none reaches this either.
            if reverted {
                continue;
            }
            break guard::warned(diagnostics, |f| checked.key(f));
        };
        // A narrowed loop's pass with fixes elsewhere only.
        let Some((fixable, taken, texts, wanted_here)) = pass else {
            passes += 1;
            same_texts = true;
            continue;
        };
        let pass_at = passes;
        passes += 1;
        wanted_by_pass.push(wanted_here);
        // Which fixable findings' fixes were taken: `select` keeps the
        // order it is given (each fixable finding's fix), so one walk
        // beside `taken` marks them (a scan of `taken` per finding was
        // quadratic; a set of addresses, hashed on one thread, a serial
        // step of each pass).
        let mut next = taken.iter().peekable();
        let was_taken: Vec<bool> = fixable
            .iter()
            .map(|d| {
                d.fix
                    .as_deref()
                    .is_some_and(|f| next.next_if(|&&t| std::ptr::eq(t, f)).is_some())
            })
            .collect();
        debug_assert!(next.next().is_none(), "every fix taken is a fixable finding's");
        // Where each taken fix's finding is, on all threads, in order.
        let (done_logged, done_applied): (Vec<(AppliedFix, Vec<Key>)>, Vec<PassFix>) = fixable
            .par_iter()
            .zip(was_taken)
            .filter_map(|(d, taken)| {
                let f = d.fix.as_deref().filter(|_| taken)?;
                let file = &ws.files[d.file];
                let (line, _) = file.position(d.span.start);
                // Each file once (a fix may edit a file in several places).
                let mut files: Vec<FileId> = f.edits.iter().map(|e| e.file).collect();
                files.sort_unstable();
                files.dedup();
                let edits: Vec<Key> = files.into_iter().map(key).collect();
                let logged = (
                    AppliedFix {
                        file: file.path.clone(),
                        line,
                        code: d.code(),
                        title: f.title.clone(),
                        edits: Vec::new(),
                    },
                    edits.clone(),
                );
                let applied = PassFix {
                    key: (key(d.file), d.code(), f.title.clone()),
                    file: file.path.clone(),
                    line,
                    edits,
                    pass: pass_at,
                    at: std::iter::once(d.file).chain(f.edits.iter().map(|e| e.file)).collect(),
                };
                Some((logged, applied))
            })
            .unzip();
        logged.extend(done_logged);
        applied.extend(done_applied);

        // The texts before a file's first fix are copied on all threads
        // (a pass of the 10k bench tree changes ~4.5k files, and a copy
        // is a fresh allocation to fault in), then put in place.
        let firsts: Vec<(Key, (PathBuf, String))> = texts
            .par_iter()
            .filter(|(file, _)| !originals.contains_key(checked.key(**file)))
            .map(|(&file, _)| {
                (
                    key(file),
                    (ws.files[file].path.clone(), ws.files[file].doc.text.clone()),
                )
            })
            .collect();
        originals.extend(firsts);
        for (file, text) in texts {
            overlay.insert(key(file), Arc::new(text));
        }
    };
    Some(Run {
        passes,
        overlay,
        originals,
        logged,
        frozen,
        before: before.clone().unwrap_or_default(),
        after,
        applied,
        wanted: wanted_by_pass,
        exact: exact && checker.same_ids(),
    })
}

/// The guard's restart, narrowed: the loop without the fixes dropped is
/// the loop `reference` made, but in the groups of files (`guard::Links`)
/// of the fixes dropped (`seeds`). The other files' findings read and name
/// only files of their own groups, in every check either loop makes, so
/// they are what they were pass by pass, and so are their fixes, their
/// lines and their passes; the region's loop is run again alone (from the
/// starting texts, the other files at the texts the loop left them), and
/// the two are merged: each pass's fixes in report order (by file: no file
/// has fixes from both), the other files' texts and originals kept.
///
/// `None` where that cannot be shown (then the whole loop is run again):
/// a full load (the files' ids would differ), a report that moves findings
/// across files, a group that grew while the region ran, a file that
/// cycles, `MAX_PASSES`. Which engine renames wait in a pass is decided
/// within groups (`waiting`), so the region's are its own.
fn narrow(
    checker: &mut Checker,
    opts: &FixOptions,
    start: &HashMap<PathBuf, String>,
    banned: &HashSet<FixKey>,
    links: &mut Links,
    reference: Run,
    seeds: &[FileId],
) -> Option<Run> {
    let last = checker.last()?;
    if !checker.same_ids() || !last.report_is_local(opts) {
        return None;
    }
    let files = last.ws.files.len();
    let region = Region {
        files: links.groups_of(seeds.iter().copied(), files),
        reference: Vec::new(),
    };
    let region_keys: PathSet = (0..files)
        .filter(|&f| region.files[f])
        .map(|f| last.key(f).clone())
        .collect();
    let Run {
        overlay,
        originals,
        logged,
        applied,
        wanted,
        before,
        after: reference_after,
        ..
    } = reference;
    // (Thousands of paths: freed off the main thread.)
    rayon::spawn(move || drop(reference_after));
    let region = Region {
        reference: wanted,
        ..region
    };
    // The other files as the loop left them, the region's as it started.
    let mut from: PathMap<Arc<String>> = overlay;
    from.retain(|k, _| !region_keys.contains(k));
    for (k, text) in start.iter().filter(|(k, _)| region_keys.contains(Key::bytes_of(k))) {
        from.insert(Key::new(k.clone()), Arc::new(text.clone()));
    }
    let mut before = Some(before);
    let run = run_once(
        checker,
        opts,
        from,
        banned,
        &mut before,
        links,
        Some(&region),
        Renames::Local,
    )?;
    if !checker.same_ids() || links.groups_of(seeds.iter().copied(), files) != region.files {
        return None;
    }
    // Each pass's fixes, the other files' and the region's, in report
    // order: by pass, then by file (a file's come from one side, in order).
    let kept: Vec<((AppliedFix, Vec<Key>), PassFix)> = logged
        .into_iter()
        .zip(applied)
        .filter(|(_, a)| !region.files[a.at[0]])
        .collect();
    let Run {
        passes,
        overlay,
        originals: region_originals,
        logged: region_logged,
        applied: region_applied,
        before,
        after,
        ..
    } = run;
    let mut merged_logged = Vec::with_capacity(kept.len() + region_logged.len());
    let mut merged_applied = Vec::with_capacity(kept.len() + region_applied.len());
    let mut kept = kept.into_iter().peekable();
    let mut ran = region_logged.into_iter().zip(region_applied).peekable();
    loop {
        let first = match (kept.peek(), ran.peek()) {
            (Some((_, a)), Some((_, b))) => (a.pass, &a.file) <= (b.pass, &b.file),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        let (l, a) = if first { kept.next() } else { ran.next() }?;
        merged_logged.push(l);
        merged_applied.push(a);
    }
    let mut originals = originals;
    originals.retain(|k, _| !region_keys.contains(k));
    originals.extend(region_originals);
    Some(Run {
        passes,
        overlay,
        originals,
        logged: merged_logged,
        frozen: BTreeSet::new(),
        before,
        after,
        applied: merged_applied,
        wanted: Vec::new(),
        exact: false,
    })
}

/// Which of a pass's wanted fixes wait for the next pass (in order): an
/// engine rename (DS207) whose file a pipeline (or standalone element)
/// reads together with a file that another fix of the pass edits, unless
/// that fix is inert (`fix::inert`: it sets a value no input of the
/// engine name reads). Its name follows the batch, GPU and precision such
/// a fix may change: it is renamed once that fix is done, against the
/// values it leaves. Any other rename cannot be moved by this pass's other
/// fixes: its pipelines read no file they edit but inertly, so its finding
/// after them is the one before, and renaming now gives the text renaming
/// a pass later gives (`early_renames_equal_waiting_renames`, tests/fix.rs,
/// compares the two). The files read together are those the pipelines of
/// this check read, which change only with a full load: `Links` joins
/// them, so a group's renames wait for the group's fixes alone (what the
/// guard's narrow restart rests on).
fn waiting(checked: &Checked, fixable: &[&Diagnostic]) -> Vec<bool> {
    let is_rename = |d: &Diagnostic| d.rule() == Rule::EngineNameMismatch;
    let none = || vec![false; fixable.len()];
    if !fixable.iter().any(|d| is_rename(d)) {
        return none();
    }
    // Only a fix to a file read with a rename's can hold one back (being
    // read together is symmetric): the others are not asked whether they
    // are inert.
    let renamed: Vec<FileId> = fixable
        .iter()
        .filter(|d| is_rename(d))
        .flat_map(|d| std::iter::once(d.file).chain(d.fix.iter().flat_map(|f| &f.edits).map(|e| e.file)))
        .collect();
    let with_renamed = checked.read_with(&renamed);
    let near_renamed = |f: FileId| with_renamed.get(f).is_none_or(|n| *n);
    // On all threads, each task with its own `Inert` (what it keeps of a
    // file is made from the file alone: the answers are the same).
    let moved: Vec<FileId> = fixable
        .par_iter()
        .filter(|d| !is_rename(d))
        .filter_map(|d| d.fix.as_deref())
        .filter(|f| f.edits.iter().any(|e| near_renamed(e.file)))
        .map_init(
            || inert::Inert::new(&checked.ws),
            |inert, f| (!inert.fix_is_inert(f)).then_some(f),
        )
        .flatten_iter()
        .flat_map_iter(|f| f.edits.iter().map(|e| e.file))
        .collect();
    if moved.is_empty() {
        return none();
    }
    let near = checked.read_with(&moved);
    let near = |f: FileId| near.get(f).is_none_or(|n| *n);
    fixable
        .par_iter()
        .map(|d| is_rename(d) && (near(d.file) || d.fix.iter().flat_map(|f| &f.edits).any(|e| near(e.file))))
        .collect()
}

/// Leave the files of a cycle unfixed (`run_once`): each put back as it
/// was before its first fix of the run (left unfixed means as it was:
/// which pipeline's value the file held when the cycle was seen is an
/// accident of order) and frozen, so that no later pass fixes it. Whether
/// a text was put back: the pass's findings were then read from texts
/// that will not be written, and the files are checked again before the
/// loop may end.
fn freeze(
    cycling: Vec<Key>,
    originals: &PathMap<(PathBuf, String)>,
    overlay: &mut PathMap<Arc<String>>,
    frozen: &mut BTreeSet<PathBuf>,
) -> bool {
    let mut reverted = false;
    for k in &cycling {
        if let Some((_, original)) = originals.get(k) {
            overlay.insert(k.clone(), Arc::new(original.clone()));
            reverted = true;
        }
    }
    frozen.extend(cycling.into_iter().map(Key::into_path_buf));
    reverted
}

/// The texts each file a fix loop changed had, to tell a cycle: a file
/// that comes back to a text it had once may do so for a good reason (a
/// batch-size fix changes the engine name another fix had set); coming
/// back a second time is a cycle (`run_with`).
#[derive(Default)]
struct Returns {
    /// Hashes of the texts each changed file had in this run (hashed
    /// with foldhash, as the loop's other maps).
    seen: PathMap<HashSet<u64, foldhash::fast::RandomState>>,
    /// Files that came back to an earlier text once.
    returned: PathSet,
}

impl Returns {
    /// A pass's new texts, each as (file, hash of its text now, hash of
    /// its new text): the files that would come back a second time (the
    /// pass is then not applied, and what came back a first time in it is
    /// not noted: the pass is made again without the cycling files).
    fn pass(&mut self, texts: impl Iterator<Item = (Key, u64, u64)>) -> Vec<Key> {
        let (mut cycling, mut returning) = (Vec::new(), Vec::new());
        for (k, now, new) in texts {
            let had = self.seen.entry(k.clone()).or_default();
            had.insert(now);
            if had.contains(&new) {
                if self.returned.contains(&k) {
                    cycling.push(k);
                } else {
                    returning.push(k);
                }
            }
        }
        if cycling.is_empty() {
            self.returned.extend(returning);
        }
        cycling
    }
}

/// Two counts by code as one (the folds of `Run::finish`).
fn add_counts(mut a: BTreeMap<&'static str, usize>, b: BTreeMap<&'static str, usize>) -> BTreeMap<&'static str, usize> {
    for (code, n) in b {
        *a.entry(code).or_default() += n;
    }
    a
}

/// A text's fingerprint, to tell a text the file already had (here, and
/// the versions of `shelf::Versions`).
pub(super) fn hash(text: &str) -> u64 {
    use std::hash::BuildHasher;
    // foldhash (its quality variant), seeded at random once a process: the
    // texts are compared only within the run, and an unknown seed keeps a
    // crafted file from colliding two of its texts. SipHash (fixed keys)
    // was ~6% of a pass's instructions on a 1k bench tree: each text a
    // pass changes is fingerprinted before and after, here and in
    // `shelf::Print`.
    static SEED: std::sync::OnceLock<foldhash::quality::RandomState> = std::sync::OnceLock::new();
    SEED.get_or_init(foldhash::quality::RandomState::default).hash_one(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cycle guard alone (no input found reaches it through `fix`
    /// since apps sharing a config that want different values get one
    /// finding without a fix): a file may come back to an earlier text
    /// once; the second time it is named as cycling and that pass is not
    /// noted, so the pass made again without it sees the same history.
    /// The revert-and-freeze step alone (no input found reaches it through
    /// `fix`, as above): a cycling file a fix changed goes back to its text
    /// before the run's first fix and is frozen, the others' texts stay; a
    /// cycling file no fix of the run changed yet (its text is the
    /// starting one) is frozen with nothing put back, so no new check is
    /// asked for.
    #[test]
    fn a_cycling_file_is_put_back_and_frozen() {
        let (a, b, c) = (
            Key::new(PathBuf::from("/a.txt")),
            Key::new(PathBuf::from("/b.txt")),
            Key::new(PathBuf::from("/c.txt")),
        );
        let mut originals: PathMap<(PathBuf, String)> = PathMap::default();
        originals.insert(a.clone(), (PathBuf::from("a.txt"), "a0".to_string()));
        originals.insert(c.clone(), (PathBuf::from("c.txt"), "c0".to_string()));
        let mut overlay: PathMap<Arc<String>> = PathMap::default();
        for (k, text) in [(&a, "a2"), (&b, "b0"), (&c, "c1")] {
            overlay.insert(k.clone(), Arc::new(text.to_string()));
        }
        let mut frozen = BTreeSet::new();
        assert!(!freeze(vec![b.clone()], &originals, &mut overlay, &mut frozen));
        assert_eq!(*overlay[&b], "b0");
        assert!(freeze(vec![a.clone()], &originals, &mut overlay, &mut frozen));
        assert_eq!((overlay[&a].as_str(), overlay[&c].as_str()), ("a0", "c1"));
        assert_eq!(frozen, BTreeSet::from([a.to_path_buf(), b.to_path_buf()]));
        // What `finish` then reports: the frozen files, none as changed.
        assert!(frozen.iter().all(|k| {
            originals
                .get(Key::bytes_of(k))
                .is_none_or(|(_, o)| *overlay[Key::bytes_of(k)] == *o)
        }));
    }

    #[test]
    fn a_file_coming_back_twice_is_a_cycle() {
        let (a, b) = (Key::new(PathBuf::from("/a.txt")), Key::new(PathBuf::from("/b.txt")));
        let mut r = Returns::default();
        let pass = |r: &mut Returns, texts: &[(&Key, u64, u64)]| {
            r.pass(texts.iter().map(|&(k, now, new)| (k.clone(), now, new)))
        };
        // a: 1 -> 2 -> 3, b: 10 -> 11: nothing comes back.
        assert!(pass(&mut r, &[(&a, 1, 2), (&b, 10, 11)]).is_empty());
        assert!(pass(&mut r, &[(&a, 2, 3)]).is_empty());
        // a back to 1: a first return, allowed (and noted).
        assert!(pass(&mut r, &[(&a, 3, 1)]).is_empty());
        // b back to 10 (its first) in the same pass as a back to 2 (its
        // second): a cycles, and b's return is not noted.
        assert_eq!(pass(&mut r, &[(&a, 1, 2), (&b, 11, 10)]), std::slice::from_ref(&a));
        // Made again without a: b's first return, allowed.
        assert!(pass(&mut r, &[(&b, 11, 10)]).is_empty());
        // b back to 11: its second return, a cycle.
        assert_eq!(pass(&mut r, &[(&b, 10, 11)]), std::slice::from_ref(&b));
        // A text never seen is no return, however often the file changed.
        assert!(pass(&mut r, &[(&a, 1, 4), (&b, 10, 12)]).is_empty());
    }
}
