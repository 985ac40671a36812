#!/usr/bin/env bash
# Builds the self-contained GPU bundle in ./gpu-bundle (git-ignored): the GPU suite runner, the
# demo, the example projects' binaries (examples/*) and run.sh (the binaries embed their modules). Copy the folder
# to a machine with an NVIDIA GPU and a driver (no Rust needed there) and run `bash gpu-bundle/run.sh`: it prints a
# table (passed/failed per check, figures per benchmark) and writes gpu-bundle/out/results.json
# (or "$OUT"/results.json when OUT is set).
#   bash tools/gpu-bundle.sh            build the bundle
#   SANITIZE=1 bash gpu-bundle/run.sh   also run the checks under compute-sanitizer
#   SUITE_ARGS="--filter attention" bash gpu-bundle/run.sh   the suite runner's arguments (a subset)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The operations embed their prebuilt modules (ops/prebuilt/, with cubins); with ptxas the demo
# and the example projects, built as a user builds them, get cubins too, so the GPU compiles
# nothing at run time.
ptxas="$(bash tools/install-ptxas.sh 2>/dev/null || true)"
PTXAS="$ptxas" cargo build --release -p cute-rs-suite --bin gpu_suite --bin cold_start --bin print_check
PTXAS="$ptxas" cargo build --release -p cute-rs --bin demo
examples=()
for example in examples/*/; do
    name="$(basename "$example")"
    (cd "$example" && PTXAS="$ptxas" CARGO_TARGET_DIR="$PWD/../../target/examples" cargo build --release)
    examples+=("target/examples/release/$name")
done
rm -rf gpu-bundle && mkdir -p gpu-bundle/examples
cp target/release/gpu_suite target/release/demo target/release/cold_start target/release/print_check gpu-bundle/
cp "${examples[@]}" gpu-bundle/examples/
cp -r bench/peers bench/report.py gpu-bundle/
cat > gpu-bundle/run.sh <<'RUN'
#!/usr/bin/env bash
# Runs the whole GPU suite: checks, benchmarks, demo; optionally compute-sanitizer (SANITIZE=1).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${OUT:-$here/out}"
mkdir -p "$out"
status=0
# cuBLAS, the in-process peer of the Hopper GEMM (gemm_sm90/vs cublas ...), is opened at run time
# by name. When libcublas.so.13 is neither in the loader cache nor on LD_LIBRARY_PATH, add the
# folders where CUDA 13 and its Python wheel (nvidia-cublas, under nvidia/cu13/lib) put it.
cublas_in() { [ -n "$1" ] && [ -e "$1/libcublas.so.13" ]; }
cublas_found() {
  { ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | grep -q 'libcublas\.so\.13 ' && return 0
  local dir dirs
  IFS=: read -ra dirs <<< "${LD_LIBRARY_PATH:-}"
  for dir in "${dirs[@]}"; do cublas_in "$dir" && return 0; done
  return 1
}
if ! cublas_found; then
  wheel="$(python3 -c 'import nvidia.cu13, os; print(os.path.join(list(nvidia.cu13.__path__)[0], "lib"))' 2>/dev/null || true)"
  for dir in /usr/local/cuda/lib64 /usr/local/cuda-13.0/targets/x86_64-linux/lib "$wheel"; do
    if cublas_in "$dir"; then
      export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$dir"
      echo "cuBLAS: using $dir/libcublas.so.13"
      break
    fi
  done
  cublas_found || echo "cuBLAS: libcublas.so.13 not found (set LD_LIBRARY_PATH): the cuBLAS comparisons will fail"
fi
# The first GEMM of a fresh process with a cold driver cache: from the cubin, then from the PTX.
CUDA_CACHE_DISABLE=1 "$here/cold_start" | tee "$out/cold_start.txt" || status=1
CUDA_CACHE_DISABLE=1 CUTE_JIT=1 "$here/cold_start" | tee -a "$out/cold_start.txt" || status=1
# Printing and a failed assertion in a kernel, each in its own process.
"$here/print_check" print > "$out/print.txt" 2>&1
"$here/print_check" assert > "$out/assert.txt" 2>&1
if grep -q "block 1: n = 64, first x = 97" "$out/print.txt" && grep -q "is not below 100" "$out/assert.txt" \
   && grep -q "CUDA_ERROR_ASSERT" "$out/assert.txt"; then
  echo "print/assert in kernels: ok"
else
  echo "print/assert in kernels: FAILED"; cat "$out/print.txt" "$out/assert.txt"; status=1
fi
"$here/demo" | tee "$out/demo.txt" || status=1
for example in "$here"/examples/*; do
  "$example" | tee -a "$out/examples.txt" || { echo "example $(basename "$example") FAILED"; status=1; }
done
"$here/gpu_suite" --json "$out/results.json" ${SUITE_ARGS:-} | tee "$out/suite.txt" || status=1
# The peers, in the same run on the same GPU: torch and Triton (Python), CUB (nvcc); then the
# report (table, bench.json, copy_bandwidth.svg). PEERS=0 skips them.
if [ "${PEERS:-1}" = 1 ]; then
  python3 "$here/peers/torch_triton_peers.py" > "$out/peers.json" 2> "$out/peers.err" \
    || { echo "torch/triton peers failed:"; tail -5 "$out/peers.err"; }
  # The attention peer: torch's scaled_dot_product_attention, each backend, at the sizes of the
  # suite's attention benchmark.
  python3 "$here/peers/torch_sdpa.py" > "$out/sdpa.json" 2> "$out/sdpa.err" \
    || { echo "torch SDPA peer failed:"; tail -5 "$out/sdpa.err"; }
  nvcc_bin="$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc 2>/dev/null | head -1)"
  if [ -n "$nvcc_bin" ] && "$nvcc_bin" -O3 -std=c++17 -arch=sm_90 "$here/peers/cub_peers.cu" -o "$out/cub_peers" 2> "$out/cub.err"; then
    "$out/cub_peers" > "$out/cub.json" 2>> "$out/cub.err" || { echo "CUB peers failed:"; tail -5 "$out/cub.err"; }
  else
    echo "nvcc not found or the CUB peers did not compile:"; tail -5 "$out/cub.err" 2>/dev/null
  fi
  python3 "$here/report.py" "$out/results.json" "$out/peers.json" "$out/cub.json" "$out" | tee "$out/report.txt"
fi
if [ "${SANITIZE:-0}" = 1 ]; then
  san="$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)"
  if [ -z "$san" ]; then
    echo "compute-sanitizer not found" | tee "$out/sanitizer.txt"; status=1
  else
    for tool in memcheck racecheck synccheck; do
      echo "== $tool" | tee -a "$out/sanitizer.txt"
      "$san" --tool "$tool" "$here/gpu_suite" --checks-only 2>&1 | tail -5 | tee -a "$out/sanitizer.txt" || status=1
    done
  fi
fi
exit $status
RUN
chmod +x gpu-bundle/run.sh
du -sh gpu-bundle
# The same, packed (a fraction of the size: the binaries embed the PTX and the host-compiled
# kernels), for transfers with a size limit; unpack with `tar xzf gpu-bundle.tgz`.
mkdir -p target/carry
tar czf target/carry/gpu-bundle.tgz gpu-bundle
du -sh target/carry/gpu-bundle.tgz
echo "bundle ready: copy gpu-bundle/ (or target/carry/gpu-bundle.tgz) to a GPU machine and run: bash gpu-bundle/run.sh"
