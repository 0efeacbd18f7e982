//! `measure decode` (the decode-only variant, the ramp's two stops), several
//! GPUs in `measure hw`, and the H200 captures replayed: the decode ramp,
//! the decode-and-infer sweep (DECODE_BOUND), the pure-inference sweep (not
//! DECODE_BOUND), early stopping against the exhaustive sweep.

mod support;

use std::path::Path;

use support::*;

/// A facts file holding the H200 from its nvidia-smi capture.
fn hw_facts(dir: &Path) -> std::path::PathBuf {
    let facts = dir.join("facts.json");
    let (rc, _, err) = dslint(&[
        "measure",
        "hw",
        "--nvidia-smi-output",
        "testdata/measure/h200_smi_query_header.csv",
        "-o",
        facts.to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    facts
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn decode_variant_changes_only_what_a_decode_only_run_needs() {
    // Exact bytes: tiler, OSD, primary, tracker, secondary and the extra
    // sink off; the sink a fakesink with sync=0; four streams; file loop on.
    // The YAML form takes its sources from a CSV (parse_config_file_yaml),
    // whose count and kind dslint does not know (Precision 5): its sources
    // and file loop stay as they are.
    for (app, want) in [("app.txt", "expected-s4.app.txt"), ("app.yml", "expected-s4.app.yml")] {
        let dir = Path::new("testdata/measure/decode_variant");
        let got = dslint::measure::variant::decode_variant_text(&dir.join(app), 4).unwrap();
        assert_eq!(got, std::fs::read_to_string(dir.join(want)).unwrap(), "{app}");
    }
}

#[test]
fn decode_variant_runs_as_config() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy("testdata/measure/decode_variant/app.txt", tmp.path().join("app.txt")).unwrap();
    let show = tmp.path().join("show.sh");
    std::fs::write(&show, "cat \"$1\"\necho \"**PERF:  $((200 * $2)).00 (1.00)\"\n").unwrap();
    let log = tmp.path().join("ramp.log");
    let (rc, out, err) = dslint(&[
        "measure",
        "decode",
        "--config",
        tmp.path().join("app.txt").to_str().unwrap(),
        "--cmd",
        &format!("sh {} {{config}} {{streams}}", show.display()),
        "--streams",
        "2,4",
        "--save-log",
        log.to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("decode ceiling: 800 fps at 4 streams"), "{out}");
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(
        log.contains("num-sources=4\n") && log.contains("[primary-gie]\nenable=0\n"),
        "{log}"
    );
    // The variants are removed afterwards.
    assert!(!tmp.path().join(".dslint-decode-s4.app.txt").exists());
}

#[test]
fn the_ramp_stops_at_the_knee() {
    let tmp = tempfile::tempdir().unwrap();
    let facts = hw_facts(tmp.path());
    let (rc, out, err) = dslint(&[
        "measure",
        "decode",
        "--cmd",
        "sh tests/support/fake_decode.sh {streams}",
        "--duration",
        "30",
        "-o",
        facts.to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    // 8 → 16 streams adds nothing: 16 was the last run, 32 never ran.
    assert!(err.contains("streams=16") && !err.contains("streams=32:"), "{err}");
    assert!(
        out.contains(
            "decode ceiling: 2900 fps at 8 streams (h264 1920x1080), stopped by the knee: doubling the streams added < 5% fps\n\
             table figure (theoretical, unverified): 9800 fps\n"
        ),
        "{out}"
    );
    let v = json(&facts);
    let c = &v["ceilings"];
    assert_eq!(c["decode_fps"], 2900.0);
    assert_eq!(c["decode_source"], "measured");
    assert_eq!(c["decode_fps_table"], 9800.0);
    assert_eq!(c["decode_measurement"]["streams"], 8);
    assert_eq!(c["decode_measurement"]["width"], 1920);
    // The node's GPU of the same model carries it too.
    assert_eq!(v["gpus"][0]["ceilings"]["decode_source"], "measured");
    // A later `measure hw` keeps the measured figure, labelled as such.
    let (_, out, _) = dslint(&[
        "measure",
        "hw",
        "--nvidia-smi-output",
        "testdata/measure/h200_smi_query_header.csv",
        "-o",
        facts.to_str().unwrap(),
    ]);
    assert!(
        out.contains("decode h264 1080p: 2900 fps measured by `dslint measure decode` (table: 9800 fps)"),
        "{out}"
    );
    assert_eq!(json(&facts)["ceilings"]["decode_fps"], 2900.0);
}

#[test]
fn nvdec_saturation_stops_the_ramp() {
    let tmp = tempfile::tempdir().unwrap();
    let dec = tmp.path().join("dec");
    let path = format!(
        "{}:{}",
        std::fs::canonicalize("tests/support").unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (rc, out, err) = dslint_env(
        &[
            "measure",
            "decode",
            "--cmd",
            "sh tests/support/fake_decode.sh {streams}",
            "--duration",
            "30",
        ],
        &[("PATH", path), ("DSLINT_FAKE_DEC", dec.display().to_string())],
    );
    assert_eq!(rc, 0, "{err}");
    // 30% a stream: 4 streams read dec 100%.
    assert!(
        out.contains("decode ceiling: 1600 fps at 4 streams (h264 1920x1080, NVDEC 100% busy), stopped by NVDEC saturated: dmon dec 100% (≥ 95%)"),
        "{out}"
    );
    assert!(!err.contains("streams=8:"), "{err}");
}

#[test]
fn h200_decode_ramp_replays() {
    let (rc, out, err) = dslint(&[
        "measure",
        "decode",
        "--ramp-log",
        "testdata/measure/h200_nvdec_decode_ramp.log",
        "--warmup",
        "2",
    ]);
    assert_eq!(rc, 0, "{err}");
    let want = std::fs::read_to_string("testdata/measure/h200_nvdec_decode_ramp.txt").unwrap();
    // The device printed the same, and where it wrote the facts.
    let (table, _) = want.split_once("GPU time").unwrap();
    assert!(out.starts_with(table.split("decode ceiling").next().unwrap()), "{out}");
    assert!(
        out.contains(
            "decode ceiling: 4111 fps at 8 streams (h264 1920x1080, NVDEC 96% busy), stopped by NVDEC saturated: dmon dec 96% (≥ 95%)"
        ),
        "{out}"
    );
}

/// facts: the H200 from nvidia-smi, then a replayed sweep log.
fn h200_facts(dir: &Path, log: &str, warmup: &str) -> std::path::PathBuf {
    let facts = hw_facts(dir);
    let (rc, _, err) = dslint(&[
        "measure",
        "sweep",
        "--sweep-log",
        log,
        "--warmup",
        warmup,
        "-o",
        facts.to_str().unwrap(),
    ]);
    assert_eq!(rc, 0, "{err}");
    facts
}

#[test]
fn h200_decode_and_infer_is_decode_bound() {
    let tmp = tempfile::tempdir().unwrap();
    let facts = h200_facts(tmp.path(), "testdata/measure/h200_decode_infer_sweep.log", "4");
    let (rc, md, err) = dslint(&["report", "--facts", facts.to_str().unwrap()]);
    assert_eq!(rc, 0, "{err}");
    // One stream keeps one of seven engines busy (dec 14%): not idle.
    assert!(
        md.contains(
            "## Bound: DECODE_BOUND (high confidence)\n\n\
             - sweep fps[B=1]/fps[B=2] = 0.50 (< 0.55)\n\
             - NVDEC 100% busy (dmon dec ≥ 90%)\n"
        ),
        "{md}"
    );
    assert!(md.contains("**Plateau**: B=16 at 4286.7 fps"), "{md}");
}

#[test]
fn h200_pure_inference_is_not_decode_bound() {
    let tmp = tempfile::tempdir().unwrap();
    let facts = h200_facts(tmp.path(), "testdata/measure/h200_torch_sweep_early.log", "2");
    let (_, md, _) = dslint(&["report", "--facts", facts.to_str().unwrap()]);
    assert!(!md.contains("DECODE_BOUND"), "{md}");
    assert!(
        md.contains("## Bound: COMPUTE_BOUND (medium confidence)\n\n- SM active 100% (> 70%)\n"),
        "{md}"
    );
    // The earlier capture with 1-s windows: fps[1]/fps[2] = 0.43, but NVDEC
    // idle (0%): the ratio counts against decode, nothing for it.
    let facts = h200_facts(tmp.path(), "testdata/measure/h200_torch_sweep_to256.log", "2");
    let (_, md, _) = dslint(&["report", "--facts", facts.to_str().unwrap()]);
    assert!(!md.contains("## Bound: DECODE_BOUND"), "{md}");
}

#[test]
fn h200_early_stopping_against_the_exhaustive_sweep() {
    // Replayed from the two H200 logs of the same script and batches.
    let (_, early, _) = dslint(&[
        "measure",
        "sweep",
        "--sweep-log",
        "testdata/measure/h200_torch_sweep_early.log",
        "--warmup",
        "2",
    ]);
    let (_, full, _) = dslint(&[
        "measure",
        "sweep",
        "--sweep-log",
        "testdata/measure/h200_torch_sweep_exhaustive.log",
        "--warmup",
        "2",
        "--exhaustive",
    ]);
    assert!(
        early.contains("plateau batch: 32 (doubling gains < 5%)\nGPU time: 62.5 s in 7 runs, 6 stopped once settled\n"),
        "{early}"
    );
    assert!(
        full.contains("plateau batch: 32 (doubling gains < 5%)\nGPU time: 160.8 s in 8 runs, 0 stopped once settled\n"),
        "{full}"
    );
}

#[test]
fn two_gpus() {
    let tmp = tempfile::tempdir().unwrap();
    let facts = tmp.path().join("facts.json");
    for f in [
        "2xh200_smi_query_header.csv",
        "2xh200_smi_query_nounits.csv",
        "2xh200_smi_query_noheader_nounits.csv",
    ] {
        let (rc, out, err) = dslint(&[
            "measure",
            "hw",
            "--nvidia-smi-output",
            &format!("testdata/measure/{f}"),
            "-o",
            facts.to_str().unwrap(),
        ]);
        assert_eq!(rc, 0, "{f}: {err}");
        // What the 2-GPU machine printed, but for where it wrote.
        let want = std::fs::read_to_string("testdata/measure/2xh200_measure_hw.txt").unwrap();
        let (want, _) = want.split_once("wrote ").unwrap();
        assert_eq!(out.split_once("wrote ").unwrap().0, want, "{f}");
    }
    let v = json(&facts);
    assert_eq!(v["gpus"].as_array().unwrap().len(), 2);
    assert_eq!(v["gpus"][1]["gpu"]["index"], 1);
    assert_eq!(v["gpus"][1]["ceilings"]["fp16_tops"], 1070.5);
    let (rc, out, _) = dslint(&[
        "measure",
        "hw",
        "--nvidia-smi-output",
        "testdata/measure/2xh200_smi_query_header.csv",
        "--gpu-id",
        "1",
    ]);
    assert_eq!(rc, 0);
    assert!(
        out.starts_with("GPU 1: NVIDIA H200") && !out.contains("GPU 0") && !out.contains("Node"),
        "{out}"
    );
    let (rc, _, err) = dslint(&[
        "measure",
        "hw",
        "--nvidia-smi-output",
        "testdata/measure/2xh200_smi_query_header.csv",
        "--gpu-id",
        "2",
    ]);
    assert_eq!(rc, 2);
    assert!(err.contains("no GPU 2 (nvidia-smi listed 2, numbered from 0)"), "{err}");
    // The report: per-GPU ceilings and the node's capacity.
    let (_, _, err) = dslint(&[
        "measure",
        "sweep",
        "--sweep-log",
        "testdata/measure/h200_torch_sweep_early.log",
        "--warmup",
        "2",
        "-o",
        facts.to_str().unwrap(),
    ]);
    assert!(!err.contains("dslint:"), "{err}");
    let (_, md, _) = dslint(&["report", "--facts", facts.to_str().unwrap()]);
    assert!(
        md.contains("**GPUs of the node**: 2  \n- GPU 0 (NVIDIA H200): decode 9800 fps"),
        "{md}"
    );
    assert!(
        md.contains("**176 streams** per GPU, limited by inference at the plateau (B=32, 5305 fps). Remedy: INT8")
            && md.contains("Node: 352 streams on 2 GPUs of this model"),
        "{md}"
    );
}

#[test]
fn a_gpu_missing_from_the_table_is_said_so() {
    let tmp = tempfile::tempdir().unwrap();
    let smi = tmp.path().join("smi.csv");
    std::fs::write(
        &smi,
        "index, name, compute_cap, clocks.max.sm [MHz]\n0, NVIDIA GeForce RTX 2080 SUPER, 7.5, 1815 MHz\n",
    )
    .unwrap();
    let (rc, out, err) = dslint(&["measure", "hw", "--nvidia-smi-output", smi.to_str().unwrap()]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.contains(
            "  SMs unknown (`NVIDIA GeForce RTX 2080 SUPER` is not in rules/gpus.tsv for its SM count), \
             NVDEC unknown (`NVIDIA GeForce RTX 2080 SUPER` is not in rules/gpus.tsv for its NVDEC count), \
             memory bus unknown (`NVIDIA GeForce RTX 2080 SUPER` is not in rules/gpus.tsv for its bus width)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("    decode h264 1080p: unknown (table, unverified"),
        "{out}"
    );
}
