//! The commands `measure` runs, attacked: SIGTERM and SIGHUP during a sweep,
//! a child that ignores SIGTERM, a grandchild that leaves the process group
//! and holds the pipe, output without newlines, an HTTP service that
//! streams an endless body, and numbers on the command line that would
//! panic `Duration::from_secs_f64`.

mod support;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::*;

fn alive(pid: i32) -> bool {
    // A zombie has exited: only a running process counts.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            let state = s.rsplit(')').next().unwrap_or("").split_whitespace().next();
            !matches!(state, Some("Z") | Some("X"))
        })
        .unwrap_or(false)
}

fn wait_for_file(p: &Path, within: Duration) -> String {
    let until = Instant::now() + within;
    while Instant::now() < until {
        if let Ok(s) = std::fs::read_to_string(p) {
            if s.ends_with('\n') {
                return s;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{} never appeared", p.display());
}

#[test]
fn sigterm_and_sighup_stop_the_sweep_and_its_children() {
    for sig in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT] {
        let tmp = tempfile::tempdir().unwrap();
        let pids = tmp.path().join("pids");
        // A child that ignores SIGTERM and starts a helper in its group.
        let script = tmp.path().join("child.sh");
        std::fs::write(
            &script,
            format!(
                "trap '' TERM HUP INT\nsleep 300 &\necho \"$$ $!\" > {}.tmp && mv {0}.tmp {0}\nwhile true; do echo fps=10; sleep 0.1; done\n",
                pids.display()
            ),
        )
        .unwrap();
        let mut child = Command::new(dslint_bin())
            .args([
                "measure",
                "sweep",
                "--cmd",
                &format!("sh {} {{batch}}", script.display()),
                "--duration",
                "300",
                "--no-early-stop",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let line = wait_for_file(&pids, Duration::from_secs(20));
        let ids: Vec<i32> = line.split_whitespace().map(|p| p.parse().unwrap()).collect();
        assert!(ids.iter().all(|&p| alive(p)));
        let start = Instant::now();
        // SAFETY: signals the dslint process this test started.
        unsafe {
            libc::kill(child.id() as i32, sig);
        }
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "signal {sig}");
        // SIGTERM is ignored by the child: SIGKILL follows after 2 s.
        assert!(start.elapsed() < Duration::from_secs(10));
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert!(err.contains("interrupted; stopped the commands it started"), "{err}");
        // The kernel reaps the killed group asynchronously: poll (a loaded
        // CI machine took over 300 ms) and fail only when one outlives 5 s.
        let until = Instant::now() + Duration::from_secs(5);
        while ids.iter().any(|&p| alive(p)) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        for p in ids {
            assert!(
                !alive(p),
                "signal {sig}: process {p} still runs 5 s after dslint stopped"
            );
        }
    }
}

#[test]
fn a_detached_grandchild_holding_the_pipe_does_not_hold_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let gc = tmp.path().join("grandchild");
    // The grandchild leaves the process group (setsid) with the pipe open;
    // the child prints its readings and exits.
    let script = tmp.path().join("child.sh");
    std::fs::write(
        &script,
        format!(
            "setsid sh -c 'echo $$ > {}; exec sleep 60' &\nfor i in 1 2 3 4 5 6 7 8; do echo fps=100; done\nexit 0\n",
            gc.display()
        ),
    )
    .unwrap();
    let start = Instant::now();
    let (rc, out, err) = dslint(&[
        "measure",
        "sweep",
        "--cmd",
        &format!("sh {} {{batch}}", script.display()),
        "--batches",
        "1",
        "--duration",
        "60",
        "--no-early-stop",
    ]);
    let took = start.elapsed();
    if let Ok(pid) = std::fs::read_to_string(&gc) {
        // SAFETY: ends the grandchild this test's script started.
        unsafe {
            libc::kill(pid.trim().parse().unwrap(), libc::SIGKILL);
        }
    }
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("exited"), "{out}");
    assert!(took < Duration::from_secs(20), "the run lasted {took:?}");
}

/// Peak resident memory of a running process, in KiB, sampled until it exits.
fn peak_rss_kib(child: &mut std::process::Child) -> u64 {
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        if let Ok(s) = std::fs::read_to_string(format!("/proc/{}/status", child.id())) {
            if let Some(v) = s
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
            {
                peak = peak.max(v);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    peak
}

#[test]
fn output_without_newlines_stays_bounded() {
    // Gigabytes of bytes and no newline, for three seconds.
    let mut child = Command::new(dslint_bin())
        .args([
            "measure",
            "sweep",
            "--cmd",
            "sh -c 'cat /dev/zero'",
            "--batches",
            "1",
            "--duration",
            "3",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let peak = peak_rss_kib(&mut child);
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(2), "{err}");
    assert!(
        err.contains("no fps line in the output (stopped at --duration"),
        "{err}"
    );
    assert!(peak < 64 * 1024, "dslint grew to {peak} KiB");
}

#[test]
fn numbers_that_would_panic_are_usage_errors() {
    for (cmd, arg) in [
        (&["measure", "sweep", "--cmd", "true"][..], "--duration=-5"),
        (&["measure", "sweep", "--cmd", "true"][..], "--duration=nan"),
        (&["measure", "sweep", "--cmd", "true"][..], "--duration=1e300"),
        (&["measure", "sweep", "--cmd", "true"][..], "--duration=inf"),
        (&["measure", "decode", "--cmd", "true"][..], "--duration=0"),
        (&["measure", "profile", "--cmd", "true"][..], "--duration=-5"),
        (&["measure", "profile", "--cmd", "true"][..], "--duration=nan"),
        (&["measure", "profile", "--cmd", "true"][..], "--duration=1e300"),
        (&["measure", "sweep", "--cmd", "true"][..], "--settle-pct=nan"),
        (
            &["nsys", "capture", "--script", "x.sh", "--port", "1"][..],
            "--poll-interval=-1",
        ),
        (
            &["nsys", "capture", "--script", "x.sh", "--port", "1"][..],
            "--ready-timeout=nan",
        ),
    ] {
        let mut args = cmd.to_vec();
        args.push(arg);
        let (rc, _, err) = dslint(&args);
        assert_eq!(rc, 2, "{arg}: {err}");
        assert!(err.contains("invalid value"), "{arg}: {err}");
        assert!(!err.contains("panicked"), "{arg}: {err}");
    }
}

#[test]
fn a_bad_fps_regex_is_refused_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let mark = tmp.path().join("ran");
    let (rc, _, err) = dslint(&[
        "measure",
        "sweep",
        "--cmd",
        &format!("sh -c 'touch {}; echo fps=1' {{batch}}", mark.display()),
        "--fps-regex",
        "fps=(",
    ]);
    assert_eq!(rc, 2, "{err}");
    assert!(err.contains("--fps-regex"), "{err}");
    assert!(!mark.exists(), "the command ran");
}

#[test]
fn an_endless_body_is_cut_at_the_size_and_time_limits() {
    use dslint::nsys::http;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming().take(2) {
            let Ok(mut s) = conn else { continue };
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let _ = std::io::Read::read(&mut s, &mut buf);
                let _ = s.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                );
                let chunk = format!("{:x}\r\n{}\r\n", 4096, "x".repeat(4096));
                let until = Instant::now() + Duration::from_secs(30);
                while Instant::now() < until && s.write_all(chunk.as_bytes()).is_ok() {}
            });
        }
    });
    let start = Instant::now();
    let r = http::get("127.0.0.1", port, "/v1/models", Duration::from_secs(2)).unwrap();
    assert_eq!(r.status, 200);
    assert!(r.body.len() <= http::MAX_BODY, "{}", r.body.len());
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    let start = Instant::now();
    let r = http::post_json("127.0.0.1", port, "/v1/chat/completions", "{}", Duration::from_secs(2)).unwrap();
    assert!(r.body.len() <= http::MAX_BODY);
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
}
