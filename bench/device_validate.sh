#!/usr/bin/env bash
# Validate `dslint measure` on a GPU host: hw, the decode ramp, the
# decode-and-infer sweep (DECODE_BOUND), the pure-inference sweep with early
# stopping and then --exhaustive over the same batches. Needs PyTorch,
# PyNvVideoCodec and PyAV (bench/clip.py encodes the test clip on the CPU).
# Writes captures (fixtures) and results under $OUT (default ./device-out).
#   bash bench/device_validate.sh [DSLINT_BINARY]
set -uo pipefail
BIN=${1:-target/release/dslint}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
F=index,name,compute_cap,memory.total,memory.free,clocks.max.sm,clocks.max.memory,pcie.link.gen.current,pcie.link.width.current,driver_version
nvidia-smi --query-gpu=$F --format=csv > "$OUT/smi_query_header.csv"
nvidia-smi --query-gpu=$F --format=csv,noheader,nounits > "$OUT/smi_query_noheader_nounits.csv"
"$BIN" measure hw -o "$OUT/facts.json" | tee "$OUT/measure_hw.txt"
python3 bench/clip.py --out /tmp/dslint_clip_1080p_h264.mp4 --seconds 10
# dmon while 16 streams load NVDEC (a fixture with a non-zero dec column).
( python3 bench/nvdec_decode.py --streams 16 --seconds 12 >/dev/null 2>&1 & ); sleep 6
nvidia-smi dmon -s u -c 4 > "$OUT/dmon_s_u_nvdec16.txt"; sleep 7
"$BIN" measure decode --cmd "python3 bench/nvdec_decode.py --streams {streams} --seconds 600 --window 0.5" \
  --duration 20 --warmup 2 --save-log "$OUT/decode_ramp.log" -o "$OUT/facts.json" | tee "$OUT/decode.txt"
cp "$OUT/facts.json" "$OUT/facts_decode_infer.json"
"$BIN" measure sweep --cmd "python3 bench/decode_infer.py --batch {batch} --seconds 600 --window 0.5" \
  --batches 1,2,4,8,16,32,64 --duration 25 --warmup 4 --save-log "$OUT/decode_infer.log" \
  -o "$OUT/facts_decode_infer.json" | tee "$OUT/decode_infer.txt"
C="python3 bench/torch_infer.py --batch {batch} --seconds 600 --window 0.5"
"$BIN" measure sweep --cmd "$C" --batches 1,2,4,8,16,32,64,128 --duration 20 --warmup 2 \
  --save-log "$OUT/torch_early.log" -o "$OUT/facts.json" | tee "$OUT/torch_early.txt"
"$BIN" measure sweep --cmd "$C" --batches 1,2,4,8,16,32,64,128 --duration 20 --warmup 2 --exhaustive \
  --save-log "$OUT/torch_exhaustive.log" | tee "$OUT/torch_exhaustive.txt"
"$BIN" report --facts "$OUT/facts_decode_infer.json" > "$OUT/report_decode_infer.md"
