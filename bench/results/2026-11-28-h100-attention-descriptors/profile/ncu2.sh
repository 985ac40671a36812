#!/usr/bin/env bash
# Per-instruction stall samples of the d128 kernel (8k keys, no mask): the warp-state and source
# sections into a report, then its SASS page as CSV.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p /tmp/new && tar xzf "$here/gpu-bundle-new.tgz" -C /tmp/new
mkdir -p $OUT/res; R=$OUT/res
S=/tmp/new/gpu-bundle/gpu_suite
CUTE_EXP_LONG=0 timeout 250 ncu --section WarpStateStats --section SourceCounters --section SchedulerStats --kernel-name attention_sm90_bf16_d128 --launch-skip 190 --launch-count 1 -o /tmp/short $S --benches-only --filter attention > $R/ncu2.log 2>&1; echo "short rc=$?"
ncu -i /tmp/short.ncu-rep --page source --csv --print-source sass > $R/sass.csv 2> $R/sass.err; echo "sass rc=$? $(wc -l < $R/sass.csv)"
ncu -i /tmp/short.ncu-rep --page details --print-details all > $R/details.txt 2>&1
head -3 $R/sass.csv | cut -c1-600
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
