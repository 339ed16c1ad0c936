#!/usr/bin/env bash
# test_contexts.sh - PVM contexts are named in the log, so `pangaea -races`
# offers a receive only the messages of its own context
# (src/pvm/wrap/wrap_context.c).
#
# plain_contexts makes a context, hands its number to two children; child
# 0 sends tag 5 in it, child 1 in the base context, and the parent takes
# tag 5 from any sender, first in the new context, then in the base one:
# neither receive can take the other's message.  The recording's send and
# receive in the new context carry ctx="4097" (ltid 1's first context,
# learnt by child 0 from the coordinator), those of the base context none;
# -races finds no race (with every context logged as 0, as before, it
# reported that the first receive could have taken child 1's message);
# 3 replays print the recorded output.
set -u
. "$(dirname "$0")/lib.sh"

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
dir=$(pg_tmpdir)
prog=$PG_BUILD/tests/plain_contexts
if ! timeout 60 "$PG_BUILD/pangaea" -log -logdir "$dir/logs" "$prog" >"$dir/rec" 2>"$dir/rec.err"; then
    pg_fail "plain_contexts: recording failed"; cat "$dir/rec.err"
else
    "$PG_BUILD/pangaea" -dump -logdir "$dir/logs" >"$dir/dump" 2>&1
    if [ "$(grep -c 'tag="5".*ctx="4097"' "$dir/dump")" -eq 2 ] &&
       [ "$(grep -c 'ctx=' "$dir/dump")" -eq 2 ]; then
        pg_pass "plain_contexts: the send and the receive in the new context carry its name (ctx 4097), no other event a ctx"
    else
        pg_fail "plain_contexts: unexpected contexts in the log:"
        grep 'tag="5"' "$dir/dump"
    fi
    "$PG_BUILD/pangaea" -races -json -logdir "$dir/logs" >"$dir/races.json" 2>"$dir/races.err"
    if python3 -S -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["receives"] == 4 and d["races"] == []))' "$dir/races.json"; then
        pg_pass "plain_contexts: -races offers each receive only its context's messages: no race in 4 receives"
    else
        pg_fail "plain_contexts: -races:"
        cat "$dir/races.json" "$dir/races.err" | head -8
    fi
    same=0
    for i in 1 2 3; do
        timeout 60 "$PG_BUILD/pangaea" -replay -logdir "$dir/logs" "$prog" >"$dir/rep$i" 2>"$dir/rep$i.err" &&
            cmp -s "$dir/rec" "$dir/rep$i" && same=$((same + 1))
    done
    if [ "$same" -eq 3 ] && grep -q '^\[1\] new context: child 0 in the new context$' "$dir/rec"; then
        pg_pass "plain_contexts: 3 of 3 replays print the recorded output"
    else
        pg_fail "plain_contexts: $same of 3 replays as recorded:"
        cat "$dir/rec" "$dir/rep1" "$dir/rep1.err" | head -8
    fi
fi

pg_pvm_stop
pg_summary
