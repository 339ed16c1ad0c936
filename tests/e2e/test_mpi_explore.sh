#!/usr/bin/env bash
# test_mpi_explore.sh - -explore and -chaos on MPI programs (MPICH and Open
# MPI), built on
# the MPI what-if (src/mpi/mpi_force.c), through the launcher as users type
# it: tests/programs/mpi_orders.c, a master taking 3 workers' results with
# MPI_Recv(MPI_ANY_SOURCE) (4 ranks: 3! = 6 orders, its only races).
#  - -explore: the 6 orders, each once (6 distinct outputs, every
#    "order: A B C" permutation printed), in 6 runs, "complete", none failed;
#  - `crash` (the master aborts when its SECOND receive took rank 3's
#    result; the workers send 100 ms apart, so free runs take 1 2 3):
#    found, by a forced run whose output shows that order, named by the
#    rank's own word ("ltid 1 (rank 0, pid N) died of SIGABRT after event
#    E of its log", which pangaea prints after the run), and the failed
#    run's recording replays to the same abort;
#  - -chaos: every rank gets the run's seed (PANGAEA_CHAOS, passed by the
#    launcher) and says it perturbs its receives; the runs are recorded
#    and replay.
. "$(dirname "$0")/lib.sh"

pg_need_mpich
P=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/mpich/mpi_orders
dir=$(pg_tmpdir)
cd "$dir" || exit 1

distinct() { sed -n 's/^run [0-9]*: .*, output \([0-9a-f]*\).*/\1/p' "$1" | sort -u | wc -l; }

# explore_case NAME PROG LAUNCHER [LAUNCHER OPTIONS...]
explore_case() {
    local name=$1 prog=$2 rc runs run sub
    shift 2
    sub=$(echo "$name" | tr -dc 'a-zA-Z')
    rc=0
    timeout 600 "$P" -explore -runs 20 -logdir "$sub-all" "$@" -n 4 "$prog" >"$sub-all.out" 2>&1 || rc=$?
    runs=$(sed -n 's/^\([0-9]*\) runs.*/\1/p' "$sub-all.out")
    if [ "$rc" -eq 0 ] && [ "$runs" = 6 ] && [ "$(distinct "$sub-all.out")" -eq 6 ] &&
        grep -q "^orders: 6 distinct orders of the receives run; complete" "$sub-all.out"; then
        pg_pass "$name: -explore runs the 6 orders of mpi_orders in 6 runs, complete"
    else
        pg_fail "$name: -explore of mpi_orders: exit $rc, ${runs:-?} runs, $(distinct "$sub-all.out") outputs"
        cat "$sub-all.out"
    fi
    rc=0
    timeout 600 "$P" -explore -runs 20 -jobs 1 -logdir "$sub-crash" "$@" -n 4 "$prog" crash \
        >"$sub-crash.out" 2>&1 || rc=$?
    run=$(sed -n 's/^run \([0-9]*\) failed (.*/\1/p' "$sub-crash.out" | head -1)
    if [ "$rc" -eq 1 ] && [ -n "$run" ] && grep -q "^order: [12] 3$" "$sub-crash/run-$run.out" &&
        grep -q "^run $run: forced .*: failed: pangaea: ltid 1 (rank 0, pid [0-9]*) died of SIGABRT after event [0-9]* of its log" "$sub-crash.out"; then
        pg_pass "$name: -explore finds the abort of the order x 3 y (run $run, forced), saying which rank died of what"
    else
        pg_fail "$name: -explore crash: exit $rc, failed run ${run:-none}"
        cat "$sub-crash.out"
    fi
    [ -n "$run" ] || return
    rc=0
    timeout 120 "$P" -replay -logdir "$sub-crash/run-$run" "$@" -n 4 "$prog" crash \
        >"$sub-replay.out" 2>"$sub-replay.err" || rc=$?
    if [ "$rc" -ne 0 ] && grep -q "^order: [12] 3$" "$sub-replay.out" &&
        grep -q "ltid 1 (rank 0, pid [0-9]*) died of SIGABRT in a replay" "$sub-replay.err" &&
        [ "$(grep '^order' "$sub-replay.out")" = "$(grep '^order' "$sub-crash/run-$run.out")" ]; then
        pg_pass "$name: the failed run's recording replays to the same abort (exit $rc)"
    else
        pg_fail "$name: replay of the failed run: exit $rc"
        cat "$sub-replay.out" "$sub-replay.err"
    fi
}

explore_case MPICH "$PROG" mpiexec.mpich
if command -v mpiexec.openmpi >/dev/null; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    explore_case "Open MPI" "$PG_BUILD/tests/openmpi/mpi_orders" mpiexec.openmpi --oversubscribe
else
    pg_fail "Open MPI is not installed (scripts/install-deps.sh test installs it)"
fi

# chaos_case NAME PROG LAUNCHER [LAUNCHER OPTIONS...]
chaos_case() {
    local name=$1 prog=$2 rc sub
    shift 2
    sub=$(echo "$name" | tr -dc 'a-zA-Z')
    rc=0
    timeout 600 "$P" -chaos -runs 2 -seed 7 -logdir "$sub-chaos" "$@" -n 4 "$prog" \
        >"$sub-chaos.out" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] && grep -q "^2 runs, 0 failed" "$sub-chaos.out" &&
        [ "$(grep -c "perturbs its receives (chaos seed 7)" "$sub-chaos/chaos-0.err")" -eq 4 ] &&
        timeout 120 "$P" -replay -logdir "$sub-chaos/chaos-0" "$@" -n 4 "$prog" \
            >"$sub-c.out" 2>/dev/null &&
        cmp -s "$sub-c.out" "$sub-chaos/chaos-0.out"; then
        pg_pass "$name: -chaos gives every rank the seed, records, and the run replays"
    else
        pg_fail "$name: -chaos: exit $rc"
        cat "$sub-chaos.out"; head "$sub-chaos/chaos-0.err" 2>/dev/null
    fi
}
chaos_case MPICH "$PROG" mpiexec.mpich
command -v mpiexec.openmpi >/dev/null &&
    chaos_case "Open MPI" "$PG_BUILD/tests/openmpi/mpi_orders" mpiexec.openmpi --oversubscribe

pg_summary
