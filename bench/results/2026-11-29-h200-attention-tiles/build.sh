#!/usr/bin/env bash
# Builds the GPU suite runner (with cubins) and packs it as gpu-bundle-$1.txz: gpu_suite, ptx/, peers.
# Ran from target/gpu2 (git-ignored); the bundles it makes are what final.sh and sanitize.sh take.
set -euo pipefail
cd "$(dirname "$0")/../.."
ptxas="$(bash tools/install-ptxas.sh 2>/dev/null)"
PTXAS="$ptxas" cargo build --release --bin gpu_suite
rm -rf /tmp/gb-$1 && mkdir -p /tmp/gb-$1/gpu-bundle/ptx
cp target/release/gpu_suite /tmp/gb-$1/gpu-bundle/
cp target/ptx/*.ptx /tmp/gb-$1/gpu-bundle/ptx/ 2>/dev/null || true
cp -r bench/peers /tmp/gb-$1/gpu-bundle/
tar cJf target/gpu2/gpu-bundle-$1.txz -C /tmp/gb-$1 gpu-bundle
ls -la target/gpu2/gpu-bundle-$1.txz
