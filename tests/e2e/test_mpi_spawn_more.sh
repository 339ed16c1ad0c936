#!/usr/bin/env bash
# test_mpi_spawn_more.sh - more of MPI_Comm_spawn under Pangaea
# (tests/programs/mpi_spawn.c; test_mpi_spawn.sh has the races):
# - Open MPI, two spawns one after the other ("twice": 3 workers, then 2)
#   and MPI_Comm_spawn_multiple ("multiple": 2 commands of 1 worker): the
#   spawned ranks are ltids 2-4 then 5-6, in the order of the spawns,
#   children of the master in -tasks, every message matched; replays
#   print exactly the recorded output; -whatif makes the master's first
#   receive take a spawned worker's other answer; a race-only recording
#   (-min) replays;
# - a replay of a one-spawn recording by a program that spawns again
#   stops at that spawn, named, exit 3; a replay with 2 ranks of a
#   recording of 1 (whose ltid 2 is a spawned rank) is refused, naming
#   the number, exit 4;
# - MPICH (Debian's, ch4:ucx) cannot start processes: a recording of a
#   spawn ends with exit 4, naming MPI_Comm_spawn and MPICH's reason.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"

P=$PG_BUILD/pangaea
dir=$(pg_tmpdir)

# spawned LOGS WANT: -tasks of LOGS lists ltids 2..6, each the master's
# child, and the master's execution log's <spawn> events have the children
# WANT (python: [[2, 3, 4], [5, 6]]), in the order of the spawns.
spawned() {
    local tasks
    python3 -S -c '
import sys, xml.etree.ElementTree as ET
got = [[int(c.get("ltid")) for c in s.iter("child")]
       for s in ET.parse(sys.argv[1]).getroot().iter("spawn")]
sys.exit(0 if got == eval(sys.argv[2]) else 1)' "$1/ltid-1.exec.xml" "$2" ||
        { grep -A4 "<spawn" "$1/ltid-1.exec.xml"; return 1; }
    tasks=$("$P" -tasks "$1")
    grep -q "^6 tasks, 15 sends, 15 receives, 15 messages matched, 0 send destinations and 0 receives unmatched" <<<"$tasks" &&
        [ "$(grep -cE "^[23456] +1 +[^ ]+ +status 0 .*/mpi_spawn$" <<<"$tasks")" = 5 ] ||
        { echo "$tasks"; return 1; }
}

# replays N WHAT ARGS...: N replays of logs $dir/$WHAT print rec.out.
replays() {
    local n=$1 what=$2 i same=0
    shift 2
    for i in $(seq "$n"); do
        timeout 120 "$P" -replay -logdir "$dir/$what" mpiexec.openmpi --oversubscribe -n 1 "$@" \
            >"$dir/$what.r$i.out" 2>"$dir/$what.r$i.err" &&
            cmp -s "$dir/$what.out" "$dir/$what.r$i.out" && same=$((same + 1))
    done
    [ "$same" = "$n" ] || { cat "$dir/$what.r$i.err"; return 1; }
}

if command -v mpiexec.openmpi >/dev/null; then
    PROG=$PG_BUILD/tests/openmpi/mpi_spawn
    for how in twice multiple; do
        want="[[2, 3, 4], [5, 6]]"
        [ "$how" = multiple ] && want="[[2, 3, 4], [5], [6]]" # a <spawn> per command
        if timeout 120 "$P" -log -logdir "$dir/$how" mpiexec.openmpi --oversubscribe -n 1 "$PROG" "$how" \
            >"$dir/$how.out" 2>"$dir/$how.err" && spawned "$dir/$how" "$want" &&
            replays 2 "$how" "$PROG" "$how"; then
            pg_pass "Open MPI, spawns $how: ltids 2-4 then 5-6 in the spawns' order, the master's children; 2 replays print the recorded output"
        else
            pg_fail "Open MPI, spawns $how"
            tail -3 "$dir/$how.err"
        fi
    done
    # -whatif on the spawned workers' race: the master's first receive
    # takes an answer -races offers as its alternative (a worker's: ltid
    # 2-4, remote rank ltid - 2)
    alt=$("$P" -races -json "$dir/twice" | python3 -S -c '
import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"] if x["ltid"] == 1][0]
a = r["alternatives"][0]
print("1:%d=%d:%d %d" % (r["seq"], a["ltid"], a["msgid"], a["ltid"] - 2))')
    timeout 180 "$P" -whatif "${alt% *}" -logdir "$dir/twice" -o "$dir/whatif" \
        mpiexec.openmpi --oversubscribe -n 1 "$PROG" twice >"$dir/whatif.out" 2>"$dir/whatif.err"
    rc=$?
    if [ "$rc" = 0 ] && [ -n "$alt" ] && [ "$(grep '^first:' "$dir/whatif.out" | awk '{print $2}')" = "${alt#* }" ]; then
        pg_pass "-whatif ${alt% *}: the master's first receive takes that spawned worker's answer (remote rank ${alt#* })"
    else
        pg_fail "-whatif on a spawn's recording: exit $rc"
        cat "$dir/whatif.out"; tail -3 "$dir/whatif.err"
    fi
    # -min keeps the racing receives; its replay prints the recorded output
    cp -r "$dir/twice" "$dir/min" && "$P" -min "$dir/min" >"$dir/min.err" 2>&1 &&
        cp "$dir/twice.out" "$dir/min.out"
    if replays 1 min "$PROG" twice; then
        pg_pass "a race-only recording (-min) of the spawns replays the recorded output"
    else
        pg_fail "-min of a spawn's recording, replayed"
        cat "$dir/min.err"
    fi
    timeout 120 "$P" -log -logdir "$dir/once" mpiexec.openmpi --oversubscribe -n 1 "$PROG" \
        >"$dir/once.out" 2>"$dir/once.err"
    timeout 120 "$P" -replay -logdir "$dir/once" mpiexec.openmpi --oversubscribe -n 1 "$PROG" twice \
        >"$dir/again.out" 2>"$dir/again.err"
    rc=$?
    if [ "$rc" = 3 ] && grep -q "ltid 1 (rank 0): the replay diverged at MPI_Comm_spawn: the recording's .*ltid-1.exec.xml has fewer spawns" "$dir/again.err"; then
        pg_pass "a replay whose program spawns where the recording did not stops there, named (exit 3)"
    else
        pg_fail "a replay spawning once more: exit $rc"
        tail -5 "$dir/again.err"
    fi
    timeout 120 "$P" -replay -logdir "$dir/once" mpiexec.openmpi --oversubscribe -n 2 "$PROG" \
        >"$dir/two.out" 2>"$dir/two.err"
    rc=$?
    if [ "$rc" = 4 ] && grep -q "ltid 1 (rank 0): the recording had 1 ranks, this run has 2 (its ltid 2 is a rank MPI_Comm_spawn started" "$dir/two.err"; then
        pg_pass "a replay with 2 ranks of a recording of 1 that spawned ltid 2 is refused, named (exit 4)"
    else
        pg_fail "a replay with more ranks than the recording's first job: exit $rc"
        tail -5 "$dir/two.err"
    fi
else
    pg_fail "Open MPI is not installed (scripts/install-deps.sh test installs it)"
fi

if command -v mpiexec.mpich >/dev/null; then
    timeout 120 "$P" -log -logdir "$dir/mpich" mpiexec.mpich -n 1 "$PG_BUILD/tests/mpich/mpi_spawn" \
        >"$dir/mpich.out" 2>"$dir/mpich.err"
    rc=$?
    if [ "$rc" = 4 ] && grep -q "ltid 1 (rank 0): MPI_Comm_spawn: this MPICH cannot start processes (MPI_Open_port: .*not supported" "$dir/mpich.err"; then
        pg_pass "MPICH: a recording of MPI_Comm_spawn ends, naming the call and why MPICH cannot (exit 4)"
    else
        pg_fail "MPICH: a recording of MPI_Comm_spawn: exit $rc"
        tail -5 "$dir/mpich.err"
    fi
fi

pg_summary
