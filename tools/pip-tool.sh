#!/usr/bin/env bash
# Installs NVIDIA command-line tools shipped in PyPI wheels into `.tools/<dir>/` at the repository
# root (ignored by git) and prints the absolute path of one of their binaries on stdout (only that;
# progress goes to stderr). Shared by tools/install-ptxas.sh and tools/install-cuobjdump.sh.
#
# Usage: pip-tool.sh DIR BINARY WHEEL==VERSION [WHEEL==VERSION ...]
# Idempotent: a stamp naming the wheels marks a complete install; a second run does nothing.
# Environment: PYTHON, the interpreter whose pip is used (default python3).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name="$1" binary="$2"
shift 2
dir="$root/.tools/$name"
stamp="$dir/.installed-$(echo "$*" | tr ' =' '_-')"
python="${PYTHON:-python3}"

find_binary() {
    find "$dir" -type f -name "$binary" -path "*/bin/$binary" 2>/dev/null | sort | head -n 1
}

if [[ -f "$stamp" ]]; then
    path="$(find_binary)"
    if [[ -n "$path" && -x "$path" ]]; then
        echo "$path"
        exit 0
    fi
fi

echo "pip-tool: installing $* into $dir" >&2
if ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "pip-tool: error: '$python -m pip' is not available (set PYTHON to an interpreter with pip)" >&2
    exit 1
fi
# Install into a fresh temporary directory, then move it into place: an interrupted run leaves no
# half-installed tree behind that a later run would take for a complete one.
mkdir -p "$root/.tools"
tmp="$(mktemp -d "$root/.tools/.$name-tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
PIP_ROOT_USER_ACTION=ignore "$python" -m pip install --quiet --disable-pip-version-check --no-input \
    --no-deps --target "$tmp" "$@" >&2
touch "$tmp/$(basename "$stamp")"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT

path="$(find_binary)"
if [[ -z "$path" ]]; then
    echo "pip-tool: error: $* installed, but no bin/$binary found under $dir" >&2
    exit 1
fi
chmod +x "$path"
echo "$path"
