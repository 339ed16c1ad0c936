#!/usr/bin/env bash
# debug_lib.sh - what test_debug.sh and test_mpi_debug.sh share: waiting,
# without a fixed sleep, for what a -debug run shows in a file or on a
# tmux screen (gdb prints in parts; a loaded machine is slow).  Sourced
# after lib.sh; TM is the tmux command of the screen to read (the test's
# own server, or pangaea's: TM="tmux -S SOCKET" wait_pane ...).

# wait_for FILE SECONDS PATTERN: until FILE matches the extended PATTERN.
wait_for() {
    local i
    for i in $(seq $(($2 * 10))); do
        grep -Eq "$3" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# pane WINDOW: the screen of tmux window WINDOW, without blank lines.
pane() { $TM capture-pane -p -t "$1" 2>/dev/null | grep -v '^$'; }

# wait_pane WINDOW SECONDS PATTERN: until the screen matches.
wait_pane() {
    local i
    for i in $(seq $(($2 * 10))); do
        pane "$1" | grep -Eq -e "$3" && return 0
        sleep 0.1
    done
    return 1
}
