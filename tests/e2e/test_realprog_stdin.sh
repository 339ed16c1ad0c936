#!/usr/bin/env bash
# test_realprog_stdin.sh - pangaea's stdin reaches the program's first task,
# as it comes, is recorded, and a replay feeds the recorded bytes whatever
# stdin it is given.
#
# Design.  (a) plain_stdio (tests/programs) reads numbers with scanf until
# 0: recorded with a file as stdin, it must print what the file holds; the
# log directory must hold the bytes (pangaea-stdin); replays with stdin
# /dev/null, and with another file (which pangaea must name as differing),
# must print exactly the recorded output.  The unrecorded runs must differ
# (its children answer in any order), so the replays prove something.
# (b) Streaming: stdin is a FIFO the test writes "5" into and keeps open;
# the task must echo "got 5" while stdin is still open (no waiting for end
# of file), then the test sends 0 and closes.
# (c) Debian's pvm-examples trsg (reads two numbers with scanf), frsg (the
# same in Fortran, `read *`) and gexample (reads two with scanf, spawns
# itself) get their input, and replay it with no stdin.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_stdio
dir=$(pg_tmpdir)
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
cd "$dir" || exit 1
echo "first line of input.txt" >input.txt

# --- (a) recorded input, replayed whatever stdin is ----------------------
printf '3 4\n5\n0\n' >in.txt
printf '9\n0\n' >other.txt
expect=$(printf 'got 3\ngot 4\ngot 5\nread 3 numbers, sum 12')
PG_RUNS=10
pg_repeat "$PG_RUNS" "$dir/free" sh -c "\"$PANGAEA\" -none -logdir \"$dir/none\" \"$PROG\" 3 <in.txt"
if [ "$PG_REPEAT_BAD" -eq 0 ] && [ "$PG_REPEAT_DISTINCT" -ge 2 ]; then
    pg_pass "unrecorded runs differ ($PG_REPEAT_DISTINCT distinct outputs of $PG_RUNS)"
else
    pg_fail "unrecorded runs: $PG_REPEAT_BAD failed, $PG_REPEAT_DISTINCT distinct"; cat "$dir/free/1.err"
fi
rc=0
timeout 60 "$PANGAEA" -log -logdir "$dir/logs" "$PROG" 3 <in.txt >rec.out 2>rec.err || rc=$?
got=$(grep -E '^\[1\] (got|read) ' rec.out | sed 's/^\[1\] //')
if [ "$rc" -eq 0 ] && [ "$got" = "$expect" ]; then
    pg_pass "the first task read pangaea's stdin (3 numbers, sum 12)"
else
    pg_fail "recording: exit $rc, the task read: '$got'"; cat rec.out rec.err
fi
if cmp -s in.txt "$dir/logs/pangaea-stdin"; then
    pg_pass "the input is recorded in the log directory (pangaea-stdin)"
else
    pg_fail "no recorded input equal to stdin in $dir/logs"; ls -l "$dir/logs"
fi
pg_repeat 5 "$dir/rep0" sh -c "\"$PANGAEA\" -replay -logdir \"$dir/logs\" \"$PROG\" 3 </dev/null"
same=0
for i in 1 2 3 4 5; do cmp -s rec.out "$dir/rep0/$i.out" && same=$((same + 1)); done
if [ "$PG_REPEAT_BAD" -eq 0 ] && [ "$same" -eq 5 ]; then
    pg_pass "5 replays with stdin /dev/null print exactly the recorded output"
else
    pg_fail "$same of 5 replays with no stdin match"; diff rec.out "$dir/rep0/1.out"; cat "$dir/rep0/1.err"
fi
rc=0
timeout 60 "$PANGAEA" -replay -logdir "$dir/logs" "$PROG" 3 <other.txt >rep.out 2>rep.err || rc=$?
if [ "$rc" -eq 0 ] && cmp -s rec.out rep.out &&
   grep -q "stdin given differs from the recorded one" rep.err; then
    pg_pass "a replay given other input feeds the recorded one and says so"
else
    pg_fail "replay with other stdin: exit $rc"; diff rec.out rep.out; cat rep.err
fi

# --- (b) input as it comes --------------------------------------------------
mkfifo feed
timeout 60 "$PANGAEA" -none -logdir "$dir/none" "$PROG" 1 <feed >live.out 2>live.err &
run=$!
exec 7>feed
echo 5 >&7
seen=no
for i in $(seq 200); do
    grep -q '^\[1\] got 5$' live.out && { seen=yes; break; }
    sleep 0.1
done
echo 0 >&7
exec 7>&-
wait "$run"
if [ "$seen" = yes ] && grep -q '^\[1\] read 1 numbers, sum 5$' live.out; then
    pg_pass "input reaches the task as it comes (echoed before stdin closed)"
else
    pg_fail "streamed input: seen before close: $seen"; cat live.out live.err
fi

# --- (c) Debian's pvm-examples --------------------------------------------
for prog in trsg frsg gexample; do
    command -v "$prog" >/dev/null || { pg_fail "$prog not installed (pvm-examples)"; continue; }
    case $prog in
        trsg) printf '4\n3\n' >ex.txt; want='nprocs = 4, count = 3' ;;
        frsg) printf '4\n3\n' >ex.txt; want='first  *12  integers is  *650' ;;
        gexample) printf '12\n3\n' >ex.txt; want='The 1-Norm is 78' ;;
    esac
    rc=0
    timeout 60 "$PANGAEA" -log -logdir "$dir/$prog" "$prog" <ex.txt >ex.out 2>ex.err || rc=$?
    rrc=0
    timeout 60 "$PANGAEA" -replay -logdir "$dir/$prog" "$prog" </dev/null >exr.out 2>exr.err || rrc=$?
    if [ -n "$want" ] && grep -Eq "$want" ex.out && [ "$rc" = "$rrc" ] && cmp -s ex.out exr.out; then
        pg_pass "$prog reads its input ('$want') and replays it with no stdin (exit $rc both)"
    else
        pg_fail "$prog: record exit $rc, replay exit $rrc, wanted '$want'"; head -20 ex.out ex.err; diff ex.out exr.out | head
    fi
done

cd / && pg_pvm_stop
pg_summary
