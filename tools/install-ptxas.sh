#!/usr/bin/env bash
# Installs NVIDIA's `ptxas` (PTX assembler, used for offline checks of the generated PTX: no GPU needed)
# from the PyPI wheel `nvidia-cuda-nvcc` into `.tools/nvcc/` at the repository root (ignored by git).
#
# Idempotent: a second run finds the installed version and does nothing.
# Prints the absolute path of `ptxas` on stdout (and nothing else there); progress goes to stderr.
#
# Environment:
#   CUTE_NVCC_VERSION  wheel version (default 13.0.88: ptxas 13.0, accepts PTX ISA up to 9.0, sm_90/sm_90a)
#   PYTHON             the Python interpreter whose pip is used (default: python3)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${CUTE_NVCC_VERSION:-13.0.88}"
dir="$root/.tools/nvcc"
stamp="$dir/.installed-nvidia-cuda-nvcc-$version"
python="${PYTHON:-python3}"

find_ptxas() {
    find "$dir" -type f -name ptxas -path '*/bin/ptxas' 2>/dev/null | sort | head -n 1
}

if [[ -f "$stamp" ]]; then
    ptxas="$(find_ptxas)"
    if [[ -n "$ptxas" && -x "$ptxas" ]]; then
        echo "$ptxas"
        exit 0
    fi
fi

echo "install-ptxas: installing nvidia-cuda-nvcc==$version into $dir" >&2
if ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "install-ptxas: error: '$python -m pip' is not available (set PYTHON to an interpreter with pip)" >&2
    exit 1
fi
# Install into a fresh temporary directory, then move it into place: an interrupted run leaves no
# half-installed tree behind that a later run would take for a complete one.
mkdir -p "$root/.tools"
tmp="$(mktemp -d "$root/.tools/.nvcc-tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
PIP_ROOT_USER_ACTION=ignore "$python" -m pip install --quiet --disable-pip-version-check --no-input \
    --target "$tmp" "nvidia-cuda-nvcc==$version" >&2
touch "$tmp/.installed-nvidia-cuda-nvcc-$version"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT

ptxas="$(find_ptxas)"
if [[ -z "$ptxas" ]]; then
    echo "install-ptxas: error: nvidia-cuda-nvcc==$version installed, but no bin/ptxas found under $dir" >&2
    exit 1
fi
chmod +x "$ptxas"
"$ptxas" --version >&2
echo "$ptxas"
