#!/usr/bin/env bash
# Checks every PTX module in target/ptx/ with NVIDIA's ptxas (no GPU needed):
#   ptxas -arch=<arch> -v <module>
# and fails if ptxas reports an error, if any function spills registers (nonzero "spill stores" or
# "spill loads"; the formatting functions behind device_println!/device_assert! excepted), if a GEMM kernel (gemm_*, sgemm_*) has a stack frame, or if ptxas warns about a
# C75xx performance loss (wgmma serialized, warpgroup.wait injected, setmaxnreg ignored). Prints
# ptxas's per-kernel report (registers, stack frame, spills).
#
# <arch> is the module's own `.target` (sm_90 for the default build), or CHECK_PTX_ARCH if set.
# An architecture-specific module (`.target sm_90a`, e.g. gemm_sm90a.ptx with the wgmma kernels)
# is always checked for its own target: no other architecture accepts its instructions.
# ptxas is $PTXAS if set, else the one tools/install-ptxas.sh installed in .tools/nvcc, else the one
# on PATH. The modules are in $CARGO_TARGET_DIR/ptx (default: target/ptx), written by `cargo build`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
ptx_dir="$target_dir/ptx"

ptxas="${PTXAS:-}"
if [[ -z "$ptxas" ]]; then
    ptxas="$(find "$root/.tools/nvcc" -type f -name ptxas -path '*/bin/ptxas' 2>/dev/null | sort | head -n 1 || true)"
fi
if [[ -z "$ptxas" ]]; then
    ptxas="$(command -v ptxas || true)"
fi
if [[ -z "$ptxas" || ! -x "$ptxas" ]]; then
    echo "check-ptx: error: ptxas not found: run tools/install-ptxas.sh (or set PTXAS)" >&2
    exit 1
fi

shopt -s nullglob
modules=("$ptx_dir"/*.ptx)
if ((${#modules[@]} == 0)); then
    echo "check-ptx: error: no PTX module in $ptx_dir: run 'cargo build' first" >&2
    exit 1
fi

failed=0
# shellcheck source=tools/ptxas-cache.sh
source "$root/tools/ptxas-cache.sh"
# Each module's architecture, then every module's ptxas at once (each is single-threaded; a
# module that tools/prebuilt-kernels.sh assembled is not assembled again).
archs=()
for ptx in "${modules[@]}"; do
    own="$(sed -nE 's/^[[:space:]]*\.target[[:space:]]+([a-z0-9_]+).*/\1/p' "$ptx" | head -n 1)"
    if [[ "$own" =~ ^sm_[0-9]+a$ ]]; then
        arch="$own"
    else
        arch="${CHECK_PTX_ARCH:-${own:-sm_90}}"
    fi
    if [[ "$(basename "$ptx")" == *_sm90a.ptx && "$arch" != sm_90a ]]; then
        echo "check-ptx: FAIL: $ptx targets '${own:-nothing}', not sm_90a" >&2
        exit 1
    fi
    archs+=("$arch")
done
entries="$(mktemp -d)"
trap 'rm -rf "$entries"' EXIT
pids=()
for i in "${!modules[@]}"; do
    ptxas_cached "${modules[$i]}" "${archs[$i]}" > "$entries/$i" &
    pids+=($!)
done
for pid in "${pids[@]}"; do
    wait "$pid"
done
for i in "${!modules[@]}"; do
    ptx="${modules[$i]}" arch="${archs[$i]}"
    dir="$(cat "$entries/$i")"
    echo "== ptxas -arch=$arch -v $ptx"
    status="$(cat "$dir/status")"
    report="$(cat "$dir/report.txt")"
    echo "$report"
    if ((status != 0)) || grep -qiE '(^|[^a-z])error' <<<"$report"; then
        echo "check-ptx: FAIL: ptxas reported errors for $ptx (exit status $status)" >&2
        failed=1
    fi
    # Lines look like: "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads".
    # Each is named by the function it belongs to. The formatting functions behind
    # `device_println!`/`device_assert!` (core::fmt, the print line buffer, and the slice panic
    # they can reach) may spill: they are called functions on a printing kernel's cold path, and
    # no kernel spills.
    printing='4core3fmt|14cute_rs_device5print|slice_index_fail'
    spills="$(awk -v printing="$printing" '/Function properties for/ { fn = $NF }
         /bytes spill (stores|loads)/ && ($(NF-7) != 0 || $(NF-3) != 0) && fn !~ printing { print "  " fn ": " $0 }' \
        <<<"$report")"
    if [[ -n "$spills" ]]; then
        echo "check-ptx: FAIL: register spills in $ptx:" >&2
        echo "$spills" >&2
        failed=1
    fi
    frames="$(awk '/Function properties for (s?gemm)/ { fn = $NF }
                   /bytes stack frame/ && fn != "" { if ($1 != 0) print "  " fn ": " $0; fn = "" }' <<<"$report")"
    if [[ -n "$frames" ]]; then
        echo "check-ptx: FAIL: GEMM kernels with a stack frame in $ptx:" >&2
        echo "$frames" >&2
        failed=1
    fi
    if grep -qE '\(C75[0-9][0-9]\)' <<<"$report"; then
        echo "check-ptx: FAIL: ptxas performance warnings in $ptx:" >&2
        grep -E '\(C75[0-9][0-9]\)' <<<"$report" >&2
        failed=1
    fi
done

if ((failed)); then
    exit 1
fi
echo "check-ptx: OK (${#modules[@]} module(s), no errors, no spills, no GEMM stack frames, no C75xx warnings)"
