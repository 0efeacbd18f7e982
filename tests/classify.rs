//! Precision 1: a file is what the reader that loads it says. Every file
//! under testdata/classify is either linted as the kind its reader gives it
//! or skipped with the reason that names the reader (or the lack of one),
//! and a skipped file gets no finding.

mod support;

use std::path::{Path, PathBuf};

use dslint::model::workspace::Workspace;

/// (file under testdata/classify, expected kind or skip-reason code)
const EXPECTED: &[(&str, &str)] = &[
    // deepstream-parallel-infer's config is linted as its own; its fragment
    // is read as its own parser reads it, by the reference (cfg-file-path),
    // although its content looks like deepstream-app's (skipped at load,
    // read when the pipeline is built: see the test below).
    ("parallel/main.yml", "ParallelApp"),
    ("parallel/secondary-gie0.yml", "ParallelFragment"),
    // deepstream-nmos's [receiverN]; an ASR app's keys in [sink0];
    // the multi-GPU test's `nvxfer:`.
    ("nmos/recv_send_config.txt", "custom-app"),
    ("asr/deepstream_asr.cfg", "custom-app"),
    // Its YAML form, read by deepstream_asr_config_file_parser_yaml.cpp.
    ("asr/deepstream_asr.yaml", "custom-app"),
    // A Graph Composer graph: its first document is `application: name:`,
    // its components follow; gxe runs it, not deepstream-app.
    ("graph-composer/people-count.yaml", "custom-app"),
    ("multigpu/dsmultigpu_config.yml", "custom-app"),
    // Test-app YAML: linted with a primary-gie config, skipped without.
    ("test-app/dstest3_config.yml", "TestApp"),
    ("test-app/source_list_only.yml", "test-app-without-inference"),
    ("postprocess/config_detector.yml", "nvdspostprocess"),
    ("ota/test5_ota_override_config.txt", "fragment"),
    // Its YAML form: the same override, not a test app.
    ("ota/test5_ota_override_config.yml", "fragment"),
    // A Service Maker pipeline (`deepstream:` with `nodes:`) is linted.
    ("service-maker/pipeline.yaml", "ServiceMaker"),
    ("service-maker/source_list.yaml", "service-maker-source-list"),
    ("audio/ds_audio_config.txt", "audio-app"),
    // deepstream-app passes over a group it does not know: a `[property]`
    // without nvinfer keys beside its groups leaves the file the app's.
    ("app-property/app.txt", "App"),
    // A reference from a loading config beats content.
    ("referenced/app.txt", "App"),
    ("referenced/pgie.txt", "NvInfer"),
    // plugin-type=1 leaves it to content: protobuf text with `infer_config`.
    ("referenced/triton.txt", "NvInferServer"),
];

fn verdicts(ws: &Workspace) -> Vec<(PathBuf, String)> {
    let mut v: Vec<(PathBuf, String)> = ws
        .files
        .iter()
        .map(|f| {
            (
                f.path.clone(),
                format!("{:?}", f.kind.expect("a linted file has a kind")),
            )
        })
        .chain(ws.skipped.iter().map(|s| (s.path.clone(), s.code.code().to_string())))
        .collect();
    v.sort();
    v
}

#[test]
fn files_are_classified_by_their_reader() {
    let root = Path::new("testdata/classify");
    let mut ws = Workspace::load(&[root.to_path_buf()]);
    // References are followed when the pipelines are built.
    let result = dslint::rules::check(&mut ws, None, dslint::rules::context::Profile::Display);
    let got = verdicts(&ws);
    for (file, want) in EXPECTED {
        let path = root.join(file);
        let have = got.iter().find(|(p, _)| *p == path).map(|(_, v)| v.as_str());
        assert_eq!(have, Some(*want), "{file}");
    }
    // Every skip has a reason in words.
    assert!(ws.skipped.iter().all(|s| !s.reason.is_empty()));
    // Nothing is reported about a skipped file.
    for d in &result.diagnostics {
        let path = &ws.files[d.file].path;
        assert!(
            !ws.skipped.iter().any(|s| &s.path == path),
            "{} on skipped {}",
            d.code(),
            path.display()
        );
    }
}

/// The reference wins over content whatever the walk order: naming the
/// fragment before the app that reads it changes nothing.
#[test]
fn reference_beats_content_in_any_order() {
    let root = Path::new("testdata/classify/parallel");
    let ws = Workspace::load(&[root.join("secondary-gie0.yml"), root.join("main.yml")]);
    assert_eq!(
        ws.files.iter().map(|f| f.path.clone()).collect::<Vec<_>>(),
        vec![root.join("main.yml")],
        "only the app's config is linted"
    );
    let fragment = ws
        .skipped
        .iter()
        .find(|s| s.path.ends_with("secondary-gie0.yml"))
        .expect("the fragment is listed");
    assert_eq!(fragment.code.code(), "parallel-inference-fragment");
    assert!(
        fragment.reason.contains("main.yml:16 cfg-file-path"),
        "{}",
        fragment.reason
    );
}

/// A main config by content stays one when a `cfg-file-path` names it
/// (here its own `secondary-gie0:`): the app reads it as its main config
/// when started with it, so its pipeline is still checked.
#[test]
fn a_main_config_named_as_a_fragment_stays_a_main_config() {
    let root = Path::new("testdata/classify/parallel-self");
    let ws = Workspace::load(&[root.to_path_buf()]);
    let app = ws
        .files
        .iter()
        .find(|f| f.path.ends_with("app.yml"))
        .expect("app.yml is linted");
    assert_eq!(app.kind, Some(dslint::model::detect::Kind::ParallelApp));
    assert!(
        !ws.skipped.iter().any(|s| s.path.ends_with("app.yml")),
        "{:?}",
        ws.skipped.iter().map(|s| (&s.path, &s.reason)).collect::<Vec<_>>()
    );
}
