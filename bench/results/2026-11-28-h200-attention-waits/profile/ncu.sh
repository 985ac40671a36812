#!/usr/bin/env bash
# Nsight Compute (full set, per-instruction samples) of the two-warpgroup d64 kernel: the persistent
# causal 2k-key row, and the persistent non-causal 1k-key row (the same key blocks per tile on
# average, no mask).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p /tmp/new && tar xJf "$here/gpu-bundle-new.txz" -C /tmp/new
mkdir -p $OUT/res; R=$OUT/res
S=/tmp/new/gpu-bundle/gpu_suite
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for spec in causal2k:265 plain1k:64; do
  n=${spec%%:*}; skip=${spec##*:}
  timeout 280 ncu --set full --import-source no --kernel-name attention_sm90_bf16_d64 --launch-skip $skip --launch-count 1 -o /tmp/$n $S --benches-only --filter attention > $R/ncu-$n.log 2>&1; echo "$n rc=$?"
  ncu -i /tmp/$n.ncu-rep --page source --csv --print-source sass > $R/sass-$n.csv 2> $R/sass-$n.err; echo "sass rc=$? $(wc -l < $R/sass-$n.csv)"
  ncu -i /tmp/$n.ncu-rep --page details --print-details all > $R/details-$n.txt 2>&1  # cut to ncu-$n.txt (the tables cited)
  ncu -i /tmp/$n.ncu-rep --page raw --csv > $R/raw-$n.csv 2>&1
  grep -E "Grid Size|Duration|Registers" $R/details-$n.txt | head -5
done
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
