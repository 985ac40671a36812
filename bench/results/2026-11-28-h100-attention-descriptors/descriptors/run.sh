#!/usr/bin/env bash
# MODE=checks: every check of new (GEMMs included: the descriptors changed), the long kernels on
# every d128 problem without a mask, memcheck and racecheck on the Hopper attention check.
# Else ROUNDS rounds of old (encoded descriptors) / new (descriptors advanced by one add), old
# and new with the 128-key d128 (64-key d256) kernels (oldshort, short), new with the long ones
# (long); GEMM=1: old and new Hopper GEMM against cuBLAS.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
for b in old new; do mkdir -p /tmp/$b && tar xzf "$here/gpu-bundle-$b.tgz" -C /tmp/$b; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p $OUT/res; R=$OUT/res
date -u
run() { # variant -> bundle + env
  case $1 in
    oldshort) CUTE_EXP_LONG=0 /tmp/old/gpu-bundle/gpu_suite "${@:2}";;
    oldlong) CUTE_EXP_LONG=1 /tmp/old/gpu-bundle/gpu_suite "${@:2}";;
    short) CUTE_EXP_LONG=0 /tmp/new/gpu-bundle/gpu_suite "${@:2}";;
    long) CUTE_EXP_LONG=1 /tmp/new/gpu-bundle/gpu_suite "${@:2}";;
    new) /tmp/new/gpu-bundle/gpu_suite "${@:2}";;
  esac
}
if [ "${MODE:-}" = checks ]; then
  for f in attention gemm matmul; do run new --checks-only --filter $f > $R/checks-$f.txt 2>&1; echo "checks $f rc=$?"; grep -E "[0-9]+ passed" $R/checks-$f.txt; done
  run long --checks-only --filter Hopper > $R/checks-long.txt 2>&1; echo "checks-long rc=$?"; grep -E "[0-9]+ passed" $R/checks-long.txt | tail -2
  for tool in memcheck racecheck; do
    echo "== $tool" >> $R/sanitizers.txt
    CUTE_EXP_LONG=1 timeout 200 compute-sanitizer --tool $tool /tmp/new/gpu-bundle/gpu_suite --checks-only --filter "attention/forward, Hopper" >> $R/sanitizers.txt 2>&1; echo "$tool rc=$?"
  done
  grep -E "SUMMARY|[0-9]+ passed" $R/sanitizers.txt
else
  for r in ${ROUNDS:-1 2}; do
    for v in $( [ $((r % 2)) = 0 ] && echo "long short oldshort" || echo "oldshort short long" ); do
      run $v --benches-only --filter attention --json $R/$v$r.json > /dev/null 2>&1; echo "$v$r rc=$?"
    done
    date -u
  done
  if [ -n "${GEMM:-}" ]; then
    for v in oldshort short short oldshort; do
      run $v --benches-only --filter "vs cublas persistent bf16-out" --json $R/gemm-$v-$RANDOM.json > /dev/null 2>&1; echo "gemm $v rc=$?"
    done
    python3 - $R <<'PY'
import json, glob, sys, os
for f in sorted(glob.glob(sys.argv[1] + "/gemm-*.json")):
    d = json.load(open(f))
    print(os.path.basename(f), "; ".join(f"{x['what'][-40:]}={x['value']:.0f}" for b in d["benchmarks"] for x in b.get("figures", []) if x.get("unit") == "TFLOP/s"))
PY
  fi
  python3 "$here/table.py" $R
fi
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
