#!/usr/bin/env bash
# test_debug.sh - debugging a replay: -stop, -debug, call sites in reports.
#
# - -stop 1:N on a recorded racing program (plain_race, unmodified,
#   preloaded): pangaea prints the one line (event N, call site file:line,
#   pid); the task is stopped; longer than the stall limit (PANGAEA_STALL=2)
#   passes without a stall report while the run stays up; `gdb -p PID -batch
#   -ex bt` finds main on the stack; SIGCONT lets the replay end with
#   exactly the recorded output.  Unrecorded runs differ first, so an equal
#   output means something.
#   Two -stops in two tasks each stop once and go on with SIGCONT.
# - Bad -stop/-debug options are refused (exit 2) before anything starts.
# - -debug 1:N inside tmux (a private server, -L, killed at the end): gdb's
#   window shows the task at recorded event N in plain_race.c; `continue`
#   ends the replay with the recorded output.  The same outside tmux: gdb
#   in a tmux session of its own whose socket pangaea names; once the
#   replay has ended no pangaea-debugger of it is left.
# - -debug 1 of a program that crashed when recorded: gdb shows the crash.
# - Call sites are named: a divergence and a stall report, -dump, -tasks
#   and the event graph's data say file:line (function+offset without -g);
#   a Fortran program's sites are its Fortran lines.
# N is the seq of a receive in ltid 1's log, as -dump shows it.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debug_lib.sh"

PANGAEA=$PG_BUILD/pangaea
RACE=$PG_BUILD/tests/plain_race
TM="tmux -L pangaea-test-debug-$$"
export PVM_DEBUGGER=$PG_BUILD/pangaea-debugger # the pvmd's, for -debug
cleanup_tmux() { $TM kill-server 2>/dev/null; }
# lib.sh's traps stop our pvmd and remove the temp dirs: kept, tmux first.
trap 'cleanup_tmux; pg_cleanup' EXIT
trap 'cleanup_tmux; pg_cleanup; trap - EXIT; exit 130' INT
trap 'cleanup_tmux; pg_cleanup; trap - EXIT; exit 143' TERM

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
dir=$(pg_tmpdir)
logs=$dir/logs

# --- the program races, and a recording of it ------------------------------
pg_repeat 5 "$dir/free" "$PANGAEA" -none -logdir "$logs" "$RACE"
if [ "$PG_REPEAT_BAD" -eq 0 ] && [ "$PG_REPEAT_DISTINCT" -ge 2 ]; then
    pg_pass "plain_race: unrecorded runs differ ($PG_REPEAT_DISTINCT outputs of 5)"
else
    pg_fail "plain_race: unrecorded runs: $PG_REPEAT_BAD failed, $PG_REPEAT_DISTINCT distinct"
fi
if ! timeout 60 "$PANGAEA" -log -logdir "$logs" "$RACE" >"$dir/rec.out" 2>"$dir/rec.err"; then
    pg_fail "recording plain_race failed"; cat "$dir/rec.err"; pg_summary; exit 1
fi
# The 20th receive of ltid 1: mid-run, other tasks still send to it.
N=$(pg_comm_xml "$logs" 1 | grep '<recv ' | sed -n '20s/.* seq="\([0-9]*\)".*/\1/p')
[ -n "$N" ] || { pg_fail "no 20th receive in ltid 1's log"; pg_summary; exit 1; }


# --- -stop 1:N ----------------------------------------------------------------
PANGAEA_STALL=2 timeout 120 "$PANGAEA" -replay -stop "1:$N" -logdir "$logs" "$RACE" \
    >"$dir/stop.out" 2>"$dir/stop.err" &
runner=$!
line="ltid 1 \(.*plain_race\) stopped after event $N: pvm_[a-z]+ of message [0-9]+ from ltid [0-9]+ tag [0-9]+ at plain_race\.c:[0-9]+, on host [^ ]+, pid [0-9]+: attach with gdb -p [0-9]+ -x [^ ;]+; the run goes on when the task gets SIGCONT"
pid=
if wait_for "$dir/stop.err" 60 "$line"; then
    pid=$(grep -Eo 'gdb -p [0-9]+' "$dir/stop.err" | head -1 | awk '{print $3}')
    pg_pass "-stop 1:$N: one line names the event, its call site (plain_race.c:LINE), host and pid"
else
    pg_fail "-stop 1:$N: no stop line; stderr:"; cat "$dir/stop.err"
fi
if [ -n "$pid" ]; then
    sleep 6 # three times the stall limit
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
    if [ "$state" = T ] && kill -0 "$runner" 2>/dev/null &&
       ! grep -Eq "stalled|has waited|does not progress" "$dir/stop.err"; then
        pg_pass "-stop: task stopped 6 s (stall limit 2 s), no stall reported, the run waits"
    else
        pg_fail "-stop: after 6 s: state '$state', run alive: $(kill -0 "$runner" 2>/dev/null && echo yes || echo no), stderr:"
        cat "$dir/stop.err"
    fi
    timeout 60 gdb -p "$pid" -batch -ex bt >"$dir/gdb.out" 2>&1
    if grep -Eq '^#[0-9]+ .*\bmain \(' "$dir/gdb.out"; then
        pg_pass "-stop: gdb -p $pid -batch -ex bt finds main on the stack"
    else
        pg_fail "-stop: no main in gdb's backtrace:"; cat "$dir/gdb.out"
    fi
    # The line names a gdb script (-x) that opens gdb in the program's frame,
    # not in raise() under Pangaea's frames.
    script=$(grep -Eo 'gdb -p [0-9]+ -x [^ ;]+' "$dir/stop.err" | head -1 | awk '{print $5}')
    timeout 60 gdb -p "$pid" -batch -x "$script" >"$dir/gdbx.out" 2>&1
    if [ -n "$script" ] && grep -Eq '^#[0-9]+ .* at tests/programs/plain_race\.c:[0-9]+' "$dir/gdbx.out" &&
       ! grep -Eq '^#0 ' "$dir/gdbx.out"; then
        pg_pass "-stop: gdb -p $pid -x $(basename "$script") opens in the program's frame: $(grep -Eo '^#[0-9]+ .*' "$dir/gdbx.out" | tail -1)"
    else
        pg_fail "-stop: the frame script '$script' did not select the program's frame:"; cat "$dir/gdbx.out"
    fi
    kill -CONT "$pid"
fi
rc=0; wait "$runner" || rc=$?
if [ "$rc" -eq 0 ] && cmp -s "$dir/rec.out" "$dir/stop.out"; then
    pg_pass "-stop: after SIGCONT the replay ends with exactly the recorded output"
else
    pg_fail "-stop: exit $rc; output differs:"; diff "$dir/rec.out" "$dir/stop.out" | head; cat "$dir/stop.err"
fi

# --- two -stops, in two tasks: each stops once, each goes on with SIGCONT ------
M=$(pg_comm_xml "$logs" 2 | grep '<send ' | sed -n '2s/.* seq="\([0-9]*\)".*/\1/p')
PANGAEA_STALL=2 timeout 120 "$PANGAEA" -replay -stop "1:$N" -stop "2:$M" -logdir "$logs" "$RACE" \
    >"$dir/two.out" 2>"$dir/two.err" &
runner=$!
ok=1
for l in 2 1; do # ltid 1's event N needs ltid 2's later messages
    if wait_for "$dir/two.err" 60 "ltid $l \(.*\) stopped after event"; then
        sleep 3 # past the stall limit, while the other task waits for it
        p=$(grep -E "ltid $l \(.*\) stopped after event" "$dir/two.err" | grep -Eo 'gdb -p [0-9]+' | awk '{print $3}')
        kill -CONT "$p"
    else
        ok=
    fi
done
rc=0; wait "$runner" || rc=$?
if [ -n "$ok" ] && [ "$rc" -eq 0 ] && cmp -s "$dir/rec.out" "$dir/two.out" &&
   [ "$(grep -c 'stopped after event' "$dir/two.err")" -eq 2 ] &&
   grep -q "ltid 2 .* stopped after event $M:" "$dir/two.err" && ! grep -Eq "stalled|has waited" "$dir/two.err"; then
    pg_pass "-stop 1:$N -stop 2:$M: each task stops once, no stall meanwhile, the replay ends as recorded"
else
    pg_fail "two -stops: exit $rc"; cat "$dir/two.err"; diff "$dir/rec.out" "$dir/two.out" | head -5
fi

# --- -debug 1:N in a tmux window -----------------------------------------------
$TM -f /dev/null new-session -d -x 220 -y 50 -s dbg
$TM send-keys -t dbg:0 "PANGAEA_STALL=2 timeout 120 $PANGAEA -replay -debug 1:$N -logdir $logs $RACE >$dir/dbg.out 2>$dir/dbg.err; echo pangaea-exit-\$? >$dir/dbg.rc" Enter
at=
wait_pane dbg:1 60 "ltid 1 is at recorded event $N " && at=1
wait_pane dbg:1 10 "in [a-z_]+ \(.*\) at tests/programs/plain_race\.c:[0-9]+"
if [ -n "$at" ] && pane dbg:1 | grep -Eq "in [a-z_]+ \(.*\) at tests/programs/plain_race\.c:[0-9]+" &&
   grep -Eq "ltid 1 \(.*plain_race\) is at event $N: .* at plain_race\.c:[0-9]+" "$dir/dbg.err"; then
    pg_pass "-debug 1:$N in tmux: gdb's window shows the task at event $N in plain_race.c"
else
    pg_fail "-debug 1:$N in tmux: window 1:"; pane dbg:1 | tail -15; cat "$dir/dbg.err"
fi
# gdb is in the program's frame: `next` steps the program's lines.
$TM send-keys -t dbg:1 "next" Enter
# next is done when gdb prompts again after it.
for i in $(seq 100); do
    pane dbg:1 | sed -n '/(gdb) next/,$p' | sed 1d | grep -q '^(gdb)' && break
    sleep 0.1
done
after_next=$(pane dbg:1 | sed -n '/(gdb) next/,$p')
stepped=$(sed -n 2p <<<"$after_next")
if grep -Eq '^[0-9]+[[:space:]]' <<<"$stepped" && ! grep -q 'stop\.c' <<<"$after_next"; then
    pg_pass "-debug: the first next steps a line of the program ($(cut -c1-60 <<<"$stepped")), not of src/pvm/runtime/stop.c"
else
    pg_fail "-debug: next did not step the program's line:"; pane dbg:1 | tail -12
fi
sleep 1 # past the stall limit: still no stall
$TM send-keys -t dbg:1 "continue" Enter
wait_for "$dir/dbg.rc" 60 "pangaea-exit-"
if grep -q "pangaea-exit-0" "$dir/dbg.rc" && cmp -s "$dir/rec.out" "$dir/dbg.out" &&
   ! grep -Eq "stalled|has waited" "$dir/dbg.err"; then
    pg_pass "-debug: continue ends the replay with exactly the recorded output"
else
    pg_fail "-debug: $(cat "$dir/dbg.rc" 2>/dev/null); output:"; diff "$dir/rec.out" "$dir/dbg.out" | head; cat "$dir/dbg.err"
fi
$TM send-keys -t dbg:1 "quit" Enter

# --- -debug 1:N outside tmux: a tmux session of its own ---------------------
mkdir -m 700 "$dir/xdg"
( unset TMUX; export TMPDIR=$dir XDG_RUNTIME_DIR=$dir/xdg; PANGAEA_STALL=2 timeout 120 "$PANGAEA" -replay -debug "1:$N" -logdir "$logs" "$RACE" \
    >"$dir/own.out" 2>"$dir/own.err" ) &
runner=$!
sock=
wait_for "$dir/own.err" 30 "tmux -S [^ ]+ attach" &&
    sock=$(grep -Eo 'tmux -S [^ ]+ attach' "$dir/own.err" | awk '{print $3}')
# The socket lies in a private directory of its own (another user must not
# plant a server where pangaea's tmux would connect), seen while it is there.
sockdir=
[[ $sock == */pangaea-debug.??????/tmux.sock ]] &&
    sockdir="$(dirname "${sock%/*}") $(stat -c %a "${sock%/*}" 2>/dev/null)"
ok=
[ -n "$sock" ] && TM="tmux -S $sock" wait_pane pangaea 60 "ltid 1 is at recorded event $N " && ok=1
[ -n "$ok" ] && tmux -S "$sock" send-keys -t pangaea "continue" Enter
rc=0; wait "$runner" || rc=$?
if [ -n "$ok" ] && [ "$rc" -eq 0 ] && cmp -s "$dir/rec.out" "$dir/own.out"; then
    pg_pass "-debug outside tmux: pangaea names a tmux socket; gdb there is at event $N; continue ends the replay as recorded"
else
    pg_fail "-debug outside tmux: socket '${sock}', at event: ${ok:-no}, exit $rc"; cat "$dir/own.err"
fi
if [ "$sockdir" = "$dir/xdg 700" ]; then
    pg_pass "-debug outside tmux: the socket is in a 0700 directory of its own under XDG_RUNTIME_DIR"
else
    pg_fail "-debug outside tmux: socket '$sock' (its directory's parent and mode: $sockdir)"
fi
# Once the replay has ended, its pangaea-debugger ends too (it stayed about
# 2 minutes when its exit path enrolled in PVM again and again): polled
# for up to 60 s, a bound far above the second or so it takes.
debuggers() {
    local p
    for p in /proc/[0-9]*; do
        grep -qa "pangaea-debugger" "$p/cmdline" 2>/dev/null &&
            tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qxF "PVM_TMP=$PVM_TMP" &&
            echo "${p#/proc/}"
    done
}
left=
for i in $(seq 600); do
    left=$(debuggers)
    [ -z "$left" ] && break
    sleep 0.1
done
if [ -n "$ok" ] && [ -z "$left" ]; then
    pg_pass "-debug outside tmux: no pangaea-debugger is left once the replay has ended"
else
    pg_fail "-debug outside tmux: pangaea-debugger still running 60 s after the replay ended: pids $left"
fi
[ -n "$sock" ] && tmux -S "$sock" kill-server 2>/dev/null

# --- -debug 1 of a program that crashed when recorded ---------------------------
if [ -x "$PG_BUILD/tests/plain_crash" ]; then
    # It crashes under one order of its messages only: record until it does.
    for i in $(seq 30); do
        clogs=$dir/crash$i
        timeout 60 "$PANGAEA" -log -logdir "$clogs" "$PG_BUILD/tests/plain_crash" >"$dir/crec.out" 2>"$dir/crec.err" ||
            break
    done
    $TM send-keys -t dbg:0 "timeout 120 $PANGAEA -replay -debug 1 -logdir $clogs $PG_BUILD/tests/plain_crash >$dir/crash.out 2>$dir/crash.err; echo pangaea-exit-\$? >$dir/crash.rc" Enter
    seen= w=
    for i in $(seq 600); do
        w=$($TM list-windows -t dbg -F '#{window_index} #{window_name}' | awk '$2 == "ltid" && $3 == "1" && NF == 3 {print $1}' | tail -1)
        # gdb prints the signal line, then the frame line: wait for both.
        [ -n "$w" ] && pane "dbg:$w" | grep -A3 "received signal SIG" | grep -Eq "plain_crash\.c:[0-9]+" &&
            seen=1 && break
        sleep 0.1
    done
    if [ -n "$seen" ]; then
        pg_pass "-debug 1 of a program that crashed when recorded: gdb stops at the crash in plain_crash.c"
    else
        pg_fail "-debug 1 of plain_crash (recorded run $i: $(grep -c crashing "$dir/crec.out") crash): no crash shown in gdb, window '$w' of:"
        $TM list-windows -t dbg; [ -n "$w" ] && pane "dbg:$w" | tail -15
        ps -eo pid,ppid,stat,cmd | grep -E "gdb|pangaea-debugger|plain_crash" | grep -v grep
        cat "$dir/crash.err" "$dir/crash.out"
    fi
    [ -n "${w:-}" ] && $TM send-keys -t "dbg:$w" "kill" Enter "quit" Enter
    wait_for "$dir/crash.rc" 60 "pangaea-exit-"
fi
cleanup_tmux

# --- bad -stop/-debug: refused with exit 2 before anything starts ----------------
bad() { # bad NAME PATTERN ARGS...
    local name=$1 pat=$2 rc=0
    shift 2
    timeout 30 "$PANGAEA" "$@" >"$dir/bad.out" 2>&1 || rc=$?
    if [ "$rc" -eq 2 ] && grep -Eq -e "$pat" "$dir/bad.out" && [ ! -e "$dir/nolog" ]; then
        pg_pass "refused (exit 2): $name"
    else
        pg_fail "$name: exit $rc"; cat "$dir/bad.out"
    fi
}
bad "-stop with -log" "go with -replay" -log -stop 1:3 -logdir "$dir/nolog" "$RACE"
bad "-stop without an event" "-stop 1: give LTID:EVENT" -replay -stop 1 -logdir "$logs" "$RACE"
bad "-stop of an ltid the recording lacks" "has no ltid 77" -replay -stop 77:3 -logdir "$logs" "$RACE"
bad "-debug twice" "-debug given twice" -replay -debug 1 -debug 2 -logdir "$logs" "$RACE"

# --- call sites in -dump: file:line with -g, function+offset without -------------
if pg_comm_xml "$logs" 1 | grep -Eq '^  <!-- site 1: plain_race\.c:[0-9]+ -->$'; then
    pg_pass "-dump names call sites as plain_race.c:LINE"
else
    pg_fail "-dump names no call site:"; pg_comm_xml "$logs" 1 | head -6
fi
if "$PANGAEA" -tasks "$logs" | grep -Eq '^ +last message: event [0-9]+, pvm_[a-z]+ at plain_race\.c:[0-9]+$'; then
    pg_pass "-tasks names each task's last call site (plain_race.c:LINE)"
else
    pg_fail "-tasks names no call site:"; "$PANGAEA" -tasks "$logs"
fi
page=$("$PANGAEA" -display "$logs" 2>/dev/null | tail -1)
if [ -f "$page" ] && grep -Eq '"sites":\["plain_race\.c:[0-9]+"' "$page" && grep -q '"call sites"' "$page"; then
    pg_pass "-display: the event graph's details carry call sites (plain_race.c:LINE)"
else
    pg_fail "-display: no call sites in the page data ($page)"
fi
cp "$RACE" "$dir/race_nodebug" && strip -g "$dir/race_nodebug"
timeout 60 "$PANGAEA" -log -logdir "$dir/nodebug" "$dir/race_nodebug" 2 3 >/dev/null 2>&1
if pg_comm_xml "$dir/nodebug" 1 | grep -Eq '^  <!-- site 1: [a-z_]+\+0x[0-9a-f]+ \(race_nodebug\) -->$'; then
    pg_pass "-dump of a binary without debug information names sites as function+0xOFF"
else
    pg_fail "-dump without debug information:"; pg_comm_xml "$dir/nodebug" 1 | grep -m3 -- '<!--'
fi

# A Fortran program calls PVM through libfpvm3's bindings: its sites are
# the Fortran lines that call them (fortran_self.f: pvmfsend on line 12,
# pvmfrecv on 13, as the source says).
FSELF=$PG_BUILD/tests/fortran_self
src=$PG_ROOT/tests/programs/fortran_self.f
timeout 60 "$PANGAEA" -log -logdir "$dir/fortran" "$FSELF" >"$dir/f.out" 2>"$dir/f.err"
want=$(grep -n 'call pvmf\(send\|recv\)' "$src" | cut -d: -f1 | sed 's/^/fortran_self.f:/' | tr '\n' ' ')
got=$(pg_comm_xml "$dir/fortran" 1 | sed -n 's/^  <!-- site [0-9]*: \(.*\) -->$/\1/p' | tr '\n' ' ')
if [ -n "$want" ] && [ "$got" = "$want" ]; then
    pg_pass "Fortran program: call sites are its Fortran lines ($got), not libfpvm3's bindings"
else
    pg_fail "Fortran program: sites '$got', wanted '$want'"; cat "$dir/f.err"
fi

# --- -stop past the task's last event: refused before anything runs ----------------
timeout 60 "$PANGAEA" -replay -stop 1:999999 -logdir "$logs" "$RACE" >"$dir/far.out" 2>"$dir/far.err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "stop/-debug 1:999999: ltid 1's recording ends at event [0-9]*" "$dir/far.err" &&
   [ ! -s "$dir/far.out" ]; then
    pg_pass "-stop past the last event: refused (exit 2), naming the last event; nothing ran"
else
    pg_fail "-stop past the last event: exit $rc"; cat "$dir/far.out" "$dir/far.err"
fi

# --- a stall report names the waiting call's site ------------------------------------
# ltid 1's receive N edited to wait for a message nobody sends: it waits
# past the stall limit, and says so.
cp -r "$logs" "$dir/stall"
pg_comm_edit "$dir/stall" 1 "/<recv seq=\"$N\"/s/ msgid=\"[0-9]*\"/ msgid=\"9999\"/"
PANGAEA_STALL=2 timeout 60 "$PANGAEA" -replay -logdir "$dir/stall" "$RACE" >"$dir/stall.out" 2>"$dir/stall.err"
rc=$?
if [ "$rc" -eq 3 ] &&
   grep -Eq "ltid 1 .*replay has waited 2 s: waits in pvm_[a-z]+ for message 9999 from ltid [0-9]+ \(tag [0-9]+, recorded event $N\) at plain_race\.c:[0-9]+" "$dir/stall.err"; then
    pg_pass "stall report names the waiting call's site (plain_race.c:LINE)"
else
    pg_fail "stall report: exit $rc"; cat "$dir/stall.err"
fi

# --- a divergence names file:line -----------------------------------------------
# ltid 2's first send, recorded with another tag: the replay of it diverges.
first=$(pg_comm_xml "$logs" 2 | grep -m1 '<send ' | sed 's/.* seq="\([0-9]*\)".*/\1/')
pg_comm_edit "$logs" 2 "/<send seq=\"$first\"/s/ tag=\"[0-9]*\"/ tag=\"999\"/"
PANGAEA_STALL=2 timeout 60 "$PANGAEA" -replay -logdir "$logs" "$RACE" >"$dir/div.out" 2>"$dir/div.err"
rc=$?
if [ "$rc" -eq 3 ] &&
   grep -Eq "replay diverged in ltid 2 .* at event $first: recorded pvm_send .*tag 999.* at plain_race\.c:[0-9]+" "$dir/div.err"; then
    pg_pass "divergence report names the call site as plain_race.c:LINE"
else
    pg_fail "divergence report (ltid 2's event $first edited): exit $rc, stderr:"; cat "$dir/div.err"
fi

pg_summary
