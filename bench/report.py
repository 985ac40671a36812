"""The benchmark report: our suite's figures (gpu_suite --json) next to the peers' measured in the
same run on the same GPU (torch_triton_peers.py, cub_peers), as a table with ratios and the issue's
targets, a JSON file and an SVG plot of copy bandwidth against size.
  python3 report.py OURS.json PEERS.json CUB.json OUTDIR"""
import json
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"warning: {path}: {e}")
        return {}


def main():
    ours_doc, peers_doc, cub_doc, out = load(sys.argv[1]), load(sys.argv[2]), load(sys.argv[3]), sys.argv[4]
    ours = {}
    for b in ours_doc.get("benchmarks", []):
        for f in b.get("figures", []):
            ours[(b["name"], f["what"])] = f["value"]
        if b.get("figures"):
            ours[(b["name"], None)] = b["figures"][0]["value"]
    peers = {f["what"]: f["value"] for doc in (peers_doc, cub_doc) for f in doc.get("figures", [])}

    def our(bench, what=None):
        return ours.get((bench, what))

    rows = []

    def row(subject, mine, peer_name, peer, target):
        ratio = mine / peer if mine and peer else None
        ok = None if ratio is None or target is None else ratio >= target
        rows.append({"subject": subject, "ours": mine, "peer": peer_name, "peer_value": peer, "ratio": ratio,
                     "target": target, "met": ok})

    row("copy 2^28 B (LayoutTensor tiled, vectorized)", our("tensor/copy 8192x8192 f32 (LayoutTensor)"),
        "torch copy_", peers.get("torch copy 2^28 B"), 1.00)
    row("copy 2^28 B (LayoutTensor)", our("tensor/copy 8192x8192 f32 (LayoutTensor)"),
        "cudaMemcpy DtoD", peers.get("cudaMemcpy DtoD"), 0.95)
    for log in range(20, 29, 2):
        row(f"copy 2^{log} B (layout-algebra tiled copy)", our("copy/sweep 2^20..2^28 B", f"tiled_copy_f32x4 2^{log} B"),
            "torch copy_", peers.get(f"torch copy 2^{log} B"), None)
    row("transpose f32 8192^2", our("demo/transpose 8192x8192 f32"), "triton",
        peers.get("triton transpose f32 8192x8192"), 1.00)
    row("transpose f32 8192^2", our("demo/transpose 8192x8192 f32"), "torch",
        peers.get("torch transpose f32 8192x8192"), None)
    row("transpose bf16 8192^2", our("transpose/bf16 8192x8192"), "triton",
        peers.get("triton transpose bf16 8192x8192"), 1.00)
    row("transpose bf16 8192^2", our("transpose/bf16 8192x8192"), "torch",
        peers.get("torch transpose bf16 8192x8192"), None)
    memcpy = peers.get("cudaMemcpy DtoD")
    for method, cub_target, memcpy_target in [("direct", 0.95, None), ("striped", 0.95, None),
                                              ("vectorize", 1.00, 0.95), ("transpose", 1.00, 0.95),
                                              ("warp_transpose", 1.00, 0.95),
                                              ("warp_transpose_timesliced", None, None)]:
        mine = our(f"block_io/{method} 2^28 B")
        row(f"block_io {method} round trip 2^28 B", mine, f"cub {method}", peers.get(f"cub {method}"), cub_target)
        row(f"block_io {method} round trip 2^28 B", mine, "cudaMemcpy DtoD", memcpy, memcpy_target)
    mine = our("reduce/block_reduce_sum f32 2^28 B")
    row("block reduce sum f32 2^28 B", mine, "cub BlockReduce", peers.get("cub block_reduce_sum_f32"), 1.00)
    row("block reduce sum f32 2^28 B", mine, "torch sum", peers.get("torch sum f32 2^28 B"), None)

    # GEMM (TFLOP/s, not TB/s): the acceptance is 0.90x cuBLAS (torch.matmul, bf16 out, the
    # better of its two B storage orders). The Hopper kernels in the order of the steps; the
    # last is what `Gemm::run_sm90` launches for bf16 D.
    row("gemm bf16 4096^3 TFLOP/s (mma.sync, bf16 out)", our("gemm/bf16 4096^3 (mma.sync)", "mma.sync bf16 -> bf16, A, B row-major"),
        "torch matmul", peers.get("torch gemm bf16 4096^3"), None)
    steps = [("128x128, 1 WG, f32 out", "128x128"), ("128x256, 2 WGs, f32 out", "128x256"),
             ("warp-specialized, f32 out", "ws 128x256"), ("persistent, f32 out", "persistent"),
             ("persistent, bf16 out", "persistent bf16-out"), ("cluster 2, f32 out", "cluster2"),
             ("cluster 2, bf16 out", "cluster2 bf16-out"), ("cluster 2, TMA-store epilogue", "cluster2 bf16-out tma-store"),
             ("persistent, TMA-store epilogue", "persistent bf16-out tma-store")]
    for size in ("4096", "8192"):
        for i, (kernel, label) in enumerate(steps):
            final = i == len(steps) - 1
            row(f"gemm bf16 {size}^3 TFLOP/s (wgmma {kernel})", our(f"gemm_sm90/{label} bf16 {size}x{size}x{size}"),
                "torch matmul", peers.get(f"torch gemm bf16 {size}^3"), 0.90 if final else None)
    for shape in ("8192x8192x1024", "4096x14336x4096"):
        for kernel, label in steps[-2:]:
            row(f"gemm bf16 {shape} TFLOP/s (wgmma {kernel})", our(f"gemm_sm90/{label} bf16 {shape}"),
                "torch matmul", peers.get(f"torch gemm bf16 {shape}"), None)
    # cuBLAS timed inside gpu_suite (cublasGemmEx on the same buffers, interleaved round by round
    # with our kernel): the ratio is the suite's, the median of the rounds' speed ratios.
    for b in ours_doc.get("benchmarks", []):
        figs = b.get("figures", [])
        if b["name"].startswith("gemm_sm90/vs cublas ") and len(figs) >= 3:
            rows.append({"subject": f"gemm {b['name'][len('gemm_sm90/vs cublas '):]} TFLOP/s", "ours": figs[0]["value"],
                         "peer": "cuBLAS in-process", "peer_value": figs[1]["value"], "ratio": figs[2]["value"],
                         "target": None, "met": None})
    # f32 GEMM: FFMA against cuBLAS sgemm (torch.matmul, TF32 off; acceptance 0.80x), and the tf32
    # tensor-core kernel against cuBLAS with TF32 on (no target).
    row("sgemm f32 4096^3 TFLOP/s (FFMA)", our("sgemm/f32 4096^3 (ffma)", "FFMA, A, B row-major"),
        "torch sgemm", peers.get("torch sgemm f32 4096^3"), 0.80)
    row("sgemm tf32 4096^3 TFLOP/s (mma.sync)", our("sgemm/tf32 4096^3", "tf32 mma.sync, A, B row-major"),
        "torch tf32", peers.get("torch sgemm tf32 4096^3"), None)
    row("sgemm tf32 4096^3 TFLOP/s (wgmma, Hopper path)", our("gemm_sm90/tf32 4096x4096x4096 (wgmma)"),
        "torch tf32", peers.get("torch sgemm tf32 4096^3"), None)

    device = ours_doc.get("device") or peers_doc.get("device") or cub_doc.get("device")
    print(f"\nbenchmarks on {device} (TB/s unless the subject says; ratio = ours / peer)")
    print(f"{'subject':<62} {'ours':>7} {'peer':<18} {'peer':>7} {'ratio':>6} {'target':>7}")
    fmt = lambda v, p=3: "-" if v is None else f"{v:.{p}f}"
    for r in rows:
        met = "" if r["met"] is None else ("  met" if r["met"] else "  MISSED")
        print(f"{r['subject']:<62} {fmt(r['ours']):>7} {r['peer']:<18} {fmt(r['peer_value']):>7} "
              f"{fmt(r['ratio'], 2):>6} {fmt(r['target'], 2):>7}{met}")
    with open(f"{out}/bench.json", "w") as f:
        json.dump({"device": device, "peers": {k: peers_doc.get(k) for k in ("torch", "triton")}, "rows": rows}, f,
                  indent=1)
    plot(out, device, ours, peers)


def plot(out, device, ours, peers):
    """Copy bandwidth against size: ours, memcpy, torch."""
    logs = list(range(20, 29, 2))
    series = [
        ("tiled copy (ours)", "#1f77b4", [ours.get(("copy/sweep 2^20..2^28 B", f"tiled_copy_f32x4 2^{k} B")) for k in logs]),
        ("memcpy DtoD", "#7f7f7f", [ours.get(("copy/sweep 2^20..2^28 B", f"memcpy 2^{k} B")) for k in logs]),
        ("torch copy_", "#d62728", [peers.get(f"torch copy 2^{k} B") for k in logs]),
    ]
    top = max([v for _, _, vs in series for v in vs if v] or [1.0]) * 1.1
    w, h, l, b = 640, 400, 60, 50
    x = lambda k: l + (k - 20) / 8 * (w - l - 20)
    y = lambda v: h - b - v / top * (h - b - 30)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<text x="{w/2}" y="18" text-anchor="middle">copy bandwidth against size ({device})</text>',
           f'<line x1="{l}" y1="{h-b}" x2="{w-20}" y2="{h-b}" stroke="black"/>',
           f'<line x1="{l}" y1="{h-b}" x2="{l}" y2="20" stroke="black"/>',
           f'<text x="{w/2}" y="{h-10}" text-anchor="middle">array size (bytes)</text>',
           f'<text x="14" y="{h/2}" transform="rotate(-90 14 {h/2})" text-anchor="middle">TB/s (read + write)</text>']
    for k in logs:
        svg.append(f'<text x="{x(k)}" y="{h-b+16}" text-anchor="middle">2^{k}</text>')
    for i in range(5):
        v = top * i / 4
        svg.append(f'<text x="{l-6}" y="{y(v)+4}" text-anchor="end">{v:.2f}</text>')
    for n, (name, color, vs) in enumerate(series):
        pts = [(x(k), y(v)) for k, v in zip(logs, vs) if v]
        if pts:
            svg.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="'
                       + " ".join(f"{a:.1f},{c:.1f}" for a, c in pts) + '"/>')
        svg.append(f'<text x="{l+10}" y="{40+16*n}" fill="{color}">{name}</text>')
    svg.append("</svg>")
    with open(f"{out}/copy_bandwidth.svg", "w") as f:
        f.write("\n".join(svg))


if __name__ == "__main__":
    main()
