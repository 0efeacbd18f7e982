#!/usr/bin/env python3
"""Write a tree of varied DeepStream configs for benchmarks.

    python3 bench/gen_tree.py DIR N_FILES [SEED]

Projects of one app config (key-file or YAML) with the configs it loads
(nvinfer key-file or YAML, secondaries, a tracker key-file or its
low-level YAML), label files and a few files that are not configs. About
a third of the apps load a primary config shared by many projects
(`../shared/…`), so references cross folders. Values, group counts,
comments and mistakes (a mismatched batch, a typo'd key, a trailing
comment, a missing model) vary from file to file, so no two trees of
files are identical and the findings are of many codes. Files average
about 3 KB, like the real configs of the corpus. Deterministic for a seed.
"""
import os
import random
import sys

LICENSE = [
    "# SPDX-FileCopyrightText: Copyright (c) {y} Example Corp. All rights reserved.",
    "# SPDX-License-Identifier: MIT",
    "#",
    "# Permission is hereby granted, free of charge, to any person obtaining a",
    "# copy of this software and associated documentation files (the \"Software\"),",
    "# to deal in the Software without restriction, including without limitation",
    "# the rights to use, copy, modify, merge, publish, distribute, sublicense,",
    "# and/or sell copies of the Software, and to permit persons to whom the",
    "# Software is furnished to do so, subject to the following conditions:",
    "#",
    "# The above copyright notice and this permission notice shall be included in",
    "# all copies or substantial portions of the Software.",
    "#",
    "# THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR",
    "# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,",
    "# FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL",
    "# THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER",
    "# LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING",
    "# FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER",
    "# DEALINGS IN THE SOFTWARE.",
]
NOTES = [
    "# tuned on the {c} site, {y}",
    "# see the deployment notes before changing",
    "# 0=FP32 1=INT8 2=FP16",
    "# values for the {c} cameras",
    "# TODO: revisit after the model refresh",
    "# measured with {n} streams",
    "# Following properties are mandatory when engine files are not specified:",
    "#   int8-calib-file(Only in INT8), model-file-format",
    "# Mandatory properties for detectors: num-detected-classes",
    "# Optional properties for detectors: cluster-mode(Default=Group Rectangles)",
    "# type - 1=CameraV4L2 2=URI 3=MultiURI 4=RTSP",
    "# type - 1=FakeSink 2=EglSink 3=File 4=RTSPStreaming",
    "# If set to TRUE, system timestamp will be attached as ntp timestamp",
]


def header(rng, lines):
    if rng.random() < 0.7:
        y = rng.randint(2019, 2025)
        lines.extend(l.format(y=y) for l in LICENSE[: rng.randint(9, len(LICENSE))])
        lines.append("")


def note(rng, lines, p=0.25):
    if rng.random() < p:
        lines.append(rng.choice(NOTES).format(c=rng.choice(["north", "harbour", "depot", "gate"]),
                                              y=rng.randint(2019, 2025), n=rng.randint(1, 32)))


def with_notes(rng, body):
    out = []
    for line in body:
        note(rng, out, 0.3)
        out.append(line)
    return out


def keyfile(groups):
    out = []
    for name, body in groups:
        if name is None:
            out.extend(body)
            continue
        out.append(f"[{name}]")
        out.extend(body)
        out.append("")
    return "\n".join(out) + "\n"


def yaml_doc(groups):
    out = []
    for name, body in groups:
        if name is None:
            out.extend(body)
            continue
        out.append(f"{name}:")
        for line in body:
            if line.startswith("#"):
                out.append("  " + line)
            else:
                k, v = line.split("=", 1)
                out.append(f"  {k}: {v}")
        out.append("")
    return "\n".join(out) + "\n"


def kv(rng, pairs, lines):
    for k, v in pairs:
        note(rng, lines, 0.3)
        lines.append(f"{k}={v}")


def nvinfer_groups(rng, stage, model, labels, batch, uid, mistakes):
    prop = [
        ("gpu-id", 0),
        ("net-scale-factor", rng.choice(["0.00392156862745098", "1.0", "0.0078431372"])),
        ("onnx-file", model),
        ("model-engine-file", f"{model}_b{batch}_gpu0_fp16.engine"),
        ("labelfile-path", labels),
        ("batch-size", batch),
        ("network-mode", rng.randint(0, 2)),
        ("num-detected-classes", rng.randint(1, 80)),
        ("interval", rng.randint(0, 3)),
        ("gie-unique-id", uid),
        ("process-mode", 1 if stage == "primary" else 2),
        ("network-type", rng.choice([0, 0, 1])),
        ("cluster-mode", rng.randint(1, 4)),
        ("maintain-aspect-ratio", rng.randint(0, 1)),
        ("symmetric-padding", rng.randint(0, 1)),
        ("infer-dims", rng.choice(["3;544;960", "3;640;640", "3;224;224", "3;368;640"])),
        ("output-blob-names", rng.choice(["conv2d_bbox;conv2d_cov/Sigmoid", "output", "predictions/Softmax"])),
        ("offsets", rng.choice(["0.0;0.0;0.0", "103.939;116.779;123.68"])),
        ("model-color-format", rng.randint(0, 1)),
    ]
    if stage == "secondary":
        prop += [("operate-on-gie-id", 1), ("operate-on-class-ids", "0;2"), ("classifier-threshold", "0.51")]
    if rng.random() < 0.4:
        prop += [("parse-bbox-func-name", "NvDsInferParseCustomYolo"),
                 ("custom-lib-path", "/opt/nvidia/deepstream/deepstream/lib/libnvds_infercustomparser.so")]
    rng.shuffle(prop[6:])
    if "typo" in mistakes:
        prop.append(("num-detected-class", 4))
    if "comment" in mistakes:
        prop[4] = ("labelfile-path", f"{labels} # class names")
    if "value" in mistakes:
        prop.append(("network-mode", "fp16"))
    body = []
    kv(rng, prop, body)
    groups = [("property", body)]
    groups.append(("class-attrs-all", [f"pre-cluster-threshold={rng.choice(['0.2', '0.4', '0.25'])}",
                                       f"nms-iou-threshold={rng.choice(['0.5', '0.45'])}", f"topk={rng.choice([20, 100, 300])}"]))
    for c in range(rng.randint(0, 4)):
        groups.append((f"class-attrs-{c}", [f"pre-cluster-threshold={rng.randint(1, 9) / 10}",
                                            f"eps={rng.randint(1, 9) / 10}", f"group-threshold={rng.randint(1, 3)}"]))
    return groups


def tracker_ll_yaml(rng):
    sections = {
        "BaseConfig": [("minDetectorConfidence", rng.choice(["0.0", "0.1894"]))],
        "TargetManagement": [("enableBboxUnClipping", 1), ("preserveStreamUpdateOrder", 0),
                             ("maxTargetsPerStream", rng.choice([150, 300])), ("minIouDiff4NewTarget", "0.3686"),
                             ("minTrackerConfidence", "0.1513"), ("probationAge", rng.randint(1, 5)),
                             ("maxShadowTrackingAge", rng.randint(10, 60)), ("earlyTerminationAge", 1)],
        "TrajectoryManagement": [("useUniqueID", 0)],
        "DataAssociator": [("dataAssociatorType", 0), ("associationMatcherType", rng.randint(0, 1)),
                           ("checkClassMatch", 1), ("minMatchingScore4Overall", "0.0222"),
                           ("minMatchingScore4SizeSimilarity", "0.3552"), ("minMatchingScore4Iou", "0.0548")],
        "StateEstimator": [("stateEstimatorType", 1), ("processNoiseVar4Loc", "6810.8668"),
                           ("processNoiseVar4Size", "1541.8647"), ("measurementNoiseVar4Detector", "90.9057")],
        "VisualTracker": [("visualTrackerType", 1), ("useColorNames", 1), ("useHog", rng.randint(0, 1)),
                          ("featureImgSizeLevel", rng.randint(1, 5)), ("filterLr", "0.0767"), ("filterChannelWeightsLr", "0.0339")],
    }
    out = ["%YAML:1.0", "################################################################################",
           "# NvDCF tracker parameters (benchmark tree)", "################################################################################", ""]
    for name, pairs in sections.items():
        out.append(f"{name}:")
        for k, v in pairs:
            out.append(f"  {k}: {v}   # {rng.choice(['tuned', 'default', 'from the sample'])}")
        out.append("")
    return "\n".join(out) + "\n"


def tracker_keyfile(rng, ll):
    body = [f"tracker-width={rng.choice([640, 960, 1280])}", f"tracker-height={rng.choice([384, 544, 736])}",
            "gpu-id=0", "ll-lib-file=/opt/nvidia/deepstream/deepstream/lib/libnvds_nvmultiobjecttracker.so",
            f"ll-config-file={ll}", f"display-tracking-id={rng.randint(0, 1)}"]
    return keyfile([("tracker", body)])


def app_groups(rng, pgie, sgies, tracker_ll, streams_missing):
    n_src = rng.randint(1, 6)
    sources = []
    streams = 0
    for i in range(n_src):
        kind = rng.choice(["file", "file", "rtsp", "multi"])
        body = ["enable=1"]
        if kind == "rtsp":
            body += ["type=4", f"uri=rtsp://10.0.{rng.randint(0, 9)}.{rng.randint(1, 250)}/live", "latency=200"]
            streams += 1
        elif kind == "multi":
            n = rng.randint(2, 8)
            body += ["type=3", f"uri=file://streams/clip{rng.randint(0, 3)}.mp4", f"num-sources={n}"]
            streams += n
        else:
            body += ["type=3", f"uri=file://streams/clip{rng.randint(0, 3)}.mp4", "num-sources=1"]
            streams += 1
        body += [f"gpu-id=0", f"cudadec-memtype={rng.randint(0, 2)}"]
        sources.append((f"source{i}", body))
    batch = streams if rng.random() < 0.7 else rng.choice([1, 2, 4, 8])
    mem = rng.randint(0, 3)
    groups = []
    groups.append(("application", [f"enable-perf-measurement={rng.randint(0, 1)}",
                                   f"perf-measurement-interval-sec={rng.choice([1, 5, 10])}"]))
    rows = rng.randint(1, 3)
    groups.append(("tiled-display", ["enable=1", f"rows={rows}", f"columns={rng.randint(1, 3)}",
                                     f"width={rng.choice([1280, 1920])}", f"height={rng.choice([720, 1080])}",
                                     "gpu-id=0", f"nvbuf-memory-type={mem if rng.random() < 0.8 else (mem + 1) % 4}"]))
    groups.extend(sources)
    for s in range(rng.randint(1, 3)):
        ty = rng.choice([1, 2, 3, 4])
        body = ["enable=1", f"type={ty}", f"sync={rng.randint(0, 1)}", "gpu-id=0", f"nvbuf-memory-type={mem}"]
        if ty in (3, 4):
            body += [f"codec={rng.randint(1, 2)}", f"bitrate={rng.choice([2000000, 4000000])}"]
        if ty == 3:
            body += [f"container={rng.randint(1, 2)}", f"output-file=out_{s}.mp4"]
        if ty == 4:
            body += [f"rtsp-port={8554 + s}", f"udp-port={5400 + s}"]
        groups.append((f"sink{s}", body))
    groups.append(("osd", ["enable=1", f"border-width={rng.randint(1, 4)}", f"text-size={rng.choice([12, 15, 20])}",
                           "text-color=1;1;1;1;", "text-bg-color=0.3;0.3;0.3;1", "font=Serif",
                           f"show-clock={rng.randint(0, 1)}", f"nvbuf-memory-type={mem}"]))
    mux = ["gpu-id=0", f"live-source={rng.randint(0, 1)}", f"batch-size={batch}",
           f"batched-push-timeout={rng.choice([33000, 40000, 4000000])}", f"width={rng.choice([1280, 1920])}",
           f"height={rng.choice([720, 1080])}", f"enable-padding={rng.randint(0, 1)}", f"nvbuf-memory-type={mem}"]
    if rng.random() < 0.05:
        mux.append("batchsize=4")
    groups.append(("streammux", mux))
    groups.append(("primary-gie", ["enable=1", "gpu-id=0", f"gie-unique-id=1", f"config-file={pgie}"]))
    if tracker_ll:
        groups.append(("tracker", ["enable=1", f"tracker-width={rng.choice([640, 960])}",
                                   f"tracker-height={rng.choice([384, 544])}",
                                   "ll-lib-file=/opt/nvidia/deepstream/deepstream/lib/libnvds_nvmultiobjecttracker.so",
                                   f"ll-config-file={tracker_ll}", f"gpu-id=0"]))
    for i, s in enumerate(sgies):
        groups.append((f"secondary-gie{i}", ["enable=1", "gpu-id=0", f"gie-unique-id={i + 2}",
                                             f"operate-on-gie-id={1 if rng.random() < 0.95 else 7}",
                                             f"config-file={s}"]))
    groups.append(("tests", [f"file-loop={rng.randint(0, 1)}"]))
    return groups, batch


def write(path, text, files):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    files.append(path)


def project(rng, top, i, shared, files):
    d = os.path.join(top, f"site{i // 100:03d}", f"p{i:05d}")
    yaml_app = rng.random() < 0.3
    mistakes = set(m for m in ("typo", "comment", "value") if rng.random() < 0.08)
    # Primary: shared (a third of the projects) or local (key-file or YAML).
    if shared and rng.random() < 0.35:
        pgie = os.path.relpath(rng.choice(shared), d)
    else:
        batch = rng.choice([1, 2, 4, 8])
        ext = "yml" if rng.random() < 0.25 else "txt"
        groups = nvinfer_groups(rng, "primary", "models/detector.onnx", "models/labels.txt", batch, 1, mistakes)
        lines = []
        header(rng, lines)
        text = ("\n".join(lines) + "\n" if lines else "") + (yaml_doc(groups) if ext == "yml" else keyfile(groups))
        pgie = f"config_infer_primary.{ext}"
        write(os.path.join(d, pgie), text, files)
        names = ["car", "bicycle", "person", "roadsign", "truck", "bus", "bike", "train", "boat", "traffic light",
                 "fire hydrant", "stop sign", "parking meter", "bench", "bird", "cat", "dog", "horse", "sheep", "cow"]
        labels = "\n".join(rng.sample(names * 4, rng.randint(2, 80)))
        write(os.path.join(d, "models", "labels.txt"), labels + "\n", files)

        if rng.random() < 0.9:
            os.makedirs(os.path.join(d, "models"), exist_ok=True)
            open(os.path.join(d, "models", "detector.onnx"), "wb").close()
    sgies = []
    for s in range(rng.choice([0, 0, 1, 2])):
        name = f"config_infer_secondary_{s}.txt"
        groups = nvinfer_groups(rng, "secondary", f"models/classifier{s}.onnx", "models/labels.txt",
                                rng.choice([8, 16, 32]), s + 2, set())
        write(os.path.join(d, name), keyfile(groups), files)
        sgies.append(name)
    tracker = None
    if rng.random() < 0.5:
        tracker = "config_tracker_NvDCF.yml"
        write(os.path.join(d, tracker), tracker_ll_yaml(rng), files)
    groups, _ = app_groups(rng, pgie, sgies, tracker, False)
    groups = [(name, with_notes(rng, body)) for name, body in groups]
    if rng.random() < 0.9:
        os.makedirs(os.path.join(d, "streams"), exist_ok=True)
        for c in range(4):
            open(os.path.join(d, "streams", f"clip{c}.mp4"), "wb").close()
    lines = []
    header(rng, lines)
    if yaml_app:
        text = ("\n".join(lines) + "\n" if lines else "") + yaml_doc(groups)
        write(os.path.join(d, "deepstream_app.yml"), text, files)
    else:
        text = ("\n".join(lines) + "\n" if lines else "") + keyfile(groups)
        write(os.path.join(d, "deepstream_app.txt"), text, files)
    # Files a repository holds beside its configs, which dslint reads and skips.
    if rng.random() < 0.3:
        write(os.path.join(d, "requirements.txt"), "numpy==1.26.4\nopencv-python==4.9.0.80\n", files)
    if rng.random() < 0.15:
        write(os.path.join(d, "docker-compose.yml"),
              f"services:\n  app:\n    image: nvcr.io/nvidia/deepstream:{rng.choice(['6.4', '7.0', '7.1'])}-triton\n"
              "    runtime: nvidia\n    volumes:\n      - ./:/app\n", files)


def main():
    top, n = sys.argv[1], int(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    os.makedirs(top, exist_ok=True)
    open(os.path.join(top, "dslint.toml"), "w").close()
    files = []
    shared = []
    for k in range(max(2, n // 200)):
        groups = nvinfer_groups(rng, "primary", f"models/shared{k}.onnx", "models/labels.txt", rng.choice([1, 4, 8]), 1, set())
        name = os.path.join(top, "shared", f"pgie_{k}.txt" if k % 3 else f"pgie_{k}.yml")
        write(name, yaml_doc(groups) if k % 3 == 0 else keyfile(groups), files)
        shared.append(name)
    i = 0
    while len(files) < n:
        project(rng, top, i, shared, files)
        i += 1
    print(f"{len(files)} files in {i} projects")


if __name__ == "__main__":
    main()
