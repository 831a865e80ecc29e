#!/usr/bin/env python3
"""Replays the greedy rule (max of the two spine-link counts, ties to the smallest live spine) in
(a) the authors' visit order as dumped from their own HashSets, and (b) our visit order (from our
CLI's visit_order), and compares with their and our actual assignments."""
import csv, json, sys, glob, os, re, collections
ROOT = "/work/oracle"

def replay(order, flows, live):
    up, down = collections.Counter(), collections.Counter()
    res = {}
    for key in order:
        s, d = flows[key]
        if s == d:
            res[key] = -1; continue
        best = min(live, key=lambda sp: (max(up[(s, sp)], down[(d, sp)]), sp))
        res[key] = best
        up[(s, best)] += 1; down[(d, best)] += 1
    return res, max(list(up.values()) + list(down.values()))

out = []
for f in sorted(glob.glob(f"{ROOT}/out/static/*_mcvlc.csv")):
    cell = os.path.basename(f).replace("_mcvlc.csv", "")
    nf = int(re.search(r"_f(\d+)", cell).group(1))
    live = [s for s in range(32) if s < 32 - nf]
    rows = list(csv.DictReader(open(f)))
    flows = {(int(r["src"]), int(r["dst"])): (int(r["src_tor"]), int(r["dst_tor"])) for r in rows}
    theirs = {(int(r["src"]), int(r["dst"])): int(r["spine"]) for r in rows}
    order = [(int(r["src"]), int(r["dst"])) for r in csv.DictReader(open(f + ".order.csv"))]
    rep, rmax = replay(order, flows, live)
    ok_theirs = sum(rep[k] == theirs[k] for k in theirs)
    # our order
    scen = json.load(open(f"{ROOT}/out/scenarios/{cell}.json"))
    ids = [(h, ring[(i + 1) % len(ring)]) for jb in scen["jobs"] for ring in jb["rings"] for i, h in enumerate(ring)]
    ours = json.load(open(f"{ROOT}/out/ours/{cell}_greedy.json"))
    our_order = [ids[i] for i in ours["visit_order"]]
    rep2, rmax2 = replay(our_order, flows, live)
    ok_ours = sum(rep2[ids[int(k)]] == v for k, v in ours["routing"].items())
    same_order = order == our_order
    # their order groups (first few)
    groups = []
    for r in csv.DictReader(open(f + ".order.csv")):
        if not groups or groups[-1][0] != r["group"]:
            groups.append((r["group"], int(r["group_size"])))
    out.append((cell, f"{ok_theirs}/{len(theirs)}", rmax, f"{ok_ours}/{len(ours['routing'])}", rmax2, same_order,
                " ".join(f"{g}:{n}" for g, n in groups[:6]),
                " ".join(f"{'a' if g['kind']=='up' else 'b'}_{g['tor']}:{g['size']}" for g in ours["group_order"][:6])))
print("cell | their-order replay == their output | replay max | our-order replay == our CLI | replay max | identical visit order | their first groups | our first groups")
for o in out:
    print(" | ".join(map(str, o)))
