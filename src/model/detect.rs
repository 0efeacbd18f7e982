//! What a file is, decided from its content: a repository holds many YAML
//! and `.txt` files that are not DeepStream configs, and those are skipped
//! without a word.

use crate::syntax::{Document, Format};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// deepstream-app (and deepstream-test5) config, key-file or YAML.
    App,
    /// A test app's YAML (`streammux:`, `primary-gie:` with `config-file-path`, …).
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
        }
    }
}

const APP_GROUPS: &[&str] = &[
    "application",
    "tiled-display",
    "source-list",
    "source-attr-all",
    "tests",
    "primary-gie",
    "osd",
    "streammux",
    "img-save",
    "message-converter",
    "nvds-analytics",
];
const TEST_APP_GROUPS: &[&str] = &[
    "streammux",
    "primary-gie",
    "tracker",
    "source-list",
    "source",
    "sink",
    "tiler",
    "osd",
    "pgie",
    "sgie",
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

/// What a script or module is, from its bytes: `None` unless it names a
/// DeepStream element and builds pipelines the way a front end reads.
fn code_kind(doc: &Document) -> Option<Kind> {
    let text = doc.text.as_str();
    if !DEEPSTREAM_ELEMENT.is_match(text) {
        return None;
    }
    match doc.format {
        Format::Shell => text.contains("gst-launch-1.0").then_some(Kind::LaunchScript),
        Format::Python => [
            "ElementFactory",
            "parse_launch",
            "parse_bin_from_description",
            "pyservicemaker",
        ]
        .iter()
        .any(|m| text.contains(m))
        .then_some(Kind::PythonApp),
        Format::KeyFile | Format::Yaml => None,
    }
}

/// Classify a parsed document. `None`: not a DeepStream config we read.
pub fn classify(doc: &Document) -> Option<Kind> {
    if matches!(doc.format, Format::Shell | Format::Python) {
        return code_kind(doc);
    }
    let names = doc.group_names();
    let has = |g: &str| names.contains(&g);
    // deepstream-parallel-infer's config looks like deepstream-app's but has
    // its own reader (`primary-gie0`, `branch0`, `meta-mux`): not ours.
    if names
        .iter()
        .any(|n| numbered(n, "primary-gie") || numbered(n, "branch") || *n == "meta-mux")
    {
        return None;
    }
    if doc.format == Format::Yaml && names.iter().any(|n| TRACKER_LL_SECTIONS.contains(n)) {
        return Some(Kind::TrackerLowLevel);
    }
    if has("property") {
        if doc.get("property", "network-input-shape").is_some() {
            return Some(Kind::Preprocess);
        }
        let prop_keys = doc.groups_named("property").flat_map(|g| &g.entries);
        if prop_keys.into_iter().any(|e| NVINFER_MARKERS.contains(&e.key.as_str())) {
            return Some(Kind::NvInfer);
        }
        return None;
    }
    // deepstream-app's own groups; a test app names its inference config
    // `config-file-path` where deepstream-app says `config-file`.
    let test_app_gie = ["primary-gie", "pgie"]
        .iter()
        .any(|g| doc.get(g, "config-file-path").is_some() && doc.get(g, "config-file").is_none());
    let strong = names.iter().any(|n| {
        matches!(*n, "application" | "tiled-display" | "source-list" | "source-attr-all")
            || numbered(n, "source")
            || numbered(n, "sink")
            || numbered(n, "secondary-gie")
    });
    let weak = names
        .iter()
        .any(|n| APP_GROUPS.contains(n) || TEST_APP_GROUPS.contains(n) || numbered(n, "secondary-gie"));
    if strong && !test_app_gie {
        return Some(Kind::App);
    }
    if doc.format == Format::KeyFile && has("tracker") && names.len() == 1 {
        return Some(Kind::Tracker);
    }
    if weak || strong {
        return Some(Kind::TestApp);
    }
    None
}

/// Which syntax to read a file with. Extensions decide first; a file with
/// none that looks like YAML is read as YAML. nvinferserver's protobuf text
/// (often named `.txt`) is neither.
pub fn format_for(path: &std::path::Path, text: &str) -> Option<Format> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "sh" | "bash" => return Some(Format::Shell),
        "py" => return Some(Format::Python),
        _ => {}
    }
    if looks_like_protobuf(text) {
        return None;
    }
    match ext.as_str() {
        "yml" | "yaml" => Some(Format::Yaml),
        "txt" | "cfg" | "ini" | "conf" => Some(Format::KeyFile),
        _ if text.starts_with("#!") => {
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

pub fn looks_like_protobuf(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .take(3)
        .any(|l| (l.ends_with('{') && !l.starts_with('[')) || l.starts_with("infer_config"))
}

/// For a YAML file the parser rejects: does it still look like one of ours
/// (so the error is worth reporting)? A line-level look at top-level keys.
pub fn yaml_looks_like_ours(text: &str) -> bool {
    text.lines().any(|l| {
        let Some(key) = l.strip_suffix(':').or_else(|| l.split_once(": ").map(|(k, _)| k)) else {
            return false;
        };
        !l.starts_with([' ', '\t', '#', '-'])
            && (APP_GROUPS.contains(&key)
                || TEST_APP_GROUPS.contains(&key)
                || TRACKER_LL_SECTIONS.contains(&key)
                || key == "property"
                || numbered(key, "source")
                || numbered(key, "sink"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str, format: Format) -> Option<Kind> {
        classify(&Document::parse(text.to_string(), format))
    }

    #[test]
    fn kinds_by_content() {
        assert_eq!(
            kind("[application]\n[streammux]\nbatch-size=1\n", Format::KeyFile),
            Some(Kind::App)
        );
        assert_eq!(
            kind(
                "[streammux]\nbatch-size=1\n[primary-gie]\nconfig-file-path=p.txt\n",
                Format::KeyFile
            ),
            Some(Kind::TestApp)
        );
        assert_eq!(
            kind("[property]\ngie-unique-id=1\n", Format::KeyFile),
            Some(Kind::NvInfer)
        );
        assert_eq!(
            kind("[property]\nnetwork-input-shape=8;3;544;960\n", Format::KeyFile),
            Some(Kind::Preprocess)
        );
        assert_eq!(kind("[property]\nconfig-width=1920\n", Format::KeyFile), None);
        assert_eq!(
            kind("[tracker]\ntracker-width=640\n", Format::KeyFile),
            Some(Kind::Tracker)
        );
        assert_eq!(kind("car\nbus\n", Format::KeyFile), None);
        assert_eq!(
            kind("application:\n  a: 1\nsource0:\n  enable: 1\n", Format::Yaml),
            Some(Kind::App)
        );
        assert_eq!(
            kind(
                "streammux:\n  batch-size: 1\nprimary-gie:\n  config-file-path: p.yml\n",
                Format::Yaml
            ),
            Some(Kind::TestApp)
        );
        assert_eq!(
            kind("%YAML:1.0\nBaseConfig:\n  minDetectorConfidence: 0.1\n", Format::Yaml),
            Some(Kind::TrackerLowLevel)
        );
        assert_eq!(
            kind(
                "application:\n  a: 1\nprimary-gie0:\n  enable: 1\nbranch0:\n  pgie-id: 1\n",
                Format::Yaml
            ),
            None
        );
        assert_eq!(kind("on: push\njobs:\n  x: 1\n", Format::Yaml), None);
    }
}
