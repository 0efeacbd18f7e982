//! What a file is, decided by the reader that loads it (Precision 1): a
//! reference from a loading config is the strongest evidence (see
//! `Workspace::classify_by_reference`), the content next, the name last. A
//! file no reader dslint models claims with confidence is skipped, with a
//! reason a person (or `--show-files`) can read, never linted as the
//! closest guess.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::model::keys::{self, Schema};
use crate::syntax::{Document, Format};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// deepstream-app (and deepstream-test5) config, key-file or YAML.
    App,
    /// A test app's YAML read with `nvds_yml_parser` (`streammux:`,
    /// `primary-gie:` with `config-file-path`, …).
    TestApp,
    /// nvinfer config (`[property]`).
    NvInfer,
    /// nvdspreprocess config (`[property]` with `network-input-shape`).
    Preprocess,
    /// nvtracker key-file (`[tracker]`).
    Tracker,
    /// NvMultiObjectTracker low-level YAML (`BaseConfig:`, `TargetManagement:` …).
    TrackerLowLevel,
    /// A shell script that runs `gst-launch-1.0` with DeepStream elements.
    LaunchScript,
    /// A Python app that builds a DeepStream pipeline (GStreamer's Python
    /// bindings or pyservicemaker).
    PythonApp,
    /// nvinferserver config (protobuf text, `infer_config { … }`).
    NvInferServer,
    /// A Service Maker pipeline (`deepstream:` with `nodes:`).
    ServiceMaker,
    /// nvdsanalytics config (`[property]` and `[roi-filtering-stream-N]`…).
    Analytics,
    /// deepstream-parallel-infer's main YAML (`primary-gieN`, `branchN`,
    /// `meta-mux`), read by its `parse_config_file_yaml`.
    ParallelApp,
    /// nvdsmetamux's key-file, as the `config-file` of deepstream-parallel-infer's
    /// `meta-mux:` names it (by reference only: its content alone is the
    /// app's, and skipped).
    MetaMux,
    /// A YAML that deepstream-parallel-infer's `trackerN`/`secondary-gieN`
    /// `cfg-file-path` names, read by the app's own parsers
    /// (deepstream-app's `parse_tracker_yaml`, its `parse_sgie_yaml`): by
    /// reference only.
    ParallelFragment,
    /// The new nvstreammux's config (`USE_NEW_NVSTREAMMUX=yes`): `[property]`
    /// `algorithm-type`, … and `[source-config-N]`, read by
    /// `MuxConfigParser` (DeepStream `src/utils/nvstreammux`).
    NewStreammux,
}

impl Kind {
    pub fn describe(self) -> &'static str {
        match self {
            Kind::App => "deepstream-app config",
            Kind::TestApp => "test-app config",
            Kind::NvInfer => "nvinfer config",
            Kind::Preprocess => "nvdspreprocess config",
            Kind::Tracker => "tracker config",
            Kind::TrackerLowLevel => "NvMultiObjectTracker config",
            Kind::LaunchScript => "gst-launch script",
            Kind::PythonApp => "Python app",
            Kind::NvInferServer => "nvinferserver config",
            Kind::ServiceMaker => "Service Maker pipeline",
            Kind::Analytics => "nvdsanalytics config",
            Kind::ParallelApp => "deepstream-parallel-infer config",
            Kind::MetaMux => "nvdsmetamux config",
            Kind::ParallelFragment => "deepstream-parallel-infer fragment",
            Kind::NewStreammux => "new nvstreammux config",
        }
    }
}

/// Why a file that could be a config is not linted. `code` is stable and
/// machine-readable (`dslint check --show-files` lists it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// Labels, plain text, CI or compose YAML, a `[property]` file of an
    /// element dslint does not model (msgconv, dewarper…).
    NotAConfig,
    /// Protobuf text without `infer_config`: Triton's own model config, not
    /// a DeepStream element's.
    NotNvInferServer,
    /// deepstream-parallel-infer's metamux key-file, or a key-file with the
    /// app's `primary-gieN`/`branchN`/`meta-mux` groups (the app reads only
    /// YAML).
    ParallelInferenceApp,
    /// A YAML read by deepstream-parallel-infer's own parsers
    /// (`parse_sgie_yaml`, `parse_tracker_yaml`) through a `cfg-file-path`,
    /// when no pipeline loads it as such (its main config is not read).
    ParallelInferenceFragment,
    /// A `deepstream:` YAML without `nodes:`: not a Service Maker pipeline
    /// dslint can build.
    ServiceMaker,
    /// A Service Maker source list (`source-list:`/`source-config:`), given
    /// to its app beside a pipeline on the command line: which pipeline it
    /// feeds is in no file.
    ServiceMakerSourceList,
    /// An nvdsanalytics-shaped file dslint does not check: `[property]
    /// config-width` without per-stream groups, or stream groups without the
    /// `[property]` nvdsanalytics requires.
    NvDsAnalytics,
    /// nvdspostprocess config (`property:` with clustering or blob keys and
    /// no model source).
    NvDsPostprocess,
    /// An audio app's config (`[audio-classifier]`, an ASR app's `.cfg`).
    AudioApp,
    /// deepstream-app or test-app group names beside groups or keys their
    /// readers do not read: a custom app with its own parser.
    CustomApp,
    /// A test-app YAML with no inference config: which elements it builds
    /// is decided in the app's C code.
    TestAppWithoutInference,
    /// A part of a config (only `[primary-gie]`, only secondary GIEs…):
    /// no reader builds a pipeline from it alone.
    Fragment,
}

impl SkipReason {
    pub fn code(self) -> &'static str {
        match self {
            SkipReason::NotAConfig => "not-a-config",
            SkipReason::NotNvInferServer => "protobuf-not-nvinferserver",
            SkipReason::ParallelInferenceApp => "parallel-inference-app",
            SkipReason::ParallelInferenceFragment => "parallel-inference-fragment",
            SkipReason::ServiceMaker => "service-maker",
            SkipReason::ServiceMakerSourceList => "service-maker-source-list",
            SkipReason::NvDsAnalytics => "nvdsanalytics",
            SkipReason::NvDsPostprocess => "nvdspostprocess",
            SkipReason::AudioApp => "audio-app",
            SkipReason::CustomApp => "custom-app",
            SkipReason::TestAppWithoutInference => "test-app-without-inference",
            SkipReason::Fragment => "fragment",
        }
    }
}

/// The outcome of classifying one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Linted as this kind; the evidence in words.
    Lint(Kind, String),
    /// Not linted; why, and the evidence in words.
    Skip(SkipReason, String),
}

impl Verdict {
    pub fn kind(&self) -> Option<Kind> {
        match self {
            Verdict::Lint(k, _) => Some(*k),
            Verdict::Skip(..) => None,
        }
    }
}

/// Groups both of deepstream-app's readers take: the key-file one
/// (`parse_config_file`, deepstream_app_config_parser.c) and the YAML one
/// (`parse_config_file_yaml`, deepstream_app_config_parser_yaml.cpp), DS 9.1;
/// `*` ends a prefix. Any other group they silently ignore.
const APP_GROUPS: &[&str] = &[
    "application",
    "streammux",
    "osd",
    "segvisual",
    "pre-process",
    "primary-gie",
    "tracker",
    "replay",
    "secondary-gie*",
    "sink*",
    "message-consumer*",
    "tiled-display",
    "img-save",
    "nvds-analytics",
    "ds-example",
    "message-converter",
    "tests",
    "dewarper*",
];
/// Groups only the key-file reader takes (`[sourceN]` too, numbered; any
/// other `[source…]` makes it fail).
const APP_KEYFILE_ONLY: &[&str] = &[
    "source-list",
    "source-attr-all",
    "visionencoder",
    "text-embedder",
    "secondary-pre-process*",
];
/// The YAML reader's sources: `source:` with a `csv-file-path` (no
/// `source-list`, no `sourceN`).
const APP_YAML_ONLY: &[&str] = &["source"];

/// Groups deepstream-app's key-file reader takes that its YAML reader
/// (`parse_config_file_yaml`, deepstream_app_config_parser_yaml.cpp) has
/// no branch for, so it skips them: `sourceN` and every other `source…`
/// but `source` itself (its sources are `source:`'s CSV only),
/// `source-list`, `source-attr-all`, `visionencoder`, `text-embedder`,
/// `secondary-pre-process*`.
pub fn app_yaml_skips(name: &str) -> bool {
    (name.starts_with("source") && name != "source") || in_list(APP_KEYFILE_ONLY, name)
}

fn app_group(format: Format, name: &str) -> bool {
    let extra = match format {
        Format::KeyFile => APP_KEYFILE_ONLY,
        Format::Yaml => APP_YAML_ONLY,
        Format::Shell | Format::Python | Format::Protobuf => return false,
    };
    in_list(APP_GROUPS, name) || in_list(extra, name)
}

/// `app_near_miss` over the many group names of one file, asked once per
/// distinct name less its trailing digits (all the answer depends on): a
/// file of 100k `sourceN` groups computes the edit distances once.
struct NearMisses<'a> {
    format: Format,
    seen: HashMap<&'a str, bool>,
}

impl<'a> NearMisses<'a> {
    fn new(format: Format) -> Self {
        NearMisses {
            format,
            seen: HashMap::new(),
        }
    }

    fn of(&mut self, name: &'a str) -> bool {
        let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
        *self
            .seen
            .entry(base)
            .or_insert_with(|| app_near_miss(self.format, base))
    }
}

fn app_near_miss(format: Format, name: &str) -> bool {
    let extra: &[&str] = match format {
        Format::KeyFile => &["source"],
        Format::Yaml => APP_YAML_ONLY,
        Format::Shell | Format::Python | Format::Protobuf => return false,
    };
    near_miss(APP_GROUPS, name)
        || near_miss(extra, name)
        || (format == Format::KeyFile && near_miss(APP_KEYFILE_ONLY, name))
}

/// Groups only deepstream-app has (a test app names its own).
const APP_ONLY_GROUPS: &[&str] = &[
    "application",
    "tiled-display",
    "source-attr-all",
    "message-consumer*",
    "tests",
];
/// Group names NVIDIA's test apps pass to `nvds_parse_*` (nvds_yml_parser.h)
/// for the elements they build.
const TEST_APP_GROUPS: &[&str] = &[
    "source",
    "source-list",
    "streammux",
    "primary-gie",
    "secondary-gie*",
    "pgie",
    "sgie*",
    "tracker",
    "osd",
    "tiler",
    "sink",
    "eglsink",
    "filesink",
    "fakesink",
    "msgconv",
    "msgbroker",
    "analytics",
    "encoder",
    "preprocess",
    "postprocess",
    "secondary-preprocess*",
    "secondary-postprocess*",
];
const TRACKER_LL_SECTIONS: &[&str] = &[
    "BaseConfig",
    "TargetManagement",
    "TrajectoryManagement",
    "DataAssociator",
    "StateEstimator",
    "VisualTracker",
    "ReID",
    "ObjectModelProjection",
    "MultiViewAssociator",
    "Segmentation",
];
/// Keys only nvinfer's `[property]` has (nvdsanalytics, nvdspreprocess,
/// nvdewarper and msgconv configs also use `[property]`).
const NVINFER_MARKERS: &[&str] = &[
    "gie-unique-id",
    "network-type",
    "model-engine-file",
    "onnx-file",
    "net-scale-factor",
    "labelfile-path",
    "num-detected-classes",
    "model-file",
    "tlt-encoded-model",
    "uff-file",
    "int8-calib-file",
    "network-mode",
    "infer-dims",
    "parse-bbox-func-name",
    "output-blob-names",
    "model-color-format",
    "cluster-mode",
];
/// Where nvinfer gets a model from (`NvDsInferContextImpl::initialize` →
/// `buildModel`/`deserializeEngineAndBackend`): without one of them it has
/// nothing to run.
const NVINFER_MODEL_SOURCES: &[&str] = &[
    "onnx-file",
    "model-engine-file",
    "tlt-encoded-model",
    "uff-file",
    "model-file",
    "proto-file",
    "custom-network-config",
    "engine-create-func-name",
];

/// The groups nvdsanalytics reads per stream (DS 9.1
/// `nvdsanalytics_property_parser.cpp`, `nvdsanalytics_parse_config_file`).
pub const ANALYTICS_STREAM_GROUPS: &[&str] = &[
    "roi-filtering-stream-",
    "overcrowding-stream-",
    "line-crossing-stream-",
    "direction-detection-stream-",
];

/// `roi-filtering-stream-2` → (`roi-filtering-stream-`, 2): an nvdsanalytics
/// per-stream group and its stream index (`None` for the index when it is
/// not a plain number: the parser's `g_ascii_strtoull` then reads a prefix).
pub fn analytics_stream_group(name: &str) -> Option<(&'static str, Option<u64>)> {
    let prefix = ANALYTICS_STREAM_GROUPS.iter().find(|p| name.starts_with(*p))?;
    let n = &name[prefix.len()..];
    let index = (!n.is_empty() && n.len() <= 19 && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| n.parse().ok())
        .flatten();
    Some((prefix, index))
}

/// deepstream-app's key-file `[source<N>]`: `source`, then text that
/// `g_ascii_strtoull` reads to its end (`parse_config_file`,
/// `deepstream_app_config_parser.c`, refuses the config when no number
/// converts or anything follows it). So `[source 1]` (GLib's group names
/// hold spaces), `[source01]`, `[source+1]` and `[source-1]` (GLib wraps it;
/// the index only matters with `[source-list]`) are sources, and
/// `[source1 ]` or `[source1x]` are not.
pub fn app_source_group(name: &str) -> bool {
    app_source_index(name).is_some()
}

/// N of a `[source<N>]` group as deepstream-app reads it (DS 9.1
/// `parse_config_file`): `g_ascii_strtoull` of the rest of the name, which
/// must read to its end, kept in a `guint` (`-1` wraps to `u32::MAX`, a
/// leading zero is the same index).
pub fn app_source_index(name: &str) -> Option<u32> {
    let n = name.strip_prefix("source")?;
    let (value, read) = crate::syntax::glib::ascii_strtoull(n);
    // `guint index = g_ascii_strtoull (...)`: the low 32 bits.
    (read > 0 && read == n.len()).then_some(value as u32)
}

/// `source0`, `sink12`: a group name made of `prefix` and a number.
pub fn numbered(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// DeepStream's own elements: a script or module that names none is not
/// read further (a cheap scan of the bytes, before any parsing).
static DEEPSTREAM_ELEMENT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        "nv(streammux|infer|tracker|dsosd|osdbin|multistreamtiler|videoconvert|v4l2decoder|urisrcbin|multiurisrcbin|dsanalytics|msgconv|msgbroker|dspreprocess|dsmetamux|eglglessink|3dsink|streamdemux)",
    )
    .expect("a valid pattern")
});

/// Whether `text` (a file, or an element's factory) names one of
/// DeepStream's own elements.
pub fn names_deepstream_element(text: &str) -> bool {
    DEEPSTREAM_ELEMENT.is_match(text)
}

/// What a script or module is, from its bytes: linted only when it names a
/// DeepStream element and builds pipelines the way a front end reads.
fn code_verdict(doc: &Document) -> Verdict {
    let text = doc.text.as_str();
    let names_element = DEEPSTREAM_ELEMENT.is_match(text);
    match doc.format {
        Format::Shell if names_element && text.contains("gst-launch-1.0") => Verdict::Lint(
            Kind::LaunchScript,
            "a gst-launch-1.0 line and a DeepStream element".into(),
        ),
        Format::Python
            if names_element
                && [
                    "ElementFactory",
                    "parse_launch",
                    "parse_bin_from_description",
                    "pyservicemaker",
                ]
                .iter()
                .any(|m| text.contains(m)) =>
        {
            Verdict::Lint(
                Kind::PythonApp,
                "a DeepStream element made by GStreamer or pyservicemaker calls".into(),
            )
        }
        Format::Shell => Verdict::Skip(
            SkipReason::NotAConfig,
            "a shell script with no gst-launch-1.0 line naming a DeepStream element".into(),
        ),
        // What dslint saw, not a claim about the app: a module may make its
        // elements through a helper of its own (`create_element_or_error(
        // "nvinfer", …)`), which the front end does not follow.
        _ if names_element => Verdict::Skip(
            SkipReason::NotAConfig,
            "a Python module that names DeepStream elements but has no element factory call dslint can resolve (Gst.ElementFactory.make, Gst.parse_launch, pyservicemaker); elements made through a helper are not followed".into(),
        ),
        _ => Verdict::Skip(
            SkipReason::NotAConfig,
            "a Python module that names no DeepStream element".into(),
        ),
    }
}

fn in_list(list: &[&str], name: &str) -> bool {
    list.iter().any(|p| match p.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => *p == name,
    })
}

/// A group name one typo away from a known one (DS002 "did you mean"
/// territory), rather than another app's group.
fn near_miss(list: &[&str], name: &str) -> bool {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
    list.iter().any(|p| {
        let p = p.trim_end_matches('*');
        // (`edit_distance(p, base) <= limit`, stopping as soon as it cannot
        // be: most names differ from most entries by their lengths alone.)
        keys::edit_distance_within(p, base, 2.max(p.len() / 6)).is_some()
    })
}

fn quote(names: &[&str], format: Format) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(4)
        .map(|n| match format {
            Format::KeyFile => format!("[{n}]"),
            Format::Yaml => format!("`{n}:`"),
            Format::Shell | Format::Python | Format::Protobuf => format!("`{n}`"),
        })
        .collect();
    let more = names.len().saturating_sub(4);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Classify a parsed document. `None`: not a DeepStream config we read.
pub fn classify(doc: &Document) -> Option<Kind> {
    verdict(doc).kind()
}

/// Classify a parsed document by its content, saying why.
pub fn verdict(doc: &Document) -> Verdict {
    if matches!(doc.format, Format::Shell | Format::Python) {
        return code_verdict(doc);
    }
    // nvinferserver reads its config as protobuf text; the `PluginControl`
    // message (`nvdsinferserver_plugin.proto`) holds `infer_config`.
    // Triton's own model config (`name:`, `platform:`, `input [...]`) is
    // no DeepStream element's config.
    if doc.format == Format::Protobuf {
        return if doc.has_group("infer_config") {
            Verdict::Lint(
                Kind::NvInferServer,
                "protobuf text with `infer_config`: nvinferserver's".into(),
            )
        } else {
            Verdict::Skip(
                SkipReason::NotNvInferServer,
                "protobuf text without `infer_config`: not an nvinferserver config (Triton's own model config?)".into(),
            )
        };
    }
    // YAML scalars at the top level land in a group with no name: they are
    // not groups of any reader.
    let names: Vec<&str> = doc.group_names().into_iter().filter(|n| !n.is_empty()).collect();
    let has = |g: &str| names.contains(&g);
    let skip = |r: SkipReason, why: String| Verdict::Skip(r, why);
    // deepstream-parallel-infer's config looks like deepstream-app's but has
    // its own reader (`primary-gie0`, `branch0`, `meta-mux`).
    if names
        .iter()
        .any(|n| numbered(n, "primary-gie") || numbered(n, "branch") || *n == "meta-mux")
    {
        // The app loads its config with `YAML::LoadFile`
        // (`parse_config_file_yaml`, deepstream_parallel_infer_config_parser.cpp).
        if doc.format == Format::Yaml {
            return Verdict::Lint(
                Kind::ParallelApp,
                "`primary-gieN`/`branchN`/`meta-mux` groups: deepstream-parallel-infer's config".into(),
            );
        }
        return skip(
            SkipReason::ParallelInferenceApp,
            "`primary-gieN`/`branchN`/`meta-mux` groups in a key-file: deepstream-parallel-infer reads only YAML"
                .into(),
        );
    }
    if doc.format == Format::Yaml && has("deepstream") {
        if crate::model::frontend::service_maker::is_pipeline(doc) {
            return Verdict::Lint(
                Kind::ServiceMaker,
                "`deepstream:` with `nodes:`: a Service Maker pipeline".into(),
            );
        }
        return skip(
            SkipReason::ServiceMaker,
            "`deepstream:` without `nodes:`: no Service Maker pipeline to build".into(),
        );
    }
    if doc.format == Format::Yaml && has("NvDCF") {
        return skip(
            SkipReason::NotAConfig,
            "`NvDCF:`: the tracker library config of DeepStream 5 and older".into(),
        );
    }
    if doc.format == Format::Yaml && names.iter().any(|n| TRACKER_LL_SECTIONS.contains(n)) {
        return Verdict::Lint(
            Kind::TrackerLowLevel,
            "NvMultiObjectTracker sections (`BaseConfig:` …)".into(),
        );
    }
    if has("property") {
        let v = property_verdict(doc);
        // deepstream-app's `parse_config_file` (deepstream_app_config_parser.c)
        // reads the groups it knows and passes over any other: a `[property]`
        // with no nvinfer keys beside its groups (a `custom-lib-path` pasted
        // in) leaves the file deepstream-app's.
        let app = doc.format == Format::KeyFile
            && names
                .iter()
                .any(|n| app_group(Format::KeyFile, n) || app_source_group(n));
        if app && matches!(v, Verdict::Skip(SkipReason::NotAConfig, _)) {
            let others: Vec<&str> = names.iter().copied().filter(|n| *n != "property").collect();
            return keyfile_verdict(doc, &others);
        }
        return v;
    }
    if names
        .iter()
        .any(|n| n.starts_with("roi-filtering-stream-") || n.starts_with("line-crossing-stream-"))
    {
        return skip(SkipReason::NvDsAnalytics, "nvdsanalytics stream groups".into());
    }
    if has("audio-classifier") {
        return skip(
            SkipReason::AudioApp,
            "[audio-classifier]: deepstream-audio's reader, not deepstream-app's".into(),
        );
    }
    match doc.format {
        Format::KeyFile => keyfile_verdict(doc, &names),
        Format::Yaml => yaml_verdict(doc, &names),
        Format::Shell | Format::Python => code_verdict(doc),
        Format::Protobuf => unreachable!("protobuf text is classified above"),
    }
}

/// `[property]` keys only the new nvstreammux's config has
/// (`MuxConfigParser::ParseTxtConfigCommonProps`).
const NEW_STREAMMUX_MARKERS: &[&str] = &["algorithm-type", "adaptive-batching", "overall-max-fps-n"];

/// `[property]` keys that name another element's config, and what it is.
const PROPERTY_READERS: &[(&[&str], SkipReason, &str)] = &[
    (
        &["config-width", "config-height"],
        SkipReason::NvDsAnalytics,
        "[property] config-width: nvdsanalytics",
    ),
    (
        &["active-pad", "pts-tolerance"],
        SkipReason::ParallelInferenceApp,
        "[property] active-pad: deepstream-parallel-infer's metamux",
    ),
];

fn property_verdict(doc: &Document) -> Verdict {
    let prop = |k: &str| doc.get("property", k).is_some();
    if doc.format == Format::KeyFile && doc.group_names().iter().any(|n| analytics_stream_group(n).is_some()) {
        return Verdict::Lint(
            Kind::Analytics,
            "[property] and per-stream groups ([roi-filtering-stream-N]…): nvdsanalytics".into(),
        );
    }
    if prop("network-input-shape") {
        return Verdict::Lint(
            Kind::Preprocess,
            "[property] network-input-shape: nvdspreprocess".into(),
        );
    }
    if NEW_STREAMMUX_MARKERS.iter().any(|k| prop(k)) {
        return Verdict::Lint(
            Kind::NewStreammux,
            "[property] algorithm-type: the new nvstreammux's config".into(),
        );
    }
    for (keys, reason, why) in PROPERTY_READERS {
        if keys.iter().any(|k| prop(k)) {
            return Verdict::Skip(*reason, (*why).into());
        }
    }
    let keys: Vec<&str> = doc
        .groups_named("property")
        .flat_map(|g| &g.entries)
        .map(|e| e.key.as_str())
        .collect();
    if !keys.iter().any(|k| NVINFER_MARKERS.contains(k)) {
        return Verdict::Skip(
            SkipReason::NotAConfig,
            "[property] without nvinfer keys: an element dslint does not model".into(),
        );
    }
    if !keys.iter().any(|k| NVINFER_MODEL_SOURCES.contains(k)) {
        return Verdict::Skip(
            SkipReason::NvDsPostprocess,
            "nvinfer-like keys but no model source (onnx-file, model-engine-file, …): nvinfer could not \
             load it; nvdspostprocess reads configs of this shape"
                .into(),
        );
    }
    Verdict::Lint(Kind::NvInfer, "[property] with nvinfer keys and a model source".into())
}

fn keyfile_verdict(doc: &Document, names: &[&str]) -> Verdict {
    if names == ["tracker"] {
        return Verdict::Lint(Kind::Tracker, "only [tracker]: a test app's tracker config".into());
    }
    let numbered_source = app_source_group;
    let known = |n: &str| app_group(Format::KeyFile, n) || numbered_source(n);
    if !names.iter().any(|n| known(n)) {
        return Verdict::Skip(SkipReason::NotAConfig, "no group deepstream-app reads".into());
    }
    let mut near = NearMisses::new(Format::KeyFile);
    let foreign: Vec<&str> = names.iter().copied().filter(|n| !known(n) && !near.of(n)).collect();
    if !foreign.is_empty() {
        return Verdict::Skip(
            SkipReason::CustomApp,
            format!(
                "{} {} not read by deepstream-app (parse_config_file): a custom app's config",
                quote(&foreign, Format::KeyFile),
                if foreign.len() == 1 { "is" } else { "are" }
            ),
        );
    }
    if let Some(v) = mostly_unknown_keys(doc, names) {
        return v;
    }
    let anchor = names
        .iter()
        .any(|n| in_list(APP_ONLY_GROUPS, n) || *n == "source-list" || numbered_source(n) || n.starts_with("sink"));
    if anchor {
        return Verdict::Lint(Kind::App, "deepstream-app groups".into());
    }
    if names.is_empty() {
        return Verdict::Skip(SkipReason::NotAConfig, "no [group]".into());
    }
    Verdict::Skip(
        SkipReason::Fragment,
        format!(
            "only {}: no source or sink, so no pipeline (an override or include file)",
            quote(names, Format::KeyFile)
        ),
    )
}

/// A Graph Composer graph, run by `gxe`: documents after the first hold
/// `dependencies:` (`- extension: NvDsMuxDemuxExt`…) and `components:` whose
/// entries are `type: nvidia::deepstream::NvDsStreamMux` and the like. Its
/// first document (the only one yaml-cpp's `LoadFile`, and dslint, read) is
/// often just `application: name: …`, deepstream-app's group name with a key
/// deepstream-app does not have: the file is gxe's, not deepstream-app's.
fn graph_composer(text: &str) -> bool {
    // Nothing counts before a `---` line: a file without one (most, and an
    // 8 MiB config's 500k lines) is not walked line by line.
    if !text.starts_with("---") && memchr::memmem::find(text.as_bytes(), b"\n---").is_none() {
        return false;
    }
    let mut after_marker = false;
    let (mut components, mut nvidia_type) = (false, false);
    for line in text.lines() {
        if line.starts_with("---") {
            after_marker = true;
        } else if after_marker {
            components |= line.starts_with("components:") || line.starts_with("dependencies:");
            nvidia_type |= line.trim_start().trim_start_matches("- ").starts_with("type: nvidia::");
        }
        if components && nvidia_type {
            return true;
        }
    }
    false
}

/// A config whose keys are mostly not the reader's is another app's, even
/// when it borrows the group names (an ASR app's `[sink0] enable_playback`).
fn mostly_unknown_keys(doc: &Document, names: &[&str]) -> Option<Verdict> {
    // Counted on all threads (a config of 100k groups).
    let (known, unknown) = doc
        .groups
        .par_iter()
        .with_min_len(64)
        .map(|g| (g, keys::GroupRows::of(Schema::App, &g.name)))
        .filter(|(_, rows)| rows.has_key_table())
        .map(|(g, rows)| {
            let known = g.entries.iter().filter(|e| rows.lookup(&e.key).is_some()).count();
            (known, g.entries.len() - known)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let _ = names;
    (unknown >= 2 && unknown >= known).then(|| {
        Verdict::Skip(
            SkipReason::CustomApp,
            format!(
                "{unknown} of {} keys are not deepstream-app's: a custom app's config",
                known + unknown
            ),
        )
    })
}

fn yaml_verdict<'a>(doc: &Document, names: &[&'a str]) -> Verdict {
    if graph_composer(&doc.text) {
        return Verdict::Skip(
            SkipReason::CustomApp,
            "a Graph Composer graph (`components:` of `nvidia::deepstream::` types after `---`): gxe runs it, \
             not deepstream-app"
                .into(),
        );
    }
    if names.is_empty() {
        return Verdict::Skip(SkipReason::NotAConfig, "no DeepStream groups".into());
    }
    // Service Maker's source lists (deepstream_test5_app's
    // source_list_static.yaml: `source-list:` URIs, `source-config:` the
    // source bin and its properties). The app takes it on its command line
    // (`deepstream-test5-app -s … -c …`); no pipeline file names it, so
    // which pipeline it feeds is not in the files.
    if names.contains(&"source-config") && names.iter().all(|n| matches!(*n, "source-list" | "source-config")) {
        return Verdict::Skip(
            SkipReason::ServiceMakerSourceList,
            "a Service Maker source list (source-list:, source-config:): its app takes it on the command line \
             (-s) beside a pipeline (-c), and no file says which pipeline it feeds"
                .into(),
        );
    }
    let mut near = NearMisses::new(Format::Yaml);
    let mut app_known = |n: &'a str| app_group(Format::Yaml, n) || near.of(n);
    let test_known = |n: &str| in_list(TEST_APP_GROUPS, n);
    let csv_source = doc.get("source", "csv-file-path").is_some();
    let app_anchor = csv_source || names.iter().any(|n| in_list(APP_ONLY_GROUPS, n) || numbered(n, "sink"));
    // The ASR app's YAML (`deepstream_asr_config_file_parser_yaml.cpp`:
    // `source0: uri`, `sink0: enable_playback, asr_output_file_name, sync`)
    // borrows the group names as its .cfg does: judged by its keys too.
    let foreign_keys = app_anchor.then(|| mostly_unknown_keys(doc, names)).flatten();
    if let Some(v) = foreign_keys {
        return v;
    }
    if app_anchor && names.iter().all(|&n| app_known(n)) {
        return Verdict::Lint(Kind::App, "deepstream-app YAML groups".into());
    }
    // On all threads, in order (a config of 100k groups).
    let foreign: Vec<&str> = names
        .par_iter()
        .with_min_len(1024)
        .copied()
        .filter(|n| !test_known(n) && !app_group(Format::Yaml, n))
        .collect();
    // Inference and tracker groups alone make no pipeline: a fragment, or
    // deepstream-test5's OTA override (`primary-gie:` alone, read with
    // `parse_config_file_yaml` over the running config,
    // deepstream_test5_app_main.c), as its key-file twin is.
    let only_fragments = names.iter().all(|n| {
        n.starts_with("secondary-gie")
            || *n == "tracker"
            || n.starts_with("sgie")
            || matches!(*n, "primary-gie" | "pgie")
    });
    if only_fragments {
        return Verdict::Skip(
            SkipReason::Fragment,
            format!("only {}: no source or sink, so no pipeline", quote(names, Format::Yaml)),
        );
    }
    if !foreign.is_empty() {
        // Not a config of any reader we know, unless it at least looks
        // like one (then it is a custom app reusing the names).
        let ours = names.iter().any(|n| test_known(n) || app_group(Format::Yaml, n));
        if !ours {
            return Verdict::Skip(SkipReason::NotAConfig, "no DeepStream groups".into());
        }
        return Verdict::Skip(
            SkipReason::CustomApp,
            format!(
                "{} {} read by neither deepstream-app nor NVIDIA's test apps: a custom app's config",
                quote(&foreign, Format::Yaml),
                if foreign.len() == 1 { "is" } else { "are" }
            ),
        );
    }
    let gie_config = ["primary-gie", "pgie"]
        .iter()
        .any(|g| doc.get(g, "config-file-path").is_some() || doc.get(g, "config-file").is_some());
    if !gie_config {
        return Verdict::Skip(
            SkipReason::TestAppWithoutInference,
            "a test-app YAML without a primary-gie config file: the app's C code decides its elements".into(),
        );
    }
    Verdict::Lint(
        Kind::TestApp,
        "test-app YAML groups with a primary-gie config file".into(),
    )
}

/// Which syntax to read a file with. Protobuf text (nvinferserver's, often
/// named `.txt` or `.yml`) is known by its content; then extensions decide;
/// a file with none that looks like YAML is read as YAML.
pub fn format_for(path: &std::path::Path, text: &str) -> Option<Format> {
    let ext = crate::files::extension(path)
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "sh" | "bash" => return Some(Format::Shell),
        "py" => return Some(Format::Python),
        // A script without an extension says what it is on its first line
        // (before the protobuf look: a shell function's `f() {` is not one).
        "yml" | "yaml" | "txt" | "cfg" | "ini" | "conf" | "pbtxt" => {}
        _ if text.starts_with("#!") => return shebang_format(text),
        _ => {}
    }
    if ext == "pbtxt" || looks_like_protobuf(text) {
        return Some(Format::Protobuf);
    }
    match ext.as_str() {
        "yml" | "yaml" => Some(Format::Yaml),
        "txt" | "cfg" | "ini" | "conf" => Some(Format::KeyFile),
        _ => {
            let first = text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with('#'))?;
            if first.starts_with('[') {
                Some(Format::KeyFile)
            } else if first.ends_with(':') || first.starts_with("%YAML") {
                Some(Format::Yaml)
            } else {
                None
            }
        }
    }
}

/// A script's format from its `#!` line: Python, a POSIX-family shell, or
/// none dslint reads.
fn shebang_format(text: &str) -> Option<Format> {
    let shebang = text.lines().next().unwrap_or("");
    if shebang.contains("python") {
        Some(Format::Python)
    } else if ["sh", "bash", "dash", "zsh"]
        .iter()
        .any(|s| shebang.ends_with(&format!("/{s}")) || shebang.ends_with(&format!(" {s}")))
    {
        Some(Format::Shell)
    } else {
        None
    }
}

pub fn looks_like_protobuf(text: &str) -> bool {
    // The first three lines with content, found with memchr; a comment at
    // a line's start (a license header's twenty lines) passed over without
    // a trim. (`str::lines` then a trim: a `\r` before the `\n` is trimmed.)
    let mut rest = text;
    let mut seen = 0;
    while seen < 3 && !rest.is_empty() {
        let (line, next) = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        rest = next;
        if line.starts_with('#') {
            continue;
        }
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if (l.ends_with('{') && !l.starts_with('[')) || l.starts_with("infer_config") {
            return true;
        }
        seen += 1;
    }
    false
}

/// For a YAML file the parser rejects: does it still look like one of ours
/// (so the error is worth reporting)? A line-level look at top-level keys:
/// at least one is a DeepStream group and no more of them are not. One
/// group name among others' keys is another tool's file: a conda recipe
/// (`{% set … %}` Jinja, which no YAML parser takes, then `package:`,
/// `source:`, `build:`, `requirements:`, `about:`) borrows `source:`, and
/// a file that parsed with such keys would be skipped as no config of ours
/// (`yaml_verdict`), not linted.
pub fn yaml_looks_like_ours(text: &str) -> bool {
    let (mut ours, mut others) = (0usize, 0usize);
    for l in text.lines() {
        if l.starts_with([' ', '\t', '#', '-']) {
            continue;
        }
        let Some(key) = l.strip_suffix(':').or_else(|| l.split_once(": ").map(|(k, _)| k)) else {
            continue;
        };
        if app_group(Format::Yaml, key)
            || in_list(TEST_APP_GROUPS, key)
            || TRACKER_LL_SECTIONS.contains(&key)
            || key == "property"
            || key.starts_with("class-attrs-")
        {
            ours += 1;
        } else {
            others += 1;
        }
    }
    ours > 0 && ours >= others
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str, format: Format) -> Option<Kind> {
        classify(&Document::parse(text.to_string(), format))
    }

    fn skip(text: &str, format: Format) -> Option<SkipReason> {
        match verdict(&Document::parse(text.to_string(), format)) {
            Verdict::Skip(r, _) => Some(r),
            Verdict::Lint(..) => None,
        }
    }

    /// As the first three lines with content, trimmed, say (the line walk
    /// this replaced is the reference).
    #[test]
    fn protobuf_looks_as_lines_say() {
        let by_lines = |text: &str| {
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .take(3)
                .any(|l| (l.ends_with('{') && !l.starts_with('[')) || l.starts_with("infer_config"))
        };
        let lines = [
            "# c",
            "  # c {",
            "",
            "  ",
            "\r",
            "a {",
            "a {\r",
            "[a] {",
            "infer_config",
            " infer_config: 1",
            "k: v",
            "\u{a0}# c",
            "\u{a0}a {\u{a0}",
            "x",
            "{",
            "\t{ ",
        ];
        for a in lines {
            for b in lines {
                for c in lines {
                    for d in lines {
                        for end in ["", "\n", "\r\n"] {
                            let text = format!("{a}\n{b}\r\n{c}\n{d}{end}");
                            assert_eq!(looks_like_protobuf(&text), by_lines(&text), "{text:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_refused_yaml_is_ours_when_most_of_its_top_level_keys_are() {
        // A conda recipe: Jinja no YAML parser takes, one borrowed `source:`.
        let recipe = "{% set v = \"1.0\" %}\npackage:\n  name: t\nsource:\n  path: ..\nrequirements:\n  host:\n    - python\nabout:\n  license: MIT\n";
        assert!(!yaml_looks_like_ours(recipe));
        assert!(yaml_looks_like_ours(
            "streammux:\n  batch-size: [2\nprimary-gie:\n  config-file-path: p.yml\n"
        ));
        assert!(yaml_looks_like_ours(
            "property:\n  batch-size: [2\nclass-attrs-all:\n  topk: 20\n"
        ));
        assert!(yaml_looks_like_ours("source:\n  uri: [a\nversion: 2\n"));
        assert!(!yaml_looks_like_ours("on: push\njobs: [a\n"));
    }

    #[test]
    fn kinds_by_content() {
        use Format::{KeyFile, Yaml};
        assert_eq!(
            kind("[application]\n[streammux]\nbatch-size=1\n", KeyFile),
            Some(Kind::App)
        );
        assert_eq!(
            kind(
                "streammux:\n  batch-size: 1\nprimary-gie:\n  config-file-path: p.yml\n",
                Yaml
            ),
            Some(Kind::TestApp)
        );
        assert_eq!(
            kind("[property]\ngie-unique-id=1\nonnx-file=m.onnx\n", KeyFile),
            Some(Kind::NvInfer)
        );
        assert_eq!(
            kind("[property]\nnetwork-input-shape=8;3;544;960\n", KeyFile),
            Some(Kind::Preprocess)
        );
        assert_eq!(kind("[tracker]\ntracker-width=640\n", KeyFile), Some(Kind::Tracker));
        assert_eq!(
            kind(
                "[property]\nconfig-width=1920\n[roi-filtering-stream-0]\nroi-A=0;0;10;0;10;10\n",
                KeyFile
            ),
            Some(Kind::Analytics)
        );
        assert_eq!(
            kind("application:\n  a: 1\nsink0:\n  enable: 1\n", Yaml),
            Some(Kind::App)
        );
        assert_eq!(
            kind("source:\n  csv-file-path: s.csv\nstreammux:\n  batch-size: 1\n", Yaml),
            Some(Kind::App)
        );
        assert_eq!(
            kind("%YAML:1.0\nBaseConfig:\n  minDetectorConfidence: 0.1\n", Yaml),
            Some(Kind::TrackerLowLevel)
        );
        // A typo of a deepstream-app group stays deepstream-app's (DS002
        // reports it), and so does YAML's `source0:` (its reader reads only
        // `source:`).
        assert_eq!(kind("[application]\n[streamux]\n[source0]\n", KeyFile), Some(Kind::App));
        assert_eq!(
            kind("application:\n  a: 1\nsource0:\n  uri: x\nsink0:\n  type: 1\n", Yaml),
            Some(Kind::App)
        );
    }

    /// Files no modelled reader claims with confidence (Precision 1).
    #[test]
    fn skipped_with_a_reason() {
        use Format::{KeyFile, Yaml};
        use SkipReason::*;
        assert_eq!(skip("[property]\nconfig-width=1920\n", KeyFile), Some(NvDsAnalytics));
        assert_eq!(
            kind("[property]\nalgorithm-type=1\nbatch-size=4\n", KeyFile),
            Some(Kind::NewStreammux)
        );
        assert_eq!(skip("car\nbus\n", KeyFile), Some(NotAConfig));
        assert_eq!(skip("on: push\njobs:\n  x: 1\n", Yaml), Some(NotAConfig));
        assert_eq!(
            kind(
                "application:\n  a: 1\nprimary-gie0:\n  enable: 1\nbranch0:\n  pgie-id: 1\n",
                Yaml
            ),
            Some(Kind::ParallelApp)
        );
        assert_eq!(
            skip("[primary-gie0]\nenable=1\n[branch0]\npgie-id=1\n", KeyFile),
            Some(ParallelInferenceApp)
        );
        assert_eq!(
            kind("deepstream:\n  nodes:\n  - type: nvinfer\n", Yaml),
            Some(Kind::ServiceMaker)
        );
        assert_eq!(skip("deepstream:\n  version: 1\n", Yaml), Some(ServiceMaker));
        assert_eq!(
            kind("infer_config {\n  unique_id: 1\n}\n", Format::Protobuf),
            Some(Kind::NvInferServer)
        );
        assert_eq!(
            skip("name: \"m\"\nmax_batch_size: 8\n", Format::Protobuf),
            Some(NotNvInferServer)
        );
        // nvdspostprocess: nvinfer-like keys, no model source.
        assert_eq!(
            skip(
                "%YAML:1.0\nproperty:\n  gpu-id: 0\n  cluster-mode: 2\n  output-blob-names: a\n",
                Yaml
            ),
            Some(NvDsPostprocess)
        );
        // deepstream-nmos: [receiverN] is not deepstream-app's.
        assert_eq!(
            skip(
                "[application]\nseed=x\n[receiver0]\nenable=1\n[primary-gie]\nenable=1\n",
                KeyFile
            ),
            Some(CustomApp)
        );
        // An ASR app's .cfg: deepstream-app's group names, its own keys.
        assert_eq!(
            skip(
                "[source0]\nuri=file://a.wav\n[sink0]\nenable_playback=1\nasr_output_file_name=a.txt\nsync=1\n",
                KeyFile
            ),
            Some(CustomApp)
        );
        assert_eq!(
            skip("[application]\n[source0]\n[audio-classifier]\n", KeyFile),
            Some(AudioApp)
        );
        // The multi-GPU test's `nvxfer:`; a YAML with source-list but no GIE.
        assert_eq!(
            skip(
                "source-list:\n  list: a\nstreammux:\n  batch-size: 2\nnvxfer:\n  gpu-id: 1\n",
                Yaml
            ),
            Some(CustomApp)
        );
        assert_eq!(
            skip(
                "source-list:\n  list: a\nstreammux:\n  batch-size: 2\nsink:\n  sync: 0\n",
                Yaml
            ),
            Some(TestAppWithoutInference)
        );
        // The parallel app's secondary-gieN.yml; deepstream-test5's OTA override.
        assert_eq!(
            skip("secondary-gie0:\n  enable: 1\nsecondary-gie1:\n  enable: 1\n", Yaml),
            Some(Fragment)
        );
        assert_eq!(
            skip("[primary-gie]\nmodel-engine-file=m.engine\n", KeyFile),
            Some(Fragment)
        );
        // Custom-app YAML groups beside test-app ones (deepstream-lpr-app).
        assert_eq!(
            skip(
                "source-list:\n  list: a\noutput:\n  type: 1\nprimary-gie:\n  config-file-path: p.yml\n",
                Yaml
            ),
            Some(CustomApp)
        );
    }

    #[test]
    fn reasons_have_stable_codes() {
        assert_eq!(
            SkipReason::ParallelInferenceFragment.code(),
            "parallel-inference-fragment"
        );
        assert_eq!(SkipReason::NvDsPostprocess.code(), "nvdspostprocess");
    }
}
