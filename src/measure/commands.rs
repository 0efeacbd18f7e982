//! `dslint measure sweep`: run the command at each batch size (or read a
//! saved sweep log) and merge the result into the facts file; and the facts
//! file's reading and writing that every `measure` command shares.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::measure::fps::FpsParser;
use crate::measure::live::{self, LOG_MARK};
use crate::measure::run;
use crate::measure::sweep::{self, EarlyStop, Plan, Point, Stop};
use crate::model::facts::Facts;

/// Largest saved tool output read (a log, an nvidia-smi capture).
const MAX_INPUT: u64 = 256 * 1024 * 1024;

/// Read a saved tool output: a regular file, at most `MAX_INPUT` bytes
/// (a FIFO or /dev/zero is refused before it is opened; see `files::read`).
pub fn read_text(path: &Path) -> Result<String, String> {
    let bytes = crate::files::read::read_regular(path, MAX_INPUT).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

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

/// The options of a run that `measure sweep` and `measure decode` share.
#[derive(clap::Args, Clone)]
pub struct RunOptions {
    /// Seconds a run may take at most; a run still going then is stopped.
    #[arg(long, default_value = "60", value_parser = run::seconds_arg)]
    pub duration: Duration,
    /// fps readings dropped at the start of each run.
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,
    /// Steady readings a run needs before it may stop early.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub min_samples: u32,
    /// A run stops once the 95% confidence interval of its mean fps is
    /// within ± this percentage (or its doubling verdict cannot change).
    #[arg(long, default_value_t = 1.0, value_parser = settle_pct)]
    pub settle_pct: f64,
    /// Let every run last until --duration (or its own end).
    #[arg(long)]
    pub no_early_stop: bool,
    /// A regex whose first group is the aggregate fps.
    #[arg(long)]
    pub fps_regex: Option<String>,
    /// The GPU whose utilisation `nvidia-smi dmon` samples during each run.
    #[arg(long, default_value_t = 0)]
    pub gpu_id: u32,
}

fn settle_pct(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 50.0 => Ok(v),
        _ => Err(format!("`{s}`: give a percentage above 0 and at most 50")),
    }
}

impl RunOptions {
    pub fn early(&self) -> Option<EarlyStop> {
        (!self.no_early_stop).then_some(EarlyStop {
            min_samples: self.min_samples as usize,
            ci_pct: self.settle_pct,
        })
    }

    /// One run's spec with these options.
    #[allow(clippy::too_many_arguments)]
    pub fn spec<'a>(
        &self,
        argv: Vec<String>,
        batch: u32,
        prev: Option<&'a Point>,
        parser: &'a FpsParser,
        early: Option<EarlyStop>,
        dmon: bool,
        label: String,
    ) -> live::Spec<'a> {
        live::Spec {
            argv,
            batch,
            duration: self.duration,
            warmup: self.warmup,
            early,
            prev,
            parser,
            dmon_gpu: dmon.then_some(self.gpu_id),
            label,
        }
    }

    /// The fps parser, checked before anything runs.
    pub fn parser(&self, batch: u32) -> Result<FpsParser, String> {
        FpsParser::new(self.fps_regex.as_deref(), batch)
    }
}

/// Whether nvidia-smi answers here; said once when it does not.
pub fn dmon_available(what: &str) -> bool {
    let ok = std::process::Command::new("nvidia-smi")
        .arg("-L")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        crate::errln!("{what}: nvidia-smi not found: utilisation (dmon) is not sampled");
    }
    ok
}

#[derive(clap::Args)]
pub struct SweepOptions {
    /// Command template: `{batch}` and `{config}` are replaced inside words.
    #[arg(long)]
    pub cmd: Option<String>,
    /// A deepstream-app config: each batch runs a variant of it as `{config}`.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The batch sizes to try, in order; it stops once the plateau is found
    /// (default 1,2,4,8,16,32; with --sweep-log, the batches in the log).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub batches: Option<Vec<u32>>,
    /// Cap the batches at this many streams (default: facts workload.n_streams).
    #[arg(long)]
    pub n_streams: Option<u32>,
    #[command(flatten)]
    pub run: RunOptions,
    /// Extra windows to settle a gain too close to 5% to call.
    #[arg(long, default_value_t = 2)]
    pub extra_windows: u32,
    /// Measure every batch of the list for the full --duration, without
    /// early stops (the plateau is still reported): the baseline that early
    /// stopping saves against.
    #[arg(long)]
    pub exhaustive: bool,
    /// Read a saved sweep log (from --save-log) instead of running.
    #[arg(long)]
    pub sweep_log: Option<PathBuf>,
    /// Save every run's output, to re-read with --sweep-log.
    #[arg(long)]
    pub save_log: Option<PathBuf>,
    /// The facts file to merge the sweep into (other sections are kept).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Keep the per-batch config variants written beside --config.
    #[arg(long)]
    pub keep_variants: bool,
}

const DEFAULT_BATCHES: &[u32] = &[1, 2, 4, 8, 16, 32];

/// A run's marker line in a saved log: `batch=B seconds=S [stop=…] [sm=… mem=… dec=…]`.
#[derive(Clone)]
pub struct Marker {
    batch: u32,
    seconds: f64,
    stop: Option<Stop>,
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
            stop: None,
            sm: None,
            mem: None,
            dec: None,
        };
        for p in parts {
            let (k, v) = p.split_once('=')?;
            if k == "stop" {
                m.stop = Stop::parse_token(v);
                continue;
            }
            let v: f64 = v.parse().ok().filter(|v: &f64| v.is_finite())?;
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

/// The runs of a saved log, by batch, in the order they ran.
pub type LogRuns = BTreeMap<u32, Vec<(Vec<String>, Marker)>>;

pub fn read_log(log: &Path) -> Result<LogRuns, String> {
    let text = read_text(log)?;
    let mut runs: LogRuns = BTreeMap::new();
    let mut current: Option<(Marker, Vec<String>)> = None;
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix(LOG_MARK) {
            if let Some((m, lines)) = current.take() {
                runs.entry(m.batch).or_default().push((lines, m));
            }
            let m = Marker::parse(rest).ok_or_else(|| format!("{}: bad marker `{l}`", log.display()))?;
            current = Some((m, Vec::new()));
        } else if let Some((_, lines)) = current.as_mut() {
            lines.push(l.to_string());
        }
    }
    if let Some((m, lines)) = current {
        runs.entry(m.batch).or_default().push((lines, m));
    }
    if runs.is_empty() {
        return Err(format!(
            "{}: no `{LOG_MARK}N` sections (write one with --save-log)",
            log.display()
        ));
    }
    Ok(runs)
}

/// The steady aggregates of one run's output.
fn steady_samples(parser: &FpsParser, lines: &[String], warmup: usize) -> Vec<f64> {
    let samples: Vec<_> = lines.iter().filter_map(|l| parser.parse_line(l)).collect();
    crate::measure::fps::steady_window(&samples, warmup)
        .iter()
        .map(|s| s.aggregate)
        .collect()
}

/// The sweep's table, plateau, notes and GPU time.
pub fn render_table(outcome: &sweep::SweepOutcome, what: &str) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "  {what:>5}   fps (aggregate)   per stream   spread   seconds   sm%max  dec%max  stopped\n"
    ));
    for p in &outcome.points {
        let f = p.to_fact();
        out.push_str(&format!(
            "  {:>5}   {:>15.1}   {:>10.1}   {:>5.1}%   {:>7.1}   {:>6}  {:>7}  {}\n",
            f.batch,
            f.fps_aggregate,
            f.fps_per_stream.unwrap_or(0.0),
            f.spread_pct.unwrap_or(0.0),
            f.run_seconds.unwrap_or(0.0),
            f.sm_max.map_or("-".into(), |v| format!("{v:.0}")),
            f.dec_max.map_or("-".into(), |v| format!("{v:.0}")),
            f.stop.as_deref().unwrap_or("-"),
        ));
    }
    out
}

pub fn sweep_cmd(opts: &SweepOptions) -> Result<String, String> {
    let mut facts = load_or_new(opts.output.as_deref())?;
    // Checked before anything runs.
    opts.run.parser(1)?;
    let n_streams = opts.n_streams.or_else(|| facts.n_streams());
    let log_runs = opts.sweep_log.as_deref().map(read_log).transpose()?;
    let requested: Vec<u32> = match (&opts.batches, &log_runs) {
        (Some(b), _) => b.clone(),
        (None, Some(runs)) => runs.keys().copied().collect(),
        (None, None) => DEFAULT_BATCHES.to_vec(),
    };
    let batches = sweep::batch_list(&requested, n_streams);
    if batches.is_empty() {
        return Err("no batch size to measure".into());
    }
    let plan = Plan {
        extra_windows: if opts.exhaustive { 0 } else { opts.extra_windows },
        stop_at_plateau: !opts.exhaustive,
    };
    let outcome = match &log_runs {
        Some(runs) => replay(runs, &batches, &plan, &opts.run, |_| None, "sweep"),
        None => sweep_live(&batches, &plan, opts)?,
    };
    if outcome.points.is_empty() {
        return Err(format!("no batch was measured: {}", outcome.notes.join("; ")));
    }
    let mut out = render_table(&outcome, "batch");
    match outcome.plateau {
        Some(b) if outcome.decided => out.push_str(&format!("plateau batch: {b} (doubling gains < 5%)\n")),
        Some(b) => out.push_str(&format!("plateau batch: {b} (not reached: largest measured)\n")),
        None => out.push_str("plateau batch: none (nothing measured)\n"),
    }
    for n in &outcome.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    out.push_str(&format!(
        "GPU time: {:.1} s in {} runs, {} stopped once settled\n",
        outcome.gpu_seconds, outcome.runs, outcome.runs_stopped_early,
    ));
    facts.sweep = Some(outcome.to_facts());
    if let Some(p) = &opts.output {
        save(&facts, p)?;
        out.push_str(&format!("wrote sweep to {}\n", p.display()));
    }
    Ok(out)
}

/// A sweep (or decode ramp) replayed from a saved log: each run's steady
/// readings and its marker's seconds, stop and dmon maxima.
pub fn replay(
    runs: &LogRuns,
    batches: &[u32],
    plan: &Plan,
    run_opts: &RunOptions,
    saturated: impl FnMut(&Point) -> Option<String>,
    what: &str,
) -> sweep::SweepOutcome {
    let mut used: BTreeMap<u32, usize> = BTreeMap::new();
    sweep::run_sweep(
        batches,
        plan,
        |b, _| {
            let parser = run_opts.parser(b)?;
            let i = used.entry(b).or_default();
            let (lines, m) = runs
                .get(&b)
                .and_then(|r| r.get(*i))
                .ok_or_else(|| format!("the log has no run for {b}"))?;
            *i += 1;
            Ok(Point {
                batch: b,
                samples: steady_samples(&parser, lines, run_opts.warmup),
                streams: b,
                seconds: m.seconds,
                sm_max: m.sm,
                mem_max: m.mem,
                dec_max: m.dec,
                windows: 1,
                stop: m.stop,
            })
        },
        saturated,
        |msg| crate::errln!("{what}: {msg}"),
    )
}

fn sweep_live(batches: &[u32], plan: &Plan, opts: &SweepOptions) -> Result<sweep::SweepOutcome, String> {
    let template = opts
        .cmd
        .clone()
        .ok_or("--cmd is required (a command with {batch}, and {config} with --config)")?;
    let carries_batch = template.contains("{batch}") || (opts.config.is_some() && template.contains("{config}"));
    if !carries_batch {
        crate::errln!(
            "sweep: warning: --cmd has no {{batch}}{}: every run gets the same command",
            if opts.config.is_some() { " nor {config}" } else { "" }
        );
    }
    if opts.config.is_some() && !template.contains("{config}") {
        crate::errln!("sweep: warning: --config is given but --cmd has no {{config}}: the variants are not used");
    }
    run::install_interrupt_handler();
    let dmon = dmon_available("sweep");
    let mut log = String::new();
    let mut variants: Vec<PathBuf> = Vec::new();
    let early = if opts.exhaustive { None } else { opts.run.early() };
    let outcome = sweep::run_sweep(
        batches,
        plan,
        |b, prev| {
            let parser = opts.run.parser(b)?;
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
            let m = live::measure(
                &opts
                    .run
                    .spec(argv, b, prev, &parser, early, dmon, format!("sweep: B={b}")),
            )?;
            log.push_str(&m.log);
            Ok(m.point)
        },
        |_| None,
        |msg| crate::errln!("sweep: {msg}"),
    );
    live::finish(&log, opts.save_log.as_deref(), variants, opts.keep_variants)?;
    Ok(outcome)
}
