#!/usr/bin/env bash
# Time dslint on hostile, large inputs: work must grow linearly with size.
# Not a test (tests/safety_*.rs hold the hang guards); prints one line per
# case: wall seconds, or "timeout" past the cap.
#
#   bash bench/large_inputs.sh [BIN] [CAP_SECONDS]
#
# BIN defaults to a fresh release build; pass an older binary to compare
# side by side in one run (the machine may be shared: run both in one go).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-}
[ -n "$BIN" ] && BIN=$(realpath "$BIN")
CAP=${2:-300}
if [ -z "$BIN" ]; then
  cargo build --release --quiet
  BIN=$PWD/target/release/dslint
fi
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
touch "$DIR/dslint.toml" # the project root

python3 - "$DIR" <<'PY'
import sys, os
d = sys.argv[1]
def w(name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
# 100k keys in one group (an nvinfer config).
w("keys100k.txt", "[property]\ngie-unique-id=1\nnetwork-type=0\nbatch-size=1\n" + "".join(f"custom-key-{i}={i}\n" for i in range(100_000)))
# 100k repeated [property] groups (GLib merges them).
w("groups100k.txt", "".join(f"[property]\ngie-unique-id=1\nbatch-size={i % 7 + 1}\n" for i in range(100_000)))
# 100k repeats of one key (DS004 each).
w("dups100k.txt", "[property]\ngie-unique-id=1\n" + "".join(f"batch-size={i % 7 + 1}\n" for i in range(100_000)))
def fill(head, piece, size, tail=""):
    """head, then piece(0), piece(1), … until `size` bytes, then tail."""
    parts, n, i = [head], len(head), 0
    while n < size:
        p = piece(i)
        parts.append(p); n += len(p); i += 1
    return "".join(parts) + tail
MIB8 = 8 * 1024 * 1024
# ~8 MiB deepstream-app key-file: many source groups.
w("app8m.txt", fill("[application]\nenable-perf-measurement=1\n[streammux]\nbatch-size=4\nwidth=1920\nheight=1080\n",
    lambda i: f"[source{i}]\nenable=1\ntype=3\nuri=file:///opt/streams/s{i}.mp4\nnum-sources=1\ngpu-id=0\n", MIB8))
# ~8 MiB nvinfer key-file: one [property], then many class-attrs groups.
w("infer8m.txt", fill("[property]\ngie-unique-id=1\ngpu-id=0\nbatch-size=4\nnetwork-mode=2\n",
    lambda i: f"[class-attrs-{i}]\npre-cluster-threshold=0.2\nnms-iou-threshold=0.5\ntopk=20\n", MIB8))
# ~8 MiB deepstream-app YAML: many source groups.
w("app8m.yml", fill("application:\n  enable-perf-measurement: 1\nstreammux:\n  batch-size: 4\n  width: 1920\n  height: 1080\n",
    lambda i: f"source{i}:\n  enable: 1\n  type: 3\n  uri: file:///opt/streams/s{i}.mp4\n  num-sources: 1\n", MIB8))
# ~8 MiB nvinfer YAML: one property map with many keys.
w("infer8m.yml", fill("property:\n  gie-unique-id: 1\n  gpu-id: 0\n  batch-size: 4\n",
    lambda i: f"  custom-key-{i}: {i}\n", MIB8))
# A 2 MB launch script for `nsys wrap`.
w("start.sh", fill("#!/bin/bash\n", lambda i: f"export VAR_{i}=\"value {i} 'quoted' $HOME\"\n", 2 * 1000 * 1000,
    "python3 -m fastdeploy.entrypoints.openai.api_server --port 8080\n"))
PY

run() { # run NAME CMD...: one line with the wall time
  local name=$1; shift
  local t0 t1 rc=0
  t0=$(date +%s.%N)
  timeout "$CAP" "$@" >/dev/null 2>&1 || rc=$?
  t1=$(date +%s.%N)
  if [ "$rc" = 124 ]; then
    printf '%-34s timeout (>%ss)\n' "$name" "$CAP"
  else
    printf '%-34s %8.2f s  (exit %s)\n' "$name" "$(echo "$t1 - $t0" | bc)" "$rc"
  fi
}
cd "$DIR"
# Each file yields ~100k findings: the first line of each pair renders them
# all (human output to /dev/null), the second counts them (--statistics), so
# the analysis and the rendering can be told apart.
for f in keys100k.txt groups100k.txt dups100k.txt app8m.txt infer8m.txt app8m.yml infer8m.yml; do
  run "check $f ($(( $(stat -c %s "$f") / 1024 )) KiB)" "$BIN" check "$f"
  run "  --statistics" "$BIN" check "$f" --statistics
done
run "nsys wrap start.sh ($(( $(stat -c %s start.sh) / 1024 )) KiB)" "$BIN" nsys wrap start.sh --diff
