#!/usr/bin/env bash
# test_replay_hosts.sh - pvm_addhosts and pvm_delhosts give back in replay
# what they answered when recorded, per host, and change no host.
#
# Design.  Two hosts from hosts.sh (network namespaces hA, hB), the master
# pvmd on hA.  plain_hosts adds hB and hZ (a name no host has), then
# deletes the ones it added, and prints PVM's answer for each.  That answer depends on
# the virtual machine at that instant: with hB already in it, hB is
# PvmDupHost; without, hB is added (its pvmd tid) and deleted again.
# - Unrecorded runs (pangaea -none) with hB in the machine and without
#   print different answers (else the replays below prove nothing).
# - The recording runs without hB; then hB is added from the console, so
#   that a real call would now answer PvmDupHost, and 5 replays must each
#   print exactly the recorded answers (a replay that called PVM printed
#   the duplicate's).
# - The recording's comm log, as `pangaea -dump` prints it, holds the two
#   calls as <query call="pvm_hosts"> and is valid against the schema.
# - After the replays hB is still in the machine: a replay deletes no host
#   (nor adds one: the hosts it needs are checked before it starts).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_hosts
WORK=$(pg_tmpdir)

hosts_up hA hB
case $? in
0) ;;
1) hosts_skip ;;
*) pg_fail "cannot build the virtual machine of hA hB ($HOSTS_WHY)"; pg_summary; exit 1 ;;
esac

# 0 if hB is in the virtual machine (as the console's conf lists it).
hb_in() {
    echo conf | hosts_run hA timeout 20 pvm 2>/dev/null | grep -qE '^ *hB '
}

# Runs "$@" from hA, output to $WORK/$1.out (the name is not passed on).
on_ha() {
    local name=$1
    shift
    hosts_run hA timeout 60 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null
}

hb_in || pg_fail "hB is not in the virtual machine at the start"
on_ha dup "$PANGAEA" -none -coordhost hA -logdir "$WORK/none" "$PROG" hB hZ ||
    { pg_fail "the unrecorded run with hB present failed"; cat "$WORK/dup.err"; }
hb_in || pg_fail "plain_hosts deleted hB, which it had not added"
echo "delete hB" | hosts_run hA timeout 20 pvm >/dev/null 2>&1
hb_in && pg_fail "cannot delete hB from the console"
on_ha added "$PANGAEA" -none -coordhost hA -logdir "$WORK/none" "$PROG" hB hZ ||
    { pg_fail "the unrecorded run without hB failed"; cat "$WORK/added.err"; }
hb_in && pg_fail "plain_hosts did not delete the hB it added"
if grep -q 'pvm_addhosts: 0 host(s), error -28, error' "$WORK/dup.out" &&
    grep -q 'pvm_addhosts: 1 host(s), tid [0-9]*, error' "$WORK/added.out" &&
    grep -q 'pvm_delhosts: 1 host(s), tid 0' "$WORK/added.out"; then
    pg_pass "unrecorded runs differ: hB is a duplicate when present, added when not"
else
    pg_fail "unrecorded runs with hB present and without do not give the answers expected:"
    cat "$WORK/dup.out" "$WORK/added.out"
fi

on_ha rec "$PANGAEA" -log -coordhost hA -logdir "$WORK/logs" "$PROG" hB hZ ||
    { pg_fail "recording failed"; cat "$WORK/rec.err"; }
"$PANGAEA" -dump "$WORK/logs" 1 >"$WORK/dump.xml" 2>"$WORK/dump.err"
if grep -q 'call="pvm_hosts" about="add hB hZ" value="1"' "$WORK/dump.xml" &&
    grep -q 'call="pvm_hosts" about="del hB" value="1"' "$WORK/dump.xml" &&
    xmllint --noout --schema "$PG_ROOT/schema/pangaea-log.xsd" "$WORK/dump.xml" 2>"$WORK/xmllint.err"; then
    pg_pass "the recording holds both calls as schema-valid <query call=\"pvm_hosts\"> events"
else
    pg_fail "the recording's dump lacks the pvm_hosts queries, or fails the schema:"
    grep pvm_hosts "$WORK/dump.xml"; cat "$WORK/dump.err" "$WORK/xmllint.err" | head -5
fi
hosts_add hA hB 2>"$WORK/readd.err" || pg_fail "cannot add hB again before the replays"
same=0
for i in 1 2 3 4 5; do
    on_ha "replay$i" "$PANGAEA" -replay -coordhost hA -logdir "$WORK/logs" "$PROG" hB hZ &&
        cmp -s "$WORK/rec.out" "$WORK/replay$i.out" && same=$((same + 1))
done
if [ "$same" -eq 5 ] && grep -q 'pvm_addhosts: 1 host(s), tid' "$WORK/rec.out"; then
    pg_pass "5 replays with hB already present print the recorded answers (hB added, then deleted)"
else
    pg_fail "$same of 5 replays print the recorded answers (< recording, > replay 1):"
    diff "$WORK/rec.out" "$WORK/replay1.out" | head -6; head -5 "$WORK/replay1.err"
fi
if hb_in; then
    pg_pass "the replays deleted no host (hB is still in the virtual machine)"
else
    pg_fail "a replay deleted hB from the virtual machine"
fi
[ "$PG_FAILED" -eq 0 ] || hosts_logs
pg_summary
