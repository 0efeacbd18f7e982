#!/usr/bin/env bash
# Validate `dslint measure hw` and `dslint measure sweep` on a GPU host.
# Writes captures (fixtures) and results under $OUT (default ./device-out).
#   bash bench/device_validate.sh [DSLINT_BINARY]
set -uo pipefail
BIN=${1:-target/release/dslint}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
F=index,name,compute_cap,memory.total,memory.free,clocks.max.sm,clocks.max.memory,pcie.link.gen.current,pcie.link.width.current,driver_version
nvidia-smi --query-gpu=$F --format=csv > "$OUT/smi_query_header.csv"
nvidia-smi --query-gpu=$F --format=csv,noheader,nounits > "$OUT/smi_query_noheader_nounits.csv"
"$BIN" measure hw -o "$OUT/facts.json" | tee "$OUT/measure_hw.txt"
# dmon while a batch-16 run loads the GPU (a fixture with non-zero sm).
( python3 bench/torch_infer.py --batch 16 --seconds 8 >/dev/null 2>&1 & ); sleep 4
nvidia-smi dmon -s u -c 4 > "$OUT/dmon_s_u_loaded.txt"
sleep 6
PYTHONUNBUFFERED=1 "$BIN" measure sweep \
  --cmd "python3 bench/torch_infer.py --batch {batch} --seconds 14" \
  --duration 60 --warmup 2 --save-log "$OUT/sweep.log" -o "$OUT/facts.json" \
  > "$OUT/sweep.txt" 2> "$OUT/sweep_progress.txt"
cat "$OUT/sweep.txt"
tail -5 "$OUT/sweep_progress.txt"
