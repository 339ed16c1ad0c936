#!/usr/bin/env bash
# test_cli.sh - what README.md and man/pangaea.1 promise about the command
# line, held to what `pangaea` does, one check per promise:
#  - the replay command -whatif prints runs as printed (it has the
#    program's arguments): the replay repeats the what-if run, no divergence;
#  - -log -host/-coordhost of a host not in the virtual machine: exit 4,
#    the host named, and the last recording stays where it was (nothing
#    moves to previous/, no stub marked incomplete);
#  - a task killed during a recording: the others, idle, are stopped at
#    once (PANGAEA_STALL is set far beyond the test's own time limit), the
#    words say a task died, not "the stall";
#  - a pvmd killed with kill -9 leaves its socket: named at once, without
#    libpvm's "mksocs" lines;
#  - exit statuses as documented: a program PVM cannot start exits 4 with
#    PVM's words, never a raw code; a file that is not a program is refused
#    (exit 2) before anything starts; a first task's non-zero status is
#    pangaea's, and said;
#  - -stop past a task's last recorded event is refused (exit 2), naming
#    the task and its last event;
#  - one rule for modes: the mode comes first (a mode later is named as
#    such); viewers take -logdir DIR as -move and -pack do; -dump 2 is
#    ltid 2; messages name the thing: -dump's missing ltid, -move's empty
#    directory, -live's bad port, -min's extra argument; a port in use is
#    said once, by Pangaea.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
SOR=$PG_BUILD/sor
dir=$(pg_tmpdir)
cd "$dir" || exit 1

# expect NAME STATUS PATTERN CMD...: CMD exits STATUS and its stderr
# matches PATTERN (extended regexp).
expect() {
    local name=$1 want=$2 pattern=$3 rc=0
    shift 3
    timeout 120 "$@" >"$dir/out" 2>"$dir/err" || rc=$?
    if [ "$rc" -eq "$want" ] && grep -Eq -- "$pattern" "$dir/err"; then
        pg_pass "$name (exit $rc)"
    else
        pg_fail "$name: exit $rc (wanted $want, stderr matching '$pattern'):"
        cat "$dir/err"
    fi
}

# --- a pvmd killed with kill -9 (before ours starts) ------------------------
stale=$(pg_tmpdir)
(PVM_TMP=$stale PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1 pvmd </dev/null \
    >"$stale/pvmd.out" 2>&1 &) # not our job: its kill -9 is not reported
for _ in $(seq 100); do
    pid=$(pg_pvmd_pid "$stale") && break
    sleep 0.1
done
if [ -n "${pid:-}" ]; then
    kill -9 "$pid"
    while pg_is_our_pvmd "$pid" "$stale"; do sleep 0.1; done
    PVM_TMP=$stale expect "a pvmd killed with kill -9: its socket named" 4 \
        "pvmd.$(id -u) exists but no pvmd answers there" \
        "$PANGAEA" -none -logdir "$dir/stale" "$SOR" 4
    if grep -q mksocs "$dir/err"; then
        pg_fail "libpvm's mksocs lines came before pangaea's words"
    else
        pg_pass "no libpvm connect noise for a stale socket"
    fi
else
    pg_fail "could not start a pvmd to kill"
fi

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# --- the host is checked before the last recording moves -------------------
"$PANGAEA" -log -logdir rec "$SOR" 4 >rec.out 2>&1 || {
    pg_fail "recording sor failed"; cat rec.out; }
sum_before=$(cat rec/ltid-*.comm.pgc | md5sum)
expect "-log -host nosuchhost: exit 4, the host named" 4 \
    "-host nosuchhost: no host of that name in the virtual machine" \
    "$PANGAEA" -log -logdir rec -host nosuchhost "$SOR" 4
expect "-log -coordhost nosuchhost: exit 4, the host named" 4 \
    "-coordhost nosuchhost: no host of that name" \
    "$PANGAEA" -log -logdir rec -coordhost nosuchhost "$SOR" 4
if [ ! -e rec/previous ] && [ ! -e rec/.pangaea-incomplete ] &&
   [ "$(cat rec/ltid-*.comm.pgc | md5sum)" = "$sum_before" ]; then
    pg_pass "a bad host moved nothing: the last recording stays in place"
else
    pg_fail "a bad host moved or marked the last recording"; ls -a rec
fi

# --- exit statuses and words -------------------------------------------------
printf 'not a program\n' >text.sh
chmod +x text.sh
expect "a file that is not a program: refused before anything starts" 2 \
    "cannot run the program .*text.sh: it is neither a binary" \
    "$PANGAEA" -log -logdir text "$dir/text.sh"
[ ! -e text ] && pg_pass "nothing made for a file that is not a program" ||
    pg_fail "a log directory was made for a file that is not a program"
expect "a first task that exits 1: pangaea exits 1 and says so" 1 \
    "ltid 1 \(/(usr/)?bin/false\) exited with status 1" \
    "$PANGAEA" -none /bin/false

# --- one rule for modes, -logdir, and words that name the thing ---------------
expect "pangaea alone: asks for a mode" 2 "say what to do: a mode" "$PANGAEA"
expect "a mode after an option: the mode comes first" 2 \
    "-dump is a mode: the mode comes first, before -logdir" \
    "$PANGAEA" -logdir rec -dump
expect "-log after an option: the same rule" 2 \
    "-log is a mode: the mode comes first, before -logdir" \
    "$PANGAEA" -logdir rec -log "$SOR" 4
expect "-min DIR extra: named, not 'say what to do'" 2 \
    "-min LOGDIR makes a recording race-only: one log directory" \
    "$PANGAEA" -min rec extra
expect "-pack FILE -replay: -replay named as the mode that comes first" 2 \
    "-replay is a mode: the mode comes first, before -pack" \
    "$PANGAEA" -pack run.pgp -replay
expect "-live 70000: not a port, not a program" 2 "-live 70000: not a port" \
    "$PANGAEA" -log -live 70000 "$SOR" 4
expect "-dump DIR 9: no task ltid 9, named" 2 "no task ltid 9 in .*rec" \
    "$PANGAEA" -dump rec 9
mkdir -p empty
expect "-move on an empty directory names it" 2 \
    "no execution logs \(ltid-N.exec.xml\) in the log directory .*empty" \
    "$PANGAEA" -move 3 hC -logdir empty
# Viewers take -logdir DIR as -move and -pack do: the same output as LOGDIR.
"$PANGAEA" -races -json rec >races.arg 2>/dev/null
"$PANGAEA" -races -logdir rec -json >races.opt 2>/dev/null
"$PANGAEA" -dump rec 2 >dump.arg 2>/dev/null
"$PANGAEA" -dump -logdir rec 2 >dump.opt 2>/dev/null
mkdir -p here && cp -r rec here/logs
(cd here && "$PANGAEA" -dump 2 >../dump.lone 2>../dump.lone.err)
if [ -s races.arg ] && cmp -s races.arg races.opt && [ -s dump.arg ] &&
   cmp -s dump.arg dump.opt && cmp -s dump.arg dump.lone; then
    pg_pass "-races/-dump take -logdir DIR as LOGDIR; -dump 2 is ltid 2 of logs/"
else
    pg_fail "-logdir for viewers or -dump LTID differ"; cat dump.lone.err
fi
cp -r rec minrec
expect "-min -logdir DIR makes it race-only" 0 "is race-only now" \
    "$PANGAEA" -min -logdir minrec
# A port in use: Pangaea's one line, not libmicrohttpd's "Failed to bind".
python3 -S -c 'import socket, time, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(120)' >port.txt &
holder=$!
for _ in $(seq 50); do [ -s port.txt ] && break; sleep 0.1; done
expect "-live on a port in use: one line, Pangaea's" 2 \
    "-live: cannot serve on 127.0.0.1:$(cat port.txt)" \
    "$PANGAEA" -log -logdir livebusy -live "$(cat port.txt)" "$SOR" 4
if [ -e livebusy ]; then
    pg_fail "-live on a port in use left the log directory it made"
else
    pg_pass "-live on a port in use leaves no log directory behind"
fi
if grep -qi "failed to bind" "$dir/err"; then
    pg_fail "libmicrohttpd's own 'Failed to bind' came too"
else
    pg_pass "no libmicrohttpd line before Pangaea's"
fi
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null

# --- -stop past the task's last event -----------------------------------------
"$PANGAEA" -log -logdir stoprec "$SOR" 4 >stoprec.out 2>&1 || {
    pg_fail "recording sor for -stop failed"; cat stoprec.out; }
last=$("$PANGAEA" -dump stoprec 2 | grep -o 'seq="[0-9]*"' | tail -1 | tr -dc 0-9)
expect "-stop past ltid 2's last event is refused" 2 \
    "-stop/-debug 2:99999: ltid 2's recording ends at event $last" \
    "$PANGAEA" -replay -logdir stoprec -stop 2:99999 "$SOR" 4
expect "-debug past ltid 2's last event is refused" 2 \
    "-stop/-debug 2:$((last + 1)): ltid 2's recording ends at event $last" \
    "$PANGAEA" -replay -logdir stoprec -debug 2:$((last + 1)) "$SOR" 4

# --- the replay command -whatif prints runs as printed -------------------------
WHATIF=$PG_BUILD/tests/plain_whatif
"$PANGAEA" -log -logdir wbase "$WHATIF" crash >wbase.out 2>&1
expect "-whatif runs (the crash it forces: exit 4)" 4 "what-if run" \
    "$PANGAEA" -whatif 1:4=3:1 -logdir wbase -o wnew "$WHATIF" crash
cmd=$(sed -n 's/.*(replay: \(pangaea -replay .*\))$/\1/p' "$dir/err")
case "$cmd" in
*" crash") pg_pass "-whatif's replay command has the program's arguments" ;;
*) pg_fail "-whatif's replay command lacks the arguments: '$cmd'" ;;
esac
# Run as printed (pangaea from PATH, as the user would).
rc=0
PATH=$PG_BUILD:$PATH timeout 120 bash -c "$cmd" >wrep.out 2>wrep.err || rc=$?
if [ "$rc" -eq 4 ] && ! grep -q diverged wrep.err &&
   grep -q 'died of SIGABRT' wrep.err; then
    pg_pass "-whatif's printed replay command repeats the what-if run"
else
    pg_fail "-whatif's printed replay: exit $rc"; cat wrep.err
fi

# --- a task killed during a recording ---------------------------------------
# plain_slow: two workers report rounds to the first task, which waits for
# each; a killed worker leaves the first task waiting for ever once the
# other worker is done.  With PANGAEA_STALL far beyond the time limit, only
# the idle check can end the run in time.
PANGAEA_STALL=100000 timeout 300 "$PANGAEA" -log -logdir killed \
    "$PG_BUILD/tests/plain_slow" 150 >killed.out 2>killed.err &
run=$!
victim=
for _ in $(seq 300); do
    victim=$(pgrep -P "$PG_PVMD_PID" -f "plain_slow -worker" | head -1)
    [ -n "$victim" ] && [ -s killed/ltid-2.comm.pgc ] && break
    sleep 0.1
done
[ -n "$victim" ] && kill -9 "$victim"
rc=0
wait "$run" || rc=$?
if [ "$rc" -eq 4 ] &&
   grep -q "a task died and the others do not progress: stopping them" killed.err &&
   ! grep -q "the stall" killed.err; then
    pg_pass "a task killed while recording: the idle others stopped, exit 4"
else
    pg_fail "a task killed while recording: exit $rc"; cat killed.err
fi

pg_pvm_stop
pg_summary
