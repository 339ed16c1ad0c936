#!/usr/bin/env bash
# test_archcode.sh - pvm_archcode, a call added as its row of
# src/pvm/wrap/pg_calls.def plus its wrapper (wrap_query.c), is recorded
# and replayed as a query; its query code (16) is past the 4 bits of a
# binary event's call, so it is written with the escape of code 15
# (docs/comm-log-format.md).
#
# tests/programs/plain_arch.c prints pvm_archcode of each name it is given
# (PVM looks the name up among the architectures of the virtual machine's
# hosts: LINUX64 here, that of the test's private pvmd).
# 1. The recording prints what an unrecorded run prints, and its log holds
#    a <query call="pvm_archcode"> per name, with the answer printed.
# 2. Its answers edited in the log (as another PVM would have answered),
#    a replay prints the edited answers: it does not ask PVM.
# 3. A log whose query names another architecture than the program asks
#    about makes the replay diverge, naming the call.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_arch
dir=$(pg_tmpdir)
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

out() { sed -n 's/^\[1\] //p' "$1"; }

"$PANGAEA" -none "$PROG" LINUX64 LINUX64 >"$dir/plain.out" 2>&1 ||
    pg_fail "an unrecorded run failed: $(tail -3 "$dir/plain.out")"
if "$PANGAEA" -log -logdir "$dir/rec" "$PROG" LINUX64 LINUX64 >"$dir/rec.out" 2>&1; then
    "$PANGAEA" -dump "$dir/rec" 1 >"$dir/rec.xml" 2>&1
    want=$(out "$dir/plain.out" | awk '{ printf "%s=%s ", $1, $2 }')
    got=$(sed -n 's/.*<query .*call="pvm_archcode" about="\([^"]*\)" value="\([-0-9]*\)".*/\1=\2/p' \
        "$dir/rec.xml" | tr '\n' ' ')
    if [ -n "$want" ] && [ "$(out "$dir/rec.out")" = "$(out "$dir/plain.out")" ] &&
       [ "$got" = "$want" ]; then
        pg_pass "the recording answers as PVM does, and logs each query ($got)"
    else
        pg_fail "recording: logged '$got', PVM answers '$want'"; cat "$dir/rec.out"
    fi
else
    pg_fail "the recording failed: $(tail -3 "$dir/rec.out")"
fi

cp -r "$dir/rec" "$dir/edited"
if pg_comm_edit "$dir/edited" 1 \
    '/call="pvm_archcode"/s/ value="[-0-9]*"/ value="4242"/'; then
    "$PANGAEA" -replay -logdir "$dir/edited" "$PROG" LINUX64 LINUX64 >"$dir/rep.out" 2>&1
    rc=$?
    if [ "$rc" = 0 ] && [ "$(out "$dir/rep.out" | tr '\n' ' ')" = "LINUX64 4242 LINUX64 4242 " ]; then
        pg_pass "a replay answers what the log says (4242), not what PVM says"
    else
        pg_fail "replay of the edited log: status $rc"; cat "$dir/rep.out"
    fi
else
    pg_fail "cannot edit the recording"
fi

cp -r "$dir/rec" "$dir/other"
if pg_comm_edit "$dir/other" 1 '0,/call="pvm_archcode"/s/ about="LINUX64"/ about="HPPA"/'; then
    "$PANGAEA" -replay -logdir "$dir/other" "$PROG" LINUX64 LINUX64 >"$dir/div.out" 2>&1
    rc=$?
    if [ "$rc" != 0 ] && grep -q "pvm_archcode" "$dir/div.out" && grep -q "HPPA" "$dir/div.out"; then
        pg_pass "a query about another architecture diverges, naming it (status $rc)"
    else
        pg_fail "replay asking LINUX64 where HPPA was recorded: status $rc"; cat "$dir/div.out"
    fi
else
    pg_fail "cannot edit the recording"
fi

pg_pvm_stop
pg_summary
