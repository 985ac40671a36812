#!/usr/bin/env bash
# The landed build (f: the conditional rescale at head dimension 256 and in the wide kernels, the
# wide d64 blocks under a causal mask from 8k keys) against old: checks of f, then rounds of the
# attention benchmark in the order old f f old.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
for b in old f; do mkdir -p /tmp/$b && tar xJf "$here/gpu-bundle-$b.txz" -C /tmp/$b; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p $OUT/res; R=$OUT/res
timeout 150 /tmp/f/gpu-bundle/gpu_suite --checks-only --filter "attention/forward, Hopper" > $R/checks-attention.txt 2>&1; echo "checks rc=$?"; grep -E "[0-9]+ passed|FAIL|rror" $R/checks-attention.txt | head -5
tar czf $OUT/res.tgz -C $OUT res
for v in old f f old; do
  i=$(( $(ls $R/$v*.json 2>/dev/null | wc -l) + 1 ))
  timeout 50 /tmp/$v/gpu-bundle/gpu_suite --benches-only --filter attention --json $R/$v$i.json > /dev/null 2>&1; echo "$v$i rc=$?"
  tar czf $OUT/res.tgz -C $OUT res
done
python3 "$here/table.py" $R old old f | tee $R/table.md
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
