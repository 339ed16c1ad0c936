#!/usr/bin/env bash
# test_realprog_logdir.sh - `-logdir a/b/c` makes the missing a/b as
# mkdir -p would, and names the component it cannot make, and why.
#
# Design.  A recording into DIR/new/deeper/logs (new/ does not exist) must
# succeed with its logs there.  A path through a regular file
# (DIR/afile/x/logs) and one under a directory without write permission
# must be refused with exit 2, naming that component and the reason, and
# leave nothing made.  (As root, permissions do not stop mkdir: that case
# is then checked with a component that is a dangling symbolic link, which
# must be named, not followed into a new directory.)
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_stdio
dir=$(pg_tmpdir)
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
cd "$dir" || exit 1

rc=0
timeout 60 "$PANGAEA" -log -logdir new/deeper/logs "$PROG" 1 </dev/null >rec.out 2>rec.err || rc=$?
if [ "$rc" -eq 0 ] && [ -s new/deeper/logs/ltid-1.comm.pgc ]; then
    pg_pass "-logdir new/deeper/logs made its missing parents and holds the logs"
else
    pg_fail "-logdir with missing parents: exit $rc"; cat rec.err
fi

: >afile
rc=0
timeout 60 "$PANGAEA" -log -logdir afile/x/logs "$PROG" 1 </dev/null >f.out 2>f.err || rc=$?
if [ "$rc" -eq 2 ] && grep -q "cannot use the log directory afile/x/logs: Not a directory (afile exists and is not a directory)" f.err && [ ! -e afile/x ]; then
    pg_pass "a path through a file is refused, naming it: $(head -1 f.err)"
else
    pg_fail "path through a file: exit $rc"; cat f.err
fi

ln -s "$dir/nowhere" dangling
rc=0
timeout 60 "$PANGAEA" -log -logdir dangling/logs "$PROG" 1 </dev/null >l.out 2>l.err || rc=$?
if [ "$rc" -eq 2 ] && grep -q "cannot use the log directory dangling/logs: No such file or directory (dangling is a link to nothing, not followed)" l.err && [ ! -e "$dir/nowhere" ]; then
    pg_pass "a dangling link in the path is named, not followed: $(head -1 l.err)"
else
    pg_fail "dangling link: exit $rc"; cat l.err; ls -la "$dir"
fi

cd / && pg_pvm_stop
pg_summary
