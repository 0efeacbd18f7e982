//! The code front ends (gst-launch lines in shell scripts, Python apps):
//! every description prints back from its parts, every site a fix may edit
//! is exactly its value's bytes, and fixes give exact bytes that still run:
//! a fixed script passes `bash -n`, a fixed module `python3 -m py_compile`.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use dslint::fix::engine::{self, FixOptions};
use dslint::model::detect::Kind;
use dslint::model::workspace::Workspace;
use dslint::rules::context::Profile;
use dslint::syntax::{launch, shell};
use support::*;

/// Every script under testdata: each gst-launch description prints back
/// from its parts, and maps back to the script's bytes.
#[test]
fn launch_descriptions_round_trip() {
    let mut read = 0;
    for path in files_under(Path::new("testdata")) {
        if path.extension().is_none_or(|e| e != "sh") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for l in shell::launches(&text) {
            let d = launch::parse(&l.mapped.text);
            assert_eq!(
                d.render(&l.mapped.text).as_deref(),
                Ok(l.mapped.text.as_str()),
                "{}",
                path.display()
            );
            for a in d.elements.iter().flat_map(|e| &e.assignments) {
                if let Some(span) = l.mapped.verbatim(&a.value_span, &text) {
                    assert_eq!(text[span].to_string(), a.value, "{}", path.display());
                }
            }
            read += 1;
        }
    }
    assert!(read >= 15, "only {read} descriptions read");
}

/// Every value site the code front ends give a fix is the value's bytes.
#[test]
fn sites_are_the_values_bytes() {
    let mut sites = 0;
    for dir in rule_cases() {
        let mut ws = Workspace::load(std::slice::from_ref(&dir));
        let graph = dslint::model::frontend::build(&mut ws);
        for p in &graph.pipelines {
            if !matches!(ws.files[p.root].kind, Some(Kind::LaunchScript | Kind::PythonApp)) {
                continue;
            }
            for prop in p.elements.iter().flat_map(|e| &e.props) {
                for s in &prop.settings {
                    let (Some(site), dslint::model::graph::Value::Known(v)) = (&s.site, &s.value) else {
                        continue;
                    };
                    let text = &ws.files[site.file].doc.text[site.spans.value()];
                    // A Python `True` reads as `true`.
                    assert!(
                        text == v || text.eq_ignore_ascii_case(v) || text.replace('_', "") == *v,
                        "{}: {} site {text:?} for value {v:?}",
                        dir.display(),
                        prop.name
                    );
                    sites += 1;
                }
            }
        }
    }
    assert!(sites >= 40, "only {sites} sites");
}

/// Fix the files in a fresh folder; return the fixed texts by name.
fn fix(files: &[(&str, &str)], profile: Profile) -> (tempfile::TempDir, Vec<(String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let opts = FixOptions {
        facts: None,
        profile,
        unsafe_fixes: false,
        selection: Default::default(),
        root: None,
        fix_related: false,
    };
    let o = engine::run(&[dir.path().to_path_buf()], &opts);
    let mut out = Vec::new();
    for (name, text) in files {
        let path = dir.path().join(name);
        let fixed = o.changed.get(&path).map_or(text.to_string(), |(_, new)| new.clone());
        std::fs::write(&path, &fixed).unwrap();
        out.push((name.to_string(), fixed));
    }
    (dir, out)
}

fn runs(program: &str, args: &[&str], file: &PathBuf) {
    let out = Command::new(program)
        .args(args)
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn script_fixes_edit_the_values_bytes_and_keep_the_script_valid() {
    let script = "#!/bin/bash\n\
URI=${1:-rtsp://192.0.2.1/stream}\n\
gst-launch-1.0 -e uridecodebin uri=rtsp://192.0.2.1/cam ! m.sink_0 \\\n  \
nvstreammux name=m batch-size=2 batched-push-timeout=\"4000000\" \\\n  \
! queue ! nvinfer batch_size=1 \\\n  \
! fakesink sync=true\n";
    let (dir, out) = fix(&[("run.sh", script)], Profile::Bench);
    assert_eq!(
        out[0].1,
        "#!/bin/bash\n\
URI=${1:-rtsp://192.0.2.1/stream}\n\
gst-launch-1.0 -e uridecodebin uri=rtsp://192.0.2.1/cam ! m.sink_0 \\\n  \
nvstreammux name=m batch-size=1 batched-push-timeout=\"33333\" live-source=1 \\\n  \
! queue max-size-buffers=4 max-size-bytes=0 max-size-time=0 ! nvinfer batch_size=1 \\\n  \
! fakesink sync=false\n"
    );
    runs("bash", &["-n"], &dir.path().join("run.sh"));
}

#[test]
fn python_fixes_edit_literals_and_keep_the_module_valid() {
    let app = "#!/usr/bin/env python3\n\
import sys\n\
from gi.repository import Gst\n\
\n\
MUXER_BATCH_TIMEOUT_USEC = 4_000_000\n\
\n\
\n\
def main(args):\n    \
source = Gst.ElementFactory.make('rtspsrc', 'camera')\n    \
source.set_property('location', 'rtsp://192.0.2.1/cam')\n    \
depay = Gst.ElementFactory.make('rtph264depay', 'depay')\n    \
decoder = Gst.ElementFactory.make('nvv4l2decoder', 'decoder')\n    \
streammux = Gst.ElementFactory.make('nvstreammux', 'mux')\n    \
streammux.set_property('batch-size', len(args))\n    \
streammux.set_property('batched-push-timeout', MUXER_BATCH_TIMEOUT_USEC)\n    \
if not streammux:\n        \
sys.exit(1)\n    \
pgie = Gst.ElementFactory.make('nvinfer', 'pgie')\n    \
pgie.set_property('batch-size', len(args))\n    \
sink = Gst.ElementFactory.make('fakesink', 'sink')\n    \
sink.set_property('sync', True)\n    \
depay.link(decoder)\n    \
decoder.get_static_pad('src').link(streammux.get_request_pad('sink_0'))\n    \
streammux.link(pgie)\n    \
pgie.link(sink)\n";
    let (dir, out) = fix(&[("app.py", app)], Profile::Bench);
    assert_eq!(
        out[0].1,
        "#!/usr/bin/env python3\n\
import sys\n\
from gi.repository import Gst\n\
\n\
MUXER_BATCH_TIMEOUT_USEC = 33333\n\
\n\
\n\
def main(args):\n    \
source = Gst.ElementFactory.make('rtspsrc', 'camera')\n    \
source.set_property('location', 'rtsp://192.0.2.1/cam')\n    \
depay = Gst.ElementFactory.make('rtph264depay', 'depay')\n    \
decoder = Gst.ElementFactory.make('nvv4l2decoder', 'decoder')\n    \
streammux = Gst.ElementFactory.make('nvstreammux', 'mux')\n    \
streammux.set_property('batch-size', len(args))\n    \
streammux.set_property('batched-push-timeout', MUXER_BATCH_TIMEOUT_USEC)\n    \
streammux.set_property('live-source', 1)\n    \
if not streammux:\n        \
sys.exit(1)\n    \
pgie = Gst.ElementFactory.make('nvinfer', 'pgie')\n    \
pgie.set_property('batch-size', len(args))\n    \
sink = Gst.ElementFactory.make('fakesink', 'sink')\n    \
sink.set_property('sync', False)\n    \
depay.link(decoder)\n    \
decoder.get_static_pad('src').link(streammux.get_request_pad('sink_0'))\n    \
streammux.link(pgie)\n    \
pgie.link(sink)\n"
    );
    runs("python3", &["-m", "py_compile"], &dir.path().join("app.py"));
}

/// The README's excerpt for code is what `dslint check` prints.
#[test]
fn readme_code_excerpt_is_what_dslint_prints() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let fence = "An excerpt of `dslint check testdata/code-examples`:\n\n```text\n";
    let start = readme.find(fence).expect("the README's code excerpt") + fence.len();
    let excerpt = &readme[start..start + readme[start..].find("```").unwrap()];
    let out = Command::new(env!("CARGO_BIN_EXE_dslint"))
        .args(["check", "testdata/code-examples"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = String::from_utf8(out.stdout).unwrap();
    for para in excerpt.split("\n\n") {
        assert!(out.contains(para.trim_end()), "README paragraph not printed:\n{para}");
    }
    assert!(excerpt.contains(".sh:") && excerpt.contains(".py:"));
}

/// Python refuses a module nested 100 indentation levels deep; dslint then
/// reports it (DS001) and does not hand it to tree-sitter-python, whose
/// scanner aborts the process a few hundred levels on.
#[test]
fn indentation_limit_is_pythons() {
    let dir = tempfile::tempdir().unwrap();
    for (levels, python_accepts) in [(99, true), (100, false)] {
        let text: String = (0..levels)
            .map(|i| format!("{}if x:\n", " ".repeat(i)))
            .collect::<String>()
            + &" ".repeat(levels)
            + "pass\n";
        let path = dir.path().join(format!("nest{levels}.py"));
        std::fs::write(&path, &text).unwrap();
        let out = Command::new("python3")
            .args(["-m", "py_compile"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.success(), python_accepts, "python3 on {levels} levels");
        let err = dslint::syntax::python::too_deep(&text);
        assert_eq!(err.is_none(), python_accepts, "{levels} levels: {err:?}");
        if let Some(e) = err {
            // The first line at level 100: the innermost `pass`.
            assert_eq!(&text[e.span], " ".repeat(100) + "pass");
        }
    }
}

/// The files under testdata and the shared corpus named `*.{ext}`.
fn test_files(ext: &str) -> Vec<PathBuf> {
    let mut roots = vec![PathBuf::from("testdata")];
    roots.extend(corpus());
    roots
        .iter()
        .flat_map(|r| files_under(r))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect()
}

/// Every script under testdata and the shared corpus reads the same in
/// pieces (cut at its top level, each parsed apart) as whole.
#[test]
fn scripts_read_the_same_in_pieces() {
    let (mut scripts, mut in_pieces) = (0, 0);
    for path in test_files("sh") {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        scripts += 1;
        if !dslint::syntax::shell_cuts::cuts(&text).is_empty() {
            in_pieces += 1;
        }
        assert_eq!(
            format!("{:?}", shell::launches_by(&text, 1)),
            format!("{:?}", shell::launches_by(&text, usize::MAX)),
            "{}",
            path.display()
        );
    }
    assert!(scripts >= 20 && in_pieces >= 15, "{scripts} scripts, {in_pieces} cut");
}

/// The pipelines the Python front end builds from the module at `path`
/// parsed in pieces of about `piece` bytes, written out (spans and all),
/// how many pieces and how many plain lines (read without tree-sitter);
/// `None` when it is not a Python app.
fn python_pipelines(path: &Path, piece: usize) -> Option<(String, usize, usize)> {
    let mut ws = Workspace::load(&[path.to_path_buf()]);
    let file = (0..ws.files.len()).find(|&i| ws.files[i].kind == Some(Kind::PythonApp))?;
    let src = ws.files[file].doc.text.clone();
    let parsed = dslint::syntax::python::parse_by(&src, piece);
    let pieces = parsed.as_ref().map_or(0, |p| p.pieces());
    let plain = parsed.as_ref().map_or(0, |p| p.plain_lines());
    let pipelines = dslint::model::frontend::python::build(&mut ws, file, parsed);
    Some((format!("{pipelines:?}"), pieces, plain))
}

/// Every Python app under testdata and the shared corpus builds the same
/// pipelines (the same findings, at the same bytes) from its pieces, cut
/// at its statements and each parsed apart, as from the whole module.
#[test]
fn python_apps_read_the_same_in_pieces() {
    let (mut apps, mut in_pieces, mut plain) = (0, 0, 0);
    for path in test_files("py") {
        let Some((whole, one, none)) = python_pipelines(&path, usize::MAX) else {
            continue;
        };
        let (pieces, n, p) = python_pipelines(&path, 1).unwrap();
        apps += 1;
        assert_eq!((one, none), (1, 0), "{}", path.display());
        if n > 1 {
            in_pieces += 1;
        }
        plain += p;
        assert_eq!(pieces, whole, "{}", path.display());
    }
    // Many statements of the apps are plain lines (398 at 0aa7cf7+).
    assert!(
        apps >= 20 && in_pieces >= 15 && plain >= 300,
        "{apps} apps, {in_pieces} cut, {plain} plain lines"
    );
}
