//! R7: cross-element sanity checks (DS701–DS707); they need no facts.

use crate::base::diagnostic::Diagnostic;
use crate::base::edit::Fix;
use crate::base::rule::{Rule, When};
use crate::model::pipeline::{At, Pipeline};
use crate::model::workspace::Target;
use crate::rules::context::Ctx;
use crate::syntax::glib;

pub fn preprocess_feeds_primary(ctx: &Ctx, p: &Pipeline) -> bool {
    p.preprocess.is_some()
        || p.primary.as_ref().is_some_and(|g| {
            let in_app = ctx.ws.str_at(&g.at, "input-tensor-meta").and_then(glib::parse_bool) == Some(true);
            let in_cfg = g.config.is_some_and(|c| {
                ctx.ws
                    .str_at(
                        &At {
                            file: c,
                            group: "property".into(),
                        },
                        "input-tensor-from-meta",
                    )
                    .and_then(glib::parse_bool)
                    == Some(true)
            });
            in_app || in_cfg
        })
}

pub fn check(ctx: &Ctx, p: &Pipeline, out: &mut Vec<Diagnostic>) {
    let ws = ctx.ws;
    let mux = ctx.streammux_batch(p);
    let pgie = ctx.primary_batch(p);
    let preprocess = preprocess_feeds_primary(ctx, p);
    // DS701: streammux and primary batch agree.
    if let (Some(m), Some(g), false) = (&mux, &pgie, preprocess) {
        if m.value != g.value {
            if let (Some(ml), Some(gl)) = (&m.loc, &g.loc) {
                let target = ctx.final_batch(p).map_or(m.value, |(fb, _)| fb as i64);
                let mut edits = Vec::new();
                if m.value != target {
                    edits.push(ctx.set_value(ml, &target.to_string()));
                }
                if g.value != target {
                    edits.push(ctx.set_value(gl, &target.to_string()));
                }
                let fix = if ctx.final_batch(p).is_some() {
                    Fix::safe(format!("set both batch-size={target}"), edits)
                } else {
                    Fix::unsafe_(format!("set the primary batch-size={target} (streammux's)"), edits)
                };
                let (line, _) = ws.files[gl.file].position(gl.value_span.start);
                out.push(
                    Diagnostic::new(Rule::BatchMismatch, ml.file,
                        ml.value_span.clone(),
                        format!("BATCH_MISMATCH: streammux batch-size {} != primary nvinfer batch-size {} ({}:{line})", m.value, g.value, ws.files[gl.file].path.display()),
                    )
                    .expected(target.to_string())
                    .why("nvinfer runs partial batches (streammux smaller) or waits on frames that never come (streammux larger)")
                    .related(gl.file, gl.value_span.clone())
                    .fix(Some(fix)),
                );
            }
        }
    }
    // DS707: with nvdspreprocess, nvinfer batch = network-input-shape[0].
    if let (Some((_, Some(cfg))), Some(g)) = (&p.preprocess, &pgie) {
        let shape = ws.entry(*cfg, "property", "network-input-shape");
        if let Some(first) = shape
            .and_then(|e| e.value.as_deref())
            .and_then(|v| glib::split_list(v).ok())
            .and_then(|l| l.first().and_then(|s| glib::parse_int(s)))
        {
            if first != g.value {
                if let Some(gl) = &g.loc {
                    out.push(
                        Diagnostic::new(
                            Rule::PreprocessBatchMismatch,
                            gl.file,
                            gl.value_span.clone(),
                            format!(
                                "primary nvinfer batch-size {} != nvdspreprocess network-input-shape batch {first}",
                                g.value
                            ),
                        )
                        .expected(first.to_string())
                        .why(
                            "the inference batches the preprocessed ROI tensors, so its batch must be the tensor batch",
                        )
                        .related(*cfg, shape.map_or(0..0, |e| e.value_span.clone()))
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
        if m.value < n as i64 && n <= 16 {
            if let Some(ml) = &m.loc {
                out.push(
                    Diagnostic::new(
                        Rule::BatchBelowStreams,
                        ml.file,
                        ml.value_span.clone(),
                        format!("streammux batch-size {} < {n} streams ({from})", m.value),
                    )
                    .expected(n.to_string())
                    .why("every tick the remaining streams wait for a second batch"),
                );
            }
        }
    }
    // DS703: nvbuf-memory-type agrees across elements.
    let mut seen: Vec<(i64, At)> = Vec::new();
    let elems = p
        .streammux
        .iter()
        .chain(p.sources.iter().map(|s| &s.at))
        .chain(&p.osd)
        .chain(&p.tiler)
        .chain(&p.sinks);
    for at in elems {
        if let Some(v) = ws.int_at(at, "nvbuf-memory-type") {
            seen.push((v, at.clone()));
        }
    }
    if let Some((first, first_at)) = seen.first().cloned() {
        for (v, at) in &seen[1..] {
            if *v != first {
                let loc = ctx.loc(at, "nvbuf-memory-type").expect("seen above");
                out.push(
                    Diagnostic::new(
                        Rule::MemoryTypeMismatch,
                        loc.file,
                        loc.value_span.clone(),
                        format!(
                            "[{}] nvbuf-memory-type {v} differs from [{}] ({first})",
                            at.group, first_at.group
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
            Target::Missing(path) => {
                out.push(
                    Diagnostic::new(
                        Rule::MissingFile,
                        r.file,
                        r.span.clone(),
                        format!("{} {} does not exist", r.key, path.display()),
                    )
                    .when(When::ConfigFile, r.is_config)
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
                        path.display()
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
    let mut ids: Vec<(i64, At, crate::base::Span)> = Vec::new();
    for gie in p.primary.iter().chain(&p.secondaries) {
        let found = ctx
            .element_int(Some(&gie.at), gie.config, "gie-unique-id")
            .and_then(|e| Some((e.value, e.loc?)));
        if let Some((id, loc)) = found {
            if let Some((_, other, _)) = ids.iter().find(|(i, _, _)| *i == id) {
                out.push(
                    Diagnostic::new(
                        Rule::DuplicateGieId,
                        loc.file,
                        loc.value_span.clone(),
                        format!("gie-unique-id {id} is also used by [{}]", other.group),
                    )
                    .expected("a unique id per inference element")
                    .why("metadata from the two elements is indistinguishable and secondaries attach to the wrong one"),
                );
            }
            ids.push((id, gie.at.clone(), loc.value_span));
        }
    }
    for gie in &p.secondaries {
        let found = ctx
            .element_int(Some(&gie.at), gie.config, "operate-on-gie-id")
            .and_then(|e| Some((e.value, e.loc?)));
        if let Some((id, loc)) = found {
            if id >= 0 && !ids.is_empty() && !ids.iter().any(|(i, _, _)| *i == id) {
                let known: Vec<String> = ids.iter().map(|(i, _, _)| i.to_string()).collect();
                out.push(
                    Diagnostic::new(
                        Rule::OperateOnUnknownGie,
                        loc.file,
                        loc.value_span.clone(),
                        format!("operate-on-gie-id {id} names no inference element"),
                    )
                    .expected(format!("one of {}", known.join(", ")))
                    .why("the secondary never sees an object and silently does nothing"),
                );
            }
        }
    }
}
