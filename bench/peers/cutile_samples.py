"""The cuTile peers of our kernels: cuTile Python's own sample kernels (NVIDIA/cutile-python
samples/VectorAddition.py, Transpose.py, LayerNorm.py, and TileGym's cutile softmax), rewritten
here with the samples' algorithms, tile sizes and launch grids, run on the first GPU at the sizes of
our GPU suite's benches. Each result is checked against torch before it is timed.

Two timings per case:
- "call": `triton.testing.do_bench` median, L2 flushed before each run (the timer of our Triton
  comparison, bench/peers/triton_tutorials.py), so Python's host overhead per `ct.launch` counts
  where it is longer than the kernel;
- "graph": ten (L2 flush, call) pairs captured in one CUDA graph and replayed, minus a graph of ten
  flushes alone, divided by ten (kernel against kernel; null when capture fails).

Prints JSON on stdout: {"device", "cuda_tile", "figures": [{"what", "unit", "bytes", "call_ms",
"graph_ms", "config"}, ...]}, progress on stderr. `--only SUBSTRING` runs the cases whose name
contains it.

Cases (the samples' configurations):
- vector add f32, 1-D `ct.load`/`ct.store`, TILE = min(1024, next_pow2(n)), grid cdiv(n, TILE);
- tiled copy f32 8192 x 8192, the 2-D addition sample's tiles (TILE_Y = min(1024, next_pow2(N)),
  TILE_X = max(1, 1024 // TILE_Y)) with `ct.load`/`ct.store` and no arithmetic;
- transpose bf16 8192 x 8192, the sample's 128 x 128 tiles for 2-byte types, `ct.transpose`;
- softmax f32 4096 x {1k, 4k, 16k}: TileGym's default kernel (persistent grid min(4 * SMs, rows),
  `occupancy=4`, one row a step by `ct.gather` padded with -inf, approximate exp and division) and
  its TMA kernel (`ct.load` of a (1, TILE) tile padded with NEG_INF, grid min(2 * SMs, rows),
  `occupancy=2`);
- layer norm forward f16 4096 x {1k, 4k, 8k}: the sample's three passes of TILE_N = 1024 over the
  row (mean, variance, normalize with weight and bias), grid = rows, writes Y, Mean and Rstd.
"""
import json
import math
import sys

import torch
import triton
import cuda.tile as ct

from triton_tutorials import bench_ms as call_ms

ConstInt = ct.Constant[int]


def next_pow2(n):
    return 1 << max(0, (n - 1).bit_length())


FLUSH = None


def graph_ms(fn, n=10, reps=20):
    """Per-call kernel time inside a CUDA graph of n (flush, call) pairs, less the flushes alone."""
    global FLUSH
    if FLUSH is None:
        FLUSH = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")

    def replay_ms(body):
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            body()  # warm-up outside capture (compiles the kernel)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(n):
                body()
        times = []
        for _ in range(reps):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record(); g.replay(); b.record(); b.synchronize()
            times.append(a.elapsed_time(b))
        times.sort()
        return times[len(times) // 2]

    try:
        both = replay_ms(lambda: (FLUSH.zero_(), fn()))
        flush = replay_ms(lambda: FLUSH.zero_())
        return max(0.0, (both - flush) / n)
    except Exception as e:  # a peer that cannot be captured gets no graph figure
        print(f"[cutile_samples] graph capture failed: {e!r}", file=sys.stderr)
        return None


def check(ok, what):
    if not ok:
        sys.exit(f"{what}: the cuTile result differs from torch's")


def stream():
    return torch.cuda.current_stream()


# ---------------------------------------------------------------- vector add (VectorAddition.py)
@ct.kernel
def add_1d(a, b, c, TILE: ConstInt):
    i = ct.bid(0)
    ct.store(c, index=(i,), tile=ct.load(a, index=(i,), shape=(TILE,)) + ct.load(b, index=(i,), shape=(TILE,)))


def vector_add(log_n):
    n = 1 << log_n
    a, b, c = torch.rand(n, device="cuda"), torch.rand(n, device="cuda"), torch.empty(n, device="cuda")
    tile = min(1024, next_pow2(n))
    grid = (math.ceil(n / tile), 1, 1)
    run = lambda: ct.launch(stream(), grid, add_1d, (a, b, c, tile))
    run(); check(torch.equal(c, a + b), "vector add")
    return run, 3 * n * 4, {"TILE": tile, "grid": grid[0]}


# ---------------------------------------------------------------- tiled copy (the 2-D addition's tiles)
@ct.kernel
def copy_2d(x, y, TILE_X: ConstInt, TILE_Y: ConstInt):
    i, j = ct.bid(0), ct.bid(1)
    ct.store(y, index=(i, j), tile=ct.load(x, index=(i, j), shape=(TILE_X, TILE_Y)))


def tiled_copy(m, n):
    x, y = torch.rand(m, n, device="cuda"), torch.empty(m, n, device="cuda")
    ty = min(1024, next_pow2(n)); tx = max(1, 1024 // ty)
    grid = (math.ceil(m / tx), math.ceil(n / ty), 1)
    run = lambda: ct.launch(stream(), grid, copy_2d, (x, y, tx, ty))
    run(); check(torch.equal(x, y), "tiled copy")
    return run, 2 * m * n * 4, {"TILE": [tx, ty], "grid": list(grid[:2])}


# ---------------------------------------------------------------- transpose (Transpose.py)
@ct.kernel
def transpose_2d(x, y, tm: ConstInt, tn: ConstInt):
    i, j = ct.bid(0), ct.bid(1)
    ct.store(y, index=(j, i), tile=ct.transpose(ct.load(x, index=(i, j), shape=(tm, tn))))


def transpose(m, n, dtype):
    x = torch.randn(m, n, device="cuda", dtype=dtype); y = torch.empty(n, m, device="cuda", dtype=dtype)
    tm, tn = (128, 128) if x.element_size() == 2 else (32, 32)
    grid = (math.ceil(m / tm), math.ceil(n / tn), 1)
    run = lambda: ct.launch(stream(), grid, transpose_2d, (x, y, tm, tn))
    run(); check(torch.equal(y, x.T), "transpose")
    return run, 2 * m * n * x.element_size(), {"tile": [tm, tn], "grid": list(grid[:2])}


# ---------------------------------------------------------------- softmax (TileGym's cutile softmax)
@ct.kernel(occupancy=4)
def softmax_gather(out, inp, N_ROWS: ConstInt, TILE: ConstInt):
    cols = ct.arange(TILE, dtype=ct.int32)
    for r in range(ct.bid(0), N_ROWS, ct.num_blocks(0)):
        row = ct.astype(ct.gather(inp, (r, cols), check_bounds=True, padding_value=-math.inf), ct.float32)
        num = ct.exp(row - ct.max(row, 0, keepdims=True), rounding_mode=ct.RoundingMode.APPROX)
        y = ct.truediv(num, ct.sum(num, 0, keepdims=True), rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)
        ct.scatter(out, (r, cols), ct.astype(y, inp.dtype), check_bounds=True)


@ct.kernel(occupancy=2)
def softmax_tma(out, inp, N_ROWS: ConstInt, TILE: ConstInt):
    for r in range(ct.bid(0), N_ROWS, ct.num_blocks(0)):
        row = ct.astype(ct.load(inp, index=(r, 0), shape=(1, TILE), padding_mode=ct.PaddingMode.NEG_INF), ct.float32)
        num = ct.exp(row - ct.max(row, 1, keepdims=True), rounding_mode=ct.RoundingMode.APPROX)
        y = ct.truediv(num, ct.sum(num, 1, keepdims=True), rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)
        ct.store(out, index=(r, 0), tile=ct.astype(y, inp.dtype))


def softmax(m, n, tma):
    x, y = torch.randn(m, n, device="cuda"), torch.empty(m, n, device="cuda")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    tile = next_pow2(n)
    progs = min(sms * (2 if tma else 4), m)
    kernel = softmax_tma if tma else softmax_gather
    run = lambda: ct.launch(stream(), (progs, 1, 1), kernel, (y, x, m, tile))
    run(); check(torch.allclose(y, torch.softmax(x, 1), atol=1e-6, rtol=1e-3), "softmax")
    return run, 2 * m * n * 4, {"TILE": tile, "grid": progs, "kernel": "tma" if tma else "gather"}


# ---------------------------------------------------------------- layer norm forward (LayerNorm.py)
@ct.kernel
def layer_norm_fwd(X, W, B, Y, Mean, Rstd, eps, TILE_N: ConstInt):
    r = ct.bid(0)
    tiles = ct.num_tiles(X, axis=1, shape=(1, TILE_N))
    n = X.shape[1]
    zero = ct.PaddingMode.ZERO
    acc = ct.full((1, TILE_N), 0, dtype=ct.float32)
    for j in range(tiles):
        acc += ct.load(X, index=(r, j), shape=(1, TILE_N), padding_mode=zero)
    mean = ct.sum(acc, axis=1) / n
    ct.store(Mean, index=(r,), tile=mean)
    acc = ct.full((1, TILE_N), 0, dtype=ct.float32)
    for j in range(tiles):
        x = ct.load(X, index=(r, j), shape=(1, TILE_N), padding_mode=zero)
        inside = (j * TILE_N + ct.arange(TILE_N, dtype=ct.int32)) < n
        d = ct.where(inside, x - mean, 0)
        acc += d * d
    rstd = 1 / ct.sqrt(ct.sum(acc, axis=1) / n + eps)
    ct.store(Rstd, index=(r,), tile=rstd)
    for j in range(tiles):
        x = ct.load(X, index=(r, j), shape=(1, TILE_N), padding_mode=zero)
        w = ct.load(W, index=(j,), shape=(TILE_N,), padding_mode=zero)
        b = ct.load(B, index=(j,), shape=(TILE_N,), padding_mode=zero)
        ct.store(Y, index=(r, j), tile=(((x - mean) * rstd) * w + b).astype(Y.dtype))


def layer_norm(m, n):
    eps = 1e-5
    x = -2.3 + 0.5 * torch.randn(m, n, device="cuda", dtype=torch.float16)
    w, b = torch.rand(n, device="cuda", dtype=torch.float16), torch.rand(n, device="cuda", dtype=torch.float16)
    y = torch.empty_like(x)
    mean, rstd = torch.empty(m, device="cuda"), torch.empty(m, device="cuda")
    run = lambda: ct.launch(stream(), (m,), layer_norm_fwd, (x, w, b, y, mean, rstd, eps, 1024))
    run()
    xf = x.float()
    check(torch.allclose(y, torch.nn.functional.layer_norm(x, (n,), w, b, eps), atol=1e-2, rtol=0)
          and torch.allclose(mean, xf.mean(1), atol=1e-4, rtol=1e-5)
          and torch.allclose(rstd, torch.rsqrt(xf.var(1, unbiased=False) + eps), rtol=1e-3), "layer norm")
    return run, 2 * m * n * 2, {"TILE_N": 1024, "grid": m, "bytes_counted": "x read + y written"}


CASES = [(f"vector add f32 n=2^{k}", lambda k=k: vector_add(k)) for k in (24, 26)]
CASES += [("tiled copy f32 8192x8192", lambda: tiled_copy(8192, 8192))]
CASES += [("transpose bf16 8192x8192", lambda: transpose(8192, 8192, torch.bfloat16))]
CASES += [(f"softmax f32 4096x{n} ({'tma' if t else 'gather'})", lambda n=n, t=t: softmax(4096, n, t))
          for n in (1024, 4096, 16384) for t in (False, True)]
CASES += [(f"layer norm fwd f16 4096x{n}", lambda n=n: layer_norm(4096, n)) for n in (1024, 4096, 8192)]


def main(argv):
    only = argv[argv.index("--only") + 1] if "--only" in argv else ""
    torch.manual_seed(0)
    figures = []
    for what, case in CASES:
        if only not in what:
            continue
        print(f"[cutile_samples] {what}", file=sys.stderr, flush=True)
        try:
            run, amount, cfg = case()
            fig = {"what": what, "unit": "GB/s", "bytes": amount, "config": cfg, "call_ms": call_ms(run),
                   "graph_ms": graph_ms(run)}
        except SystemExit:
            raise
        except Exception as e:  # report what failed and go on with the other cases
            fig = {"what": what, "error": repr(e)[:2000]}
        print(json.dumps(fig), file=sys.stderr, flush=True)
        figures.append(fig)
        torch.cuda.empty_cache()
    json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "cuda_tile": getattr(ct, "__version__", "?"), "figures": figures}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
