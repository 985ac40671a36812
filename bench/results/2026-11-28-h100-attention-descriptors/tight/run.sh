#!/usr/bin/env bash
# Checks of new (attention and the GEMMs), racecheck on the Hopper attention check, then one
# round of old (descriptors recomputed in every kernel; 128- and 64-key kernels) / new (Q's recomputed only where the
# registers are tight) in the order old new new old.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
for b in old new; do mkdir -p /tmp/$b && tar xJf "$here/gpu-bundle-$b.txz" -C /tmp/$b; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p $OUT/res; R=$OUT/res
N=/tmp/new/gpu-bundle/gpu_suite
for f in attention gemm; do timeout 150 $N --checks-only --filter $f > $R/checks-$f.txt 2>&1; echo "checks $f rc=$?"; grep -E "[0-9]+ passed" $R/checks-$f.txt; done
timeout 150 compute-sanitizer --tool racecheck $N --checks-only --filter "attention/forward, Hopper" > $R/racecheck.txt 2>&1; echo "racecheck rc=$?"; grep -E "SUMMARY|[0-9]+ passed" $R/racecheck.txt
tar czf $OUT/res.tgz -C $OUT res
i=0
for v in old new new old; do i=$((i+1)); CUTE_EXP_LONG=0 timeout 60 /tmp/$v/gpu-bundle/gpu_suite --benches-only --filter attention --json $R/$v$i.json > /dev/null 2>&1; echo "$v$i rc=$?"; done
python3 - $R <<'PY'
import json, glob, sys, os, statistics as st
R = sys.argv[1]; runs = {}
for f in sorted(glob.glob(R + "/*.json")):
    v = os.path.basename(f)[:3]
    d = json.load(open(f))
    for b in d["benchmarks"]:
        for x in b.get("figures", []):
            if x["what"].endswith(": ours"): runs.setdefault(x["what"][len("attention bf16 "):-6], {}).setdefault(v, []).append(x["value"])
print("| size | old | new | new/old |\n|---|---|---|---|")
for k, r in runs.items():
    o, n = r.get("old", []), r.get("new", [])
    print(f"| {k} | {' / '.join(f'{x:.0f}' for x in o)} | {' / '.join(f'{x:.0f}' for x in n)} | {st.median(n)/st.median(o):.3f} |" if o and n else f"| {k} | - | - | - |")
PY
tar czf $OUT/res.tgz -C $OUT res && rm -rf $OUT/res
