//! R7: cross-element sanity checks (DS701–DS707); they need no facts.

use crate::base::diagnostic::Diagnostic;
use crate::base::edit::Fix;
use crate::base::rule::{Rule, When};
use crate::model::detect::Kind;
use crate::model::frontend::config::DEFAULT_BATCH;
use crate::model::graph::{Effective, Element, Layer, Pipeline, Role, Site, Stage};
use crate::model::workspace::Target;
use crate::rules::context::{Ctx, Profile, site};
use crate::syntax::glib;

/// Whether nvdspreprocess feeds the primary inference, which then batches
/// ROI tensors rather than frames: an enabled `[pre-process]`, or the
/// primary nvinfer reading tensors from meta (the app's `input-tensor-meta`
/// or its config's `input-tensor-from-meta`).
pub fn preprocess_feeds_primary(p: &Pipeline) -> bool {
    p.first(&Role::Preprocess).is_some()
        || p.primary().is_some_and(|g| {
            let on = |key| g.bool(key).is_some_and(|b| b.value);
            on("input-tensor-meta") || on("input-tensor-from-meta")
        })
}

/// The primary inference's factory, as messages name it.
fn primary_factory(p: &Pipeline) -> &str {
    p.primary().and_then(|g| g.factory.as_deref()).unwrap_or("nvinfer")
}

/// The elements whose `nvbuf-memory-type` DS703 compares, with the value
/// each sets (those that set none are left out): the streammux (not under
/// the new nvstreammux, which does not take the key: DS107), the sources,
/// the OSD, the tiler and the sinks.
pub fn memory_types<'p>(ctx: &Ctx, p: &'p Pipeline) -> Vec<(i64, &'p Element)> {
    p.first(&Role::Streammux)
        .filter(|m| crate::rules::streammux::new_mux(ctx, p, m).is_none())
        .into_iter()
        .chain(p.sources())
        .chain(p.first(&Role::Osd))
        .chain(p.first(&Role::Tiler))
        .chain(p.all(&Role::Sink))
        .filter_map(|e| Some((e.int("nvbuf-memory-type")?.value, e)))
        .collect()
}

/// Whether two `nvbuf-memory-type` values name the same memory on some
/// platform. `NVBUF_MEM_DEFAULT` (0) is `NVBUF_MEM_CUDA_DEVICE` (2) on dGPU
/// and `NVBUF_MEM_SURFACE_ARRAY` (4) on Jetson (DS 9.1 `nvbufsurface.h`,
/// `NvBufSurfaceMemType`); dslint does not know the platform, so 0 beside 2
/// (or 4) is no provable copy, while 2 beside 4, or anything beside pinned
/// (1) or unified (3) memory, differs on every platform.
pub fn same_memory(a: i64, b: i64) -> bool {
    let on = |default: i64, v: i64| if v == 0 { default } else { v };
    on(2, a) == on(2, b) || on(4, a) == on(4, b)
}

/// Whether the file a reference names is opened, as far as the model keys
/// go: a key nvinfer reads only to build an engine
/// (`nvinfer::BUILD_ONLY_KEYS`) in the config of nvinfers none of which is
/// known to build one (`nvinfer::opens_model`) is not. Every other
/// reference, and one in a file no nvinfer of the pipeline loads, is.
fn model_is_opened(ctx: &Ctx, p: &Pipeline, r: &crate::model::graph::Reference) -> bool {
    if !crate::rules::nvinfer::BUILD_ONLY_KEYS.contains(&r.key.as_str()) {
        return true;
    }
    let mut loaders = p
        .infers()
        .filter(|e| e.config_is(Kind::NvInfer) && e.config.as_ref().is_some_and(|c| c.file == r.file))
        .peekable();
    loaders.peek().is_none() || loaders.any(|e| crate::rules::nvinfer::opens_model(ctx, e, Some(p)))
}

/// nvinfer's `unique-id` when neither the app nor its config sets one
/// (`gstnvinfer.cpp`: `DEFAULT_UNIQUE_ID`).
const NVINFER_DEFAULT_UNIQUE_ID: i64 = 15;

/// DS702's defect: a streammux batch below a stream count of at most 16, so
/// every tick the remaining streams wait for a second batch.
fn below_streams(ctx: &Ctx, p: &Pipeline, batch: i64) -> bool {
    ctx.n_streams(p).is_some_and(|(n, _)| batch < i64::from(n) && n <= 16)
}

/// Whether a fix would raise an nvinferserver primary's batch from `from`
/// to `to` with no measurement behind it. The element's batch is the
/// `max_batch_size` of every request it sends Triton: at start
/// `InferTrtISContext::specifyBackendDims` warms the model up with one
/// request of that batch (`TrtISBackend::specifyInputDims`, unless
/// `disable_warmup`), and Triton refuses a request whose batch is above the
/// model's own `max_batch_size` (its `config.pbtxt`; Triton core's request
/// check, "inference request batch-size must be <= N"), so the element fails
/// to start. dslint does not read the Triton model repository, so a raise is
/// unproven. A measured plateau is not: the sweep ran the element at that
/// batch (`measure::variant` sets it), and `final_batch` is at most it.
pub fn raises_unread_triton_batch(ctx: &Ctx, p: &Pipeline, from: i64, to: i64) -> bool {
    to > from
        && p.primary().is_some_and(|g| matches!(g.role, Role::InferServer(_)))
        && ctx.facts.and_then(crate::model::facts::Facts::plateau_batch).is_none()
}

/// How many batches of at most `batch` (> 0) a run of `total` units is cut
/// into, and those batches said in words ("3 batches, 2 of 4 and the last
/// of 1"): DS701's split streammux batch and DS707's split tensor alike.
fn split_into_batches(total: i64, batch: i64) -> (i64, String) {
    let parts = (total + batch - 1) / batch;
    let split = match total % batch {
        0 => format!("{parts} batches of {batch}"),
        r => format!("{parts} batches, {} of {batch} and the last of {r}", parts - 1),
    };
    (parts, split)
}

/// What a primary of batch `batch` does with streammux batches of `mux`
/// frames (DS701's why), said for the side the mux is on. Neither side
/// waits: nvinfer submits a batch when it holds `batch-size` frames or at
/// the last frame of the streammux buffer (`gst_nvinfer_process_full_frame`,
/// `gstnvinfer.cpp`), nvinferserver cuts the buffer into requests of at most
/// `max_batch_size` (`GstNvInferServerImpl::processFullFrame`,
/// `gstnvinferserver_impl.cpp`). A larger mux batch is split, the last part
/// short when `batch` does not divide it; a smaller one runs the engine
/// below the batch it was built for.
fn mismatch_effect(factory: &str, mux: i64, batch: i64) -> String {
    let server = factory == "nvinferserver";
    if mux > batch && batch > 0 {
        let submits = if server {
            "GstNvInferServerImpl::processFullFrame sends requests of at most max_batch_size frames"
        } else {
            "gst_nvinfer_process_full_frame submits a batch whenever it holds batch-size frames"
        };
        let (parts, split) = split_into_batches(mux, batch);
        format!(
            "{factory} splits each streammux batch into batches of at most {batch} ({submits}): a full one of {mux} \
             frames runs as {split}, {parts} engine launches where one would do"
        )
    } else if mux < batch && mux > 0 {
        let submits = if server {
            "GstNvInferServerImpl::processFullFrame sends the buffer's frames as one request"
        } else {
            "gst_nvinfer_process_full_frame submits a batch at the streammux buffer's last frame"
        };
        format!(
            "{factory} infers each streammux batch as it comes ({submits}): each launch holds at most {mux} of the \
             {batch} frames its engine was built for, partial batches"
        )
    } else {
        format!("{factory} runs batches of another size than the streammux forms")
    }
}

/// DS701 on a streammux batch `m` (written at `ml`) and a primary batch `g`
/// that differ. The primary's value is written (its config file or the
/// app's group), or nvinfer's default where nothing sets it (Precision 4,
/// `config::default_batch`): then the finding points at the config's
/// `[property]` and the fix inserts `batch-size` there. A primary batch
/// derived with no line to edit and no default is left alone.
fn batch_mismatch(
    ctx: &Ctx,
    p: &Pipeline,
    m: &Effective<'_, i64>,
    g: &Effective<'_, i64>,
    ml: &Site,
    out: &mut Vec<Diagnostic>,
) {
    let ws = ctx.ws;
    let unset = g.setting.layer == Layer::Default;
    let home = p.primary().and_then(|e| e.home.as_deref());
    if g.site().is_none() && !(unset && home.is_some()) {
        return;
    }
    let target = ctx.final_batch(p).map_or(m.value, |(fb, _)| fb as i64);
    // The primary's key as its file spells it (nvinferserver's is
    // `infer_config { max_batch_size }`).
    let pkey = g.site().map_or("batch-size", |gl| gl.key.as_str());
    let mut edits = Vec::new();
    if m.value != target {
        edits.push(Some(ctx.set_value(ml, &target.to_string())));
    }
    if g.value != target {
        edits.push(match (g.site(), home) {
            (Some(gl), _) => Some(ctx.set_value(gl, &target.to_string())),
            (None, Some(home)) => ctx.insert(home, "batch-size", &target.to_string()),
            (None, None) => None,
        });
    }
    let title = match (m.value != target, g.value != target, unset) {
        (true, true, true) => {
            format!("set streammux batch-size={target} and add batch-size={target} to the primary's config")
        }
        (true, true, false) if pkey == "batch-size" => format!("set both batch-size={target}"),
        (true, true, false) => format!("set streammux batch-size and primary {pkey}={target}"),
        (true, false, _) => format!("set streammux batch-size={target} (the primary's)"),
        (_, _, true) => format!("add batch-size={target} to the primary's config (streammux's)"),
        _ => format!("set the primary {pkey}={target} (streammux's)"),
    };
    // The mismatch is proven; the value it settles on is proven only with
    // a measurement, when the streammux already runs final_batch (the
    // primary follows it), or when the streammux batch is itself a defect
    // (larger than its streams, or DS702's). Otherwise final_batch is the
    // Stage 0 preset (Precision 7) and rewriting the streammux to it is a
    // suggestion: 32 streams at batch 32 are not "fixed" to 16.
    let safe = ctx.final_batch(p).is_some()
        && (m.value == target || ctx.batch_is_proven(p, m.value) || below_streams(ctx, p, m.value))
        && !raises_unread_triton_batch(ctx, p, g.value, target);
    let fix = edits.into_iter().collect::<Option<Vec<_>>>().map(|edits| {
        if safe {
            Fix::safe(title, edits)
        } else {
            Fix::unsafe_(title, edits)
        }
    });
    let (gfile, gspan) = g.site().map_or_else(|| g.at(), |gl| (gl.file, gl.spans.value()));
    let (line, _) = ws.files[gfile].position(gspan.start);
    let (mux_line, _) = ws.files[ml.file].position(ml.spans.value().start);
    let place = format!("{}:{line}", crate::files::shown(&ws.files[gfile].path));
    let (gval, place) = if unset {
        (
            format!("{} ({DEFAULT_BATCH})", g.value),
            format!("[property] at {place}"),
        )
    } else {
        (g.value.to_string(), place)
    };
    let factory = primary_factory(p);
    out.push(
        Diagnostic::new(
            Rule::BatchMismatch,
            ml.file,
            ml.spans.value(),
            format!(
                "BATCH_MISMATCH: streammux batch-size {} != primary {factory} {pkey} {gval} ({place})",
                m.value
            ),
        )
        .expected(target.to_string())
        .why({
            let effect = mismatch_effect(factory, m.value, g.value);
            if raises_unread_triton_batch(ctx, p, g.value, target) {
                format!(
                    "{effect}; the fix is unsafe: it raises nvinferserver's batch, and Triton refuses a batch above its \
                     model's own max_batch_size (the model repository's config.pbtxt), which dslint does not read"
                )
            } else {
                effect
            }
        })
        .related(gfile, gspan)
        .message_at_related(format!(
            "BATCH_MISMATCH: primary {factory} {pkey} {gval} != streammux batch-size {} ({}:{mux_line})",
            m.value,
            crate::files::shown(&ws.files[ml.file].path)
        ))
        .fix(fix),
    );
}

/// What an nvinfer of batch `batch` does with nvdspreprocess tensors of
/// `tensor` units (DS707's why). `gst_nvinfer_process_tensor_input`
/// (`gstnvinfer.cpp`) queues a chunk when it holds `batch-size` units or the
/// tensor's last, with the chunk's unit count as the first dimension, then
/// moves the tensor's buffer by the element size times that chunk's
/// dimensions (`dims` and `inferDims` are one union, `nvdsinfer.h`): the
/// next chunk starts at the next unit. Every unit is inferred; the cost is
/// the launches.
fn preprocess_launches(batch: i64, tensor: i64) -> String {
    if batch <= 0 {
        return "nvinfer queues the preprocessed tensor in chunks of its batch-size".to_string();
    }
    let (parts, split) = split_into_batches(tensor, batch);
    format!(
        "nvinfer queues a full tensor of {tensor} units (ROIs, frames or objects) as {split}, each from the next \
         unit's offset (gst_nvinfer_process_tensor_input moves the tensor's buffer past every batch it queues): \
         every unit is inferred, in {parts} engine launches per tensor where one would do"
    )
}

pub fn check(ctx: &Ctx, p: &Pipeline, out: &mut Vec<Diagnostic>) {
    let ws = ctx.ws;
    let mux = p.first(&Role::Streammux).and_then(|m| m.int("batch-size"));
    let pgie = p.primary().and_then(|g| g.int("batch-size"));
    let preprocess = preprocess_feeds_primary(p);
    // DS701: streammux and primary batch agree. Behind parallel-inference
    // branches each primary is fed by its branch's own mux (DS710).
    if let (Some(m), Some(g), false, false) = (&mux, &pgie, preprocess, p.is_parallel()) {
        if m.value != g.value {
            if let Some(ml) = m.site() {
                batch_mismatch(ctx, p, m, g, ml, out);
            }
        }
    }
    // DS707: with nvdspreprocess, nvinfer batch >= network-input-shape[0].
    // nvdspreprocess batches up to network-input-shape[0] units into one
    // tensor (`nvdspreprocess_parse_config_file` sets `max_batch_size` to it);
    // nvinfer enqueues that tensor in chunks of its own batch-size, each from
    // its own offset (`gst_nvinfer_process_tensor_input` moves the buffer past
    // every chunk it queues), so a smaller batch-size infers every unit, in
    // more engine launches than one (`preprocess_launches`). A larger one
    // takes every tensor whole (`canSupportBatchDims` accepts any batch up to
    // the engine's): no finding. The rule is nvinfer's (rules.md): an
    // nvinferserver primary is not judged
    // (`GstNvInferServerImpl::processInputTensor`, `gstnvinferserver_impl.cpp`,
    // sends requests of `maxBatchSize()` at each chunk's offset, or the
    // tensor whole when its first dimension is not the batch).
    let preprocessor = p.first(&Role::Preprocess).filter(|e| e.config.is_some());
    let server = p.primary().is_some_and(|g| matches!(g.role, Role::InferServer(_)));
    if let (Some(pre), Some(g), false) = (preprocessor, &pgie, server) {
        let shape = pre.str("network-input-shape");
        if let Some(first) = shape
            .and_then(|v| glib::split_list(v.value).ok())
            .and_then(|l| l.first().and_then(|s| glib::parse_int(s)))
        {
            if g.value < first {
                if let (Some(gl), Some(shape)) = (g.site(), shape) {
                    out.push(
                        Diagnostic::new(
                            Rule::PreprocessBatchMismatch,
                            gl.file,
                            gl.spans.value(),
                            format!(
                                "primary nvinfer batch-size {} < nvdspreprocess network-input-shape batch {first}",
                                g.value
                            ),
                        )
                        .expected(first.to_string())
                        .why(preprocess_launches(g.value, first))
                        .related(shape.at().0, shape.at().1)
                        .message_at_related(format!(
                            "nvdspreprocess network-input-shape batch {first} > primary nvinfer batch-size {} ({}:{})",
                            g.value,
                            crate::files::shown(&ws.files[gl.file].path),
                            ws.files[gl.file].position(gl.spans.value().start).0
                        ))
                        .fix(Some(Fix::safe(
                            format!("set batch-size={first}"),
                            vec![ctx.set_value(gl, &first.to_string())],
                        ))),
                    );
                }
            }
        }
    }
    // DS702: streammux batch below n_streams for a small pipeline.
    // A measured plateau below n_streams is DS101's business, not a mistake.
    let measured = ctx.facts.and_then(|f| f.plateau_batch()).is_some();
    if let (Some(m), Some((n, from)), false) = (&mux, ctx.n_streams(p), measured) {
        if below_streams(ctx, p, m.value) {
            if let Some(ml) = m.site() {
                out.push(
                    Diagnostic::new(
                        Rule::BatchBelowStreams,
                        ml.file,
                        ml.spans.value(),
                        format!("streammux batch-size {} < {n} streams ({from})", m.value),
                    )
                    .expected(n.to_string())
                    .why("every tick the remaining streams wait for a second batch")
                    // n ≤ 16 is final_batch without facts, and the least
                    // batch that takes every stream's frame in one tick: a
                    // proven value, not a preset.
                    .fix(Some(Fix::safe(
                        format!("set batch-size={n}"),
                        vec![ctx.set_value(ml, &n.to_string())],
                    ))),
                );
            }
        }
    }
    // DS703: nvbuf-memory-type agrees across elements.
    let seen = memory_types(ctx, p);
    if let Some(&(first, first_at)) = seen.first() {
        for &(v, at) in &seen[1..] {
            if !same_memory(v, first) {
                let Some(loc) = site(at, "nvbuf-memory-type") else {
                    continue;
                };
                out.push(
                    Diagnostic::new(
                        Rule::MemoryTypeMismatch,
                        loc.file,
                        loc.spans.value(),
                        format!(
                            "[{}] nvbuf-memory-type {v} differs from [{}] ({first})",
                            at.name, first_at.name
                        ),
                    )
                    .expected(first.to_string())
                    .why("buffers change memory type between elements through an extra copy"),
                );
            }
        }
    }
    // DS704: referenced files exist.
    for r in &p.references {
        match &r.target {
            // A path the project's own .gitignore excludes (a model it
            // downloads or builds) is in no clone: whether it is there
            // where the app runs is unknown (`Workspace::git_ignored`).
            Target::Missing(path) if ctx.ws.git_ignored(path) => {}
            // nvinfer opens its model only to build an engine: with a
            // configured engine that is used, or may be where the app runs,
            // the model is not known to be opened (`opens_model`).
            Target::Missing(_) if !model_is_opened(ctx, p, r) => {}
            Target::Missing(path) => {
                out.push(
                    Diagnostic::new(
                        Rule::MissingFile,
                        r.file,
                        r.span.clone(),
                        format!("{} {} does not exist", r.key, crate::files::shown(path)),
                    )
                    .when(When::ConfigFile, r.is_config)
                    // Media live on the machine that runs the app, not in
                    // the repository: info, a warning in the bench profile
                    // (Precision 9).
                    .when(When::MediaOutsideBench, r.key == "uri" && ctx.profile != Profile::Bench)
                    .why("paths are relative to the folder of the file that names them")
                    .expected("an existing file"),
                );
            }
            // Outside the project root: not looked at, so the message is
            // the same whether it exists or not.
            Target::Outside(path) => out.push(
                Diagnostic::new(
                    Rule::MissingFile,
                    r.file,
                    r.span.clone(),
                    format!(
                        "{} {} is outside the project root; not checked",
                        r.key,
                        crate::files::shown(path)
                    ),
                )
                .when(When::OutsideRoot, true)
                .why("dslint reads nothing outside the project root unless asked (--follow-outside), and never says whether a file there exists"),
            ),
            Target::Exists(path) if r.is_config && ws.get(path) == Some(r.file) => out.push(
                Diagnostic::new(
                    Rule::MissingFile,
                    r.file,
                    r.span.clone(),
                    format!("{} points at this file itself", r.key),
                )
                .when(When::ConfigFile, r.is_config)
                .expected("the element's own config file"),
            ),
            _ => {}
        }
    }
    // DS705 / DS706: unique IDs and valid operate-on-gie-id.
    // deepstream-app and deepstream-parallel-infer compare the ids their
    // GIE groups set when they parse their config, and refuse a shared one
    // ("Non unique gie ids found": `AppGieIds`); elsewhere, and for ids the
    // apps do not compare (set in the nvinfer files, or in two branches of
    // the parallel app), a shared id matters only when both elements write
    // metadata that the id is meant to tell apart.
    let mut app_ids = AppGieIds::new(ctx.ws, p);
    let mut ids: Vec<(i64, &Element)> = Vec::new();
    for gie in &p.elements {
        if let Some(app_ids) = app_ids.as_mut() {
            app_ids.enter(gie);
        }
        if !gie.role.is_inference() {
            continue;
        }
        if let Some(d) = app_ids.as_mut().and_then(|a| a.check(gie)) {
            out.push(d);
            continue;
        }
        let found = gie.int("gie-unique-id").and_then(|e| Some((e.value, e.site()?)));
        if let Some((id, loc)) = found {
            let clash = ids
                .iter()
                .find(|(i, other)| *i == id && !metadata_apart(ctx, gie, other));
            if let Some((_, other)) = clash {
                let other = &other.name;
                out.push(
                    Diagnostic::new(
                        Rule::DuplicateGieId,
                        loc.file,
                        loc.spans.value(),
                        format!("gie-unique-id {id} is also used by [{other}]"),
                    )
                    .expected("a unique id per inference element")
                    .why("metadata from the two elements is indistinguishable and secondaries attach to the wrong one"),
                );
            }
            ids.push((id, gie));
        }
    }
    // The id each inference element carries. An nvinfer whose config was
    // read and that nothing gives an id carries nvinfer's DEFAULT_UNIQUE_ID
    // (15, `gstnvinfer.cpp` `gst_nvinfer_init`); one whose config is outside
    // the tree or not loaded, an nvinferserver's (its default is not
    // nvinfer's), or an id dslint cannot know may be the one named: silent
    // (Precision 5).
    // nvdsvideotemplate runs a custom library that may attach objects
    // under an id of its own (the parallel app puts one in a primary's
    // place): with one in the pipeline, the ids objects carry are not known.
    let template = p.elements.iter().any(|e| {
        e.factory.as_deref() == Some("nvdsvideotemplate")
            || matches!(&e.role, Role::Other(f) if f == "nvdsvideotemplate")
    });
    let carried: Option<Vec<i64>> = p
        .infers()
        .map(|g| match g.int("gie-unique-id") {
            Some(e) => Some(e.value),
            None if g.unknown("gie-unique-id") => None,
            None if matches!(g.role, Role::Infer(_)) && g.config.is_some() => Some(NVINFER_DEFAULT_UNIQUE_ID),
            None => None,
        })
        .collect::<Option<Vec<i64>>>()
        .filter(|_| !template);
    for gie in p.secondaries() {
        let found = gie.int("operate-on-gie-id").and_then(|e| Some((e.value, e.site()?)));
        if let (Some((id, loc)), Some(carried)) = (found, &carried) {
            if id >= 0 && !carried.contains(&id) {
                let known: Vec<String> = carried.iter().map(|i| i.to_string()).collect();
                out.push(
                    Diagnostic::new(
                        Rule::OperateOnUnknownGie,
                        loc.file,
                        loc.spans.value(),
                        format!("operate-on-gie-id {id} names no inference element"),
                    )
                    .expected(format!("one of {}", known.join(", ")))
                    .why("the secondary never sees an object and silently does nothing"),
                );
            }
        }
    }
}

/// The id deepstream-app gives an inference group when it checks that they
/// differ: the group's own `gie-unique-id`, or 0 where it sets none (the
/// app's config struct is zeroed, `g_malloc0` in `deepstream_app_main.c`;
/// `parse_gie` sets `unique_id` only from the key; `parse_config_file`
/// then compares every enabled `[secondary-gie…]` with `[primary-gie]` and
/// with each other). The nvinfer config file's own `gie-unique-id` plays no
/// part in that check.
#[derive(Debug, Clone, Copy)]
struct AppGieId {
    id: i64,
    /// Set in the group (else the zero the app starts from).
    explicit: bool,
}

/// Whether a group the app compares builds an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GroupState {
    On,
    /// Written, but off: deepstream-app still compares its id.
    Off,
    /// Not in the config: its struct keeps the zero it starts with.
    Absent,
}

/// A group whose id the app has compared (or will compare) with the next.
struct Compared {
    id: AppGieId,
    name: String,
    state: GroupState,
}

/// Which app parses the config, and so which ids it compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IdReader {
    /// deepstream-app (`parse_config_file`, `parse_config_file_yaml`):
    /// every enabled secondary with `[primary-gie]` (on, off or absent) and
    /// with each other.
    App { yaml: bool },
    /// deepstream-parallel-infer (`parse_config_file_yaml`,
    /// `deepstream_parallel_infer_config_parser.cpp`): the secondaries of the
    /// `i`-th `secondary-gie*` fragment with the `i`-th primary slot and with
    /// each other; nothing across slots (two branches' primaries are never
    /// compared).
    Parallel,
}

/// DS706 where the app itself refuses the config: the ids it compares, as
/// it reads them (see [`AppGieId`]).
struct AppGieIds {
    reader: IdReader,
    /// A YAML `secondary-gie…` map without `enable` sets `gie-unique-id`:
    /// `parse_gie_yaml` reads every key of it (it returns early only for an
    /// `enable` written false) into the slot of the next secondary, which
    /// stays off, so the next enabled one keeps that id when it sets none
    /// (case `clean-yaml-secondary-slot-reused`): such a secondary's id is
    /// not known. The key-file `parse_gie` returns before any key when
    /// `enable` is 0 or missing.
    secondary_slot_reused: bool,
    /// The parallel app's primary slots are not known as dslint reads
    /// them: a `primary-gie*` map without `enable` that sets
    /// `gie-unique-id` leaves it in the slot the next primary is parsed
    /// into, or a counted group is repeated at the top level.
    unknown: bool,
    /// The groups compared so far: deepstream-app's `[primary-gie]` (also
    /// when off or absent) and enabled secondaries; the parallel app's
    /// current slot (its primary and secondaries).
    compared: Vec<Compared>,
}

impl AppGieIds {
    fn new(ws: &crate::model::workspace::Workspace, p: &Pipeline) -> Option<AppGieIds> {
        let doc = &ws.files[p.root].doc;
        let yaml = doc.format != crate::syntax::Format::KeyFile;
        let reader = match ws.files[p.root].kind {
            Some(Kind::App) => IdReader::App { yaml },
            Some(Kind::ParallelApp) => IdReader::Parallel,
            _ => return None,
        };
        let secondary_slot_reused = yaml
            && doc.group_names().into_iter().any(|g| {
                g.starts_with("secondary-gie")
                    && doc.get(g, "enable").is_none()
                    && doc.get(g, "gie-unique-id").is_some()
            });
        let unknown = reader == IdReader::Parallel
            && (crate::model::frontend::parallel::counted_group_repeated(ws, p.root)
                || doc.group_names().into_iter().any(|g| {
                    g.starts_with("primary-gie")
                        && doc.get(g, "enable").is_none()
                        && doc.get(g, "gie-unique-id").is_some()
                }));
        let mut compared = Vec::new();
        // deepstream-app compares each enabled secondary with
        // `primary_gie_config.unique_id` whether or not `[primary-gie]` is
        // on: where it builds no element, the id is what its parser left.
        let primary_built = p.infers().any(|e| e.name == "primary-gie");
        if matches!(reader, IdReader::App { .. }) && !primary_built {
            let zero = AppGieId { id: 0, explicit: false };
            let (state, id) = if !doc.has_group("primary-gie") {
                (GroupState::Absent, Some(zero))
            } else if !yaml {
                // `parse_gie` returns before any key unless `enable` reads
                // as a non-zero integer.
                (GroupState::Off, Some(zero))
            } else {
                // `parse_gie_yaml` returns early only for an `enable`
                // written 0; without one it reads every key (and the group
                // stays off). Any other `enable` (`false`: yaml-cpp's
                // integer conversion throws) is not known.
                let value = |k| doc.get("primary-gie", k).map(|e| e.value.as_deref().map(str::trim));
                let id = match value("enable") {
                    Some(v) => (v.and_then(glib::parse_int) == Some(0)).then_some(zero),
                    None => match value("gie-unique-id") {
                        None => Some(zero),
                        Some(v) => v.and_then(glib::parse_int).map(|id| AppGieId { id, explicit: true }),
                    },
                };
                (GroupState::Off, id)
            };
            if let Some(id) = id {
                compared.push(Compared {
                    id,
                    name: "primary-gie".into(),
                    state,
                });
            }
        }
        Some(AppGieIds {
            reader,
            secondary_slot_reused,
            unknown,
            compared,
        })
    }

    /// The parallel app starts a new slot at each primary and video
    /// template; a video template's slot compares its secondaries with a
    /// primary struct dslint does not follow (left out).
    fn enter(&mut self, e: &Element) {
        if self.reader != IdReader::Parallel {
            return;
        }
        let head = matches!(e.role, Role::Infer(Stage::Primary) | Role::InferServer(Stage::Primary))
            || matches!(&e.role, Role::Other(f) if f == "nvdsvideotemplate");
        if head {
            self.compared.clear();
        }
    }

    /// DS706 for `gie` when the app refuses its id: the same as one it
    /// already compared it with.
    fn check(&mut self, gie: &Element) -> Option<Diagnostic> {
        if self.unknown {
            return None;
        }
        let mine = self.of(gie)?;
        let clash = self
            .compared
            .iter()
            .find(|o| o.id.id == mine.id)
            .map(|o| (o.id, o.name.clone(), o.state));
        self.compared.push(Compared {
            id: mine,
            name: gie.name.clone(),
            state: GroupState::On,
        });
        let (other, other_name, state) = clash?;
        Some(app_refuses_id(self.reader, gie, mine, other, &other_name, state))
    }

    /// `None` when unknown: an id the app cannot read (it refuses the file
    /// for that), or an element that is not one of its inference groups.
    fn of(&self, gie: &Element) -> Option<AppGieId> {
        let from_group = gie
            .prop("gie-unique-id")
            .and_then(|p| p.settings.iter().rev().find(|s| s.layer == Layer::Element));
        if let Some(s) = from_group {
            let crate::model::graph::Value::Known(v) = &s.value else {
                return None;
            };
            return glib::parse_int(v).map(|id| AppGieId { id, explicit: true });
        }
        let implicit = match self.reader {
            IdReader::App { .. } => {
                let secondary = gie.name.starts_with("secondary-gie");
                gie.name == "primary-gie" || (secondary && !self.secondary_slot_reused)
            }
            // Every inference element of the parallel app is one of its
            // groups or fragment maps, parsed into a zeroed slot.
            IdReader::Parallel => true,
        };
        (implicit && gie.declared.is_some()).then_some(AppGieId { id: 0, explicit: false })
    }
}

/// DS706 where the app refuses the config because `gie`'s id is one it
/// already compared: ("Non unique gie ids found", `parse_config_file`,
/// `deepstream_app_config_parser.c`; the same check in the YAML and the
/// parallel app's readers).
fn app_refuses_id(
    reader: IdReader,
    gie: &Element,
    mine: AppGieId,
    other: AppGieId,
    other_name: &str,
    state: GroupState,
) -> Diagnostic {
    let id = mine.id;
    let (file, span) = match (mine.explicit, gie.int("gie-unique-id").and_then(|e| e.site())) {
        (true, Some(site)) => (site.file, site.spans.value()),
        _ => gie
            .declared
            .as_deref()
            .map(crate::model::graph::Home::at)
            .unwrap_or_default(),
    };
    let (app, source) = match reader {
        IdReader::App { yaml: false } => ("deepstream-app", "parse_config_file, deepstream_app_config_parser.c"),
        IdReader::App { yaml: true } => (
            "deepstream-app",
            "parse_config_file_yaml, deepstream_app_config_parser_yaml.cpp",
        ),
        IdReader::Parallel => (
            "deepstream-parallel-infer",
            "parse_config_file_yaml, deepstream_parallel_infer_config_parser.cpp",
        ),
    };
    let me = &gie.name;
    let message = match (state, mine.explicit, other.explicit) {
        (GroupState::On, false, false) => {
            format!("[{me}] and [{other_name}] set no gie-unique-id: {app} gives both 0")
        }
        (GroupState::On, false, true) => {
            format!("[{me}] sets no gie-unique-id, so {app} gives it 0, the id [{other_name}] sets")
        }
        (GroupState::On, true, false) => {
            format!("gie-unique-id {id} is the id {app} gives [{other_name}], which sets none")
        }
        (GroupState::On, true, true) => format!("gie-unique-id {id} is also used by [{other_name}]"),
        (GroupState::Off, false, _) => format!(
            "[{me}] sets no gie-unique-id, so {app} gives it 0, the id it still compares for [{other_name}], which is off"
        ),
        (GroupState::Off, true, false) => {
            format!("gie-unique-id {id} is the id {app} still compares for [{other_name}], which is off")
        }
        (GroupState::Off, true, true) => {
            format!("gie-unique-id {id} is also set in [{other_name}], which is off but still read and compared")
        }
        (GroupState::Absent, false, _) => format!(
            "[{me}] sets no gie-unique-id, so {app} gives it 0, the id it compares for the missing [{other_name}]"
        ),
        (GroupState::Absent, true, _) => {
            format!("gie-unique-id {id} is the id {app} compares for the missing [{other_name}]")
        }
    };
    // The app's words: a secondary against the primary, or two secondaries.
    let refusal = if other_name.starts_with("primary-gie") {
        "Non unique gie ids found".to_string()
    } else {
        format!("Non unique gie id {id} found")
    };
    let compares = match (reader, state) {
        (IdReader::Parallel, _) => format!(
            "{app} compares the ids each branch's primary-gie group and its secondary-gie fragment's maps set (0 where one sets none; an id in the nvinfer config file does not count)"
        ),
        (_, GroupState::On) => format!(
            "{app} compares the ids its groups set (0 where a group sets none; an id in the nvinfer config file does not count)"
        ),
        _ => format!(
            "{app} compares every enabled secondary's id with [primary-gie]'s, on or not (0 where that group is missing, sets none, or is skipped unread; an id in the nvinfer config file does not count)"
        ),
    };
    let expected = match reader {
        IdReader::Parallel => {
            "a gie-unique-id in each GIE group and secondary map the app reads, unique within a branch"
        }
        IdReader::App { .. } => {
            "a gie-unique-id in each enabled GIE group of the app config, unique per inference element"
        }
    };
    Diagnostic::new(Rule::DuplicateGieId, file, span, message)
        .expected(expected)
        .why(format!("{compares} and refuses the config: \"{refusal}\" ({source})"))
}

/// Whether two inference elements that share a `gie-unique-id` are known
/// to write no metadata a reader could confuse: one is an nvinfer with
/// `network-type=100` ("other": `NvDsInferContextImpl` runs no output
/// parser, so it attaches no object, classifier or segmentation metadata,
/// `gstnvinfer_meta_utils.cpp`), and that one writes no tensor metadata
/// (`output-tensor-meta` off) or the other one writes none. A secondary's
/// `operate-on-gie-id` then still finds only the other's objects, and a
/// reader of tensor metadata by `unique_id` (nvdspostprocess, a probe)
/// finds only one element's tensors. The id also picks an nvinfer's input
/// when it reads nvdspreprocess tensors (`input-tensor-meta`: a batch is
/// taken when its `target_unique_ids` holds the id, `gstnvinfer.cpp`
/// `gst_nvinfer_process_tensor_input`), so two that may both do so are not
/// apart. Unknown values (an nvinferserver, a config not read, a value set
/// by an expression) are not known apart.
///
/// An nvinferserver whose config dslint read is known as nvinfer is: its
/// `infer_config.postprocess` `other {}` is nvinfer's `network-type=100`
/// (`GstNvInferServerImpl::isOtherNetowrk`; `OtherPostprocessor` parses
/// nothing, so no object, classifier or segmentation metadata), unless an
/// `extra.custom_process_funcion` may attach its own; it writes tensor
/// metadata only with `output_control { output_tensor_meta: true }`
/// (`needOutputTensorMeta`, gstnvinferserver_impl.cpp). NVIDIA's TAO
/// pose-classification sample runs its PeopleNet and BodyPose3DNet as such
/// a pair under Triton too (case `clean-other-network-nvinferserver`).
fn metadata_apart(ctx: &Ctx, a: &Element, b: &Element) -> bool {
    let may_read_tensors = |e: &Element| {
        ["input-tensor-meta", "input-tensor-from-meta"]
            .iter()
            .any(|k| e.unknown(k) || e.flag(k).is_some_and(|f| f.value) || (e.str(k).is_some() && e.flag(k).is_none()))
    };
    if may_read_tensors(a) && may_read_tensors(b) {
        return false;
    }
    // An nvinferserver's config, when dslint read it as one.
    let server_doc = |e: &Element| {
        let c = e.config.as_ref().filter(|c| c.kind == Some(Kind::NvInferServer))?;
        matches!(e.role, Role::InferServer(_)).then(|| &ctx.ws.files[c.file].doc)
    };
    let other = |e: &Element| {
        (matches!(e.role, Role::Infer(_)) && e.int("network-type").is_some_and(|t| t.value == 100))
            || server_doc(e).is_some_and(|d| {
                d.last_group("infer_config.postprocess.other").is_some()
                    && d.get("infer_config.extra", "custom_process_funcion").is_none()
            })
    };
    let no_tensors = |e: &Element| {
        (matches!(e.role, Role::Infer(_))
            && !e.unknown("output-tensor-meta")
            && match e.flag("output-tensor-meta") {
                Some(f) => !f.value,
                None => e.str("output-tensor-meta").is_none() && e.config.is_some(),
            })
            || server_doc(e).is_some_and(|d| {
                d.get("output_control", "output_tensor_meta")
                    .is_none_or(|v| v.value.as_deref().is_some_and(|v| v.trim() == "false"))
            })
    };
    let apart = |o: &Element, q: &Element| other(o) && (no_tensors(o) || no_tensors(q));
    apart(a, b) || apart(b, a)
}
