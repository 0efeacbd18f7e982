//! The rule book: every code, its page, and the checks that emit it.

pub mod analytics;
pub mod context;
pub mod cross;
pub mod input;
pub mod nvinfer;
pub mod output;
pub mod parallel;
pub mod queue;
pub mod selector;
pub mod source;
pub mod streammux;
pub mod suppress;
pub mod tracker;

use std::collections::HashSet;
use std::hash::BuildHasher;

use rayon::prelude::*;

use crate::base::FileId;
use crate::base::diagnostic::{Diagnostic, Severity};
use crate::base::rule::Rule;
use crate::model::detect::Kind;
use crate::model::facts::Facts;
use crate::model::frontend;
use crate::model::graph::{ConfigFile, Element, Graph, Pipeline, PrimaryBatch, Role};
use crate::model::workspace::{Target, Workspace};
use context::{Ctx, Profile};

type FastSet<T> = HashSet<T, foldhash::fast::RandomState>;
type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// Everything one `check` run found, in a stable order.
pub struct CheckResult {
    pub pipelines: Vec<Pipeline>,
    pub diagnostics: Vec<Diagnostic>,
}

/// What a run reports and how: `select` (empty: all), minus `ignore`, plus
/// per-file ignores (codes may be prefixes, `DS6`), and rule options.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    /// Codes ignored in files whose path matches a glob.
    pub per_file_ignores: Vec<PerFileIgnore>,
    /// The folder the per-file globs are relative to (the canonical folder
    /// of the config file that declares them).
    pub per_file_base: Option<std::path::PathBuf>,
    /// The sink type the bench profile asks for (DS603); default 1, fakesink.
    pub bench_sink_type: Option<i64>,
    /// The project says the apps run the new nvstreammux
    /// (`USE_NEW_NVSTREAMMUX=yes`; `new-streammux = true`).
    pub new_streammux: bool,
    /// The DeepStream release the project says its configs run on
    /// (`deepstream-version = "6.2"`), when it says.
    pub deepstream_version: Option<(u32, u32)>,
    /// Report the findings of every file read even when files are named
    /// (runs that rewrite a whole pipeline: measure's variants). By
    /// default a run that names files reports those files and the findings
    /// of their pipelines that involve them (`context::Scope`).
    pub whole_pipelines: bool,
}

impl Settings {
    /// Which files' findings this run reports in `ws`.
    pub fn scope(&self, ws: &Workspace) -> crate::context::Scope {
        if self.whole_pipelines {
            crate::context::Scope::default()
        } else {
            crate::context::Scope::of(ws)
        }
    }

    /// Selectors are validated where they are written (`selector::parse`);
    /// an empty one still matches nothing here, never every code.
    pub fn enabled(&self, code: &str) -> bool {
        let hit = |list: &[String]| list.iter().any(|s| selector_matches(s, code));
        (self.select.is_empty() || hit(&self.select)) && !hit(&self.ignore)
    }

    /// The selectors `per-file-ignores` applies to one file: a glob matches
    /// the file's path relative to the declaring config's folder (whatever
    /// the working directory), and a glob without `/` also its file name
    /// (ruff's convention: `"*.bench.txt" = ["DS6"]` anywhere).
    pub fn ignored_in(&self, path: &std::path::Path) -> Vec<&str> {
        if self.per_file_ignores.is_empty() {
            return Vec::new();
        }
        let full = crate::model::workspace::canonical(path);
        let rel = self.per_file_base.as_ref().and_then(|b| full.strip_prefix(b).ok());
        let name = full.file_name().map(std::path::Path::new);
        self.per_file_ignores
            .iter()
            .filter(|p| {
                rel.is_some_and(|r| p.glob.is_match(r))
                    || (!p.pattern.contains('/') && name.is_some_and(|n| p.glob.is_match(n)))
            })
            .flat_map(|p| p.codes.iter().map(String::as_str))
            .collect()
    }
}

/// One `per-file-ignores` entry.
#[derive(Debug, Clone)]
pub struct PerFileIgnore {
    pub pattern: String,
    pub glob: globset::GlobMatcher,
    pub codes: Vec<String>,
}

/// `ALL`, or a non-empty prefix of the code.
fn selector_matches(selector: &str, code: &str) -> bool {
    let s = selector.trim();
    s == "ALL" || (!s.is_empty() && code.starts_with(s))
}

/// Build the pipelines and run every rule.
pub fn check(ws: &mut Workspace, facts: Option<&Facts>, profile: Profile) -> CheckResult {
    check_with(ws, facts, profile, &Settings::default())
}

/// Run every rule, keep the selected codes, apply inline suppressions.
///
/// The files' checks and the pipelines' rules run in parallel; each yields
/// its findings in the order a sequential run would, and the lists are
/// joined in that order, so what comes out does not depend on the threads.
pub fn check_with(ws: &mut Workspace, facts: Option<&Facts>, profile: Profile, sel: &Settings) -> CheckResult {
    let graph = frontend::build(ws);
    let ctx = Ctx::new(ws, facts, profile, sel);
    let found = Findings::of(&ctx, &graph).joined();
    let out = report(ctx.ws, &graph.pipelines, found, sel);
    CheckResult {
        pipelines: graph.pipelines,
        diagnostics: out,
    }
}

/// `check_with` for a run that reports its findings and ends (the `check`
/// command): each pipeline's element properties are dropped as soon as its
/// rules have run, so that the findings made after them take the memory
/// the properties held instead of adding to it (the graph's properties
/// were the largest share of a check's peak, with every document and
/// finding alive beside them). The findings are the same; the pipelines
/// returned keep what the report reads ([`keep_for_report`]): their roots,
/// the roles and config files of their sources and of the elements that
/// load a config, and their references to configs outside the root.
///
/// Where the graph's building changes nothing in the workspace (every
/// root a deepstream-app or test-app config, no script or module:
/// [`frontend::build_visiting`]), each app config's pipeline is checked on
/// the thread that built it, as soon as it is built, and its properties
/// dropped there: the properties of all pipelines, which were alive
/// together at the end of the building, are never held at once.
///
/// Unless `parses_after` (the caller reads the documents' groups after:
/// SARIF's logical locations), each document's parse is dropped as soon
/// as no rule still to run reads it: during the building, once every app
/// config whose pipeline may read it is checked ([`EarlyDrops`]), else
/// once every rule has run, before the findings are joined. The report
/// and the output read texts and positions only, and the parses, alive
/// beside the findings to the end of the rules, were where a check's
/// memory peaked.
pub fn check_for_report(
    ws: &mut Workspace,
    facts: Option<&Facts>,
    profile: Profile,
    sel: &Settings,
    parses_after: bool,
) -> CheckResult {
    ws.trim_files();
    // Where a read of a dropped parse is found, everything again, every
    // parse kept until the rules are done (`early` false: always `Some`).
    let mut early = (!parses_after).then_some(Dropping::Done);
    loop {
        if let Some(result) = check_reporting(ws, facts, profile, sel, parses_after, early) {
            return result;
        }
        ws.restore_parses();
        early = None;
    }
}

/// Which parses [`EarlyDrops`] drops after each chunk of app configs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dropping {
    /// Those no pipeline still to build may read (a check).
    Done,
    /// Every one its pipelines may read, one app config a chunk, whatever
    /// pipeline, standalone config or file naming it is still to come (all
    /// of which find a file by path): the tests' way to find every such
    /// reader of a parse dropped too soon (the check is then made again
    /// keeping the parses, and finds what it finds keeping them).
    #[cfg(test)]
    Eager,
}

/// `check_for_report`, dropping parses while the graph is built where
/// `early` ([`EarlyDrops`]); `None` when the configs nothing references, or
/// the nvdsanalytics checks, found a file whose parse was dropped (one the
/// front ends' keys do not name): the caller restores the parses and
/// checks again. The building changed nothing in the workspace then (it
/// drops parses only while it changes nothing), so it builds the same
/// graph again.
fn check_reporting(
    ws: &mut Workspace,
    facts: Option<&Facts>,
    profile: Profile,
    sel: &Settings,
    parses_after: bool,
    early: Option<Dropping>,
) -> Option<CheckResult> {
    let store = Store::with_room(ws.files.len());
    let visit = |ws: &Workspace, p: &mut Pipeline| {
        store.put(pipeline_findings_for_report(&Ctx::new(ws, facts, profile, sel), p))
    };
    let mut drops = early.and_then(|how| EarlyDrops::new(ws, facts, profile, sel, how, &store));
    let (mut graph, visited) =
        frontend::build_visiting(ws, &visit, drops.as_mut().map(|d| d as &mut dyn frontend::Chunks));
    let files = drops.map(|d| d.found).unwrap_or_default();
    let gone_seen = ws.touched_gone();
    let lists = store.put_the_rest(&Ctx::new(ws, facts, profile, sel), &mut graph, visited, files);
    if gone_seen || ws.touched_gone() {
        return None;
    }
    if !parses_after {
        ws.drop_parses();
    }
    let found = store.joined(lists);
    let out = report(ws, &graph.pipelines, found, sel);
    Some(CheckResult {
        pipelines: graph.pipelines,
        diagnostics: out,
    })
}

/// A check's findings ([`check_reporting`]) in one list, each list of
/// them (a file's own checks, a pipeline's rules: what [`Findings`] holds)
/// moved to its end as soon as it is made, by the thread that made it, and
/// put in [`Findings::joined`]'s order at the end, in place. Joined at the
/// end instead, every finding was held twice at once (the lists, and the
/// list they were joined into: a tenth of a 10k-file check's peak), and
/// the lists' memory, freed by the thread joining them, was not the one
/// the next lists took. The list's room is reserved for several findings
/// a file up front: only what is written takes memory, and growing it by
/// copying it (half of it again, at the end of a large tree's check) is
/// left for trees of more findings than that.
struct Store {
    all: std::sync::Mutex<Vec<Diagnostic>>,
}

/// Findings a file [`Store`] reserves room for (a 10k-file bench tree has
/// ~3 a file).
const STORE_ROOM_PER_FILE: usize = 8;

/// At most this many findings' room is reserved up front ([`Store`]).
const STORE_ROOM_MAX: usize = 1 << 22;

impl Store {
    fn with_room(files: usize) -> Store {
        let room = files.saturating_mul(STORE_ROOM_PER_FILE).min(STORE_ROOM_MAX);
        Store {
            all: std::sync::Mutex::new(Vec::with_capacity(room)),
        }
    }

    /// Move `found` to the end of the list; where they are.
    fn put(&self, found: Vec<Diagnostic>) -> std::ops::Range<usize> {
        if found.is_empty() {
            return 0..0;
        }
        let mut all = self.all.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let start = all.len();
        all.extend(found);
        start..all.len()
    }

    /// [`Findings::of_dropping_properties`] into the store: the lists not
    /// made yet are made and stored (the pipelines' first, so that the rest
    /// reuse the memory their properties free); `early`: each pipeline's
    /// findings where they were stored as it was built, by position;
    /// `files`: each file's own checks where they were stored before (as
    /// its parse was dropped: [`EarlyDrops`]), by id; may be shorter.
    /// Returns where each list is, in [`Findings::joined`]'s order.
    fn put_the_rest(
        &self,
        ctx: &Ctx,
        graph: &mut Graph,
        early: Vec<Option<std::ops::Range<usize>>>,
        mut files: Vec<Option<std::ops::Range<usize>>>,
    ) -> Vec<std::ops::Range<usize>> {
        // The stream counts read roles and config files, not properties.
        let streams = analytics_streams(graph);
        let per_pipeline: Vec<_> = graph
            .pipelines
            .par_iter_mut()
            .zip(early)
            .map(|(p, early)| early.unwrap_or_else(|| self.put(pipeline_findings_for_report(ctx, p))))
            .collect();
        files.resize_with(ctx.ws.files.len(), || None);
        let per_file: Vec<_> = files
            .into_par_iter()
            .enumerate()
            .map(|(id, made)| made.unwrap_or_else(|| self.put(file_findings(ctx, id))))
            .collect();
        // Configs nothing references are checked on their own.
        let per_element: Vec<_> = graph
            .standalone
            .par_iter()
            .map(|e| self.put(element_findings(ctx, e)))
            .collect();
        let per_analytics: Vec<_> = (0..ctx.ws.files.len())
            .into_par_iter()
            .filter(|&id| ctx.ws.files[id].kind == Some(Kind::Analytics))
            .map(|id| self.put(analytics_findings(ctx, id, streams.get(&id).copied().flatten())))
            .collect();
        let mut lists = per_file;
        lists.extend(per_pipeline);
        lists.extend(per_element);
        lists.extend(per_analytics);
        lists
    }

    /// The findings of `lists`, in that order; the others (those of a
    /// building's visits it took back, of files' checks made again) are
    /// dropped.
    fn joined(self, lists: Vec<std::ops::Range<usize>>) -> Vec<Diagnostic> {
        let mut all = self.all.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut listed = vec![false; all.len()];
        let mut from = Vec::with_capacity(all.len());
        for at in lists.into_iter().flatten() {
            listed[at] = true;
            from.push(at);
        }
        let kept = from.len();
        from.extend((0..all.len()).filter(|&at| !listed[at]));
        drop(listed);
        permute(&mut all, from);
        all.truncate(kept);
        all
    }
}

/// How `check_for_report` drops each document's parse while the graph is
/// built, in chunks of app configs ([`frontend::Chunks`]): once every app
/// config whose pipeline may read the file is built and checked (the file
/// itself, or one it names, transitively, by the keys the front ends
/// follow: [`frontend::named_files`]), the file's own checks are made and
/// its parse is dropped. Kept to the end: a file no app config's pipeline
/// referenced (it may be checked on its own), one that a file other than
/// an app config names (that file's checks may read it), an nvdsanalytics
/// config, and one whose text alone does not give its parse back
/// (`Workspace::may_drop_early`). A read that the names missed is found
/// (`Workspace::touched_gone`) and the check is made again keeping every
/// parse.
///
/// The parses were the largest share of a check's peak, which came at
/// the end of the pipelines' rules with every parse alive beside every
/// finding.
struct EarlyDrops<'c> {
    facts: Option<&'c Facts>,
    profile: Profile,
    sel: &'c Settings,
    /// For each app config (by file id; empty for the other files): the
    /// files its pipeline may read, itself first.
    reach: Vec<Vec<FileId>>,
    /// For each file: the app configs not yet checked whose pipeline may
    /// read it.
    pending: Vec<u32>,
    /// Files another file than an app config names (transitively): its
    /// own checks, or its checks as a config nothing references, may read
    /// them after the building. Kept to the end.
    kept: Vec<bool>,
    /// Files a pipeline built so far referenced, and the app configs
    /// checked.
    done: Vec<bool>,
    /// Where the files' own checks are in `store`, made as their parses
    /// were dropped.
    found: Vec<Option<std::ops::Range<usize>>>,
    store: &'c Store,
    how: Dropping,
}

/// The app configs' reaches held together ([`EarlyDrops`]) are at most this
/// many files a file of the tree, plus [`REACH_SLACK`]: a real tree's app
/// config reaches a few configs (its inference and tracker configs).
const REACH_PER_FILE: usize = 16;

/// See [`REACH_PER_FILE`].
const REACH_SLACK: usize = 1 << 16;

/// Files whose own checks a task of [`EarlyDrops`] makes at most.
const FILE_CHECKS_A_TASK: usize = 4;

/// Chunks of at least this many app configs ([`EarlyDrops`]).
const MIN_CHUNK: usize = 64;

/// At most about this many chunks of app configs ([`EarlyDrops`]): each
/// chunk drops the parses its pipelines were the last to read; the more
/// chunks, the fewer parses are alive beside the findings.
const CHUNKS: usize = 32;

impl<'c> EarlyDrops<'c> {
    fn new(
        ws: &Workspace,
        facts: Option<&'c Facts>,
        profile: Profile,
        sel: &'c Settings,
        how: Dropping,
        store: &'c Store,
    ) -> Option<EarlyDrops<'c>> {
        let n = ws.files.len();
        let named: Vec<Vec<FileId>> = (0..n).into_par_iter().map(|id| frontend::named_files(ws, id)).collect();
        let is_root = |id: FileId| {
            matches!(
                ws.files[id].kind,
                Some(Kind::App | Kind::TestApp | Kind::ServiceMaker | Kind::ParallelApp)
            )
        };
        // What any other file names, transitively.
        let mut kept = vec![false; n];
        let mut stack: Vec<FileId> = (0..n)
            .filter(|&id| !is_root(id))
            .flat_map(|id| named[id].iter().copied())
            .collect();
        while let Some(f) = stack.pop() {
            if !std::mem::replace(&mut kept[f], true) {
                stack.extend(&named[f]);
            }
        }
        // Every app config's reach, all together bounded: a hostile tree
        // (many app configs naming one config that names every file) would
        // hold app configs × files; past the bound nothing is dropped early
        // (the parses stay to the end, as for SARIF), and the check is the
        // same.
        let budget = REACH_PER_FILE * n + REACH_SLACK;
        let total = std::sync::atomic::AtomicUsize::new(0);
        let over = || total.load(std::sync::atomic::Ordering::Relaxed) > budget;
        let reach: Vec<Vec<FileId>> = (0..n)
            .into_par_iter()
            .map(|id| {
                if !is_root(id) {
                    return Vec::new();
                }
                let mut seen = vec![id];
                let mut set: HashSet<FileId, foldhash::fast::RandomState> = HashSet::default();
                set.insert(id);
                let mut at = 0;
                while at < seen.len() && !over() {
                    let grown = seen.len();
                    for &f in &named[seen[at]] {
                        if set.insert(f) {
                            seen.push(f);
                        }
                    }
                    total.fetch_add(seen.len() - grown, std::sync::atomic::Ordering::Relaxed);
                    at += 1;
                }
                seen.shrink_to_fit();
                seen
            })
            .collect();
        if over() {
            return None;
        }
        let mut pending = vec![0u32; n];
        for &f in reach.iter().flatten() {
            pending[f] += 1;
        }
        Some(EarlyDrops {
            facts,
            profile,
            sel,
            reach,
            pending,
            kept,
            done: vec![false; n],
            found: Vec::new(),
            store,
            how,
        })
    }
}

impl frontend::Chunks for EarlyDrops<'_> {
    fn chunk_len(&self, roots: usize) -> usize {
        match self.how {
            Dropping::Done => roots.div_ceil(CHUNKS).max(MIN_CHUNK),
            #[cfg(test)]
            Dropping::Eager => 1,
        }
    }

    fn done(&mut self, ws: &mut Workspace, roots: &[FileId], referenced: &mut dyn Iterator<Item = FileId>) {
        for f in referenced {
            if let Some(d) = self.done.get_mut(f) {
                *d = true;
            }
        }
        let mut last = Vec::new();
        for &r in roots {
            self.done[r] = true;
            for &f in &self.reach[r] {
                self.pending[f] -= 1;
                // Read by id after the building: a file no pipeline
                // references (checked on its own) and an nvdsanalytics
                // config; the others are found by path.
                let by_id = !self.done[f] || ws.files[f].kind == Some(Kind::Analytics);
                if by_id || !ws.may_drop_early(f) {
                    continue;
                }
                let last_reader = match self.how {
                    Dropping::Done => self.pending[f] == 0 && !self.kept[f],
                    #[cfg(test)]
                    Dropping::Eager => !ws.is_gone(f) && !last.contains(&f),
                };
                if last_reader {
                    last.push(f);
                }
            }
        }
        if last.is_empty() {
            return;
        }
        let ctx = Ctx::new(ws, self.facts, self.profile, self.sel);
        let store = self.store;
        let found: Vec<(FileId, std::ops::Range<usize>)> = last
            .par_iter()
            // Small tasks, so that both threads end together (as the
            // chunk's pipelines: `frontend::build_with`).
            .with_max_len(FILE_CHECKS_A_TASK)
            .map(|&f| (f, store.put(file_findings(&ctx, f))))
            .collect();
        if self.found.is_empty() {
            self.found.resize_with(ws.files.len(), || None);
        }
        for (f, d) in found {
            self.found[f] = Some(d);
        }
        ws.drop_parses_early(&last);
    }

    fn undo(&mut self, ws: &mut Workspace) {
        ws.restore_parses();
        self.found = Vec::new();
        #[cfg(test)]
        tests::UNDONE.with(|n| n.set(n.get() + 1));
    }
}

/// Every rule's findings, before selection and suppressions, kept by what
/// made them: the files' own checks (DS001–DS006), then each pipeline's
/// rules, then the standalone elements', then the nvdsanalytics configs'.
/// Each list is made in parallel and joined in this order (a new family of
/// rules adds its list here). `fix` keeps them between passes and makes
/// again only the lists its edits touched ([`Findings::recheck`]).
pub struct Findings {
    per_file: Vec<Vec<Diagnostic>>,
    per_pipeline: Vec<Vec<Diagnostic>>,
    per_element: Vec<Vec<Diagnostic>>,
    /// Each nvdsanalytics config, in file order, with the stream count it
    /// was checked against.
    per_analytics: Vec<(FileId, Option<u32>, Vec<Diagnostic>)>,
}

impl Findings {
    /// Run every rule over a workspace and its graph.
    pub fn of(ctx: &Ctx, graph: &Graph) -> Findings {
        let streams = analytics_streams(graph);
        let per_pipeline = graph.pipelines.par_iter().map(|p| pipeline_findings(ctx, p)).collect();
        Findings::with(ctx, per_pipeline, &graph.standalone, &streams, Vec::new())
    }

    /// `of`, each pipeline's element properties dropped once its rules
    /// have run (`fix`'s first check; [`check_for_report`] does the same
    /// into a [`Store`]). The pipelines' rules run first, so
    /// that the files' checks and the rest reuse the memory they free;
    /// each list still lands in its place.
    ///
    /// `early`: each pipeline's findings where they were made as it was
    /// built (its properties already dropped), by position.
    ///
    /// `files`: each file's own checks where they were made before (as its
    /// parse was dropped: [`EarlyDrops`]), by id; may be shorter.
    pub fn of_dropping_properties(
        ctx: &Ctx,
        graph: &mut Graph,
        early: Vec<Option<Vec<Diagnostic>>>,
        files: Vec<Option<Vec<Diagnostic>>>,
    ) -> Findings {
        // The stream counts read roles and config files, not properties.
        let streams = analytics_streams(graph);
        let per_pipeline = graph
            .pipelines
            .par_iter_mut()
            .zip(early)
            .map(|(p, early)| early.unwrap_or_else(|| pipeline_findings_for_report(ctx, p)))
            .collect();
        Findings::with(ctx, per_pipeline, &graph.standalone, &streams, files)
    }

    /// The other lists, beside the pipelines' (`per_pipeline`); `files`:
    /// the files' own checks already made, by id (may be shorter).
    fn with(
        ctx: &Ctx,
        per_pipeline: Vec<Vec<Diagnostic>>,
        standalone: &[Element],
        streams: &std::collections::BTreeMap<FileId, Option<u32>>,
        mut files: Vec<Option<Vec<Diagnostic>>>,
    ) -> Findings {
        files.resize_with(ctx.ws.files.len(), || None);
        let per_file = files
            .into_par_iter()
            .enumerate()
            .map(|(id, made)| made.unwrap_or_else(|| file_findings(ctx, id)))
            .collect();
        // Configs nothing references are checked on their own.
        let per_element = standalone.par_iter().map(|e| element_findings(ctx, e)).collect();
        let per_analytics = (0..ctx.ws.files.len())
            .into_par_iter()
            .filter(|&id| ctx.ws.files[id].kind == Some(Kind::Analytics))
            .map(|id| {
                let n = streams.get(&id).copied().flatten();
                (id, n, analytics_findings(ctx, id, n))
            })
            .collect();
        Findings {
            per_file,
            per_pipeline,
            per_element,
            per_analytics,
        }
    }

    /// Run again the rules whose inputs changed: the files' own checks of
    /// `files`, the rules of the pipelines and standalone elements at the
    /// positions given, and the nvdsanalytics checks of a changed config
    /// or of one whose stream count changed. The graph has the same
    /// pipelines and elements, in the same order, as when the lists were
    /// made (the caller rebuilt the ones at those positions in place), and
    /// the workspace the same files with the same kinds.
    ///
    /// `changed` are the files whose text changed (their nvdsanalytics
    /// checks are made again); `files` those of them whose own checks are
    /// made again (the others' lists were put back: [`Findings::swap_file`]).
    ///
    /// Returns the files the replaced lists name, before or after (where
    /// their findings are and what they relate: [`named_by`]), unsorted:
    /// the report changes only around them (`fix::report`).
    pub fn recheck(
        &mut self,
        ctx: &Ctx,
        graph: &Graph,
        changed: &[FileId],
        files: &[FileId],
        pipelines: &[usize],
        elements: &[usize],
    ) -> Vec<FileId> {
        let redo = |ids: &[usize], f: &(dyn Fn(usize) -> Vec<Diagnostic> + Sync)| -> Vec<(usize, Vec<Diagnostic>)> {
            ids.par_iter().map(|&i| (i, f(i))).collect()
        };
        let mut named = Vec::new();
        let mut replace = |list: &mut Vec<Diagnostic>, found: Vec<Diagnostic>| {
            named_by(list, &mut named);
            named_by(&found, &mut named);
            *list = found;
        };
        for (id, found) in redo(files, &|id| file_findings(ctx, id)) {
            replace(&mut self.per_file[id], found);
        }
        for (i, found) in redo(pipelines, &|i| pipeline_findings(ctx, &graph.pipelines[i])) {
            replace(&mut self.per_pipeline[i], found);
        }
        for (i, found) in redo(elements, &|i| element_findings(ctx, &graph.standalone[i])) {
            replace(&mut self.per_element[i], found);
        }
        let streams = analytics_streams(graph);
        let changed: FastSet<FileId> = changed.iter().copied().collect();
        let redone: Vec<(usize, Option<u32>, Vec<Diagnostic>)> = self
            .per_analytics
            .par_iter()
            .enumerate()
            .filter_map(|(at, (id, n, _))| {
                let now = streams.get(id).copied().flatten();
                (changed.contains(id) || now != *n).then(|| (at, now, analytics_findings(ctx, *id, now)))
            })
            .collect();
        for (at, now, found) in redone {
            let (_, n, list) = &mut self.per_analytics[at];
            *n = now;
            replace(list, found);
        }
        named
    }

    /// Put `found` in place of a file's own findings and give back those it
    /// had: `fix` keeps the lists of the texts a file had, to put them back
    /// when the file goes back to one of those texts.
    pub fn swap_file(&mut self, id: FileId, found: Vec<Diagnostic>) -> Vec<Diagnostic> {
        std::mem::replace(&mut self.per_file[id], found)
    }

    /// `swap_file` for the findings of the pipeline at a position.
    pub fn swap_pipeline(&mut self, i: usize, found: Vec<Diagnostic>) -> Vec<Diagnostic> {
        std::mem::replace(&mut self.per_pipeline[i], found)
    }

    /// The findings of the pipeline at a position (what `recheck` keeps).
    pub fn of_pipeline(&self, i: usize) -> &[Diagnostic] {
        &self.per_pipeline[i]
    }

    /// Every list joined, in order.
    pub fn joined(self) -> Vec<Diagnostic> {
        let len = self.len();
        let mut out = Vec::new();
        let analytics = self.per_analytics.into_iter().map(|(_, _, found)| found);
        for list in self
            .per_file
            .into_iter()
            .chain(self.per_pipeline)
            .chain(self.per_element)
            .chain(analytics)
        {
            // A list that holds them all (one large file; the others are
            // empty) is taken as it is, not copied.
            if list.len() == len {
                return list;
            }
            if out.capacity() == 0 {
                out.reserve_exact(len);
            }
            out.extend(list);
        }
        out
    }

    /// A copy of each finding that `keep` keeps, once (the first of those
    /// the report takes as one: [`report`]), in order, the lists
    /// kept: what [`report_distinct`] takes. A file in several pipelines
    /// gets its findings from each: they are copied once, not once a
    /// pipeline.
    pub fn distinct(&self, keep: impl Fn(&Diagnostic) -> bool + Sync) -> Vec<Diagnostic> {
        /// Up to this many findings in a file, each is compared with the
        /// file's distinct ones instead of looked up in a set.
        const FEW: usize = 16;
        // Picked on all threads, in the lists' order (one thread's walk
        // over every finding, each pass of `fix`, was ~8M instructions of
        // the main thread on the 10k bench tree).
        let lists: Vec<&Vec<Diagnostic>> = self.lists().collect();
        let picked: Vec<&Diagnostic> = lists
            .par_iter()
            .flat_map_iter(|list| list.iter().filter(|d| keep(d)))
            .collect();
        // Two findings are one only within a file (`same_finding`): each
        // file's are made distinct on their own, on all threads (one thread
        // hashing and copying every finding was the main thread's longest
        // step of a merged report on the 10k bench tree's fix), and the
        // copies put in the order of their first.
        let mut by_file: Vec<(FileId, usize)> = picked.par_iter().enumerate().map(|(i, d)| (d.file, i)).collect();
        by_file.par_sort_unstable();
        let firsts: Vec<(usize, Diagnostic)> = by_file
            .par_chunk_by(|a, b| a.0 == b.0)
            .flat_map_iter(|run| {
                let mut out: Vec<(usize, Diagnostic)> = Vec::with_capacity(run.len());
                // A file's few findings are compared with each other; many
                // are looked up in a set sized once (its rehashing was a
                // quarter of a merged report's time).
                if run.len() <= FEW {
                    for &(_, i) in run {
                        let d = picked[i];
                        match out.iter().position(|(_, k)| same_finding(k) == same_finding(d)) {
                            Some(at) => merge_expectation(&mut out[at].1, d),
                            None => out.push((i, d.clone())),
                        }
                    }
                    return out;
                }
                let mut seen: FastMap<_, usize> = FastMap::with_capacity_and_hasher(run.len(), Default::default());
                for &(_, i) in run {
                    let d = picked[i];
                    match seen.entry(same_finding(d)) {
                        std::collections::hash_map::Entry::Occupied(e) => merge_expectation(&mut out[*e.get()].1, d),
                        std::collections::hash_map::Entry::Vacant(e) => {
                            e.insert(out.len());
                            out.push((i, d.clone()));
                        }
                    }
                }
                out
            })
            .collect();
        // Each first's position is distinct: the order is the lists'.
        let mut from: Vec<usize> = (0..firsts.len()).collect();
        from.par_sort_unstable_by_key(|&p| firsts[p].0);
        let mut out: Vec<Diagnostic> = firsts.into_iter().map(|(_, d)| d).collect();
        permute(&mut out, from);
        out
    }

    /// Every list, in the order `joined` joins them.
    pub fn lists(&self) -> impl Iterator<Item = &Vec<Diagnostic>> {
        let analytics = self.per_analytics.iter().map(|(_, _, found)| found);
        self.per_file
            .iter()
            .chain(&self.per_pipeline)
            .chain(&self.per_element)
            .chain(analytics)
    }

    fn len(&self) -> usize {
        self.lists().map(Vec::len).sum()
    }
}

/// Add the files findings name to `files`: where each is and the places it
/// relates (what the report's suppressions and folds look at).
pub fn named_by(found: &[Diagnostic], files: &mut Vec<FileId>) {
    for d in found {
        files.push(d.file);
        files.extend(d.related.iter().map(|(f, _)| *f));
    }
}

fn file_findings(ctx: &Ctx, id: FileId) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    input::check_file(ctx, id, &mut out);
    kept(out)
}

fn pipeline_findings(ctx: &Ctx, p: &Pipeline) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    pipeline_rules(ctx, p, &mut out);
    kept(out)
}

/// A pipeline's findings, the pipeline then cut to what the report reads
/// ([`keep_for_report`]): `check` and `fix`'s checks again do so with each
/// pipeline as soon as it is built.
pub fn pipeline_findings_for_report(ctx: &Ctx, p: &mut Pipeline) -> Vec<Diagnostic> {
    let found = pipeline_findings(ctx, p);
    keep_for_report(p);
    found
}

fn element_findings(ctx: &Ctx, e: &Element) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    match e.role {
        Role::Infer(_) => nvinfer::check(ctx, e, None, &mut out),
        Role::InferServer(_) => nvinfer::check_server(ctx, e, None, &mut out),
        Role::Tracker => tracker::check(ctx, e, &mut out),
        _ => {}
    }
    kept(out)
}

/// A list of findings as it is held until the output: without the slack
/// that pushing left (a doubling vector's is a quarter on average, and the
/// lists of every file and pipeline are held together until joined).
fn kept(mut found: Vec<Diagnostic>) -> Vec<Diagnostic> {
    found.shrink_to_fit();
    found
}

fn analytics_findings(ctx: &Ctx, id: FileId, streams: Option<u32>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    analytics::check(ctx, id, streams, &mut out);
    kept(out)
}

/// nvdsanalytics configs, with the stream count of the pipelines that
/// load them (unknown when any of them has none).
fn analytics_streams(graph: &Graph) -> std::collections::BTreeMap<FileId, Option<u32>> {
    let mut streams: std::collections::BTreeMap<FileId, Option<u32>> = std::collections::BTreeMap::new();
    for p in &graph.pipelines {
        for e in p.all(&Role::Analytics) {
            if let Some(c) = e.config.as_ref().filter(|c| c.kind == Some(Kind::Analytics)) {
                let n = p.streams();
                streams
                    .entry(c.file)
                    .and_modify(|m| *m = m.zip(n).map(|(a, b)| a.max(b)))
                    .or_insert(n);
            }
        }
    }
    streams
}

/// A pipeline once its rules have run (`check`), cut to what the report
/// still reads (`withhold_outside`, `analytics_streams`,
/// `withhold_batch_fixes_on_unread_shares`): its root, the sources and the
/// elements that load a config file (their role and the file's id and
/// kind), where its primary's batch comes from (`primary_batch`), and the
/// references to configs outside the
/// project root. The properties, the other elements, names, homes, links
/// and other references are dropped: until the findings are joined they
/// held memory beside the findings made after them. `fix` cuts each
/// pipeline so once its rules have run: what it keeps of a build (the
/// graph, the builds it may take back) is read by the report and by the
/// nvdsanalytics stream counts only.
pub fn keep_for_report(p: &mut Pipeline) {
    p.primary_batch = primary_batch(p);
    let kept = |e: &Element| e.config.is_some() || matches!(e.role, Role::Source(_));
    let cut = |e: Element| Element {
        role: e.role,
        factory: None,
        name: String::new(),
        props: Vec::new(),
        config: e.config.map(|c| ConfigFile { home: None, ..c }),
        home: None,
        declared: None,
    };
    let all = std::mem::take(&mut p.elements);
    // A pipeline of 100k elements (an 8 MiB config's groups) drops them on
    // all threads, in order: freeing their properties was a fifth of the
    // check's time on one thread.
    p.elements = if all.len() >= MANY_ELEMENTS {
        all.into_par_iter()
            .with_min_len(MANY_ELEMENTS / 4)
            .filter(kept)
            .map(cut)
            .collect()
    } else {
        let mut elements = Vec::with_capacity(all.iter().filter(|e| kept(e)).count());
        elements.extend(all.into_iter().filter(kept).map(cut));
        elements
    };
    p.links = Vec::new();
    p.references
        .retain(|r| r.is_config && matches!(r.target, Target::Outside(_)));
    p.references.shrink_to_fit();
}

/// A pipeline with at least this many elements drops them on all threads
/// ([`keep_for_report`]).
const MANY_ELEMENTS: usize = 4096;

/// The rules that look at one pipeline.
fn pipeline_rules(ctx: &Ctx, p: &Pipeline, out: &mut Vec<Diagnostic>) {
    streammux::check(ctx, p, out);
    streammux::check_facts_streams(ctx, p, out);
    source::check(ctx, p, out);
    output::check(ctx, p, out);
    cross::check(ctx, p, out);
    queue::check(ctx, p, out);
    parallel::check(ctx, p, out);
    // deepstream-app has one tracker; deepstream-parallel-infer one per
    // branch, Service Maker one per node.
    for t in p.all(&Role::Tracker) {
        tracker::check(ctx, t, out);
    }
    for inf in p.infers() {
        match inf.role {
            Role::InferServer(_) => nvinfer::check_server(ctx, inf, Some(p), out),
            _ => nvinfer::check(ctx, inf, Some(p), out),
        }
    }
}

/// From every rule's findings to what is reported: each finding once (a
/// file in several pipelines gets it from each), the selected codes only,
/// inline suppressions applied (and the unused ones reported), sorted by
/// path, offset and code, and what involves a file outside the root
/// withheld.
pub fn report(ws: &Workspace, pipelines: &[Pipeline], mut out: Vec<Diagnostic>, sel: &Settings) -> Vec<Diagnostic> {
    keep_first_of_each(&mut out);
    report_distinct(ws, pipelines, out, sel, &suppress::Suppressions::of(ws))
}

/// Keep the first of the findings that are one ([`same_finding`]), in
/// order. It ran on the main thread alone (a set of every finding's key,
/// messages hashed one by one: the largest sequential step after the
/// rules), so the keys are hashed and sorted on all threads and the runs
/// of equal hashes are walked on all threads too. Within a run (sorted by
/// position) a finding is a copy when it is one of the run's earlier kept
/// findings: keys are compared, never trusted to their hash, and a run of
/// n copies of one finding costs n comparisons. The copies are then taken
/// out (in one pass, in order) and each kept finding takes what its copies
/// add ([`merge_expectation`], in their order) on all threads: a copy is
/// never a kept finding, and merging changes no finding's key.
fn keep_first_of_each(out: &mut Vec<Diagnostic>) {
    // Seeded per run: no input can choose keys that share a hash.
    let state = foldhash::fast::RandomState::default();
    let mut keys: Vec<(u64, usize)> = out
        .par_iter()
        .enumerate()
        .map(|(i, d)| (state.hash_one(same_finding(d)), i))
        .collect();
    keys.par_sort_unstable();
    let found: &[Diagnostic] = out;
    // (kept, copy) positions.
    let mut copies: Vec<(usize, usize)> = keys
        .par_chunk_by(|a, b| a.0 == b.0)
        .filter(|run| run.len() > 1)
        .flat_map_iter(|run| {
            let mut kept: Vec<usize> = Vec::new();
            let mut pairs = Vec::new();
            for &(_, i) in run {
                match kept
                    .iter()
                    .find(|&&k| same_finding(&found[k]) == same_finding(&found[i]))
                {
                    Some(&k) => pairs.push((k, i)),
                    None => kept.push(i),
                }
            }
            pairs
        })
        .collect();
    if copies.is_empty() {
        return;
    }
    drop(keys);
    // By kept finding, then copy: each kept finding's copies in order.
    copies.par_sort_unstable();
    let mut marked = vec![false; out.len()];
    for &(_, i) in &copies {
        marked[i] = true;
    }
    // Where each finding is once the copies are out: `before[i]` is the
    // number of copies before position i.
    let mut before = Vec::with_capacity(out.len());
    let mut n = 0;
    for &m in &marked {
        before.push(n);
        n += usize::from(m);
    }
    let mut at = 0;
    let mut taken: Vec<Diagnostic> = Vec::with_capacity(copies.len());
    taken.extend(out.extract_if(.., |_| {
        at += 1;
        marked[at - 1]
    }));
    // Each kept finding (at its new position) with its run of `copies`.
    let mut runs: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
    for (j, &(k, _)) in copies.iter().enumerate() {
        match runs.last_mut() {
            Some((last, range)) if *last == k - before[k] => range.end = j + 1,
            _ => runs.push((k - before[k], j..j + 1)),
        }
    }
    let mut first_run = vec![usize::MAX; out.len()];
    for (r, (k, _)) in runs.iter().enumerate() {
        first_run[*k] = r;
    }
    out.par_iter_mut().enumerate().for_each(|(k, kept)| {
        let Some((_, range)) = runs.get(first_run[k]) else {
            return;
        };
        for &(_, i) in &copies[range.clone()] {
            merge_expectation(kept, &taken[before[i]]);
        }
    });
    taken.into_par_iter().for_each(drop);
}

/// One finding made twice (a line of a config that several pipelines
/// read, judged in each) whose copies expect different values: a primary
/// shared by a 2-stream and a 4-stream app gets "expected 2" from one and
/// "expected 4" from the other. Keeping the first alone would claim a value
/// that is wrong for the other pipeline, so the kept finding expects
/// either ("2 or 4"), says why for each, and has no fix unless both
/// copies' fixes are the same edits (no single value is right for the
/// shared line). Copies that expect the same are left as they are.
fn merge_expectation(kept: &mut Diagnostic, other: &Diagnostic) {
    if !join_expected(kept, other) {
        return;
    }
    if let Some(w) = &other.why {
        if kept.why.as_deref() != Some(&**w) {
            add_note(kept, w);
        }
    }
    drop_fix_unless_same(kept, other);
}

/// The kept finding expects the other's value too ("2 or 4"), unless it
/// already names it; whether it was added.
fn join_expected(kept: &mut Diagnostic, other: &Diagnostic) -> bool {
    let (Some(k), Some(o)) = (&kept.expected, &other.expected) else {
        return false;
    };
    if k.split(" or ").any(|e| e == &**o) {
        return false;
    }
    kept.expected = Some(format!("{k} or {o}").into());
    true
}

/// `also: <note>` after the kept finding's `why`.
fn add_note(kept: &mut Diagnostic, note: &str) {
    append_why(kept, &format!("also: {note}"));
}

/// `text` after a finding's `why` (`; ` between them), or as its `why`.
fn append_why(d: &mut Diagnostic, text: &str) {
    d.why = Some(
        match d.why.take() {
            Some(w) => format!("{w}; {text}"),
            None => text.to_string(),
        }
        .into(),
    );
}

/// `out` without the findings whose `marked` entry is true (one entry a
/// finding, in order). Those taken out are dropped on all threads (the
/// folds take out a copy of a shared config's finding a pipeline: freed
/// on one thread, a tenth of the folds' time on the 100k bench tree).
fn remove_marked(out: &mut Vec<Diagnostic>, marked: Vec<bool>) {
    let mut marked = marked.into_iter();
    let gone: Vec<Diagnostic> = out.extract_if(.., |_| marked.next().unwrap_or(false)).collect();
    gone.into_par_iter().for_each(drop);
}

/// The rules [`fold_batch_findings`] folds, the most specific first.
const BATCH_FOLDED: [Rule; 3] = [Rule::BatchMismatch, Rule::BatchBelowStreams, Rule::StreammuxBatchSize];

/// The rules [`fold_shared_config_findings`] folds.
const SHARED_FOLDED: [Rule; 2] = [Rule::EngineNameMismatch, Rule::DuplicateSourceOfTruth];

/// The findings a fold looks at, in order, each with its position among
/// all the findings and borrowed alone ([`fold_candidates`]).
type Candidates<'a> = Vec<(usize, &'a mut Diagnostic)>;

/// The findings of [`BATCH_FOLDED`] and of [`SHARED_FOLDED`] rules, in
/// order: what the folds look at (`fold_shared_primary_batch` at DS701,
/// among the first), found in one pass on all threads. Each fold looked at
/// every finding in turn on one thread (the other idle), a few in a
/// hundred of them theirs. The two lists are disjoint, so the shared
/// configs' fold runs beside the batch folds ([`fold_all`]).
fn fold_candidates(out: &mut [Diagnostic]) -> (Candidates<'_>, Candidates<'_>) {
    use rayon::iter::Either;
    out.par_iter_mut()
        .enumerate()
        .filter_map(|(i, d)| {
            if BATCH_FOLDED.contains(&d.rule()) {
                Some(Either::Left((i, d)))
            } else if SHARED_FOLDED.contains(&d.rule()) {
                Some(Either::Right((i, d)))
            } else {
                None
            }
        })
        .partition_map(|at| at)
}

/// Fold the findings that are one defect ([`fold_batch_findings`], then
/// [`fold_shared_primary_batch`]; [`fold_shared_config_findings`] beside
/// them, on another thread: its rules are none of theirs, so neither reads
/// or changes what the other does) and take out those folded. In turn on
/// one thread, the shared configs' fold was about half of the folds' time
/// with the other thread idle (the 100k bench tree: ~35 of ~77 ms).
fn fold_all(ws: &Workspace, out: &mut Vec<Diagnostic>) {
    let mut folded = vec![false; out.len()];
    let (mut batch, mut shared) = fold_candidates(out);
    let (batch_folded, shared_folded) = rayon::join(
        || {
            let mut marks = fold_batch_findings(&mut batch);
            fold_shared_primary_batch(ws, &mut batch, &mut marks);
            marks
        },
        || fold_shared_config_findings(&mut shared),
    );
    let marked = batch.iter().zip(batch_folded).chain(shared.iter().zip(shared_folded));
    for ((i, _), gone) in marked {
        folded[*i] = gone;
    }
    remove_marked(out, folded);
}

/// A finding kept for two copies keeps its fix only when both copies'
/// fixes make the same edits.
fn drop_fix_unless_same(kept: &mut Diagnostic, other: &Diagnostic) {
    let same_fix = match (&kept.fix, &other.fix) {
        (Some(a), Some(b)) => a.edits == b.edits,
        (None, None) => true,
        _ => false,
    };
    if !same_fix {
        kept.fix = None;
    }
}

/// What makes two findings one: the same code, place and message.
fn same_finding(d: &Diagnostic) -> (&'static str, FileId, usize, usize, &str) {
    (d.code(), d.file, d.span.start, d.span.end, &d.message)
}

/// `report`'s steps after its first, for findings that are each once
/// already ([`Findings::distinct`]), with the workspace's inline
/// suppressions already collected (`fix` keeps them between passes).
pub fn report_distinct(
    ws: &Workspace,
    pipelines: &[Pipeline],
    mut out: Vec<Diagnostic>,
    sel: &Settings,
    suppressions: &suppress::Suppressions,
) -> Vec<Diagnostic> {
    fold_removed_key_notes(ws, &mut out);
    if sel.per_file_ignores.is_empty() {
        out.retain(|d| sel.enabled(d.code()));
    } else {
        let mut per_file: FastMap<FileId, Vec<&str>> = FastMap::default();
        out.retain(|d| {
            let ignored = per_file
                .entry(d.file)
                .or_insert_with(|| sel.ignored_in(&ws.files[d.file].path));
            sel.enabled(d.code()) && !ignored.iter().any(|s| selector_matches(s, d.code()))
        });
    }
    // The files' ranks by path are made on the other threads while this
    // one folds (the folds are in turn, each after the one before).
    let (rank, mut out) = rayon::join(
        || rank_by_path(ws),
        move || {
            let mut out = suppress::apply(ws, suppressions, out, &|c| sel.enabled(c));
            // After selection and suppressions: `--select DS101` still shows
            // DS101. The folded findings are marked, and dropped together.
            fold_all(ws, &mut out);
            let readers = primary_batch_readers(pipelines);
            // A file read with `?` for bytes that are not UTF-8 (in comments)
            // is linted but never rewritten: writing it back would change
            // those bytes. Each finding on its own, on all threads: a fix
            // reads the files it edits (their texts, scattered in memory),
            // and on one thread this was most of the folds' time (~50 ms
            // of the 100k bench tree's check, the other thread idle).
            out.par_iter_mut().with_min_len(FIXES_A_TASK).for_each(|d| {
                withhold_batch_fix_on_unread_share(ws, &readers, d);
                if d.fix
                    .as_ref()
                    .is_some_and(|f| f.edits.iter().any(|e| ws.files[e.file].lossy))
                {
                    d.fix = None;
                }
                if let Some(f) = d.fix.as_deref_mut() {
                    keep_notes_unsafe(ws, f);
                }
            });
            // Files named on the command line: their findings, and those of
            // their pipelines that involve them (moved to their side).
            sel.scope(ws).report(ws, out)
        },
    );
    sort_by_place(&mut out, &rank);
    withhold_outside(ws, pipelines, &mut out);
    out
}

/// Findings whose fixes a task of [`report_distinct`] looks at, at least
/// (a few hundred nanoseconds each).
const FIXES_A_TASK: usize = 256;

/// A fix that rewrites a value on a line that goes on with a note keeps
/// the note (surgical: only the value's bytes change), but cannot tell
/// whether the note describes the old value (`batched-push-timeout=40000
/// # 25 fps`, `interval: 0  # every frame`) or stays true (`# 0=FP32,
/// 1=INT8, 2=FP16`, `# 1000000/max fps`): kept, a note of the first kind
/// would have the file claim what it no longer holds; dropped, one of the
/// second kind is lost (ruff counts a fix that deletes a comment unsafe).
/// So the fix keeps the note and is unsafe, and its title says why: `dslint
/// fix` never leaves such a line without a person's look. A note is what
/// follows the value on its line: a key-file's text after an integer
/// (GLib's `g_key_file_get_integer` ignores it after a space), a `#` on
/// the rest of a YAML, protobuf, Python or shell value's line.
fn keep_notes_unsafe(ws: &Workspace, fix: &mut crate::base::edit::Fix) {
    use crate::base::edit::Applicability;
    const TOLD: &str = " (keeps the comment after the value: check that it still holds)";
    if fix.title.ends_with(TOLD) || !fix.edits.iter().any(|e| note_after(ws, e)) {
        return;
    }
    fix.applicability = Applicability::Unsafe;
    fix.title.push_str(TOLD);
}

/// Whether edit `e` replaces bytes (not an insertion) that a note follows
/// on their line ([`keep_notes_unsafe`]).
fn note_after(ws: &Workspace, e: &crate::base::edit::Edit) -> bool {
    let file = &ws.files[e.file];
    let text = &file.doc.text;
    if e.range.is_empty() || text.get(e.range.clone()) == Some(e.text.as_str()) {
        return false;
    }
    let Some(rest) = text.get(e.range.end..) else {
        return false;
    };
    let line = &rest[..memchr::memchr(b'\n', rest.as_bytes()).unwrap_or(rest.len())];
    match file.doc.format {
        // After a space: what `g_key_file_parse_value_as_integer` passes
        // over (a `;` goes on a list).
        crate::syntax::Format::KeyFile => line.starts_with([' ', '\t']) && !line.trim().is_empty(),
        // Any `#` on the rest of the line (one inside a later string makes
        // a fix unsafe for nothing: never a stale claim).
        _ => line.contains('#'),
    }
}

/// Each file's rank by path: the sort of findings compares numbers, not
/// paths (files with the same path share a rank, as the paths compare
/// equal: the rank of the first of them in path order). The paths are
/// sorted and their neighbours compared on all threads; only the ranks
/// are handed out in turn.
fn rank_by_path(ws: &Workspace) -> Vec<usize> {
    let path = |f: FileId| ws.files[f].path.as_path();
    let mut by_path: Vec<FileId> = (0..ws.files.len()).collect();
    // As `Path` orders them, without its component walk (`path_order`):
    // `fix` makes a report a pass, each of them sorting every file.
    let cmp = crate::base::path_order::comparator(ws.files.iter().map(|f| f.path.as_path()));
    by_path.par_sort_by(|&a, &b| cmp(path(a), path(b)));
    // Whether each file in that order has the path of the one before it
    // (`cmp`, as the sort compared them).
    let same: Vec<bool> = (0..by_path.len())
        .into_par_iter()
        .map(|i| i > 0 && cmp(path(by_path[i - 1]), path(by_path[i])).is_eq())
        .collect();
    let mut rank = vec![0usize; ws.files.len()];
    let mut first = 0;
    for (i, (&w, &same)) in by_path.iter().zip(&same).enumerate() {
        if !same {
            first = i;
        }
        rank[w] = first;
    }
    rank
}

/// Sort findings by file rank, offset and code, equal ones in the order
/// they came (what a stable sort by that key does). A finding is 96
/// bytes: the keys, with each finding's position last (which makes the
/// order total, so an unstable sort is stable here), are sorted instead of
/// the findings (a stable parallel sort of the findings moved each once a
/// level through a second buffer, at the end of a check, where its memory
/// peaks), and the findings are then put in that order in place, a cycle
/// of the permutation at a time. Codes compare as their rules do: `Rule`
/// is in code order, one code a rule (the registry's
/// `the_table_is_in_enum_order_and_codes_are_unique`).
fn sort_by_place(out: &mut [Diagnostic], rank: &[usize]) {
    let mut keys: Vec<(usize, usize, Rule, usize)> = out
        .par_iter()
        .enumerate()
        .map(|(i, d)| (rank[d.file], d.span.start, d.rule(), i))
        .collect();
    // Each key is distinct (its position), so the order is the stable one.
    keys.par_sort_unstable();
    permute(out, keys.into_iter().map(|k| k.3).collect());
}

/// Put `items` in the order `from` gives (position j takes the item at
/// `from[j]`; `from` is a permutation), in place, front to back: position
/// j takes its item by a swap with wherever it is now, and the item the
/// swap moved out of j is followed to its new place (`to[p]`: where the
/// item now at p goes; `from` is kept for the positions still to fill).
/// Following each cycle of the permutation instead, each step waited on
/// the load of the one before (a cache miss a finding once the findings
/// outgrow the caches: 87 ms on the main thread alone for the 100k bench
/// tree's join); here the steps' loads do not depend on one another and
/// the processor overlaps them (2.3x faster on a million 96-byte items).
fn permute<T>(items: &mut [T], mut from: Vec<usize>) {
    let mut to = vec![0; from.len()];
    for (j, &k) in from.iter().enumerate() {
        to[k] = j;
    }
    for j in 0..from.len() {
        let k = from[j];
        if k != j {
            // Positions before j hold their items: k > j, and the item
            // that was at j goes after j.
            items.swap(j, k);
            let t = to[j];
            from[t] = k;
            to[k] = t;
        }
    }
}

/// One defect on one line is one finding (Precision 10): a key a later
/// release no longer reads (DS002 at info) that another rule already
/// reports on the same line becomes a note of that finding (the first such
/// finding, in order). The findings of other rules are indexed by line
/// once, so a file of 100k removed keys stays linear.
fn fold_removed_key_notes(ws: &Workspace, out: &mut Vec<Diagnostic>) {
    let removed = |d: &Diagnostic| d.rule() == Rule::UnknownKey && d.severity() == Severity::Info;
    if !out.iter().any(removed) {
        return;
    }
    let line = |d: &Diagnostic| (d.file, ws.files[d.file].position(d.span.start).0);
    // Only findings in a file with such a key can host its note: the
    // others' lines are not looked up.
    let files: FastSet<FileId> = out.iter().filter(|d| removed(d)).map(|d| d.file).collect();
    let mut hosts: FastMap<(FileId, usize), usize> = FastMap::default();
    for (j, d) in out.iter().enumerate() {
        if d.rule() != Rule::UnknownKey && files.contains(&d.file) {
            hosts.entry(line(d)).or_insert(j);
        }
    }
    let mut folded = vec![false; out.len()];
    for i in 0..out.len() {
        if !removed(&out[i]) {
            continue;
        }
        if let Some(&j) = hosts.get(&line(&out[i])) {
            let note = format!("note: {}", out[i].message);
            append_why(&mut out[j], &note);
            folded[i] = true;
        }
    }
    remove_marked(out, folded);
}

/// One defect on one line is one finding (Precision 10): DS701 (the
/// streammux and the primary disagree), DS702 (a batch below the streams)
/// and DS101 (a batch other than final_batch) all judge the streammux
/// `batch-size` value. Where more than one lands on the same value, the
/// most specific is kept, in that order, and the others become notes of its
/// `why`. Linear: the findings are indexed by place once. Returns which
/// of `candidates` it folded (one entry each).
fn fold_batch_findings(candidates: &mut [(usize, &mut Diagnostic)]) -> Vec<bool> {
    let rank = |d: &Diagnostic| BATCH_FOLDED.iter().position(|r| *r == d.rule());
    let mut host: FastMap<(FileId, usize, usize), usize> = FastMap::default();
    for (k, (_, d)) in candidates.iter().enumerate() {
        let Some(r) = rank(d) else { continue };
        let slot = host.entry((d.file, d.span.start, d.span.end)).or_insert(k);
        if rank(candidates[*slot].1).is_some_and(|kept| r < kept) {
            *slot = k;
        }
    }
    let mut folded = vec![false; candidates.len()];
    for k in 0..candidates.len() {
        let d = &*candidates[k].1;
        let Some(&j) = rank(d).and_then(|_| host.get(&(d.file, d.span.start, d.span.end))) else {
            continue;
        };
        if j == k {
            continue;
        }
        let note = format!("note: {} {}", d.code(), d.message);
        append_why(candidates[j].1, &note);
        folded[k] = true;
    }
    folded
}

/// One defect on one line is one finding (Precision 10): a config shared by
/// several pipelines (one nvinfer file loaded by four app configs) is
/// judged in each, so DS207 (the engine name) and DS208 (a key the app
/// overrides) land on the same line once per pipeline, with messages that
/// differ only by the app. The first is kept; the others' places become its
/// related places and their messages notes of its `why`. Where their fixes
/// differ (each app wants the engine named for its own batch), no single
/// fix is right for the shared file: the kept finding has none. Linear: the
/// findings are indexed by place once. Returns which of `candidates` it
/// folded (one entry each).
fn fold_shared_config_findings(candidates: &mut [(usize, &mut Diagnostic)]) -> Vec<bool> {
    let mut host: FastMap<(Rule, FileId, usize, usize), usize> = FastMap::default();
    let mut folded = vec![false; candidates.len()];
    for k in 0..candidates.len() {
        let d = &*candidates[k].1;
        if !SHARED_FOLDED.contains(&d.rule()) {
            continue;
        }
        let j = *host.entry((d.rule(), d.file, d.span.start, d.span.end)).or_insert(k);
        if j == k {
            continue;
        }
        // The first finding at a place is its host: j < k.
        let (before, rest) = candidates.split_at_mut(k);
        let (kept, other) = (&mut *before[j].1, &*rest[0].1);
        if kept.message != other.message {
            add_note(kept, &other.message);
        }
        // Each pipeline's own expectation (DS207: the name for its batch).
        join_expected(kept, other);
        let new: Vec<_> = other
            .related
            .iter()
            .filter(|r| !kept.related.contains(r))
            .cloned()
            .collect();
        if !new.is_empty() {
            crate::base::diagnostic::add_related(&mut kept.related, new);
        }
        drop_fix_unless_same(kept, other);
        folded[k] = true;
    }
    folded
}

/// One primary config read by several apps (a 2-stream and a 4-stream
/// app share `pgie.txt`) whose streammux batches differ from its
/// `batch-size` gets DS701 in each app, at each app's streammux line: the
/// findings are not copies of one (`merge_expectation` takes those), yet
/// their fixes set the one shared line to different values, each undoing
/// the other. Where the DS701 findings naming the same primary place
/// expect different values, they become one: the first, expecting each
/// ("2 or 4"), with the others' places and messages as notes of its `why`,
/// and no fix (no single batch-size is right for the shared line). Where
/// they expect the same value their fixes agree and they are left as they
/// are. Linear: the findings are indexed by the primary's place once.
/// Marks the findings it folds in `folded` (one entry a candidate), and
/// passes over those marked before (a DS701 `fold_batch_findings` folded
/// into another at its place).
fn fold_shared_primary_batch(ws: &Workspace, candidates: &mut [(usize, &mut Diagnostic)], folded: &mut [bool]) {
    // DS701's first related place is the primary's batch (or its config's
    // `[property]` where the batch is unset).
    let primary = |d: &Diagnostic| {
        (d.rule() == Rule::BatchMismatch)
            .then(|| d.related.first())
            .flatten()
            .map(|(f, span)| (*f, span.start, span.end))
    };
    let mut groups: FastMap<(FileId, usize, usize), Vec<usize>> = FastMap::default();
    for (k, (_, d)) in candidates.iter().enumerate() {
        if let Some(place) = primary(d).filter(|_| !folded[k]) {
            groups.entry(place).or_default().push(k);
        }
    }
    for members in groups.values() {
        let (&host, others) = members.split_first().expect("a group has a member");
        if others
            .iter()
            .all(|&k| candidates[k].1.expected == candidates[host].1.expected)
        {
            continue;
        }
        let why = candidates[host].1.why.clone();
        for &k in others {
            // The first finding of a group is its host: host < k.
            let (before, rest) = candidates.split_at_mut(k);
            let (kept, other) = (&mut *before[host].1, &*rest[0].1);
            join_expected(kept, other);
            let (line, _) = ws.files[other.file].position(other.span.start);
            add_note(
                kept,
                &format!(
                    "{}:{line}: {}",
                    crate::files::shown(&ws.files[other.file].path),
                    other.message
                ),
            );
            if other.why.is_some() && other.why != why {
                add_note(kept, other.why.as_deref().unwrap_or_default());
            }
            folded[k] = true;
        }
        let kept = &mut *candidates[host].1;
        add_note(
            kept,
            "the apps read one primary config and want different batches: no single batch-size is right for it (no fix)",
        );
        kept.fix = None;
    }
}

/// Where `p`'s primary takes its batch from, read off its properties: its
/// config file's line or nvinfer's default (which a line added to the file
/// replaces), with whether the streammux batch is known; not from the file
/// for a parallel-inference app, a primary checked on its own (the file is
/// the root) or a batch the app sets on the element.
fn primary_batch(p: &Pipeline) -> PrimaryBatch {
    use crate::model::graph::Layer;
    let Some(g) = p.primary().filter(|_| !p.is_parallel()) else {
        return PrimaryBatch::NotFromFile;
    };
    let Some(config) = g.config.as_ref().map(|c| c.file).filter(|&c| c != p.root) else {
        return PrimaryBatch::NotFromFile;
    };
    let from_file = g
        .int("batch-size")
        .is_some_and(|b| matches!(b.setting.layer, Layer::ConfigFile | Layer::Default));
    if !from_file {
        return PrimaryBatch::NotFromFile;
    }
    let mux_known = p.first(&Role::Streammux).and_then(|m| m.int("batch-size")).is_some();
    PrimaryBatch::FromFile { config, mux_known }
}

/// A primary config that two apps load, one of them with a streammux
/// batch dslint cannot read (`len(SOURCES)`, a variable), while its primary
/// takes `batch-size` from the shared file: the app that can be read gets
/// its DS701/DS201, but a fix that sets the shared line to that app's batch
/// changes the other app's too, and nothing shows it afterwards (the other
/// app's batch is still unknown, so the fix loop's guard sees no new
/// finding). Such fixes are withheld, with a note naming the other app; the
/// findings stay (each is true of the app it names). Where every app's batch
/// is known the fixes stay: their conflicts are `fold_shared_primary_batch`'s
/// and the fix loop's. One finding at a time, by the apps' reads of their
/// primaries ([`primary_batch_readers`]): on all threads.
fn withhold_batch_fix_on_unread_share(ws: &Workspace, readers: &PrimaryBatchReaders, d: &mut Diagnostic) {
    if !matches!(d.rule(), Rule::BatchMismatch | Rule::PrimaryBatchSize) {
        return;
    }
    let Some(fix) = &d.fix else { return };
    let other = fix.edits.iter().find_map(|e| match readers.get(&e.file) {
        Some(&(n, Some(root))) if n > 1 => Some(root),
        _ => None,
    });
    if let Some(root) = other {
        let note = format!(
            "{} also loads this primary config and sets a streammux batch dslint cannot read: no batch-size is known to be right for the shared file (no fix)",
            crate::files::shown(&ws.files[root].path)
        );
        add_note(d, &note);
        d.fix = None;
    }
}

/// Per primary config read by an app for its batch: how many apps read
/// it, and the first whose streammux batch is unknown
/// ([`withhold_batch_fix_on_unread_share`]).
type PrimaryBatchReaders = FastMap<FileId, (usize, Option<FileId>)>;

/// [`PrimaryBatchReaders`] of the pipelines.
fn primary_batch_readers(pipelines: &[Pipeline]) -> PrimaryBatchReaders {
    let mut readers: PrimaryBatchReaders = FastMap::default();
    for p in pipelines {
        let summary = match p.primary_batch {
            PrimaryBatch::Unread => primary_batch(p),
            known => known,
        };
        let PrimaryBatch::FromFile { config, mux_known } = summary else {
            continue;
        };
        let entry = readers.entry(config).or_insert((0, None));
        entry.0 += 1;
        if !mux_known && entry.1.is_none() {
            entry.1 = Some(p.root);
        }
    }
    readers
}

/// Files outside the project root are read only with `--follow-outside`,
/// and their content is never shown: findings located in them are dropped;
/// findings that point at them, would edit them, or (beyond the per-file
/// DS0xx checks) come from a pipeline that reads them keep their place and
/// code but lose every text that could carry a value, and their fix.
fn withhold_outside(ws: &Workspace, pipelines: &[Pipeline], out: &mut Vec<Diagnostic>) {
    let outside = |f: FileId| ws.files[f].outside;
    let follow = ws.follow_outside();
    if !follow && !(0..ws.files.len()).any(outside) {
        return;
    }
    let mut mixed: HashSet<FileId> = HashSet::new();
    for p in pipelines {
        let files: Vec<FileId> = std::iter::once(p.root)
            .chain(p.elements.iter().filter_map(|e| e.config.as_ref().map(|c| c.file)))
            .collect();
        // With `--follow-outside`, a pipeline naming a config outside is
        // withheld whether or not that file could be read: what it says
        // must not tell whether the file exists. (Data files are never
        // read, only named.)
        let names_outside = follow
            && p.references
                .iter()
                .any(|r| r.is_config && matches!(r.target, Target::Outside(_)));
        if names_outside || files.iter().any(|&f| outside(f)) {
            mixed.extend(files);
        }
    }
    out.retain(|d| !outside(d.file));
    for d in out.iter_mut() {
        let touches = d.related.iter().any(|(f, _)| outside(*f))
            || d.fix
                .as_ref()
                .is_some_and(|fx| fx.edits.iter().any(|e| outside(e.file)))
            || (mixed.contains(&d.file) && !d.code().starts_with("DS0"));
        if touches {
            let name = d.rule().name();
            d.message = format!("{name}: involves a file outside the project root; details withheld").into();
            d.expected = None;
            d.why = None;
            d.related = Box::default();
            d.fix = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// How many times an [`EarlyDrops`] on this thread put the parses
        /// back mid-building.
        pub(super) static UNDONE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Both ways a parse dropped too soon is found: a later pipeline looks
    /// its file up (`b_app.txt` names the nvinfer config `a_app.txt`'s
    /// chunk dropped: the parses are put back mid-building), and a config
    /// nothing references does (the tracker key-file `t.txt` names the
    /// low-level config `a_app.txt`'s tracker loads: the check is made
    /// again). Either way the findings are `check_with`'s; a check
    /// (`Dropping::Done`) keeps `ll.yml`, which a file other than an app
    /// config names, and drops the others as it goes.
    #[test]
    fn each_way_a_parse_dropped_too_soon_is_found() {
        let nvinfer = "[property]\ngpu-id=0\nonnx-file=m.onnx\nbatch-size=1\nnetwork-mode=0\n\
                       num-detected-classes=4\ngie-unique-id=1\nnetwork-type=0\nbatch-size=2\n";
        let app = |more: &str| {
            format!("[application]\nenable-perf-measurement=1\n[streammux]\nbatch-size=1\nbatchsize=2\n{more}")
        };
        let tracker = "[tracker]\nenable=1\ntracker-width=640\ntracker-height=384\n\
                       ll-lib-file=/opt/nvidia/deepstream/deepstream/lib/libnvds_nvmultiobjecttracker.so\n\
                       ll-config-file=ll.yml\n";
        let ll = "%YAML:1.0\nBaseConfig:\n  minDetectorConfidence: 0.5\nSegmenter:\n  x: 1\n";
        let shared = [
            ("a_app.txt", app("[primary-gie]\nenable=1\nconfig-file=x.txt\n")),
            ("b_app.txt", app("[primary-gie]\nenable=1\nconfig-file=x.txt\n")),
            ("x.txt", nvinfer.to_string()),
        ];
        let standalone = [
            ("a_app.txt", app(tracker)),
            ("t.txt", tracker.replace("enable=1\n", "")),
            ("ll.yml", ll.to_string()),
        ];
        let sel = Settings::default();
        let show = |r: &CheckResult| format!("{:?}", r.diagnostics);
        for (files, undone, redone) in [(&shared[..], 1, false), (&standalone[..], 0, true)] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("dslint.toml"), "").unwrap();
            for (name, text) in files {
                std::fs::write(dir.path().join(name), text).unwrap();
            }
            let load = || Workspace::load(&[dir.path().to_path_buf()]);
            let whole = check_with(&mut load(), None, Profile::Display, &sel);
            assert!(!whole.diagnostics.is_empty());
            let mut ws = load();
            UNDONE.with(|n| n.set(0));
            let eager = check_reporting(&mut ws, None, Profile::Display, &sel, false, Some(Dropping::Eager));
            assert_eq!(UNDONE.with(|n| n.get()), undone, "{files:?}");
            assert_eq!(eager.is_none(), redone, "{files:?}");
            if let Some(eager) = eager {
                assert_eq!(show(&whole), show(&eager));
            }
            let mut ws = load();
            let lean = check_reporting(&mut ws, None, Profile::Display, &sel, false, Some(Dropping::Done)).unwrap();
            assert_eq!(show(&whole), show(&lean));
            let named = |name: &str| ws.files.iter().position(|f| f.path.ends_with(name)).unwrap();
            let gone: Vec<bool> = files.iter().map(|(name, _)| ws.is_gone(named(name))).collect();
            let want = if redone {
                [true, false, false]
            } else {
                [true, true, true]
            };
            assert_eq!(gone, want, "{files:?}");
            assert_eq!(UNDONE.with(|n| n.get()), undone);
        }
    }

    /// Many app configs naming one config that names many files (what a
    /// hostile tree writes cheaply) would hold app configs × files of
    /// reach: past [`REACH_PER_FILE`] a file nothing is dropped early, and
    /// the check finds what it finds keeping every parse.
    #[test]
    fn reaches_past_their_bound_drop_nothing_early() {
        let (apps, infers) = (200, 400);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("dslint.toml"), "").unwrap();
        let mut hub = String::from("[property]\ngpu-id=0\nonnx-file=m.onnx\nbatch-size=1\n");
        for i in 0..infers {
            hub.push_str(&format!("[secondary-gie{i}]\nconfig-file=i{i}.txt\n"));
            let infer = "[property]\ngpu-id=0\nonnx-file=m.onnx\nbatch-size=1\nnetwork-mode=0\ngie-unique-id=2\n";
            std::fs::write(dir.path().join(format!("i{i}.txt")), infer).unwrap();
        }
        std::fs::write(dir.path().join("hub.txt"), hub).unwrap();
        for a in 0..apps {
            let app = "[application]\n[streammux]\nbatch-size=1\n[primary-gie]\nenable=1\nconfig-file=hub.txt\n";
            std::fs::write(dir.path().join(format!("app{a}.txt")), app).unwrap();
        }
        let n = apps + infers + 1;
        assert!(apps * (infers + 2) > REACH_PER_FILE * n + REACH_SLACK);
        let load = || Workspace::load(&[dir.path().to_path_buf()]);
        let sel = Settings::default();
        let ws = load();
        assert_eq!(ws.files.len(), n);
        assert!(EarlyDrops::new(&ws, None, Profile::Display, &sel, Dropping::Done, &Store::with_room(0)).is_none());
        let whole = check_with(&mut load(), None, Profile::Display, &sel);
        let mut ws = load();
        let lean = check_reporting(&mut ws, None, Profile::Display, &sel, false, Some(Dropping::Done)).unwrap();
        assert!(!whole.diagnostics.is_empty());
        assert_eq!(format!("{:?}", whole.diagnostics), format!("{:?}", lean.diagnostics));
        assert!(!ws.parse_dropped_early());
        // A tree of a few app configs is under the bound.
        for a in 3..apps {
            std::fs::remove_file(dir.path().join(format!("app{a}.txt"))).unwrap();
        }
        assert!(
            EarlyDrops::new(
                &load(),
                None,
                Profile::Display,
                &sel,
                Dropping::Done,
                &Store::with_room(0)
            )
            .is_some()
        );
    }

    /// A check that drops every parse its app configs' pipelines may read
    /// as soon as each is built (`Dropping::Eager`, which drops parses
    /// that later pipelines and the checks of configs nothing references
    /// still read) finds each read of a dropped parse and checks again
    /// keeping the parses: over every rule case and example, its findings
    /// are exactly `check_with`'s, and so are `check_for_report`'s.
    #[test]
    fn a_parse_dropped_too_soon_is_found_and_the_check_made_again() {
        let mut dirs: Vec<std::path::PathBuf> = std::fs::read_dir("testdata/rules")
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        dirs.sort();
        dirs.push("testdata/examples".into());
        let sel = Settings::default();
        let (mut redone, mut dropped) = (0, 0);
        for dir in &dirs {
            let load = || Workspace::load(std::slice::from_ref(dir));
            let whole = check_with(&mut load(), None, Profile::Display, &sel);
            let show = |r: &CheckResult| format!("{:?}", r.diagnostics);
            let lean = check_for_report(&mut load(), None, Profile::Display, &sel, false);
            assert_eq!(show(&whole), show(&lean), "{}", dir.display());
            let mut ws = load();
            ws.trim_files();
            let eager = match check_reporting(&mut ws, None, Profile::Display, &sel, false, Some(Dropping::Eager)) {
                Some(r) => {
                    dropped += usize::from(ws.parse_dropped_early());
                    r
                }
                None => {
                    redone += 1;
                    ws.restore_parses();
                    check_reporting(&mut ws, None, Profile::Display, &sel, false, None).unwrap()
                }
            };
            assert_eq!(show(&whole), show(&eager), "{}", dir.display());
        }
        // Parses were dropped early with the findings unchanged (and, in
        // some, a check made again: `each_way_a_parse_dropped_too_soon_is_found`).
        assert!(dropped > 10, "{dropped} {redone}");
    }

    /// `sort_by_place` puts the findings where a stable sort by (rank,
    /// offset, code) puts them, equal keys in their first order (the
    /// messages tell them apart), on lists with many equal keys and long
    /// cycles.
    #[test]
    fn sorting_by_place_is_the_stable_sort() {
        let rules = [Rule::BatchMismatch, Rule::MissingFile, Rule::OsdEnabled];
        let rank = [3, 0, 2, 1];
        for n in [0usize, 1, 2, 7, 100, 1000] {
            let mut out: Vec<Diagnostic> = (0..n)
                .map(|i| {
                    // A fixed scramble: files, offsets and codes repeat.
                    let h = (i * 7919 + 13) % 101;
                    Diagnostic::new(rules[h % 3], h % 4, (h % 5)..(h % 5 + 1), format!("#{i}"))
                })
                .collect();
            let mut expected = out.clone();
            expected.sort_by_key(|d| (rank[d.file], d.span.start, d.code()));
            sort_by_place(&mut out, &rank);
            let show = |l: &[Diagnostic]| l.iter().map(|d| d.message.clone()).collect::<Vec<_>>();
            assert_eq!(show(&out), show(&expected), "{n}");
        }
    }

    /// `keep_first_of_each` (runs of equal hashes walked, and copies
    /// merged, on all threads) keeps what a walk of the findings in order
    /// keeps: the first of each finding, each later copy merged into it in
    /// order (expected values joined, `why` noted, the fix dropped unless
    /// the copies' are the same), on lists whose copies are far apart.
    #[test]
    fn keeping_the_first_of_each_is_the_walk_in_order() {
        use crate::base::edit::{Edit, Fix};
        for n in [0usize, 1, 2, 50, 3000] {
            let list: Vec<Diagnostic> = (0..n)
                .map(|i| {
                    // A fixed scramble: places and messages repeat.
                    let h = (i * 7919 + 13) % 97;
                    let mut d =
                        Diagnostic::new(Rule::BatchMismatch, h % 3, (h % 5)..(h % 5 + 1), format!("m{}", h % 7));
                    d.expected = (i % 5 != 0).then(|| format!("{}", i % 4).into());
                    d.why = Some(format!("w{}", i % 3).into());
                    let edit = Edit {
                        file: 0,
                        range: 0..1,
                        text: format!("{}", i % 2),
                    };
                    d.fix = (i % 3 != 0).then(|| Box::new(Fix::safe("t", vec![edit])));
                    d
                })
                .collect();
            let mut expected: Vec<Diagnostic> = Vec::new();
            let mut seen: std::collections::HashMap<(&str, FileId, usize, usize, String), usize> =
                std::collections::HashMap::new();
            for d in &list {
                let key = (d.code(), d.file, d.span.start, d.span.end, d.message.to_string());
                match seen.entry(key) {
                    std::collections::hash_map::Entry::Occupied(e) => merge_expectation(&mut expected[*e.get()], d),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(expected.len());
                        expected.push(d.clone());
                    }
                }
            }
            let mut out = list.clone();
            keep_first_of_each(&mut out);
            assert_eq!(format!("{out:?}"), format!("{expected:?}"), "{n}");
            if n == 3000 {
                // Some copies were merged, some expectations joined.
                assert!(out.len() < 300, "{}", out.len());
                assert!(
                    out.iter()
                        .any(|d| d.expected.as_deref().is_some_and(|e| e.contains(" or ")))
                );
            }
        }
    }

    /// `permute` gives what gathering `from`'s positions in order gives,
    /// for every permutation of five items (fixed points, 2-cycles, one
    /// long cycle, and mixes of them).
    /// The store gives back the lists it was given, in the order asked,
    /// whatever order they were put in; the lists not asked for (a
    /// building's visits taken back) are dropped.
    #[test]
    fn the_store_joins_the_lists_asked_for_in_their_order() {
        let list = |name: &str, n: usize| -> Vec<Diagnostic> {
            (0..n)
                .map(|i| Diagnostic::new(Rule::DuplicateKey, 0, i..i + 1, format!("{name}{i}")))
                .collect()
        };
        let store = Store::with_room(1);
        let b = store.put(list("b", 3));
        let gone = store.put(list("x", 2));
        let empty = store.put(Vec::new());
        let a = store.put(list("a", 2));
        let c = store.put(list("c", 1));
        assert_eq!((b.clone(), gone, empty.clone()), (0..3, 3..5, 0..0));
        let joined = store.joined(vec![a, empty, b, c]);
        let messages: Vec<&str> = joined.iter().map(|d| &*d.message).collect();
        assert_eq!(messages, ["a0", "a1", "b0", "b1", "b2", "c0"]);
    }

    #[test]
    fn permute_gathers_in_place() {
        fn all(rest: Vec<usize>, done: Vec<usize>, out: &mut Vec<Vec<usize>>) {
            if rest.is_empty() {
                out.push(done);
                return;
            }
            for (i, &x) in rest.iter().enumerate() {
                let mut r = rest.clone();
                r.remove(i);
                let mut d = done.clone();
                d.push(x);
                all(r, d, out);
            }
        }
        let mut perms = Vec::new();
        all((0..6).collect(), Vec::new(), &mut perms);
        assert_eq!(perms.len(), 720);
        for from in perms {
            let mut items: Vec<String> = (0..6).map(|i| format!("item {i}")).collect();
            let gathered: Vec<String> = from.iter().map(|&i| items[i].clone()).collect();
            permute(&mut items, from);
            assert_eq!(items, gathered);
        }
    }
}
