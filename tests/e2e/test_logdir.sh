#!/usr/bin/env bash
# test_logdir.sh - the log directory: one run at a time, the last good
# recording never lost, links never followed, full and read-only disks,
# arguments of any bytes, and nothing left running when pangaea fails.
#
# - a second run into a locked directory is refused (exit 2, the holder
#   named) and touches nothing; so are -replay and -move meanwhile;
# - a full disk (a small tmpfs this test mounts) ends the run with exit 4
#   and "no space left on MOUNT while writing FILE", the events written
#   until then readable; a retry keeps the last good recording in previous/;
# - LOGDIR/previous as a link is refused; a link inside previous/ is
#   removed, not what it points to;
# - a read-only log directory: exit 2 naming it with the errno text, no
#   pvmd left; an argument $'\001' is recorded and replayed as those bytes;
# - usage: conflicting modes refused, one usage text, a directory as the
#   program refused before anything moves.
# Parts that mount file systems need root: they say "skipped" otherwise.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
SOR=$PG_BUILD/sor
LOAD=$PG_BUILD/tests/plain_load
ARGS=$PG_BUILD/tests/plain_args
MOUNTS=()

umount_all() {
    local m
    for m in "${MOUNTS[@]}"; do umount -l "$m" 2>/dev/null; done
    MOUNTS=()
}
trap 'umount_all; pg_cleanup' EXIT
trap 'umount_all; pg_cleanup; trap - EXIT; exit 130' INT
trap 'umount_all; pg_cleanup; trap - EXIT; exit 143' TERM

# A checksum of the recording files of a directory (names and contents).
sums() { (cd "$1" 2>/dev/null && sha256sum ltid-*.xml 2>/dev/null) | sort; }

# run NAME STATUS PATTERN CMD...: CMD exits STATUS and stderr matches;
# stderr stays in $RUN_ERR.
run() {
    local name=$1 want=$2 pattern=$3 rc=0
    shift 3
    RUN_ERR=$(pg_tmpdir)/err
    timeout 120 "$@" >"${RUN_ERR%err}out" 2>"$RUN_ERR" || rc=$?
    if [ "$rc" -eq "$want" ] && { [ -z "$pattern" ] || grep -Eq -- "$pattern" "$RUN_ERR"; }; then
        pg_pass "$name (exit $rc)"
        return 0
    fi
    pg_fail "$name: exit $rc (wanted $want, /$pattern/), stderr:"
    head -20 "$RUN_ERR"
    return 1
}

# no_pvmd NAME TMP: no pvmd serves TMP (found by PID), no socket file.
no_pvmd() {
    local pid
    if pid=$(pg_pvmd_pid "$2"); then
        pg_fail "$1: pvmd $pid left running"; pg_pvmd_halt "$2"
    elif [ -e "$2/pvmd.$(id -u)" ]; then
        pg_fail "$1: pvmd socket file left in $2"
    else
        pg_pass "$1: no pvmd left"
    fi
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# --- usage: checked before anything moves ----------------------------------

dir=$(pg_tmpdir)
run "-log -replay is refused" 2 "conflicting modes -log and -replay" \
    "$PANGAEA" -log -replay -logdir "$dir/l" "$SOR" 4
"$PANGAEA" --help >"$dir/help" 2>&1
"$PANGAEA" -bogus >/dev/null 2>"$dir/usage"
# --help goes on with what each mode and option does: its usage lines
# (up to the first blank line) are what a usage error prints.
if [ -s "$dir/help" ] &&
   diff <(sed -n '/^usage:/,$p' "$dir/usage") <(sed '/^$/,$d' "$dir/help") >/dev/null; then
    pg_pass "--help prints the usage text errors print"
else
    pg_fail "--help and the usage error differ:"; diff "$dir/help" "$dir/usage"
fi
touch "$dir/afile"
run "a log directory that cannot be made says why" 2 \
    "cannot use the log directory $dir/afile/sub: Not a directory" \
    "$PANGAEA" -log -logdir "$dir/afile/sub" "$SOR" 4

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

logs=$dir/logs
timeout 60 "$PANGAEA" -log -logdir "$logs" "$SOR" 4 >/dev/null 2>&1
timeout 60 "$PANGAEA" -log -logdir "$logs" "$SOR" 4 >/dev/null 2>&1
before=$(sums "$logs"); prev_before=$(sums "$logs/previous")
run "a directory as the program is refused" 2 "cannot run the program .*: it is a directory" \
    "$PANGAEA" -log -logdir "$logs" "$dir"
if [ -n "$before" ] && [ "$(sums "$logs")" = "$before" ] &&
   [ "$(sums "$logs/previous")" = "$prev_before" ]; then
    pg_pass "a directory as the program moved nothing"
else
    pg_fail "a directory as the program moved the recordings"
fi

# --- the lock ------------------------------------------------------------

lockdir=$dir/lock
timeout 60 "$PANGAEA" -log -logdir "$lockdir" "$SOR" 4 >/dev/null 2>&1
[ ! -e "$lockdir/.pangaea-incomplete" ] || pg_fail "SOR's whole recording left its incomplete mark"
"$PANGAEA" -log -logdir "$lockdir" "$LOAD" 4 60000 >"$dir/long.out" 2>"$dir/long.err" &
long=$!
# The long run holds the lock, moves SOR's recording to previous/, then
# marks the directory incomplete (an empty .pangaea-incomplete) for its
# own: previous/ is whole once the mark is there (on a loaded machine
# the move can outlast the lock's first tenths of a second).
for _ in $(seq 300); do
    grep -q "pid $long " "$lockdir/.pangaea.lock" 2>/dev/null &&
        [ -e "$lockdir/.pangaea-incomplete" ] && [ ! -s "$lockdir/.pangaea-incomplete" ] && break
    sleep 0.1
done
prev_sor=$(sums "$lockdir/previous")
sleep 1 # the run's tasks have made their logs, most of them
# The long run may still add logs of its own (a task's first receive or
# clock reading makes its .bufids/.time log; on a loaded machine after
# this), so what the refused runs must not have done is checked: no file
# of the run gone (a rotation), previous/ unchanged.
files=$(cd "$lockdir" && ls -A)
run "a second -log into a locked directory is refused" 2 \
    "log directory $lockdir is in use by another pangaea \(pid $long on host [^ ]+: .*plain_load 4 60000" \
    "$PANGAEA" -log -logdir "$lockdir" "$SOR" 4
run "a -replay of a locked directory is refused" 2 "in use by another pangaea \(pid $long " \
    "$PANGAEA" -replay -logdir "$lockdir" "$LOAD" 4 60000
run "-move in a locked directory is refused" 2 "in use by another pangaea \(pid $long " \
    "$PANGAEA" -move 2 otherhost -logdir "$lockdir"
if kill -0 "$long" 2>/dev/null && [ -n "$files" ] &&
   [ -z "$(comm -23 <(echo "$files") <(cd "$lockdir" && ls -A))" ] &&
   [ -n "$prev_sor" ] && [ "$(sums "$lockdir/previous")" = "$prev_sor" ]; then
    pg_pass "the refused runs touched nothing (no rotation)"
else
    pg_fail "the refused runs changed the directory"; ls -la "$lockdir" "$lockdir/previous"
fi
rc=0; wait "$long" || rc=$?
if [ "$rc" -eq 0 ] && "$PANGAEA" -tasks "$lockdir" | grep -q '^4 .*status 0 *60001' &&
   [ "$(sums "$lockdir/previous")" = "$prev_sor" ]; then
    pg_pass "the first run's recording and previous/ are intact"
else
    pg_fail "first run: exit $rc, or its recording or previous/ damaged"
    tail -5 "$dir/long.err"; "$PANGAEA" -tasks "$lockdir"
fi

# --- previous/ as a link ---------------------------------------------------

canary=$(pg_tmpdir)
echo canary >"$canary/ltid-1.comm.xml"
rm -rf "$logs/previous" && ln -s "$canary" "$logs/previous"
before=$(sums "$logs")
run "previous/ as a symbolic link is refused" 2 "$logs/previous is a symbolic link" \
    "$PANGAEA" -log -logdir "$logs" "$SOR" 4
if [ "$(cat "$canary/ltid-1.comm.xml" 2>/dev/null)" = canary ] &&
   [ "$(sums "$logs")" = "$before" ]; then
    pg_pass "the link's target and the recording are untouched"
else
    pg_fail "a link as previous/ made pangaea touch files"; ls -la "$canary" "$logs"
fi
rm "$logs/previous" && mkdir "$logs/previous"
ln -s "$canary/ltid-1.comm.xml" "$logs/previous/ltid-9.comm.xml"
if timeout 60 "$PANGAEA" -log -logdir "$logs" "$SOR" 4 >/dev/null 2>&1 &&
   [ "$(cat "$canary/ltid-1.comm.xml" 2>/dev/null)" = canary ] &&
   [ ! -L "$logs/previous/ltid-9.comm.xml" ]; then
    pg_pass "a link inside previous/ is removed, not what it points to"
else
    pg_fail "a link inside previous/: run failed or its target touched"
fi

# --- arguments are data ----------------------------------------------------

a=$(pg_tmpdir)
if run "an argument \$'\\001' is recorded" 0 "recorded in" \
       "$PANGAEA" -log -logdir "$a/logs" "$ARGS" $'\001' $'\xff\xfe' 'a b' $'x\ry'; then
    cp "${RUN_ERR%err}out" "$a/rec.out"
    if grep -q 'parent 4: 01 | ff fe | 61 20 62 | 78 0d 79 |' "$a/rec.out" &&
       grep -q 'child  4: 01 | ff fe | 61 20 62 | 78 0d 79 |' "$a/rec.out" &&
       grep -q '<arg enc="hex">01</arg>' "$a/logs/ltid-1.exec.xml"; then
        pg_pass "the program got those bytes, and the log keeps them in hex"
    else
        pg_fail "wrong bytes or log:"; cat "$a/rec.out"; cat "$a/logs/ltid-1.exec.xml"
    fi
    run "a replay with those arguments" 0 "" \
        "$PANGAEA" -replay -logdir "$a/logs" "$ARGS" $'\001' $'\xff\xfe' 'a b' $'x\ry' &&
    if cmp -s "$a/rec.out" "${RUN_ERR%err}out"; then
        pg_pass "the replay gave the program the same bytes"
    else
        pg_fail "the replay printed otherwise:"; cat "${RUN_ERR%err}out"
    fi
fi
# pangaea's own failure halts its private pvmd (here: it has none to fail).
own=$(pg_tmpdir)
PVM_TMP=$own run "an argument \$'\\001' with a private pvmd" 0 "recorded in" \
    "$PANGAEA" -log -logdir "$a/own" "$ARGS" $'\001'
no_pvmd "argument \$'\\001'" "$own"

# A task started from a script in another directory still writes into
# -logdir (it is handed over absolute), never into a relative logs/.
s=$(pg_tmpdir)
printf '#!/bin/bash\ncd "%s"\nexec "%s" "$@"\n' "$s" "$ARGS" >"$s/wrap.sh"
chmod +x "$s/wrap.sh"
mkdir -p "$s/cwd"
if (cd "$s/cwd" && timeout 60 "$PANGAEA" -log -logdir rel "$s/wrap.sh" x >/dev/null 2>&1) &&
   [ -e "$s/cwd/rel/ltid-2.comm.pgc" ] && [ ! -e "$s/rel" ] && [ ! -e "$s/logs" ]; then
    pg_pass "a script task in another directory writes its logs into -logdir"
else
    pg_fail "a script task's logs are not in -logdir"; ls -R "$s"
fi

# --- file systems: read-only, full (root) -----------------------------------

if ! is_root; then
    echo "skipped: read-only and full file systems (need root to mount)"
else
    ro=$(pg_tmpdir)
    mount -t tmpfs -o size=1m tmpfs "$ro" && MOUNTS+=("$ro")
    mkdir "$ro/logs" && mount -o remount,ro "$ro"
    own=$(pg_tmpdir)
    PVM_TMP=$own run "a read-only log directory" 2 \
        "cannot use the log directory $ro/logs: .*Read-only file system" \
        "$PANGAEA" -log -logdir "$ro/logs" "$SOR" 4
    no_pvmd "read-only log directory" "$own"

    m=$(pg_tmpdir)
    mount -t tmpfs -o size=4m tmpfs "$m" && MOUNTS+=("$m")
    timeout 60 "$PANGAEA" -log -logdir "$m/logs" "$SOR" 4 >/dev/null 2>&1
    timeout 60 "$PANGAEA" -log -logdir "$m/logs" "$SOR" 4 >/dev/null 2>&1
    good=$(sums "$m/logs")
    # Leave about 256 KiB: far less than the ~1 MB of logs plain_load 4
    # 20000 writes, whatever the format's size per event.
    avail=$(df --output=avail -k "$m" | tail -n 1 | tr -d ' ')
    [ "$avail" -gt 256 ] &&
        dd if=/dev/zero of="$m/fill" bs=1k count=$((avail - 256)) status=none 2>/dev/null
    run "a full disk ends the run with exit 4" 4 \
        "no space left on $m while writing $m/logs/ltid-[0-9]+\.(comm\.pgc|exec\.xml|bufids\.pgc)" \
        "$PANGAEA" -log -logdir "$m/logs" "$LOAD" 4 20000
    if grep -q SIGBUS "$RUN_ERR" "${RUN_ERR%err}out"; then
        pg_fail "a full disk still kills tasks with SIGBUS"
    else
        pg_pass "no task died of SIGBUS"
    fi
    if "$PANGAEA" -tasks "$m/logs" >"$m/../tasks.out" 2>&1 &&
       grep -Eq '^1 +0 .* [1-9][0-9]* +[0-9]+ +.*plain_load' "$m/../tasks.out"; then
        pg_pass "the events written until the disk was full are readable"
    else
        pg_fail "the logs of the full disk run cannot be read"; cat "$m/../tasks.out"
    fi
    [ "$(sums "$m/logs/previous")" = "$good" ] &&
        pg_pass "the good recording went to previous/ before the failed one" ||
        pg_fail "previous/ does not hold the last good recording"
    rm -f "$m/fill"
    run "a retry drops the failed recording, not the good one" 0 \
        "removed the logs of the last recording .* did not end well" \
        "$PANGAEA" -log -logdir "$m/logs" "$SOR" 4
    if [ -n "$good" ] && [ "$(sums "$m/logs/previous")" = "$good" ]; then
        pg_pass "previous/ still holds the last good recording after the retry"
    else
        pg_fail "the retry moved the failed recording into previous/"
    fi

    # A disk full before the run: pangaea's own log fails; it stops what
    # it started, its private pvmd included.
    f=$(pg_tmpdir)
    mount -t tmpfs -o size=1m tmpfs "$f" && MOUNTS+=("$f")
    mkdir "$f/logs"
    dd if=/dev/zero of="$f/fill" bs=4k >/dev/null 2>&1
    own=$(pg_tmpdir)
    PVM_TMP=$own run "a disk full from the start: exit 4" 4 \
        "no space left on $f while writing $f/logs/ltid-0" \
        "$PANGAEA" -log -logdir "$f/logs" "$SOR" 4
    no_pvmd "disk full from the start" "$own"
    umount_all
fi

pg_summary
