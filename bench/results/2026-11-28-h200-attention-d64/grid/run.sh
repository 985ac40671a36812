#!/usr/bin/env bash
# Causal head_dim 64 on the two-warpgroup kernel with other grids (CUTE_EXP_GRID, host only; the
# kernels are the landed ones): f = the landed grid (one persistent block per SM up to 8k keys);
# gT = one block per tile; g264 / g528 = 264 / 528 persistent blocks (two / four per SM, each
# with a static share of the tiles; one block per SM runs at a time). The attention benchmark in
# the order f gT g264 g528 torch g528 g264 gT f torch.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p /tmp/g && tar xJf "$here/gpu-bundle-g.txz" -C /tmp/g
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p $OUT/res; R=$OUT/res
G=/tmp/g/gpu-bundle/gpu_suite
CUTE_EXP_GRID=tiles timeout 130 $G --checks-only --filter "attention/forward, Hopper" > $R/checks-attention-gT.txt 2>&1; echo "checks gT rc=$?"; grep -E "[0-9]+ passed|FAIL|rror" $R/checks-attention-gT.txt | head -3
for v in f gT g264 g528 torch g528 g264 gT f torch; do
  i=$(( $(ls $R/$v[0-9]*.json 2>/dev/null | wc -l) + 1 ))
  case $v in
    torch) (cd /tmp/g/gpu-bundle && timeout 120 python3 "$here/torch_sdpa.py" --head-dims 64 --backends cudnn > $R/torch$i.json 2> $R/torch$i.txt; echo "torch$i rc=$?") ;;
    f) timeout 60 $G --benches-only --filter attention --json $R/$v$i.json > /dev/null 2>&1; echo "$v$i rc=$?" ;;
    gT) CUTE_EXP_GRID=tiles timeout 60 $G --benches-only --filter attention --json $R/$v$i.json > /dev/null 2>&1; echo "$v$i rc=$?" ;;
    *) CUTE_EXP_GRID=${v#g} timeout 60 $G --benches-only --filter attention --json $R/$v$i.json > /dev/null 2>&1; echo "$v$i rc=$?" ;;
  esac
  tar czf $OUT/res.tgz -C $OUT res
done
python3 "$here/table2.py" $R f f gT g264 g528 | head -14 | tee $R/table.md
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
