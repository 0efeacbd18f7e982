//! One measured run of a sweep or a decode ramp: the command, with `nvidia-smi
//! dmon` beside it, read as it prints; stopped once its answer is settled
//! (or at `--duration`); reduced to a sweep `Point` and a section of the
//! saved log (`### dslint sweep batch=B seconds=S stop=… sm=… mem=… dec=…`,
//! then the run's lines).

use std::time::Duration;

use crate::measure::fps::{FpsParser, Sample, steady_window};
use crate::measure::run::{self, Ended, Flow};
use crate::measure::sweep::{EarlyStop, Point, Stop, early_verdict};

/// The marker that starts a run's section in a saved log.
pub const LOG_MARK: &str = "### dslint sweep batch=";
/// Bytes of a run's output kept in the saved log (fps lines are kept past
/// it, up to `LOG_FPS_LINES`).
const LOG_BYTES: usize = 1024 * 1024;
const LOG_FPS_LINES: usize = 100_000;

pub struct Spec<'a> {
    pub argv: Vec<String>,
    /// B, or the number of streams.
    pub batch: u32,
    pub duration: Duration,
    pub warmup: usize,
    /// `None`: every run lasts until `duration` or its own end.
    pub early: Option<EarlyStop>,
    /// The point of the batch before, for the early verdict.
    pub prev: Option<&'a Point>,
    pub parser: &'a FpsParser,
    /// Sample `nvidia-smi dmon` on this GPU during the run.
    pub dmon_gpu: Option<u32>,
    /// Progress lines go to stderr with this prefix ("sweep: B=4").
    pub label: String,
}

pub struct Measured {
    pub point: Point,
    /// The run's section of the saved log.
    pub log: String,
    /// The lines kept (for `codec=` and the like).
    pub lines: Vec<String>,
}

/// What a run that printed no fps says, for the error message.
fn no_fps_message(f: &run::Finished, lines: &[String]) -> String {
    if lines.iter().any(|l| l.to_ascii_lowercase().contains("out of memory")) {
        return "out of GPU memory (batch too large for this GPU)".to_string();
    }
    let how = match f.ended {
        Ended::TimedOut => format!("stopped at --duration, {}", f.status_text()),
        _ => f.status_text(),
    };
    format!("no fps line in the output ({how}); last lines: {}", f.tail.join(" | "))
}

pub fn measure(spec: &Spec) -> Result<Measured, String> {
    crate::errln!("{}: {}", spec.label, spec.argv.join(" "));
    let dmon = spec.dmon_gpu.and_then(run::Dmon::start);
    let mut samples: Vec<Sample> = Vec::new();
    let mut verdict: Option<Stop> = None;
    let mut kept: Vec<String> = Vec::new();
    let (mut kept_bytes, mut fps_lines, mut dropped) = (0usize, 0usize, 0usize);
    let finished = run::run(&spec.argv, spec.duration, |l| {
        let sample = spec.parser.parse_line(l);
        let keep = if sample.is_some() {
            fps_lines += 1;
            fps_lines <= LOG_FPS_LINES
        } else {
            kept_bytes + l.len() <= LOG_BYTES
        };
        if keep {
            kept_bytes += l.len() + 1;
            kept.push(l.to_string());
        } else {
            dropped += 1;
        }
        let Some(s) = sample else { return Flow::Continue };
        crate::errln!("{}: {:.1} fps", spec.label, s.aggregate);
        samples.push(s);
        let Some(rule) = &spec.early else { return Flow::Continue };
        // Nothing is decided before the warm-up is over (the steady window
        // falls back to every live reading while a run is short of it).
        let live = samples.iter().skip_while(|s| s.aggregate <= 0.0).count();
        if live <= spec.warmup {
            return Flow::Continue;
        }
        let steady: Vec<f64> = steady_window(&samples, spec.warmup)
            .iter()
            .map(|s| s.aggregate)
            .collect();
        verdict = early_verdict(&steady, spec.prev, rule);
        if verdict.is_some() { Flow::Stop } else { Flow::Continue }
    })?;
    let util = dmon.map(run::Dmon::stop);
    let stop = match finished.ended {
        Ended::Stopped => verdict.unwrap_or(Stop::Decided),
        Ended::TimedOut => Stop::Duration,
        Ended::Exited => Stop::Exited,
    };
    let get = |k: &str| util.as_ref().and_then(|u| u.get(k).copied());
    let util_text: String = ["sm", "mem", "dec"]
        .iter()
        .filter_map(|k| Some(format!(" {k}={}", get(k)?)))
        .collect();
    let mut log = format!(
        "{LOG_MARK}{} seconds={:.1} stop={}{util_text}\n",
        spec.batch,
        finished.seconds,
        stop.token()
    );
    for l in &kept {
        log.push_str(l);
        log.push('\n');
    }
    if dropped > 0 {
        log.push_str(&format!("[dslint: {dropped} more lines not kept]\n"));
    }
    if finished.long_lines > 0 {
        crate::errln!(
            "{}: {} lines longer than {} KiB were cut",
            spec.label,
            finished.long_lines,
            run::MAX_LINE / 1024
        );
    }
    let steady: Vec<f64> = steady_window(&samples, spec.warmup)
        .iter()
        .map(|s| s.aggregate)
        .collect();
    if steady.is_empty() {
        return Err(no_fps_message(&finished, &kept));
    }
    Ok(Measured {
        point: Point {
            batch: spec.batch,
            samples: steady,
            streams: spec.batch,
            seconds: finished.seconds,
            sm_max: get("sm"),
            mem_max: get("mem"),
            dec_max: get("dec"),
            windows: 1,
            stop: Some(stop),
        },
        log,
        lines: kept,
    })
}

/// After a series of runs: save the log when asked, remove the config
/// variants unless kept.
pub fn finish(
    log: &str,
    save: Option<&std::path::Path>,
    variants: Vec<std::path::PathBuf>,
    keep: bool,
) -> Result<(), String> {
    if let Some(p) = save {
        crate::files::write::create_at(p, log.as_bytes(), 0o644)?;
    }
    if !keep {
        for v in variants {
            let _ = std::fs::remove_file(v);
        }
    }
    Ok(())
}
