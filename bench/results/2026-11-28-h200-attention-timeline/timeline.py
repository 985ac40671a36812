"""Reads the clock stamps `trace.patch` writes (the log-sum-exp buffer of a head_dim 64 run, as u32
pairs `(event, %clock)`; 8192 words per role, roles producer / consumer 0 / consumer 1, blocks 0..16)
and prints, for each role, the cycles between consecutive events (median, mean, share of the
role's time), the steady key-block step, and how the two consumer warpgroups' phases overlap.

    python3 timeline.py trace-d64-1024.bin [...]

Events: 1 tile start, 2 Q landed, 10/11/12 the tile's first block (S issued, S ready, P made),
20..26 a steady step (turn wanted, turn taken, S issued, P V issued and turn handed over, S ready,
softmax done, P V done), 27 loop left, 30/31 the last P V issued / done, 3 the tile's O ready,
4 O stored; producer: 50/51 Q's buffer wanted / free, 52/53 K's stage wanted / free, 54 V's free.
"""
import statistics as st
import struct
import sys
from collections import Counter, defaultdict

WORDS, BLOCKS, ROLES = 8192, 16, 3
NAMES = {
    (20, 21): "turn wait", (21, 22): "K wait + QK^T issue", (22, 23): "V wait + PV issue + hand over",
    (23, 24): "wait for S", (24, 25): "mask + softmax", (25, 26): "wait for PV",
    (26, 20): "rescale + P convert", (26, 27): "rescale + P convert (last)",
    (1, 2): "Q wait", (2, 10): "first QK^T issue", (10, 11): "first wait for S", (11, 12): "first softmax",
    (12, 20): "turns start", (27, 30): "last PV issue", (30, 31): "last wait for PV", (31, 3): "release",
    (3, 4): "epilogue", (4, 1): "next tile",
    (50, 51): "Q buffer wait", (51, 52): "Q issue", (52, 53): "K stage wait", (53, 54): "V stage wait",
    (54, 52): "V issue", (54, 50): "V issue (tile end)",
}
# The phases of the overlap table: T = the warpgroup issues or waits for its own products
# (blocked in wgmma issue), S = softmax, o = anything else.
TENSOR, SOFTMAX = {21, 22, 23, 2, 10, 27, 30}, {24, 11}


def load(path):
    raw = open(path, "rb").read()
    words = struct.unpack("<%dI" % (len(raw) // 4), raw)
    regions = {}
    for b in range(BLOCKS):
        for r in range(ROLES):
            base, events = (b * ROLES + r) * WORDS, []
            for i in range(0, WORDS - 2, 2):
                if words[base + i] == 0:
                    break
                events.append((words[base + i], words[base + i + 1]))
            regions[(b, r)] = events
    return regions


def cycles(a, b):
    """Signed 32-bit clock difference `b - a`."""
    x = (b - a) & 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def segments(regions, role):
    acc = defaultdict(list)
    for b in range(BLOCKS):
        ev = regions[(b, role)]
        for (i0, c0), (i1, c1) in zip(ev, ev[1:]):
            acc[(i0, i1)].append(cycles(c0, c1))
    return acc


def steady_steps(regions, role):
    steps = []
    for b in range(BLOCKS):
        ev = regions[(b, role)]
        for k, (i, c) in enumerate(ev):
            if i == 20 and k + 7 < len(ev) and ev[k + 7][0] == 20:
                steps.append(cycles(c, ev[k + 7][1]))
    return steps


def overlap(regions):
    total = Counter()
    for b in range(BLOCKS):
        c0, phases = regions[(b, 1)][0][1], {}
        for r in (1, 2):
            ev = regions[(b, r)]
            phases[r] = [(cycles(c0, a), cycles(c0, z), "T" if i in TENSOR else "S" if i in SOFTMAX else "o")
                         for (i, a), (_, z) in zip(ev, ev[1:])]
        points = sorted({x for r in phases for (s, e, _) in phases[r] for x in (s, e)})
        at = {1: 0, 2: 0}
        for a, z in zip(points, points[1:]):
            labels = []
            for r in (1, 2):
                p = phases[r]
                while at[r] < len(p) and p[at[r]][1] <= a:
                    at[r] += 1
                labels.append(p[at[r]][2] if at[r] < len(p) and p[at[r]][0] <= a else "-")
            total["".join(sorted(labels))] += z - a
    return total


def main():
    for path in sys.argv[1:]:
        regions = load(path)
        print(f"== {path}")
        for role, who in ((0, "producer"), (1, "consumer 0"), (2, "consumer 1")):
            acc = segments(regions, role)
            whole = sum(sum(v) for v in acc.values()) or 1
            print(f" {who}:")
            for k in sorted(acc, key=lambda k: -sum(acc[k])):
                v = acc[k]
                print("   %-30s %2d-%-2d n=%5d median=%6d mean=%7.0f share=%5.1f%%"
                      % (NAMES.get(k, "?"), k[0], k[1], len(v), st.median(v), st.mean(v), 100 * sum(v) / whole))
            if role:
                steps = steady_steps(regions, role)
                if steps:
                    print("   steady step: n=%d median=%d mean=%.0f" % (len(steps), st.median(steps), st.mean(steps)))
        occ = overlap(regions)
        whole = sum(occ.values()) or 1
        print(" both consumers (T products, S softmax, o other): "
              + " ".join("%s %.1f%%" % (k, 100 * v / whole) for k, v in occ.most_common()))


if __name__ == "__main__":
    main()
