//! `dslint measure hw`: every GPU of the node from nvidia-smi (or one, with
//! `--gpu-id`), its table counts and theoretical ceilings, merged into the
//! facts file. A decode ceiling measured earlier (`measure decode`) is kept.

use std::fmt::Write;
use std::path::PathBuf;

use crate::measure::commands::{load_or_new, save};
use crate::measure::gpu;
use crate::model::facts::{Ceilings, Gpu, NodeGpu};

#[derive(clap::Args)]
pub struct HwOptions {
    /// Which GPU (nvidia-smi's index) to read (default: every GPU, and the
    /// pipeline's GPU is 0).
    #[arg(long)]
    pub gpu_id: Option<u32>,
    /// Read saved `nvidia-smi --query-gpu=… --format=csv` output instead of running it.
    #[arg(long)]
    pub nvidia_smi_output: Option<PathBuf>,
    /// The facts file to merge into (other sections are kept).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

fn query_nvidia_smi() -> Result<String, String> {
    let fields = gpu::QUERY_FIELDS.join(",");
    let out = std::process::Command::new("nvidia-smi")
        .args([format!("--query-gpu={fields}"), "--format=csv,nounits".into()])
        .output()
        .map_err(|_| {
            format!(
                "nvidia-smi is not on this machine: run on the GPU host, or save its output there with\n  \
                 nvidia-smi --query-gpu={fields} --format=csv > smi.csv\n\
                 and pass --nvidia-smi-output smi.csv"
            )
        })?;
    if !out.status.success() {
        return Err(format!(
            "nvidia-smi failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A measured decode ceiling in `old` survives a new table figure when it
/// was measured on a GPU of the same name.
fn keep_measured_decode(new: &mut Ceilings, old: Option<&Ceilings>, same_gpu: bool) {
    let Some(old) = old.filter(|o| o.decode_measured() && same_gpu) else {
        return;
    };
    new.decode_fps_table = new.decode_fps;
    new.decode_fps = old.decode_fps;
    new.decode_source = old.decode_source.clone();
    new.decode_measurement = old.decode_measurement.clone();
    new.decode_codec = old.decode_codec.clone();
    new.decode_resolution = old.decode_resolution.clone();
}

fn describe(out: &mut String, g: &Gpu, c: &Ceilings) {
    let name = g.name.clone().unwrap_or_default();
    let unknown = |what: &str| format!("unknown (`{name}` is not in rules/gpus.tsv for its {what})");
    let _ = writeln!(
        out,
        "GPU {}: {} (compute {}, {} MiB, SM {} MHz, memory {} MHz, PCIe gen{} x{}, driver {})",
        g.index.unwrap_or(0),
        name,
        g.compute_cap.as_deref().unwrap_or("?"),
        g.memory_total_mib.map_or("?".into(), |v| v.to_string()),
        g.clocks_max_sm_mhz.map_or("?".into(), |v| v.to_string()),
        g.clocks_max_memory_mhz.map_or("?".into(), |v| v.to_string()),
        g.pcie_gen.map_or("?".into(), |v| v.to_string()),
        g.pcie_width.map_or("?".into(), |v| v.to_string()),
        g.driver_version.as_deref().unwrap_or("?"),
    );
    let _ = writeln!(
        out,
        "  SMs {}, NVDEC {}, memory bus {}",
        g.sm_count.map_or_else(|| unknown("SM count"), |v| v.to_string()),
        g.nvdec_count.map_or_else(|| unknown("NVDEC count"), |v| v.to_string()),
        g.memory_bus_width_bits
            .map_or_else(|| unknown("bus width"), |v| format!("{v} bits")),
    );
    let fmt = |v: Option<f64>, unit: &str| v.map_or("unknown".to_string(), |v| format!("{v} {unit}"));
    out.push_str("  Ceilings (theoretical; a measurement overrides them):\n");
    let decode = if c.decode_measured() {
        format!(
            "{} measured by `dslint measure decode` (table: {})",
            fmt(c.decode_fps, "fps"),
            fmt(c.decode_fps_table, "fps")
        )
    } else {
        format!(
            "{} (table, unverified: `dslint measure decode` measures it)",
            fmt(c.decode_fps, "fps")
        )
    };
    let _ = writeln!(
        out,
        "    decode {} {}: {decode}",
        c.decode_codec.as_deref().unwrap_or("h264"),
        c.decode_resolution.as_deref().unwrap_or(""),
    );
    let _ = writeln!(
        out,
        "    FP16 dense: {}   INT8 dense: {}",
        fmt(c.fp16_tops, "TFLOP/s"),
        fmt(c.int8_tops, "TOP/s")
    );
    let _ = writeln!(
        out,
        "    memory: {}   PCIe: {}",
        fmt(c.memory_gbps, "GB/s"),
        fmt(c.pcie_gbps, "GB/s")
    );
}

pub fn hw(opts: &HwOptions) -> Result<String, String> {
    let text = match &opts.nvidia_smi_output {
        Some(f) => crate::measure::commands::read_text(f)?,
        None => query_nvidia_smi()?,
    };
    let mut gpus = gpu::parse_query(&text)?;
    if let Some(id) = opts.gpu_id {
        let found = gpus.len();
        gpus.retain(|g| g.index == Some(id));
        if gpus.is_empty() {
            return Err(format!("no GPU {id} (nvidia-smi listed {found}, numbered from 0)"));
        }
    }
    let mut facts = load_or_new(opts.output.as_deref())?;
    let codec = facts
        .workload
        .as_ref()
        .and_then(|w| w.source_codec.clone())
        .unwrap_or_else(|| "h264".into());
    let height = facts.workload.as_ref().and_then(|w| w.source_height).unwrap_or(1080);
    let old_name = facts.gpu.as_ref().and_then(|g| g.name.clone());
    let node: Vec<NodeGpu> = gpus
        .into_iter()
        .map(|g| {
            let mut c = gpu::ceilings(&g, &codec, height);
            keep_measured_decode(
                &mut c,
                facts.ceilings.as_ref(),
                old_name.is_none() || g.name == old_name,
            );
            NodeGpu { gpu: g, ceilings: c }
        })
        .collect();
    let mut out = String::new();
    for n in &node {
        describe(&mut out, &n.gpu, &n.ceilings);
    }
    if node.len() > 1 {
        let sum = |f: fn(&Ceilings) -> Option<f64>| -> Option<f64> {
            node.iter().map(|n| f(&n.ceilings)).sum::<Option<f64>>()
        };
        let round = |v: f64| (v * 10.0).round() / 10.0;
        let _ = writeln!(
            out,
            "Node: {} GPUs; decode {} fps, FP16 dense {} TFLOP/s (sums of the ceilings above)",
            node.len(),
            sum(|c| c.decode_fps).map_or("unknown".into(), |v| round(v).to_string()),
            sum(|c| c.fp16_tops).map_or("unknown".into(), |v| round(v).to_string()),
        );
    }
    // The pipeline's GPU: the one asked for, else GPU 0.
    let main = node
        .iter()
        .find(|n| n.gpu.index == Some(opts.gpu_id.unwrap_or(0)))
        .unwrap_or(&node[0])
        .clone();
    facts.gpu = Some(main.gpu);
    facts.ceilings = Some(main.ceilings);
    facts.gpus = node;
    if let Some(p) = &opts.output {
        save(&facts, p)?;
        let _ = writeln!(out, "wrote gpus, gpu and ceilings to {}", p.display());
    }
    Ok(out)
}
