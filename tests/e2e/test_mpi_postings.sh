#!/usr/bin/env bash
# test_mpi_postings.sh - an MPI replay reads its log ahead for the
# postings of MPI_Irecv (which message each took: src/mpi/mpi_log.c,
# read_postings) only in a rank that posts one, not in every rank at
# MPI_Init: a rank of blocking receives decoded its whole log twice, about
# 440 instructions an event (docs/mpi-notes.md, "Cost").  Checked from the
# system calls, not from time: strace counts the opens of each rank's
# communication log during a replay (MPICH).
# - tests/programs/mpi_hosts.c (MPI_Recv and MPI_Iprobe only, 3 ranks):
#   each rank opens its log as often as the others, and the replay prints
#   the recorded output;
# - tests/programs/mpi_wild.c (wildcard MPI_Irecv in rank 0, 4 ranks):
#   rank 0 opens its log twice as often as a rank of blocking receives
#   (the postings read when its first MPI_Irecv needs them; before, every
#   rank did), and 3 replays print the recorded output;
# - messages of a predefined type (MPI_INT), whose size the library asks
#   of MPI once, are logged with their size, sends and receives.
set -u
. "$(dirname "$0")/lib.sh"

pg_need_mpich
command -v strace >/dev/null ||
    pg_skip "strace is not installed (scripts/install-deps.sh test installs it)"
P=$PG_BUILD/pangaea
W=$(pg_tmpdir)

# opens TRACE PROG LTID: opens of ltid LTID's communication log by the
# ranks (the processes that ran PROG; pangaea itself opens logs too).
opens() {
    local pids
    pids=$(grep -E "^[0-9]+ +execve\(\"$2\"" "$1" | awk '{ print $1 }' | sort -u | paste -sd'|')
    grep -E "^($pids) +open(at)?\(.*/ltid-$3\.comm\.pgc\"" "$1" | grep -vc " = -1 "
}

# replay_traced NAME PROG N: records PROG on N ranks, replays it under
# strace; out in $W/NAME.{rec,rep}.out, the trace in $W/NAME.trace.
replay_traced() {
    local name=$1 prog=$2 n=$3
    if ! timeout 120 "$P" -log -logdir "$W/$name" mpiexec.mpich -n "$n" "$prog" \
           >"$W/$name.rec.out" 2>"$W/$name.rec.err"; then
        pg_fail "$name: recording failed"; tail -n 5 "$W/$name.rec.err"; return 1
    fi
    if ! timeout 180 strace -f -qq -e trace=execve,open,openat -o "$W/$name.trace" \
           "$P" -replay -logdir "$W/$name" mpiexec.mpich -n "$n" "$prog" \
           >"$W/$name.rep.out" 2>"$W/$name.rep.err" ||
       ! cmp -s "$W/$name.rec.out" "$W/$name.rep.out"; then
        pg_fail "$name: the traced replay failed or printed other output"
        diff "$W/$name.rec.out" "$W/$name.rep.out" | head -5
        tail -n 5 "$W/$name.rep.err"
        return 1
    fi
}

# A rank that reads its log once opens it as often as pg_logr_open does
# (more than once): the counts are compared, not taken as they are.
H=$PG_BUILD/tests/mpich/mpi_hosts WILD=$PG_BUILD/tests/mpich/mpi_wild
if replay_traced hosts "$H" 3 && replay_traced wild "$WILD" 4; then
    once="$(opens "$W/hosts.trace" "$H" 1) $(opens "$W/hosts.trace" "$H" 2) $(opens "$W/hosts.trace" "$H" 3)"
    one=${once%% *} r0=$(opens "$W/wild.trace" "$WILD" 1)
    if [ "$one" -gt 0 ] && [ "$once" = "$one $one $one" ]; then
        pg_pass "a replay of blocking receives (mpi_hosts) opens each rank's log alike ($once) and prints the recorded output"
    else
        pg_fail "a replay of blocking receives: opens of ltid 1-3's logs: $once (want one count, non-zero)"
    fi
    if [ "$r0" -eq $((2 * one)) ]; then
        pg_pass "a rank that posts a wildcard MPI_Irecv (mpi_wild's rank 0) reads its log a second time for the postings ($r0 opens), a rank of blocking receives does not ($one)"
    else
        pg_fail "opens of a rank's log: $r0 with wildcard MPI_Irecv, $one with blocking receives only (want twice as many)"
    fi
    # the sizes of predefined types are asked of MPI once (mpi_state.c):
    # mpi_hosts sends MPI_INT
    b=$("$P" -dump "$W/hosts" | grep -E '^ *<(send|recv) ' | grep -o 'bytes="[0-9]*"' | sort | uniq -c | xargs)
    if [ -n "$b" ] && [ "${b#* }" = bytes=4 ]; then
        pg_pass "every message of mpi_hosts (MPI_INT) is logged with 4 bytes, sends and receives"
    else
        pg_fail "the bytes of mpi_hosts's messages: $b (want 4 each)"
    fi
    ok=1
    for i in 1 2; do
        timeout 120 "$P" -replay -logdir "$W/wild" mpiexec.mpich -n 4 "$WILD" \
            >"$W/wild.$i.out" 2>/dev/null && cmp -s "$W/wild.rec.out" "$W/wild.$i.out" || ok=0
    done
    if [ "$ok" = 1 ]; then
        pg_pass "3 replays of wildcard MPI_Irecv print the recorded output"
    else
        pg_fail "a replay of wildcard MPI_Irecv printed other output"
    fi
fi
pg_summary
