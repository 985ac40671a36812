#!/usr/bin/env bash
# old = the build before (try_wait without a suspend hint, one chain of max per row); new = waits
# that sleep (a suspend-time hint) and four chains of max per row; wide = new with the wide d64
# blocks under a causal mask from 2k keys (CUTE_EXP_WIDE_CAUSAL, an experiment-build switch).
# Checks of new (attention, the GEMMs; attention with every causal d64 problem on the wide blocks),
# then rounds of the attention benchmark, the GEMM against cuBLAS, and one torch reading.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
for b in old new; do mkdir -p /tmp/$b && tar xJf "$here/gpu-bundle-$b.txz" -C /tmp/$b; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p $OUT/res; R=$OUT/res
date -u
run() { # variant -> bundle + env
  case $1 in
    old) /tmp/old/gpu-bundle/gpu_suite "${@:2}";;
    new) /tmp/new/gpu-bundle/gpu_suite "${@:2}";;
    wide) CUTE_EXP_WIDE_CAUSAL=2048 /tmp/new/gpu-bundle/gpu_suite "${@:2}";;
    wideall) CUTE_EXP_WIDE_CAUSAL=1 /tmp/new/gpu-bundle/gpu_suite "${@:2}";;
  esac
}
for f in attention gemm; do timeout 200 /tmp/new/gpu-bundle/gpu_suite --checks-only --filter $f > $R/checks-$f.txt 2>&1; echo "checks $f rc=$?"; grep -E "[0-9]+ passed" $R/checks-$f.txt; done
run wideall --checks-only --filter "attention/forward, Hopper" > $R/checks-wide-causal.txt 2>&1; echo "checks wide causal rc=$?"; grep -E "[0-9]+ passed" $R/checks-wide-causal.txt
tar czf $OUT/res.tgz -C $OUT res
for v in old new wide wide new old; do
  i=$(( $(ls $R/$v*.json 2>/dev/null | wc -l) + 1 ))
  run $v --benches-only --filter attention --json $R/$v$i.json > /dev/null 2>&1; echo "$v$i rc=$?"
done
date -u
for v in old new new old; do
  run $v --benches-only --filter "vs cublas persistent bf16-out" --json $R/gemm-$v-$RANDOM.json > /dev/null 2>&1; echo "gemm $v rc=$?"
done
python3 - $R <<'PY'
import json, glob, sys, os
for f in sorted(glob.glob(sys.argv[1] + "/gemm-*.json")):
    d = json.load(open(f))
    print(os.path.basename(f), "; ".join(f"{x['what'][-40:]}={x['value']:.0f}" for b in d["benchmarks"] for x in b.get("figures", []) if x.get("unit") == "TFLOP/s"))
PY
tar czf $OUT/res.tgz -C $OUT res
(cd /tmp/new/gpu-bundle && timeout 240 python3 peers/torch_sdpa.py > $R/torch1.json 2> $R/torch.txt; echo "torch rc=$?")
python3 "$here/table.py" $R old old new wide
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
