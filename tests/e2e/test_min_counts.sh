#!/usr/bin/env bash
# test_min_counts.sh - `pangaea -min`'s summary counts receives and races
# as `pangaea -races` counts them, on recordings with failed polls.
#
# -races examines every receive, every notice taken and every run of
# failed polls (one <poll> each), and a run of failed polls races with one
# alternative.  -min prunes by that analysis, so its line "K of N receives
# kept (P of them runs of failed polls; R race, ...)" must say the N and R
# of -races -json ("receives", the number of races) and the P of <poll>
# events in the logs; with every receive of these programs racing or
# polling, K is N.  Programs: plain_poll (three workers, a master polling
# with pvm_nrecv and pvm_trecv: many runs of failed polls) and plain_known
# poll (one run of failed polls, then the message); and plain_crash, whose
# master crashed: its log is kept whole and its receives count too.
set -u
. "$(dirname "$0")/lib.sh"

P=$PG_BUILD/pangaea
dir=$(pg_tmpdir)

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# compare NAME: prunes a copy of $dir/NAME/full and compares the two
# reports' numbers.
compare() {
    local name=$1 d=$dir/$1 want got polls
    cp -r "$d/full" "$d/min"
    if ! "$P" -min "$d/min" 2>"$d.min"; then
        pg_fail "$name: pangaea -min failed"; cat "$d.min"; return
    fi
    want=$("$P" -races -json "$d/full" 2>/dev/null | python3 -S -c '
import json, sys
d = json.load(sys.stdin)
print("%d of %d receives kept (%%s%d race," % (d["receives"], d["receives"],
                                              len(d["races"])))')
    polls=$(pg_comm_xml "$d/full" | grep -c '<poll ' || true)
    case $polls in
    0) want=$(printf "$want" "") ;;
    1) want=$(printf "$want" "1 of them a run of failed polls; ") ;;
    *) want=$(printf "$want" "$polls of them runs of failed polls; ") ;;
    esac
    got=$(sed -n 's/.* is race-only now: \([^)]* race,\).*/\1/p' "$d.min")
    if [ "$got" = "$want" ]; then
        pg_pass "$name: -min says what -races says: $got"
    else
        pg_fail "$name: -min says '$got', -races and the logs '$want'"
        cat "$d.min"
    fi
}

# counts NAME PROGRAM [ARGS]: records into $dir/NAME/full and compares.
counts() {
    local name=$1 d=$dir/$1
    shift
    if ! timeout 120 "$P" -log -logdir "$d/full" "$@" >"$d.out" 2>"$d.err"; then
        pg_fail "$name: the recording failed"; cat "$d.err"; return
    fi
    if ! pg_comm_xml "$d/full" | grep -q '<poll '; then
        pg_fail "$name: the recording has no run of failed polls"; return
    fi
    compare "$name"
}

counts plain_poll "$PG_BUILD/tests/plain_poll"
counts known_poll "$PG_BUILD/tests/plain_known" poll

# A master that crashed keeps its whole log, and its receives count: the
# first of up to 30 recordings of plain_crash that crashes.
mkdir -p "$dir/crash"
for i in $(seq 30); do
    rm -rf "$dir/crash/full"
    timeout 60 "$P" -log -logdir "$dir/crash/full" "$PG_BUILD/tests/plain_crash" \
        >"$dir/crash.out" 2>"$dir/crash.err" || break
done
if grep -q "ltid 1 .* died of SIGSEGV" "$dir/crash.err"; then
    compare crash
    grep -q "the logs of tasks that died kept whole" "$dir/crash.min" ||
        pg_fail "crash: -min does not say the crashed task's log was kept whole"
else
    pg_fail "crash: no run of 30 of plain_crash crashed"; cat "$dir/crash.err"
fi

pg_summary
