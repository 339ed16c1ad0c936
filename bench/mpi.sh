#!/usr/bin/env bash
# bench/mpi.sh - the MPI part of `make bench`: Pangaea against raw MPI.
#
#   bash bench/mpi.sh [--quick] [--reps N] [--no-insn] [--no-prog | --prog-only]
#
# For each MPI built here (build/bench/mpich/mpibench,
# build/bench/openmpi/mpibench: bench/mpi/mpibench.c, two ranks on this
# machine, over shared memory), two benchmarks:
#   pp    8-byte ping-pong latency, rank 0 receiving with MPI_ANY_SOURCE
#   rate  message rate: windows of 64 8-byte messages, received with
#         MPI_Irecv(MPI_ANY_SOURCE) + MPI_Waitall
# each run raw (the launcher alone), under `pangaea -log` and under
# `pangaea -replay` of the recording made just before, INTERLEAVED (raw,
# log, replay, raw, log, ...: drift of the machine hits every mode alike).
# The figure of a run is the program's own median of 5 batches
# (microseconds a round trip or a message, after a warm-up); the report
# (bench/mpi_report.py) takes each round's -log / raw and -replay / raw,
# their median and quartiles over the rounds (paired ratios, as
# bench/report.py does for PVM), and checks the goals: recording <= 1.15x
# and replay <= 1.30x raw on the ping-pong.  A replay must end well
# (status 0), or the run counts as failed.
#
# Then a whole real program, unless --no-prog: Debian's HPCC (`hpcc`,
# built with Open MPI; tests/e2e/test_mpi_hpcc.sh runs it too) on its
# example input made small (N 200, NB 40), `mpiexec.openmpi
# --oversubscribe -n 4 hpcc`, raw, -log, -replay interleaved as above;
# its figure is the wall time of the whole command (launcher, pangaea's
# start and end included: what a user waits for), paired ratios again,
# against the goal <= 1.05x.  HPCC times itself with MPI_Wtime, which a
# replay gives back as recorded: its own figures say nothing of a
# replay's speed, so only the wall clock counts.  A replay must end well
# and write the recorded hpccoutf.txt byte for byte.  --prog-only: HPCC
# alone (no ping-pong, no rate, no callgrind).
#
# Then, unless --no-insn, bench/mpi_insn.sh counts with callgrind the
# instructions Pangaea adds a round in one rank (its `self` benchmark: a
# rank sending to itself, exact; and MPICH's ping-pong's rank 0, where
# only the library's own count is steady) and the library's functions
# that add the most: insn.txt.  Results go to bench/results/mpi/ (runs.txt,
# machine.txt, insn.txt, mpi.md; --quick: bench/results/quick/mpi/).
#
# As run.sh, holds /dev/cpu_dma_latency at 0 while it runs (idle CPUs
# poll rather than halt: wake-up latency of a virtual machine's vCPUs
# would otherwise be what a sub-microsecond ping-pong measures).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B="$ROOT/build"
OUT="$ROOT/bench/results/mpi"
REPS=9 PP_N=20000 RATE_N=64000 INSN=1 INSN_N="2000 4000" PROG=1 MICRO=1
while [ $# -gt 0 ]; do
    case $1 in
    --quick) OUT="$ROOT/bench/results/quick/mpi" REPS=1 PP_N=2000 RATE_N=6400 INSN_N="500 1000" ;;
    --reps) REPS=$2; shift ;;
    --no-insn) INSN=0 ;;
    --no-prog) PROG=0 ;;
    --prog-only) MICRO=0 INSN=0 ;;
    *) echo "usage: bench/mpi.sh [--quick] [--reps N] [--no-insn] [--no-prog | --prog-only]" >&2; exit 2 ;;
    esac
    shift
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # CI runs as root

MPIS=
for m in mpich openmpi; do
    l=mpiexec.$m
    if [ -x "$B/bench/$m/mpibench" ] && [ -e "$B/libpangaea-$m.so" ] &&
       command -v "$l" >/dev/null; then
        MPIS="$MPIS $m"
    else
        echo "bench/mpi.sh: $m left out (no $l, $B/bench/$m/mpibench or $B/libpangaea-$m.so)" >&2
    fi
done
[ -n "$MPIS" ] || { echo "bench/mpi.sh: no MPI to measure (make bench-programs)" >&2; exit 1; }
[ -x "$B/pangaea" ] || { echo "bench/mpi.sh: $B/pangaea missing: make" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pangaea-mpibench.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
trap 'rm -rf "$WORK"; trap - EXIT; exit 130' INT TERM
# A snapshot of the binaries: a rebuild while the benchmarks run cannot
# change them.  pangaea finds its MPI libraries beside itself.
BIN="$WORK/bin"
mkdir -p "$BIN"
cp "$B/pangaea" "$B/pangaea-coord" "$B"/libpangaea*.so "$BIN/" || exit 1
for m in $MPIS; do cp "$B/bench/$m/mpibench" "$BIN/mpibench.$m" || exit 1; done

QOS="could not be held (not root?)"
if { exec 9>/dev/cpu_dma_latency; } 2>/dev/null; then
    printf 0 >&9 && QOS="held at 0 (idle CPUs poll)"
fi
mkdir -p "$OUT"
RUNS="$OUT/runs.txt"
: >"$RUNS"
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "nproc: $(nproc)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
    echo "mpich: $(dpkg-query -W -f='${Version}' mpich 2>/dev/null || echo '?')"
    echo "openmpi: $(dpkg-query -W -f='${Version}' openmpi-bin 2>/dev/null || echo '?')"
    echo "hpcc: $(dpkg-query -W -f='${Version}' hpcc 2>/dev/null || echo '?')"
    echo "commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" status --porcelain 2>/dev/null | grep -q . && echo ' (with uncommitted changes)')"
    echo "loadavg before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "reps: $REPS (pp N=$PP_N, rate N=$RATE_N, 5 batches each)"
    echo "cpu_dma_latency: $QOS"
} >"$OUT/machine.txt"
FAILED=0

# run MPI KIND N MODE REP: one run; appends its line to $RUNS.
run() {
    local mpi=$1 kind=$2 n=$3 mode=$4 rep=$5 out=$WORK/out err=$WORK/err rc=0 t0 t1
    local cmd=("mpiexec.$mpi" -n 2 "$BIN/mpibench.$mpi" "$kind" "$n")
    t0=$EPOCHREALTIME
    if [ "$mode" = raw ]; then
        timeout 600 "${cmd[@]}" >"$out" 2>"$err" 9>&- || rc=$?
    else
        [ "$mode" = log ] && rm -rf "$WORK/logs"
        timeout 600 "$BIN/pangaea" "-$mode" -logdir "$WORK/logs" "${cmd[@]}" \
            >"$out" 2>"$err" 9>&- || rc=$?
    fi
    t1=$EPOCHREALTIME
    if [ "$rc" -ne 0 ] || ! grep -q '^BENCH ' "$out"; then
        FAILED=$((FAILED + 1))
        echo "bench/mpi.sh: FAILED ($rc): $mpi $kind $mode" >&2
        tail -n 5 "$err" >&2
        return 1
    fi
    echo "id=$mpi.$kind mode=$mode rep=$rep wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(sed -n 's/^BENCH //p' "$out" | head -n 1)" >>"$RUNS"
}

for mpi in $MPIS; do
    [ "$MICRO" = 1 ] || break
    for kind in pp rate; do
        n=$PP_N
        [ "$kind" = rate ] && n=$RATE_N
        printf 'bench/mpi.sh: %-8s %-5s' "$mpi" "$kind" >&2
        for r in $(seq "$REPS"); do
            for mode in raw log replay; do
                run "$mpi" "$kind" "$n" "$mode" "$r" || true
            done
            printf '.' >&2
        done
        echo >&2
    done
done

# run_hpcc MODE REP: one run of HPCC in $WORK/hpcc; appends its line to
# $RUNS (same=1: a replay wrote the recorded hpccoutf.txt).
run_hpcc() {
    local mode=$1 rep=$2 d=$WORK/hpcc rc=0 t0 t1 same=-
    local cmd=(mpiexec.openmpi --oversubscribe -n 4 hpcc)
    rm -f "$d/hpccoutf.txt"
    t0=$EPOCHREALTIME
    if [ "$mode" = raw ]; then
        (cd "$d" && timeout 600 "${cmd[@]}" >"$WORK/out" 2>"$WORK/err" 9>&-) || rc=$?
    else
        [ "$mode" = log ] && rm -rf "$WORK/hlogs"
        (cd "$d" && timeout 600 "$BIN/pangaea" "-$mode" -logdir "$WORK/hlogs" \
            "${cmd[@]}" >"$WORK/out" 2>"$WORK/err" 9>&-) || rc=$?
    fi
    t1=$EPOCHREALTIME
    [ "$mode" = log ] && cp "$d/hpccoutf.txt" "$WORK/hpcc.rec" 2>/dev/null
    if [ "$mode" = replay ]; then
        same=0
        cmp -s "$d/hpccoutf.txt" "$WORK/hpcc.rec" && same=1
    fi
    if [ "$rc" -ne 0 ] || [ ! -s "$d/hpccoutf.txt" ] || [ "$same" = 0 ]; then
        FAILED=$((FAILED + 1))
        echo "bench/mpi.sh: FAILED ($rc, same=$same): hpcc $mode" >&2
        tail -n 5 "$WORK/err" >&2
        return 1
    fi
    echo "id=openmpi.hpcc mode=$mode rep=$rep wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') same=$same" >>"$RUNS"
}

if [ "$PROG" = 1 ] && command -v hpcc >/dev/null &&
   [ -e "$BIN/libpangaea-openmpi.so" ] && command -v mpiexec.openmpi >/dev/null &&
   [ -e /usr/share/doc/hpcc/examples/_hpccinf.txt ]; then
    mkdir -p "$WORK/hpcc"
    sed 's/^1000  *Ns$/200          Ns/; s/^80  *NBs$/40           NBs/' \
        /usr/share/doc/hpcc/examples/_hpccinf.txt >"$WORK/hpcc/hpccinf.txt"
    printf 'bench/mpi.sh: %-8s %-5s' openmpi hpcc >&2
    for r in $(seq "$REPS"); do
        for mode in raw log replay; do
            run_hpcc "$mode" "$r" || true
        done
        printf '.' >&2
    done
    echo >&2
elif [ "$PROG" = 1 ]; then
    echo "bench/mpi.sh: HPCC left out (needs hpcc, mpiexec.openmpi and $B/libpangaea-openmpi.so: scripts/install-deps.sh test)" >&2
fi

# Instructions (callgrind): per MPI, self (exact); MPICH's pp too (the
# library's own count).  Open MPI's pp is left out: its rank under
# valgrind, polling shared memory, ran for over ten minutes on a loaded
# machine without ending.
if [ "$INSN" = 1 ] && command -v valgrind >/dev/null; then
    : >"$OUT/insn.txt"
    for mpi in $MPIS; do
        kinds=self
        [ "$mpi" = mpich ] && kinds="self pp"
        for kind in $kinds; do
            echo "bench/mpi.sh: callgrind, $mpi $kind" >&2
            top=0
            [ "$kind" = self ] && top=10
            # shellcheck disable=SC2086
            if bash "$ROOT/bench/mpi_insn.sh" --top "$top" "$mpi" $INSN_N "$kind" \
                   >"$WORK/insn.out" 2>"$WORK/insn.err"; then
                sed "s/^/mpi=$mpi kind=$kind /" "$WORK/insn.out" >>"$OUT/insn.txt"
            else
                FAILED=$((FAILED + 1))
                tail -n 3 "$WORK/insn.err" >&2
            fi
        done
    done
elif [ "$INSN" = 0 ]; then
    rm -f "$OUT/insn.txt" # no figures of an earlier run in this report
else
    echo "bench/mpi.sh: no valgrind: no instruction counts" >&2
fi

python3 "$ROOT/bench/mpi_report.py" "$OUT" || FAILED=$((FAILED + 1))
[ "$FAILED" -eq 0 ] || { echo "bench/mpi.sh: $FAILED runs failed" >&2; exit 1; }
