#!/usr/bin/env bash
# test_realprog_netpipe.sh - two `pangaea` runs on one pvmd: NetPIPE's
# receiver and transmitter (package netpipe-pvm), each recorded by a
# `pangaea` of its own, as a server and its client are.
#
# Design.  NPpvm refuses to run unless pvm_tasks lists exactly its own two
# tasks ("Start a clean machine"): each run must hide every Pangaea task
# from its program, the other run's `pangaea` and coordinator too, not only
# its own.  The receiver is started first, in the background (its PID is
# kept, and it is interrupted on failure); both must end well and the
# transmitter print its table.  Then the transmitter's recording replays
# alone (the receiver's messages come from its log): the same table of
# sizes and repetitions (the speeds are measured anew).
set -u
. "$(dirname "$0")/lib.sh"

command -v NPpvm >/dev/null || pg_skip "netpipe-pvm not installed (install-deps.sh test installs it)"
PANGAEA=$PG_BUILD/pangaea
dir=$(pg_tmpdir)
rpid=
stop_receiver() {
    [ -n "$rpid" ] || return 0
    kill -INT "$rpid" 2>/dev/null; wait "$rpid" 2>/dev/null; rpid=
}
trap 'stop_receiver; pg_cleanup' EXIT
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
cd "$dir" || exit 1 # NPpvm writes np.out where it runs: here
host=$(hostname)
NP=(NPpvm -u 4096 -n 20 -p 0)

timeout 120 "$PANGAEA" -log -logdir "$dir/recv" "${NP[@]}" </dev/null >"$dir/recv.out" 2>&1 &
rpid=$!
# The receiver waits for its peer once its task runs.
for i in $(seq 100); do
    [ "$(echo ps -a | timeout 10 pvm 2>/dev/null | grep -c NPpvm)" -ge 1 ] && break
    sleep 0.1
done
rc=0
timeout 60 "$PANGAEA" -log -logdir "$dir/send" "${NP[@]}" -h "$host" </dev/null \
    >"$dir/send.out" 2>&1 || rc=$?
rrc=0
if [ "$rc" -eq 0 ]; then
    wait "$rpid" || rrc=$?
    rpid=
else
    stop_receiver; rrc=1 # it would wait for its peer until its timeout
fi
table() { sed -n 's/^\[1\] *\([0-9]*: *[0-9]* bytes *[0-9]* times\) -->.*/\1/p' "$1"; }
rows=$(table "$dir/send.out" | wc -l)
if [ "$rc" -eq 0 ] && [ "$rrc" -eq 0 ] && [ "$rows" -ge 10 ] &&
   ! grep -q 'clean machine' "$dir/send.out" "$dir/recv.out"; then
    pg_pass "NPpvm's receiver and transmitter, recorded by two pangaea runs on one pvmd, ran ($rows rows)"
else
    pg_fail "NetPIPE: transmitter exit $rc, receiver exit $rrc, $rows rows"
    tail -n 5 "$dir/send.out" "$dir/recv.out"
fi

rc=0
timeout 60 "$PANGAEA" -replay -logdir "$dir/send" "${NP[@]}" -h "$host" </dev/null \
    >"$dir/rep.out" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && [ "$rows" -ge 10 ] && [ "$(table "$dir/rep.out")" = "$(table "$dir/send.out")" ]; then
    pg_pass "the transmitter's recording replays alone: the same $rows rows"
else
    pg_fail "transmitter replay: exit $rc"; tail -n 5 "$dir/rep.out"
fi

cd /
pg_pvm_stop
pg_summary
