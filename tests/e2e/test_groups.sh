#!/usr/bin/env bash
# test_groups.sh - PVM groups (libgpvm3) record and replay on a real private
# pvmd: instance numbers handed out in join order, pvm_gettid lookups,
# pvm_bcast, pvm_barrier, pvm_reduce (PvmSum on doubles, PvmMax, PvmMin,
# PvmProduct, a user function), pvm_gather and pvm_scatter.  As in
# test_replay.sh: 20 unrecorded runs must differ, 20 replays must print
# exactly what the recording printed.  The group server pvmgs is found by
# the private pvmd through PVM_PATH (lib.sh) and runs with Pangaea off.
set -u
. "$(dirname "$0")/lib.sh"

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

pg_replay_case "group_race (join order, gettid, bcast, barrier, reduce sum/max/min/product/user function, gather, scatter)" \
    "$PG_BUILD/tests/group_race"
# The group server leaves no log of its own: it is not a Pangaea task.
if ls "$PG_CASE_LOGS" | grep -qv '^ltid-[0-5]\.\(comm\.pgc\|exec\.xml\|bufids\.pgc\)$'; then
    pg_fail "group_race: unexpected logs: $(ls "$PG_CASE_LOGS" | tr '\n' ' ')"
else
    pg_pass "group_race: logs only for ltids 0-4 (pvmgs stays out)"
fi

# Written by others: Debian's pvm-examples `tst` (joins and leaves a group
# and prints its instances; it does not race, so it is run once each way).
# gexample reads its input with scanf and takes no arguments: not run.
d=$(pg_tmpdir)
if timeout 60 "$PG_BUILD/pangaea" -log -logdir "$d/logs" tst >"$d/rec.out" 2>"$d/rec.err" &&
   timeout 60 "$PG_BUILD/pangaea" -replay -logdir "$d/logs" tst >"$d/rep.out" 2>"$d/rep.err" &&
   grep -q 'joined prognosis' "$d/rec.out" && cmp -s "$d/rec.out" "$d/rep.out" &&
   pg_comm_xml "$d/logs" 1 | grep -q '<gettid'; then
    pg_pass "tst (pvm-examples, unmodified): replay prints the recorded output"
else
    pg_fail "tst (pvm-examples): record/replay differ or failed"
    cat "$d"/rec.out "$d"/rep.out "$d"/*.err
fi

pg_summary
