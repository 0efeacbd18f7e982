//! `dslint report` and `measure profile`: a golden report for each bound
//! type (and INCONCLUSIVE) from fixture facts, and profiles read from saved
//! nsys stats output.

mod support;

use support::*;

#[test]
fn golden_report_for_each_bound_type() {
    for (file, kind, confidence) in [
        ("engine_build_contaminated", "ENGINE_BUILD_CONTAMINATED", "high"),
        ("memcpy_bound", "MEMCPY_BOUND", "medium"),
        ("decode_bound", "DECODE_BOUND", "high"),
        ("compute_bound", "COMPUTE_BOUND", "high"),
        ("memory_bw_bound", "MEMORY_BW_BOUND", "high"),
        ("tracker_bound", "TRACKER_BOUND", "medium"),
        ("sync_bound", "SYNC_BOUND", "medium"),
        ("unknown_bottleneck", "UNKNOWN_BOTTLENECK", "low"),
        ("inconclusive", "INCONCLUSIVE", "low"),
    ] {
        let path = format!("testdata/report/{file}.json");
        let (rc, md, err) = dslint(&["report", "--facts", &path]);
        assert_eq!(rc, 0, "{err}");
        assert!(
            md.contains(&format!("## Bound: {kind} ({confidence} confidence)")),
            "{file}:\n{md}"
        );
        insta::assert_snapshot!(format!("report_{file}"), md);
        let (_, json, _) = dslint(&["report", "--facts", &path, "--format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["bound"]["type"], kind);
        assert_eq!(v["bound"]["confidence"], confidence);
        assert!(v["capacity"]["max_streams"].as_u64().unwrap() > 0);
    }
}

#[test]
fn weak_sweep_signal_alone_does_not_call_decode_bound() {
    // unknown_bottleneck.json has fps[1]/fps[2] = 0.52 and nothing else.
    let (_, md, _) = dslint(&["report", "--facts", "testdata/report/unknown_bottleneck.json"]);
    assert!(!md.contains("DECODE_BOUND"), "{md}");
}

#[test]
fn capacity_names_the_dominating_ceiling() {
    let (_, json, _) = dslint(&[
        "report",
        "--facts",
        "testdata/report/memory_bw_bound.json",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["capacity"]["max_streams"], 78);
    assert!(
        v["capacity"]["dominating"]
            .as_str()
            .unwrap()
            .starts_with("memory bandwidth")
    );
    let (_, json, _) = dslint(&[
        "report",
        "--facts",
        "testdata/report/compute_bound.json",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["capacity"]["max_streams"], 93);
    assert_eq!(v["e2e_pct_of_plateau"], 98.2);
}

#[test]
fn profile_from_saved_stats() {
    let Some(fm) = shared("formats/nsys") else { return };
    // The CSV files of `nsys stats --output base`, named base_<report>.csv.
    let tmp = tempfile::tempdir().unwrap();
    for r in [
        "cuda_gpu_kern_sum",
        "nvtx_sum",
        "cuda_gpu_mem_time_sum",
        "cuda_api_sum",
        "osrt_sum",
    ] {
        std::fs::copy(
            fm.join(format!("gen_2025.3.1_file_v3_{r}.csv.txt")),
            tmp.path().join(format!("run_{r}.csv")),
        )
        .unwrap();
    }
    let facts = tmp.path().join("facts.json");
    let (rc, out, err) = dslint(&[
        "measure",
        "profile",
        "--stats-dir",
        tmp.path().to_str().unwrap(),
        "--config",
        "testdata/examples/deepstream_app_4cam.txt",
        "-o",
        facts.to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.contains("top kernels: vectorAdd(const float *, const float *, float *, int) 100.0%"),
        "{out}"
    );
    assert!(out.contains("NVTX UNINSTRUMENTED: tracker"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&facts).unwrap()).unwrap();
    let n = &v["e2e"]["nsys"];
    assert_eq!(n["sync_pct_of_api"], 0.0);
    assert_eq!(n["nvtx"][0]["name"], "Profile_Loop");
    assert_eq!(n["nvtx"][0]["pct"], 95.0);
    assert_eq!(n["memcpy"][0]["name"], "DtoH");
    // The same numbers from the console capture of all reports in one stream.
    let (rc, out2, _) = dslint(&[
        "measure",
        "profile",
        "--stats-file",
        fm.join("gen_2025.3.1_csv_stdout_8reports_kern_nvtx_pushpop_gpuproj_mem_api_osrt.txt")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(rc, 0);
    assert!(out2.contains("top kernels: vectorAdd(const float *, const float *, float *, int) 100.0%"));
    // Without nsys (a PATH that has none) and without saved output: say
    // what to pass.
    let no_tools = tempfile::tempdir().unwrap();
    let (rc, _, err) = dslint_env(
        &["measure", "profile", "--cmd", "true"],
        &[("PATH", no_tools.path().display().to_string())],
    );
    assert_eq!(rc, 2, "{err}");
    assert!(
        err.contains("nsys is not on this machine") && err.contains("with --stats-dir DIR"),
        "{err}"
    );
}

#[test]
fn garbled_tool_output_never_panics() {
    let tmp = tempfile::tempdir().unwrap();
    let junk = tmp.path().join("junk.txt");
    for body in [
        "",
        "Time (%),Total Time (ns)\n1,2,3,4\n\"unterminated",
        "Processing [x] with [y]...\n -----  ----\n",
        "\u{0}\u{1}garbage",
    ] {
        std::fs::write(&junk, body).unwrap();
        let (rc, _, err) = dslint(&["measure", "profile", "--stats-file", junk.to_str().unwrap()]);
        assert_eq!(rc, 2, "{err}");
        assert!(err.contains("no nsys stats table found"), "{err}");
        let (rc, _, err) = dslint(&["measure", "hw", "--nvidia-smi-output", junk.to_str().unwrap()]);
        assert_eq!(rc, 2, "{err}");
        assert!(!err.contains("panicked"), "{err}");
        let (_, _, err) = dslint(&["measure", "sweep", "--sweep-log", junk.to_str().unwrap()]);
        assert!(!err.contains("panicked"), "{err}");
    }
}
