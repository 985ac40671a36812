#!/usr/bin/env bash
# MODE=checks: attention checks of new (default rule, and every d64 problem on the wide kernels,
# persistent), sanitizers on the Hopper check (wide everywhere). MODE=bench: ROUNDS rounds of
# old / new / wide (new, wide for every d64) / persist (wide, persistent on short tiles).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
for b in old new; do mkdir -p /tmp/$b && tar xzf "$here/gpu-bundle-$b.tgz" -C /tmp/$b; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p $OUT/res; R=$OUT/res
date -u
run() { # variant -> bundle + env
  case $1 in
    old) /tmp/old/gpu-bundle/gpu_suite "${@:2}";;
    new) /tmp/new/gpu-bundle/gpu_suite "${@:2}";;
    wide) CUTE_EXP_WIDE=all /tmp/new/gpu-bundle/gpu_suite "${@:2}";;
    persist) CUTE_EXP_WIDE=all CUTE_EXP_WIDE_PERSIST=1 /tmp/new/gpu-bundle/gpu_suite "${@:2}";;
  esac
}
if [ "${MODE:-}" = checks ]; then
  run new --checks-only --filter attention > $R/checks.txt 2>&1; echo "checks rc=$?"; grep -E "passed|failed" $R/checks.txt | tail -3
  run persist --checks-only --filter Hopper > $R/checks-wide.txt 2>&1; echo "checks-wide rc=$?"; grep -E "passed|failed" $R/checks-wide.txt | tail -2
  for tool in memcheck racecheck synccheck; do
    echo "== $tool" >> $R/sanitizers.txt
    CUTE_EXP_WIDE=all CUTE_EXP_WIDE_PERSIST=1 compute-sanitizer --tool $tool /tmp/new/gpu-bundle/gpu_suite --checks-only --filter Hopper >> $R/sanitizers.txt 2>&1; echo "$tool rc=$?"
  done
  grep -E "SUMMARY|passed" $R/sanitizers.txt
else
  for r in ${ROUNDS:-1 2}; do
    for v in $( [ $((r % 2)) = 0 ] && echo "persist wide new old" || echo "old new wide persist" ); do
      run $v --benches-only --filter attention --json $R/$v$r.json > /dev/null 2>&1; echo "$v$r rc=$?"
    done
    date -u
  done
  python3 "$here/table.py" $R
fi
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
