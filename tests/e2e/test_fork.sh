#!/usr/bin/env bash
# test_fork.sh - tasks that fork() children which end with exit() and never
# use PVM: recorded and replayed, nothing hangs, the logs stay whole.
#
# Design.  plain_fork (tests/programs/) forks in the first task before its
# first PVM call and halfway through its receives, and in each worker
# halfway through its sends; each child calls exit() at once, so the
# runtime's exit handler runs in it.  A child that ran it would write <end>
# into its parent's log (shared mapping), or tell PVM and the coordinator
# over its parent's socket that the task ended: the run then hung, or the
# log was cut.  Here: a recording, bounded by PG_TIMEOUT, succeeds; every
# log it wrote is valid against the schema and holds exactly one <end>,
# with the task's own status 0 (the children exit with 41..44), and no
# <query> (the workers' children call pvm_pstat, the program does not); then
# unrecorded runs, a recording and replays (pg_replay_case, each bounded by
# PG_TIMEOUT) succeed and the replays print the recorded output.
set -u
. "$(dirname "$0")/lib.sh"

PG_RUNS=${PG_RUNS_FORK:-5}
export PG_TIMEOUT=${PG_TIMEOUT:-30}

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

dir=$(pg_tmpdir)
logs=$dir/logs

# A recording of its own first: its logs are checked even if a run hangs.
rc=0
timeout "$PG_TIMEOUT" "$PG_BUILD/pangaea" -log -logdir "$logs" \
    "$PG_BUILD/tests/plain_fork" 3 20 >"$dir/rec.out" 2>"$dir/rec.err" || rc=$?
if [ "$rc" -eq 0 ] && grep -q 'fork: K=3 M=20' "$dir/rec.out"; then
    pg_pass "plain_fork: recorded, exit 0, within $PG_TIMEOUT s"
else
    pg_fail "plain_fork: recording ended with $rc (124: still running after $PG_TIMEOUT s)"
    tail -3 "$dir/rec.err"
fi

nlogs=$(ls "$logs"/ltid-*.exec.xml "$logs"/ltid-*.comm.pgc 2>/dev/null | wc -l)
mkdir -p "$dir/xml"
for f in "$logs"/ltid-*.comm.pgc; do
    l=${f##*/ltid-}; l=${l%.comm.pgc}
    pg_comm_xml "$logs" "$l" >"$dir/xml/ltid-$l.comm.xml"
done
if [ "$nlogs" -eq 10 ] &&
   xmllint --noout --schema "$PG_ROOT/schema/pangaea-log.xsd" "$logs"/ltid-*.exec.xml \
       "$dir"/xml/ltid-*.comm.xml >/dev/null 2>"$dir/xmllint.err"; then
    pg_pass "plain_fork: all $nlogs logs (ltid 0..4) are valid against the schema"
else
    pg_fail "plain_fork: $nlogs logs (10 expected), or some invalid:"
    grep -v validates "$dir/xmllint.err" 2>/dev/null | head -5
fi

bad=
for f in "$dir"/xml/ltid-[1-9]*.comm.xml; do
    [ -e "$f" ] || { bad=" no logs"; break; }
    ends=$(grep -o '<end [^>]*>' "$f")
    grep -q '<query' "$f" && bad="$bad ${f##*/}: a forked child's pvm_pstat logged;"
    [ "$(echo "$ends" | grep -c .)" -eq 1 ] && [[ $ends == *'status="0"'* ]] ||
        bad="$bad ${f##*/}: ${ends:-no <end>};"
done
if [ -z "$bad" ]; then
    pg_pass "plain_fork: each task's log ends once, with the task's own status 0, and has no event of a child"
else
    pg_fail "plain_fork: <end> of the tasks' logs:$bad"
fi

# The program races; replays must repeat the recorded order.
pg_replay_case "plain_fork (forked children that exit())" \
    "$PG_BUILD/tests/plain_fork" 3 20

pg_pvm_stop
pg_summary
