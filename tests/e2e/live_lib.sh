# live_lib.sh - what the tests of the live page share (test_live,
# test_interactive, test_filter): a `pangaea -live` run in the background,
# its URL, waiting on it, and ending it as a user would.  Sourced after
# lib.sh; the test sets PANGAEA and D (its directory) and keeps PID.

# jget JSON EXPR: EXPR of the parsed JSON d, printed by Python (-S: no
# site packages to look for, a third of its start-up, and the waits below
# ask it many times).
jget() { python3 -S -c "import json,sys; d=json.loads(sys.argv[1]); print($2)" "$1"; }

# expect WHAT GOT WANT: a pass when GOT is WANT and not empty.
expect() {
    if [ -n "$2" ] && [ "$2" = "$3" ]; then pg_pass "$1 ($2)"; else pg_fail "$1: got '$2', want '$3'"; fi
}

# live_traps [CMD]: on exit, and on INT or TERM (then with 130 or 143),
# the run is stopped as a user would (stop_pangaea), CMD runs, and lib.sh
# cleans up.
live_traps() {
    local more=${1:+$1; }
    trap "stop_pangaea; ${more}pg_cleanup" EXIT
    trap "stop_pangaea; ${more}pg_cleanup; trap - EXIT; exit 130" INT
    trap "stop_pangaea; ${more}pg_cleanup; trap - EXIT; exit 143" TERM
}

# stop_pangaea: Ctrl-C to the pangaea of PID, as a user would: a run
# still going needs a second one under -live-wait (the first ends the run,
# the second lets the page go); KILL only if it ignores both.  Sets RC.
stop_pangaea() {
    local k i
    RC=0
    [ -n "${PID:-}" ] || return 0
    for k in INT INT KILL; do
        kill -"$k" "$PID" 2>/dev/null || break
        for i in $(seq 150); do
            kill -0 "$PID" 2>/dev/null || break 2
            sleep 0.1
        done
    done
    wait "$PID" 2>/dev/null || RC=$?
    PID=
}

# live_url FILE: reads the URL pangaea printed in FILE (its stderr):
# PAGE_URL is it (it carries the run's token), URL the server's root
# without it, and $D/token.hdr a header file with the token that the curl
# below sends (curl -H @file: the token is never on a command line, where
# `ps` would show it).  1 while nothing is printed yet.
live_url() {
    PAGE_URL=$(sed -n 's/^pangaea: live view at //p' "$1" 2>/dev/null)
    [ -n "$PAGE_URL" ] || return 1
    URL=${PAGE_URL%%\?*}
    (umask 077 && printf 'X-Pangaea-Token: %s\n' "${PAGE_URL##*token=}" >"$D/token.hdr")
}
# curl, as the tests of the live page call it, sends the run's token;
# `command curl` does not.
curl() {
    if [ -s "$D/token.hdr" ]; then command curl -H "@$D/token.hdr" "$@"
    else command curl "$@"; fi
}

# start_live NAME ARGS...: pangaea ARGS in the background (never inside
# the user's tmux: /control/gdb would open windows there); PID, URL and
# PAGE_URL (live_url), its output in $D/NAME.out and .err.
start_live() {
    local name=$1 i
    shift
    rm -f "$D/token.hdr"
    env -u TMUX "$PANGAEA" "$@" >"$D/$name.out" 2>"$D/$name.err" </dev/null &
    PID=$!
    URL=
    for i in $(seq 300); do
        live_url "$D/$name.err" && return 0
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    pg_fail "$name: pangaea never said where the live view is"
    cat "$D/$name.err"
    return 1
}

# wait_for SECONDS CMD...: until CMD succeeds (bounded: a held run waits
# for the machine, not for luck); 1 if it never did.  CMD is asked after
# 0.1 s, then less and less often, every 0.5 s at most: most CMDs ask the
# page through curl and Python, which cost more CPU than the waits they
# end, and a loaded machine makes the waits long.
wait_for() {
    local until=$((SECONDS + $1)) pause=0.1
    shift
    while ! "$@"; do
        [ "$SECONDS" -ge "$until" ] && return 1
        sleep "$pause"
        case $pause in 0.1) pause=0.2 ;; 0.2) pause=0.3 ;; *) pause=0.5 ;; esac
    done
}
