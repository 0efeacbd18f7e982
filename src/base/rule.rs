//! Rule identity, the way ruff does it: one [`Rule`] per code, and one
//! table ([`RULES`]) that says, for each, its code and name, the severity it
//! is reported at (and the declared situations that change it), what its fix
//! is, whether anything emits it yet, a one-line summary and its page
//! (`rules/DSxxx.md`, embedded for `dslint explain`).
//!
//! Emitting code names a rule, never a code string or a severity:
//! `Diagnostic::new(Rule::BatchMismatch, file, span, message)` takes the
//! severity from this table, and `.when(When::BenchProfile, bench)` switches
//! to a severity the table declares for that situation. So a code cannot be
//! emitted unregistered, and `dslint rules` prints what the rules do.
//!
//! Adding a rule: a row below, its page `rules/CODE.md` (its third line is
//! the rendered severity and fix, see [`RuleInfo::header`]; a test checks
//! it), and case folders `testdata/rules/CODE/{fires,clean}*`.

use crate::base::diagnostic::Severity;
use crate::base::diagnostic::Severity::{Error, Info, Warning};
use crate::base::edit::Applicability::{self, Safe, Unsafe};

/// A situation in which a rule reports at another severity than its
/// default. Each rule declares the ones it uses (`also` below).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// `--profile bench` (the output-branch rules are advice in `display`).
    BenchProfile,
    /// The missing file is a config file, which stops the app (DS704).
    ConfigFile,
    /// DS002's key is one a later release stopped reading (the releases
    /// before it still honour it; which one runs the config is unknown).
    RemovedKey,
    /// The path leaves the project root: not looked at (DS704).
    OutsideRoot,
    /// A missing media file outside the bench profile: machine state, not
    /// config (DS704, Precision 9).
    MediaOutsideBench,
    /// A build input the config names (DS206's calibration table) is not in
    /// the tree: machine state (Precision 9), as a missing model file.
    BuildInputMissing,
    /// DS204's key is unset and no facts give the model's size: nvinfer
    /// reads it from the engine, so the absence is advice (Precision 7).
    UnsetWithoutFacts,
    /// The expected value is a Stage 0 preset (no measurement in the facts)
    /// and the value set is not provably wrong (Precision 7).
    Preset,
}

impl When {
    /// How a page or `dslint rules` says it: "error {phrase}".
    pub fn phrase(self) -> &'static str {
        match self {
            When::BenchProfile => "in the bench profile",
            When::ConfigFile => "for config files",
            When::RemovedKey => "for a key a later release stopped reading",
            When::OutsideRoot => "for paths outside the project root (not checked)",
            When::MediaOutsideBench => "for media files outside the bench profile (machine state)",
            When::BuildInputMissing => "when the file is named but not in the tree (machine state)",
            When::UnsetWithoutFacts => "when the key is unset and no facts give the model's size",
            When::Preset => "when the expected value is a preset, not a measurement (no facts)",
        }
    }
}

/// What a rule's fix is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixSpec {
    /// Diagnostic only.
    None,
    /// Every finding carries a fix of this applicability.
    Always(Applicability),
    /// A fix of this applicability in the situation named, none otherwise.
    Sometimes(Applicability, &'static str),
    /// Safe in the situation named, unsafe otherwise.
    SafeWhen(&'static str),
}

impl FixSpec {
    /// "safe", "safe in the bench profile, none otherwise", …
    pub fn describe(self) -> String {
        match self {
            FixSpec::None => "none".into(),
            FixSpec::Always(a) => a.as_str().into(),
            FixSpec::Sometimes(a, when) => format!("{} {when}, none otherwise", a.as_str()),
            FixSpec::SafeWhen(when) => format!("safe {when}, unsafe otherwise"),
        }
    }

    /// Whether a fix of this applicability is one the rule declares.
    /// (A finding may always come without a fix: `Always` means every fix
    /// offered is of that kind; a value the config computes has no line to
    /// edit.)
    pub fn allows(self, fix: Applicability) -> bool {
        match self {
            FixSpec::None => false,
            FixSpec::Always(a) | FixSpec::Sometimes(a, _) => fix == a,
            FixSpec::SafeWhen(_) => true,
        }
    }
}

/// Whether a check emits the rule yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Emitted,
    /// Registered (page, code, name) but nothing emits it yet: why not.
    NotYetEmitted(&'static str),
}

/// One row of the rule book.
#[derive(Debug)]
pub struct RuleInfo {
    pub rule: Rule,
    pub code: &'static str,
    pub name: &'static str,
    /// The severity in the default run (display profile, no facts).
    pub severity: Severity,
    /// Other severities and the situations that choose them.
    pub also: &'static [(When, Severity)],
    pub fix: FixSpec,
    pub status: Status,
    pub summary: &'static str,
    /// The page, `rules/CODE.md`.
    pub page: &'static str,
}

impl RuleInfo {
    pub fn emitted(&self) -> bool {
        self.status == Status::Emitted
    }

    /// The severity in a situation the rule declares; the default for one it
    /// does not (a debug build stops there: the table must say it).
    pub fn severity_when(&self, when: When) -> Severity {
        let found = self.also.iter().find(|(w, _)| *w == when).map(|(_, s)| *s);
        debug_assert!(
            found.is_some(),
            "{} does not declare a severity {}",
            self.code,
            when.phrase()
        );
        found.unwrap_or(self.severity)
    }

    /// Every severity the rule may be reported at.
    pub fn severities(&self) -> impl Iterator<Item = Severity> + '_ {
        std::iter::once(self.severity).chain(self.also.iter().map(|(_, s)| *s))
    }

    /// "warning, error for config files".
    pub fn severity_text(&self) -> String {
        let mut s = self.severity.as_str().to_string();
        for (when, sev) in self.also {
            s.push_str(&format!(", {} {}", sev.as_str(), when.phrase()));
        }
        s
    }

    /// The page's third line: `**Severity:** … · **Fix:** …`.
    pub fn header(&self) -> String {
        format!(
            "**Severity:** {} · **Fix:** {}",
            self.severity_text(),
            self.fix.describe()
        )
    }
}

impl Rule {
    pub fn info(self) -> &'static RuleInfo {
        &RULES[self as usize]
    }
    pub fn code(self) -> &'static str {
        self.info().code
    }
    pub fn name(self) -> &'static str {
        self.info().name
    }
}

/// A rule by code (any case) or name.
pub fn find(code_or_name: &str) -> Option<&'static RuleInfo> {
    let q = code_or_name.trim();
    RULES.iter().find(|r| r.code.eq_ignore_ascii_case(q) || r.name == q)
}

macro_rules! registry {
    ($( $variant:ident = $code:literal, $name:literal {
        severity: $sev:ident, also: [$(($when:expr, $wsev:ident)),*],
        fix: $fix:expr,
        status: $status:expr,
        summary: $summary:literal,
    } )*) => {
        /// Every rule dslint knows, in code order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule {
            $( #[doc = concat!($code, " `", $name, "`: ", $summary)] $variant, )*
        }

        /// The rule book, in the order of [`Rule`] (`RULES[rule as usize]`).
        pub static RULES: &[RuleInfo] = &[ $( RuleInfo {
            rule: Rule::$variant,
            code: $code,
            name: $name,
            severity: $sev,
            also: &[$(($when, $wsev)),*],
            fix: $fix,
            status: $status,
            summary: $summary,
            page: include_str!(concat!("../../rules/", $code, ".md")),
        }, )* ];
    };
}

registry! {
    SyntaxError = "DS001", "syntax-error" {
        severity: Error, also: [],
        fix: FixSpec::Sometimes(Safe, "for a byte-order mark or a comment after a group header"),
        status: Status::Emitted,
        summary: "the file's reader refuses it",
    }
    UnknownKey = "DS002", "unknown-key" {
        severity: Warning, also: [(When::RemovedKey, Info)],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "unknown group or key for that element",
    }
    InvalidValue = "DS003", "invalid-value" {
        severity: Error, also: [],
        fix: FixSpec::Sometimes(Safe, "for a comment after a number"),
        status: Status::Emitted,
        summary: "value of the wrong type or out of range",
    }
    DuplicateKey = "DS004", "duplicate-key" {
        severity: Warning, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "the same key twice in one group",
    }
    UnreadableFile = "DS005", "unreadable-file" {
        severity: Warning, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "not UTF-8, binary, too large or unreadable: skipped",
    }
    TrailingCommentInValue = "DS006", "trailing-comment-in-value" {
        severity: Warning, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "a string value ends in ` # …`, which GLib keeps",
    }
    UnusedSuppression = "DS009", "unused-suppression" {
        severity: Warning, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "a suppression comment that silences nothing",
    }
    StreammuxBatchSize = "DS101", "streammux-batch-size" {
        severity: Warning, also: [(When::Preset, Info)],
        fix: FixSpec::SafeWhen("with facts or for a batch larger than its streams"),
        status: Status::Emitted,
        summary: "streammux batch-size is not final_batch",
    }
    StreammuxResolution = "DS102", "streammux-resolution" {
        severity: Warning, also: [],
        fix: FixSpec::SafeWhen("with facts"),
        status: Status::Emitted,
        summary: "streammux width/height is not min(source, model)",
    }
    BatchedPushTimeout = "DS103", "batched-push-timeout" {
        severity: Warning, also: [(When::Preset, Info)],
        fix: FixSpec::SafeWhen("with facts or outside [8333, 133333] µs"),
        status: Status::Emitted,
        summary: "batched-push-timeout is not one frame interval",
    }
    StreammuxMemoryType = "DS104", "streammux-memory-type" {
        severity: Warning, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "streammux nvbuf-memory-type is not 0",
    }
    LiveSource = "DS105", "live-source" {
        severity: Warning, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "live-source does not match the sources",
    }
    EnablePadding = "DS106", "enable-padding" {
        severity: Info, also: [],
        fix: FixSpec::Always(Unsafe),
        status: Status::Emitted,
        summary: "streammux pads frames",
    }
    StreammuxLegacyKey = "DS107", "streammux-legacy-key" {
        severity: Info, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "a legacy nvstreammux key that does nothing under the new nvstreammux",
    }
    FactsStreamCount = "DS108", "facts-stream-count" {
        severity: Info, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "facts' workload.n_streams is not the number of streams the config's sources feed",
    }
    PrimaryBatchSize = "DS201", "primary-batch-size" {
        severity: Warning, also: [(When::Preset, Info)],
        fix: FixSpec::SafeWhen("with facts or for a batch larger than its streams"),
        status: Status::Emitted,
        summary: "primary nvinfer batch-size is not final_batch",
    }
    NetworkMode = "DS202", "network-mode" {
        severity: Warning, also: [],
        fix: FixSpec::Always(Unsafe),
        status: Status::Emitted,
        summary: "inference runs in FP32 or misses INT8",
    }
    InferenceInterval = "DS203", "inference-interval" {
        severity: Warning, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "primary nvinfer skips frames",
    }
    InferDims = "DS204", "infer-dims" {
        severity: Warning, also: [(When::UnsetWithoutFacts, Info)],
        fix: FixSpec::Sometimes(Safe, "when the dimensions are known"),
        status: Status::Emitted,
        summary: "infer-dims missing or not 3;H;W",
    }
    EngineFileMissing = "DS205", "engine-file-missing" {
        severity: Info, also: [(When::BenchProfile, Warning)],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "no serialized engine: rebuilt at start",
    }
    Int8CalibMissing = "DS206", "int8-calib-missing" {
        severity: Error, also: [(When::BuildInputMissing, Warning)],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "INT8 without a calibration file",
    }
    EngineNameMismatch = "DS207", "engine-name-mismatch" {
        severity: Error, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "engine name disagrees with batch, GPU or precision",
    }
    DuplicateSourceOfTruth = "DS208", "duplicate-source-of-truth" {
        severity: Info, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "key set on the element and in its config file",
    }
    NumExtraSurfaces = "DS301", "num-extra-surfaces" {
        severity: Info, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "decoder surfaces are not min(final_batch, 5)",
    }
    DecoderMemoryType = "DS302", "decoder-memory-type" {
        severity: Warning, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "cudadec-memtype is not 0",
    }
    FileLoop = "DS303", "file-loop" {
        severity: Info, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "file sources not looped in the bench profile",
    }
    MultiurisrcbinMaxBatchSize = "DS304", "multiurisrcbin-max-batch-size" {
        severity: Warning, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "nvmultiurisrcbin max-batch-size is not final_batch",
    }
    TrackerBatchProcess = "DS401", "tracker-batch-process" {
        severity: Warning, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "tracker batch processing off",
    }
    TrackerResolution = "DS402", "tracker-resolution" {
        severity: Info, also: [],
        fix: FixSpec::Always(Unsafe),
        status: Status::Emitted,
        summary: "tracker working resolution is not 480x288",
    }
    TrackerPreset = "DS403", "tracker-preset" {
        severity: Info, also: [],
        fix: FixSpec::Always(Unsafe),
        status: Status::Emitted,
        summary: "an accuracy tracker preset",
    }
    TrackerLibraryMissing = "DS404", "tracker-library-missing" {
        severity: Warning, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "ll-lib-file does not exist",
    }
    QueueBeforeInference = "DS501", "queue-before-inference" {
        severity: Info, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "queue before inference is not final_batch x 4 buffers",
    }
    QueueBeforeBroker = "DS502", "queue-before-broker" {
        severity: Warning, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "queue feeding a broker is not leaky and short",
    }
    QueueBeforeFileSink = "DS503", "queue-before-file-sink" {
        severity: Info, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "queue feeding a file sink is not final_batch buffers",
    }
    OsdEnabled = "DS601", "osd-enabled" {
        severity: Info, also: [(When::BenchProfile, Warning)],
        fix: FixSpec::Sometimes(Safe, "in the bench profile"),
        status: Status::Emitted,
        summary: "OSD enabled",
    }
    TilerEnabled = "DS602", "tiler-enabled" {
        severity: Info, also: [(When::BenchProfile, Warning)],
        fix: FixSpec::Sometimes(Safe, "in the bench profile"),
        status: Status::Emitted,
        summary: "tiler enabled",
    }
    SinkNotFakesink = "DS603", "sink-not-fakesink" {
        severity: Info, also: [(When::BenchProfile, Warning)],
        fix: FixSpec::Sometimes(Safe, "in the bench profile"),
        status: Status::Emitted,
        summary: "sink is not one fakesink with sync=0",
    }
    PerfMeasurementOff = "DS604", "perf-measurement-off" {
        severity: Info, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "enable-perf-measurement is not 1",
    }
    BatchMismatch = "DS701", "batch-mismatch" {
        severity: Error, also: [],
        fix: FixSpec::SafeWhen("when the value it settles on is proven (see Fix)"),
        status: Status::Emitted,
        summary: "streammux and primary batch-size differ",
    }
    BatchBelowStreams = "DS702", "batch-below-streams" {
        severity: Warning, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "streammux batch-size below the stream count",
    }
    MemoryTypeMismatch = "DS703", "memory-type-mismatch" {
        severity: Warning, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "nvbuf-memory-type differs between elements",
    }
    MissingFile = "DS704", "missing-file" {
        severity: Warning, also: [(When::ConfigFile, Error), (When::OutsideRoot, Info), (When::MediaOutsideBench, Info)],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "a referenced file does not exist (error for configs)",
    }
    OperateOnUnknownGie = "DS705", "operate-on-unknown-gie" {
        severity: Error, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "operate-on-gie-id names no inference element",
    }
    DuplicateGieId = "DS706", "duplicate-gie-id" {
        severity: Error, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "two inference elements share a gie-unique-id",
    }
    PreprocessBatchMismatch = "DS707", "preprocess-batch-mismatch" {
        severity: Error, also: [],
        fix: FixSpec::Always(Safe),
        status: Status::Emitted,
        summary: "nvinfer batch differs from the preprocess tensor batch",
    }
    BranchPgieId = "DS708", "branch-pgie-id" {
        severity: Error, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "a parallel-inference branch's pgie-id is not its primary's gie-unique-id",
    }
    BranchSourceMissing = "DS709", "branch-source-missing" {
        severity: Error, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "a parallel-inference branch's src-ids names a source the app does not have",
    }
    BranchBatchAbovePrimary = "DS710", "branch-batch-above-primary" {
        severity: Warning, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "a parallel-inference primary's batch-size is below its branch's source count",
    }
    MetaMuxDropsBranchSource = "DS711", "metamux-drops-branch-source" {
        severity: Warning, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "nvdsmetamux drops a parallel-inference primary's results for a source its branch infers on",
    }
    AnalyticsCoordinates = "DS801", "analytics-coordinates" {
        severity: Error, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "an nvdsanalytics coordinate list its parser refuses or misreads",
    }
    AnalyticsPointOutside = "DS802", "analytics-point-outside" {
        severity: Warning, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "an nvdsanalytics point outside config-width × config-height",
    }
    AnalyticsStreamUnused = "DS803", "analytics-stream-unused" {
        severity: Warning, also: [],
        fix: FixSpec::None,
        status: Status::Emitted,
        summary: "an nvdsanalytics group for a stream the pipeline does not have",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_enum_order_and_codes_are_unique() {
        for (i, r) in RULES.iter().enumerate() {
            assert_eq!(r.rule as usize, i, "{}", r.code);
            assert_eq!(r.rule.code(), r.code);
        }
        let mut codes: Vec<&str> = RULES.iter().map(|r| r.code).collect();
        codes.dedup();
        assert_eq!(codes.len(), RULES.len());
        assert!(codes.windows(2).all(|w| w[0] < w[1]), "codes are sorted");
    }

    #[test]
    fn texts() {
        assert_eq!(
            Rule::MissingFile.info().header(),
            "**Severity:** warning, error for config files, info for paths outside the project root (not checked), info for media files outside the bench profile (machine state) · **Fix:** none"
        );
        assert_eq!(
            Rule::OsdEnabled.info().fix.describe(),
            "safe in the bench profile, none otherwise"
        );
        assert_eq!(find("ds009").map(|r| r.rule), Some(Rule::UnusedSuppression));
        assert_eq!(find("batch-mismatch").map(|r| r.code), Some("DS701"));
    }
}
