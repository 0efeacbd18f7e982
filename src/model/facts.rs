//! The facts file: what `dslint measure` learned about the GPU, the workload,
//! the model and the pipeline, read by `fix --facts`, `check --facts` and
//! `report`. Every section is optional; unknown fields are kept (a newer
//! dslint or the user may add them) and written back untouched.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The version this dslint writes and the newest it reads.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Facts {
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<Gpu>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceilings: Option<Ceilings>,
    /// Every GPU of the node with its ceilings (`gpu` and `ceilings` above
    /// are the one the pipeline runs on).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpus: Vec<NodeGpu>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<Workload>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Model>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Sweep>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e2e: Option<E2e>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<Bound>,
    /// Sections this version does not know; kept as they are.
    #[serde(flatten, default)]
    #[schemars(skip)]
    pub extra: Map<String, Value>,
}

/// nvidia-smi identity and clocks, plus counts looked up in `rules/gpus.tsv`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Gpu {
    pub index: Option<u32>,
    pub name: Option<String>,
    pub compute_cap: Option<String>,
    pub memory_total_mib: Option<u64>,
    pub memory_free_mib: Option<u64>,
    pub clocks_max_sm_mhz: Option<u32>,
    pub clocks_max_memory_mhz: Option<u32>,
    pub pcie_gen: Option<u32>,
    pub pcie_width: Option<u32>,
    pub driver_version: Option<String>,
    pub sm_count: Option<u32>,
    pub nvdec_count: Option<u32>,
    pub memory_bus_width_bits: Option<u32>,
    #[serde(flatten, default)]
    #[schemars(skip)]
    pub extra: Map<String, Value>,
}

/// One GPU of the node and its theoretical ceilings.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct NodeGpu {
    pub gpu: Gpu,
    pub ceilings: Ceilings,
}

/// Theoretical ceilings (Stage 2); a measurement always overrides them.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Ceilings {
    pub decode_fps: Option<f64>,
    /// `measured` when `decode_fps` comes from `dslint measure decode`;
    /// `table` (or absent) when it is NVDEC count × a per-engine figure,
    /// which is unverified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_source: Option<String>,
    /// The table figure, kept beside a measured `decode_fps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_fps_table: Option<f64>,
    /// What the decode measurement saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_measurement: Option<DecodeMeasurement>,
    pub decode_codec: Option<String>,
    pub decode_resolution: Option<String>,
    pub fp16_tops: Option<f64>,
    pub int8_tops: Option<f64>,
    pub memory_gbps: Option<f64>,
    pub pcie_gbps: Option<f64>,
    #[serde(default)]
    pub theoretical: bool,
    #[serde(flatten, default)]
    #[schemars(skip)]
    pub extra: Map<String, Value>,
}

/// A decode-only run of the user's streams (`dslint measure decode`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct DecodeMeasurement {
    /// Streams at the ceiling.
    pub streams: u32,
    /// dmon `dec` (%) at the ceiling, when nvidia-smi was there.
    pub dec_pct: Option<f64>,
    pub codec: Option<String>,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// What ended the ramp: the knee (more streams, no more fps), NVDEC
    /// saturation, or the end of the stream list.
    pub stopped_by: String,
    #[serde(flatten, default)]
    #[schemars(skip)]
    pub extra: Map<String, Value>,
}

impl Ceilings {
    /// `decode_fps` comes from a measurement, not the table.
    pub fn decode_measured(&self) -> bool {
        self.decode_source.as_deref() == Some("measured")
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Workload {
    pub n_streams: Option<u32>,
    pub source_width: Option<u32>,
    pub source_height: Option<u32>,
    pub source_fps: Option<f64>,
    pub source_codec: Option<String>,
    pub live: Option<bool>,
    pub target_fps: Option<f64>,
    #[serde(flatten, default)]
    #[schemars(skip)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Model {
    pub height: Option<u32>,
    pub width: Option<u32>,
    pub precision: Option<String>,
    pub calibration_file: Option<String>,
    #[serde(flatten, default)]
    #[schemars(skip)]
    pub extra: Map<String, Value>,
}

/// One batch size of the sweep.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct SweepPoint {
    pub batch: u32,
    pub fps_aggregate: f64,
    pub fps_per_stream: Option<f64>,
    /// Run-to-run spread of the aggregate fps, in percent.
    pub spread_pct: Option<f64>,
    pub run_seconds: Option<f64>,
    pub sm_max: Option<f64>,
    pub mem_max: Option<f64>,
    pub dec_max: Option<f64>,
    /// Why the run ended: `settled ±X%` or `decided` (its answer was known
    /// before `--duration`), `duration`, or `exited`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Sweep {
    #[serde(default)]
    pub points: Vec<SweepPoint>,
    /// The smallest B where 2B gains < 5% (only from a measurement).
    pub plateau_batch: Option<u32>,
    #[serde(flatten, default)]
    #[schemars(skip)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct E2e {
    pub fps: Option<f64>,
    /// Fraction of tracks that keep their ID (R4a); ≥ 0.99 allows a primary
    /// `interval` above 0 (DS203).
    pub tracker_id_retention: Option<f64>,
    pub sm_max: Option<f64>,
    pub mem_max: Option<f64>,
    pub dec_max: Option<f64>,
    /// What `dslint measure profile` read from nsys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nsys: Option<NsysSummary>,
    /// Config files the measured run used (for the report).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configs: Vec<String>,
    #[serde(flatten, default)]
    #[schemars(skip)]
    pub extra: Map<String, Value>,
}

/// A named share of a total (kernel, memcpy kind, NVTX range group).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Share {
    pub name: String,
    pub pct: f64,
    pub total_ms: f64,
}

/// The nsys report, reduced to what bound classification and the report use.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct NsysSummary {
    pub profile_seconds: Option<f64>,
    #[serde(default)]
    pub top_kernels: Vec<Share>,
    /// TensorRT GEMM kernels (xmma, cask, sm8x_/sm9x_) as % of kernel time.
    pub gemm_kernel_pct: Option<f64>,
    /// Engine-build kernels seen (trtBuilder*, cask_engine_build*).
    #[serde(default)]
    pub engine_build_kernels: Vec<String>,
    /// cuModuleLoadData as % of CUDA API time.
    pub module_load_pct_of_api: Option<f64>,
    /// Memcpy time by direction, % of wall time.
    #[serde(default)]
    pub memcpy: Vec<Share>,
    pub memcpy_pct_of_wall: Option<f64>,
    /// What `memcpy_pct_of_wall` divides by.
    pub wall_basis: Option<String>,
    /// cudaStreamSynchronize + cudaEventSynchronize, % of CUDA API time.
    pub sync_pct_of_api: Option<f64>,
    /// NVTX time per element (range names normalised), % of NVTX time.
    #[serde(default)]
    pub nvtx: Vec<Share>,
    pub streammux_collecting_pct: Option<f64>,
    pub tracker_nvtx_ms: Option<f64>,
    pub nvinfer_nvtx_ms: Option<f64>,
    /// From the gpu_metric_util_sum recipe (means, %).
    pub sm_active_pct: Option<f64>,
    pub tensor_active_pct: Option<f64>,
    pub dram_pct: Option<f64>,
    /// Pipeline element → COVERED or UNINSTRUMENTED.
    #[serde(default)]
    pub coverage: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct Bound {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub confidence: Option<String>,
    #[serde(default)]
    pub evidence: Vec<String>,
}

impl Facts {
    pub fn new() -> Facts {
        Facts {
            schema_version: SCHEMA_VERSION,
            ..Facts::default()
        }
    }

    /// Read and validate a facts file; the error names the field.
    pub fn load(path: &Path) -> Result<Facts, String> {
        let text = crate::files::read::read_text(path, crate::files::read::MAX_FILE_BYTES)?;
        Facts::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Facts, String> {
        let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        let version = value.get("schema_version").ok_or("missing field `schema_version`")?;
        let version = version
            .as_u64()
            .ok_or("field `schema_version` must be a positive integer")?;
        if version > SCHEMA_VERSION as u64 {
            return Err(format!(
                "schema_version {version} is newer than this dslint reads ({SCHEMA_VERSION}); upgrade dslint"
            ));
        }
        let facts: Facts =
            serde_path_to_error::deserialize(value).map_err(|e| format!("field `{}`: {}", e.path(), e.inner()))?;
        facts.validate()?;
        Ok(facts)
    }

    fn validate(&self) -> Result<(), String> {
        if let Some(s) = &self.sweep {
            if s.plateau_batch == Some(0) {
                return Err("field `sweep.plateau_batch`: must be at least 1".into());
            }
            for (i, p) in s.points.iter().enumerate() {
                if p.batch == 0 {
                    return Err(format!("field `sweep.points[{i}].batch`: must be at least 1"));
                }
                if p.fps_aggregate.is_nan() || p.fps_aggregate < 0.0 {
                    return Err(format!(
                        "field `sweep.points[{i}].fps_aggregate`: must be a non-negative number"
                    ));
                }
            }
        }
        // A picture of no pixels: DS102 would expect a mux of that size,
        // and with facts its fix is safe.
        let sizes = [
            ("model.width", self.model.as_ref().and_then(|m| m.width)),
            ("model.height", self.model.as_ref().and_then(|m| m.height)),
            (
                "workload.source_width",
                self.workload.as_ref().and_then(|w| w.source_width),
            ),
            (
                "workload.source_height",
                self.workload.as_ref().and_then(|w| w.source_height),
            ),
        ];
        if let Some((field, _)) = sizes.iter().find(|(_, v)| *v == Some(0)) {
            return Err(format!("field `{field}`: must be at least 1"));
        }
        if let Some(w) = &self.workload {
            if w.n_streams == Some(0) {
                return Err("field `workload.n_streams`: must be at least 1".into());
            }
            if w.source_fps.is_some_and(|f| f.is_nan() || f <= 0.0) {
                return Err("field `workload.source_fps`: must be a positive number".into());
            }
        }
        Ok(())
    }

    pub fn schema_json() -> String {
        let schema = schemars::schema_for!(Facts);
        serde_json::to_string_pretty(&schema).unwrap_or_default()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    pub fn n_streams(&self) -> Option<u32> {
        self.workload.as_ref()?.n_streams
    }
    pub fn source_fps(&self) -> Option<f64> {
        self.workload.as_ref()?.source_fps
    }
    pub fn source_res(&self) -> Option<(u32, u32)> {
        let w = self.workload.as_ref()?;
        Some((w.source_width?, w.source_height?))
    }
    pub fn model_dims(&self) -> Option<(u32, u32)> {
        let m = self.model.as_ref()?;
        Some((m.height?, m.width?))
    }
    pub fn plateau_batch(&self) -> Option<u32> {
        self.sweep.as_ref()?.plateau_batch
    }
    pub fn tracker_id_retention(&self) -> Option<f64> {
        self.e2e.as_ref()?.tracker_id_retention
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_field() {
        let e = Facts::parse(r#"{"schema_version": 9}"#).unwrap_err();
        assert!(e.contains("newer"), "{e}");
        let e = Facts::parse(r#"{"schema_version": 1, "sweep": {"plateau_batch": -4}}"#).unwrap_err();
        assert!(e.starts_with("field `sweep.plateau_batch`"), "{e}");
        let e = Facts::parse(r#"{"schema_version": 1, "workload": {"n_streams": "four"}}"#).unwrap_err();
        assert!(e.starts_with("field `workload.n_streams`"), "{e}");
    }

    #[test]
    fn a_size_of_zero_is_refused() {
        // DS102 would expect a mux of width 0, and with facts its fix is safe.
        for (field, json) in [
            ("model.width", r#""model": {"width": 0, "height": 640}"#),
            ("model.height", r#""model": {"width": 640, "height": 0}"#),
            (
                "workload.source_width",
                r#""workload": {"source_width": 0, "source_height": 720}"#,
            ),
            (
                "workload.source_height",
                r#""workload": {"source_width": 1280, "source_height": 0}"#,
            ),
        ] {
            let e = Facts::parse(&format!(r#"{{"schema_version": 1, {json}}}"#)).unwrap_err();
            assert_eq!(e, format!("field `{field}`: must be at least 1"));
        }
    }

    #[test]
    fn unknown_fields_are_kept() {
        let f = Facts::parse(r#"{"schema_version": 1, "mine": {"a": 1}, "workload": {"n_streams": 4, "x": true}}"#)
            .unwrap();
        let out = f.to_json();
        assert!(out.contains("\"mine\""));
        assert!(out.contains("\"x\": true"));
        assert_eq!(f.n_streams(), Some(4));
    }
}
