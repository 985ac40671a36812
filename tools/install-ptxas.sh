#!/usr/bin/env bash
# Installs NVIDIA's `ptxas` (PTX assembler, used for offline checks of the generated PTX: no GPU needed)
# from the PyPI wheel `nvidia-cuda-nvcc` into `.tools/nvcc/` (ignored by git), through
# tools/pip-tool.sh. Idempotent. Prints the absolute path of `ptxas` on stdout (and nothing else).
#
# Environment:
#   CUTE_NVCC_VERSION  wheel version (default 13.0.88: ptxas 13.0, accepts PTX ISA up to 9.0, sm_90/sm_90a)
#   PYTHON             the Python interpreter whose pip is used (default: python3)
set -euo pipefail
here="$(dirname "${BASH_SOURCE[0]}")"
ptxas="$(bash "$here/pip-tool.sh" nvcc ptxas "nvidia-cuda-nvcc==${CUTE_NVCC_VERSION:-13.0.88}")"
"$ptxas" --version >&2
echo "$ptxas"
