//! deepstream-parallel-infer's main YAML (NVIDIA-AI-IOT/
//! deepstream_parallel_inference_app, `deepstream_parallel_infer_config_parser.cpp`
//! `parse_config_file_yaml`, and `deepstream_parallel_infer_app.cpp`
//! `create_parallel_infer_bin`).
//!
//! The app reads deepstream-app's groups with deepstream-app's own YAML
//! parsers (`parse_streammux_yaml`, `parse_gie_yaml`, `parse_sink_yaml`, …)
//! and adds its own. It matches top-level keys in this order: `source`
//! (exactly: one source per enabled CSV row of `csv-file-path`),
//! `streammux`, `osd`, then by prefix `primary-gie*` and `video-template*`
//! (each takes the next primary slot when `enable` is on), `meta-mux`,
//! `branch*` (every one counts, on or not),
//! `tracker*`, `secondary-gie*`, `sink*`, `tiled-display` exactly and
//! `nvds-analytics*`. Its `tracker*` and `secondary-gie*`
//! name fragment YAMLs (`cfg-file-path`) its own parsers read
//! (deepstream-app's `parse_tracker_yaml` on the fragment's `tracker:`,
//! `parse_sgie_yaml` on each of its maps); `nvds-analytics*`'s names
//! nvdsanalytics' own key-file. They are read here as the app reads them
//! (`slot_elements`), so the tracker, nvinfer and nvdsanalytics rules apply.
//!
//! The pipeline: sources → nvstreammux → a tee; then for each enabled
//! primary `i` the `i`-th branch (an nvstreammux fed the streams its
//! `src-ids` picks, batch-size = their count) → the primary → its tracker,
//! analytics and secondaries → nvdsmetamux → tiler → OSD → sinks.

use std::collections::HashSet;

use rayon::prelude::*;

use crate::base::FileId;
use crate::model::detect::Kind;
use crate::model::frontend::app::{Reader, collect_path_references, group_names};
use crate::model::frontend::config::config_file;
use crate::model::graph::{Element, Link, Pipeline, PrimaryBatch, Role, Source, SourceKind, Stage, Value};
use crate::model::workspace::{Access, Target, Workspace};
use crate::syntax::glib;

/// Whether `parse_config_file_yaml` looks `group`/`key` up directly
/// (`configyml[paramKey]["src-ids"]`), where yaml-cpp returns the first
/// copy of a repeated key; the other groups' parsers (`parse_gie_yaml`,
/// `parse_streammux_yaml`, …) iterate the map, and the last copy wins.
pub fn looked_up_directly(group: &str, key: &str) -> bool {
    match key {
        "csv-file-path" => group == "source",
        "pgie-id" | "src-ids" => group.starts_with("branch"),
        "enable" | "cfg-file-path" => ["tracker", "secondary-gie", "nvds-analytics"]
            .iter()
            .any(|p| group.starts_with(p)),
        _ => false,
    }
}

/// Whether a group the app counts by its place (a branch, primary, video
/// template, tracker, secondary or analytics slot) is written twice at the
/// top level: the app counts each copy (each reading the first map), which
/// dslint does not model, so the branches' pairing is left unknown.
pub fn counted_group_repeated(ws: &Workspace, root: FileId) -> bool {
    let doc = &ws.files[root].doc;
    doc.groups.iter().any(|g| {
        [
            "branch",
            "primary-gie",
            "video-template",
            "tracker",
            "secondary-gie",
            "nvds-analytics",
        ]
        .iter()
        .any(|p| g.name.starts_with(p))
            && doc.unread_repeat_of(g).is_some()
    })
}

/// The pipeline a deepstream-parallel-infer config describes.
pub fn build(ws: &mut Workspace, root: FileId, referenced: &mut HashSet<FileId>) -> Pipeline {
    let names = group_names(ws, root);
    let pairing_known = !counted_group_repeated(ws, root);
    let mut r = Reader {
        ws: Access::Load(ws),
        root,
        kind: Kind::ParallelApp,
        referenced,
    };
    let mut sources = Vec::new();
    let mut streammux = None;
    let mut primaries = Vec::new();
    let mut metamux = None;
    let mut tiler = None;
    let mut osd = None;
    let mut others = Vec::new();
    let mut slots = Slots::default();
    // The app's structs start at zero: a group is on only when its
    // `enable` says so. Read on all threads (they only read the file), as
    // the branches' and sinks' elements are made after the walk: an 8 MiB
    // config is 100k of them.
    let on: Vec<bool> = names
        .par_iter()
        .with_min_len(64)
        .map(|n| r.str(n, "enable").and_then(glib::parse_int).is_some_and(|v| v != 0))
        .collect();
    let mut branch_groups = Vec::new();
    let mut sink_groups = Vec::new();
    for (name, on) in names.iter().zip(on) {
        let name = name.as_str();
        match name {
            "application" => others.push(r.element(Role::Application, name)),
            "tests" => others.push(r.element(Role::Tests, name)),
            "source" => sources.push(csv_source(&r, name)),
            "streammux" => streammux = Some(r.streammux(name)),
            "osd" if on => osd = Some(r.element(Role::Osd, name)),
            "tiled-display" if on => tiler = Some(r.element(Role::Tiler, name)),
            // `create_parallel_infer_bin` makes the nvdsmetamux and gives
            // it `config-file` whatever `enable` says (`parse_metamux_yaml`
            // reads both keys; nothing reads `enable` after).
            "meta-mux" => metamux = Some(name),
            n if n.starts_with("primary-gie") && on => primaries.push((n.to_string(), true)),
            // An enabled video template takes a primary's place (and its
            // branch) in the app's count.
            n if n.starts_with("video-template") && on => primaries.push((n.to_string(), false)),
            n if n.starts_with("branch") => branch_groups.push(n),
            // Counted only with a `cfg-file-path` (`num_tracker_sub_bins`,
            // `num_secondary_gie_sub_bins`); every `nvds-analytics*` counts.
            n if n.starts_with("tracker") && r.str(n, "cfg-file-path").is_some() => {
                slots.trackers.push((n.to_string(), on))
            }
            n if n.starts_with("secondary-gie") && r.str(n, "cfg-file-path").is_some() => {
                slots.secondaries.push((n.to_string(), on))
            }
            n if n.starts_with("sink") && on => sink_groups.push(n),
            n if n.starts_with("nvds-analytics") => slots.analytics.push((n.to_string(), on)),
            _ => {}
        }
    }
    let branches: Vec<Element> = branch_groups
        .par_iter()
        .with_min_len(64)
        .map(|n| {
            let mut b = r.element(Role::Branch, n);
            b.factory = Some("nvstreammux".into());
            if !pairing_known {
                for p in b
                    .props
                    .iter_mut()
                    .filter(|p| p.name == "pgie-id" || p.name == "src-ids")
                {
                    for s in &mut p.settings {
                        s.value = Value::Unknown("a counted group is repeated at the top level".into());
                    }
                }
            }
            b
        })
        .collect();
    let sinks: Vec<Element> = sink_groups
        .par_iter()
        .with_min_len(64)
        .map(|n| r.element(Role::Sink, n))
        .collect();
    let metamux = metamux.map(|name| {
        let mut m = r.element(Role::MetaMux, name);
        m.factory = Some("nvdsmetamux".into());
        m.config = r
            .follow(name, &["config-file"], Some(Kind::MetaMux))
            .map(|c| config_file(&r.ws, c));
        m
    });
    // The app reads every tracker and secondary fragment, on or not
    // (`parse_tracker_yaml`, `parse_sgie_yaml`): each is its fragment.
    let fragment = |r: &mut Reader, group: &str| r.follow(group, &["cfg-file-path"], Some(Kind::ParallelFragment));
    let trackers: Vec<Option<FileId>> = slots.trackers.iter().map(|(g, _)| fragment(&mut r, g)).collect();
    let secondaries: Vec<Option<FileId>> = slots.secondaries.iter().map(|(g, _)| fragment(&mut r, g)).collect();
    let mut fragments_read = Vec::new();
    let chains: Vec<Vec<Element>> = primaries
        .iter()
        .enumerate()
        .map(|(i, (g, infer))| {
            let head = if *infer {
                r.infer(g, Stage::Primary)
            } else {
                let mut t = r.element(Role::Other("nvdsvideotemplate".into()), g);
                t.factory = Some("nvdsvideotemplate".into());
                t
            };
            let mut chain = vec![head];
            chain.extend(slot_elements(
                &mut r,
                &slots,
                i,
                &trackers,
                &secondaries,
                &mut fragments_read,
            ));
            chain
        })
        .collect();
    // The files of a group switched off with `enable: 0` are never opened
    // (its element is not built).
    let mut references = Vec::new();
    collect_path_references(&r.ws, root, Some(Kind::ParallelApp), &mut references);
    for &f in &fragments_read {
        collect_path_references(&r.ws, f, Some(Kind::ParallelApp), &mut references);
    }
    for gie in chains.iter().flatten().filter(|e| e.role.is_inference()) {
        if let Some(c) = &gie.config {
            collect_path_references(&r.ws, c.file, None, &mut references);
        }
    }
    let (elements, links) = in_order(Parts {
        sources,
        streammux,
        chains,
        branches,
        metamux,
        tail: tiler.into_iter().chain(osd).collect(),
        sinks,
        others,
    });
    Pipeline {
        root,
        elements,
        links,
        references,
        primary_batch: PrimaryBatch::Unread,
        partial: false,
    }
}

/// `source: csv-file-path:`: `parse_config_file_yaml` makes one source per
/// CSV row after the header (`parse_source_yaml`) and counts it only when
/// its `enable` is on; at its end a `type` 3 row expands to `num-sources`
/// streams (at least 1). The count is known only when every row says
/// `enable` (and a type 3 row `num-sources`) as an integer and no
/// `camera-id` column renumbers the streams (otherwise unknown: rules stay
/// silent).
fn csv_source(r: &Reader, group: &str) -> Element {
    let csv = r.str(group, "csv-file-path").map(str::to_string);
    let text = csv.and_then(|c| match r.ws.resolve(r.root, &c) {
        Some(Target::Exists(p)) => crate::files::read::read_text(&p, crate::files::read::MAX_FILE_BYTES).ok(),
        _ => None,
    });
    let streams = text.as_deref().and_then(csv_streams);
    r.element(
        Role::Source(Source {
            kind: SourceKind::Other,
            streams,
        }),
        group,
    )
}

/// The enabled sources of the app's CSV (see [`csv_source`]); the app
/// splits lines at every `,` (`split_csv_entries`).
fn csv_streams(text: &str) -> Option<u32> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next()?.split(',').map(str::trim).collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let enable = col("enable")?;
    // A `camera-id` may renumber the streams: which ids exist is unknown.
    if col("camera-id").is_some() {
        return None;
    }
    let ty = col("type");
    let num = col("num-sources");
    let mut n: u32 = 0;
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let on: i64 = cells.get(enable)?.parse().ok()?;
        if on == 0 {
            continue;
        }
        let streams = if ty.and_then(|t| cells.get(t)).is_some_and(|t| *t == "3") {
            let k: i64 = cells.get(num?)?.parse().ok()?;
            u32::try_from(k.max(1)).ok()?
        } else {
            1
        };
        n = n.checked_add(streams)?;
    }
    Some(n)
}

/// The app's per-primary groups, in the file's order: the `i`-th of each
/// list belongs to the `i`-th primary slot (`create_parallel_infer_bin`
/// indexes `tracker_config[i]`, `dsanalytics_config[i]` and
/// `secondary_gie_sub_bin_config[i]` by the slot), with whether its main
/// group's `enable` is on.
#[derive(Default)]
struct Slots {
    trackers: Vec<(String, bool)>,
    secondaries: Vec<(String, bool)>,
    analytics: Vec<(String, bool)>,
}

/// What `create_parallel_infer_bin` puts behind the `i`-th primary, in data
/// order: the tracker (when its main group is on), nvdsanalytics (only
/// when the tracker is on too), then the secondaries of the `i`-th
/// `secondary-gie*` fragment. `fragments_read`: the fragments whose
/// elements are built (their paths are checked, DS704).
fn slot_elements(
    r: &mut Reader,
    slots: &Slots,
    i: usize,
    trackers: &[Option<FileId>],
    secondaries: &[Option<FileId>],
    fragments_read: &mut Vec<FileId>,
) -> Vec<Element> {
    let mut out = Vec::new();
    let tracker_on = slots.trackers.get(i).is_some_and(|(_, on)| *on);
    if let (true, Some(&Some(frag))) = (tracker_on, trackers.get(i)) {
        // deepstream-app's `parse_tracker_yaml` reads the fragment's
        // `tracker:` map; its `ll-config-file` is relative to the fragment.
        let mut f = fragment_reader(r, frag);
        if f.ws.files[frag].doc.has_group("tracker") {
            let mut t = f.element(Role::Tracker, "tracker");
            t.name = slots.trackers[i].0.clone();
            t.factory = Some("nvtracker".into());
            t.config = f
                .follow("tracker", &["ll-config-file"], Some(Kind::TrackerLowLevel))
                .map(|c| config_file(&f.ws, c));
            out.push(t);
            fragments_read.push(frag);
        }
    }
    if let (true, Some((group, true))) = (tracker_on, slots.analytics.get(i)) {
        // `dsanalytics_config[i].config_file_path`: nvdsanalytics' own
        // key-file, which the plugin reads (`create_dsanalytics_bin`).
        let mut a = r.element(Role::Analytics, group);
        a.factory = Some("nvdsanalytics".into());
        a.config = r
            .follow(group, &["cfg-file-path"], Some(Kind::Analytics))
            .map(|c| config_file(&r.ws, c));
        out.push(a);
    }
    if let (Some((_, true)), Some(&Some(frag))) = (slots.secondaries.get(i), secondaries.get(i)) {
        let mut f = fragment_reader(r, frag);
        out.extend(fragment_secondaries(&mut f));
        fragments_read.push(frag);
    }
    out
}

/// A reader of a fragment file (paths in it are relative to it).
fn fragment_reader<'a>(r: &'a mut Reader, frag: FileId) -> Reader<'a> {
    Reader {
        ws: r.ws.reborrow(),
        root: frag,
        kind: Kind::ParallelApp,
        referenced: &mut *r.referenced,
    }
}

/// The secondaries of a `secondary-gie*` fragment, as `parse_sgie_yaml`
/// reads it: each top-level map in order through deepstream-app's
/// `parse_gie_yaml` into the current slot, which moves on only after a map
/// whose `enable` is on. A map with `enable` off is skipped untouched; a
/// map without an integer `enable` is parsed into the slot but not counted,
/// so the next map inherits its keys: from there on, what each element gets
/// is not modelled (nothing more is built).
fn fragment_secondaries(f: &mut Reader) -> Vec<Element> {
    let mut out = Vec::new();
    for g in group_names(&f.ws, f.root) {
        match f.str(&g, "enable").and_then(glib::parse_int) {
            Some(0) => continue,
            Some(_) => out.push(f.infer(&g, Stage::Secondary)),
            None => break,
        }
    }
    out
}

struct Parts {
    sources: Vec<Element>,
    streammux: Option<Element>,
    /// Per enabled primary slot, its elements in data order (the primary
    /// or video template first).
    chains: Vec<Vec<Element>>,
    branches: Vec<Element>,
    metamux: Option<Element>,
    /// Tiler and OSD, in that order.
    tail: Vec<Element>,
    sinks: Vec<Element>,
    others: Vec<Element>,
}

/// Elements in the app's order, linked as `create_parallel_infer_bin` links
/// them: the `i`-th branch feeds the `i`-th primary slot (an enabled
/// primary or video template, then its tracker, analytics and
/// secondaries), and every slot's last element feeds the metamux. A branch without a primary is never built
/// (the app loops over the primaries): it stays unlinked.
fn in_order(parts: Parts) -> (Vec<Element>, Vec<Link>) {
    // Sized once (an element is ~350 bytes: a vector grown by doubling
    // copied 100k branches again and again). At most 2 single elements
    // (streammux, metamux).
    let many = parts.sources.len()
        + parts.chains.iter().map(Vec::len).sum::<usize>()
        + parts.branches.len()
        + parts.tail.len()
        + parts.sinks.len()
        + parts.others.len();
    let mut elements = Vec::with_capacity(many + 2);
    let mut links = Vec::new();
    let mut push = |e: Element, from: &[usize], elements: &mut Vec<Element>| {
        let id = elements.len();
        elements.push(e);
        links.extend(from.iter().map(|&from| Link { from, to: id }));
        id
    };
    let mut last: Vec<usize> = Vec::new();
    for s in parts.sources {
        last.push(push(s, &[], &mut elements));
    }
    if let Some(m) = parts.streammux {
        last = vec![push(m, &last, &mut elements)];
    }
    let mut branches = parts.branches.into_iter();
    let mut outs = Vec::new();
    for chain in parts.chains {
        let mut from = match branches.next() {
            Some(b) => vec![push(b, &last, &mut elements)],
            None => last.clone(),
        };
        for e in chain {
            from = vec![push(e, &from, &mut elements)];
        }
        outs.extend(from);
    }
    for b in branches {
        push(b, &[], &mut elements);
    }
    if !outs.is_empty() {
        last = outs;
    }
    if let Some(m) = parts.metamux {
        last = vec![push(m, &last, &mut elements)];
    }
    for e in parts.tail {
        last = vec![push(e, &last, &mut elements)];
    }
    for s in parts.sinks {
        push(s, &last, &mut elements);
    }
    for o in parts.others {
        push(o, &[], &mut elements);
    }
    (elements, links)
}

#[cfg(test)]
mod tests {
    use super::csv_streams;

    #[test]
    fn csv_sources_count_only_when_every_row_is_known() {
        assert_eq!(csv_streams("enable,type,uri\n1,3,a\n"), None);
        assert_eq!(csv_streams("enable,type,uri,num-sources\n1,3,a,4\n1,2,b,9\n"), Some(5));
        assert_eq!(csv_streams("enable,type,uri,num-sources\n1,3,a,0\n0,3,b,x\n"), Some(1));
        assert_eq!(csv_streams("enable,type,uri,num-sources\n1,3,a,x\n"), None);
        assert_eq!(csv_streams("enable,type,camera-id\n1,2,5\n"), None);
        assert_eq!(csv_streams("enable,type,uri\n1,2,a\n0,2,b\n\n1,2,c\n"), Some(2));
        assert_eq!(csv_streams("type,uri\n2,a\n"), None);
        assert_eq!(csv_streams("enable,type,uri\nyes,2,a\n"), None);
        assert_eq!(csv_streams("enable,type\n"), Some(0));
        assert_eq!(csv_streams(""), None);
    }
}
