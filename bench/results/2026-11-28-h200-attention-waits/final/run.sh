#!/usr/bin/env bash
# old = the build before; z = the conditional rescale (a warp keeps its rows' maxima while no
# block raises one by more than 2^8) and the wide d64 blocks under a causal mask from 8k keys.
# Checks of z, rounds of the attention benchmark in the order old z z old, then racecheck on the
# Hopper attention check.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
for b in old z; do mkdir -p /tmp/$b && tar xJf "$here/gpu-bundle-$b.txz" -C /tmp/$b; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p $OUT/res; R=$OUT/res
date -u
timeout 200 /tmp/z/gpu-bundle/gpu_suite --checks-only --filter attention > $R/checks-attention.txt 2>&1; echo "checks attention rc=$?"; grep -E "[0-9]+ passed|FAIL|rror" $R/checks-attention.txt | head -5
tar czf $OUT/res.tgz -C $OUT res
for v in old z z old; do
  i=$(( $(ls $R/$v*.json 2>/dev/null | wc -l) + 1 ))
  /tmp/$v/gpu-bundle/gpu_suite --benches-only --filter attention --json $R/$v$i.json > /dev/null 2>&1; echo "$v$i rc=$?"
done
date -u
python3 "$here/table.py" $R old old z | tee $R/table.md
tar czf $OUT/res.tgz -C $OUT res
timeout 200 compute-sanitizer --tool racecheck /tmp/z/gpu-bundle/gpu_suite --checks-only --filter "attention/forward, Hopper" > $R/racecheck.txt 2>&1; echo "racecheck rc=$?"; grep -E "SUMMARY|[0-9]+ passed" $R/racecheck.txt
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
