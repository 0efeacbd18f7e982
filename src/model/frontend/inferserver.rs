//! nvinferserver configs (protobuf text, `nvdsinferserver_plugin.proto`'s
//! `PluginControl`): the fields that stand for the element properties the
//! rules ask for, under the names nvinfer's rules use.
//!
//! The element's GObject properties override the file (DS 9.1
//! `gstnvinferserver_impl.cpp`, `GstNvInferServerImpl::validatePluginConfig`):
//! `batch-size` replaces `infer_config.max_batch_size` and `unique-id`
//! replaces `infer_config.unique_id` when set and non-zero, `interval`
//! replaces `input_control.interval` and `infer-on-gie-id`
//! `input_control.operate_on_gie_id` when set. deepstream-app sets
//! `batch-size`, `interval` and `unique-id` from its `[primary-gie]` /
//! `[secondary-gieN]` keys (`deepstream_primary_gie_bin.c`
//! `create_primary_gie_bin`; `deepstream_secondary_gie_bin.c` also
//! `infer-on-gie-id`), but never `gpu-id` (only nvinferserver's own config
//! chooses its GPU). There is no `network-mode`: precision lives in the
//! Triton model (its `config.pbtxt`, or the plan file).

use crate::base::FileId;
use crate::model::frontend::{home, setting};
use crate::model::graph::{Home, Layer, Property, Setting, Value};
use crate::syntax::Document;

/// Property name → (message path, field) in an nvinferserver config.
pub const FIELDS: &[(&str, &str, &str)] = &[
    ("batch-size", "infer_config", "max_batch_size"),
    ("gie-unique-id", "infer_config", "unique_id"),
    ("gpu-id", "infer_config", "gpu_ids"),
    ("interval", "input_control", "interval"),
    ("process-mode", "input_control", "process_mode"),
    ("operate-on-gie-id", "input_control", "operate_on_gie_id"),
    ("labelfile-path", "infer_config.postprocess", "labelfile_path"),
    (
        "num-detected-classes",
        "infer_config.postprocess.detection",
        "num_detected_classes",
    ),
];

/// The keys an app sets on nvinferserver after it is created, which
/// override the file (see the module comment).
pub const SET_ON_ELEMENT: &[&str] = &["batch-size", "interval", "gie-unique-id", "operate-on-gie-id"];

/// Where a property lives in the config: its message and field.
pub fn field_for(property: &str) -> Option<(&'static str, &'static str)> {
    FIELDS.iter().find(|(p, ..)| *p == property).map(|(_, m, f)| (*m, *f))
}

/// `PluginControl.ProcessMode` by name.
fn process_mode(name: &str) -> Option<&'static str> {
    match name {
        "PROCESS_MODE_DEFAULT" => Some("0"),
        "PROCESS_MODE_FULL_FRAME" => Some("1"),
        "PROCESS_MODE_CLIP_OBJECTS" => Some("2"),
        _ => None,
    }
}

/// Where new properties of the element go (`Home::InferServer`), when the
/// file has an `infer_config`.
pub fn config_home(doc: &Document, file: FileId) -> Option<Box<Home>> {
    let Some(Home::Group { header, .. }) = home(doc, file, "infer_config").map(|h| *h) else {
        return None;
    };
    Some(Box::new(Home::InferServer { file, header }))
}

/// The properties an nvinferserver config sets, under nvinfer's names.
/// A repeated field written as one scalar (`gpu_ids: 0`) or a one-item
/// list (`gpu_ids: [0]`) is that value; an enum by name is its number.
pub fn props(doc: &Document, file: FileId) -> Vec<Property> {
    let mut out = Vec::new();
    for (name, message, field) in FIELDS {
        let Some(e) = doc.get(message, field) else { continue };
        let mut s: Setting = setting(file, &(*message).into(), e, Layer::ConfigFile);
        if e.value.is_none() && e.children() == 1 {
            // `[0]`: the item's bytes are the value.
            let raw = &doc.text[e.spans.value()];
            let inner = raw[1..raw.len() - 1].trim();
            let at = e.spans.value().start + 1 + raw[1..].find(inner).unwrap_or(0);
            if !inner.is_empty() && !inner.contains(',') {
                s.value = Value::Known(inner.into());
                if let Some(site) = s.site.as_mut() {
                    site.spans.set_value(at..at + inner.len());
                }
                s.at = (file, at..at + inner.len()).into();
            }
        }
        if let Value::Known(v) = &s.value {
            if let Some(n) = process_mode(v) {
                s.value = Value::Known(n.into());
            }
        }
        out.push(Property {
            name: (*name).into(),
            settings: smallvec::smallvec![s],
        });
    }
    // A tensor from nvdspreprocess's meta rather than frames (the rules'
    // `input-tensor-from-meta`, nvinfer's name for it).
    if let Some(g) = doc.last_group("infer_config.input_tensor_from_meta") {
        out.push(Property {
            name: "input-tensor-from-meta".into(),
            settings: smallvec::smallvec![Setting {
                value: Value::Known("1".into()),
                site: None,
                at: (file, g.name_span.clone()).into(),
                layer: Layer::ConfigFile,
                derived: Some("infer_config has input_tensor_from_meta".into()),
            }],
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::Format;

    #[test]
    fn fields_read_as_nvinfer_properties() {
        let src = "infer_config {\n  unique_id: 3\n  gpu_ids: [ 1 ]\n  max_batch_size: 8\n  postprocess {\n    labelfile_path: \"l.txt\"\n    detection { num_detected_classes: 4 }\n  }\n  input_tensor_from_meta { is_first_dim_batch: true }\n}\ninput_control {\n  process_mode: PROCESS_MODE_CLIP_OBJECTS\n  interval: 2\n}\n";
        let doc = Document::parse(src.into(), Format::Protobuf);
        let props = props(&doc, 0);
        let get = |n: &str| {
            let p = props.iter().find(|p| p.name == n).unwrap();
            let s = p.effective().unwrap();
            let at = &src[s.at.get().1];
            (s.value.clone(), at.to_string())
        };
        let known = |v: &str| Value::Known(v.into());
        assert_eq!(get("batch-size"), (known("8"), "8".into()));
        assert_eq!(get("gie-unique-id"), (known("3"), "3".into()));
        assert_eq!(get("gpu-id"), (known("1"), "1".into()));
        assert_eq!(get("interval"), (known("2"), "2".into()));
        assert_eq!(get("process-mode"), (known("2"), "PROCESS_MODE_CLIP_OBJECTS".into()));
        assert_eq!(get("labelfile-path"), (known("l.txt"), "\"l.txt\"".into()));
        assert_eq!(get("num-detected-classes"), (known("4"), "4".into()));
        assert_eq!(get("input-tensor-from-meta").0, known("1"));
        assert!(props.iter().all(|p| p.name != "operate-on-gie-id"));
        let Some(Home::InferServer { header, .. }) = config_home(&doc, 0).map(|h| *h) else {
            panic!("no home")
        };
        assert_eq!(&src[header], "infer_config");
        // Two GPUs are not one gpu-id.
        let two = Document::parse("infer_config { gpu_ids: [0, 1] }".into(), Format::Protobuf);
        let p = super::props(&two, 0);
        assert!(matches!(p[0].settings[0].value, Value::Unknown(_)));
    }
}
