#!/usr/bin/env bash
# The Hopper attention check on bundle $1, then the benchmark f/$1 interleaved with a cuDNN reading.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
b=$1
rm -rf /tmp/c && mkdir -p /tmp/c && tar xJf "$here/gpu-bundle-$b.txz" -C /tmp/c
mkdir -p $OUT/res
timeout 200 /tmp/c/gpu-bundle/gpu_suite --checks-only --filter "attention/forward, Hopper" > $OUT/res/checks-attention-$b.txt 2>&1; echo "checks rc=$?"; grep -E "passed|FAIL|rror" $OUT/res/checks-attention-$b.txt | tail -3
SEQ="f $b torch $b f" bash "$here/run.sh" $b 2>&1 | grep -v "^|" | tail -8
