#!/usr/bin/env bash
# MODE=checks: attention checks of new (default rule; d128 long kernels on every d128 problem
# without a mask), sanitizers on the Hopper check. Else ROUNDS rounds of old / short (new, 128
# keys per step at d128) / long (new, 176 keys per step on every d128 row without a mask).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
for b in new; do mkdir -p /tmp/$b && tar xzf "$here/gpu-bundle-$b.tgz" -C /tmp/$b; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p $OUT/res; R=$OUT/res
date -u
run() { # variant -> bundle + env
  case $1 in
    old) /tmp/old/gpu-bundle/gpu_suite "${@:2}";;
    new) /tmp/new/gpu-bundle/gpu_suite "${@:2}";;
    short) CUTE_EXP_LONG=0 /tmp/new/gpu-bundle/gpu_suite "${@:2}";;
    long) CUTE_EXP_LONG=1 /tmp/new/gpu-bundle/gpu_suite "${@:2}";;
  esac
}
if [ "${MODE:-}" = checks ]; then
  run new --checks-only --filter attention > $R/checks.txt 2>&1; echo "checks rc=$?"; grep -E "passed|failed|FAIL" $R/checks.txt | tail -4
  run long --checks-only --filter Hopper > $R/checks-long.txt 2>&1; echo "checks-long rc=$?"; grep -E "passed|failed|FAIL" $R/checks-long.txt | tail -3
  for tool in memcheck racecheck synccheck; do
    echo "== $tool" >> $R/sanitizers.txt
    CUTE_EXP_LONG=1 timeout 200 compute-sanitizer --tool $tool /tmp/new/gpu-bundle/gpu_suite --checks-only --filter Hopper >> $R/sanitizers.txt 2>&1; echo "$tool rc=$?"
  done
  grep -E "SUMMARY|passed" $R/sanitizers.txt
else
  for r in ${ROUNDS:-1 2}; do
    for v in $( [ $((r % 2)) = 0 ] && echo "long short" || echo "short long" ); do
      run $v --benches-only --filter attention --json $R/$v$r.json > /dev/null 2>&1; echo "$v$r rc=$?"
    done
    date -u
  done
  if [ -n "${TORCH:-}" ]; then
    (cd /tmp/new/gpu-bundle && timeout 240 python3 peers/torch_sdpa.py > $R/torch1.json 2> $R/torch.txt; echo "torch rc=$?")
  fi
  python3 "$here/table.py" $R
fi
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
