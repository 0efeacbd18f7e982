#!/bin/sh
# A stand-in for a decode-only run of N streams: 400 fps a stream up to
# 2900 fps (the decoders' ceiling). With DSLINT_FAKE_DEC set, writes the
# NVDEC load (30% a stream, at most 100) there for fake_nvidia_smi.sh.
n=$1
fps=$(( n * 400 )); [ $fps -gt 2900 ] && fps=2900
if [ -n "$DSLINT_FAKE_DEC" ]; then
  dec=$(( n * 30 )); [ $dec -gt 100 ] && dec=100
  echo $dec > "$DSLINT_FAKE_DEC"
fi
echo "codec=h264 width=1920 height=1080 streams=$n"
while true; do
  echo "streams=$n fps=$fps.0"
  sleep 0.05
done
