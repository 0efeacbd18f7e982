//! The batch sweep (Stage 3): measure fps at B = 1, 2, 4, … and stop at the
//! plateau, the smallest B where doubling gains less than 5%. Run-to-run
//! noise of a few percent is real (an H200 measured ResNet-50 16→32 +1.1%,
//! then 32→64 +5.4%), so each gain is judged against the spread measured at
//! both batches: clearly below 5% decides, clearly above goes on, and too
//! close to call measures another window before deciding.

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
    let gain = (big.mean() / small.mean().max(f64::MIN_POSITIVE) - 1.0) * 100.0;
    let noise = (small.spread_pct().powi(2) + big.spread_pct().powi(2)).sqrt();
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
    pub gpu_seconds: f64,
    /// What the full list would have cost at the measured seconds per run.
    pub full_sweep_seconds_estimate: f64,
    pub notes: Vec<String>,
}

/// Drive a sweep over `batches`. `measure(B)` runs one window at batch B.
/// `extra_windows` bounds the windows added to settle a too-close call.
pub fn run_sweep(
    batches: &[u32],
    extra_windows: u32,
    mut measure: impl FnMut(u32) -> Result<Point, String>,
    mut progress: impl FnMut(&str),
) -> SweepOutcome {
    let mut points: Vec<Point> = Vec::new();
    let mut notes = Vec::new();
    let mut plateau = None;
    let mut decided = false;
    'batches: for &b in batches {
        let p = match measure(b) {
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
        progress(&format!(
            "B={b}: {:.1} fps (spread {:.1}%, {} samples)",
            p.mean(),
            p.spread_pct(),
            p.samples.len()
        ));
        points.push(p);
        let n = points.len();
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
                    plateau = Some(small);
                    decided = true;
                    break 'batches;
                }
                Verdict::Continue => {
                    progress(&format!(
                        "B={small}→{big}: {gain:+.1}% (noise ±{noise:.1}%): keep doubling"
                    ));
                    break;
                }
                Verdict::TooClose if extra < extra_windows => {
                    progress(&format!(
                        "B={small}→{big}: {gain:+.1}% within noise ±{noise:.1}% of 5%: measuring B={big} again"
                    ));
                    extra += 1;
                    match measure(big) {
                        Ok(more) if !more.samples.is_empty() => points[n - 1].merge(more),
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
            notes.push(format!(
                "no plateau within the batches measured; B={} is the largest measured",
                last.batch
            ));
        }
    }
    let gpu_seconds: f64 = points.iter().map(|p| p.seconds).sum();
    let windows: u32 = points.iter().map(|p| p.windows).sum::<u32>().max(1);
    let full_sweep_seconds_estimate = gpu_seconds / windows as f64 * batches.len() as f64;
    SweepOutcome {
        points,
        plateau,
        decided,
        gpu_seconds,
        full_sweep_seconds_estimate,
        notes,
    }
}

impl SweepOutcome {
    pub fn to_facts(&self) -> Sweep {
        let mut extra = serde_json::Map::new();
        extra.insert("plateau_decided".into(), self.decided.into());
        extra.insert("gpu_seconds".into(), ((self.gpu_seconds * 10.0).round() / 10.0).into());
        extra.insert(
            "full_sweep_seconds_estimate".into(),
            ((self.full_sweep_seconds_estimate * 10.0).round() / 10.0).into(),
        );
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
        let o = run_sweep(
            &[1, 2, 4, 8, 16, 32],
            2,
            |b| {
                runs.push(b);
                Ok(point(b, &[fps(b); 3]))
            },
            |_| {},
        );
        assert_eq!(o.plateau, Some(8));
        assert!(o.decided);
        assert_eq!(runs, vec![1, 2, 4, 8, 16]);
        assert_eq!(o.gpu_seconds, 50.0);
        assert_eq!(o.full_sweep_seconds_estimate, 60.0);
    }

    #[test]
    fn too_close_measures_another_window() {
        let mut calls: Vec<u32> = Vec::new();
        let o = run_sweep(
            &[8, 16, 32],
            1,
            |b| {
                calls.push(b);
                let n = calls.iter().filter(|&&c| c == b).count();
                Ok(match (b, n) {
                    (8, _) => point(8, &[970.0, 1030.0]),
                    (16, 1) => point(16, &[1010.0, 1070.0]),
                    (16, _) => point(16, &[1040.0, 1041.0, 1039.0, 1040.0]),
                    _ => point(32, &[1045.0, 1046.0]),
                })
            },
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
