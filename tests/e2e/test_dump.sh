#!/usr/bin/env bash
# test_dump.sh - `pangaea -dump`: the binary communication logs as XML.
#
# Recordings that hold every kind of communication event (sends,
# multicasts, receives and polls of plain_variety; notices of
# plain_notify; queries of plain_query; group lookups, joins and leaves of
# group_race) are dumped; each task's document must be valid against
# schema/pangaea-log.xsd (xmllint --schema), the documents come in ltid
# order, one per task, and bad arguments or logs exit 2 with a reason.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
XSD=$PG_ROOT/schema/pangaea-log.xsd
dir=$(pg_tmpdir)

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

for prog in plain_variety plain_notify plain_query group_race; do
    logs=$dir/$prog
    if ! timeout 120 "$PANGAEA" -log -logdir "$logs" "$PG_BUILD/tests/$prog" \
            >"$dir/$prog.out" 2>"$dir/$prog.err"; then
        pg_fail "$prog: the recording failed"; cat "$dir/$prog.err"; continue
    fi
    bad= n=0
    for f in "$logs"/ltid-*.comm.pgc; do
        l=${f##*/ltid-}; l=${l%.comm.pgc}
        "$PANGAEA" -dump "$logs" "$l" >"$dir/$prog-$l.xml" || bad="$bad dump-$l"
        xmllint --noout --schema "$XSD" "$dir/$prog-$l.xml" 2>>"$dir/$prog.lint" ||
            bad="$bad invalid-$l"
        n=$((n + 1))
    done
    kinds=$(cat "$dir/$prog"-*.xml | grep -oE '^  <(send|recv|notice|query|gettid|leave|end)' |
            sort -u | tr -d ' <' | tr '\n' ' ')
    if [ -z "$bad" ] && [ "$n" -gt 1 ]; then
        pg_pass "$prog: the $n communication logs dump to XML valid against the schema (events: $kinds)"
    else
        pg_fail "$prog: $bad"; head -5 "$dir/$prog.lint"
    fi
done
for k in send recv notice query gettid leave end; do
    if cat "$dir"/*-*.xml | grep -q "^  <$k "; then
        pg_pass "a dump shows <$k> events"
    else
        pg_fail "no <$k> in any dump"
    fi
done

# The whole directory: one document per task, in ltid order.
logs=$dir/plain_variety
order=$("$PANGAEA" -dump "$logs" | sed -nE 's/.*<header format="pangaea-comm" version="[0-9]+" ltid="([0-9]+)".*/\1/p' | tr '\n' ' ')
want=$(ls "$logs" | sed -nE 's/^ltid-([0-9]+)\.comm\.pgc$/\1/p' | sort -n | tr '\n' ' ')
if [ -n "$want" ] && [ "$order" = "$want" ] &&
   [ "$("$PANGAEA" -dump "$logs" | grep -c '^<?xml')" -eq "$(echo $want | wc -w)" ]; then
    pg_pass "-dump LOGDIR prints one document per task, in ltid order ($order)"
else
    pg_fail "-dump LOGDIR printed ltids '$order', want '$want'"
fi

rc=0; "$PANGAEA" -dump "$logs" 999 >/dev/null 2>"$dir/e1" || rc=$?
if [ "$rc" -eq 2 ] && grep -q "ltid-999.comm.pgc" "$dir/e1"; then
    pg_pass "-dump of a task without a log exits 2 naming the file"
else
    pg_fail "-dump LOGDIR 999: exit $rc"; cat "$dir/e1"
fi
rc=0; "$PANGAEA" -dump "$logs" x1 >/dev/null 2>"$dir/e2" || rc=$?
if [ "$rc" -eq 2 ] && grep -q "usage: pangaea -dump" "$dir/e2"; then
    pg_pass "-dump with a bad ltid exits 2 with the usage"
else
    pg_fail "-dump LOGDIR x1: exit $rc"; cat "$dir/e2"
fi

pg_summary
