//! The rule book: every code, its page, and the checks that emit it.

pub mod context;
pub mod cross;
pub mod input;
pub mod nvinfer;
pub mod output;
pub mod source;
pub mod streammux;
pub mod suppress;
pub mod tracker;

use std::collections::HashSet;

use crate::base::diagnostic::Diagnostic;
use crate::model::facts::Facts;
use crate::model::frontend;
use crate::model::graph::{Pipeline, Role};
use crate::model::workspace::Workspace;
use context::{Ctx, Profile};

/// Everything one `check` run found, in a stable order.
pub struct CheckResult {
    pub pipelines: Vec<Pipeline>,
    pub diagnostics: Vec<Diagnostic>,
}

/// What a run reports and how: `select` (empty: all), minus `ignore`, plus
/// per-file ignores (codes may be prefixes, `DS6`), and rule options.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    /// (glob, codes): codes ignored in files whose path matches the glob.
    pub per_file_ignores: Vec<(globset::GlobMatcher, Vec<String>)>,
    /// The sink type the bench profile asks for (DS603); default 1, fakesink.
    pub bench_sink_type: Option<i64>,
}

impl Settings {
    pub fn enabled(&self, code: &str) -> bool {
        let hit = |list: &[String]| {
            list.iter().any(|s| {
                let s = s.trim();
                s.eq_ignore_ascii_case("ALL") || code.starts_with(s) || s.starts_with(code)
            })
        };
        (self.select.is_empty() || hit(&self.select)) && !self.ignore.iter().any(|s| code.starts_with(s.trim()))
    }

    pub fn enabled_in(&self, code: &str, path: &std::path::Path) -> bool {
        self.enabled(code)
            && !self
                .per_file_ignores
                .iter()
                .any(|(g, codes)| g.is_match(path) && codes.iter().any(|c| code.starts_with(c.as_str())))
    }
}

/// Build the pipelines and run every rule.
pub fn check(ws: &mut Workspace, facts: Option<&Facts>, profile: Profile) -> CheckResult {
    check_with(ws, facts, profile, &Settings::default())
}

/// Run every rule, keep the selected codes, apply inline suppressions.
pub fn check_with(ws: &mut Workspace, facts: Option<&Facts>, profile: Profile, sel: &Settings) -> CheckResult {
    let graph = frontend::build(ws);
    let ctx = Ctx {
        ws,
        facts,
        profile,
        bench_sink_type: sel.bench_sink_type.unwrap_or(1),
    };
    let mut out = Vec::new();
    for id in 0..ctx.ws.files.len() {
        input::check_file(&ctx, id, &mut out);
    }
    for p in &graph.pipelines {
        streammux::check(&ctx, p, &mut out);
        source::check(&ctx, p, &mut out);
        output::check(&ctx, p, &mut out);
        cross::check(&ctx, p, &mut out);
        if let Some(t) = p.first(&Role::Tracker) {
            tracker::check(&ctx, t, &mut out);
        }
        for inf in p.infers() {
            nvinfer::check(&ctx, inf, Some(p), &mut out);
        }
    }
    // Configs nothing references are checked on their own.
    for e in &graph.standalone {
        match e.role {
            Role::Infer(_) => nvinfer::check(&ctx, e, None, &mut out),
            Role::Tracker => tracker::check(&ctx, e, &mut out),
            _ => {}
        }
    }
    // A file in several pipelines gets each finding once.
    let mut seen = HashSet::new();
    out.retain(|d| seen.insert((d.code(), d.file, d.span.start, d.span.end, d.message.clone())));
    out.retain(|d| sel.enabled_in(d.code(), &ctx.ws.files[d.file].path));
    let mut out = suppress::apply(ctx.ws, out, &|c| sel.enabled(c));
    out.sort_by(|a, b| {
        (ctx.ws.files[a.file].path.as_path(), a.span.start, a.code()).cmp(&(
            ctx.ws.files[b.file].path.as_path(),
            b.span.start,
            b.code(),
        ))
    });
    CheckResult {
        pipelines: graph.pipelines,
        diagnostics: out,
    }
}
