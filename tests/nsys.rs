//! `dslint nsys`: wrap golden tests on scripts of many shapes, injection into
//! FastDeploy runners in each state, and capture against a fake service and
//! a fake `nsys` (no GPU, no real nsys).

mod support;

use std::path::Path;

use dslint::nsys::{inject, wrap};
use support::*;

#[test]
fn wrap_golden_scripts() {
    let scripts = files_under(Path::new("testdata/nsys/scripts"));
    assert!(scripts.len() >= 10);
    for s in scripts {
        let name = s.file_stem().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(&s).unwrap();
        let shown = match wrap::wrap(&src, wrap::Level::Coarse, None, None) {
            Ok(out) => {
                // Wrapping is idempotent, bytes outside the insertions stay,
                // and line endings are the script's own.
                assert_eq!(
                    wrap::wrap(&out, wrap::Level::Coarse, None, None).unwrap(),
                    out,
                    "{name}"
                );
                assert_eq!(out.contains("\r\n"), src.contains("\r\n"), "{name}");
                if src.contains("\r\n") {
                    assert!(!out.replace("\r\n", "").contains('\n'), "{name}: mixed line endings");
                }
                let stripped = out.replace("${NSYS_CMD} ", "");
                let without_block: String = {
                    let (a, rest) = stripped
                        .split_once(wrap::BEGIN)
                        .map_or((stripped.as_str(), ""), |(a, r)| (a, r));
                    let rest = rest.split_once(wrap::END).map_or("", |(_, r)| r);
                    let rest = rest
                        .strip_prefix("\r\n")
                        .or_else(|| rest.strip_prefix('\n'))
                        .unwrap_or(rest);
                    format!("{a}{rest}")
                };
                if !src.contains(wrap::BEGIN) {
                    assert_eq!(without_block, src, "{name}");
                }
                dslint::fix::diff::unified(Path::new(&format!("{name}.sh")), &src, &out, false)
            }
            Err(e) => format!("refused: {e}\n"),
        };
        insta::assert_snapshot!(format!("wrap_{name}"), shown);
    }
}

#[test]
fn wrap_cli_writes_a_copy_that_runs_like_the_original() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    let tmp = tempfile::tempdir().unwrap();
    let s = tmp.path().join("start.sh");
    std::fs::copy("testdata/nsys/scripts/02_env_prefix.sh", &s).unwrap();
    std::fs::set_permissions(&s, std::fs::Permissions::from_mode(0o750)).unwrap();
    let (rc, out, err) = dslint_env(
        &[
            "nsys",
            "wrap",
            s.to_str().unwrap(),
            "--level",
            "detailed",
            "--output-dir",
            "/data/nsys",
        ],
        &[],
    );
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("wrote ") && out.contains("start_nsys.sh"), "{out}");
    let w = std::fs::read_to_string(tmp.path().join("start_nsys.sh")).unwrap();
    assert!(w.contains("NSYS_OUTPUT_DIR=\"${NSYS_OUTPUT_DIR:-/data/nsys}\""));
    assert!(
        w.contains("--cuda-graph-trace=node --output $NSYS_OUTPUT\"\n# coarse"),
        "{w}"
    );
    assert_eq!(mode(&tmp.path().join("start_nsys.sh")), 0o750);
    // Wrapping the wrapped copy writes nothing (no start_nsys_nsys.sh).
    let (rc, out, err) = dslint_env(
        &["nsys", "wrap", tmp.path().join("start_nsys.sh").to_str().unwrap()],
        &[],
    );
    assert_eq!(rc, 0, "{err}");
    assert_eq!(
        out,
        format!(
            "{} is already wrapped (it holds dslint's nsys block); nothing written\n",
            tmp.path().join("start_nsys.sh").display()
        )
    );
    assert!(!tmp.path().join("start_nsys_nsys.sh").exists());
    // A script that is not executable gets a copy that is not either.
    let plain = tmp.path().join("plain.sh");
    std::fs::write(&plain, "#!/bin/sh\npython3 -c $'print(\\'hi\\')' serve.py\n").unwrap();
    std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (rc, _, err) = dslint_env(&["nsys", "wrap", plain.to_str().unwrap()], &[]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(mode(&tmp.path().join("plain_nsys.sh")), 0o640);
    assert!(
        std::fs::read_to_string(tmp.path().join("plain_nsys.sh"))
            .unwrap()
            .ends_with("# <<< dslint nsys\n${NSYS_CMD} python3 -c $'print(\\'hi\\')' serve.py\n")
    );
    assert_eq!(
        std::fs::read_to_string(&s).unwrap(),
        std::fs::read_to_string("testdata/nsys/scripts/02_env_prefix.sh").unwrap()
    );
    let (rc, _, err) = dslint_env(&["nsys", "wrap", "testdata/nsys/scripts/13_ambiguous_branches.sh"], &[]);
    assert_eq!(rc, 2);
    assert!(err.contains("--line N"));
    let (rc, out, _) = dslint_env(
        &[
            "nsys",
            "wrap",
            "testdata/nsys/scripts/13_ambiguous_branches.sh",
            "--line",
            "5",
            "--diff",
        ],
        &[],
    );
    assert_eq!(rc, 0);
    assert!(out.contains("+  ${NSYS_CMD} python3 -m fastdeploy"), "{out}");
}

#[test]
fn inject_in_each_state() {
    for (state, want) in [("missing", "missing"), ("disabled", "disabled"), ("active", "active")] {
        let src = std::fs::read_to_string(format!(
            "testdata/nsys/fastdeploy/{state}/fastdeploy/worker/gpu_model_runner.py"
        ))
        .unwrap();
        let got = match inject::state(&src) {
            inject::State::Missing => "missing",
            inject::State::Disabled { .. } => "disabled",
            inject::State::Active { .. } => "active",
        };
        assert_eq!(got, want);
    }
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("site/fastdeploy/worker");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::copy(
        "testdata/nsys/fastdeploy/missing/fastdeploy/worker/gpu_model_runner.py",
        pkg.join("gpu_model_runner.py"),
    )
    .unwrap();
    // Found through the PYTHONPATH a launch script exports.
    let script = tmp.path().join("start.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/bash\nexport PYTHONPATH={}:$PYTHONPATH\npython -m fastdeploy.entrypoints.openai.api_server\n",
            tmp.path().join("site").display()
        ),
    )
    .unwrap();
    let (rc, out, err) = dslint_env(
        &[
            "nsys",
            "inject",
            "--fastdeploy",
            "--script",
            script.to_str().unwrap(),
            "--start-step",
            "40",
            "--stop-step",
            "60",
        ],
        &[],
    );
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("profiler window injected (steps 40 to 60)"), "{out}");
    let runner = std::fs::read_to_string(pkg.join("gpu_model_runner.py")).unwrap();
    let original =
        std::fs::read_to_string("testdata/nsys/fastdeploy/missing/fastdeploy/worker/gpu_model_runner.py").unwrap();
    assert_eq!(
        std::fs::read_to_string(pkg.join("gpu_model_runner.py.bak")).unwrap(),
        original
    );
    insta::assert_snapshot!(
        "inject_fastdeploy",
        dslint::fix::diff::unified(Path::new("gpu_model_runner.py"), &original, &runner, false)
    );
    // Twice changes nothing.
    let (rc, out, _) = dslint_env(
        &[
            "nsys",
            "inject",
            "--fastdeploy",
            tmp.path().join("site").to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(rc, 0);
    assert!(out.contains("present and active"), "{out}");
    assert_eq!(
        std::fs::read_to_string(pkg.join("gpu_model_runner.py")).unwrap(),
        runner
    );
    let (rc, out, _) = dslint_env(
        &["nsys", "inject", "--fastdeploy", "testdata/nsys/fastdeploy/disabled"],
        &[],
    );
    assert_eq!(rc, 0);
    assert!(
        out.contains("present but disabled") && out.contains("lines 17, 18"),
        "{out}"
    );
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A launch script for the fake service (`prefix` goes before `python3`),
/// in a fresh folder.
fn fake_service_script(dir: &Path, port: u16, prefix: &str, delay: &str, mode: &str) -> std::path::PathBuf {
    let server = Path::new("tests/support/fake_server.py").canonicalize().unwrap();
    let script = dir.join("start.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/bash\n{prefix}python3 {} {port} {delay} {mode}\n",
            server.display()
        ),
    )
    .unwrap();
    script
}

/// Run `dslint nsys capture` on a script with the fake `nsys` first on PATH.
fn capture(script: &Path, port: u16, out_dir: &Path, extra: &[&str], envs: &[(&str, String)]) -> (i32, String, String) {
    let fakebin = Path::new("tests/support/fakebin").canonicalize().unwrap();
    let path = format!("{}:{}", fakebin.display(), std::env::var("PATH").unwrap_or_default());
    let port = port.to_string();
    let mut args = vec![
        "nsys",
        "capture",
        "--script",
        script.to_str().unwrap(),
        "--port",
        &port,
        "--output-dir",
        out_dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let mut all_envs = vec![("PATH", path)];
    all_envs.extend(envs.iter().cloned());
    dslint_env(&args, &all_envs)
}

#[test]
fn capture_against_a_fake_service() {
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let script = fake_service_script(tmp.path(), port, "cd /tmp\nCUDA_VISIBLE_DEVICES=0 ", "1", "ok");
    let trigger = tmp.path().join("trigger");
    let (rc, out, err) = capture(
        &script,
        port,
        &tmp.path().join("reports"),
        &["--poll-interval", "0.3", "--stable-seconds", "1.5"],
        &[("FAKE_NSYS_TRIGGER", trigger.display().to_string())],
    );
    assert_eq!(rc, 0, "{err}");
    let report = out.split_whitespace().next().unwrap();
    assert!(report.ends_with("_nsys_text_low.nsys-rep"), "{out}");
    let body = std::fs::read_to_string(report).unwrap();
    assert_eq!(body.lines().count(), 3, "the report was taken before it was complete");
    assert!(
        err.contains("service ready") && err.contains("(model fake-model)"),
        "{err}"
    );
    // The built-in request streams, asks for more tokens than the stop step.
    let req: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&trigger).unwrap()).unwrap();
    assert_eq!(req["stream"], true);
    assert_eq!(req["model"], "fake-model");
    assert!(req["max_tokens"].as_u64().unwrap() > 60);
    assert!(
        std::fs::read_to_string(tmp.path().join("start_nsys.sh"))
            .unwrap()
            .contains("${NSYS_CMD} python3")
    );
    // The service it started is gone.
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "service still running"
    );
}

#[test]
fn capture_stops_early_when_the_service_dies() {
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let script = fake_service_script(tmp.path(), port, "", "0", "crash");
    let start = std::time::Instant::now();
    let (rc, _, err) = capture(
        &script,
        port,
        &tmp.path().join("r"),
        &["--poll-interval", "0.2", "--stall", "1"],
        &[],
    );
    assert_eq!(rc, 2);
    assert!(
        err.contains("the service failed to start") && err.contains("Traceback (most recent call last):"),
        "{err}"
    );
    assert!(start.elapsed().as_secs() < 30);
}
