#!/usr/bin/env bash
# test_mpi_debug.sh - `pangaea -replay -debug LTID[:EVENT]` of an MPI run
# (src/mpi/mpi_stop.c: gdb attaches to the rank through
# pangaea-debugger.sh), on tests/programs/mpi_master.c, 4 ranks:
# - MPICH, inside tmux (a private server, -L, killed at the end): -debug
#   1:2 opens gdb in a new window; it shows the rank at recorded event 2
#   in the program's own frame (mpi_master.c); pangaea says which event
#   (MPI_Recv) and the pid; `next` steps a line of the program, not of
#   Pangaea's library; `continue` ends the replay with exactly the
#   recorded output, exit 0;
# - MPICH, outside tmux: -debug 2 (no event) puts gdb in a tmux session of
#   pangaea's own (its socket named), the rank in MPI_Init; `continue`
#   ends the replay as recorded;
# - Open MPI, inside tmux: -debug 1:2, `continue`, the recorded output;
# - -debug past the rank's last event is refused (exit 2), nothing run.
# Unrecorded runs differ (test_mpi.sh shows it): an equal output means
# the replay went on as recorded after gdb.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debug_lib.sh"

pg_need_mpich
command -v gdb >/dev/null && command -v tmux >/dev/null ||
    pg_skip "gdb and tmux are needed (scripts/install-deps.sh test installs them)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
P=$PG_BUILD/pangaea
TM="tmux -L pangaea-test-mpidebug-$$"
sock=
cleanup_tmux() {
    $TM kill-server 2>/dev/null
    [ -n "$sock" ] && tmux -S "$sock" kill-server 2>/dev/null
}
trap 'cleanup_tmux; pg_cleanup' EXIT
trap 'cleanup_tmux; pg_cleanup; trap - EXIT; exit 130' INT
trap 'cleanup_tmux; pg_cleanup; trap - EXIT; exit 143' TERM
dir=$(pg_tmpdir)
cd "$dir" || exit 1


# in_window NAME LOGS LAUNCHER...: -replay -debug 1:2 in window 1 of our
# tmux server; gdb there at event 2 in mpi_master.c; next; continue.
in_window() {
    local name=$1 logs=$2 stepped
    shift 2
    $TM -f /dev/null new-session -d -x 220 -y 50 -s "$name"
    $TM send-keys -t "$name:0" "timeout 120 $P -replay -debug 1:2 -logdir $logs $* >$name.out 2>$name.err; echo pangaea-exit-\$? >$name.rc" Enter
    if wait_pane "$name:1" 60 "ltid 1 is at recorded event 2 " &&
        wait_pane "$name:1" 30 "at tests/programs/mpi_master\.c:[0-9]+" &&
        grep -Eq "ltid 1 \(rank 0\) is at event 2: MPI_Recv from ltid [234], tag 1, pid [0-9]+: gdb attaches to it" "$name.err"; then
        pg_pass "$name: -debug 1:2 in tmux: gdb's window shows rank 0 at event 2 in mpi_master.c"
    else
        pg_fail "$name: -debug 1:2 in tmux: window 1:"; pane "$name:1" | tail -12; cat "$name.err"
    fi
    $TM send-keys -t "$name:1" "next" Enter
    for _ in $(seq 100); do
        pane "$name:1" | sed -n '/(gdb) next/,$p' | sed 1d | grep -q '^(gdb)' && break
        sleep 0.1
    done
    stepped=$(pane "$name:1" | sed -n '/(gdb) next/,$p' | sed -n 2p)
    if grep -Eq '^[0-9]+[[:space:]]' <<<"$stepped"; then
        pg_pass "$name: -debug: next steps a line of the program ($(cut -c1-50 <<<"$stepped"))"
    else
        pg_fail "$name: -debug: next did not step the program's line:"; pane "$name:1" | tail -8
    fi
    $TM send-keys -t "$name:1" "continue" Enter
    wait_for "$name.rc" 60 "pangaea-exit-"
    if grep -q "pangaea-exit-0" "$name.rc" && cmp -s rec.out "$name.out"; then
        pg_pass "$name: -debug: continue ends the replay with exactly the recorded output, exit 0"
    else
        pg_fail "$name: -debug: $(cat "$name.rc" 2>/dev/null); output:"; diff rec.out "$name.out" | head; cat "$name.err"
    fi
    $TM send-keys -t "$name:1" "quit" Enter
}

PROG=$PG_BUILD/tests/mpich/mpi_master
timeout 60 "$P" -log -logdir rec mpiexec.mpich -n 4 "$PROG" >rec.out 2>rec.err ||
    { pg_fail "recording mpi_master"; cat rec.err; pg_summary; exit 1; }
in_window mpich rec mpiexec.mpich -n 4 "$PROG"

# --- outside tmux: a session of pangaea's own, gdb in MPI_Init ---------------
mkdir -m 700 xdg
( unset TMUX; export TMPDIR=$dir XDG_RUNTIME_DIR=$dir/xdg
  timeout 120 "$P" -replay -debug 2 -logdir rec mpiexec.mpich -n 4 "$PROG" >own.out 2>own.err ) &
runner=$!
wait_for own.err 30 "tmux -S [^ ]+ attach" &&
    sock=$(grep -Eo 'tmux -S [^ ]+ attach' own.err | awk '{print $3}')
ok=
[ -n "$sock" ] && TM="tmux -S $sock" wait_pane pangaea 60 "ltid 2 is in MPI_Init" && ok=1
[ -n "$ok" ] && tmux -S "$sock" send-keys -t pangaea "continue" Enter
rc=0; wait "$runner" || rc=$?
if [ -n "$ok" ] && [ "$rc" -eq 0 ] && cmp -s rec.out own.out &&
    grep -q "ltid 2 (rank 1) is in MPI_Init, pid [0-9]*: gdb attaches to it" own.err; then
    pg_pass "MPICH: -debug 2 outside tmux: gdb in pangaea's own tmux session, rank 1 in MPI_Init; continue: the recorded output"
else
    pg_fail "MPICH: -debug 2 outside tmux: socket '$sock', gdb there: ${ok:-no}, exit $rc"; cat own.err
fi
[ -n "$sock" ] && tmux -S "$sock" kill-server 2>/dev/null
sock=

# --- past the last event: refused before anything runs -------------------------
rc=0
timeout 60 "$P" -replay -debug 1:999999 -logdir rec mpiexec.mpich -n 4 "$PROG" >far.out 2>far.err || rc=$?
if [ "$rc" -eq 2 ] && grep -q "1:999999: ltid 1's recording ends at event [0-9]*" far.err && [ ! -s far.out ]; then
    pg_pass "MPICH: -debug past the rank's last event: refused (exit 2), nothing run"
else
    pg_fail "MPICH: -debug 1:999999: exit $rc"; cat far.err
fi

# --- Open MPI ------------------------------------------------------------------
if command -v mpiexec.openmpi >/dev/null; then
    OPROG=$PG_BUILD/tests/openmpi/mpi_master
    timeout 60 "$P" -log -logdir orec mpiexec.openmpi --oversubscribe -n 4 "$OPROG" \
        >rec.out 2>orec.err || pg_fail "Open MPI: recording mpi_master"
    in_window openmpi orec mpiexec.openmpi --oversubscribe -n 4 "$OPROG"
else
    pg_fail "Open MPI is not installed (scripts/install-deps.sh test installs it)"
fi

pg_summary
