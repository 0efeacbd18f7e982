//! `dslint nsys capture`: wrap the launch script, start the service with its
//! log in a file, wait until `GET /v1/models` answers 200 (or the log shows
//! it died), send requests, wait for the `.nsys-rep` to stop growing, and
//! rename it `<timestamp>_nsys_<type>_<low|high>.nsys-rep`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::nsys::http;
use crate::nsys::wrap::{self, Level};

pub struct CaptureOptions {
    pub script: PathBuf,
    pub host: String,
    pub port: u16,
    pub requests: Option<String>,
    pub kind: String,
    pub level: Level,
    pub output_dir: PathBuf,
    pub poll_interval: Duration,
    pub ready_timeout: Duration,
    /// How long a failing log must stay still before giving up.
    pub stall: Duration,
    /// Interval between the two size checks of the report.
    pub stable_interval: Duration,
    pub report_timeout: Duration,
    pub max_tokens: u32,
    pub stats: bool,
}

const FAILURE_MARKS: &[&str] = &["Traceback", "AssertionError", "OOM", "Killed", "out of memory"];

struct Service {
    child: Child,
}

impl Service {
    fn stop(&mut self) {
        let pg = self.child.id() as i32;
        // SAFETY: signals the process group this capture started.
        unsafe {
            libc::kill(-pg, libc::SIGTERM);
        }
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        // SAFETY: as above.
        unsafe {
            libc::kill(-pg, libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

fn chat_body(model: &str, kind: &str, max_tokens: u32) -> String {
    let content = if kind == "mm" {
        serde_json::json!([
            { "type": "text", "text": "Describe this picture in detail, then keep describing it." },
            { "type": "image_url", "image_url": { "url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==" } }
        ])
    } else {
        serde_json::json!(
            "Write a long story about a GPU that profiles itself. Keep going until you run out of tokens."
        )
    };
    serde_json::json!({
        "model": model,
        "messages": [{ "role": "user", "content": content }],
        "stream": true,
        "max_tokens": max_tokens,
        "min_tokens": max_tokens,
        "ignore_eos": true
    })
    .to_string()
}

pub fn capture(opts: &CaptureOptions) -> Result<String, String> {
    let src = wrap::read_script(&opts.script)?;
    let wrapped = wrap::wrap(&src, opts.level, Some(&opts.output_dir.display().to_string()), None)?;
    let wrapped_path = wrap::wrapped_path(&opts.script);
    crate::errprint!(
        "{}",
        crate::fix::diff::unified_between(&opts.script, &wrapped_path, &src, &wrapped, false)
    );
    // The output folder (default /tmp/nsys_record, shared by every local
    // user) must be ours and not a link; the log is created afresh in it.
    let out_dir = crate::files::write::Dir::own_output(&opts.output_dir)?;
    wrap::write_wrapped(&opts.script, &wrapped)?;
    // A script that sets NSYS_OUTPUT_DIR itself writes there.
    let report_dir = own_output_dir(&src).unwrap_or_else(|| opts.output_dir.clone());
    let name_file = report_dir.join(wrap::OUTPUT_NAME_FILE);
    let _ = std::fs::remove_file(&name_file);
    let log_path = opts.output_dir.join("service.log");
    let log = out_dir.create_fresh("service.log", 0o600)?;
    let log_err = log.try_clone().map_err(|e| e.to_string())?;
    crate::measure::run::install_interrupt_handler();
    use std::os::unix::process::CommandExt;
    let child = Command::new("bash")
        .arg(&wrapped_path)
        .env("NSYS_OUTPUT_DIR", &opts.output_dir)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", wrapped_path.display()))?;
    crate::measure::run::register_child(child.id() as i32);
    let mut svc = Service { child };
    let result = drive(opts, &mut svc, &log_path, &name_file);
    svc.stop();
    crate::measure::run::unregister_child(svc.child.id() as i32);
    result
}

/// A literal `NSYS_OUTPUT_DIR=…` the script sets (no `$` in it).
fn own_output_dir(src: &str) -> Option<PathBuf> {
    src.lines().find_map(|l| {
        let t = l.trim().trim_start_matches("export ").trim();
        let v = t.strip_prefix("NSYS_OUTPUT_DIR=")?.trim_matches('"').trim_matches('\'');
        (!v.contains('$') && !v.is_empty()).then(|| PathBuf::from(v))
    })
}

fn drive(opts: &CaptureOptions, svc: &mut Service, log_path: &Path, name_file: &Path) -> Result<String, String> {
    // 1. Wait for the service.
    let start = Instant::now();
    let mut last_len = 0u64;
    let mut last_growth = Instant::now();
    let model = loop {
        if let Ok(r) = http::get(&opts.host, opts.port, "/v1/models", Duration::from_secs(5)) {
            if r.status == 200 {
                let id = serde_json::from_str::<serde_json::Value>(&r.body)
                    .ok()
                    .and_then(|v| v["data"][0]["id"].as_str().map(str::to_string))
                    .unwrap_or_else(|| "default".into());
                crate::errln!(
                    "capture: service ready after {:.0} s (model {id})",
                    start.elapsed().as_secs_f64()
                );
                break id;
            }
        }
        let len = std::fs::metadata(log_path).map(|m| m.len()).unwrap_or(0);
        if len != last_len {
            last_len = len;
            last_growth = Instant::now();
        }
        let text = std::fs::read_to_string(log_path).unwrap_or_default();
        let failed = FAILURE_MARKS.iter().any(|m| text.contains(m));
        if failed && last_growth.elapsed() >= opts.stall {
            return Err(format!(
                "the service failed to start; last lines of {}:\n{}",
                log_path.display(),
                tail(log_path, 30)
            ));
        }
        if let Ok(Some(status)) = svc.child.try_wait() {
            return Err(format!(
                "the service exited ({status}) before answering; last lines of {}:\n{}",
                log_path.display(),
                tail(log_path, 30)
            ));
        }
        if start.elapsed() > opts.ready_timeout {
            return Err(format!(
                "no answer from http://{}:{}/v1/models within {:.0} s; last lines:\n{}",
                opts.host,
                opts.port,
                opts.ready_timeout.as_secs_f64(),
                tail(log_path, 30)
            ));
        }
        std::thread::sleep(opts.poll_interval);
    };
    // 2. Requests.
    match &opts.requests {
        Some(cmd) => {
            let argv = crate::measure::run::build_argv(
                cmd,
                &[
                    ("host", opts.host.clone()),
                    ("port", opts.port.to_string()),
                    ("model", model.clone()),
                ],
            )?;
            let f = crate::measure::run::run(&argv, Duration::from_secs(1800), |_| {
                crate::measure::run::Flow::Continue
            })?;
            crate::errln!("capture: requests command ended: {}", f.status_text());
        }
        None => {
            let body = chat_body(&model, &opts.kind, opts.max_tokens);
            let r = http::post_json(
                &opts.host,
                opts.port,
                "/v1/chat/completions",
                &body,
                Duration::from_secs(600),
            )
            .map_err(|e| format!("chat request failed: {e}"))?;
            crate::errln!(
                "capture: chat request answered {} ({} bytes streamed)",
                r.status,
                r.body.len()
            );
        }
    }
    // 3. Wait for the report to exist and stop growing.
    let t0 = Instant::now();
    let report = loop {
        if t0.elapsed() > opts.report_timeout {
            return Err(format!(
                "no finished .nsys-rep within {:.0} s in {}",
                opts.report_timeout.as_secs_f64(),
                opts.output_dir.display()
            ));
        }
        // A small regular file the wrapped script writes (never a FIFO
        // or a device planted at its name).
        let base = crate::files::read::read_text(name_file, 4096)
            .ok()
            .map(|s| s.trim().to_string());
        if let Some(base) = base.filter(|b| !b.is_empty()) {
            let rep = PathBuf::from(format!("{base}.nsys-rep"));
            if let Ok(a) = std::fs::metadata(&rep).map(|m| m.len()) {
                std::thread::sleep(opts.stable_interval);
                let b = std::fs::metadata(&rep).map(|m| m.len()).unwrap_or(0);
                if a == b && a > 0 {
                    break rep;
                }
                continue;
            }
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    // 4. Name it.
    let stamp = chrono_like_stamp();
    let level = match opts.level {
        Level::Coarse => "low",
        Level::Detailed => "high",
    };
    let named = report.with_file_name(format!("{stamp}_nsys_{}_{level}.nsys-rep", opts.kind));
    std::fs::rename(&report, &named).map_err(|e| format!("{}: {e}", report.display()))?;
    let size = std::fs::metadata(&named).map(|m| m.len()).unwrap_or(0);
    let mut out = format!("{} ({} bytes)\n", named.display(), size);
    if opts.stats {
        let dir = named.with_extension("stats");
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let status = Command::new("nsys")
            .env("LC_ALL", "C")
            .args(["stats", "--format", "csv", "--force-export=true", "--output"])
            .arg(dir.join("stats"))
            .args([
                "--report",
                "cuda_gpu_kern_sum,nvtx_sum,cuda_gpu_mem_time_sum,cuda_api_sum,osrt_sum",
            ])
            .arg(&named)
            .status();
        match status {
            Ok(s) if s.success() => {
                let tables = crate::measure::nsys::read_dir(&dir)?;
                out.push_str(&crate::report::nsys_lines(&crate::measure::profile::summarize(
                    &tables,
                    None,
                    &[],
                )));
            }
            _ => out.push_str("note: nsys stats did not run on the report\n"),
        }
    }
    let _ = std::io::stderr().flush();
    Ok(out)
}

/// `YYYYmmdd_HHMMSS` in UTC, without a date crate.
fn chrono_like_stamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}_{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
