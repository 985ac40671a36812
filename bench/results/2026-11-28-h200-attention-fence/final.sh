#!/usr/bin/env bash
# The Hopper attention check on bundle $1, then the benchmark h/$1 interleaved with a cuDNN reading; everything tarred into $OUT/res.tgz.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
b=$1
rm -rf /tmp/c && mkdir -p /tmp/c && tar xJf "$here/gpu-bundle-$b.txz" -C /tmp/c
R=/tmp/res; rm -rf $R; mkdir -p $R
timeout 200 /tmp/c/gpu-bundle/gpu_suite --checks-only --filter "attention/forward, Hopper" > $R/checks-attention-$b.txt 2>&1; echo "checks rc=$?"; grep -E "passed|FAIL|rror" $R/checks-attention-$b.txt | tail -3
# run12.sh: run.sh here.
OUT=/tmp SEQ="${SEQ:-h $b torch $b h $b h}" bash "$here/run12.sh" $b > $R/run.txt 2>&1
tail -32 /tmp/res/table.md
tar czf $OUT/res.tgz -C /tmp res
