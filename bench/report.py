#!/usr/bin/env python3
"""report.py - the table, CSV and plot of `make bench` (bench/run.sh).

    python3 bench/report.py RESULTS_DIR

Reads RESULTS_DIR/runs.txt (one line per run: key=value fields, see
run.sh) and machine.txt; prints the table of medians and ratios to raw PVM
on stdout and writes RESULTS_DIR/latest.csv, latest.md (the same table in
Markdown, with the targets of issues 8, 13 and 18 checked) and growth.svg (the growth
curves).  Standard library only.
"""
import math
import os
import statistics
import sys


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            d = {}
            for tok in line.split():
                if "=" in tok:
                    k, v = tok.split("=", 1)
                    d[k] = v
            if "id" in d:
                rows.append(d)
    return rows


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


class Data:
    def __init__(self, rows):
        self.rows = rows

    def each(self, id_, mode, field, name=None, fn=None):
        """(row, value) of every row of id_ and mode (and name) that has
        a value: FIELD as a number, or fn(row)."""
        for r in self.rows:
            if r["id"] != id_ or r["mode"] != mode:
                continue
            if name and r.get("name") != name:
                continue
            v = fn(r) if fn else num(r.get(field))
            if v is not None:
                yield r, v

    def values(self, id_, mode, field, name=None, fn=None):
        return [v for _, v in self.each(id_, mode, field, name, fn)]

    def median(self, *a, **k):
        v = self.values(*a, **k)
        return statistics.median(v) if v else None

    def by_rep(self, id_, mode, field, name=None, fn=None):
        out = {}
        for r, v in self.each(id_, mode, field, name, fn):
            out.setdefault(r["rep"], v)
        return out

    def paired(self, id_, mode, field, name=None, fn=None, over="raw"):
        """Paired ratios: each round's MODE over the same round's OVER
        (the runs of a round are next to each other in time, so drift of
        the machine cancels); their median and quartiles, and how many
        rounds.  None when no round has both."""
        a = self.by_rep(id_, mode, field, name, fn)
        b = self.by_rep(id_, over, field, name, fn)
        r = sorted(a[k] / b[k] for k in a if k in b and b[k])
        if not r:
            return None
        if len(r) < 4:
            return statistics.median(r), r[0], r[-1], len(r)
        q = statistics.quantiles(r, n=4)
        return statistics.median(r), q[0], q[2], len(r)

    def count(self, id_, mode):
        return len({r["rep"] for r in self.rows
                    if r["id"] == id_ and r["mode"] == mode})


MODES = ["raw", "none", "log", "replay"]


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def fmt(v, digits=3):
    if v is None:
        return "-"
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return "%.0f" % v
    return "%.*g" % (digits, v) if abs(v) < 1 else "%.*f" % (
        max(0, digits - 1 - int(math.floor(math.log10(abs(v))))), v)


def main():
    res = sys.argv[1] if len(sys.argv) > 1 else "bench/results"
    d = Data(load(os.path.join(res, "runs.txt")))
    machine = {}
    try:
        with open(os.path.join(res, "machine.txt")) as f:
            for line in f:
                if ": " in line:
                    k, v = line.rstrip("\n").split(": ", 1)
                    machine[k] = v
    except OSError:
        pass

    table = []   # (section, id, label, unit, {mode: median}, nruns)

    spread = {}  # (section, label) -> {mode: (min, max)}
    paired_of = {}  # (section, label) -> {mode: (median, q1, q3, n)}

    def pratio(sec, label, m, raw_med, m_med):
        """The ratio shown: the paired median when rounds pair up, else
        the ratio of the medians (rows without a raw run in each round)."""
        p = paired_of.get((sec, label), {}).get(m)
        return p[0] if p else ratio(m_med, raw_med)

    def pspread(sec, label, m):
        p = paired_of.get((sec, label), {}).get(m)
        return "" if not p else "%.3f-%.3f" % (p[1], p[2])

    def row(section, id_, label, unit, field, name=None, fn=None,
            modes=MODES):
        med = {m: d.median(id_, m, field, name=name, fn=fn) for m in modes}
        spread[(section, label)] = {}
        for m in modes:
            v = d.values(id_, m, field, name=name, fn=fn)
            if v:
                spread[(section, label)][m] = (min(v), max(v))
        pair = {m: d.paired(id_, m, field, name=name, fn=fn)
                for m in modes if m != "raw"}
        paired_of[(section, label)] = pair
        table.append((section, id_ + (":" + name if name else ""), label,
                      unit, med, d.count(id_, "raw")))

    S1 = "per call"
    row(S1, "pp8", "send/recv round trip, 8 B", "us", "us")
    row(S1, "pp64k", "send/recv round trip, 64 KiB", "us", "us")
    row(S1, "mcast3", "pvm_mcast to 3 tasks + 3 answers", "us", "us")
    row(S1, "fanin16", "fan-in: 16 workers to pvm_recv(-1, 1), per message",
        "us", "us")
    row(S1, "poll", "pvm_nrecv poll, no message", "us", "us", name="nrecv")
    row(S1, "poll", "pvm_probe poll, no message", "us", "us", name="probe")
    for call in ("gettimeofday", "time", "clock_gettime", "getpid"):
        row(S1, "clock", call + " (recorded, replayed: wrap_time.c)", "us",
            "us", name=call)
    row(S1, "spawn", "pvm_spawn of 1 task", "us", "us")
    S2 = "whole program (wall)"
    sor = machine.get("sor", "4 4000 500").split()
    row(S2, "empty", "empty program (start-up, exit)", "s", "wall")
    row(S2, "sor", "SOR demo, %s tasks, %s iterations, grid %s" % tuple(
        (sor + ["?"] * 3)[:3]), "s", "wall")
    S2b = "CPU time (us per round trip or message; pvmd: whole run / n)"

    def cpu(r):
        u, s_ = num(r.get("usr")), num(r.get("sys"))
        return None if u is None or s_ is None else u + s_

    def pvmd_per(r):
        c, n = num(r.get("pvmd_cpu")), num(r.get("n"))
        return None if c is None or not n else c * 1e6 / n

    row(S2b, "pp8", "round trip 8 B: the timing task (user+sys)", "us", None,
        fn=cpu)
    row(S2b, "pp8", "round trip 8 B: the pvmd", "us", None, fn=pvmd_per)
    big = sorted((r for r in d.rows if r["id"].startswith("grow_m")
                  and r["id"] != "grow_m1000000"),
                 key=lambda r: -int(r["id"][6:]))
    if big:
        gid = big[0]["id"]
        row(S2b, gid, "stream %s msgs: the receiving task (user+sys)"
            % gid[6:], "us", None, fn=cpu, modes=["raw", "log", "replay"])
        row(S2b, gid, "stream %s msgs: the pvmd" % gid[6:], "us", None,
            fn=pvmd_per, modes=["raw", "log", "replay"])
    S3 = "log size (recorded runs)"

    def per(field, by):
        return lambda r: ratio(num(r.get(field)), num(r.get(by)))

    for id_, what in (("sor", "SOR"), ("pp8", "round trip 8 B")):
        for label, fn in (
                ("%s: bytes per event (comm logs / send+recv)" % what,
                 per("log_comm", "events")),
                ("%s: bytes per event, exec logs included" % what,
                 per("log_all", "events")),
                ("%s: bytes per receive (comm logs / recv)" % what,
                 per("log_comm", "recvs")),
                ("%s: events per run" % what, lambda r: num(r.get("events")))):
            table.append((S3, id_, label, "B" if "bytes" in label else "",
                          {"log": d.median(id_, "log", None, fn=fn)},
                          d.count(id_, "log")))

    S3b = "log format alone, no PVM (bench/micro/logio.c; in the raw column)"
    row(S3b, "logio", "write one event (pg_logw_send/recv)", "ns",
        "write_ns", modes=["raw"])
    row(S3b, "logio", "read one event back (pg_logr_next)", "ns", "read_ns",
        modes=["raw"])
    row(S3b, "logio", "check one event before replay (read through once)",
        "ns", "validate_ns", modes=["raw"])
    row(S3b, "logio", "bytes per event (send, recv alternating)", "B",
        "bytes", modes=["raw"])

    S4 = "growth: stream to 1 receiver, us per message"
    ids_t = sorted({r["id"] for r in d.rows if r["id"].startswith("grow_t")},
                   key=lambda s: int(s[6:]))
    ids_m = sorted({r["id"] for r in d.rows if r["id"].startswith("grow_m")},
                   key=lambda s: int(s[6:]))
    growth = []  # (kind, x, id)
    for id_ in ids_t:
        r0 = next(r for r in d.rows if r["id"] == id_ and "n" in r)
        growth.append(("tasks", int(r0["t"]), id_, int(r0["n"])))
    for id_ in ids_m:
        r0 = next(r for r in d.rows if r["id"] == id_ and "n" in r)
        growth.append(("messages", int(r0["n"]), id_, int(r0["t"])))
    for kind, x, id_, other in growth:
        label = ("%d tasks, %d messages" % (x, other) if kind == "tasks"
                 else "%d tasks, %d messages" % (other, x))
        row(S4, id_, label, "us", "us", modes=["raw", "log", "replay"])
    S5 = "growth: peak memory (VmHWM) of the receiving task"
    for kind, x, id_, other in growth:
        label = ("%d tasks, %d messages" % (x, other) if kind == "tasks"
                 else "%d tasks, %d messages" % (other, x))
        row(S5, id_, label, "kB", "hwm_kb", modes=["raw", "log", "replay"])
    S6 = "growth: peak memory of `pangaea` itself (checks the logs)"
    for kind, x, id_, other in growth:
        if kind != "messages":
            continue
        row(S6, id_, "%d tasks, %d messages" % (other, x), "kB", "top_kb",
            modes=["log", "replay"])

    # ---- replays that reproduced their recording -----------------------
    same = [r.get("same") for r in d.rows if r["mode"] == "replay"]
    reproduced = "%d of %d replays printed what their recording printed" % (
        same.count("1"), len([s for s in same if s is not None]))

    # ---- targets (issues 8, 13 and 18) ------------------------------------------------
    def med(id_, mode, field, name=None, fn=None):
        return d.median(id_, mode, field, name=name, fn=fn)

    targets = []

    def target(what, value, limit, unit, ok=None):
        if value is None:
            targets.append((what, "-", limit, "not measured"))
            return
        met = value <= limit if ok is None else ok
        if unit == "%":
            shown = "%+.1f%%" % value
            by = "" if met else " (by %.1f points)" % (value - limit)
            lim = "<= %+.0f%%" % limit
        elif unit == "x":
            shown = "%.2fx" % value
            by = "" if met else " (by %.0f%%)" % ((value / limit - 1) * 100)
            lim = "<= %.2fx" % limit
        else:
            shown = "%.1f %s" % (value, unit)
            by = "" if met else " (by %.1f %s, %.1fx)" % (
                value - limit, unit, value / limit)
            lim = "<= %g %s" % (limit, unit)
        targets.append((what, shown, lim, ("met" if met else "MISSED") + by))

    def pct(id_, mode, field, name=None):
        p = d.paired(id_, mode, field, name=name)
        r = p[0] if p else None
        return None if r is None else (r - 1) * 100

    target("recording, 8 B round trip", pct("pp8", "log", "us"), 5, "%")
    target("replay, 8 B round trip", pct("pp8", "replay", "us"), 10, "%")
    # issue 18: watching a recording (-log -live) costs a few percent
    lv = d.paired("pp8live", "live", "us", over="log")
    lv = lv[0] if lv else None
    target("18: 8 B round trip, -log -live over -log",
           None if lv is None else (lv - 1) * 100, 5, "%")
    target("recording, SOR demo (wall)", pct("sor", "log", "wall"), 2, "%")
    target("replay, SOR demo (wall)", pct("sor", "replay", "wall"), 3, "%")
    target("log bytes per event, SOR demo",
           med("sor", "log", None, fn=per("log_comm", "events")), 24, "B")

    # issue 13's table: ratios of medians of one interleaved run
    def x(id_, mode, field, over="raw"):
        p = d.paired(id_, mode, field, over=over)
        return p[0] if p else ratio(med(id_, mode, field),
                                    med(id_, over, field))

    big = "grow_m%d" % max((x_ for k, x_, i, o in growth
                            if k == "messages"), default=0)
    t64 = "grow_t%d" % max((x_ for k, x_, i, o in growth if k == "tasks"),
                           default=0)
    target("13: SOR 4 comm-log bytes per send/recv event",
           med("sor", "log", None, fn=per("log_comm", "events")), 8, "B")
    target("13: writing one event (logio)", med("logio", "raw", "write_ns"),
           40, "ns")
    target("13: reading one event (logio)", med("logio", "raw", "read_ns"),
           40, "ns")
    target("13: 8 B round trip, record / raw", x("pp8", "log", "us"), 1.03,
           "x")
    target("13: 8 B round trip, replay / raw", x("pp8", "replay", "us"),
           1.05, "x")
    target("13: stream of %s msgs, 4 tasks, record / raw" % big[6:],
           x(big, "log", "us"), 1.05, "x")
    target("13: same, replay / raw", x(big, "replay", "us"), 1.10, "x")
    target("13: same, whole program wall (checks included), replay",
           x(big, "replay", "wall"), 1.15, "x")
    target("13: stream with %s tasks, replay / raw" % t64[6:],
           x(t64, "replay", "us"), 1.10, "x")
    target("13: fan-in of 16 senders, replay / raw",
           x("fanin16", "replay", "us"), 1.10, "x")

    def flatness(ids, mode, field):
        """Growth: the largest median over the one at the smallest size
        (ids in increasing size).  A cost that falls as fixed costs are
        amortized is flat enough; one that rises is not."""
        v = [med(i, mode, field) for i in ids]
        v = [x for x in v if x is not None]
        return max(v) / v[0] if len(v) >= 2 and v[0] > 0 else None

    def spread_of(ids, mode, field):
        v = [med(i, mode, field) for i in ids]
        v = [x for x in v if x is not None]
        return max(v) / min(v) if len(v) >= 2 and min(v) > 0 else None

    mid = [i for k, x, i, o in growth if k == "messages"]
    tid = [i for k, x, i, o in growth if k == "tasks"]
    target("replay memory flat in log length (max / first, %s msgs)"
           % "..".join((mid[0][6:], mid[-1][6:])) if mid else "replay memory",
           flatness(mid, "replay", "hwm_kb"), 1.10, "x")
    # Largest over smallest, not over the first point: a curve that dips
    # then rises (fixed costs amortized, then growth) must not look flat.
    for mode, what in (("log", "recording"), ("replay", "replay")):
        for ids, over in ((mid, "messages"), (tid, "tasks")):
            fl = flatness(ids, mode, "us")
            target("%s us/msg flat in %s (max/min; max/first %s)"
                   % (what, over, "%.2f" % fl if fl else "-"),
                   spread_of(ids, mode, "us"), 1.25, "x")

    # ---- instructions added per message (insn.txt, bench/insn.sh) -------
    insn = insn_table(res)

    # ---- output -------------------------------------------------------------
    lines = []
    reps = machine.get("reps", "?")
    lines.append("Pangaea benchmarks: medians over interleaved runs "
                 "(raw, -none, -log, -replay), reps %s" % reps)
    lines.append("machine: %s, %s cores, %s; %s" % (
        machine.get("cpu", "?"), machine.get("nproc", "?"),
        machine.get("kernel", "?"), machine.get("commit", "?")))
    lines.append("cpu_dma_latency: %s; load average before %s, after %s" % (
        machine.get("cpu_dma_latency", "?"), machine.get("loadavg before", "?"),
        machine.get("loadavg after", "?")))
    hdr = "%-60s %9s %9s %9s %9s %8s %8s %8s" % (
        "", "raw", "-none", "-log", "-replay", "none/raw", "log/raw",
        "rep/raw")
    section = None
    for sec, id_, label, unit, m, n in table:
        if sec != section:
            lines.append("")
            lines.append("%s%s" % (sec, "" if sec == S3 else ""))
            lines.append(hdr)
            section = sec
        raw = m.get("raw")
        cells = [fmt(m.get(k)) for k in MODES]
        rat = [fmt(pratio(sec, label, k, raw, m.get(k))) if k in m and raw
               else "-" for k in ("none", "log", "replay")]
        lines.append("  %-58s %9s %9s %9s %9s %8s %8s %8s" % (
            (label + (" (%s)" % unit if unit else ""))[:58], *cells, *rat))
    lines.append("")
    lines.append(reproduced)
    lines += [""] + insn
    lines.append("")
    lines.append("targets (issues 8, 13 and 18)")
    for what, shown, lim, verdict in targets:
        lines.append("  %-66s %9s  %-9s %s" % (what[:66], shown, lim,
                                                verdict))
    lines.append("")
    lines.append("%s; %s" % (machine.get("duration", ""),
                             machine.get("failed runs", "?") + " failed runs"))
    print("\n".join(lines))

    with open(os.path.join(res, "latest.csv"), "w") as f:
        f.write("section,id,what,unit,raw,none,log,replay,"
                "none_ratio,log_ratio,replay_ratio,"
                "none_ratio_q1-q3,log_ratio_q1-q3,replay_ratio_q1-q3,runs,"
                + ",".join("%s_min,%s_max" % (k, k) for k in MODES) + "\n")
        for sec, id_, label, unit, m, n in table:
            raw = m.get("raw")
            vals = ["" if m.get(k) is None else "%.6g" % m[k] for k in MODES]
            rats = ["" if pratio(sec, label, k, raw, m.get(k)) is None
                    else "%.4f" % pratio(sec, label, k, raw, m.get(k))
                    for k in ("none", "log", "replay")]
            rats += [pspread(sec, label, k) for k in ("none", "log", "replay")]
            mm = []
            for k in MODES:
                lo_hi = spread.get((sec, label), {}).get(k)
                mm += ["%.6g" % lo_hi[0], "%.6g" % lo_hi[1]] if lo_hi else ["", ""]
            f.write(",".join(['"%s"' % sec, id_, '"%s"' % label, unit]
                             + vals + rats + [str(n)] + mm) + "\n")

    with open(os.path.join(res, "latest.md"), "w") as f:
        section = None
        for sec, id_, label, unit, m, n in table:
            if sec != section:
                f.write("\n**%s**\n\n" % sec)
                f.write("| | raw | -none | -log | -replay | none/raw | "
                        "log/raw | replay/raw |\n")
                f.write("|---|---:|---:|---:|---:|---:|---:|---:|\n")
                section = sec
            raw = m.get("raw")
            cells = [fmt(m.get(k)) for k in MODES]
            rat = [fmt(pratio(sec, label, k, raw, m.get(k))) +
                   (" (%s)" % pspread(sec, label, k)
                    if pspread(sec, label, k) else "")
                   if k in m and raw else "-"
                   for k in ("none", "log", "replay")]
            f.write("| %s | %s |\n" % (label + (" (%s)" % unit if unit else ""),
                                       " | ".join(cells + rat)))
        f.write("\n%s.\n\n" % reproduced)
        if len(insn) > 1:
            f.write("%s\n\n" % insn[0])
            f.write("| per message | raw | -log adds | -replay adds | "
                    "-log adds per event | -replay adds per event | reps |\n")
            f.write("|---|---:|---:|---:|---:|---:|---:|\n")
            for row_ in insn_rows(res):
                f.write("| %s | %d | %+d | %+d | %+d | %+d | %d |\n" % row_)
            f.write("\n")
        f.write("| target (issues 8, 13) | measured | limit | verdict |\n")
        f.write("|---|---:|---:|---|\n")
        for what, shown, lim, verdict in targets:
            f.write("| %s | %s | %s | %s |\n" % (what, shown, lim, verdict))

    svg(os.path.join(res, "growth.svg"), d, growth)
    return 0


# ---- instructions added per message -------------------------------------------
INSN_LABELS = {
    "pp8": "8 B round trip (a send and a receive)",
    "stream4": "stream, 4 tasks, per receive",
    "stream64": "stream, 64 tasks, per receive",
}


def insn_rows(res):
    """(label, raw, log adds, replay adds, log per event, replay per
    event, reps): medians over the repetitions of bench/insn.sh."""
    try:
        rows = load(os.path.join(res, "insn.txt"))
    except OSError:
        return []
    out = []
    for id_ in INSN_LABELS:
        mine = [r for r in rows if r["id"] == id_]
        if not mine:
            continue
        per = int(mine[0].get("per", "1"))
        raw, log, rep = (statistics.median(num(r[k]) for r in mine)
                         for k in ("raw", "log", "replay"))
        out.append((INSN_LABELS[id_], raw, log, rep, log / per, rep / per,
                    len(mine)))
    return out


def insn_table(res):
    rows = insn_rows(res)
    if not rows:
        return ["instructions added per message: not measured (valgrind)"]
    lines = ["instructions per message of the first task (callgrind, "
             "bench/insn.sh; medians), and what Pangaea adds"]
    lines.append("  %-40s %8s %9s %9s %9s %9s" % (
        "", "raw", "log adds", "rep adds", "log/ev", "rep/ev"))
    for label, raw, log, rep, lpe, rpe, n in rows:
        lines.append("  %-40s %8d %+9d %+9d %+9d %+9d" % (
            label, raw, log, rep, lpe, rpe))
    return lines


# ---- the plot -----------------------------------------------------------------
COLORS = {"raw": "#444444", "log": "#d62728", "replay": "#1f77b4"}


def panel(out, x0, y0, w, h, title, xlabel, ylabel, series, xlog_base):
    """One log-x panel; series: {mode: [(x, y), ...]}; y axis from 0."""
    pts = [p for s in series.values() for p in s]
    if not pts:
        return
    xs = [math.log(p[0], xlog_base) for p in pts]
    xmin, xmax = min(xs), max(xs)
    if xmax == xmin:
        xmax = xmin + 1
    ymax = max(p[1] for p in pts) * 1.15 or 1
    mag = 10 ** math.floor(math.log10(ymax))
    step = next(s * mag for s in (0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5)
                if ymax / (s * mag) <= 6)
    ymax = math.ceil(ymax / step) * step
    L, R, T, Bm = 60, 10, 28, 40
    pw, ph = w - L - R, h - T - Bm

    def X(v):
        return x0 + L + (math.log(v, xlog_base) - xmin) / (xmax - xmin) * pw

    def Y(v):
        return y0 + T + ph - v / ymax * ph

    out.append('<text x="%.1f" y="%.1f" font-size="13" font-weight="bold">'
               '%s</text>' % (x0 + L, y0 + 18, title))
    out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" '
               'fill="none" stroke="#999"/>' % (x0 + L, y0 + T, pw, ph))
    y = 0.0
    while y <= ymax + 1e-9:
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                   'stroke="#eee"/>' % (x0 + L, Y(y), x0 + L + pw, Y(y)))
        out.append('<text x="%.1f" y="%.1f" font-size="10" text-anchor="end">'
                   '%s</text>' % (x0 + L - 4, Y(y) + 3, fmt(y)))
        y += step
    for xv in sorted({p[0] for p in pts}):
        lab = ("10^%d" % round(math.log10(xv))
               if xlog_base == 10 and xv >= 1000 else "%d" % xv)
        out.append('<text x="%.1f" y="%.1f" font-size="10" '
                   'text-anchor="middle">%s</text>' % (X(xv), y0 + T + ph + 14,
                                                       lab))
    out.append('<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle">'
               '%s</text>' % (x0 + L + pw / 2, y0 + h - 6, xlabel))
    out.append('<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle" '
               'transform="rotate(-90 %.1f %.1f)">%s</text>' % (
                   x0 + 14, y0 + T + ph / 2, x0 + 14, y0 + T + ph / 2, ylabel))
    for i, (mode, s) in enumerate(series.items()):
        s = sorted(s)
        if not s:
            continue
        c = COLORS.get(mode, "#2ca02c")
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" '
                   'points="%s"/>' % (c, " ".join("%.1f,%.1f" % (X(a), Y(b))
                                                 for a, b in s)))
        for a, b in s:
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (
                X(a), Y(b), c))
        out.append('<text x="%.1f" y="%.1f" font-size="11" fill="%s">%s'
                   '</text>' % (x0 + L + 8 + 70 * i, y0 + T + 14, c, mode))


def svg(path, d, growth):
    out = []
    W, H = 900, 620
    out.append('<svg xmlns="http://www.w3.org/2000/svg" width="%d" '
               'height="%d" font-family="sans-serif">' % (W, H))
    out.append('<rect width="100%" height="100%" fill="white"/>')
    for col, kind, base, xl in ((0, "tasks", 2, "tasks (messages fixed)"),
                                (1, "messages", 10,
                                 "messages (tasks fixed)")):
        pts = [(x, i) for k, x, i, o in growth if k == kind]
        if not pts:
            continue
        other = next(o for k, x, i, o in growth if k == kind)
        for rowi, field, ylab, modes in (
                (0, "us", "us per message", ["raw", "log", "replay"]),
                (1, "hwm_kb", "peak kB, receiving task",
                 ["raw", "log", "replay"])):
            series = {m: [(x, d.median(i, m, field)) for x, i in pts
                          if d.median(i, m, field) is not None]
                      for m in modes}
            title = ("%s vs %s (%s %d)" % (
                "time per message" if field == "us" else "peak memory",
                kind, "messages" if kind == "tasks" else "tasks", other))
            panel(out, col * W / 2, rowi * H / 2, W / 2, H / 2, title, xl,
                  ylab, series, base)
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    sys.exit(main())
