//! R3: decoder and sources (DS301–DS304).

use crate::base::diagnostic::Diagnostic;
use crate::base::edit::Fix;
use crate::base::rule::Rule;
use crate::model::graph::{Pipeline, Role, SourceKind};
use crate::rules::context::{Ctx, Profile, site};

pub fn check(ctx: &Ctx, p: &Pipeline, out: &mut Vec<Diagnostic>) {
    let fb = ctx.final_batch(p);
    for s in p.sources() {
        // DS301: num-extra-surfaces = min(final_batch, 5), where it is set.
        if let (Some((fb, why)), Some(have), Some(loc)) = (
            &fb,
            s.int("num-extra-surfaces").map(|e| e.value),
            site(s, "num-extra-surfaces"),
        ) {
            let want = (*fb).min(5) as i64;
            if have != want {
                out.push(
                    Diagnostic::new(Rule::NumExtraSurfaces, loc.file, loc.value_span(), format!("num-extra-surfaces is {have}"))
                        .expected(want.to_string())
                        .why(format!("min(final_batch, 5); {why}: enough decoded surfaces in flight to fill a batch without holding GPU memory for more"))
                        .fix(Some(Fix::safe(format!("set num-extra-surfaces={want}"), vec![ctx.set_value(loc, &want.to_string())]))),
                );
            }
        }
        // DS302: cudadec-memtype = 0.
        if let (Some(have), Some(loc)) = (s.int("cudadec-memtype").map(|e| e.value), site(s, "cudadec-memtype")) {
            if have != 0 {
                out.push(
                    Diagnostic::new(Rule::DecoderMemoryType, loc.file, loc.value_span(), format!("cudadec-memtype is {have}"))
                        .expected("0")
                        .why("decoded frames in device memory go to streammux without a copy; pinned or unified memory adds one per frame")
                        .fix(Some(Fix::safe("set cudadec-memtype=0", vec![ctx.set_value(loc, "0")]))),
                );
            }
        }
    }
    // DS303: file loop in the bench profile.
    let files = p
        .sources()
        .filter_map(|s| s.source())
        .any(|s| s.kind == SourceKind::File);
    if ctx.profile == Profile::Bench && files {
        if let Some(tests) = p.first(&Role::Tests) {
            let have = tests.int("file-loop").map(|e| e.value).unwrap_or(0);
            if have != 1 {
                let fix = ctx.set_or_insert(tests, "file-loop", "1");
                let (file, span) = site(tests, "file-loop").map_or((p.root, 0..0), |l| (l.file, l.value_span()));
                out.push(
                    Diagnostic::new(
                        Rule::FileLoop,
                        file,
                        span,
                        "file sources are not looped ([tests] file-loop)",
                    )
                    .expected("1")
                    .why("a benchmark that reaches end of stream measures start-up and drain, not the steady state")
                    .fix(fix.map(|e| Fix::safe("set file-loop=1", vec![e]))),
                );
            }
        }
    }
    // DS304: nvmultiurisrcbin max-batch-size = final_batch.
    let multiurisrcbin = p.sources().find(|s| s.factory.as_deref() == Some("nvmultiurisrcbin"));
    if let Some(at) = multiurisrcbin {
        if let Some(f) = ctx.facts.and_then(|f| Some(f.plateau_batch()?.min(f.n_streams()?))) {
            if let (Some(have), Some(loc)) = (at.int("max-batch-size").map(|e| e.value), site(at, "max-batch-size")) {
                if have != f as i64 {
                    out.push(
                        Diagnostic::new(
                            Rule::MultiurisrcbinMaxBatchSize,
                            loc.file,
                            loc.value_span(),
                            format!("nvmultiurisrcbin max-batch-size is {have}"),
                        )
                        .expected(f.to_string())
                        .why("final_batch = min(plateau_batch, n_streams): it sets streammux and primary batch-size")
                        .fix(Some(Fix::safe(
                            format!("set max-batch-size={f}"),
                            vec![ctx.set_value(loc, &f.to_string())],
                        ))),
                    );
                }
            }
        }
    }
}
