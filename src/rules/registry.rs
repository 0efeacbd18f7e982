//! Rule metadata and the embedded documentation pages (`rules/DSxxx.md`).

use crate::base::diagnostic::Severity;

pub struct RuleInfo {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    /// `safe`, `unsafe`, `none`, or a sentence when it depends.
    pub fix: &'static str,
    pub summary: &'static str,
    pub page: &'static str,
}

macro_rules! rule {
    ($code:literal, $name:literal, $sev:ident, $fix:literal, $summary:literal) => {
        RuleInfo {
            code: $code,
            name: $name,
            severity: Severity::$sev,
            fix: $fix,
            summary: $summary,
            page: include_str!(concat!("../../rules/", $code, ".md")),
        }
    };
}

pub static RULES: &[RuleInfo] = &[
    rule!(
        "DS001",
        "syntax-error",
        Error,
        "safe (BOM only)",
        "the file's reader refuses it"
    ),
    rule!(
        "DS002",
        "unknown-key",
        Warning,
        "none",
        "unknown group or key for that element"
    ),
    rule!(
        "DS003",
        "invalid-value",
        Error,
        "none",
        "value of the wrong type or out of range"
    ),
    rule!(
        "DS004",
        "duplicate-key",
        Warning,
        "none",
        "the same key twice in one group"
    ),
    rule!(
        "DS005",
        "unreadable-file",
        Warning,
        "none",
        "not UTF-8, binary, too large or unreadable: skipped"
    ),
    rule!(
        "DS006",
        "trailing-comment-in-value",
        Warning,
        "safe",
        "a string value ends in ` # …`, which GLib keeps"
    ),
    rule!(
        "DS101",
        "streammux-batch-size",
        Warning,
        "safe",
        "streammux batch-size is not final_batch"
    ),
    rule!(
        "DS102",
        "streammux-resolution",
        Warning,
        "safe with facts, unsafe without",
        "streammux width/height is not min(source, model)"
    ),
    rule!(
        "DS103",
        "batched-push-timeout",
        Warning,
        "safe",
        "batched-push-timeout is not one frame interval"
    ),
    rule!(
        "DS104",
        "streammux-memory-type",
        Warning,
        "safe",
        "streammux nvbuf-memory-type is not 0"
    ),
    rule!(
        "DS105",
        "live-source",
        Warning,
        "safe",
        "live-source does not match the sources"
    ),
    rule!("DS106", "enable-padding", Info, "unsafe", "streammux pads frames"),
    rule!(
        "DS201",
        "primary-batch-size",
        Warning,
        "safe",
        "primary nvinfer batch-size is not final_batch"
    ),
    rule!(
        "DS202",
        "network-mode",
        Warning,
        "unsafe",
        "inference runs in FP32 or misses INT8"
    ),
    rule!(
        "DS203",
        "inference-interval",
        Warning,
        "safe",
        "primary nvinfer skips frames"
    ),
    rule!(
        "DS204",
        "infer-dims",
        Warning,
        "safe when dims are known",
        "infer-dims missing or not 3;H;W"
    ),
    rule!(
        "DS205",
        "engine-file-missing",
        Warning,
        "none",
        "no serialized engine: rebuilt at start"
    ),
    rule!(
        "DS206",
        "int8-calib-missing",
        Error,
        "none",
        "INT8 without a calibration file"
    ),
    rule!(
        "DS207",
        "engine-name-mismatch",
        Error,
        "safe",
        "engine name disagrees with batch, GPU or precision"
    ),
    rule!(
        "DS208",
        "duplicate-source-of-truth",
        Info,
        "none",
        "key set on the element and in its config file"
    ),
    rule!(
        "DS301",
        "num-extra-surfaces",
        Info,
        "safe",
        "decoder surfaces are not min(final_batch, 5)"
    ),
    rule!(
        "DS302",
        "decoder-memory-type",
        Warning,
        "safe",
        "cudadec-memtype is not 0"
    ),
    rule!(
        "DS303",
        "file-loop",
        Info,
        "safe",
        "file sources not looped in the bench profile"
    ),
    rule!(
        "DS304",
        "multiurisrcbin-max-batch-size",
        Warning,
        "safe",
        "nvmultiurisrcbin max-batch-size is not final_batch"
    ),
    rule!(
        "DS401",
        "tracker-batch-process",
        Warning,
        "safe",
        "tracker batch processing off"
    ),
    rule!(
        "DS402",
        "tracker-resolution",
        Info,
        "unsafe",
        "tracker working resolution is not 480x288"
    ),
    rule!("DS403", "tracker-preset", Info, "unsafe", "an accuracy tracker preset"),
    rule!(
        "DS404",
        "tracker-library-missing",
        Warning,
        "none",
        "ll-lib-file does not exist"
    ),
    rule!(
        "DS501",
        "queue-before-inference",
        Info,
        "safe",
        "queue before inference is not final_batch x 4 buffers"
    ),
    rule!(
        "DS502",
        "queue-before-broker",
        Warning,
        "safe",
        "queue feeding a broker is not leaky and short"
    ),
    rule!(
        "DS503",
        "queue-before-file-sink",
        Info,
        "safe",
        "queue feeding a file sink is not final_batch buffers"
    ),
    rule!("DS601", "osd-enabled", Warning, "safe (bench profile)", "OSD enabled"),
    rule!(
        "DS602",
        "tiler-enabled",
        Warning,
        "safe (bench profile)",
        "tiler enabled"
    ),
    rule!(
        "DS603",
        "sink-not-fakesink",
        Warning,
        "safe (bench profile)",
        "sink is not one fakesink with sync=0"
    ),
    rule!(
        "DS604",
        "perf-measurement-off",
        Info,
        "safe",
        "enable-perf-measurement is not 1"
    ),
    rule!(
        "DS701",
        "batch-mismatch",
        Error,
        "safe with n_streams, unsafe without",
        "streammux and primary batch-size differ"
    ),
    rule!(
        "DS702",
        "batch-below-streams",
        Warning,
        "none",
        "streammux batch-size below the stream count"
    ),
    rule!(
        "DS703",
        "memory-type-mismatch",
        Warning,
        "none",
        "nvbuf-memory-type differs between elements"
    ),
    rule!(
        "DS704",
        "missing-file",
        Warning,
        "none",
        "a referenced file does not exist (error for configs)"
    ),
    rule!(
        "DS705",
        "operate-on-unknown-gie",
        Error,
        "none",
        "operate-on-gie-id names no inference element"
    ),
    rule!(
        "DS706",
        "duplicate-gie-id",
        Error,
        "none",
        "two inference elements share a gie-unique-id"
    ),
    rule!(
        "DS707",
        "preprocess-batch-mismatch",
        Error,
        "safe",
        "nvinfer batch differs from the preprocess tensor batch"
    ),
];

pub fn find(code_or_name: &str) -> Option<&'static RuleInfo> {
    let q = code_or_name.trim();
    RULES.iter().find(|r| r.code.eq_ignore_ascii_case(q) || r.name == q)
}
