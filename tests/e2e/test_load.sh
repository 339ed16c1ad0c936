#!/usr/bin/env bash
# test_load.sh - 64 tasks exchanging 10,000 messages each, recorded and
# replayed: every event accounted for, output identical.
#
# Design.  plain_load (tests/programs/) with N=64 tasks and M=10,000 sends
# each (PG_LOAD_N, PG_LOAD_M): task I sends its j-th message to task
# (I+1+j%63)%64 and takes whatever arrives from anyone with pvm_nrecv and
# pvm_recv(-1, -1), 640,000 data messages in all; it prints per task the
# count and a hash of the order received.  On a private pvmd: one free run
# (-none) and one recording, whose outputs must differ (else the replay
# below would prove nothing), then one replay, whose output must be the
# recording's.  Checks on the logs: all valid against the schema; the
# (sender, msgid, receiver) triples of the <send> destinations are exactly
# those of the <recv>s (pvm_probe excepted: it takes no message), so no
# event is lost or doubled; and each task's logged data receives are the
# count the task itself printed.
#
# Then the same with 200 tasks and 20 sends each (PG_LOAD_N2, PG_LOAD_M2):
# the coordinator's task table starts at 64 entries and grows, and a run of
# more tasks than that once hung for ever after the program ended (a
# pointer into the table kept across its growth).  One host holds at most
# 505 tasks under Pangaea (508 without): pvmd takes two file descriptors
# per task and aborts past FD_SETSIZE (1024).
set -u
. "$(dirname "$0")/lib.sh"

LOAD=$PG_BUILD/tests/plain_load

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# run NAME MODE: plain_load N M under pangaea MODE, LIMIT s at most;
# output in $dir/NAME.out.
run() {
    local name=$1 mode=$2 t0 rc=0
    t0=$(date +%s%N)
    timeout "$LIMIT" "$PG_BUILD/pangaea" "$mode" -logdir "$logs" "$LOAD" "$N" "$M" \
        >"$dir/$name.out" 2>"$dir/$name.err" || rc=$?
    t0=$((($(date +%s%N) - t0) / 100000000))
    TOOK=$((t0 / 10)).$((t0 % 10))
    return "$rc"
}

# load_case N M: the checks, for N tasks of M sends each.
load_case() {
    N=$1 M=$2
    dir=$(pg_tmpdir)
    logs=$dir/logs

    if run free -none && run rec -log; then
        pg_pass "$N tasks, $M sends each: free run and recording ($TOOK s) succeed"
    else
        pg_fail "$N tasks: free run or recording failed"; tail -n 5 "$dir/free.err" "$dir/rec.err"
    fi
    if ! cmp -s "$dir/free.out" "$dir/rec.out" && grep -q "received=$((N * M)) " "$dir/rec.out"; then
        pg_pass "$N tasks: without replay the receive orders differ ($(tail -1 "$dir/free.out" | sed 's/.*orders=//') vs $(tail -1 "$dir/rec.out" | sed 's/.*orders=//'))"
    else
        pg_fail "$N tasks: the free run and the recording print the same (or not all $((N * M)) messages)"
    fi
    if run rep -replay && cmp -s "$dir/rec.out" "$dir/rep.out"; then
        pg_pass "$N tasks: replay prints exactly the recorded output ($TOOK s)"
    else
        pg_fail "$N tasks: replay failed or differs"; tail -5 "$dir/rep.err"; diff "$dir/rec.out" "$dir/rep.out" | head -5
    fi

    nlogs=$(ls "$logs"/ltid-*.exec.xml "$logs"/ltid-*.comm.pgc 2>/dev/null | wc -l)
    for l in $(seq 0 "$N"); do pg_comm_xml "$logs" "$l" >"$dir/comm-$l.xml"; done
    if [ "$nlogs" -eq $((2 * (N + 1))) ] &&
       xmllint --noout --schema "$PG_ROOT/schema/pangaea-log.xsd" "$logs"/ltid-*.exec.xml \
           "$dir"/comm-*.xml 2>"$dir/xmllint.err"; then
        pg_pass "all $nlogs logs (ltid 0..$N) are valid against the schema"
    else
        pg_fail "$N tasks: $nlogs logs, or some invalid:"; grep -v validates "$dir/xmllint.err" | head -5
    fi

    # Every send destination and every receive, as "sender msgid receiver",
    # from the logs dumped above (dumping 640,000 messages again would only
    # cost CPU).
    : >"$dir/sends"; : >"$dir/recvs"
    for l in $(seq 0 "$N"); do pg_xml_messages "$l" "$dir/sends" "$dir/recvs" <"$dir/comm-$l.xml"; done
    ns=$(wc -l <"$dir/sends") nr=$(wc -l <"$dir/recvs")
    if [ "$ns" -eq "$nr" ] && [ "$nr" -gt $((N * M)) ]; then
        pg_pass "$N tasks: sends equal receives in the logs: $ns send destinations, $nr receives"
    else
        pg_fail "$N tasks: send destinations $ns, receives $nr"
    fi
    sort "$dir/sends" >"$dir/sends.s"; sort "$dir/recvs" >"$dir/recvs.s"
    if cmp -s "$dir/sends.s" "$dir/recvs.s"; then
        pg_pass "$N tasks: every message sent was received exactly once (sender, msgid, receiver)"
    else
        pg_fail "$N tasks: sends and receives differ:"; diff "$dir/sends.s" "$dir/recvs.s" | head -5
    fi

    # Task I is ltid I+1 (the first task's children are ltids 2..N); its data
    # messages have tags 100..103.
    bad=
    for i in $(seq 0 $((N - 1))); do
        said=$(sed -nE "s/^\[1\] load: task $i received ([0-9]+),.*/\1/p" "$dir/rec.out")
        logged=$(grep -cE '<recv .* tag="10[0-3]"' "$dir/comm-$((i + 1)).xml")
        [ -n "$said" ] && [ "$said" -eq "$logged" ] || bad="$bad task $i (says ${said:-nothing}, log $logged)"
    done
    if [ -z "$bad" ]; then
        pg_pass "$N tasks: each task's log holds as many data receives as the task counted"
    else
        pg_fail "$N tasks: logged receives differ from the tasks' counts:${bad:0:300}"
    fi
}

LIMIT=300 load_case "${PG_LOAD_N:-64}" "${PG_LOAD_M:-10000}"
LIMIT=300 load_case "${PG_LOAD_N2:-200}" "${PG_LOAD_M2:-20}"

pg_pvm_stop
pg_summary
