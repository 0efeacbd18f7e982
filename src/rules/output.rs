//! R6: the output branch (DS601–DS604). Warnings in the bench profile,
//! info in the display profile (where the fix belongs to `--variant bench`).

use rayon::prelude::*;

use crate::base::diagnostic::Diagnostic;
use crate::base::edit::Fix;
use crate::base::rule::{Rule, When};
use crate::base::{FileId, Span};
use crate::model::graph::{Element, Home, Pipeline, Role};
use crate::rules::context::{Ctx, Profile, site};

/// A finding's `why`, with the display profile's note on measuring the
/// bench variant: a text of the binary, not made per finding (a config of
/// 100k sinks has a finding each).
macro_rules! noted {
    ($bench:expr, $why:literal) => {
        if $bench {
            $why
        } else {
            concat!(
                $why,
                "; costs throughput: measure with the bench variant (dslint fix --variant bench)"
            )
        }
    };
}

/// A pipeline with more sinks than this checks them on all threads.
const MANY_SINKS: usize = 1024;

pub fn check(ctx: &Ctx, p: &Pipeline, out: &mut Vec<Diagnostic>) {
    let bench = ctx.profile == Profile::Bench;
    for (rule, role, what) in [
        (Rule::OsdEnabled, Role::Osd, "OSD"),
        (Rule::TilerEnabled, Role::Tiler, "tiler"),
    ] {
        let Some(at) = p.first(&role) else { continue };
        let Some(loc) = site(at, "enable") else { continue };
        out.push(
            Diagnostic::new(rule, loc.file, loc.spans.value(), format!("{what} is enabled"))
                .when(When::BenchProfile, bench)
                .expected("enable=0 in the bench profile")
                .why(noted!(
                    bench,
                    "drawing and compositing frames is work no measurement needs"
                ))
                .fix(bench.then(|| Fix::safe("set enable=0", vec![ctx.set_value(loc, "0")]))),
        );
    }
    // DS603: exactly one sink, a fakesink without sync. Each sink after
    // the first is one finding at most, made on all threads when there are
    // many, in order.
    let sinks: Vec<&Element> = p.all(&Role::Sink).collect();
    if sinks.len() <= MANY_SINKS {
        for (i, at) in sinks.iter().enumerate() {
            sink(ctx, p, i, at, out);
        }
    } else {
        sink(ctx, p, 0, sinks[0], out);
        out.par_extend(
            sinks[1..]
                .par_iter()
                .enumerate()
                .with_min_len(MANY_SINKS / 4)
                .flat_map_iter(|(i, at)| {
                    let mut one = Vec::new();
                    sink(ctx, p, i + 1, at, &mut one);
                    one
                }),
        );
    }
    // DS604: perf measurement on (deepstream-app's [application]).
    if let Some(app) = p.first(&Role::Application) {
        if app.int("enable-perf-measurement").map(|e| e.value) != Some(1) {
            let (file, span) = match site(app, "enable-perf-measurement") {
                Some(l) => (l.file, l.spans.value()),
                None => app.at().unwrap_or((p.root, 0..0)),
            };
            out.push(
                Diagnostic::new(
                    Rule::PerfMeasurementOff,
                    file,
                    span,
                    "[application] enable-perf-measurement is not 1",
                )
                .expected("1")
                .why("deepstream-app prints **PERF lines only when it is on; dslint measure sweep reads them")
                .fix(
                    ctx.set_or_insert(app, "enable-perf-measurement", "1")
                        .map(|e| Fix::safe("set enable-perf-measurement=1", vec![e])),
                ),
            );
        }
    }
}

/// DS603 about the `i`-th sink of `p`.
fn sink(ctx: &Ctx, p: &Pipeline, i: usize, at: &Element, out: &mut Vec<Diagnostic>) {
    let bench = ctx.profile == Profile::Bench;
    // Sinks of a pipeline written in code (gst-launch, Python).
    if let (Some(factory), Some(Home::Launch { .. } | Home::Python { .. })) = (&at.factory, at.home.as_deref()) {
        gst_sink(ctx, at, factory, i, out);
        return;
    }
    // A sink whose factory is chosen in code (a test app's `sink:`): the
    // app may set the group's keys on it (deepstream-test3/test4 through
    // nvds_parse_*_sink) or not at all (the TAO pose app reads only
    // `sink-type`): neither its kind nor its `sync` is known.
    if at.unknown("type") {
        return;
    }
    let factory = at.factory.as_deref();
    let ty = at.int("type").map(|e| e.value);
    // deepstream-app's type 6 (`NV_DS_SINK_MSG_CONV_BROKER`) is a branch of
    // queue, nvmsgconv and nvmsgbroker (`create_msg_conv_broker_bin`,
    // deepstream_sink_bin.c): it sends each frame's metadata, not the
    // frame, so its why says that, not rendering or encoding.
    let broker = factory.is_none() && ty == Some(MSG_CONV_BROKER);
    let (home_file, group_span) = at.at().unwrap_or((p.root, 0..0));
    if i > 0 {
        // The edit only where the fix is offered (bench): a config of
        // 100k sinks made 100k edits to drop.
        let edit = (bench && factory.is_none())
            .then(|| ctx.set_or_insert(at, "enable", "0"))
            .flatten();
        out.push(
            extra_sink(at, (home_file, group_span), bench, broker)
                .fix(edit.map(|e| Fix::safe("set enable=0", vec![e]))),
        );
        return;
    }
    let sync = at.int("sync").map(|e| e.value).or_else(|| {
        // A GObject boolean (Service Maker) is written as a word.
        at.str("sync").and_then(|s| match s.value {
            "false" | "False" => Some(0),
            "true" | "True" => Some(1),
            _ => None,
        })
    });
    // The sink the bench profile wants: a fakesink unless the project says
    // otherwise (`[options] bench-sink-type`). A pipeline that names the
    // sink's factory (Service Maker) says what it is by the factory, and
    // there is no `type` key to fix: the finding has no fix then.
    let want = ctx.bench_sink_type;
    let is_fake = match factory {
        Some(f) => f == "fakesink" && want == 1,
        None => ty == Some(want),
    };
    // An unset `sync` is off: deepstream-app sets the sink's `sync` from a
    // zeroed config (`create_render_bin`, `deepstream_sink_bin.c`; the app
    // context is `g_malloc0`'d), and a Service Maker fakesink keeps its own
    // default, off (`gst_fake_sink_init`: `DEFAULT_SYNC` FALSE).
    let syncs = sync.is_some_and(|s| s != 0);
    if !is_fake || syncs {
        let mut edits = Vec::new();
        if !is_fake && factory.is_none() {
            edits.extend(ctx.set_or_insert(at, "type", &want.to_string()));
        }
        if sync != Some(0) && factory.is_none() {
            edits.extend(ctx.set_or_insert(at, "sync", "0"));
        }
        let (file, span) = site(at, if is_fake { "sync" } else { "type" })
            .map_or((home_file, group_span), |l| (l.file, l.spans.value()));
        let what = match (is_fake, sync) {
            (false, _) if let Some(f) = factory => format!("[{}] is {f}, not a fakesink", at.name),
            (false, _) => format!(
                "[{}] is not a fakesink (type={})",
                at.name,
                ty.map_or("unset".into(), |t| t.to_string())
            ),
            (true, s) => format!("[{}] has sync={}", at.name, s.unwrap_or(1)),
        };
        out.push(
            Diagnostic::new(Rule::SinkNotFakesink, file, span, what)
                .when(When::BenchProfile, bench)
                .expected(match (factory, want) {
                    (Some(_), _) => "a fakesink with sync off".to_string(),
                    (None, 1) => "type=1 (fakesink), sync=0".to_string(),
                    (None, _) => format!("type={want} (bench-sink-type), sync=0"),
                })
                .why(match (broker, syncs) {
                    (false, _) => noted!(
                        bench,
                        "a rendering or encoding sink, or sync to the clock, caps the pipeline below what it can do"
                    ),
                    (true, false) => noted!(
                        bench,
                        "a message-broker sink turns each frame's metadata into a message (nvmsgconv) and sends it (nvmsgbroker): work no measurement needs"
                    ),
                    (true, true) => noted!(
                        bench,
                        "a message-broker sink turns each frame's metadata into a message (nvmsgconv) and sends it (nvmsgbroker), and sync to the clock caps the pipeline below what it can do"
                    ),
                })
                .fix(if bench && !edits.is_empty() {
                    Some(Fix::safe("make it a fakesink with sync=0", edits))
                } else {
                    None
                }),
        );
    }
}

/// deepstream-app's sink `type` 6, `NV_DS_SINK_MSG_CONV_BROKER`
/// (deepstream_sinks.h).
const MSG_CONV_BROKER: i64 = 6;

/// DS603 about a sink after the first; `broker`: a deepstream-app message
/// broker sink (type 6), which sends metadata rather than frames.
fn extra_sink(at: &Element, (file, span): (FileId, Span), bench: bool, broker: bool) -> Diagnostic {
    Diagnostic::new(
        Rule::SinkNotFakesink,
        file,
        span,
        format!("[{}] is an extra sink", at.name),
    )
    .when(When::BenchProfile, bench)
    .expected("exactly one sink in the bench profile")
    .why(if broker {
        noted!(
            bench,
            "a message-broker sink is a branch that turns each frame's metadata into a message (nvmsgconv) and sends it (nvmsgbroker)"
        )
    } else {
        noted!(
            bench,
            "every sink is a branch that encodes, renders or sends frames"
        )
    })
}

/// DS603 for a GStreamer sink element (gst-launch, Python): the factory
/// says what it is; a fakesink syncs only when `sync` is set on: its own
/// default is off (`gst_fake_sink_init`: `DEFAULT_SYNC` FALSE, GStreamer's
/// `gstfakesink.c`), unlike GstBaseSink's TRUE. The fix turns `sync` off on
/// a fakesink; another sink is named, not replaced (its other properties
/// would not fit a fakesink).
fn gst_sink(ctx: &Ctx, at: &Element, factory: &str, i: usize, out: &mut Vec<Diagnostic>) {
    let bench = ctx.profile == Profile::Bench;
    let Some((home_file, header)) = at.at() else { return };
    let why = noted!(
        bench,
        "a rendering or encoding sink, or sync to the clock, caps the pipeline below what it can do"
    );
    if i > 0 {
        out.push(extra_sink(at, (home_file, header), bench, false));
        return;
    }
    if factory != "fakesink" {
        out.push(
            Diagnostic::new(
                Rule::SinkNotFakesink,
                home_file,
                header,
                format!("[{}] is {factory}, not a fakesink", at.name),
            )
            .when(When::BenchProfile, bench)
            .expected("fakesink sync=0")
            .why(why),
        );
        return;
    }
    if at.unknown("sync") {
        return;
    }
    // Unset, the fakesink's own default (off) runs.
    let Some(sync) = at.flag("sync") else { return };
    if !sync.value {
        return;
    }
    let (file, span) = sync.at();
    let what = format!("[{}] syncs to the clock (sync is on)", at.name);
    let fix = if bench {
        ctx.set_or_insert(at, "sync", "0")
            .map(|e| Fix::safe("set sync=0", vec![e]))
    } else {
        None
    };
    out.push(
        Diagnostic::new(Rule::SinkNotFakesink, file, span, what)
            .when(When::BenchProfile, bench)
            .expected("sync=0")
            .why(why)
            .fix(fix),
    );
}
