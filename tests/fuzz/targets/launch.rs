//! The gst-launch front end: shell scripts whose `gst-launch-1.0` commands
//! are built from the pipeline syntax's tokens (factories, `name=`,
//! `key=value` with every quoting, `key= value`, caps with
//! `(memory:NVMM)`, `!`, `m.sink_N` before and after the mux, `$VARS`,
//! backslash continuations) and the shell's (quotes, `$(…)`, pipes,
//! comments), including the ones that break them.
//!
//! Checks: nothing panics (the lexers, the grammar, the whole check with
//! every fix); each description prints back from its parts; every span
//! sits on character boundaries; a value's file bytes, where a fix may
//! edit them, are the value; after the fixes the script still has as many
//! gst-launch commands, and a description GStreamer accepted still parses.

use dslint::syntax::{Format, launch, shell};
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;

use crate::checks::{span_ok, whole_check};
use crate::grammar::{joined, lines, one, pick, word};

fn value() -> BoxedStrategy<String> {
    prop_oneof![
        4 => pick(&["1", "4", "0", "33333", "4000000", "true", "false", "-1", "2147483648", "1e300"]),
        2 => pick(&["$B", "${B}", "\"$B\"", "$(nproc)", "${B:-4}"]),
        2 => word().prop_map(|w| format!("\"{w} x\"")),
        1 => word().prop_map(|w| format!("'{w}'")),
        1 => pick(&["a\\ b", "\"unclosed", "'unclosed", "\"a\\\"b\"", "c.txt", "file:///a.mp4", "rtsp://h/s", "\\"]),
        2 => word(),
    ]
    .boxed()
}

fn property() -> BoxedStrategy<String> {
    (
        pick(&[
            "batch-size",
            "batch_size",
            "live-source",
            "batched-push-timeout",
            "sync",
            "max-size-buffers",
            "max-size-bytes",
            "max-size-time",
            "leaky",
            "config-file-path",
            "uri",
            "location",
            "name",
            "width",
        ]),
        pick(&["=", "=", "=", "= ", " = "]),
        value(),
    )
        .prop_map(|(k, eq, v)| format!("{k}{eq}{v}"))
        .boxed()
}

fn token() -> BoxedStrategy<String> {
    prop_oneof![
        4 => pick(&["nvstreammux", "nvinfer", "queue", "fakesink", "filesrc", "uridecodebin", "rtspsrc", "tee", "nvmsgconv", "nvmsgbroker", "filesink", "nvv4l2h264enc", "nvv4l2decoder", "h264parse", "nveglglessink", "$DEC", "nv日本"]),
        6 => property(),
        5 => pick(&["!", "!", "!", " ! ", "!!"]),
        2 => pick(&["m.sink_0", "m.sink_1", "m.", "t.", "m.sink_$i", ".src", "name=m", "name=t", "x.y,z"]),
        1 => pick(&["'video/x-raw(memory:NVMM), format=NV12'", "video/x-raw(memory:NVMM),format=RGBA", "\"video/x-raw, width=(int)1920\"", "( queue )", "(", ")", "@preset=a", "/dev/video0", "file:///x"]),
        1 => pick(&["\\", "\\\n  ", "|", "2>&1", "&", ";", "# c", "-e", "-v", "--gst-debug-level", "3"]),
    ]
    .boxed()
}

fn command() -> BoxedStrategy<String> {
    (
        pick(&[
            "gst-launch-1.0",
            "gst-launch-1.0 -e",
            "GST_DEBUG=3 gst-launch-1.0",
            "exec gst-launch-1.0",
            "echo gst-launch-1.0",
        ]),
        joined(token(), 14),
        pick(&["", "", " \\\n  ! fakesink sync=0", " &"]),
    )
        .prop_map(|(c, body, tail)| format!("{c} {body}{tail}"))
        .boxed()
}

pub fn document() -> BoxedStrategy<String> {
    let piece = prop_oneof![
        6 => one(command()),
        1 => one(pick(&["#!/bin/bash", "B=4", "for i in 0 1; do", "done", "if [ -n \"$X\" ]; then", "fi", "cat <<EOF", "EOF", "f() {", "}", "é"])),
    ];
    lines(piece.boxed(), 5)
}

pub fn check(input: &str) -> Result<(), String> {
    let before = shell::launches(input);
    for l in &before {
        let m = &l.mapped;
        if m.origin.len() != m.text.len() {
            return Err(format!("{} bytes of text, {} origins", m.text.len(), m.origin.len()));
        }
        let d = launch::parse(&m.text);
        let printed = d.render(&m.text).map_err(|e| format!("{e} in {:?}", m.text))?;
        if printed != m.text {
            return Err(format!("printed back as {printed:?}"));
        }
        for a in d.elements.iter().flat_map(|e| &e.assignments) {
            for s in [&a.key_span, &a.value_span, &a.span] {
                if !span_ok(&m.text, s) {
                    return Err(format!("span {s:?} in {:?}", m.text));
                }
            }
            if let Some(span) = m.verbatim(&a.value_span, input) {
                if !span_ok(input, &span) || input[span.clone()] != m.text[a.value_span.clone()] {
                    return Err(format!("value {:?} at {span:?} of the script", a.value));
                }
            }
        }
        if let Some(s) = m.source_span(&(0..m.text.len())) {
            if !span_ok(input, &s) {
                return Err(format!("source span {s:?}"));
            }
        }
    }
    whole_check(input, "run.sh", Format::Shell)?;
    // The fixes keep the script's commands and what GStreamer accepted.
    let fixed = crate::checks::fixed_text(input, "run.sh");
    if let Some(fixed) = fixed {
        let after = shell::launches(&fixed);
        if after.len() != before.len() {
            return Err(format!(
                "{} gst-launch commands after the fixes, {} before:\n{fixed}",
                after.len(),
                before.len()
            ));
        }
        for (b, a) in before.iter().zip(&after) {
            let was_ok = launch::parse(&b.mapped.text).errors.is_empty();
            if was_ok && !launch::parse(&a.mapped.text).errors.is_empty() {
                return Err(format!("a fix broke {:?} into {:?}", b.mapped.text, a.mapped.text));
            }
        }
    }
    Ok(())
}
