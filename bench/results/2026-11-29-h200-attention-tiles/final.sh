#!/usr/bin/env bash
# The Hopper attention check on bundle $1, then the benchmark $BASE/$1 interleaved with a cuDNN reading; everything tarred into $OUT/res.tgz.
# Ran from target/gpu2 (git-ignored), beside the bundles; run12.sh there is ../2026-11-28-h200-attention-fence/run.sh, table2.py ../2026-11-28-h200-attention-d64/table.py.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
b=$1; BASE=${BASE:-q}
rm -rf /tmp/c && mkdir -p /tmp/c && tar xJf "$here/gpu-bundle-$b.txz" -C /tmp/c
R=/tmp/res; rm -rf $R; mkdir -p $R
timeout 200 /tmp/c/gpu-bundle/gpu_suite --checks-only --filter "attention/forward, Hopper" > $R/checks-attention-$b.txt 2>&1; echo "checks rc=$?"; grep -E "passed|FAIL|rror" $R/checks-attention-$b.txt | tail -3
OUT=/tmp BASE=$BASE SEQ="${SEQ:-$BASE $b torch $b $BASE $b $BASE}" bash "$here/run12.sh" $b > $R/run.txt 2>&1
tail -40 /tmp/res/table.md
tar czf $OUT/res.tgz -C /tmp res
