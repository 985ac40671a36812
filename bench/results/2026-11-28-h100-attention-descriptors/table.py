"""Medians of the attention benchmark's JSON files in a directory: `table.py DIR BASE VARIANT...`
prints one row per size with each variant's readings (files VARIANT1.json, VARIANT2.json, ...),
each variant's median over BASE's, and the fastest torch backend (torch1.json) when present."""
import json, os, statistics as st, sys

out, base, variants = sys.argv[1], sys.argv[2], sys.argv[3:]

def load(path):
    r = {}
    for b in json.load(open(path))["benchmarks"]:
        for f in b.get("figures", []):
            if f["what"].endswith(": ours"):
                r[f["what"][len("attention bf16 "):-len(": ours")]] = f["value"]
    return r

runs = {v: [load(os.path.join(out, f"{v}{i}.json")) for i in range(1, 9) if os.path.exists(os.path.join(out, f"{v}{i}.json"))] for v in variants}
torch = {}
if os.path.exists(os.path.join(out, "torch1.json")):
    for f in json.load(open(os.path.join(out, "torch1.json")))["figures"]:
        if f.get("value"):
            k = f["what"][len("attention bf16 "):]
            torch[k] = max(torch.get(k, 0), f["value"])
others = [v for v in variants if v != base]
print("| size | " + " | ".join(variants) + " | " + " | ".join(f"{v}/{base}" for v in others) + " | best torch |")
print("|---|" + "---|" * (len(variants) + len(others) + 1))
for row in runs[base][0]:
    med = {v: st.median([r[row] for r in runs[v] if row in r]) for v in variants if runs[v]}
    cells = [" / ".join(f"{r[row]:.0f}" for r in runs[v] if row in r) for v in variants]
    ratios = [f"{med[v] / med[base]:.3f}" for v in others]
    print(f"| {row} | " + " | ".join(cells) + " | " + " | ".join(ratios) + f" | {torch[row]:.0f} |" if row in torch else f"| {row} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " | - |")
