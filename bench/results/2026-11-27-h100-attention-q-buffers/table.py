"""Builds table.md from this folder's JSON files: python3 table.py > table.md"""
import json, os, statistics as st

here = os.path.dirname(os.path.abspath(__file__))

def figures(path):
    out = {}
    for b in json.load(open(os.path.join(here, path)))["benchmarks"]:
        for f in b.get("figures", []):
            out[f["what"]] = f["value"]
    return out

def runs(folder, prefix):
    names = sorted(n for n in os.listdir(os.path.join(here, folder)) if n.startswith(prefix) and n[len(prefix):-5].isdigit())
    return [figures(os.path.join(folder, n)) for n in names]

old, new = runs("ab-q-buffers", "old"), runs("ab-q-buffers", "new")
base, nopersist = runs("launch-rules", "base"), runs("launch-rules", "nopersist")
final = figures("final/final1.json")
# The torch reading of the A/B's second call (its JSON did not come back from the device: the
# device returns at most 8 files), as its table printed it: the fastest backend (cuDNN).
torch_a = dict(zip(
    [f"d{d} seqlen {s} batch {16384 // s} heads {2048 // d}{c}" for d, c in [(64, ""), (64, " causal"), (128, ""), (128, " causal")] for s in (512, 1024, 2048, 4096, 8192, 16384)]
    + [f"d256 seqlen {s} batch {16384 // s} heads 8{c}" for c in ("", " causal") for s in (1024, 4096, 16384)],
    [346, 421, 454, 471, 468, 472, 212, 307, 373, 420, 448, 450, 477, 568, 622, 643, 640, 658, 225, 398, 465, 542, 596, 610, 566, 699, 699, 410, 586, 643]))
torch_b = {}
for f in json.load(open(os.path.join(here, "final/torch1.json")))["figures"]:
    if f.get("value"):
        torch_b[f["what"]] = max(torch_b.get(f["what"], 0), f["value"])

def med(rs, key):
    vals = [r[key] for r in rs if key in r]
    return st.median(vals) if vals else None

print("| size | Q buffers: old / new (medians) | new / old | launch rule: persistent / one block per tile (medians) | final build | torch A (cuDNN) | final / A | torch B (cuDNN) | final / B | call to completion, final (us) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for key in final:
    if not key.endswith(": ours"):
        continue
    row = key[: -len(": ours")].replace("attention bf16 ", "")
    o, n, b, np_, f = med(old, key), med(new, key), med(base, key), med(nopersist, key), final[key]
    ta, tb = torch_a[row], torch_b["attention bf16 " + row]
    call = final[key[: -len(": ours")] + ": ours, call to completion"]
    print(f"| {row} | {o:.0f} / {n:.0f} | {n / o:.3f} | {b:.0f} / {np_:.0f} | {f:.0f} | {ta} | {f / ta:.2f} | {tb:.0f} | {f / tb:.2f} | {call:.0f} |")
