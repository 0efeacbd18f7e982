//! `dslint fix`: the diff of every fixable case is a snapshot; fixing
//! converges (no safe fix left, a second run changes nothing); bytes outside
//! the edits never move; writes are atomic and careful.

mod support;

use std::path::{Path, PathBuf};

use dslint::base::edit::Applicability;
use dslint::fix::diff;
use dslint::fix::engine::{self, FixOptions};
use support::*;

fn fix_case(dir: &Path, unsafe_fixes: bool) -> engine::FixOutcome {
    fix_case_with(dir, unsafe_fixes, engine::run)
}

/// A case fixed by one of the engine's entry points.
fn fix_case_with(
    dir: &Path,
    unsafe_fixes: bool,
    run: fn(&[PathBuf], &FixOptions) -> engine::FixOutcome,
) -> engine::FixOutcome {
    let (profile, facts) = case_settings(dir);
    let opts = FixOptions {
        facts: facts.as_ref(),
        profile,
        unsafe_fixes,
        selection: case_options(dir),
        root: None,
        fix_related: false,
    };
    run(&[dir.to_path_buf()], &opts)
}

/// Options of a run over a tree that is not a rule case: no facts, no
/// selection, the display profile.
fn plain_options(unsafe_fixes: bool) -> FixOptions<'static> {
    FixOptions {
        facts: None,
        profile: dslint::rules::context::Profile::Display,
        unsafe_fixes,
        selection: Default::default(),
        root: None,
        fix_related: false,
    }
}

/// A 400-file tree from bench/gen_tree.py with `seed` (apps sharing
/// primaries across folders, key-file and YAML, mistakes of many codes),
/// and the folder holding it.
fn generated_tree(seed: u32) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().join("tree");
    let made = std::process::Command::new("python3")
        .args(["bench/gen_tree.py", top.to_str().unwrap(), "400", &seed.to_string()])
        .output()
        .expect("python3 runs bench/gen_tree.py");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    (tmp, top)
}

fn render_diffs(o: &engine::FixOutcome) -> String {
    o.changed
        .iter()
        .map(|(p, (a, b))| diff::unified(p, a, b, false))
        .collect()
}

/// A fix that edits one file in several places (DS001's two header
/// comments moved: four edits to pgie.txt) names the file once in the
/// log's record of what it edits (`AppliedFix::edits`, which
/// `keep_written` reads), as `changed` names it.
#[test]
fn a_fix_names_each_file_it_edits_once() {
    let o = fix_case(Path::new("testdata/rules/DS001/fires-group-header-comment"), false);
    let pgie = Path::new("testdata/rules/DS001/fires-group-header-comment/pgie.txt");
    assert!(o.changed.contains_key(pgie), "{:?}", o.changed.keys());
    let ds001: Vec<&Vec<PathBuf>> = o.log.iter().filter(|f| f.code == "DS001").map(|f| &f.edits).collect();
    assert_eq!(ds001, [&vec![pgie.to_path_buf()]]);
}

#[test]
fn fix_diffs_and_convergence_for_every_case() {
    // Which cases a fix changes, and which files: a case whose fix stops
    // changing anything would otherwise just lose its diff snapshot unseen.
    let mut changed = Vec::new();
    for dir in rule_cases() {
        let code = dir.parent().unwrap().file_name().unwrap().to_string_lossy().to_string();
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let o = fix_case(&dir, true);
        // Convergence: nothing a fix could still change is left, but the
        // fixes dropped because a finding appeared after them.
        let dropped = |d: &dslint::base::diagnostic::Diagnostic| {
            o.dropped
                .iter()
                .any(|x| x.code == d.code() && d.fix.as_ref().is_some_and(|f| f.title == x.title))
        };
        let left: Vec<_> = o
            .remaining
            .iter()
            .filter(|d| d.fix.is_some() && !dropped(d))
            .map(|d| d.code())
            .collect();
        assert!(left.is_empty(), "{}: fixes left after fixing: {left:?}", dir.display());
        assert!(o.passes < engine::MAX_PASSES, "{}: did not converge", dir.display());
        if !o.changed.is_empty() {
            insta::assert_snapshot!(format!("{code}_{name}"), render_diffs(&o));
            let files: Vec<String> = o
                .changed
                .keys()
                .map(|p| p.strip_prefix(&dir).unwrap_or(p).display().to_string())
                .collect();
            changed.push(format!("{code}/{name}: {}", files.join(", ")));
        }
    }
    insta::assert_snapshot!("cases_a_fix_changes", changed.join("\n"));
}

#[test]
fn only_edited_bytes_change() {
    // Every changed file keeps its line ending style, BOM state (unless the
    // fix is DS001's) and every line no fix touched.
    for dir in rule_cases() {
        let o = fix_case(&dir, true);
        for (path, (old, new)) in &o.changed {
            let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
            let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
            let common_prefix = old_lines.iter().zip(&new_lines).take_while(|(a, b)| a == b).count();
            let common_suffix = old_lines
                .iter()
                .rev()
                .zip(new_lines.iter().rev())
                .take_while(|(a, b)| a == b)
                .count();
            assert!(
                common_prefix > 0 || path.to_string_lossy().contains("DS001"),
                "{}: first line changed",
                path.display()
            );
            assert!(common_prefix + common_suffix <= old_lines.len().max(new_lines.len()) + 1);
            assert_eq!(old.contains("\r\n"), new.contains("\r\n"), "{}", path.display());
        }
    }
}

fn copy_tree(from: &Path, to: &Path) {
    for f in files_under(from) {
        let rel = f.strip_prefix(from).unwrap();
        let dst = to.join(rel);
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        std::fs::copy(&f, &dst).unwrap();
    }
}

#[test]
fn end_to_end_check_fix_write_check() {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(Path::new("testdata/examples"), tmp.path());
    // The 4-camera pipeline's two files (the facts describe its workload):
    // both named, so the findings and fixes of both are in scope.
    let app_path = tmp.path().join("deepstream_app_4cam.txt");
    let pgie_path = tmp.path().join("config_infer_primary.txt");
    let (app_arg, pgie_arg) = (app_path.to_str().unwrap(), pgie_path.to_str().unwrap());
    let facts = Path::new("testdata/facts/example_h200.json").canonicalize().unwrap();
    let facts = facts.to_str().unwrap();
    let dslint = |args: &[&str]| dslint(&[&args[..1], &[app_arg, pgie_arg], &args[1..]].concat());
    let (rc, out, _) = dslint(&["check", "--facts", facts]);
    assert_eq!(rc, 1);
    for code in ["DS701", "DS006"] {
        assert!(out.contains(&format!("[{code}]")), "{code} missing:\n{out}");
    }
    // A streammux of batch 1 never waits on its push timeout: no DS103
    // until DS701's fix makes the batch 4 (below, a later pass fixes it).
    assert!(!out.contains("[DS103]"), "{out}");
    // DS101 and DS702 judge the same `batch-size` value: notes of DS701.
    assert!(!out.contains("[DS101]") && !out.contains("[DS702]"), "{out}");
    assert!(out.contains("; note: DS101 streammux batch-size is 1"), "{out}");
    // Preview: a diff, exit 1, nothing written.
    let before = std::fs::read_to_string(tmp.path().join("deepstream_app_4cam.txt")).unwrap();
    let (rc, diff_out, _) = dslint(&["fix", "--facts", facts]);
    assert_eq!(rc, 1);
    // The config runs 4 cameras; the facts' n_streams 8 does not override
    // a count the config gives (Precision 8): min(plateau 8, 4 streams).
    assert!(diff_out.contains("+batch-size=4"), "{diff_out}");
    assert_eq!(
        before,
        std::fs::read_to_string(tmp.path().join("deepstream_app_4cam.txt")).unwrap()
    );
    // Apply, keeping permissions.
    let (rc, _, err) = dslint(&["fix", "--facts", facts, "--write"]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("fixed"), "{err}");
    let (rc, out, _) = dslint(&["check", "--facts", facts, "--format", "json"]);
    let left: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    for d in &left {
        assert!(
            d["fix"].is_null() || d["fix"]["applicability"] == "unsafe",
            "safe fix left: {d}"
        );
        assert!(
            !["DS101", "DS701", "DS006", "DS103", "DS201", "DS207"].contains(&d["code"].as_str().unwrap()),
            "{d}"
        );
    }
    // Exit 1 exactly when a finding at warning or above is left.
    let warned = left.iter().any(|d| d["severity"] != "info");
    assert_eq!(rc, i32::from(warned), "{out}");
    // Both files got the one derived batch (DS701 resolved across files).
    let app = std::fs::read_to_string(tmp.path().join("deepstream_app_4cam.txt")).unwrap();
    let pgie = std::fs::read_to_string(tmp.path().join("config_infer_primary.txt")).unwrap();
    assert!(app.contains("\nbatch-size=4\n"), "{app}");
    assert!(!app.contains("batched-push-timeout=40000"), "{app}");
    assert!(pgie.contains("\nbatch-size=4\n"), "{pgie}");
    // A second fix changes nothing.
    let (rc, out, err) = dslint(&["fix", "--facts", facts]);
    assert_eq!((rc, out.as_str()), (0, ""), "{err}");
}

#[test]
fn bench_variant_leaves_the_display_config_alone() {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(Path::new("testdata/examples"), tmp.path());
    let dir = tmp.path().to_str().unwrap();
    let original = std::fs::read_to_string(tmp.path().join("deepstream_app_4cam.txt")).unwrap();
    let (rc, _, err) = dslint(&["fix", dir, "--variant", "bench", "--write"]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(
        original,
        std::fs::read_to_string(tmp.path().join("deepstream_app_4cam.txt")).unwrap()
    );
    let bench = std::fs::read_to_string(tmp.path().join("deepstream_app_4cam.bench.txt")).unwrap();
    let d = diff::unified(Path::new("deepstream_app_4cam.txt"), &original, &bench, false);
    insta::assert_snapshot!("bench_variant_4cam", d);
    // The variant is clean for the bench profile's output rules.
    let (_, out, _) = dslint(&[
        "check",
        tmp.path().join("deepstream_app_4cam.bench.txt").to_str().unwrap(),
        "--profile",
        "bench",
        "--select",
        "DS6,DS303",
    ]);
    assert!(out.contains("All checks passed"), "{out}");
}

#[test]
fn refuses_files_changed_since_read_and_links_out_of_the_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("a.txt");
    std::fs::write(&f, "[streammux]\nbatch-size=1\n").unwrap();
    let root = dslint::files::root::ProjectRoot::at(tmp.path()).unwrap();
    let write =
        |p: &Path, old: &str, new: &str| dslint::files::write::replace_file(&root, p, old.as_bytes(), new.as_bytes());
    let e = write(&f, "[streammux]\nbatch-size=2\n", "x").unwrap_err();
    assert!(e.contains("changed since it was read"), "{e}");
    // A link to a file outside the tree is not written through.
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("t.txt");
    std::fs::write(&target, "[streammux]\nbatch-size=1\n").unwrap();
    let link = tmp.path().join("link.txt");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let e = write(&link, "[streammux]\nbatch-size=1\n", "y").unwrap_err();
    assert!(e.contains("outside the project root"), "{e}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "[streammux]\nbatch-size=1\n");
    // Permissions survive a write.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
    write(&f, "[streammux]\nbatch-size=1\n", "[streammux]\nbatch-size=2\n").unwrap();
    assert_eq!(std::fs::metadata(&f).unwrap().permissions().mode() & 0o777, 0o640);
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "[streammux]\nbatch-size=2\n");
}

#[test]
fn corpus_fix_is_idempotent_and_keeps_files_parsing() {
    let Some(corpus) = corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&corpus, tmp.path());
    let dir = tmp.path().to_str().unwrap();
    let (rc, _, err) = dslint(&["fix", dir, "--write", "--unsafe-fixes"]);
    assert!(rc == 0, "{err}");
    let (rc, out, err) = dslint(&["fix", dir, "--unsafe-fixes"]);
    assert_eq!((rc, out.as_str()), (0, ""), "second fix changed something: {err}");
    // No file that parsed before fails to parse after.
    for f in files_under(&corpus) {
        let rel = f.strip_prefix(&corpus).unwrap();
        let (Ok(a), Ok(b)) = (
            std::fs::read_to_string(&f),
            std::fs::read_to_string(tmp.path().join(rel)),
        ) else {
            continue;
        };
        let Some(format) = dslint::model::detect::format_for(&f, &a) else {
            continue;
        };
        let before = dslint::syntax::Document::parse(a, format).errors.len();
        let after = dslint::syntax::Document::parse(b, format).errors.len();
        assert!(after <= before, "{}: {before} -> {after} syntax errors", rel.display());
    }
}

#[test]
fn unsafe_fixes_need_the_flag() {
    let dir = PathBuf::from("testdata/rules/DS202/fires");
    let o = fix_case(&dir, false);
    assert!(o.changed.is_empty());
    assert_eq!(o.unsafe_left.get("DS202"), Some(&1));
    assert!(
        o.remaining
            .iter()
            .any(|d| d.code() == "DS202" && d.fix.as_ref().unwrap().applicability == Applicability::Unsafe)
    );
}

/// Two apps that load one primary config with different batch sizes
/// (streammux 2 and 4, the primary's batch-size 1). Each app's DS701 is at
/// its own streammux line, so they are not copies of one finding, but each
/// fix would set the one shared `batch-size` line to its app's value and
/// undo the other's (before, `fix` flipped the file 1 → 2 → 4 → 2 until its
/// cycle guard put it back and named it). They are one finding expecting
/// either, naming the other app, with no fix; so is the primary's DS201.
#[test]
fn two_apps_sharing_a_primary_get_one_batch_finding_and_no_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("dslint.toml"), "").unwrap();
    let app = |batch: u32| {
        format!(
            "[source0]\nenable=1\ntype=3\nuri=file://video.mp4\nnum-sources={batch}\n\n[streammux]\nbatch-size={batch}\nwidth=960\nheight=544\n\n[primary-gie]\nenable=1\nconfig-file=pgie.txt\n\n[sink0]\nenable=1\ntype=1\nsync=0\n"
        )
    };
    std::fs::write(d.join("app_a.txt"), app(2)).unwrap();
    std::fs::write(d.join("app_b.txt"), app(4)).unwrap();
    std::fs::write(
        d.join("pgie.txt"),
        "[property]\nonnx-file=model.onnx\nbatch-size=1\nnetwork-mode=2\ngie-unique-id=1\nprocess-mode=1\nnetwork-type=0\n",
    )
    .unwrap();
    std::fs::write(d.join("model.onnx"), "").unwrap();
    std::fs::write(d.join("video.mp4"), "").unwrap();
    // `check` judges the primary's batch-size in each app: 2 in one, 4 in
    // the other. One finding, expecting either, each app's reason, no fix.
    let checked = check_dir(d);
    let ds201: Vec<_> = checked
        .diagnostics
        .iter()
        .filter(|d| d.code() == "DS201")
        .map(|d| (d.expected.as_deref(), d.why.as_deref(), d.fix.is_some()))
        .collect();
    let why = |n: u32| {
        format!(
            "final_batch = min(n_streams {n}, 16); n_streams from enabled sources in the config: the engine runs one batch per streammux batch"
        )
    };
    let both = format!("{}; also: {}", why(2), why(4));
    assert_eq!(ds201, [(Some("2 or 4"), Some(both.as_str()), false)]);
    let ds701 = |found: &[dslint::base::diagnostic::Diagnostic], ws: &dslint::model::workspace::Workspace| {
        found
            .iter()
            .filter(|d| d.code() == "DS701")
            .map(|d| {
                (
                    ws.files[d.file].path.clone(),
                    d.message.to_string(),
                    d.expected.as_deref().map(str::to_string),
                    d.why.as_deref().map(str::to_string),
                    d.fix.is_some(),
                )
            })
            .collect::<Vec<_>>()
    };
    let pgie = d.join("pgie.txt");
    let mismatch = |n: u32| {
        format!(
            "BATCH_MISMATCH: streammux batch-size {n} != primary nvinfer batch-size 1 ({}:3)",
            pgie.display()
        )
    };
    let one = [(
        d.join("app_a.txt"),
        mismatch(2),
        Some("2 or 4".to_string()),
        Some(format!(
            "nvinfer splits each streammux batch into batches of at most 1 (gst_nvinfer_process_full_frame submits a batch whenever it holds batch-size frames): a full one of 2 frames runs as 2 batches of 1, 2 engine launches where one would do; also: {}:8: {}; also: nvinfer splits each streammux batch into batches of at most 1 (gst_nvinfer_process_full_frame submits a batch whenever it holds batch-size frames): a full one of 4 frames runs as 4 batches of 1, 4 engine launches where one would do; also: the apps read one primary config and want different batches: no single batch-size is right for it (no fix)",
            d.join("app_b.txt").display(),
            mismatch(4)
        )),
        false,
    )];
    assert_eq!(ds701(&checked.diagnostics, &checked.ws), one);
    // `fix`: nothing to apply, so nothing flips and no file is left
    // unfixed as a cycle; the same one finding is left.
    let o = fix_case(d, false);
    assert!(o.conflicting.is_empty(), "{:?}", o.conflicting);
    assert_eq!(o.passes, 0);
    assert_eq!(o.applied, Default::default());
    assert!(o.log.is_empty());
    assert!(o.changed.is_empty(), "{:?}", o.changed.keys());
    assert_eq!(ds701(&o.remaining, &o.final_ws), one);
    let ds201: Vec<_> = o
        .remaining
        .iter()
        .filter(|d| d.code() == "DS201")
        .map(|d| (d.expected.as_deref().map(str::to_string), d.fix.is_some()))
        .collect();
    assert_eq!(ds201, [(Some("2 or 4".to_string()), false)]);
    assert_eq!(diff::summary(&o, false), "would fix 0 findings in 0 files.\n");
}

/// A primary config shared by an app whose batch is known (one stream,
/// streammux batch 1) and a Python app whose streammux batch dslint cannot
/// read (`len(SOURCES)`, two sources) while its primary takes `batch-size`
/// from the shared file (2). The first app's DS701 and DS201 are true of it,
/// but their fixes would set the shared line to 1, the second app's too,
/// and nothing would show it after (its batch is still unknown): the fixes
/// are withheld and the findings name the other app (audit7: a face
/// enrolment app and a two-camera app sharing one YOLO config).
#[test]
fn an_app_with_an_unread_batch_keeps_a_shared_primary_unfixed() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("dslint.toml"), "").unwrap();
    std::fs::write(
        d.join("app_a.txt"),
        "[source0]\nenable=1\ntype=3\nuri=file://video.mp4\nnum-sources=1\n\n[streammux]\nbatch-size=1\nwidth=960\nheight=544\n\n[primary-gie]\nenable=1\nconfig-file=pgie.txt\n\n[sink0]\nenable=1\ntype=1\nsync=0\n",
    )
    .unwrap();
    std::fs::write(
        d.join("two_cams.py"),
        "from gi.repository import Gst\n\nSOURCES = [\"file:///a.mp4\", \"file:///b.mp4\"]\n\n\ndef main():\n    pipeline = Gst.Pipeline()\n    streammux = Gst.ElementFactory.make(\"nvstreammux\", \"mux\")\n    streammux.set_property(\"batch-size\", len(SOURCES))\n    streammux.set_property(\"width\", 960)\n    streammux.set_property(\"height\", 544)\n    pipeline.add(streammux)\n    pgie = Gst.ElementFactory.make(\"nvinfer\", \"pgie\")\n    pgie.set_property(\"config-file-path\", \"pgie.txt\")\n    sink = Gst.ElementFactory.make(\"fakesink\", \"sink\")\n    sink.set_property(\"sync\", 0)\n    pipeline.add(pgie)\n    pipeline.add(sink)\n    streammux.link(pgie)\n    pgie.link(sink)\n",
    )
    .unwrap();
    let pgie_text = "[property]\nonnx-file=model.onnx\nbatch-size=2\nnetwork-mode=2\ngie-unique-id=1\nprocess-mode=1\nnetwork-type=0\n";
    std::fs::write(d.join("pgie.txt"), pgie_text).unwrap();
    std::fs::write(d.join("model.onnx"), "").unwrap();
    std::fs::write(d.join("video.mp4"), "").unwrap();
    let note = format!(
        "also: {} also loads this primary config and sets a streammux batch dslint cannot read: no batch-size is known to be right for the shared file (no fix)",
        d.join("two_cams.py").display()
    );
    let batch = |found: &[dslint::base::diagnostic::Diagnostic]| {
        let mut v: Vec<_> = found
            .iter()
            .filter(|d| matches!(d.code(), "DS201" | "DS701"))
            .map(|d| {
                (
                    d.code(),
                    d.message.to_string(),
                    d.expected.as_deref().map(str::to_string),
                    d.why.as_deref().map(str::to_string),
                    d.fix.is_some(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let want = vec![
        (
            "DS201",
            "primary nvinfer batch-size is 2 (nvinfer [property] batch-size)".to_string(),
            Some("1".to_string()),
            Some(format!(
                "final_batch = min(n_streams 1, 16); n_streams from enabled sources in the config: the engine runs one batch per streammux batch; {note}"
            )),
            false,
        ),
        (
            "DS701",
            format!(
                "BATCH_MISMATCH: streammux batch-size 1 != primary nvinfer batch-size 2 ({}:3)",
                d.join("pgie.txt").display()
            ),
            Some("1".to_string()),
            Some(format!(
                "nvinfer infers each streammux batch as it comes (gst_nvinfer_process_full_frame submits a batch at the streammux buffer's last frame): each launch holds at most 1 of the 2 frames its engine was built for, partial batches; {note}"
            )),
            false,
        ),
    ];
    let checked = check_dir(d);
    assert_eq!(batch(&checked.diagnostics), want);
    // `fix --unsafe-fixes --write` leaves the shared line as it is.
    let (rc, _, _) = dslint_in(d, &["fix", ".", "--unsafe-fixes", "--write"]);
    assert!(rc <= 1, "{rc}");
    assert_eq!(std::fs::read_to_string(d.join("pgie.txt")).unwrap(), pgie_text);
}

/// Precision 10: a fix after which a finding at warning or above appears
/// that the tree did not have is dropped, the run starts over without it,
/// and `--show-fixes` says so. DS403's preset is named by a path that does
/// not exist next to the app (DS704, an error: the tracker would not load
/// it); the DS103 fix in the same file is kept.
#[test]
fn a_fix_that_creates_a_finding_is_dropped() {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(Path::new("testdata/rules/DS403/fires"), tmp.path());
    let app = tmp.path().join("app.txt");
    let text = std::fs::read_to_string(&app).unwrap();
    assert_eq!(text.matches("\nbatched-push-timeout=33333\n").count(), 1);
    let text = text.replace("\nbatched-push-timeout=33333\n", "\nbatched-push-timeout=4000000\n");
    std::fs::write(&app, &text).unwrap();
    let (rc, out, err) = dslint_in(tmp.path(), &["fix", ".", "--unsafe-fixes", "--show-fixes"]);
    assert_eq!(
        (rc, out.as_str(), err.as_str()),
        (
            1,
            "--- a/app.txt\n+++ b/app.txt\n@@ -16,7 +16,7 @@\n gpu-id=0\n live-source=0\n batch-size=2\n-batched-push-timeout=4000000\n+batched-push-timeout=33333\n width=960\n height=544\n \n",
            "./app.txt:19: DS103 set batched-push-timeout=33333\n\
             ./app.txt:46: DS403 use config_tracker_NvDCF_max_perf.yml dropped: it would introduce DS704 in ./app.txt\n\
             would fix 1 finding in 1 file (DS103 ×1).\n\
             1 fix dropped: a finding at warning or above appeared after it (--show-fixes lists it).\n"
        )
    );
    let (rc, out, _) = dslint_in(
        tmp.path(),
        &["fix", ".", "--unsafe-fixes", "--format", "json", "--write"],
    );
    assert_eq!(rc, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["dropped"],
        serde_json::json!([{"file": "./app.txt", "line": 46, "code": "DS403", "title": "use config_tracker_NvDCF_max_perf.yml", "introduced": ["DS704 in ./app.txt"]}])
    );
    assert_eq!(
        std::fs::read_to_string(&app).unwrap(),
        text.replace("\nbatched-push-timeout=4000000\n", "\nbatched-push-timeout=33333\n")
    );
    // With the preset there, the fix is kept.
    std::fs::write(tmp.path().join("config_tracker_NvDCF_max_perf.yml"), "%YAML:1.0\n").unwrap();
    let (rc, _, err) = dslint_in(tmp.path(), &["fix", ".", "--unsafe-fixes", "--write"]);
    assert_eq!((rc, err.as_str()), (0, "fixed 1 finding in 1 file (DS403 ×1).\n"));
}

/// Precision 10: `fix` with facts and `fix` without never undo each other:
/// a plain fix after a fix with facts changes nothing, and neither does a
/// plain fix after a plain fix and one with facts (which may add what only
/// the facts know: the batch of the RTSP app, whose sources are in a CSV).
#[test]
fn fix_with_and_without_facts_agree() {
    let facts = Path::new("testdata/facts/example_h200.json").canonicalize().unwrap();
    let facts = facts.to_str().unwrap();
    for order in [&[true, false][..], &[false, true, false]] {
        let tmp = tempfile::tempdir().unwrap();
        copy_tree(Path::new("testdata/examples"), tmp.path());
        let run = |with_facts: bool, write: bool| {
            let mut args = vec!["fix", ".", "--unsafe-fixes"];
            if with_facts {
                args.extend(["--facts", facts]);
            }
            if write {
                args.push("--write");
            }
            dslint_in(tmp.path(), &args)
        };
        let (last, before) = order.split_last().unwrap();
        for &with_facts in before {
            let (rc, _, err) = run(with_facts, true);
            assert_eq!(rc, 0, "{err}");
        }
        let (rc, out, err) = run(*last, false);
        assert_eq!((rc, out.as_str()), (0, ""), "{order:?}: {err}");
    }
}

/// A copy of rule case `case` fixed with `fix . --write --show-fixes`: the
/// copy, the text of its `file` before, and the fix's exit code and stderr.
fn fixed_copy(case: &str, file: &str) -> (tempfile::TempDir, String, i32, String) {
    let tmp = tempfile::tempdir().unwrap();
    copy_tree(&Path::new("testdata/rules").join(case), tmp.path());
    let before = std::fs::read_to_string(tmp.path().join(file)).unwrap();
    let (rc, _, err) = dslint_in(tmp.path(), &["fix", ".", "--write", "--show-fixes"]);
    (tmp, before, rc, err)
}

/// `dslint check .` in `dir`: its exit code and the codes it reports.
fn check_codes(dir: &Path) -> (i32, Vec<String>) {
    let (rc, out, _) = dslint_in(dir, &["check", ".", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let codes = v
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .map(String::from);
    (rc, codes.collect())
}

/// Precision 4: an nvinfer `batch-size` that nothing sets is nvinfer's
/// default 1 (`gst_nvinfer_init`: `DEFAULT_BATCH_SIZE`; deepstream-app sets
/// the property only when `[primary-gie]` writes it, `create_primary_gie_bin`).
/// DS701's fix inserts the key at the end of the config's `[property]`,
/// plain `fix` applies it (safe: the streammux already runs the 4 streams'
/// batch), the guard keeps it (nothing appears after it), and a check after
/// it finds neither DS701 nor DS201.
#[test]
fn an_unset_primary_batch_gets_the_streammux_batch_inserted() {
    let (tmp, before, rc, err) = fixed_copy("DS701/fires-unset-primary", "pgie.txt");
    assert_eq!(
        (rc, err.as_str()),
        (
            0,
            "./app.txt:19: DS701 add batch-size=4 to the primary's config (streammux's)\n\
             fixed 1 finding in 1 file (DS701 ×1).\n"
        )
    );
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("pgie.txt")).unwrap(),
        before.replace(
            "cluster-mode=2\n\n[class-attrs-all]",
            "cluster-mode=2\nbatch-size=4\n\n[class-attrs-all]"
        )
    );
    assert_eq!(check_codes(tmp.path()), (0, vec![]));
}

/// DS104 and DS703 agree on one memory type, the platform default 0
/// (`NVBUF_MEM_DEFAULT`: CUDA device memory on dGPU, surface array on
/// Jetson, `nvbufsurface.h`): DS104's fix moves the streammux and every
/// element DS703 compares that sets another type, so a check after it finds
/// neither (before, it set the mux alone and DS703 appeared).
#[test]
fn the_memory_type_fix_leaves_no_mismatch() {
    let (tmp, before, rc, err) = fixed_copy("DS104/fires-whole-pipeline", "app.txt");
    assert_eq!(
        (rc, err.as_str()),
        (
            0,
            "./app.txt:25: DS104 set nvbuf-memory-type=0 on the streammux and the elements that share its memory\n\
             fixed 1 finding in 1 file (DS104 ×1).\n"
        )
    );
    assert_eq!(before.matches("nvbuf-memory-type=").count(), 3);
    let after = before
        .replace("nvbuf-memory-type=2", "nvbuf-memory-type=0")
        .replace("nvbuf-memory-type=3", "nvbuf-memory-type=0");
    assert_eq!(std::fs::read_to_string(tmp.path().join("app.txt")).unwrap(), after);
    assert_eq!(check_codes(tmp.path()), (0, vec![]));
}

/// Everything a fix run reports, with paths for file ids (the two runs
/// compared need not number files alike).
fn render_outcome(o: &engine::FixOutcome) -> String {
    let ws = &o.final_ws;
    let at = |f: usize, span: &std::ops::Range<usize>| format!("{}@{span:?}", ws.files[f].path.display());
    let mut s = render_diffs(o);
    for d in &o.remaining {
        let related: Vec<String> = d.related.iter().map(|(f, sp)| at(*f, sp)).collect();
        let fix = d.fix.as_ref().map(|f| {
            let edits: Vec<String> = f
                .edits
                .iter()
                .map(|e| format!("{}={:?}", at(e.file, &e.range), e.text))
                .collect();
            format!("{} {:?} {edits:?}", f.title, f.applicability)
        });
        s += &format!(
            "{} {} {} {:?} {:?} {related:?} {:?} {fix:?}\n",
            at(d.file, &d.span),
            d.code(),
            d.message,
            d.expected,
            d.why,
            d.message_at_related,
        );
    }
    for line in o.log.iter().map(ToString::to_string) {
        s += &format!("applied {line}\n");
    }
    for line in o.dropped.iter().map(ToString::to_string) {
        s += &format!("dropped {line}\n");
    }
    for line in o.related_left.iter().map(ToString::to_string) {
        s += &format!("related {line}\n");
    }
    s + &format!(
        "passes {} applied {:?} unsafe {:?} conflicting {:?}\n",
        o.passes, o.applied, o.unsafe_left, o.conflicting
    )
}

/// Checking again only what a pass's edits touched gives what loading and
/// checking the whole tree each time gives: every rule case, the examples
/// and the corpus, with and without unsafe fixes. And the incremental
/// checks did run (a run that always fell back would prove nothing).
#[test]
fn fix_incremental_equals_full() {
    let mut dirs = rule_cases();
    dirs.push(PathBuf::from("testdata/examples"));
    // Two projects: the first pass fixes one's batches and moves the
    // other's trailing comment (DS006), the second renames the other's
    // engine (DS207 waits for the comment's move: a fix to a file its
    // pipeline reads that is not inert, `fix::inert`), in a file whose
    // inline suppression silences a cross-file finding; each check again
    // merges its report around the project it edited, the other's part kept.
    dirs.push(PathBuf::from("testdata/fix/merged-report"));
    dirs.extend(corpus());
    let (mut touched, mut as_loaded, mut taken_back, mut merged, mut builds, mut visited) = (0, 0, 0, 0, 0, 0);
    let mut patched = 0;
    for dir in &dirs {
        for unsafe_fixes in [false, true] {
            let incremental = fix_case_with(dir, unsafe_fixes, engine::run);
            let full = fix_case_with(dir, unsafe_fixes, engine::run_checking_all);
            assert_eq!(full.checks.touched, 0);
            assert_eq!(
                render_outcome(&incremental),
                render_outcome(&full),
                "{} (unsafe fixes: {unsafe_fixes}): {:?}",
                dir.display(),
                incremental.checks
            );
            touched += incremental.checks.touched;
            as_loaded += incremental.checks.as_loaded;
            taken_back += incremental.checks.taken_back;
            merged += incremental.checks.merged_reports;
            builds += incremental.checks.builds_taken_back;
            visited += incremental.checks.visited;
            patched += incremental.checks.patched;
            if dir.ends_with("merged-report") {
                // After the first pass and after the second.
                assert_eq!(incremental.checks.merged_reports, 2, "{:?}", incremental.checks);
            }
        }
    }
    assert!(touched > 50, "only {touched} incremental checks");
    // The shortcuts ran: the guard's restarts answered with what the load
    // reported, documents taken back instead of parsed again, pipelines'
    // builds and findings taken back (the guard's trials and second loop
    // give the files the texts the first loop gave them) instead of built
    // and checked again, pipelines built again checked as each was
    // built (`recheck::rebuild`), and key-files whose values alone changed
    // patched instead of parsed again (`fix::patch`; the ci profile
    // compares each patch with a parse of its text).
    assert!(
        as_loaded > 0 && taken_back > 0 && merged > 0 && builds > 0 && visited > 0 && patched > 0,
        "as loaded {as_loaded}, taken back {taken_back}, merged reports {merged}, builds taken back {builds}, visited {visited}, patched {patched}"
    );
}

/// The incremental checks give what loading and checking the whole tree
/// each time gives on a generated tree (bench/gen_tree.py: apps sharing
/// primaries across folders, key-file and YAML, mistakes of many codes),
/// most of whose edited files are key-files whose values alone changed
/// (patched, not parsed again: `fix::patch`), with and without unsafe
/// fixes.
#[test]
fn fix_incremental_equals_full_on_a_generated_tree() {
    let (_tmp, top) = generated_tree(7);
    for unsafe_fixes in [false, true] {
        let opts = plain_options(unsafe_fixes);
        let paths = [top.clone()];
        let incremental = engine::run(&paths, &opts);
        let full = engine::run_checking_all(&paths, &opts);
        assert_eq!(
            render_outcome(&incremental),
            render_outcome(&full),
            "unsafe fixes: {unsafe_fixes}"
        );
        assert!(incremental.log.len() > 100, "{} fixes", incremental.log.len());
        assert!(incremental.checks.patched > 50, "{:?}", incremental.checks);
    }
}

/// The guard's narrow restart (only the groups of files of the fixes it
/// drops run again) gives what running the whole loop again gives: every
/// rule case, the examples and the corpus where the guard restarts, with
/// and without unsafe fixes (the full restart is made only for those).
#[test]
fn narrow_restart_equals_full_restart() {
    let mut dirs = rule_cases();
    dirs.push(PathBuf::from("testdata/examples"));
    dirs.extend(corpus());
    let (mut restarted, mut narrowed) = (0, 0);
    for dir in &dirs {
        for unsafe_fixes in [false, true] {
            let narrow = fix_case_with(dir, unsafe_fixes, engine::run);
            if narrow.dropped.is_empty() {
                assert_eq!(narrow.narrowed_restarts, 0);
                continue;
            }
            let full = fix_case_with(dir, unsafe_fixes, engine::run_restarting_fully);
            assert_eq!(full.narrowed_restarts, 0);
            assert_eq!(
                render_outcome(&narrow),
                render_outcome(&full),
                "{} (unsafe fixes: {unsafe_fixes})",
                dir.display()
            );
            restarted += 1;
            narrowed += narrow.narrowed_restarts;
        }
    }
    assert!(
        restarted > 0 && narrowed > 0,
        "restarted {restarted}, narrowed {narrowed}"
    );
}

/// A tree above the guard's trial size (no suspect tried alone: one
/// restart, narrowed) where the guard drops fixes in one project (DS403's
/// preset that does not exist, as in `a_fix_that_creates_a_finding_is_dropped`)
/// among the rule cases' projects: the narrow restart runs only that
/// project's group again, and the outcome is the full restart's.
#[test]
fn narrow_restart_on_a_large_tree_equals_full_restart() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("dslint.toml"), "").unwrap();
    let guard = tmp.path().join("zz-guard");
    copy_tree(Path::new("testdata/rules/DS403/fires"), &guard);
    let app = guard.join("app.txt");
    let text = std::fs::read_to_string(&app).unwrap();
    std::fs::write(
        &app,
        text.replace("\nbatched-push-timeout=33333\n", "\nbatched-push-timeout=4000000\n"),
    )
    .unwrap();
    // Rule cases of the nvinfer, streammux and app families, each in its
    // own folder, until the tree is well above the trial size.
    let mut files = files_under(tmp.path()).len();
    for dir in rule_cases() {
        let code = dir.parent().unwrap().file_name().unwrap().to_string_lossy().to_string();
        if !["DS1", "DS2", "DS3", "DS6"].iter().any(|p| code.starts_with(p)) || dir.join("dslint.toml").exists() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        copy_tree(&dir, &tmp.path().join(format!("{code}-{name}")));
        files = files_under(tmp.path()).len();
    }
    assert!(files > 300, "{files} files");
    let opts = plain_options(true);
    let paths = [tmp.path().to_path_buf()];
    let narrow = engine::run(&paths, &opts);
    let full = engine::run_restarting_fully(&paths, &opts);
    assert_eq!(narrow.narrowed_restarts, 1);
    assert_eq!(full.narrowed_restarts, 0);
    assert!(
        narrow
            .dropped
            .iter()
            .any(|d| d.code == "DS403" && d.file.ends_with("zz-guard/app.txt")),
        "{:?}",
        narrow.dropped
    );
    assert_eq!(render_outcome(&narrow), render_outcome(&full));
    assert!(narrow.log.len() > 10, "{} fixes", narrow.log.len());
}

/// A value fix on a line that goes on with a note (`# 0.25 fps` after a
/// key-file integer, which GLib ignores; a YAML comment) changes only the
/// number and keeps the note, which may now restate the old value: the
/// fix is unsafe, safe as it is without the note, and its title says the
/// note is kept. A note on a line of its own, or none, changes nothing.
#[test]
fn a_value_fix_that_keeps_a_note_after_it_is_unsafe() {
    let told = " (keeps the comment after the value: check that it still holds)";
    let keyfile = std::fs::read_to_string("testdata/rules/DS205/clean/app.txt").unwrap();
    assert!(keyfile.contains("\nbatched-push-timeout=33333\n"));
    let yaml = std::fs::read_to_string("testdata/rules/DS207/fires-yaml/app.yml").unwrap();
    assert!(yaml.contains("\n  batched-push-timeout: 33333\n"));
    let cases = [
        (
            "DS205/clean",
            "app.txt",
            &keyfile,
            "batched-push-timeout=33333",
            "batched-push-timeout=4000000 # 0.25 fps",
        ),
        (
            "DS205/clean",
            "app.txt",
            &keyfile,
            "batched-push-timeout=33333",
            "# 0.25 fps\nbatched-push-timeout=4000000",
        ),
        (
            "DS205/clean",
            "app.txt",
            &keyfile,
            "batched-push-timeout=33333",
            "batched-push-timeout=4000000",
        ),
        (
            "DS207/fires-yaml",
            "app.yml",
            &yaml,
            "batched-push-timeout: 33333",
            "batched-push-timeout: 4000000  # 0.25 fps",
        ),
    ];
    for (case, name, text, old, new) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        for f in std::fs::read_dir(Path::new("testdata/rules").join(case)).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, d.join(f.file_name().unwrap())).unwrap();
        }
        std::fs::write(d.join("dslint.toml"), "").unwrap();
        std::fs::write(d.join(name), text.replace(old, new)).unwrap();
        let noted = new.contains("4000000 ");
        let found = check_dir(d);
        let fix = (found.diagnostics.iter())
            .find(|x| x.code() == "DS103")
            .and_then(|x| x.fix.as_deref())
            .unwrap_or_else(|| panic!("{new}: no DS103 fix"));
        let (applicability, title) = if noted {
            (Applicability::Unsafe, format!("set batched-push-timeout=33333{told}"))
        } else {
            (Applicability::Safe, "set batched-push-timeout=33333".to_string())
        };
        assert_eq!(
            (fix.applicability, fix.title.as_str()),
            (applicability, title.as_str()),
            "{new}"
        );
        // Applied (with --unsafe-fixes): the number alone changes.
        let o = fix_case(d, true);
        let (_, after) = (o.changed.iter())
            .find(|(p, _)| p.ends_with(name))
            .map(|(_, t)| t.clone())
            .unwrap_or_default();
        let want = text.replace(old, &new.replace("4000000", "33333"));
        assert_eq!(after, want, "{new}");
    }
}

/// An engine rename (DS207) whose pipeline's other fixes set only values
/// no input of the engine name reads (`interval`, `batched-push-timeout`:
/// `fix::inert`) goes in their pass, not a pass later: one pass, the
/// texts what two passes gave (`early_renames_equal_waiting_renames`).
/// On 8e7e589 this took two passes.
#[test]
fn an_engine_rename_goes_beside_inert_fixes() {
    let dir = Path::new("testdata/fix/rename-beside-inert");
    let o = fix_case(dir, false);
    let codes: Vec<&str> = o.log.iter().map(|f| f.code).collect();
    assert_eq!(codes, ["DS103", "DS203", "DS207"]);
    assert_eq!(o.passes, 1);
    let waiting = fix_case_with(dir, false, engine::run_renames_waiting_for_all);
    assert_eq!(waiting.passes, 2);
    assert_eq!(render_diffs(&o), render_diffs(&waiting));
    let pgie = &o.changed[&dir.join("pgie.txt")].1;
    assert!(
        pgie.contains("model-engine-file=model.onnx_b2_gpu0_fp16.engine\n"),
        "{pgie}"
    );
}

/// `render_outcome` without what moves when a rename goes a pass earlier:
/// the number of passes, and the order of the log and of the fixes
/// dropped (by pass); each sorted instead.
fn render_outcome_unordered(o: &engine::FixOutcome) -> String {
    let mut lines: Vec<String> = render_outcome(o)
        .lines()
        .filter(|l| !l.starts_with("passes "))
        .map(str::to_string)
        .collect();
    let rest = format!(
        "applied {:?} unsafe {:?} conflicting {:?}",
        o.applied, o.unsafe_left, o.conflicting
    );
    lines.sort();
    lines.push(rest);
    lines.join("\n")
}

/// Letting an engine rename (DS207) go in the pass of fixes that cannot
/// move it (`engine::waiting`: fixes elsewhere, inert fixes beside it)
/// gives what making every rename wait while any other fix is wanted gives
/// (8e7e589's loop): the same texts, findings left, fixes applied and
/// dropped; every rule case, the examples, the corpus and a generated
/// tree, with and without unsafe fixes. And renames did go early.
#[test]
fn early_renames_equal_waiting_renames() {
    let mut dirs = rule_cases();
    dirs.push(PathBuf::from("testdata/examples"));
    dirs.push(PathBuf::from("testdata/fix/merged-report"));
    dirs.push(PathBuf::from("testdata/fix/rename-beside-inert"));
    dirs.extend(corpus());
    let mut fewer_passes = 0;
    for dir in &dirs {
        for unsafe_fixes in [false, true] {
            let early = fix_case_with(dir, unsafe_fixes, engine::run);
            let waiting = fix_case_with(dir, unsafe_fixes, engine::run_renames_waiting_for_all);
            assert_eq!(
                render_outcome_unordered(&early),
                render_outcome_unordered(&waiting),
                "{} (unsafe fixes: {unsafe_fixes})",
                dir.display()
            );
            assert!(early.passes <= waiting.passes);
            fewer_passes += usize::from(early.passes < waiting.passes);
        }
    }
    assert!(fewer_passes > 0);
    let (_tmp, top) = generated_tree(11);
    for unsafe_fixes in [false, true] {
        let opts = plain_options(unsafe_fixes);
        let paths = [top.clone()];
        let early = engine::run(&paths, &opts);
        let waiting = engine::run_renames_waiting_for_all(&paths, &opts);
        assert_eq!(
            render_outcome_unordered(&early),
            render_outcome_unordered(&waiting),
            "unsafe fixes: {unsafe_fixes}"
        );
        assert!(early.log.iter().filter(|f| f.code == "DS207").count() > 10);
    }
}

/// A value that ends in a stray CR (`k=1\r\r\n`) is one line, as GLib
/// reads it (the value `1\r`) and as `patch` does: the CR is shown escaped
/// as every control character of a diff is (`escape_controls`), the line
/// end as it is.
#[test]
fn a_stray_cr_in_a_diff_is_escaped_in_its_line() {
    let d = diff::unified(
        Path::new("app.txt"),
        "[a]\nk=1\r\r\nz=0\n",
        "[a]\nk=2\r\r\nz=0\n",
        false,
    );
    assert_eq!(
        d,
        "--- a/app.txt\n+++ b/app.txt\n@@ -1,3 +1,3 @@\n [a]\n-k=1\\x0d\r\n+k=2\\x0d\r\n z=0\n"
    );
}

/// A lone CR ends no line for GLib (`g_key_file_parse_data` splits on
/// `\n` only) nor for `patch` and `git apply`: a diff's lines are the
/// file's `\n` lines, so its hunks name the lines that GLib, `patch` and
/// `check`'s findings name. `similar` ended a line at a lone CR too: a
/// file with lone CRs above a change got hunks at the wrong lines, each CR
/// one line further down, and `patch` refused them ("Hunk #1 FAILED at
/// 7", hostile10) or applied them at an offset. A lone CR is shown
/// escaped in the line it is in.
#[test]
fn lone_crs_end_no_diff_line() {
    let old = "[property]\n# note\rstill note\ngpu-id=0\nonnx-file=m.onnx\nbatch-size=1\nnetwork-mode=2\n# x\ry\ngie-unique-id=1\nprocess-mode=1\nnetwork-type=0\ncluster-mode=2\nmodel-engine-file=a.engine\ninterval=0\n";
    // Line 12 (the 14th for a reader that ends a line at a CR).
    let new = old.replace("a.engine", "b.engine");
    let d = diff::unified(Path::new("pgie.txt"), old, &new, false);
    assert_eq!(
        d,
        "--- a/pgie.txt\n+++ b/pgie.txt\n@@ -9,5 +9,5 @@\n process-mode=1\n network-type=0\n cluster-mode=2\n-model-engine-file=a.engine\n+model-engine-file=b.engine\n interval=0\n"
    );
    // `patch` applies it where it says, with no offset.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("pgie.txt"), old).unwrap();
    let mut patch = std::process::Command::new("patch")
        .args(["-p1", "--batch"])
        .current_dir(tmp.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("GNU patch is installed");
    use std::io::Write;
    patch.stdin.take().unwrap().write_all(d.as_bytes()).unwrap();
    let out = patch.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "patching file pgie.txt\n");
    assert_eq!(std::fs::read_to_string(tmp.path().join("pgie.txt")).unwrap(), new);
    // A change beside a lone CR: the CR's line is one line of context.
    let new = old.replace("gie-unique-id=1", "gie-unique-id=2");
    assert_eq!(
        diff::unified(Path::new("pgie.txt"), old, &new, false),
        "--- a/pgie.txt\n+++ b/pgie.txt\n@@ -5,7 +5,7 @@\n batch-size=1\n network-mode=2\n # x\\x0dy\n-gie-unique-id=1\n+gie-unique-id=2\n process-mode=1\n network-type=0\n cluster-mode=2\n"
    );
    // A last line that ends in a lone CR has no line end.
    assert_eq!(
        diff::unified(Path::new("f.txt"), "[a]\nk=1\r", "[a]\nk=2\r", false),
        "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n [a]\n-k=1\r\n\\ No newline at end of file\n+k=2\r\n\\ No newline at end of file\n"
    );
}

/// A fix run holds each changed text once at its end: the texts are the
/// outcome's (`changed`), and the last check's workspace, which the run
/// hands back as `final_ws`, keeps no copy of them in its overlay (each
/// check shared the loop's texts, `OverlayTexts`, and the run lets go of
/// that share before moving them out). Before, the overlay held a copy of
/// every changed text to the end of the process.
#[test]
fn a_fix_run_keeps_no_second_copy_of_its_texts() {
    let (_tmp, top) = generated_tree(7);
    let outcome = engine::run(&[top], &plain_options(false));
    assert!(outcome.changed.len() > 50, "{} files changed", outcome.changed.len());
    assert!(outcome.checks.touched > 0, "{:?}", outcome.checks);
    assert_eq!(outcome.final_ws.overlay.len(), 0);
}
