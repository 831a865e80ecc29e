#!/usr/bin/env python3
# The uneven-capacity sweep of README ("Routing", issue 37): a 4 x 4 Clos with 4 or 8 hosts per ToR,
# 1-4 jobs, rings of 2/4/8, seeds 1-3, one or two random links degraded to 25/50/75 Gb/s; each
# scenario routed by `route --algorithm optimal` for flow-lex and job-lex. Prints, per objective, the
# cases, how many were unproven and the four slowest (objective, hosts, jobs, ring, seed, proven,
# nodes, wall seconds of the whole command). Needs `cargo build --release`; usage:
# scripts/uneven-sweep.py [scratch dir]
import json, random, subprocess, sys, time
import os
B = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "libra-studio")
D = sys.argv[1] if len(sys.argv) > 1 else "/tmp"
rows = []
for H in (4, 8):
  for J in (1, 2, 3, 4):
    for R in (2, 4, 8):
      if J * R > 4 * H: continue
      for seed in (1, 2, 3):
        g = subprocess.run([B, "route-scenario", "--tors", "4", "--spines", "4", "--hosts-per-tor", str(H),
                            "--jobs", str(J), "--ring-size", str(R), "--seed", str(seed)], capture_output=True, text=True)
        if g.returncode: continue
        sc = json.loads(g.stdout)
        rnd = random.Random(seed * 1000 + H * 100 + J * 10 + R)
        ov = []
        for _ in range(rnd.choice((1, 2))):
          ov.append({"kind": rnd.choice(("up", "down")), "tor": rnd.randrange(4), "spine": rnd.randrange(4),
                     "gbps": rnd.choice((25.0, 50.0, 75.0))})
        sc["network"]["link_capacity_overrides"] = ov
        p = f"{D}/uneven_{H}_{J}_{R}_{seed}.json"
        json.dump(sc, open(p, "w"))
        for obj in ("flow-lex", "job-lex"):
          t = time.time()
          r = subprocess.run([B, "route", p, "--algorithm", "optimal", "--objective", obj], capture_output=True, text=True)
          dt = time.time() - t
          o = json.loads(r.stdout) if r.returncode == 0 else {}
          opt = o
          rows.append((obj, H, J, R, seed, opt.get("proven"), opt.get("nodes"), dt))
for obj in ("flow-lex", "job-lex"):
  rs = [r for r in rows if r[0] == obj]
  rs.sort(key=lambda r: -r[7])
  print(obj, "cases", len(rs), "unproven", sum(1 for r in rs if r[5] is not True))
  for r in rs[:4]: print("  ", r)
