//! R2: nvinfer (DS201–DS208). DS202, DS205, DS206 and DS207 apply to every
//! nvinfer; DS201, DS203 and DS204 to the primary one.

use crate::base::diagnostic::Diagnostic;
use crate::base::edit::Fix;
use crate::base::rule::{Rule, When};
use crate::model::detect::Kind;
use crate::model::graph::{Element, Home, Layer, Pipeline, Role, Site, Stage, Value};
use crate::model::workspace::Target;
use crate::rules::context::{Ctx, Profile, origin, site};
use crate::syntax::glib;

/// The effective text of a key and the line that writes it.
fn written_str<'e>(inf: &'e Element, key: &str) -> Option<(&'e str, &'e Site)> {
    let e = inf.str(key)?;
    Some((e.value, e.site()?))
}

/// Keys that give nvinfer a model it builds an engine from by itself (DS
/// 9.1 `TrtModelBuilder::buildModel`: a TAO model through
/// `NvDsInferCudaEngineGetFromTltModel`; `buildNetwork`: ONNX).
const BUILT_IN_SOURCE_KEYS: &[&str] = &["onnx-file", "tlt-encoded-model"];

/// Keys that give nvinfer a model only through a custom library
/// (`custom-lib-path`): DS 9.1's `TrtModelBuilder::buildNetwork` has no
/// Caffe or UFF parser (a custom library's `NvDsInferCreateModelParser`, or
/// else ONNX, else "failed to build network since there is no model file
/// matched"), and a custom network config or engine-create function is read
/// by the library (`buildModel` looks them up in it).
const LIBRARY_SOURCE_KEYS: &[&str] = &[
    "uff-file",
    "model-file",
    "proto-file",
    "custom-network-config",
    "engine-create-func-name",
];

/// Whether nvinfer has a model to build an engine from. A config with none
/// (an engine-only one, or a Caffe/UFF model with no custom library) can
/// only deserialize its engine.
fn has_model_source(inf: &Element) -> bool {
    let set = |k: &&str| inf.str(k).is_some_and(|v| !v.value.trim().is_empty());
    BUILT_IN_SOURCE_KEYS.iter().any(set) || (set(&"custom-lib-path") && LIBRARY_SOURCE_KEYS.iter().any(set))
}

/// Keys of a Caffe (`model-file`, `proto-file`) or UFF (`uff-file`) model.
const CAFFE_UFF_KEYS: &[&str] = &["model-file", "proto-file", "uff-file"];

/// What the release that runs the configs does with a Caffe or UFF model
/// and no custom library (DS205's why), by `[options] deepstream-version`.
/// DS 6.x ran on TensorRT 8 (NVIDIA's Readme First: 8.0.1 in 6.0, 8.4.1.5
/// in 6.1.1, 8.5.2.2 in 6.2), whose Caffe and UFF parsers its nvinfer used
/// (its guide lists `model-file`, `proto-file` and `uff-file` among
/// nvinfer's model keys): it builds the engine. DS 8.0 on runs TensorRT 10
/// (8.0's Migration Guide: 10.9), which has neither parser, and DS 9.1's
/// `TrtModelBuilder::buildNetwork` none of its own ("failed to build
/// network since there is no model file matched"): it fails to start. 7.x
/// is not shown either way here, so it reads as unknown.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CaffeUff {
    Built,
    Fails((u32, u32)),
    Unknown,
}

fn caffe_uff(version: Option<(u32, u32)>) -> CaffeUff {
    match version {
        Some(v) if v.0 <= 6 => CaffeUff::Built,
        Some(v) if v.0 >= 8 => CaffeUff::Fails(v),
        _ => CaffeUff::Unknown,
    }
}

/// Whether nvinfer gets its engine from a function rather than its own ONNX
/// build (`TrtModelBuilder::buildModel`): a custom `engine-create-func-name`,
/// or a TAO model (`tlt-encoded-model`, built by
/// `NvDsInferCudaEngineGetFromTltModel`). `getCudaEngineFromCustomLib` then
/// keeps INT8 without a calibration table (no FP16 fallback).
///
/// So, perhaps, does a network only a custom library builds (a
/// `custom-lib-path` and no ONNX or TAO model: `custom-network-config`, a
/// Caffe or UFF model): without `engine-create-func-name`, `buildModel`
/// still looks up the library's deprecated `NvDsInferCudaEngineGet` and,
/// when it is exported, builds through it (`getCudaEngineFromCustomLib`,
/// INT8 kept); otherwise the library's `NvDsInferCreateModelParser` parses
/// the network and `configCommonOptions` falls back to FP16. Which the
/// library exports is not in the config: unknown, as for a named function.
fn engine_from_function(inf: &Element) -> bool {
    let set = |k: &&str| inf.str(k).is_some_and(|e| !e.value.trim().is_empty());
    ["engine-create-func-name", "tlt-encoded-model"].iter().any(set) || library_network(inf)
}

/// DS205's why where only a custom library gives the network
/// ([`library_network`]), its engine `missing` or not set. Out of line:
/// rare, and kept out of `check`'s body, which runs for every nvinfer.
#[cold]
#[inline(never)]
fn library_builds_why(missing: bool) -> &'static str {
    if missing {
        "nvinfer can build this engine only through the custom library (no ONNX or TAO model; DS 9.1 has no Caffe or UFF parser of its own): TrtModelBuilder::buildModel takes the library's NvDsInferCudaEngineGet, buildNetwork its NvDsInferCreateModelParser; a library that exports either rebuilds the engine at start, inside any profile (ENGINE_BUILD_CONTAMINATED), one that exports neither fails to start without it"
    } else {
        "nvinfer can build this engine only through the custom library (no ONNX or TAO model; DS 9.1 has no Caffe or UFF parser of its own): TrtModelBuilder::buildModel takes the library's NvDsInferCudaEngineGet, buildNetwork its NvDsInferCreateModelParser; a library that exports either builds the engine at every start (minutes inside every run and profile), one that exports neither fails to start without it"
    }
}

/// Whether only a custom library can give nvinfer a network: a
/// `custom-lib-path` and no ONNX or TAO model. DS 9.1's
/// `TrtModelBuilder::buildModel` then takes the library's engine-create
/// function (named, or the deprecated `NvDsInferCudaEngineGet` it looks up
/// unnamed), else `buildNetwork` its `NvDsInferCreateModelParser`; it has
/// no Caffe or UFF parser of its own, so a library that exports none of
/// them builds nothing ("failed to build network since there is no model
/// file matched"). Which it exports is not in the config.
fn library_network(inf: &Element) -> bool {
    let set = |k: &&str| inf.str(k).is_some_and(|e| !e.value.trim().is_empty());
    set(&"custom-lib-path") && !BUILT_IN_SOURCE_KEYS.iter().any(set)
}

/// Whether the network nvinfer builds is known to take its precision from
/// `network-mode`: an ONNX model in the tree, read to its end, with no Q/DQ
/// node (`model::onnx`), and no `strongly-typed` on. An explicitly
/// quantized model (QuantizeLinear/DequantizeLinear, as NVIDIA ships
/// `resnet34_peoplenet_int8.onnx`) runs INT8 with its own scales whatever
/// flag `configCommonOptions` sets: TensorRT builds any network with Q/DQ
/// layers with explicit quantization, and ignores a calibrator there. A
/// strongly typed network (`strongly-typed`, `useStronglyTyped`:
/// `kSTRONGLY_TYPED`, `TrtModelBuilder::buildNetwork`) takes its types from
/// the model, not from precision flags. A model not in the tree, a Git LFS
/// pointer or one not read is unknown.
fn precision_from_network_mode(ctx: &Ctx, inf: &Element) -> bool {
    let Some((v, loc)) = written_str(inf, "onnx-file").filter(|(v, _)| !v.trim().is_empty()) else {
        return false;
    };
    !may_be_strongly_typed(inf)
        && matches!(
            ctx.ws.resolve(loc.file, v),
            Some(Target::Exists(p)) if ctx.ws.model_has_qdq_nodes(&p) == Some(false)
        )
}

/// Whether the nvinfer may build a strongly typed network, whose types
/// TensorRT takes from the model, not from network-mode's builder flags
/// (`kSTRONGLY_TYPED`, `TrtModelBuilder::buildNetwork`). Unset is off
/// (`DEFAULT_STRONGLY_TYPED`); a value no boolean reader takes, or one not
/// known, may be on.
fn may_be_strongly_typed(inf: &Element) -> bool {
    inf.prop("strongly-typed")
        .and_then(|p| p.effective())
        .is_some_and(|s| match &s.value {
            Value::Known(v) => glib::parse_bool(v) != Some(false),
            Value::Unknown(_) => true,
        })
}

/// The precision TensorRT builds in, as nvinfer names the engine it saves
/// (`nvdsinfer_model_builder.cpp` `TrtModelBuilder::configCommonOptions`
/// and `getCudaEngineFromCustomLib`): INT8 (1) and BEST (3) without an
/// INT8 calibrator fall back to FP16, unless a custom engine-create
/// function sets dynamic ranges itself. `None`: not known (BEST with a
/// calibrator, whose name nvinfer derives per build; a calibration file
/// outside the tree; a custom engine-create function).
fn built_precision(mode: i64, has_calib: Option<bool>, custom_engine: bool) -> Option<&'static str> {
    match (mode, has_calib) {
        (0, _) => Some("fp32"),
        (2, _) => Some("fp16"),
        (1, Some(true)) => Some("int8"),
        (1 | 3, Some(false)) if !custom_engine => Some("fp16"),
        _ => None,
    }
}

/// Check one nvinfer (in pipeline `p`, or on its own) whose config file is
/// an nvinfer config with a `[property]` group.
pub fn check(ctx: &Ctx, inf: &Element, p: Option<&Pipeline>, out: &mut Vec<Diagnostic>) {
    let ws = ctx.ws;
    let Some(config) = inf.config.as_ref().filter(|_| inf.config_is(Kind::NvInfer)) else {
        return;
    };
    let Some(prop) = &config.home else { return };
    let (prop_file, prop_span) = prop.at();
    let primary = inf.role == Role::Infer(Stage::Primary);
    let batch = inf.int("batch-size");
    // The batch nvinfer builds and checks engines for. A config checked on
    // its own has no known loader, and a loader may set `batch-size` on the
    // element: `gst_nvinfer_parse_props` (gstnvinfer_property_parser.cpp)
    // then skips the file's (`is_prop_set[PROP_BATCH_SIZE]`), as NVIDIA's
    // deepstream-test3 does with its number of sources. Unknown there.
    let batch_known = batch.as_ref().filter(|_| p.is_some()).map(|e| e.value);
    if primary {
        check_primary_batch(ctx, inf, p, out);
    }
    // DS202 / DS206: precision.
    let mode = inf.int("network-mode").map(|e| e.value);
    let calib = inf.str("int8-calib-file").map(|e| e.value);
    let calib_target = calib
        .filter(|c| !c.trim().is_empty())
        .and_then(|c| ws.resolve(config.file, c));
    // Unset (or empty): no table. Written but naming no file the tree can
    // show (a template's `{{ calib_dir }}/cal.bin`, a path into the
    // DeepStream install from a vendored deepstream_python_apps:
    // `Workspace::resolve` gives `None`) or outside the root: unknown.
    let calib_written = calib.is_some_and(|c| !c.trim().is_empty());
    let has_calib = match &calib_target {
        Some(Target::Exists(_)) => Some(true),
        // A table the project's own `.gitignore` excludes (made by a
        // calibration run, or fetched with the model) is in no clone:
        // whether it is there where the app runs is unknown
        // (`Workspace::git_ignored`), as DS704 holds for a model file.
        Some(Target::Missing(p)) if ws.git_ignored(p) => None,
        Some(Target::Missing(_)) => Some(false),
        None if !calib_written => Some(false),
        None | Some(Target::Outside(_)) => None,
    };
    let want = match has_calib {
        Some(true) => Some(1),
        Some(false) => Some(2),
        None => None,
    };
    let mode_loc = site(inf, "network-mode");
    let engine = written_str(inf, "model-engine-file");
    // Resolved once: DS202/DS206, DS205 and DS207 each ask where it is.
    let engine_place = engine.as_ref().map(|(v, loc)| EnginePlace::of(ctx, v, loc));
    // Precision 6: an engine with no model source is deserialized as it is;
    // network-mode does not change it, and nothing rebuilds it. With no
    // model source and no engine nothing is built either.
    let model_source = has_model_source(inf);
    let engine_only = !model_source;
    // An engine outside the tree (or not a plain path) may exist: if it
    // does, it is deserialized and network-mode changes nothing; whether it
    // does is unknown (Precision 5), so neither DS202 nor DS206 speaks. So
    // is one the project's `.gitignore` excludes, unless its name says it
    // was built for a smaller batch (refused wherever it is).
    let engine_unknown = engine
        .as_ref()
        .zip(engine_place.as_ref())
        .is_some_and(|((v, _), at)| engine_usable(v, at, batch_known.or(p.map(|_| 1))).is_none());
    // A network-mode written as something no integer reader takes (a
    // template's `{{network_mode}}`, a `$VAR`) is not unset: its value is
    // unknown (what nvinfer does with it is DS003's), so DS202/DS206 are
    // silent rather than claiming the FP32 default.
    let mode_unreadable = mode.is_none() && mode_loc.is_some();
    let precision = if engine_only || engine_unknown || mode_unreadable {
        None
    } else {
        mode.or(Some(0))
    };
    match precision.unwrap_or(3) {
        1 => {
            // Precision 6: the calibration table is read only to build an
            // engine (`TrtModelBuilder::configCommonOptions`); an engine that
            // exists and takes the batch is deserialized first and used
            // (`NvDsInferContextImpl::generateBackendContext`). One outside
            // the tree may exist: unknown.
            let batch_now = batch_known.or(p.map(|_| 1));
            let engine_used = engine
                .as_ref()
                .zip(engine_place.as_ref())
                .is_some_and(|((v, _), at)| engine_usable(v, at, batch_now) != Some(false));
            // A custom engine-create function keeps INT8 without a table
            // (`getCudaEngineFromCustomLib` only warns: "INT8 calibration
            // can be done through setDynamicRange API"); such libraries
            // often calibrate and write the table themselves: unknown. A
            // TAO model is built the same way (`buildModel` hands it to
            // `NvDsInferCudaEngineGetFromTltModel` as such a function).
            let custom_engine = engine_from_function(inf);
            // An explicitly quantized (Q/DQ) or strongly typed network runs
            // the precision the model says, with or without a table:
            // unknown unless the model in the tree shows neither.
            if has_calib == Some(false) && !engine_used && !custom_engine && precision_from_network_mode(ctx, inf) {
                let (file, span) = mode_loc
                    .as_ref()
                    .map_or((prop_file, prop_span.clone()), |l| (l.file, l.spans.value()));
                let what = match &calib_target {
                    Some(Target::Missing(p)) => format!(
                        "network-mode=1 (INT8) but int8-calib-file {} does not exist",
                        crate::files::shown(p)
                    ),
                    _ => "network-mode=1 (INT8) but no int8-calib-file is set".to_string(),
                };
                // A table that is named but not in the tree is machine state
                // (Precision 9), as DS704 treats a missing model file: a
                // download script often fetches it with the model.
                let named_missing = matches!(calib_target, Some(Target::Missing(_)));
                out.push(
                    Diagnostic::new(Rule::Int8CalibMissing, file, span, what)
                        .when(When::BuildInputMissing, named_missing)
                        .expected("an existing calibration table, or network-mode=2 (FP16)")
                        .why("nvinfer builds the engine without a calibration table: TensorRT cannot calibrate INT8 and nvinfer builds FP16 instead, so the INT8 the config asks for never runs"),
                );
            }
        }
        3 => {}
        m => {
            // A strongly typed network takes no precision from network-mode:
            // silent. Otherwise FP32 (0) is always slower than FP16 (2):
            // nvinfer sets kFP16 only for 2 (and BEST), building from the
            // model (`TrtModelBuilder::configCommonOptions`) and through a
            // custom library or TAO (`getCudaEngineFromCustomLib`) alike, and
            // on an explicitly quantized (Q/DQ) model it lets the layers
            // outside the Q/DQ pairs run FP16 too. Whether INT8 (1) is the
            // faster mode is known only where the model is read and has no
            // Q/DQ node: TensorRT ignores a calibrator on a Q/DQ network, and
            // 1 sets kINT8 without kFP16, so those layers would run FP32
            // (asked last: it may read the model).
            let strongly_typed = may_be_strongly_typed(inf);
            let want = match want {
                Some(1) | None
                    if !strongly_typed && (m == 0 || want == Some(1)) && !precision_from_network_mode(ctx, inf) =>
                {
                    Some(2)
                }
                w => w,
            };
            let flagged = !strongly_typed && (m == 0 || want.is_some_and(|w| w != m));
            if flagged {
                let w = want.unwrap_or(2);
                let expected = match want {
                    Some(1) => "1 (INT8: the calibration file exists)".to_string(),
                    Some(_) => "2 (FP16)".to_string(),
                    None => "2 (FP16), or 1 (INT8) if the calibration file exists".to_string(),
                };
                let name = match m {
                    0 => "FP32",
                    1 => "INT8",
                    2 => "FP16",
                    _ => "unknown",
                };
                let fix = match &mode_loc {
                    Some(l) => Some(ctx.set_value(l, &w.to_string())),
                    None => ctx.insert(prop, "network-mode", &w.to_string()),
                };
                let (file, span) = mode_loc
                    .as_ref()
                    .map_or((prop_file, prop_span.clone()), |l| (l.file, l.spans.value()));
                let msg = if mode.is_none() {
                    "network-mode is not set: nvinfer defaults to 0 (FP32)".to_string()
                } else {
                    format!("network-mode is {m} ({name})")
                };
                out.push(
                    Diagnostic::new(Rule::NetworkMode, file, span, msg)
                        .expected(expected)
                        .why("FP16 runs about twice as fast as FP32 on Tensor Cores, INT8 faster again; the precision changes results, so the fix is unsafe")
                        .fix(fix.map(|e| Fix::unsafe_(format!("set network-mode={w}"), vec![e]))),
                );
            }
        }
    }
    if primary {
        check_interval(ctx, inf, p, out);
        check_infer_dims(ctx, inf, prop, out);
    }
    // DS205: a serialized engine that exists. Whether it exists is the
    // machine's state (engines are build products, often git-ignored):
    // info, a warning in the bench profile where a build ruins the profile
    // (Precision 9).
    let bench = ctx.profile == Profile::Bench;
    // With no model nvinfer can build from, a missing engine is not a build
    // at start but a failed start (`NvDsInferContextImpl::buildModel`:
    // "build engine file failed").
    let caffe_or_uff = CAFFE_UFF_KEYS
        .iter()
        .any(|k| inf.str(k).is_some_and(|v| !v.value.trim().is_empty()));
    let release = caffe_uff(ctx.deepstream_version);
    // A Caffe or UFF model on a release that builds it (DS 6.x) is a model
    // nvinfer builds the engine from, as ONNX is.
    let builds = model_source || (caffe_or_uff && release == CaffeUff::Built);
    // A network only a custom library gives, with no engine-create function
    // named (`library_network`): built at start if the library exports
    // `NvDsInferCudaEngineGet` or a model parser, a failed start if it
    // exports neither; the config does not say which. Not so for a Caffe or
    // UFF model on DS 6.x, whose own parsers build it.
    // Asked only where a DS205 finding is made.
    let library_only = || {
        library_network(inf)
            && inf
                .str("engine-create-func-name")
                .is_none_or(|e| e.value.trim().is_empty())
            && !(caffe_or_uff && release == CaffeUff::Built)
    };
    let no_build: std::borrow::Cow<'static, str> = match release {
        _ if !caffe_or_uff => "nvinfer has no model it can build an engine from (DS 9.1 builds ONNX and TAO models; Caffe and UFF only through a custom library's parser, TrtModelBuilder::buildNetwork): without the engine it fails to start".into(),
        CaffeUff::Fails((major, minor)) => format!(
            "DeepStream {major}.{minor} runs TensorRT 10 or later, which has no Caffe or UFF parser, and its nvinfer has none of its own (TrtModelBuilder::buildNetwork builds ONNX and TAO models; Caffe and UFF only through a custom library's parser): without the engine it fails to start"
        )
        .into(),
        _ => "on DeepStream 8.0 and later (TensorRT 10, no Caffe or UFF parser; DS 9.1's TrtModelBuilder::buildNetwork has none of its own) nvinfer cannot build an engine from this Caffe or UFF model and fails to start without the engine; DeepStream 6.x builds it at start (set `deepstream-version` under [options] in dslint.toml to say which release runs it)".into(),
    };
    match &engine {
        None => {
            let why: std::borrow::Cow<'static, str> = if library_only() {
                library_builds_why(false).into()
            } else if builds {
                "without it nvinfer builds the engine from the model at every start: minutes of build inside every run and profile".into()
            } else {
                no_build.clone()
            };
            out.push(
                Diagnostic::new(
                    Rule::EngineFileMissing,
                    prop_file,
                    prop_span.clone(),
                    "model-engine-file is not set",
                )
                .when(When::BenchProfile, bench)
                .expected("the path of the serialized TensorRT engine")
                .why(why),
            )
        }
        Some((v, loc)) => {
            // A trailing ` # note` is DS006's finding: report the cause once.
            let without_comment = v.find(" #").map(|i| v[..i].trim_end());
            let comment_is_the_cause =
                without_comment.is_some_and(|c| matches!(ws.resolve(loc.file, c), Some(Target::Exists(_))));
            let target = engine_place.as_ref().and_then(|at| at.target.as_ref());
            if let (Some(Target::Missing(p)), false) = (target, comment_is_the_cause) {
                let why: std::borrow::Cow<'static, str> = if library_only() {
                    library_builds_why(true).into()
                } else if builds {
                    "nvinfer rebuilds the engine from the model at start, which lands inside any profile (ENGINE_BUILD_CONTAMINATED)".into()
                } else {
                    no_build
                };
                out.push(
                    Diagnostic::new(
                        Rule::EngineFileMissing,
                        loc.file,
                        loc.spans.value(),
                        format!("model-engine-file {} does not exist", crate::files::shown(p)),
                    )
                    .when(When::BenchProfile, bench)
                    .expected("an existing engine file")
                    .why(why),
                );
            }
        }
    }
    // DS207: the engine name's batch, GPU and precision, when nvinfer will
    // build one and save it under another name (Precision 6).
    // With DLA on, nvinfer names the engine `…_dla<core>_…`, not `_gpu<G>_`
    // (`TrtModelBuilder::buildModel`: `useDLA && dlaCore >= 0`): a name of
    // the GPU form is not the one it saves, and no GPU name is right.
    let dla = inf.unknown("enable-dla")
        || inf
            .str("enable-dla")
            .is_some_and(|e| glib::parse_bool(e.value) != Some(false));
    if let (Some((v, loc)), Some(at), true, false) = (&engine, &engine_place, model_source, dla) {
        let custom_engine = engine_from_function(inf);
        let built = if mode_unreadable {
            None
        } else {
            built_precision(mode.unwrap_or(0), has_calib, custom_engine)
        };
        // The same for a batch-size no integer reader takes, or one the app
        // sets in code to a value the files do not give: unknown, not 1.
        let batch_unreadable = batch.is_none() && (site(inf, "batch-size").is_some() || inf.unknown("batch-size"));
        // DS206 reports INT8 without calibration: the FP16 name is not a
        // second finding.
        let int8_fallback = mode == Some(1) && has_calib == Some(false);
        let want = EngineWant {
            // Unset in a pipeline whose app sets none: nvinfer's default 1
            // (`NvDsInferContext_ResetInitParams`). A config checked on its
            // own may get its batch from code, set or not in the file:
            // unknown (`batch_known`).
            batch: batch_known.or(p.filter(|_| !batch_unreadable).map(|_| 1)),
            precision: built,
            precision_is_news: !int8_fallback,
        };
        check_engine_name(ctx, inf, v, loc, at, &want, out);
    }
    check_set_twice(ctx, inf, out);
}

/// Check one nvinferserver (in pipeline `p`, or on its own): the element
/// rules that do not depend on TensorRT (DS201, DS203, DS208). Its engine
/// and precision live in the Triton model repository, not in this config.
pub fn check_server(ctx: &Ctx, inf: &Element, p: Option<&Pipeline>, out: &mut Vec<Diagnostic>) {
    if inf.role == Role::InferServer(Stage::Primary) {
        check_primary_batch(ctx, inf, p, out);
        check_interval(ctx, inf, p, out);
    }
    check_set_twice(ctx, inf, out);
}

/// The element's factory as messages name it.
fn factory(inf: &Element) -> &str {
    inf.factory.as_deref().unwrap_or("nvinfer")
}

/// DS201: primary batch-size = final_batch. With nvdspreprocess in front,
/// the batch is the tensor batch (DS707).
fn check_primary_batch(ctx: &Ctx, inf: &Element, p: Option<&Pipeline>, out: &mut Vec<Diagnostic>) {
    let tensor_batch = p.is_some_and(crate::rules::cross::preprocess_feeds_primary);
    // Behind parallel-inference branches a primary batches its branch's
    // sources, not the pipeline's (DS710).
    let parallel = p.is_some_and(Pipeline::is_parallel);
    let (Some(p), Some(eff), false, false) = (p, inf.int("batch-size"), tensor_batch, parallel) else {
        return;
    };
    // deepstream-app sets the streammux's batch from `[source-list]`
    // whatever runs: the list's length (`parse_config_file`,
    // deepstream_app_config_parser.c: `num_source_sub_bins`, before
    // `create_multi_source_bin` skips the sources whose `enable` is 0), or
    // nvmultiurisrcbin's `max-batch-size` (`create_pipeline`,
    // deepstream_app.c). The primary runs one batch per streammux batch, so
    // that batch is the one it should take when the sources that run fill
    // it (DS701 asks the same); fewer running sources are the list's to
    // change (DS101). With facts the
    // measured final_batch stands (the list or `max-batch-size` is what to
    // change then: DS101); without, that batch is better than the preset.
    let measured = ctx.facts.and_then(crate::model::facts::Facts::plateau_batch).is_some();
    let forced = p
        .first(&Role::Streammux)
        .filter(|_| !measured)
        .and_then(|m| m.int("batch-size"))
        .filter(|b| b.setting.layer == Layer::Derived)
        .and_then(|b| Some((u32::try_from(b.value).ok()?, b.setting.derived.clone()?)));
    let (fb, why) = match (forced, ctx.final_batch(p)) {
        (Some((n, how)), Some((running, _))) if n == running => {
            (n, format!("deepstream-app sets the streammux batch to {n}: {how}"))
        }
        // The list sets the streammux to a batch its running sources do not
        // fill (or whose running count is unknown): whether the primary
        // should take the streammux's batch or the streams' (once the list
        // is mended, as DS101 asks) is not known, so DS201 is silent.
        (Some(_), _) => return,
        (None, Some(f)) => f,
        (None, None) => return,
    };
    if eff.value == fb as i64 {
        return;
    }
    let (file, span) = eff.at();
    let how = match (eff.setting.layer, &eff.setting.derived) {
        (_, Some(how)) => how.to_string(),
        (Layer::ConfigFile, None) => format!("{} {}", factory(inf), origin(ctx, inf, "batch-size", eff.setting)),
        _ => format!(
            "{} (set on the element, overrides the config file)",
            origin(ctx, inf, "batch-size", eff.setting)
        ),
    };
    // Without a measurement final_batch is a preset (Precision 7): only a
    // batch larger than its streams is a defect; a difference from the
    // streammux batch is DS701's.
    let proven = ctx.batch_is_proven(p, eff.value);
    out.push(
        Diagnostic::new(
            Rule::PrimaryBatchSize,
            file,
            span,
            format!("primary {} batch-size is {} ({how})", factory(inf), eff.value),
        )
        .when(When::Preset, !proven)
        .expected(fb.to_string())
        .why(format!("{why}: the engine runs one batch per streammux batch"))
        .fix(match (eff.site(), &inf.home) {
            (Some(l), _) => Some(ctx.fix_value(proven, l, format!("set batch-size={fb}"), &fb.to_string())),
            // nvinfer's default (nothing sets it): the key goes into its
            // config's `[property]`.
            (None, Some(home)) if eff.setting.layer == Layer::Default => {
                ctx.insert(home, "batch-size", &fb.to_string()).map(|e| {
                    let title = format!("add batch-size={fb}");
                    if proven {
                        Fix::safe(title, vec![e])
                    } else {
                        Fix::unsafe_(title, vec![e])
                    }
                })
            }
            _ => None,
        }),
    );
}

/// DS203: primary interval = 0.
fn check_interval(ctx: &Ctx, inf: &Element, p: Option<&Pipeline>, out: &mut Vec<Diagnostic>) {
    let Some(eff) = inf.int("interval") else { return };
    if eff.value == 0 {
        return;
    }
    // Behind parallel branches only the tracker of this primary's own
    // branch follows it.
    let has_tracker = p.is_some_and(|p| {
        if p.is_parallel() {
            p.downstream(inf).any(|e| e.role == Role::Tracker)
        } else {
            p.first(&Role::Tracker).is_some()
        }
    });
    // Unknown, so silent: a config no pipeline of dslint's loads (a C/C++
    // app's `strdup`ed path, a Python app whose config path is an
    // expression) may be followed by a tracker, and its loader may set
    // `interval` on the element, which `gst_nvinfer_parse_props`
    // (gstnvinfer_property_parser.cpp) then keeps over the file's
    // (`is_prop_set[PROP_INTERVAL]`); a pipeline that may lack elements
    // its app makes (`Pipeline::partial`: a tracker made under a condition
    // or in another function) does not show there is no tracker.
    let Some(p) = p else { return };
    if !has_tracker && p.partial {
        return;
    }
    let retention = ctx.facts.and_then(|f| f.tracker_id_retention());
    let allowed = has_tracker && retention.is_some_and(|r| r >= 0.99);
    if eff.value == 0 || allowed {
        return;
    }
    let why = if has_tracker {
        "skipping frames relies on the tracker holding IDs: allowed only when facts carry e2e.tracker_id_retention >= 0.99"
    } else {
        "with no tracker, skipped frames carry no objects at all"
    };
    if let Some(l) = eff.site() {
        out.push(
            Diagnostic::new(
                Rule::InferenceInterval,
                l.file,
                l.spans.value(),
                format!(
                    "primary {} interval is {} ({})",
                    factory(inf),
                    eff.value,
                    origin(ctx, inf, "interval", eff.setting)
                ),
            )
            .expected("0")
            .why(why)
            .fix(Some(Fix::safe("set interval=0", vec![ctx.set_value(l, "0")]))),
        );
    }
}

/// DS208's why. nvinferserver replaces its config's `max_batch_size` and
/// `unique_id` with the element's `batch-size` and `unique-id` when they
/// differ, and posts a warning saying so
/// (`GstNvInferServerImpl::validatePluginConfig`, gstnvinferserver_impl.cpp:
/// "Configuration file batch-size reset to: %d", "… unique-id reset to:
/// %d"): not silent then. Equal values, or any other key (nvinfer skips a
/// key whose property is set, `gst_nvinfer_parse_props`), go unsaid.
fn set_twice_why(inf: &Element, key: &str, over: &Value, inner: &Value) -> &'static str {
    let int = |v: &Value| match v {
        Value::Known(t) => t.trim().parse::<i64>().ok(),
        Value::Unknown(_) => None,
    };
    let differ = int(over).is_none() || int(over) != int(inner);
    match key {
        "max_batch_size" if factory(inf) == "nvinferserver" && differ => {
            "the app sets batch-size on the element after loading the config file: nvinferserver replaces the file's max_batch_size with it and warns \"Configuration file batch-size reset to\" (GstNvInferServerImpl::validatePluginConfig)"
        }
        "unique_id" if factory(inf) == "nvinferserver" && differ => {
            "the app sets unique-id on the element after loading the config file: nvinferserver replaces the file's unique_id with it and warns \"Configuration file unique-id reset to\" (GstNvInferServerImpl::validatePluginConfig)"
        }
        _ => {
            "the app sets the key on the element after loading the config file, so the config file's line is silently ignored"
        }
    }
}

/// DS208: a key set both on the element and in its config file.
fn check_set_twice(ctx: &Ctx, inf: &Element, out: &mut Vec<Diagnostic>) {
    let ws = ctx.ws;
    for prop in &inf.props {
        let last = |layer| prop.settings.iter().rev().find(|s| s.layer == layer);
        let (Some(over_set), Some(inner_set)) = (last(Layer::Element), last(Layer::ConfigFile)) else {
            continue;
        };
        let (Some(over), Some(inner)) = (over_set.site.as_ref(), inner_set.site.as_ref()) else {
            continue;
        };
        let (line, _) = ws.files[over.file].position(over.spans.key().start);
        let (inner_line, _) = ws.files[inner.file].position(inner.spans.key().start);
        out.push(
            Diagnostic::new(
                Rule::DuplicateSourceOfTruth,
                inner.file,
                inner.spans.key(),
                format!(
                    "`{}` is also set in [{}] ({}:{line}), which wins",
                    inner.key,
                    over.group,
                    crate::files::shown(&ws.files[over.file].path)
                ),
            )
            .expected("one source of truth: remove one of the two")
            .why(set_twice_why(inf, &inner.key, &over_set.value, &inner_set.value))
            .related(over.file, over.spans.key())
            .message_at_related(format!(
                "`{}` is also set in [{}] ({}:{inner_line}); this line wins",
                prop.name,
                inner.group,
                crate::files::shown(&ws.files[inner.file].path)
            )),
        );
    }
}

fn check_infer_dims(ctx: &Ctx, inf: &Element, prop: &Home, out: &mut Vec<Diagnostic>) {
    let (prop_file, prop_span) = prop.at();
    let facts_dims = ctx.facts.and_then(|f| f.model_dims());
    let entry = ["infer-dims", "input-dims", "uff-input-dims"]
        .iter()
        .find_map(|k| Some((*k, inf.prop(k)?.effective()?.site.as_ref()?, inf.prop(k)?.effective()?)));
    let color = inf.int("model-color-format").map(|e| e.value).unwrap_or(0);
    let channels = if color == 2 { 1 } else { 3 };
    // nvinfer reads the input size from the engine when the key is unset
    // (`NvDsInferContextImpl::initialize`), and `checkBackendParams`
    // refuses an engine whose dims differ from a set `infer-dims`: an
    // engine-only config, or one whose custom `engine-create-func-name`
    // builds the network, gains nothing from the key and may be broken by
    // it; so does one whose network only its custom library gives (no ONNX
    // or TAO model: `library_network`), whose network's input is the size.
    // Elsewhere its absence is advice (info) unless facts give the dims.
    let custom_engine = || inf.str("engine-create-func-name").is_some() || library_network(inf);
    match entry {
        None if !has_model_source(inf) || custom_engine() => {}
        None => {
            let fix = facts_dims.and_then(|(h, w)| ctx.insert(prop, "infer-dims", &format!("{channels};{h};{w}")));
            out.push(
                Diagnostic::new(Rule::InferDims, prop_file, prop_span, "infer-dims is not set")
                    .when(When::UnsetWithoutFacts, facts_dims.is_none())
                    .expected(match facts_dims { Some((h, w)) => format!("{channels};{h};{w}"), None => format!("{channels};H;W (set model.height/width in facts to derive it)") })
                    .why("nvinfer takes the input size from the engine when this is unset (NvDsInferContextImpl::initialize); written here, it is what streammux can be sized to (DS102) without building the engine")
                    .fix(fix.map(|e| Fix::safe("add infer-dims", vec![e]))),
            );
        }
        Some((key, site, setting)) => {
            let text = match &setting.value {
                Value::Known(v) => Some(v.as_str()),
                Value::Unknown(_) => None,
            };
            let dims: Vec<i64> = text
                .and_then(|v| glib::split_list(v).ok())
                .unwrap_or_default()
                .iter()
                .filter_map(|s| glib::parse_int(s))
                .collect();
            let want = match facts_dims {
                Some((h, w)) => Some(format!("{channels};{h};{w}")),
                None if dims.len() == 3 && dims[0] != channels => Some(format!("{channels};{};{}", dims[1], dims[2])),
                None => None,
            };
            let have = dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(";");
            if let Some(want) = want.filter(|w| *w != have) {
                out.push(
                    Diagnostic::new(Rule::InferDims, site.file, site.spans.value(), format!("{key} is {have}"))
                        .expected(want.clone())
                        .why("the input must be C;H;W with the channels the color format implies and the model's own H and W")
                        .fix(Some(Fix::safe(format!("set {key}={want}"), vec![ctx.set_value(site, &want)]))),
                );
            }
        }
    }
}

/// `<model>_b<B>_gpu<G>_<fp32|fp16|int8>.engine`, as nvinfer names the
/// engines it serializes (`TrtModelBuilder::buildModel` joins the model
/// path, `"_b"`, `std::to_string(maxBatchSize)`, `"_gpu"`, the GPU id,
/// `"_"`, `networkMode2Str(…)` and `".engine"`): B and G as
/// `std::to_string` writes them (digits, no sign, no leading zero). Other names are the user's:
/// `None` (nvinfer's `_dla<core>_` and `_best` names too, whose parts no
/// rule judges). nvinfer itself never reads the name: `checkBackendParams`
/// takes the batch from the engine (`getMaxBatchDims`); the name tells the
/// batch nvinfer built it for.
pub fn parse_engine_name(name: &str) -> Option<(usize, u32, u32, &str)> {
    let stem = name.strip_suffix(".engine")?;
    let (rest, prec) = stem.rsplit_once('_')?;
    if !matches!(prec, "fp32" | "fp16" | "int8") {
        return None;
    }
    let (rest, gpu) = rest.rsplit_once("_gpu")?;
    let (model, b) = rest.rsplit_once("_b")?;
    let number = |s: &str| {
        let plain = !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
        plain.then(|| s.parse().ok()).flatten()
    };
    Some((model.len(), number(b)?, number(gpu)?, prec))
}

/// Whether the configured engine is the one nvinfer runs
/// (`NvDsInferContextImpl::generateBackendContext` deserializes it first and
/// keeps it when `checkBackendParams` accepts it): `Some(false)` when it is
/// missing, or its name says it was built for a smaller batch than
/// `batch`; `Some(true)` when it exists (its batch read from its name when
/// the name follows nvinfer's pattern, else taken as usable); `None` when
/// it is outside the tree or not a path (unknown), or missing from a path
/// the project's own `.gitignore` excludes (`Workspace::git_ignored`: an
/// engine is a build product no clone carries, so where the app runs it may
/// exist) unless its name says it was built for a smaller batch, which
/// `checkBackendParams` refuses wherever the file is.
fn engine_usable(value: &str, at: &EnginePlace, batch: Option<i64>) -> Option<bool> {
    let base = value.rsplit('/').next().unwrap_or(value).trim_end();
    let built_for = parse_engine_name(base).map(|(_, b, _, _)| b as i64);
    let too_small = matches!((built_for, batch), (Some(b), Some(wb)) if b < wb);
    match at.target.as_ref()? {
        Target::Missing(_) if at.ignored && !too_small => None,
        Target::Missing(_) => Some(false),
        Target::Exists(_) => Some(!too_small),
        Target::Outside(_) => None,
    }
}

/// Keys of a file nvinfer opens only to build an engine: its model
/// (`TrtModelBuilder::buildModel`, reached from
/// `NvDsInferContextImpl::generateBackendContext` when no configured engine
/// was deserialized and accepted). The label file, the mean image and the
/// custom library are opened at every start (`InferPostprocessor::initResource`,
/// `InferPreprocessor::setMeanFile`, `NvDsInferContextImpl::initialize`
/// before it looks at the engine).
pub const BUILD_ONLY_KEYS: &[&str] = &["onnx-file", "model-file", "proto-file", "uff-file", "tlt-encoded-model"];

/// Whether nvinfer is known to open its model (DS704's
/// [`BUILD_ONLY_KEYS`]), that is to build an engine: no
/// `model-engine-file`, one missing from the tree (git-ignored or not: no
/// clone carries it, so a fresh clone builds it from this model), or one
/// named for a smaller batch than the element's (refused wherever it is:
/// [`engine_usable`]). An engine that exists in the tree and takes the batch
/// is deserialized and used (`generateBackendContext`, `checkBackendParams`):
/// the model is not opened. One outside the tree or not a plain path may
/// exist where the app runs: unknown.
pub fn opens_model(ctx: &Ctx, inf: &Element, p: Option<&Pipeline>) -> bool {
    let Some((v, loc)) = written_str(inf, "model-engine-file").filter(|(v, _)| !v.trim().is_empty()) else {
        return true;
    };
    // Not `EnginePlace::of`: whether a missing engine is git-ignored does
    // not matter here (nvinfer builds either way), so it is not asked.
    match ctx.ws.resolve(loc.file, v) {
        Some(Target::Missing(_)) => true,
        target @ Some(Target::Exists(_)) => {
            let batch = inf.int("batch-size").filter(|_| p.is_some()).map(|e| e.value);
            let place = EnginePlace { target, ignored: false };
            engine_usable(v, &place, batch.or(p.map(|_| 1))) == Some(false)
        }
        Some(Target::Outside(_)) | None => false,
    }
}

/// Where a `model-engine-file` value leads (`Workspace::resolve`), and for
/// a missing engine whether the project's `.gitignore` excludes it
/// (`Workspace::git_ignored`): found once an nvinfer for DS202/DS206,
/// DS205 and DS207 ([`engine_usable`] with each one's batch), which each
/// resolved it, three or four resolves of the same path (stop 36's merge:
/// 82M instructions of the 10k bench tree's check in `engine_usable`).
struct EnginePlace {
    target: Option<Target>,
    ignored: bool,
}

impl EnginePlace {
    fn of(ctx: &Ctx, value: &str, loc: &Site) -> EnginePlace {
        let target = ctx.ws.resolve(loc.file, value);
        let ignored = matches!(&target, Some(Target::Missing(p)) if ctx.ws.git_ignored(p));
        EnginePlace { target, ignored }
    }
}

/// What nvinfer would name the engine it builds.
struct EngineWant {
    /// The effective batch-size (unset: 1, `NvDsInferContext_ResetInitParams`);
    /// `None` when unknown.
    batch: Option<i64>,
    precision: Option<&'static str>,
    /// Whether a precision mismatch is this rule's finding (not DS206's).
    precision_is_news: bool,
}

/// DS207 claims "rebuilt at every start" only when the configured engine
/// cannot be used (`NvDsInferContextImpl::generateBackendContext`: it is
/// missing, or `checkBackendParams` refuses an engine built for a smaller
/// batch) and nvinfer saves the engine it builds under another name
/// (`TrtModelBuilder::buildModel`: `<model>_b<B>_gpu<G>_<precision>.engine`).
/// An engine that exists and takes the batch is used whatever its name.
fn check_engine_name(
    ctx: &Ctx,
    inf: &Element,
    value: &str,
    loc: &Site,
    at: &EnginePlace,
    want: &EngineWant,
    out: &mut Vec<Diagnostic>,
) {
    let base_start = value.rfind('/').map_or(0, |i| i + 1);
    let base = &value[base_start..];
    let Some((model_len, b, g, prec)) = parse_engine_name(base.trim_end()) else {
        return;
    };
    if engine_usable(value, at, want.batch) != Some(false) {
        return;
    }
    let gpu = inf.int("gpu-id").map_or(0, |e| e.value);
    // Each number the finding sets against the name says where it comes
    // from (the engine's line is in the config file, the batch often in the
    // app's `[primary-gie]`).
    let from = |key: &str, unset: &str| set_where(ctx, inf, key, loc.file, unset);
    let mut problems = Vec::new();
    if let Some(wb) = want.batch.filter(|&wb| wb != b as i64) {
        problems.push(format!(
            "batch {b} but batch-size is {wb} ({})",
            from("batch-size", "unset, nvinfer's default 1")
        ));
    }
    if gpu != g as i64 {
        problems.push(format!(
            "gpu {g} but gpu-id is {gpu} ({})",
            from("gpu-id", "unset, nvinfer's default 0")
        ));
    }
    let prec_differs = want.precision.is_some_and(|wp| wp != prec);
    if prec_differs && want.precision_is_news {
        let mode = inf.int("network-mode").map(|e| e.value);
        let fallback = if matches!(mode, Some(1 | 3)) && want.precision == Some("fp16") {
            ", no calibration table: TensorRT builds FP16"
        } else {
            ""
        };
        let mode_from = match mode {
            Some(m) => format!("network-mode {m}, {}{fallback}", from("network-mode", "")),
            None => "network-mode unset, nvinfer's default 0 (FP32)".to_string(),
        };
        problems.push(format!(
            "{prec} but nvinfer builds {} ({mode_from})",
            want.precision.unwrap_or(prec)
        ));
    }
    if problems.is_empty() {
        return;
    }
    let (nb, ng, np) = (want.batch.unwrap_or(b as i64), gpu, want.precision.unwrap_or(prec));
    let suffix = format!("_b{nb}_gpu{ng}_{np}.engine");
    let text = ctx.text(loc.file, &loc.spans.value());
    // nvinfer saves the engine it builds next to the model it builds from,
    // named after it (`TrtModelBuilder::buildModel`: `modelPath + "_b" …`):
    // the rename points there only when the configured name's folder and
    // model part are that model's path; written in the same file, the
    // whole value can point there; otherwise no edit is sure.
    let saved = saved_model(ctx, inf);
    let prefix = &value[..base_start + model_len];
    let same_model = saved.as_ref().is_some_and(|(path, _, _)| {
        matches!(ctx.ws.resolve(loc.file, prefix), Some(Target::Exists(p) | Target::Missing(p) | Target::Outside(p)) if p == *path)
    });
    let (new_name, fix) = if same_model {
        let new_name = format!("{}{suffix}", &base[..model_len]);
        let fix = text.find(base.trim_end()).map(|off| {
            let start = loc.spans.value().start + off;
            crate::base::edit::Edit {
                file: loc.file,
                range: start..start + base.trim_end().len(),
                text: new_name.clone(),
            }
        });
        (new_name, fix)
    } else if let Some((_, model_value, model_file)) = saved.as_ref().filter(|(_, _, f)| *f == loc.file) {
        let new_name = format!("{}{suffix}", model_value.trim());
        let fix = text.find(value.trim()).map(|off| {
            let start = loc.spans.value().start + off;
            crate::base::edit::Edit {
                file: *model_file,
                range: start..start + value.trim().len(),
                text: new_name.clone(),
            }
        });
        (new_name, fix)
    } else {
        let new_name = match &saved {
            Some((path, _, _)) => format!("{}{suffix}", crate::files::shown(path)),
            None => format!("<model>{suffix}, named after the model nvinfer builds from (not known here)"),
        };
        (new_name, None)
    };
    let why = if fix.is_some() {
        "the configured engine cannot be used here, so nvinfer builds one and saves it under the name it derives; the next start looks for this name again and rebuilds. The rename points at the engine it will build (the file itself is not touched)"
    } else {
        "the configured engine cannot be used here, so nvinfer builds one and saves it next to its model under the name it derives; the next start looks for this name again and rebuilds. The configured name is elsewhere than where nvinfer saves, so no edit is offered"
    };
    out.push(
        Diagnostic::new(
            Rule::EngineNameMismatch,
            loc.file,
            loc.spans.value(),
            format!("engine name says {}", problems.join(", ")),
        )
        .expected(new_name.clone())
        .why(why)
        .fix(fix.map(|e| Fix::safe(format!("rename to {new_name}"), vec![e]))),
    );
}

/// Where the effective `key` of `inf` comes from, as messages name it:
/// the group and key that set it (`[primary-gie] batch-size`), with its
/// file and line when that is not `shown` (the finding's file), or how it
/// is derived; `unset` where nothing sets it.
fn set_where(ctx: &Ctx, inf: &Element, key: &str, shown: crate::base::FileId, unset: &str) -> String {
    let Some(eff) = inf.str(key) else {
        return unset.to_string();
    };
    let named = origin(ctx, inf, key, eff.setting);
    match &eff.setting.site {
        Some(s) if s.file != shown => {
            let (line, _) = ctx.ws.files[s.file].position(s.spans.value().start);
            format!("{named}, {}:{line}", crate::files::shown(&ctx.ws.files[s.file].path))
        }
        _ => named,
    }
}

/// The model nvinfer builds from, whose path (resolved) starts the name of
/// the engine it saves, with the value as written and its file
/// (`TrtModelBuilder::buildModel`, `nvdsinfer_model_builder.cpp`): a TAO
/// model (`tlt-encoded-model`, taken before any other), else the ONNX file.
/// `None` where the path is not known: a custom engine-create function
/// (`modelPath` is the working directory's `model`), a custom network
/// config or parser, no model at all.
fn saved_model(ctx: &Ctx, inf: &Element) -> Option<(std::path::PathBuf, String, crate::base::FileId)> {
    if inf
        .str("engine-create-func-name")
        .is_some_and(|e| !e.value.trim().is_empty())
    {
        return None;
    }
    let (v, loc) = ["tlt-encoded-model", "onnx-file"]
        .iter()
        .find_map(|k| written_str(inf, k).filter(|(v, _)| !v.trim().is_empty()))?;
    let path = match ctx.ws.resolve(loc.file, v)? {
        Target::Exists(p) | Target::Missing(p) | Target::Outside(p) => p,
    };
    Some((path, v.to_string(), loc.file))
}

#[cfg(test)]
mod tests {
    #[test]
    fn engine_names() {
        assert_eq!(
            super::parse_engine_name("resnet18.onnx_b4_gpu0_fp16.engine"),
            Some((13, 4, 0, "fp16"))
        );
        assert_eq!(
            super::parse_engine_name("model_b1_gpu0_int8.engine"),
            Some((5, 1, 0, "int8"))
        );
        assert_eq!(super::parse_engine_name("model.engine"), None);
        // Not as nvinfer writes its numbers (`std::to_string`), nor its DLA
        // and BEST names, whose parts no rule judges.
        assert_eq!(super::parse_engine_name("model_b+4_gpu0_fp16.engine"), None);
        assert_eq!(super::parse_engine_name("model_b04_gpu0_fp16.engine"), None);
        assert_eq!(super::parse_engine_name("model_b4_gpu_fp16.engine"), None);
        assert_eq!(super::parse_engine_name("model_b4_dla0_fp16.engine"), None);
        assert_eq!(super::parse_engine_name("model_b4_gpu0_best.engine"), None);
        assert_eq!(
            super::parse_engine_name("model_b10_gpu0_fp16.engine"),
            Some((5, 10, 0, "fp16"))
        );
    }
}
