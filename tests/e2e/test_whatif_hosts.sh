#!/usr/bin/env bash
# test_whatif_hosts.sh - a what-if of a recording made on three hosts
# (hosts.sh: network namespaces hA hB hC) keeps every task on its recorded
# host.  Run it only under `flock /tmp/pg-hosts.lock` (fixed subnet).
#
# plain_spread's master takes its workers' messages with pvm_recv(-1, -1),
# so its receives race; the first racing receive is forced to its first
# alternative.  Where each task ran is checked from inside the tasks (each
# reports gethostname(), `pangaea` prints it as "ltid N started on H"),
# against the hosts the original recording names; the check can fail: the
# recording really used three hosts.  The forced receive must have taken
# the chosen message, and the what-if recording must name the same hosts.
# plain_spread asks for those hosts itself, so a last check moves a task
# in the recording: the what-if must follow the recording, not the program.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"

PANGAEA=$PG_BUILD/pangaea
SPREAD=$PG_BUILD/tests/plain_spread
WORK=$(pg_tmpdir)

run() { # run NAME HOST CMD...: out/err/rc in $WORK/NAME.*
    local name=$1 h=$2 rc=0
    shift 2
    hosts_run "$h" timeout 120 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || rc=$?
    echo "$rc" >"$WORK/$name.rc"
    return "$rc"
}
recorded_host() { # LOGS LTID: the host the parent's log gives it
    grep -h "<child ltid=\"$2\" " "$1"/ltid-*.exec.xml | sed -E 's/.*host="([^"]*)".*/\1/'
}
reported_host() { # ERRFILE LTID: where the task said it started
    sed -nE "s/^pangaea: ltid $2 \(.*\) started on (.*)$/\1/p" "$1"
}
ltids_of() {
    grep -ho '<child ltid="[0-9]*"' "$1"/ltid-*.exec.xml | grep -o '[0-9]*' | sort -n
}

hosts_up hA hB hC
case $? in
0) ;;
1) hosts_skip ;;
*) pg_fail "cannot build the virtual machine of hA hB hC ($HOSTS_WHY)"; pg_summary; exit 1 ;;
esac

base=$WORK/base wi=$WORK/wi
if ! run rec hA "$PANGAEA" -log -logdir "$base" -host hA -coordhost hA "$SPREAD" hA hB hC; then
    pg_fail "the recording on three hosts failed"; cat "$WORK/rec.err"
    hosts_logs; pg_summary; exit 1
fi
n=$(for l in $(ltids_of "$base"); do recorded_host "$base" "$l"; done | sort -u | wc -l)
[ "$n" -eq 3 ] && pg_pass "recorded with tasks on 3 hosts" ||
    pg_fail "the recording used $n hosts, not 3"

"$PANGAEA" -races -json "$base" >"$WORK/races.json" 2>&1
read -r seq alt <<<"$(python3 -S - "$WORK/races.json" <<'EOF'
import json, sys, races_json
r = [x for x in races_json.load(open(sys.argv[1]))["races"]
     if x["ltid"] == 1 and x["took"] and x["alternatives"]
     and x["alternatives"][0]["msgid"] > 0]
if not r:
    print("- -")
else:
    a = r[0]["alternatives"][0]
    print(r[0]["seq"], "%d:%d" % (a["ltid"], a["msgid"]))
EOF
)"
if [ "$seq" = - ]; then
    pg_fail "-races finds no race of the master to force"; cat "$WORK/races.json"
    hosts_logs; pg_summary; exit 1
fi

run wi hA "$PANGAEA" -whatif "1:$seq=$alt" -logdir "$base" -o "$wi" "$SPREAD" hA hB hC
rc=$(cat "$WORK/wi.rc")
bad=
for l in $(ltids_of "$base"); do
    want=$(recorded_host "$base" "$l") got=$(reported_host "$WORK/wi.err" "$l")
    again=$(recorded_host "$wi" "$l")
    [ "$want" = "$got" ] && [ "$want" = "$again" ] ||
        bad="$bad ltid $l: recorded $want, ran on ${got:-?}, logged ${again:-?};"
done
if [ "$rc" -eq 0 ] && [ -z "$bad" ]; then
    pg_pass "-whatif 1:$seq=$alt: every task ran on its recorded host, and the new recording says so"
else
    pg_fail "-whatif on three hosts: exit $rc;$bad"; cat "$WORK/wi.err"
fi
took=$("$PANGAEA" -dump "$wi" 1 | grep "<recv seq=\"$seq\" " |
       sed -E 's/.* from="([0-9]*)".* msgid="([0-9]*)".*/\1:\2/')
[ "$took" = "$alt" ] && pg_pass "the forced receive took $alt" ||
    pg_fail "the forced receive took '${took:-nothing}', not $alt"
for h in hA hB hC; do
    grep -q "runs on $h" "$WORK/wi.out" || bad=1
done
[ -z "$bad" ] && pg_pass "the workers report hA, hB, hC from inside" ||
    { pg_fail "the workers' hosts"; cat "$WORK/wi.out"; }

# The recorded host wins over the program's own choice: after moving hB's
# tasks to hC in a copy of the recording, the what-if runs the worker the
# program asks to start on hB (ltid 3) on hC, as a replay would.
moved=$WORK/moved
cp -r "$base" "$moved" && rm -f "$moved/.pangaea.lock"
"$PANGAEA" -move-host hB hC -logdir "$moved" >"$WORK/move.out" 2>&1
run wim hA "$PANGAEA" -whatif "1:$seq=$alt" -logdir "$moved" -o "$WORK/wim" "$SPREAD" hA hB hC
if [ "$(cat "$WORK/wim.rc")" -eq 0 ] && [ "$(recorded_host "$base" 3)" = hB ] &&
   [ "$(reported_host "$WORK/wim.err" 3)" = hC ] &&
   grep -q "worker 2 runs on hC" "$WORK/wim.out"; then
    pg_pass "after -move-host hB hC, the what-if starts ltid 3 on hC although the program asks for hB"
else
    pg_fail "what-if of a moved recording: exit $(cat "$WORK/wim.rc"), ltid 3 on $(reported_host "$WORK/wim.err" 3)"
    cat "$WORK/move.out" "$WORK/wim.err" "$WORK/wim.out"
fi

[ "$PG_FAILED" -eq 0 ] || hosts_logs
pg_summary
