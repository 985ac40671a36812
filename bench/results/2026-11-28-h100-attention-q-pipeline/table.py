import json, sys, os, statistics as st
out = sys.argv[1]
def load(name):
    p = os.path.join(out, name)
    if not os.path.exists(p): return None
    d = json.load(open(p)); r = {}
    for b in d["benchmarks"]:
        for f in b.get("figures", []): r[f["what"]] = f["value"]
    return r
variants = ["old", "new", "wide", "persist"]
runs = {v: [x for x in (load(f"{v}{i}.json") for i in range(1, 9)) if x] for v in variants}
torch = {}
tp = os.path.join(out, "torch1.json")
if os.path.exists(tp):
    try:
        for f in json.load(open(tp))["figures"]:
            if f.get("value"): torch[f["what"]] = max(torch.get(f["what"], 0), f["value"])
    except Exception as e: print("torch:", e)
rows = [k[:-len(": ours")] for k in (runs["old"][0] if runs["old"] else runs["new"][0]).keys() if k.endswith(": ours")] if (runs["old"] or runs["new"]) else []
print("| size | " + " | ".join(variants) + " | new/old | wide/old | persist/old | best torch |")
print("|---|" + "---|" * (len(variants) + 4))
for row in rows:
    med = {}
    cells = []
    for v in variants:
        vals = [r.get(row + ": ours") for r in runs[v] if r.get(row + ": ours")]
        med[v] = st.median(vals) if vals else None
        cells.append(" / ".join(f"{x:.0f}" for x in vals) or "-")
    rat = lambda v: f"{med[v]/med['old']:.3f}" if med.get(v) and med.get("old") else "-"
    t = torch.get(row)
    print(f"| {row.replace('attention bf16 ', '')} | " + " | ".join(cells) + f" | {rat('new')} | {rat('wide')} | {rat('persist')} | {t:.0f} |" if t else f"| {row.replace('attention bf16 ', '')} | " + " | ".join(cells) + f" | {rat('new')} | {rat('wide')} | {rat('persist')} | - |")
