#!/usr/bin/env bash
# Zero-cost check on SASS (offline, no GPU): assembles the PTX modules with ptxas into cubins (or
# takes those tools/ptxas-cache.sh holds),
# disassembles them with cuobjdump and compares the SASS instruction counts of each kernel written
# with the library against its hand-written twin. The library's kernel must be within 5% of the
# twin, i.e. at most 5% more (fewer is fine; as the PTX test in tests/ptx_folding.rs). Pairs:
# - target/ptx/test_kernels.ptx: the LayoutTensor copy `tensor_copy_f32` / `tensor_copy_f32_raw`;
# - target/ptx/gemm.ptx (the operations' module): the mma.sync GEMM in the atom layer (TiledMma,
#   ldmatrix tiled copies, gemm(), identity-tensor epilogue) `gemm_bf16_ar_bc_v16` (both operands
#   K-major) and `gemm_bf16_ar_br_v16` (B N-major, ldmatrix.trans), against their twins
#   `gemm_bf16_ar_bc_v16_raw` and `gemm_bf16_ar_br_v16_raw` in target/ptx/test_kernels.ptx (the
#   test harness's module).
# For the GEMMs the main loops (first barrier to last HMMA) are compared the same way. Prints every
# count.
#
# ptxas: $PTXAS, else tools/install-ptxas.sh's; cuobjdump: $CUOBJDUMP, else
# tools/install-cuobjdump.sh's (installed on first use). Architecture: CHECK_SASS_ARCH (sm_90).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
arch="${CHECK_SASS_ARCH:-sm_90}"
ptxas="${PTXAS:-$(bash "$root/tools/install-ptxas.sh")}"
cuobjdump="${CUOBJDUMP:-$(bash "$root/tools/install-cuobjdump.sh")}"

nvdisasm="$(find "$(dirname "$cuobjdump")" "$root/.tools/cuobjdump" -type f -name nvdisasm 2>/dev/null | head -n 1 || true)"
if [[ -n "$nvdisasm" ]]; then
    chmod +x "$nvdisasm"
    export NVDISASM_PATH="$(dirname "$nvdisasm")" PATH="$(dirname "$nvdisasm"):$PATH"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# shellcheck source=tools/ptxas-cache.sh
source "$root/tools/ptxas-cache.sh"

# SASS of module $1 (a name under target/ptx) into $work/$1.sass.
disassemble() {
    local ptx="$target_dir/ptx/$1.ptx"
    if [[ ! -f "$ptx" ]]; then
        echo "check-sass: error: $ptx missing: run 'cargo build' first" >&2
        exit 1
    fi
    local dir
    dir="$(ptxas_cached "$ptx" "$arch")"
    if [[ "$(cat "$dir/status")" != 0 ]]; then
        cat "$dir/report.txt" >&2
        echo "check-sass: error: ptxas failed on $ptx" >&2
        exit 1
    fi
    "$cuobjdump" -sass "$dir/$1.cubin" >"$work/$1.sass"
}

# SASS instructions of function $2 in module $1: the lines "/*0040*/  INSTR ... ;" after its
# "Function : NAME" header, up to the next header (NOPs of the end padding not counted).
count() {
    awk -v fn="$2" '
        /Function :/ { cur = $NF; next }
        cur == fn && /^[[:space:]]*\/\*[0-9a-f]+\*\// && /;/ && !/ NOP[ ;]/ { n++ }
        END { print n + 0 }' "$work/$1.sass"
}

# SASS instructions of the main loop of GEMM $2 in module $1: from the first barrier (the top of
# the k-loop, after the pipeline's prologue) to the last HMMA (its bottom).
loop_count() {
    awk -v fn="$2" '
        /Function :/ { cur = $NF; next }
        cur == fn && /^[[:space:]]*\/\*[0-9a-f]+\*\// && /;/ && !/ NOP[ ;]/ {
            n++
            if (!first && /BAR\.SYNC/) first = n
            if (/HMMA/) last = n
        }
        END { print (first && last) ? last - first + 1 : 0 }' "$work/$1.sass"
}

failed=0
# Compares kernel $2 of module $1 with its hand-written twin $4 of module $3.
compare() {
    local library raw
    library="$(count "$1" "$2")"
    raw="$(count "$3" "$4")"
    echo "check-sass: $2: $library SASS instructions; $4: $raw ($arch)"
    if ((library == 0 || raw == 0)); then
        echo "check-sass: FAIL: a kernel is missing from $1.ptx or $3.ptx" >&2
        failed=1
    elif ((library * 100 > raw * 105)); then
        # Within 5%: library * 100 <= raw * 105.
        echo "check-sass: FAIL: $2's count is not within 5% of its hand-written twin's" >&2
        failed=1
    fi
}

disassemble test_kernels
compare test_kernels tensor_copy_f32 test_kernels tensor_copy_f32_raw
# Compares the main loops of GEMM $2 (module $1) and its twin $4 (module $3), within 5% as the
# whole kernels.
compare_loops() {
    local library raw
    library="$(loop_count "$1" "$2")"
    raw="$(loop_count "$3" "$4")"
    echo "check-sass: $2 main loop: $library SASS instructions; $4: $raw"
    if ((library == 0 || raw == 0 || library * 100 > raw * 105)); then
        echo "check-sass: FAIL: $2's main loop is not within 5% of its hand-written twin's" >&2
        failed=1
    fi
}

disassemble gemm
for twin in gemm_bf16_ar_bc_v16 gemm_bf16_ar_br_v16; do
    compare gemm "$twin" test_kernels "${twin}_raw"
    compare_loops gemm "$twin" test_kernels "${twin}_raw"
done
if ((failed)); then
    exit 1
fi
echo "check-sass: OK (each within 5%)"
