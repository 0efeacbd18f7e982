//! The sweep's configs: for a batch B, a copy of the deepstream-app config
//! (and of the primary nvinfer config) with B sources, streammux and primary
//! batch-size B, the engine name for B, and the bench output branch (R6) and
//! file loop — made with the fix engine, so the same surgical edits apply.
//! Copies are written beside the originals (relative paths keep resolving)
//! as `.dslint-sweep-bB.NAME`.
//!
//! `measure decode` runs a decode-only variant of the app config,
//! `.dslint-decode-sN.NAME`: its sources as configured (N streams, file
//! sources looped), inference (primary, secondaries, preprocess) and the
//! tracker disabled, and the bench output branch (OSD and tiler off, one
//! fakesink with sync=0, other sinks off, `**PERF` lines on). Nothing else
//! changes; referenced configs are not copied (a disabled element's config
//! is not read).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::base::edit::Edit;
use crate::files::write::create_under_root;
use crate::fix::apply::apply_to_string;
use crate::fix::engine::{self, FixOptions};
use crate::model::facts::{Facts, Sweep, Workload};
use crate::model::frontend;
use crate::model::graph::Role;
use crate::model::workspace::{Workspace, canonical};
use crate::rules::context::Profile;
use crate::syntax::glib;

fn variant_path(path: &Path, batch: u32) -> PathBuf {
    named_variant(path, &format!("sweep-b{batch}"))
}

fn named_variant(path: &Path, tag: &str) -> PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("config");
    path.with_file_name(format!(".dslint-{tag}.{name}"))
}

/// Edits that make the pipeline read B streams: a multi-URI source's
/// `num-sources`, or the `[source-list]` URIs repeated.
fn source_edits(ws: &mut Workspace, root: usize, batch: u32) -> Vec<Edit> {
    let graph = frontend::build(ws);
    let Some(p) = graph.pipelines.into_iter().find(|p| p.root == root) else {
        return vec![];
    };
    let list = p.sources().find(|s| s.name == "source-list");
    if let Some(list) = list.and_then(|l| l.str("list")) {
        let first = glib::split_list(list.value)
            .unwrap_or_default()
            .into_iter()
            .map(|s| s.trim().to_string())
            .find(|s| !s.is_empty());
        if let (Some(site), Some(first)) = (list.site(), first) {
            let list = vec![first; batch as usize].join(";");
            return vec![ws.set_value(site, &list)];
        }
    }
    let multi = p.sources().find(|s| s.int("type").is_some_and(|t| t.value == 3));
    if let Some(s) = multi {
        return ws
            .set_or_insert(s, "num-sources", &batch.to_string())
            .into_iter()
            .collect();
    }
    vec![]
}

/// In the app config's text, point the config keys that name `from` at
/// `to` (same folder): only the file-name part of the value changes.
fn repoint(ws: &Workspace, root: usize, app_text: &str, from: &Path, to: &Path) -> String {
    let format = ws.files[root].doc.format;
    let doc = crate::syntax::Document::parse(app_text.to_string(), format);
    let (Some(name), Some(new_name)) = (
        from.file_name().and_then(|n| n.to_str()),
        to.file_name().and_then(|n| n.to_str()),
    ) else {
        return app_text.to_string();
    };
    let mut edits = Vec::new();
    for e in doc.groups.iter().flat_map(|g| &g.entries) {
        if !["config-file", "config-file-path"].contains(&e.key.as_str()) {
            continue;
        }
        let Some(v) = e.value.as_deref() else { continue };
        let resolves = ws.resolve(root, v).is_some_and(|t| match t {
            crate::model::workspace::Target::Exists(p) => canonical(&p) == canonical(from),
            _ => false,
        });
        let raw = &app_text[e.value_span()];
        if let (true, Some(at)) = (resolves, raw.rfind(name)) {
            let start = e.value_span().start + at;
            edits.push(Edit {
                file: 0,
                range: start..start + name.len(),
                text: new_name.to_string(),
            });
        }
    }
    apply_to_string(app_text, &edits)
}

/// Each batch of the sweep runs its own engine: the primary's
/// `model-engine-file`, when it follows nvinfer's
/// `<model>_b<B>_gpu<G>_<precision>.engine`, is named for B (built at the
/// first run of that batch). DS207 renames only an engine nvinfer cannot
/// use; a larger engine that exists would serve B, but would measure
/// another engine.
fn name_engine_for_batch(
    paths: &[PathBuf],
    project: Option<crate::files::root::ProjectRoot>,
    texts: &mut Vec<(PathBuf, String)>,
    root: usize,
    batch: u32,
) {
    let overlay = texts.iter().map(|(p, t)| (canonical(p), t.clone())).collect();
    let mut ws = Workspace::load_in(paths, project, overlay);
    let graph = frontend::build(&mut ws);
    let Some(p) = graph.pipelines.iter().find(|p| p.root == root) else {
        return;
    };
    let Some(engine) = p.primary().and_then(|g| g.str("model-engine-file")) else {
        return;
    };
    let Some(site) = engine.site() else { return };
    let value = engine.value.trim_end();
    let base = &value[value.rfind('/').map_or(0, |i| i + 1)..];
    let Some((model_len, b, _, _)) = crate::rules::nvinfer::parse_engine_name(base) else {
        return;
    };
    if b == batch {
        return;
    }
    // `parse_engine_name` found `_gpu` after `<model>_b<B>`.
    let Some(gpu_at) = base[model_len..].rfind("_gpu") else {
        return;
    };
    let renamed = format!("{}_b{batch}{}", &base[..model_len], &base[model_len + gpu_at..]);
    let text = &ws.files[site.file].doc.text;
    let Some(at) = text[site.value_span()].rfind(base) else {
        return;
    };
    let start = site.value_span().start + at;
    let edit = Edit {
        file: 0,
        range: start..start + base.len(),
        text: renamed,
    };
    let new = apply_to_string(text, &[edit]);
    let path = ws.files[site.file].path.clone();
    match texts.iter_mut().find(|(p, _)| canonical(p) == canonical(&path)) {
        Some((_, t)) => *t = new,
        None => texts.push((path, new)),
    }
}

/// Write the variant configs for batch B; the app config's copy comes first.
pub fn write_sweep_variant(config: &Path, batch: u32) -> Result<Vec<PathBuf>, String> {
    let paths = vec![config.to_path_buf()];
    let mut ws = Workspace::load(&paths);
    let root = ws
        .get(config)
        .ok_or_else(|| format!("{}: not a DeepStream config dslint reads", config.display()))?;
    let mut start = HashMap::new();
    let edits = source_edits(&mut ws, root, batch);
    if !edits.is_empty() {
        start.insert(canonical(config), apply_to_string(&ws.files[root].doc.text, &edits));
    }
    let facts = Facts {
        workload: Some(Workload {
            n_streams: Some(batch),
            ..Workload::default()
        }),
        sweep: Some(Sweep {
            plateau_batch: Some(batch),
            ..Sweep::default()
        }),
        ..Facts::new()
    };
    let opts = FixOptions {
        facts: Some(&facts),
        profile: Profile::Bench,
        unsafe_fixes: false,
        selection: crate::rules::Settings {
            select: [
                "DS101", "DS201", "DS207", "DS303", "DS601", "DS602", "DS603", "DS604", "DS701",
            ]
            .map(String::from)
            .to_vec(),
            whole_pipelines: true,
            ..Default::default()
        },
        root: None,
        fix_related: true,
    };
    let outcome = engine::run_with(&paths, &opts, start.clone());
    // Every file that differs from the original, edited or not by the engine.
    let mut texts: Vec<(PathBuf, String)> = outcome.changed.into_iter().map(|(p, (_, new))| (p, new)).collect();
    for (key, text) in start {
        if !texts.iter().any(|(p, _)| canonical(p) == key) {
            texts.push((config.to_path_buf(), text));
        }
    }
    name_engine_for_batch(&paths, ws.root.clone(), &mut texts, root, batch);
    let is_root = |p: &Path| canonical(p) == canonical(config);
    let mut app_text = match texts.iter().find(|(p, _)| is_root(p)) {
        Some((_, t)) => t.clone(),
        None => ws.files[root].doc.text.clone(),
    };
    // Copies are created under the project root only, as new files renamed
    // into place: a name planted in advance is replaced, never followed.
    let project = ws
        .root
        .clone()
        .ok_or_else(|| format!("{}: no project root", config.display()))?;
    let mut written = Vec::new();
    for (path, text) in texts.iter().filter(|(p, _)| !is_root(p)) {
        let copy = variant_path(path, batch);
        create_under_root(&project, &copy, text.as_bytes(), 0o644)?;
        app_text = repoint(&ws, root, &app_text, path, &copy);
        written.push(copy);
    }
    let app_copy = variant_path(config, batch);
    create_under_root(&project, &app_copy, app_text.as_bytes(), 0o644)?;
    written.insert(0, app_copy);
    Ok(written)
}

/// The output-branch codes of the bench profile: OSD and tiler off (DS601,
/// DS602), one fakesink with sync=0 and the other sinks off (DS603),
/// `**PERF` lines on (DS604), file sources looped (DS303).
const DECODE_ONLY_CODES: &[&str] = &["DS303", "DS601", "DS602", "DS603", "DS604"];

/// The text of the decode-only variant of `config` for `streams` streams.
pub fn decode_variant_text(config: &Path, streams: u32) -> Result<String, String> {
    let paths = vec![config.to_path_buf()];
    let mut ws = Workspace::load(&paths);
    let root = ws
        .get(config)
        .ok_or_else(|| format!("{}: not a DeepStream config dslint reads", config.display()))?;
    let mut edits = source_edits(&mut ws, root, streams);
    let graph = frontend::build(&mut ws);
    let p = graph
        .pipelines
        .into_iter()
        .find(|p| p.root == root)
        .ok_or_else(|| format!("{}: not a deepstream-app config", config.display()))?;
    // Inference and the tracker: their groups in the app config.
    let off = p
        .elements
        .iter()
        .filter(|e| matches!(e.role, Role::Infer(_) | Role::Preprocess | Role::Tracker));
    for e in off {
        let Some(group) = e.declared.as_ref().filter(|h| h.file() == root) else {
            continue;
        };
        if e.int("enable").map(|v| v.value) != Some(0) {
            edits.extend(ws.set_or_insert_at(e, group, "enable", "0"));
        }
    }
    let mut start = HashMap::new();
    start.insert(canonical(config), apply_to_string(&ws.files[root].doc.text, &edits));
    let opts = FixOptions {
        facts: None,
        profile: Profile::Bench,
        unsafe_fixes: false,
        selection: crate::rules::Settings {
            select: DECODE_ONLY_CODES.iter().map(|c| c.to_string()).collect(),
            whole_pipelines: true,
            ..Default::default()
        },
        root: None,
        fix_related: true,
    };
    let outcome = engine::run_with(&paths, &opts, start.clone());
    let text = outcome
        .changed
        .into_iter()
        .find(|(p, _)| canonical(p) == canonical(config))
        .map(|(_, (_, new))| new)
        .or_else(|| start.remove(&canonical(config)))
        .unwrap_or_default();
    Ok(text)
}

/// Write the decode-only variant beside `config`; its path.
pub fn write_decode_variant(config: &Path, streams: u32) -> Result<PathBuf, String> {
    let text = decode_variant_text(config, streams)?;
    let path = named_variant(config, &format!("decode-s{streams}"));
    // Under the config's project root, as a new file renamed into place.
    let project = crate::files::root::ProjectRoot::for_paths(&[config.to_path_buf()], None)
        .map_err(|e| format!("{}: {e}", config.display()))?;
    create_under_root(&project, &path, text.as_bytes(), 0o644)?;
    Ok(path)
}
