//! The batch sweep (Stage 3): measure fps at B = 1, 2, 4, … and stop at the
//! plateau, the smallest B where doubling gains less than 5%. Run-to-run
//! noise of a few percent is real (an H200 measured ResNet-50 16→32 +1.1%,
//! then 32→64 +5.4%), so each gain is judged against the spread measured at
//! both batches: clearly below 5% decides, clearly above goes on, and too
//! close to call measures another window before deciding.
//!
//! A run also stops before `--duration` once its answer is settled: after
//! the warm-up and `min_samples` readings, when the 95% confidence interval
//! of its mean fps is within `ci_pct` (small against the 5% rule), or when
//! the doubling verdict against the previous batch is the same at both ends
//! of that interval, so more readings cannot change it.

use crate::model::facts::{Sweep, SweepPoint};

/// The gain below which doubling the batch is not worth it.
pub const PLATEAU_GAIN_PCT: f64 = 5.0;

/// One batch size's measurement: the steady-state aggregate fps of each
/// window (one value per sample), plus utilisation maxima.
#[derive(Debug, Clone, Default)]
pub struct Point {
    pub batch: u32,
    pub samples: Vec<f64>,
    pub streams: u32,
    pub seconds: f64,
    pub sm_max: Option<f64>,
    pub mem_max: Option<f64>,
    pub dec_max: Option<f64>,
    pub windows: u32,
    /// Why the (last) run at this batch ended.
    pub stop: Option<Stop>,
}

/// When a run may stop before `--duration`.
#[derive(Debug, Clone, Copy)]
pub struct EarlyStop {
    /// Steady readings needed before anything is decided.
    pub min_samples: usize,
    /// Settled when the mean's 95% confidence interval is within ± this
    /// percentage of the mean.
    pub ci_pct: f64,
}

impl Default for EarlyStop {
    fn default() -> Self {
        EarlyStop {
            min_samples: 5,
            ci_pct: 1.0,
        }
    }
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stop {
    /// The mean fps was known to ± this % (95% confidence).
    Settled(f64),
    /// The verdict against the previous batch could no longer change.
    Decided,
    /// It ran until `--duration`.
    Duration,
    /// The command ended by itself.
    Exited,
}

impl Stop {
    /// For the table and the facts file.
    pub fn label(&self) -> String {
        match self {
            Stop::Settled(ci) => format!("settled ±{ci:.1}%"),
            Stop::Decided => "decided".into(),
            Stop::Duration => "duration".into(),
            Stop::Exited => "exited".into(),
        }
    }
    /// For a saved log's marker: no spaces.
    pub fn token(&self) -> String {
        match self {
            Stop::Settled(ci) => format!("settled:{ci:.2}"),
            other => other.label(),
        }
    }
    pub fn parse_token(t: &str) -> Option<Stop> {
        Some(match t {
            "decided" => Stop::Decided,
            "duration" => Stop::Duration,
            "exited" => Stop::Exited,
            _ => Stop::Settled(t.strip_prefix("settled:")?.parse().ok()?),
        })
    }
    pub fn early(&self) -> bool {
        matches!(self, Stop::Settled(_) | Stop::Decided)
    }
}

/// Two-sided 95% Student t quantile for `df` degrees of freedom.
fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        31..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

/// Half-width of the 95% confidence interval of the mean, in % of the mean.
pub fn ci95_pct(samples: &[f64]) -> Option<f64> {
    let n = samples.len();
    if n < 2 {
        return None;
    }
    let mean = samples.iter().sum::<f64>() / n as f64;
    if mean <= 0.0 {
        return None;
    }
    let var = samples.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some(t95(n - 1) * (var / n as f64).sqrt() / mean * 100.0)
}

/// Whether a run in progress has its answer: `steady` holds its steady
/// readings so far, `prev` the point of the batch before (half this one).
pub fn early_verdict(steady: &[f64], prev: Option<&Point>, rule: &EarlyStop) -> Option<Stop> {
    if steady.len() < rule.min_samples.max(2) {
        return None;
    }
    let ci = ci95_pct(steady)?;
    if ci <= rule.ci_pct {
        return Some(Stop::Settled(ci));
    }
    let prev = prev.filter(|p| !p.samples.is_empty())?;
    let now = Point {
        samples: steady.to_vec(),
        ..Point::default()
    };
    let mean = now.mean();
    let at = |m: f64| judge_means(prev.mean(), prev.spread_pct(), m, now.spread_pct()).0;
    let (low, high) = (at(mean * (1.0 - ci / 100.0)), at(mean * (1.0 + ci / 100.0)));
    (low == high && low != Verdict::TooClose).then_some(Stop::Decided)
}

impl Point {
    pub fn mean(&self) -> f64 {
        if self.samples.is_empty() {
            0.0
        } else {
            self.samples.iter().sum::<f64>() / self.samples.len() as f64
        }
    }
    /// Coefficient of variation of the samples, in percent.
    pub fn spread_pct(&self) -> f64 {
        let m = self.mean();
        if self.samples.len() < 2 || m <= 0.0 {
            return 0.0;
        }
        let var = self.samples.iter().map(|s| (s - m).powi(2)).sum::<f64>() / self.samples.len() as f64;
        var.sqrt() / m * 100.0
    }
    pub fn merge(&mut self, other: Point) {
        self.samples.extend(other.samples);
        self.seconds += other.seconds;
        self.windows += other.windows;
        self.stop = other.stop.or(self.stop);
        for (a, b) in [
            (&mut self.sm_max, other.sm_max),
            (&mut self.mem_max, other.mem_max),
            (&mut self.dec_max, other.dec_max),
        ] {
            *a = match (*a, b) {
                (Some(x), Some(y)) => Some(x.max(y)),
                (x, y) => x.or(y),
            };
        }
    }
    pub fn to_fact(&self) -> SweepPoint {
        let round = |v: f64, d: i32| (v * 10f64.powi(d)).round() / 10f64.powi(d);
        SweepPoint {
            batch: self.batch,
            fps_aggregate: round(self.mean(), 2),
            fps_per_stream: Some(round(self.mean() / self.streams.max(1) as f64, 2)),
            spread_pct: Some(round(self.spread_pct(), 2)),
            run_seconds: Some(round(self.seconds, 1)),
            sm_max: self.sm_max,
            mem_max: self.mem_max,
            dec_max: self.dec_max,
            stop: self.stop.map(|s| s.label()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Doubling gains clearly less than 5%: the smaller batch is the plateau.
    Plateau,
    /// Clearly more than 5%: go on doubling.
    Continue,
    /// Within the noise of 5%: measure another window first.
    TooClose,
}

/// Judge the step from `small` to `big` (twice the batch).
pub fn judge(small: &Point, big: &Point) -> (Verdict, f64, f64) {
    judge_means(small.mean(), small.spread_pct(), big.mean(), big.spread_pct())
}

/// `judge` on means and spreads (%).
fn judge_means(small: f64, small_spread: f64, big: f64, big_spread: f64) -> (Verdict, f64, f64) {
    let gain = (big / small.max(f64::MIN_POSITIVE) - 1.0) * 100.0;
    let noise = (small_spread.powi(2) + big_spread.powi(2)).sqrt();
    let v = if gain + noise < PLATEAU_GAIN_PCT {
        Verdict::Plateau
    } else if gain - noise >= PLATEAU_GAIN_PCT {
        Verdict::Continue
    } else {
        Verdict::TooClose
    };
    (v, gain, noise)
}

pub struct SweepOutcome {
    pub points: Vec<Point>,
    pub plateau: Option<u32>,
    /// The plateau was decided by the 5% rule (not the end of the list).
    pub decided: bool,
    /// What ended the sweep before the plateau, when something did (for
    /// the decode ramp: NVDEC saturated).
    pub stopped_by: Option<String>,
    /// Seconds of every run, measured.
    pub gpu_seconds: f64,
    pub runs: u32,
    /// Runs stopped before `--duration` because their answer was settled.
    pub runs_stopped_early: u32,
    pub notes: Vec<String>,
}

/// How a sweep goes through its list.
pub struct Plan {
    /// Bounds the windows added to settle a too-close call.
    pub extra_windows: u32,
    /// Stop at the plateau (off: measure every batch, for comparison).
    pub stop_at_plateau: bool,
}

/// Drive a sweep over `batches`. `measure(B, previous point)` runs one
/// window at batch B; `saturated(point)` ends the sweep with a reason
/// (the decode ramp's NVDEC ≥ 95%).
pub fn run_sweep(
    batches: &[u32],
    plan: &Plan,
    mut measure: impl FnMut(u32, Option<&Point>) -> Result<Point, String>,
    mut saturated: impl FnMut(&Point) -> Option<String>,
    mut progress: impl FnMut(&str),
) -> SweepOutcome {
    let mut points: Vec<Point> = Vec::new();
    let mut notes = Vec::new();
    let mut plateau = None;
    let mut decided = false;
    let mut stopped_by = None;
    let mut runs = 0;
    let mut early = 0;
    let mut count = |p: &Point| {
        runs += 1;
        early += u32::from(p.stop.is_some_and(|s| s.early()));
    };
    'batches: for &b in batches {
        let p = match measure(b, points.last()) {
            Ok(p) if !p.samples.is_empty() => p,
            Ok(_) => {
                notes.push(format!("B={b}: no fps in the output; sweep stopped"));
                break;
            }
            Err(e) => {
                notes.push(format!("B={b}: {e}; sweep stopped"));
                break;
            }
        };
        count(&p);
        progress(&format!(
            "B={b}: {:.1} fps (spread {:.1}%, {} samples, {})",
            p.mean(),
            p.spread_pct(),
            p.samples.len(),
            p.stop.map_or("-".into(), |s| s.label())
        ));
        points.push(p);
        let n = points.len();
        if let Some(why) = saturated(&points[n - 1]) {
            progress(&format!("B={b}: {why}: stopping"));
            stopped_by = Some(why);
            break;
        }
        if n < 2 {
            continue;
        }
        let mut extra = 0;
        loop {
            let (v, gain, noise) = judge(&points[n - 2], &points[n - 1]);
            let (small, big) = (points[n - 2].batch, points[n - 1].batch);
            match v {
                Verdict::Plateau => {
                    progress(&format!(
                        "B={small}→{big}: {gain:+.1}% (noise ±{noise:.1}%): plateau at B={small}"
                    ));
                    if plateau.is_none() {
                        plateau = Some(small);
                        decided = true;
                    }
                    if plan.stop_at_plateau {
                        break 'batches;
                    }
                    break;
                }
                Verdict::Continue => {
                    progress(&format!(
                        "B={small}→{big}: {gain:+.1}% (noise ±{noise:.1}%): keep doubling"
                    ));
                    break;
                }
                Verdict::TooClose if extra < plan.extra_windows && plan.stop_at_plateau => {
                    progress(&format!(
                        "B={small}→{big}: {gain:+.1}% within noise ±{noise:.1}% of 5%: measuring B={big} again"
                    ));
                    extra += 1;
                    match measure(big, Some(&points[n - 2])) {
                        Ok(more) if !more.samples.is_empty() => {
                            count(&more);
                            points[n - 1].merge(more)
                        }
                        _ => break,
                    }
                }
                Verdict::TooClose => {
                    notes.push(format!("B={small}→{big}: {gain:+.1}% stays within noise ±{noise:.1}% of 5%; judged by the next doubling"));
                    break;
                }
            }
        }
    }
    if plateau.is_none() {
        if let Some(last) = points.last() {
            plateau = Some(last.batch);
            if stopped_by.is_none() {
                notes.push(format!(
                    "no plateau within the batches measured; B={} is the largest measured",
                    last.batch
                ));
            }
        }
    }
    let gpu_seconds: f64 = points.iter().map(|p| p.seconds).sum();
    SweepOutcome {
        points,
        plateau,
        decided,
        stopped_by,
        gpu_seconds,
        runs,
        runs_stopped_early: early,
        notes,
    }
}

impl SweepOutcome {
    pub fn to_facts(&self) -> Sweep {
        let mut extra = serde_json::Map::new();
        extra.insert("plateau_decided".into(), self.decided.into());
        extra.insert("gpu_seconds".into(), ((self.gpu_seconds * 10.0).round() / 10.0).into());
        extra.insert("runs".into(), self.runs.into());
        extra.insert("runs_stopped_early".into(), self.runs_stopped_early.into());
        if !self.notes.is_empty() {
            extra.insert("notes".into(), self.notes.clone().into());
        }
        Sweep {
            points: self.points.iter().map(Point::to_fact).collect(),
            plateau_batch: self.plateau,
            extra,
        }
    }
}

/// The default batch list, capped at `n_streams` when known.
pub fn batch_list(requested: &[u32], n_streams: Option<u32>) -> Vec<u32> {
    let mut list: Vec<u32> = requested.iter().copied().filter(|&b| b > 0).collect();
    if let Some(n) = n_streams {
        list.retain(|&b| b <= n);
        if list.last().is_some_and(|&l| l < n) && requested.iter().any(|&b| b > n) {
            list.push(n);
        }
    }
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(batch: u32, fps: &[f64]) -> Point {
        Point {
            batch,
            samples: fps.to_vec(),
            streams: batch,
            seconds: 10.0,
            windows: 1,
            ..Point::default()
        }
    }

    #[test]
    fn verdicts_against_noise() {
        assert_eq!(
            judge(&point(8, &[1000.0; 4]), &point(16, &[1011.0; 4])).0,
            Verdict::Plateau
        );
        assert_eq!(
            judge(&point(8, &[1000.0; 4]), &point(16, &[1200.0; 4])).0,
            Verdict::Continue
        );
        // +4% but with ±3% noise on each side: too close to call.
        assert_eq!(
            judge(&point(8, &[970.0, 1030.0]), &point(16, &[1010.0, 1070.0])).0,
            Verdict::TooClose
        );
    }

    #[test]
    fn stops_at_the_plateau() {
        let fps = |b: u32| match b {
            1 => 400.0,
            2 => 760.0,
            4 => 1290.0,
            8 => 1610.0,
            16 => 1630.0,
            _ => 1640.0,
        };
        let mut runs = Vec::new();
        let plan = Plan {
            extra_windows: 2,
            stop_at_plateau: true,
        };
        let o = run_sweep(
            &[1, 2, 4, 8, 16, 32],
            &plan,
            |b, _| {
                runs.push(b);
                Ok(point(b, &[fps(b); 3]))
            },
            |_| None,
            |_| {},
        );
        assert_eq!(o.plateau, Some(8));
        assert!(o.decided);
        assert_eq!(runs, vec![1, 2, 4, 8, 16]);
        assert_eq!(o.gpu_seconds, 50.0);
        assert_eq!(o.runs, 5);
        // Every batch, for comparison: the same plateau.
        let all = run_sweep(
            &[1, 2, 4, 8, 16, 32],
            &Plan {
                stop_at_plateau: false,
                ..plan
            },
            |b, _| Ok(point(b, &[fps(b); 3])),
            |_| None,
            |_| {},
        );
        assert_eq!((all.plateau, all.runs), (Some(8), 6));
    }

    #[test]
    fn saturation_ends_the_ramp() {
        let o = run_sweep(
            &[1, 2, 4, 8],
            &Plan {
                extra_windows: 0,
                stop_at_plateau: true,
            },
            |b, _| {
                let mut p = point(b, &[400.0 * b as f64; 3]);
                p.dec_max = Some(12.5 * b as f64);
                Ok(p)
            },
            |p| (p.dec_max? >= 95.0).then(|| "NVDEC 100% busy".to_string()),
            |_| {},
        );
        assert_eq!(o.points.len(), 4);
        assert_eq!(o.stopped_by.as_deref(), Some("NVDEC 100% busy"));
        assert!(!o.decided);
        assert!(o.notes.is_empty(), "{:?}", o.notes);
    }

    #[test]
    fn settled_runs_stop_and_noisy_ones_do_not() {
        let rule = EarlyStop::default();
        // Four readings are not enough, whatever they say.
        assert_eq!(early_verdict(&[1000.0; 4], None, &rule), None);
        assert_eq!(early_verdict(&[1000.0; 5], None, &rule), Some(Stop::Settled(0.0)));
        let steady = [1000.0, 1002.0, 998.0, 1001.0, 999.0];
        match early_verdict(&steady, None, &rule) {
            Some(Stop::Settled(ci)) => assert!((ci - 0.196).abs() < 0.01, "{ci}"),
            other => panic!("{other:?}"),
        }
        // ±15% noise: never settled on its own…
        let noisy: Vec<f64> = (0..40).map(|i| if i % 2 == 0 { 850.0 } else { 1150.0 }).collect();
        assert_eq!(early_verdict(&noisy, None, &rule), None);
        // …nor when the gain over the previous batch is near 5%.
        let prev = point(8, &[960.0; 6]);
        assert_eq!(early_verdict(&noisy, Some(&prev), &rule), None);
        // A gain far beyond the noise is decided at once.
        let prev = point(1, &[300.0; 6]);
        assert_eq!(early_verdict(&noisy[..6], Some(&prev), &rule), Some(Stop::Decided));
    }

    #[test]
    fn too_close_measures_another_window() {
        let mut calls: Vec<u32> = Vec::new();
        let o = run_sweep(
            &[8, 16, 32],
            &Plan {
                extra_windows: 1,
                stop_at_plateau: true,
            },
            |b, _| {
                calls.push(b);
                let n = calls.iter().filter(|&&c| c == b).count();
                Ok(match (b, n) {
                    (8, _) => point(8, &[970.0, 1030.0]),
                    (16, 1) => point(16, &[1010.0, 1070.0]),
                    (16, _) => point(16, &[1040.0, 1041.0, 1039.0, 1040.0]),
                    _ => point(32, &[1045.0, 1046.0]),
                })
            },
            |_| None,
            |_| {},
        );
        assert_eq!(calls, vec![8, 16, 16, 32]);
        assert!(o.points[1].windows == 2);
        assert!(o.plateau.is_some());
    }

    #[test]
    fn caps_at_streams() {
        assert_eq!(batch_list(&[1, 2, 4, 8, 16, 32], Some(6)), vec![1, 2, 4, 6]);
        assert_eq!(batch_list(&[1, 2, 4, 8, 16, 32], Some(8)), vec![1, 2, 4, 8]);
        assert_eq!(batch_list(&[1, 2, 4], None), vec![1, 2, 4]);
    }
}
