//! nvidia-smi's `--query-gpu` output, the GPU table (`rules/gpus.tsv`) and
//! the theoretical ceilings of Stage 2.

use crate::model::facts::{Ceilings, Gpu};

const TABLE: &str = include_str!("../../rules/gpus.tsv");

/// The fields `dslint measure hw` asks nvidia-smi for, in order.
pub const QUERY_FIELDS: &[&str] = &[
    "index",
    "name",
    "compute_cap",
    "memory.total",
    "memory.free",
    "clocks.max.sm",
    "clocks.max.memory",
    "pcie.link.gen.current",
    "pcie.link.width.current",
    "driver_version",
];

/// Field lists of headerless captures, told apart by their column count:
/// the rule book's 9-field query, and the same with the utilization columns
/// that captures in `shared/formats` carry.
const HEADERLESS_LAYOUTS: &[&[&str]] = &[
    &[
        "name",
        "compute_cap",
        "memory.total",
        "memory.free",
        "clocks.max.sm",
        "clocks.max.memory",
        "pcie.link.gen.current",
        "pcie.link.width.current",
        "driver_version",
    ],
    &[
        "index",
        "name",
        "compute_cap",
        "memory.total",
        "memory.free",
        "clocks.max.sm",
        "clocks.max.memory",
        "pcie.link.gen.current",
        "pcie.link.width.current",
        "driver_version",
    ],
    &[
        "name",
        "compute_cap",
        "memory.total",
        "memory.free",
        "clocks.max.sm",
        "clocks.max.memory",
        "utilization.decoder",
        "utilization.encoder",
        "pcie.link.gen.current",
        "pcie.link.width.current",
        "driver_version",
    ],
    &[
        "name",
        "compute_cap",
        "memory.total",
        "memory.free",
        "clocks.max.sm",
        "clocks.max.memory",
        "utilization.gpu",
        "utilization.decoder",
        "utilization.encoder",
        "pcie.link.gen.current",
        "pcie.link.width.current",
        "driver_version",
    ],
];

pub struct TableRow {
    pub key: &'static str,
    pub sm_count: Option<u32>,
    pub nvdec: Option<u32>,
    pub bus_bits: Option<u32>,
}

pub fn table() -> Vec<TableRow> {
    TABLE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let c: Vec<&'static str> = l.split('\t').collect();
            Some(TableRow {
                key: c.first()?,
                sm_count: c.get(1).and_then(|v| v.parse().ok()),
                nvdec: c.get(2).and_then(|v| v.parse().ok()),
                bus_bits: c.get(3).and_then(|v| v.parse().ok()),
            })
        })
        .collect()
}

/// The table row for an nvidia-smi name: the longest key it contains, as a
/// whole word (so `A10` does not match `A100`, nor `L4` match `L40S`).
pub fn lookup(name: &str) -> Option<TableRow> {
    let words: Vec<&str> = name.split(|c: char| c.is_whitespace() || c == '-').collect();
    table()
        .into_iter()
        .filter(|r| {
            let key: Vec<&str> = r.key.split(' ').collect();
            words
                .windows(key.len())
                .any(|w| w.iter().zip(&key).all(|(a, b)| a.eq_ignore_ascii_case(b)))
        })
        .max_by_key(|r| r.key.len())
}

/// A value with its unit and the `[N/A]`-style markers removed.
fn clean(v: &str) -> Option<&str> {
    let v = v.trim();
    if v.is_empty() || v.starts_with('[') || v.eq_ignore_ascii_case("N/A") {
        return None;
    }
    Some(v.split_whitespace().next().unwrap_or(v))
}

/// Parse `--query-gpu` CSV output, with or without header and units.
pub fn parse_query(text: &str) -> Result<Vec<Gpu>, String> {
    let mut lines = text.lines().map(str::trim_end).filter(|l| !l.trim().is_empty());
    let first = lines.next().ok_or("nvidia-smi output is empty")?;
    if first.contains("is not a valid field") {
        return Err(first.trim().to_string());
    }
    let (fields, rows): (Vec<String>, Vec<&str>) = if first.contains("name") && !first.contains("NVIDIA") {
        let fields = first
            .split(',')
            .map(|h| h.split('[').next().unwrap_or(h).trim().to_string())
            .collect();
        (fields, lines.collect())
    } else {
        let n = first.split(", ").count();
        let layout = HEADERLESS_LAYOUTS.iter().find(|l| l.len() == n).ok_or_else(|| {
            format!("headerless nvidia-smi output with {n} columns: re-run with a header (--format=csv)")
        })?;
        (
            layout.iter().map(|s| s.to_string()).collect(),
            std::iter::once(first).chain(lines).collect(),
        )
    };
    let mut gpus = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let values: Vec<&str> = row.split(", ").collect();
        if values.len() != fields.len() {
            return Err(format!(
                "nvidia-smi line {} has {} values for {} fields",
                i + 1,
                values.len(),
                fields.len()
            ));
        }
        let get = |f: &str| fields.iter().position(|x| x == f).and_then(|p| clean(values[p]));
        let num = |f: &str| get(f).and_then(|v| v.parse::<f64>().ok());
        let name = values[fields.iter().position(|x| x == "name").ok_or("no name column")?]
            .trim()
            .to_string();
        let row = lookup(&name);
        gpus.push(Gpu {
            index: num("index").map(|v| v as u32).or(Some(i as u32)),
            compute_cap: get("compute_cap").map(str::to_string),
            memory_total_mib: num("memory.total").map(|v| v as u64),
            memory_free_mib: num("memory.free").map(|v| v as u64),
            clocks_max_sm_mhz: num("clocks.max.sm").map(|v| v as u32),
            clocks_max_memory_mhz: num("clocks.max.memory").map(|v| v as u32),
            pcie_gen: num("pcie.link.gen.current").map(|v| v as u32),
            pcie_width: num("pcie.link.width.current").map(|v| v as u32),
            driver_version: get("driver_version").map(str::to_string),
            sm_count: row.as_ref().and_then(|r| r.sm_count),
            nvdec_count: row.as_ref().and_then(|r| r.nvdec),
            memory_bus_width_bits: row.as_ref().and_then(|r| r.bus_bits),
            name: Some(name),
            extra: Default::default(),
        });
    }
    if gpus.is_empty() {
        return Err("nvidia-smi listed no GPU".into());
    }
    Ok(gpus)
}

/// Dense Tensor Core ops per clock per SM, FP16 and INT8, by compute
/// capability (rules.md).
pub fn tensor_ops_per_clock(cc: &str) -> Option<(f64, f64)> {
    Some(match cc {
        "7.5" => (1024.0, 2048.0),
        "8.0" => (2048.0, 4096.0),
        "8.6" => (1024.0, 2048.0),
        "8.7" => (2048.0, 4096.0),
        "8.9" => (1024.0, 2048.0),
        "9.0" => (4096.0, 8192.0),
        "10.0" => (8192.0, 16384.0),
        _ => return None,
    })
}

/// Decode fps of one NVDEC engine for a codec and resolution; Turing and
/// older (compute capability below 8.0) versus Ampere and newer.
pub fn decode_fps_per_engine(cc: &str, codec: &str, height: u32) -> f64 {
    let ampere = cc
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok())
        .is_some_and(|m| m >= 8);
    let uhd = height >= 2160;
    let hevc = codec.eq_ignore_ascii_case("h265") || codec.eq_ignore_ascii_case("hevc");
    match (hevc, uhd, ampere) {
        (false, false, false) => 1000.0,
        (false, false, true) => 1400.0,
        (true, false, false) => 900.0,
        (true, false, true) => 1300.0,
        (false, true, false) => 250.0,
        (false, true, true) => 350.0,
        (true, true, false) => 220.0,
        (true, true, true) => 340.0,
    }
}

/// Practical PCIe GB/s for a generation, scaled by link width.
pub fn pcie_gbps(generation: u32, width: u32) -> Option<f64> {
    let x16 = match generation {
        1 => 3.0,
        2 => 6.0,
        3 => 12.0,
        4 => 25.0,
        5 => 50.0,
        6 => 100.0,
        _ => return None,
    };
    Some(x16 * width as f64 / 16.0)
}

/// The theoretical ceilings of a GPU for a workload (codec, height).
pub fn ceilings(gpu: &Gpu, codec: &str, height: u32) -> Ceilings {
    let cc = gpu.compute_cap.as_deref().unwrap_or("");
    let ghz = gpu.clocks_max_sm_mhz.map(|m| m as f64 / 1000.0);
    let ops = tensor_ops_per_clock(cc);
    let tops = |i: usize| -> Option<f64> {
        let (f16, i8) = ops?;
        let per = if i == 0 { f16 } else { i8 };
        Some(gpu.sm_count? as f64 * ghz? * per / 1000.0)
    };
    let round = |v: f64| (v * 10.0).round() / 10.0;
    Ceilings {
        decode_fps: gpu
            .nvdec_count
            .map(|n| n as f64 * decode_fps_per_engine(cc, codec, height)),
        decode_source: gpu.nvdec_count.map(|_| "table".to_string()),
        decode_fps_table: None,
        decode_measurement: None,
        decode_codec: Some(codec.to_string()),
        decode_resolution: Some(if height >= 2160 { "2160p".into() } else { "1080p".into() }),
        fp16_tops: tops(0).map(round),
        int8_tops: tops(1).map(round),
        memory_gbps: match (gpu.clocks_max_memory_mhz, gpu.memory_bus_width_bits) {
            (Some(mhz), Some(bits)) => Some(round(2.0 * mhz as f64 * 1e6 * bits as f64 / 8.0 / 1e9)),
            _ => None,
        },
        pcie_gbps: match (gpu.pcie_gen, gpu.pcie_width) {
            (Some(g), Some(w)) => pcie_gbps(g, w),
            _ => None,
        },
        theoretical: true,
        extra: Default::default(),
    }
}
