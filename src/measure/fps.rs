//! Frames per second from a run's output: deepstream-app `**PERF:` lines
//! (one column per stream), Python apps' `PERF:` dictionaries,
//! nvmultiurisrcbin apps' `FPS_N (x)` lines, trtexec `Throughput: N qps`,
//! a generic `fps=` / `FPS:` line, or a user's regex.

use std::sync::OnceLock;

use regex::Regex;

/// One reading: the aggregate fps over all streams, and per stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub aggregate: f64,
    pub per_stream: Vec<f64>,
}

pub struct FpsParser {
    custom: Option<Regex>,
    /// trtexec reports batches per second; images = qps × batch.
    batch: u32,
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("valid regex"))
}

/// ANSI colour codes that GStreamer logs carry.
fn strip_ansi(line: &str) -> std::borrow::Cow<'_, str> {
    static ANSI: OnceLock<Regex> = OnceLock::new();
    re(&ANSI, r"\x1b\[[0-9;]*m").replace_all(line, "")
}

impl FpsParser {
    pub fn new(custom: Option<&str>, batch: u32) -> Result<FpsParser, String> {
        let custom = match custom {
            Some(r) => {
                let re = Regex::new(r).map_err(|e| format!("--fps-regex: {e}"))?;
                if re.captures_len() < 2 {
                    return Err("--fps-regex needs a capture group around the number".into());
                }
                Some(re)
            }
            None => None,
        };
        Ok(FpsParser { custom, batch })
    }

    pub fn parse_line(&self, raw: &str) -> Option<Sample> {
        static PERF_PAIR: OnceLock<Regex> = OnceLock::new();
        static PERF_FPS_N: OnceLock<Regex> = OnceLock::new();
        static DICT_VALUE: OnceLock<Regex> = OnceLock::new();
        static TRTEXEC: OnceLock<Regex> = OnceLock::new();
        static GENERIC: OnceLock<Regex> = OnceLock::new();
        let line = strip_ansi(raw);
        let line = line.trim();
        if let Some(re) = &self.custom {
            let v: f64 = re.captures(line)?.get(1)?.as_str().parse().ok()?;
            return Some(Sample {
                aggregate: v,
                per_stream: vec![],
            });
        }
        if line.contains("PERF") && !line.contains("FPS ") && !line.contains("(Avg)") {
            let body = line.split_once(':').map_or(line, |(_, b)| b);
            if body.contains('{') {
                // Python: {'stream0': 30.0, 'stream1': 29.97}
                let vals: Vec<f64> = re(&DICT_VALUE, r":\s*([0-9]+(?:\.[0-9]+)?)")
                    .captures_iter(body)
                    .filter_map(|c| c[1].parse().ok())
                    .collect();
                return per_stream(vals);
            }
            if body.contains("FPS_") {
                let vals = re(&PERF_FPS_N, r"FPS_\d+\s*\(([0-9.]+)\)")
                    .captures_iter(body)
                    .filter_map(|c| c[1].parse().ok())
                    .collect();
                return per_stream(vals);
            }
            let vals = re(&PERF_PAIR, r"([0-9]+(?:\.[0-9]+)?)\s*\(([0-9.]+)\)")
                .captures_iter(body)
                .filter_map(|c| c[1].parse().ok())
                .collect();
            return per_stream(vals);
        }
        if let Some(c) = re(&TRTEXEC, r"(?i)\bthroughput:\s*([0-9.]+)\s*qps").captures(line) {
            let qps: f64 = c[1].parse().ok()?;
            return Some(Sample {
                aggregate: qps * self.batch as f64,
                per_stream: vec![],
            });
        }
        if let Some(c) = re(&GENERIC, r"(?i)\bfps\s*[=:]\s*([0-9]+(?:\.[0-9]+)?)").captures(line) {
            return Some(Sample {
                aggregate: c[1].parse().ok()?,
                per_stream: vec![],
            });
        }
        None
    }

    pub fn parse_all(&self, text: &str) -> Vec<Sample> {
        text.lines().filter_map(|l| self.parse_line(l)).collect()
    }
}

fn per_stream(vals: Vec<f64>) -> Option<Sample> {
    if vals.is_empty() {
        return None;
    }
    Some(Sample {
        aggregate: vals.iter().sum(),
        per_stream: vals,
    })
}

/// Steady state of a run: drop `warmup` samples (and the all-zero ones a
/// pipeline prints before it runs), then mean and spread (coefficient of
/// variation, %) of the aggregate.
#[derive(Debug, Clone, PartialEq)]
pub struct Steady {
    pub mean: f64,
    pub per_stream: f64,
    pub spread_pct: f64,
    pub samples: usize,
}

/// The steady part of a run: from the first non-zero reading (a pipeline
/// prints zeros before it runs), less `warmup` readings — unless that would
/// leave nothing, then every live reading.
pub fn steady_window(samples: &[Sample], warmup: usize) -> &[Sample] {
    let Some(first_live) = samples.iter().position(|s| s.aggregate > 0.0) else {
        return &[];
    };
    let live = &samples[first_live..];
    if live.len() > warmup { &live[warmup..] } else { live }
}

pub fn steady_state(samples: &[Sample], warmup: usize, streams: u32) -> Option<Steady> {
    let steady = steady_window(samples, warmup);
    if steady.is_empty() {
        return None;
    }
    let n = steady.len() as f64;
    let mean = steady.iter().map(|s| s.aggregate).sum::<f64>() / n;
    let var = steady.iter().map(|s| (s.aggregate - mean).powi(2)).sum::<f64>() / n;
    let spread_pct = if mean > 0.0 { var.sqrt() / mean * 100.0 } else { 0.0 };
    let widths: Vec<usize> = steady.iter().map(|s| s.per_stream.len()).collect();
    let per_stream = match widths.first() {
        Some(&w) if w > 0 && widths.iter().all(|&x| x == w) => mean / w as f64,
        _ => mean / streams.max(1) as f64,
    };
    Some(Steady {
        mean,
        per_stream,
        spread_pct,
        samples: steady.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> FpsParser {
        FpsParser::new(None, 4).unwrap()
    }

    #[test]
    fn deepstream_app_perf_lines() {
        assert_eq!(p().parse_line("**PERF:  FPS 0 (Avg)\tFPS 1 (Avg)\t"), None);
        let s = p().parse_line("**PERF:  29.98 (29.91)\t30.02 (29.95)\t").unwrap();
        assert_eq!(s.per_stream, vec![29.98, 30.02]);
        assert!((s.aggregate - 60.0).abs() < 1e-9);
        let s = p().parse_line("    **PERF:  30.00 (30.00)    29.99 (29.99)").unwrap();
        assert_eq!(s.per_stream.len(), 2);
        let s = p().parse_line("PERF(1): 15.00 (14.90)\t").unwrap();
        assert_eq!(s.aggregate, 15.0);
    }

    #[test]
    fn other_apps() {
        let s = p().parse_line("**PERF:  {'stream0': 30.0, 'stream1': 29.97} ").unwrap();
        assert!((s.aggregate - 59.97).abs() < 1e-9);
        let s = p()
            .parse_line("\x1b[32m**PERF : FPS_0 (22.40)\tFPS_1 (22.80)\t")
            .unwrap();
        assert!((s.aggregate - 45.2).abs() < 1e-9);
        let s = p()
            .parse_line("[11/29/2026-22:00:00] [I] Throughput: 250.5 qps")
            .unwrap();
        assert_eq!(s.aggregate, 1002.0);
        assert_eq!(p().parse_line("batch=8 fps=1234.5").unwrap().aggregate, 1234.5);
        let custom = FpsParser::new(Some(r"imgs/s ([0-9.]+)"), 1).unwrap();
        assert_eq!(custom.parse_line("rate imgs/s 77.5").unwrap().aggregate, 77.5);
        assert!(FpsParser::new(Some("no group"), 1).is_err());
    }

    #[test]
    fn steady_state_drops_warmup_and_zeros() {
        let s = |v: f64| Sample {
            aggregate: v,
            per_stream: vec![],
        };
        let st = steady_state(&[s(0.0), s(50.0), s(100.0), s(100.0), s(104.0), s(96.0)], 1, 2).unwrap();
        assert_eq!(st.samples, 4);
        assert!((st.mean - 100.0).abs() < 1e-9);
        assert!((st.spread_pct - 2.828).abs() < 0.01, "{}", st.spread_pct);
        assert_eq!(st.per_stream, 50.0);
    }
}
