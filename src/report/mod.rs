//! `dslint report`: the profile summary — hardware, ceilings, plateau, end
//! to end as a share of the plateau, NVTX time per element, bound type with
//! evidence, capacity in streams with its dominating ceiling and remedy,
//! applied configs and uninstrumented elements. Terse; no raw CSV.

pub mod bound;
pub mod capacity;

use std::fmt::Write;

use serde::Serialize;

use crate::model::facts::{Facts, NsysSummary};
pub use bound::{Verdict, classify};
pub use capacity::{Capacity, CapacityRow, capacity};

fn plateau_fps(f: &Facts) -> Option<(u32, f64)> {
    let s = f.sweep.as_ref()?;
    let b = s.plateau_batch?;
    let p = s.points.iter().find(|p| p.batch == b)?;
    Some((b, p.fps_aggregate))
}

/// The ceilings of one GPU, for a line of the report.
fn ceilings_text(c: &crate::model::facts::Ceilings) -> String {
    let opt = |v: Option<f64>, unit: &str| v.map_or("unknown".to_string(), |v| format!("{v} {unit}"));
    let codec = c.decode_codec.as_deref().unwrap_or("h264");
    let res = c.decode_resolution.as_deref().unwrap_or("1080p");
    let decode = match (c.decode_fps, &c.decode_measurement) {
        (Some(d), Some(m)) if c.decode_measured() => format!(
            "decode {d} fps measured ({codec} {res}, {} streams{}{})",
            m.streams,
            m.dec_pct.map_or(String::new(), |p| format!(", NVDEC {p:.0}%")),
            c.decode_fps_table.map_or(String::new(), |t| format!("; table {t} fps"))
        ),
        (Some(d), _) => format!("decode {d} fps ({codec} {res}; table, unverified)"),
        (None, _) => "decode unknown".to_string(),
    };
    format!(
        "{decode} · theoretical: FP16 {} · INT8 {} · memory {} · PCIe {}",
        opt(c.fp16_tops, "TFLOP/s"),
        opt(c.int8_tops, "TOP/s"),
        opt(c.memory_gbps, "GB/s"),
        opt(c.pcie_gbps, "GB/s")
    )
}

/// The lines `measure profile` prints about what nsys showed.
pub fn nsys_lines(n: &NsysSummary) -> String {
    let mut s = String::new();
    let top: Vec<String> = n
        .top_kernels
        .iter()
        .take(5)
        .map(|k| format!("{} {:.1}%", k.name, k.pct))
        .collect();
    let _ = writeln!(
        s,
        "top kernels: {}",
        if top.is_empty() {
            "none (no CUDA kernel data)".into()
        } else {
            top.join("; ")
        }
    );
    if let Some(g) = n.gemm_kernel_pct {
        let _ = writeln!(s, "TensorRT GEMM kernels: {g:.1}% of kernel time");
    }
    if let Some(m) = n.memcpy_pct_of_wall {
        let _ = writeln!(
            s,
            "memcpy: {m:.1}% of {}",
            n.wall_basis.as_deref().unwrap_or("wall time")
        );
    }
    if let Some(p) = n.sync_pct_of_api {
        let _ = writeln!(s, "stream/event synchronize: {p:.1}% of CUDA API time");
    }
    for (e, c) in &n.coverage {
        let _ = writeln!(s, "NVTX {c}: {e}");
    }
    s
}

#[derive(Serialize)]
struct JsonReport<'a> {
    gpu: Option<&'a crate::model::facts::Gpu>,
    ceilings: Option<&'a crate::model::facts::Ceilings>,
    gpus: &'a [crate::model::facts::NodeGpu],
    plateau_batch: Option<u32>,
    plateau_fps: Option<f64>,
    e2e_fps: Option<f64>,
    e2e_pct_of_plateau: Option<f64>,
    nvtx: Vec<crate::model::facts::Share>,
    bound: &'a Verdict,
    capacity: Option<Capacity>,
    applied_configs: Vec<String>,
    uninstrumented: Vec<String>,
}

fn e2e_pct(f: &Facts) -> Option<f64> {
    let fps = f.e2e.as_ref()?.fps?;
    let (_, p) = plateau_fps(f)?;
    (p > 0.0).then(|| (fps / p * 1000.0).round() / 10.0)
}

fn uninstrumented(f: &Facts) -> Vec<String> {
    f.e2e
        .as_ref()
        .and_then(|e| e.nsys.as_ref())
        .map(|n| {
            n.coverage
                .iter()
                .filter(|(_, c)| *c == "UNINSTRUMENTED")
                .map(|(e, _)| e.clone())
                .collect()
        })
        .unwrap_or_default()
}

pub fn render_json(f: &Facts) -> String {
    let v = classify(f);
    let r = JsonReport {
        gpu: f.gpu.as_ref(),
        ceilings: f.ceilings.as_ref(),
        gpus: &f.gpus,
        plateau_batch: plateau_fps(f).map(|p| p.0),
        plateau_fps: plateau_fps(f).map(|p| p.1),
        e2e_fps: f.e2e.as_ref().and_then(|e| e.fps),
        e2e_pct_of_plateau: e2e_pct(f),
        nvtx: f
            .e2e
            .as_ref()
            .and_then(|e| e.nsys.as_ref())
            .map(|n| n.nvtx.clone())
            .unwrap_or_default(),
        capacity: capacity(f, &v),
        bound: &v,
        applied_configs: f.e2e.as_ref().map(|e| e.configs.clone()).unwrap_or_default(),
        uninstrumented: uninstrumented(f),
    };
    serde_json::to_string_pretty(&r).unwrap_or_default() + "\n"
}

pub fn render_md(f: &Facts) -> String {
    let mut s = String::from("# dslint profile report\n\n");
    match &f.gpu {
        Some(g) => {
            let _ = writeln!(
                s,
                "**Hardware**: {} (compute {}, {} SMs, {} NVDEC, {} MiB, driver {})  ",
                g.name.as_deref().unwrap_or("?"),
                g.compute_cap.as_deref().unwrap_or("?"),
                g.sm_count.map_or("?".into(), |v| v.to_string()),
                g.nvdec_count.map_or("?".into(), |v| v.to_string()),
                g.memory_total_mib.map_or("?".into(), |v| v.to_string()),
                g.driver_version.as_deref().unwrap_or("?")
            );
        }
        None => s.push_str("**Hardware**: unknown (run `dslint measure hw`)  \n"),
    }
    if let Some(c) = &f.ceilings {
        let _ = writeln!(s, "**Ceilings**: {}  ", ceilings_text(c));
    }
    if f.gpus.len() > 1 {
        let _ = writeln!(s, "**GPUs of the node**: {}  ", f.gpus.len());
        for n in &f.gpus {
            let _ = writeln!(
                s,
                "- GPU {} ({}): {}",
                n.gpu.index.unwrap_or(0),
                n.gpu.name.as_deref().unwrap_or("?"),
                ceilings_text(&n.ceilings)
            );
        }
    }
    match plateau_fps(f) {
        Some((b, fps)) => {
            let decided = f
                .sweep
                .as_ref()
                .and_then(|s| s.extra.get("plateau_decided"))
                .and_then(|v| v.as_bool())
                != Some(false);
            let _ = writeln!(
                s,
                "**Plateau**: B={b} at {fps:.1} fps{}  ",
                if decided {
                    ""
                } else {
                    " (not reached: largest batch measured)"
                }
            );
        }
        None => s.push_str("**Plateau**: not measured (run `dslint measure sweep`)  \n"),
    }
    match (f.e2e.as_ref().and_then(|e| e.fps), e2e_pct(f)) {
        (Some(fps), Some(p)) => {
            let _ = writeln!(s, "**End to end**: {fps:.1} fps = {p:.1}% of the plateau");
        }
        (Some(fps), None) => {
            let _ = writeln!(s, "**End to end**: {fps:.1} fps");
        }
        _ => s.push_str("**End to end**: not measured\n"),
    }
    let v = classify(f);
    let _ = writeln!(s, "\n## Bound: {} ({} confidence)\n", v.kind, v.confidence);
    for e in &v.evidence {
        let _ = writeln!(s, "- {e}");
    }
    for e in &v.against {
        let _ = writeln!(s, "- against: {e}");
    }
    if let Some(c) = &v.candidate {
        let _ = writeln!(
            s,
            "- candidate: {} ({}), not decided by this signal alone. To settle it, {}.",
            c.kind, c.signal, c.settle
        );
    }
    if let Some(c) = capacity(f, &v) {
        let _ = writeln!(s, "\n## Capacity at {} fps per stream\n", c.target_fps);
        s.push_str("| ceiling | streams |\n|---|---|\n");
        for r in &c.rows {
            let _ = writeln!(s, "| {} | {:.1} |", r.ceiling, r.streams);
        }
        let _ = writeln!(
            s,
            "\n**{} streams** per GPU, limited by {}. {}.",
            c.max_streams, c.dominating, c.remediation
        );
        if let Some(a) = &c.after_remedy {
            let _ = writeln!(
                s,
                "After that remedy, the next ceiling is {}: {:.1} streams.",
                a.ceiling, a.streams
            );
        }
        if let Some(n) = &c.node {
            let _ = writeln!(
                s,
                "Node: {} streams on {} GPUs of this model (a pipeline runs on the GPU its gpu-id names){}.",
                n.max_streams,
                n.gpus,
                if n.not_counted.is_empty() {
                    String::new()
                } else {
                    format!("; not counted, not measured: {}", n.not_counted.join(", "))
                }
            );
        }
    }
    if let Some(n) = f
        .e2e
        .as_ref()
        .and_then(|e| e.nsys.as_ref())
        .filter(|n| !n.nvtx.is_empty())
    {
        s.push_str("\n## NVTX time per element\n\n| element | share | total ms |\n|---|---|---|\n");
        for e in n.nvtx.iter().take(12) {
            let _ = writeln!(s, "| {} | {:.1}% | {:.2} |", e.name, e.pct, e.total_ms);
        }
    }
    if let Some(sw) = f.sweep.as_ref().filter(|s| !s.points.is_empty()) {
        s.push_str("\n## Sweep\n\n| B | fps | per stream | spread |\n|---|---|---|---|\n");
        for p in &sw.points {
            let per = p.fps_per_stream.map_or("-".to_string(), |v| format!("{v:.1}"));
            let spread = p.spread_pct.map_or("-".to_string(), |v| format!("{v:.1}%"));
            let _ = writeln!(s, "| {} | {:.1} | {per} | {spread} |", p.batch, p.fps_aggregate);
        }
    }
    let configs = f.e2e.as_ref().map(|e| e.configs.clone()).unwrap_or_default();
    if !configs.is_empty() {
        s.push_str("\n## Applied configs\n\n");
        for c in configs {
            let _ = writeln!(s, "- {c}");
        }
    }
    let un = uninstrumented(f);
    if !un.is_empty() {
        s.push_str(
            "\n## Uninstrumented elements\n\nNo NVTX ranges were seen for these; their time is not attributed:\n\n",
        );
        for e in un {
            let _ = writeln!(s, "- {e}");
        }
    }
    s
}
