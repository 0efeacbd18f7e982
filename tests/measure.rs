//! Measuring: nvidia-smi, GPU ceilings, fps parsers, dmon and nsys stats over
//! fixtures (ours from an H200, and every file in ../shared/formats when it
//! is there), and the sweep on a scripted fake command.

mod support;

use std::path::Path;

use dslint::measure::{dmon, fps::FpsParser, gpu, nsys};
use support::*;

fn formats() -> Option<std::path::PathBuf> {
    shared("formats")
}

#[test]
fn h200_capture_gives_the_datasheet_counts() {
    for f in [
        "testdata/measure/h200_smi_query_header.csv",
        "testdata/measure/h200_smi_query_noheader_nounits.csv",
    ] {
        let gpus = gpu::parse_query(&std::fs::read_to_string(f).unwrap()).unwrap();
        let g = &gpus[0];
        assert_eq!(g.name.as_deref(), Some("NVIDIA H200"), "{f}");
        assert_eq!(
            (g.sm_count, g.nvdec_count, g.memory_bus_width_bits),
            (Some(132), Some(7), Some(6144))
        );
        let c = gpu::ceilings(g, "h264", 1080);
        assert_eq!(c.memory_gbps, Some(4916.7));
        assert_eq!(c.decode_fps, Some(9800.0));
        assert_eq!(c.fp16_tops, Some(1070.5));
        assert_eq!(c.pcie_gbps, Some(50.0));
    }
    if let Some(fm) = formats() {
        for f in [
            "nvidia-smi/h200-query-header.csv",
            "nvidia-smi/h200-query-noheader-nounits.csv",
            "nvidia-smi-query/gen_2xh200_csv_noheader.txt",
            "nvidia-smi-query/gen_2xh200_csv_header.txt",
        ] {
            let gpus = gpu::parse_query(&std::fs::read_to_string(fm.join(f)).unwrap()).unwrap();
            assert!(
                gpus.iter().all(|g| g.sm_count == Some(132) && g.nvdec_count == Some(7)),
                "{f}"
            );
            let bw = gpu::ceilings(&gpus[0], "h264", 1080).memory_gbps.unwrap();
            assert!((bw - 4900.0).abs() < 100.0, "{f}: {bw}");
        }
        let two = gpu::parse_query(
            &std::fs::read_to_string(fm.join("nvidia-smi-query/gen_2xh200_csv_noheader_nounits.txt")).unwrap(),
        )
        .unwrap();
        assert_eq!(two.len(), 2);
    }
}

#[test]
fn datasheet_fp16_within_ten_percent() {
    // name, compute capability, max SM clock (MHz), datasheet dense FP16 TFLOP/s
    for (name, cc, mhz, want) in [
        ("Tesla T4", "7.5", 1590, 65.0),
        ("NVIDIA A10", "8.6", 1695, 125.0),
        ("NVIDIA A100-SXM4-80GB", "8.0", 1410, 312.0),
        ("NVIDIA L40S", "8.9", 2520, 362.0),
        ("NVIDIA H100 80GB HBM3", "9.0", 1830, 989.0),
    ] {
        let line = format!("name, compute_cap, clocks.max.sm [MHz]\n{name}, {cc}, {mhz} MHz\n");
        let g = &gpu::parse_query(&line).unwrap()[0];
        let got = gpu::ceilings(g, "h264", 1080).fp16_tops.unwrap();
        assert!((got - want).abs() / want < 0.10, "{name}: {got} vs {want}");
    }
}

#[test]
fn longest_name_wins() {
    assert_eq!(gpu::lookup("NVIDIA L40S").unwrap().key, "L40S");
    assert_eq!(gpu::lookup("NVIDIA L4").unwrap().key, "L4");
    assert_eq!(gpu::lookup("NVIDIA A100-PCIE-40GB").unwrap().key, "A100");
    assert_eq!(gpu::lookup("NVIDIA A10").unwrap().key, "A10");
    assert_eq!(gpu::lookup("NVIDIA H100 PCIe").unwrap().key, "H100 PCIe");
    assert_eq!(gpu::lookup("NVIDIA GB200").unwrap().key, "GB200");
    assert!(gpu::lookup("NVIDIA GeForce RTX 2080 SUPER").is_none());
}

#[test]
fn smi_values_not_available_and_invalid_fields() {
    let t = "name, compute_cap, memory.total [MiB], clocks.max.sm [MHz], pcie.link.gen.current\nNVIDIA GeForce RTX 4080 SUPER, 8.9, [N/A], [Not Supported], 4\n";
    let g = &gpu::parse_query(t).unwrap()[0];
    assert_eq!(
        (g.memory_total_mib, g.clocks_max_sm_mhz, g.pcie_gen),
        (None, None, Some(4))
    );
    let c = gpu::ceilings(g, "h264", 1080);
    assert_eq!(c.fp16_tops, None);
    assert!(gpu::parse_query("Field \"bogus.field\" is not a valid field to query.\n\n").is_err());
    assert!(gpu::parse_query("").is_err());
    assert!(gpu::parse_query("NVIDIA H200, 9.0\n").is_err());
}

#[test]
fn dmon_fixtures() {
    let rows = dmon::parse(&std::fs::read_to_string("testdata/measure/h200_dmon_s_u_loaded.txt").unwrap());
    assert_eq!(rows.len(), 4);
    assert_eq!(dmon::maxima(&rows, 0)["sm"], 99.0);
    let Some(fm) = formats() else { return };
    for dir in ["nvidia-smi-dmon", "nvidia-smi"] {
        for f in files_under(&fm.join(dir))
            .into_iter()
            .filter(|f| f.to_string_lossy().contains("dmon"))
        {
            let rows = dmon::parse(&std::fs::read_to_string(&f).unwrap());
            assert!(!rows.is_empty(), "{}", f.display());
        }
    }
    let mig = dmon::parse(
        &std::fs::read_to_string(fm.join("nvidia-smi-dmon/dmon_default_h100_mig_590.48_load.txt")).unwrap(),
    );
    assert!(mig.iter().all(|r| r.values["sm"].is_none()));
}

#[test]
fn fps_from_every_perf_capture() {
    let Some(fm) = formats() else { return };
    let want: &[(&str, usize)] = &[
        ("deepstream-perf/ds5.1_deepstream_app_1stream_tabs.txt", 1),
        (
            "deepstream-perf/ds6.0_jetson_deepstream_app_4streams_tabs_as_spaces.txt",
            4,
        ),
        (
            "deepstream-perf/ds6.1.1_jetson_container_deepstream_app_2streams_md_indented.txt",
            2,
        ),
        ("deepstream-perf/issue_python_perf_dict_stream0_zero_facerec34.txt", 0),
    ];
    for (f, streams) in want {
        let samples = FpsParser::new(None, 1)
            .unwrap()
            .parse_all(&std::fs::read_to_string(fm.join(f)).unwrap());
        assert!(!samples.is_empty(), "{f}");
        if *streams > 0 {
            assert!(
                samples.iter().any(|s| s.per_stream.len() == *streams),
                "{f}: {:?}",
                samples.first()
            );
        }
    }
    let server = FpsParser::new(None, 1).unwrap().parse_all(
        &std::fs::read_to_string(
            fm.join("deepstream-perf/ds8.0_deepstream_server_app_nvmultiurisrcbin_PERF_FPS_N.txt"),
        )
        .unwrap(),
    );
    assert!(server.iter().any(|s| s.per_stream.len() >= 2));
    for f in files_under(&fm.join("trtexec")) {
        let samples = FpsParser::new(None, 1)
            .unwrap()
            .parse_all(&std::fs::read_to_string(&f).unwrap());
        assert!(samples.iter().any(|s| s.aggregate > 0.0), "{}", f.display());
    }
}

#[test]
fn nsys_every_capture_parses() {
    let Some(fm) = formats() else { return };
    for f in files_under(&fm.join("nsys")) {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let tables = nsys::parse(&std::fs::read_to_string(&f).unwrap());
        let expect_none = name.contains("skipped_no_kernel")
            || name.contains("not_found")
            || name.contains("help_reports")
            || name.contains("old_report_names_rejected")
            || name.contains("console_messages")
            || name == "gen_2025.3.1_csv_skipped_no_nvtx.txt" && tables.is_empty();
        if !expect_none {
            assert!(!tables.is_empty(), "{name}: no table");
        }
        for t in &tables {
            assert!(
                !t.rows.is_empty() || t.columns.len() > 2,
                "{name}: {:?} empty",
                t.report
            );
            for r in &t.rows {
                assert_eq!(r.len(), t.columns.len(), "{name}: {:?} row width", t.report);
            }
        }
    }
    // Exact values across formats of the same report.
    let kern = |f: &str| {
        let tables = nsys::parse(&std::fs::read_to_string(fm.join("nsys").join(f)).unwrap());
        let t = tables.into_iter().find(|t| t.report == nsys::Report::KernSum).unwrap();
        (
            t.text(&t.rows[0], "Name").unwrap(),
            t.ns(&t.rows[0], "Total Time").unwrap(),
            t.number(&t.rows[0], "Instances").unwrap(),
        )
    };
    let csv = kern("gen_2025.3.1_csv_stdout_8reports_kern_nvtx_pushpop_gpuproj_mem_api_osrt.txt");
    assert_eq!(
        csv,
        (
            "vectorAdd(const float *, const float *, float *, int)".to_string(),
            1831281.0,
            1010.0
        )
    );
    assert_eq!(kern("gen_2025.3.1_column_default_8reports.txt"), csv);
    assert_eq!(kern("gen_2025.3.1_file_v3_cuda_gpu_kern_sum.csv.txt"), csv);
    let boxed = kern("gen_2025.3.1_table_format_boxes.txt");
    assert_eq!(boxed.1, 38607885.0);
    let ms = kern("gen_2025.3.1_csv_timeunit_ms.txt");
    assert!((ms.1 - 38607900.0).abs() < 1.0, "{}", ms.1);
    let tsv = kern("gen_2025.3.1_tsv.txt");
    assert_eq!(tsv.1, 38607885.0);
    let old = kern("table_2021.x_hpcsdk21.7_running_preamble_old_names_old_columns.txt");
    assert_eq!(old.1, 27216868.0);
    let api = nsys::parse(
        &std::fs::read_to_string(fm.join("nsys/table_2021.x_hpcsdk21.7_running_preamble_old_names_old_columns.txt"))
            .unwrap(),
    );
    assert!(api.iter().any(|t| t.report == nsys::Report::ApiSum));
    assert!(api.iter().any(|t| t.report == nsys::Report::MemSizeSum));
    assert!(api.iter().any(|t| t.report == nsys::Report::OsrtSum));
    let metrics = nsys::parse(
        &std::fs::read_to_string(fm.join("nsys/gen_2025.3.1_recipe_gpu_metric_util_sum_rank_stats.csv.txt")).unwrap(),
    );
    assert_eq!(metrics[0].report, nsys::Report::GpuMetrics);
}

#[test]
fn measure_hw_merges_into_the_facts_file() {
    let tmp = tempfile::tempdir().unwrap();
    let facts = tmp.path().join("facts.json");
    std::fs::write(&facts, r#"{"schema_version": 1, "workload": {"n_streams": 4, "source_codec": "h265", "source_height": 2160}, "mine": 1}"#).unwrap();
    let (rc, out, err) = dslint(&[
        "measure",
        "hw",
        "--nvidia-smi-output",
        "testdata/measure/h200_smi_query_header.csv",
        "-o",
        facts.to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("decode h265 2160p: 2380 fps"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&facts).unwrap()).unwrap();
    assert_eq!(v["workload"]["n_streams"], 4);
    assert_eq!(v["mine"], 1);
    assert_eq!(v["gpu"]["sm_count"], 132);
    assert_eq!(v["ceilings"]["memory_gbps"], 4916.7);
    // Without nvidia-smi (a PATH that has none): a clear message saying what
    // to pass instead.
    let no_tools = tempfile::tempdir().unwrap();
    let (rc, _, err) = dslint_env(&["measure", "hw"], &[("PATH", no_tools.path().display().to_string())]);
    assert_eq!(rc, 2, "{err}");
    assert!(err.contains("--nvidia-smi-output"), "{err}");
}

#[test]
fn sweep_replays_the_h200_log() {
    let (rc, out, err) = dslint(&[
        "measure",
        "sweep",
        "--sweep-log",
        "testdata/measure/h200_torch_sweep_to256.log",
        "--warmup",
        "2",
    ]);
    assert_eq!(rc, 0, "{err}");
    // The batches come from the log (1…256), not the default 1…32.
    insta::assert_snapshot!("sweep_h200_replay", out);
    assert!(out.contains("plateau batch: 32 (doubling gains < 5%)"));
}

#[test]
fn sweep_on_a_command_that_exits_by_itself() {
    // fake_fps.sh prints six readings and exits: every run ends with it.
    // With one warm-up reading that leaves five steady ones, and an early
    // stop needs six here, so no run can be stopped by a verdict reached on
    // its last line while the child is exiting (which of the two the runner
    // sees first would depend on the machine's load).
    let tmp = tempfile::tempdir().unwrap();
    let facts = tmp.path().join("f.json");
    let (rc, out, err) = dslint(&[
        "measure",
        "sweep",
        "--cmd",
        "sh tests/support/fake_fps.sh {batch}",
        "--duration",
        "20",
        "--min-samples",
        "6",
        "-o",
        facts.to_str().unwrap(),
        "--save-log",
        tmp.path().join("log").to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("plateau batch: 8 (doubling gains < 5%)"), "{out}");
    // It ran 1..16, not 32: the plateau was decided at 8→16.
    assert!(err.contains("B=16") && !err.contains("B=32:"), "{err}");
    assert!(err.contains("sweep: B=1: sh tests/support/fake_fps.sh 1\n"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&facts).unwrap()).unwrap();
    assert_eq!(v["sweep"]["plateau_batch"], 8);
    assert_eq!(v["sweep"]["points"].as_array().unwrap().len(), 5);
    assert_eq!(v["sweep"]["points"][3]["fps_aggregate"], 1613.2);
    for (i, p) in v["sweep"]["points"].as_array().unwrap().iter().enumerate() {
        assert_eq!(p["stop"], "exited", "point {i}");
    }
    assert_eq!(v["sweep"]["runs"], 5);
    // The saved log replays to the same plateau.
    let (_, again, _) = dslint(&[
        "measure",
        "sweep",
        "--sweep-log",
        tmp.path().join("log").to_str().unwrap(),
    ]);
    assert!(again.contains("plateau batch: 8"), "{again}");
    // Capped at n_streams.
    let (_, out, _) = dslint(&[
        "measure",
        "sweep",
        "--cmd",
        "sh tests/support/fake_fps.sh {batch}",
        "--n-streams",
        "3",
    ]);
    assert!(out.contains("plateau batch: 3 (not reached"), "{out}");
}

/// The `stopped` column of each row of a sweep table.
fn stops(table: &str) -> Vec<String> {
    table
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("plateau"))
        .map(|l| l.split_whitespace().skip(7).collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn steady_runs_stop_early_with_the_same_plateau() {
    // Readings steady to ±0.1% every 0.05 s, for as long as the command is
    // let run: each run stops once its mean is known to ±1%.
    let start = std::time::Instant::now();
    let (rc, out, err) = dslint(&[
        "measure",
        "sweep",
        "--cmd",
        "sh tests/support/fake_steady.sh {batch} 1",
        "--duration",
        "30",
    ]);
    let early = start.elapsed().as_secs_f64();
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("plateau batch: 8 (doubling gains < 5%)"), "{out}");
    let st = stops(&out);
    assert_eq!(st.len(), 5, "{out}");
    assert!(st.iter().all(|s| s.starts_with("settled ±0.")), "{out}");
    assert!(
        out.contains("GPU time: ") && out.contains(" s in 5 runs, 5 stopped once settled"),
        "{out}"
    );
    // Five runs of 30 s would take 150 s; settled runs take well under one.
    assert!(early < 25.0, "{early} s");
    // Every run for its full duration: the same plateau.
    let (rc, out, err) = dslint(&[
        "measure",
        "sweep",
        "--cmd",
        "sh tests/support/fake_steady.sh {batch} 1",
        "--duration",
        "1.5",
        "--exhaustive",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("plateau batch: 8 (doubling gains < 5%)"), "{out}");
    assert_eq!(stops(&out), vec!["duration"; 6], "{out}");
    assert!(out.contains(" s in 6 runs, 0 stopped once settled"), "{out}");
}

#[test]
fn noisy_runs_are_not_stopped_early() {
    // ±15% noise and no gain from 16 to 32: neither the mean nor the verdict
    // is ever settled, so each run lasts its --duration.
    let (rc, out, err) = dslint(&[
        "measure",
        "sweep",
        "--cmd",
        "sh tests/support/fake_steady.sh {batch} 150",
        "--batches",
        "16,32",
        "--duration",
        "2",
        "--extra-windows",
        "0",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(stops(&out), vec!["duration"; 2], "{out}");
    assert!(out.contains(" s in 2 runs, 0 stopped once settled"), "{out}");
}

#[test]
fn sweep_reports_commands_without_fps() {
    let (rc, _, err) = dslint(&[
        "measure",
        "sweep",
        "--cmd",
        "sh -c 'echo starting; exit 3'",
        "--batches",
        "1,2",
    ]);
    assert_eq!(rc, 2);
    assert!(
        err.contains("no fps line in the output (exit status 3); last lines: starting"),
        "{err}"
    );
    assert!(
        err.contains("warning: --cmd has no {batch}: every run gets the same command"),
        "{err}"
    );
    let (rc, _, err) = dslint(&[
        "measure",
        "sweep",
        "--cmd",
        "no-such-program-dslint {batch}",
        "--batches",
        "1",
    ]);
    assert_eq!(rc, 2);
    assert!(err.contains("cannot run `no-such-program-dslint`"), "{err}");
}

#[test]
fn sweep_runs_config_variants() {
    // --config: each batch gets a variant with B sources, batch B on both
    // elements, the engine named for B, and the bench output branch.
    let tmp = tempfile::tempdir().unwrap();
    for f in files_under(Path::new("testdata/rules/DS101/clean")) {
        std::fs::copy(&f, tmp.path().join(f.file_name().unwrap())).unwrap();
    }
    let app = tmp.path().join("app.txt");
    // A display output branch (OSD on, an on-screen sink that syncs), which
    // the variants must replace with the bench one.
    let display = std::fs::read_to_string(&app)
        .unwrap()
        .replace("[osd]\nenable=0", "[osd]\nenable=1")
        .replace("[sink0]\nenable=1\ntype=1\nsync=0", "[sink0]\nenable=1\ntype=2\nsync=1");
    assert!(display.contains("type=2\nsync=1") && display.contains("[osd]\nenable=1"));
    std::fs::write(&app, display).unwrap();
    let script = tmp.path().join("show.sh");
    std::fs::write(&script, "grep -h -E '^(num-sources|batch-size|model-engine-file|config-file|type|sync)=' \"$1\" \"$(dirname \"$1\")\"/.dslint-sweep-b$2.pgie.txt\necho fps=$((100 * $2))\n").unwrap();
    let (rc, out, err) = dslint(&[
        "measure",
        "sweep",
        "--config",
        app.to_str().unwrap(),
        "--cmd",
        &format!("sh {} {{config}} {{batch}}", script.display()),
        "--batches",
        "1,4",
        "--keep-variants",
        "--save-log",
        tmp.path().join("sweep.log").to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    // The fps each variant's run printed (100 × B) was read.
    assert!(out.contains("      4             400.0        100.0"), "{out}");
    let v4 = std::fs::read_to_string(tmp.path().join(".dslint-sweep-b4.app.txt")).unwrap();
    assert!(
        v4.contains("num-sources=4") && v4.contains("config-file=.dslint-sweep-b4.pgie.txt"),
        "{v4}"
    );
    assert!(
        v4.contains("[streammux]\ngpu-id=0\nlive-source=0\nbatch-size=4\n"),
        "{v4}"
    );
    let p1 = std::fs::read_to_string(tmp.path().join(".dslint-sweep-b1.pgie.txt")).unwrap();
    assert!(
        p1.contains("batch-size=1") && p1.contains("model-engine-file=model.onnx_b1_gpu0_fp16.engine"),
        "{p1}"
    );
    assert!(
        v4.contains("[osd]\nenable=0\n") && v4.contains("[sink0]\nenable=1\ntype=1\nsync=0\n"),
        "{v4}"
    );
    // What the command saw of the variant: the bench sink.
    let log = std::fs::read_to_string(tmp.path().join("sweep.log")).unwrap();
    assert!(log.contains("\ntype=1\n") && log.contains("\nsync=0\n"), "{log}");
}
