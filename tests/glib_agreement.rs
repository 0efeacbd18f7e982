//! dslint reads key-files the way GLib does: for every key-file in
//! testdata/ and ../shared/corpus, GLib's `GLib.KeyFile` (python3-gi) and
//! dslint agree on whether the file loads, and on every group, key and raw
//! value. Where python3-gi is absent these fail under CI and skip (saying so)
//! on a developer's machine.

mod support;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use dslint::syntax::{Document, Format};
use support::*;

/// group → key → raw value, as GLib reads them.
type Groups = BTreeMap<String, BTreeMap<String, String>>;

const PYTHON: &str = "/usr/bin/python3";

/// python3-gi for /usr/bin/python3 (required under CI: see `required`).
fn glib_available() -> bool {
    let present = Command::new(PYTHON)
        .args([
            "-c",
            "import gi; gi.require_version('GLib', '2.0'); from gi.repository import GLib",
        ])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    required("python3-gi (for /usr/bin/python3)", present)
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
        let keys = groups.entry(g.name.to_string()).or_default();
        for e in g.entries.iter().filter(|e| !e.localized) {
            keys.insert(e.key.to_string(), e.value.as_deref().unwrap_or_default().to_string());
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
        return;
    }
    assert!(compare(keyfiles(Path::new("testdata"))) > 50);
}

#[test]
fn corpus_agrees_with_glib() {
    if !glib_available() {
        return;
    }
    let Some(c) = corpus() else { return };
    assert!(compare(keyfiles(&c)) > 100);
}

/// After `fix`, GLib reads the same value for every key whose line the fix
/// did not touch (over every fixable rule case, unsafe fixes included).
#[test]
fn fixes_leave_untouched_keys_as_glib_reads_them() {
    if !glib_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut pairs = Vec::new();
    for dir in rule_cases() {
        let (profile, facts) = case_settings(&dir);
        let opts = dslint::fix::engine::FixOptions {
            facts: facts.as_ref(),
            profile,
            unsafe_fixes: true,
            selection: Default::default(),
            root: None,
            fix_related: false,
        };
        let o = dslint::fix::engine::run(std::slice::from_ref(&dir), &opts);
        for (path, (old, new)) in o.changed {
            if path.extension().is_none_or(|e| e != "txt") {
                continue;
            }
            let n = pairs.len();
            let (a, b) = (
                tmp.path().join(format!("{n}a.txt")),
                tmp.path().join(format!("{n}b.txt")),
            );
            std::fs::write(&a, &old).unwrap();
            std::fs::write(&b, &new).unwrap();
            pairs.push((path, a, b, old, new));
        }
    }
    assert!(pairs.len() > 20, "only {} fixed key-files", pairs.len());
    let all: Vec<PathBuf> = pairs
        .iter()
        .flat_map(|(_, a, b, _, _)| [a.clone(), b.clone()])
        .collect();
    let answers = oracle(&all);
    for (path, a, b, old, new) in &pairs {
        let ga = &answers[a.display().to_string()];
        let gb = &answers[b.display().to_string()];
        if ga.get("error").is_some() {
            continue; // DS001 cases: GLib refused the original.
        }
        assert!(
            gb.get("error").is_none(),
            "{}: GLib refuses the fixed file: {}",
            path.display(),
            gb["error"]
        );
        // Lines the fix added (as a multiset: a line may repeat elsewhere).
        let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
        for l in old.lines() {
            *counts.entry(l).or_default() -= 1;
        }
        for l in new.lines() {
            *counts.entry(l).or_default() += 1;
        }
        let edited: Vec<&str> = counts
            .iter()
            .filter(|(_, n)| **n > 0)
            .filter_map(|(l, _)| l.split('=').next())
            .map(str::trim)
            .collect();
        let (before, after): (Groups, Groups) = (
            serde_json::from_value(ga["groups"].clone()).unwrap(),
            serde_json::from_value(gb["groups"].clone()).unwrap(),
        );
        for (g, keys) in &before {
            for (k, v) in keys {
                if edited.contains(&k.as_str()) {
                    continue;
                }
                assert_eq!(
                    after.get(g).and_then(|m| m.get(k)),
                    Some(v),
                    "{}: [{g}] {k} changed",
                    path.display()
                );
            }
        }
    }
}

/// Bytes that are not UTF-8 only in comment lines: GLib loads the file
/// (`g_key_file_parse_line` skips comments before any UTF-8 check), so dslint
/// lints it (no DS005), reads the same values, and never rewrites it.
#[test]
fn invalid_utf8_in_comments_is_read_like_glib() {
    if !glib_available() {
        eprintln!("python3-gi absent: skipped");
        return;
    }
    let dir = Path::new("testdata/rules/DS005/clean-invalid-utf8-in-comment");
    let pgie = dir.join("pgie.txt");
    assert!(std::str::from_utf8(&std::fs::read(&pgie).unwrap()).is_err());
    let answers = oracle(std::slice::from_ref(&pgie));
    let glib: Groups = serde_json::from_value(answers[pgie.display().to_string()]["groups"].clone()).unwrap();
    let ws = dslint::model::workspace::Workspace::load(std::slice::from_ref(&pgie));
    assert!(ws.file_problems.is_empty(), "{:?}", ws.file_problems);
    let f = &ws.files[0];
    assert!(f.lossy && !f.refused);
    assert_eq!(f.kind, Some(dslint::model::detect::Kind::NvInfer));
    let mut ours: Groups = BTreeMap::new();
    for g in &f.doc.groups {
        for e in &g.entries {
            ours.entry(g.name.to_string())
                .or_default()
                .insert(e.key.to_string(), e.value.as_deref().unwrap_or_default().to_string());
        }
    }
    assert_eq!(glib, ours);
    // A finding's fix would rewrite the comment bytes: it is withheld.
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("pgie.txt");
    let mut bytes = std::fs::read(&pgie).unwrap();
    bytes.extend_from_slice(b"[class-attrs-1]\nborder-color=1;0;0;1 # red\n");
    std::fs::write(&copy, &bytes).unwrap();
    let mut ws = dslint::model::workspace::Workspace::load(std::slice::from_ref(&copy));
    let r = dslint::rules::check(&mut ws, None, dslint::rules::context::Profile::Display);
    let ds003: Vec<_> = r.diagnostics.iter().filter(|d| d.code() == "DS003").collect();
    assert_eq!(ds003.len(), 1);
    assert!(ds003[0].fix.is_none());
}

/// The DS001 and DS003 comment fixes give files GLib loads, with the values
/// the comments hid.
#[test]
fn comment_fixes_give_files_glib_reads() {
    if !glib_available() {
        eprintln!("python3-gi absent: skipped");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut fixed = Vec::new();
    for case in ["DS001/fires-group-header-comment", "DS003/fires-trailing-comment"] {
        let dir = Path::new("testdata/rules").join(case);
        let opts = dslint::fix::engine::FixOptions {
            facts: None,
            profile: dslint::rules::context::Profile::Display,
            unsafe_fixes: false,
            selection: Default::default(),
            root: None,
            fix_related: false,
        };
        let o = dslint::fix::engine::run(std::slice::from_ref(&dir), &opts);
        let (_, new) = &o.changed[&dir.join("pgie.txt")];
        let p = tmp.path().join(format!("{}.txt", case.replace('/', "_")));
        std::fs::write(&p, new).unwrap();
        fixed.push(p);
    }
    let answers = oracle(&fixed);
    let groups = |p: &PathBuf| -> Groups {
        let a = &answers[p.display().to_string()];
        assert!(a.get("error").is_none(), "{}: {}", p.display(), a["error"]);
        serde_json::from_value(a["groups"].clone()).unwrap()
    };
    let header = groups(&fixed[0]);
    assert_eq!(header["class-attrs-all"]["pre-cluster-threshold"], "0.2");
    assert_eq!(header["class-attrs-0"]["pre-cluster-threshold"], "0.4");
    let number = groups(&fixed[1]);
    assert_eq!(number["property"]["net-scale-factor"], "0.0039215697906911373");
    assert_eq!(number["class-attrs-0"]["border-color"], "1;0;0;1");
}
