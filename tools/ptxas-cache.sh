# Sourced by tools/prebuilt-kernels.sh, check-ptx.sh and check-sass.sh: one ptxas run per module
# and architecture, whichever script asks first.
#
#   ptxas_cached <module.ptx> <arch>    prints the entry's directory, which holds
#                                       module.ptx   the PTX without its comments,
#                                       module.cubin `ptxas -arch=<arch> -v` of it,
#                                       report.txt   ptxas's -v report (registers, spills),
#                                       status       ptxas's exit status
#
# An entry is named by the SHA-256 of the PTX without its comments and the architecture, under
# $target_dir/ptxas/ (the caller sets target_dir and ptxas): the same PTX for the same architecture
# is assembled once. Comments never reach ptxas's output: LLVM's name basic blocks after mangled
# symbols whose crate hashes depend on where the checkout lies, and nothing else in the PTX does.
# `-v` adds the report, and a note of the options to the cubin (its SASS is what
# `ptxas -arch=<arch>` alone writes); cute-rs-build passes `-v` too, so that its cubins are these.

ptxas_cached() {
    local ptx="$1" arch="$2"
    local name stripped key dir
    name="$(basename "$ptx" .ptx)"
    mkdir -p "$target_dir/ptxas"
    stripped="$(mktemp "$target_dir/ptxas/.strip.XXXXXX")"
    sed -e 's@[[:space:]]*//.*$@@' "$ptx" > "$stripped"
    chmod 644 "$stripped"
    key="$(sha256sum "$stripped" | cut -c1-32)"
    dir="$target_dir/ptxas/$name-$arch-$key"
    if [[ ! -f "$dir/status" ]]; then
        rm -rf "$dir" && mkdir -p "$dir"
        mv "$stripped" "$dir/$name.ptx"
        local status=0
        "$ptxas" "-arch=$arch" -v -o "$dir/$name.cubin" "$dir/$name.ptx" > "$dir/report.txt" 2>&1 || status=$?
        # Written last: an entry without it (an interrupted run) is made again.
        echo "$status" > "$dir/status"
    else
        rm -f "$stripped"
    fi
    echo "$dir"
}
