//! deepstream-parallel-infer's branches (DS708–DS711), R7 cross-checks of
//! a `branchN` against the primary it feeds, the app's sources and the
//! nvdsmetamux that joins the branches' results.
//!
//! What the app does (NVIDIA-AI-IOT/deepstream_parallel_inference_app,
//! `deepstream_parallel_infer_app.cpp`): `create_parallel_infer_bin` loops
//! over the enabled primaries; for primary `i` it builds an nvstreammux,
//! sets its `batch-size` to the number of `;`-separated `src-ids` of the
//! `i`-th `branch*` (`split_string`), and `link_streamdemux_to_streammux`
//! stops the app with "pgieid %d != branch pgieid %d" when the primary's
//! `gie-unique-id` (the app group's, read by `parse_gie_yaml`) is not the
//! branch's `pgie-id`; otherwise it links nvstreamdemux's stream `id` for
//! each src-id into that mux. The branches are read in the file's order by
//! `parse_config_file_yaml` (deepstream_parallel_infer_config_parser.cpp),
//! each one counted, and so are the enabled primaries.
//!
//! Each check speaks only when the values it compares are plain integers
//! in the files (and the source count is known from the CSV): anything
//! else, silent.

use crate::base::diagnostic::Diagnostic;
use crate::base::rule::Rule;
use crate::model::detect::Kind;
use crate::model::frontend::metamux;
use crate::model::graph::{Element, Layer, Pipeline, Role, Site, Value};
use crate::rules::context::Ctx;

/// A key's value as written on the element's own group (not its config
/// file), with the line that writes it.
fn on_group<'e>(e: &'e Element, key: &str) -> Option<(&'e str, &'e Site)> {
    let s = e.prop(key)?.settings.iter().rev().find(|s| s.layer == Layer::Element)?;
    match (&s.value, &s.site) {
        (Value::Known(v), Some(site)) => Some((v.trim(), site)),
        _ => None,
    }
}

/// A branch's `src-ids`: the app splits at every `;` and reads each piece
/// with `std::stoi`; `None` unless every piece is a plain non-negative
/// integer.
fn src_ids(branch: &Element) -> Option<(Vec<u32>, &Site)> {
    let (v, site) = on_group(branch, "src-ids")?;
    let ids = v
        .split(';')
        .map(|p| p.trim().parse::<u32>().ok())
        .collect::<Option<Vec<_>>>()?;
    Some((ids, site))
}

/// `path:line` of a value, as messages name another line.
fn place(ctx: &Ctx, site: &Site) -> String {
    let f = &ctx.ws.files[site.file];
    format!(
        "{}:{}",
        crate::files::shown(&f.path),
        f.position(site.spans.value().start).0
    )
}

pub fn check(ctx: &Ctx, p: &Pipeline, out: &mut Vec<Diagnostic>) {
    // Each branch with the inference it feeds (the front end links the
    // i-th branch to the i-th primary slot, as the app pairs them).
    let pairs = p.links.iter().filter_map(|l| {
        let (from, to) = (&p.elements[l.from], &p.elements[l.to]);
        (from.role == Role::Branch && to.role.is_inference()).then_some((from, to))
    });
    for (branch, primary) in pairs {
        // DS708: the branch names the primary the app pairs it with.
        let pgie = on_group(branch, "pgie-id").and_then(|(v, s)| Some((v.parse::<i64>().ok()?, s)));
        let uid = on_group(primary, "gie-unique-id").and_then(|(v, s)| Some((v.parse::<i64>().ok()?, s)));
        if let (Some((pgie, bs)), Some((uid, us))) = (pgie, uid) {
            // A pgie-id of 0 is skipped by the parser (the branch keeps no id).
            if pgie != 0 && pgie != uid {
                out.push(
                    Diagnostic::new(
                        Rule::BranchPgieId,
                        bs.file,
                        bs.spans.value(),
                        format!(
                            "{} pgie-id {pgie} != gie-unique-id {uid} of {}, the primary it feeds ({}): deepstream-parallel-infer stops with \"pgieid {uid} != branch pgieid {pgie}\"",
                            branch.name,
                            primary.name,
                            place(ctx, us)
                        ),
                    )
                    .expected(uid.to_string())
                    .why("the app pairs the i-th branch with the i-th enabled primary and refuses to link them when the ids differ (link_streamdemux_to_streammux)")
                    .related(us.file, us.spans.value())
                    .message_at_related(format!(
                        "{} gie-unique-id {uid} != {} pgie-id {pgie} ({})",
                        primary.name,
                        branch.name,
                        place(ctx, bs)
                    )),
                );
            }
        }
        let Some((ids, ss)) = src_ids(branch) else { continue };
        metamux_keeps(ctx, p, branch, primary, &ids, ss, out);
        // DS709: every src-id is a stream the app has.
        if let Some(n) = p.streams() {
            if let Some(&id) = ids.iter().find(|&&id| id >= n) {
                out.push(
                    Diagnostic::new(
                        Rule::BranchSourceMissing,
                        ss.file,
                        ss.spans.value(),
                        format!(
                            "{} src-ids names source {id}, but the app has {n} source{} (ids 0–{})",
                            branch.name,
                            if n == 1 { "" } else { "s" },
                            n.saturating_sub(1)
                        ),
                    )
                    .why(format!(
                        "no frame ever comes from source {id}: {}'s nvstreammux (batch-size {}, one per src-id) never fills a batch",
                        branch.name,
                        ids.len()
                    )),
                );
            }
        }
        // DS710: the primary takes the branch's whole batch.
        let count = ids.len();
        if let Some(b) = primary.int("batch-size") {
            if b.value < count as i64 {
                let (file, span) = b.at();
                out.push(
                    Diagnostic::new(
                        Rule::BranchBatchAbovePrimary,
                        file,
                        span,
                        format!(
                            "{} batch-size {} < the {count} sources of {} (src-ids at {}), whose nvstreammux batch-size the app sets to {count}",
                            primary.name,
                            b.value,
                            branch.name,
                            place(ctx, ss)
                        ),
                    )
                    .expected(count.to_string())
                    .why("the inference gets batches larger than its batch-size and runs several engine batches for each")
                    .related(ss.file, ss.spans.value()),
                );
            }
        }
    }
}

/// DS711: the nvdsmetamux keeps the primary's results for every stream its
/// branch infers on. The primary's metadata carries its effective
/// `gie-unique-id` (what the app or its config file sets on the element);
/// the metamux's map is read as the plugin reads it
/// (`metamux::model_sources`). A source the metamux names but the branch
/// does not feed costs nothing (no metadata comes): not reported.
fn metamux_keeps(
    ctx: &Ctx,
    p: &Pipeline,
    branch: &Element,
    primary: &Element,
    ids: &[u32],
    ids_site: &Site,
    out: &mut Vec<Diagnostic>,
) {
    let Some(cfg) = p
        .first(&Role::MetaMux)
        .and_then(|m| m.config.as_ref())
        .filter(|c| c.kind == Some(Kind::MetaMux))
    else {
        return;
    };
    let Some(uid) = primary.int("gie-unique-id").and_then(|u| u64::try_from(u.value).ok()) else {
        return;
    };
    let Some(models) = metamux::model_sources(ctx.ws, cfg.file) else {
        return;
    };
    let Some(model) = models.iter().find(|m| m.uid == uid) else {
        return;
    };
    let dropped: Vec<String> = ids.iter().filter(|&&id| !model.keeps(id)).map(u32::to_string).collect();
    if dropped.is_empty() {
        return;
    }
    let s = &model.site;
    let plural = if dropped.len() == 1 { "" } else { "s" };
    out.push(
        Diagnostic::new(
            Rule::MetaMuxDropsBranchSource,
            s.file,
            s.spans.value(),
            format!(
                "{} keeps model {uid}'s results only for source{} {}, but {} feeds {} source{plural} {} too (src-ids at {})",
                s.key,
                if model.ids.len() == 1 { "" } else { "s" },
                model.ids.iter().map(i64::to_string).collect::<Vec<_>>().join(";"),
                branch.name,
                primary.name,
                dropped.join(";"),
                place(ctx, ids_site)
            ),
        )
        .why(format!(
            "nvdsmetamux removes model {uid}'s objects on source{plural} {} (gst_nvdsmetamux_check_needed): {} infers on frames whose results never leave the metamux",
            dropped.join(";"),
            primary.name
        ))
        .related(ids_site.file, ids_site.spans.value()),
    );
}
