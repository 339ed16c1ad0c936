#!/usr/bin/env bash
# test_rebuilt.sh - the classic loop on a program nobody here wrote: record
# pvm-examples' hello (its C source ships in the package), add a printf,
# rebuild, replay.
#
# Design.  A replay of another build is refused (exit 3, saying -rebuilt
# would replay it); `-replay -rebuilt` replays it while its messages agree:
# the printf's line appears, the run ends well and says "replayed N events
# of M tasks as recorded".  A rebuild whose messages differ (a send added
# before the recorded receive) replays up to there and diverges at that
# event, named once (not by the task and by pangaea both).
set -u
. "$(dirname "$0")/lib.sh"

SRC=/usr/share/doc/pvm-examples/examples.tar.gz
[ -r "$SRC" ] && command -v hello_other >/dev/null ||
    pg_skip "pvm-examples not installed (install-deps.sh test installs it)"
PANGAEA=$PG_BUILD/pangaea
dir=$(pg_tmpdir)
tar -C "$dir" -xzf "$SRC" examples/hello.c
cd "$dir/examples" || exit 1
build() { cc -g -w -o hello hello.c -lpvm3; }
spawn='cc = pvm_spawn("hello_other", (char\*\*)0, 0, "", 1, &tid);'
build || { pg_fail "cannot build pvm-examples' hello.c"; pg_summary; exit 1; }
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

rc=0
timeout 60 "$PANGAEA" -log ./hello </dev/null >rec.out 2>rec.err || rc=$?
[ "$rc" -eq 0 ] && grep -q 'hello, world' rec.out ||
    { pg_fail "recording hello: exit $rc"; cat rec.out rec.err; }

sed -i "s|$spawn|&\n\tprintf(\"debug: spawned %d\\\\n\", cc);|" hello.c
grep -q 'debug: spawned' hello.c && build || pg_fail "cannot rebuild hello with a printf"
rc=0
timeout 60 "$PANGAEA" -replay ./hello </dev/null >plain.out 2>plain.err || rc=$?
if [ "$rc" -eq 3 ] && grep -q 'another build or another program; -rebuilt replays another build' plain.err; then
    pg_pass "a replay of the rebuilt hello is refused, pointing at -rebuilt (exit 3)"
else
    pg_fail "replay of the rebuilt hello: exit $rc"; cat plain.err
fi
rc=0
timeout 60 "$PANGAEA" -replay -rebuilt ./hello </dev/null >rb.out 2>rb.err || rc=$?
if [ "$rc" -eq 0 ] && grep -q '^\[1\] debug: spawned 1$' rb.out && grep -q 'hello, world' rb.out &&
   grep -q 'another build than recorded (-rebuilt)' rb.out &&
   grep -q '^pangaea: replayed 4 events of 2 tasks as recorded$' rb.err; then
    pg_pass "-replay -rebuilt replays the rebuilt hello with its printf, and says: $(cat rb.err)"
else
    pg_fail "-replay -rebuilt: exit $rc"; cat rb.out rb.err
fi

sed -i "s|$spawn|&\n\tpvm_initsend(PvmDataDefault); pvm_pkint(\&cc, 1, 1); pvm_send(pvm_mytid(), 7);|" hello.c
build || pg_fail "cannot rebuild hello with a send"
rc=0
timeout 60 "$PANGAEA" -replay -rebuilt ./hello </dev/null >div.out 2>div.err || rc=$?
if [ "$rc" -eq 3 ] &&
   grep -q 'replay diverged in ltid 1 (.*hello) at event [0-9]*: recorded pvm_recv .*; the program called pvm_send to ltid 1 tag 7 at hello.c:[0-9]*' div.err &&
   [ "$(cat div.out div.err | grep -c 'diverged')" -eq 1 ]; then
    pg_pass "a rebuild whose messages differ diverges at the first event that differs, said once: $(grep -o 'at event.*' div.err)"
else
    pg_fail "-rebuilt with another send: exit $rc"; cat div.out div.err
fi

cd /
pg_pvm_stop
pg_summary
