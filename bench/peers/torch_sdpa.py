"""The peer of the fused attention forward: torch.nn.functional.scaled_dot_product_attention with
each backend torch offers on the machine (flash, cuDNN, efficient), at the sizes of the GPU suite's
attention benchmark (FlashAttention-3's): bf16, batch * seqlen = 16384 tokens, heads * head_dim =
2048, seqlen 512 to 16384, head_dim 64 and 128, causal and not; head_dim 256 at seqlen 1024, 4096
and 16384.

Q, K and V are allocated (batch, seqlen, heads, head_dim) contiguous, as ours, and passed to torch
as their (batch, heads, seqlen, head_dim) views. Each backend's output is compared with the first
backend's once per size (a backend that fails or refuses the size is reported, not timed). Timing:
CUDA events around each call, 5 warm-up calls, the median of 30 (no L2 flush: the kernels are
compute-bound and reread their tiles). FLOPs as FlashAttention counts them: 4 batch heads
seqlen^2 head_dim, halved for causal.

Options: `--head-dims 64,128` and `--backends cudnn,flash` keep those head dimensions and
backends only (all by default), so that shorter readings can alternate with ours in one session.

Prints JSON on stdout: {"device": ..., "torch": ..., "figures": [{"what", "backend", "ms",
"value", "unit", "config"}, ...]}; progress on stderr.
"""
import argparse
import json
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = [
    ("flash", SDPBackend.FLASH_ATTENTION),
    ("cudnn", getattr(SDPBackend, "CUDNN_ATTENTION", None)),
    ("efficient", SDPBackend.EFFICIENT_ATTENTION),
]
BACKEND_LABELS = [label for label, _ in BACKENDS]


def median_ms(fn, warmup=5, reps=30):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def main():
    parser = argparse.ArgumentParser(description="torch SDPA at the sizes of the GPU suite's attention benchmark")
    parser.add_argument("--head-dims", default="64,128,256", help="comma-separated head dimensions to run")
    parser.add_argument("--backends", default=",".join(BACKEND_LABELS), help="comma-separated backends to run")
    args = parser.parse_args()
    head_dims = [int(d) for d in args.head_dims.split(",")]
    if any(d not in (64, 128, 256) for d in head_dims):
        parser.error(f"--head-dims: the benchmark's head dimensions are 64, 128 and 256 (here {args.head_dims})")
    labels = args.backends.split(",")
    if any(label not in BACKEND_LABELS for label in labels):
        parser.error(f"--backends: the backends are {', '.join(BACKEND_LABELS)} (here {args.backends})")
    backends = [(label, backend) for label, backend in BACKENDS if label in labels]
    figures = []
    for d in (64, 128, 256):
        if d not in head_dims:
            continue
        for causal in (False, True):
            for seqlen in ((1024, 4096, 16384) if d == 256 else (512, 1024, 2048, 4096, 8192, 16384)):
                batch, heads = 16384 // seqlen, 2048 // d
                q, k, v = (torch.randn(batch, seqlen, heads, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2) for _ in range(3))
                flop = 4 * batch * heads * seqlen * seqlen * d / (2 if causal else 1)
                name = f"attention bf16 d{d} seqlen {seqlen} batch {batch} heads {heads}{' causal' if causal else ''}"
                first = None
                for label, backend in backends:
                    if backend is None:
                        print(f"{name}: {label}: not in this torch", file=sys.stderr)
                        continue
                    try:
                        with sdpa_kernel([backend]):
                            call = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                            out = call()
                            if first is None:
                                first = out
                            elif not torch.allclose(out.float(), first.float(), atol=2e-2, rtol=2e-2):
                                raise RuntimeError(f"differs from the first backend by {(out.float() - first.float()).abs().max().item()}")
                            ms = median_ms(call)
                    except Exception as e:  # a backend that refuses the size or fails
                        print(f"{name}: {label}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", file=sys.stderr)
                        continue
                    tflops = flop / (ms * 1e-3) / 1e12
                    print(f"{name}: {label} {ms * 1e3:.1f} us, {tflops:.1f} TFLOP/s", file=sys.stderr)
                    figures.append({"what": name, "backend": label, "ms": ms, "value": tflops, "unit": "TFLOP/s", "config": "sdpa, (b, h, s, d) views of (b, s, h, d)"})
                del q, k, v, first
                torch.cuda.empty_cache()
    print(json.dumps({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "figures": figures}))


if __name__ == "__main__":
    main()
