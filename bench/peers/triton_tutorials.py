"""The Triton peers of our ports of Triton's official tutorial kernels (python/tutorials/01..05 of
triton-lang/triton), rewritten here with the tutorials' algorithms and launch configurations, run on
the first GPU at fixed sizes. Each result is checked against torch before it is timed with
`triton.testing.do_bench` (the tutorials' timer: 25 ms warm-up, 100 ms of repetitions, L2 flushed
before each one; we report the median). Prints JSON on stdout:
{"device": ..., "figures": [{"what", "ms", "value", "unit" ("GB/s" or "TFLOP/s"), "bytes" or "flop",
"config"}, ...]}, progress on stderr. `--only SUBSTRING` runs the cases whose name contains it.

Launch configurations (those of the tutorials):
- 01 vector add: BLOCK_SIZE=1024, grid cdiv(n, 1024), default num_warps (4).
- 02 fused softmax: BLOCK_SIZE=next_power_of_2(n_cols), num_warps=8, num_stages=4 if the device's
  max shared memory > 200000 B else 2 (the row loop's software pipelining); a persistent grid of
  min(n_rows, NUM_SM * occupancy) programs, occupancy computed from the compiled kernel's registers
  and shared memory exactly as the tutorial does (fallback: one program per row, noted in "config").
- 03 matmul: the tutorial's 16 CUDA autotune configs, key (M, N, K), GROUP_SIZE_M=8, A (M, K) and
  B (K, N) both row-major, f32 accumulation; the output in the input's type (the tutorial: fp16).
- 04 low-memory dropout: the seeded kernel (tl.rand(seed, offsets): Philox4x32-10), BLOCK_SIZE=1024,
  default num_warps (4), seed 123, p=0.5; the keep mask is checked against a torch Philox.
- 05 layer norm forward: BLOCK_SIZE=min(65536 // elem_size, next_power_of_2(N)),
  num_warps=min(max(BLOCK_SIZE // 256, 1), 8), one program per row, writes Y, Mean and Rstd.
"""
import inspect
import json
import sys

import torch
import triton
import triton.language as tl


def bench_ms(fn):
    """Median time of `fn` in ms with triton.testing.do_bench (return_mode or quantiles=[0.5])."""
    if "return_mode" in inspect.signature(triton.testing.do_bench).parameters:
        return float(triton.testing.do_bench(fn, return_mode="median"))
    ms = triton.testing.do_bench(fn, quantiles=[0.5])
    return float(ms[0] if isinstance(ms, (list, tuple)) else ms)


def check(ok, what):
    if not ok:
        sys.exit(f"{what}: the Triton result differs from torch's")


# ---------------------------------------------------------------- 01 vector add
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def vector_add(log_n):
    n = 1 << log_n
    x, y = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")

    def run():
        out = torch.empty_like(x)
        add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
        return out

    check(torch.equal(run(), x + y), "vector add")
    return bench_ms(run), 3 * n * 4, {"BLOCK_SIZE": 1024, "num_warps": 4, "grid": triton.cdiv(n, 1024)}


# ---------------------------------------------------------------- 02 fused softmax
@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    # Persistent: each program walks rows pid, pid + num_programs, ...; one row per block.
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=num_stages):
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
        num = tl.exp(x - tl.max(x, axis=0))
        tl.store(out_ptr + row * out_row_stride + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax_plan(x, y):
    """The tutorial's launch: BLOCK_SIZE, num_warps=8, num_stages from shared memory, and
    num_programs = min(n_rows, NUM_SM * occupancy) from the compiled kernel's registers/smem."""
    n_rows, n_cols = x.shape
    cfg = {"BLOCK_SIZE": triton.next_power_of_2(n_cols), "num_warps": 8}
    props = triton.runtime.driver.active.utils.get_device_properties(x.device.index or 0)
    cfg["num_stages"] = 4 if props["max_shared_mem"] > 200000 else 2
    try:
        k = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=cfg["BLOCK_SIZE"],
                                  num_stages=cfg["num_stages"], num_warps=8, grid=(1,))
        k._init_handles()
        occupancy = props["max_num_regs"] // (k.n_regs * props["warpSize"] * 8)
        if k.metadata.shared > 0:
            occupancy = min(occupancy, props["max_shared_mem"] // k.metadata.shared)
        cfg.update(n_regs=k.n_regs, shared=k.metadata.shared, occupancy=occupancy,
                   num_sm=props["multiprocessor_count"])
        cfg["grid"] = min(props["multiprocessor_count"] * occupancy, n_rows)
        if cfg["grid"] < 1:
            raise RuntimeError("zero occupancy")
        cfg["grid_rule"] = "persistent: min(n_rows, NUM_SM * occupancy) (tutorial)"
    except Exception as e:  # an older/newer Triton without this API: one program per row
        cfg["grid"], cfg["grid_rule"] = n_rows, f"one program per row (occupancy query failed: {e})"
    return cfg


def softmax(m, n):
    x = torch.randn(m, n, device="cuda")
    cfg = softmax_plan(x, torch.empty_like(x))

    def run():
        y = torch.empty_like(x)
        softmax_kernel[(cfg["grid"],)](y, x, x.stride(0), y.stride(0), m, n, BLOCK_SIZE=cfg["BLOCK_SIZE"],
                                       num_stages=cfg["num_stages"], num_warps=8)
        return y

    check(torch.allclose(run(), torch.softmax(x, dim=1), rtol=1e-4, atol=1e-6), "softmax")
    return bench_ms(run), 2 * m * n * 4, cfg


# ---------------------------------------------------------------- 03 matmul
def cuda_autotune_configs():
    """The tutorial's get_cuda_autotune_config(): (BM, BN, BK, num_stages, num_warps), GROUP_SIZE_M 8;
    the last eight are the tutorial's "good config for fp8 inputs" (kept: they are in its list)."""
    rows = [(128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
            (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2),
            (128, 256, 128, 3, 8), (256, 128, 128, 3, 8), (256, 64, 128, 4, 4), (64, 256, 128, 4, 4),
            (128, 128, 128, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (128, 32, 64, 4, 4)]
    return [triton.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8},
                          num_stages=s, num_warps=w) for bm, bn, bk, s, w in rows]


@triton.autotune(configs=cuda_autotune_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    """C = A @ B, one BLOCK_M x BLOCK_N tile of C per program, programs grouped GROUP_SIZE_M tile-rows
    at a time (column-major inside a group) for L2 reuse; f32 accumulator, stored in C's type."""
    pid = tl.program_id(0)
    num_pid_m, num_pid_n = tl.cdiv(M, BLOCK_SIZE_M), tl.cdiv(N, BLOCK_SIZE_N)
    group_width = GROUP_SIZE_M * num_pid_n
    first_pid_m = (pid // group_width) * GROUP_SIZE_M
    group_rows = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_width) % group_rows
    pid_n = (pid % group_width) // group_rows
    # Rows/cols wrap (% M, % N) so the loads need no M/N mask; K is masked.
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        acc = tl.dot(a, b, acc=acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn,
             acc.to(c_ptr.dtype.element_ty), mask=c_mask)


def config_dict(c):
    if c is None:
        return None
    d = dict(c.kwargs)
    for attr in ("num_warps", "num_stages", "num_ctas", "maxnreg"):
        if getattr(c, attr, None) is not None:
            d[attr] = getattr(c, attr)
    return d


def matmul(n, dtype):
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)

    def run():
        c = torch.empty(n, n, device="cuda", dtype=dtype)
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE_M"]) * triton.cdiv(n, meta["BLOCK_SIZE_N"]),)
        matmul_kernel[grid](a, b, c, n, n, n, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1))
        return c

    out = run()  # the first call for this (M, N, K, dtypes) autotunes
    best = getattr(matmul_kernel, "best_config", None)
    if best is None and getattr(matmul_kernel, "cache", None):  # older Triton: the key just tuned
        best = list(matmul_kernel.cache.values())[-1]
    tol = {torch.float16: (1e-2, 0.1), torch.bfloat16: (2e-2, 0.5)}[dtype]
    check(torch.allclose(out, torch.matmul(a, b), rtol=tol[0], atol=tol[1]), f"matmul {dtype}")
    cfg = {"autotuned_best": config_dict(best), "n_configs": len(cuda_autotune_configs()),
           "layout": "A (M,K) row-major, B (K,N) row-major, C (M,N) row-major"}
    return bench_ms(run), 2 * n ** 3, cfg


# ---------------------------------------------------------------- 04 low-memory dropout
@triton.jit
def seeded_dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p  # Philox4x32-10 on counter (offs, 0, 0, 0), key (seed lo, seed hi)
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


def _mul_hi_lo(a, x):
    """(hi, lo) 32-bit halves of a * x for a constant a < 2^32 and int64 tensor x in [0, 2^32),
    split into 16-bit halves so that nothing overflows int64."""
    h, l = a * (x >> 16), a * (x & 0xFFFF)
    return (h + (l >> 16)) >> 16, (((h & 0xFFFF) << 16) + l) & 0xFFFFFFFF


def philox_rand_ref(seed, n):
    """torch copy of tl.rand(seed, arange(n)): Philox4x32 with 10 rounds, counter (offset, 0, 0, 0),
    key (seed & 0xffffffff, seed >> 32), round multipliers 0xD2511F53 / 0xCD9E8D57, key increments
    0x9E3779B9 / 0xBB67AE85; output word 0 read as int32 x, then (x < 0 ? -x - 1 : x) * 4.6566127342e-10."""
    c0 = torch.arange(n, device="cuda", dtype=torch.int64)
    c1, c2, c3 = (torch.zeros_like(c0) for _ in range(3))
    k0, k1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
    for _ in range(10):
        hi_a, lo_a = _mul_hi_lo(0xD2511F53, c0)
        hi_b, lo_b = _mul_hi_lo(0xCD9E8D57, c2)
        c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
        k0, k1 = (k0 + 0x9E3779B9) & 0xFFFFFFFF, (k1 + 0xBB67AE85) & 0xFFFFFFFF
    x = torch.where(c0 >= 1 << 31, c0 - (1 << 32), c0)
    x = torch.where(x < 0, -x - 1, x)
    return x.to(torch.float32) * torch.tensor(4.6566127342e-10, dtype=torch.float32, device="cuda")


def dropout(log_n, p=0.5, seed=123):
    n = 1 << log_n
    x = torch.randn(n, device="cuda")

    def run():
        out = torch.empty_like(x)
        seeded_dropout_kernel[(triton.cdiv(n, 1024),)](x, out, n, p, seed, BLOCK_SIZE=1024)
        return out

    out = run()
    kept = out != 0
    keep_ref = philox_rand_ref(seed, n) > p
    mismatches = int((kept != keep_ref).logical_and(x != 0).sum())  # x == 0 gives 0 either way
    check(torch.allclose(out[kept], x[kept] / (1 - p), rtol=1e-6, atol=0), "dropout (kept values)")
    check(mismatches <= n // 10 ** 6, f"dropout ({mismatches} keep-mask bits differ from torch's Philox)")
    cfg = {"BLOCK_SIZE": 1024, "num_warps": 4, "grid": triton.cdiv(n, 1024), "p": p, "seed": seed,
           "rng": "tl.rand = Philox4x32-10", "keep_fraction": float(keep_ref.float().mean()),
           "mask_mismatches_vs_torch_philox": mismatches, "bytes_counted": "x read + out written (2 n * 4)"}
    return bench_ms(run), 2 * n * 4, cfg


# ---------------------------------------------------------------- 05 layer norm (forward)
@triton.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    """One program per row, three passes over it in BLOCK_SIZE chunks: mean, variance, normalize."""
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        d = tl.where(cols < N, tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32) - mean, 0.0)
        acc += d * d
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(Y + cols, (x - mean) * rstd * w + b, mask=mask)


def layer_norm(m, n, dtype=torch.float16, eps=1e-5):
    x = -2.3 + 0.5 * torch.randn(m, n, device="cuda", dtype=dtype)  # the tutorial's data
    w = torch.rand(n, device="cuda", dtype=dtype)
    b = torch.rand(n, device="cuda", dtype=dtype)
    block = min(65536 // x.element_size(), triton.next_power_of_2(n))
    warps = min(max(block // 256, 1), 8)

    def run():
        y = torch.empty_like(x)
        mean = torch.empty(m, device="cuda", dtype=torch.float32)
        rstd = torch.empty(m, device="cuda", dtype=torch.float32)
        layer_norm_fwd_kernel[(m,)](x, y, w, b, mean, rstd, x.stride(0), n, eps, BLOCK_SIZE=block, num_warps=warps)
        return y, mean, rstd

    y, mean, rstd = run()
    xf = x.float()
    check(torch.allclose(y, torch.nn.functional.layer_norm(x, (n,), w, b, eps), atol=1e-2, rtol=0)
          and torch.allclose(mean, xf.mean(1), atol=1e-4, rtol=1e-5)
          and torch.allclose(rstd, torch.rsqrt(xf.var(1, unbiased=False) + eps), rtol=1e-3), "layer norm")
    return bench_ms(run), 2 * m * n * x.element_size(), {"BLOCK_SIZE": block, "num_warps": warps, "grid": m,
                                                         "eps": eps, "bytes_counted": "x read + y written"}


# ---------------------------------------------------------------- driver
CASES = [(f"01-vector-add f32 n=2^{k}", "GB/s", lambda k=k: vector_add(k)) for k in (24, 26)]
CASES += [(f"02-fused-softmax f32 4096x{n}", "GB/s", lambda n=n: softmax(4096, n)) for n in (1024, 4096, 16384)]
CASES += [(f"03-matmul fp16 {n}^3", "TFLOP/s", lambda n=n: matmul(n, torch.float16)) for n in (2048, 4096)]
CASES += [("03-matmul bf16 4096^3", "TFLOP/s", lambda: matmul(4096, torch.bfloat16))]
CASES += [("04-low-memory-dropout f32 n=2^24 p=0.5", "GB/s", lambda: dropout(24))]
CASES += [(f"05-layer-norm fwd f16 4096x{n}", "GB/s", lambda n=n: layer_norm(4096, n)) for n in (1024, 4096, 8192)]


def main(argv):
    only = argv[argv.index("--only") + 1] if "--only" in argv else ""
    torch.manual_seed(0)
    figures = []
    for what, unit, case in CASES:
        if only not in what:
            continue
        print(f"[triton_tutorials] {what}", file=sys.stderr, flush=True)
        ms, amount, cfg = case()
        fig = {"what": what, "ms": ms, "unit": unit, "config": cfg}
        if unit == "GB/s":
            fig.update(value=amount * 1e-9 / (ms * 1e-3), bytes=amount)
        else:
            fig.update(value=amount * 1e-12 / (ms * 1e-3), flop=amount)
        figures.append(fig)
        torch.cuda.empty_cache()
    json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "triton": triton.__version__,
               "timer": "triton.testing.do_bench median (L2 flushed before each run)", "figures": figures},
              sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
