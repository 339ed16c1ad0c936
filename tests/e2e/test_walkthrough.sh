#!/usr/bin/env bash
# test_walkthrough.sh - README's "A debugging session, start to end", run
# from start to end on a program nobody here wrote: pvm-examples'
# master1.c (its source ships in the package; its workers are Debian's
# own slave1 binary, spawned by name).
#
# Design.  The steps and what each must show, as the README tells them:
#  1. build master1 with -g; record it; a replay prints what it printed;
#  2. -races names the racing pvm_recv at master1.c:LINE;
#  3. -whatif makes it take another message: the output's order changes;
#  4. a bug that bites under one order only (abort when the first result
#     is worker 2's): recorded until a run crashes (it does about one run
#     in three; at most 30 tries); -tasks says how ltid 1 died and where;
#     a replay dies there again, "as recorded";
#  5. gdb: -replay -stop at the last receive, `gdb -p PID -x SCRIPT`
#     opens in master1.c, SIGCONT lets the replay go on to its crash;
#  6. rebuild-and-replay: a printf added before the abort, rebuilt,
#     `-replay -rebuilt` prints it and dies as recorded.
set -u
. "$(dirname "$0")/lib.sh"

SRC=/usr/share/doc/pvm-examples/examples.tar.gz
[ -r "$SRC" ] && command -v slave1 >/dev/null && command -v gdb >/dev/null ||
    pg_skip "pvm-examples or gdb not installed (install-deps.sh test installs them)"
PANGAEA=$PG_BUILD/pangaea
dir=$(pg_tmpdir)
cd "$dir" || exit 1
tar -xzf "$SRC" examples/master1.c
build() { cc -g -w -o master1 examples/master1.c -lpvm3; }
lines() { grep -c '^\[1\] I got' "$1"; }
build || { pg_fail "cannot build master1.c"; pg_summary; exit 1; }
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# 1. record, replay
rc=0; timeout 60 "$PANGAEA" -log ./master1 </dev/null >rec.out 2>rec.err || rc=$?
rrc=0; timeout 60 "$PANGAEA" -replay ./master1 </dev/null >rep.out 2>rep.err || rrc=$?
if [ "$rc" -eq 0 ] && [ "$rrc" -eq 0 ] && [ "$(lines rec.out)" -eq 3 ] && cmp -s rec.out rep.out &&
   grep -q 'replayed [0-9]* events of 4 tasks as recorded' rep.err; then
    pg_pass "1. master1 recorded and replayed: the same output ($(grep '^\[1\] I got' rec.out | awk '{print $6}' | tr -d ';' | tr '\n' ' '))"
else
    pg_fail "1. record exit $rc, replay exit $rrc"; cat rec.out rec.err rep.out rep.err
fi

# 2. races
"$PANGAEA" -races -json logs >races.json 2>races.err
race=$(python3 -S -c 'import json, sys, races_json; r=races_json.load(open(sys.argv[1]))["races"][0]
a=r["alternatives"][0]; print("%d:%d=%d:%d %s" % (r["ltid"], r["seq"], a["ltid"], a["msgid"], r["site"]))' races.json 2>/dev/null)
if [[ $race =~ ^1:[0-9]+=[0-9]+:[0-9]+\ master1\.c:[0-9]+$ ]]; then
    pg_pass "2. -races: the first racing receive and another message it could take: $race"
else
    pg_fail "2. -races: '$race'"; cat races.json races.err
fi

# 3. what-if
rc=0; timeout 60 "$PANGAEA" -whatif "${race% *}" -o other ./master1 </dev/null >wi.out 2>wi.err || rc=$?
if [ "$rc" -eq 0 ] && [ "$(lines wi.out)" -eq 3 ] &&
   [ "$(sed -n '2p' wi.out)" != "$(sed -n '2p' rec.out)" ]; then
    pg_pass "3. -whatif ${race% *}: the receive took the other message first ($(sed -n 2p wi.out | cut -c1-40))"
else
    pg_fail "3. -whatif: exit $rc"; cat wi.out wi.err
fi

# 4. a crash under one order only, recorded
sed -i 's|^\(\s*\)printf("I got|\1if (i == 0 \&\& who == 2) abort(); /* the bug */\n&|' examples/master1.c
line=$(grep -n 'the bug' examples/master1.c | cut -d: -f1)
build || pg_fail "cannot build the buggy master1"
crashed=
for i in $(seq 30); do
    rc=0; timeout 60 "$PANGAEA" -log -logdir crash ./master1 </dev/null >crash.out 2>crash.err || rc=$?
    [ "$rc" -ne 0 ] && { crashed=$i; break; }
done
at="died of SIGABRT at master1.c:$line"
if [ -n "$crashed" ] && grep -q "ltid 1 (.*master1) died of SIGABRT after event [0-9]* of its log, at master1.c:$line$" crash.err &&
   "$PANGAEA" -tasks crash | grep -q "^1 .* $at"; then
    pg_pass "4. the bug crashed run $crashed; -tasks says $at"
else
    pg_fail "4. no crash recorded in 30 runs, or not named (exit $rc)"; cat crash.err; "$PANGAEA" -tasks crash
fi
rc=0; timeout 60 "$PANGAEA" -replay -logdir crash ./master1 </dev/null >crep.out 2>crep.err || rc=$?
if [ "$rc" -eq 4 ] && cmp -s crash.out crep.out && grep -q "at master1.c:$line, as recorded$" crep.err; then
    pg_pass "4. the crash replays: same output, $(grep -o 'died of.*' crep.err)"
else
    pg_fail "4. replay of the crash: exit $rc"; cat crep.err
fi

# 5. gdb at the receive before the crash
ev=$("$PANGAEA" -dump crash 1 | grep -o '<recv seq="[0-9]*"' | tail -n 1 | grep -o '[0-9]*')
PANGAEA_STALL=2 timeout 120 "$PANGAEA" -replay -stop "1:$ev" -logdir crash ./master1 </dev/null \
    >stop.out 2>stop.err &
runner=$!
for i in $(seq 300); do grep -q 'attach with gdb' stop.err && break; sleep 0.1; done
cmd=$(grep -o 'gdb -p [0-9]* -x [^ ;]*' stop.err | head -n 1)
pid=$(awk '{print $3}' <<<"$cmd")
[ -n "$cmd" ] && timeout 60 $cmd -batch >gdb.out 2>&1
if [ -n "$cmd" ] && grep -Eq '^#[0-9]+ .* main \(\) at examples/master1\.c:[0-9]+' gdb.out; then
    pg_pass "5. -stop 1:$ev, then '$cmd': gdb opens in master1.c ($(grep -Eo 'master1\.c:[0-9]+' gdb.out | tail -n 1))"
else
    pg_fail "5. gdb: '$cmd'"; cat stop.err gdb.out
fi
[ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null
rc=0; wait "$runner" || rc=$?
if [ "$rc" -eq 4 ] && grep -q 'as recorded$' stop.err; then
    pg_pass "5. after SIGCONT the replay goes on to the recorded crash"
else
    pg_fail "5. after SIGCONT: exit $rc"; cat stop.err
fi

# 6. rebuild with a printf, replay
sed -i 's|^\(\s*\)if (i == 0 \&\& who == 2) abort(); /\* the bug \*/|\1if (i == 0) printf("first: %d\\n", who);\n&|' examples/master1.c
build || pg_fail "cannot rebuild master1 with a printf"
rc=0; timeout 60 "$PANGAEA" -replay -rebuilt -logdir crash ./master1 </dev/null >rb.out 2>rb.err || rc=$?
if [ "$rc" -eq 4 ] && grep -q '^\[1\] first: 2$' rb.out && grep -q 'died of SIGABRT .*, as recorded$' rb.err; then
    pg_pass "6. the rebuilt master1 (a printf added) replays the crash: 'first: 2', then $(grep -o 'died of.*' rb.err)"
else
    pg_fail "6. -replay -rebuilt: exit $rc"; cat rb.out rb.err
fi

cd /
pg_pvm_stop
pg_summary
