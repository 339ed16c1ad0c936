#!/usr/bin/env bash
# test_mpi_spawn.sh - MPI_Comm_spawn under Pangaea (Open MPI: Debian's
# MPICH cannot spawn, test_mpi_spawn_more.sh checks that it is said).
# tests/programs/mpi_spawn.c, started with one rank: the master spawns 3
# workers, which race their answers to it over the spawn's
# intercommunicator (MPI_Recv(MPI_ANY_SOURCE)), then to their rank 0 on
# their own MPI_COMM_WORLD.  Checks:
# - free runs differ; one run is recorded; 10 replays print exactly the
#   recorded output (lib.sh, pg_replay_case);
# - the spawned ranks are ltids 2, 3, 4 (after the first job's one rank),
#   their logs in the recording: -tasks names them with the master as
#   their parent and matches every message to its send;
# - -races reports exactly the known race set: the master's two wildcard
#   receives on the intercommunicator (2, then 1 alternatives, the other
#   workers' answers) and the workers' rank 0's first wildcard receive on
#   their world (1 alternative), at their lines of mpi_spawn.c;
# - -display's page has the spawned ranks, their parent and their events.
# Open MPI as root needs its two variables (mpi_cases.sh sets them), and
# --oversubscribe for the spawned ranks on 2 cores.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"

command -v mpiexec.openmpi >/dev/null ||
    pg_skip "Open MPI is not installed (scripts/install-deps.sh test installs it)"
P=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/openmpi/mpi_spawn

pg_replay_case "Open MPI: a master spawns 3 workers (MPI_Comm_spawn)" \
    mpiexec.openmpi --oversubscribe -n 1 "$PROG"
logs=$PG_CASE_LOGS

tasks=$("$P" -tasks "$logs")
if grep -q "^4 tasks, 9 sends, 9 receives, 9 messages matched, 0 send destinations and 0 receives unmatched" <<<"$tasks" &&
    [ "$(grep -cE "^[234] +1 +[^ ]+ +status 0 .*/mpi_spawn$" <<<"$tasks")" = 3 ] &&
    grep -qE "^1 +- " <<<"$tasks"; then
    pg_pass "-tasks names the spawned ranks ltids 2, 3, 4 with the master (ltid 1) as their parent, every message matched"
else
    pg_fail "-tasks on the spawn's recording"
    echo "$tasks"
fi

master_line=$(grep -n "MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, inter" "$PG_ROOT/tests/programs/mpi_spawn.c" | cut -d: -f1)
worker_line=$(grep -n "MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD" "$PG_ROOT/tests/programs/mpi_spawn.c" | cut -d: -f1)
if "$P" -races -json "$logs" | python3 -S -c '
import json, sys, races_json
master, worker = sys.argv[1:3]
r = races_json.load(sys.stdin)["races"]
got = sorted((x["ltid"], x["site"], x["took"]["ltid"],
              sorted(a["ltid"] for a in x["alternatives"])) for x in r)
shape = [(l, s, len(a)) for l, s, t, a in got]
want = [(1, "mpi_spawn.c:" + master, 2), (1, "mpi_spawn.c:" + master, 1),
        (2, "mpi_spawn.c:" + worker, 1)]
ok = sorted(shape) == sorted(want)
for l, s, t, a in got:
    ok = ok and t not in a and set(a) | {t} <= ({2, 3, 4} if l == 1 else {3, 4})
ok = ok and all(x["asked"]["from"] == -1 for x in r)
sys.exit(0 if ok else 1)' "$master_line" "$worker_line"; then
    pg_pass "-races reports the known race set: the master's 2 wildcard receives of the spawned workers' answers (2, then 1 alternatives) and the workers' rank 0's (1)"
else
    pg_fail "-races on the spawn's recording"
    "$P" -races "$logs"
fi

if "$P" -display "$logs" >"$logs.display.out" 2>&1 && python3 -S -c '
import json, re, sys
s = open(sys.argv[1]).read()
rows = json.loads(re.search(r"\"tasks\":(\[\[.*?\]\]),\n", s, re.S).group(1))
kids = {r[0]: r for r in rows if r[1] == 1}
sys.exit(0 if sorted(kids) == [2, 3, 4] and all(r[6] > 0 for r in kids.values()) else 1)' "$logs/pangaea-graph.html"; then
    pg_pass "-display shows the spawned ranks (ltids 2, 3, 4, parent 1) with their events"
else
    pg_fail "-display on the spawn's recording"
    cat "$logs.display.out"
fi

pg_summary
