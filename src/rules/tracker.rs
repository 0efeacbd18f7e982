//! R4: nvtracker (DS401–DS404).

use crate::base::FileId;
use crate::base::diagnostic::Diagnostic;
use crate::base::edit::Fix;
use crate::base::rule::Rule;
use crate::model::detect::Kind;
use crate::model::graph::{Element, Home};
use crate::model::workspace::{Target, Workspace};
use crate::rules::context::{Ctx, site};
use crate::syntax::Format;

pub const MAX_PERF_PRESET: &str = "config_tracker_NvDCF_max_perf.yml";

/// Whether the tracker's low-level config is a MaskTracker's, which segments
/// its targets (SAM2 or NanoSAM: `nvmultiobjecttracker` `ISegmenter.hpp`,
/// `SEGMENTER_TYPES`): the config dslint read has a `Segmenter` section, or
/// the file it names is NVIDIA's `config_tracker_MaskTracker.yml` (often
/// outside the tree, under `/opt/nvidia/deepstream`).
fn segments(ctx: &Ctx, t: &Element) -> bool {
    let named = t.str("ll-config-file").is_some_and(|v| {
        v.value
            .rsplit('/')
            .next()
            .unwrap_or("")
            .to_ascii_lowercase()
            .contains("masktracker")
    });
    let read = low_level(ctx.ws, t).is_some_and(|f| ctx.ws.files[f].doc.groups.iter().any(|g| g.name == "Segmenter"));
    named || read
}

/// Whether the tracker projects its targets to 3D with per-camera
/// calibration (NvMultiObjectTracker's single- and multi-view 3D tracking):
/// the config dslint read has an `ObjectModelProjection` section (its
/// `cameraModelFilepath` names each stream's camera matrix), or the file it
/// names is NVIDIA's 3D preset (`config_tracker_NvDCF_accuracy_3D.yml`,
/// often outside the tree). The calibration is in the video's pixels:
/// NVIDIA's `deepstream-tracker-3d` README has streammux `width`/`height`
/// and `tracker-width`/`tracker-height` set to the video's resolution, so
/// neither is a size to tune down, and no 2D preset replaces this one.
pub fn projects_3d(ctx: &Ctx, t: &Element) -> bool {
    let named = t.str("ll-config-file").is_some_and(|v| {
        let base = v.value.rsplit('/').next().unwrap_or("").trim().to_ascii_lowercase();
        base.ends_with("_3d.yml") || base.ends_with("_3d.yaml")
    });
    let read = low_level(ctx.ws, t).is_some_and(|f| {
        ctx.ws.files[f]
            .doc
            .groups
            .iter()
            .any(|g| g.name == "ObjectModelProjection")
    });
    named || read
}

/// Check a tracker (an app's `[tracker]`, or a tracker key-file's).
pub fn check(ctx: &Ctx, at: &Element, out: &mut Vec<Diagnostic>) {
    let ws = ctx.ws;
    // DS401: batch processing on. Only DeepStream 6.0–6.2 read the key
    // (`parse_tracker` has no such branch from 6.3 on, and nvtracker no such
    // property): the finding needs the project to say it runs one of them;
    // otherwise DS002's "removed in DS 6.3" is what can be said.
    let reads_batch_key = ctx.deepstream_version.is_some_and(|v| v <= (6, 2));
    if let (true, Some(have), Some(loc)) = (
        reads_batch_key,
        at.int("enable-batch-process").map(|e| e.value),
        site(at, "enable-batch-process"),
    ) {
        if have != 1 {
            out.push(
                Diagnostic::new(
                    Rule::TrackerBatchProcess,
                    loc.file,
                    loc.spans.value(),
                    format!("enable-batch-process is {have}"),
                )
                .expected("1")
                .why("without batch processing the low-level tracker is called once per stream per frame")
                .fix(Some(Fix::safe(
                    "set enable-batch-process=1",
                    vec![ctx.set_value(loc, "1")],
                ))),
            );
        }
    }
    // DS402: tracker resolution, for a low-level tracker that works on
    // frames at a size the NvDCF max-perf preset (480x288) speaks for. IOU
    // and NvSORT take no frames (nvtracker then never scales to it); a
    // MaskTracker segments the frames nvtracker scales to this size (its
    // masks come out at it), and NVIDIA's own MaskTracker sample runs
    // 1920x1080: the NvDCF preset's size is no claim about either. A
    // low-level library or config named by an expression (a Python
    // variable, a `$VAR`) may be either: unknown, silent.
    let unknown = at.unknown("ll-config-file")
        || at.unknown("ll-lib-file")
        || config_unread(ws, at)
        || library_not_nvidias(at)
        || ds5_frame_library(at);
    let sizes: &[(&str, i64)] = if unknown || takes_no_frames(ctx.ws, at) || segments(ctx, at) || projects_3d(ctx, at) {
        &[]
    } else {
        &[("tracker-width", 480), ("tracker-height", 288)]
    };
    for &(key, want) in sizes {
        if let (Some(have), Some(loc)) = (at.int(key).map(|e| e.value), site(at, key)) {
            if have != want {
                out.push(
                    Diagnostic::new(Rule::TrackerResolution, loc.file, loc.spans.value(), format!("{key} is {have}"))
                        .expected(want.to_string())
                        .why("the visual tracker's cost grows with its working resolution; 480x288 is the max-perf preset's size (tracking quality may change)")
                        .fix(Some(Fix::unsafe_(format!("set {key}={want}"), vec![ctx.set_value(loc, &want.to_string())]))),
                );
            }
        }
    }
    // DS403: the low-level preset. Its names are NVIDIA's
    // NvMultiObjectTracker presets: a config handed to another low-level
    // library (`libByteTracker.so` with a copy named
    // `config_tracker_NvDeepSORT.yml`) is that library's to read, and a
    // library named by an expression may be either: silent.
    // The name speaks for the preset only where it is one of NVIDIA's
    // or the file read says nothing against it: a config dslint did not
    // read under a name of the project's own (`DeepSORT_config.yml` in a
    // container's `/app/configs`) may hold anything, IOU included, as
    // DS402 holds (`config_unread`); one read in the tree that runs no
    // visual tracker and no ReID (`takes_no_frames`) runs neither network
    // nor features, whatever its name says.
    let nvidias =
        !library_not_nvidias(at) && !at.unknown("ll-lib-file") && !config_unread(ws, at) && !takes_no_frames(ws, at);
    if let (Some(v), Some(loc), true) = (
        at.str("ll-config-file").map(|e| e.value),
        site(at, "ll-config-file"),
        nvidias,
    ) {
        let base = v.rsplit('/').next().unwrap_or(v).trim();
        let lower = base.to_ascii_lowercase();
        // A 3D preset has no max-perf counterpart: the 2D preset would drop
        // the projection the pipeline is built for.
        if (lower.contains("accuracy") || lower.contains("deepsort")) && !projects_3d(ctx, at) {
            let new = format!(
                "{}{}",
                &v[..v.len() - v.rsplit('/').next().unwrap_or(v).len()],
                MAX_PERF_PRESET
            );
            let mut d = Diagnostic::new(Rule::TrackerPreset, loc.file, loc.spans.value(), format!("tracker preset `{base}` favours accuracy over throughput"))
                .expected(MAX_PERF_PRESET)
                .why("NVIDIA's DeepSORT presets, and its later NvDCF accuracy presets (a `ReID` section with `reidType` 2; DS 6.1's has none), run a re-identification network per object, and the accuracy preset also computes more visual features (`useHog`, a larger `featureImgSizeLevel`); the NvDCF max-perf preset and IOU do neither")
                .fix(Some(Fix::unsafe_(format!("use {MAX_PERF_PRESET}"), vec![ctx.set_value(loc, &new)])));
            // The preset the element loads, when dslint read it: its first
            // section, where the finding reads when that file is the one
            // named (a pull request that changes the preset).
            let preset = low_level(ws, at).and_then(|file| {
                let g = ws.files[file].doc.groups.iter().find(|g| !g.name.is_empty())?;
                Some((file, g.name_span.clone()))
            });
            if let Some((file, span)) = preset {
                let (line, _) = ws.files[loc.file].position(loc.spans.value().start);
                d = d.related(file, span).message_at_related(format!(
                    "this tracker preset favours accuracy over throughput ([{}] ll-config-file in {}:{line} loads it)",
                    loc.group,
                    crate::files::shown(&ws.files[loc.file].path)
                ));
            }
            out.push(d);
        }
    }
    key_file_handed_to_nvmot(ctx, at, out);
    // DS404: the low-level library exists. deepstream-app and the C test
    // apps make a key-file's or YAML's path absolute against that file's
    // folder (`deepstream_config_file_parser.c` `parse_tracker` and
    // `deepstream_tracker_yaml.cpp` through `get_absolute_file_path`), as
    // dslint resolves it. A pipeline written as code (gst-launch, Python,
    // Service Maker) hands the value to nvtracker as it is, and nvtracker
    // `dlopen`s it (`nvtracker_proc.cpp` `NvTrackerProc::initTrackerLib`): a
    // bare name is looked up on the library path, a relative one from the
    // process's working directory, neither of which dslint knows: only an
    // absolute path is judged there.
    let verbatim = matches!(
        at.home.as_deref(),
        Some(Home::Launch { .. } | Home::Python { .. } | Home::YamlMap { .. })
    );
    if let (Some(v), Some(loc)) = (at.str("ll-lib-file").map(|e| e.value), site(at, "ll-lib-file")) {
        let judged = !verbatim || std::path::Path::new(v.trim()).is_absolute();
        let missing = match ws.resolve(loc.file, v) {
            // A library the project's .gitignore excludes (one its build
            // makes) is in no clone: unknown (`Workspace::git_ignored`).
            Some(Target::Missing(p)) if !ws.git_ignored(&p) => Some(p),
            _ => None,
        };
        if let (true, Some(p)) = (judged, missing) {
            out.push(
                Diagnostic::new(
                    Rule::TrackerLibraryMissing,
                    loc.file,
                    loc.spans.value(),
                    format!("ll-lib-file {} does not exist", crate::files::shown(&p)),
                )
                .expected("libnvds_nvmultiobjecttracker.so")
                .why("nvtracker cannot load its low-level library and the pipeline fails to start"),
            );
        }
    }
}

/// DS001 on a GLib key-file that nvtracker hands to NvMultiObjectTracker as
/// its config. nvtracker reads nothing of `ll-config-file` itself: it
/// passes the path to the low-level library (`NvMOTConfig`'s
/// `customConfigFilePath`, `NvTrackerProc::initTrackerContext`,
/// `nvtracker_proc.cpp`), and NvMultiObjectTracker (DeepStream 6.0 on)
/// reads it as YAML (`NvTrackerParamsBase` reads a `YAML::Node` from the
/// file: NVIDIA's API reference, `NvMultiObjectTracker.hpp`). A `[tracker]`
/// key-file, a test app's format, is then no config the library can read
/// when a YAML parser refuses it (`key=value` lines after a `[group]` flow
/// sequence are not YAML): none of its settings reaches the tracker. What
/// the library does then (stop, or run its defaults) is in no source dslint
/// has, and the finding claims neither. Only for NvMultiObjectTracker by
/// name: another library (DeepStream 5's IOU library read a key-file, a
/// custom one reads what it likes) is silent, and so is a key-file that
/// YAML reads (only comments and a header: the library then finds none of
/// its sections). Cases `DS001/fires-tracker-key-file-as-ll-config`,
/// `DS001/clean-tracker-key-file-custom-library`.
fn key_file_handed_to_nvmot(ctx: &Ctx, at: &Element, out: &mut Vec<Diagnostic>) {
    let nvmot = at
        .str("ll-lib-file")
        .is_some_and(|lib| base_name(lib.value) == "libnvds_nvmultiobjecttracker.so");
    let Some(id) = low_level(ctx.ws, at).filter(|_| nvmot) else {
        return;
    };
    let f = &ctx.ws.files[id];
    if f.doc.format != Format::KeyFile {
        return;
    }
    if !crate::syntax::yaml::refuses(&f.doc.text) {
        return;
    }
    let span = f
        .doc
        .groups
        .iter()
        .find(|g| !g.name.is_empty())
        .map_or(0..0, |g| g.name_span.clone());
    out.push(
        Diagnostic::new(
            Rule::SyntaxError,
            id,
            span,
            "NvMultiObjectTracker reads this file as YAML, and it is a GLib key-file",
        )
        .expected("a YAML low-level config (`%YAML:1.0`, sections such as `BaseConfig:`), as NVIDIA's config_tracker_*.yml")
        .why("nvtracker hands ll-config-file to its low-level library (customConfigFilePath, nvtracker_proc.cpp), and NvMultiObjectTracker reads it as YAML (NvTrackerParamsBase): a YAML parser refuses this key-file, so none of its settings reaches the tracker"),
    );
}

/// NVIDIA's sample low-level configs that run no visual tracker and no ReID
/// network (NvMultiObjectTracker's IOU and NvSORT), by file name: the
/// deepstream-app samples name them so, and a path outside the tree is read
/// by its name only.
const FRAMELESS_SAMPLES: [&str; 2] = ["config_tracker_IOU.yml", "config_tracker_NvSORT.yml"];

/// NVIDIA's sample low-level configs that run a visual tracker or a ReID
/// network (NvDCF, DeepSORT), by file name: like [`FRAMELESS_SAMPLES`], a
/// path dslint does not read is known by these names only.
const FRAME_SAMPLES: [&str; 5] = [
    "config_tracker_NvDCF_perf.yml",
    "config_tracker_NvDCF_accuracy.yml",
    "config_tracker_NvDCF_max_perf.yml",
    "config_tracker_NvDeepSORT.yml",
    "config_tracker_DeepSORT.yml",
];

/// Whether the low-level config is one dslint did not read (outside the
/// project root, missing, or not a plain path) under a name that is none of
/// NVIDIA's samples: what it runs, IOU and NvSORT included, is unknown
/// (Precision 5), so whether nvtracker scales frames at all is too.
fn config_unread(ws: &Workspace, at: &Element) -> bool {
    let Some(cfg) = at.str("ll-config-file") else {
        return false;
    };
    let name = base_name(cfg.value);
    low_level(ws, at).is_none() && !FRAMELESS_SAMPLES.contains(&name) && !FRAME_SAMPLES.contains(&name)
}

/// The low-level config the tracker loads, when dslint read it: the
/// element's `config` (an app's `[tracker] ll-config-file`, a pipeline's
/// `ll-config-file` property), else the file its `ll-config-file` names.
/// A tracker key-file checked on its own (`config::standalone`) carries
/// that key-file as its `config`: it is not the low-level config, which is
/// then found by the path the key-file writes.
fn low_level(ws: &Workspace, at: &Element) -> Option<FileId> {
    if let Some(c) = at
        .config
        .as_ref()
        .filter(|c| ws.files[c.file].kind != Some(Kind::Tracker))
    {
        return Some(c.file);
    }
    let cfg = at.str("ll-config-file")?;
    match ws.resolve(cfg.site()?.file, cfg.value)? {
        Target::Exists(p) => ws.get(&p),
        _ => None,
    }
}

/// NVIDIA's low-level tracker libraries: NvMultiObjectTracker (DeepStream
/// 6.0 on: IOU, NvSORT, NvDCF, DeepSORT by its config) and DeepStream 4–5's
/// NvDCF, KLT and IOU libraries.
const NVIDIA_LIBRARIES: [&str; 4] = [
    "libnvds_nvmultiobjecttracker.so",
    "libnvds_nvdcf.so",
    "libnvds_mot_klt.so",
    "libnvds_mot_iou.so",
];

/// DeepStream 4–5's NvDCF and KLT libraries. Only NVIDIA's DS 5.1
/// Gst-nvtracker guide says what they take ("the KLT tracker uses Luma-only
/// format; NvDCF uses NV12 or RGBA"): they and the nvtracker of those
/// releases shipped as binaries, so no source shows what their
/// `NvMOT_Query` asks or that nvtracker scales to `tracker-width` x
/// `tracker-height` for them (DS 9.1's `nvtracker_proc.cpp` is a later
/// plugin). Unknown: DS402 is silent for them.
const DS5_FRAME_LIBRARIES: [&str; 2] = ["libnvds_nvdcf.so", "libnvds_mot_klt.so"];

fn ds5_frame_library(at: &Element) -> bool {
    at.str("ll-lib-file")
        .is_some_and(|lib| DS5_FRAME_LIBRARIES.contains(&base_name(lib.value)))
}

/// Whether `ll-lib-file` names a low-level library that is none of
/// NVIDIA's (a ByteTrack or SORT build against `nvdstracker.h`): whether it
/// asks nvtracker for frames at all is its own `NvMOT_Query`'s answer
/// (`numTransforms`, kept by `NvTrackerProc::initTrackerContext`,
/// `nvtracker_proc.cpp`), which dslint cannot read (Precision 5).
fn library_not_nvidias(at: &Element) -> bool {
    at.str("ll-lib-file")
        .is_some_and(|lib| !NVIDIA_LIBRARIES.contains(&base_name(lib.value)))
}

/// Top-level sections of an NvMultiObjectTracker config that read no pixels:
/// a config made of only these (plus a `VisualTracker` whose
/// `visualTrackerType` is 0 or a `ReID` whose `reidType` is 0, DUMMY) is IOU
/// or NvSORT. Any other section (a segmenter, a 3D projection, one a later
/// release adds) may need frames, so the tracker is not proven frameless.
const FRAMELESS_SECTIONS: [&str; 5] = [
    "BaseConfig",
    "TargetManagement",
    "TrajectoryManagement",
    "DataAssociator",
    "StateEstimator",
];

/// Whether the tracker's low-level library is known to take no video frames.
///
/// nvtracker scales each frame to `tracker-width` x `tracker-height` only
/// when the library's `NvMOT_Query` asks for a transform: DS 9.1
/// `gst-nvtracker/nvtracker_proc.cpp`, `NvTrackerProc::initTrackerContext`
/// keeps `query.numTransforms`, and `submitInput`/`initConvBufPool` convert
/// and size the pool only `if (m_Config.numTransforms > 0)`. NVIDIA's
/// Gst-nvtracker guide: IOU and NvSORT need no video frames; NvDCF (its
/// `VisualTracker`) and DeepSORT/ReID (`ReID` with `reidType` > 0) do.
/// `false` when unknown (no config, a config outside the tree with another
/// name, a section this table does not know).
pub fn takes_no_frames(ws: &Workspace, at: &Element) -> bool {
    // DeepStream 5's separate IOU library (its NvDCF and KLT ones are
    // unknown: `ds5_frame_library`).
    if let Some(lib) = at.str("ll-lib-file") {
        if base_name(lib.value) == "libnvds_mot_iou.so" {
            return true;
        }
    }
    let Some(cfg) = at.str("ll-config-file") else {
        return false;
    };
    match low_level(ws, at) {
        // The config in the tree: its sections decide, whatever its name.
        Some(id) => {
            let f = &ws.files[id];
            f.kind == Some(Kind::TrackerLowLevel)
                && f.doc.errors.is_empty()
                && !f.doc.groups.is_empty()
                && f.doc.groups.iter().all(section_reads_no_pixels)
        }
        None => FRAMELESS_SAMPLES.contains(&base_name(cfg.value)),
    }
}

fn section_reads_no_pixels(g: &crate::syntax::Group) -> bool {
    let zero = |key: &str| {
        g.entries
            .iter()
            .rev()
            .find(|e| e.key == key)
            .and_then(|e| e.value.as_deref())
            .is_some_and(|v| v.trim() == "0")
    };
    match g.name.as_str() {
        "" => g.entries.is_empty(),
        "VisualTracker" => zero("visualTrackerType"),
        "ReID" => zero("reidType"),
        name => FRAMELESS_SECTIONS.contains(&name),
    }
}

fn base_name(path: &str) -> &str {
    let path = path.trim();
    path.rsplit('/').next().unwrap_or(path)
}
