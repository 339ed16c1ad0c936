#!/usr/bin/env python3
"""mpi_report.py - the table of bench/mpi.sh: MPI raw vs pangaea.

    python3 bench/mpi_report.py RESULTS_DIR

Reads RESULTS_DIR/runs.txt (one line per run, key=value: id=MPI.KIND
mode=raw|log|replay rep=R us=... from mpibench's BENCH line; a whole
program's, id=openmpi.hpcc, wall=SECONDS),
machine.txt and insn.txt (bench/mpi_insn.sh's lines, prefixed with
mpi= and kind=); prints RESULTS_DIR/mpi.md (Markdown) and writes it.
Ratios are paired (each round's -log or -replay over the same round's
raw: bench/report.py's Data.paired), with their quartiles, and the goals
of the MPI work are checked on the 8-byte ping-pong: -log <= 1.15x and
-replay <= 1.30x raw, and on the whole program (HPCC) <= 1.05x both,
decided only when the quartiles of the paired ratios are on one side of
the goal.  Standard library only.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import Data, load  # noqa: E402  (bench/report.py: same rows)

GOALS = {"log": 1.15, "replay": 1.30}
PROG_GOAL = 1.05  # a whole real program (HPCC), -log and -replay
PROGS = {"openmpi.hpcc": "HPCC (Debian's hpcc), 4 ranks, N 200, NB 40"}
KINDS = {"pp": "8 B ping-pong round trip (ANY_SOURCE)",
         "rate": "message rate, windows of 64 (Irecv ANY_SOURCE)"}


def fmt(v, digits=3):
    return "-" if v is None else "%.*f" % (digits, v)


def paired(d, id_, mode):
    p = d.paired(id_, mode, "us")
    if not p:
        return "-", None
    return "%.3f (%.3f-%.3f)" % (p[0], p[1], p[2]), p


def verdict(p, goal):
    """Reached only if the upper quartile is within the goal, missed only
    if the lower quartile is beyond it: a spread that spans the goal (a
    loaded machine) decides nothing."""
    if p is None:
        return "-"
    if p[2] <= goal:
        return "reached"
    if p[1] > goal:
        return "not reached"
    return "undecided: the quartiles %.3f-%.3f span the goal" % (p[1], p[2])


def latency_table(d, mpis):
    out = ["| MPI | benchmark | raw us | -log us | -replay us | "
           "-log / raw | -replay / raw | rounds |",
           "|---|---|---|---|---|---|---|---|"]
    goals = []
    for mpi in mpis:
        for kind, label in KINDS.items():
            id_ = "%s.%s" % (mpi, kind)
            if not d.count(id_, "raw"):
                continue
            med = {m: d.median(id_, m, "us") for m in ("raw", "log", "replay")}
            lr, lv = paired(d, id_, "log")
            rr, rv = paired(d, id_, "replay")
            out.append("| %s | %s | %s | %s | %s | %s | %s | %d |" % (
                mpi, label, fmt(med["raw"]), fmt(med["log"]),
                fmt(med["replay"]), lr, rr, d.count(id_, "raw")))
            if kind == "pp":
                for mode, v in (("log", lv), ("replay", rv)):
                    goals.append("- %s, ping-pong, -%s: %sx raw (paired "
                                 "median), goal <= %.2fx: %s" % (
                                     mpi, mode, fmt(v and v[0]),
                                     GOALS[mode], verdict(v, GOALS[mode])))
    return out, goals


def prog_table(d):
    """The whole programs' wall times (seconds), paired ratios and the
    goal <= 1.05x for both modes."""
    out = ["| program | raw s | -log s | -replay s | -log / raw | "
           "-replay / raw | rounds |", "|---|---|---|---|---|---|---|"]
    goals = []
    for id_, label in PROGS.items():
        if not d.count(id_, "raw"):
            continue
        med = {m: d.median(id_, m, "wall") for m in ("raw", "log", "replay")}
        cells = {}
        for mode in ("log", "replay"):
            p = d.paired(id_, mode, "wall")
            cells[mode] = "-" if p is None else "%.3f (%.3f-%.3f)" % p[:3]
            goals.append("- %s, -%s: %sx raw (paired median), goal <= "
                         "%.2fx: %s" % (label, mode, fmt(p and p[0]),
                                        PROG_GOAL, verdict(p, PROG_GOAL)))
        out.append("| %s | %s | %s | %s | %s | %s | %d |" % (
            label, fmt(med["raw"], 2), fmt(med["log"], 2),
            fmt(med["replay"], 2), cells["log"], cells["replay"],
            d.count(id_, "raw")))
    return (out, goals) if goals else ([], [])


def insn_rows(path):
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            d = dict(t.split("=", 1) for t in line.split() if "=" in t)
            if "rep" in d:
                rows.append(d)
    return rows


def insn_table(path):
    rows = insn_rows(path)
    if not rows:
        return ["(no instruction counts: bench/mpi.sh --no-insn, or no "
                "valgrind)"]
    out = ["| MPI | benchmark | raw a round | -log adds | -replay adds | "
           "in the library, -log | in the library, -replay |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            r["mpi"], r["kind"], r["raw"], r["log"], r["replay"],
            r["own_log"], r["own_replay"]))
    tops = []
    with open(path) as f:
        for line in f:  # mpi=M kind=K top MODE COST FUNCTION [OBJECT]
            p = line.split()
            if len(p) > 5 and p[2] == "top":
                fn = " ".join(p[5:])  # "file:function [/path/object]"
                fn = re.sub(r"\[.*/([^/\]]*)\]$", r"[\1]", fn)
                tops.append("    %s %-6s %8s  %s" % (p[0][4:], p[3], p[4], fn))
    if tops:
        out += ["", "Functions that add the most a round (self benchmark, "
                "instructions, -log and -replay less raw):", ""] + tops
    return out


def main():
    res = sys.argv[1] if len(sys.argv) > 1 else "bench/results/mpi"
    d = Data(load(os.path.join(res, "runs.txt")))
    mpis = sorted({r["id"].split(".")[0] for r in d.rows})
    lines = ["# MPI: raw vs pangaea -log / -replay (bench/mpi.sh)", ""]
    mpath = os.path.join(res, "machine.txt")
    if os.path.exists(mpath):
        with open(mpath) as f:
            lines += ["    " + x.rstrip() for x in f] + [""]
    table, goals = latency_table(d, mpis)
    if len(table) > 2:  # rows beyond the header (not --prog-only)
        lines += table
    ptable, pgoals = prog_table(d)
    if ptable:
        lines += ["", "A whole program, wall clock of the command "
                  "(seconds; ratios paired, median (q1-q3)):", ""] + ptable
    lines += ["", "Goals:", ""] + (goals or ["- (no ping-pong)"]) + pgoals
    lines += ["", "Instructions a round (callgrind, bench/mpi_insn.sh):",
              ""] + insn_table(os.path.join(res, "insn.txt"))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(res, "mpi.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
