//! dslint attacked as a PR bot's operator would see it: a repository that
//! plants links, FIFOs, devices, huge files, control characters and names
//! dslint will create, and a sentinel outside the project root that must
//! keep its bytes. Every test runs in CI (as root there: the owner test
//! needs it and says so when it cannot run).

mod support;

use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{dslint_bin, run_bounded};

/// An app config whose primary config is `pgie`, with a streammux batch
/// that disagrees with it (DS701 and friends fire, with safe fixes).
fn app(pgie: &str) -> String {
    format!(
        "[application]\nenable-perf-measurement=1\n\n[source0]\nenable=1\ntype=3\nuri=file://video.mp4\nnum-sources=2\ngpu-id=0\n\n[streammux]\nbatch-size=4\nbatched-push-timeout=40000\nwidth=960\nheight=544\n\n[primary-gie]\nenable=1\nconfig-file={pgie}\n\n[sink0]\nenable=1\ntype=1\nsync=0\n"
    )
}

/// An nvinfer config with findings whose messages would echo its values:
/// a trailing comment in a path (DS006), an odd batch (DS701), a line
/// that is no key (DS001), an unknown key (DS002).
const SECRET_PGIE: &str = "[property]\ngpu-id=0\nnet-scale-factor=0.0039\nonnx-file=SECRET-onnx-name.onnx\nmodel-engine-file=SECRET-engine.engine # SECRET-comment\nbatch-size=29\nnetwork-mode=2\ngie-unique-id=1\nprocess-mode=1\nnetwork-type=0\nsecret-unknown-key=SECRET-value\n";
/// A file GLib refuses: its one finding (DS001) would quote the line.
const SECRET_REFUSED: &str = "[property]\ngie-unique-id=1\nonnx-file=m.onnx\nSECRET-line-without-equals\n";

/// A repository (`top/repo`, with `.git`) and a folder beside it.
struct Layout {
    _tmp: tempfile::TempDir,
    top: PathBuf,
    repo: PathBuf,
    elsewhere: PathBuf,
}

fn layout() -> Layout {
    let tmp = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(tmp.path()).unwrap();
    let repo = top.join("repo");
    let elsewhere = top.join("elsewhere");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    Layout {
        _tmp: tmp,
        top,
        repo,
        elsewhere,
    }
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    run_bounded(dir, args, &[], Duration::from_secs(60))
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path in the test's folder.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

fn temp_names(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(".dslint-") && n.ends_with(".tmp"))
        .collect()
}

#[test]
fn fix_write_never_writes_outside_the_root() {
    let l = layout();
    // Sentinels outside, reached by `..`, an absolute path, a symlinked
    // folder and a symlinked file named on the command line.
    for n in ["rel.txt", "abs.txt", "viadir.txt", "named.txt"] {
        std::fs::write(l.elsewhere.join(n), SECRET_PGIE).unwrap();
    }
    std::fs::create_dir_all(l.repo.join("a")).unwrap();
    std::fs::write(l.repo.join("a/app.txt"), app("../../elsewhere/rel.txt")).unwrap();
    std::fs::create_dir_all(l.repo.join("b")).unwrap();
    std::fs::write(
        l.repo.join("b/app.txt"),
        app(l.elsewhere.join("abs.txt").to_str().unwrap()),
    )
    .unwrap();
    symlink("../elsewhere", l.repo.join("linked")).unwrap();
    std::fs::create_dir_all(l.repo.join("c")).unwrap();
    std::fs::write(l.repo.join("c/app.txt"), app("../linked/viadir.txt")).unwrap();
    symlink(l.elsewhere.join("named.txt"), l.repo.join("named.txt")).unwrap();
    // The control: the same config inside the tree is fixed.
    std::fs::create_dir_all(l.repo.join("d")).unwrap();
    std::fs::write(l.repo.join("d/app.txt"), app("pgie.txt")).unwrap();
    std::fs::write(l.repo.join("d/pgie.txt"), SECRET_PGIE).unwrap();
    for extra in [&[][..], &["--follow-outside"][..]] {
        let mut args = vec!["fix", "--write", "--unsafe-fixes", ".", "named.txt"];
        args.extend_from_slice(extra);
        let (_, _, err) = run(&l.repo, &args);
        for n in ["rel.txt", "abs.txt", "viadir.txt", "named.txt"] {
            assert_eq!(
                std::fs::read_to_string(l.elsewhere.join(n)).unwrap(),
                SECRET_PGIE,
                "{n} changed ({extra:?}): {err}"
            );
        }
        assert!(!err.contains("SECRET"), "{err}");
    }
    assert_ne!(std::fs::read_to_string(l.repo.join("d/pgie.txt")).unwrap(), SECRET_PGIE);
    assert!(temp_names(&l.elsewhere).is_empty());
}

#[test]
fn outside_content_is_never_echoed() {
    let l = layout();
    std::fs::write(l.elsewhere.join("pgie.txt"), SECRET_PGIE).unwrap();
    std::fs::write(l.repo.join("app.txt"), app("../elsewhere/pgie.txt")).unwrap();
    std::fs::write(l.elsewhere.join("refused.txt"), SECRET_REFUSED).unwrap();
    std::fs::write(l.repo.join("app2.txt"), app("../elsewhere/refused.txt")).unwrap();
    symlink(l.elsewhere.join("pgie.txt"), l.repo.join("linked_pgie.txt")).unwrap();
    // The control: inside the tree, the same file's values are shown.
    let (_, inside, _) = {
        std::fs::create_dir_all(l.repo.join("control")).unwrap();
        std::fs::write(l.repo.join("control/pgie.txt"), SECRET_PGIE).unwrap();
        std::fs::write(l.repo.join("control/refused.txt"), SECRET_REFUSED).unwrap();
        run(&l.repo, &["check", "control/pgie.txt", "control/refused.txt"])
    };
    assert!(inside.contains("SECRET-comment"), "{inside}");
    assert!(inside.contains("SECRET-line-without-equals"), "{inside}");
    std::fs::remove_dir_all(l.repo.join("control")).unwrap();
    for extra in [&[][..], &["--follow-outside"][..]] {
        for format in ["human", "json", "sarif", "github", "rdjson"] {
            let mut args = vec!["check", ".", "--format", format];
            args.extend_from_slice(extra);
            let (rc, out, err) = run(&l.repo, &args);
            let all = format!("{out}{err}");
            assert!(rc == 0 || rc == 1, "{format} {extra:?}: {all}");
            assert!(
                !all.contains("SECRET") && !all.contains("secret"),
                "{format} {extra:?}: {all}"
            );
            assert!(
                !all.contains("batch-size 29") && !all.contains("=29"),
                "{format} {extra:?}: {all}"
            );
        }
        let mut args = vec!["fix", "."];
        args.extend_from_slice(extra);
        let (_, out, err) = run(&l.repo, &args);
        assert!(!format!("{out}{err}").contains("SECRET"), "{out}{err}");
    }
    let (_, out, _) = run(&l.repo, &["check", "."]);
    assert!(
        out.contains("config-file ../elsewhere/pgie.txt is outside the project root; not checked"),
        "{out}"
    );
    assert!(
        out.contains("linked_pgie.txt\n") && out.contains("leads outside the project root"),
        "{out}"
    );
}

#[test]
fn ds704_does_not_tell_whether_an_outside_path_exists() {
    let l = layout();
    std::fs::write(l.elsewhere.join("present.txt"), "[property]\n").unwrap();
    let show = |target: &str| {
        let _ = std::fs::remove_file(l.repo.join("probe.txt"));
        symlink(target, l.repo.join("probe.txt")).unwrap();
        let abs = l.elsewhere.join(target.rsplit('/').next().unwrap());
        let app = format!(
            "{}\n[secondary-gie0]\nenable=1\ngie-unique-id=2\nconfig-file={}\n[secondary-gie1]\nenable=1\ngie-unique-id=3\nconfig-file=probe.txt\n[secondary-gie2]\nenable=1\ngie-unique-id=4\nconfig-file=../elsewhere/{}\n",
            app("pgie.txt"),
            abs.display(),
            target.rsplit('/').next().unwrap()
        );
        std::fs::write(l.repo.join("app.txt"), app).unwrap();
        let mut outs = Vec::new();
        for extra in [&[][..], &["--follow-outside"][..]] {
            let mut args = vec!["check", "app.txt", "--format", "json"];
            args.extend_from_slice(extra);
            let (_, out, err) = run(&l.repo, &args);
            outs.push(
                format!("{out}{err}")
                    .replace("present", "NAME")
                    .replace("missing", "NAME"),
            );
        }
        outs
    };
    let present = show(l.elsewhere.join("present.txt").to_str().unwrap());
    let absent = show(l.elsewhere.join("missing.txt").to_str().unwrap());
    assert!(
        present[0].contains("is outside the project root; not checked"),
        "{}",
        present[0]
    );
    assert_eq!(present, absent);
}

#[test]
fn repository_settings_cannot_point_outside() {
    let l = layout();
    std::fs::write(l.elsewhere.join("facts.json"), "{\"schema_version\": 1, \"SECRET\": 1").unwrap();
    std::fs::write(l.repo.join("app.txt"), app("pgie.txt")).unwrap();
    for facts in [
        "../elsewhere/facts.json",
        l.elsewhere.join("facts.json").to_str().unwrap(),
    ] {
        std::fs::write(l.repo.join("dslint.toml"), format!("facts = \"{facts}\"\n")).unwrap();
        let (rc, out, err) = run(&l.repo, &["check", "."]);
        assert_eq!(rc, 2, "{out}{err}");
        assert!(err.contains("`facts` leads outside the project root"), "{err}");
        assert!(!err.contains("SECRET"), "{err}");
    }
    // A FIFO as facts: refused at once, not waited on.
    mkfifo(&l.repo.join("facts.json"));
    std::fs::write(l.repo.join("dslint.toml"), "facts = \"facts.json\"\n").unwrap();
    let (rc, _, err) = run_bounded(&l.repo, &["check", "."], &[], Duration::from_secs(10));
    assert_eq!(rc, 2);
    assert!(err.contains("facts.json: is a FIFO, not a regular file"), "{err}");
}

#[test]
fn only_regular_files_are_read() {
    let l = layout();
    mkfifo(&l.repo.join("fifo.txt"));
    symlink("/dev/zero", l.repo.join("zero.txt")).unwrap();
    std::fs::write(l.repo.join("app.txt"), app("fifo.txt")).unwrap();
    let limit = Duration::from_secs(10);
    let (_, out, _) = run_bounded(&l.repo, &["check", "fifo.txt", "app.txt"], &[], limit);
    assert!(
        out.contains(
            "warning[DS005]: is a FIFO, not a regular file; only regular files are read; skipped\n  --> fifo.txt"
        ),
        "{out}"
    );
    let (_, out, _) = run_bounded(&l.repo, &["check", "zero.txt"], &[], limit);
    assert!(out.contains("leads outside the project root; not read"), "{out}");
    let (_, out, _) = run_bounded(&l.repo, &["check", "zero.txt", "--follow-outside"], &[], limit);
    assert!(out.contains("is a device, not a regular file"), "{out}");
    let (_, out, _) = run_bounded(&l.top, &["check", "/dev/zero", "--root", "/dev"], &[], limit);
    assert!(out.contains("is a device, not a regular file"), "{out}");
    // An ignore file the walker would read: a FIFO, or a link to /dev/zero.
    let sub = l.repo.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    symlink("/dev/zero", sub.join(".gitignore")).unwrap();
    mkfifo(&l.repo.join(".ignore"));
    let (_, out, _) = run_bounded(&l.repo, &["check", "."], &[], limit);
    assert!(out.contains(".ignore is a FIFO, not a regular file"), "{out}");
    std::fs::remove_file(l.repo.join(".ignore")).unwrap();
    // The link leads out of the root: not looked at; with
    // `--follow-outside`, refused as a device.
    let (_, out, _) = run_bounded(&l.repo, &["check", "."], &[], limit);
    assert!(
        out.contains(".gitignore is a link that leads outside the project root; folder not walked"),
        "{out}"
    );
    let (_, out, _) = run_bounded(&l.repo, &["check", ".", "--follow-outside"], &[], limit);
    assert!(
        out.contains(".gitignore is a device, not a regular file; only regular files are read; folder not walked"),
        "{out}"
    );
}

#[test]
fn huge_inputs_finish() {
    // Hang guards with a generous bound; bench/large_inputs.sh has the
    // timings (well under a second each in a release build).
    let l = layout();
    let groups: String = (0..100_000)
        .map(|i| format!("[property]\ngie-unique-id=1\nbatch-size={}\n", i % 7 + 1))
        .collect();
    // (A model source makes them nvinfer configs, detect.rs.)
    let groups = format!("[property]\nonnx-file=m.onnx\n{groups}");
    std::fs::write(l.repo.join("groups.txt"), groups).unwrap();
    let keys: String = (0..100_000).map(|i| format!("custom-key-{i}={i}\n")).collect();
    std::fs::write(
        l.repo.join("keys.txt"),
        format!("[property]\ngie-unique-id=1\nonnx-file=m.onnx\n{keys}"),
    )
    .unwrap();
    let dups: String = (0..100_000).map(|i| format!("batch-size={}\n", i % 7 + 1)).collect();
    std::fs::write(
        l.repo.join("dups.txt"),
        format!("[property]\ngie-unique-id=1\nonnx-file=m.onnx\n{dups}"),
    )
    .unwrap();
    // groups.txt repeats two keys 100k times each: 2 × 99,999 ignored lines.
    for (f, code, n) in [
        ("groups.txt", "DS004", 199_998),
        ("keys.txt", "DS002", 100_000),
        ("dups.txt", "DS004", 99_999),
    ] {
        let (rc, out, err) = run_bounded(&l.repo, &["check", f, "--statistics"], &[], Duration::from_secs(60));
        assert_eq!(rc, 1, "{f}: {err}");
        assert!(out.contains(&format!("{n:>5}  {code}")), "{f}: {out}");
    }
}

/// Hostile scripts and modules for the code front ends: nesting that would
/// exhaust a recursive reader's stack (or abort tree-sitter-python's
/// scanner), and sizes that would be quadratic in a naive one.
#[test]
fn hostile_code_finishes() {
    let l = layout();
    let gst = "from gi.repository import Gst\n";
    let make = "    mux = Gst.ElementFactory.make('nvstreammux', 'm')\n";
    let files = [
        // 3,000 nested functions: the scanner's indent stack overflows.
        (
            "defs.py",
            format!(
                "{gst}{}{}mux = Gst.ElementFactory.make('nvstreammux', 'm')\n",
                (0..3000)
                    .map(|i| format!("{}def f():\n", " ".repeat(i)))
                    .collect::<String>(),
                " ".repeat(3000)
            ),
        ),
        // A value behind 300,000 signs and parentheses.
        (
            "signs.py",
            format!(
                "{gst}def main():\n{make}    mux.set_property('batch-size', {}(1{})\n",
                "-(".repeat(150_000),
                ")".repeat(150_001)
            ),
        ),
        // 50,000 chained calls, and 30,000 nested ones.
        (
            "chain.py",
            format!("{gst}def main():\n{make}    mux{}\n", ".link(y)".repeat(50_000)),
        ),
        (
            "calls.py",
            format!(
                "{gst}def main():\n{make}    x = {}{}\n",
                "f(".repeat(30_000),
                ")".repeat(30_000)
            ),
        ),
        // 20,000 elements made and linked, then 20,000 settings on one line.
        (
            "many.py",
            format!(
                "{gst}def main():\n{}{make}    {}\n",
                (0..20_000)
                    .map(|i| format!(
                        "    e{i} = Gst.ElementFactory.make('nvstreammux', 'q{i}')\n    e{i}.link(e{})\n",
                        i + 1
                    ))
                    .collect::<String>(),
                (0..20_000)
                    .map(|i| format!("mux.set_property('width', {i})"))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        ),
        // 20,000 queues in one gst-launch line, and 20,000 nested bins.
        (
            "chain.sh",
            format!(
                "gst-launch-1.0 uridecodebin uri=file:///a.mp4 ! m.sink_0 nvstreammux name=m batch-size=1 ! {} ! nvinfer config-file-path=x.txt ! fakesink\n",
                vec!["queue"; 20_000].join(" ! ")
            ),
        ),
        (
            "bins.sh",
            format!(
                "gst-launch-1.0 nvstreammux name=m batch-size=1 ! {}queue{} ! fakesink\n",
                "( ".repeat(20_000),
                " )".repeat(20_000)
            ),
        ),
    ];
    for (name, text) in &files {
        std::fs::write(l.repo.join(name), text).unwrap();
    }
    let mut summary = String::new();
    for (name, _) in &files {
        let (rc, out, err) = run_bounded(&l.repo, &["check", name, "--statistics"], &[], Duration::from_secs(60));
        assert!(rc == 0 || rc == 1, "{name}: exit {rc}: {err}");
        let counts: Vec<&str> = out.lines().filter(|l| l.contains("  DS")).map(str::trim).collect();
        summary.push_str(&format!("{name}: {counts:?}\n"));
    }
    insta::assert_snapshot!(summary);
}

#[test]
fn created_files_never_go_through_planted_names() {
    let l = layout();
    let sentinel = l.elsewhere.join("sentinel");
    std::fs::write(&sentinel, "keep me\n").unwrap();
    // fix --variant bench: NAME.bench.txt planted as a link out.
    std::fs::write(l.repo.join("app.txt"), app("pgie.txt")).unwrap();
    std::fs::write(l.repo.join("pgie.txt"), "[property]\ngie-unique-id=1\nbatch-size=4\n").unwrap();
    symlink(&sentinel, l.repo.join("app.bench.txt")).unwrap();
    let (rc, _, err) = run(&l.repo, &["fix", "--variant", "bench", "--write", "app.txt"]);
    assert_eq!(rc, 0, "{err}");
    let meta = std::fs::symlink_metadata(l.repo.join("app.bench.txt")).unwrap();
    assert!(meta.file_type().is_file());
    assert!(
        std::fs::read_to_string(l.repo.join("app.bench.txt"))
            .unwrap()
            .contains("[streammux]")
    );
    // The sweep's variant copies.
    symlink(&sentinel, l.repo.join(".dslint-sweep-b2.app.txt")).unwrap();
    let _ = std::fs::remove_file(l.repo.join("app.bench.txt"));
    let written = dslint::measure::variant::write_sweep_variant(&l.repo.join("app.txt"), 2).unwrap();
    assert!(
        written.iter().any(|p| p.ends_with(".dslint-sweep-b2.app.txt")),
        "{written:?}"
    );
    assert!(
        std::fs::symlink_metadata(l.repo.join(".dslint-sweep-b2.app.txt"))
            .unwrap()
            .file_type()
            .is_file()
    );
    // nsys wrap: SCRIPT_nsys.sh planted.
    std::fs::write(l.repo.join("start.sh"), "#!/bin/sh\npython3 -m server --port 8080\n").unwrap();
    std::fs::set_permissions(l.repo.join("start.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    symlink(&sentinel, l.repo.join("start_nsys.sh")).unwrap();
    let (rc, _, err) = run(&l.repo, &["nsys", "wrap", "start.sh"]);
    assert_eq!(rc, 0, "{err}");
    let meta = std::fs::symlink_metadata(l.repo.join("start_nsys.sh")).unwrap();
    assert!(meta.file_type().is_file() && meta.mode() & 0o7777 == 0o750);
    // nsys inject: the .bak planted as a link out is neither written
    // through nor passed off as the backup.
    let pkg = l.repo.join("fd/fastdeploy/worker");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::copy(
        "testdata/nsys/fastdeploy/missing/fastdeploy/worker/gpu_model_runner.py",
        pkg.join("gpu_model_runner.py"),
    )
    .unwrap();
    symlink(&sentinel, pkg.join("gpu_model_runner.py.bak")).unwrap();
    let dir = pkg.to_str().unwrap();
    let (rc, _, err) = run(&l.repo, &["nsys", "inject", "--fastdeploy", dir]);
    assert_eq!(rc, 2, "{err}");
    assert!(
        err.contains("gpu_model_runner.py.bak exists and is not a regular file"),
        "{err}"
    );
    // nsys capture: an output folder that is a link, or another user's.
    symlink(&l.elsewhere, l.repo.join("out")).unwrap();
    let (rc, _, err) = run(
        &l.repo,
        &[
            "nsys",
            "capture",
            "--script",
            "start.sh",
            "--port",
            "9",
            "--output-dir",
            "out",
        ],
    );
    assert_eq!(rc, 2, "{err}");
    assert!(
        err.contains("an output folder must be a real folder, not a link"),
        "{err}"
    );
    // The log in our own output folder: a planted link is replaced.
    std::fs::create_dir(l.repo.join("reports")).unwrap();
    symlink(&sentinel, l.repo.join("reports/service.log")).unwrap();
    let out_dir = dslint::files::write::Dir::own_output(&l.repo.join("reports")).unwrap();
    drop(out_dir.create_fresh("service.log", 0o600).unwrap());
    assert!(
        std::fs::symlink_metadata(l.repo.join("reports/service.log"))
            .unwrap()
            .file_type()
            .is_file()
    );
    assert_eq!(std::fs::read_to_string(&sentinel).unwrap(), "keep me\n");
    assert!(temp_names(&l.repo).is_empty() && temp_names(&l.elsewhere).is_empty());
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

#[test]
fn another_users_files_as_root() {
    if !is_root() {
        eprintln!("not root: the owner checks need root (CI runs as root); skipped");
        return;
    }
    let l = layout();
    std::fs::write(l.repo.join("app.txt"), app("pgie.txt")).unwrap();
    std::fs::write(l.repo.join("pgie.txt"), "[property]\ngie-unique-id=1\nbatch-size=2\n").unwrap();
    for f in ["app.txt", "pgie.txt"] {
        let p = l.repo.join(f);
        std::os::unix::fs::chown(&p, Some(65534), Some(65534)).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o4755)).unwrap();
    }
    let before = std::fs::read_to_string(l.repo.join("app.txt")).unwrap();
    let (rc, _, err) = run(&l.repo, &["fix", "--write", "."]);
    assert_eq!(rc, 0, "{err}");
    assert_ne!(std::fs::read_to_string(l.repo.join("app.txt")).unwrap(), before);
    for f in ["app.txt", "pgie.txt"] {
        let m = std::fs::metadata(l.repo.join(f)).unwrap();
        assert_eq!((m.uid(), m.gid(), m.mode() & 0o7777), (65534, 65534, 0o4755), "{f}");
    }
    // Another user's output folder is not used.
    let shared = l.top.join("nsys_record");
    std::fs::create_dir(&shared).unwrap();
    std::os::unix::fs::chown(&shared, Some(65534), Some(65534)).unwrap();
    let e = dslint::files::write::Dir::own_output(&shared).err().unwrap();
    assert!(e.contains("belongs to uid 65534, not to you (uid 0)"), "{e}");
}

#[test]
fn mode_is_kept_and_hard_links_are_refused() {
    let l = layout();
    std::fs::write(l.repo.join("app.txt"), app("pgie.txt")).unwrap();
    // A trailing comment in the engine path: a safe fix in pgie.txt (DS006).
    std::fs::write(
        l.repo.join("pgie.txt"),
        "[property]\ngie-unique-id=1\nbatch-size=2\nmodel-engine-file=m.engine # note\n",
    )
    .unwrap();
    std::fs::set_permissions(l.repo.join("app.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::hard_link(l.repo.join("pgie.txt"), l.elsewhere.join("pgie-link.txt")).unwrap();
    let pgie = std::fs::read_to_string(l.repo.join("pgie.txt")).unwrap();
    let (rc, _, err) = run(&l.repo, &["fix", "--write", "."]);
    assert_eq!(rc, 2, "{err}");
    assert!(err.contains("pgie.txt has 2 hard links; not written"), "{err}");
    assert_eq!(
        std::fs::read_to_string(l.elsewhere.join("pgie-link.txt")).unwrap(),
        pgie
    );
    assert_eq!(std::fs::read_to_string(l.repo.join("pgie.txt")).unwrap(), pgie);
    assert_eq!(std::fs::metadata(l.repo.join("pgie.txt")).unwrap().nlink(), 2);
    let m = std::fs::metadata(l.repo.join("app.txt")).unwrap();
    assert_eq!(m.mode() & 0o7777, 0o640);
    assert!(
        std::fs::read_to_string(l.repo.join("app.txt"))
            .unwrap()
            .contains("batch-size=2")
    );
}

/// Start `fix --write` paused before its rename; returns once its
/// temporary file exists.
fn paused_fix(repo: &Path, pause_ms: &str) -> std::process::Child {
    paused_fix_of(repo, pause_ms, &["fix", "--write", "app.txt"])
}

/// `paused_fix` with other arguments.
fn paused_fix_of(repo: &Path, pause_ms: &str, args: &[&str]) -> std::process::Child {
    let child = Command::new(dslint_bin())
        .args(args)
        .current_dir(repo)
        .env("DSLINT_TEST_PAUSE_BEFORE_RENAME_MS", pause_ms)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while temp_names(repo).is_empty() {
        assert!(start.elapsed() < Duration::from_secs(30), "no temporary file appeared");
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

#[test]
fn a_change_between_read_and_rename_is_kept() {
    let l = layout();
    std::fs::write(l.repo.join("app.txt"), app("pgie.txt")).unwrap();
    std::fs::write(l.repo.join("pgie.txt"), "[property]\ngie-unique-id=1\nbatch-size=2\n").unwrap();
    let child = paused_fix(&l.repo, "3000");
    let edited = format!("{}# edited by hand meanwhile\n", app("pgie.txt"));
    std::fs::write(l.repo.join("app.txt"), &edited).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("app.txt changed since it was read; not written"), "{err}");
    assert_eq!(std::fs::read_to_string(l.repo.join("app.txt")).unwrap(), edited);
    assert!(temp_names(&l.repo).is_empty());
    // The summary counts what was written: nothing (it said "fixed 1
    // finding in 1 file" before).
    assert!(
        err.contains("fixed 0 findings in 0 files.\n1 fix in 1 file not written (the errors above).\n"),
        "{err}"
    );
}

/// Of two files fixed, the one changed meanwhile is refused and the other
/// written: the summary and the JSON report count only the written one's
/// fixes, and name the other.
#[test]
fn a_refused_write_is_not_counted_as_fixed() {
    for json in [false, true] {
        let l = layout();
        std::fs::write(l.repo.join("app.txt"), app("pgie.txt")).unwrap();
        // DS006 (a trailing comment in a path) fixes pgie.txt, DS701 app.txt.
        let pgie = "[property]\ngie-unique-id=1\nbatch-size=2\nlabelfile-path=labels.txt # the classes\n";
        std::fs::write(l.repo.join("pgie.txt"), pgie).unwrap();
        std::fs::write(l.repo.join("labels.txt"), "car\n").unwrap();
        let args: &[&str] = if json {
            &["fix", "--write", ".", "--format", "json"]
        } else {
            &["fix", "--write", "."]
        };
        let mut child = paused_fix_of(&l.repo, "3000", args);
        let mut stdout = child.stdout.take().unwrap();
        let edited = format!("{}# edited by hand meanwhile\n", app("pgie.txt"));
        std::fs::write(l.repo.join("app.txt"), &edited).unwrap();
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut out).unwrap();
        let done = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&done.stderr);
        assert_eq!(done.status.code(), Some(2), "{err}");
        assert_eq!(std::fs::read_to_string(l.repo.join("app.txt")).unwrap(), edited);
        assert_eq!(
            std::fs::read_to_string(l.repo.join("pgie.txt")).unwrap(),
            "[property]\ngie-unique-id=1\nbatch-size=2\n# the classes\nlabelfile-path=labels.txt\n"
        );
        if json {
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["written"], true);
            assert_eq!(v["not_written"], serde_json::json!(["./app.txt"]));
            let field = |list: &str, name: &str| -> Vec<String> {
                (v[list].as_array().unwrap().iter())
                    .map(|x| x[name].as_str().unwrap().to_string())
                    .collect()
            };
            assert_eq!(field("changed", "file"), ["./pgie.txt"]);
            assert_eq!(field("fixes", "code"), ["DS006"]);
        } else {
            assert!(
                err.contains(
                    "fixed 1 finding in 1 file (DS006 ×1).\n1 fix in 1 file not written (the errors above).\n"
                ),
                "{err}"
            );
        }
    }
}

#[test]
fn signals_during_fix_write_leave_nothing_behind() {
    use std::os::unix::process::ExitStatusExt;
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let l = layout();
        let original = app("pgie.txt");
        std::fs::write(l.repo.join("app.txt"), &original).unwrap();
        std::fs::write(l.repo.join("pgie.txt"), "[property]\ngie-unique-id=1\nbatch-size=2\n").unwrap();
        let child = paused_fix(&l.repo, "20000");
        let start = Instant::now();
        // SAFETY: kill(2) on the child this test started.
        assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
        let out = child.wait_with_output().unwrap();
        assert!(start.elapsed() < Duration::from_secs(5), "signal {sig} did not stop it");
        assert_eq!(
            out.status.signal(),
            Some(sig),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(std::fs::read_to_string(l.repo.join("app.txt")).unwrap(), original);
        assert!(
            temp_names(&l.repo).is_empty(),
            "signal {sig}: {:?}",
            temp_names(&l.repo)
        );
    }
}

#[test]
fn control_characters_do_not_reach_the_terminal() {
    let l = layout();
    let hostile = "[property]\ngie-unique-id=1\nnetwork-type=0\nmodel-engine-file=m.engine # \u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{202e}x\nbatch-size=2\n";
    std::fs::write(l.repo.join("pgie.txt"), hostile).unwrap();
    for format in ["human", "github"] {
        let (_, out, err) = run(&l.repo, &["check", "pgie.txt", "--format", format]);
        let all = format!("{out}{err}");
        assert!(all.contains("model-engine-file"), "{all}");
        for bad in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
            assert!(!all.contains(bad), "{format}: raw {bad:?} in {all:?}");
        }
        assert!(all.contains("\\x1b]0;pwned\\x07\\x1b[2J"), "{format}: {all}");
    }
}

/// deepstream-parallel-infer's references behave like every other one: a
/// `cfg-file-path` (tracker, secondary GIEs) leaving the root gets its DS704
/// info, and `--follow-outside` reads the metamux's `config-file` (whose
/// pipeline's findings then lose their details) without echoing it.
#[test]
fn parallel_infer_references_leaving_the_root_are_treated_like_the_others() {
    let l = layout();
    std::fs::write(l.elsewhere.join("tr.yml"), "tracker:\n  enable: 1\n  SECRETKEY: 1\n").unwrap();
    std::fs::write(l.elsewhere.join("mm.txt"), "[property]\nenable=1\nSECRETMM=1\n").unwrap();
    std::fs::write(l.repo.join("sources.csv"), "enable,type,uri\n1,2,file:///a.mp4\n").unwrap();
    let yml = "application:\n  enable-perf-measurement: 1\nsource:\n  csv-file-path: sources.csv\nstreammux:\n  batch-size: 2\n  batched-push-timeout: 40000\nprimary-gie0:\n  enable: 1\n  gie-unique-id: 1\n  config-file: pgie.txt\nbranch0:\n  pgie-id: 1\n  src-ids: 0\ntracker0:\n  enable: 1\n  cfg-file-path: ../elsewhere/tr.yml\nmeta-mux:\n  enable: 1\n  config-file: ../elsewhere/mm.txt\nsink0:\n  enable: 1\n  type: 1\n  sync: 0\n";
    std::fs::write(l.repo.join("app.yml"), yml).unwrap();
    std::fs::write(l.repo.join("pgie.txt"), "[property]\ngie-unique-id=1\n").unwrap();
    let (_, out, err) = run(&l.repo, &["check", "."]);
    assert!(
        out.contains("cfg-file-path ../elsewhere/tr.yml is outside the project root; not checked"),
        "{out}{err}"
    );
    assert!(out.contains("batched-push-timeout is 40000"), "{out}{err}");
    let (_, out, err) = run(&l.repo, &["check", ".", "--follow-outside"]);
    assert!(
        out.contains("batched-push-timeout: involves a file outside the project root; details withheld"),
        "{out}{err}"
    );
    assert!(!format!("{out}{err}").contains("SECRET"), "{out}{err}");
}

/// The repository's file names and its `dslint.toml` reach stderr and the
/// `--show-files` listing escaped too: pre-commit and `--changed-since`
/// name the repository's files, a skipped one gets a notice, and a
/// bench variant's name comes from its app's.
#[test]
fn control_characters_in_names_do_not_reach_the_terminal() {
    let l = layout();
    let bad = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}\u{202e}";
    let notes = format!("notes{bad}.txt");
    std::fs::write(l.repo.join(&notes), "just words\n").unwrap();
    let app_name = format!("app{bad}.txt");
    std::fs::write(l.repo.join(&app_name), app("pgie.txt")).unwrap();
    std::fs::write(l.repo.join("pgie.txt"), "[property]\ngie-unique-id=1\nbatch-size=4\n").unwrap();
    let raw = |what: &str, all: &str| {
        for c in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}'] {
            assert!(!all.contains(c), "{what}: raw {c:?} in {all:?}");
        }
    };
    let escaped = "\\x1b]0;pwned\\x07\\x1b[2J\\u{9b}\\u{202e}";
    // A named file that is no config: the notice on stderr.
    let (rc, out, err) = run(&l.repo, &["check", &notes, &app_name]);
    assert_eq!(rc, 1, "{out}{err}");
    raw("check", &format!("{out}{err}"));
    assert!(
        err.contains(&format!("dslint: notes{escaped}.txt: skipped, not checked")),
        "{err}"
    );
    let (_, out, err) = run(&l.repo, &["check", ".", "--show-files"]);
    raw("--show-files", &format!("{out}{err}"));
    assert!(
        out.contains(&format!("./notes{escaped}.txt: skipped (not-a-config)")),
        "{out}"
    );
    let (rc, out, err) = run(&l.repo, &["fix", "--variant", "bench", "--write", &app_name]);
    assert_eq!(rc, 0, "{err}");
    raw("fix --variant bench", &format!("{out}{err}"));
    assert_eq!(err, format!("wrote app{escaped}.bench.txt\n"));
    // A code in the repository's settings, quoted in the error.
    std::fs::write(l.repo.join("dslint.toml"), "select = [\"DS\\u001b[2J\"]\n").unwrap();
    let (rc, out, err) = run(&l.repo, &["check", "pgie.txt"]);
    assert_eq!(rc, 2, "{out}{err}");
    raw("dslint.toml", &format!("{out}{err}"));
    assert!(err.contains("`DS\\x1b[2J` is no rule code or prefix"), "{err}");
    // A `\` is part of a name: an annotation never lands on another file
    // (`sub\pgie.txt` is not `sub/pgie.txt`).
    std::fs::remove_file(l.repo.join("dslint.toml")).unwrap();
    std::fs::write(
        l.repo.join("sub\\pgie.txt"),
        "[property]\ngie-unique-id=1\nonnx-file=m.onnx\nbatch-size=4\nx-unknown=1\n",
    )
    .unwrap();
    for format in ["github", "rdjson"] {
        let (_, out, err) = run(&l.repo, &["check", "sub\\pgie.txt", "--format", format]);
        assert!(!out.contains("sub/pgie.txt"), "{format}: {out}{err}");
        assert!(
            out.contains("sub\\pgie.txt") || out.contains("sub\\\\pgie.txt"),
            "{format}: {out}{err}"
        );
    }
}

/// Ignore files count from the project root down only, as for git: the
/// folders above it (a shared `/tmp`, another user's) can neither hang the
/// walk (a FIFO `.gitignore`) nor decide what is checked (`*` in an
/// `.ignore` or a `.git/info/exclude` there). Inside the root they count as
/// before, and together they are bounded (their globs, compiled, take
/// hundreds of times their size).
#[test]
fn ignore_files_above_the_root_are_never_read() {
    let l = layout();
    std::fs::write(l.repo.join("app.txt"), app("pgie.txt")).unwrap();
    std::fs::write(l.repo.join("pgie.txt"), "[property]\ngie-unique-id=1\nbatch-size=4\n").unwrap();
    std::fs::write(l.top.join(".ignore"), "*\n").unwrap();
    std::fs::create_dir_all(l.top.join(".git/info")).unwrap();
    std::fs::write(l.top.join(".git/info/exclude"), "*.txt\n").unwrap();
    mkfifo(&l.top.join(".gitignore"));
    let limit = Duration::from_secs(20);
    let names = |args: &[&str]| {
        let (_, out, err) = run_bounded(&l.repo, args, &[], limit);
        assert!(err.is_empty(), "{args:?}: {err}");
        out.lines()
            .map(|l| l.split(':').next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&["check", ".", "--show-files"]), ["./app.txt", "./pgie.txt"]);
    assert_eq!(names(&["check", "app.txt", "--show-files"]), ["app.txt", "pgie.txt"]);
    // Inside the root: `.ignore` before `.gitignore` before the
    // repository's excludes, the deepest folder first, `!` keeps a file.
    std::fs::create_dir_all(l.repo.join("sub/deep")).unwrap();
    std::fs::write(l.repo.join(".gitignore"), "gen*.txt\nsub/deep/\n").unwrap();
    std::fs::write(l.repo.join(".ignore"), "!gen-kept.txt\n").unwrap();
    std::fs::create_dir_all(l.repo.join(".git/info")).unwrap();
    std::fs::write(l.repo.join(".git/info/exclude"), "local.txt\n").unwrap();
    std::fs::write(l.repo.join("sub/.gitignore"), "!gen-sub.txt\n").unwrap();
    for f in [
        "gen-a.txt",
        "gen-kept.txt",
        "local.txt",
        "sub/gen-sub.txt",
        "sub/gen-b.txt",
        "sub/deep/x.txt",
    ] {
        std::fs::write(l.repo.join(f), "[property]\ngie-unique-id=1\nbatch-size=4\n").unwrap();
    }
    assert_eq!(
        names(&["check", ".", "--show-files"]),
        ["./app.txt", "./gen-kept.txt", "./pgie.txt", "./sub/gen-sub.txt"]
    );
    // The same rules when a folder below the root is walked.
    assert_eq!(names(&["check", "sub", "--show-files"]), ["sub/gen-sub.txt"]);
    // A link out of the root as an ignore file: its folder is not walked.
    std::fs::write(l.elsewhere.join("ignore"), "*\n").unwrap();
    symlink(l.elsewhere.join("ignore"), l.repo.join("sub/.ignore")).unwrap();
    let (_, out, _) = run_bounded(&l.repo, &["check", "."], &[], limit);
    assert!(
        out.contains(".ignore is a link that leads outside the project root; folder not walked\n  --> ./sub"),
        "{out}"
    );
    std::fs::remove_file(l.repo.join("sub/.ignore")).unwrap();
    // Over 512 KiB of ignore files together: nothing is walked.
    let comments = "# a comment line\n".repeat(20_000);
    std::fs::write(l.repo.join("sub/.gitignore"), &comments).unwrap();
    std::fs::create_dir_all(l.repo.join("more")).unwrap();
    std::fs::write(l.repo.join("more/.gitignore"), &comments).unwrap();
    // The run fails: it checked nothing it was asked to (exit 2).
    let (rc, out, err) = run_bounded(&l.repo, &["check", "."], &[], limit);
    assert_eq!((rc, err), (2, format!("dslint: .: {OVER_IGNORE}\n")), "{out}");
    assert!(out.contains(&format!("{OVER_IGNORE}\n  --> .")), "{out}");
}

/// What a walk stopped by its ignore files, or by the folders it entered
/// through links, says.
const OVER_IGNORE: &str = "the ignore files (.ignore, .gitignore) under it are over 524288 bytes, 10000 patterns or 10000 wildcards (*, ?, [) together, more than dslint compiles (globs take hundreds of times their size in memory), or its links to folders lead to over 16384 folders (a folder reached through two links is walked once for each); nothing walked";

/// `check` in `dir` with its output thrown away; its own peak memory in
/// KiB, as GNU time (`/usr/bin/time -f %M`) reports it.
///
/// Not `wait4`'s `ru_maxrss` of a child spawned from here: Linux carries
/// the spawning process's high-water mark into the child's at `exec`
/// (`exec_mmap` takes the old memory's, which after `vfork`/`posix_spawn`
/// is this harness's and after `fork` its copy), so that figure was the
/// larger of dslint's peak and this test binary's, which grows with every
/// test that held a big input beside it (a 10 MiB Dockerfile "peaked" at
/// 86–114 MiB in full runs and ~30 MiB alone). GNU time forks from its
/// own small process, so its child's figure is the child's.
fn peak_kib(dir: &Path, args: &[&str]) -> i64 {
    peak_kib_with(dir, args, &[])
}

/// `peak_kib` with these environment variables set.
fn peak_kib_with(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> i64 {
    let report = tempfile::NamedTempFile::new().unwrap();
    let status = Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(report.path())
        .arg(dslint_bin())
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("/usr/bin/time (GNU time: .ci/run installs it)");
    let text = std::fs::read_to_string(report.path()).unwrap();
    // GNU time writes "Command exited with non-zero status N" first when
    // the run fails (dslint's exit 1 for findings): the figure is the last
    // line.
    let kib = text.lines().last().and_then(|l| l.trim().parse().ok());
    kib.unwrap_or_else(|| panic!("/usr/bin/time gave no peak ({status}): {text:?}"))
}

/// The ignore files a walk compiles are bounded in bytes, patterns and
/// wildcards together (`files::walk::MAX_IGNORE_*`): globs compile to
/// hundreds of times their size (redteam: 4 MiB of them, ~2 GB). As the
/// attacker: just past each bound nothing is walked, with the notice, and
/// the run fails (exit 2, the notice on stderr too: a project its ignore
/// files kept from being walked never passes); at the bounds, the costliest
/// globs measured (a wildcard in each of 10,000 patterns of 52 bytes;
/// 10,000 `[!a]` classes) compile in well under the gigabytes they took.
#[test]
fn ignore_globs_are_bounded_in_what_they_compile_to() {
    let l = layout();
    std::fs::write(l.repo.join("app.txt"), app("pgie.txt")).unwrap();
    std::fs::write(l.repo.join("pgie.txt"), "[property]\ngie-unique-id=1\nbatch-size=4\n").unwrap();
    let limit = Duration::from_secs(20);
    let walked = |ignore: &str| {
        std::fs::write(l.repo.join(".gitignore"), ignore).unwrap();
        let (rc, out, err) = run_bounded(&l.repo, &["check", ".", "--show-files"], &[], limit);
        let over = out.contains(&format!(".: unreadable: DS005: {OVER_IGNORE}\n"));
        if over {
            assert_eq!((rc, err), (2, format!("dslint: .: {OVER_IGNORE}\n")));
        } else {
            assert_eq!((rc, err.as_str()), (0, ""));
        }
        (out.contains("./app.txt"), over)
    };
    let patterns = |n: usize, body: &str| (0..n).map(|i| format!("{i:05}{body}\n")).collect::<String>();
    // 10,001 short literal patterns (60 KiB), 10,001 wildcards in one.
    assert_eq!(walked(&patterns(10_001, "")), (false, true));
    // Whatever is selected, and with --exit-zero: DS005 not shown, the run
    // still fails with the notice. A config named alone is checked, but
    // the lazy walks of the root (the project's readers and Dockerfiles)
    // are stopped too: it fails as well, and its missing path is unknown.
    std::fs::write(l.repo.join("other.txt"), app("pgie_missing.txt")).unwrap();
    for args in [
        &["check", ".", "--select", "DS101", "--exit-zero"][..],
        &["fix", ".", "--ignore", "DS005"],
        &["check", "other.txt"],
    ] {
        let (rc, out, err) = run_bounded(&l.repo, args, &[], limit);
        let at = if args[1] == "." { "." } else { l.repo.to_str().unwrap() };
        let notice = format!("dslint: {at}: {OVER_IGNORE}");
        assert_eq!((rc, err.lines().next()), (2, Some(notice.as_str())), "{args:?}: {err}");
        assert!(!out.contains("DS704"), "{args:?}: {out}");
    }
    std::fs::remove_file(l.repo.join("other.txt")).unwrap();
    assert_eq!(walked(&format!("a{}\n", "?".repeat(10_001))), (false, true));
    assert_eq!(walked(&format!("a{}\n", "[!a]".repeat(10_001))), (false, true));
    // Comments and blank lines are no patterns.
    assert_eq!(
        walked(&format!("{}\n\n  \nx.txt\n", "# c\n".repeat(20_000))),
        (true, false)
    );
    // At the bounds: walked, and bounded.
    let at_bounds = [
        patterns(10_000, &format!("{}?", "b".repeat(45))),
        format!("{}\n", "[!a]".repeat(10_000)),
    ];
    for ignore in at_bounds {
        assert!(ignore.len() <= 512 * 1024);
        assert_eq!(walked(&ignore), (true, false));
        let peak = peak_kib(&l.repo, &["check", "."]);
        assert!(peak < 400 * 1024, "{} bytes of globs: peak {peak} KiB", ignore.len());
    }
}

/// A facts file may be the repository's (`facts` in its `dslint.toml`):
/// `report` shows its strings escaped too.
#[test]
fn report_shows_facts_strings_escaped() {
    let l = layout();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/report/compute_bound.json");
    let mut facts: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    facts["gpu"]["name"] = "NVIDIA \u{1b}]0;pwned\u{7}\u{1b}[2J H200".into();
    std::fs::write(l.repo.join("facts.json"), facts.to_string()).unwrap();
    let (rc, out, err) = run(&l.repo, &["report", "--facts", "facts.json"]);
    assert_eq!(rc, 0, "{err}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(out.contains("NVIDIA \\x1b]0;pwned\\x07\\x1b[2J H200"), "{out}");
}

/// An app config at `dir` naming a primary config that does not exist: a
/// finding (DS704) unless a container may hold the path.
fn app_naming_a_missing_file(dir: &Path, name: &str) {
    std::fs::write(dir.join(name), app("pgie_missing.txt")).unwrap();
}

/// A chain of `depth` folders `a/a/…/a` under `top`: the deepest.
fn deep(top: &Path, depth: usize) -> PathBuf {
    let d = (0..depth).fold(top.to_path_buf(), |p, _| p.join("a"));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The container verdicts' scans of a deep tree are bounded (hostile7):
/// each was quadratic or cubic in the folders' depth. A Dockerfile's
/// build context, sought from its folder up to the root, statted every
/// source at every folder (1,000 sources 600 folders deep: 600,000 stats
/// of 1,200-byte paths, ~70 s); a script's mount from an unknown folder
/// (`$X/p`) was made a path at every folder above the script (1,000 of
/// them 600 deep: 600,000 paths, ~600 MB); a Compose file's `../`-paths
/// were looked up from every start folder down to each file (600 deep:
/// ~10 s a file that names a missing path). Each is now bounded; past a
/// bound what the container holds is unknown (a missing path is not
/// reported).
#[test]
fn container_scans_of_deep_trees_are_bounded() {
    let depth = 600;
    let limit = Duration::from_secs(30);
    let scans = [
        ("Dockerfile", format!("FROM x\nCOPY {}zzz /d\n", "a ".repeat(999))),
        (
            "run.sh",
            format!(
                "docker run {}img\n",
                (0..1000).map(|j| format!("-v $X/p{j}:/t{j} ")).collect::<String>()
            ),
        ),
        (
            "c/docker-compose.yml",
            format!(
                "services:\n  s:\n    volumes:\n{}",
                (1..depth)
                    .map(|j| format!("      - {}x:/t{j}\n", "../".repeat(j)))
                    .collect::<String>()
            ),
        ),
    ];
    for (name, text) in scans {
        let l = layout();
        let bottom = deep(&l.repo, depth);
        std::fs::create_dir_all(bottom.join("c")).unwrap();
        std::fs::write(bottom.join(name), &text).unwrap();
        for i in 0..10 {
            app_naming_a_missing_file(&bottom, &format!("app{i}.txt"));
        }
        let (rc, _, err) = run_bounded(&l.repo, &["check", "."], &[], limit);
        assert!(rc == 0 || rc == 1, "{name}: exit {rc}: {err}");
        let peak = peak_kib(&l.repo, &["check", "."]);
        assert!(peak < 100 * 1024, "{name}: peak {peak} KiB");
    }
}

/// Whether a container holds a file is decided without looking outside
/// the root (hostile7): a Dockerfile's source through a link leaving the
/// root, and a script's absolute mount of a link outside that leads back
/// in, gave a different verdict (a finding, or none) as the file outside
/// existed or not, telling a pull request whether a path exists on the
/// machine running dslint.
#[test]
fn container_verdicts_do_not_tell_whether_an_outside_path_exists() {
    let l = layout();
    std::fs::create_dir_all(l.repo.join("configs")).unwrap();
    std::fs::create_dir_all(l.repo.join("docker")).unwrap();
    std::fs::create_dir_all(l.repo.join("mounted")).unwrap();
    app_naming_a_missing_file(&l.repo.join("configs"), "app.txt");
    // A path leaving the mounted folder: in the container, unknown.
    std::fs::write(l.repo.join("mounted/app.txt"), app("../models/pgie_missing.txt")).unwrap();
    symlink(&l.elsewhere, l.repo.join("out")).unwrap();
    std::fs::write(
        l.repo.join("docker/Dockerfile"),
        "FROM x\nCOPY out/probe.txt configs /d\n",
    )
    .unwrap();
    let link = l.elsewhere.join("link");
    std::fs::write(
        l.repo.join("run.sh"),
        format!("docker run -v {}:/app img\n", link.display()),
    )
    .unwrap();
    let show = |present: bool| {
        let _ = std::fs::remove_file(l.elsewhere.join("probe.txt"));
        let _ = std::fs::remove_file(&link);
        if present {
            std::fs::write(l.elsewhere.join("probe.txt"), "x").unwrap();
            symlink(l.repo.join("mounted"), &link).unwrap();
        }
        let (rc, out, err) = run(&l.repo, &["check", ".", "--format", "json"]);
        (rc, out, err)
    };
    let (present, absent) = (show(true), show(false));
    assert_eq!(present, absent);
}

/// The container scans hold no list of a huge file's words (hostile7): a
/// 10 MiB Dockerfile of one `COPY` of 5 million sources took ~420 MB, a
/// `COPY` JSON array of 2 million ~160 MB, 2 million heredocs ~110 MB, a
/// script's `docker run -v` line of 5 million words ~260 MB. Past their
/// bounds (`MAX_SOURCES`, `MAX_MOUNTS`, the words of a command) what the
/// file copies or mounts is unknown, found without holding them all.
#[test]
fn container_scans_of_huge_files_hold_no_list_of_their_words() {
    let mib = 1024 * 1024;
    let files = [
        ("Dockerfile", format!("FROM x\nCOPY {} /d\n", "a ".repeat(5 * mib - 20))),
        (
            "Dockerfile",
            format!("FROM x\nCOPY [{}\"/d\"]\n", "\"a\",".repeat(2 * mib)),
        ),
        ("Dockerfile", format!("FROM x\nRUN {}\n", "<<a ".repeat(2 * mib))),
        (
            "run.sh",
            format!("docker run -v ./a:/a {} img\n", "x ".repeat(5 * mib - 20)),
        ),
    ];
    for (name, text) in files {
        let l = layout();
        std::fs::write(l.repo.join(name), &text).unwrap();
        app_naming_a_missing_file(&l.repo, "app.txt");
        let (rc, _, err) = run(&l.repo, &["check", "."]);
        assert!(rc == 0 || rc == 1, "{name}: exit {rc}: {err}");
        let peak = peak_kib(&l.repo, &["check", "."]);
        assert!(peak < 80 * 1024, "{name} of {} bytes: peak {peak} KiB", text.len());
    }
}

/// `check app.txt --statistics` in `repo`, `app.txt` being `text` and a
/// `[streammux]` group, within `limit`.
fn check_app_statistics(repo: &Path, mut text: String, limit: Duration) -> (i32, String, String) {
    text.push_str("\n[streammux]\nbatch-size=1\nwidth=1920\nheight=1080\n");
    std::fs::write(repo.join("app.txt"), text).unwrap();
    run_bounded(repo, &["check", "app.txt", "--statistics"], &[], limit)
}

/// A `[source-list]` app's `[source-attr-all]` keys are given to the list
/// element (`set_source_all_configs`); each was once looked for among the
/// keys given before it, quadratic in the group's keys: 200,000 distinct
/// keys (a 3.6 MB file) took ~50 s. Half the keys are deepstream-app's, so
/// the file is checked as an app config, not skipped as a custom app's.
#[test]
fn source_attr_all_with_many_keys_finishes() {
    let l = layout();
    let n = 200_000;
    let mut text = String::from(
        "[application]\nenable-perf-measurement=1\n\n[source-list]\nnum-source-bins=1\nlist=usb:0\n\n\
         [source-attr-all]\nenable=1\ntype=1\n",
    );
    for i in 0..n {
        text.push_str(&format!("k{i}=1\n"));
    }
    text.push_str(&"gpu-id=0\n".repeat(n + 100));
    let (rc, out, err) = check_app_statistics(&l.repo, text, Duration::from_secs(20));
    assert_eq!(rc, 1, "{err}");
    assert!(out.contains(&format!("{n}  DS002  warning")), "{out}");
}

/// A file of many fixes in one pass: each edit was put in place back to
/// front, moving the whole rest of the text, quadratic in the fixes
/// (hostile9: a pgie of 80,000 groups whose `eps=0.2 # c` loses its
/// comment to the line above, DS003, beside an engine rename: `fix --diff`
/// 5.6 s of CPU, three quarters in memmove; 200,000 groups, 5.6 MB, well
/// over a minute). The edits are spliced in one copy (`fix::apply`).
#[test]
fn a_file_of_many_fixes_is_fixed_in_linear_work() {
    let l = layout();
    let n = 200_000;
    let mut pgie = String::from(
        "[property]\ngpu-id=0\nonnx-file=m.onnx\nmodel-engine-file=m.onnx_b2_gpu0_fp32.engine\nbatch-size=2\nnetwork-mode=2\ngie-unique-id=1\nprocess-mode=1\nnetwork-type=0\n",
    );
    for i in 0..n {
        pgie.push_str(&format!("[class-attrs-{i}]\neps=0.2 # c\n"));
    }
    std::fs::write(l.repo.join("pgie.txt"), &pgie).unwrap();
    std::fs::write(l.repo.join("app.txt"), app("pgie.txt")).unwrap();
    for f in ["m.onnx", "m.onnx_b2_gpu0_fp16.engine", "video.mp4"] {
        std::fs::write(l.repo.join(f), "").unwrap();
    }
    let (rc, out, err) = run_bounded(&l.repo, &["fix", "--diff", "."], &[], Duration::from_secs(30));
    assert_eq!(rc, 1, "{err}");
    assert_eq!(out.matches("\n+# c\n+eps=0.2\n").count(), n, "{err}");
    assert!(out.contains("+model-engine-file=m.onnx_b2_gpu0_fp16.engine\n"), "{err}");
    assert!(
        err.contains("would fix 200002 findings in 2 files (DS003 ×200000, DS207 ×1, DS701 ×1)"),
        "{err}"
    );
}

/// The short texts the parsers intern last to the end of the process, and
/// each thread that parses has its own table of them (65,536 at most):
/// the walk starts threads of its own, so the texts kept grew with the
/// threads (hostile8: 512 files of 2,500 distinct keys, 21 MB, peaked at
/// 15 MiB on 1 thread and 157 MiB on 32, the texts never freed). They are
/// bounded over the process (`base::shared`'s 8 MiB).
#[test]
fn interned_texts_are_bounded_over_threads() {
    let l = layout();
    let mut n = 0;
    for f in 0..512 {
        let mut text = String::from("[property]\ngpu-id=0\nbatch-size=1\nnetwork-mode=2\ngie-unique-id=1\n");
        for _ in 0..2500 {
            text.push_str(&format!("k{n}=v{n}\n"));
            n += 1;
        }
        text.push_str("a line GLib refuses\n");
        std::fs::write(l.repo.join(format!("pgie{f}.txt")), text).unwrap();
    }
    let peak = |threads: &str| peak_kib_with(&l.repo, &["check", "."], &[("RAYON_NUM_THREADS", threads)]);
    let (one, many) = (peak("1"), peak("32"));
    assert!(many - one < 100 * 1024, "peak {one} KiB on 1 thread, {many} KiB on 32");
}

/// A path placed through a link may land far deeper than it is long
/// (`L/m0/v.mp4`, L a link to a folder 3.8 KiB deep): the placements and
/// the missing folders a run remembers are bounded in bytes, not only in
/// number (hostile8: 80,000 such references, a 4.3 MB config, peaked at
/// 770 MiB against 199 MiB for a link to a shallow folder).
#[test]
fn placements_through_long_links_are_bounded_in_bytes() {
    let l = layout();
    let deep: PathBuf = std::iter::repeat_n("x".repeat(250), 15).collect();
    for (name, target) in [("deep", deep.as_path()), ("shallow", Path::new("s"))] {
        let dir = l.repo.join(name);
        std::fs::create_dir_all(dir.join(target)).unwrap();
        symlink(target, dir.join("L")).unwrap();
        let mut text = String::from(
            "[application]\nenable-perf-measurement=1\n[streammux]\nbatch-size=1\nwidth=1\nheight=1\n[sink0]\nenable=1\ntype=1\n",
        );
        for i in 0..40_000 {
            text.push_str(&format!("[source{i}]\nenable=1\ntype=3\nuri=file://L/m{i}/v.mp4\n"));
        }
        std::fs::write(dir.join("app.txt"), text).unwrap();
    }
    let peak = |name: &str| peak_kib(&l.repo, &["check", name]);
    let (shallow, deep) = (peak("shallow"), peak("deep"));
    assert!(
        deep - shallow < 64 * 1024,
        "peak {shallow} KiB shallow, {deep} KiB deep"
    );
}

/// A `[source-list]` of many entries beside many `[sourceN]` groups (each
/// overrides its listed source, `parse_source` on `multi_source_config[N]`):
/// whether an override writes the source's `type` or `uri` was asked of
/// every override for each entry, entries times overrides (hostile10:
/// 200,000 entries and 20,000 groups, a 1.8 MB file, 18 s of CPU; a 10 MiB
/// file holds 10^6 entries and 10^5 groups). Finishes in linear work.
/// Since doubts9 a list past `MAX_SOURCE_BINS` (1,024) is one deepstream-app
/// refuses (`parse_source_list`): its sources are unknown and no rule
/// speaks, and within 1,024 entries the old product was at most ~10^9 short
/// steps, so this input no longer tells the old code from the new; it holds
/// the whole run bounded and silent.
#[test]
fn a_source_list_beside_many_overrides_finishes() {
    let l = layout();
    let (entries, overrides) = (200_000, 20_000);
    let list: Vec<String> = (0..entries).map(|i| format!("usb:{}", i % 4)).collect();
    let mut text = format!(
        "[application]\nenable-perf-measurement=1\n\n[source-list]\nlist={}\n\n[source-attr-all]\nenable=1\ntype=1\n",
        list.join(";")
    );
    for i in 0..overrides {
        text.push_str(&format!("[source{i}]\nenable=1\ntype=1\n"));
    }
    let (rc, out, err) = check_app_statistics(&l.repo, text, Duration::from_secs(10));
    assert_eq!((rc, err.as_str(), out.as_str()), (0, "", "No findings in 1 file.\n"));
}

/// Links to folders inside the root are followed, as the `ignore` crate
/// followed them, and a folder reached through two of them is walked once
/// for each: levels of folders, each holding two links to the next, are
/// 2^levels folders to walk (hostile10: 16 levels, 65,536 folders, 31 s;
/// 30 levels, 10^9, would not end). The folders a walk enters through
/// links are bounded (`files::walk::MAX_LINKED_FOLDERS`): past the bound
/// nothing is walked, with the notice, and the run fails (as for ignore
/// files past theirs); a few levels are walked as before.
#[test]
fn folders_reached_through_links_are_bounded() {
    let l = layout();
    let chain = |top: &Path, levels: usize| {
        for i in 0..=levels {
            std::fs::create_dir_all(top.join(format!("f{i}"))).unwrap();
            std::fs::write(top.join(format!("f{i}/notes.txt")), "").unwrap();
        }
        for i in 0..levels {
            for name in ["a", "b"] {
                symlink(format!("../f{}", i + 1), top.join(format!("f{i}/{name}"))).unwrap();
            }
        }
    };
    std::fs::create_dir_all(l.repo.join("few")).unwrap();
    chain(&l.repo.join("few"), 3);
    let (rc, out, err) = run_bounded(&l.repo, &["check", "few", "--show-files"], &[], Duration::from_secs(20));
    assert_eq!((rc, err.as_str()), (0, ""));
    // f0's notes as itself and through its links (1 + 2 + 4 + 8 paths),
    // f1's (7), f2's (3), f3's (1): each path listed.
    assert_eq!(out.matches("notes.txt").count(), 1 + 3 + 7 + 15, "{out}");
    // Stopped after 16,384 folders: ~2.5 s of CPU (mostly the loop checks'
    // opens of each folder above a link), 12 s on a loaded 2-core box.
    chain(&l.repo, 30);
    let (rc, out, err) = run_bounded(&l.repo, &["check", "."], &[], Duration::from_secs(60));
    assert_eq!((rc, err), (2, format!("dslint: .: {OVER_IGNORE}\n")), "{out}");
}

/// Whether a missing path is one the project's `.gitignore` files exclude
/// (DS704 is then silent: no clone carries it) asks each folder on its way
/// of the `.gitignore` of each folder above it, quadratic in its depth, and
/// was asked again for each path (hostile10: 200 paths 1,000 folders deep,
/// a `.gitignore` in each folder, 13 s of CPU; a 10 MiB config holds
/// thousands). A folder is asked once a run, and a path's matches are
/// bounded (`files::walk::GitIgnores`): past them it is unknown, and
/// DS704 silent on it, as on any path whose `.gitignore`s cannot be read.
#[test]
fn gitignore_verdicts_on_deep_missing_paths_are_bounded() {
    let l = layout();
    let mut deep = l.repo.clone();
    for _ in 0..250 {
        deep.push("d");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join(".gitignore"), "*.tmp\n").unwrap();
    }
    let rel = "d/".repeat(250);
    let mut text = String::from(
        "[application]\nenable-perf-measurement=1\n[streammux]\nbatch-size=1\nwidth=1\nheight=1\n[sink0]\nenable=1\ntype=1\n",
    );
    text.push_str("[source0]\nenable=1\ntype=3\nuri=file://gone/m.mp4\n");
    for i in 1..2000 {
        text.push_str(&format!("[source{i}]\nenable=1\ntype=3\nuri=file://{rel}m{i}.mp4\n"));
    }
    std::fs::write(l.repo.join("app.txt"), text).unwrap();
    let (rc, out, err) = run_bounded(
        &l.repo,
        &["check", "app.txt", "--statistics"],
        &[],
        Duration::from_secs(10),
    );
    assert_eq!((rc, err.as_str()), (0, ""));
    // The path in a folder that is not there is judged (no `.gitignore`
    // excludes it: DS704); each of the 1,999 deep ones is unknown.
    assert_eq!(
        out,
        "count  code   severity  fix  name\n    1  DS101  info      [-]  streammux-batch-size\n    1  DS704  info           missing-file\n    2  total: 0 errors, 0 warnings, 2 info in 1 file\nfix: [*] safe, applied by `dslint fix`; [-] unsafe, needs `dslint fix --unsafe-fixes`\n"
    );
}

/// The JSON formats (json, sarif, rdjson, `--show-files`, `--statistics`,
/// `fix --format json`) are read on terminals and review pages too: a
/// character a terminal acts on or that reorders the text (C1, DEL, a
/// bidirectional override) from a path, key, value or group name is
/// written as a JSON escape (`\u009b`), as the C0 ones already were. The
/// string a JSON reader gets is the same.
#[test]
fn json_formats_escape_what_a_terminal_acts_on() {
    let l = layout();
    let bad = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{85}\u{202e}\u{2066}\u{7f}";
    let pgie = format!("pgie{bad}.txt");
    std::fs::write(l.repo.join(format!("app{bad}.txt")), app(&pgie)).unwrap();
    let pgie_text = format!(
        "[property]\ngie-unique-id=1\nnetwork-type=0\nonnx-file=m{bad}.onnx\nlabelfile-path=l.txt # c{bad}\nbatch-size=29\n"
    );
    std::fs::write(l.repo.join(&pgie), pgie_text).unwrap();
    std::fs::write(l.repo.join("l.txt"), "car\n").unwrap();
    std::fs::write(
        l.repo.join(format!("bad{bad}.txt")),
        format!("[property]\nk{bad}=1\n[g{bad}]\n"),
    )
    .unwrap();
    let runs: &[&[&str]] = &[
        &["check", ".", "--format", "json"],
        &["check", ".", "--format", "sarif"],
        &["check", ".", "--format", "rdjson"],
        &["check", ".", "--show-files", "--format", "json"],
        &["check", ".", "--statistics", "--format", "json"],
        &["fix", ".", "--diff", "--format", "json"],
    ];
    for args in runs {
        let (_, out, err) = run(&l.repo, args);
        for c in ['\u{1b}', '\u{7}', '\u{9b}', '\u{85}', '\u{202e}', '\u{2066}', '\u{7f}'] {
            assert!(!out.contains(c), "{args:?}: raw {c:?} in {out}{err}");
        }
        let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"));
        // What a JSON reader gets is the names and values as they are.
        if !args.contains(&"--statistics") {
            fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
                match v {
                    serde_json::Value::String(s) => out.push(s.clone()),
                    serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
                    serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
                    _ => {}
                }
            }
            let mut all = Vec::new();
            strings(&v, &mut all);
            let name = format!("pgie{bad}.txt");
            assert!(all.iter().any(|s| s.contains(&name)), "{args:?}: {out}");
            assert!(
                out.contains("\\u009b31m\\u0085\\u202e\\u2066\\u007f"),
                "{args:?}: {out}"
            );
        }
    }
}

/// A `[source-list]` `list` is a `;` list GLib splits; deepstream-app holds
/// at most `MAX_SOURCE_BINS` (1,024) sources, so a longer list is unknown
/// and silent, and is never held as a list of its entries: a 10 MB file of
/// `;` (10^7 empty entries) or of `a;` peaked at 714 and 424 MiB (a string
/// for each entry, made three times), beside ~72 MiB for a 10 MB value
/// without `;`.
#[test]
fn long_lists_are_not_held_as_lists_of_their_entries() {
    let l = layout();
    let n = 10_000_000;
    let head = "[application]\nenable-perf-measurement=1\n\n[source-attr-all]\nenable=1\ntype=3\n\n[source-list]\n";
    let tail = "\n[streammux]\nbatch-size=4\nwidth=960\nheight=544\n";
    for (name, list) in [
        ("empty entries", ";".repeat(n)),
        ("one-byte entries", "a;".repeat(n / 2)),
        ("usb entries", "usb:1;".repeat(n / 6)),
    ] {
        let text = format!("{head}list={list}\n{tail}");
        std::fs::write(l.repo.join("app.txt"), &text).unwrap();
        let (rc, out, err) = run_bounded(
            &l.repo,
            &["check", "app.txt", "--statistics"],
            &[],
            Duration::from_secs(60),
        );
        assert_eq!((rc, err.as_str()), (0, ""), "{name}: {out}");
        let peak = peak_kib(&l.repo, &["check", "app.txt"]);
        assert!(peak < 160 * 1024, "{name} of {} bytes: peak {peak} KiB", text.len());
        let peak = peak_kib(&l.repo, &["fix", "--diff", "app.txt"]);
        assert!(peak < 160 * 1024, "{name}, fix --diff: peak {peak} KiB");
    }
}

/// `git` run in `dir`; its exit status and stderr.
fn git(dir: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git is installed");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A lone CR in a hunk (a context line here; `git diff` and GNU `diff -u`
/// write it as it is, and a line with it escaped matches no line of the
/// file). Written to a regular file (`fix --diff > fix.patch`), the diff
/// keeps the bytes and `git apply` takes it, giving what `fix --write`
/// writes; so does the JSON report's diff (the JSON string escapes the
/// CR). Through a pipe (a terminal, a CI runner that ends a line at a lone
/// CR and obeys a `::` line) it stays escaped, and stderr says it will not
/// apply.
#[test]
fn a_diff_with_a_lone_cr_applies_from_a_file() {
    let l = layout();
    std::fs::remove_dir(l.repo.join(".git")).unwrap();
    assert!(git(&l.repo, &["init", "-q", "."]).0);
    let app_text = app("pgie.txt").replace("batch-size=4\n", "batch-size=4\n# tuned\r::error::spoofed\n");
    std::fs::write(l.repo.join("app.txt"), &app_text).unwrap();
    std::fs::write(l.repo.join("pgie.txt"), "[property]\ngie-unique-id=1\nbatch-size=2\n").unwrap();
    let patch = l.top.join("fix.patch");
    let out = Command::new(dslint_bin())
        .args(["fix", "--diff", "app.txt"])
        .current_dir(&l.repo)
        .env("NO_COLOR", "1")
        .stdout(std::fs::File::create(&patch).unwrap())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("escaped"), "{err}");
    let diff = std::fs::read_to_string(&patch).unwrap();
    assert_eq!(
        diff,
        "--- a/app.txt\n+++ b/app.txt\n@@ -9,7 +9,7 @@\n gpu-id=0\n \n [streammux]\n-batch-size=4\n+batch-size=2\n # tuned\r::error::spoofed\n batched-push-timeout=40000\n width=960\n"
    );
    let (ok, why) = git(&l.repo, &["apply", "--check", patch.to_str().unwrap()]);
    assert!(ok, "{why}");
    assert!(git(&l.repo, &["apply", patch.to_str().unwrap()]).0);
    let applied = std::fs::read_to_string(l.repo.join("app.txt")).unwrap();
    assert_eq!(applied, app_text.replace("batch-size=4\n", "batch-size=2\n"));
    std::fs::write(l.repo.join("app.txt"), &app_text).unwrap();
    let (rc, _, _) = run(&l.repo, &["fix", "--write", "app.txt"]);
    assert_eq!(rc, 0);
    assert_eq!(std::fs::read_to_string(l.repo.join("app.txt")).unwrap(), applied);
    // The JSON report's diff is the same exact diff.
    std::fs::write(l.repo.join("app.txt"), &app_text).unwrap();
    let (_, out, _) = run(&l.repo, &["fix", "app.txt", "--format", "json"]);
    assert!(!out.contains('\r'), "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["changed"][0]["diff"], diff.as_str());
    // Through a pipe: escaped, and said so.
    let (rc, out, err) = run(&l.repo, &["fix", "--diff", "app.txt"]);
    assert_eq!(rc, 1, "{err}");
    assert_eq!(out, diff.replace('\r', "\\x0d"));
    assert!(
        err.contains("1 diff has control characters shown escaped (\\x0d): it will not apply; `fix --diff > FILE` writes the bytes as they are.\n"),
        "{err}"
    );
}

/// `git diff` of one file, with `core.quotePath` as given.
fn git_diff(repo: &Path, quote_path: &str, name: &str) -> Vec<u8> {
    Command::new("git")
        .args([
            "-c",
            &format!("core.quotePath={quote_path}"),
            "diff",
            "--no-color",
            "--",
            name,
        ])
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo)
        .output()
        .unwrap()
        .stdout
}

/// A diff header names a file as `git diff` does (its default
/// `core.quotePath`): a name with a control character (C0 or C1), a
/// bidirectional mark or a quote is C-quoted with octal escapes for every
/// byte from 0x80 up, so nothing in it reaches a terminal raw and nothing
/// is escaped a second way (`\u{9b}` beside `\033` before). The lines are
/// compared with git's own for the same change, and `git apply` takes the
/// diff.
#[test]
fn diff_headers_quote_names_as_git_does() {
    let l = layout();
    std::fs::remove_dir(l.repo.join(".git")).unwrap();
    assert!(git(&l.repo, &["init", "-q", "."]).0);
    std::fs::write(l.repo.join("pgie.txt"), "[property]\ngie-unique-id=1\nbatch-size=2\n").unwrap();
    let names = [
        "app\u{1b}[2J\u{9b}x\u{202e}y\u{e9}.txt",
        "app \u{e9}\t\u{7}\u{7f}\"q\\.txt",
        "app \u{e9}.txt",
    ];
    for name in names {
        std::fs::write(l.repo.join(name), app("pgie.txt")).unwrap();
    }
    assert!(git(&l.repo, &["add", "."]).0);
    assert!(
        git(
            &l.repo,
            &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a"]
        )
        .0
    );
    for name in names {
        let patch = l.top.join("fix.patch");
        let out = Command::new(dslint_bin())
            .args(["fix", "--diff", name])
            .current_dir(&l.repo)
            .env("NO_COLOR", "1")
            .stdout(std::fs::File::create(&patch).unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        let ours = std::fs::read(&patch).unwrap();
        let (ok, why) = git(&l.repo, &["apply", "--check", patch.to_str().unwrap()]);
        assert!(ok, "{name:?}: {why}");
        // Through a pipe the headers are the same: nothing in them is left
        // for the escaping of the lines.
        let (_, piped, _) = run(&l.repo, &["fix", "--diff", name]);
        assert_eq!(piped.as_bytes(), ours.as_slice(), "{name:?}");
        let (rc, _, err) = run(&l.repo, &["fix", "--write", name]);
        assert_eq!(rc, 0, "{err}");
        let theirs = git_diff(&l.repo, "true", name);
        let headers = |d: &[u8]| -> Vec<Vec<u8>> {
            d.split(|&b| b == b'\n')
                .filter(|l| l.starts_with(b"--- ") || l.starts_with(b"+++ "))
                .map(<[u8]>::to_vec)
                .collect()
        };
        // git quotes a name with only printable UTF-8 past ASCII only with
        // `core.quotePath` on; dslint writes it as it is, as git with it off.
        let quoted = name != "app \u{e9}.txt";
        let theirs = if quoted {
            theirs
        } else {
            git_diff(&l.repo, "false", name)
        };
        assert_eq!(
            String::from_utf8_lossy(&headers(&ours).concat()),
            String::from_utf8_lossy(&headers(&theirs).concat()),
            "{name:?}"
        );
        for h in headers(&ours).iter().filter(|_| quoted) {
            assert!(
                h.iter().all(|&b| (0x20..0x7f).contains(&b) || b == b'\t'),
                "{name:?}: {h:?}"
            );
        }
    }
}

/// The name `fix --write` rewrites is swapped at the last moment, after
/// its last look at it (the test pause is there): for a link to a file
/// outside the root, a FIFO, another file renamed over it. The write
/// neither follows the link nor puts the stale edit in place of what is
/// there now: the name keeps what was put there, the file outside keeps
/// its bytes, and the run says so and fails. (The plain rename put the
/// edit in place of each.)
#[test]
fn a_name_swapped_before_the_rename_keeps_what_was_put_there() {
    use std::os::unix::fs::FileTypeExt;
    for swap in ["link", "fifo", "other"] {
        let l = layout();
        std::fs::write(l.repo.join("app.txt"), app("pgie.txt")).unwrap();
        std::fs::write(l.repo.join("pgie.txt"), "[property]\ngie-unique-id=1\nbatch-size=2\n").unwrap();
        let outside = l.elsewhere.join("outside.txt");
        std::fs::write(&outside, "outside\n").unwrap();
        let child = paused_fix(&l.repo, "3000");
        let target = l.repo.join("app.txt");
        let swapped = l.repo.join("swapped");
        match swap {
            "link" => symlink(&outside, &swapped).unwrap(),
            "fifo" => mkfifo(&swapped),
            _ => std::fs::write(&swapped, "other\n").unwrap(),
        }
        std::fs::rename(&swapped, &target).unwrap();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{swap}: {err}");
        let meta = std::fs::symlink_metadata(&target).unwrap();
        match swap {
            "link" => {
                assert!(meta.file_type().is_symlink(), "{swap}");
                assert!(err.contains("app.txt is a link; not written"), "{swap}: {err}");
            }
            "fifo" => {
                assert!(meta.file_type().is_fifo(), "{swap}");
                assert!(
                    err.contains("app.txt is not a regular file; not written"),
                    "{swap}: {err}"
                );
            }
            _ => {
                assert_eq!(std::fs::read_to_string(&target).unwrap(), "other\n");
                assert!(
                    err.contains("app.txt changed since it was read; not written"),
                    "{swap}: {err}"
                );
            }
        }
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "outside\n", "{swap}");
        assert!(temp_names(&l.repo).is_empty(), "{swap}: {:?}", temp_names(&l.repo));
    }
}
