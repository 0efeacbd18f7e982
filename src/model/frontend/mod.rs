//! Front ends: each turns the lossless documents of one format into the
//! element graph (`model::graph`). `build` runs them over a workspace:
//! every app config becomes a pipeline (loading the configs it references),
//! and the element configs no pipeline references become standalone
//! elements.
//!
//! - [`app`]: deepstream-app configs (key-file and YAML) and the test apps'
//!   YAML, whose groups are elements.
//! - [`config`]: the files an element loads (nvinfer and nvdspreprocess
//!   `[property]`, nvtracker `[tracker]`), as layers of its properties.
//! - [`launch`]: gst-launch pipelines (a script's `gst-launch-1.0`
//!   commands, `Gst.parse_launch` strings), on [`gst`]'s elements.
//! - [`python`]: Python apps (GStreamer's bindings, pyservicemaker), with
//!   [`bindings`]: the names a scope has bound.
//! - [`edit`]: writing a value at a `Site` or a new key at a `Home`.
//! - [`parallel`]: deepstream-parallel-infer's main YAML (`primary-gieN`,
//!   `branchN`, `meta-mux`).
//! - [`metamux`]: the nvdsmetamux key-file its `meta-mux:` loads.

pub mod app;
pub mod bindings;
#[cfg(test)]
mod code_tests;
pub mod config;
pub mod edit;
pub mod gst;
pub mod inferserver;
pub mod launch;
pub mod metamux;
pub mod parallel;
pub mod python;
pub mod service_maker;
mod source_list;
#[cfg(test)]
mod tests;

use std::collections::HashSet;

use rayon::prelude::*;

use crate::base::FileId;
use crate::base::shared::Shared;
use crate::model::detect::Kind;
use crate::model::graph::{Graph, Home, Layer, Pipeline, Property, Role, Setting, Site, Stage, Value};
use crate::model::workspace::{Access, Workspace};
use crate::syntax::{Document, Entry};

/// Keys whose value names another file, by the front ends that follow
/// them: what the named-file context's reference index
/// (`crate::context::index`) searches every file of the project root for,
/// to find the pipelines a named file belongs to. A front end that follows
/// a new path-valued key adds it here (its test in `tests/context.rs` names
/// the referenced file and expects its pipeline's findings). GObject
/// spellings with `_` (`config_file_path`, protobuf's `labelfile_path`)
/// are searched too.
pub const REFERENCE_KEYS: &[(&str, &[&str])] = &[
    // deepstream-app and test-app configs (key-file and YAML); Service
    // Maker's `config-file-path`/`ll-config-file`/`config-file` properties
    // (`service_maker::config_key`) are among these.
    ("configs an element loads", app::CONFIG_PATH_KEYS),
    // Also nvinferserver's `postprocess { labelfile_path: … }` (protobuf
    // text, `inferserver::FIELDS`), by its `_` spelling.
    ("models, labels and libraries", app::DATA_PATH_KEYS),
];

/// The graph of every pipeline in the workspace (loading the configs they
/// reference) and of the element configs nothing references.
pub fn build(ws: &mut Workspace) -> Graph {
    build_with::<()>(ws, true, None, None).0
}

/// What [`build_visiting`] calls on a pipeline as soon as it is built,
/// with the workspace as the rules will see it.
pub type Visit<'v, R> = dyn Fn(&Workspace, &mut Pipeline) -> R + Sync + 'v;

/// `build`, calling `visit` on each app config's pipeline on the thread
/// that built it, as soon as it is built, when the workspace is then
/// already what it is at the end of the building: what `visit` finds is
/// what it would find in the finished graph (`check` runs a pipeline's
/// rules there and drops its properties, so that the properties of every
/// pipeline are never held together). Each pipeline's result, in the
/// graph's order; `None` for one not visited (it is as `build` makes it).
///
/// That holds when the building changes nothing in the workspace: every
/// root is a deepstream-app or test-app config built ahead by look-ups
/// alone, and there is no script or Python module (whose pipelines load
/// what they reference). Whether every build ahead stays a look-up is
/// known only once all are done: when one is not, the pipelines visited
/// are built again in their turn as a build in order makes them (the
/// same pipeline, `visit`'s changes gone) and their results are dropped.
///
/// `chunks`: where given, the app configs are built and visited in
/// chunks of roots, in file order, and `chunks` is told after each what
/// the chunk's pipelines referenced ([`Chunks::done`]); the caller may
/// then drop parses (`Workspace::drop_parses_early`). A chunk whose
/// building read such a file, or found one by path, is not quiet: the
/// workspace is put back ([`Chunks::undo`]) and the building goes on as
/// one that changes the workspace does.
pub fn build_visiting<R: Send>(
    ws: &mut Workspace,
    visit: &Visit<R>,
    chunks: Option<&mut dyn Chunks>,
) -> (Graph, Vec<Option<R>>) {
    build_with(ws, true, Some(visit), chunks)
}

/// What a visited building tells between its chunks of roots
/// ([`build_visiting`]).
pub trait Chunks {
    /// How many roots a chunk holds, of `roots` in all.
    fn chunk_len(&self, roots: usize) -> usize;
    /// A chunk's roots were built and visited, quietly so far;
    /// `referenced`: the files their pipelines reference.
    fn done(&mut self, ws: &mut Workspace, roots: &[FileId], referenced: &mut dyn Iterator<Item = FileId>);
    /// The building is not quiet: put back what `done` changed in the
    /// workspace (once; `done` is not called again).
    fn undo(&mut self, ws: &mut Workspace);
}

/// The files a file names as configs an element loads (the keys of
/// [`app::CONFIG_PATH_KEYS`], also spelled with `_`) that are loaded,
/// resolved as the front ends and rules resolve them
/// (`Workspace::resolve`): what a build reading the file may read next.
/// (A model, label or library file is no config a build reads.) A caller
/// that drops parses by it still learns of a file it missed
/// (`Workspace::touched_gone`).
pub fn named_files(ws: &Workspace, id: FileId) -> Vec<FileId> {
    let follows = |key: &str| {
        app::CONFIG_PATH_KEYS.iter().any(|k| {
            k.len() == key.len()
                && k.bytes()
                    .zip(key.bytes())
                    .all(|(a, b)| a == b || (a == b'-' && b == b'_'))
        })
    };
    let mut out = Vec::new();
    // A set beside the list: a file of many such keys naming many files
    // would make a scan of the list quadratic.
    let mut seen: std::collections::HashSet<FileId, foldhash::fast::RandomState> = Default::default();
    for g in &ws.files[id].doc.groups {
        for e in &g.entries {
            let Some(value) = e.value.as_deref().filter(|_| follows(&e.key)) else {
                continue;
            };
            if let Some(crate::model::workspace::Target::Exists(p)) = ws.resolve(id, value) {
                if let Some(f) = ws.get(&p).filter(|&f| f != id && seen.insert(f)) {
                    out.push(f);
                }
            }
        }
    }
    out
}

/// `build`, with app configs built ahead on all threads or not (the tests
/// compare both), and visited as built where that is sound
/// ([`build_visiting`]).
fn build_with<R: Send>(
    ws: &mut Workspace,
    ahead: bool,
    visit: Option<&Visit<R>>,
    chunks: Option<&mut dyn Chunks>,
) -> (Graph, Vec<Option<R>>) {
    let roots: Vec<FileId> = (0..ws.files.len())
        .filter(|&i| {
            matches!(
                ws.files[i].kind,
                Some(Kind::App | Kind::TestApp | Kind::ServiceMaker | Kind::ParallelApp)
            )
        })
        .collect();
    let mut referenced = HashSet::new();
    let mut graph = Graph::default();
    let mut visited: Vec<Option<R>> = Vec::new();
    // Visiting as built is sound only for a building that changes nothing:
    // every root an app config (the others are built in order, loading),
    // no script or module, and every build ahead a look-up (`quiet`, known
    // at the end).
    let may_visit = visit.is_some()
        && ahead
        && roots
            .iter()
            .all(|&r| matches!(ws.files[r].kind, Some(Kind::App | Kind::TestApp)))
        && !ws
            .files
            .iter()
            .any(|f| matches!(f.kind, Some(Kind::LaunchScript | Kind::PythonApp)));
    let loud = std::sync::atomic::AtomicBool::new(false);
    // App configs are built on all threads first, only looking up the
    // files they reference; then, in order, each is either taken as built
    // or built again loading what it references, as a build in order
    // would: when it wanted to load a file or change a kind, or when a
    // build before it changed the kind of a file it read. The graph is the
    // same as one built in order, on any number of threads.
    let build_chunk = |ws: &Workspace, roots: &[FileId]| -> Vec<(Option<Ahead>, Option<R>)> {
        roots
            .par_iter()
            // One app config a task: a chunk ends when its last pipeline
            // is built, and a split into halves left its last few
            // pipelines to one thread while the other waited.
            .with_max_len(1)
            .map(|&root| {
                if !ahead {
                    return (None, None);
                }
                let mut built = build_ahead(ws, root);
                if built.is_none() {
                    loud.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                let result = match (&mut built, visit) {
                    (Some(a), Some(visit)) if may_visit && !loud.load(std::sync::atomic::Ordering::Relaxed) => {
                        Some(visit(ws, &mut a.pipeline))
                    }
                    _ => None,
                };
                (built, result)
            })
            .collect()
    };
    let ahead: Vec<(Option<Ahead>, Option<R>)> = match chunks {
        Some(chunks) if may_visit => {
            let mut all = Vec::with_capacity(roots.len());
            let mut dropping = true;
            for chunk in roots.chunks(chunks.chunk_len(roots.len()).max(1)) {
                let mut part = build_chunk(ws, chunk);
                if dropping {
                    // A build or visit that read a file whose parse is gone
                    // saw an empty document: the chunk is built again in
                    // order, with every parse back.
                    let read_gone = part
                        .iter()
                        .flat_map(|(a, _)| a.iter().flat_map(|a| &a.read))
                        .any(|&f| ws.is_gone(f));
                    if ws.touched_gone() || read_gone {
                        loud.store(true, std::sync::atomic::Ordering::Relaxed);
                        for (a, r) in &mut part {
                            *a = None;
                            *r = None;
                        }
                    }
                    if loud.load(std::sync::atomic::Ordering::Relaxed) {
                        chunks.undo(ws);
                        dropping = false;
                    } else {
                        let mut referenced = part
                            .iter()
                            .flat_map(|(a, _)| a.iter().flat_map(|a| a.referenced.iter().copied()));
                        chunks.done(ws, chunk, &mut referenced);
                    }
                }
                all.extend(part);
            }
            all
        }
        _ => build_chunk(ws, &roots),
    };
    let quiet = may_visit && !loud.into_inner();
    // (Kind changes before this build are not this build's.)
    ws.take_rekinded();
    let mut rekinded: HashSet<FileId> = HashSet::new();
    // What the builds ahead referenced, marked by file: put in
    // `referenced`, each of their files was hashed again on this thread
    // alone while the pool waited (the 10k bench tree: 4M instructions).
    let mut referenced_ahead = vec![false; ws.files.len()];
    graph.pipelines.reserve_exact(roots.len());
    for (root, (ahead, result)) in roots.into_iter().zip(ahead) {
        if let Some(a) = ahead.filter(|a| !a.read.iter().any(|f| rekinded.contains(f))) {
            // A pipeline visited in a building that was not quiet: built
            // again below, as a build in order makes it.
            if quiet || result.is_none() {
                for f in a.referenced {
                    match referenced_ahead.get_mut(f) {
                        Some(r) => *r = true,
                        None => {
                            referenced.insert(f);
                        }
                    }
                }
                graph.pipelines.push(a.pipeline);
                visited.push(if quiet { result } else { None });
                continue;
            }
        }
        visited.push(None);
        let p = match ws.files[root].kind {
            Some(Kind::ServiceMaker) => service_maker::build(ws, root, &mut referenced),
            Some(Kind::ParallelApp) => parallel::build(ws, root, &mut referenced),
            _ => app::build(Access::Load(ws), root, &mut referenced),
        };
        rekinded.extend(ws.take_rekinded());
        graph.pipelines.push(p);
    }
    // Scripts and modules are parsed (tree-sitter) on all threads first;
    // what their pipelines load is followed on this one, in file order.
    // Each command's description is parsed there too.
    type Described = (crate::syntax::shell::Launch, crate::syntax::launch::Description);
    let scripts: Vec<(FileId, Vec<Described>)> = (0..ws.files.len())
        .into_par_iter()
        .filter(|&i| ws.files[i].kind == Some(Kind::LaunchScript))
        .map(|i| {
            let launches = crate::syntax::shell::launches(&ws.files[i].doc.text);
            let described = launches
                .into_par_iter()
                .map(|l| {
                    let d = crate::syntax::launch::parse(&l.mapped.text);
                    (l, d)
                })
                .collect();
            (i, described)
        })
        .collect();
    for (file, launches) in scripts {
        // One copy of the text for all its commands (the builds need `ws`
        // mutably).
        let source = ws.files[file].doc.text.clone();
        for (l, d) in launches {
            if let Some(p) = launch::build_parsed(ws, file, &source, &l.mapped, d) {
                note_configs(&p, &mut referenced);
                graph.pipelines.push(p);
            }
        }
    }
    let apps: Vec<(FileId, Option<crate::syntax::python::Parsed>)> = (0..ws.files.len())
        .into_par_iter()
        .filter(|&i| ws.files[i].kind == Some(Kind::PythonApp))
        .map(|i| (i, crate::syntax::python::parse(&ws.files[i].doc.text)))
        .collect();
    for (file, parsed) in apps {
        for p in python::build(ws, file, parsed) {
            note_configs(&p, &mut referenced);
            graph.pipelines.push(p);
        }
    }
    // The front ends are done following references.
    ws.drop_taken_back();
    for id in 0..ws.files.len() {
        if !referenced_ahead.get(id).copied().unwrap_or(false) && !referenced.contains(&id) {
            graph.standalone.extend(config::standalone(ws, id));
        }
    }
    // The scripts' and modules' pipelines were not visited.
    visited.resize_with(graph.pipelines.len(), || None);
    (graph, visited)
}

/// An app config's pipeline built ahead of its turn (see `build`), with
/// the files it read (its own first) and those it references.
struct Ahead {
    pipeline: crate::model::graph::Pipeline,
    read: Vec<FileId>,
    referenced: HashSet<FileId>,
}

/// `app::build` with look-ups only; `None` when the build wanted to change
/// the workspace, or the file is not a deepstream-app or test-app config.
fn build_ahead(ws: &Workspace, root: FileId) -> Option<Ahead> {
    if !matches!(ws.files[root].kind, Some(Kind::App | Kind::TestApp)) {
        return None;
    }
    let mut looked = crate::model::workspace::Looked {
        read: vec![root],
        changes: false,
    };
    let mut referenced = HashSet::new();
    let pipeline = app::build(Access::Look(ws, &mut looked), root, &mut referenced);
    (!looked.changes).then_some(Ahead {
        pipeline,
        read: looked.read,
        referenced,
    })
}

/// The config files a pipeline's elements load are checked in its context,
/// not on their own.
fn note_configs(p: &crate::model::graph::Pipeline, referenced: &mut HashSet<FileId>) {
    referenced.extend(p.elements.iter().filter_map(|e| e.config.as_ref()).map(|c| c.file));
}

/// `config_pipeline` of a deepstream-app or test-app config with look-ups
/// only, so that `fix` rebuilds the pipelines its edits touched on all
/// threads: the pipeline and the configs it references, or `None` where
/// the build would load a file or change a kind (or the root is of
/// another kind). What it returns is what `config_pipeline` builds in a
/// workspace in the same state.
pub fn config_pipeline_looking(
    ws: &Workspace,
    root: FileId,
) -> Option<(crate::model::graph::Pipeline, HashSet<FileId>)> {
    build_ahead(ws, root).map(|a| (a.pipeline, a.referenced))
}

/// The pipeline of one root config, as `build` makes it (a deepstream-app
/// or test-app config, or Service Maker's), loading the configs it
/// references (added to `referenced`): `fix` builds again the pipelines
/// its edits touched (`fix::recheck`).
pub fn config_pipeline(
    ws: &mut Workspace,
    root: FileId,
    referenced: &mut HashSet<FileId>,
) -> crate::model::graph::Pipeline {
    match ws.files[root].kind {
        Some(Kind::ServiceMaker) => service_maker::build(ws, root, referenced),
        _ => app::build(Access::Load(ws), root, referenced),
    }
}

/// Whether deepstream-app's and the test apps' readers can see a key.
/// They compare key names exactly, and none of their keys has a `_`; a key
/// spelled with one is unknown to them (DS002) and reaches no element. (A
/// GObject property name, where `_` and `-` are the same, is another
/// matter: the graph compares names that way for the front ends that set
/// GObject properties directly.)
fn readable(key: &str) -> bool {
    // (A byte search: `_` is ASCII.)
    !key.as_bytes().contains(&b'_')
}

/// Where new keys of `group` go in `file`, if the file has the group.
pub fn home(doc: &Document, file: FileId, group: &str) -> Option<Box<Home>> {
    let g = doc.last_group(group)?;
    Some(Box::new(Home::Group {
        file,
        group: group.to_string(),
        header: g.name_span.clone(),
    }))
}

pub(crate) fn setting(file: FileId, group: &Shared, e: &Entry, layer: Layer) -> Setting {
    let value = match &e.value {
        Some(v) => Value::Known(v.clone()),
        None => Value::Unknown("a list or a nested map".into()),
    };
    Setting {
        value,
        at: (file, e.spans.value()).into(),
        site: Some(Site::of(file, group, e)),
        layer,
        derived: None,
    }
}

/// The properties one group of a document sets (every occurrence of the
/// group, merged as GLib does; a repeated key's earlier lines are the
/// settings the last one overrides).
pub fn group_props(doc: &Document, file: FileId, group: &str, layer: Layer) -> Vec<Property> {
    // One copy of the group's name for all its settings.
    let name = Shared::from(group);
    // At most one property an entry: room for them at once, so that a
    // group of 100k keys is not copied again at each doubling.
    let (entries, read) = doc.entries_read_counted(group);
    by_name_within(
        read.filter(|e| readable(&e.key))
            .map(|e| (e.key.clone(), setting(file, &name, e, layer))),
        entries,
    )
}

/// Settings gathered into properties by name, in first-seen order (a
/// repeated name's earlier settings are the ones its last overrides); by
/// hash, so that 100k keys stay linear.
pub fn by_name(settings: impl Iterator<Item = (Shared, Setting)>) -> Vec<Property> {
    let (lower, upper) = settings.size_hint();
    by_name_within(settings, upper.unwrap_or(lower))
}

/// Up to this many settings are gathered without a hash table.
const FEW_NAMES: usize = 8;

/// `by_name` of at most `most` settings (room is made for them first).
fn by_name_within(settings: impl Iterator<Item = (Shared, Setting)>, most: usize) -> Vec<Property> {
    let mut props: Vec<Property> = Vec::with_capacity(most);
    // A few names (most groups) are compared in turn: a table each was a
    // fifth of building an 8 MiB config's 100k small groups.
    if most <= FEW_NAMES {
        for (name, s) in settings {
            match props.iter_mut().find(|p| p.name == name) {
                Some(p) => p.settings.push(s),
                None => props.push(Property {
                    name,
                    settings: smallvec::smallvec![s],
                }),
            }
        }
        props.shrink_to_fit();
        return props;
    }
    let mut index = NameIndex {
        table: hashbrown::HashTable::with_capacity(most),
        ..NameIndex::default()
    };
    for (name, s) in settings {
        match index.find(&props, &name) {
            Some(i) => props[i].settings.push(s),
            None => {
                props.push(Property {
                    name,
                    settings: smallvec::smallvec![s],
                });
                index.point(&props, props.len() - 1);
            }
        }
    }
    // Held to the end of the run: no doubling slack.
    props.shrink_to_fit();
    props
}

/// Properties by name: positions in a list of properties, hashed by the
/// names the list holds (no copy of each name).
#[derive(Default)]
struct NameIndex {
    table: hashbrown::HashTable<usize>,
    hasher: foldhash::fast::RandomState,
}

impl NameIndex {
    fn find(&self, props: &[Property], name: &str) -> Option<usize> {
        let h = std::hash::BuildHasher::hash_one(&self.hasher, name);
        self.table.find(h, |&i| props[i].name == name).copied()
    }

    /// Point the name of `props[at]` at `at` (a name already indexed
    /// moves to the later position).
    fn point(&mut self, props: &[Property], at: usize) {
        let hasher = &self.hasher;
        let name = props[at].name.as_str();
        let h = std::hash::BuildHasher::hash_one(hasher, name);
        match self.table.find_mut(h, |&i| props[i].name == name) {
            Some(slot) => *slot = at,
            None => {
                self.table.insert_unique(h, at, |&i| {
                    std::hash::BuildHasher::hash_one(hasher, props[i].name.as_str())
                });
            }
        }
    }
}

/// Lay `upper` over `lower`: a property both set keeps the lower settings
/// first (they are what the upper ones override).
pub fn overlay(lower: &mut Vec<Property>, upper: Vec<Property>) {
    // By name, so that a config of 100k keys stays linear.
    let mut index = NameIndex::default();
    for i in 0..lower.len() {
        index.point(lower, i);
    }
    for p in upper {
        match index.find(lower, &p.name) {
            Some(i) => {
                let l = &mut lower[i];
                l.name = p.name;
                // Exactly: a vector of one setting grown by one takes room
                // for four, held to the end of the run (a fifth of the
                // graph's memory at 10k files).
                l.settings.reserve_exact(p.settings.len());
                l.settings.extend(p.settings);
            }
            None => {
                lower.push(p);
                index.point(lower, lower.len() - 1);
            }
        }
    }
    // Held to the end of the run: no doubling slack.
    lower.shrink_to_fit();
}

/// The winning entry's value of `group`/`key`.
fn value<'d>(doc: &'d Document, group: &str, key: &str) -> Option<&'d str> {
    doc.get(group, key).and_then(|e| e.value.as_deref())
}

fn int(doc: &Document, group: &str, key: &str) -> Option<i64> {
    value(doc, group, key).and_then(crate::syntax::glib::parse_int)
}

/// GStreamer sink factories (DS603 judges them), one table for every front
/// end that names factories (gst-launch, Python, Service Maker): an element
/// is a sink by what it is, whatever format names it. Includes Service
/// Maker's own sink bins (`nvrtspoutsinkbin`, `nvvideoencfilesinkbin`),
/// which gst-launch can name too.
pub const SINK_FACTORIES: &[&str] = &[
    "fakesink",
    "filesink",
    "nveglglessink",
    "nv3dsink",
    "nvoverlaysink",
    "nvdrmvideosink",
    "xvimagesink",
    "ximagesink",
    "autovideosink",
    "glimagesink",
    "waylandsink",
    "kmssink",
    "udpsink",
    "rtspclientsink",
    "appsink",
    "splitmuxsink",
    "multifilesink",
    "hlssink",
    "hlssink2",
    "nvrtspoutsinkbin",
    "nvvideoencfilesinkbin",
];

/// The role of a factory whose role its name alone decides (shared by the
/// front ends that name GStreamer factories: gst-launch, Python, Service
/// Maker); `None` for sinks, sources and other factories, which each front
/// end judges with what it knows.
pub fn factory_role(factory: &str, stage: Stage) -> Option<Role> {
    Some(match factory {
        "nvstreammux" => Role::Streammux,
        "nvdspreprocess" => Role::Preprocess,
        "nvinfer" => Role::Infer(stage),
        "nvinferserver" => Role::InferServer(stage),
        "nvtracker" => Role::Tracker,
        "nvdsanalytics" => Role::Analytics,
        "queue" => Role::Queue,
        "tee" => Role::Tee,
        "nvdsosd" | "nvosdbin" => Role::Osd,
        "nvmultistreamtiler" => Role::Tiler,
        "nvdsmetamux" => Role::MetaMux,
        "nvmsgconv" => Role::MsgConv,
        "nvmsgbroker" => Role::MsgBroker,
        _ => return None,
    })
}
