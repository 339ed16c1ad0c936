#!/usr/bin/env bash
# test_load.sh - 64 tasks, many messages: recorded, replayed, all accounted.
#
# Design.  plain_race with K=63 workers (64 tasks with the master) and M
# messages per worker to the master and M to its peer (PG_LOAD_K,
# PG_LOAD_M; M defaults to 300, about 38,000 messages in all: record plus
# one replay takes well under a minute on a 2-CPU machine, where M=1000 took
# over a minute for the replay alone; the issue's 10,000 per task is beyond
# CI's time budget and plain_race's own limit of 1000).  One run is
# recorded on a private pvmd, then replayed once.  Checks: both succeed;
# every log is valid against the schema (xmllint); the number of <send>
# destinations in all comm logs equals the number of <recv> (pvm_probe
# excepted: it takes no message), and better,
# the (sender, msgid, receiver) triples of the sends are exactly those of
# the receives; the replay prints exactly what the recording printed.
set -u
. "$(dirname "$0")/lib.sh"

K=${PG_LOAD_K:-63}
M=${PG_LOAD_M:-300}
RACE=$PG_BUILD/tests/plain_race
dir=$(pg_tmpdir)
logs=$dir/logs

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

t0=$(date +%s)
if timeout 300 "$PG_BUILD/pangaea" -log -logdir "$logs" "$RACE" "$K" "$M" >"$dir/rec.out" 2>"$dir/rec.err"; then
    pg_pass "recorded $((K + 1)) tasks, $M messages per worker to master and to peer ($(($(date +%s) - t0)) s)"
else
    pg_fail "recording failed"; tail -5 "$dir/rec.err"
fi
t1=$(date +%s)
if timeout 300 "$PG_BUILD/pangaea" -replay -logdir "$logs" "$RACE" "$K" "$M" >"$dir/rep.out" 2>"$dir/rep.err" &&
   cmp -s "$dir/rec.out" "$dir/rep.out"; then
    pg_pass "replay prints exactly the recorded output ($(($(date +%s) - t1)) s)"
else
    pg_fail "replay failed or differs"; tail -5 "$dir/rep.err"; diff "$dir/rec.out" "$dir/rep.out" | head -5
fi

nlogs=$(ls "$logs"/ltid-*.xml 2>/dev/null | wc -l)
if [ "$nlogs" -eq $((2 * (K + 2))) ] &&
   xmllint --noout --schema "$PG_ROOT/schema/pangaea-log.xsd" "$logs"/ltid-*.xml 2>"$dir/xmllint.err"; then
    pg_pass "all $nlogs logs (ltid 0..$((K + 1))) are valid against the schema"
else
    pg_fail "$nlogs logs, or some invalid:"; grep -v validates "$dir/xmllint.err" | head -5
fi

# Every send destination and every receive, as "sender msgid receiver".  A
# <recv call="pvm_probe"> is a probe that saw a message without taking it
# (the pvm_recv that takes it follows): not counted.
for f in "$logs"/ltid-*.comm.xml; do
    me=${f##*/ltid-}; me=${me%.comm.xml}
    awk -v me="$me" -v sends="$dir/sends" -v recvs="$dir/recvs" '
        function attr(name,  r) {
            if (match($0, " " name "=\"[0-9]+\"")) {
                r = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", r); return r
            }
            return "?"
        }
        /<send /  { msgid = attr("msgid") }
        /<to /    { print me, msgid, attr("ltid") >> sends }
        /<recv / && !/call="pvm_probe"/ { print attr("from"), attr("msgid"), me >> recvs }' "$f"
done
ns=$(wc -l <"$dir/sends") nr=$(wc -l <"$dir/recvs")
if [ "$ns" -eq "$nr" ] && [ "$nr" -gt $((2 * K * M)) ]; then
    pg_pass "sends equal receives in the logs: $ns send destinations, $nr receives"
else
    pg_fail "send destinations $ns, receives $nr"
fi
sort "$dir/sends" >"$dir/sends.s"; sort "$dir/recvs" >"$dir/recvs.s"
if cmp -s "$dir/sends.s" "$dir/recvs.s"; then
    pg_pass "every message sent was received exactly once (sender, msgid, receiver)"
else
    pg_fail "sends and receives differ:"; diff "$dir/sends.s" "$dir/recvs.s" | head -5
fi

pg_pvm_stop
pg_summary
