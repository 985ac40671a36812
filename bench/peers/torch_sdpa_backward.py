"""The peers of the attention backward: FlashAttention-4's `flash_attn.cute` (its Hopper backward;
it needs the CuTe-DSL wheels, ../shared/tools/carry-wheels/) and
torch.nn.functional.scaled_dot_product_attention's backward with its cuDNN and flash backends, at
the sizes of the GPU suite's backward benchmark
(FlashAttention-3's): bf16, batch * seqlen = 16384 tokens, heads * head_dim = 2048, seqlen 1k, 4k
and 16k, head_dim 64 and 128, causal and not.

Q, K and V are (batch, seqlen, heads, head_dim) contiguous, as ours, passed to torch as their
(batch, heads, seqlen, head_dim) views; dO is random. Two timings:
- "call": CUDA events around one Python call (what an eager user sees), 3 warm-ups, median of 15:
  `torch.autograd.grad(out, (q, k, v), dO, retain_graph=True)` of one forward;
- "graph": ten backwards captured in one CUDA graph and replayed (kernel against kernel, the
  Python-side overhead left out; ../shared/tools/peers/attention.py's timer). FlashAttention-4's
  backward is captured as its own function (`flash_attn.cute.interface._flash_attn_bwd`, what its
  autograd calls) on its forward's O and log-sum-exp. SDPA's is captured as `autograd.grad` of a
  forward captured with it, less the forward captured alone, in a process of its own
  (`--sdpa-graph`: a refused capture can leave the context unusable); where torch refuses the
  capture, the error is printed instead.
TFLOP/s as FlashAttention counts the backward: 2.5 times the forward's 4 batch heads seqlen^2
head_dim, halved for causal.

Prints one JSON object per figure on stdout; progress and refusals on stderr.
"""
import json
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from torch_sdpa import median_ms


def t_ms(fn):
    """The median of 15 timed calls after 3 warm-ups (torch_sdpa.py's timer)."""
    return median_ms(fn, warmup=3, reps=15)


def t_graph_ms(fn, n=10):
    """Ten calls of `fn` captured in one CUDA graph, replayed: the median replay over ten."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(n):
            fn()
    return median_ms(g.replay, warmup=2, reps=10) / n


def main():
    sdpa_graph = "--sdpa-graph" in sys.argv[1:]
    try:
        from flash_attn.cute import flash_attn_func as fa4
    except Exception as e:  # the wheels are not there
        fa4 = None
        print(json.dumps(dict(peer="fa4", error=repr(e)[:300])), flush=True)
    if sdpa_graph:
        fa4 = None
    for d in (64, 128):
        for causal in (False, True):
            for seqlen in (1024, 4096, 16384):
                b, h = 16384 // seqlen, 2048 // d
                q, k, v = [torch.randn(b, seqlen, h, d, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3)]
                d_o = torch.randn(b, h, seqlen, d, device="cuda", dtype=torch.bfloat16)
                flop = 2.5 * 4 * b * h * seqlen * seqlen * d / (2 if causal else 1)
                row = dict(d=d, causal=causal, seqlen=seqlen, batch=b, heads=h)
                if fa4 is not None:
                    try:
                        out = fa4(q, k, v, causal=causal)
                        out = out[0] if isinstance(out, tuple) else out
                        g = d_o.transpose(1, 2).contiguous()
                        ms = t_ms(lambda: torch.autograd.grad(out, (q, k, v), g, retain_graph=True))
                        print(json.dumps(dict(peer="fa4", timing="call", ms=ms, tflops=flop / ms / 1e9, **row)), flush=True)
                        from flash_attn.cute.interface import _flash_attn_bwd, _flash_attn_fwd
                        with torch.no_grad():
                            o, lse = _flash_attn_fwd(q, k, v, causal=causal, return_lse=True)[:2]
                            ms = t_graph_ms(lambda: _flash_attn_bwd(q, k, v, o, g, lse, None, causal))
                        print(json.dumps(dict(peer="fa4", timing="graph", ms=ms, tflops=flop / ms / 1e9, **row)), flush=True)
                    except Exception as e:
                        print(json.dumps(dict(peer="fa4", error=repr(e)[:200], **row)), flush=True)
                for name, backend in (("sdpa-cudnn", SDPBackend.CUDNN_ATTENTION), ("sdpa-flash2", SDPBackend.FLASH_ATTENTION)):
                    try:
                        with sdpa_kernel(backend):
                            out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=causal)
                            grad = lambda: torch.autograd.grad(out, (q, k, v), d_o, retain_graph=True)
                            try:
                                if not sdpa_graph:
                                    ms = t_ms(grad)
                                    print(json.dumps(dict(peer=name, timing="call", ms=ms, tflops=flop / ms / 1e9, **row)), flush=True)
                            except Exception as e:
                                print(json.dumps(dict(peer=name, timing="call", error=repr(e)[:200], **row)), flush=True)
                            if not sdpa_graph:
                                continue
                            qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
                            both = lambda: torch.autograd.grad(F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal), (q, k, v), d_o)
                            try:
                                with torch.no_grad():
                                    fwd = t_graph_ms(lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal))
                                ms = t_graph_ms(both) - fwd
                                print(json.dumps(dict(peer=name, timing="graph", ms=ms, tflops=flop / ms / 1e9, **row)), flush=True)
                            except Exception as e:
                                print(json.dumps(dict(peer=name, timing="graph", error=repr(e)[:200], **row)), flush=True)
                    except Exception as e:
                        print(json.dumps(dict(peer=name, error=repr(e)[:200], **row)), flush=True)
                del q, k, v, d_o
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
