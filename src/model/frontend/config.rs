//! The config files elements load, as layers of their properties: nvinfer
//! and nvdspreprocess read `[property]`, nvtracker's key-file `[tracker]`.
//! An app may set some keys on the element after it has loaded its file;
//! those override the file's.

use crate::base::FileId;
use crate::model::detect::Kind;
use crate::model::frontend::{group_props, home, inferserver, int, overlay};
use crate::model::graph::{ConfigFile, Element, Layer, Property, Role, Setting, Stage, Value};
use crate::model::keys::{self, Schema};
use crate::model::workspace::Workspace;

/// The group holding a config file's own settings, by what the file is.
fn settings_group(kind: Option<Kind>) -> &'static str {
    match kind {
        Some(Kind::Tracker) => "tracker",
        _ => "property",
    }
}

/// A config file an element loads, and where its settings live.
pub fn config_file(ws: &Workspace, file: FileId) -> ConfigFile {
    let f = &ws.files[file];
    let home = match f.kind {
        Some(Kind::NvInferServer) => inferserver::config_home(&f.doc, file),
        kind => home(&f.doc, file, settings_group(kind)),
    };
    ConfigFile {
        file,
        kind: f.kind,
        home,
    }
}

/// The properties a config file sets, under the names rules ask for.
pub fn config_props(ws: &Workspace, c: &ConfigFile) -> Vec<Property> {
    let f = &ws.files[c.file];
    match f.kind {
        Some(Kind::NvInferServer) => inferserver::props(&f.doc, c.file),
        kind => group_props(&f.doc, c.file, settings_group(kind), Layer::ConfigFile),
    }
}

/// The keys deepstream-app sets on nvinfer after the element has loaded
/// its config file, so they override the file's (DS 9.1
/// `deepstream_primary_gie_bin.c` `create_primary_gie_bin` and
/// `deepstream_secondary_gie_bin.c`: `batch-size`, `interval`, `unique-id`,
/// `gpu-id` and `model-engine-file` when set, and `infer-on-gie-id` from
/// `operate-on-gie-id` — the latter only for secondaries, though today's
/// rules treat it the same on the primary).
const SET_ON_INFER: &[&str] = &[
    "batch-size",
    "interval",
    "gie-unique-id",
    "gpu-id",
    "model-engine-file",
    "operate-on-gie-id",
];

/// An element's properties from its app group laid over its config file's.
///
/// Keys the app sets on the element (`set_on_element`) override the file's.
/// The group's other keys are the app's own settings for the element
/// (`enable`, `plugin-type`, `input-tensor-meta`, …) and stay as they are,
/// except a key the loaded file also sets, or one that names a setting of
/// the element's own reader (`reader`: an nvinfer key in `[primary-gie]`):
/// the app does not pass it on, so the file's value (or the default) stands.
pub fn layered(
    ws: &Workspace,
    group_file: FileId,
    group: &str,
    config: Option<&ConfigFile>,
    set_on_element: &[&str],
    reader: Option<Schema>,
) -> Vec<Property> {
    let app = group_props(&ws.files[group_file].doc, group_file, group, Layer::Element);
    let mut props = config.map(|c| config_props(ws, c)).unwrap_or_default();
    let reads = reader.map(|r| keys::GroupRows::of(r, "property"));
    let upper = app
        .into_iter()
        .filter(|p| {
            set_on_element.contains(&p.name.as_str())
                || !(props.iter().any(|c| c.name == p.name)
                    || reads.as_ref().is_some_and(|rows| rows.lookup(&p.name).is_some()))
        })
        .collect();
    overlay(&mut props, upper);
    props
}

/// An inference element from an app group and the config file it loads:
/// nvinfer, or nvinferserver when the group says `plugin-type=1`
/// (deepstream-app's `NV_DS_GIE_PLUGIN_INFER_SERVER`, and the
/// parallel-inference app's).
pub fn infer(ws: &Workspace, group_file: FileId, group: &str, stage: Stage, config: Option<FileId>) -> Element {
    let config = config.map(|c| config_file(ws, c));
    let server = int(&ws.files[group_file].doc, group, "plugin-type") == Some(1);
    let (role, factory, set_on, reader) = if server {
        (
            Role::InferServer(stage),
            "nvinferserver",
            inferserver::SET_ON_ELEMENT,
            None,
        )
    } else {
        (Role::Infer(stage), "nvinfer", SET_ON_INFER, Some(Schema::NvInfer))
    };
    let props = layered(ws, group_file, group, config.as_ref(), set_on, reader);
    let declared = home(&ws.files[group_file].doc, group_file, group);
    Element {
        role,
        factory: Some(factory.into()),
        name: group.to_string(),
        props,
        home: config
            .as_ref()
            .and_then(|c| c.home.clone())
            .or_else(|| declared.clone()),
        config,
        declared,
    }
}

/// What messages say of an nvinfer `batch-size` nothing sets.
pub const DEFAULT_BATCH: &str = "unset, nvinfer's default 1";

/// nvinfer's `batch-size` where neither its config file nor the app sets
/// it (Precision 4: defaults are known values): 1. DS 9.1 `gstnvinfer.cpp`
/// `gst_nvinfer_init` starts the property at `DEFAULT_BATCH_SIZE` (1), and
/// `NvDsInferContext_ResetInitParams` the context's `maxBatchSize` at 1;
/// `gst_nvinfer_parse_props` (key-file) and the YAML parser change it only
/// when `[property] batch-size` is written. deepstream-app sets the property
/// only when its group writes `batch-size` (`create_primary_gie_bin`,
/// `create_secondary_gie_bin`: `if (config->is_batch_size_set)`, which only
/// `parse_gie`/`parse_gie_yaml` set): the `[source-list]` and
/// nvmultiurisrcbin counts go into the same field, behind the same flag, so
/// nothing else fills it. The parallel-inference app builds its primaries
/// with the same `create_primary_gie_bin`.
///
/// Only for an nvinfer whose config file was read as nvinfer's and has its
/// `[property]` (where a fix inserts the key): a file outside the tree or
/// not read may set it, so the batch stays unknown (Precision 5). The
/// caller decides that its app sets the property nowhere else (not a test
/// app, whose C code often sets it from the source count).
pub fn default_batch(e: &mut Element) {
    let home = e
        .config
        .as_ref()
        .filter(|c| c.kind == Some(Kind::NvInfer))
        .and_then(|c| c.home.as_deref());
    let Some(home) = home.filter(|_| matches!(e.role, Role::Infer(_))) else {
        return;
    };
    if e.prop("batch-size").is_some() {
        return;
    }
    let at = home.at();
    e.props.push(Property {
        name: "batch-size".into(),
        settings: smallvec::smallvec![Setting {
            value: Value::Known("1".into()),
            site: None,
            at: at.into(),
            layer: Layer::Default,
            derived: Some(DEFAULT_BATCH.into()),
        }],
    });
}

/// An element config no pipeline references, checked on its own: an nvinfer
/// config (primary unless `process-mode` says 2) or a tracker key-file.
pub fn standalone(ws: &Workspace, file: FileId) -> Option<Element> {
    let f = &ws.files[file];
    let (role, factory) = match f.kind? {
        Kind::NvInfer => {
            let primary = int(&f.doc, "property", "process-mode").unwrap_or(1) == 1;
            let stage = if primary { Stage::Primary } else { Stage::Secondary };
            (Role::Infer(stage), "nvinfer")
        }
        Kind::Tracker => (Role::Tracker, "nvtracker"),
        Kind::NvInferServer => {
            // `input_control.process_mode` 2 (PROCESS_MODE_CLIP_OBJECTS)
            // is a secondary; the default and 1 work on frames.
            let config = config_file(ws, file);
            let props = config_props(ws, &config);
            let secondary = props.iter().any(|p| {
                p.name == "process-mode" && p.effective().is_some_and(|s| s.value == Value::Known("2".into()))
            });
            let stage = if secondary { Stage::Secondary } else { Stage::Primary };
            return Some(Element {
                role: Role::InferServer(stage),
                factory: Some("nvinferserver".into()),
                name: "infer_config".into(),
                props,
                home: config.home.clone(),
                config: Some(config),
                declared: None,
            });
        }
        _ => return None,
    };
    let config = config_file(ws, file);
    let group = settings_group(f.kind);
    Some(Element {
        role,
        factory: Some(factory.into()),
        name: group.to_string(),
        props: config_props(ws, &config),
        home: config.home.clone(),
        config: Some(config),
        declared: None,
    })
}
