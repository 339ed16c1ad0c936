#!/usr/bin/env bash
# test_time_diverge.sh - a replay whose program reads another clock than
# the recorded one diverges, and the divergence is said once.
#
# Design.  A tiny PVM program, written here, sends itself a message and
# reads one clock:
# time() when recorded, then, rebuilt with -DTOD, gettimeofday() at the
# same place; `pangaea -replay -rebuilt` replays the rebuild.  The time
# file (docs/comm-log-format.md, "The time file") holds a record of kind 2
# (time) where the program now makes a call of kind 1 (gettimeofday): the
# replay must exit 3 and name that, on one line only: the task reports
# the divergence to pangaea, which prints it, and does not print it
# itself too (its stderr reaches the same screen).
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
dir=$(pg_tmpdir)
cd "$dir" || exit 1
cat >clock.c <<'C'
#include <pvm3.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

int main(void)
{
    long s;
#ifdef TOD
    struct timeval tv;
#endif

    /* A message to itself: the task is a PVM task Pangaea follows. */
    pvm_initsend(PvmDataDefault);
    pvm_send(pvm_mytid(), 1);
    pvm_recv(-1, 1);
#ifdef TOD
    gettimeofday(&tv, NULL);
    s = (long)tv.tv_sec;
#else
    s = (long)time(NULL);
#endif
    printf("clock %ld\n", s);
    pvm_exit();
    return 0;
}
C
cc -w -o clock clock.c -lpvm3 || { pg_fail "cannot build clock.c"; pg_summary; exit 1; }
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

rc=0
timeout 60 "$PANGAEA" -log -logdir "$dir/logs" ./clock </dev/null >rec.out 2>rec.err || rc=$?
if [ "$rc" -eq 0 ] && grep -q 'clock [0-9]' rec.out && [ -s logs/ltid-1.time.pgc ]; then
    pg_pass "clock (time) recorded, with a time file"
else
    pg_fail "recording clock: exit $rc"; cat rec.out rec.err
fi

cc -w -DTOD -o clock clock.c -lpvm3 || pg_fail "cannot rebuild clock.c with gettimeofday"
rc=0
timeout 60 "$PANGAEA" -replay -rebuilt -logdir "$dir/logs" ./clock </dev/null >rep.out 2>rep.err || rc=$?
if [ "$rc" -eq 3 ] &&
   grep -q 'replay diverged in ltid 1 (.*clock) at time value 1: recorded a call of kind 2, the program made one of kind 1' rep.err &&
   [ "$(cat rep.out rep.err | grep -c 'diverged')" -eq 1 ]; then
    pg_pass "the clock divergence is said once (exit 3): $(grep -o 'at time value.*' rep.err)"
else
    pg_fail "replay of the rebuild reading another clock: exit $rc"; cat rep.out rep.err
fi

cd /
pg_pvm_stop
pg_summary
