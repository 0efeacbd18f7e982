//! `dslint measure hw` and `dslint measure sweep`: run the tools (or read
//! their saved output) and merge the results into the facts file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::measure::fps::FpsParser;
use crate::measure::sweep::{self, Point};
use crate::measure::{dmon, gpu, run};
use crate::model::facts::Facts;

/// Load the facts file to merge into (a new one when it does not exist).
pub fn load_or_new(path: Option<&Path>) -> Result<Facts, String> {
    match path {
        Some(p) if p.exists() => Facts::load(p),
        _ => Ok(Facts::new()),
    }
}

/// Write facts atomically (temporary file in the same folder, renamed).
pub fn save(facts: &Facts, path: &Path) -> Result<(), String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    std::fs::write(tmp.path(), facts.to_json()).map_err(|e| format!("{}: {e}", path.display()))?;
    tmp.persist(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(())
}

#[derive(clap::Args)]
pub struct HwOptions {
    /// Which GPU (nvidia-smi's index) to describe.
    #[arg(long, default_value_t = 0)]
    pub gpu_id: u32,
    /// Read saved `nvidia-smi --query-gpu=… --format=csv` output instead of running it.
    #[arg(long)]
    pub nvidia_smi_output: Option<PathBuf>,
    /// The facts file to merge into (other sections are kept).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

pub fn hw(opts: &HwOptions) -> Result<String, String> {
    let text = match &opts.nvidia_smi_output {
        Some(f) => crate::files::read::read_text(f, crate::files::read::MAX_FILE_BYTES)?,
        None => {
            let fields = gpu::QUERY_FIELDS.join(",");
            let out = std::process::Command::new("nvidia-smi")
                .args([format!("--query-gpu={fields}"), "--format=csv,nounits".into()])
                .output()
                .map_err(|_| {
                    "nvidia-smi is not on this machine: run on the GPU host, or save its output there with\n  \
                     nvidia-smi --query-gpu=index,name,compute_cap,memory.total,memory.free,clocks.max.sm,clocks.max.memory,pcie.link.gen.current,pcie.link.width.current,driver_version --format=csv > smi.csv\n\
                     and pass --nvidia-smi-output smi.csv"
                        .to_string()
                })?;
            if !out.status.success() {
                return Err(format!(
                    "nvidia-smi failed: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            String::from_utf8_lossy(&out.stdout).into_owned()
        }
    };
    let gpus = gpu::parse_query(&text)?;
    let g = gpus
        .iter()
        .find(|g| g.index == Some(opts.gpu_id))
        .or_else(|| gpus.get(opts.gpu_id as usize))
        .ok_or_else(|| format!("no GPU {} (found {})", opts.gpu_id, gpus.len()))?
        .clone();
    let mut facts = load_or_new(opts.output.as_deref())?;
    let codec = facts
        .workload
        .as_ref()
        .and_then(|w| w.source_codec.clone())
        .unwrap_or_else(|| "h264".into());
    let height = facts.workload.as_ref().and_then(|w| w.source_height).unwrap_or(1080);
    let c = gpu::ceilings(&g, &codec, height);
    let mut out = String::new();
    let name = g.name.clone().unwrap_or_default();
    let unknown = |what: &str| format!("unknown ({what} of `{name}` not in rules/gpus.tsv)");
    out.push_str(&format!(
        "GPU {}: {} (compute {}, {} MiB, SM {} MHz, memory {} MHz, PCIe gen{} x{}, driver {})\n",
        g.index.unwrap_or(0),
        name,
        g.compute_cap.as_deref().unwrap_or("?"),
        g.memory_total_mib.map_or("?".into(), |v| v.to_string()),
        g.clocks_max_sm_mhz.map_or("?".into(), |v| v.to_string()),
        g.clocks_max_memory_mhz.map_or("?".into(), |v| v.to_string()),
        g.pcie_gen.map_or("?".into(), |v| v.to_string()),
        g.pcie_width.map_or("?".into(), |v| v.to_string()),
        g.driver_version.as_deref().unwrap_or("?"),
    ));
    out.push_str(&format!(
        "  SMs {}, NVDEC {}, memory bus {} bits\n",
        g.sm_count.map_or_else(|| unknown("SM count"), |v| v.to_string()),
        g.nvdec_count.map_or_else(|| unknown("NVDEC count"), |v| v.to_string()),
        g.memory_bus_width_bits
            .map_or_else(|| unknown("bus width"), |v| v.to_string()),
    ));
    let fmt = |v: Option<f64>, unit: &str| v.map_or("unknown".to_string(), |v| format!("{v} {unit}"));
    out.push_str("Ceilings (theoretical; a measurement overrides them):\n");
    out.push_str(&format!(
        "  decode {} {}: {}\n",
        codec,
        c.decode_resolution.as_deref().unwrap_or(""),
        fmt(c.decode_fps, "fps")
    ));
    out.push_str(&format!(
        "  FP16 dense: {}   INT8 dense: {}\n",
        fmt(c.fp16_tops, "TFLOP/s"),
        fmt(c.int8_tops, "TOP/s")
    ));
    out.push_str(&format!(
        "  memory: {}   PCIe: {}\n",
        fmt(c.memory_gbps, "GB/s"),
        fmt(c.pcie_gbps, "GB/s")
    ));
    facts.gpu = Some(g);
    facts.ceilings = Some(c);
    if let Some(p) = &opts.output {
        save(&facts, p)?;
        out.push_str(&format!("wrote gpu and ceilings to {}\n", p.display()));
    }
    Ok(out)
}

#[derive(clap::Args)]
pub struct SweepOptions {
    /// Command template: `{batch}` and `{config}` are replaced inside words.
    #[arg(long)]
    pub cmd: Option<String>,
    /// A deepstream-app config: each batch runs a variant of it as `{config}`.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The batch sizes to try, in order (it stops once the plateau is found).
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32")]
    pub batches: Vec<u32>,
    /// Cap the batches at this many streams (default: facts workload.n_streams).
    #[arg(long)]
    pub n_streams: Option<u32>,
    /// Seconds each run may take; a run still going then is stopped.
    #[arg(long, default_value_t = 60.0)]
    pub duration: f64,
    /// fps readings dropped at the start of each run.
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,
    /// Extra windows to settle a gain too close to 5% to call.
    #[arg(long, default_value_t = 2)]
    pub extra_windows: u32,
    /// A regex whose first group is the aggregate fps.
    #[arg(long)]
    pub fps_regex: Option<String>,
    /// Read a saved sweep log (from --save-log) instead of running.
    #[arg(long)]
    pub sweep_log: Option<PathBuf>,
    /// Save every run's output, to re-read with --sweep-log.
    #[arg(long)]
    pub save_log: Option<PathBuf>,
    /// The GPU whose utilisation `nvidia-smi dmon` samples during each run.
    #[arg(long, default_value_t = 0)]
    pub gpu_id: u32,
    /// The facts file to merge the sweep into (other sections are kept).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Keep the per-batch config variants written beside --config.
    #[arg(long)]
    pub keep_variants: bool,
}

/// The marker that separates runs in a saved sweep log.
const LOG_MARK: &str = "### dslint sweep batch=";

/// A run's marker line in a saved log: `batch=B seconds=S [sm=… mem=… dec=…]`.
#[derive(Clone)]
struct Marker {
    batch: u32,
    seconds: f64,
    sm: Option<f64>,
    mem: Option<f64>,
    dec: Option<f64>,
}

impl Marker {
    fn parse(rest: &str) -> Option<Marker> {
        let mut parts = rest.split_whitespace();
        let batch = parts.next()?.parse().ok()?;
        let mut m = Marker {
            batch,
            seconds: 0.0,
            sm: None,
            mem: None,
            dec: None,
        };
        for p in parts {
            let (k, v) = p.split_once('=')?;
            let v: f64 = v.parse().ok()?;
            match k {
                "seconds" => m.seconds = v,
                "sm" => m.sm = Some(v),
                "mem" => m.mem = Some(v),
                "dec" => m.dec = Some(v),
                _ => {}
            }
        }
        Some(m)
    }
}

/// Samples of one run's output: the steady-state aggregates.
fn steady_samples(parser: &FpsParser, lines: &[String], warmup: usize) -> Vec<f64> {
    let samples: Vec<_> = lines.iter().filter_map(|l| parser.parse_line(l)).collect();
    crate::measure::fps::steady_window(&samples, warmup)
        .iter()
        .map(|s| s.aggregate)
        .collect()
}

pub fn sweep_cmd(opts: &SweepOptions) -> Result<String, String> {
    let mut facts = load_or_new(opts.output.as_deref())?;
    let n_streams = opts.n_streams.or_else(|| facts.n_streams());
    let batches = sweep::batch_list(&opts.batches, n_streams);
    if batches.is_empty() {
        return Err("no batch size to measure".into());
    }
    let outcome = if let Some(log) = &opts.sweep_log {
        sweep_from_log(log, &batches, opts)?
    } else {
        sweep_live(&batches, opts)?
    };
    if outcome.points.is_empty() {
        return Err(format!("no batch was measured: {}", outcome.notes.join("; ")));
    }
    let mut out = String::new();
    out.push_str("  batch   fps (aggregate)   per stream   spread   seconds   sm%max  dec%max\n");
    for p in &outcome.points {
        let f = p.to_fact();
        out.push_str(&format!(
            "  {:>5}   {:>15.1}   {:>10.1}   {:>5.1}%   {:>7.1}   {:>6}  {:>7}\n",
            f.batch,
            f.fps_aggregate,
            f.fps_per_stream.unwrap_or(0.0),
            f.spread_pct.unwrap_or(0.0),
            f.run_seconds.unwrap_or(0.0),
            f.sm_max.map_or("-".into(), |v| format!("{v:.0}")),
            f.dec_max.map_or("-".into(), |v| format!("{v:.0}")),
        ));
    }
    match outcome.plateau {
        Some(b) if outcome.decided => out.push_str(&format!("plateau batch: {b} (doubling gains < 5%)\n")),
        Some(b) => out.push_str(&format!("plateau batch: {b} (not reached: largest measured)\n")),
        None => out.push_str("plateau batch: none (nothing measured)\n"),
    }
    for n in &outcome.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    out.push_str(&format!(
        "GPU time: {:.1} s, against {:.1} s for the full list of {} batches\n",
        outcome.gpu_seconds,
        outcome.full_sweep_seconds_estimate,
        batches.len()
    ));
    facts.sweep = Some(outcome.to_facts());
    if let Some(p) = &opts.output {
        save(&facts, p)?;
        out.push_str(&format!("wrote sweep to {}\n", p.display()));
    }
    Ok(out)
}

fn sweep_from_log(log: &Path, batches: &[u32], opts: &SweepOptions) -> Result<sweep::SweepOutcome, String> {
    let text = crate::files::read::read_text(log, crate::files::read::MAX_FILE_BYTES)?;
    let mut runs: BTreeMap<u32, Vec<(Vec<String>, Marker)>> = BTreeMap::new();
    let mut current: Option<Marker> = None;
    let mut lines: Vec<String> = Vec::new();
    let mut flush = |cur: &Option<Marker>, lines: &mut Vec<String>| {
        if let Some(m) = cur {
            runs.entry(m.batch)
                .or_default()
                .push((std::mem::take(lines), m.clone()));
        }
        lines.clear();
    };
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix(LOG_MARK) {
            flush(&current, &mut lines);
            current = Some(Marker::parse(rest).ok_or_else(|| format!("bad marker `{l}`"))?);
        } else {
            lines.push(l.to_string());
        }
    }
    flush(&current, &mut lines);
    if runs.is_empty() {
        return Err(format!(
            "{}: no `{LOG_MARK}N` sections (write one with --save-log)",
            log.display()
        ));
    }
    let mut used: BTreeMap<u32, usize> = BTreeMap::new();
    Ok(sweep::run_sweep(
        batches,
        opts.extra_windows,
        |b| {
            let parser = FpsParser::new(opts.fps_regex.as_deref(), b)?;
            let i = used.entry(b).or_default();
            let (lines, m) = runs
                .get(&b)
                .and_then(|r| r.get(*i))
                .ok_or_else(|| format!("the log has no run for batch {b}"))?;
            *i += 1;
            Ok(Point {
                batch: b,
                samples: steady_samples(&parser, lines, opts.warmup),
                streams: b,
                seconds: m.seconds,
                sm_max: m.sm,
                mem_max: m.mem,
                dec_max: m.dec,
                windows: 1,
            })
        },
        |msg| eprintln!("sweep: {msg}"),
    ))
}

fn sweep_live(batches: &[u32], opts: &SweepOptions) -> Result<sweep::SweepOutcome, String> {
    let template = opts
        .cmd
        .clone()
        .ok_or("--cmd is required (a command with {batch}, and {config} with --config)")?;
    run::install_interrupt_handler();
    let nvidia_smi = std::process::Command::new("nvidia-smi")
        .arg("-L")
        .output()
        .is_ok_and(|o| o.status.success());
    if !nvidia_smi {
        eprintln!("sweep: nvidia-smi not found: utilisation (dmon) is not sampled");
    }
    let mut log = String::new();
    let mut variants: Vec<PathBuf> = Vec::new();
    let outcome = sweep::run_sweep(
        batches,
        opts.extra_windows,
        |b| {
            let parser = FpsParser::new(opts.fps_regex.as_deref(), b)?;
            let config = match &opts.config {
                Some(cfg) => {
                    let made = crate::measure::variant::write_sweep_variant(cfg, b)?;
                    let app = made.first().cloned().ok_or("no variant written")?;
                    variants.extend(made);
                    app.display().to_string()
                }
                None => String::new(),
            };
            let argv = run::build_argv(&template, &[("batch", b.to_string()), ("config", config)])?;
            eprintln!("sweep: B={b}: {}", argv.join(" "));
            let dmon = if nvidia_smi {
                run::Dmon::start(opts.gpu_id)
            } else {
                None
            };
            let finished = run::run(&argv, Duration::from_secs_f64(opts.duration), |l| {
                if let Some(s) = parser.parse_line(l) {
                    eprintln!("sweep: B={b}: {:.1} fps", s.aggregate);
                }
            })?;
            let util = dmon.map(|d| dmon::maxima(&dmon::parse(&d.stop()), opts.gpu_id));
            let util_text: String = ["sm", "mem", "dec"]
                .iter()
                .filter_map(|k| Some(format!(" {k}={}", util.as_ref()?.get(*k)?)))
                .collect();
            log.push_str(&format!("{LOG_MARK}{b} seconds={:.1}{util_text}\n", finished.seconds));
            for l in &finished.lines {
                log.push_str(l);
                log.push('\n');
            }
            let samples = steady_samples(&parser, &finished.lines, opts.warmup);
            if samples.is_empty() {
                let oom = finished
                    .lines
                    .iter()
                    .any(|l| l.to_ascii_lowercase().contains("out of memory"));
                let tail: Vec<&str> = finished.lines.iter().rev().take(5).map(String::as_str).collect();
                return Err(if oom {
                    "out of GPU memory (batch too large for this GPU)".to_string()
                } else {
                    format!(
                        "no fps line in the output (exit {:?}{}); last lines: {}",
                        finished.exit_code,
                        if finished.timed_out {
                            ", stopped at --duration"
                        } else {
                            ""
                        },
                        tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
                    )
                });
            }
            Ok(Point {
                batch: b,
                samples,
                streams: b,
                seconds: finished.seconds,
                sm_max: util.as_ref().and_then(|u| u.get("sm").copied()),
                mem_max: util.as_ref().and_then(|u| u.get("mem").copied()),
                dec_max: util.as_ref().and_then(|u| u.get("dec").copied()),
                windows: 1,
            })
        },
        |msg| eprintln!("sweep: {msg}"),
    );
    if let Some(p) = &opts.save_log {
        crate::files::write::create_at(p, log.as_bytes(), 0o644)?;
    }
    if !opts.keep_variants {
        for v in variants {
            let _ = std::fs::remove_file(v);
        }
    }
    Ok(outcome)
}
