//! `dslint report` and `measure profile`: a golden report for each bound
//! type (and INCONCLUSIVE) from fixture facts, and profiles read from saved
//! nsys stats output.

mod support;

use support::*;

#[test]
fn golden_report_for_each_bound_type() {
    // No sentence starts in lower case after a full stop.
    let lower = regex::Regex::new(r"\. [a-z]").unwrap();
    // The bound, the capacity line with its limit, and the remedy's start.
    for (file, kind, confidence, capacity, remedy) in [
        (
            "engine_build_contaminated",
            "ENGINE_BUILD_CONTAMINATED",
            "high",
            "**96 streams** per GPU, limited by inference at the plateau (B=8, 2900 fps).",
            "Remedy: build the TensorRT engine first",
        ),
        (
            "memcpy_bound",
            "MEMCPY_BOUND",
            "medium",
            "**30 streams** per GPU, limited by memory copies (MEMCPY_BOUND).",
            "Remedy: NVMM (device) memory end to end (DS104, DS302).",
        ),
        (
            "decode_bound",
            "DECODE_BOUND",
            "high",
            "**46 streams** per GPU, limited by decode (DECODE_BOUND).",
            "Remedy: fewer or lower-resolution streams per GPU",
        ),
        (
            "compute_bound",
            "COMPUTE_BOUND",
            "high",
            "**91 streams** per GPU, limited by inference (COMPUTE_BOUND).",
            "Remedy: INT8 with a calibration table (DS202)",
        ),
        (
            "memory_bw_bound",
            "MEMORY_BW_BOUND",
            "high",
            "**70 streams** per GPU, limited by memory bandwidth (MEMORY_BW_BOUND).",
            "Remedy: fewer bytes per frame",
        ),
        (
            "tracker_bound",
            "TRACKER_BOUND",
            "medium",
            "**40 streams** per GPU, limited by the tracker (TRACKER_BOUND).",
            "Remedy: a lighter tracker preset (DS402, DS403)",
        ),
        (
            "sync_bound",
            "SYNC_BOUND",
            "medium",
            "**50 streams** per GPU, limited by host synchronisation (SYNC_BOUND).",
            "Remedy: sinks with sync=0 (DS603)",
        ),
        (
            "unknown_bottleneck",
            "UNKNOWN_BOTTLENECK",
            "low",
            "**83 streams** per GPU, limited by a bound not identified (UNKNOWN_BOTTLENECK).",
            "Remedy: none to name until the bound is known",
        ),
        (
            "inconclusive",
            "INCONCLUSIVE",
            "low",
            "per GPU, limited by a bound not identified (INCONCLUSIVE).",
            "Remedy: none to name until the bound is known",
        ),
    ] {
        let path = format!("testdata/report/{file}.json");
        let (rc, md, err) = dslint(&["report", "--facts", &path]);
        assert_eq!(rc, 0, "{err}");
        assert!(
            md.contains(&format!("## Bound: {kind} ({confidence} confidence)")),
            "{file}:\n{md}"
        );
        assert!(md.contains(&format!("{capacity} {remedy}")), "{file}:\n{md}");
        let prose: Vec<&str> = md
            .lines()
            .filter(|l| !l.starts_with("- ") && !l.starts_with('|'))
            .collect();
        assert!(prose.iter().all(|l| !lower.is_match(l)), "{file}:\n{md}");
        insta::assert_snapshot!(format!("report_{file}"), md);
        let (_, json, _) = dslint(&["report", "--facts", &path, "--format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["bound"]["type"], kind);
        assert_eq!(v["bound"]["confidence"], confidence);
        assert!(v["capacity"]["max_streams"].as_u64().unwrap() > 0);
    }
}

#[test]
fn weak_sweep_signal_alone_names_decode_as_the_candidate() {
    // unknown_bottleneck.json has fps[1]/fps[2] = 0.52, no dmon, nothing else:
    // no verdict, but the candidate and what would settle it.
    let (_, md, _) = dslint(&["report", "--facts", "testdata/report/unknown_bottleneck.json"]);
    assert!(md.contains("## Bound: UNKNOWN_BOTTLENECK (low confidence)"), "{md}");
    assert!(
        md.contains("- candidate: DECODE_BOUND (sweep fps[B=1]/fps[B=2] = 0.52 (< 0.55)), not decided by this signal alone. To settle it, run `dslint measure sweep` where nvidia-smi is available"),
        "{md}"
    );
    let (_, json, _) = dslint(&[
        "report",
        "--facts",
        "testdata/report/unknown_bottleneck.json",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["bound"]["candidate"]["type"], "DECODE_BOUND");
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
    // Measured end to end at 2100 fps: 70 streams today, limited by the
    // bound found; the bandwidth ceiling (2100 fps at 89% DRAM) is a row.
    assert_eq!(v["capacity"]["max_streams"], 70);
    assert_eq!(v["capacity"]["dominating"], "memory bandwidth (MEMORY_BW_BOUND)");
    assert_eq!(
        v["capacity"]["rows"][3]["ceiling"],
        "memory bandwidth (2100 fps at 89% DRAM)"
    );
    assert_eq!(v["capacity"]["rows"][3]["streams"], 78.7);
    let (_, json, _) = dslint(&[
        "report",
        "--facts",
        "testdata/report/compute_bound.json",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["capacity"]["max_streams"], 91);
    assert_eq!(v["capacity"]["dominating"], "inference (COMPUTE_BOUND)");
    assert_eq!(v["e2e_pct_of_plateau"], 98.2);
    // A TRACKER_BOUND pipeline at 1200 fps end to end: 40 streams, limited
    // by the tracker, whatever the inference plateau (2900 fps) allows.
    let (_, json, _) = dslint(&[
        "report",
        "--facts",
        "testdata/report/tracker_bound.json",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["capacity"]["max_streams"], 40);
    assert_eq!(v["capacity"]["dominating"], "the tracker (TRACKER_BOUND)");
    assert_eq!(
        v["capacity"]["after_remedy"]["ceiling"],
        "inference at the plateau (B=8, 2900 fps)"
    );
    // No end-to-end rate: the lowest ceiling decides.
    let mut f: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("testdata/report/tracker_bound.json").unwrap()).unwrap();
    f["e2e"]["fps"] = serde_json::Value::Null;
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("f.json");
    std::fs::write(&p, f.to_string()).unwrap();
    let (_, md, _) = dslint(&["report", "--facts", p.to_str().unwrap()]);
    assert!(
        md.contains("**96 streams** per GPU, limited by inference at the plateau (B=8, 2900 fps). Remedy: INT8"),
        "{md}"
    );
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
