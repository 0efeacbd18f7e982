//! Bound classification (Stage 5): the decision tree of the rule book, in
//! order; the first type with evidence wins. Two independent signals give
//! high confidence, one gives medium, and signals for and against the same
//! type give INCONCLUSIVE.

use serde::Serialize;

use crate::model::facts::Facts;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Verdict {
    #[serde(rename = "type")]
    pub kind: String,
    pub confidence: String,
    pub evidence: Vec<String>,
    pub against: Vec<String>,
    /// A bound that a weak signal points at, with the measurement that
    /// would settle it (no verdict of its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate: Option<Candidate>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Candidate {
    #[serde(rename = "type")]
    pub kind: String,
    pub signal: String,
    pub settle: String,
}

struct Signals {
    kind: &'static str,
    for_: Vec<String>,
    against: Vec<String>,
    /// A weak signal alone: named, decides nothing.
    candidate: Option<Candidate>,
}

fn sweep_fps(f: &Facts, b: u32) -> Option<f64> {
    f.sweep
        .as_ref()?
        .points
        .iter()
        .find(|p| p.batch == b)
        .map(|p| p.fps_aggregate)
}

/// Highest dmon value of a column over sweep points at batch ≤ `max_b`.
fn dmon_at_small(f: &Facts, max_b: u32, col: fn(&crate::model::facts::SweepPoint) -> Option<f64>) -> Option<f64> {
    f.sweep
        .as_ref()?
        .points
        .iter()
        .filter(|p| p.batch <= max_b)
        .filter_map(col)
        .reduce(f64::max)
}

/// Whether dmon saw NVDEC idle in the sweep's runs at B ≤ 2: `dec` under
/// half of what B streams decoding flat out would show. dmon's `dec` is the
/// mean over a GPU's NVDEC engines and one stream keeps one engine busy (on
/// an H200, 7 engines: one 1080p H.264 stream decoding at 624 fps read
/// `dec` 14%, two streams 29%), so on a GPU of N engines the share is
/// min(B, N) / N; with N unknown, half of the whole (the rule book's 50%).
fn decoder_idle_at_small_batches(f: &Facts) -> Option<String> {
    let engines = f.gpu.as_ref().and_then(|g| g.nvdec_count).filter(|n| *n > 0);
    let small: Vec<(u32, f64)> = f
        .sweep
        .as_ref()?
        .points
        .iter()
        .filter(|p| p.batch <= 2)
        .filter_map(|p| Some((p.batch, p.dec_max?)))
        .collect();
    let limit = |b: u32| match engines {
        Some(n) => 50.0 * b.min(n) as f64 / n as f64,
        None => 50.0,
    };
    let idle = !small.is_empty() && small.iter().all(|&(b, d)| d < limit(b));
    let (b, d) = *small.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    idle.then(|| {
        format!(
            "NVDEC was only {d:.0}% busy at B ≤ 2 (under {:.0}%, half of what B={b} streams decoding flat out show{})",
            limit(b),
            engines.map_or(String::new(), |n| format!(" on {n} engines"))
        )
    })
}

fn dmon_any(f: &Facts, col: fn(&crate::model::facts::SweepPoint) -> Option<f64>, e2e: Option<f64>) -> Option<f64> {
    let sweep = f
        .sweep
        .as_ref()
        .and_then(|s| s.points.iter().filter_map(col).reduce(f64::max));
    match (sweep, e2e) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

fn signals(f: &Facts) -> Vec<Signals> {
    let n = f.e2e.as_ref().and_then(|e| e.nsys.as_ref());
    let e2e = f.e2e.as_ref();
    let mut out = Vec::new();

    // 1. Engine build inside the profile.
    let mut s = Signals {
        kind: "ENGINE_BUILD_CONTAMINATED",
        for_: vec![],
        against: vec![],
        candidate: None,
    };
    if let Some(p) = n.and_then(|n| n.module_load_pct_of_api).filter(|p| *p > 10.0) {
        s.for_
            .push(format!("cuModuleLoadData is {p:.1}% of CUDA API time (> 10%)"));
    }
    if let Some(k) = n.map(|n| &n.engine_build_kernels).filter(|k| !k.is_empty()) {
        s.for_
            .push(format!("engine-build kernels in the profile: {}", k.join(", ")));
    }
    out.push(s);

    // 2. Copies.
    let mut s = Signals {
        kind: "MEMCPY_BOUND",
        for_: vec![],
        against: vec![],
        candidate: None,
    };
    if let Some(p) = n.and_then(|n| n.memcpy_pct_of_wall).filter(|p| *p > 15.0) {
        let split: Vec<String> = n
            .map(|n| n.memcpy.iter().map(|m| format!("{} {:.1}%", m.name, m.pct)).collect())
            .unwrap_or_default();
        s.for_.push(format!(
            "H2D + D2H + D2D copies take {p:.1}% of wall time (> 15%): {}",
            split.join(", ")
        ));
    }
    out.push(s);

    // 3. Decode.
    let mut s = Signals {
        kind: "DECODE_BOUND",
        for_: vec![],
        against: vec![],
        candidate: None,
    };
    let ratio = match (sweep_fps(f, 1), sweep_fps(f, 2), sweep_fps(f, 4)) {
        (Some(a), Some(b), _) if b > 0.0 && a / b < 0.55 => {
            Some(format!("sweep fps[B=1]/fps[B=2] = {:.2} (< 0.55)", a / b))
        }
        (Some(a), _, Some(c)) if c > 0.0 && a / c < 0.30 => {
            Some(format!("sweep fps[B=1]/fps[B=4] = {:.2} (< 0.30)", a / c))
        }
        _ => None,
    };
    let dec_small = dmon_at_small(f, 2, |p| p.dec_max);
    if let Some(r) = ratio {
        match decoder_idle_at_small_batches(f) {
            // A pure inference benchmark scales the same way (per-launch
            // overhead), so with the decoder idle the signal counts against.
            Some(why) => s.against.push(format!("{r}, but {why}: launch overhead, not decode")),
            None => s.for_.push(r),
        }
    }
    if let Some(d) = dmon_any(f, |p| p.dec_max, e2e.and_then(|e| e.dec_max)).filter(|d| *d >= 90.0) {
        s.for_.push(format!("NVDEC {d:.0}% busy (dmon dec ≥ 90%)"));
    }
    if let Some(p) = n.and_then(|n| n.streammux_collecting_pct).filter(|p| *p > 40.0) {
        s.for_.push(format!(
            "streammux m_collectingBuffers is {p:.1}% of NVTX time (> 40%): it waits for frames"
        ));
    }
    // The sweep ratio alone is weak (a pure inference benchmark scales the
    // same way from B=1 to B=2): it decides nothing without NVDEC load or a
    // waiting streammux beside it.
    let strong = s.for_.iter().any(|e| !e.starts_with("sweep fps"));
    if !strong {
        if let (Some(signal), true) = (s.for_.first(), s.against.is_empty()) {
            s.candidate = Some(Candidate {
                kind: "DECODE_BOUND".into(),
                signal: signal.clone(),
                settle: if dec_small.is_none() {
                    "run `dslint measure sweep` where nvidia-smi is available (dmon `dec` ≥ 90% confirms it, \
                     NVDEC nearly idle at B ≤ 2 rules it out), or `dslint measure decode` for the decode ceiling"
                        .into()
                } else {
                    "`dslint measure decode` measures the decode ceiling; a sweep whose fps stops at it confirms it"
                        .into()
                },
            });
        }
        s.for_.clear();
        s.against.clear();
    }
    out.push(s);

    // 4. Compute.
    let mut s = Signals {
        kind: "COMPUTE_BOUND",
        for_: vec![],
        against: vec![],
        candidate: None,
    };
    if let Some(g) = n.and_then(|n| n.gemm_kernel_pct).filter(|g| *g > 50.0) {
        s.for_
            .push(format!("TensorRT GEMM kernels are {g:.1}% of kernel time (> 50%)"));
    }
    if let Some(b) = f
        .sweep
        .as_ref()
        .filter(|s| s.extra.get("plateau_decided").and_then(|v| v.as_bool()) != Some(false))
        .and_then(|s| s.plateau_batch)
        .filter(|b| *b <= 4)
    {
        s.for_.push(format!("sweep plateau already at B={b} (≤ 4)"));
    }
    let sm = n
        .and_then(|n| n.sm_active_pct)
        .or_else(|| dmon_any(f, |p| p.sm_max, e2e.and_then(|e| e.sm_max)));
    match sm {
        Some(v) if v > 70.0 => s.for_.push(format!("SM active {v:.0}% (> 70%)")),
        Some(v) if v < 50.0 && !s.for_.is_empty() => s.against.push(format!("SM active only {v:.0}%")),
        _ => {}
    }
    out.push(s);

    // 5. Memory bandwidth.
    let mut s = Signals {
        kind: "MEMORY_BW_BOUND",
        for_: vec![],
        against: vec![],
        candidate: None,
    };
    let sm_now = n.and_then(|n| n.sm_active_pct);
    if let (Some(d), Some(smv)) = (n.and_then(|n| n.dram_pct), sm_now) {
        if d > 85.0 && smv < 70.0 {
            s.for_.push(format!(
                "DRAM throughput {d:.0}% with SMs {smv:.0}% active (> 85% with < 70%)"
            ));
        }
    }
    if let (Some(m), Some(smv)) = (e2e.and_then(|e| e.mem_max), e2e.and_then(|e| e.sm_max)) {
        if m > 85.0 && smv < 70.0 {
            s.for_.push(format!("dmon memory {m:.0}% with sm {smv:.0}%"));
        }
    }
    out.push(s);

    // 6. Tracker.
    let mut s = Signals {
        kind: "TRACKER_BOUND",
        for_: vec![],
        against: vec![],
        candidate: None,
    };
    if let (Some(t), Some(i)) = (n.and_then(|n| n.tracker_nvtx_ms), n.and_then(|n| n.nvinfer_nvtx_ms)) {
        if t > i {
            s.for_.push(format!("tracker NVTX time {t:.1} ms > nvinfer {i:.1} ms"));
        }
    }
    out.push(s);

    // 7. Host synchronisation.
    let mut s = Signals {
        kind: "SYNC_BOUND",
        for_: vec![],
        against: vec![],
        candidate: None,
    };
    if let Some(p) = n.and_then(|n| n.sync_pct_of_api).filter(|p| *p > 30.0) {
        s.for_.push(format!(
            "cudaStreamSynchronize + cudaEventSynchronize are {p:.1}% of CUDA API time (> 30%)"
        ));
    }
    out.push(s);
    out
}

pub fn classify(f: &Facts) -> Verdict {
    let all = signals(f);
    let candidate = all.iter().find_map(|s| s.candidate.clone());
    for s in all {
        if s.for_.is_empty() {
            continue;
        }
        if !s.against.is_empty() {
            return Verdict {
                kind: "INCONCLUSIVE".into(),
                confidence: "low".into(),
                evidence: s.for_.iter().map(|e| format!("for {}: {e}", s.kind)).collect(),
                against: s.against,
                candidate: None,
            };
        }
        let confidence = if s.for_.len() >= 2 { "high" } else { "medium" };
        return Verdict {
            kind: s.kind.into(),
            confidence: confidence.into(),
            evidence: s.for_,
            against: vec![],
            candidate: None,
        };
    }
    // Nothing matched: say what was seen, invent nothing.
    let mut evidence = Vec::new();
    let n = f.e2e.as_ref().and_then(|e| e.nsys.as_ref());
    if let Some(n) = n {
        let top: Vec<String> = n
            .top_kernels
            .iter()
            .take(3)
            .map(|k| format!("{} {:.1}%", k.name, k.pct))
            .collect();
        if !top.is_empty() {
            evidence.push(format!("top kernels: {}", top.join(", ")));
        }
        if !n.memcpy.is_empty() {
            evidence.push(format!(
                "memcpy: {}",
                n.memcpy
                    .iter()
                    .map(|m| format!("{} {:.1}%", m.name, m.pct))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if let Some(s) = &f.sweep {
        let t: Vec<String> = s
            .points
            .iter()
            .map(|p| format!("B={} {:.0}", p.batch, p.fps_aggregate))
            .collect();
        if !t.is_empty() {
            evidence.push(format!("sweep fps: {}", t.join(", ")));
        }
    }
    if evidence.is_empty() {
        evidence.push("no profile or sweep in the facts file: run dslint measure sweep and measure profile".into());
    }
    Verdict {
        kind: "UNKNOWN_BOTTLENECK".into(),
        confidence: "low".into(),
        evidence,
        against: vec![],
        candidate,
    }
}
