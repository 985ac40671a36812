#!/usr/bin/env bash
# The GPU modules `cute-rs-ops` ships in ops/prebuilt/: the kernels of kernels/ compiled by
# `cute-rs-ops`' build script (feature `build-kernels`: nightly, -Zbuild-std=core) to PTX, and by
# the pinned ptxas (tools/install-ptxas.sh) to cubins, each zstd-compressed.
#
#   bash tools/prebuilt-kernels.sh update   rebuild from the sources and rewrite ops/prebuilt/
#   bash tools/prebuilt-kernels.sh check    fail unless ops/prebuilt/ holds exactly what the
#                                           sources give (CI runs this)
#
# Modules and their architectures (what ops/src/modules.rs states): gemm (sm_90, the portable
# kernels) and gemm_sm90a (sm_90a, the Hopper kernels). The shipped PTX is LLVM's without its
# comments: they name basic blocks after mangled symbols whose crate hashes depend on where the
# checkout lies, and nothing else in the PTX does. The cubins are compiled here from that PTX with
# `ptxas -arch=<arch> -v` (tools/ptxas-cache.sh), as cute-rs-build compiles them, so that the check
# needs no cubin from the build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mode="${1:-}"
case "$mode" in update|check) ;; *) echo "usage: $0 update|check" >&2; exit 2 ;; esac
modules=(gemm:sm_90 gemm_sm90a:sm_90a)
ptxas="${PTXAS:-$(bash tools/install-ptxas.sh)}"
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
# The PTX from the sources, into $target_dir/ptx (no cubins: they are made below), by the build
# script of cute-rs-ops: `cargo check` runs it, and only checks the host crates.
CUTE_CUBIN=0 cargo check -q -p cute-rs-ops --features build-kernels
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
# shellcheck source=tools/ptxas-cache.sh
source tools/ptxas-cache.sh
# The modules' ptxas runs in parallel (each is single-threaded), through the cache that
# tools/check-ptx.sh and tools/check-sass.sh read too.
pids=()
for entry in "${modules[@]}"; do
    name="${entry%%:*}" arch="${entry##*:}"
    ptx="$target_dir/ptx/$name.ptx"
    grep -q "^\.target $arch\$" "$ptx" || { echo "$ptx is not for $arch" >&2; exit 1; }
    ptxas_cached "$ptx" "$arch" > "$work/$name.entry" &
    pids+=($!)
done
for pid in "${pids[@]}"; do
    wait "$pid"
done
for entry in "${modules[@]}"; do
    name="${entry%%:*}"
    dir="$(cat "$work/$name.entry")"
    if [ "$(cat "$dir/status")" != 0 ]; then
        echo "prebuilt-kernels: ptxas failed on $name:" >&2
        cat "$dir/report.txt" >&2
        exit 1
    fi
    cp "$dir/$name.ptx" "$dir/$name.cubin" "$work/"
done
for entry in "${modules[@]}"; do
    name="${entry%%:*}"
    ptx="$work/$name.ptx"
    if [ "$mode" = update ]; then
        zstd -q -19 -f "$ptx" -o "ops/prebuilt/$name.ptx.zst"
        zstd -q -19 -f "$work/$name.cubin" -o "ops/prebuilt/$name.cubin.zst"
    else
        for kind in ptx cubin; do
            built="$ptx"; [ "$kind" = cubin ] && built="$work/$name.cubin"
            shipped="ops/prebuilt/$name.$kind.zst"
            if [ ! -f "$shipped" ] || ! zstd -q -d -c "$shipped" | cmp -s - "$built"; then
                echo "prebuilt-kernels: $shipped differs from what the sources give: run 'bash tools/prebuilt-kernels.sh update'" >&2
                status=1
            fi
        done
    fi
done
if [ "$mode" = update ]; then
    ls -l ops/prebuilt/
else
    [ "$status" = 0 ] && echo "prebuilt-kernels: ops/prebuilt/ matches the sources (${modules[*]})"
fi
exit "$status"
