#!/usr/bin/env bash
# Installs NVIDIA's `cuobjdump` (SASS disassembler, for the offline zero-cost check tools/check-sass.sh:
# no GPU needed) from the PyPI wheels `nvidia-cuda-cuobjdump` and `nvidia-cuda-nvdisasm` (cuobjdump
# runs nvdisasm; tools/check-sass.sh puts its directory on NVDISASM_PATH) into `.tools/cuobjdump/`
# (ignored by git), through tools/pip-tool.sh.
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
version="${CUTE_CUOBJDUMP_VERSION:-13.2.86}"
exec bash "$(dirname "${BASH_SOURCE[0]}")/pip-tool.sh" cuobjdump cuobjdump \
    "nvidia-cuda-cuobjdump==$version" "nvidia-cuda-nvdisasm==$version"
