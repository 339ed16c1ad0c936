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

PANGAEA=$PG_BUILD/pangaea
RUNS=${PG_RUNS:-20}

replay_case() {
    local name=$1 dir logs i same=0
    shift
    dir=$(pg_tmpdir) && logs=$dir/logs
    pg_repeat "$RUNS" "$dir/free" "$PANGAEA" -none -logdir "$logs" "$@"
    if [ "$PG_REPEAT_BAD" -ne 0 ]; then
        pg_fail "$name: $PG_REPEAT_BAD of $RUNS unrecorded runs failed"
        cat "$dir"/free/1.err
        return
    fi
    if [ "$PG_REPEAT_DISTINCT" -ge 2 ]; then
        pg_pass "$name: unrecorded runs differ ($PG_REPEAT_DISTINCT distinct outputs of $RUNS)"
    else
        pg_fail "$name: all $RUNS unrecorded runs printed the same: the program does not race"
    fi
    if ! timeout 60 "$PANGAEA" -log -logdir "$logs" "$@" >"$dir/rec.out" 2>"$dir/rec.err"; then
        pg_fail "$name: recording failed"; cat "$dir/rec.err"; return
    fi
    pg_repeat "$RUNS" "$dir/replay" "$PANGAEA" -replay -logdir "$logs" "$@"
    for i in $(seq "$RUNS"); do
        cmp -s "$dir/rec.out" "$dir/replay/$i.out" && same=$((same + 1))
    done
    if [ "$PG_REPEAT_BAD" -eq 0 ] && [ "$same" -eq "$RUNS" ]; then
        pg_pass "$name: $RUNS replays print exactly the recorded output"
    else
        pg_fail "$name: $same of $RUNS replays match the recording, $PG_REPEAT_BAD failed"
        for i in $(seq "$RUNS"); do
            if [ "$(cat "$dir/replay/$i.rc")" != 0 ] || ! cmp -s "$dir/rec.out" "$dir/replay/$i.out"; then
                echo "replay $i: exit $(cat "$dir/replay/$i.rc")"
                diff "$dir/rec.out" "$dir/replay/$i.out" | head -5
                head -5 "$dir/replay/$i.err"
                break
            fi
        done
    fi
}

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# Built the instrumented way (pangaea.h, -lpangaea).
replay_case "sor 4" "$PG_BUILD/sor" 4
replay_case "race" "$PG_BUILD/tests/race"
# Built against PVM only: Pangaea reaches them by preloading.
replay_case "plain_race (unmodified binary)" "$PG_BUILD/tests/plain_race"
replay_case "plain_variety (psend/precv, raw, in-place, mcast, direct route)" \
    "$PG_BUILD/tests/plain_variety"
replay_case "plain_matcher (pvm_recvf matcher that peeks, pvm_setrbuf aside)" \
    "$PG_BUILD/tests/plain_matcher"
replay_case "plain_spmd (one pvm_spawn of 4, pvm_siblings ring)" \
    "$PG_BUILD/tests/plain_spmd" 4
# Written by others: Debian's pvm-examples (master1 spawns slave1 by name,
# which the pvmd finds through PVM_PATH).
replay_case "master1 (pvm-examples, unmodified)" master1
replay_case "fmaster1 (pvm-examples, Fortran, unmodified)" fmaster1

pg_summary
