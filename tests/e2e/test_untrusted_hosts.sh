#!/usr/bin/env bash
# test_untrusted_hosts.sh - the host names of a recording on a virtual
# machine whose master has a network address (hosts.sh: network
# namespaces hA hB), where pvm_addhosts really runs the remote shell: a
# recording never makes the pvmd run a command or connect to a host the
# user did not ask for (README, "What a recording can and cannot make
# Pangaea do").
#
# Design.  plain_spread is recorded on hA with a worker on hB; then hB
# leaves the virtual machine (`delete hB`), and hosts.sh's remote shell
# records every call (PVM_RSH of the master pvmd), so the test sees
# whether PVM was asked to add a host, in this order (each check before
# any add):
#  - a recording whose host is a PVM host-file line with an option
#    (`dx=` makes the new pvmd's command a shell command) is refused as no
#    host name, with or without -addhosts: the remote shell never ran, the
#    command never ran;
#  - the replay without -addhosts is refused, naming hB and -addhosts,
#    and the remote shell never ran;
#  - with -addhosts the remote shell runs for hB, hB is added and the
#    replay prints the recorded output (so the record of the remote shell
#    does see adds: the checks above can fail).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"

PANGAEA=$PG_BUILD/pangaea
SPREAD=$PG_BUILD/tests/plain_spread
WORK=$(pg_tmpdir)

# run NAME CMD...: CMD on hA, bounded; out/err/rc in $WORK/NAME.*
run() {
    local name=$1 rc=0
    shift
    hosts_run hA timeout 120 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null || rc=$?
    echo "$rc" >"$WORK/$name.rc"
}

hosts_up hA hB
case $? in
0) ;;
1) hosts_skip ;;
*) pg_fail "cannot build the hosts: $HOSTS_WHY"; pg_summary; exit 1 ;;
esac

LOGS=$WORK/logs
run rec "$PANGAEA" -log -logdir "$LOGS" -host hA -coordhost hA "$SPREAD" hA hB
if [ "$(cat "$WORK/rec.rc")" != 0 ] || ! grep -q 'host="hB"' "$LOGS/ltid-1.exec.xml"; then
    pg_fail "the recording on hA and hB failed (exit $(cat "$WORK/rec.rc"))"; cat "$WORK/rec.err"
    pg_summary; exit 1
fi
echo "delete hB" | hosts_run hA timeout 30 pvm >/dev/null 2>&1
if echo conf | hosts_run hA timeout 20 pvm 2>/dev/null | grep -q "^ *hB "; then
    pg_fail "hB is still in the virtual machine after delete"; pg_summary; exit 1
fi
# From here on, every call of the remote shell leaves a line.
sed -i "2i echo \"\$*\" >>'$WORK/rsh.ran'" "$HOSTS_DIR/rsh"

BAD=$WORK/bad && cp -a "$LOGS" "$BAD"
sed -i "s|host=\"hB\"|host=\"$HOSTS_NET.2 dx=/usr/bin/touch\${IFS}$WORK/pwned;\"|" "$BAD/ltid-1.exec.xml"
for opt in "" -addhosts; do
    run "bad$opt" "$PANGAEA" -replay $opt -logdir "$BAD" "$SPREAD" hA hB
    if [ "$(cat "$WORK/bad$opt.rc")" = 2 ] && [ ! -e "$WORK/rsh.ran" ] && [ ! -e "$WORK/pwned" ] &&
       grep -q "runs ltid 3 on host \"$HOSTS_NET.2 dx=.*not a host name" "$WORK/bad$opt.err"; then
        pg_pass "a host that is a host-file line with dx= is refused${opt:+ (even with $opt)}: no remote shell, no command"
    else
        pg_fail "crafted host${opt:+ with $opt}: exit $(cat "$WORK/bad$opt.rc"), remote shell: $(cat "$WORK/rsh.ran" 2>/dev/null), command ran: $([ -e "$WORK/pwned" ] && echo yes || echo no)"
        cat "$WORK/bad$opt.err"
    fi
done

run noadd "$PANGAEA" -replay -logdir "$LOGS" "$SPREAD" hA hB
if [ "$(cat "$WORK/noadd.rc")" = 2 ] && [ ! -e "$WORK/rsh.ran" ] &&
   grep -q 'host "hB" is not part of the virtual machine; .*ltid-1.exec.xml runs ltid 3 there.*-addhosts' "$WORK/noadd.err"; then
    pg_pass "a replay needing hB, not in the virtual machine, names it and -addhosts; the remote shell never ran"
else
    pg_fail "replay without -addhosts: exit $(cat "$WORK/noadd.rc"), remote shell: $(cat "$WORK/rsh.ran" 2>/dev/null)"
    cat "$WORK/noadd.err"
fi

run add "$PANGAEA" -replay -addhosts -logdir "$LOGS" "$SPREAD" hA hB
if [ "$(cat "$WORK/add.rc")" = 0 ] && grep -q "^hB" "$WORK/rsh.ran" 2>/dev/null &&
   grep -q "added host hB" "$WORK/add.err" && cmp -s "$WORK/rec.out" "$WORK/add.out"; then
    pg_pass "with -addhosts the remote shell runs for hB, hB is added, and the replay prints the recorded output"
else
    pg_fail "replay with -addhosts: exit $(cat "$WORK/add.rc"), remote shell: $(cat "$WORK/rsh.ran" 2>/dev/null)"
    cat "$WORK/add.err"; diff "$WORK/rec.out" "$WORK/add.out" | head -5
fi

[ "$PG_FAILED" -eq 0 ] || hosts_logs
pg_summary
