#!/usr/bin/env bash
# Zero-cost check on SASS (offline, no GPU): assembles target/ptx/test_kernels.ptx (the test harness module) with ptxas into a
# cubin, disassembles it with cuobjdump and compares the SASS instruction counts of the
# LayoutTensor copy kernel `tensor_copy_f32` and its raw-pointer twin `tensor_copy_f32_raw`: the
# first must be within 5% of the second, i.e. at most 5% more (fewer is fine; as the PTX test in
# tests/ptx_folding.rs). Prints both counts.
#
# ptxas: $PTXAS, else tools/install-ptxas.sh's; cuobjdump: $CUOBJDUMP, else
# tools/install-cuobjdump.sh's (installed on first use). Architecture: CHECK_SASS_ARCH (sm_90).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
ptx="$target_dir/ptx/test_kernels.ptx"
arch="${CHECK_SASS_ARCH:-sm_90}"
ptxas="${PTXAS:-$(bash "$root/tools/install-ptxas.sh")}"
cuobjdump="${CUOBJDUMP:-$(bash "$root/tools/install-cuobjdump.sh")}"

if [[ ! -f "$ptx" ]]; then
    echo "check-sass: error: $ptx missing: run 'cargo build' first" >&2
    exit 1
fi
nvdisasm="$(find "$(dirname "$cuobjdump")" "$root/.tools/cuobjdump" -type f -name nvdisasm 2>/dev/null | head -n 1 || true)"
if [[ -n "$nvdisasm" ]]; then
    chmod +x "$nvdisasm"
    export NVDISASM_PATH="$(dirname "$nvdisasm")" PATH="$(dirname "$nvdisasm"):$PATH"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$ptxas" -arch="$arch" "$ptx" -o "$work/kernels.cubin"
"$cuobjdump" -sass "$work/kernels.cubin" >"$work/kernels.sass"

# SASS instructions of one function: the lines "/*0040*/  INSTR ... ;" after its "Function : NAME"
# header, up to the next header (NOPs of the end padding not counted).
count() {
    awk -v fn="$1" '
        /Function :/ { cur = $NF; next }
        cur == fn && /^[[:space:]]*\/\*[0-9a-f]+\*\// && /;/ && !/ NOP[ ;]/ { n++ }
        END { print n + 0 }' "$work/kernels.sass"
}

layout="$(count tensor_copy_f32)"
raw="$(count tensor_copy_f32_raw)"
echo "check-sass: tensor_copy_f32: $layout SASS instructions; tensor_copy_f32_raw: $raw ($arch)"
if ((layout == 0 || raw == 0)); then
    echo "check-sass: FAIL: a kernel is missing from $ptx" >&2
    exit 1
fi
# Within 5%: layout * 100 <= raw * 105.
if ((layout * 100 > raw * 105)); then
    echo "check-sass: FAIL: the LayoutTensor kernel's count is not within 5% of the raw-pointer twin's" >&2
    exit 1
fi
echo "check-sass: OK (within 5%)"
