# tests/e2e/mpi_cases.sh - the checks test_mpi.sh (MPICH) and
# test_mpi_openmpi.sh (Open MPI) run on an MPI (one_mpi), and those
# test_mpi_replay.sh and test_mpi_replay_openmpi.sh run (more_mpi)
# (sourced after lib.sh; not a test itself: run_all.sh runs test_*.sh
# only).
#
# MPI programs under Pangaea (src/mpi/, src/cli/run/mpi_run.c), as users
# start them: pangaea -log mpiexec.mpich -n 4 ./prog, then -replay.
# tests/programs/mpi_master.c (built with each MPI's mpicc): a master takes
# its 3 workers' results with MPI_Recv(MPI_ANY_SOURCE), then with
# MPI_Waitany over an MPI_Irecv per worker, then by polling
# MPI_Iprobe(MPI_ANY_SOURCE), then with MPI_Testany (the workers use
# MPI_Sendrecv), then MPI_Waitall; it prints the orders and the failed
# polls and tests.  one_mpi checks, per MPI:
# - 5 unrecorded runs (pangaea -none) differ; one run is recorded; 10
#   replays print exactly the recorded output (lib.sh, pg_replay_case);
# - no pvmd was started for it;
# - pangaea -races on the recording reports the master's two wildcard
#   MPI_Recv (at their line of mpi_master.c) as races with the other
#   workers' tag-1 results as the alternatives (3 then 2 candidates),
#   and, of the receives that name their source, exactly the first two
#   completions of the MPI_Waitany (tag 2) and of the MPI_Testany (tag 4)
#   rounds, each with the messages of the workers whose receives were
#   still pending (2, then 1 alternative: format 8's rivals), the third
#   of each round none (polls that found nothing may race), and no
#   message "out of the sender's order"
#   (messages are named as in every log once pangaea renumbered the
#   receives after the run: docs/mpi-notes.md);
# - -tasks matches every message of it to its send (the same renumbering);
# - every rank's log, dumped, is valid against the schema, and the
#   format page's reference reader (docs/comm_log_reader.py) reads it as
#   -dump does (the MPI calls are in the format's table of calls);
# - a replay of another program (the master polls once more at its end)
#   stops, naming the divergence, with exit status 3;
# - a replay with fewer ranks than recorded is refused, naming the log,
#   and so is a replay of another program, naming both, and a replay
#   without the launcher (as a PVM program's), saying why;
# more_mpi checks, per MPI:
# - tests/programs/mpi_wild.c (wild, below): wildcard MPI_Irecv,
#   MPI_Waitsome, MPI_Testsome, MPI_Testall replay;
# - tests/programs/mpi_comm.c (comms, below): dup, split and create
#   communicators replay, logged with world ranks;
# - tests/programs/mpi_wtime.c (clocks, below): MPI_Wtime replays, and
#   collectives pass through under -log and -replay.
# one_mpi also checks:
# - tests/programs/mpi_refuse.c: MPI_THREAD_MULTIPLE asked for is given
#   SERIALIZED under -log (MULTIPLE without Pangaea), and a send or a
#   receive on an intercommunicator (rank 0's or rank 1's, whichever comes
#   first) ends the run, named (not recorded yet).
# No pvmd: MPI runs need none.  Open MPI as root needs its two variables,
# and --oversubscribe for 4 ranks on 2 cores (docs/mpi-notes.md).

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PG_RUNS=10
# Unrecorded runs stop at the first whose output differs (pg_replay_case):
# the orders differ in nearly every run, so two usually show it; at most
# 20, as five all came out alike once on a loaded machine (the Fortran
# master under Open MPI), which proved nothing about the program.
PG_FREE_RUNS=20

# The line of mpi_master.c's MPI_Recv(MPI_ANY_SOURCE): -races names it.
recv_line=$(grep -n "MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE" "$PG_ROOT/tests/programs/mpi_master.c" | cut -d: -f1)

# races_ok LOGDIR: the race set expected of mpi_master's recording.
races_ok() {
    "$PG_BUILD/pangaea" -races -json "$1" | python3 -S -c '
import json, sys, races_json
r = races_json.load(sys.stdin)["races"]
recv = [x for x in r if x["call"] == "MPI_Recv"]
ok = len(recv) == 2 and recv[0]["seq"] < recv[1]["seq"]
ok = ok and all(x["site"] == "mpi_master.c:" + sys.argv[1] for x in recv)
ok = ok and all(x["ltid"] == 1 and x["asked"] == {"from": -1, "tag": 1} for x in recv)
ok = ok and [len(x["alternatives"]) for x in recv] == [2, 1]
for x in recv:
    took = x["took"]["ltid"]
    alts = {a["ltid"] for a in x["alternatives"]}
    ok = ok and took not in alts and alts <= {2, 3, 4} and all(a["tag"] == 1 for a in x["alternatives"])
# Waitany (tag 2) and Testany (tag 4): a race at the first two
# completions of each, with the workers still pending as alternatives
anyof = [x for x in r if x["call"] == "MPI_Irecv" and x["took"]]
ok = ok and [(x["tag"], len(x["alternatives"])) for x in anyof] == [(2, 2), (2, 1), (4, 2), (4, 1)]
for a, b in ((0, 1), (2, 3)):
    first, second = anyof[a], anyof[b]
    left = {2, 3, 4} - {first["took"]["ltid"]}
    ok = ok and {y["ltid"] for y in first["alternatives"]} == left
    ok = ok and second["took"]["ltid"] in left
    ok = ok and {y["ltid"] for y in second["alternatives"]} == left - {second["took"]["ltid"]}
    ok = ok and all(y["tag"] == first["tag"] for y in first["alternatives"] + second["alternatives"])
ok = ok and all(x["asked"]["from"] == x["took"]["ltid"] for x in anyof)
ok = ok and all(x["asked"]["from"] == -1 for x in r if x["took"] and x not in anyof)
sys.exit(0 if ok else 1)' "$recv_line"
}

# races_exact NAME LOGDIR: -races of a recording of mpi_master.c,
# mpi_wild.c or mpi_persist.c reports exactly the races derived by hand
# from the master's log (tests/e2e/mpi_races_check.py says the rule):
# no race at a failed test of a send's request (which takes no message;
# the log has no <poll> for it), a test over receives naming different
# ranks asks for any source (MPICH's MPI_ANY_SOURCE is -2), and -min
# counts the same receives and races.
races_exact() {
    local out
    if out=$(python3 -S "$PG_ROOT/tests/e2e/mpi_races_check.py" "$PG_BUILD/pangaea" "$2" 2>&1); then
        pg_pass "$1: -races reports exactly the races derived by hand, none at a send's test (${out#mpi_races_check: })"
    else
        pg_fail "$1: $out"
        "$PG_BUILD/pangaea" -races "$2" | head -30
    fi
}

# expect_run WHAT STATUS PATTERN COMMAND...: COMMAND (its output in
# $run_dir) must exit with STATUS ("nonzero": any but 0) and say PATTERN
# on stderr.
expect_run() {
    local what=$1 want=$2 pattern=$3 rc
    shift 3
    timeout 60 "$@" >"$run_dir/out" 2>"$run_dir/err"
    rc=$?
    if { [ "$want" = nonzero ] && [ "$rc" -ne 0 ] || [ "$rc" = "$want" ]; } &&
        grep -q -- "$pattern" "$run_dir/err"; then
        pg_pass "$what (exit $rc)"
    else
        pg_fail "$what: exit $rc"
        head -5 "$run_dir/err"
    fi
}

# tasks_matched NAME WHAT LOGS SENDS RECEIVES: -tasks on LOGS, a run of
# 4 ranks, finds SENDS sends and matches each of its RECEIVES receives to
# one (no destination or receive left unmatched); WHAT names the check.
tasks_matched() {
    local name=$1 what=$2 logs=$3 sends=$4 recvs=$5
    if "$PG_BUILD/pangaea" -tasks "$logs" |
        grep -q "^4 tasks, $sends sends, $recvs receives, $recvs messages matched, 0 send destinations and 0 receives unmatched"; then
        pg_pass "$name: $what"
    else
        pg_fail "$name: not so: $what"
        "$PG_BUILD/pangaea" -tasks "$logs" | tail -1
    fi
}

# logs_valid NAME LOGDIR N: the logs of ltids 1..N, dumped, are valid
# against the schema, and the format page's reference reader
# (docs/comm_log_reader.py) reads each as -dump does.
logs_valid() {
    local name=$1 logs=$2 n=$3 k dir bad=
    dir=$(pg_tmpdir)
    for k in $(seq "$n"); do
        "$PG_BUILD/pangaea" -dump "$logs" "$k" >"$dir/$k.xml" &&
            xmllint --noout --schema "$PG_ROOT/schema/pangaea-log.xsd" "$dir/$k.xml" 2>/dev/null &&
            python3 -S "$PG_ROOT/docs/comm_log_reader.py" "$logs/ltid-$k.comm.pgc" "$dir/$k.xml" >/dev/null ||
            bad="$bad $k"
    done
    if [ -z "$bad" ]; then
        pg_pass "$name: every rank's log is valid against the schema and read alike by docs/comm_log_reader.py"
    else
        pg_fail "$name: the logs of ltids$bad: invalid, or read otherwise by docs/comm_log_reader.py"
    fi
}

# wild NAME LAUNCHER PROG [LAUNCHER OPTIONS...]: tests/programs/mpi_wild.c,
# wildcard MPI_Irecv (any source, any tag) completed by MPI_Waitall,
# MPI_Waitsome, MPI_Testsome, MPI_Waitany, and MPI_Testall; MPI_Testany
# over large MPI_Isends, MPI_Test of MPI_Issends; a cancelled wildcard
# MPI_Irecv; MPI_Request_get_status polls: free runs differ, replays print the recorded output (which
# message each posting took, each call's set, the order sends completed,
# the failed tests); every completion of the master's names its posting
# (posted=, format 6), the sets their together=.
wild() {
    local name=$1 launcher=$2 prog=$3
    shift 3
    pg_replay_case "$name: wildcard MPI_Irecv, Waitsome, Testsome, Testall, tests of sends, a cancel" \
        "$launcher" "$@" -n 4 "$prog"
    logs_valid "$name (wildcard MPI_Irecv)" "$PG_CASE_LOGS" 4
    races_exact "$name (wildcard MPI_Irecv, tests of sends)" "$PG_CASE_LOGS"
    if [ "$("$PG_BUILD/pangaea" -dump "$PG_CASE_LOGS" 1 | grep -c '<recv .*call="MPI_Irecv".*posted="')" -eq 18 ]; then
        pg_pass "$name: each of the master's 18 MPI_Irecv completions names its posting"
    else
        pg_fail "$name: the master's MPI_Irecv completions do not all name their posting"
        "$PG_BUILD/pangaea" -dump "$PG_CASE_LOGS" 1 | grep -m3 '<recv'
    fi
}

# comms NAME LAUNCHER PROG [LAUNCHER OPTIONS...]: tests/programs/mpi_comm.c,
# wildcard receives on MPI_Comm_dup, MPI_Comm_split (ranks reversed) and
# MPI_Comm_create communicators: free runs differ, replays print the
# recorded output; the logs name world ranks: -tasks matches every
# message, and -races finds the split's receiver (world rank 3, ltid 4)
# racing among the other three ranks' messages.
comms() {
    local name=$1 launcher=$2 prog=$3
    shift 3
    pg_replay_case "$name: wildcard receives on dup, split and create communicators" \
        "$launcher" "$@" -n 4 "$prog"
    tasks_matched "$name" "-tasks matches every message on the communicators to its send" \
        "$PG_CASE_LOGS" 11 13
    if "$PG_BUILD/pangaea" -races -json "$PG_CASE_LOGS" | python3 -S -c '
import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"] if x["ltid"] == 4 and x["call"] == "MPI_Irecv"]
alts = {a["ltid"] for x in r for a in x["alternatives"]} | {x["took"]["ltid"] for x in r}
sys.exit(0 if len(r) == 2 and alts == {1, 2, 3} else 1)'; then
        pg_pass "$name: -races names the split receiver's race in world ranks"
    else
        pg_fail "$name: -races on the split communicator"
        "$PG_BUILD/pangaea" -races "$PG_CASE_LOGS"
    fi
}

# clocks NAME LAUNCHER PROG [LAUNCHER OPTIONS...]: tests/programs/
# mpi_wtime.c, a decision by MPI_Wtime among collectives (MPI_Bcast,
# Barrier, Gather, Reduce, Allreduce, Scatter, Allgather, Alltoall), and
# the C library's clocks (time, gettimeofday, clock_gettime, getrusage):
# free runs differ, replays print the recorded values; the master's log
# holds its clock readings as <query> events, valid and read by the
# reference reader.
clocks() {
    local name=$1 launcher=$2 prog=$3
    shift 3
    pg_replay_case "$name: MPI_Wtime decides, among collectives" \
        "$launcher" "$@" -n 4 "$prog"
    logs_valid "$name (MPI_Wtime)" "$PG_CASE_LOGS" 4
    if [ "$("$PG_BUILD/pangaea" -dump "$PG_CASE_LOGS" 1 | grep -c '<query .*call="\(MPI_Wt\|libc_\)')" -eq 7 ]; then
        pg_pass "$name: the master's two MPI_Wtime, its MPI_Wtick and its four C library clocks are events of its log"
    else
        pg_fail "$name: the master's clock readings are not in its log"
        "$PG_BUILD/pangaea" -dump "$PG_CASE_LOGS" 1 | head -5
    fi
}

# more_mpi NAME LAUNCHER DIR [LAUNCHER OPTIONS...]: wild, comms and clocks
# with DIR's programs (test_mpi_replay.sh, test_mpi_replay_openmpi.sh:
# apart from one_mpi's, so that two tests share the time).
more_mpi() {
    local name=$1 launcher=$2 dir=$3
    shift 3
    launcher_ok "$name" "$launcher" || return
    PVM_TMP=$(pg_tmpdir)
    export PVM_TMP
    wild "$name" "$launcher" "$dir/mpi_wild" "$@"
    comms "$name" "$launcher" "$dir/mpi_comm" "$@"
    clocks "$name" "$launcher" "$dir/mpi_wtime" "$@"
}

# launcher_ok NAME LAUNCHER: true if the MPI launcher is installed; else
# one failure, named (a missing MPI is no skip: the test packages have it).
launcher_ok() {
    command -v "$2" >/dev/null && return 0
    pg_fail "$1: $2 is not installed (scripts/install-deps.sh test installs it)"
    return 1
}

# one_mpi NAME LAUNCHER PROG [LAUNCHER OPTIONS...]
one_mpi() {
    local name=$1 launcher=$2 prog=$3 dir out
    shift 3
    launcher_ok "$name" "$launcher" || return
    PVM_TMP=$(pg_tmpdir)
    export PVM_TMP
    pg_replay_case "$name: master takes 3 results (MPI_Recv any source, Waitany, Iprobe, Testany, Waitall)" \
        "$launcher" "$@" -n 4 "$prog"
    if [ -e "$PVM_TMP/pvmd.$(id -u)" ]; then
        pg_fail "$name: a pvmd was started for an MPI run"
    else
        pg_pass "$name: no pvmd started for the MPI runs"
    fi
    if races_ok "$PG_CASE_LOGS"; then
        pg_pass "$name: -races reports the two wildcard MPI_Recv, at their line, with the other workers' results"
    else
        pg_fail "$name: -races does not report the expected races"
        "$PG_BUILD/pangaea" -races "$PG_CASE_LOGS"
    fi
    races_exact "$name" "$PG_CASE_LOGS"
    if "$PG_BUILD/pangaea" -races "$PG_CASE_LOGS" | grep -q "sender's order"; then
        pg_fail "$name: -races says messages were taken out of the sender's order"
    else
        pg_pass "$name: -races finds every message in its sender's order"
    fi
    tasks_matched "$name" "-tasks matches every message to its send" \
        "$PG_CASE_LOGS" 21 24
    logs_valid "$name" "$PG_CASE_LOGS" 4
    run_dir=$(pg_tmpdir)
    expect_run "$name: a replay of another program diverges, named" 3 \
        "ltid 1 (rank 0): the replay diverged at event .*the program called MPI_Iprobe" \
        "$PG_BUILD/pangaea" -replay -logdir "$PG_CASE_LOGS" "$launcher" "$@" -n 4 "$prog" extra
    expect_run "$name: a replay with fewer ranks is refused, named" nonzero \
        "the recording has more ranks than the 3 of this run" \
        "$PG_BUILD/pangaea" -replay -logdir "$PG_CASE_LOGS" "$launcher" "$@" -n 3 "$prog"
    expect_run "$name: a replay of another program is refused, naming both" nonzero \
        "the recording ran $prog .*this run runs ${prog%/*}/mpi_refuse" \
        "$PG_BUILD/pangaea" -replay -logdir "$PG_CASE_LOGS" "$launcher" "$@" -n 4 "${prog%/*}/mpi_refuse"
    expect_run "$name: a replay without the launcher is refused, said to be an MPI run's" 2 \
        "is an MPI run's .*replay it with its launcher" \
        "$PG_BUILD/pangaea" -replay -logdir "$PG_CASE_LOGS" "$prog"
    refused "$name" "$launcher" "${prog%/*}/mpi_refuse" "$@"
}

# refused NAME LAUNCHER PROG [LAUNCHER OPTIONS...]: mpi_refuse.c's checks.
refused() {
    local name=$1 launcher=$2 prog=$3 dir rc
    shift 3
    dir=$(pg_tmpdir)
    timeout 60 "$PG_BUILD/pangaea" -none -logdir "$dir/logs" "$launcher" "$@" \
        -n 2 "$prog" >"$dir/none.out" 2>"$dir/none.err"
    timeout 60 "$PG_BUILD/pangaea" -log -logdir "$dir/logs" "$launcher" "$@" \
        -n 2 "$prog" >"$dir/out" 2>"$dir/err"
    rc=$?
    if grep -qx "provided: multiple" "$dir/none.out" &&
        grep -qx "provided: serialized" "$dir/out" &&
        grep -q "MPI_THREAD_MULTIPLE is not recorded or replayed" "$dir/err"; then
        pg_pass "$name: MPI_THREAD_MULTIPLE is given SERIALIZED under -log, and said"
    else
        pg_fail "$name: MPI_THREAD_MULTIPLE under -log"
        cat "$dir/none.out" "$dir/out"; head -3 "$dir/err"
    fi
    if [ "$rc" -ne 0 ] && grep -Eq "ltid [12] \(rank [01]\): MPI_(Send|Recv) on an intercommunicator: Pangaea records" "$dir/err"; then
        pg_pass "$name: a send or receive on an intercommunicator (whichever rank comes first) ends the run, named (exit $rc)"
    else
        pg_fail "$name: a send on an intercommunicator: exit $rc"
        head -5 "$dir/err"
    fi
}

# stop_left_out NAME LOGS LAUNCHER...: -replay -stop 2:2 of mpi_master's
# race-only recording, whose worker (ltid 2) kept no event but its end:
# the rank stops (state T) after its event 2 all the same, named (its
# MPI_Isend of tag 2), and SIGCONT lets the replay end as recorded.
stop_left_out() {
    local name=$1 logs=$2 run pid state rc
    shift 2
    timeout 120 "$PG_BUILD/pangaea" -replay -logdir "$logs" -stop 2:2 "$@" \
        >"$run_dir/stop.out" 2>"$run_dir/stop.err" &
    run=$!
    for _ in $(seq 1 600); do
        grep -q " stopped after event " "$run_dir/stop.err" 2>/dev/null && break
        sleep 0.1
    done
    pid=$(sed -n 's/.*ltid 2 (rank 1) stopped after event 2: MPI_Isend to ltid 1, tag 2, .* pid \([0-9]*\): attach with gdb -p .*/\1/p' "$run_dir/stop.err")
    state=$( [ -n "$pid" ] && ps -o stat= -p "$pid" | cut -c1)
    [ -n "$pid" ] && kill -CONT "$pid"
    rc=0; wait "$run" || rc=$?
    if [ "$state" = T ] && [ "$rc" -eq 0 ] && cmp -s "$run_dir/stop.out" "$(dirname "$logs")/rec.out"; then
        pg_pass "$name: -replay -stop 2:2 at an event the race-only recording left out: the rank stops there (state T), then the recorded output"
    else
        pg_fail "$name: -stop 2:2 on the race-only recording: state ${state:-?}, exit $rc"
        cat "$run_dir/stop.err"
    fi
}

# race_only NAME LAUNCHER DIR [LAUNCHER OPTIONS...]: race-only MPI
# recordings (test_mpi_min.sh; src/cli/analysis/minimize.c, the MPI
# replay's counting in src/mpi/mpi_log.c):
# - mpi_master recorded with -log -min: free runs differ, 10 replays of
#   the race-only recording print exactly the recorded output;
# - its logs are race-only: the master keeps its two racing MPI_Recv and
#   leaves out the third (one message left: no race) and the MPI_Recv
#   that name their source; the workers' logs keep no send and no
#   receive (they name their source); a replay says it is race-only;
# - a replay of another program diverges at a left-out event (the
#   master polls before its last MPI_Recv), named, exit 3;
# - -replay -stop at a left-out event stops there (stop_left_out);
# - pangaea -min LOGDIR makes a full recording of mpi_wild (wildcard
#   MPI_Irecv, Waitsome, Testsome, Testall, Waitany, tests of sends, a
#   cancel) race-only, whose 3 replays print the recorded output;
# - pangaea -min on a race-only MPI recording is refused, named.
race_only() {
    local name=$1 launcher=$2 dir=$3 logs same=0 i
    shift 3
    launcher_ok "$name" "$launcher" || return
    PG_LOG_OPTS=(-min)
    pg_replay_case "$name: a race-only recording of the master (-log -min)" \
        "$launcher" "$@" -n 4 "$dir/mpi_master"
    PG_LOG_OPTS=()
    logs=$PG_CASE_LOGS
    if "$PG_BUILD/pangaea" -dump "$logs" 1 | python3 -S -c '
import re, sys
x = sys.stdin.read()
recv = re.findall(r"<recv [^>]*call=\"MPI_Recv\"", x)
ok = "select=\"race-only\"" in x and len(recv) == 2
sys.exit(0 if ok else 1)' && ! "$PG_BUILD/pangaea" -dump "$logs" 2 | grep -q "<send\|<recv" &&
        ! "$PG_BUILD/pangaea" -dump "$logs" 4 | grep -q "<send\|<recv"; then
        pg_pass "$name: the master keeps its 2 racing MPI_Recv only, the workers no send and no receive"
    else
        pg_fail "$name: what the race-only recording kept"
        "$PG_BUILD/pangaea" -dump "$logs" 1 | grep -c "<recv"
        "$PG_BUILD/pangaea" -dump "$logs" 2
    fi
    run_dir=$(pg_tmpdir)
    expect_run "$name: a replay of a race-only recording says so" 0 \
        "replaying a race-only recording" \
        "$PG_BUILD/pangaea" -replay -logdir "$logs" "$launcher" "$@" -n 4 "$dir/mpi_master"
    expect_run "$name: a replay of another program diverges at a left-out event, named" 3 \
        "ltid 1 (rank 0): the replay diverged at event 3: the program called MPI_Iprobe, where the recording has 1 send(s) or receive(s) left out of the race-only recording" \
        "$PG_BUILD/pangaea" -replay -logdir "$logs" "$launcher" "$@" -n 4 "$dir/mpi_master" early
    stop_left_out "$name" "$logs" "$launcher" "$@" -n 4 "$dir/mpi_master"
    expect_run "$name: -min on a race-only MPI recording is refused, named" 2 \
        "the recording in .* is race-only already" "$PG_BUILD/pangaea" -min "$logs"
    # -min LOGDIR on a full recording of nonblocking receives
    logs=$run_dir/wild
    if timeout 60 "$PG_BUILD/pangaea" -log -logdir "$logs" "$launcher" "$@" -n 4 \
        "$dir/mpi_wild" >"$run_dir/wild.out" 2>"$run_dir/wild.err" &&
        "$PG_BUILD/pangaea" -min "$logs" 2>"$run_dir/min.err" &&
        grep -q "is race-only now" "$run_dir/min.err"; then
        replays_match "$name" "-min LOGDIR on mpi_wild's recording" "$run_dir/wild.out" \
            "$run_dir/wreplay" "$PG_BUILD/pangaea" -replay -logdir "$logs" \
            "$launcher" "$@" -n 4 "$dir/mpi_wild"
    else
        pg_fail "$name: recording mpi_wild, then -min LOGDIR"
        cat "$run_dir/wild.err" "$run_dir/min.err"
    fi
}

# replays_match NAME WHAT RECORDED_OUT DIR CMD...: 3 replays (CMD, their
# outputs in DIR) print RECORDED_OUT exactly, and none fails.
replays_match() {
    local name=$1 what=$2 want=$3 out=$4 same=0 i
    shift 4
    pg_repeat 3 "$out" "$@"
    for i in 1 2 3; do
        cmp -s "$want" "$out/$i.out" && same=$((same + 1))
    done
    if [ "$PG_REPEAT_BAD" -eq 0 ] && [ "$same" -eq 3 ]; then
        pg_pass "$name: $what: 3 replays print the recorded output"
    else
        pg_fail "$name: $what: $same of 3 replays match the recording, $PG_REPEAT_BAD failed"
        head -3 "$out/1.err"
    fi
}

# persist NAME LAUNCHER DIR [LAUNCHER OPTIONS...]: persistent requests
# (test_mpi_persist.sh, test_mpi_persist_openmpi.sh; src/mpi/mpi_start.c),
# tests/programs/mpi_persist.c: wildcard MPI_Recv_init started again and
# again (MPI_Start, MPI_Startall) and completed by MPI_Wait, MPI_Waitany,
# MPI_Waitsome (inactive requests left in the array) and MPI_Test;
# MPI_Send_init started by the workers and by the master (its completion
# tested), all freed with MPI_Request_free:
# - 5 unrecorded runs differ, 10 replays print exactly the recorded output;
# - -races reports the wildcard starts as racing receives, with the race
#   set known by hand: in the first round no worker has received anything
#   yet, so the first receive of each of tags 1, 2, 3 could have taken any
#   of the three workers' messages of that tag (2 alternatives), and the
#   second of the restarted MPI_Recv_init (tag 1, at its MPI_Wait) one of
#   the two left (1 alternative);
# - -tasks matches the 30 messages (24 started sends of the workers, 6 of
#   the master) to their sends; the logs are valid and read alike by the
#   format page's reader;
# - a race-only recording (-log -min) replays 3 times as recorded.
persist() {
    local name=$1 launcher=$2 dir=$3 logs same=0 i line
    shift 3
    launcher_ok "$name" "$launcher" || return
    PVM_TMP=$(pg_tmpdir)
    export PVM_TMP
    pg_replay_case "$name: persistent requests (MPI_Recv_init any source, MPI_Send_init, MPI_Start, MPI_Startall)" \
        "$launcher" "$@" -n 4 "$dir/mpi_persist"
    logs=$PG_CASE_LOGS
    line=$(grep -n "MPI_Wait(one, &st)" "$PG_ROOT/tests/programs/mpi_persist.c" | cut -d: -f1)
    if "$PG_BUILD/pangaea" -races -json "$logs" | python3 -S -c '
import json, sys, races_json
r = sorted((x for x in races_json.load(sys.stdin)["races"] if x["ltid"] == 1 and x["call"] == "MPI_Irecv" and x["took"]), key=lambda x: x["seq"])
ok = True
for tag in (1, 2, 3):
    t = [x for x in r if x["tag"] == tag]
    first = t[0] if t else None
    ok = ok and first is not None and first["asked"] == {"from": -1, "tag": tag}
    ok = ok and len(first["alternatives"]) == 2 and all(a["tag"] == tag for a in first["alternatives"])
    ok = ok and {a["ltid"] for a in first["alternatives"]} | {first["took"]["ltid"]} == {2, 3, 4}
t1 = [x for x in r if x["tag"] == 1]
ok = ok and len(t1) >= 2 and all(x["site"] == "mpi_persist.c:" + sys.argv[1] for x in t1)
ok = ok and len(t1[1]["alternatives"]) == 1 and t1[1]["took"]["ltid"] != t1[0]["took"]["ltid"]
sys.exit(0 if ok else 1)' "$line"; then
        pg_pass "$name: -races reports the wildcard MPI_Recv_init starts, at their MPI_Wait, with the race set known by hand"
    else
        pg_fail "$name: -races on the persistent receives"
        "$PG_BUILD/pangaea" -races "$logs" | head -12
    fi
    tasks_matched "$name" "-tasks matches every started send to its receive" \
        "$logs" 30 30
    logs_valid "$name (persistent requests)" "$logs" 4
    races_exact "$name (persistent requests)" "$logs"
    run_dir=$(pg_tmpdir)
    logs=$run_dir/min
    if timeout 60 "$PG_BUILD/pangaea" -log -min -logdir "$logs" "$launcher" "$@" -n 4 \
        "$dir/mpi_persist" >"$run_dir/min.out" 2>"$run_dir/min.err" &&
        grep -q "is race-only now" "$run_dir/min.err"; then
        replays_match "$name" "a race-only recording of the persistent requests" \
            "$run_dir/min.out" "$run_dir/mreplay" "$PG_BUILD/pangaea" -replay \
            -logdir "$logs" "$launcher" "$@" -n 4 "$dir/mpi_persist"
    else
        pg_fail "$name: -log -min of mpi_persist"
        cat "$run_dir/min.err"
    fi
}

# fpersist NAME LAUNCHER DIR [LAUNCHER OPTIONS...]: tests/programs/
# mpi_fpersist.f90, a Fortran master's MPI_RECV_INIT(MPI_ANY_SOURCE)
# started again and again (MPI_START, MPI_WAIT, MPI_TEST), the workers'
# MPI_SEND_INIT: free runs differ, 10 replays print the recorded output,
# -tasks matches the 6 started sends (Open MPI's Fortran bindings go to
# PMPI_ directly: the library's own Fortran names take them), and
# -races reports the first start's race with the two other workers.
fpersist() {
    local name=$1 launcher=$2 dir=$3
    shift 3
    pg_replay_case "$name: a Fortran master's persistent requests (MPI_RECV_INIT any source, MPI_START)" \
        "$launcher" "$@" -n 4 "$dir/mpi_fpersist"
    if "$PG_BUILD/pangaea" -tasks "$PG_CASE_LOGS" |
        grep -q "^4 tasks, 6 sends, 6 receives, 6 messages matched, 0 send destinations and 0 receives unmatched" &&
        "$PG_BUILD/pangaea" -races -json "$PG_CASE_LOGS" | python3 -S -c '
import json, sys, races_json
r = sorted((x for x in races_json.load(sys.stdin)["races"] if x["ltid"] == 1 and x["took"] and x["tag"] == 1), key=lambda x: x["seq"])
sys.exit(0 if r and len(r[0]["alternatives"]) == 2 and r[0]["asked"]["from"] == -1 else 1)'; then
        pg_pass "$name: the Fortran program's started sends and receives are events: -tasks matches them, -races reports the first start"
    else
        pg_fail "$name: the Fortran program's persistent requests are not recorded"
        "$PG_BUILD/pangaea" -tasks "$PG_CASE_LOGS" | tail -1
    fi
}
