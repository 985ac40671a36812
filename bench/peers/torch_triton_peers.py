"""The torch and Triton peers of the suite's benchmarks (copy, transpose f32/bf16, sum, bf16 GEMM, f32 and
tf32 GEMM), timed
with CUDA events (3 warm-ups, median of 20) on the first GPU. Prints JSON on stdout:
{"device": ..., "figures": [{"what": ..., "value": ..., "unit": "TB/s" (GEMM: "TFLOP/s")}, ...]}.
Each peer's result is checked against torch's before it is timed."""
import json
import statistics
import sys

import torch
import triton
import triton.language as tl


def median_ms(f):
    for _ in range(3):
        f()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(20):
        a.record()
        f()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


@triton.jit
def transpose_kernel(x, y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    tile = tl.load(x + rm[:, None] * N + rn[None, :])
    tl.store(y + rn[:, None] * M + rm[None, :], tl.trans(tile))


def triton_transpose(x, y, bm, bn, warps):
    m, n = x.shape
    transpose_kernel[(m // bm, n // bn)](x, y, m, n, BM=bm, BN=bn, num_warps=warps)


def sgemm_figures():
    """f32 GEMM 4096^3 (cuBLAS through torch.matmul, f32 in and out), TFLOP/s: with TF32 off (FFMA
    sgemm, the peer of our FFMA kernel) and on (tensor cores, the peer of our tf32 kernel)."""
    n = 4096
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    c = torch.empty(n, n, device="cuda")
    figures = []
    saved = torch.backends.cuda.matmul.allow_tf32
    try:
        for tf32, what in [(False, "torch sgemm f32 4096^3"), (True, "torch sgemm tf32 4096^3")]:
            torch.backends.cuda.matmul.allow_tf32 = tf32
            ms = median_ms(lambda: torch.matmul(a, b, out=c))
            figures.append({"what": what, "value": 2 * n ** 3 / (ms * 1e-3) / 1e12, "unit": "TFLOP/s"})
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    return figures


def main():
    figures = []

    def fig(what, value):
        figures.append({"what": what, "value": value, "unit": "TB/s"})

    # Copy: torch's copy_ at each size of the sweep (bytes moved: read + write).
    for log in range(20, 29, 2):
        n = (1 << log) // 4
        src = torch.rand(n, device="cuda")
        dst = torch.empty_like(src)
        ms = median_ms(lambda: dst.copy_(src))
        fig(f"torch copy 2^{log} B", 2 * n * 4 / (ms * 1e-3) / 1e12)
    # Transpose 8192 x 8192: Triton (best of a few tile shapes) and torch.
    for dtype, name in [(torch.float32, "f32"), (torch.bfloat16, "bf16")]:
        x = torch.rand(8192, 8192, device="cuda").to(dtype)
        y = torch.empty(8192, 8192, device="cuda", dtype=dtype)
        ref = x.t().contiguous()
        best = None
        for bm, bn, warps in [(32, 32, 4), (64, 64, 4), (64, 64, 8), (128, 64, 8), (64, 128, 8), (128, 128, 8)]:
            y.zero_()
            triton_transpose(x, y, bm, bn, warps)
            if not torch.equal(y, ref):
                sys.exit(f"triton transpose {name} {bm}x{bn} is wrong")
            ms = median_ms(lambda: triton_transpose(x, y, bm, bn, warps))
            best = ms if best is None else min(best, ms)
        nbytes = 2 * x.numel() * x.element_size()
        fig(f"triton transpose {name} 8192x8192", nbytes / (best * 1e-3) / 1e12)
        ms = median_ms(lambda: y.copy_(x.t()))
        fig(f"torch transpose {name} 8192x8192", nbytes / (ms * 1e-3) / 1e12)
    # Sum of 2^26 floats.
    x = torch.rand(1 << 26, device="cuda")
    ms = median_ms(lambda: x.sum())
    fig("torch sum f32 2^28 B", x.numel() * 4 / (ms * 1e-3) / 1e12)
    gemm_peers(figures)
    figures.extend(sgemm_figures())
    json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "triton": triton.__version__, "figures": figures}, sys.stdout, indent=1)


def gemm_peers(figures):
    """cuBLAS through torch.matmul: bf16 in, f32 accumulation, bf16 out (TFLOP/s), at the sizes of
    the GEMM benches (M x N x K). Two storage orders of B: column-major (`a @ b.t()`, both operands
    K-major, like our Hopper kernels) and row-major (`a @ b`); the peer figure is cuBLAS's better
    one, each is also reported."""
    for m, n, k in [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 1024), (4096, 14336, 4096)]:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b_nk = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        b_kn = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        name = f"{m}^3" if m == n == k else f"{m}x{n}x{k}"
        best = 0.0
        for order, f in [("B col-major", lambda: torch.matmul(a, b_nk.t(), out=c)),
                         ("B row-major", lambda: torch.matmul(a, b_kn, out=c))]:
            tflops = 2 * m * n * k / (median_ms(f) * 1e-3) / 1e12
            figures.append({"what": f"torch gemm bf16 {name} ({order})", "value": tflops, "unit": "TFLOP/s"})
            best = max(best, tflops)
        figures.append({"what": f"torch gemm bf16 {name}", "value": best, "unit": "TFLOP/s"})
        del a, b_nk, b_kn, c


if __name__ == "__main__" and sys.argv[1:] == ["gemm"]:
    # Only the GEMM peers (a quick run next to `gpu_suite --filter gemm`).
    figures = []
    gemm_peers(figures)
    figures.extend(sgemm_figures())
    json.dump({"device": torch.cuda.get_device_name(0), "figures": figures}, sys.stdout, indent=1)
elif __name__ == "__main__":
    main()
