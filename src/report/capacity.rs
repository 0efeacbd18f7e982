//! Capacity in streams (rules.md, Capacity). The ceilings give
//! `min(plateau / target, decode ceiling / target, the bandwidth bound when
//! MEMORY_BW_BOUND)`. When the full pipeline was measured end to end, that
//! rate is what the pipeline does today: capacity at the current config is
//! `e2e / target`, limited by the bound found and fixed by that bound's
//! remedy; the lowest other ceiling is then what the remedy leads to. A
//! node's capacity is the sum over its GPUs of the model measured.

use serde::Serialize;

use crate::model::facts::{Ceilings, Facts};
use crate::report::Verdict;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CapacityRow {
    pub ceiling: String,
    pub streams: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Capacity {
    pub target_fps: f64,
    pub max_streams: u32,
    /// What limits the pipeline: the bound found (end to end measured), or
    /// the lowest ceiling.
    pub dominating: String,
    pub remediation: String,
    /// With an end-to-end rate: the lowest other ceiling, what the remedy
    /// leads to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_remedy: Option<CapacityRow>,
    pub rows: Vec<CapacityRow>,
    /// Several GPUs of the measured model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeCapacity>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct NodeCapacity {
    /// GPUs of the model measured.
    pub gpus: u32,
    pub max_streams: u32,
    /// GPUs of other models (not measured): named, not counted.
    pub not_counted: Vec<String>,
}

/// The element a ceiling row or a bound is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    Inference,
    Decode,
    Bandwidth,
    Tracker,
    Copies,
    Sync,
    EngineBuild,
    Unknown,
}

impl Limit {
    fn of_bound(kind: &str) -> Limit {
        match kind {
            "COMPUTE_BOUND" => Limit::Inference,
            "DECODE_BOUND" => Limit::Decode,
            "MEMORY_BW_BOUND" => Limit::Bandwidth,
            "TRACKER_BOUND" => Limit::Tracker,
            "MEMCPY_BOUND" => Limit::Copies,
            "SYNC_BOUND" => Limit::Sync,
            "ENGINE_BUILD_CONTAMINATED" => Limit::EngineBuild,
            _ => Limit::Unknown,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Limit::Inference => "inference",
            Limit::Decode => "decode",
            Limit::Bandwidth => "memory bandwidth",
            Limit::Tracker => "the tracker",
            Limit::Copies => "memory copies",
            Limit::Sync => "host synchronisation",
            Limit::EngineBuild => "the lowest ceiling (the profile includes an engine build)",
            Limit::Unknown => "a bound not identified",
        }
    }

    /// The remedy of rules.md (Capacity) for this limit, as a sentence.
    fn remedy(self) -> &'static str {
        match self {
            Limit::Inference => {
                "Remedy: INT8 with a calibration table (DS202), a smaller or pruned model, interval > 0 with a tracker that keeps IDs (DS203), or another GPU"
            }
            Limit::Decode => {
                "Remedy: fewer or lower-resolution streams per GPU, drop frames at the decoder (drop-frame-interval), device memory for decoded frames (cudadec-memtype), or GPUs with more NVDEC engines"
            }
            Limit::Bandwidth => {
                "Remedy: fewer bytes per frame: streammux at the model's resolution (DS102), device memory everywhere (DS104, DS302), no OSD or tiler in production"
            }
            Limit::Tracker => {
                "Remedy: a lighter tracker preset (DS402, DS403), or inference interval > 0 with a tracker that keeps IDs (DS203)"
            }
            Limit::Copies => "Remedy: NVMM (device) memory end to end (DS104, DS302)",
            Limit::Sync => "Remedy: sinks with sync=0 (DS603) and no blocking waits in the pipeline",
            Limit::EngineBuild => {
                "Remedy: build the TensorRT engine first (run once with model-engine-file set), then profile again"
            }
            Limit::Unknown => {
                "Remedy: none to name until the bound is known; the measurements above say what would settle it"
            }
        }
    }
}

fn plateau_fps(f: &Facts) -> Option<(u32, f64)> {
    let s = f.sweep.as_ref()?;
    let b = s.plateau_batch?;
    let p = s.points.iter().find(|p| p.batch == b)?;
    Some((b, p.fps_aggregate))
}

/// "decode ceiling (2950 fps, measured)" or "(9800 fps; table, unverified)".
pub fn decode_label(c: &Ceilings, fps: f64) -> String {
    if c.decode_measured() {
        format!("decode ceiling ({fps:.0} fps, measured)")
    } else {
        format!("decode ceiling ({fps:.0} fps; table, unverified)")
    }
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

pub fn capacity(f: &Facts, v: &Verdict) -> Option<Capacity> {
    let w = f.workload.as_ref();
    let target = w
        .and_then(|w| w.target_fps)
        .or_else(|| w.and_then(|w| w.source_fps))
        .unwrap_or(30.0);
    let mut rows: Vec<(Limit, CapacityRow)> = Vec::new();
    if let Some((b, fps)) = plateau_fps(f) {
        rows.push((
            Limit::Inference,
            CapacityRow {
                ceiling: format!("inference at the plateau (B={b}, {fps:.0} fps)"),
                streams: fps / target,
            },
        ));
    }
    if let Some((c, d)) = f.ceilings.as_ref().and_then(|c| Some((c, c.decode_fps?))) {
        rows.push((
            Limit::Decode,
            CapacityRow {
                ceiling: decode_label(c, d),
                streams: d / target,
            },
        ));
    }
    let e2e = f.e2e.as_ref().and_then(|e| e.fps).filter(|v| *v > 0.0);
    if v.kind == "MEMORY_BW_BOUND" {
        let e = f.e2e.as_ref();
        let used = e
            .and_then(|e| e.nsys.as_ref()?.dram_pct)
            .or_else(|| e.and_then(|e| e.mem_max));
        if let (Some(fps), Some(pct)) = (e2e, used.filter(|p| *p > 0.0)) {
            rows.push((
                Limit::Bandwidth,
                CapacityRow {
                    ceiling: format!("memory bandwidth ({fps:.0} fps at {pct:.0}% DRAM)"),
                    streams: fps / (pct / 100.0) / target,
                },
            ));
        }
    }
    let lowest = |skip: Option<Limit>| {
        rows.iter()
            .filter(|(l, _)| Some(*l) != skip)
            .min_by(|a, b| a.1.streams.total_cmp(&b.1.streams))
            .cloned()
    };
    // A profile that includes an engine build says nothing about today's
    // rate: the ceilings decide, and the remedy is to profile again.
    let contaminated = v.kind == "ENGINE_BUILD_CONTAMINATED";
    let e2e = e2e.filter(|_| !contaminated);
    let (max, dominating, limit, after) = match e2e {
        Some(fps) => {
            let limit = Limit::of_bound(&v.kind);
            // With no bound known there is no remedy to follow.
            let after = lowest(Some(limit)).filter(|_| limit != Limit::Unknown).map(|(_, r)| r);
            (fps / target, format!("{} ({})", limit.what(), v.kind), limit, after)
        }
        None => {
            let (limit, row) = lowest(None)?;
            let limit = if contaminated { Limit::EngineBuild } else { limit };
            (row.streams, row.ceiling, limit, None)
        }
    };
    let mut out_rows: Vec<CapacityRow> = Vec::new();
    if let Some(fps) = e2e {
        out_rows.push(CapacityRow {
            ceiling: format!("end to end today ({fps:.0} fps)"),
            streams: round1(fps / target),
        });
    }
    out_rows.extend(rows.into_iter().map(|(_, r)| CapacityRow {
        streams: round1(r.streams),
        ..r
    }));
    let max_streams = max.floor().max(0.0) as u32;
    Some(Capacity {
        target_fps: target,
        max_streams,
        dominating,
        remediation: limit.remedy().to_string(),
        after_remedy: after.map(|r| CapacityRow {
            streams: round1(r.streams),
            ..r
        }),
        rows: out_rows,
        node: node(f, max_streams),
    })
}

/// The node: the GPUs of the model measured each give the same capacity
/// (a pipeline runs on the GPU its elements' gpu-id names); other models
/// were not measured.
fn node(f: &Facts, per_gpu: u32) -> Option<NodeCapacity> {
    if f.gpus.len() < 2 {
        return None;
    }
    let name = f.gpu.as_ref().and_then(|g| g.name.clone());
    let (same, other): (Vec<_>, Vec<_>) = f.gpus.iter().partition(|n| n.gpu.name == name);
    let gpus = same.len() as u32;
    Some(NodeCapacity {
        gpus,
        max_streams: per_gpu.saturating_mul(gpus),
        not_counted: other
            .iter()
            .map(|n| {
                format!(
                    "GPU {} ({})",
                    n.gpu.index.unwrap_or(0),
                    n.gpu.name.as_deref().unwrap_or("?")
                )
            })
            .collect(),
    })
}
