#!/usr/bin/env bash
# bench/mpi_insn.sh - instructions Pangaea's MPI library adds per message,
# counted by valgrind (callgrind) in one rank of an MPI benchmark: the MPI
# counterpart of bench/insn.sh, a figure the machine's load does not move.
#
#   bash bench/mpi_insn.sh [--reps R] [--keep DIR] [--top K] MPI N1 N2 BENCH
#   e.g.  bash bench/mpi_insn.sh mpich 2000 4000 pp
#
# MPI is mpich or openmpi (its launcher, mpiexec.mpich or mpiexec.openmpi,
# and build/bench/MPI/mpibench); BENCH is one of mpibench's:
#   self  one rank sending to itself (MPI_Isend, MPI_Recv(MPI_ANY_SOURCE),
#         MPI_Wait): the ping-pong's rank 0 without a peer; exact counts
#   pp    8-byte ping-pong, rank 0 counted (the other rank plain)
#   rate  windows of 64 messages, the receiver (rank 1) counted
# Each mode (raw, -log, -replay of the recording just made) runs with N1
# and with N2 as mpibench's N (5 batches of N rounds or messages), the
# counted rank under valgrind (through the launcher's MPMD form, -n 1
# VALGRIND-WRAPPER : -n 1 PROGRAM, for two ranks); the figure is
# (instructions at N2 - at N1) / (5 (N2 - N1)), per round (one send and
# one receive) or per message received, so start-up and warm-up cancel
# out.  A rank that waits for its peer polls its MPI a number of times
# that depends on timing (under valgrind and a loaded machine, thousands
# of instructions a round, either way): for pp and rate only own_log and
# own_replay (the library's own instructions) are steady; self's totals
# are exact to a few instructions.
# Prints one line per repetition:
#   rep=R raw=I log=+I replay=+I own_log=I own_replay=I
# (own_: what ran in libpangaea-MPI.so itself), then with --top K the K
# functions of the library (and of libc, where the library's calls land)
# that add most per round in the last repetition's -log and -replay,
# from callgrind_annotate of N2 minus N1.  With --keep DIR the profiles
# stay as DIR/MODE.N.out.  BUILD=DIR counts another build (before/after).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
REPS=1 KEEP= TOP=0
while :; do
    case "${1:-}" in
    --reps) REPS=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2; mkdir -p "$KEEP" || exit 1 ;;
    --top) TOP=$2; shift 2 ;;
    *) break ;;
    esac
done
usage="usage: bench/mpi_insn.sh [--reps R] [--keep DIR] [--top K] mpich|openmpi N1 N2 self|pp|rate"
[ $# -eq 4 ] || { echo "$usage" >&2; exit 2; }
MPI=$1 N1=$2 N2=$3 KIND=$4
case $MPI in
mpich) LAUNCHER=mpiexec.mpich ;;
openmpi) LAUNCHER=mpiexec.openmpi
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ;;
*) echo "$usage" >&2; exit 2 ;;
esac
case $KIND in self|pp|rate) ;; *) echo "$usage" >&2; exit 2 ;; esac
PROG=$BUILD/bench/$MPI/mpibench LIB=libpangaea-$MPI.so
command -v valgrind >/dev/null || { echo "bench/mpi_insn.sh: needs valgrind" >&2; exit 1; }
command -v "$LAUNCHER" >/dev/null || { echo "bench/mpi_insn.sh: $LAUNCHER is not installed" >&2; exit 1; }
[ -x "$PROG" ] || { echo "bench/mpi_insn.sh: $PROG missing: make bench-programs" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/pangaea-mpi-insn.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
trap 'rm -rf "$W"; trap - EXIT; exit 130' INT TERM
cat >"$W/under-vg" <<EOS
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$PROG" "\$@" 2>>"$W/vg.err"
EOS
chmod +x "$W/under-vg"

# The launcher's MPMD line: the counted rank under valgrind.
mpmd() {
    if [ "$KIND" = self ]; then
        echo "-n 1 $W/under-vg $KIND $1"
    elif [ "$KIND" = pp ]; then
        echo "-n 1 $W/under-vg $KIND $1 : -n 1 $PROG $KIND $1"
    else
        echo "-n 1 $PROG $KIND $1 : -n 1 $W/under-vg $KIND $1"
    fi
}

# count MODE N: the counted rank's instructions, all and in the library.
count() {
    local line
    rm -f "$W/cg.out"
    [ "$1" = log ] && rm -rf "$W/logs" && mkdir -p "$W/logs"
    read -ra line <<<"$(mpmd "$2")"
    if [ "$1" = raw ]; then timeout 900 "$LAUNCHER" "${line[@]}" >"$W/out" 2>&1
    else timeout 900 "$BUILD/pangaea" "-$1" -logdir "$W/logs" "$LAUNCHER" "${line[@]}" >"$W/out" 2>&1
    fi || { echo "bench/mpi_insn.sh: $1 run failed:" >&2; tail -3 "$W/out" >&2; return 1; }
    cp "$W/cg.out" "$W/$1.$2.out"
    [ -z "$KEEP" ] || cp "$W/cg.out" "$KEEP/$1.$2.out"
    printf '%s %s\n' "$(awk '/^summary:/ { print $2 }' "$W/cg.out")" \
        "$(callgrind_annotate --auto=no --threshold=100 --inclusive=no "$W/cg.out" |
           awk -v lib="$LIB]" 'index($0, lib) { gsub(",", "", $1); s += $1 } END { print s + 0 }')"
}

# Functions' self cost per round between the N1 and N2 profiles.
fn_costs() {
    local mode=$1 n
    for n in "$N1" "$N2"; do
        callgrind_annotate --auto=no --threshold=100 --inclusive=no "$W/$mode.$n.out" |
            awk '/^ *[0-9,]+ / { c = $1; gsub(",", "", c); $1 = ""; sub(/^ *\([ 0-9.%]*\) */, ""); print c "\t" $0 }' >"$W/fn.$mode.$n"
    done
    awk -F'\t' -v d="$(( 5 * (N2 - N1) ))" '
        NR == FNR { a[$2] = $1; next }
        { printf "%.1f\t%s\n", ($1 - a[$2]) / d, $2 }' "$W/fn.$mode.$N1" "$W/fn.$mode.$N2"
}

# The K functions of the library and of libc that MODE adds most to per
# round: its cost per round less raw's (libc's calls from MPI itself
# cancel).
top() {
    local mode=$1
    fn_costs raw >"$W/per.raw"
    fn_costs "$mode" >"$W/per.$mode"
    awk -F'\t' 'NR == FNR { a[$2] = $1; next }
                 { x = $1 - a[$2]; if (x >= 1) printf "%.1f\t%s\n", x, $2 }' \
        "$W/per.raw" "$W/per.$mode" | sort -t"$(printf '\t')" -k1,1gr |
        grep -E "$LIB|libc\.so" | head -n "$TOP" |
        awk -F'\t' -v m="$mode" '{ printf "top %s %7.1f %s\n", m, $1, $2 }'
}

rc=0
declare -A I O
for r in $(seq "$REPS"); do
    for n in "$N1" "$N2"; do
        for m in raw log replay; do
            read -r I[$m.$n] O[$m.$n] < <(count $m "$n") || rc=1
        done
    done
    [ "$rc" = 0 ] || break
    d=$(( 5 * (N2 - N1) ))
    raw=$(( (I[raw.$N2] - I[raw.$N1]) / d ))
    per() { echo $(( (${2}[$1.$N2] - ${2}[$1.$N1]) / d )); }
    echo "rep=$r raw=$raw log=+$(( $(per log I) - raw )) replay=+$(( $(per replay I) - raw )) own_log=$(per log O) own_replay=$(per replay O)"
done
if [ "$rc" = 0 ] && [ "$TOP" -gt 0 ]; then
    top log
    top replay
fi
exit $rc
