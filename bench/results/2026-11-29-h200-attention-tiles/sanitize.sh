#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, synccheck) on the Hopper attention check of bundle $1.
# Ran from target/gpu2 (git-ignored), on the landed build q.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf /tmp/s && mkdir -p /tmp/s && tar xJf "$here/gpu-bundle-$1.txz" -C /tmp/s
R=/tmp/sres; rm -rf $R; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader; date -u
for t in racecheck synccheck memcheck; do
  timeout 175 compute-sanitizer --tool $t /tmp/s/gpu-bundle/gpu_suite --checks-only --filter "attention/forward, Hopper" > $R/$t.txt 2>&1; echo "$t rc=$?"; grep -E "SUMMARY|[0-9]+ passed" $R/$t.txt
  tar czf $OUT/sanitize.tgz -C /tmp sres
done
