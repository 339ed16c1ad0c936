#!/usr/bin/env bash
# test_races.sh - `pangaea -races`: the race report of recordings whose
# races are known in advance (tests/programs/plain_known.c, group_known.c).
#
# Each program is recorded on a private pvmd; then -races -json must report
# exactly the expected set: no race where the receives name their source
# (exit 0), the right alternatives for wildcard receives (and none once
# only one message can match), a failed poll, an exit notice racing with
# the dying task's message, a receiver-side direct route marked "FIFO
# broken", and the contributions of a pvm_reduce; call sites resolve to the
# source line of the call, in the report and in a replay's divergence.  Then the text report (grouping, first races,
# how many polls a run of failed polls held, receives with other senders
# apart though one sender's queue lists 69 alternatives first)
# and bad input (exit 2).  -json lists a sender's consecutive message ids
# as one run (apart: W1's queue of 69, one run a receive; decoded by
# races_json.py, the tests' reader of -json).  -jsonl (a line a race, alternatives as runs of
# message ids per sender) says what -json says, for every program, and
# the direct route's queue is one run.  The expectations are checked by races_check.py.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
CHECK=$PG_ROOT/tests/e2e/races_check.py
SRC=$PG_ROOT/tests/programs
dir=$(pg_tmpdir)

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# record NAME PROGRAM [ARGS]: records into $dir/NAME.
record() {
    local name=$1; shift
    if ! timeout 120 "$PANGAEA" -log -logdir "$dir/$name" "$@" \
            >"$dir/$name.out" 2>"$dir/$name.err"; then
        pg_fail "$name: the recording failed"; cat "$dir/$name.err"; return 1
    fi
}

# races NAME: -races -json of $dir/NAME into $dir/NAME.json; prints the exit.
races() {
    local rc=0
    "$PANGAEA" -races -json "$dir/$1" >"$dir/$1.json" 2>"$dir/$1.rerr" || rc=$?
    echo "$rc"
}

recv_line=$(grep -n 'pvm_recv(tid, tag)' "$SRC/plain_known.c" | cut -d: -f1)
poll_line=$(grep -n 'check("pvm_nrecv", pvm_nrecv(-1, 20))' "$SRC/plain_known.c" | cut -d: -f1)
reduce_line=$(grep -n 'pvm_reduce(PvmSum' "$SRC/group_known.c" | cut -d: -f1)

for mode in named wild poll notice direct; do
    record "$mode" "$PG_BUILD/tests/plain_known" "$mode" || continue
    rc=$(races "$mode")
    want=1; [ "$mode" = named ] && want=0
    if [ "$rc" -ne "$want" ]; then
        pg_fail "$mode: -races exited $rc, want $want"; cat "$dir/$mode.rerr"
        continue
    fi
    line=$recv_line; [ "$mode" = poll ] && line=$poll_line
    if why=$(python3 -S "$CHECK" "$mode" "$dir/$mode.json" \
                 "plain_known.c:$line" 2>&1); then
        pg_pass "$mode: exit $rc and exactly the expected races ($why)"
    else
        pg_fail "$mode: $why"; cat "$dir/$mode.json"
    fi
done

if record reduce "$PG_BUILD/tests/group_known"; then
    rc=$(races reduce)
    if [ "$rc" -eq 1 ] && why=$(python3 -S "$CHECK" reduce "$dir/reduce.json" \
                                    "group_known.c:$reduce_line" 2>&1); then
        pg_pass "reduce: the root's first contribution races with the other ($why)"
    else
        pg_fail "reduce: exit $rc ${why:-}"; cat "$dir/reduce.json"
    fi
fi

# The text report: the loop of direct is one entry, first races first.
if [ -d "$dir/direct" ]; then
    "$PANGAEA" -races "$dir/direct" >"$dir/direct.txt" 2>&1
    if grep -q "^R1 ltid 1 event [0-9]* pvm_recv(-1, 30) at plain_known.c:$recv_line took ltid 2 msg 1;" "$dir/direct.txt" &&
       grep -q "could have taken ltid 2 msg 2 (FIFO broken), ltid 2 msg 3 (FIFO broken)   (same at 1 more receive)" "$dir/direct.txt" &&
       ! grep -q "^R2" "$dir/direct.txt"; then
        pg_pass "text report: one entry for the loop, with its site and FIFO broken alternatives"
    else
        pg_fail "text report of direct:"; cat "$dir/direct.txt"
    fi
fi
# jsonl_same NAME: -races -jsonl expands to -races -json's races.
jsonl_same() {
    "$PANGAEA" -races -jsonl "$dir/$1" >"$dir/$1.jsonl" 2>/dev/null
    python3 -S - "$dir/$1.json" "$dir/$1.jsonl" <<'PY'
import json, sys, races_json
full = races_json.load(open(sys.argv[1]))
lines, tail = races_json.lines(open(sys.argv[2]))
def key(r, alts, took):
    return (r["ltid"], r["seq"], r["call"], r["tag"], r["site"], took,
            sorted(alts), r["first"], r["conservative"])
a = []
for r in full["races"]:
    t = r["took"]
    took = None if t is None else (t["ltid"], t["msgid"])
    a.append(key(r, [(x["ltid"], x["msgid"], bool(x.get("notice")),
                      bool(x.get("fifo_broken"))) for x in r["alternatives"]],
                 took))
b, runs = [], 0
for r in lines:
    alts = []
    for broken in (False, True):
        for ltid, ids in r["fifo_broken" if broken else "alts"].items():
            for x in ids:
                lo, hi = (x, x) if isinstance(x, int) else (x[0], x[1])
                runs += lo != hi
                alts += [(int(ltid), i, False, broken) for i in range(lo, hi + 1)]
    alts += [(n, 0, True, False) for n in r["notices"]]
    b.append(key(r, alts, None if r["took"] is None else tuple(r["took"])))
if a != b or tail != {"receives": full["receives"], "races": len(a)}:
    sys.exit("-jsonl differs from -json: %r / %r" % (b[:2], a[:2]))
print(runs)
PY
}
for mode in named wild poll notice direct reduce; do
    [ -f "$dir/$mode.json" ] || continue
    if runs=$(jsonl_same "$mode"); then
        if [ "$mode" != direct ] || [ "$runs" -gt 0 ]; then
            pg_pass "$mode: -races -jsonl says what -json says ($runs runs of ids)"
        else
            pg_fail "direct: -jsonl lists the queue's ids one by one, not as a run"
        fi
    else
        pg_fail "$mode: $runs"
    fi
done
# The analysis linked without PVM (tests/tools/views_only.c) finds the
# races `pangaea -races` finds: the recording model and analyses stand
# apart from the PVM front end.
for mode in wild poll direct; do
    [ -f "$dir/$mode.json" ] || continue
    want=$(python3 -S -c 'import json, sys, races_json; print(len(races_json.load(open(sys.argv[1]))["races"]))' "$dir/$mode.json")
    got=$("$PG_BUILD/tests/views_only" "$dir/$mode" 2>&1)
    if [ "$got" = "$want" ] && [ "$want" -gt 0 ]; then
        pg_pass "$mode: the analysis linked without libpvm3 finds the same $want race(s)"
    else
        pg_fail "$mode: views_only found '$got', -races -json $want"
    fi
done

if [ -d "$dir/wild" ]; then
    "$PANGAEA" -races "$dir/wild" >"$dir/wild.txt" 2>&1
    if [ "$(sed -n 1p "$dir/wild.txt" | cut -c1-2)" = R1 ] &&
       sed -n 3p "$dir/wild.txt" | grep -q "^Later races" &&
       tail -1 "$dir/wild.txt" | grep -q "^2 races (1 first) in 4 receives examined"; then
        pg_pass "text report: the first race first, then the later ones, and a summary"
    else
        pg_fail "text report of wild:"; cat "$dir/wild.txt"
    fi
fi

# A run of failed polls says how many polls it held: the misses= of the
# event after its <poll> in the master's log (plain_known poll polls every
# millisecond for 300 ms).
if [ -d "$dir/poll" ]; then
    "$PANGAEA" -races "$dir/poll" >"$dir/poll.txt" 2>&1
    misses=$(pg_comm_xml "$dir/poll" 1 | grep -A1 '<poll ' | sed -n 's/.* misses="\([0-9]*\)".*/\1/p')
    if [ -n "$misses" ] && [ "$misses" -gt 1 ] &&
       grep -q "^R1 ltid 1 event [0-9]* pvm_nrecv(-1, 20) at plain_known.c:$poll_line found nothing ($misses failed polls in a row);" "$dir/poll.txt"; then
        pg_pass "text report: the run of failed polls says its $misses polls"
    else
        pg_fail "text report of poll: the log says ${misses:-no} misses:"; cat "$dir/poll.txt"
    fi
fi

# Receives at one call site with other senders are two entries, even when
# one sender's queue (per-pair order lost: 69 alternatives) comes first:
# plain_known apart's first receive races with ltids 2 and 3, its second
# (same site) with ltids 2 and 4.
if record apart "$PG_BUILD/tests/plain_known" apart; then
    "$PANGAEA" -races "$dir/apart" >"$dir/apart.txt" 2>&1
    at="at plain_known.c:$recv_line took ltid 2 msg"
    if grep -q "^R1 ltid 1 event [0-9]* pvm_recv(-1, 30) $at" "$dir/apart.txt" &&
       grep -q "^R2 ltid 1 event [0-9]* pvm_recv(-1, 31) $at" "$dir/apart.txt" &&
       sed -n 2p "$dir/apart.txt" | grep -q "ltid 3 msg 1" &&
       ! sed -n 2p "$dir/apart.txt" | grep -q "ltid 4 msg" &&
       sed -n 5p "$dir/apart.txt" | grep -q "ltid 4 msg 1" &&
       ! grep -q "same at" "$dir/apart.txt" &&
       tail -1 "$dir/apart.txt" | grep -q "^2 races (1 first) in [0-9]* receives examined, 2 entries"; then
        pg_pass "text report: receives at one site with other senders are two entries"
    else
        pg_fail "text report of apart:"; cut -c1-300 "$dir/apart.txt"
    fi
fi

# -json lists a sender's queue as one run of message ids: apart's two
# receives race with W1's 69 queued messages each (per-pair order lost),
# each one [ltid, first, last, tag] run that decodes to exactly those.
if [ -d "$dir/apart" ]; then
    rc=$(races apart)
    if [ "$rc" -eq 1 ] && why=$(python3 -S "$CHECK" apart "$dir/apart.json" \
                                    "plain_known.c:$recv_line" 2>&1); then
        pg_pass "apart: -json lists each sender's queue as one run ($why)"
    else
        pg_fail "apart: exit $rc ${why:-}"; cut -c1-600 "$dir/apart.json"
    fi
fi

# A replay that diverges names the call site of the program's call: the
# recording of poll replayed by the program of notice (-otherargs: the
# arguments differ on purpose; the master's first
# receive meets the recorded failed polls; the worker sends another tag).
if [ -d "$dir/poll" ]; then
    rc=0
    timeout 120 "$PANGAEA" -replay -otherargs -logdir "$dir/poll" "$PG_BUILD/tests/plain_known" notice \
        >"$dir/div.out" 2>&1 || rc=$?
    if [ "$rc" -eq 3 ] &&
       grep -q "the program called pvm_recv(.*) at plain_known.c:$recv_line" "$dir/div.out"; then
        pg_pass "a divergence names the call site (plain_known.c:$recv_line)"
    else
        pg_fail "divergence without its call site: exit $rc"; grep -i diverg "$dir/div.out"
    fi
fi

# Bad input: exit 2 with a reason.
mkdir -p "$dir/empty"
rc=0; "$PANGAEA" -races "$dir/empty" >/dev/null 2>"$dir/e1" || rc=$?
if [ "$rc" -eq 2 ] && grep -q "no communication log" "$dir/e1"; then
    pg_pass "-races on a directory without logs exits 2 and says so"
else
    pg_fail "-races on an empty dir: exit $rc"; cat "$dir/e1"
fi
if [ -d "$dir/wild" ]; then
    cp -r "$dir/wild" "$dir/bad"
    printf 'PGCL\001garbage' >"$dir/bad/ltid-2.comm.pgc"
    rc=0; "$PANGAEA" -races "$dir/bad" >/dev/null 2>"$dir/e2" || rc=$?
    if [ "$rc" -eq 2 ] && grep -q "ltid-2.comm.pgc" "$dir/e2"; then
        pg_pass "-races on a corrupt log exits 2 naming the file"
    else
        pg_fail "-races on a corrupt log: exit $rc"; cat "$dir/e2"
    fi
fi
rc=0; "$PANGAEA" -races -bogus >/dev/null 2>"$dir/e3" || rc=$?
if [ "$rc" -eq 2 ] && grep -q "usage: pangaea -races" "$dir/e3"; then
    pg_pass "-races with an unknown option exits 2 with the usage"
else
    pg_fail "-races -bogus: exit $rc"; cat "$dir/e3"
fi

pg_summary
