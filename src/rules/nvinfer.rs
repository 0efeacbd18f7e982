//! R2: nvinfer (DS201–DS208). DS202, DS205, DS206 and DS207 apply to every
//! nvinfer; DS201, DS203 and DS204 to the primary one.

use crate::base::diagnostic::Diagnostic;
use crate::base::edit::Fix;
use crate::base::rule::Rule;
use crate::model::detect::Kind;
use crate::model::graph::{Effective, Element, Home, Layer, Pipeline, Role, Site, Stage, Value};
use crate::model::workspace::Target;
use crate::rules::context::{Ctx, origin, site};
use crate::syntax::glib;

/// The effective text of a key and the line that writes it.
fn written_str<'e>(inf: &'e Element, key: &str) -> Option<(&'e str, &'e Site)> {
    let e = inf.str(key)?;
    Some((e.value, e.site()?))
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
    if primary {
        check_primary_batch(ctx, inf, p, out);
    }
    // DS202 / DS206: precision.
    let mode = inf.int("network-mode").map(|e| e.value);
    let calib = inf.str("int8-calib-file").map(|e| e.value);
    let calib_target = calib
        .filter(|c| !c.trim().is_empty())
        .and_then(|c| ws.resolve(config.file, c));
    let has_calib = match &calib_target {
        Some(Target::Exists(_)) => Some(true),
        Some(Target::Missing(_)) | None => Some(false),
        Some(Target::Outside(_)) => None,
    };
    let want = match has_calib {
        Some(true) => Some(1),
        Some(false) => Some(2),
        None => None,
    };
    let mode_loc = site(inf, "network-mode");
    match mode.unwrap_or(0) {
        1 => {
            if has_calib == Some(false) {
                let (file, span) = mode_loc
                    .as_ref()
                    .map_or((prop_file, prop_span.clone()), |l| (l.file, l.value_span.clone()));
                let what = match &calib_target {
                    Some(Target::Missing(p)) => format!(
                        "network-mode=1 (INT8) but int8-calib-file {} does not exist",
                        p.display()
                    ),
                    _ => "network-mode=1 (INT8) but no int8-calib-file is set".to_string(),
                };
                out.push(
                    Diagnostic::new(Rule::Int8CalibMissing, file, span, what)
                        .expected("an existing calibration table, or network-mode=2 (FP16)")
                        .why("without a calibration table TensorRT cannot build the INT8 engine (or falls back to a slower precision)"),
                );
            }
        }
        3 => {}
        m => {
            let flagged = m == 0 || want.is_some_and(|w| w != m);
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
                    .map_or((prop_file, prop_span.clone()), |l| (l.file, l.value_span.clone()));
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
    // DS205: a serialized engine that exists.
    let engine = written_str(inf, "model-engine-file");
    match &engine {
        None => out.push(
            Diagnostic::new(Rule::EngineFileMissing, prop_file, prop_span.clone(), "model-engine-file is not set")
                .expected("the path of the serialized TensorRT engine")
                .why("without it nvinfer builds the engine from the model at every start: minutes of build inside every run and profile"),
        ),
        Some((v, loc)) => {
            // A trailing ` # note` is DS006's finding: report the cause once.
            let without_comment = v.find(" #").map(|i| v[..i].trim_end());
            let comment_is_the_cause =
                without_comment.is_some_and(|c| matches!(ws.resolve(loc.file, c), Some(Target::Exists(_))));
            if let (Some(Target::Missing(p)), false) = (ws.resolve(loc.file, v), comment_is_the_cause) {
                out.push(
                    Diagnostic::new(Rule::EngineFileMissing, loc.file, loc.value_span.clone(), format!("model-engine-file {} does not exist", p.display()))
                        .expected("an existing engine file")
                        .why("nvinfer rebuilds the engine from the model at start, which lands inside any profile (ENGINE_BUILD_CONTAMINATED)"),
                );
            }
        }
    }
    // DS207: the engine name's batch, GPU and precision.
    if let Some((v, loc)) = &engine {
        check_engine_name(ctx, inf, v, loc, batch.as_ref(), mode, out);
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
    let Some((fb, why)) = ctx.final_batch(p) else { return };
    if eff.value == fb as i64 {
        return;
    }
    let (file, span) = eff.at();
    let how = match (eff.setting.layer, &eff.setting.derived) {
        (_, Some(how)) => how.clone(),
        (Layer::ConfigFile, None) => format!("{} {}", factory(inf), origin(eff.setting)),
        _ => format!(
            "{} (set on the element, overrides the config file)",
            origin(eff.setting)
        ),
    };
    out.push(
        Diagnostic::new(
            Rule::PrimaryBatchSize,
            file,
            span,
            format!("primary {} batch-size is {} ({how})", factory(inf), eff.value),
        )
        .expected(fb.to_string())
        .why(format!("{why}: the engine runs one batch per streammux batch"))
        .fix(
            eff.site()
                .map(|l| Fix::safe(format!("set batch-size={fb}"), vec![ctx.set_value(l, &fb.to_string())])),
        ),
    );
}

/// DS203: primary interval = 0.
fn check_interval(ctx: &Ctx, inf: &Element, p: Option<&Pipeline>, out: &mut Vec<Diagnostic>) {
    let Some(eff) = inf.int("interval") else { return };
    let has_tracker = p.is_some_and(|p| p.first(&Role::Tracker).is_some());
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
                l.value_span.clone(),
                format!(
                    "primary {} interval is {} ({})",
                    factory(inf),
                    eff.value,
                    origin(eff.setting)
                ),
            )
            .expected("0")
            .why(why)
            .fix(Some(Fix::safe("set interval=0", vec![ctx.set_value(l, "0")]))),
        );
    }
}

/// DS208: a key set both on the element and in its config file.
fn check_set_twice(ctx: &Ctx, inf: &Element, out: &mut Vec<Diagnostic>) {
    let ws = ctx.ws;
    for prop in &inf.props {
        let last = |layer| {
            prop.settings
                .iter()
                .rev()
                .find(|s| s.layer == layer)
                .and_then(|s| s.site.as_ref())
        };
        let (Some(over), Some(inner)) = (last(Layer::Element), last(Layer::ConfigFile)) else {
            continue;
        };
        let (line, _) = ws.files[over.file].position(over.key_span.start);
        let (inner_line, _) = ws.files[inner.file].position(inner.key_span.start);
        out.push(
            Diagnostic::new(
                Rule::DuplicateSourceOfTruth,
                inner.file,
                inner.key_span.clone(),
                format!(
                    "`{}` is also set in [{}] ({}:{line}), which wins",
                    inner.key,
                    over.group,
                    ws.files[over.file].path.display()
                ),
            )
            .expected("one source of truth: remove one of the two")
            .why("the app sets the key on the element after loading this file, so this line is silently ignored")
            .related(over.file, over.key_span.clone())
            .message_at_related(format!(
                "`{}` is also set in [{}] ({}:{inner_line}); this line wins",
                prop.name,
                inner.group,
                ws.files[inner.file].path.display()
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
    match entry {
        None => {
            let fix = facts_dims.and_then(|(h, w)| ctx.insert(prop, "infer-dims", &format!("{channels};{h};{w}")));
            out.push(
                Diagnostic::new(Rule::InferDims, prop_file, prop_span, "infer-dims is not set")
                    .expected(match facts_dims { Some((h, w)) => format!("{channels};{h};{w}"), None => format!("{channels};H;W (set model.height/width in facts to derive it)") })
                    .why("explicit input dimensions let streammux and the engine agree on one size (DS102) instead of a scale per frame")
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
                    Diagnostic::new(Rule::InferDims, site.file, site.value_span.clone(), format!("{key} is {have}"))
                        .expected(want.clone())
                        .why("the input must be C;H;W with the channels the color format implies and the model's own H and W")
                        .fix(Some(Fix::safe(format!("set {key}={want}"), vec![ctx.set_value(site, &want)]))),
                );
            }
        }
    }
}

/// `<model>_b<B>_gpu<G>_<fp32|fp16|int8>.engine`, as nvinfer names the
/// engines it serializes.
pub fn parse_engine_name(name: &str) -> Option<(usize, u32, u32, &str)> {
    let stem = name.strip_suffix(".engine")?;
    let (rest, prec) = stem.rsplit_once('_')?;
    if !matches!(prec, "fp32" | "fp16" | "int8") {
        return None;
    }
    let (rest, gpu) = rest.rsplit_once("_gpu")?;
    let (model, b) = rest.rsplit_once("_b")?;
    Some((model.len(), b.parse().ok()?, gpu.parse().ok()?, prec))
}

fn check_engine_name(
    ctx: &Ctx,
    inf: &Element,
    value: &str,
    loc: &Site,
    batch: Option<&Effective<i64>>,
    mode: Option<i64>,
    out: &mut Vec<Diagnostic>,
) {
    let base_start = value.rfind('/').map_or(0, |i| i + 1);
    let base = &value[base_start..];
    let Some((model_len, b, g, prec)) = parse_engine_name(base.trim_end()) else {
        return;
    };
    let gpu = inf.int("gpu-id").map_or(0, |e| e.value);
    let want_prec = match mode.unwrap_or(0) {
        0 => Some("fp32"),
        1 => Some("int8"),
        2 => Some("fp16"),
        _ => None,
    };
    let want_b = batch.map(|e| e.value);
    let mut problems = Vec::new();
    if let Some(wb) = want_b.filter(|&wb| wb != b as i64) {
        problems.push(format!("batch {b} but batch-size is {wb}"));
    }
    if gpu != g as i64 {
        problems.push(format!("gpu {g} but gpu-id is {gpu}"));
    }
    if want_prec.is_some_and(|wp| wp != prec) {
        problems.push(format!("{prec} but network-mode is {}", mode.unwrap_or(0)));
    }
    if problems.is_empty() {
        return;
    }
    let new_name = format!(
        "{}_b{}_gpu{}_{}.engine",
        &base[..model_len],
        want_b.unwrap_or(b as i64),
        gpu,
        want_prec.unwrap_or(prec)
    );
    let text = ctx.text(loc.file, &loc.value_span);
    let fix = text.find(base.trim_end()).map(|off| {
        let start = loc.value_span.start + off;
        crate::base::edit::Edit {
            file: loc.file,
            range: start..start + base.trim_end().len(),
            text: new_name.clone(),
        }
    });
    out.push(
        Diagnostic::new(Rule::EngineNameMismatch, loc.file, loc.value_span.clone(), format!("engine name says {}", problems.join(", ")))
            .expected(new_name.clone())
            .why("nvinfer finds the engine does not match the element and rebuilds it at every start; the rename points at the engine it will build (the file itself is not touched)")
            .fix(fix.map(|e| Fix::safe(format!("rename to {new_name}"), vec![e]))),
    );
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
    }
}
