//! The graph the code front ends build: gst-launch lines and Python apps.

use crate::model::detect::Kind;
use crate::model::frontend::{build, python};
use crate::model::graph::{Graph, Home, Layer, Pipeline, Role, SourceKind, Stage, Value};
use crate::model::workspace::Workspace;

fn graph(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace, Graph) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let mut ws = Workspace::load(&[dir.path().to_path_buf()]);
    let g = build(&mut ws);
    (dir, ws, g)
}

fn roles(p: &Pipeline) -> Vec<String> {
    p.elements.iter().map(|e| format!("{}:{:?}", e.name, e.role)).collect()
}

fn value<'p>(p: &'p Pipeline, role: &Role, key: &str) -> Option<&'p Value> {
    Some(&p.first(role)?.prop(key)?.effective()?.value)
}

const PGIE: &str = "[property]\nbatch-size=1\ngie-unique-id=3\nnetwork-mode=2\nprocess-mode=1\n";

#[test]
fn a_launch_line_is_a_pipeline_with_streams_from_mux_links() {
    let script = "#!/bin/sh\ngst-launch-1.0 filesrc location=a.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 \\\n  uridecodebin uri=rtsp://h/s ! m.sink_1 \\\n  nvstreammux name=m batch_size=2 live-source=$LIVE ! nvinfer config-file-path=pgie.txt unique-id=7 batch-size=2 ! fakesink\n";
    let (_d, _ws, g) = graph(&[("run.sh", script), ("pgie.txt", PGIE)]);
    assert_eq!(g.pipelines.len(), 1);
    let p = &g.pipelines[0];
    assert_eq!(
        roles(p)[..2],
        [
            "filesrc0:Source(Source { kind: File, streams: Some(1) })",
            "h264parse0:Other(\"h264parse\")"
        ]
    );
    assert_eq!(p.streams(), Some(2));
    assert!(
        p.sources()
            .any(|s| s.source().is_some_and(|s| s.kind == SourceKind::Live))
    );
    let mux = p.first(&Role::Streammux).unwrap();
    assert_eq!(mux.name, "m");
    assert_eq!(mux.int("batch-size").map(|b| b.value), Some(2));
    assert!(matches!(value(p, &Role::Streammux, "live-source"), Some(Value::Unknown(w)) if w == "`$LIVE`"));
    // nvinfer: the element's unique-id wins over the file's gie-unique-id.
    let pgie = p.primary().unwrap();
    let id = pgie.prop("gie-unique-id").unwrap();
    assert_eq!(id.settings.len(), 2);
    assert_eq!(id.settings[0].layer, Layer::ConfigFile);
    assert_eq!(pgie.int("gie-unique-id").map(|v| v.value), Some(7));
    assert!(matches!(pgie.home.as_deref(), Some(Home::Group { .. })));
    assert!(matches!(mux.home.as_deref(), Some(Home::Launch { .. })));
    // The config file is checked in the pipeline, not on its own.
    assert!(g.standalone.is_empty());
}

#[test]
fn launch_lines_with_unknown_structure_count_no_streams() {
    let script = "gst-launch-1.0 $SOURCES nvstreammux name=m batch-size=2 ! nvinfer ! fakesink \\\n  filesrc location=a ! m.sink_0\n";
    let (_d, _ws, g) = graph(&[("run.sh", script)]);
    assert_eq!(g.pipelines[0].streams(), None);
    // A reference to no element: gst-launch fails, no pipeline.
    let (_d, _ws, g) = graph(&[(
        "run.sh",
        "gst-launch-1.0 filesrc ! x.sink_0 nvstreammux name=m ! fakesink\n",
    )]);
    assert!(g.pipelines.is_empty());
}

const APP: &str = r#"import sys
from gi.repository import Gst

WIDTH = 1280
SHARED = 2


def main(args):
    source = Gst.ElementFactory.make("filesrc", "src")
    decoder = Gst.ElementFactory.make("nvv4l2decoder", "dec")
    mux = Gst.ElementFactory.make("nvstreammux", "mux")
    mux.set_property("width", WIDTH)
    mux.set_property("height", SHARED)
    mux.set_property("batch-size", SHARED)
    mux.set_property("batched-push-timeout", len(args))
    if args:
        mux.set_property("live-source", 1)
        extra = Gst.ElementFactory.make("queue", "maybe")
    if sys.platform == "linux":
        sink = Gst.ElementFactory.make("fakesink", "fake")
    else:
        sink = Gst.ElementFactory.make("nveglglessink", "egl")
    sink.set_property("sync", 0)
    pgie = Gst.ElementFactory.make("nvinfer", "pgie")
    pgie.set_property("config-file-path", "pgie.txt")
    pgie.set_property("process-mode", 2)
    sinkpad = mux.get_request_pad("sink_0")
    decoder.get_static_pad("src").link(sinkpad)
    source.link(decoder)
    mux.link(pgie)
"#;

#[test]
fn python_binds_names_folds_constants_and_leaves_conditions_unknown() {
    let (_d, ws, g) = graph(&[("app.py", APP), ("pgie.txt", PGIE)]);
    assert_eq!(g.pipelines.len(), 1);
    let p = &g.pipelines[0];
    // Elements made under a condition are left out.
    let names: Vec<&str> = p.elements.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["src", "dec", "mux", "pgie"]);
    let mux = p.first(&Role::Streammux).unwrap();
    // A constant used once: its literal is the site.
    let width = mux.int("width").unwrap();
    let site = width.site().unwrap();
    assert_eq!(&ws.files[site.file].doc.text[site.spans.value()], "1280");
    // A constant used twice: known, but no site to edit.
    let batch = mux.int("batch-size").unwrap();
    assert_eq!(batch.value, 2);
    assert!(batch.site().is_none());
    assert!(
        matches!(value(p, &Role::Streammux, "batched-push-timeout"), Some(Value::Unknown(w)) if w == "`len(args)`")
    );
    assert!(
        matches!(value(p, &Role::Streammux, "live-source"), Some(Value::Unknown(w)) if w.starts_with("set under a condition"))
    );
    // process-mode 2 on the element wins: a secondary.
    assert!(p.first(&Role::Infer(Stage::Secondary)).is_some());
    assert_eq!(p.streams(), Some(1));
    let Some(Home::Python { template, .. }) = mux.home.as_deref() else {
        panic!("the mux's home")
    };
    assert_eq!(template, "    mux.set_property(\"{key}\", {value})\n");
}

#[test]
fn python_loops_count_pads_only_when_literal() {
    let app = |loop_head: &str| {
        format!(
            "from gi.repository import Gst\n\n\ndef main(uris):\n    mux = Gst.ElementFactory.make(\"nvstreammux\", \"m\")\n    {loop_head}\n        src = Gst.ElementFactory.make(\"nvurisrcbin\", \"s\")\n        pad = mux.request_pad_simple(\"sink_%u\" % i)\n"
        )
    };
    let (_d, _ws, g) = graph(&[("a.py", &app("for i in range(3):"))]);
    assert_eq!(g.pipelines[0].streams(), Some(3));
    let (_d, _ws, g) = graph(&[("a.py", &app("for i, u in enumerate(uris):"))]);
    // Not countable: the source is made under the loop, and no pad counts.
    assert_eq!(g.pipelines[0].streams(), None);
}

#[test]
fn parse_launch_strings_and_service_maker() {
    let app = "from gi.repository import Gst\nfrom pyservicemaker import Pipeline\n\nDESC = \"filesrc location=a ! h264parse ! nvv4l2decoder ! m.sink_0 \" \\\n    \"nvstreammux name=m batch-size=1 ! fakesink sync=0\"\n\n\ndef main():\n    p = Gst.parse_launch(DESC)\n    q = Pipeline(\"x\")\n    q.add(\"nvstreammux\", \"mux\", {\"batch-size\": 4}).add(\"nvinfer\", \"infer\", {\"batch-size\": 4})\n    q.link(\"mux\", \"infer\")\n";
    let (_d, _ws, g) = graph(&[("a.py", app)]);
    assert_eq!(g.pipelines.len(), 2);
    let sm = &g.pipelines[0];
    assert_eq!(roles(sm), ["mux:Streammux", "infer:Infer(Primary)"]);
    assert_eq!(sm.links.len(), 1);
    let launch = &g.pipelines[1];
    assert_eq!(launch.streams(), Some(1));
    assert_eq!(
        launch
            .first(&Role::Streammux)
            .unwrap()
            .int("batch-size")
            .map(|b| b.value),
        Some(1)
    );
}

/// The Python front end's work (`python::work_done`) on a module of `n`
/// pieces.
fn python_work(piece: &dyn Fn(usize) -> String, head: &str, n: usize) -> u64 {
    let mut text = String::from(head);
    for i in 0..n {
        text.push_str(&piece(i));
    }
    let before = crate::model::frontend::python::work_done();
    let (_d, _ws, g) = graph(&[("app.py", &text)]);
    assert!(!g.pipelines.is_empty(), "{head}");
    crate::model::frontend::python::work_done() - before
}

/// Work that grows with the square of a module's size (a scan of every
/// binding per statement, of every element per link, a copy of the
/// bindings per `if`) made an 8 MiB app take minutes: each shape of
/// module does no more than twice the work at twice the size.
#[test]
fn python_work_is_linear_in_the_module() {
    // What makes the module a DeepStream app (`detect::code_verdict`).
    const IMPORT: &str = "from gi.repository import Gst\nfrom pyservicemaker import Pipeline\n# nvstreammux\n";
    type Piece = Box<dyn Fn(usize) -> String>;
    let shapes: Vec<(&str, String, Piece)> = vec![
        (
            "one function of many elements",
            format!("{IMPORT}def main():\n    p = Gst.Pipeline()\n"),
            Box::new(|i| {
                format!(
                    "    q{i} = Gst.ElementFactory.make(\"queue\", \"q{i}\")\n    q{i}.set_property(\"leaky\", 2)\n    p.add(q{i})\n"
                )
            }),
        ),
        (
            "many functions",
            IMPORT.to_string(),
            Box::new(|i| {
                format!(
                    "def f{i}(a):\n    m = Gst.ElementFactory.make('nvstreammux', 'm')\n    m.set_property('batch-size', {i})\n    self.sink.set_property('sync', 0)\n"
                )
            }),
        ),
        (
            "many branches over many bindings",
            format!("{IMPORT}def main(a):\n    m = Gst.ElementFactory.make('nvstreammux', 'm')\n"),
            Box::new(|i| {
                format!(
                    "    self.e{i} = Gst.ElementFactory.make('queue', None)\n    if a:\n        x{i} = m\n        m.set_property('width', a)\n    else:\n        x{i} = self.e{i}\n    self.e{i} = None\n"
                )
            }),
        ),
        (
            "many pyservicemaker links",
            format!("{IMPORT}def main():\n    p = Pipeline('p')\n    p.add('nvstreammux', 'm', {{'batch-size': 2}})\n"),
            Box::new(|i| format!("    p.add('queue', 'q{i}', {{'leaky': 2}})\n    p.link('m', 'q{i}')\n")),
        ),
    ];
    for (what, head, piece) in &shapes {
        let small = python_work(piece.as_ref(), head, 500);
        let large = python_work(piece.as_ref(), head, 1000);
        assert!(
            small > 500 && large * 10 <= small * 21,
            "{what}: work {small} at 500 pieces, {large} at 1000"
        );
    }
}

/// The lines of a Python app around `body`: a file source into the mux,
/// the mux into a sink.
fn python_app(body: &str) -> String {
    format!(
        r#"import sys
from gi.repository import Gst


class App:
    pass


def main(args):
    app = App()
    source = Gst.ElementFactory.make("filesrc", "src")
    decoder = Gst.ElementFactory.make("nvv4l2decoder", "dec")
{body}    sinkpad = mux.get_request_pad("sink_0")
    decoder.get_static_pad("src").link(sinkpad)
    source.link(decoder)
    mux.link(sink)
"#
    )
}

#[test]
fn python_tuple_targets_unbind_the_names_they_bind_and_only_those() {
    // `app.mux, app.sink = mux, sink` binds two attributes: `mux` and
    // `sink` keep their elements (their sets are read), and what `app.mux`
    // held before is no longer what `app.mux` names.
    let body = "    app.mux = Gst.ElementFactory.make(\"nvstreammux\", \"old\")\n    \
                mux = Gst.ElementFactory.make(\"nvstreammux\", \"mux\")\n    \
                sink = Gst.ElementFactory.make(\"fakesink\", \"sink\")\n    \
                app.mux, app.sink = mux, sink\n    \
                app.mux.set_property(\"width\", 640)\n    \
                mux.set_property(\"batch-size\", 1)\n    \
                sink.set_property(\"sync\", 0)\n";
    let (_d, _ws, g) = graph(&[("app.py", &python_app(body))]);
    let p = &g.pipelines[0];
    let named = |n: &str| p.elements.iter().find(|e| e.name == n).unwrap();
    assert_eq!(named("mux").int("batch-size").map(|v| v.value), Some(1));
    assert_eq!(named("sink").int("sync").map(|v| v.value), Some(0));
    assert!(named("mux").prop("width").is_none());
    assert!(p.elements.iter().all(|e| e.prop("width").is_none()));
}

#[test]
fn python_names_rebound_by_global_or_nonlocal_are_not_constants() {
    // `nonlocal batch` in a nested function rebinds `main`'s `batch`
    // when it is called: assigned once in `main` is not a constant there.
    let nonlocal = "    batch = 4\n\n    \
                    def from_args():\n        \
                    nonlocal batch\n        \
                    batch = len(args)\n\n    \
                    from_args()\n    \
                    mux = Gst.ElementFactory.make(\"nvstreammux\", \"mux\")\n    \
                    mux.set_property(\"batch-size\", batch)\n    \
                    sink = Gst.ElementFactory.make(\"fakesink\", \"sink\")\n";
    // `global HEIGHT`: before its assignment here, `HEIGHT` is the
    // module's, which this function's assignment is not.
    let global = "    global HEIGHT\n    \
                  mux = Gst.ElementFactory.make(\"nvstreammux\", \"mux\")\n    \
                  mux.set_property(\"height\", HEIGHT)\n    \
                  HEIGHT = 720\n    \
                  sink = Gst.ElementFactory.make(\"fakesink\", \"sink\")\n";
    for (body, key) in [(nonlocal, "batch-size"), (global, "height")] {
        let (_d, _ws, g) = graph(&[("app.py", &python_app(body))]);
        let p = &g.pipelines[0];
        assert!(
            matches!(value(p, &Role::Streammux, key), Some(Value::Unknown(_))),
            "{key}: {:?}",
            value(p, &Role::Streammux, key)
        );
    }
}

#[test]
fn python_chained_assignment_binds_every_target() {
    // `mux = app.mux = make(…)`: one element, under both names.
    let body = "    mux = app.mux = Gst.ElementFactory.make(\"nvstreammux\", \"mux\")\n    \
                sink = Gst.ElementFactory.make(\"fakesink\", \"sink\")\n    \
                app.mux.set_property(\"batch-size\", 2)\n    \
                mux.set_property(\"width\", 640)\n";
    let (_d, _ws, g) = graph(&[("app.py", &python_app(body))]);
    let p = &g.pipelines[0];
    assert_eq!(p.all(&Role::Streammux).count(), 1, "{:?}", roles(p));
    let mux = p.first(&Role::Streammux).unwrap();
    assert_eq!(mux.int("batch-size").map(|v| v.value), Some(2));
    assert_eq!(mux.int("width").map(|v| v.value), Some(640));
}

#[test]
fn python_for_with_del_and_walrus_targets_are_rebound() {
    // Each `probeN` is a fakesink until the statement rebinds the name:
    // the `sync` set after it is not that element's.
    let body = "    mux = Gst.ElementFactory.make(\"nvstreammux\", \"mux\")\n    \
                sink = Gst.ElementFactory.make(\"fakesink\", \"sink\")\n    \
                probe1 = Gst.ElementFactory.make(\"fakesink\", \"probe1\")\n    \
                probe2 = Gst.ElementFactory.make(\"fakesink\", \"probe2\")\n    \
                probe3 = Gst.ElementFactory.make(\"fakesink\", \"probe3\")\n    \
                probe4 = Gst.ElementFactory.make(\"fakesink\", \"probe4\")\n    \
                for probe1, n in args:\n        pass\n    \
                with open(args[0]) as probe2:\n        pass\n    \
                del probe3\n    \
                if (probe4 := args[1]):\n        pass\n    \
                probe1.set_property(\"sync\", 0)\n    \
                probe2.set_property(\"sync\", 0)\n    \
                probe3.set_property(\"sync\", 0)\n    \
                probe4.set_property(\"sync\", 0)\n    \
                sink.set_property(\"sync\", 0)\n";
    let (_d, _ws, g) = graph(&[("app.py", &python_app(body))]);
    let p = &g.pipelines[0];
    let named = |n: &str| p.elements.iter().find(|e| e.name == n);
    assert_eq!(named("sink").and_then(|e| e.int("sync")).map(|v| v.value), Some(0));
    for probe in ["probe1", "probe2", "probe3", "probe4"] {
        let e = named(probe).unwrap_or_else(|| panic!("{probe} made: {:?}", roles(p)));
        assert!(e.prop("sync").is_none(), "{probe}");
    }
    // A name a walrus assigns too is not a constant.
    let body = "    height = 720\n    \
                if (height := len(args)) > 1:\n        pass\n    \
                mux = Gst.ElementFactory.make(\"nvstreammux\", \"mux\")\n    \
                mux.set_property(\"height\", height)\n    \
                sink = Gst.ElementFactory.make(\"fakesink\", \"sink\")\n";
    let (_d, _ws, g) = graph(&[("app.py", &python_app(body))]);
    let height = value(&g.pipelines[0], &Role::Streammux, "height");
    assert!(matches!(height, Some(Value::Unknown(_))), "{height:?}");
}

/// The Python front end's pipelines for `text` parsed in pieces of about
/// `piece` bytes, written out (spans and all), and how many pieces.
fn python_pipelines(text: &str, piece: usize) -> (String, usize) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("app.py"), text).unwrap();
    let mut ws = Workspace::load(&[dir.path().to_path_buf()]);
    let Some(file) = (0..ws.files.len()).find(|&i| ws.files[i].kind == Some(Kind::PythonApp)) else {
        return (String::new(), 0);
    };
    let src = ws.files[file].doc.text.clone();
    let parsed = crate::syntax::python::parse_by(&src, piece);
    let pieces = parsed.as_ref().map_or(0, |p| p.pieces());
    (format!("{:?}", python::build(&mut ws, file, parsed)), pieces)
}

/// What makes a module a DeepStream app (`detect::code_verdict`).
const PY_IMPORT: &str = "from gi.repository import Gst\n# nvstreammux\n";

/// Bits of Python apps, each whole lines.
const PY_SNIPPETS: &[&str] = &[
    "def main():\n",
    "async def serve(a,\n        b=2):  # c\n",
    "    q = Gst.ElementFactory.make('queue', 'q')\n",
    "    q.set_property('leaky', 2)\n",
    "    m = Gst.ElementFactory.make(\"nvstreammux\", \"m\")\n",
    "    m.set_property(\"batch-size\", N)\n",
    "    m.set_property('width', W)\n",
    "N = 4\n",
    "W = 1920\n",
    "    if x:\n        m.set_property('width', 1)\n    else:\n        m = None\n",
    "    for i in range(2):\n        m.get_request_pad('sink_%u' % i)\n",
    "    src = Gst.ElementFactory.make('uridecodebin', None)\n",
    "    src.link(m)\n    m.link(q)\n",
    "    s = '''\n    x = 1\n'''\n",
    "    t = f\"{a} {{\" + r'\\''\n",
    "    u = f'{x[\"k\"]}'\n",
    "@dec\n",
    "class A:\n    def run(self):\n        self.sink = Gst.ElementFactory.make('fakesink', 's')\n        self.sink.set_property('sync', 0)\n",
    "    self.sink.set_property('sync', 1)\n",
    "    # comment\n",
    "# top comment\n",
    "\n",
    "    p = Gst.parse_launch('nvstreammux name=m batch-size=2 ! fakesink')\n",
    "x = (1,\n2)\n",
    "    y = 1 + \\\n  2\n",
    "try:\n    pass\nexcept E:\n    pass\n",
    "    try:\n        k = Gst.ElementFactory.make('queue', 'k')\n    finally:\n        pass\n",
    "if __name__ == '__main__':\n    main()\n",
    "  z = 1\n",
    "\tz = 2\n",
    "    def inner():\n        pass\n",
    "    return m\n",
];

proptest::proptest! {
    /// A module read in pieces builds the pipelines the whole builds, to
    /// the byte (a module with a syntax error is read whole either way).
    #[test]
    fn python_pieces_build_what_the_whole_builds(
        parts in proptest::collection::vec(proptest::sample::select(PY_SNIPPETS), 0..24)
    ) {
        let text = format!("{PY_IMPORT}{}", parts.concat());
        let (whole, one) = python_pipelines(&text, usize::MAX);
        let (pieces, _) = python_pipelines(&text, 1);
        // 0: not an app.
        proptest::prop_assert!(one <= 1);
        proptest::prop_assert_eq!(whole, pieces, "{}", text);
    }
}

/// Units that keep a module valid after a function body: statements of
/// that body, top-level statements, new functions.
const PY_UNITS: &[&str] = &[
    "    q = Gst.ElementFactory.make('queue', 'q')\n",
    "    q.set_property('leaky', 2)\n",
    "    m = Gst.ElementFactory.make(\"nvstreammux\", \"m\")\n",
    "    m.set_property(\"batch-size\", N)\n",
    "    if x:\n        m.set_property('width', 1)\n    else:\n        m = None\n",
    "    for i in range(2):\n        m.get_request_pad('sink_%u' % i)\n",
    "    src.link(m)\n    m.link(q)\n",
    "    s = '''\n    x = 1\n'''\n",
    "    self.sink.set_property('sync', 1)\n",
    "    # comment\n",
    "# top comment\n",
    "    p = Gst.parse_launch('nvstreammux name=m batch-size=2 ! fakesink')\n",
    "    y = 1 + \\\n  2\n",
    "    def inner():\n        pass\n",
    "N = 4\n",
    "def g(a=1):\n    pass\n",
    "async def h(a,\n        b=2):  # c\n    k = Gst.ElementFactory.make('queue', 'k')\n",
    "@dec\ndef main():\n    self.sink = Gst.ElementFactory.make('fakesink', 's')\n",
    "class A:\n    def run(self):\n        pass\n",
];

proptest::proptest! {
    /// Mostly valid modules (so that most are read in pieces): a body,
    /// then units in any order.
    #[test]
    fn python_valid_pieces_build_what_the_whole_builds(
        parts in proptest::collection::vec(proptest::sample::select(PY_UNITS), 0..32)
    ) {
        let text = format!("{PY_IMPORT}def main():\n    pass\n{}", parts.concat());
        let (whole, _) = python_pipelines(&text, usize::MAX);
        let (pieces, _) = python_pipelines(&text, 1);
        proptest::prop_assert_eq!(whole, pieces, "{}", text);
    }
}

#[test]
fn a_long_python_module_is_read_in_pieces() {
    // Top-level code, two function bodies of every statement snippet (but
    // the f-string that stops the cuts), a method, decorators.
    let body: String = PY_SNIPPETS
        .iter()
        .filter(|s| s.starts_with("    ") && !s.starts_with("    u = f"))
        .copied()
        .collect();
    let text = format!(
        "{PY_IMPORT}N = 4\nW = 1920\nx = (1,\n2)\n@dec\ndef main():\n{body}{body}{}{}    pass\n{body}{}{}",
        // A class, `async def` with a header over two lines, a `try`, the
        // main guard.
        PY_SNIPPETS[17],
        PY_SNIPPETS[1],
        PY_SNIPPETS[25],
        PY_SNIPPETS[27]
    );
    let (whole, one) = python_pipelines(&text, usize::MAX);
    let (pieces, n) = python_pipelines(&text, 1);
    assert_eq!(one, 1);
    assert!(n >= 40, "{n} pieces\n{text}");
    assert_eq!(whole, pieces);
    assert!(whole.contains("nvstreammux"), "{whole}");
}
