//! R5: queues (DS501–DS503), where a pipeline spells them out (gst-launch
//! lines, Python apps). A queue is judged by what it feeds: the first
//! element downstream that does more than convert or parse (a converter, a
//! parser, a caps filter pass buffers through),
//!
//! - DS501: the primary inference, the queue after the streammux (a queue
//!   in front of the mux holds one stream's frames, not batches: not
//!   judged);
//! - DS502: a message converter or broker (a leaky=downstream queue of
//!   one or two buffers passes: one is shorter than the preset's two; a
//!   leaky=upstream one is told it drops the newest messages, not that it
//!   holds the pipeline);
//! - DS503: a file sink or an encoder.
//!
//! GStreamer's queue defaults (`gstqueue.c`): `max-size-buffers` 200,
//! `max-size-bytes` 10485760, `max-size-time` 1000000000 ns, `leaky` 0 (no).

use crate::base::diagnostic::Diagnostic;
use crate::base::edit::Fix;
use crate::base::rule::Rule;
use crate::model::frontend::gst::{Adjacency, ENCODERS, FILE_SINKS};
use crate::model::graph::{Element, Pipeline, Role, Stage};
use crate::rules::context::Ctx;

const DEFAULTS: &[(&str, i64)] = &[
    ("max-size-buffers", 200),
    ("max-size-bytes", 10_485_760),
    ("max-size-time", 1_000_000_000),
    ("leaky", 0),
];

/// A queue property's effective value: written, else the default; `None`
/// when written but not known or not a number (leaky's nicks are numbers'
/// names: `no`, `upstream`, `downstream`).
fn value(q: &Element, key: &str) -> Option<i64> {
    if q.unknown(key) {
        return None;
    }
    if let Some(s) = q.str(key) {
        return match s.value.trim() {
            "no" => Some(0),
            "upstream" => Some(1),
            "downstream" => Some(2),
            v => crate::syntax::glib::parse_int(v),
        };
    }
    if q.prop(key).is_some() {
        return None;
    }
    DEFAULTS.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

pub fn check(ctx: &Ctx, p: &Pipeline, out: &mut Vec<Diagnostic>) {
    if !p.elements.iter().any(|e| e.role == Role::Queue) {
        return;
    }
    let links = Adjacency::of(p);
    for (i, q) in p.elements.iter().enumerate() {
        if q.role != Role::Queue {
            continue;
        }
        // What it feeds: the first element downstream that does more than
        // convert or parse.
        let factory = |e: &Element, list: &[&str]| e.factory.as_deref().is_some_and(|f| list.contains(&f));
        let path = links.downstream(p, i, |e| {
            !passes_through(e) || factory(e, FILE_SINKS) || factory(e, ENCODERS)
        });
        let Some(fed) = path.last() else { continue };
        let reaches = |f: &dyn Fn(&Element) -> bool| f(fed);
        // A converter feeds the broker only when one is downstream of it:
        // `nvmsgconv ! fakesink` sends nothing, and has no broker to stall.
        let broker = fed.role == Role::MsgBroker
            || (fed.role == Role::MsgConv && p.downstream(fed).any(|e| e.role == Role::MsgBroker));
        if broker {
            // A leaky=downstream queue never blocks its upstream: full, it
            // drops its oldest buffer and takes the new one
            // (`gst_queue_chain_buffer_or_list`, `gstqueue.c`). One buffer
            // is shorter than the preset's two: not judged.
            if value(q, "leaky") == Some(2) && matches!(value(q, "max-size-buffers"), Some(1..=2)) {
                continue;
            }
            // A leaky=upstream queue never waits either: full, it drops the
            // incoming buffer (same function), so "instead of holding the
            // pipeline" is not what it lacks; the newest messages are.
            let why = if value(q, "leaky") == Some(1) {
                "a queue feeding the message broker: short and leaky=2 (downstream), so a slow broker drops the oldest messages; a leaky=1 (upstream) queue never waits for space either, but when full it drops each incoming message and keeps the oldest, so after a stall the broker sends stale messages first"
            } else {
                "a queue feeding the message broker: short and leaky, so a slow broker drops messages instead of holding the pipeline"
            };
            judge(
                ctx,
                q,
                Rule::QueueBeforeBroker,
                &[("max-size-buffers", 2), ("leaky", 2)],
                why.into(),
                out,
            );
        } else if reaches(&|e| factory(e, FILE_SINKS) || factory(e, ENCODERS)) {
            let Some((fb, why)) = ctx.final_batch(p) else { continue };
            judge(
                ctx,
                q,
                Rule::QueueBeforeFileSink,
                &[("max-size-buffers", i64::from(fb)), ("leaky", 0)],
                format!(
                    "a queue feeding a file sink or encoder: final_batch buffers deep, never dropping frames; {why}"
                ),
                out,
            );
        } else if reaches(&|e| e.role == Role::Infer(Stage::Primary)) && fed_by_mux(&links, p, i) {
            let Some((fb, why)) = ctx.final_batch(p) else { continue };
            let want = i64::from(fb) * 4;
            judge(
                ctx,
                q,
                Rule::QueueBeforeInference,
                &[("max-size-buffers", want), ("max-size-bytes", 0), ("max-size-time", 0)],
                format!(
                    "a queue in front of the primary inference: final_batch × 4 buffers, bounded by count only; {why}"
                ),
                out,
            );
        }
    }
}

/// Whether the queue `i` takes its buffers from the streammux: the first
/// element upstream that does more than convert or parse (a tee or another
/// queue passes the same buffers on) is the mux. A queue behind another nvinfer (two
/// primaries back to back) is fed by that nvinfer's own output thread
/// (`gstnvinfer.cpp` `gst_nvinfer_output_loop`, apart from the thread that
/// takes its input, `gst_nvinfer_input_queue_loop`), not by the mux forming
/// batches: the mux-based depth says nothing of it. So is one behind
/// nvdspreprocess (`gst_nvdspreprocess_output_loop`).
fn fed_by_mux(links: &Adjacency, p: &Pipeline, i: usize) -> bool {
    links
        .upstream(p, i)
        .find(|e| !passes_through(e) && !matches!(e.role, Role::Tee | Role::Queue))
        .is_some_and(|e| e.role == Role::Streammux)
}

/// An element a queue's buffers pass through on their way to what the
/// queue feeds (converters, parsers, caps filters, muxers into a file).
fn passes_through(e: &Element) -> bool {
    matches!(&e.role, Role::Other(_))
}

/// One finding for a queue whose properties differ from `want`, with one
/// fix setting them all.
fn judge(ctx: &Ctx, q: &Element, rule: Rule, want: &[(&str, i64)], why: String, out: &mut Vec<Diagnostic>) {
    let mut differ = Vec::new();
    for (key, w) in want {
        match value(q, key) {
            None => return,
            Some(v) if v != *w => differ.push((*key, v, *w)),
            Some(_) => {}
        }
    }
    if differ.is_empty() {
        return;
    }
    let Some((home_file, header)) = q.at() else { return };
    let first = q.str(differ[0].0).map(|e| e.at());
    let (file, span) = first.unwrap_or((home_file, header));
    let have: Vec<String> = differ
        .iter()
        .map(|(k, v, _)| {
            let default = if q.prop(k).is_none() { " (default)" } else { "" };
            format!("{k}={v}{default}")
        })
        .collect();
    let expected: Vec<String> = want.iter().map(|(k, w)| format!("{k}={w}")).collect();
    let set: Vec<String> = differ.iter().map(|(k, _, w)| format!("{k}={w}")).collect();
    let keys: Vec<(&str, String)> = differ.iter().map(|(k, _, w)| (*k, w.to_string())).collect();
    let edits = ctx.set_or_insert_all(q, &keys);
    out.push(
        Diagnostic::new(rule, file, span, format!("[{}] has {}", q.name, have.join(", ")))
            .expected(expected.join(", "))
            .why(why)
            .fix(edits.map(|e| Fix::safe(format!("set {}", set.join(" ")), e))),
    );
}
