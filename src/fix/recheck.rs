//! The fix loop's checks. The first loads the tree and runs every rule, as
//! `check` does; each later one (a pass, or a restart of the guard going
//! back to the starting texts) gives the files whose text changed their
//! new text in the same workspace, builds again only the pipelines that
//! read one of them, and runs again only the rules whose inputs changed:
//! those files' own checks, those pipelines' rules, the standalone
//! elements of those files, and the nvdsanalytics configs whose stream
//! count moved. Every other list of findings is kept, in its place, so the
//! merged output is the one a full check gives.
//!
//! A file given a text it had before in this run takes back the document
//! (and own findings) parsed for it then (`fix::shelf`): a file put back,
//! the guard's second loop giving files again the texts the first gave.
//! The guard's restart, back to the loaded texts, is answered with what
//! the load reported, and the graph is left as it was: the check after it
//! builds again the pipelines that read a file whose text is not the one
//! their build was made from (`graph_versions`). On the 10k bench tree the
//! restart re-parsed, built and checked ~all pipelines again.
//!
//! A pipeline whose files have again the texts (versions) one of its
//! earlier builds was made from takes that build back, with its findings
//! (`shelf::Builds`), instead of being built and checked again.
//!
//! Where an edit could make the tree another shape, a full load is done
//! instead (the parsed documents reused, as before): a file whose kind or
//! format its new text changes, a pipeline whose rebuilding loads a file,
//! gives one another kind, or reads other files than before, a pipeline
//! of a script, a Python app or deepstream-parallel-infer (their front
//! ends follow what the text says in ways the rebuild does not check).
//! `fix_incremental_equals_full` (tests/fix.rs) runs both ways over the
//! test data and the corpus.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::BuildHasher;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use crate::base::FileId;
use crate::base::diagnostic::Diagnostic;
use crate::base::key::Key;
use crate::context::Context;
use crate::files::root::ProjectRoot;
use crate::fix::guard::Links;
use crate::fix::patch;
use crate::fix::report::{self, Order};
use crate::fix::shelf::{Build, Builds, LOADED, Parsed, Print, Shelf, Versions};
use crate::model::detect::Kind;
use crate::model::frontend;
use crate::model::graph::{Element, Graph, Pipeline};
use crate::model::workspace::{NewText, OverlayTexts, Workspace, canonical};
use crate::rules::context::Ctx;
use crate::rules::suppress::Suppressions;
use crate::rules::{self, Findings};
use crate::syntax::{Document, LineIndex};
use rayon::prelude::*;

/// A pipeline built again and the files it read.
type Built = (Pipeline, HashSet<FileId>);

/// `Workspace::get` of the fix loop's keys, remembered.
#[derive(Default)]
struct FileIds(HashMap<Vec<u8>, Option<FileId>, foldhash::fast::RandomState>);

impl FileIds {
    fn get(&mut self, ws: &Workspace, key: &std::path::Path) -> Option<FileId> {
        use std::os::unix::ffi::OsStrExt;
        let bytes = key.as_os_str().as_bytes();
        if let Some(id) = self.0.get(bytes) {
            return *id;
        }
        let id = ws.get(key);
        self.0.insert(bytes.to_vec(), id);
        id
    }

    /// `get` of each key, those not seen before found on all threads
    /// (`Workspace::get` places a path on the disk: ~3.8k new keys in a
    /// pass of the 10k bench tree).
    fn get_all<'k>(&mut self, ws: &Workspace, keys: impl Iterator<Item = &'k Key>) -> Vec<Option<FileId>> {
        use std::os::unix::ffi::OsStrExt;
        let keys: Vec<&Key> = keys.collect();
        let new: Vec<&Key> = keys
            .iter()
            .filter(|k| !self.0.contains_key(k.as_os_str().as_bytes()))
            .copied()
            .collect();
        let found: Vec<Option<FileId>> = new.par_iter().map(|k| ws.get(k)).collect();
        for (k, id) in new.into_iter().zip(found) {
            self.0.insert(k.as_os_str().as_bytes().to_vec(), id);
        }
        keys.into_iter().map(|k| self.get(ws, k)).collect()
    }
}

/// How each check after the first is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recheck {
    /// Only what the edits touched (the default).
    Touched,
    /// Load and check the whole tree each time (the reference the
    /// incremental path is tested against).
    All,
}

/// What one fix run checks: its paths and options, and the last check.
pub struct Checker<'a> {
    paths: &'a [PathBuf],
    opts: &'a super::engine::FixOptions<'a>,
    root: Option<ProjectRoot>,
    recheck: Recheck,
    /// The pipelines around named files, found once (fixes do not move
    /// references).
    context: Option<Context>,
    last: Option<Checked>,
    counts: Checks,
    /// A full load after the first gave files other ids (other paths, or
    /// in another order) than the load before it.
    renumbered: bool,
}

/// How the checks of a fix run were made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checks {
    /// Loads and checks of the whole tree.
    pub full: usize,
    /// Checks again of what edits touched only.
    pub touched: usize,
    /// Of those, checks of the loaded texts again (the guard's restart),
    /// answered with what the load reported.
    pub as_loaded: usize,
    /// Documents taken back (`shelf`) instead of parsed again.
    pub taken_back: usize,
    /// Documents patched where only values changed (`fix::patch`)
    /// instead of parsed again.
    pub patched: usize,
    /// Of the checks again, those whose report was merged around what
    /// changed (`fix::report`) instead of made whole.
    pub merged_reports: usize,
    /// Pipelines' builds and findings taken back (`shelf::Builds`) instead
    /// of built and checked again.
    pub builds_taken_back: usize,
    /// Pipelines built again whose rules ran as each was built (`rebuild`),
    /// not after all were.
    pub visited: usize,
}

/// How a check again was made.
struct Updated {
    /// The loaded texts again: what the load reported.
    as_loaded: bool,
    /// Documents taken back instead of parsed.
    taken_back: usize,
    /// Documents patched instead of parsed.
    patched: usize,
    /// The report merged around what changed (`fix::report`).
    merged_report: bool,
    /// Pipelines' builds taken back instead of made.
    builds_taken_back: usize,
    /// Pipelines built whose rules ran as each was built.
    visited: usize,
}

/// What a fix run kept besides its outcome: the last check's graph,
/// findings and shelves. Dropped, it is let go on a pool thread; a
/// process that ends after the report forgets it instead (`main`), as
/// `check` forgets its pipelines: freeing it piece by piece is work
/// (~0.1 s of CPU after a 10k-file fix) the end of the process does for
/// nothing.
#[derive(Default)]
pub struct Kept(Option<Box<Checked>>);

impl Drop for Kept {
    fn drop(&mut self) {
        if let Some(last) = self.0.take() {
            drop_aside(last);
        }
    }
}

/// A checked workspace and what the rules found in it.
pub struct Checked {
    pub ws: Workspace,
    graph: Graph,
    found: Findings,
    /// What is reported (selection, suppressions, order applied); shared
    /// with `loaded_diagnostics` while it is the load's report.
    pub diagnostics: Arc<Vec<Diagnostic>>,
    /// `diagnostics` is the report of `found` (not so where the loaded
    /// texts' report was given back): the next report can be merged
    /// around what changed (`fix::report`).
    reported: bool,
    /// The report's order of the files (their paths do not change).
    order: Order,
    /// Each file's kind when loaded, before the graph's building gave
    /// referenced configs the kind their reference makes them.
    loaded_kinds: Vec<Option<Kind>>,
    /// The files each pipeline reads, sorted.
    pipeline_reads: Vec<Vec<FileId>>,
    /// The files each pipeline reads or its findings name, sorted.
    pipeline_files: Vec<Vec<FileId>>,
    /// Their versions when the pipeline was built.
    pipeline_versions: Vec<Vec<u64>>,
    /// The builds pipelines had for other versions of their files.
    builds: Builds,
    /// Each file's text's version (`shelf`): which of its texts it has.
    versions: Vec<u64>,
    text_versions: Versions,
    /// The documents of the texts files had before in this run.
    parsed: Shelf<FileId, Parsed>,
    /// The version of each file's text that the graph, the pipelines',
    /// elements' and nvdsanalytics findings were made from: the file's
    /// version, but where the tree went back to its loaded texts (the
    /// guard's restart) and nothing was built again.
    graph_versions: Vec<u64>,
    /// The files whose version is not the graph's, sorted.
    stale: BTreeSet<FileId>,
    /// What the load reported: what a check of the loaded texts reports.
    /// Shared, not copied: the first pass's report is merged from it
    /// (`fix::report::merged` copies only the findings it keeps), and the
    /// guard's restart gives it back as it is (each was a copy of every
    /// finding of the load: 53k on the 10k bench tree).
    loaded_diagnostics: Arc<Vec<Diagnostic>>,
    /// The overlay's keys when loaded: those files' texts were not the
    /// disk's.
    loaded_overlay: HashSet<Key, foldhash::fast::RandomState>,
    /// Each file's canonical path (the fix loop's key), found once.
    keys: Vec<OnceLock<Key>>,
    /// The file each overlay key names (`Workspace::get`, which places the
    /// path on the disk), found once a key instead of once a pass; by the
    /// key's bytes. The workspace's files stay those of this check.
    ids: FileIds,
    /// Each file's inline suppressions, collected again where its text
    /// changed.
    suppressions: Suppressions,
}

impl<'a> Checker<'a> {
    pub fn new(paths: &'a [PathBuf], opts: &'a super::engine::FixOptions<'a>, recheck: Recheck) -> Checker<'a> {
        let root = opts.root.clone().or_else(|| ProjectRoot::for_paths(paths, None).ok());
        Checker {
            paths,
            opts,
            root,
            recheck,
            context: None,
            last: None,
            counts: Checks::default(),
            renumbered: false,
        }
    }

    /// Check the tree with these texts in place of the disk's (by
    /// canonical path).
    pub fn check<S: BuildHasher>(&mut self, overlay: &HashMap<Key, Arc<String>, S>) -> &Checked {
        let next = match self.last.take() {
            None => self.full(overlay, None),
            Some(last) if self.recheck == Recheck::All => self.full(overlay, Some(last.ws)),
            Some(mut last) => {
                if let Some(u) = last.update(overlay, self.opts) {
                    self.counts.touched += 1;
                    self.counts.as_loaded += usize::from(u.as_loaded);
                    self.counts.taken_back += u.taken_back;
                    self.counts.patched += u.patched;
                    self.counts.merged_reports += usize::from(u.merged_report);
                    self.counts.builds_taken_back += u.builds_taken_back;
                    self.counts.visited += u.visited;
                    last
                } else {
                    self.full(overlay, Some(last.ws))
                }
            }
        };
        self.last.insert(next)
    }

    /// Whether every check so far gave each file the id the first gave it
    /// (the engine keeps ids across checks: `guard::Links`).
    pub fn same_ids(&self) -> bool {
        !self.renumbered
    }

    /// Let go of the last check's share of the loop's texts
    /// (`Workspace::overlay`): no check follows, and the loop's outcome
    /// then owns its changed texts alone (moved into `FixOutcome::changed`,
    /// not copied).
    pub fn release_texts(&mut self) {
        if let Some(last) = &mut self.last {
            last.ws.overlay = OverlayTexts::default();
        }
    }

    /// How the checks so far were made.
    pub fn counts(&self) -> Checks {
        self.counts
    }

    /// The last check.
    pub fn last(&self) -> Option<&Checked> {
        self.last.as_ref()
    }

    /// The last check's workspace and report, and the rest of what the
    /// run kept (its graph, findings, shelves).
    pub fn into_ws_and_report(self) -> (Workspace, Vec<Diagnostic>, Kept) {
        let Some(mut last) = self.last else {
            return (Workspace::default(), Vec::new(), Kept(None));
        };
        let ws = std::mem::take(&mut last.ws);
        if Arc::ptr_eq(&last.diagnostics, &last.loaded_diagnostics) {
            last.loaded_diagnostics = Arc::default();
        }
        let diagnostics = Arc::try_unwrap(std::mem::take(&mut last.diagnostics)).unwrap_or_else(|d| (*d).clone());
        (ws, diagnostics, Kept(Some(Box::new(last))))
    }

    /// Load the whole tree (the documents of `previous` whose text is the
    /// same reused) and run every rule.
    fn full<S: BuildHasher>(&mut self, overlay: &HashMap<Key, Arc<String>, S>, previous: Option<Workspace>) -> Checked {
        self.counts.full += 1;
        let (paths, root) = (self.paths, self.root.clone());
        // The texts shared, not copied (`OverlayTexts`).
        let texts: OverlayTexts = overlay.iter().map(|(k, t)| (k.clone(), Arc::clone(t))).collect();
        let had: Option<Vec<PathBuf>> = previous
            .as_ref()
            .map(|prev| prev.files.iter().map(|f| f.path.clone()).collect());
        let mut ws = match previous {
            Some(prev) => Workspace::load_reusing(paths, root, texts, prev),
            None => Workspace::load_shared(paths, root, texts),
        };
        self.context.get_or_insert_with(|| Context::find(&ws)).load(&mut ws);
        let loaded_kinds = ws.files.iter().map(|f| f.kind).collect();
        let opts = self.opts;
        // Each pipeline's rules run as it is built, where that is sound
        // (`frontend::build_visiting`, as `check` does), and it is cut to
        // what the report reads (`rules::keep_for_report`): the properties
        // of every pipeline are never held together. What it reads is
        // noted before it is cut.
        let visit = |ws: &Workspace, p: &mut Pipeline| {
            let read = reads(p);
            let ctx = Ctx::new(ws, opts.facts, opts.profile, &opts.selection);
            (read, rules::pipeline_findings_for_report(&ctx, p))
        };
        let (mut graph, visited) = frontend::build_visiting(&mut ws, &visit, None);
        ws.drop_reusable();
        if had.is_some_and(|had| !had.iter().eq(ws.files.iter().map(|f| &f.path))) {
            self.renumbered = true;
        }
        // What each pipeline not visited reads, before its rules run.
        let (pipeline_reads, early): (Vec<Vec<FileId>>, Vec<Option<Vec<Diagnostic>>>) = graph
            .pipelines
            .par_iter()
            .zip(visited)
            .map(|(p, v)| match v {
                Some((read, found)) => (read, Some(found)),
                None => (reads(p), None),
            })
            .unzip();
        let ctx = Ctx::new(&ws, opts.facts, opts.profile, &opts.selection);
        let found = Findings::of_dropping_properties(&ctx, &mut graph, early, Vec::new());
        let suppressions = Suppressions::of(&ws);
        let diagnostics = report::Inputs {
            ws: &ws,
            pipelines: &graph.pipelines,
            found: &found,
            sel: &opts.selection,
            suppressions: &suppressions,
        }
        .whole();
        // On all threads: one thread's walk over every pipeline's findings
        // was ~11M instructions of the main thread on the 10k bench tree.
        let pipeline_files: Vec<Vec<FileId>> = (0..graph.pipelines.len())
            .into_par_iter()
            .map(|i| files_named(&pipeline_reads[i], found.of_pipeline(i)))
            .collect();
        let pipeline_versions = pipeline_files.iter().map(|f| vec![LOADED; f.len()]).collect();
        let keys = (0..ws.files.len()).map(|_| OnceLock::new()).collect();
        let ids = FileIds::default();
        let diagnostics = Arc::new(diagnostics);
        let loaded_diagnostics = Arc::clone(&diagnostics);
        let versions = vec![LOADED; ws.files.len()];
        let order = Order::of(&ws);
        Checked {
            ws,
            graph,
            found,
            diagnostics,
            reported: true,
            order,
            loaded_kinds,
            pipeline_reads,
            pipeline_files,
            pipeline_versions,
            builds: Builds::default(),
            graph_versions: versions.clone(),
            versions,
            text_versions: Versions::default(),
            parsed: Shelf::default(),
            stale: BTreeSet::new(),
            loaded_diagnostics,
            loaded_overlay: overlay.keys().cloned().collect(),
            keys,
            ids,
            suppressions,
        }
    }
}

impl Checked {
    /// Join in `links` the files each list of findings reads or names
    /// (`guard::Links`): each pipeline's files (`pipeline_files`: what it
    /// reads and what its findings name), each file's own findings with
    /// it, each standalone element's reads with its findings, each
    /// nvdsanalytics config's findings together (its stream count comes
    /// from the pipelines that read it).
    pub fn link(&self, links: &mut Links) {
        for files in &self.pipeline_files {
            if let Some((&first, rest)) = files.split_first() {
                for &f in rest {
                    links.join(first, f);
                }
            }
        }
        let (files, pipelines) = (self.ws.files.len(), self.graph.pipelines.len());
        let mut reads = Vec::new();
        for (at, list) in self.found.lists().enumerate() {
            let anchor = if at < files {
                at
            } else if at < files + pipelines {
                continue;
            } else if let Some(e) = self.graph.standalone.get(at - files - pipelines) {
                reads.clear();
                element_reads(e, &mut reads);
                match reads.split_first() {
                    Some((&first, rest)) => {
                        for &f in rest {
                            links.join(first, f);
                        }
                        first
                    }
                    None => match list.first() {
                        Some(d) => d.file,
                        None => continue,
                    },
                }
            } else {
                match list.first() {
                    Some(d) => d.file,
                    None => continue,
                }
            };
            for d in list {
                links.join(anchor, d.file);
                for (f, _) in &d.related {
                    links.join(anchor, *f);
                }
                for e in d.fix.iter().flat_map(|f| &f.edits) {
                    links.join(anchor, e.file);
                }
            }
        }
    }

    /// `moved` and every file read by a pipeline or standalone element
    /// that reads one of them, marked by id: the files whose findings an
    /// edit of `moved` may change through what they are read with. What
    /// each pipeline reads does not change from check to check but with a
    /// full load (`rebuild` builds again only where it reads the same
    /// files), so this is a function of the tree's texts.
    pub fn read_with(&self, moved: &[FileId]) -> Vec<bool> {
        let mut is_moved = vec![false; self.ws.files.len()];
        for &f in moved {
            if let Some(m) = is_moved.get_mut(f) {
                *m = true;
            }
        }
        let mut marked = is_moved.clone();
        let reads_moved = |files: &[FileId]| files.iter().any(|&f| is_moved.get(f).is_some_and(|m| *m));
        let mut mark = |files: &[FileId]| {
            for &f in files {
                if let Some(m) = marked.get_mut(f) {
                    *m = true;
                }
            }
        };
        for files in &self.pipeline_reads {
            if reads_moved(files) {
                mark(files);
            }
        }
        let mut files = Vec::new();
        for e in &self.graph.standalone {
            files.clear();
            element_reads(e, &mut files);
            if reads_moved(&files) {
                mark(&files);
            }
        }
        marked
    }

    /// Whether each file's part of the report is its findings' alone
    /// (`report::local`).
    pub fn report_is_local(&self, opts: &super::engine::FixOptions) -> bool {
        report::local(&self.ws, &self.order, &opts.selection)
    }

    /// A file's key: its canonical path.
    pub fn key(&self, file: FileId) -> &Key {
        self.keys[file].get_or_init(|| Key::new(canonical(&self.ws.files[file].path)))
    }

    /// The same tree with `overlay`'s texts (and the loaded text of every
    /// file it no longer names), checked again where they changed; `None`
    /// where a full load must say what the tree is (then only the
    /// workspace's documents are of use: some may have their new text).
    fn update<S: BuildHasher>(
        &mut self,
        overlay: &HashMap<Key, Arc<String>, S>,
        opts: &super::engine::FixOptions,
    ) -> Option<Updated> {
        let edits = self.edits(overlay)?;
        // A text the file had before in this run: its document is taken
        // back; the others are parsed.
        let (mut back, mut parse) = (Vec::new(), Vec::with_capacity(edits.len()));
        for (id, text) in edits {
            match self.parsed.take(&id, |p| p.doc.text == text) {
                Some(p) => back.push((id, p)),
                None => parse.push((id, text)),
            }
        }
        // A text that differs from the file's only inside values is read
        // as its document with those values (`fix::patch`), not parsed.
        let ws = &self.ws;
        let parse: Vec<(FileId, NewText)> = parse
            .into_par_iter()
            .map(|(id, text)| match patch::patched(&ws.files[id].doc, &text) {
                Some(parsed) => (id, NewText::Parsed(Box::new(parsed))),
                None => (id, NewText::Text(text)),
            })
            .collect();
        let patched = parse.iter().filter(|(_, t)| matches!(t, NewText::Parsed(..))).count();
        let replaced = self.ws.replace_texts(parse, &self.loaded_kinds)?;
        let taken_back = back.len();
        // The files the report may change around (`fix::report`).
        let mut named: Vec<FileId> = Vec::new();
        let mut texts_changed: Vec<FileId> = Vec::with_capacity(replaced.len() + back.len());
        let mut reparsed: Vec<FileId> = Vec::with_capacity(replaced.len());
        // The texts' fingerprints, on all threads (one thread hashing
        // ~3.8k texts twice was a pass's longest serial step but the
        // report's, on the 10k bench tree): each new text's, and each
        // loaded text's given up (`shelve`).
        let (ws, versions) = (&self.ws, &self.versions);
        let loaded_print = |id: FileId, text: &str| (versions[id] == LOADED).then(|| Print::of(text));
        let replaced_prints: Vec<(Print, Option<Print>)> = replaced
            .par_iter()
            .map(|(id, doc, _)| (Print::of(&ws.files[*id].doc.text), loaded_print(*id, &doc.text)))
            .collect();
        let back_prints: Vec<Option<Print>> = back
            .par_iter()
            .map(|(id, _)| loaded_print(*id, &ws.files[*id].doc.text))
            .collect();
        for ((id, doc, lines), (print, given_up)) in replaced.into_iter().zip(replaced_prints) {
            let version = self.text_versions.of_print(id, print);
            // Its own findings are made again (`Findings::recheck`).
            self.shelve(id, doc, lines, given_up, version, Vec::new(), &mut named);
            texts_changed.push(id);
            reparsed.push(id);
        }
        for ((id, p), given_up) in back.into_iter().zip(back_prints) {
            let file = &mut self.ws.files[id];
            let doc = std::mem::replace(&mut file.doc, p.doc);
            let lines = std::mem::replace(&mut file.lines, p.lines);
            self.shelve(id, doc, lines, given_up, p.version, p.found, &mut named);
            texts_changed.push(id);
        }
        for &id in &texts_changed {
            if self.versions[id] == self.graph_versions[id] {
                self.stale.remove(&id);
            } else {
                self.stale.insert(id);
            }
        }
        // The engine's texts shared, not copied (`OverlayTexts`): each
        // changed text was held here once more. Most are the last
        // overlay's, the same `Arc` (compared by address first).
        self.ws.overlay.retain(|k, _| overlay.contains_key(k));
        for (k, text) in overlay {
            match self.ws.overlay.get_mut(k) {
                Some(had) => {
                    if !Arc::ptr_eq(had, text) {
                        *had = Arc::clone(text);
                    }
                }
                None => {
                    self.ws.overlay.insert(k.clone(), Arc::clone(text));
                }
            }
        }
        texts_changed.sort_unstable();
        reparsed.sort_unstable();
        self.suppressions.update(&self.ws, &texts_changed);
        // Back to the loaded texts: what the load reported is what a check
        // reports. The graph is left as it is, to be built again where the
        // texts that follow differ from those it was made from.
        if self.versions.iter().all(|v| *v == LOADED) {
            let ctx = Ctx::new(&self.ws, opts.facts, opts.profile, &opts.selection);
            self.found.recheck(&ctx, &self.graph, &[], &reparsed, &[], &[]);
            drop_aside(std::mem::replace(
                &mut self.diagnostics,
                Arc::clone(&self.loaded_diagnostics),
            ));
            self.reported = false;
            return Some(Updated {
                as_loaded: true,
                taken_back,
                patched,
                merged_report: false,
                builds_taken_back: 0,
                visited: 0,
            });
        }
        let changed: Vec<FileId> = std::mem::take(&mut self.stale).into_iter().collect();
        for &id in &changed {
            self.graph_versions[id] = self.versions[id];
        }
        let Rebuilt {
            pipelines,
            checked,
            taken_back: builds_taken_back,
            elements,
        } = self.rebuild(&changed, &mut named, opts)?;
        let ctx = Ctx::new(&self.ws, opts.facts, opts.profile, &opts.selection);
        // Pipelines whose rules ran as they were built (`rebuild`) are
        // not checked again.
        let unchecked: &[usize] = if checked { &[] } else { &pipelines };
        let visited = pipelines.len() - unchecked.len();
        named.extend(
            self.found
                .recheck(&ctx, &self.graph, &changed, &reparsed, unchecked, &elements),
        );
        // Their rules have run: each is cut to what the report reads, in
        // the graph and in the builds kept to take back (their properties:
        // the 10k bench tree's fix peaked at 550 MiB with them, 403 without).
        let mut built = vec![false; self.graph.pipelines.len()];
        for &i in unchecked {
            built[i] = true;
        }
        self.graph
            .pipelines
            .par_iter_mut()
            .zip(built)
            .filter(|(_, built)| *built)
            .for_each(|(p, _)| rules::keep_for_report(p));
        named.extend(&texts_changed);
        // Each rebuilt pipeline's files found on all threads (one thread's
        // walk over their findings was ~12M instructions of the main
        // thread on the 10k bench tree), then put in place.
        let (found, reads) = (&self.found, &self.pipeline_reads);
        let named_files: Vec<Vec<FileId>> = pipelines
            .par_iter()
            .map(|&i| files_named(&reads[i], found.of_pipeline(i)))
            .collect();
        for (&i, files) in pipelines.iter().zip(named_files) {
            self.pipeline_versions[i] = files.iter().map(|f| self.versions[*f]).collect();
            self.pipeline_files[i] = files;
        }
        let inputs = report::Inputs {
            ws: &self.ws,
            pipelines: &self.graph.pipelines,
            found: &self.found,
            sel: &opts.selection,
            suppressions: &self.suppressions,
        };
        let merged = if self.reported {
            report::merged(&inputs, &self.order, &mut self.diagnostics, &named)
        } else {
            None
        };
        let merged_report = merged.is_some();
        let diagnostics = merged.unwrap_or_else(|| inputs.whole());
        self.reported = true;
        drop_aside(std::mem::replace(&mut self.diagnostics, Arc::new(diagnostics)));
        Some(Updated {
            as_loaded: false,
            taken_back,
            patched,
            merged_report,
            builds_taken_back,
            visited,
        })
    }

    /// Keep what a file had (the document given, its version and own
    /// findings) to take back later, giving it `version` and `found`; the
    /// files both lists name are added to `named`. `print`: the given
    /// document's text's fingerprint, where it is the loaded text.
    #[allow(clippy::too_many_arguments)]
    fn shelve(
        &mut self,
        id: FileId,
        doc: Document,
        lines: LineIndex,
        print: Option<Print>,
        version: u64,
        found: Vec<Diagnostic>,
        named: &mut Vec<FileId>,
    ) {
        let version = std::mem::replace(&mut self.versions[id], version);
        if version == LOADED {
            match print {
                Some(print) => self.text_versions.loaded_print(id, print),
                None => self.text_versions.loaded(id, &doc.text),
            }
        }
        rules::named_by(&found, named);
        let found = self.found.swap_file(id, found);
        rules::named_by(&found, named);
        self.parsed.put(
            id,
            Parsed {
                doc,
                lines,
                version,
                found,
            },
        );
    }

    /// The loaded files whose text is to change, with their new text:
    /// `overlay`'s text where it names one; the text a file was loaded
    /// with where the last overlay named it and this one does not. `None`
    /// when that text is not at hand (the load read the last overlay's), or
    /// the overlay changes the text of a file not loaded as a config.
    fn edits<S: BuildHasher>(&mut self, overlay: &HashMap<Key, Arc<String>, S>) -> Option<Vec<(FileId, String)>> {
        let entries: Vec<(&Key, &Arc<String>)> = overlay.iter().collect();
        let ids = self.ids.get_all(&self.ws, entries.iter().map(|(k, _)| *k));
        // Compared (and copied) on all threads, in the overlay's order.
        let ws = &self.ws;
        let mut edits: Vec<(FileId, String)> = entries
            .par_iter()
            .zip(ids)
            .map(|(&(key, text), id)| match id {
                Some(id) if ws.files[id].doc.text != **text => Some(Some((id, String::clone(text)))),
                Some(_) => Some(None),
                None if ws.overlay.get(key) == Some(text) => Some(None),
                None => None,
            })
            .collect::<Option<Vec<_>>>()?
            .into_iter()
            .flatten()
            .collect();
        for key in self.ws.overlay.keys().filter(|k| !overlay.contains_key(*k)) {
            if self.loaded_overlay.contains(key) {
                return None;
            }
            let id = self.ids.get(&self.ws, key)?;
            if self.versions[id] != LOADED {
                edits.push((id, self.parsed.loaded(&id)?.doc.text.clone()));
            }
        }
        Some(edits)
    }

    /// Build again, in place, the pipelines that read a changed file (or
    /// take back the build they had for the versions their files have now,
    /// with its findings), and the standalone elements of changed files;
    /// their positions, or `None` where the tree may have changed shape.
    /// The files the replaced pipelines' findings named are added to
    /// `named`, and those of the findings taken back.
    fn rebuild(
        &mut self,
        changed: &[FileId],
        named: &mut Vec<FileId>,
        opts: &super::engine::FixOptions,
    ) -> Option<Rebuilt> {
        // Marked by id (a `HashSet` of SipHash lookups, one for each file
        // of each pipeline each pass, was ~6M instructions of the main
        // thread on the 10k bench tree).
        let mut touched = vec![false; self.ws.files.len()];
        for &f in changed {
            if let Some(t) = touched.get_mut(f) {
                *t = true;
            }
        }
        let affected: Vec<usize> = (0..self.graph.pipelines.len())
            .filter(|&i| {
                self.pipeline_files[i]
                    .iter()
                    .any(|&f| touched.get(f).is_some_and(|t| *t))
            })
            .collect();
        let (files, problems, skipped) = (self.ws.files.len(), self.ws.file_problems.len(), self.ws.skipped.len());
        let kinds: Vec<Option<Kind>> = self.ws.files.iter().map(|f| f.kind).collect();
        // The rebuild sees every file with its kind at the end of the last
        // build; the build in file order saw each with the kind its load
        // gave it, updated by the pipelines before. They agree where each
        // file the pipeline reads still has its loaded kind.
        let loaded = |f: &FileId| self.loaded_kinds.get(*f).is_some_and(|k| *k == self.ws.files[*f].kind);
        for &i in &affected {
            let root = self.graph.pipelines[i].root;
            let by_config = matches!(
                self.ws.files[root].kind,
                Some(Kind::App | Kind::TestApp | Kind::ServiceMaker)
            );
            if !by_config || !self.pipeline_files[i].iter().all(loaded) {
                return None;
            }
        }
        // A build kept for the versions the files have now is the build
        // these texts make.
        let mut kept = Vec::new();
        let mut pipelines = Vec::with_capacity(affected.len());
        for i in affected {
            match self.builds.take(i, &self.versions) {
                Some(b) => kept.push((i, b)),
                None => pipelines.push(i),
            }
        }
        // deepstream-app and test-app configs on all threads, looking up
        // what they reference: a build that would load a file or change a
        // kind changes the tree's shape (a full load follows). Service
        // Maker's then, in order, loading.
        let ws = &self.ws;
        let graph = &self.graph;
        let service_maker = |i: &usize| ws.files[graph.pipelines[*i].root].kind == Some(Kind::ServiceMaker);
        // Where no build loads (no Service Maker config among them), the
        // workspace is already what the rules will see: each pipeline's
        // rules run as soon as it is built, on the thread that built it,
        // and it is cut to what the report reads (as `check` visits its
        // pipelines: the properties of every rebuilt pipeline are never
        // held together, and each is checked while its build is in the
        // cache). On the 10k bench tree's first pass, ~2.4k pipelines.
        let visit = !pipelines.iter().any(service_maker);
        let ctx = Ctx::new(ws, opts.facts, opts.profile, &opts.selection);
        let pipeline_reads = &self.pipeline_reads;
        type Looked = Option<(Built, Option<Vec<Diagnostic>>)>;
        let looked: Vec<(usize, Looked)> = pipelines
            .par_iter()
            .filter(|i| !service_maker(i))
            .map(|&i| {
                let Some((mut p, referenced)) = frontend::config_pipeline_looking(ws, graph.pipelines[i].root) else {
                    return (i, None);
                };
                if !visit {
                    return (i, Some(((p, referenced), None)));
                }
                // What the pipeline reads decides which configs are
                // standalone: checked before it is cut (a full load
                // follows where it differs).
                if !same_reads(&p, &referenced, &pipeline_reads[i]) {
                    return (i, None);
                }
                let found = rules::pipeline_findings_for_report(&ctx, &mut p);
                (i, Some(((p, referenced), Some(found))))
            })
            .collect();
        let mut built = Vec::with_capacity(pipelines.len());
        let mut found_built: Vec<(usize, Vec<Diagnostic>)> = Vec::new();
        for (i, p) in looked {
            let ((p, referenced), found) = p?;
            if let Some(found) = found {
                found_built.push((i, found));
            }
            built.push((i, (p, referenced)));
        }
        for &i in &pipelines {
            let root = self.graph.pipelines[i].root;
            if self.ws.files[root].kind == Some(Kind::ServiceMaker) {
                let mut referenced = HashSet::new();
                let p = frontend::config_pipeline(&mut self.ws, root, &mut referenced);
                built.push((i, (p, referenced)));
            }
        }
        // What the pipeline reads decides which configs are standalone
        // (those visited were compared as built).
        let pipeline_reads = &self.pipeline_reads;
        let same = visit
            || built
                .par_iter()
                .all(|(i, (p, referenced))| same_reads(p, referenced, &pipeline_reads[*i]));
        if !same {
            return None;
        }
        let mut found_built = found_built.into_iter().peekable();
        // The builds replaced are kept, with their findings; the new builds'
        // findings are those made as they were built (`visit`), or made by
        // `Findings::recheck`.
        let taken_back = kept.len();
        let incoming = built
            .into_iter()
            .map(|(i, (pipeline, _))| {
                // The findings made as it was built, if any (`found_built`
                // is in the order of `built`).
                let found = found_built
                    .next_if(|(at, _)| *at == i)
                    .map(|(_, f)| f)
                    .unwrap_or_default();
                (i, pipeline, found, Vec::new(), Vec::new())
            })
            .chain(
                kept.into_iter()
                    .map(|(i, b)| (i, b.pipeline, b.found, b.files, b.versions)),
            );
        let mut let_go = Vec::new();
        for (i, pipeline, found, files, versions) in incoming {
            rules::named_by(&found, named);
            let found = self.found.swap_pipeline(i, found);
            rules::named_by(&found, named);
            let old = Build {
                pipeline: std::mem::replace(&mut self.graph.pipelines[i], pipeline),
                found,
                files: std::mem::replace(&mut self.pipeline_files[i], files),
                versions: std::mem::replace(&mut self.pipeline_versions[i], versions),
            };
            let_go.extend(self.builds.put(i, old));
        }
        drop_aside(let_go);
        let same_shape = self.ws.files.len() == files
            && self.ws.file_problems.len() == problems
            && self.ws.skipped.len() == skipped
            && self.ws.files.iter().zip(&kinds).all(|(f, k)| f.kind == *k);
        if !same_shape {
            return None;
        }
        let mut elements = Vec::new();
        for (i, e) in self.graph.standalone.iter_mut().enumerate() {
            let mut files = Vec::new();
            element_reads(e, &mut files);
            if !files.iter().any(|&f| touched.get(f).is_some_and(|t| *t)) {
                continue;
            }
            let file = e.config.as_ref()?.file;
            *e = frontend::config::standalone(&self.ws, file)?;
            elements.push(i);
        }
        Some(Rebuilt {
            pipelines,
            checked: visit,
            taken_back,
            elements,
        })
    }
}

/// Whether a pipeline built again reads the files its earlier build read
/// (`reads`, sorted), the configs it references among them.
fn same_reads(p: &Pipeline, referenced: &HashSet<FileId>, before: &[FileId]) -> bool {
    let now = reads(p);
    now == before && referenced.iter().all(|f| now.binary_search(f).is_ok())
}

/// What `rebuild` made again: the pipelines built (their findings to be
/// made, but where `checked`), how many builds were taken back (with their
/// findings), and the standalone elements built.
struct Rebuilt {
    pipelines: Vec<usize>,
    /// Their findings were made as they were built (and each was cut to
    /// what the report reads).
    checked: bool,
    taken_back: usize,
    elements: Vec<usize>,
}

/// Let go of what a check no longer needs on a pool thread: freeing the
/// old findings and builds of a 10k-file tree (strings by the hundred
/// thousand) took the main thread ~0.1 s a pass.
fn drop_aside<T: Send + 'static>(old: T) {
    rayon::spawn(move || drop(old));
}

/// The files a pipeline reads: its root, its elements' configs, homes and
/// settings, the files its references are written in; sorted.
fn reads(p: &Pipeline) -> Vec<FileId> {
    let mut files = vec![p.root];
    for e in &p.elements {
        element_reads(e, &mut files);
    }
    files.extend(p.references.iter().map(|r| r.file));
    files.sort_unstable();
    files.dedup();
    files
}

/// (A file is not pushed again right after itself: an element's settings
/// come a file at a time, so the list stays a few files long instead of
/// two a setting, and `reads` sorts few. Every caller reads it as a set.)
fn element_reads(e: &Element, files: &mut Vec<FileId>) {
    let mut push = |f: FileId| {
        if files.last() != Some(&f) {
            files.push(f);
        }
    };
    e.config.iter().for_each(|c| push(c.file));
    e.config
        .iter()
        .filter_map(|c| c.home.as_ref())
        .for_each(|h| push(h.file()));
    e.home.iter().chain(&e.declared).for_each(|h| push(h.file()));
    for s in e.props.iter().flat_map(|p| &p.settings) {
        push(s.at.get().0);
        s.site.iter().for_each(|site| push(site.file));
    }
}

/// The files a pipeline reads and those its findings name (where they
/// are, what they relate, what their fixes edit), sorted.
fn files_named(reads: &[FileId], found: &[Diagnostic]) -> Vec<FileId> {
    let mut files = reads.to_vec();
    for d in found {
        files.push(d.file);
        files.extend(d.related.iter().map(|(f, _)| *f));
        files.extend(d.fix.iter().flat_map(|f| &f.edits).map(|e| e.file));
    }
    files.sort_unstable();
    files.dedup();
    files
}
