#!/usr/bin/env bash
# old = the build before; x = four chains of max per row (and the wide d64 blocks under a causal
# mask from 8k keys); y = x with the conditional rescale (a warp keeps its rows' maxima while no
# block raises one by more than 2^8). Checks of y, then rounds of the attention benchmark in the
# order old x y y x old, and one torch reading.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
for b in old x y; do mkdir -p /tmp/$b && tar xJf "$here/gpu-bundle-$b.txz" -C /tmp/$b; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p $OUT/res; R=$OUT/res
date -u
timeout 240 /tmp/y/gpu-bundle/gpu_suite --checks-only --filter attention > $R/checks-attention.txt 2>&1; echo "checks attention rc=$?"; grep -E "[0-9]+ passed|FAIL|rror" $R/checks-attention.txt | head -5
tar czf $OUT/res.tgz -C $OUT res
for v in old x y y x old; do
  i=$(( $(ls $R/$v*.json 2>/dev/null | wc -l) + 1 ))
  /tmp/$v/gpu-bundle/gpu_suite --benches-only --filter attention --json $R/$v$i.json > /dev/null 2>&1; echo "$v$i rc=$?"
done
date -u
tar czf $OUT/res.tgz -C $OUT res
(cd /tmp/y/gpu-bundle && timeout 200 python3 peers/torch_sdpa.py > $R/torch1.json 2> $R/torch.txt; echo "torch rc=$?")
python3 "$here/table.py" $R old old x y
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
