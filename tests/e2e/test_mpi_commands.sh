#!/usr/bin/env bash
# test_mpi_commands.sh - the other `pangaea` commands on an MPI recording
# (MPICH, and Open MPI for -stop; tests/programs/mpi_orders.c, 4 ranks):
#  - read the recording as a PVM one: -display writes its page, -export
#    perfetto-json gives a trace with the 4 ranks' receives and sends;
#  - -replay -stop 1:3 (and 2:2; with Open MPI too): rank 0 stops itself
#    (SIGSTOP) after its event 3,
#    saying so with its pid; it is stopped (state T) until SIGCONT, then
#    the run ends with the recorded output, exit 0; a -stop the rank never
#    reaches (at its end) is said;
#  - refused with exit 2, naming the option, nothing run: -replay
#    -otherargs, -rebuilt; -log -only (-debug works: test_mpi_debug.sh;
#    -live: test_mpi_live.sh);
#  - refused with exit 2, naming the recording as an MPI run's, nothing
#    changed or written: -move, -move-host (-min works: test_mpi_min.sh;
#    -pack: test_mpi_pack.sh).
. "$(dirname "$0")/lib.sh"

pg_need_mpich
P=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/mpich/mpi_orders
dir=$(pg_tmpdir)
cd "$dir" || exit 1
stopped=
trap 'for p in $stopped; do kill -CONT "$p" 2>/dev/null; done; pg_cleanup' EXIT

timeout 120 "$P" -log -logdir rec mpiexec.mpich -n 4 "$PROG" >rec.out 2>rec.err ||
    { pg_fail "recording mpi_orders"; cat rec.err; pg_summary; exit 1; }

# ---- reading the recording
if "$P" -display rec >display.out 2>&1 && [ -s rec/pangaea-graph.html ] &&
    grep -q "MPI_Recv" rec/pangaea-graph.html; then
    pg_pass "-display writes the MPI recording's page"
else
    pg_fail "-display on an MPI recording"
    cat display.out
fi
if "$P" -export perfetto-json rec >trace.json 2>trace.err && python3 -S -c '
import json, sys
d = json.load(open("trace.json"))
ev = d["traceEvents"] if isinstance(d, dict) else d
names = " ".join(json.dumps(e) for e in ev)
sys.exit(0 if names.count("MPI_Recv") >= 3 and names.count("MPI_Send") >= 3 else 1)'; then
    pg_pass "-export perfetto-json gives the MPI run's sends and receives"
else
    pg_fail "-export perfetto-json on an MPI recording"
    head -c 600 trace.json; cat trace.err
fi

# ---- -replay -stop
timeout 120 "$P" -replay -logdir rec -stop 1:3 -stop 2:2 mpiexec.mpich -n 4 "$PROG" \
    >stop.out 2>stop.err &
run=$!
for _ in $(seq 1 600); do
    [ "$(grep -c " stopped after event " stop.err 2>/dev/null)" -ge 2 ] && break
    sleep 0.1
done
stopped=$(sed -n 's/.* stopped after event .* pid \([0-9]*\): attach with gdb -p .*/\1/p' stop.err)
one=$(sed -n 's/.*ltid 1 (rank 0) stopped after event 3: .* pid \([0-9]*\): attach with gdb -p .*/\1/p' stop.err)
state=$( [ -n "$one" ] && ps -o stat= -p "$one" | cut -c1)
for p in $stopped; do kill -CONT "$p"; done
wait "$run"
rc=$?
stopped=
if [ "$state" = T ] && [ "$rc" -eq 0 ] && cmp -s stop.out rec.out &&
    grep -q "ltid 2 (rank 1) stopped after event 2: MPI_Send to ltid 1, tag 1" stop.err; then
    pg_pass "-replay -stop 1:3 -stop 2:2: each rank stops (state T) after its event, named with its pid; SIGCONT: the recorded output, exit 0"
else
    pg_fail "-replay -stop: state ${state:-?}, exit $rc"
    cat stop.err stop.out
fi
rc=0
timeout 120 "$P" -replay -logdir rec -stop 1:5 mpiexec.mpich -n 4 "$PROG" >late.out 2>late.err || rc=$?
if [ "$rc" -eq 0 ] && grep -q "pangaea: -stop 1:5: ltid 1 (rank 0) ended at event 5 without reaching it" late.err; then
    pg_pass "-replay -stop at the rank's end: said, the run ends well"
else
    pg_fail "-replay -stop 1:5: exit $rc"
    cat late.err
fi

# Open MPI: a rank stopped by -stop 1:3 goes on at SIGCONT.
if command -v mpiexec.openmpi >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OPROG=$PG_BUILD/tests/openmpi/mpi_orders
    timeout 120 "$P" -log -logdir orec mpiexec.openmpi --oversubscribe -n 4 "$OPROG" \
        >orec.out 2>orec.err || pg_fail "Open MPI: recording mpi_orders"
    timeout 120 "$P" -replay -logdir orec -stop 1:3 mpiexec.openmpi --oversubscribe -n 4 \
        "$OPROG" >ostop.out 2>ostop.err &
    run=$!
    for _ in $(seq 1 600); do
        grep -q " stopped after event " ostop.err 2>/dev/null && break
        sleep 0.1
    done
    stopped=$(sed -n 's/.*ltid 1 (rank 0) stopped after event 3: .* pid \([0-9]*\): attach with gdb -p .*/\1/p' ostop.err)
    state=$( [ -n "$stopped" ] && ps -o stat= -p "$stopped" | cut -c1)
    for p in $stopped; do kill -CONT "$p"; done
    wait "$run"
    rc=$?
    stopped=
    if [ "$state" = T ] && [ "$rc" -eq 0 ] && cmp -s ostop.out orec.out; then
        pg_pass "Open MPI: -replay -stop 1:3 stops rank 0 (state T) until SIGCONT; the recorded output, exit 0"
    else
        pg_fail "Open MPI: -replay -stop: state ${state:-?}, exit $rc"
        cat ostop.err ostop.out
    fi
fi

# ---- options an MPI run refuses
refuse_opt() { # WHAT OPTION... -- the rest of the command line
    local what=$1 rc=0
    shift
    timeout 60 "$P" "$@" >opt.out 2>opt.err || rc=$?
    if [ "$rc" -eq 2 ] && grep -q "pangaea: $what is not available for MPI runs yet" opt.err &&
        [ ! -s opt.out ]; then
        pg_pass "$what with an MPI launcher is refused, named (exit 2), nothing run"
    else
        pg_fail "$what with an MPI launcher: exit $rc"
        cat opt.err opt.out
    fi
}
refuse_opt -otherargs -replay -logdir rec -otherargs mpiexec.mpich -n 4 "$PROG"
refuse_opt -rebuilt -replay -logdir rec -rebuilt mpiexec.mpich -n 4 "$PROG"
refuse_opt -only -log -logdir only -only tag=1 mpiexec.mpich -n 4 "$PROG"

# ---- commands that refuse an MPI recording, changing nothing
# the logs (not the page -display wrote, nor the lock's holder)
sum() { find rec -type f ! -name pangaea-graph.html ! -name .pangaea.lock -exec md5sum {} + | sort; }
before=$(sum)
refuse_rec() { # WHAT COMMAND...
    local what=$1 rc=0
    shift
    "$P" "$@" >cmd.out 2>cmd.err || rc=$?
    if [ "$rc" -eq 2 ] && grep -q "pangaea: $what: the recording in .*rec is an MPI run's" cmd.err &&
        [ "$(sum)" = "$before" ] && [ ! -e run.pangaea ]; then
        pg_pass "$* refuses an MPI recording, named (exit 2), nothing changed"
    else
        pg_fail "$* on an MPI recording: exit $rc"
        cat cmd.err
    fi
}
refuse_rec -move -move 2 otherhost -logdir rec
refuse_rec -move -move-host "$(hostname)" otherhost -logdir rec

pg_summary
