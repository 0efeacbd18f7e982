#!/bin/sh
# A stand-in for a pipeline that runs until it is stopped: one fps line
# every 0.05 s for a batch (ResNet-like scaling), with a jitter of
# ±JITTER per mille. Usage: fake_steady.sh BATCH [JITTER]
b=$1
jitter=${2:-1}
case $b in
  1) base=400 ;; 2) base=760 ;; 4) base=1290 ;; 8) base=1610 ;; 16) base=1630 ;; *) base=1640 ;;
esac
echo "warming up"
i=0
while true; do
  j=$(( (i % 2) * 2 - 1 ))
  echo "batch=$b fps=$(( base + j * base * jitter / 1000 )).0"
  i=$((i + 1))
  sleep 0.05
done
