#!/usr/bin/env bash
# test_symbols.sh - two copies of the runtime in one process stay apart.
#
# Design.  libpangaea.so must export only the PVM calls it wraps (those
# src/pvm/wrap/pg_calls.def lists) and the calls of include/pangaea.h;
# anything else it exports (pg, pg_real, ...) binds to the first copy
# loaded when a process holds two, and the second copy then calls the
# first for its "real" PVM call: pvm_spawn spun at 100% CPU for ever.
# Checks: the dynamic symbols of build/libpangaea.so are exactly that list;
# the static-linked static_race exports no internal name either; then
# alt_race (plain_race linked with a second copy of the library, linked in
# build/alt/) and static_race, each run by `pangaea` (which preloads
# build/libpangaea.so), record and replay within a time limit and the
# replay prints the recorded output.
set -u
. "$(dirname "$0")/lib.sh"

dir=$(pg_tmpdir)
LIB=$PG_BUILD/libpangaea.so

# The allowed exports: the wrapped PVM and libc calls (a row each in pg_calls.def,
# which fills real.c's lookups and the version script) and pangaea.h's calls.
{
    sed -n 's/^PG_\(CALL\|NAMED\)(\([a-z_]*\),.*/pvm_\2/p' "$PG_ROOT/src/pvm/wrap/pg_calls.def"
    sed -n 's/^PG_LIBC(\([a-z_]*\),.*/\1/p' "$PG_ROOT/src/pvm/wrap/pg_calls.def"
    grep -oE '\bpangaea_[a-z_]+\(' "$PG_ROOT/include/pangaea.h" | tr -d '('
} | sort -u >"$dir/allowed"
nm -D --defined-only "$LIB" | awk '{print $3}' | sort -u >"$dir/exported"
extra=$(comm -13 "$dir/allowed" "$dir/exported" | tr '\n' ' ')
missing=$(comm -23 "$dir/allowed" "$dir/exported" | tr '\n' ' ')
if [ "$(wc -l <"$dir/allowed")" -gt 20 ] && [ -z "$extra" ] && [ -z "$missing" ]; then
    pg_pass "libpangaea.so exports exactly the $(wc -l <"$dir/allowed") wrapped PVM calls and pangaea.h calls"
else
    pg_fail "libpangaea.so exports more or less than it should: extra: ${extra:0:400} missing: ${missing:-none}"
fi

# A wrapper without its row would be left out of libpangaea.so's exports
# (and its real call never looked up): every pvm_ call the library defines
# has a row.
nm --defined-only "$PG_BUILD/libpangaea.a" 2>/dev/null | awk '$2 == "T" {print $3}' |
    grep '^pvm_' | sort -u >"$dir/defined"
unlisted=$(comm -23 "$dir/defined" "$dir/allowed" | tr '\n' ' ')
if [ "$(wc -l <"$dir/defined")" -gt 20 ] && [ -z "$unlisted" ]; then
    pg_pass "every PVM call the library defines ($(wc -l <"$dir/defined")) is a row of pg_calls.def"
else
    pg_fail "PVM calls defined without a row in pg_calls.def: ${unlisted:-none}"
fi

leaked=$(nm -D --defined-only "$PG_BUILD/tests/static_race" | awk '{print $3}' |
         grep -vE '^(pvm_|pangaea_|_)' | grep -E '^pg' | tr '\n' ' ')
if [ -z "$leaked" ]; then
    pg_pass "static_race (libpangaea.a) exports no internal name of the runtime"
else
    pg_fail "static_race exports internal names: ${leaked:0:400}"
fi

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# two_copies ID NAME PROGRAM: record and replay PROGRAM, 60 s at most each;
# files in $dir/ID.*.
two_copies() {
    local id=$1 name=$2 prog=$3 logs=$dir/$1.logs rc=0
    timeout 60 "$PG_BUILD/pangaea" -log -logdir "$logs" "$prog" \
        >"$dir/$id.rec" 2>"$dir/$id.rec.err" || rc=$?
    if [ "$rc" -ne 0 ]; then
        pg_fail "$name: recording ended with $rc (124: still running after 60 s)"
        tail -3 "$dir/$id.rec.err"
        return
    fi
    timeout 60 "$PG_BUILD/pangaea" -replay -logdir "$logs" "$prog" \
        >"$dir/$id.rep" 2>"$dir/$id.rep.err" || rc=$?
    if [ "$rc" -eq 0 ] && grep -q 'race: hash=' "$dir/$id.rec" &&
       cmp -s "$dir/$id.rec" "$dir/$id.rep"; then
        pg_pass "$name: recorded and replayed, replay prints the recorded output"
    else
        pg_fail "$name: replay ended with $rc or differs"
        tail -3 "$dir/$id.rep.err"; diff "$dir/$id.rec" "$dir/$id.rep" | head -5
    fi
}

if ldd "$PG_BUILD/tests/alt_race" | grep -q "=> $PG_BUILD/alt/libpangaea.so"; then
    two_copies alt "alt_race (a second libpangaea.so, preloaded one first)" "$PG_BUILD/tests/alt_race"
else
    pg_fail "alt_race is not linked with build/alt/libpangaea.so: the case would prove nothing"
fi
two_copies static "static_race (libpangaea.a, libpangaea.so preloaded)" "$PG_BUILD/tests/static_race"

pg_pvm_stop
pg_summary
