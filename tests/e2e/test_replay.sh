#!/usr/bin/env bash
# test_replay.sh - record once, replay 20 times, on a real private pvmd.
#
# For each racing program: 20 runs under `pangaea -none` must give at least
# two different outputs (else the replay checks below prove nothing); one run
# under -log is recorded; 20 runs under -replay must each print exactly what
# the recording printed.  The programs print the order in which they took
# messages from any sender, so equal output means an equal receive order.
set -u
. "$(dirname "$0")/lib.sh"

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# Built the instrumented way (pangaea.h, -lpangaea).
pg_replay_case "sor 4" "$PG_BUILD/sor" 4
pg_replay_case "race" "$PG_BUILD/tests/race"
pg_replay_case "static_race (linked with libpangaea.a)" "$PG_BUILD/tests/static_race"
# Built against PVM only: Pangaea reaches them by preloading.
pg_replay_case "plain_race (unmodified binary)" "$PG_BUILD/tests/plain_race"
pg_replay_case "plain_variety (psend/precv, raw, in-place, mcast, direct route)" \
    "$PG_BUILD/tests/plain_variety"
pg_replay_case "plain_matcher (pvm_recvf matcher that peeks, pvm_setrbuf aside)" \
    "$PG_BUILD/tests/plain_matcher"
pg_replay_case "plain_spmd (one pvm_spawn of 4, pvm_siblings ring)" \
    "$PG_BUILD/tests/plain_spmd" 4
pg_replay_case "plain_notify (results and pvm_notify exit notices, any order)" \
    "$PG_BUILD/tests/plain_notify" 6
pg_replay_case "plain_query (polls pvm_pstat, pvm_gsize, pvm_mstat; joins race leaves)" \
    "$PG_BUILD/tests/plain_query" 6
# Written by others: Debian's pvm-examples (master1 spawns slave1 by name,
# which the pvmd finds through PVM_PATH).
pg_replay_case "master1 (pvm-examples, unmodified)" master1
pg_replay_case "fmaster1 (pvm-examples, Fortran, unmodified)" fmaster1

pg_summary
