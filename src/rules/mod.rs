//! The rule book: every code, its page, and the checks that emit it.

pub mod context;
pub mod cross;
pub mod diagnostic;
pub mod input;
pub mod nvinfer;
pub mod output;
pub mod registry;
pub mod source;
pub mod streammux;
pub mod tracker;

use std::collections::HashSet;

use crate::model::detect::Kind;
use crate::model::facts::Facts;
use crate::model::pipeline::{self, At, Pipeline};
use crate::model::workspace::{FileId, Workspace};
use context::{Ctx, Profile};
use diagnostic::Diagnostic;

/// Everything one `check` run found, in a stable order.
pub struct CheckResult {
    pub pipelines: Vec<Pipeline>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Build the pipelines and run every rule.
pub fn check(ws: &mut Workspace, facts: Option<&Facts>, profile: Profile) -> CheckResult {
    let (pipelines, referenced) = pipeline::build(ws);
    let ctx = Ctx { ws, facts, profile };
    let mut out = Vec::new();
    for id in 0..ctx.ws.files.len() {
        input::check_file(&ctx, id, &mut out);
    }
    let mut trackers_done: HashSet<(FileId, String)> = HashSet::new();
    for p in &pipelines {
        streammux::check(&ctx, p, &mut out);
        source::check(&ctx, p, &mut out);
        output::check(&ctx, p, &mut out);
        cross::check(&ctx, p, &mut out);
        if let Some(t) = &p.tracker {
            trackers_done.insert((t.file, t.group.clone()));
            tracker::check(&ctx, t, &mut out);
        }
        for (i, gie) in p.primary.iter().chain(&p.secondaries).enumerate() {
            if let Some(cfg) = gie.config {
                if ctx.ws.files[cfg].kind == Some(Kind::NvInfer) {
                    let inf = nvinfer::Infer {
                        config: cfg,
                        gie: Some(gie),
                        pipeline: Some(p),
                        primary: i == 0 && p.primary.is_some(),
                    };
                    nvinfer::check(&ctx, &inf, &mut out);
                }
            }
        }
    }
    // Configs nothing references are checked on their own.
    for id in 0..ctx.ws.files.len() {
        if referenced.contains(&id) {
            continue;
        }
        match ctx.ws.files[id].kind {
            Some(Kind::NvInfer) => {
                let primary = ctx
                    .ws
                    .int_at(
                        &At {
                            file: id,
                            group: "property".into(),
                        },
                        "process-mode",
                    )
                    .unwrap_or(1)
                    == 1;
                let inf = nvinfer::Infer {
                    config: id,
                    gie: None,
                    pipeline: None,
                    primary,
                };
                nvinfer::check(&ctx, &inf, &mut out);
            }
            Some(Kind::Tracker) if !trackers_done.contains(&(id, "tracker".to_string())) => {
                tracker::check(
                    &ctx,
                    &At {
                        file: id,
                        group: "tracker".into(),
                    },
                    &mut out,
                );
            }
            _ => {}
        }
    }
    // A file in several pipelines gets each finding once.
    let mut seen = HashSet::new();
    out.retain(|d| seen.insert((d.code, d.file, d.span.start, d.span.end, d.message.clone())));
    out.sort_by(|a, b| {
        (ctx.ws.files[a.file].path.as_path(), a.span.start, a.code).cmp(&(
            ctx.ws.files[b.file].path.as_path(),
            b.span.start,
            b.code,
        ))
    });
    CheckResult {
        pipelines,
        diagnostics: out,
    }
}
