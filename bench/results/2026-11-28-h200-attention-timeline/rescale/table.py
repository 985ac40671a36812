"""Medians of the attention benchmark's JSON files in a directory: `table.py DIR BASE VARIANT...`
prints one row per size with each variant's readings (files VARIANT1.json, VARIANT2.json, ...),
each variant's median over BASE's, the median over the torch readings (torch1.json, torch2.json,
... taken between ours) of the fastest backend, and each variant's median over that."""
import json, os, statistics as st, sys

out, base, variants = sys.argv[1], sys.argv[2], sys.argv[3:]

def load(path):
    r = {}
    for b in json.load(open(path))["benchmarks"]:
        for f in b.get("figures", []):
            if f["what"].endswith(": ours"):
                r[f["what"][len("attention bf16 "):-len(": ours")]] = f["value"]
    return r

def files(prefix):
    return [os.path.join(out, f"{prefix}{i}.json") for i in range(1, 13) if os.path.exists(os.path.join(out, f"{prefix}{i}.json"))]

runs = {v: [load(f) for f in files(v)] for v in variants}
torch = {}
for path in files("torch"):
    best = {}
    for f in json.load(open(path))["figures"]:
        if f.get("value"):
            k = f["what"][len("attention bf16 "):]
            best[k] = (max(best.get(k, (0, ""))[0], f["value"]), f["backend"] if f["value"] > best.get(k, (0, ""))[0] else best[k][1])
    for k, v in best.items():
        torch.setdefault(k, []).append(v)
others = [v for v in variants if v != base]
print("| size | " + " | ".join(variants) + " | " + " | ".join(f"{v}/{base}" for v in others) + " | torch | " + " | ".join(f"{v}/torch" for v in variants) + " |")
print("|---|" + "---|" * (2 * len(variants) + len(others) + 1))
for row in runs[base][0]:
    med = {v: st.median([r[row] for r in runs[v] if row in r]) for v in variants if runs[v]}
    cells = [" / ".join(f"{r[row]:.0f}" for r in runs[v] if row in r) for v in variants]
    ratios = [f"{med[v] / med[base]:.3f}" for v in others]
    if row in torch:
        t = st.median([x for x, _ in torch[row]])
        tcell = " / ".join(f"{x:.0f}" for x, _ in torch[row]) + f" ({torch[row][0][1]})"
        tr = [f"{med[v] / t:.3f}" for v in variants]
    else:
        tcell, tr = "-", ["-" for _ in variants]
    print(f"| {row} | " + " | ".join(cells) + " | " + " | ".join(ratios) + f" | {tcell} | " + " | ".join(tr) + " |")
