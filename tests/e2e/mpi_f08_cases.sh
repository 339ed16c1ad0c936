# tests/e2e/mpi_f08_cases.sh - the checks test_mpi_f08.sh (MPICH) and
# test_mpi_f08_openmpi.sh (Open MPI) run on a `use mpi_f08` program
# (sourced after lib.sh and mpi_cases.sh; not a test itself).
#
# tests/programs/mpi_f08master.f90: a master takes its 3 workers'
# messages with MPI_Recv(MPI_ANY_SOURCE), wildcard MPI_Irecv completed by
# MPI_Waitany, MPI_Iprobe(MPI_ANY_SOURCE) polls, wildcard MPI_Irecv
# completed by MPI_Testsome polls, by MPI_Waitsome, MPI_Probe, MPI_Testall
# polls, and reads MPI_Wtime; the workers send with MPI_Send, MPI_Isend +
# MPI_Wait, MPI_Ssend, MPI_Issend + MPI_Request_get_status polls.  Neither
# MPI's f08 bindings call the C MPI_ names for all of these (MPI_Init
# among them): without src/mpi/mpi_f08.c (MPICH) and mpi_fortran.c's f08
# names (Open MPI) nothing of the run was recorded.  f08master checks,
# per MPI:
# - 5 unrecorded runs differ; one run is recorded; 10 replays print
#   exactly the recorded output (lib.sh, pg_replay_case);
# - -races reports exactly the races derived by hand from the master's log
#   (mpi_races_check.py), the two wildcard MPI_Recv at their line of the
#   .f90 with 2 and 1 alternatives (the call site is the program's);
# - -tasks matches every message (21 sends, 6 probes and 21 receives);
# - the master's two MPI_Wtime readings are in its log (replayed);
# - -whatif makes the first wildcard MPI_Recv take another message;
# - the indices MPI_Waitany gave are those the MPI's own binding gives
#   without Pangaea (MPICH 4.0.2's from 0, Open MPI's from 1);
# f08persist checks persistent requests (below); f08_unreached that a
# rank MPI was started in past the library says so (with MPICH too).

f08_recv_line=$(grep -n "call MPI_Recv(v, 1, MPI_INTEGER, MPI_ANY_SOURCE" \
    "$PG_ROOT/tests/programs/mpi_f08master.f90" | cut -d: -f1)

# f08master NAME LAUNCHER DIR [LAUNCHER OPTIONS...]
f08master() {
    local name=$1 launcher=$2 dir=$3 case_dir free rec
    shift 3
    pg_replay_case "$name: a \`use mpi_f08\` master (MPI_Recv any source, Waitany, Iprobe, Testsome, Waitsome, Probe, Testall)" \
        "$launcher" "$@" -n 4 "$dir/mpi_f08master"
    case_dir=$(dirname "$PG_CASE_LOGS")
    if [ ! -e "$PG_CASE_LOGS/ltid-1.comm.pgc" ]; then
        pg_fail "$name: nothing of the mpi_f08 program was recorded"
        return
    fi
    races_exact "$name: mpi_f08master" "$PG_CASE_LOGS"
    if "$PG_BUILD/pangaea" -races -json "$PG_CASE_LOGS" | python3 -S -c '
import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"] if x["call"] == "MPI_Recv"]
ok = [len(x["alternatives"]) for x in r] == [2, 1]
ok = ok and all(x["site"] == "mpi_f08master.f90:" + sys.argv[1] and x["asked"]["from"] == -1 for x in r)
sys.exit(0 if ok else 1)' "$f08_recv_line"; then
        pg_pass "$name: -races reports the two wildcard MPI_Recv at mpi_f08master.f90:$f08_recv_line"
    else
        pg_fail "$name: -races on the mpi_f08 master"
        "$PG_BUILD/pangaea" -races "$PG_CASE_LOGS" | head -8
    fi
    if "$PG_BUILD/pangaea" -tasks "$PG_CASE_LOGS" |
        grep -q "^4 tasks, 21 sends, 27 receives, 27 messages matched, 0 send destinations and 0 receives unmatched" &&
        [ "$("$PG_BUILD/pangaea" -dump "$PG_CASE_LOGS" 1 | grep -c '<query .*call="MPI_Wtime"')" = 2 ]; then
        pg_pass "$name: -tasks matches every message of the mpi_f08 program; its MPI_Wtime readings are logged"
    else
        pg_fail "$name: the mpi_f08 program's messages or clock readings are not all recorded"
        "$PG_BUILD/pangaea" -tasks "$PG_CASE_LOGS" | tail -1
    fi
    f08_whatif "$name" "$launcher" "$dir" "$@"
    free=$(sed -n 2p "$case_dir/free/1.out" | tr ' ' '\n' | cut -s -d: -f1 | sort | xargs)
    rec=$(sed -n 2p "$case_dir/rec.out" | tr ' ' '\n' | cut -s -d: -f1 | sort | xargs)
    if [ -n "$free" ] && [ "$free" = "$rec" ]; then
        pg_pass "$name: MPI_Waitany's indices are the MPI's own binding's ($rec)"
    else
        pg_fail "$name: MPI_Waitany's indices: '$rec' recorded, '$free' without Pangaea"
    fi
}

# f08_whatif NAME LAUNCHER DIR [LAUNCHER OPTIONS...]: -whatif makes the
# master's first wildcard MPI_Recv take another worker's message (the
# first alternative -races names): the run prints that worker first.
f08_whatif() {
    local name=$1 launcher=$2 dir=$3 plan out
    shift 3
    plan=$("$PG_BUILD/pangaea" -races -json "$PG_CASE_LOGS" | python3 -S -c '
import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"] if x["call"] == "MPI_Recv"][0]
a = r["alternatives"][0]
print("%d:%d=%d:%d %d" % (r["ltid"], r["seq"], a["ltid"], a["msgid"], a["ltid"] - 1))')
    out=$(timeout 90 "$PG_BUILD/pangaea" -whatif "${plan% *}" -logdir "$PG_CASE_LOGS" \
        "$launcher" "$@" -n 4 "$dir/mpi_f08master" 2>/dev/null | head -1)
    if [ -n "$plan" ] && [ "${out%% *}" = "${plan##* }" ]; then
        pg_pass "$name: -whatif ${plan% *} makes the mpi_f08 master take rank ${plan##* }'s message first"
    else
        pg_fail "$name: -whatif ${plan% *}: the master took '$out' first, not rank ${plan##* }"
    fi
}

# f08_unreached NAME LAUNCHER DIR [LAUNCHER OPTIONS...]: tests/programs/
# mpi_f08pmpi.f90 starts MPI by PMPI_Init, past the library: each of its 2
# ranks says that nothing of it was recorded, and the recording fails.
f08_unreached() {
    local name=$1 launcher=$2 dir=$3
    shift 3
    run_dir=$(pg_tmpdir)
    expect_run "$name: each rank of a program that starts MPI by PMPI_Init says nothing of it was recorded" \
        nonzero "ended without its MPI calls reaching Pangaea's library (PMPI_Init started MPI" \
        "$PG_BUILD/pangaea" -log -logdir "$run_dir/rec" "$launcher" "$@" -n 2 "$dir/mpi_f08pmpi"
    if [ "$(grep -c "nothing of it was recorded" "$run_dir/err")" != 2 ]; then
        pg_fail "$name: not both ranks said that nothing of them was recorded"
        cat "$run_dir/err"
    fi
}

# f08persist NAME LAUNCHER DIR [LAUNCHER OPTIONS...]: tests/programs/
# mpi_f08persist.f90, persistent requests in `use mpi_f08` (MPI_Recv_init
# any source, MPI_Start, MPI_Test, the workers' MPI_Send_init and
# MPI_Startall, MPI_Request_free): free runs differ, 10 replays print the
# recorded output, -races reports exactly the races derived by hand, and
# -tasks matches the 6 started sends.
f08persist() {
    local name=$1 launcher=$2 dir=$3
    shift 3
    pg_replay_case "$name: an mpi_f08 master's persistent requests (MPI_Recv_init any source, MPI_Start, MPI_Startall)" \
        "$launcher" "$@" -n 4 "$dir/mpi_f08persist"
    races_exact "$name: mpi_f08persist" "$PG_CASE_LOGS"
    tasks_matched "$name" "-tasks matches the mpi_f08 program's 6 started sends" \
        "$PG_CASE_LOGS" 6 6
}
