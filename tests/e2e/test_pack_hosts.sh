#!/usr/bin/env bash
# test_pack_hosts.sh - a pack of a recording made on three hosts replays
# with every task on its recorded host, and on the host it was moved to
# with -move-host on the unpacked recording.  Run it under
# `flock /tmp/pg-hosts.lock` (hosts.sh: a fixed subnet).
#
# Where a task ran is read from inside the tasks: plain_spread's workers
# report gethostname() (each host its own name under `unshare --uts`).  The
# program is a copy in a temp dir, deleted once packed; the log directory
# too.  The unpacked directory is on this machine's file system, which the
# three namespace hosts share at the same path, as an NFS home would be.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"

PANGAEA=$PG_BUILD/pangaea
WORK=$(pg_tmpdir)

# run NAME HOST CMD...: CMD on HOST (from $WORK), bounded; out/err in $WORK.
run() {
    local name=$1 h=$2
    shift 2
    (cd "$WORK" && hosts_run "$h" timeout 120 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err")
}

hosts_up hA hB hC
case $? in
0) ;;
1) hosts_skip ;;
*) pg_fail "cannot build the virtual machine of hA hB hC ($HOSTS_WHY)"; pg_summary; exit 1 ;;
esac

mkdir -p "$WORK/bin"
cp "$PG_BUILD/tests/plain_spread" "$WORK/bin/"
if run rec hA "$PANGAEA" -log -logdir "$WORK/spread" -host hA -coordhost hA \
       "$WORK/bin/plain_spread" hA hB hC &&
   grep -q "worker 2 runs on hB" "$WORK/rec.out" && grep -q "worker 3 runs on hC" "$WORK/rec.out"; then
    pg_pass "plain_spread recorded with workers on hA, hB, hC (as they report)"
else
    pg_fail "recording on three hosts"; cat "$WORK/rec.err" "$WORK/rec.out"; hosts_logs; pg_summary; exit 1
fi
"$PANGAEA" -pack -logdir "$WORK/spread" -o "$WORK/spread.pangaea" 2>/dev/null
rm -rf "$WORK/spread" "$WORK/bin"

if run rep hA "$PANGAEA" -replay -pack spread.pangaea &&
   cmp -s "$WORK/rec.out" "$WORK/rep.out" &&
   grep -q "ltid 3 (.*) started on hB" "$WORK/rep.err"; then
    pg_pass "from the pack (logs and program deleted): the recorded output, each task on its recorded host"
else
    pg_fail "replay from the pack on three hosts"; diff "$WORK/rec.out" "$WORK/rep.out"; head -20 "$WORK/rep.err"
fi

logs=$WORK/spread.unpacked/recordings/spread
if "$PANGAEA" -move-host hB hA -logdir "$logs" >"$WORK/move.out" 2>&1 &&
   run moved hA "$PANGAEA" -replay -pack spread.pangaea &&
   grep -q "worker 2 runs on hA" "$WORK/moved.out" &&
   diff <(grep -v "worker 2 runs on" "$WORK/rec.out") <(grep -v "worker 2 runs on" "$WORK/moved.out") >/dev/null &&
   ! grep -q "started on hB" "$WORK/moved.err"; then
    pg_pass "after -move-host hB hA on the unpacked recording, the pack replays with worker 2 on hA, the rest as recorded"
else
    pg_fail "moved replay from the pack"; cat "$WORK/move.out"; diff "$WORK/rec.out" "$WORK/moved.out"; head -20 "$WORK/moved.err"
fi
[ "$PG_FAILED" -eq 0 ] || hosts_logs
pg_summary
