#!/usr/bin/env bash
# bench/run.sh - what `make bench` runs: Pangaea against raw PVM.
#
#   bash bench/run.sh [--quick] [--reps N]
#
# Starts ONE private pvmd (tests/e2e/lib.sh: its own PVM_TMP, halted at the
# end, also on failure or ^C), then runs every benchmark of bench/*.c and
# the SOR demo raw (the program alone on that pvmd) and under
# `pangaea -none`, `-log` and `-replay`, INTERLEAVED: raw, none, log,
# replay, raw, none, ...  so that drift of the machine hits every mode
# alike.  Each replay replays the recording made just before it.  Growth
# runs leave out -none.  Afterwards bench/report.py takes medians and
# writes the table (stdout), bench/results/latest.csv, latest.md and
# growth.svg.
#
# Figures per call come from the programs themselves (their timed section,
# clock_gettime, after spawn and warm-up: see bench/bench.h); whole-program
# figures are the wall time of the command, start-up, pvmd round trips and
# (for -replay) checking the logs included.  Each run's raw results go to
# bench/results/runs.txt, one line per run:
#     id=ID mode=MODE rep=R wall=SECONDS [key=value ...]
# with the program's BENCH fields, and for -log runs the size of the logs
# (log_comm bytes of ltid-*.comm.pgc, log_all bytes of all logs, events =
# <send> + <recv> elements of `pangaea -dump`, recvs = <recv> elements), and for runs under
# pangaea the peak memory of `pangaea` itself (top_kb, when /usr/bin/time
# is there); pvmd_cpu is the CPU time (s) the pvmd used during the run.
#
# The vCPUs of a virtual machine that go idle take tens of microseconds to
# wake up, and a round trip through the pvmd wakes three processes: raw
# round trips then measure 20 to 100 us depending on what else the machine
# does.  So, unless --idle is given, the script holds /dev/cpu_dma_latency
# at 0 while it runs (the kernel's PM QoS interface: idle CPUs poll instead
# of halting; released when the script ends), and the figures are the
# software's costs rather than the hypervisor's wake-up latency.
#
# --quick: one repetition, small sizes, results in bench/results/quick/: a
# smoke test of the whole chain.  --only ID runs that benchmark alone and
# prints its runs (no report): e.g. --only pp8live, `-log -live` (the live
# view, issue 18) against `-log` on the 8 B round trip, interleaved.
#
# Race-only recordings (`-log -min`, issue 15): for SOR, the 8-byte round
# trip and a master/worker program (stream: workers to a master that takes
# any sender), one -log recording each, its comm log bytes, then the same
# logs pruned by `pangaea -min` (bytes, and the wall time that pruning
# adds at the end of a `-log -min` run): bench/results/min.md, printed at
# the end.  --min-only runs only this part (into bench/results/min-only/).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B="$ROOT/build"
OUT="$ROOT/bench/results"
REPS=15       # per-call benchmarks and SOR: paired ratios, see report.py
GREPS=3       # growth points
QUICK=0
IDLE=0
ONLY=
MINONLY=0
while [ $# -gt 0 ]; do
    case $1 in
    --quick) QUICK=1 ;;
    --idle) IDLE=1 ;;
    --min-only) MINONLY=1 ;;
    --reps) REPS=$2; shift ;;
    --only) ONLY=$2; shift ;;
    *) echo "usage: bench/run.sh [--quick] [--idle] [--reps N] [--only ID] [--min-only]" >&2; exit 2 ;;
    esac
    shift
done

# Sizes: each timed section well under a second or two (SOR: a few
# seconds), so that the whole of `make bench` stays under 10 minutes on a
# 2-core machine.  One point of growth (10^6 messages) runs once.
PP8_N=10000 PP64_N=1500 FANIN_M=10000 MCAST_N=5000 POLL_N=200000 SPAWN_N=16 CLOCK_N=1000000
SOR_ARGS="4 4000 500" LOGIO_N=200000
GROWTH_T="2 4 8 16 32 64" GROWTH_T_M=20000
GROWTH_M="1000 10000 100000" GROWTH_BIG=1000000 GROWTH_M_T=4
if [ "$QUICK" = 1 ]; then
    OUT="$OUT/quick"      # never overwrites the figures of a full run
    REPS=1 GREPS=1
    PP8_N=1000 PP64_N=200 FANIN_M=1000 MCAST_N=500 POLL_N=20000 SPAWN_N=4 CLOCK_N=100000
    SOR_ARGS="4 200 200" LOGIO_N=20000
    GROWTH_T="2 8" GROWTH_T_M=2000 GROWTH_M="1000 10000" GROWTH_BIG=
fi

[ -n "$ONLY" ] && OUT="$OUT/only-$ONLY" # never overwrites a full run's
[ "$MINONLY" = 1 ] && OUT="$OUT/min-only" # the full run's figures stay
PROGS="pingpong mcast poll spawn stream fanin sor logio clock"
for f in pangaea pangaea-coord libpangaea.so $(printf 'bench/%s ' $PROGS); do
    [ -e "$B/$f" ] || { echo "bench: $B/$f missing: run make bench" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "bench: needs python3 for the report" >&2; exit 1; }

# shellcheck source=../tests/e2e/lib.sh
source "$ROOT/tests/e2e/lib.sh"
pg_pvm_start || exit 1
QOS="not held (--idle)"
if [ "$IDLE" = 0 ]; then
    if { exec 9>/dev/cpu_dma_latency; } 2>/dev/null; then
        printf 0 >&9 && QOS="held at 0 (idle CPUs poll)"
    else
        QOS="could not be held (not root?)"
    fi
fi
TICK=$(getconf CLK_TCK 2>/dev/null || echo 100)
WORK=$(pg_tmpdir)     # logs and outputs of this run; removed at exit
# Run a snapshot of the binaries, so that a rebuild of build/ while the
# benchmarks run (make in another shell) cannot change or break them.
# `pangaea` finds the library and the coordinator beside itself.
BIN="$WORK/bin"
mkdir -p "$BIN"
cp "$B/pangaea" "$B/pangaea-coord" "$B/libpangaea.so" "$BIN/" || exit 1
for f in $PROGS; do cp "$B/bench/$f" "$BIN/" || exit 1; done
mkdir -p "$OUT"
RUNS="$OUT/runs.txt"
: >"$RUNS"
FAILED=0
T_START=$EPOCHREALTIME

# Seconds between two $EPOCHREALTIME stamps.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", b - a }'; }

TIMEV=
[ -x /usr/bin/time ] && TIMEV=/usr/bin/time

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "nproc: $(nproc)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
    echo "kernel: $(uname -sr)"
    echo "pvm: $(dpkg-query -W -f='${Version}' pvm 2>/dev/null || echo '?')"
    echo "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" status --porcelain 2>/dev/null | grep -q . && echo ' (with uncommitted changes)')"
    echo "loadavg before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "reps: $REPS (growth: $GREPS)"
    echo "cpu_dma_latency: $QOS"
} >"$OUT/machine.txt"

# Sizes of the logs in DIR: log_comm, log_all, events, recvs.
log_stats() {
    local dir=$1 comm all ev rv
    comm=$(cat "$dir"/ltid-*.comm.pgc 2>/dev/null | wc -c)
    all=$(cat "$dir"/ltid-*.comm.pgc "$dir"/ltid-*.exec.xml 2>/dev/null | wc -c)
    "$ROOT/build/pangaea" -dump "$dir" >"$dir.dump.xml" 2>/dev/null
    ev=$(grep -cE '^[[:space:]]*<(send|recv)[[:space:]>/]' "$dir.dump.xml")
    rv=$(grep -cE '^[[:space:]]*<recv[[:space:]>/]' "$dir.dump.xml")
    rm -f "$dir.dump.xml"
    echo "log_comm=$comm log_all=$all events=$ev recvs=$rv"
}

# CPU time the pvmd has used so far, in clock ticks.
pvmd_ticks() { awk '{ print $14 + $15 }' "/proc/$PG_PVMD_PID/stat" 2>/dev/null || echo 0; }

# run ID MODE REP PROGRAM ARGS...: one run; appends its line to $RUNS.
run() {
    local id=$1 mode=$2 rep=$3 out err t0 t1 rc=0 fields line extra= k0 k1
    local how="-$mode"
    shift 3
    [ "$mode" = live ] && how="-log -live" # a recording, watched
    out="$WORK/$id.$mode.out"
    err="$WORK/$id.$mode.err"
    mkdir -p "$WORK/logs/$id"
    k0=$(pvmd_ticks)
    t0=$EPOCHREALTIME
    if [ "$mode" = raw ]; then
        timeout 600 "$@" >"$out" 2>"$err" 9>&- || rc=$?
    elif [ -n "$TIMEV" ]; then
        timeout 600 "$TIMEV" -f 'top_kb=%M' -o "$WORK/time.txt" \
            "$BIN/pangaea" $how -logdir "$WORK/logs/$id" "$@" \
            >"$out" 2>"$err" 9>&- || rc=$?
    else
        timeout 600 "$BIN/pangaea" $how -logdir "$WORK/logs/$id" "$@" \
            >"$out" 2>"$err" 9>&- || rc=$?
    fi
    t1=$EPOCHREALTIME
    k1=$(pvmd_ticks)
    if [ "$rc" -ne 0 ]; then
        FAILED=$((FAILED + 1))
        echo "bench: FAILED ($rc): $id $mode: $*" >&2
        tail -n 5 "$err" >&2
        return 1
    fi
    [ "$mode" != raw ] && [ -n "$TIMEV" ] && extra="$(tail -n 1 "$WORK/time.txt")"
    [ "$mode" = log ] && extra="$extra $(log_stats "$WORK/logs/$id")"
    # A replay must print what its recording printed.
    if [ "$mode" = log ]; then
        sed 's/^\[[0-9]*\] //' "$out" | grep -v '^BENCH ' >"$WORK/$id.logged"
    elif [ "$mode" = replay ]; then
        if sed 's/^\[[0-9]*\] //' "$out" | grep -v '^BENCH ' |
               cmp -s - "$WORK/$id.logged"; then
            extra="$extra same=1"
        else
            extra="$extra same=0"
        fi
    fi
    fields=$(sed 's/^\[[0-9]*\] //' "$out" | grep '^BENCH ' | sed 's/^BENCH //')
    line="id=$id mode=$mode rep=$rep wall=$(elapsed "$t0" "$t1") pvmd_cpu=$(awk -v a="$k0" -v b="$k1" -v t="$TICK" 'BEGIN { printf "%.2f", (b - a) / t }') $extra"
    if [ -z "$fields" ]; then
        echo "$line" >>"$RUNS"
    else
        # A program may print several BENCH lines (poll): one row each.
        while IFS= read -r f; do
            echo "$line $f" >>"$RUNS"
        done <<<"$fields"
    fi
    return 0
}

# bench ID REPS MODES PROGRAM ARGS...: REPS rounds of MODES, interleaved.
bench() {
    local id=$1 reps=$2 modes=$3 r m
    shift 3
    [ -n "$ONLY" ] && [ "$ONLY" != "$id" ] && return 0
    printf 'bench: %-14s' "$id" >&2
    for r in $(seq "$reps"); do
        for m in $modes; do
            run "$id" "$m" "$r" "$@" || true
        done
        printf '.' >&2
    done
    printf ' %.0f s so far\n' "$(elapsed "$T_START" "$EPOCHREALTIME")" >&2
}

# min_bench ID PROGRAM ARGS...: full vs race-only comm log bytes, and the
# time `pangaea -min` takes on that recording (a row of min.md).
min_bench() {
    local id=$1 d=$WORK/min-$1 full min t0 t1 kept
    shift
    rm -rf "$d"; mkdir -p "$d"
    if ! "$BIN/pangaea" -log -logdir "$d/full" "$@" >"$d/out" 2>&1; then
        echo "| $id | recording failed | | | | |" >>"$OUT/min.md"; FAILED=$((FAILED + 1)); return
    fi
    cp -r "$d/full" "$d/min"
    t0=$EPOCHREALTIME
    "$BIN/pangaea" -min "$d/min" 2>"$d/min.err" || FAILED=$((FAILED + 1))
    t1=$EPOCHREALTIME
    full=$(cat "$d"/full/ltid-*.comm.pgc | wc -c)
    min=$(cat "$d"/min/ltid-*.comm.pgc | wc -c)
    kept=$(sed -nE 's/.*now: ([0-9]+ of [0-9]+) receives kept.*/\1/p' "$d/min.err")
    printf '| %s | %s | %d | %d | %.1f%% | %.3f |\n' "$id" "$kept" "$full" "$min" \
        "$(awk -v a="$min" -v b="$full" 'BEGIN { print b ? 100 * a / b : 0 }')" \
        "$(elapsed "$t0" "$t1")" >>"$OUT/min.md"
}

min_all() {
    {
        echo "Race-only recordings (\`pangaea -log -min\`): communication log bytes, full and race-only"
        echo
        echo "| program | receives kept | full B | race-only B | ratio | -min s |"
        echo "|---|---|---|---|---|---|"
    } >"$OUT/min.md"
    # shellcheck disable=SC2086
    min_bench sor "$BIN/sor" $SOR_ARGS
    min_bench pp8 "$BIN/pingpong" 8 "$PP8_N"
    min_bench master_worker "$BIN/stream" 4 "$GROWTH_T_M"
}

# Instructions the runtime adds per message, by event kind (bench/insn.sh:
# callgrind on the first task, independent of the machine's load), into
# insn.txt: one line per repetition, id=ID per=EVENTS raw=I log=+I
# replay=+I, the counts per program message; per= says how many events of
# the first task each message is (a round trip: a send and a receive).
insn_all() {
    local reps=3 n1=5000 n2=10000 s1=8000 s2=16000
    : >"$OUT/insn.txt"
    command -v valgrind >/dev/null || { echo "bench: no valgrind: instruction counts left out" >&2; return; }
    [ "$QUICK" = 1 ] && reps=1 n1=1000 n2=2000 s1=1000 s2=2000
    printf 'bench: %-14s' "instructions" >&2
    insn_one pp8 2 "$reps" "$n1" "$n2" "$BIN/pingpong" 8
    insn_one stream4 1 "$reps" "$s1" "$s2" "$BIN/stream" 4
    insn_one stream64 1 "$reps" "$s1" "$s2" "$BIN/stream" 64
    printf ' %.0f s so far\n' "$(elapsed "$T_START" "$EPOCHREALTIME")" >&2
}

insn_one() {
    local id=$1 per=$2 reps=$3
    shift 3
    bash "$ROOT/bench/insn.sh" --reps "$reps" "$@" >"$WORK/insn.out" \
        2>>"$WORK/insn.err" || FAILED=$((FAILED + 1))
    sed "s/^/id=$id per=$per /" "$WORK/insn.out" >>"$OUT/insn.txt"
    printf '.' >&2
}

if [ "$MINONLY" = 1 ]; then
    min_all
    pg_pvm_stop
    cat "$OUT/min.md"
    [ "$FAILED" -eq 0 ]
    exit
fi

ALL="raw none log replay"
GROW="raw log replay"
bench pp8     "$REPS" "$ALL" "$BIN/pingpong" 8 "$PP8_N"
bench pp8live "$REPS" "log live" "$BIN/pingpong" 8 "$PP8_N"
bench pp64k   "$REPS" "$ALL" "$BIN/pingpong" 65536 "$PP64_N"
bench mcast3  "$REPS" "$ALL" "$BIN/mcast" 3 "$MCAST_N"
bench poll    "$REPS" "$ALL" "$BIN/poll" "$POLL_N"
# Clock and pid calls, recorded and replayed (src/pvm/wrap/wrap_time.c).
bench clock   "$REPS" "$ALL" "$BIN/clock" "$CLOCK_N"
bench spawn   "$REPS" "$ALL" "$BIN/spawn" "$SPAWN_N"
bench empty   "$REPS" "$ALL" "$BIN/poll" 1
# shellcheck disable=SC2086
bench sor     "$REPS" "$ALL" "$BIN/sor" $SOR_ARGS
# The log format alone (no PVM): write, read back, check, per event.
bench logio   3 raw "$BIN/logio" "$LOGIO_N" "$WORK"
# The fan-in a user tries first: 16 workers, no flow control (fanin.c).
bench fanin16 "$REPS" "$GROW" "$BIN/fanin" 16 "$FANIN_M"
for t in $GROWTH_T; do
    bench "grow_t$t" "$GREPS" "$GROW" "$BIN/stream" "$t" "$GROWTH_T_M"
done
for m in $GROWTH_M $GROWTH_BIG; do
    reps=$GREPS
    [ "$m" = "$GROWTH_BIG" ] && reps=1
    bench "grow_m$m" "$reps" "$GROW" "$BIN/stream" "$GROWTH_M_T" "$m"
done
min_all

T_END=$EPOCHREALTIME
{
    echo "loadavg after: $(cut -d' ' -f1-3 /proc/loadavg)"
    printf 'duration: %.0f s (runs only, build excluded)\n' "$(elapsed "$T_START" "$T_END")"
    echo "sor: $SOR_ARGS"
    echo "failed runs: $FAILED"
} >>"$OUT/machine.txt"

pg_pvm_stop
[ -z "$ONLY" ] && insn_all
if [ -n "$ONLY" ]; then # one benchmark: its runs, no report
    cat "$RUNS"
    [ "$FAILED" -eq 0 ]
    exit
fi
python3 "$ROOT/bench/report.py" "$OUT" || FAILED=$((FAILED + 1))
echo; cat "$OUT/min.md"
[ "$FAILED" -eq 0 ]
