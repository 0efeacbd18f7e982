//! dslint reads key-files the way GLib does: for every key-file in
//! testdata/ and ../shared/corpus, GLib's `GLib.KeyFile` (python3-gi) and
//! dslint agree on whether the file loads, and on every group, key and raw
//! value. Skipped where python3-gi is absent.

mod support;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use dslint::syntax::{Document, Format};
use support::*;

const PYTHON: &str = "/usr/bin/python3";

fn glib_available() -> bool {
    Command::new(PYTHON)
        .args([
            "-c",
            "import gi; gi.require_version('GLib', '2.0'); from gi.repository import GLib",
        ])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn oracle(paths: &[PathBuf]) -> serde_json::Value {
    let mut child = Command::new(PYTHON)
        .arg("tests/support/glib_oracle.py")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let list: String = paths.iter().map(|p| format!("{}\n", p.display())).collect();
    child.stdin.take().unwrap().write_all(list.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    serde_json::from_slice(&out.stdout).expect("oracle JSON")
}

fn keyfiles(root: &Path) -> Vec<PathBuf> {
    files_under(root)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .filter(|p| std::fs::read(p).is_ok_and(|b| String::from_utf8(b).is_ok_and(|t| !t.contains('\0'))))
        .collect()
}

fn dslint_view(path: &Path) -> (bool, BTreeMap<String, BTreeMap<String, String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = Document::parse(text, Format::KeyFile);
    let mut groups: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for g in &doc.groups {
        let keys = groups.entry(g.name.clone()).or_default();
        for e in g.entries.iter().filter(|e| !e.localized) {
            keys.insert(e.key.clone(), e.value.clone().unwrap_or_default());
        }
    }
    (doc.errors.is_empty(), groups)
}

fn compare(paths: Vec<PathBuf>) -> usize {
    let answers = oracle(&paths);
    let mut compared = 0;
    for p in &paths {
        let a = &answers[p.display().to_string()];
        let (ok, groups) = dslint_view(p);
        match a.get("error") {
            Some(err) => assert!(!ok, "{}: GLib refuses it ({err}) but dslint reads it", p.display()),
            None => {
                assert!(ok, "{}: GLib reads it but dslint reports a syntax error", p.display());
                let glib: BTreeMap<String, BTreeMap<String, String>> =
                    serde_json::from_value(a["groups"].clone()).unwrap();
                assert_eq!(glib, groups, "{}", p.display());
            }
        }
        compared += 1;
    }
    compared
}

#[test]
fn testdata_agrees_with_glib() {
    if !glib_available() {
        eprintln!("python3-gi absent: skipped");
        return;
    }
    assert!(compare(keyfiles(Path::new("testdata"))) > 50);
}

#[test]
fn corpus_agrees_with_glib() {
    if !glib_available() {
        eprintln!("python3-gi absent: skipped");
        return;
    }
    let Some(c) = corpus() else { return };
    assert!(compare(keyfiles(&c)) > 100);
}
