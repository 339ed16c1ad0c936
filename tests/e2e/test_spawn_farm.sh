#!/usr/bin/env bash
# test_spawn_farm.sh - a task may spawn more than 999 children.
#
# ltids were parent x 1000 + k: a task could spawn 999 children (ltid 1:
# 998) and a chain ended at depth 5 ("too many children").  Now the
# coordinator numbers new tasks as their parents ask and the parent's
# execution log keeps each child's number (wrap_spawn.c).
# tests/programs/plain_farm.c (chains and concurrent spawns:
# test_spawn_limits.sh):
#  - a task farm: ltid 1 starts 1000 short workers, at most 8 at a time,
#    records and replays (each worker's ltid from its parent's log);
#  - the ltids are dense: 1 .. the number of tasks, each once.
set -u
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/spawn_lib.sh"

# --- a task farm of 1000 workers ----------------------------------------------
record_replay farm 1001 farm 1000 8
if [ "$(children farm 1 | wc -w)" -eq 1000 ]; then
    pg_pass "farm: ltid 1's log names 1000 children"
else
    pg_fail "farm: ltid 1's log names $(children farm 1 | wc -w) children"
fi

cd / && pg_summary
