//! R1: nvstreammux and the streams it batches (DS101–DS108).

use crate::base::diagnostic::Diagnostic;
use crate::base::edit::Fix;
use crate::base::rule::{Rule, When};
use crate::model::detect::Kind;
use crate::model::graph::{Element, Layer, Pipeline, Role, Site, SourceKind};
use crate::rules::context::{Ctx, origin, site};
use crate::rules::tracker;
use crate::syntax::Format;

/// Push timeouts (µs) within [0.5×, 2×] the frame interval of some source
/// between 15 and 60 fps: from half of 1e6/60 to twice 1e6/15.
/// The range rules.md's DS103 row describes in words ("0.5× a 60 fps
/// interval to 2× a 15 fps one", Precision 7's "[0.5×, 2×] the frame
/// interval of any plausible source"); the row's printed lower bound,
/// 16667, is 1× a 60 fps interval and would call 16000 (0.96× at 60 fps)
/// a defect.
const PLAUSIBLE_PUSH_TIMEOUT_US: std::ops::RangeInclusive<i64> = 8333..=133_333;

/// The legacy nvstreammux's "no timeout" value.
const WAIT_FOR_FULL_BATCHES: i64 = -1;

/// DS108 (Precision 8): the config's countable sources win over facts'
/// `workload.n_streams` (`Ctx::n_streams`); where the two disagree, the
/// facts may describe another pipeline (or this one before it changed),
/// so the rules that use the count (DS101, DS201, DS702, …) judge by the
/// config's, and this says so once per pipeline, at its first source. Never
/// a fix: which of the two is right is for a person to say.
pub fn check_facts_streams(ctx: &Ctx, p: &Pipeline, out: &mut Vec<Diagnostic>) {
    let Some(facts) = ctx.facts.and_then(crate::model::facts::Facts::n_streams) else {
        return;
    };
    let Some((n, from)) = ctx.n_streams(p) else { return };
    // `n_streams` falls back to the facts only when the config cannot count.
    if p.streams().is_none_or(|c| c == 0) || n == facts {
        return;
    }
    let Some((file, span)) = p.sources().find_map(Element::at) else {
        return;
    };
    out.push(
        Diagnostic::new(
            Rule::FactsStreamCount,
            file,
            span,
            format!("facts workload.n_streams is {facts}, but the config feeds {n} streams ({from})"),
        )
        .expected(format!("facts measured on this pipeline (workload.n_streams = {n})"))
        .why(format!(
            "the facts may describe another pipeline or an older version of this one; the batch rules use the config's {n} streams, not the facts' {facts}"
        )),
    );
}

pub fn check(ctx: &Ctx, p: &Pipeline, out: &mut Vec<Diagnostic>) {
    let Some(mux) = p.first(&Role::Streammux) else { return };
    // DS101: batch-size = final_batch.
    if let (Some(eff), Some((fb, why))) = (mux.int("batch-size"), ctx.final_batch(p)) {
        if eff.value != fb as i64 {
            // Without a measurement, min(n_streams, 16) is a preset: only a
            // batch larger than its streams, or one the primary disagrees
            // with (DS701), is a defect (Precision 7).
            let proven = ctx.batch_is_proven(p, eff.value);
            let effect = batch_effect(ctx, p, eff.value, fb);
            let (file, span) = eff.at();
            let fix = eff
                .site()
                .map(|l| ctx.fix_value(proven, l, format!("set batch-size={fb}"), &fb.to_string()));
            out.push(
                Diagnostic::new(
                    Rule::StreammuxBatchSize,
                    file,
                    span,
                    format!(
                        "streammux batch-size is {} ({})",
                        eff.value,
                        origin(ctx, mux, "batch-size", eff.setting)
                    ),
                )
                .when(When::Preset, !proven)
                .expected(fb.to_string())
                .why(format!("{why}: {effect}"))
                .fix(fix),
            );
        }
    }
    // Under the new nvstreammux the legacy keys do nothing: DS107 says so,
    // and DS102–DS106 do not tune them.
    if let Some(how) = new_mux(ctx, p, mux) {
        legacy_keys_ignored(mux, &how, out);
        return;
    }
    // DS102: width/height = min(source_res, model_dims) per axis, unless
    // another element reads the mux's pixels at a larger size.
    let model = model_dims(ctx, p);
    let facts_res = ctx.facts.and_then(|f| f.source_res());
    // A camera whose size is written but not readable here: the source
    // size is unknown, and so is what the mux should be.
    let src = match (facts_res, camera_frames(p)) {
        (Some(res), _) => Some(Some(res)),
        (None, Cameras::Sized(size)) => Some(Some(size)),
        (None, Cameras::Unknown) => None,
        (None, Cameras::Unsized) => Some(None),
    };
    let target = src
        .zip(model)
        .and_then(|(src, (mh, mw))| match primary_keeps_aspect(p)? {
            // nvinfer stretches the mux frame to its input: the input's own
            // size gives it the same pixels.
            false => Some(match src {
                Some((sw, sh)) => (sw.min(mw), sh.min(mh)),
                None => (mw, mh),
            }),
            // nvinfer letterboxes the mux frame into its input: only a size of
            // the mux frame's own shape gives it the same picture.
            true => aspect_fit(mux, (mw, mh), src),
        });
    if let (Some((ew, eh)), Some(src)) = (target, src) {
        let keep_aspect = primary_keeps_aspect(p) == Some(true);
        let keys = if reads_mux_pixels_beyond_primary(ctx, p, (ew, eh)) {
            vec![]
        } else {
            vec![("width", ew), ("height", eh)]
        };
        for (key, want) in keys {
            let Some(loc) = site(mux, key) else { continue };
            let Some(have) = mux.int(key).map(|e| e.value) else {
                continue;
            };
            // A mux smaller than the model input with no source size known:
            // rules.md's formula gives the model input, but nvinfer scales the
            // mux frame up to its input either way (`get_converted_buffer`,
            // gstnvinfer.cpp), and whether the sources hold more detail than
            // the mux keeps is not known; sources at the mux's size or below
            // would only be scaled up earlier, at more bytes per frame. Silent.
            let grows_blind = have < want as i64 && src.is_none();
            if have != want as i64 && !grows_blind {
                let edit = ctx.set_value(loc, &want.to_string());
                let title = format!("set {key}={want}");
                let fix = if ctx.facts.is_some() {
                    Fix::safe(title, vec![edit])
                } else {
                    Fix::unsafe_(title, vec![edit])
                };
                let basis = match (keep_aspect, src) {
                    (true, Some(_)) => {
                        "the mux frame's shape scaled to fit the model input and the sources (the primary keeps the aspect ratio: maintain-aspect-ratio=1)"
                    }
                    (true, None) => {
                        "the mux frame's shape scaled to fit the model input (the primary keeps the aspect ratio: maintain-aspect-ratio=1; source resolution unknown: set workload.source_width/height in facts)"
                    }
                    (false, Some(_)) if facts_res.is_none() => {
                        "min(camera size, model input) per axis (the cameras' camera-width/camera-height)"
                    }
                    (false, Some(_)) => "min(source resolution, model input) per axis",
                    (false, None) => {
                        "the model input (source resolution unknown: set workload.source_width/height in facts)"
                    }
                };
                out.push(
                    Diagnostic::new(
                        Rule::StreammuxResolution,
                        loc.file,
                        loc.spans.value(),
                        format!("streammux {key} is {have}"),
                    )
                    .expected(want.to_string())
                    .why(if have > want as i64 {
                        format!(
                            "{basis}: scaling every frame to a larger size than inference uses costs memory bandwidth"
                        )
                    } else {
                        // Smaller than both the sources and the model input:
                        // nvinfer scales the mux frame up to its input
                        // (`get_converted_buffer`, gstnvinfer.cpp).
                        format!(
                            "{basis}: the mux frame is smaller, so nvinfer scales it up to its input and the model sees less of the sources' detail than that input holds"
                        )
                    })
                    .fix(Some(fix)),
                );
            }
        }
    }
    // DS103: batched-push-timeout = round(1e6 / source_fps) µs. Without
    // facts the 30 fps behind 33333 is a guess (Precision 7): the value is a
    // defect only outside [0.5×, 2×] the frame interval of every plausible
    // source (15–60 fps), else the finding is a suggestion.
    let facts_fps = ctx.facts.and_then(|f| f.source_fps());
    let fps = facts_fps.unwrap_or(30.0);
    let want = (1e6 / fps).round() as i64;
    let fps_from = if facts_fps.is_some() {
        "workload.source_fps in facts"
    } else {
        "default 30 fps"
    };
    // A mux of batch 1 never waits: the legacy nvstreammux pushes a batch
    // once it is complete and the timeout only bounds the wait for a batch
    // that is not ("If the complete batch is formed before the timeout is
    // reached, the batch is pushed", NVIDIA's deepstream-image-decode-test
    // README; the legacy mux's source is not public), and one buffer
    // completes a batch of 1. Neither claim of the why (latency, partial
    // batches) can hold there, whatever the value.
    let batch_of_one = mux.int("batch-size").is_some_and(|b| b.value == 1);
    if let (Some(have), Some(loc), false) = (
        mux.int("batched-push-timeout").map(|e| e.value),
        site(mux, "batched-push-timeout"),
        batch_of_one,
    ) {
        if have != want {
            // -1 is no timeout but "wait for full batches": the legacy
            // nvstreammux's documented meaning (range -1..G_MAXINT) and
            // deepstream-app's own value when the key is unset
            // (deepstream_config_file_parser.c `parse_streammux`,
            // deepstream_streammux_yaml.cpp). NVIDIA's samples set it on
            // purpose: without facts it is a choice, not a defect.
            let proven =
                facts_fps.is_some() || (have != WAIT_FOR_FULL_BATCHES && !PLAUSIBLE_PUSH_TIMEOUT_US.contains(&have));
            let meaning = if have == WAIT_FOR_FULL_BATCHES {
                " (wait for full batches)"
            } else {
                ""
            };
            out.push(
                Diagnostic::new(
                    Rule::BatchedPushTimeout,
                    loc.file,
                    loc.spans.value(),
                    format!("batched-push-timeout is {have} µs{meaning}"),
                )
                .when(When::Preset, !proven)
                .expected(want.to_string())
                .why(format!(
                    "one frame interval at {fps} fps ({fps_from}): longer adds latency, shorter pushes partial batches"
                ))
                .fix(Some(ctx.fix_value(
                    proven,
                    loc,
                    format!("set batched-push-timeout={want}"),
                    &want.to_string(),
                ))),
            );
        }
    }
    // DS104: nvbuf-memory-type = 0 where the value set is pinned (1) or
    // unified (3) memory (`NvBufSurfaceMemType`, nvbufsurface.h). 2 (CUDA
    // device) is what 0 selects on dGPU, and 4 (surface array) what it
    // selects on Jetson, where a headless app sets it on every element:
    // neither is a cost dslint can prove.
    if let (Some(have), Some(loc)) = (
        mux.int("nvbuf-memory-type").map(|e| e.value),
        site(mux, "nvbuf-memory-type"),
    ) {
        if matches!(have, 1 | 3) {
            // One memory type for the whole pipeline: the platform default,
            // 0 (DS703 would report a mux alone on it). Every element DS703
            // compares that sets another value moves with the mux.
            let mut edits = vec![ctx.set_value(loc, "0")];
            for (v, e) in crate::rules::cross::memory_types(ctx, p) {
                if v != 0 && !std::ptr::eq(e, mux) {
                    edits.extend(site(e, "nvbuf-memory-type").map(|l| ctx.set_value(l, "0")));
                }
            }
            let title = if edits.len() > 1 {
                "set nvbuf-memory-type=0 on the streammux and the elements that share its memory"
            } else {
                "set nvbuf-memory-type=0"
            };
            out.push(
                Diagnostic::new(
                    Rule::StreammuxMemoryType,
                    loc.file,
                    loc.spans.value(),
                    format!("streammux nvbuf-memory-type is {have}"),
                )
                .expected("0")
                .why("the platform default (device memory on dGPU, surface array on Jetson) avoids copies through pinned or unified memory")
                .fix(Some(Fix::safe(title, edits))),
            );
        }
    }
    // DS105: live-source matches the sources. One live source makes the
    // pipeline live; "file sources only" needs every source's kind known
    // (Precision 5: a CSV or nvmultiurisrcbin's REST-added streams are not).
    let kinds: Vec<SourceKind> = p.sources().filter_map(|s| s.source()).map(|s| s.kind).collect();
    let live = match ctx.facts.and_then(|f| f.workload.as_ref()?.live) {
        Some(l) => Some(l),
        None if kinds.contains(&SourceKind::Live) => Some(true),
        None if kinds.contains(&SourceKind::Other) => None,
        None => Some(false),
    };
    // nvstreammux's `live-source` is a gboolean. deepstream-app reads it
    // with `g_key_file_get_integer` (`parse_streammux`), and any non-zero
    // integer is TRUE once `g_object_set` collects it; gst-launch and
    // Service Maker deserialize the text (`gst_value_deserialize_boolean`:
    // true/yes/t/1, false/no/f/0, any case); Python passes `True`/`1`
    // through PyGObject. Unset is FALSE. A value none of these reads, a
    // `$VAR` or an expression is not known to differ.
    let have = match mux.str("live-source") {
        None if mux.unknown("live-source") => None,
        None => Some(false),
        Some(v) => {
            let key_file = v
                .site()
                .is_some_and(|s| ctx.ws.files[s.file].doc.format == Format::KeyFile);
            let flag = if key_file {
                None
            } else {
                mux.flag("live-source").map(|e| e.value)
            };
            flag.or_else(|| mux.int("live-source").map(|e| e.value != 0))
        }
    };
    if let Some((live, _)) = live.zip(have).filter(|&(l, h)| p.sources().next().is_some() && h != l) {
        let want = i64::from(live);
        let (file, span) = match site(mux, "live-source") {
            Some(l) => (l.file, l.spans.value()),
            None => mux.at().unwrap_or((p.root, 0..0)),
        };
        out.push(
            Diagnostic::new(
                Rule::LiveSource,
                file,
                span,
                format!(
                    "streammux live-source is {}",
                    mux.str("live-source").map_or("0", |v| v.value.trim())
                ),
            )
            .expected(want.to_string())
            .why(if live {
                "an RTSP or camera source: batches must be pushed on the clock, not held for full batches"
            } else {
                "file sources only: live mode drops and times batches for nothing"
            })
            .fix(
                ctx.set_or_insert(mux, "live-source", &want.to_string())
                    .map(|e| Fix::safe(format!("set live-source={want}"), vec![e])),
            ),
        );
    }
    // DS106: enable-padding = 0.
    if let (Some(1..), Some(loc)) = (mux.int("enable-padding").map(|e| e.value), site(mux, "enable-padding")) {
        out.push(
            Diagnostic::new(
                Rule::EnablePadding,
                loc.file,
                loc.spans.value(),
                "streammux enable-padding is on",
            )
            .expected("0")
            .why("padding to keep aspect ratio adds a fill pass per frame; turning it off changes detection geometry")
            .fix(Some(Fix::unsafe_(
                "set enable-padding=0",
                vec![ctx.set_value(loc, "0")],
            ))),
        );
    }
}

/// What the config says of the sources' frame size (`camera_frames`).
enum Cameras {
    /// Every source is a camera whose size is written: the largest per axis.
    Sized((u32, u32)),
    /// Some source is no camera, or a camera without its own size: the
    /// size is not in the config (a file's or a stream's never is).
    Unsized,
    /// A source's `type`, `camera-width` or `camera-height` is written but
    /// not readable here (a `$VAR`, a `[source-list]` whose entries differ
    /// in type or whose `[sourceN]` overrides it for one source): DS102
    /// cannot tell what the mux should be.
    Unknown,
}

/// What a streammux batch of `batch` does where `final_batch` is `fb`
/// (DS101's why), said only for the side the batch is on: larger than its
/// streams, nvstreammux waits `batched-push-timeout` for frames that never
/// come; smaller than `fb`, the GPU runs more, smaller launches; between
/// the two the streams fill the batch, and only the plateau (measured, or
/// the preset cap 16 without facts) speaks against it.
fn batch_effect(ctx: &Ctx, p: &Pipeline, batch: i64, fb: u32) -> &'static str {
    if ctx.n_streams(p).is_some_and(|(n, _)| batch > i64::from(n)) {
        "a batch larger than its streams waits for frames that never come"
    } else if batch < i64::from(fb) {
        "a smaller batch leaves the GPU idle"
    } else if ctx.facts.and_then(crate::model::facts::Facts::plateau_batch).is_some() {
        "the streams fill this batch, but above the measured plateau a larger batch adds latency with no throughput gain"
    } else {
        "the streams fill this batch, and 16 is a preset cap, not a measurement (no sweep.plateau_batch in facts): above the measured plateau a larger batch adds latency with no throughput gain"
    }
}

/// The size of the frames the mux takes when every source of the pipeline
/// is a deepstream-app camera whose size its group sets (`type` 1, V4L2, or
/// 5, CSI, with `camera-width` and `camera-height` above 0): the camera bin
/// caps the camera's output at that size (`create_camera_source_bin`,
/// `deepstream_source_bin.c`; the keys read into `source_width` and
/// `source_height` by `parse_source`, `deepstream_config_file_parser.c`).
/// The largest per axis when they differ. A `[source-list]` of `usb:`/`csi:`
/// entries is such a set of cameras: the graph gives it `[source-attr-all]`'s
/// keys and the entries' `type` (`set_source_all_configs`, see the app
/// front end), case `DS102/clean-source-list-camera`. `Unsized` for any
/// other source, a camera without its own size or no source.
fn camera_frames(p: &Pipeline) -> Cameras {
    let mut size: Option<(u32, u32)> = None;
    for s in p.sources() {
        let app_group = s.factory.is_none() && s.name.starts_with("source");
        if app_group && s.unknown("type") {
            return Cameras::Unknown;
        }
        if !app_group || !matches!(s.int("type").map(|e| e.value), Some(1 | 5)) {
            return Cameras::Unsized;
        }
        if s.unknown("camera-width") || s.unknown("camera-height") {
            return Cameras::Unknown;
        }
        let side = |key| s.int(key).and_then(|e| u32::try_from(e.value).ok()).filter(|&v| v > 0);
        let (Some(w), Some(h)) = (side("camera-width"), side("camera-height")) else {
            return Cameras::Unsized;
        };
        size = Some(size.map_or((w, h), |(a, b)| (a.max(w), b.max(h))));
    }
    size.map_or(Cameras::Unsized, Cameras::Sized)
}

/// Whether the primary nvinfer scales the mux frame into its input keeping
/// the aspect ratio (`maintain-aspect-ratio=1`: it letterboxes, and
/// `symmetric-padding` centres the picture; `gst_nvinfer_parse_props`,
/// `gstnvinfer_property_parser.cpp`; off by default), or stretches it
/// (`false`). `None` when dslint cannot tell: a value it cannot read, an
/// nvinfer whose config it did not read, an nvinferserver (whose
/// `preprocess.maintain_aspect_ratio` it does not model).
fn primary_keeps_aspect(p: &Pipeline) -> Option<bool> {
    let g = p.primary()?;
    if !matches!(g.role, Role::Infer(_)) || g.unknown("maintain-aspect-ratio") {
        return None;
    }
    match g.bool("maintain-aspect-ratio") {
        Some(b) => Some(b.value),
        None if g.str("maintain-aspect-ratio").is_some() => None,
        None => g.config.as_ref().map(|_| false),
    }
}

/// The largest size of the mux frame's own shape (its `width`:`height`)
/// that fits in the model input and, with facts, in the sources, a scaled
/// size floored to even numbers: nvinfer reads a frame's sides rounded down
/// to even (`GST_ROUND_DOWN_2` of the crop in `gstnvinfer.cpp`
/// `get_converted_buffer`), so a truncated odd side (1920x1080 into 368x368
/// is 368x207) would reach it one row short anyway, and the mux would make a
/// row nvinfer never reads (case `fires-keep-aspect-odd-fit`). `None` when
/// the mux size is unknown. A frame that already fits is its own size, odd
/// sides included.
fn aspect_fit(mux: &Element, (mw, mh): (u32, u32), src: Option<(u32, u32)>) -> Option<(u32, u32)> {
    // u32 sides (GObject's uint), in u128 so no product overflows.
    let side_of = |key: &str| {
        u32::try_from(mux.int(key)?.value)
            .ok()
            .filter(|v| *v > 0)
            .map(u128::from)
    };
    let (w, h) = (side_of("width")?, side_of("height")?);
    // The scale is the smallest of limit/side over the limits (a fraction
    // num/den, compared by cross-multiplying), at most 1.
    let mut limits = vec![(u128::from(mw), w), (u128::from(mh), h)];
    if let Some((sw, sh)) = src {
        limits.extend([(u128::from(sw), w), (u128::from(sh), h)]);
    }
    let (num, den) = limits.into_iter().fold(
        (1, 1),
        |(n, d), (ln, ld)| if ln * d < n * ld { (ln, ld) } else { (n, d) },
    );
    if num == den {
        // It fits: nvinfer scales it up (get_converted_buffer), and no
        // smaller mux frame gives the model more of the picture; an odd
        // side too is left as it is.
        return Some((u32::try_from(w).ok()?, u32::try_from(h).ok()?));
    }
    let side = |v: u128| u32::try_from(v * num / den / 2 * 2).ok();
    Some((side(w)?, side(h)?))
}

/// Whether an element besides the primary inference reads the mux's frames
/// at their own size, so that shrinking the mux to the primary's input
/// costs it resolution:
/// - another inference element (a secondary nvinfer crops each object from
///   the mux's batch surface and scales the crop to its own input:
///   `gstnvinfer.cpp`, `gst_nvinfer_process_objects`, whose crop rectangle
///   is in the mux frame's coordinates; deepstream-app's
///   `deepstream_secondary_gie_bin.c` sets `process-mode` 2 on it);
/// - nvdspreprocess (its ROIs are cut from the mux frame and scaled to its
///   tensor shape);
/// - a tracker that takes frames (NvDCF, DeepSORT: see
///   `tracker::takes_no_frames`) working wider or taller than the proposed
///   size (`tracker-width`/`tracker-height`; nvtracker's defaults, 960x544
///   in `gstnvtracker.cpp`, when unset), or one that projects its targets
///   to 3D with camera calibration in the video's pixels
///   (`tracker::projects_3d`);
/// - a Python app that maps the batch's frames in a probe
///   (`pyds.get_nvds_buf_surface`, `get_nvds_buf_surface_gpu`): it gets
///   them at the mux's size (NVIDIA's imagedata and redaction samples cut
///   each object out in the mux frame's coordinates and save it), so a
///   smaller mux output costs it pixels. Judged by the name anywhere in the
///   app's file: a mention is taken as a reader (silent, the safe side);
/// - an app config whose image saver is on (`[img-save] enable=1`,
///   `frontend::app::saves_images`): NVIDIA's transfer-learning app saves
///   whole frames and object crops from the batch surface after the
///   primary, at the mux's size, as images to retrain the model on.
fn reads_mux_pixels_beyond_primary(ctx: &Ctx, p: &Pipeline, (w, h): (u32, u32)) -> bool {
    let root = &ctx.ws.files[p.root];
    if root.kind == Some(Kind::PythonApp) && root.doc.text.contains("get_nvds_buf_surface") {
        return true;
    }
    if root.kind == Some(Kind::App) && crate::model::frontend::app::saves_images(&root.doc) {
        return true;
    }
    let other_inference = p.infers().count() > 1;
    let preprocess = p.first(&Role::Preprocess).is_some();
    let tracker = p.all(&Role::Tracker).any(|t| {
        let size = |key: &str, default: i64| t.int(key).map_or(default, |e| e.value);
        tracker::projects_3d(ctx, t)
            || (!tracker::takes_no_frames(ctx.ws, t)
                && (size("tracker-width", 960) > i64::from(w) || size("tracker-height", 544) > i64::from(h)))
    });
    other_inference || preprocess || tracker
}

/// The primary model's input (H, W): nvinfer `infer-dims` (or the legacy
/// `input-dims`/`uff-input-dims`, C;H;W) from its config file, else facts
/// `model.height/width`. Unknown behind parallel-inference branches: each
/// primary runs its own model on the same mux output.
pub fn model_dims(ctx: &Ctx, p: &Pipeline) -> Option<(u32, u32)> {
    if p.is_parallel() {
        return None;
    }
    let primary = p.primary()?;
    if primary.config.is_some() {
        for key in ["infer-dims", "input-dims", "uff-input-dims"] {
            let Some(v) = primary.str(key) else { continue };
            let dims: Vec<i64> = crate::syntax::glib::split_list(v.value)
                .ok()?
                .iter()
                .filter_map(|s| crate::syntax::glib::parse_int(s))
                .collect();
            if dims.len() >= 3 && dims[1] > 0 && dims[2] > 0 {
                return Some((u32::try_from(dims[1]).ok()?, u32::try_from(dims[2]).ok()?));
            }
        }
    }
    ctx.facts.and_then(|f| f.model_dims())
}

/// The legacy nvstreammux's keys that deepstream-app's
/// `set_streammux_properties` (`deepstream_streammux.c`) sets only when
/// `USE_NEW_NVSTREAMMUX` is not `yes`, and that DS102–DS106 tune.
pub const LEGACY_ONLY_KEYS: &[&str] = &[
    "width",
    "height",
    "batched-push-timeout",
    "nvbuf-memory-type",
    "enable-padding",
    "live-source",
];

/// How dslint knows a pipeline's app runs the new nvstreammux.
pub enum NewMux<'e> {
    /// The project config says so (`new-streammux = true`).
    Declared,
    /// The streammux group names the new mux's config file.
    ConfigFile(&'e Site),
}

/// Whether the app that reads this pipeline runs the new nvstreammux, for
/// the apps whose streammux goes through `set_streammux_properties`
/// (deepstream-app, deepstream-parallel-infer); `None` otherwise or when
/// nothing says so.
pub fn new_mux<'e>(ctx: &Ctx, p: &Pipeline, mux: &'e Element) -> Option<NewMux<'e>> {
    if !matches!(ctx.ws.files[p.root].kind, Some(Kind::App | Kind::ParallelApp)) {
        return None;
    }
    if ctx.new_streammux {
        return Some(NewMux::Declared);
    }
    ["config-file-path", "config-file"].iter().find_map(|k| {
        let s = mux.prop(k)?.effective()?;
        let site = s.site.as_ref()?;
        (s.layer == Layer::Element && mux.str(k).is_some_and(|v| !v.value.trim().is_empty()))
            .then_some(NewMux::ConfigFile(site))
    })
}

/// DS107: each legacy-only key the streammux group writes.
fn legacy_keys_ignored(mux: &Element, how: &NewMux, out: &mut Vec<Diagnostic>) {
    for key in LEGACY_ONLY_KEYS {
        let Some(loc) = site(mux, key) else { continue };
        let because = match how {
            NewMux::Declared => "the project config says the apps run with USE_NEW_NVSTREAMMUX=yes".to_string(),
            NewMux::ConfigFile(c) => format!(
                "[{}] {} names the new nvstreammux's config, which is read only with USE_NEW_NVSTREAMMUX=yes",
                c.group, c.key
            ),
        };
        out.push(
            Diagnostic::new(
                Rule::StreammuxLegacyKey,
                loc.file,
                loc.spans.key(),
                format!("[{}] {key} does nothing under the new nvstreammux", loc.group),
            )
            .why(format!(
                "{because}; then deepstream-app's set_streammux_properties does not set {key} on the element (the new mux batches by its config file's [property] instead)"
            )),
        );
    }
}
