#!/usr/bin/env bash
# test_mpi_anyof.sh - the choice of MPI_Waitany, MPI_Testany and
# MPI_Waitsome among several pending receives is a race (log format 8: a
# completion's `rivals`, src/cli/analysis/races_find.c; the what-if side
# src/mpi/mpi_force.c and mpi_p2p.c), with MPICH and Open MPI, on
# tests/programs/mpi_anyof.c: a master posts an MPI_Irecv naming each of
# its 3 workers and takes them with one call over all the requests.
# Per MPI:
#  - Waitany: -races lists exactly the known race set, written here by
#    hand: the first completion races with the two other workers'
#    results, the second with the last one's, the third with none, and
#    nothing else races; every rank's log is valid against the schema;
#  - -whatif on the first completion, choosing another worker: the run
#    ends well, that worker's result comes first (the output), the new
#    recording's -races says the completion took it, and it replays;
#  - Waitsome (the workers staggered: Open MPI often reports all three at
#    once, a set without a race): the races follow from the sets printed
#    (each set's first completion races with the workers of the later
#    sets); -whatif on the first makes the first set the chosen worker
#    alone;
#  - Testany: -whatif on the first completion makes it the chosen worker;
#  - -explore of the Waitany runs the 3! = 6 orders, each once, complete;
# and with MPICH: -explore of `waitany crash` (the master aborts when the
# first completion is rank 3's, which free runs nearly never do) finds it
# by a forced run; the race-only recording (-min) replays as recorded.
. "$(dirname "$0")/lib.sh"

pg_need_mpich
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
P=$PG_BUILD/pangaea
dir=$(pg_tmpdir)
cd "$dir" || exit 1

# races_of LOGDIR: "SEQ TOOK ALT ALT..." a line per race (ltid 1's; any
# other rank's race prints "other").
races_of() {
    "$P" -races -json "$1" | python3 -S -c '
import json, sys, races_json
for r in races_json.load(sys.stdin)["races"]:
    if r["ltid"] != 1 or not r["took"] or r["call"] != "MPI_Irecv":
        print("other", r["ltid"], r["seq"], r["call"])
        continue
    print(r["seq"], r["took"]["ltid"], *sorted(a["ltid"] for a in r["alternatives"]))'
}

# order_ltids OUTFILE: the ltids (rank + 1) the output's completions name,
# in order, sets flattened.
order_ltids() { sed -n 's/^order://p' "$1" | tr -d '{}' | awk '{for (i = 1; i <= NF; i++) printf "%s%d", (i > 1 ? " " : ""), $i + 1; print ""}'; }

# The known race set of a Waitany (or Testany's completions) run that
# completed A B C: "SEQ A B C" and "SEQ B C", the SEQs the log's.
waitany_known() {
    local a b c
    read -r a b c <<<"$(order_ltids "$1")"
    echo "$a $(printf '%s\n' "$b" "$c" | sort -n | tr '\n' ' ')"
    echo "$b $c"
}

# record NAME DIR ARGS...: a recording of mpi_anyof ARGS into DIR.
record() {
    local name=$1 out=$2
    shift 2
    timeout 120 "$P" -log -logdir "$out" "${launch[@]}" -n 4 "$prog" "$@" \
        >"$out.out" 2>"$out.err" && return 0
    pg_fail "$name: recording mpi_anyof $*"
    cat "$out.err"
    return 1
}

# whatif_first NAME REC ARGS...: forces REC's first race at a completion
# (a Testany's failed tests race too) to its first alternative; the
# output's first completion must be that worker alone, and the new
# recording's first completion race says it took that worker's (by
# order, not number: a forced Testany's failed tests are not those
# recorded, and the events are numbered otherwise).
whatif_first() {
    local name=$1 rec=$2 seq took alt rest rc=0 first
    shift 2
    read -r seq took alt rest <<<"$(races_of "$rec" | grep -v '^other' | head -1)"
    timeout 120 "$P" -whatif "1:$seq=$alt:1" -logdir "$rec" -o "$rec-new" \
        "${launch[@]}" -n 4 "$prog" "$@" >"$rec-new.out" 2>"$rec-new.err" || rc=$?
    first=$(sed -n 's/^order: *//p' "$rec-new.out" | awk '{print $1}')
    if [ "$rc" -eq 0 ] && [ -n "$alt" ] && [ "$alt" != "$took" ] &&
        { [ "$first" = "$((alt - 1))" ] || [ "$first" = "{$((alt - 1))}" ]; } &&
        [ "$(races_of "$rec-new" | grep -v '^other' | head -1 | cut -d' ' -f2)" = "$alt" ]; then
        pg_pass "$name: -whatif 1:$seq=$alt:1 (recorded: ltid $took's) completes ltid $alt's receive first ($(cat "$rec-new.out"))"
    else
        pg_fail "$name: -whatif 1:$seq=$alt:1: exit $rc, output \"$(cat "$rec-new.out")\""
        cat "$rec-new.err"
        return
    fi
    if timeout 120 "$P" -replay -logdir "$rec-new" "${launch[@]}" -n 4 "$prog" "$@" \
        >"$rec-r.out" 2>"$rec-r.err" && cmp -s "$rec-r.out" "$rec-new.out"; then
        pg_pass "$name: the what-if's recording replays to its output"
    else
        pg_fail "$name: replay of the what-if's recording"
        cat "$rec-r.out" "$rec-r.err"
    fi
}

# schema_ok LOGDIR: the master's log, with its rivals, is valid against
# the schema, and the format page's reader reads it as -dump does.
schema_ok() {
    "$P" -dump "$1" 1 >"$1.xml" 2>/dev/null &&
        xmllint --noout --schema "$PG_ROOT/schema/pangaea-log.xsd" "$1.xml" 2>/dev/null &&
        grep -q 'rivals="' "$1.xml" &&
        python3 -S "$PG_ROOT/docs/comm_log_reader.py" "$1/ltid-1.comm.pgc" "$1.xml" >/dev/null
}

distinct() { sed -n 's/^run [0-9]*: .*, output \([0-9a-f]*\).*/\1/p' "$1" | sort -u | wc -l; }

# anyof_case NAME PROGDIR LAUNCHER [LAUNCHER OPTIONS...]
anyof_case() {
    local name=$1 want got sets rc runs
    prog=$2/mpi_anyof
    shift 2
    launch=("$@")
    # Waitany: the known race set
    record "$name" wa waitany || return
    want=$(waitany_known wa.out)
    got=$(races_of wa | cut -d' ' -f2-)
    if [ "$got" = "$(echo "$want" | sed 's/ *$//')" ] &&
        [ "$(races_of wa | wc -l)" -eq 2 ] && schema_ok wa; then
        pg_pass "$name: Waitany $(sed -n 's/^order: //p' wa.out): -races lists exactly the 2 known races ($(echo "$want" | tr '\n' ';')); the log is valid and read by the page's reader"
    else
        pg_fail "$name: Waitany $(sed -n 's/^order: //p' wa.out): -races lists \"$got\", expected \"$want\""
        "$P" -races wa
    fi
    whatif_first "$name: Waitany" wa waitany
    # Waitsome: each set's first completion races with the later sets
    # (the workers staggered, and up to 3 recordings, for two sets or more:
    # one set of all three has no race to force)
    for i in 1 2 3; do
        rm -rf ws ws.out
        record "$name" ws waitsome stagger || return
        sets=$(sed -n 's/^order: //p' ws.out)
        [ "$(echo "$sets" | tr -cd '{' | wc -c)" -ge 2 ] && break
    done
    want=$(echo "$sets" | python3 -S -c '
import re, sys
sets = [[int(x) + 1 for x in s.split()] for s in re.findall(r"\{([^}]*)\}", sys.stdin.read())]
for i, s in enumerate(sets[:-1]):
    print(s[0], *sorted(x for t in sets[i + 1:] for x in t))')
    got=$(races_of ws | cut -d' ' -f2-)
    if [ -n "$want" ] && [ "$got" = "$want" ]; then
        pg_pass "$name: Waitsome $sets: -races lists exactly the races of its sets"
    else
        pg_fail "$name: Waitsome $sets: -races lists \"$got\", expected \"$want\""
        "$P" -races ws
    fi
    whatif_first "$name: Waitsome" ws waitsome stagger
    record "$name" ta testany || return
    whatif_first "$name: Testany" ta testany
    # -explore of the Waitany: its 6 orders
    rc=0
    timeout 900 "$P" -explore -runs 20 -logdir ex "${launch[@]}" -n 4 "$prog" waitany \
        >ex.out 2>&1 || rc=$?
    runs=$(sed -n 's/^\([0-9]*\) runs.*/\1/p' ex.out)
    if [ "$rc" -eq 0 ] && [ "$runs" = 6 ] && [ "$(distinct ex.out)" -eq 6 ] &&
        grep -q "^orders: 6 distinct orders of the receives run; complete" ex.out; then
        pg_pass "$name: -explore runs the 6 orders of the Waitany in 6 runs, complete"
    else
        pg_fail "$name: -explore of the Waitany: exit $rc, ${runs:-?} runs, $(distinct ex.out) outputs"
        cat ex.out
    fi
    rm -rf wa* ws* ta* ex*
}

anyof_case MPICH "$PG_BUILD/tests/mpich" mpiexec.mpich
if command -v mpiexec.openmpi >/dev/null; then
    anyof_case "Open MPI" "$PG_BUILD/tests/openmpi" mpiexec.openmpi --oversubscribe
else
    pg_fail "Open MPI is not installed (scripts/install-deps.sh test installs it)"
fi

# MPICH: -explore finds the abort that only another Waitany order makes,
# and the race-only recording of a Waitany run replays as recorded.
prog=$PG_BUILD/tests/mpich/mpi_anyof
launch=(mpiexec.mpich)
rc=0
timeout 600 "$P" -explore -runs 20 -jobs 1 -logdir cr "${launch[@]}" -n 4 "$prog" waitany crash \
    >cr.out 2>&1 || rc=$?
run=$(sed -n 's/^run \([0-9]*\) failed (.*/\1/p' cr.out | head -1)
if [ "$rc" -eq 1 ] && [ -n "$run" ] && grep -q "^order: 3 " "cr/run-$run.out" &&
    grep -q "^run $run: forced .*: failed: pangaea: ltid 1 (rank 0, pid [0-9]*) died of SIGABRT" cr.out; then
    pg_pass "MPICH: -explore finds the abort of a Waitany that completes rank 3's receive first (run $run, forced)"
else
    pg_fail "MPICH: -explore of waitany crash: exit $rc, failed run ${run:-none}"
    cat cr.out
fi
if record MPICH mn waitany && "$P" -min mn >mn.min 2>&1 &&
    timeout 120 "$P" -replay -logdir mn "${launch[@]}" -n 4 "$prog" waitany >mn.r 2>mn.rerr &&
    cmp -s mn.r mn.out && grep -q "3 of 3 receives kept (2 race" mn.min; then
    pg_pass "MPICH: the race-only recording (-min) of a Waitany run keeps its 2 races and replays to its output ($(cat mn.out))"
else
    pg_fail "MPICH: -min of a Waitany run"
    cat mn.min mn.r mn.rerr 2>/dev/null
fi

pg_summary
