#!/usr/bin/env bash
# test_spawn_limits.sh - ltids have no limit, and stay the recorded ones.
#
# ltids were parent x 1000 + k: a task could spawn 999 children (ltid 1:
# 998) and a chain ended at depth 5 ("too many children").  Now the
# coordinator numbers new tasks as their parents ask and the parent's
# execution log keeps each child's number (wrap_spawn.c).
# tests/programs/plain_farm.c (the farm of 1000 workers:
# test_spawn_farm.sh):
#  - a chain of 50 tasks, each spawning the next, records and replays;
#  - two parents spawning 20 children each at once: the numbers interleave
#    in the order the coordinator heard them, and 5 replays each give every
#    child its recorded ltid (child j of parent p sends j + 1 messages of
#    tag 100p + j: a child under another's ltid diverges);
#  - the ltids are dense: 1 .. the number of tasks, each once;
#  - what-if runs: ltid 1 spawns 1 or 2 late children as a race goes
#    (plain_farm pick); a what-if that forces the other outcome gives its
#    3rd child the ltid the recording gave its 3rd (4) and a 4th, which
#    the recording does not have, the next number after the recording's
#    largest (5), and a what-if of that what-if forcing back gives 2 3 4
#    again; each replays as recorded.
set -u
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/spawn_lib.sh"

# --- a chain 50 deep ------------------------------------------------------------
record_replay chain 51 chain 50
deep=1 ok=1
while [ "$deep" -lt 51 ]; do
    [ "$(children chain "$deep")" = "$((deep + 1)) " ] || ok=0
    deep=$((deep + 1))
done
[ "$ok" -eq 1 ] && pg_pass "chain: ltid k spawned ltid k + 1, 50 deep" ||
    pg_fail "chain: the parents' logs do not give 1 -> 2 -> ... -> 51"

# --- two parents spawning at once -----------------------------------------------
# Their children's numbers interleave (the coordinator heard them in turn)
# in nearly every recording: up to 3 are made until one does.
interleaved() {
    local a b
    a=$(children "$1" 2) b=$(children "$1" 3)
    [ "$(echo $a | wc -w)" -eq 20 ] && [ "$(echo $b | wc -w)" -eq 20 ] &&
        python3 -S -c 'import sys
a, b = (list(map(int, s.split())) for s in sys.argv[1:])
sys.exit(0 if min(b) < max(a) and min(a) < max(b) else 1)' "$a" "$b"
}
made=0
for try in 1 2 3; do
    rm -rf twin
    timeout 300 "$PANGAEA" -log -logdir twin "$PROG" twin 20 >twin.out 2>&1 &&
        interleaved twin && { made=1; break; }
done
if [ "$made" -eq 1 ] && dense twin 43; then
    pg_pass "twin: two parents' 40 children numbered in turn (ltid 2: $(children twin 2| cut -c1-40)...)"
    good=0
    for k in 1 2 3 4 5; do
        timeout 300 "$PANGAEA" -replay -logdir twin "$PROG" twin 20 >twin.rep 2>&1 &&
            grep -q "of 43 tasks as recorded" twin.rep &&
            diff <(grep '^\[1\]' twin.out) <(grep '^\[1\]' twin.rep) >/dev/null &&
            good=$((good + 1))
    done
    [ "$good" -eq 5 ] && pg_pass "twin: 5 replays, every child under its recorded ltid" ||
        { pg_fail "twin: $good of 5 replays as recorded"; tail -5 twin.rep; }
else
    pg_fail "twin: no recording with interleaved children in 3 tries"; tail -5 twin.out
fi

# --- what-if runs: recorded places keep their ltids, new ones come after -------
kids() { children "$1" 1; }
first() { sed -n 's/^\[1\] pick: \([12]\) first.*/\1/p' "$1"; }
# want OUT: ltid 1's children when its first report came from worker 1 or 2
want() { [ "$(first "$1")" = 1 ] && echo "2 3 4 " || echo "2 3 4 5 "; }
timeout 120 "$PANGAEA" -log -logdir pick "$PROG" pick >pick.out 2>&1
took=$("$PANGAEA" -dump pick 1 2>/dev/null |
    sed -n 's/.*<recv seq="2".* from="\([23]\)".*/\1/p')
ok=1 msg=
if [ -z "$took" ] || [ "$(kids pick)" != "$(want pick.out)" ]; then
    ok=0 msg="the recording: first '$(first pick.out)', children '$(kids pick)'"
fi
from=pick
for w in w1 w2; do
    [ "$ok" -eq 1 ] || break
    other=$((5 - took))
    timeout 120 "$PANGAEA" -whatif "1:2=$other:1" -logdir "$from" -o "$w" \
        "$PROG" pick >"$w.out" 2>&1
    if [ "$(first "$w.out")" != "$((other - 1))" ] ||
            [ "$(kids "$w")" != "$(want "$w.out")" ] || ! dense "$w" $((3 + $(first "$w.out"))); then
        ok=0 msg="$w (forced 1:2=$other:1): first '$(first "$w.out")', children '$(kids "$w")'"
        tail -3 "$w.out"
    elif ! timeout 120 "$PANGAEA" -replay -logdir "$w" "$PROG" pick 2>&1 |
            grep -q "as recorded"; then
        ok=0 msg="$w does not replay as recorded"
    fi
    took=$other from=$w
done
[ "$ok" -eq 1 ] && pg_pass "what-if: children 2 3 4 (5), places of the recording kept, a new one numbered after them; both replay" ||
    pg_fail "what-if ltids: $msg"

cd / && pg_summary
