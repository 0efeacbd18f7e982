//! `dslint measure decode`: the NVDEC ceiling measured on the user's own
//! streams. A decode-only run (the app's decode-only variant, or `--cmd`
//! with `{streams}`) for 1, 2, 4, … streams, each run stopped once its fps
//! is settled, until more streams add no fps (the sweep's 5% rule) or dmon
//! shows NVDEC saturated. The highest aggregate fps is the decode ceiling;
//! it goes into the facts file marked measured, beside the table figure.

use std::fmt::Write;
use std::path::PathBuf;
use std::sync::OnceLock;

use regex::Regex;

use crate::measure::commands::{self, RunOptions, load_or_new, save};
use crate::measure::live;
use crate::measure::run;
use crate::measure::sweep::{self, Plan, Point, SweepOutcome};
use crate::model::facts::{Ceilings, DecodeMeasurement, Facts};

#[derive(clap::Args)]
pub struct DecodeOptions {
    /// A deepstream-app config (key-file or YAML): its decode-only variant
    /// runs as `{config}`.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Command template: `{streams}` (and `{config}` with --config) are
    /// replaced inside words. With --config the default is
    /// `deepstream-app -c {config}`.
    #[arg(long)]
    pub cmd: Option<String>,
    /// Stream counts, in order.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32,64", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub streams: Vec<u32>,
    #[command(flatten)]
    pub run: RunOptions,
    /// dmon `dec` (%) at which NVDEC counts as saturated and the ramp stops.
    #[arg(long, default_value_t = 95.0)]
    pub dec_saturated: f64,
    /// Read a saved ramp log (from --save-log) instead of running.
    #[arg(long)]
    pub ramp_log: Option<PathBuf>,
    /// Save every run's output, to re-read with --ramp-log.
    #[arg(long)]
    pub save_log: Option<PathBuf>,
    /// The facts file to merge into (other sections are kept).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Keep the decode-only variants written beside --config.
    #[arg(long)]
    pub keep_variants: bool,
}

/// The streams' codec and size, when the command prints them
/// (`codec=h264 width=1920 height=1080`, as `bench/nvdec_decode.py` does).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct StreamInfo {
    pub codec: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
}

pub fn stream_info(lines: &[String]) -> StreamInfo {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"\bcodec=([A-Za-z0-9]+)\b.*\bwidth=(\d+)\b.*\bheight=(\d+)\b").expect("valid regex")
    });
    lines
        .iter()
        .find_map(|l| re.captures(l))
        .map(|c| StreamInfo {
            codec: Some(c[1].to_ascii_lowercase()),
            width: c[2].parse().ok(),
            height: c[3].parse().ok(),
        })
        .unwrap_or_default()
}

/// The ramp's answer: the highest steady fps and where it was.
pub struct Ceiling<'a> {
    pub point: &'a Point,
    pub stopped_by: String,
}

pub fn ceiling(o: &SweepOutcome) -> Option<Ceiling<'_>> {
    // The fewest streams that reach the highest fps.
    let point = o
        .points
        .iter()
        .reduce(|best, p| if p.mean() > best.mean() { p } else { best })?;
    let stopped_by = match (&o.stopped_by, o.decided) {
        (Some(why), _) => why.clone(),
        (None, true) => "the knee: doubling the streams added < 5% fps".into(),
        (None, false) => "the end of the stream list, before the knee or saturation".into(),
    };
    Some(Ceiling { point, stopped_by })
}

/// Record a measured ceiling in `c`, keeping the table figure beside it.
pub fn record(c: &mut Ceilings, fps: f64, m: DecodeMeasurement) {
    if !c.decode_measured() {
        c.decode_fps_table = c.decode_fps;
    }
    c.decode_fps = Some((fps * 10.0).round() / 10.0);
    c.decode_source = Some("measured".into());
    if let Some(codec) = &m.codec {
        c.decode_codec = Some(codec.clone());
    }
    if let Some(h) = m.height {
        c.decode_resolution = Some(format!("{h}p"));
    }
    c.decode_measurement = Some(m);
}

fn merge_into_facts(facts: &mut Facts, fps: f64, m: DecodeMeasurement, gpu_id: u32) {
    record(facts.ceilings.get_or_insert_with(Ceilings::default), fps, m.clone());
    // The same GPU model decodes the same streams at the same rate.
    let name = facts
        .gpus
        .iter()
        .find(|n| n.gpu.index == Some(gpu_id))
        .and_then(|n| n.gpu.name.clone());
    for n in facts.gpus.iter_mut().filter(|n| name.is_some() && n.gpu.name == name) {
        record(&mut n.ceilings, fps, m.clone());
    }
}

pub fn decode(opts: &DecodeOptions) -> Result<String, String> {
    let mut facts = load_or_new(opts.output.as_deref())?;
    opts.run.parser(1)?;
    let plan = Plan {
        extra_windows: 1,
        stop_at_plateau: true,
    };
    let dec_limit = opts.dec_saturated;
    let saturated = |p: &Point| {
        let d = p.dec_max?;
        (d >= dec_limit).then(|| format!("NVDEC saturated: dmon dec {d:.0}% (≥ {dec_limit}%)"))
    };
    let mut lines_seen: Vec<String> = Vec::new();
    let outcome = match &opts.ramp_log {
        Some(log) => {
            let runs = commands::read_log(log)?;
            let streams: Vec<u32> = runs.keys().copied().collect();
            for r in runs.values().flatten() {
                lines_seen.extend(r.0.iter().take(200).cloned());
            }
            commands::replay(&runs, &streams, &plan, &opts.run, saturated, "decode")
        }
        None => ramp_live(opts, &plan, saturated, &mut lines_seen)?,
    };
    if outcome.points.is_empty() {
        return Err(format!("no stream count was measured: {}", outcome.notes.join("; ")));
    }
    let c = ceiling(&outcome).ok_or("nothing measured")?;
    let info = stream_info(&lines_seen);
    let workload = facts.workload.clone().unwrap_or_default();
    let m = DecodeMeasurement {
        streams: c.point.batch,
        dec_pct: c.point.dec_max,
        codec: info.codec.or(workload.source_codec),
        width: info.width.or(workload.source_width),
        height: info.height.or(workload.source_height),
        stopped_by: c.stopped_by.clone(),
        extra: Default::default(),
    };
    let mut out = commands::render_table(&outcome, "streams");
    let what = match (&m.codec, m.width, m.height) {
        (Some(codec), Some(w), Some(h)) => format!("{codec} {w}x{h}"),
        (Some(codec), _, _) => codec.clone(),
        _ => "codec and size unknown".into(),
    };
    let _ = writeln!(
        out,
        "decode ceiling: {:.0} fps at {} streams ({what}{}), stopped by {}",
        c.point.mean(),
        c.point.batch,
        m.dec_pct.map_or(String::new(), |d| format!(", NVDEC {d:.0}% busy")),
        c.stopped_by
    );
    let table = facts.ceilings.as_ref().and_then(|c| {
        if c.decode_measured() {
            c.decode_fps_table
        } else {
            c.decode_fps
        }
    });
    if let Some(t) = table {
        let _ = writeln!(out, "table figure (theoretical, unverified): {t:.0} fps");
    }
    for n in &outcome.notes {
        let _ = writeln!(out, "note: {n}");
    }
    let _ = writeln!(
        out,
        "GPU time: {:.1} s in {} runs, {} stopped once settled",
        outcome.gpu_seconds, outcome.runs, outcome.runs_stopped_early
    );
    let fps = c.point.mean();
    merge_into_facts(&mut facts, fps, m, opts.run.gpu_id);
    if let Some(p) = &opts.output {
        save(&facts, p)?;
        let _ = writeln!(out, "wrote ceilings.decode_fps (measured) to {}", p.display());
    }
    Ok(out)
}

fn ramp_live(
    opts: &DecodeOptions,
    plan: &Plan,
    saturated: impl FnMut(&Point) -> Option<String>,
    lines_seen: &mut Vec<String>,
) -> Result<SweepOutcome, String> {
    let template = match (&opts.cmd, &opts.config) {
        (Some(c), _) => c.clone(),
        (None, Some(_)) => "deepstream-app -c {config}".to_string(),
        (None, None) => return Err("give --config APP (a deepstream-app config) or --cmd with {streams}".into()),
    };
    let varies = template.contains("{streams}") || (opts.config.is_some() && template.contains("{config}"));
    if !varies {
        crate::errln!("decode: warning: --cmd has no {{streams}}: every run gets the same command");
    }
    run::install_interrupt_handler();
    let dmon = commands::dmon_available("decode");
    if !dmon {
        crate::errln!("decode: without dmon, only the knee (no more fps from more streams) ends the ramp");
    }
    let mut log = String::new();
    let mut variants: Vec<PathBuf> = Vec::new();
    let outcome = sweep::run_sweep(
        &opts.streams,
        plan,
        |n, prev| {
            let parser = opts.run.parser(1)?;
            let config = match &opts.config {
                Some(cfg) => {
                    let v = crate::measure::variant::write_decode_variant(cfg, n)?;
                    variants.push(v.clone());
                    v.display().to_string()
                }
                None => String::new(),
            };
            let argv = run::build_argv(&template, &[("streams", n.to_string()), ("config", config)])?;
            let label = format!("decode: streams={n}");
            let m = live::measure(&opts.run.spec(argv, n, prev, &parser, opts.run.early(), dmon, label))?;
            log.push_str(&m.log);
            if lines_seen.len() < 1000 {
                lines_seen.extend(m.lines.into_iter().take(200));
            }
            Ok(m.point)
        },
        saturated,
        |msg| crate::errln!("decode: {msg}"),
    );
    live::finish(&log, opts.save_log.as_deref(), variants, opts.keep_variants)?;
    Ok(outcome)
}
