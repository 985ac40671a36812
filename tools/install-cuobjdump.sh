#!/usr/bin/env bash
# Installs NVIDIA's `cuobjdump` (SASS disassembler, for the offline zero-cost check tools/check-sass.sh:
# no GPU needed) from the PyPI wheels `nvidia-cuda-cuobjdump` and `nvidia-cuda-nvdisasm` (cuobjdump
# runs nvdisasm; tools/check-sass.sh puts its directory on NVDISASM_PATH) into `.tools/cuobjdump/`
# (ignored by git).
#
# PyPI has no 13.0.x wheel of nvidia-cuda-cuobjdump (the oldest is 13.2.51, checked with
# `pip download`); 13.2.86 is the closest to ptxas 13.0.88 and disassembles its sm_90 cubins.
#
# Idempotent. Prints the absolute path of `cuobjdump` on stdout (only that); progress on stderr.
#
# Environment:
#   CUTE_CUOBJDUMP_VERSION  wheel version (default 13.2.86)
#   PYTHON                  the Python interpreter whose pip is used (default: python3)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${CUTE_CUOBJDUMP_VERSION:-13.2.86}"
dir="$root/.tools/cuobjdump"
stamp="$dir/.installed-nvidia-cuda-cuobjdump-$version"
python="${PYTHON:-python3}"

find_tool() {
    find "$dir" -type f -name cuobjdump -path '*/bin/cuobjdump' 2>/dev/null | sort | head -n 1
}

if [[ -f "$stamp" ]]; then
    tool="$(find_tool)"
    if [[ -n "$tool" && -x "$tool" ]]; then
        echo "$tool"
        exit 0
    fi
fi

echo "install-cuobjdump: installing nvidia-cuda-cuobjdump==$version into $dir" >&2
mkdir -p "$root/.tools"
tmp="$(mktemp -d "$root/.tools/.cuobjdump-tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
PIP_ROOT_USER_ACTION=ignore "$python" -m pip install --quiet --disable-pip-version-check --no-input \
    --no-deps --target "$tmp" "nvidia-cuda-cuobjdump==$version" "nvidia-cuda-nvdisasm==$version" >&2
touch "$tmp/.installed-nvidia-cuda-cuobjdump-$version"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT

tool="$(find_tool)"
if [[ -z "$tool" ]]; then
    echo "install-cuobjdump: error: no bin/cuobjdump under $dir" >&2
    exit 1
fi
chmod +x "$tool"
echo "$tool"
