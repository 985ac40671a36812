#!/usr/bin/env bash
# The attention benchmark: base build ($BASE, default h; q in these runs) against the variants given, interleaved, with cuDNN readings (head_dim 64 and 128) between; the full table last.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
BASE=${BASE:-h}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p $OUT/res; R=$OUT/res
for b in $BASE "$@"; do rm -rf /tmp/b-$b; mkdir -p /tmp/b-$b && tar xJf "$here/gpu-bundle-$b.txz" -C /tmp/b-$b; done
for v in ${SEQ:-$BASE "$@" torch "$@" $BASE torch}; do
  i=$(( $(ls $R/$v[0-9]*.json 2>/dev/null | wc -l) + 1 ))
  case $v in
    torch) (cd /tmp/b-$BASE/gpu-bundle && timeout 150 python3 "$here/torch_sdpa.py" --head-dims 64,128 --backends cudnn > $R/torch$i.json 2> $R/torch$i.txt; echo "torch$i rc=$?") ;;
    *) timeout 90 /tmp/b-$v/gpu-bundle/gpu_suite --benches-only --filter attention --json $R/$v$i.json > /dev/null 2>&1; echo "$v$i rc=$?" ;;
  esac
done
python3 "$here/table2.py" $R $BASE $BASE "$@" | tee $R/table.md  # ../2026-11-28-h200-attention-d64/table.py
