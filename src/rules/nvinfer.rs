//! R2: nvinfer (DS201–DS208). DS202, DS205, DS206 and DS207 apply to every
//! nvinfer; DS201, DS203 and DS204 to the primary one.

use crate::base::FileId;
use crate::base::diagnostic::Diagnostic;
use crate::base::edit::Fix;
use crate::base::rule::Rule;
use crate::model::pipeline::{At, Gie, Pipeline};
use crate::model::workspace::Target;
use crate::rules::context::{Ctx, Effective, Loc};
use crate::syntax::glib;

/// One nvinfer as the rules see it: its config and, inside a pipeline, the
/// app group whose keys override the config's.
pub struct Infer<'p> {
    pub config: FileId,
    pub gie: Option<&'p Gie>,
    pub pipeline: Option<&'p Pipeline>,
    pub primary: bool,
}

impl Infer<'_> {
    fn prop(&self) -> At {
        At {
            file: self.config,
            group: "property".into(),
        }
    }
}

/// The effective value of a key the app group may override.
fn effective(ctx: &Ctx, inf: &Infer, key: &str) -> Option<Effective> {
    ctx.element_int(inf.gie.map(|g| &g.at), Some(inf.config), key)
}

fn effective_str(ctx: &Ctx, inf: &Infer, key: &str) -> Option<(String, Loc)> {
    if let Some(g) = inf.gie {
        if let (Some(v), Some(l)) = (ctx.ws.str_at(&g.at, key), ctx.loc(&g.at, key)) {
            return Some((v.to_string(), l));
        }
    }
    let prop = inf.prop();
    Some((ctx.ws.str_at(&prop, key)?.to_string(), ctx.loc(&prop, key)?))
}

fn group_span(ctx: &Ctx, at: &At) -> crate::base::Span {
    ctx.ws.files[at.file]
        .doc
        .last_group(&at.group)
        .map_or(0..0, |g| g.name_span.clone())
}

pub fn check(ctx: &Ctx, inf: &Infer, out: &mut Vec<Diagnostic>) {
    let ws = ctx.ws;
    let prop = inf.prop();
    if ws.files[inf.config].doc.last_group("property").is_none() {
        return;
    }
    let batch = match (inf.pipeline, inf.primary) {
        (Some(p), true) => ctx.primary_batch(p),
        _ => effective(ctx, inf, "batch-size"),
    };
    // DS201: primary batch-size = final_batch.
    // With nvdspreprocess in front, the batch is the tensor batch (DS707).
    let tensor_batch = inf
        .pipeline
        .is_some_and(|p| crate::rules::cross::preprocess_feeds_primary(ctx, p));
    if inf.primary && !tensor_batch {
        if let (Some(p), Some(eff)) = (inf.pipeline, &batch) {
            if let Some((fb, why)) = ctx.final_batch(p) {
                if eff.value != fb as i64 {
                    let (file, span) = eff.at.clone();
                    out.push(
                        Diagnostic::new(
                            Rule::PrimaryBatchSize,
                            file,
                            span,
                            format!("primary nvinfer batch-size is {} ({})", eff.value, eff.how),
                        )
                        .expected(fb.to_string())
                        .why(format!("{why}: the engine runs one batch per streammux batch"))
                        .fix(eff.loc.as_ref().map(|l| {
                            Fix::safe(format!("set batch-size={fb}"), vec![ctx.set_value(l, &fb.to_string())])
                        })),
                    );
                }
            }
        }
    }
    // DS202 / DS206: precision.
    let mode = ws.int_at(&prop, "network-mode");
    let calib = ws
        .entry(inf.config, "property", "int8-calib-file")
        .and_then(|e| e.value.clone());
    let calib_target = calib
        .as_deref()
        .filter(|c| !c.trim().is_empty())
        .and_then(|c| ws.resolve(inf.config, c));
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
    let mode_loc = ctx.loc(&prop, "network-mode");
    match mode.unwrap_or(0) {
        1 => {
            if has_calib == Some(false) {
                let (file, span) = mode_loc
                    .as_ref()
                    .map_or((prop.file, group_span(ctx, &prop)), |l| (l.file, l.value_span.clone()));
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
                    None => ctx.insert_key(&prop, "network-mode", &w.to_string()),
                };
                let (file, span) = mode_loc
                    .as_ref()
                    .map_or((prop.file, group_span(ctx, &prop)), |l| (l.file, l.value_span.clone()));
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
    // DS203: primary interval = 0.
    if inf.primary {
        if let Some(eff) = effective(ctx, inf, "interval") {
            let has_tracker = inf.pipeline.is_some_and(|p| p.tracker.is_some());
            let retention = ctx.facts.and_then(|f| f.tracker_id_retention());
            let allowed = has_tracker && retention.is_some_and(|r| r >= 0.99);
            if eff.value != 0 && !allowed {
                let why = if has_tracker {
                    "skipping frames relies on the tracker holding IDs: allowed only when facts carry e2e.tracker_id_retention >= 0.99"
                } else {
                    "with no tracker, skipped frames carry no objects at all"
                };
                if let Some(l) = &eff.loc {
                    out.push(
                        Diagnostic::new(
                            Rule::InferenceInterval,
                            l.file,
                            l.value_span.clone(),
                            format!("primary nvinfer interval is {} ({})", eff.value, eff.how),
                        )
                        .expected("0")
                        .why(why)
                        .fix(Some(Fix::safe("set interval=0", vec![ctx.set_value(l, "0")]))),
                    );
                }
            }
        }
        check_infer_dims(ctx, inf, out);
    }
    // DS205: a serialized engine that exists.
    let engine = effective_str(ctx, inf, "model-engine-file");
    match &engine {
        None => out.push(
            Diagnostic::new(Rule::EngineFileMissing, prop.file, group_span(ctx, &prop), "model-engine-file is not set")
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
    // DS208: a key set both on the element and in its config file.
    if let Some(g) = inf.gie {
        for key in [
            "batch-size",
            "interval",
            "gie-unique-id",
            "gpu-id",
            "model-engine-file",
            "operate-on-gie-id",
        ] {
            let (Some(over), Some(inner)) = (ws.entry_at(&g.at, key), ws.entry_at(&prop, key)) else {
                continue;
            };
            let (line, _) = ws.files[g.at.file].position(over.key_span.start);
            out.push(
                Diagnostic::new(
                    Rule::DuplicateSourceOfTruth,
                    prop.file,
                    inner.key_span.clone(),
                    format!(
                        "`{key}` is also set in [{}] ({}:{line}), which wins",
                        g.at.group,
                        ws.files[g.at.file].path.display()
                    ),
                )
                .expected("one source of truth: remove one of the two")
                .why("the app sets the key on the element after loading this file, so this line is silently ignored")
                .related(g.at.file, over.key_span.clone()),
            );
        }
    }
}

fn check_infer_dims(ctx: &Ctx, inf: &Infer, out: &mut Vec<Diagnostic>) {
    let prop = inf.prop();
    let ws = ctx.ws;
    let facts_dims = ctx.facts.and_then(|f| f.model_dims());
    let entry = ["infer-dims", "input-dims", "uff-input-dims"]
        .iter()
        .find_map(|k| Some((*k, ws.entry_at(&prop, k)?)));
    let color = ws.int_at(&prop, "model-color-format").unwrap_or(0);
    let channels = if color == 2 { 1 } else { 3 };
    match entry {
        None => {
            let fix = facts_dims.and_then(|(h, w)| ctx.insert_key(&prop, "infer-dims", &format!("{channels};{h};{w}")));
            out.push(
                Diagnostic::new(Rule::InferDims, prop.file, group_span(ctx, &prop), "infer-dims is not set")
                    .expected(match facts_dims { Some((h, w)) => format!("{channels};{h};{w}"), None => format!("{channels};H;W (set model.height/width in facts to derive it)") })
                    .why("explicit input dimensions let streammux and the engine agree on one size (DS102) instead of a scale per frame")
                    .fix(fix.map(|e| Fix::safe("add infer-dims", vec![e]))),
            );
        }
        Some((key, e)) => {
            let dims: Vec<i64> = e
                .value
                .as_deref()
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
                let loc = Loc {
                    file: prop.file,
                    group: "property".into(),
                    key: key.into(),
                    value_span: e.value_span.clone(),
                };
                out.push(
                    Diagnostic::new(Rule::InferDims, prop.file, e.value_span.clone(), format!("{key} is {have}"))
                        .expected(want.clone())
                        .why("the input must be C;H;W with the channels the color format implies and the model's own H and W")
                        .fix(Some(Fix::safe(format!("set {key}={want}"), vec![ctx.set_value(&loc, &want)]))),
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
    inf: &Infer,
    value: &str,
    loc: &Loc,
    batch: Option<&Effective>,
    mode: Option<i64>,
    out: &mut Vec<Diagnostic>,
) {
    let base_start = value.rfind('/').map_or(0, |i| i + 1);
    let base = &value[base_start..];
    let Some((model_len, b, g, prec)) = parse_engine_name(base.trim_end()) else {
        return;
    };
    let gpu = effective(ctx, inf, "gpu-id").map_or(0, |e| e.value);
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
