#!/usr/bin/env python3
"""Solve libra-studio's exported routing ILP (CPLEX LP) with HiGHS or CP-SAT, and check solutions.

Usage:
  run.py highs  NAME TIME_LIMIT     # reads NAME.lp, writes res_NAME_highs.json
  run.py cpsat  NAME TIME_LIMIT     # reads NAME.lp (own parser -> cp_model), writes res_NAME_cpsat.json
  run.py ours   NAME                # checks ours_NAME.out's routing against NAME.lp, writes res_NAME_ours.json
  run.py table  NAME...             # prints the Markdown table from the res_*.json files

Every solution a solver returns is re-checked against an independent parse of the .lp file
(each assign_f row sums to 1, each link row sum x - z <= 0, binaries 0/1), and the max link
load (most flows on one link) is recomputed from the x values alone.
"""
import json
import re
import sys
import time

TOK = re.compile(r"([+-]?)\s*(\d+(?:\.\d*)?)?\s*([A-Za-z_][A-Za-z0-9_]*)")


def parse_lp(path):
    """Our own minimal parser for this specific LP: 'Minimize obj: z', rows
    'name: a x + b y ... (=|<=|>=) rhs', a Bounds section, Binaries and Generals."""
    section = None
    obj_terms = []
    rows = []  # (name, {var: coef}, sense, rhs)
    binaries, generals = [], []
    bounds = []
    cur = ""
    with open(path) as fh:
        lines = [l.split("\\", 1)[0].rstrip() for l in fh]
    def flush_row(text):
        name, body = text.split(":", 1)
        m = re.search(r"(<=|>=|=)\s*([+-]?\d+(?:\.\d*)?)\s*$", body)
        sense, rhs = m.group(1), float(m.group(2))
        lhs = body[: m.start()]
        coeffs = {}
        for sign, num, var in TOK.findall(lhs):
            c = float(num) if num else 1.0
            if sign == "-":
                c = -c
            coeffs[var] = coeffs.get(var, 0.0) + c
        rows.append((name.strip(), coeffs, sense, rhs))
    for line in lines:
        s = line.strip()
        low = s.lower()
        if not s:
            continue
        if low in ("minimize", "maximize", "subject to", "st", "s.t.", "bounds", "binaries",
                   "binary", "generals", "general", "end"):
            if cur:
                flush_row(cur)
                cur = ""
            section = low
            continue
        if section == "minimize":
            obj_terms.append(s)
        elif section in ("subject to", "st", "s.t."):
            if ":" in s and cur and re.match(r"^[A-Za-z_][A-Za-z0-9_]*:", s):
                flush_row(cur)
                cur = s
            elif ":" in s and not cur:
                cur = s
            else:
                cur += " " + s
        elif section == "bounds":
            bounds.append(s)
        elif section in ("binaries", "binary"):
            binaries.extend(s.split())
        elif section in ("generals", "general"):
            generals.extend(s.split())
    if cur:
        flush_row(cur)
    obj = " ".join(obj_terms).split(":", 1)[-1]
    obj_coeffs = {v: (-1.0 if sg == "-" else 1.0) * (float(n) if n else 1.0)
                  for sg, n, v in TOK.findall(obj)}
    variables = set(binaries) | set(generals) | set(obj_coeffs)
    for _, c, _, _ in rows:
        variables |= set(c)
    return dict(obj=obj_coeffs, rows=rows, binaries=binaries, generals=generals,
                bounds=bounds, variables=sorted(variables))


def check(lp, values):
    """values: {var name: value}. Returns (feasible, objective from values, max flows on a link
    recomputed from the x alone, number of violated rows)."""
    x = {v: round(values.get(v, 0.0)) for v in lp["variables"]}
    bad = 0
    for b in lp["binaries"]:
        if x[b] not in (0, 1) or abs(values.get(b, 0.0) - x[b]) > 1e-6:
            bad += 1
    max_load = 0
    for name, coeffs, sense, rhs in lp["rows"]:
        act = sum(c * x[v] for v, c in coeffs.items())
        if sense == "=" and abs(act - rhs) > 1e-9:
            bad += 1
        if sense == "<=" and act > rhs + 1e-9:
            bad += 1
        if sense == ">=" and act < rhs - 1e-9:
            bad += 1
        if not name.startswith("assign"):
            load = sum(x[v] for v, c in coeffs.items() if v.startswith("x_") and c > 0)
            max_load = max(max_load, load)
    objv = sum(c * x[v] for v, c in lp["obj"].items())
    return bad == 0, objv, max_load, bad


def counts(lp):
    flows = sum(1 for r in lp["rows"] if r[0].startswith("assign"))
    return dict(flows=flows, variables=len(lp["variables"]), constraints=len(lp["rows"]))


def run_highs(name, tl):
    import highspy
    lp = parse_lp(f"{name}.lp")
    h = highspy.Highs()
    h.setOptionValue("log_file", f"log_{name}_highs.txt")
    t0 = time.perf_counter()
    st = h.readModel(f"{name}.lp")
    t1 = time.perf_counter()
    h.setOptionValue("time_limit", float(tl))
    h.setOptionValue("threads", 1)
    h.run()
    t2 = time.perf_counter()
    info = h.getInfo()
    status = h.modelStatusToString(h.getModelStatus())
    names = h.getLp().col_names_
    sol = h.getSolution().col_value
    values = dict(zip(names, sol))
    has_sol = info.primal_solution_status == 2  # kSolutionStatusFeasible
    feas, objv, ml, bad = check(lp, values) if has_sol else (False, None, None, None)
    res = dict(solver="HiGHS", read_status=str(st), status=status,
               objective=info.objective_function_value if has_sol else None,
               bound=info.mip_dual_bound, gap=info.mip_gap, nodes=info.mip_node_count,
               read_s=t1 - t0, solve_s=t2 - t1, total_s=t2 - t0, threads=1,
               model_cols=h.getNumCol(), model_rows=h.getNumRow(),
               check_feasible=feas, check_objective=objv, check_max_load=ml, check_violations=bad,
               **counts(lp))
    return res


def run_cpsat(name, tl):
    """model_builder's import_from_lp_file/import_from_lp_string reject this CPLEX LP file
    (OR-Tools' lp_parser: 'Error in line: ...', returns False; tried first and recorded), so the
    model is built from our own parse_lp with ortools.sat.python.cp_model directly."""
    from ortools.linear_solver.python import model_builder as mb
    from ortools.sat.python import cp_model
    t0 = time.perf_counter()
    mbm = mb.Model()
    mb_ok = mbm.import_from_lp_file(f"{name}.lp")
    lp = parse_lp(f"{name}.lp")
    m = cp_model.CpModel()
    bins = set(lp["binaries"])
    var = {}
    for v in lp["variables"]:
        if v in bins:
            var[v] = m.new_bool_var(v)
        else:  # z: general integer, z >= 0 (Bounds); at most the number of flows
            var[v] = m.new_int_var(0, len(lp["rows"]), v)
    for rname, coeffs, sense, rhs in lp["rows"]:
        assert all(float(c).is_integer() for c in coeffs.values()) and float(rhs).is_integer()
        expr = sum(int(c) * var[v] for v, c in coeffs.items())
        if sense == "=":
            m.add(expr == int(rhs))
        elif sense == "<=":
            m.add(expr <= int(rhs))
        else:
            m.add(expr >= int(rhs))
    m.minimize(sum(int(c) * var[v] for v, c in lp["obj"].items()))
    t1 = time.perf_counter()
    s = cp_model.CpSolver()
    s.parameters.max_time_in_seconds = float(tl)
    s.parameters.num_workers = 1
    s.parameters.log_search_progress = True
    status = s.solve(m)
    t2 = time.perf_counter()
    has_sol = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    if has_sol:
        values = {v: float(s.value(x)) for v, x in var.items()}
        feas, objv, ml, bad = check(lp, values)
    else:
        feas = objv = ml = bad = None
    res = dict(solver="CP-SAT (cp_model from own LP parse)", status=s.status_name(status),
               objective=s.objective_value if has_sol else None,
               bound=s.best_objective_bound, workers=1,
               model_builder_import_ok=bool(mb_ok),
               read_s=t1 - t0, solve_s=t2 - t1, total_s=t2 - t0, solver_wall_s=s.wall_time,
               model_cols=len(var), model_rows=len(lp["rows"]),
               check_feasible=feas, check_objective=objv, check_max_load=ml, check_violations=bad,
               **counts(lp))
    return res


def run_ours(name):
    lp = parse_lp(f"{name}.lp")
    d = json.load(open(f"ours_{name}.out"))
    values = {f"x_{f}_{s}": 1.0 for f, s in d["routing"].items()}
    feas, objv, ml, bad = check(lp, dict(values, z=float(d["min_max_link_load_count"])))
    wall = None
    for line in open(f"ours_{name}.err"):
        if line.startswith("WALL"):
            wall = float(line.split()[1])
    return dict(solver="libra-studio optimal", objective=d["min_max_link_load_count"],
                max_link_load=d["max_link_load"], proven=d["proven"], bound=d["bound"],
                nodes=d["nodes"], stopped_by_time_limit=d["stopped_by_time_limit"], wall_s=wall,
                check_feasible=feas, check_max_load=ml, check_violations=bad,
                routed_flows=len(d["routing"]), **counts(lp))


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def table(names):
    out = ["| instance (jobs, ring, failed) | flows | variables | constraints | ours (optimum, proven, s) "
           "| HiGHS (value / bound, status, s) | CP-SAT (value / bound, status, s) |",
           "|---|---|---|---|---|---|---|"]
    for n in names:
        o = json.load(open(f"res_{n}_ours.json"))
        h = json.load(open(f"res_{n}_highs.json"))
        c = json.load(open(f"res_{n}_cpsat.json"))
        j, r, f = re.match(r"j(\d+)_r(\d+)_f(\d+)", n).groups()
        out.append(
            f"| ({j}, {r}, {f}) | {o['flows']} | {o['variables']} | {o['constraints']} "
            f"| {o['objective']}, {'proven' if o['proven'] else 'not proven'}, {o['wall_s']:.2f} "
            f"| {fmt(h['objective'])} / {fmt(h['bound'])}, {h['status']}, {h['total_s']:.1f} "
            f"| {fmt(c['objective'])} / {fmt(c['bound'])}, {c['status']}, {c['total_s']:.1f} |")
    print("\n".join(out))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "table":
        table(sys.argv[2:])
        sys.exit(0)
    name = sys.argv[2]
    if cmd == "highs":
        res = run_highs(name, sys.argv[3])
    elif cmd == "cpsat":
        res = run_cpsat(name, sys.argv[3])
    elif cmd == "ours":
        res = run_ours(name)
    else:
        raise SystemExit(__doc__)
    json.dump(res, open(f"res_{name}_{cmd}.json", "w"), indent=1)
    print(json.dumps(res, indent=1))
