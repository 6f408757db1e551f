#!/usr/bin/env python3
"""Seed 000's claims per scheduler view, from opasim sweeps.

Usage: claims.py ROOT [LOAD]

ROOT holds one sweep per view and preset, ROOT/<view>/<preset>/ (summary.json
and runs/), made by the commands in docs/reproduction.md ("Seed 000's claims
per scheduler view"). Prints Markdown: the figures (mean and 95% Student-t
interval over the seeds) and a verdict per claim, view and network.

Figures of one scheduler come from summary.json. Comparisons (a difference
between two SLs of the same runs, or between two schedulers run with the same
seeds, hence the same offered traffic) use the per-seed differences read from
runs/*.json, with their own 95% interval:
  holds                when the interval lies on the claimed side of 0
                       (or of the claimed bound),
  fails                when it lies on the other side,
  not distinguishable  when it contains it.
"""
import json
import math
import os
import sys

VIEWS = ["table", "table_feedback", "eligible"]
PRESETS = [("tree-24ary-2", "24-ary 2-tree"), ("torus2d-8x8", "2D torus 8x8")]
SLS = ["VO", "VI", "CL", "BE", "BK"]
TARGET = [0.10, 0.30, 0.50, 0.05, 0.05]
SCHED = [("dtable", "DTable"), ("sbt", "SBT"), ("rr_burst", "RR")]
# two-sided 95% Student-t quantiles by degrees of freedom
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365,
       8: 2.306, 9: 2.262, 10: 2.228, 14: 2.145, 19: 2.093, 29: 2.045}


def t95(df):
    keys = sorted(k for k in T95 if k <= df)
    return T95[keys[-1]] if keys else float("nan")


def stats(xs):
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, float("nan")
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, t95(n - 1) * sd / math.sqrt(n)


class Sweep:
    def __init__(self, d, load):
        self.d, self.load = d, load
        self.summary = json.load(open(os.path.join(d, "summary.json")))
        self.seeds = self.summary.get("seeds") or []
        self._runs = {}

    def row(self, sched, sl, metric):
        for r in self.summary["rows"]:
            if r["scheduler"] == sched and abs(r["load"] - self.load) < 1e-9 and r["sl"] == sl:
                m = r["metrics"][metric]
                return m["mean"], m["ci95"]
        raise KeyError((self.d, sched, sl, metric))

    def runs(self, sched):
        if sched not in self._runs:
            out = []
            for s in self.seeds:
                name = "%s_load%s_seed%d.json" % (sched, ("%g" % self.load), s)
                out.append(json.load(open(os.path.join(self.d, "runs", name))))
            self._runs[sched] = out
        return self._runs[sched]


def lat(run, sl):
    return run["per_sl"][SLS.index(sl)]["latency"]["mean_ns"]


def share(run, i):
    return run["per_sl"][i]["normalized_throughput"]


def maxdev(run):
    return max(abs(share(run, i) - TARGET[i]) for i in range(5))


def fmt(m, c, nd=3):
    return "%.*f ± %.*f" % (nd, m, nd, c)


def verdict(diffs, bound=0.0):
    """diffs: per-seed values of (claimed larger) - (claimed smaller)."""
    m, c = stats(diffs)
    if all(abs(x) < 1e-12 for x in diffs) and bound == 0:
        return "fails (equal by construction)", m, c
    if m - c > bound:
        return "holds", m, c
    if m + c < bound:
        return "fails", m, c
    return "not distinguishable", m, c


def worst(vs):
    """Combine several verdicts: holds only if all hold, fails if any fails."""
    if any(v.startswith("fails") for v in vs):
        return "fails"
    if all(v == "holds" for v in vs):
        return "holds"
    return "not distinguishable"


def main():
    root = sys.argv[1]
    load = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    sw = {}
    for v in VIEWS:
        for p, _ in PRESETS:
            d = os.path.join(root, v, p)
            if os.path.exists(os.path.join(d, "summary.json")):
                sw[v, p] = Sweep(d, load)
    first = next(iter(sw.values()))
    s0 = first.summary
    print("Load %g; %d seeds; %s cycles of which %s warm-up.\n" % (
        load, len(first.seeds), s0.get("cycles"), s0.get("warmup")))

    def each():
        for p, pname in PRESETS:
            for v in VIEWS:
                if (v, p) in sw:
                    yield p, pname, v, sw[v, p]

    # C1-C4 figures: accepted throughput and switch hit rate per scheduler
    print("#### Accepted throughput and switch-port hit rate (flits/cycle/NIC; mean ± 95% CI)\n")
    print("| network | view | DTable | SBT | RR | hit DTable | hit SBT | hit RR |")
    print("|---|---|---|---|---|---|---|---|")
    for p, pname, v, s in each():
        acc = [fmt(*s.row(k, "all", "accepted_throughput")) for k, _ in SCHED]
        hit = [fmt(*stats([r["switch_scheduler_hit_rate"] for r in s.runs(k)])) for k, _ in SCHED]
        print("| %s | `%s` | %s | %s |" % (pname, v, " | ".join(acc), " | ".join(hit)))
    print()

    print("#### Normalized throughput per SL (target 0.10/0.30/0.50/0.05/0.05) and largest deviation from it\n")
    print("| network | view | scheduler | VO | VI | CL | BE | BK | largest deviation (points) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for p, pname, v, s in each():
        for k, kn in SCHED:
            cells = [fmt(*s.row(k, sl, "normalized_throughput")) for sl in SLS]
            dm, dc = stats([100 * maxdev(r) for r in s.runs(k)])
            print("| %s | `%s` | %s | %s | %.2f ± %.2f |" % (pname, v, kn, " | ".join(cells), dm, dc))
    print()

    print("#### Mean end-to-end latency per SL (ns; mean ± 95% CI)\n")
    print("| network | view | scheduler | VO | VI | CL | BE | BK |")
    print("|---|---|---|---|---|---|---|---|")
    for p, pname, v, s in each():
        for k, kn in SCHED:
            cells = ["%.0f ± %.0f" % s.row(k, sl, "latency_ns") for sl in SLS]
            print("| %s | `%s` | %s | %s |" % (pname, v, kn, " | ".join(cells)))
    print()

    # verdicts
    rows = []  # (claim, network, view, figure, verdict)

    def add(claim, pname, v, figure, verd):
        rows.append((claim, pname, v, figure, verd))

    for p, pname, v, s in each():
        dt, sb, rr = s.runs("dtable"), s.runs("sbt"), s.runs("rr_burst")
        # C1: DTable within 2 points of every target share
        devs = [100 * maxdev(r) for r in dt]
        vd, m, c = verdict([2.0 - x for x in devs])
        add("C1", pname, v, "largest deviation %.2f ± %.2f points (bound 2)" % stats(devs), vd)
        # C2a: SBT's share error greater than DTable's
        vd, m, c = verdict([100 * (maxdev(a) - maxdev(b)) for a, b in zip(sb, dt)])
        add("C2a", pname, v, "SBT − DTable largest deviation %+.2f ± %.2f points" % (m, c), vd)
        # C2b: SBT's split is almost RR's (every SL within 1 point)
        diffs = [100 * max(abs(share(a, i) - share(b, i)) for i in range(5)) for a, b in zip(sb, rr)]
        vd, m, c = verdict([1.0 - x for x in diffs])
        add("C2b", pname, v, "largest SBT − RR share difference %.2f ± %.2f points (bound 1)" % stats(diffs), vd)
        # C3: DTable accepts more than SBT and RR
        fig, vs = [], []
        for other, on in ((sb, "SBT"), (rr, "RR")):
            vd, m, c = verdict([a["accepted_throughput"] - b["accepted_throughput"] for a, b in zip(dt, other)])
            fig.append("DTable − %s %+.4f ± %.4f" % (on, m, c))
            vs.append(vd)
        add("C3", pname, v, "; ".join(fig) + " (paper: +0.15 tree, +0.14 torus)", worst(vs))
        # C4: DTable's hit rate higher than SBT's and RR's
        fig, vs = [], []
        for other, on in ((sb, "SBT"), (rr, "RR")):
            vd, m, c = verdict([a["switch_scheduler_hit_rate"] - b["switch_scheduler_hit_rate"] for a, b in zip(dt, other)])
            fig.append("DTable − %s %+.3f ± %.3f" % (on, m, c))
            vs.append(vd)
        add("C4", pname, v, "; ".join(fig), worst(vs))
        # C5: DTable latency VO < VI < CL < BE, BK (paired within runs)
        fig, vs = [], []
        for lo, hi in (("VO", "VI"), ("VI", "CL"), ("CL", "BE"), ("CL", "BK")):
            vd, m, c = verdict([lat(r, hi) - lat(r, lo) for r in dt])
            fig.append("%s−%s %+.0f ± %.0f" % (hi, lo, m, c))
            vs.append(vd)
        add("C5", pname, v, "ns: " + "; ".join(fig), worst(vs))
        # C6: SBT and RR: latency grows with the SL's load, VO < VI < CL, and BE, BK above VO
        for runs, kn in ((sb, "SBT"), (rr, "RR")):
            fig, vs = [], []
            for lo, hi in (("VO", "VI"), ("VI", "CL"), ("VO", "BE"), ("VO", "BK")):
                vd, m, c = verdict([lat(r, hi) - lat(r, lo) for r in runs])
                fig.append("%s−%s %+.0f ± %.0f" % (hi, lo, m, c))
                vs.append(vd)
            add("C6 " + kn, pname, v, "ns: " + "; ".join(fig), worst(vs))
        # C7: DTable gives VO more latency and CL less than SBT and RR
        fig, vs = [], []
        for other, on in ((sb, "SBT"), (rr, "RR")):
            vd1, m1, c1 = verdict([lat(a, "VO") - lat(b, "VO") for a, b in zip(dt, other)])
            vd2, m2, c2 = verdict([lat(b, "CL") - lat(a, "CL") for a, b in zip(dt, other)])
            fig.append("VO DTable−%s %+.0f ± %.0f, CL %s−DTable %+.0f ± %.0f" % (on, m1, c1, on, m2, c2))
            vs += [vd1, vd2]
        add("C7", pname, v, "ns: " + "; ".join(fig), worst(vs))
        # C8 (trees): SBT and RR CL latency over 4,500 ns at load 1
        if p.startswith("tree") and abs(load - 1.0) < 1e-9:
            fig, vs = [], []
            for runs, kn in ((sb, "SBT"), (rr, "RR")):
                vd, m, c = verdict([lat(r, "CL") - 4500 for r in runs])
                fig.append("%s CL %.0f ± %.0f" % (kn, m + 4500, c))
                vs.append(vd)
            add("C8", pname, v, "ns: " + "; ".join(fig), worst(vs))
    # C9: torus latency above the tree's in every SL (different networks: unpaired)
    for v in VIEWS:
        if (v, "tree-24ary-2") in sw and (v, "torus2d-8x8") in sw:
            tr, to = sw[v, "tree-24ary-2"], sw[v, "torus2d-8x8"]
            vs, lows = [], []
            for k, kn in SCHED:
                for sl in SLS:
                    a = [lat(r, sl) for r in to.runs(k)]
                    b = [lat(r, sl) for r in tr.runs(k)]
                    ma, ca = stats(a)
                    mb, cb = stats(b)
                    d, c = ma - mb, math.sqrt(ca * ca + cb * cb)
                    vs.append("holds" if d - c > 0 else "fails" if d + c < 0 else "not distinguishable")
                    lows.append((d, c, kn, sl))
            d, c, kn, sl = min(lows)
            add("C9", "both", v, "smallest torus − tree: %s %s %+.0f ± %.0f ns (15 SL × scheduler pairs)" % (kn, sl, d, c), worst(vs))

    print("#### Verdicts at a glance\n")
    cols = [(pn, v) for _, pn in PRESETS for v in VIEWS]
    print("| claim | " + " | ".join("%s `%s`" % c for c in cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    claims = []
    for r in rows:
        if r[0] not in claims:
            claims.append(r[0])
    for cl in claims:
        cells = []
        for pn, v in cols:
            got = [r[4] for r in rows if r[0] == cl and r[2] == v and r[1] in (pn, "both")]
            cells.append(got[0].replace("not distinguishable", "n.d.").replace(" (equal by construction)", " (=)") if got else "–")
        print("| %s | %s |" % (cl, " | ".join(cells)))
    print()

    print("#### Verdicts\n")
    print("| claim | network | view | figure (mean ± 95% CI of the difference) | verdict |")
    print("|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | `%s` | %s | %s |" % r)


if __name__ == "__main__":
    main()
