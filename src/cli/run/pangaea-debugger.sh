#!/bin/bash
# pangaea-debugger - PVM's debugger hook for `pangaea -replay -debug LTID[:EVENT]`.
#
# The pvmd runs `$PVM_DEBUGGER program args...` instead of the program for
# a task spawned with PvmTaskDebug (wrap_spawn.c sets it for the -debug
# ltid; pangaea gives a pvmd it starts PVM_DEBUGGER=this script).  This
# script is then the process the pvmd knows as the task: it must live until
# the task is over, so it waits for gdb to end.
#
# Design.  gdb runs in a tmux window: a new window of the user's tmux
# session when pangaea runs inside tmux (PANGAEA_TMUX="window:$TMUX"), else
# a detached tmux session of its own (PANGAEA_TMUX="session:SOCKET"), which
# pangaea says how to attach to.  A tmux window starts with the tmux
# server's environment, not ours, so the task's environment (the pvmd's
# PVMEPID and friends, PVM_EXPORT's variables) is written to a file the
# window reads.  LD_PRELOAD (libpangaea) is kept away from gdb and tmux and
# given to the program only (`set environment`); the library's constructor
# already ran in this shell and claimed the ltid for this pid ("N@PID"),
# so the claim is undone for the program (bash, which gdb starts it with,
# claims it again and execs the program in the same process: the runtime
# keeps the ltid across that exec).  The program's stdin, stdout and stderr
# are this script's (redirections on gdb's `run`, through /proc): its
# output reaches pangaea as always, gdb's stays in the window.  With
# :EVENT gdb stops at pg_stop_here (stop.c), called when the task has
# completed that recorded event, and goes on to where the program's frame
# resumes (a temporary breakpoint there): gdb is in the program's frame.
set -u
prog=${1:-}
[ $# -gt 0 ] && shift
# An MPI rank (src/mpi/mpi_stop.c) runs this script itself, with
# PANGAEA_ATTACH=its pid and no program: gdb attaches to the rank, which
# waits at its event until gdb clears pgm_debug_hold; then on to the
# program's frame, as below.
attach=${PANGAEA_ATTACH:-}
export PANGAEA_LTID=${PANGAEA_LTID%@*}
preload=${LD_PRELOAD:-}
unset LD_PRELOAD
ltid=$PANGAEA_LTID
where=${PANGAEA_TMUX:-}
event=
case ${PANGAEA_DEBUG:-} in *:*) event=${PANGAEA_DEBUG#*:} ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/pangaea-debug.XXXXXX") || exit 1
chan=pangaea-debug-$$
io="</proc/$$/fd/0 >/proc/$$/fd/1 2>/proc/$$/fd/2"
args=
[ $# -gt 0 ] && args=$(printf ' %q' "$@")

export -p | grep -v -e ' TMUX=' -e ' TMUX_PANE=' -e ' PANGAEA_TMUX=' >"$work/env"
{
    echo "set pagination off"
    echo "set confirm off"
    if [ -z "$attach" ]; then # how gdb starts the program (not attached)
        echo "set startup-with-shell on"
        echo "set environment LD_PRELOAD $preload"
        echo "set args$args $io"
    fi
    # pg_stop_here is called deep in Pangaea's frames: a temporary
    # breakpoint where the program's frame resumes, and `continue` to it,
    # leave gdb in the program's own frame, so that `next` steps the
    # program's lines, not src/pvm/runtime/stop.c's.
    echo "python"
    echo "def pangaea_to_program():"
    echo "    f = gdb.newest_frame()"
    echo "    while f is not None:"
    echo "        sal = f.find_sal()"
    echo "        name = sal.symtab.filename if sal.symtab else ''"
    echo "        lib = gdb.solib_name(f.pc()) or ''"
    echo "        if not any(d in name for d in ('src/base/', 'src/log/', 'src/pvm/', 'src/mpi/')) and not any(s in lib for s in ('libpangaea', 'libpvm3', 'libgpvm3', 'libc.')):"
    echo "            gdb.Breakpoint('*%d' % f.pc(), temporary=True)"
    echo "            return"
    echo "        f = f.older()"
    echo "end"
    if [ -n "$attach" ]; then
        at="in MPI_Init"
        [ -n "$event" ] && at="at recorded event $event"
        echo "echo pangaea: ltid $ltid is $at (continue: the replay goes on)\\n"
        echo "set var pgm_debug_hold = 0"
        echo "python pangaea_to_program()"
        echo "continue"
    elif [ -n "$event" ]; then
        echo "set breakpoint pending on"
        echo "break pg_stop_here"
        echo "commands"
        echo "silent"
        echo "printf \"pangaea: ltid %d is at recorded event %ld (continue: the replay goes on)\\n\", ltid, event"
        echo "python pangaea_to_program()"
        echo "continue"
        echo "end"
    fi
    [ -n "$attach" ] || echo "run"
} >"$work/gdbinit"
{
    echo ". '$work/env'"
    if [ -n "$attach" ]; then
        printf 'gdb -q -p %q -x %q\n' "$attach" "$work/gdbinit"
    else
        printf 'SHELL=/bin/bash gdb -q -x %q %q\n' "$work/gdbinit" "$prog"
    fi
    echo "tmux wait-for -S $chan"
} >"$work/run"

# Ended from outside (pangaea ends the run: it kills this task; or pangaea
# itself died and its coordinator kills the run's tasks): the window or
# session goes too, and with it gdb (SIGHUP), which kills the program it
# started.  The wait runs in the background so that the trap runs at once
# (bash runs a trap only once a foreground command is over).
window= sock= waiter=
finish() {
    [ -n "$waiter" ] && kill "$waiter" 2>/dev/null
    [ -n "$window" ] && TMUX=${where#window:} tmux kill-window -t "$window" 2>/dev/null
    [ -n "$sock" ] && { tmux -S "$sock" kill-server 2>/dev/null; rm -f "$sock"; rmdir "${sdir:-}" 2>/dev/null; }
    rm -rf "$work"
}
# This shell carries libpangaea (the pvmd preloaded it), whose exit
# handlers would take it for the task and look for its logs: it leaves by
# exec (no exit handlers run), the program under gdb being the task.
leave() { exec /bin/sh -c "exit $1"; }
trap 'finish; leave 143' TERM
trap 'finish; leave 130' INT
trap 'finish; leave 129' HUP

title="ltid $ltid${event:+ @$event}"
case $where in
window:*)
    window=$(TMUX=${where#window:} tmux new-window -P -F '#{window_id}' -n "$title" "bash '$work/run'") || exit 1
    TMUX=${where#window:} tmux wait-for "$chan" &
    ;;
session:*)
    sock=${where#session:}
    # The socket's directory is private: pangaea made it 0700 on its host;
    # here it is made so, and one that is not ours alone is refused.
    sdir=${sock%/*}
    [ -d "$sdir" ] || mkdir -m 700 "$sdir" || exit 1
    if [ -L "$sdir" ] || [ ! -O "$sdir" ] || [ "$(stat -c %a "$sdir")" != 700 ]; then
        echo "pangaea-debugger: $sdir is not a private directory of this user: no tmux socket there" >&2
        exit 1
    fi
    tmux -S "$sock" new-session -d -s "pangaea" -n "$title" "bash '$work/run'" || exit 1
    tmux -S "$sock" wait-for "$chan" &
    ;;
*)
    echo "pangaea-debugger: PANGAEA_TMUX is not set: run under pangaea -debug" >&2
    exit 1
    ;;
esac
waiter=$!
# pangaea gone (killed, or it ended the run) while gdb still holds the
# task: nobody is left to end it, so this script does (PANGAEA_TOP_PID:
# pangaea's pid@host, watched when it runs on this host).
toppid=${PANGAEA_TOP_PID%@*}
[ "${PANGAEA_TOP_PID#*@}" = "$(hostname)" ] || toppid=
while kill -0 "$waiter" 2>/dev/null; do
    if [ -n "$toppid" ] && ! kill -0 "$toppid" 2>/dev/null; then
        finish
        leave 143
    fi
    sleep 0.5
done
waiter= window= # gdb is over; its window closed with it
[ -n "$sock" ] && rm -f "$sock" # and the session
[ -n "${sdir:-}" ] && rmdir "$sdir" 2>/dev/null # its private directory
sock=
rm -rf "$work"
leave 0
