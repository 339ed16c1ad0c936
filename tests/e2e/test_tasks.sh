#!/usr/bin/env bash
# test_tasks.sh - pvm_tasks and pvm_config under `pangaea`: Pangaea's own
# tasks are hidden, and the timing-dependent answers are replayed.
#
# Design.  tests/programs/plain_tasks.c spawns K workers, prints what
# pvm_tasks(0) lists (count, those of its own program, any other program,
# its parent) and pvm_config's host count, then polls pvm_tasks while the
# workers end at random instants, printing each new count and the number
# of polls.  Checks:
# - the program sees exactly its K+1 tasks, no other program (not
#   `pangaea`, not the coordinator), and no parent (started "from a
#   shell"), under -none and under -log;
# - unrecorded runs differ (counts, polls), so the replay check can fail;
# - 5 replays print exactly the recorded output, with the comm log naming
#   the pvm_tasks queries and the data file holding their answers.
set -u
. "$(dirname "$0")/lib.sh"

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
dir=$(pg_tmpdir)
prog=$PG_BUILD/tests/plain_tasks
pangaea=$PG_BUILD/pangaea
K=3

pg_repeat 5 "$dir/free" "$pangaea" -none -logdir "$dir/free.logs" "$prog" $K
want="[1] tasks: $((K + 1)), of this program: $((K + 1)), my parent: none"
seen=$(grep -h 'tasks:\|another task' "$dir"/free/*.out | sort | uniq -c | sed 's/^ *//' | tr '\n' ';')
if [ "$PG_REPEAT_BAD" -eq 0 ] && [ "$seen" = "5 $want;" ]; then
    pg_pass "pvm_tasks lists the program's $((K + 1)) tasks only, no parent (5 of 5 runs under -none)"
else
    pg_fail "pvm_tasks under -none: $seen (want 5 x '$want'), $PG_REPEAT_BAD runs failed"
fi
if [ "$PG_REPEAT_DISTINCT" -ge 2 ]; then
    pg_pass "unrecorded runs differ ($PG_REPEAT_DISTINCT distinct outputs of 5: counts, polls)"
else
    pg_fail "5 unrecorded runs printed the same: the replay check proves nothing"
fi

if timeout 60 "$pangaea" -log -logdir "$dir/logs" "$prog" $K >"$dir/rec.out" 2>"$dir/rec.err" &&
   grep -qxF "$want" "$dir/rec.out" && grep -qxF "[1] hosts: 1" "$dir/rec.out"; then
    pg_pass "recorded: the same $((K + 1)) tasks and 1 host"
else
    pg_fail "recording: $(head -3 "$dir/rec.out" | tr '\n' ' ')"; cat "$dir/rec.err"
fi
polls=$(sed -n 's/^\[1\] polls: //p' "$dir/rec.out")
nq=$(pg_comm_xml "$dir/logs" 1 | grep -c '<query .*call="pvm_tasks"')
if [ -n "$polls" ] && [ "$nq" -eq $((polls + 1)) ] && [ -s "$dir/logs/ltid-1.data.pgc" ]; then
    pg_pass "every pvm_tasks call ($nq) is a query event, answers in ltid-1.data.pgc"
else
    pg_fail "pvm_tasks queries logged: $nq, calls made: $((polls + 1))"
fi
pg_repeat 5 "$dir/replay" "$pangaea" -replay -logdir "$dir/logs" "$prog" $K
same=0
for i in $(seq 5); do cmp -s "$dir/rec.out" "$dir/replay/$i.out" && same=$((same + 1)); done
if [ "$PG_REPEAT_BAD" -eq 0 ] && [ "$same" -eq 5 ]; then
    pg_pass "5 of 5 replays print exactly the recorded counts and polls"
else
    pg_fail "$same of 5 replays match, $PG_REPEAT_BAD failed"
    diff "$dir/rec.out" "$dir/replay/1.out" | head -5; head -5 "$dir/replay/1.err"
fi
# NetPIPE (netpipe-pvm, written by others) refuses to run unless the
# machine holds exactly its two tasks ("too many processes in parallel
# machine"): its receiver runs outside the run, its transmitter under
# pangaea, which must not show itself or its coordinator.  The replay,
# receiver gone, prints what the recording printed, timings included
# (clocks are replayed).
if command -v NPpvm >/dev/null; then
    np=$(pg_tmpdir)
    (cd "$np" && timeout 60 NPpvm -u 4096 -n 20 -p 0 >"$np/recv.out" 2>&1) &
    rpid=$!
    sleep 1
    rc=0
    (cd "$np" && timeout 60 "$pangaea" -log -logdir "$np/logs" NPpvm -h "$(hostname)" \
        -u 4096 -n 20 -p 0 >"$np/rec.out" 2>&1) || rc=$?
    wait "$rpid" 2>/dev/null
    if [ $rc -eq 0 ] && ! grep -q 'too many processes' "$np/rec.out" &&
       grep -q '4096 bytes' "$np/rec.out"; then
        pg_pass "NPpvm (NetPIPE) under pangaea finds its two tasks and runs"
    else
        pg_fail "NPpvm under pangaea: exit $rc"; head -5 "$np/rec.out"
    fi
    rc=0
    (cd "$np" && timeout 60 "$pangaea" -replay -logdir "$np/logs" NPpvm -h "$(hostname)" \
        -u 4096 -n 20 -p 0 >"$np/rep.out" 2>&1) || rc=$?
    if [ $rc -eq 0 ] && diff <(grep -v '^pangaea' "$np/rec.out") <(grep -v '^pangaea' "$np/rep.out") >/dev/null; then
        pg_pass "NPpvm replays without its receiver, printing the recorded figures"
    else
        pg_fail "NPpvm replay: exit $rc"; diff "$np/rec.out" "$np/rep.out" | head -5
    fi
else
    pg_fail "NPpvm is not installed (netpipe-pvm, scripts/install-deps.sh)"
fi
pg_summary
