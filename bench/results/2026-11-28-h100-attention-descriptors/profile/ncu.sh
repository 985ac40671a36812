#!/usr/bin/env bash
# ncu of the d128 kernels at 8k keys without a mask: the 128-key kernel (persistent launch of the
# 8k row) and the long kernel.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p /tmp/new && tar xzf "$here/gpu-bundle-new.tgz" -C /tmp/new
which ncu || ls /usr/local/cuda*/bin 2>/dev/null | head; ncu --version | tail -1
mkdir -p $OUT/res; R=$OUT/res
S=/tmp/new/gpu-bundle/gpu_suite
CUTE_EXP_LONG=0 timeout 280 ncu --set full --kernel-name attention_sm90_bf16_d128 --launch-skip 190 --launch-count 1 $S --benches-only --filter attention > $R/ncu-short.txt 2>&1; echo "short rc=$?"
CUTE_EXP_LONG=1 timeout 250 ncu --set full --kernel-name attention_sm90_bf16_d128_long --launch-skip 100 --launch-count 1 $S --benches-only --filter attention > $R/ncu-long.txt 2>&1; echo "long rc=$?"
for f in $R/ncu-*.txt; do echo "== $f"; grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|Issue Slots Busy|No Eligible|Active Warps Per Scheduler|Eligible Warps|Registers Per|Stall|stall|Warp Cycles Per Issued|Executed Ipc|Block Limit|Theoretical Occ" $f | head -40; done
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
