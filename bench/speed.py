#!/usr/bin/env python3
"""Speed and memory of dslint beside `cat` of the same bytes, in one run.

    python3 bench/speed.py [--bin BIN] [--before OLD_BIN] [--sizes 1000,10000,100000]
                           [--runs 5] [--threads N] [--skip-large]

For each size, a tree of varied configs with cross-file references
(bench/gen_tree.py) is checked: human, JSON and SARIF output, on 1 and N
threads, warm (files in the page cache) and cold (the tree's pages dropped
with posix_fadvise before each run: no privileges needed; the kernel's
folder caches stay warm), and `fix` (diff only). Then one ~8 MiB file of
each format (bench/large_inputs.sh's shapes). Each figure is the median of
`--runs` runs (one at 100k files) taken in turn with `cat` of the same files (`find | xargs cat`,
which walks the tree as dslint does), so a shared machine slows both alike
and the ratio survives. Peak memory is the process's max RSS (wait4).
`--before OLD_BIN` runs an older binary in the same turns, so a change is
measured before -> after in one run (the table gets its figures beside).
Not a test: prints a table, with the goals of issue 14 beside the figures.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MIB8 = 8 * 1024 * 1024


def run(cmd, env=None, cwd=None):
    """Wall seconds and peak RSS (KiB) of one run; output thrown away."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}")
    return wall, ru.ru_maxrss


def evict(paths):
    """Drop the files' pages from the page cache (cold runs)."""
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def files_under(top):
    out = []
    for d, _, names in os.walk(top):
        out.extend(os.path.join(d, n) for n in names)
    return out


class Pair:
    """Runs of one dslint command taken in turn with `cat` of its bytes."""

    def __init__(self, runs, cold_paths=None, before=None):
        self.runs = runs
        self.cold = cold_paths
        # Another binary (`--before`) run in the same turns: its median
        # figure and peak memory for the last `measure`, else None.
        self.before = before
        self.last_before = None

    def measure(self, cmd, cat, env):
        t_cmd, t_cat, rss = [], [], 0
        t_old, rss_old = [], 0
        old = [self.before] + cmd[1:] if self.before else None
        if self.cold is None:  # warm the cache and the binary first
            run(cat)
            run(cmd, env)
            if old:
                run(old, env)
        for _ in range(self.runs):
            if self.cold is not None:
                evict(self.cold)
            w, _ = run(cat)
            t_cat.append(w)
            if self.cold is not None:
                evict(self.cold)
            w, m = run(cmd, env)
            t_cmd.append(w)
            rss = max(rss, m)
            if old:
                if self.cold is not None:
                    evict(self.cold)
                w, m = run(old, env)
                t_old.append(w)
                rss_old = max(rss_old, m)
        self.last_before = (statistics.median(t_old), rss_old) if old else None
        return statistics.median(t_cmd), statistics.median(t_cat), rss


def env_threads(n):
    e = dict(os.environ)
    e["RAYON_NUM_THREADS"] = str(n)
    e["NO_COLOR"] = "1"
    return e


def gen_large(d, size=MIB8):
    """One file of about `size` bytes of each format and kind dslint reads
    (bench/large_inputs.sh's shapes, and one of every other kind), each made
    of one short head and many repeats of a piece: the groups, keys, nodes,
    elements or pipelines a big real file has many of."""

    def fill(head, piece, tail=""):
        parts, n, i = [head], len(head), 0
        while n < size:
            p = piece(i)
            parts.append(p)
            n += len(p)
            i += 1
        return "".join(parts) + tail

    files = {
        "app8m.txt (app key-file)": fill(
            "[application]\nenable-perf-measurement=1\n[streammux]\nbatch-size=4\nwidth=1920\nheight=1080\n",
            lambda i: f"[source{i}]\nenable=1\ntype=3\nuri=file:///opt/streams/s{i}.mp4\nnum-sources=1\ngpu-id=0\n"),
        "infer8m.txt (nvinfer key-file)": fill(
            "[property]\ngie-unique-id=1\ngpu-id=0\nbatch-size=4\nnetwork-mode=2\n",
            lambda i: f"[class-attrs-{i}]\npre-cluster-threshold=0.2\nnms-iou-threshold=0.5\ntopk=20\n"),
        "app8m.yml (app YAML)": fill(
            "application:\n  enable-perf-measurement: 1\nstreammux:\n  batch-size: 4\n  width: 1920\n  height: 1080\n",
            lambda i: f"source{i}:\n  enable: 1\n  type: 3\n  uri: file:///opt/streams/s{i}.mp4\n  num-sources: 1\n"),
        "infer8m.yml (nvinfer YAML)": fill(
            "property:\n  gie-unique-id: 1\n  gpu-id: 0\n  batch-size: 4\n",
            lambda i: f"  custom-key-{i}: {i}\n"),
        "testapp8m.yml (test-app YAML)": fill(
            "source-list:\n  list: file:///a.mp4;file:///b.mp4\nstreammux:\n  batch-size: 2\n  width: 1920\n"
            "  height: 1080\nprimary-gie:\n  config-file-path: pgie.yml\n",
            lambda i: f"sink{i}:\n  sync: 0\n  qos: 0\n  location: /tmp/out{i}.mp4\n"),
        "preprocess8m.txt (nvdspreprocess)": fill(
            "[property]\nenable=1\ntarget-unique-ids=1\nnetwork-input-order=0\nprocess-on-frame=1\nunique-id=5\n"
            "gpu-id=0\nprocessing-width=960\nprocessing-height=544\nnetwork-input-shape=8;3;544;960\n"
            "network-color-format=0\ntensor-data-type=0\ntensor-name=input_1\n"
            "custom-lib-path=preprocess.so\ncustom-tensor-preparation-function=CustomTensorPreparation\n"
            "[user-configs]\npixel-normalization-factor=0.003921568\n",
            lambda i: f"[group-{i}]\nsrc-ids={i}\ncustom-input-transformation-function=CustomAsyncTransformation\n"
                      f"process-on-roi=1\nroi-params-src-{i}=0;540;900;500\n"),
        "tracker8m.txt (tracker key-file)": fill(
            "[tracker]\ntracker-width=640\ntracker-height=384\ngpu-id=0\n"
            "ll-lib-file=/opt/nvidia/deepstream/deepstream/lib/libnvds_nvmultiobjecttracker.so\n",
            lambda i: f"custom-key-{i}={i}\n"),
        "trackerll8m.yml (NvMultiObjectTracker YAML)": fill(
            "%YAML:1.0\nBaseConfig:\n  minDetectorConfidence: 0.5\nTargetManagement:\n  maxTargetsPerStream: 150\n"
            "DataAssociator:\n  dataAssociatorType: 0\n",
            lambda i: f"Extra{i}:\n  probationAge: 3\n  maxShadowTrackingAge: 30\n"),
        "analytics8m.txt (nvdsanalytics)": fill(
            "[property]\nenable=1\nconfig-width=1920\nconfig-height=1080\nosd-mode=2\ndisplay-font-size=12\n",
            lambda i: f"[roi-filtering-stream-{i}]\nenable=1\nroi-RF=295;643;579;634;642;913;56;828\n"
                      f"inverse-roi=0\nclass-id=-1\n"),
        "mux8m.txt (new nvstreammux)": fill(
            "[property]\nalgorithm-type=1\nbatch-size=2\nadaptive-batching=1\noverall-max-fps-n=30\n"
            "overall-max-fps-d=1\noverall-min-fps-n=5\noverall-min-fps-d=1\nmax-same-source-frames=1\n",
            lambda i: f"[source-config-{i}]\nmax-fps-n=30\nmax-fps-d=1\nmin-fps-n=5\nmin-fps-d=1\npriority=0\n"),
        "triton8m.pbtxt (nvinferserver)": fill(
            "infer_config {\n  unique_id: 1\n  max_batch_size: 4\n  backend {\n    triton {\n"
            "      model_name: \"m\"\n      version: -1\n    }\n  }\n",
            lambda i: f"  extra {{\n    copy_input_to_host_buffers: false\n    output_buffer_pool_size: {i % 16 + 1}\n  }}\n",
            "}\n"),
        "servicemaker8m.yaml (Service Maker)": fill(
            "deepstream:\n  nodes:\n  - type: nvstreammux\n    name: mux\n    properties:\n      batch-size: 4\n"
            "      width: 1920\n      height: 1080\n",
            lambda i: f"  - type: queue\n    name: q{i}\n    properties:\n      max-size-buffers: 4\n",
            "  edges:\n    mux: q0\n"),
        "parallel8m.yml (deepstream-parallel-infer)": fill(
            "application:\n  enable-perf-measurement: 1\nsource:\n  csv-file-path: sources.csv\n"
            "streammux:\n  batch-size: 2\n  width: 1920\n  height: 1080\n"
            "primary-gie0:\n  enable: 1\n  plugin-type: 0\n  config-file: pgie.txt\n",
            lambda i: f"branch{i}:\n  pgie-id: 1\n  src-ids: 0;1\n"),
        "launch8m.sh (gst-launch script)": fill(
            "#!/bin/bash\nset -e\n",
            lambda i: f"gst-launch-1.0 filesrc location=/opt/streams/s{i}.h264 ! h264parse ! nvv4l2decoder ! m.sink_0 "
                      f"nvstreammux name=m batch-size=1 width=1920 height=1080 ! fakesink\n"),
        "app8m.py (Python app)": fill(
            "#!/usr/bin/env python3\nimport gi\n\ngi.require_version(\"Gst\", \"1.0\")\n"
            "from gi.repository import Gst\n\n\ndef main():\n    Gst.init(None)\n"
            "    pipeline = Gst.Pipeline()\n"
            "    streammux = Gst.ElementFactory.make(\"nvstreammux\", \"stream-muxer\")\n"
            "    streammux.set_property(\"batch-size\", 1)\n    pipeline.add(streammux)\n",
            lambda i: f"    q{i} = Gst.ElementFactory.make(\"queue\", \"queue{i}\")\n"
                      f"    q{i}.set_property(\"max-size-buffers\", 4)\n    pipeline.add(q{i})\n",
            "    pipeline.set_state(Gst.State.PLAYING)\n\n\nif __name__ == \"__main__\":\n    main()\n"),
    }
    out = []
    for label, text in files.items():
        path = os.path.join(d, label.split(" ")[0])
        with open(path, "w") as f:
            f.write(text)
        out.append((label, path))
    open(os.path.join(d, "dslint.toml"), "w").close()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=None)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--skip-large", action="store_true")
    ap.add_argument("--large-mib", type=int, default=8,
                    help="the size of the one-file-per-kind section (run 8 and 16: time linear in size)")
    ap.add_argument("--before", default=None,
                    help="an older binary, run in the same turns: its figures beside each (before -> after)")
    args = ap.parse_args()
    binary = args.bin
    if binary is None:
        subprocess.run(["cargo", "build", "--release", "--quiet"], check=True, cwd=os.path.dirname(HERE))
        binary = os.path.join(os.path.dirname(HERE), "target", "release", "dslint")
    binary = os.path.abspath(binary)
    n = args.threads
    before = os.path.abspath(args.before) if args.before else None
    rows = []  # (what, figure, beside cat, peak memory, goal, met, before: (figure, peak memory) or None)

    def row(what, secs, cat, rss=None, goal="", met=None, old=None):
        rows.append((what, secs, cat, rss, goal, met, old))
        ratio = f"{secs / cat:5.2f}x cat" if cat else ""
        mem = f"{rss / 1024:7.1f} MiB" if rss else ""
        flag = "" if met is None else ("met" if met else "NOT MET")
        was = f"  (before: {old[0]:.3f}{' s' if cat else ''})" if old else ""
        print(f"{what:44} {secs:8.3f} s  {ratio:12} {mem:12} {goal} {flag}{was}", flush=True)

    print(f"dslint {binary}; {os.cpu_count()} CPUs seen, N={n} threads, median of {args.runs} runs, each beside cat")
    for size in [int(s) for s in args.sizes.split(",")]:
        top = tempfile.mkdtemp(prefix=f"dslint-bench-{size}-")
        try:
            subprocess.run([sys.executable, os.path.join(HERE, "gen_tree.py"), top, str(size)], check=True,
                           stdout=subprocess.DEVNULL)
            paths = files_under(top)
            text_bytes = sum(os.path.getsize(p) for p in paths)
            largest = max(os.path.getsize(p) for p in paths)
            cat = ["sh", "-c", f"find '{top}' -type f -print0 | xargs -0 cat > /dev/null"]
            print(f"-- {size} files ({text_bytes / 1e6:.1f} MB)")
            # A 100k tree runs each command once after its warm-up run: the
            # whole table must fit in minutes on a shared 2-core machine.
            runs = args.runs if size < 50000 else 1
            warm = Pair(runs, before=before)
            chk = [binary, "check", top]
            t1, c1, _ = warm.measure(chk, cat, env_threads(1))
            old1 = warm.last_before
            row(f"{size}: check, 1 thread, warm", t1, c1, old=old1)
            tn, cn, rss = warm.measure(chk, cat, env_threads(n))
            oldn = warm.last_before
            row(f"{size}: check, {n} threads, warm", tn, cn, rss,
                "goal <= 2x cat" if size >= 10000 else "", tn / cn <= 2 if size >= 10000 else None, old=oldn)
            per_file = (rss * 1024 - largest) / size
            old = ((oldn[1] * 1024 - largest) / size, None) if oldn else None
            rows.append((f"{size}: memory a file beyond the largest", per_file, None, None, "goal <= 8 KB", per_file <= 8192, old))
            print(f"{size}: peak memory a file: {per_file / 1024:.1f} KiB  (goal <= 8 KB)", flush=True)
            speedup = t1 / tn
            old = (old1[0] / oldn[0], None) if oldn else None
            rows.append((f"{size}: 1 -> {n} threads", speedup, None, None, "goal >= 1.8x (2 cores)", speedup >= 1.8, old))
            print(f"{size}: 1 -> {n} threads: {speedup:.2f}x  (goal >= 1.8x)", flush=True)
            tj, cj, rj = warm.measure(chk + ["--format", "json"], cat, env_threads(n))
            row(f"{size}: check --format json", tj, cj, rj, old=warm.last_before)
            ts, cs, rs = warm.measure(chk + ["--format", "sarif"], cat, env_threads(n))
            row(f"{size}: check --format sarif", ts, cs, rs, f"goal <= 1.3x json ({ts / tj:.2f}x)", ts / tj <= 1.3,
                old=warm.last_before)
            tf, cf, rf = warm.measure([binary, "fix", top, "--diff"], cat, env_threads(n))
            row(f"{size}: fix --diff", tf, cf, rf, f"goal <= 1.5x check ({tf / tn:.2f}x)", tf / tn <= 1.5,
                old=warm.last_before)
            cold = Pair(max(1, runs // 2), paths, before=before)
            tc, cc, _ = cold.measure(chk, cat, env_threads(n))
            row(f"{size}: check, {n} threads, cold", tc, cc, old=cold.last_before)
        finally:
            shutil.rmtree(top, ignore_errors=True)
    if not args.skip_large:
        d = tempfile.mkdtemp(prefix="dslint-bench-large-")
        try:
            print(f"-- one ~{args.large_mib} MiB file of each format")
            for label, path in gen_large(d, args.large_mib * 1024 * 1024):
                cat = ["cat", path]
                pair = Pair(max(1, args.runs // 2), before=before)
                t, c, r = pair.measure([binary, "check", path], cat, env_threads(n))
                row(f"{args.large_mib} MiB {label}", t, c, r, "goal < 1 s", t < 1, old=pair.last_before)
        finally:
            shutil.rmtree(d, ignore_errors=True)
    print()
    head = "| run | figure | beside `cat` | peak memory | goal |"
    rule = "|---|---:|---:|---:|---|"
    if before:
        head = "| run | before | figure | beside `cat` (before) | peak memory (before) | goal |"
        rule = "|---|---:|---:|---:|---:|---|"
    print(head)
    print(rule)
    for what, secs, cat, rss, goal, met, old in rows:
        def fig(x):
            if cat is None:
                return f"{x / 1024:.1f} KiB" if "memory" in what else f"{x:.2f}x"
            return f"{x:.3f} s"
        ratio = "" if cat is None else f"{secs / cat:.2f}x ({cat:.3f} s)"
        mem = f"{rss / 1024:.0f} MiB" if rss else ""
        flag = "" if met is None else (" — met" if met else " — **not met**")
        if before:
            was = fig(old[0]) if old else ""
            if old and cat is not None:
                ratio += f" ({old[0] / cat:.2f}x)"
            if old and old[1] and rss:
                mem += f" ({old[1] / 1024:.0f} MiB)"
            print(f"| {what} | {was} | {fig(secs)} | {ratio} | {mem} | {goal}{flag} |")
        else:
            print(f"| {what} | {fig(secs)} | {ratio} | {mem} | {goal}{flag} |")


if __name__ == "__main__":
    main()
