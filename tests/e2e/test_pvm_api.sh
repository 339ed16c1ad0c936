#!/usr/bin/env bash
# test_pvm_api.sh - every call of libpvm3 and libgpvm3 is accounted for.
#
# Design.  src/pvm/wrap/pg_api.def has a row for every function the installed
# libraries export (build/tests/pvm_api prints the rows):
# - its rows are exactly `nm -D --defined-only` (type T) of libpvm3.so.3
#   and libgpvm3.so.3, each in its library, both ways;
# - its REPLAYED rows are exactly pg_calls.def's PG_CALL rows (a wrapper
#   that records and replays) and its NAMED rows exactly the PG_NAMED rows;
# - the README's "What replay guarantees" holds the list pvm_api prints;
# - a call named as not replayed says so once per task, in recording and
#   in replay (plain_named calls pvm_getnoresets twice), the replay prints the
#   recorded output, and `pangaea -races` counts the calls.
set -u
. "$(dirname "$0")/lib.sh"

dir=$(pg_tmpdir)
API=$PG_BUILD/tests/pvm_api
LIBDIR=$(dirname "$(ldconfig -p | awk '/libpvm3\.so\.3 .*x86-64/ {print $NF; exit}')")

"$API" nm | sort >"$dir/table"
for lib in libpvm3 libgpvm3; do
    nm -D --defined-only "$LIBDIR/$lib.so.3" | awk -v l="$lib" '$2 == "T" {print l, $3}'
done | sort >"$dir/nm"
extra=$(comm -13 "$dir/table" "$dir/nm" | tr '\n' ' ')
gone=$(comm -23 "$dir/table" "$dir/nm" | tr '\n' ' ')
if [ "$(wc -l <"$dir/nm")" -gt 200 ] && [ -z "$extra" ] && [ -z "$gone" ]; then
    pg_pass "pg_api.def has a row for each of the $(wc -l <"$dir/nm") functions libpvm3 and libgpvm3 export, and no other"
else
    pg_fail "pg_api.def against nm -D ($LIBDIR): without a row: ${extra:-none}; rows not exported: ${gone:-none}"
fi

"$API" how | sort >"$dir/how"
sed -n 's/^PG_CALL(\([a-z]*\),.*/REPLAYED pvm_\1/p; s/^PG_NAMED(\([a-z_]*\),.*/NAMED pvm_\1/p' \
    "$PG_ROOT/src/pvm/wrap/pg_calls.def" | sort >"$dir/wrapped"
if [ "$(wc -l <"$dir/wrapped")" -gt 40 ] && cmp -s "$dir/how" "$dir/wrapped"; then
    pg_pass "pg_api.def's $(grep -c REPLAYED "$dir/how") replayed and $(grep -c NAMED "$dir/how") named calls are exactly pg_calls.def's wrappers"
else
    pg_fail "pg_api.def and pg_calls.def disagree (< pg_api.def, > pg_calls.def):"
    diff "$dir/how" "$dir/wrapped" | head -10
fi

"$API" readme >"$dir/readme"
sed -n '/^<!-- pvm_api readme: begin/,/^<!-- pvm_api readme: end/p' "$PG_ROOT/README.md" |
    sed '1d;$d' >"$dir/readme.md"
if [ -s "$dir/readme" ] && cmp -s "$dir/readme" "$dir/readme.md"; then
    pg_pass "README's list of how each call is handled is pvm_api's, made from pg_api.def"
else
    pg_fail "README's list differs from build/tests/pvm_api readme (< table, > README):"
    diff "$dir/readme" "$dir/readme.md" | head -10
fi

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
prog=$PG_BUILD/tests/plain_named
said='pvm_getnoresets is not replayed: this run may not repeat'
rc=0
timeout 60 "$PG_BUILD/pangaea" -log -logdir "$dir/logs" "$prog" >"$dir/rec" 2>"$dir/rec.err" || rc=$?
timeout 60 "$PG_BUILD/pangaea" -replay -logdir "$dir/logs" "$prog" >"$dir/rep" 2>"$dir/rep.err" || rc=$((rc + $?))
n_rec=$(cat "$dir/rec" "$dir/rec.err" | grep -c "$said")
n_rep=$(cat "$dir/rep" "$dir/rep.err" | grep -c "$said")
if [ "$rc" -eq 0 ] && [ "$n_rec" -eq 1 ] && [ "$n_rep" -eq 1 ] && cmp -s "$dir/rec" "$dir/rep" &&
   grep -q 'getnoresets returned 0 twice' "$dir/rec"; then
    pg_pass "pvm_getnoresets, called twice, is named once in the recording and once in the replay"
else
    pg_fail "naming pvm_getnoresets: exit $rc, said $n_rec times recording, $n_rep replaying"
    cat "$dir/rec" "$dir/rec.err" "$dir/rep.err" | head -10
fi
races=$("$PG_BUILD/pangaea" -races "$dir/logs" 2>&1)
if grep -q '^2 calls not replayed (pvm_getnoresets)' <<<"$races"; then
    pg_pass "pangaea -races counts the 2 calls not replayed"
else
    pg_fail "pangaea -races does not count them: $races"
fi

pg_pvm_stop
pg_summary
