//! Stage 5: an nsys profile of the full pipeline, reduced to the signals the
//! bound classification needs (`facts.e2e.nsys`), and NVTX coverage of the
//! pipeline's elements (Stage 1).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::measure::nsys::{self, Report, Table};
use crate::measure::{fps::FpsParser, run};
use crate::model::facts::{E2e, NsysSummary, Share};

/// Round to one decimal; `+ 0.0` turns the -0.0 of an empty sum into 0.0.
fn pct1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0 + 0.0
}

fn share(name: &str, ns: f64, total_ns: f64) -> Share {
    let r = pct1;
    Share {
        name: name.to_string(),
        pct: if total_ns > 0.0 { r(ns / total_ns * 100.0) } else { 0.0 },
        total_ms: (ns / 1e4).round() / 100.0,
    }
}

fn is_gemm(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    !is_engine_build(name)
        && [
            "xmma", "cask", "gemm", "sm75_", "sm80_", "sm86_", "sm89_", "sm90_", "sm100_",
        ]
        .iter()
        .any(|k| n.contains(k))
}

fn is_engine_build(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("trtbuilder") || n.contains("cask_engine_build")
}

/// A pipeline element and the words its NVTX ranges carry.
pub struct Element {
    pub label: String,
    pub keywords: Vec<String>,
}

/// The elements of a deepstream-app config, for NVTX coverage.
pub fn elements_of(config: &Path) -> Vec<Element> {
    use crate::model::frontend;
    use crate::model::graph::{Role, Stage};
    use crate::model::workspace::Workspace;
    let mut ws = Workspace::load(&[config.to_path_buf()]);
    let graph = frontend::build(&mut ws);
    let Some(p) = graph.pipelines.into_iter().find(|p| ws.files[p.root].path == config) else {
        return vec![];
    };
    let el = |label: &str, k: &[&str]| Element {
        label: label.to_string(),
        keywords: k.iter().map(|s| s.to_string()).collect(),
    };
    let mut out = Vec::new();
    if p.sources().next().is_some() {
        out.push(el("decoder", &["dec", "nvv4l2decoder", "decodebin", "source"]));
    }
    if p.first(&Role::Streammux).is_some() {
        out.push(el("streammux", &["mux"]));
    }
    if p.first(&Role::Preprocess).is_some() {
        out.push(el("nvdspreprocess", &["preprocess"]));
    }
    for g in p.infers() {
        let id = g.int("gie-unique-id").map(|e| e.value);
        let label = match (&g.role, id) {
            (Role::Infer(Stage::Primary), Some(id)) => format!("primary nvinfer (UID={id})"),
            (_, Some(id)) => format!("secondary nvinfer (UID={id})"),
            _ => format!("nvinfer [{}]", g.name),
        };
        let mut k = vec!["infer".to_string()];
        if let Some(id) = id {
            k.push(format!("uid={id}"));
        }
        out.push(Element { label, keywords: k });
    }
    if p.first(&Role::Tracker).is_some() {
        out.push(el("tracker", &["track", "nvmot"]));
    }
    if p.first(&Role::Osd).is_some() {
        out.push(el("osd", &["osd"]));
    }
    if p.first(&Role::Tiler).is_some() {
        out.push(el("tiler", &["tile"]));
    }
    out
}

/// Reduce nsys tables to the summary; `elements` for NVTX coverage.
pub fn summarize(tables: &[Table], profile_seconds: Option<f64>, elements: &[Element]) -> NsysSummary {
    let mut s = NsysSummary {
        profile_seconds,
        ..NsysSummary::default()
    };
    // Kernels.
    let kernels = nsys::totals(tables, Report::KernSum, "Name");
    let kern_total: f64 = kernels.values().sum();
    let mut sorted: Vec<(&String, &f64)> = kernels.iter().collect();
    sorted.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(b.0)));
    s.top_kernels = sorted.iter().take(10).map(|(n, v)| share(n, **v, kern_total)).collect();
    if kern_total > 0.0 {
        let gemm: f64 = kernels.iter().filter(|(n, _)| is_gemm(n)).map(|(_, v)| v).sum();
        s.gemm_kernel_pct = Some(pct1(gemm / kern_total * 100.0));
    }
    s.engine_build_kernels = kernels.keys().filter(|n| is_engine_build(n)).cloned().collect();
    // CUDA API.
    let api = nsys::totals(tables, Report::ApiSum, "Name");
    let api_total: f64 = api.values().sum();
    if api_total > 0.0 {
        let sum_of = |names: &[&str]| -> f64 {
            api.iter()
                .filter(|(n, _)| names.iter().any(|x| n.starts_with(x)))
                .map(|(_, v)| v)
                .sum()
        };
        let pct = |v: f64| pct1(v / api_total * 100.0);
        s.sync_pct_of_api = Some(pct(sum_of(&[
            "cudaStreamSynchronize",
            "cudaEventSynchronize",
            "cuStreamSynchronize",
            "cuEventSynchronize",
        ])));
        s.module_load_pct_of_api = Some(pct(sum_of(&["cuModuleLoadData", "cuLibraryLoadData"])));
    }
    // Memcpy by direction.
    let mem = nsys::totals(tables, Report::MemTimeSum, "Operation");
    let direction = |op: &str| -> Option<&'static str> {
        let o = op.to_ascii_lowercase();
        if o.contains("memset") {
            None
        } else if o.contains("htod") || o.contains("host-to-device") {
            Some("HtoD")
        } else if o.contains("dtoh") || o.contains("device-to-host") {
            Some("DtoH")
        } else if o.contains("dtod") || o.contains("device-to-device") {
            Some("DtoD")
        } else {
            None
        }
    };
    let mut by_dir: BTreeMap<&str, f64> = BTreeMap::new();
    for (op, v) in &mem {
        if let Some(d) = direction(op) {
            *by_dir.entry(d).or_default() += v;
        }
    }
    let copy_total: f64 = by_dir.values().sum();
    let (wall, basis) = match profile_seconds {
        Some(sec) => (sec * 1e9, "profile duration".to_string()),
        None => (
            kern_total + copy_total,
            "GPU busy time (kernels + copies): no profile duration known".to_string(),
        ),
    };
    if wall > 0.0 && !mem.is_empty() {
        s.memcpy = by_dir.iter().map(|(d, v)| share(d, *v, wall)).collect();
        s.memcpy_pct_of_wall = Some(pct1(copy_total / wall * 100.0));
        s.wall_basis = Some(basis);
    }
    // NVTX per element.
    let mut raw_nvtx = nsys::totals(tables, Report::NvtxSum, "Range");
    if raw_nvtx.is_empty() {
        raw_nvtx = nsys::totals(tables, Report::NvtxPushPopSum, "Range");
    }
    let nvtx_total: f64 = raw_nvtx.values().sum();
    let mut grouped: BTreeMap<String, f64> = BTreeMap::new();
    for (n, v) in &raw_nvtx {
        let norm = nsys::normalize_range(n);
        let key = norm.split_whitespace().next().unwrap_or(&norm).to_string();
        *grouped.entry(key).or_default() += v;
    }
    let mut g: Vec<(String, f64)> = grouped.into_iter().collect();
    g.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    s.nvtx = g.iter().map(|(n, v)| share(n, *v, nvtx_total)).collect();
    if nvtx_total > 0.0 {
        let sum_if = |f: &dyn Fn(&str) -> bool| -> f64 {
            raw_nvtx
                .iter()
                .filter(|(n, _)| f(&n.to_ascii_lowercase()))
                .map(|(_, v)| v)
                .sum()
        };
        let collecting = sum_if(&|n| n.contains("collectingbuffers"));
        s.streammux_collecting_pct = Some(pct1(collecting / nvtx_total * 100.0));
        let tracker = sum_if(&|n| n.contains("track") || n.contains("nvmot"));
        let infer = sum_if(&|n| n.contains("infer"));
        s.tracker_nvtx_ms = (tracker > 0.0).then(|| (tracker / 1e4).round() / 100.0);
        s.nvinfer_nvtx_ms = (infer > 0.0).then(|| (infer / 1e4).round() / 100.0);
    }
    for e in elements {
        let covered = raw_nvtx.keys().any(|n| {
            let n = n.to_ascii_lowercase();
            let kinds: Vec<&String> = e.keywords.iter().filter(|k| !k.starts_with("uid=")).collect();
            let uid = e.keywords.iter().find(|k| k.starts_with("uid="));
            kinds.iter().any(|k| n.contains(k.as_str()))
                && uid.is_none_or(|u| !n.contains("uid=") || n.contains(u.as_str()))
        });
        s.coverage.insert(
            e.label.clone(),
            if covered { "COVERED" } else { "UNINSTRUMENTED" }.to_string(),
        );
    }
    // GPU metrics recipe.
    for t in tables.iter().filter(|t| t.report == Report::GpuMetrics) {
        let mut dram = 0.0;
        let mut saw_dram = false;
        for r in &t.rows {
            let (Some(name), Some(mean)) = (t.text(r, "Metric Name"), t.number(r, "Mean")) else {
                continue;
            };
            match name.as_str() {
                "SMs Active" | "SM Active" => s.sm_active_pct = Some(mean),
                "Tensor Active" => s.tensor_active_pct = Some(mean),
                "DRAM Read Throughput" | "DRAM Write Throughput" => {
                    dram += mean;
                    saw_dram = true;
                }
                _ => {}
            }
        }
        if saw_dram {
            s.dram_pct = Some(dram);
        }
    }
    s
}

#[derive(clap::Args)]
pub struct ProfileOptions {
    /// The command to profile (split into words, run under nsys profile).
    #[arg(long)]
    pub cmd: Option<String>,
    /// Seconds nsys records (`nsys profile --duration`).
    #[arg(long, default_value = "30", value_parser = run::seconds_arg)]
    pub duration: Duration,
    /// Where the report and its CSVs go.
    #[arg(long, default_value = "dslint-profile")]
    pub output_dir: PathBuf,
    /// Read `nsys stats --format csv --output DIR/base` files instead of profiling.
    #[arg(long)]
    pub stats_dir: Option<PathBuf>,
    /// Read saved `nsys stats` console output instead of profiling.
    #[arg(long)]
    pub stats_file: Option<PathBuf>,
    /// The deepstream-app config that ran (for NVTX coverage).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The facts file to merge the profile into (other sections are kept).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

fn nsys_stats(rep: &Path, dir: &Path) -> Result<(), String> {
    // New report names first; nsys ≤ 2022.4 knows only the old ones.
    for names in [0usize, 1] {
        let list: Vec<&str> = nsys::WANTED
            .iter()
            .filter_map(|r| r.names().get(names).copied())
            .collect();
        let out = std::process::Command::new("nsys")
            .env("LC_ALL", "C")
            .args(["stats", "--format", "csv", "--force-export=true", "--output"])
            .arg(dir.join("dslint_stats"))
            .args(["--report", &list.join(",")])
            .arg(rep)
            .output()
            .map_err(|e| format!("cannot run nsys stats: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
        if !text.contains("could not be found") {
            return Ok(());
        }
    }
    Err("nsys stats knows neither the current nor the old report names".into())
}

pub fn profile(opts: &ProfileOptions) -> Result<String, String> {
    let mut notes = Vec::new();
    let mut fps = None;
    let tables = if let Some(dir) = &opts.stats_dir {
        nsys::read_dir(dir)?
    } else if let Some(f) = &opts.stats_file {
        let t = nsys::parse(&crate::files::read::read_text(f, crate::files::read::MAX_FILE_BYTES)?);
        if t.is_empty() {
            return Err(format!("{}: no nsys stats table found", f.display()));
        }
        t
    } else {
        let cmd = opts
            .cmd
            .as_ref()
            .ok_or("--cmd is required (or --stats-dir / --stats-file with saved nsys stats output)")?;
        let have_nsys = std::process::Command::new("nsys")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !have_nsys {
            return Err("nsys is not on this machine: profile on the GPU host, then pass the CSVs of\n  \
                        nsys stats --format csv --output DIR/base --report cuda_gpu_kern_sum,nvtx_sum,cuda_gpu_mem_time_sum,cuda_api_sum,osrt_sum REPORT.nsys-rep\n\
                        with --stats-dir DIR"
                .into());
        }
        std::fs::create_dir_all(&opts.output_dir).map_err(|e| format!("{}: {e}", opts.output_dir.display()))?;
        let rep = opts.output_dir.join("dslint_profile");
        let mut argv: Vec<String> = vec![
            "nsys".into(),
            "profile".into(),
            "--trace=cuda,nvtx,osrt".into(),
            "--gpu-metrics-devices=all".into(),
            "--cuda-memory-usage=true".into(),
            format!("--duration={}", opts.duration.as_secs_f64().ceil() as u64),
            "--force-overwrite=true".into(),
            "-o".into(),
            rep.display().to_string(),
        ];
        argv.extend(run::build_argv(cmd, &[])?);
        run::install_interrupt_handler();
        let parser = FpsParser::new(None, 1)?;
        let mut samples = Vec::new();
        let finished = run::run(&argv, opts.duration + Duration::from_secs(300), |l| {
            if let Some(s) = parser.parse_line(l) {
                samples.push(s);
            }
            run::Flow::Continue
        })?;
        if let Some(st) = crate::measure::fps::steady_state(&samples, 1, 1) {
            fps = Some((st.mean * 10.0).round() / 10.0);
        }
        let rep_file = opts.output_dir.join("dslint_profile.nsys-rep");
        if !rep_file.exists() {
            return Err(format!(
                "nsys wrote no report ({}); last lines: {}",
                finished.status_text(),
                finished.tail.join(" | ")
            ));
        }
        nsys_stats(&rep_file, &opts.output_dir)?;
        let recipe = std::process::Command::new("nsys")
            .args(["recipe", "gpu_metric_util_sum", "--input"])
            .arg(&rep_file)
            .arg("--output")
            .arg(opts.output_dir.join("gpu_metrics"))
            .arg("--csv")
            .output();
        if !recipe.is_ok_and(|o| o.status.success()) {
            notes.push(
                "nsys recipe gpu_metric_util_sum did not run (it needs pandas and pyarrow): no SM/DRAM activity"
                    .to_string(),
            );
        }
        let mut t = nsys::read_dir(&opts.output_dir)?;
        if let Ok(m) = nsys::read_dir(&opts.output_dir.join("gpu_metrics")) {
            t.extend(m);
        }
        t
    };
    let elements = opts.config.as_deref().map(elements_of).unwrap_or_default();
    let profile_seconds = if opts.stats_dir.is_some() || opts.stats_file.is_some() {
        None
    } else {
        Some(opts.duration.as_secs_f64())
    };
    let summary = summarize(&tables, profile_seconds, &elements);
    let mut out = String::new();
    out.push_str(&crate::report::nsys_lines(&summary));
    for n in &notes {
        out.push_str(&format!("note: {n}\n"));
    }
    if let Some(p) = &opts.output {
        let mut facts = crate::measure::commands::load_or_new(Some(p))?;
        let e2e = facts.e2e.get_or_insert_with(E2e::default);
        e2e.nsys = Some(summary);
        if fps.is_some() {
            e2e.fps = fps;
        }
        if let Some(c) = &opts.config {
            e2e.configs = vec![c.display().to_string()];
        }
        crate::measure::commands::save(&facts, p)?;
        out.push_str(&format!("wrote e2e.nsys to {}\n", p.display()));
    }
    Ok(out)
}
