//! The graph the front ends build from small configs: element roles and
//! order, layers and overrides, derived values, homes, links.

use std::path::Path;

use crate::model::detect::Kind;
use crate::model::frontend::build;
use crate::model::graph::{Graph, Home, Layer, Link, Pipeline, Role, SourceKind, Stage, Value};
use crate::model::workspace::Workspace;

fn graph(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace, Graph) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let mut ws = Workspace::load(&[dir.path().join(files[0].0)]);
    let g = build(&mut ws);
    (dir, ws, g)
}

/// A project folder (a `dslint.toml` at its top, so it is the root) with
/// `files` written in it.
fn project<T: AsRef<[u8]>>(files: &[(&str, T)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("dslint.toml"), "").unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn roles(p: &Pipeline) -> Vec<String> {
    p.elements.iter().map(|e| format!("{}:{:?}", e.name, e.role)).collect()
}

fn text<'w>(ws: &'w Workspace, file: usize, span: &std::ops::Range<usize>) -> &'w str {
    &ws.files[file].doc.text[span.clone()]
}

const PGIE: &str = "[property]\nbatch-size=1\nnetwork-mode=0\ngie-unique-id=1\n";

#[test]
fn deepstream_app_groups_become_elements_in_pipeline_order() {
    let app = "[application]\nenable-perf-measurement=1\n\
               [sink0]\nenable=1\ntype=1\n\
               [source0]\nenable=1\ntype=3\nuri=file:///v.mp4\nnum-sources=2\n\
               [source1]\nenable=0\ntype=4\nuri=rtsp://cam\n\
               [streammux]\nbatch-size=4\nbatch_size=8\n\
               [primary-gie]\nenable=1\nbatch-size=2\nnetwork-mode=1\ninput-tensor-meta=1\nconfig-file=pgie.txt\n\
               [tracker]\nenable=1\ntracker-width=640\n\
               [osd]\nenable=0\n";
    let (_d, ws, g) = graph(&[("app.txt", app), ("pgie.txt", PGIE)]);
    assert_eq!(g.pipelines.len(), 1);
    assert!(
        g.standalone.is_empty(),
        "the referenced nvinfer config is not standalone"
    );
    let p = &g.pipelines[0];
    assert_eq!(
        roles(p),
        [
            "source0:Source(Source { kind: File, streams: Some(2) })",
            "streammux:Streammux",
            "primary-gie:Infer(Primary)",
            "tracker:Tracker",
            "sink0:Sink",
            "application:Application",
            "tests:Tests",
        ]
    );
    assert_eq!(
        p.links,
        [
            Link { from: 0, to: 1 },
            Link { from: 1, to: 2 },
            Link { from: 2, to: 3 },
            Link { from: 3, to: 4 }
        ]
    );
    assert_eq!(p.streams(), Some(2));

    // `batch_size` is not a key deepstream-app reads: it reaches no element.
    let mux = p.first(&Role::Streammux).unwrap();
    assert_eq!(mux.int("batch-size").map(|b| b.value), Some(4));
    assert_eq!(
        mux.props.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["batch-size"]
    );

    // [primary-gie] batch-size overrides the file's; network-mode is not
    // passed to nvinfer, so the file's stands; input-tensor-meta is the app's.
    let pgie = p.primary().unwrap();
    let batch = pgie.prop("batch-size").unwrap();
    let layers: Vec<(Layer, &str)> = batch
        .settings
        .iter()
        .map(|s| {
            (
                s.layer,
                text(
                    &ws,
                    s.site.as_ref().unwrap().file,
                    &s.site.as_ref().unwrap().spans.value(),
                ),
            )
        })
        .collect();
    assert_eq!(layers, [(Layer::ConfigFile, "1"), (Layer::Element, "2")]);
    let b = pgie.int("batch-size").unwrap();
    assert_eq!(b.value, 2);
    assert_eq!(ws.files[b.site().unwrap().file].path.file_name().unwrap(), "app.txt");
    assert_eq!(b.site().unwrap().group, "primary-gie");
    let mode = pgie.int("network-mode").unwrap();
    assert_eq!((mode.value, mode.setting.layer), (0, Layer::ConfigFile));
    assert_eq!(pgie.bool("input-tensor-meta").map(|b| b.value), Some(true));
    assert_eq!(pgie.factory.as_deref(), Some("nvinfer"));
    // New nvinfer keys go into its config file's [property].
    let cfg = pgie.config.as_ref().unwrap();
    assert_eq!(pgie.home, cfg.home);
    let Some(Home::Group { file, group, header }) = pgie.home.as_deref() else {
        panic!("no home")
    };
    assert_eq!(
        (*file, group.as_str(), text(&ws, *file, header)),
        (cfg.file, "property", "property")
    );
    // The app's own keys for it (`enable`) go to its group in the app.
    let Some(Home::Group { file, group, .. }) = pgie.declared.as_deref() else {
        panic!("not declared")
    };
    assert_eq!((*file, group.as_str()), (p.root, "primary-gie"));

    // deepstream-app has a [tests] even when the file has none: no home.
    let tests = p.first(&Role::Tests).unwrap();
    assert!(tests.home.is_none() && tests.props.is_empty());
}

#[test]
fn deepstream_app_reads_sink_and_secondary_gie_groups_by_their_prefix() {
    // parse_config_file / parse_config_file_yaml match `sink`,
    // `secondary-gie` and `message-consumer` groups by prefix (strncmp,
    // compare(0, …)): `[sink]` and `[secondary-gie-face]` are read like
    // `[sink0]`; off without `enable`, like them.
    let app = "[application]\nenable-perf-measurement=1\n\
               [source0]\nenable=1\ntype=3\nuri=file:///v.mp4\n\
               [streammux]\nbatch-size=1\n\
               [primary-gie]\nenable=1\nconfig-file=pgie.txt\n\
               [secondary-gie-face]\nenable=1\ngie-unique-id=2\nconfig-file=pgie.txt\n\
               [secondary-gie]\ngie-unique-id=3\nconfig-file=pgie.txt\n\
               [sink]\nenable=1\ntype=1\n\
               [sink-rtsp]\ntype=4\n\
               [sinks]\nenable=0\ntype=2\n";
    let (_d, _ws, g) = graph(&[("app.txt", app), ("pgie.txt", PGIE)]);
    assert_eq!(
        roles(&g.pipelines[0]),
        [
            "source0:Source(Source { kind: File, streams: Some(1) })",
            "streammux:Streammux",
            "primary-gie:Infer(Primary)",
            "secondary-gie-face:Infer(Secondary)",
            "sink:Sink",
            "application:Application",
            "tests:Tests",
        ]
    );
    let yaml = "application:\n  enable-perf-measurement: 1\n\
                source:\n  csv-file-path: s.csv\n\
                streammux:\n  batch-size: 1\n\
                primary-gie:\n  enable: 1\n  config-file: pgie.txt\n\
                secondary-gie:\n  enable: 1\n  gie-unique-id: 2\n  config-file: pgie.txt\n\
                sink:\n  enable: 1\n  type: 1\n";
    let (_d, _ws, g) = graph(&[("app.yml", yaml), ("pgie.txt", PGIE)]);
    let names: Vec<String> = roles(&g.pipelines[0])
        .into_iter()
        .filter(|r| !r.starts_with("source"))
        .collect();
    assert_eq!(
        names,
        [
            "streammux:Streammux",
            "primary-gie:Infer(Primary)",
            "secondary-gie:Infer(Secondary)",
            "sink:Sink",
            "application:Application",
            "tests:Tests",
        ]
    );
}

/// The streams of a `[source-list]` are the listed sources deepstream-app
/// opens: each copies `[source-attr-all]`'s `enable` (an integer, unset 0),
/// an enabled `[sourceN]` turns source N on, and `create_multi_source_bin`
/// skips the others. None opened, an `enable` that is no integer, or no
/// `[source-attr-all]` (the app refuses the config): unknown, with the
/// group's keys not given to the list (its `type` unknown).
#[test]
fn source_list_streams_are_the_sources_deepstream_app_opens() {
    let list = "[application]\n[source-list]\nlist=usb:0;usb:1;usb:2\n";
    let attr = "[source-attr-all]\ntype=1\ncamera-width=640\ncamera-height=480\n";
    let cases: [(String, Option<u32>, bool); 7] = [
        (String::new(), None, false),
        (attr.to_string(), None, false),
        (format!("{attr}enable=0\n"), None, false),
        (format!("{attr}enable=yes\n"), None, false),
        (format!("{attr}enable=1\n"), Some(3), true),
        (format!("{attr}enable=2\n"), Some(3), true),
        (
            format!("{attr}[source1]\nenable=1\n[source2]\nenable=0\n"),
            Some(1),
            true,
        ),
    ];
    for (rest, streams, type_known) in cases {
        let app = format!("{list}{rest}[streammux]\nbatch-size=3\n[primary-gie]\nenable=1\nconfig-file=pgie.txt\n");
        let (_d, _ws, g) = graph(&[("app.txt", &app), ("pgie.txt", PGIE)]);
        let p = &g.pipelines[0];
        assert_eq!(p.streams(), streams, "{rest}");
        let src = p.sources().next().unwrap();
        assert_eq!(src.int("type").is_some(), type_known, "{rest}");
        assert_eq!(src.unknown("type"), !type_known, "{rest}");
    }
}

#[test]
fn source_list_derives_the_batch_sizes_it_overrides() {
    // The primary's only when [primary-gie] writes batch-size
    // (`create_primary_gie_bin`: `is_batch_size_set`).
    let app = "[application]\n[source-list]\nlist=file:///a.mp4;rtsp://cam;file:///b.mp4\n\
               [source-attr-all]\nenable=1\n\
               [source0]\nenable=1\ntype=2\nuri=file:///a.mp4\nnum-sources=7\n\
               [streammux]\nbatch-size=1\n[primary-gie]\nenable=1\nbatch-size=1\nconfig-file=pgie.txt\n";
    let (_d, ws, g) = graph(&[("app.txt", app), ("pgie.txt", PGIE)]);
    let p = &g.pipelines[0];
    // [sourceN] beside [source-list] adds no stream (as type 3 the app
    // refuses the config: `source_list_source_group_past_the_count_is_refused`).
    assert_eq!(p.sources().count(), 1);
    assert_eq!(p.streams(), Some(3));
    let list = p.sources().next().unwrap();
    assert_eq!(list.source().unwrap().kind, SourceKind::Live);
    for e in [p.first(&Role::Streammux).unwrap(), p.primary().unwrap()] {
        let b = e.int("batch-size").unwrap();
        assert_eq!(b.value, 3, "{}", e.name);
        assert!(b.site().is_none(), "derived: no line to edit");
        assert_eq!(b.setting.layer, Layer::Derived);
        assert_eq!(
            b.setting.derived.as_deref(),
            Some("[source-list] sets it to the number of sources (3)")
        );
        assert_eq!(text(&ws, b.at().0, &b.at().1), "list");
        // The written value it overrides is still there.
        let written = e.prop("batch-size").unwrap().settings.last_chunk::<2>().unwrap();
        assert_eq!(written[0].value, Value::Known("1".into()));
    }
    // Without [primary-gie] batch-size the config file's value stands.
    let app = app.replace("enable=1\nbatch-size=1\nconfig-file", "enable=1\nconfig-file");
    let (_d, ws, g) = graph(&[("app.txt", &app), ("pgie.txt", "[property]\nbatch-size=2\n")]);
    let b = g.pipelines[0].primary().unwrap().int("batch-size").unwrap();
    assert_eq!((b.value, b.setting.layer), (2, Layer::ConfigFile));
    assert_eq!(ws.files[b.site().unwrap().file].path.file_name().unwrap(), "pgie.txt");
}

/// Precision 4: nvinfer's `batch-size` that nothing sets is its default 1
/// (`gst_nvinfer_init`: `DEFAULT_BATCH_SIZE`) in deepstream-app, pointing at
/// the config's [property]; unknown when the config is not read, or when a
/// test app (which may set it in C) runs the pipeline.
#[test]
fn an_unset_nvinfer_batch_is_the_default_1_where_the_app_is_known() {
    let app = "[application]\n[source0]\nenable=1\ntype=3\nuri=file:///a.mp4\nnum-sources=4\n\
               [streammux]\nbatch-size=4\n[primary-gie]\nenable=1\nconfig-file=pgie.txt\n\
               [secondary-gie0]\nenable=1\nconfig-file=sgie.txt\n";
    let cfg = "[property]\nnetwork-mode=2\n";
    let (_d, ws, g) = graph(&[("app.txt", app), ("pgie.txt", cfg), ("sgie.txt", cfg)]);
    let p = &g.pipelines[0];
    for e in p.infers() {
        let b = e.int("batch-size").unwrap();
        assert_eq!((b.value, b.setting.layer), (1, Layer::Default), "{}", e.name);
        assert!(b.site().is_none());
        assert_eq!(b.setting.derived.as_deref(), Some("unset, nvinfer's default 1"));
        assert_eq!(text(&ws, b.at().0, &b.at().1), "property");
    }
    // The config is not in the tree: unknown.
    let outside = app.replace("config-file=pgie.txt", "config-file=/opt/nvidia/pgie.txt");
    let (_d, _ws, g) = graph(&[("app.txt", &outside)]);
    assert!(g.pipelines[0].primary().unwrap().prop("batch-size").is_none());
    // A test app may set it in C (deepstream_test3_app.c): unknown.
    let test_app = "source:\n  uri: file:///a.mp4\nstreammux:\n  batch-size: 4\n\
                    primary-gie:\n  config-file-path: pgie.yml\n";
    let (_d, ws, g) = graph(&[("app.yml", test_app), ("pgie.yml", "property:\n  network-mode: 2\n")]);
    assert_eq!(ws.files[0].kind, Some(Kind::TestApp));
    assert!(g.pipelines[0].primary().unwrap().prop("batch-size").is_none());
}

#[test]
fn nvmultiurisrcbin_batch_is_its_max_batch_size() {
    // `[source-attr-all]`: without it `parse_config_file` refuses the
    // config, and no batch is set.
    let app = "[application]\n[source-list]\nuse-nvmultiurisrcbin=1\nmax-batch-size=8\nlist=rtsp://a\n\
               [source-attr-all]\nenable=1\n[streammux]\nbatch-size=1\n";
    let (_d, ws, g) = graph(&[("app.txt", app)]);
    let p = &g.pipelines[0];
    let list = p.sources().next().unwrap();
    assert_eq!(list.factory.as_deref(), Some("nvmultiurisrcbin"));
    assert_eq!(p.streams(), None, "sources added at run time are unknown");
    let b = p.first(&Role::Streammux).unwrap().int("batch-size").unwrap();
    assert_eq!(b.value, 8);
    let site = b.site().unwrap();
    assert_eq!(
        (site.group.as_str(), site.key.as_str()),
        ("source-list", "max-batch-size")
    );
    assert_eq!(text(&ws, site.file, &site.spans.value()), "8");
}

#[test]
fn test_app_yaml_sections_are_on_without_enable() {
    let app = "source:\n  uri: rtsp://cam\nstreammux:\n  batch-size: 1\n\
               primary-gie:\n  config-file-path: pgie.yml\n  batch-size: \"4\"\n\
               osd:\n  display-text: 0\nsink:\n  sync: 0\n";
    let pgie = "property:\n  batch-size: 2\n  gie-unique-id: 1\n  network-mode: 2\n";
    let (_d, ws, g) = graph(&[("app.yml", app), ("pgie.yml", pgie)]);
    let p = &g.pipelines[0];
    assert_eq!(
        roles(p),
        [
            "source:Source(Source { kind: Live, streams: Some(1) })",
            "streammux:Streammux",
            "primary-gie:Infer(Primary)",
            "osd:Osd",
            "sink:Sink",
        ]
    );
    let b = p.primary().unwrap().int("batch-size").unwrap();
    assert_eq!(b.value, 4);
    // The site of a quoted YAML scalar includes the quotes.
    assert_eq!(
        text(&ws, b.site().unwrap().file, &b.site().unwrap().spans.value()),
        "\"4\""
    );
    assert!(
        p.first(&Role::Tests).is_none(),
        "a test app has no [tests] unless it writes one"
    );
}

#[test]
fn unreferenced_configs_stand_alone() {
    // (A model source: without one the file is no nvinfer config, detect.rs.)
    let sgie = "[property]\nprocess-mode=2\ngie-unique-id=2\nonnx-file=m.onnx\n";
    let tracker = "[tracker]\ntracker-width=640\n";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sgie.txt"), sgie).unwrap();
    std::fs::write(dir.path().join("tracker.txt"), tracker).unwrap();
    let mut ws = Workspace::load(&[dir.path().to_path_buf()]);
    let g = build(&mut ws);
    assert!(g.pipelines.is_empty());
    let roles: Vec<&Role> = g.standalone.iter().map(|e| &e.role).collect();
    assert_eq!(roles, [&Role::Infer(Stage::Secondary), &Role::Tracker]);
    let t = &g.standalone[1];
    assert_eq!(t.int("tracker_width").map(|w| w.value), Some(640));
    assert!(Path::new(&ws.files[t.home.as_ref().unwrap().file()].path).ends_with("tracker.txt"));
}

#[test]
fn edits_go_through_the_document_in_its_style() {
    let app = "[application]\n[streammux]\nbatch-size = 4  # four\n[sink0]\nenable = 1\n";
    let (_d, ws, g) = graph(&[("app.txt", app)]);
    let p = &g.pipelines[0];
    let mux = p.first(&Role::Streammux).unwrap();
    let set = ws.set_or_insert(mux, "batch-size", "8").unwrap();
    assert_eq!(text(&ws, set.file, &set.range), "4", "only the digits");
    let add = ws.set_or_insert(mux, "live-source", "1").unwrap();
    assert_eq!(add.text, "live-source = 1\n", "the file's ` = ` spelling");
    assert_eq!(
        &app[..add.range.start],
        "[application]\n[streammux]\nbatch-size = 4  # four\n"
    );
}

#[test]
fn a_sink_is_a_sink_in_every_front_end() {
    // One table (`SINK_FACTORIES`): gst-launch/Python and Service Maker
    // agree, Service Maker's own sink bins included.
    for f in crate::model::frontend::SINK_FACTORIES {
        assert_eq!(crate::model::frontend::gst::role(f, &[]), Role::Sink, "{f}");
        assert_eq!(
            crate::model::frontend::service_maker::role(f, Stage::Primary),
            Role::Sink,
            "{f}"
        );
    }
    assert_eq!(crate::model::frontend::gst::role("nvrtspoutsinkbin", &[]), Role::Sink);
    assert_ne!(
        crate::model::frontend::service_maker::role("queue", Stage::Primary),
        Role::Sink
    );
}

/// App configs are built ahead on all threads; the graph must be the one a
/// build in order makes. Here the first app's `[pre-process]` makes the
/// walked nvinfer config a preprocess config, and the second app's tracker
/// makes it its low-level library's config (nvtracker hands `ll-config-file`
/// to the library, whatever the file holds): built ahead, each read the
/// file as the walk's nvinfer config, and the last kind must be the one
/// both graphs end with; the third app reads nothing the others changed.
#[test]
fn apps_built_ahead_make_the_graph_a_build_in_order_makes() {
    let files = [
        (
            "a_app.txt",
            "[application]\nenable-perf-measurement=1\n[pre-process]\nenable=1\nconfig-file=x.txt\n[streammux]\nbatch-size=1\n",
        ),
        (
            "b_app.txt",
            "[application]\nenable-perf-measurement=1\n[tracker]\nenable=1\nll-config-file=x.txt\n[streammux]\nbatch-size=1\n",
        ),
        (
            "c_app.txt",
            "[application]\nenable-perf-measurement=1\n[primary-gie]\nenable=1\nconfig-file=pgie.txt\n[streammux]\nbatch-size=1\n",
        ),
        ("pgie.txt", PGIE),
        // Read as nvinfer's by content (the walk's kind).
        (
            "x.txt",
            "[property]\ngpu-id=0\nonnx-file=m.onnx\nbatch-size=1\nnetwork-mode=0\nnum-detected-classes=4\n\
             gie-unique-id=1\nnetwork-type=0\n",
        ),
    ];
    let dir = project(&files);
    let load = || Workspace::load(&[dir.path().to_path_buf()]);
    let (mut ahead, mut in_order) = (load(), load());
    let g_ahead = super::build_with::<()>(&mut ahead, true, None, None).0;
    let g_in_order = super::build_with::<()>(&mut in_order, false, None, None).0;
    assert_eq!(format!("{g_ahead:?}"), format!("{g_in_order:?}"));
    let kinds = |ws: &Workspace| ws.files.iter().map(|f| f.kind).collect::<Vec<_>>();
    assert_eq!(kinds(&ahead), kinds(&in_order));
    let tracker = g_ahead.pipelines[1]
        .elements
        .iter()
        .find(|e| e.role == Role::Tracker)
        .unwrap();
    assert_eq!(
        tracker.config.as_ref().map(|c| c.kind),
        Some(Some(crate::model::detect::Kind::TrackerLowLevel))
    );
}

/// An 8 MiB app config is 100k sink or branch groups: their elements are
/// made on all threads (in chunks of 64) and must keep the file's order,
/// in one vector sized once (an element is ~350 bytes; a vector grown by
/// doubling held up to twice the room and copied every element again and
/// again).
#[test]
fn many_sinks_and_branches_keep_file_order_in_a_vector_sized_once() {
    let n = 300;
    let mut app = String::from(
        "source-list:\n  list: file:///a.mp4;file:///b.mp4\nstreammux:\n  batch-size: 2\n  width: 1920\n  height: 1080\n\
         primary-gie:\n  config-file-path: pgie.yml\n",
    );
    for i in 0..n {
        app.push_str(&format!("sink{i}:\n  enable: {}\n  sync: 0\n", (i % 7 != 3) as u8));
    }
    let (_d, _ws, g) = graph(&[("app.yml", &app)]);
    let p = &g.pipelines[0];
    sinks_in_order_sized_once(p, (0..n).filter(|i| i % 7 != 3), 9);

    let mut main = String::from(
        "application:\n  enable-perf-measurement: 1\nsource:\n  csv-file-path: sources.csv\n\
         primary-gie0:\n  enable: 1\n  plugin-type: 0\n  config-file: pgie.txt\n",
    );
    for i in 0..n {
        main.push_str(&format!("branch{i}:\n  pgie-id: 1\n  src-ids: 0;1\n"));
    }
    for i in 0..n {
        main.push_str(&format!("sink{i}:\n  enable: {}\n  sync: 0\n", (i % 5 != 0) as u8));
    }
    let (_d, _ws, g) = graph(&[
        ("main.yml", &main),
        ("sources.csv", "enable,type,uri\n1,3,file:///a.mp4\n"),
    ]);
    let p = &g.pipelines[0];
    let branches: Vec<&str> = p.all(&Role::Branch).map(|e| e.name.as_str()).collect();
    assert_eq!(branches, (0..n).map(|i| format!("branch{i}")).collect::<Vec<_>>());
    assert!(
        p.all(&Role::Branch)
            .all(|b| b.factory.as_deref() == Some("nvstreammux"))
    );
    sinks_in_order_sized_once(p, (0..n).filter(|i| i % 5 != 0), 2);
}

/// Check that `p`'s sinks are `sink<i>` for each of `on`, in that order,
/// and that its elements are held with at most `singles` slots of room
/// (the single elements it may have besides).
fn sinks_in_order_sized_once(p: &Pipeline, on: impl Iterator<Item = usize>, singles: usize) {
    let sinks: Vec<&str> = p.all(&Role::Sink).map(|e| e.name.as_str()).collect();
    let want: Vec<String> = on.map(|i| format!("sink{i}")).collect();
    assert_eq!(sinks, want);
    let (room, len) = (p.elements.capacity(), p.elements.len());
    assert!(room <= len + singles, "{room} for {len}");
}

/// `build_visiting` visits a pipeline as built only where what the visit
/// sees is what the finished graph holds: in a building that changes
/// nothing, every app config's pipeline (here its properties counted and
/// dropped); in one that changes a file's kind (`a_app.txt` makes the walked
/// nvinfer config a preprocess config), the pipelines visited are built
/// again and their results dropped. Either way the graph is `build`'s,
/// less the properties of the pipelines visited.
#[test]
fn pipelines_are_visited_as_built_only_when_the_building_changes_nothing() {
    let app = |group: &str, key: &str| {
        format!(
            "[application]\nenable-perf-measurement=1\n[{group}]\nenable=1\n{key}=x.txt\n[streammux]\nbatch-size=1\n"
        )
    };
    let nvinfer = "[property]\ngpu-id=0\nonnx-file=m.onnx\nbatch-size=1\nnetwork-mode=0\nnum-detected-classes=4\n\
                   gie-unique-id=1\nnetwork-type=0\n";
    let quiet = [
        ("a_app.txt", app("primary-gie", "config-file")),
        ("b_app.txt", app("primary-gie", "config-file")),
        ("x.txt", nvinfer.to_string()),
    ];
    let loud = [
        ("a_app.txt", app("pre-process", "config-file")),
        ("b_app.txt", app("tracker", "ll-config-file")),
        ("c_app.txt", app("primary-gie", "config-file")),
        ("x.txt", nvinfer.to_string()),
    ];
    for (files, visits) in [(&quiet[..], true), (&loud[..], false)] {
        let dir = project(files);
        let load = || Workspace::load(&[dir.path().to_path_buf()]);
        let (mut plain, mut visiting) = (load(), load());
        let mut whole = build(&mut plain);
        let visit = |_: &Workspace, p: &mut Pipeline| {
            let n: usize = p.elements.iter().map(|e| e.props.len()).sum();
            for e in &mut p.elements {
                e.props = Vec::new();
            }
            n
        };
        let (mut g, counts) = super::build_visiting(&mut visiting, &visit, None);
        assert_eq!(counts.len(), g.pipelines.len());
        assert_eq!(counts.iter().all(Option::is_some), visits, "{files:?}");
        assert!(visits || counts.iter().all(Option::is_none), "{files:?}");
        for ((p, w), n) in g.pipelines.iter_mut().zip(&mut whole.pipelines).zip(&counts) {
            let props: usize = w.elements.iter().map(|e| e.props.len()).sum();
            assert!(props > 0);
            if let Some(n) = n {
                assert_eq!(*n, props);
                for e in &mut w.elements {
                    e.props = Vec::new();
                }
            }
            assert_eq!(format!("{p:?}"), format!("{w:?}"));
        }
        assert_eq!(format!("{:?}", g.standalone), format!("{:?}", whole.standalone));
        let kinds = |ws: &Workspace| ws.files.iter().map(|f| f.kind).collect::<Vec<_>>();
        assert_eq!(kinds(&plain), kinds(&visiting));
    }
}

/// `[source-list]` without `list` (DS 9.1 `parse_source_list`): the sources
/// are `num-source-bins` copies of `[source-attr-all]`
/// (`set_source_all_configs`), and both batches are that number
/// (`parse_config_file`: `num_source_sub_bins`); a multi-URI type (3) copy
/// then becomes `num-sources` streams, after the batches are set. Whatever
/// deepstream-app refuses or cannot be counted is unknown: a count that
/// disagrees with `list` or with the sensor lists ("Mismatch in …"), a list
/// entry it cannot open ("not in proper format"), a `num-source-bins` that
/// is no integer or 0, a type-3 copy beside a `[sourceN]` group ("MultiURI
/// support not available if [source-list] is provided").
#[test]
fn source_list_num_source_bins_is_the_count_without_a_list() {
    let attr = "[source-attr-all]\nenable=1\ntype=2\nuri=file:///a.mp4\n";
    let cases: [(&str, &str, Option<u32>, Option<i64>); 13] = [
        ("num-source-bins=4\n", "", Some(4), Some(4)),
        ("num-source-bins=4\n", "[source1]\nenable=0\n", Some(4), Some(4)),
        // The copies are attr-all's: enable=0 runs none but source 2.
        (
            "num-source-bins=4\n",
            "[source-attr-all]\nenable=0\ntype=2\nuri=file:///a.mp4\n[source2]\nenable=1\n",
            Some(1),
            Some(4),
        ),
        ("num-source-bins=x\n", "", None, None),
        ("num-source-bins=0\n", "", None, None),
        ("num-source-bins=2000\n", "", None, None),
        // Both written: they must agree, and the sensor lists with them.
        ("num-source-bins=2\nlist=file:///a.mp4;file:///b.mp4\n", "", None, None),
        (
            "num-source-bins=2\nlist=file:///a.mp4;file:///b.mp4\nsensor-id-list=a;b\nsensor-name-list=A;B\n",
            "",
            Some(2),
            Some(2),
        ),
        (
            "num-source-bins=3\nlist=file:///a.mp4;file:///b.mp4\nsensor-id-list=a;b\nsensor-name-list=A;B\n",
            "",
            None,
            None,
        ),
        // GLib counts the empty entry; set_source_all_configs cannot open it.
        ("list=file:///a.mp4;;file:///b.mp4\n", "", None, None),
        ("list=file:///a.mp4; file:///b.mp4\n", "", None, None),
        // Multi-URI copies: num-sources streams each, the batch the count.
        (
            "num-source-bins=2\n",
            "[source-attr-all]\nenable=1\ntype=3\nnum-sources=3\nuri=file:///a_%d.mp4\n",
            Some(6),
            Some(2),
        ),
        (
            "num-source-bins=2\n",
            "[source-attr-all]\nenable=1\ntype=3\nnum-sources=3\nuri=file:///a_%d.mp4\n[source1]\nenable=0\n",
            None,
            None,
        ),
    ];
    for (list, rest, streams, batch) in cases {
        let attr = if rest.contains("[source-attr-all]") { "" } else { attr };
        assert_source_list_batches(&format!("{list}{attr}{rest}"), streams, batch);
    }
}

/// An app with `[source-list]` followed by `groups`, a streammux and a
/// primary that both write batch-size 7: the streams are `streams`, both
/// batches `batch` (never the written 7: the app overwrites it), unknown
/// where `batch` is `None`.
fn assert_source_list_batches(groups: &str, streams: Option<u32>, batch: Option<i64>) {
    let app = format!(
        "[application]\n[source-list]\n{groups}[streammux]\nbatch-size=7\n\
         [primary-gie]\nenable=1\nbatch-size=7\nconfig-file=pgie.txt\n"
    );
    let (_d, _ws, g) = graph(&[("app.txt", &app), ("pgie.txt", PGIE)]);
    let p = &g.pipelines[0];
    assert_eq!(p.streams(), streams, "{groups}");
    for e in [p.first(&Role::Streammux).unwrap(), p.primary().unwrap()] {
        assert_eq!(e.int("batch-size").map(|b| b.value), batch, "{} {groups}", e.name);
        assert_eq!(e.unknown("batch-size"), batch.is_none(), "{} {groups}", e.name);
    }
}

/// A multi-URI source's (type 3) streams are `num-sources`, which
/// `parse_config_file` raises to 1 when below it (unset: 0); a negative one
/// is a huge `guint` that overruns `MAX_SOURCE_BINS` ("App supports max"),
/// and one GLib cannot read fails `parse_source`: the app refuses both,
/// unknown.
#[test]
fn multi_uri_num_sources_below_one_is_one_stream() {
    let cases: [(&str, Option<u32>); 6] = [
        ("", Some(1)),
        ("num-sources=0\n", Some(1)),
        ("num-sources=1\n", Some(1)),
        ("num-sources=3\n", Some(3)),
        ("num-sources=-2\n", None),
        ("num-sources=x\n", None),
    ];
    for (n, streams) in cases {
        let app =
            format!("[application]\n[source0]\nenable=1\ntype=3\nuri=file:///a_%d.mp4\n{n}[streammux]\nbatch-size=2\n");
        let (_d, _ws, g) = graph(&[("app.txt", &app)]);
        assert_eq!(g.pipelines[0].streams(), streams, "{n}");
    }
}

/// A `[sourceN]` group beside `[source-list]` (DS 9.1 `parse_config_file`)
/// must have N below the listed count (`total_num_sources`), enabled or not
/// (the check comes before `parse_source`): else the app refuses the config
/// ("Invalid source group index"), and neither the streams nor the batches
/// are known. N is `g_ascii_strtoull` of the name's rest, kept as a `guint`:
/// `-1` wraps past any count, and a leading zero is the same index. An
/// enabled one that makes its source multi-URI (type 3) is refused too.
#[test]
fn source_list_source_group_past_the_count_is_refused() {
    let attr = "[source-attr-all]\nenable=1\ntype=2\nuri=file:///a.mp4\n";
    let two = "list=file:///a.mp4;file:///b.mp4\n";
    let cases: [(&str, &str, Option<u32>, Option<i64>); 11] = [
        (two, "", Some(2), Some(2)),
        (two, "[source1]\nenable=1\n", Some(2), Some(2)),
        (two, "[source01]\nenable=0\n", Some(2), Some(2)),
        (two, "[source2]\nenable=1\n", None, None),
        (two, "[source2]\nenable=0\n", None, None),
        (two, "[source7]\n", None, None),
        (two, "[source-1]\nenable=1\n", None, None),
        ("num-source-bins=4\n", "[source3]\nenable=0\n", Some(4), Some(4)),
        ("num-source-bins=4\n", "[source4]\nenable=0\n", None, None),
        // An override that reads as a multi-URI source: "MultiURI support
        // not available if [source-list] is provided" (a group whose
        // `enable` is 0 is not read, its type not taken).
        (two, "[source0]\nenable=1\ntype=3\nuri=file:///a_%d.mp4\n", None, None),
        (
            two,
            "[source0]\nenable=0\ntype=3\nuri=file:///a_%d.mp4\n",
            Some(2),
            Some(2),
        ),
    ];
    for (list, rest, streams, batch) in cases {
        assert_source_list_batches(&format!("{list}{attr}{rest}"), streams, batch);
    }
}

/// A list entry the app refuses is named in the reason the batches are
/// unknown, cut short: the entry may be the whole, megabytes long, list.
#[test]
fn a_refused_list_entry_is_shown_cut_short() {
    let bad = "x".repeat(100_000);
    let app = format!(
        "[application]\n[source-list]\nlist=file:///a.mp4;{bad}\n\
         [source-attr-all]\nenable=1\ntype=2\nuri=file:///a.mp4\n[streammux]\nbatch-size=7\n"
    );
    let (_d, _ws, g) = graph(&[("app.txt", &app)]);
    let mux = g.pipelines[0].first(&Role::Streammux).unwrap();
    let why = match mux.prop("batch-size").and_then(|p| p.effective()).map(|s| &s.value) {
        Some(Value::Unknown(why)) => why.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        why,
        format!(
            "[source-list] list entry 2 (\"{}\"…) is none of file://, rtsp://, usb:N, csi:N: \
             deepstream-app refuses the config (set_source_all_configs)",
            "x".repeat(40)
        )
    );
}
