#!/bin/sh
# A scripted stand-in for an inference run: prints fps lines for a batch
# from a fixed table (ResNet-like scaling with ±1% jitter), so the sweep's
# logic is tested without a GPU. Usage: fake_fps.sh BATCH [LINES]
b=$1
n=${2:-6}
case $b in
  1) base=400 ;; 2) base=760 ;; 4) base=1290 ;; 8) base=1610 ;; 16) base=1630 ;; *) base=1640 ;;
esac
i=0
echo "warming up"
while [ $i -lt $n ]; do
  j=$(( (i % 3) - 1 ))
  echo "batch=$b fps=$(( base + j * base / 100 )).0"
  i=$((i + 1))
done
