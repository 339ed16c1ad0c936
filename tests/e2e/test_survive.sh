#!/usr/bin/env bash
# test_survive.sh - a recording survives what happens to its directory and
# files: nothing a user had is lost, no reader hangs, nothing is left
# running.  Each part is named after what it pins:
#
# - "immutable dir": a log directory that becomes unwritable (chattr +i)
#   during a run: the run reported good leaves no incomplete mark, and the
#   next -log keeps it in previous/ rather than removing it.
# - "pack overwrite": -pack -o FILE refuses an existing FILE (unchanged)
#   unless -force; "pack part": -replay -pack leaves a DIR.part it did not
#   mark alone (refused, the user's files kept) and removes one it marked;
#   "pack limit": a pack that unpacks to more than PANGAEA_UNPACK_MAX (4
#   GiB by default: a pack whose entry claims 5 GiB) is refused before the
#   entry is written, and leaves nothing.
# - "time crc": a flipped byte in a time file is refused by the
#   pre-replay check (exit 2, the file and the chunk's offset named).
# - "disk full comm": a communication log that fills the disk ends the
#   run with "no space left on MOUNT while writing FILE" (FILE the comm
#   log, or the buffer-id file if that filled the disk first); "disk
#   peak": 8 tasks record into a 320 KiB file system (logs
#   are grown from 4 KiB, not 64 KiB each).
# - "fifo": a FIFO in place of a log is refused, named, by every reader
#   (-dump, -races, -tasks, -display, -export, -pack, the pre-replay
#   check) instead of hanging it.
# - "missing logs": a task's logs removed: -races, -tasks, -display and
#   -export say which (on stderr), -min refuses and changes nothing.
# - "sigpipe": `pangaea -none prog | head -2` with a private pvmd ends
#   the run (exit 141, as a SIGPIPE death) and leaves no pvmd, socket
#   file or task behind.
# - "swapped logs": ltid-2.comm.pgc and ltid-3.comm.pgc swapped: the
#   pre-replay check, -dump and -races refuse, naming the file and the
#   ltid its header gives.
# Parts that need root (chattr, mount) say "skipped" otherwise.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
SOR=$PG_BUILD/sor
GATE=$PG_BUILD/tests/plain_gate
IMMUTABLE=()
MOUNTS=()

undo_all() {
    local d
    for d in "${IMMUTABLE[@]}"; do chattr -i "$d" 2>/dev/null; done
    for d in "${MOUNTS[@]}"; do umount -l "$d" 2>/dev/null; done
    IMMUTABLE=() MOUNTS=()
}
trap 'undo_all; pg_cleanup' EXIT
trap 'undo_all; pg_cleanup; trap - EXIT; exit 130' INT
trap 'undo_all; pg_cleanup; trap - EXIT; exit 143' TERM

is_root() { [ "$(id -u)" -eq 0 ]; }
sums() { (cd "$1" 2>/dev/null && sha256sum ltid-* 2>/dev/null) | sort; }

# run NAME STATUS PATTERN CMD...: CMD exits STATUS and stderr matches
# (ERE); stderr stays in $RUN_ERR, stdout in $RUN_OUT.
run() {
    local name=$1 want=$2 pattern=$3 rc=0
    shift 3
    RUN_ERR=$(pg_tmpdir)/err RUN_OUT=${RUN_ERR%err}out
    timeout 120 "$@" >"$RUN_OUT" 2>"$RUN_ERR" </dev/null || rc=$?
    if [ "$rc" -eq "$want" ] && { [ -z "$pattern" ] || grep -Eq -- "$pattern" "$RUN_ERR"; }; then
        pg_pass "$name (exit $rc)"
        return 0
    fi
    pg_fail "$name: exit $rc (wanted $want, /$pattern/), stderr:"
    head -20 "$RUN_ERR"
    return 1
}

# wait_file PATH: up to 60 s for PATH to appear.
wait_file() {
    local i
    for i in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.1; done
    return 1
}

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# --- immutable dir: a recording reported good is kept --------------------

if ! is_root; then
    echo "skipped: immutable dir (needs root for chattr)"
else
    d=$(pg_tmpdir)
    logs=$d/logs
    "$PANGAEA" -log -logdir "$logs" "$GATE" "$d/gate" 3 >"$d/out" 2>"$d/err" &
    run_pid=$!
    if wait_file "$d/gate.ready" && chattr +i "$logs"; then
        IMMUTABLE+=("$logs")
        touch "$d/gate"
        rc=0; wait "$run_pid" || rc=$?
        chattr -i "$logs"; IMMUTABLE=()
        if [ "$rc" -eq 0 ] && grep -q "recorded in $logs" "$d/err"; then
            pg_pass "immutable dir: the run ended well and said so"
        else
            pg_fail "immutable dir: exit $rc:"; cat "$d/err"
        fi
        good=$(sums "$logs")
        run "immutable dir: the next -log keeps the good recording" 0 "" \
            "$PANGAEA" -log -logdir "$logs" "$SOR" 4
        if grep -q "did not end well" "$RUN_ERR"; then
            pg_fail "immutable dir: the next -log took the good recording for a failed one"
            cat "$RUN_ERR"
        elif [ -n "$good" ] && [ "$(sums "$logs/previous")" = "$good" ]; then
            pg_pass "immutable dir: previous/ holds the recording reported good"
        else
            pg_fail "immutable dir: previous/ does not hold the good recording"
            ls -la "$logs" "$logs/previous"
        fi
    else
        kill "$run_pid" 2>/dev/null; wait "$run_pid"
        pg_fail "immutable dir: the gated run did not start, or chattr failed"
        cat "$d/err"
    fi
fi

# --- pack overwrite, pack part, pack limit -------------------------------

p=$(pg_tmpdir)
timeout 60 "$PANGAEA" -log -logdir "$p/logs" "$SOR" 4 >"$p/rec.out" 2>/dev/null
run "pack overwrite: a first pack is written" 0 "packed 1 recording" \
    "$PANGAEA" -pack -logdir "$p/logs" -o "$p/run.pangaea"
before=$(sha256sum <"$p/run.pangaea")
echo precious >"$p/other"
run "pack overwrite: an existing file is refused" 2 \
    "$p/other exists: pangaea does not overwrite it \(add -force" \
    "$PANGAEA" -pack -logdir "$p/logs" -o "$p/other"
cmp -s "$p/other" <(echo precious) && pg_pass "pack overwrite: the file is untouched" ||
    pg_fail "pack overwrite: the existing file was replaced"
run "pack overwrite: -force replaces it" 0 "packed 1 recording" \
    "$PANGAEA" -pack -logdir "$p/logs" -o "$p/other" -force
! cmp -s "$p/other" <(echo precious) && [ -n "$before" ] &&
    pg_pass "pack overwrite: -force wrote the pack" || pg_fail "pack overwrite: -force wrote nothing"
if ls "$p" | grep -q '\.part'; then
    pg_fail "pack overwrite: a .part file was left:"; ls "$p"
else
    pg_pass "pack overwrite: no .part file left"
fi

mkdir "$p/mine.part"; echo precious >"$p/mine.part/notes.txt"
run "pack part: a DIR.part pangaea did not make is refused" 2 \
    "$p/mine.part exists and is not what an unpacking by pangaea left" \
    "$PANGAEA" -replay -pack "$p/run.pangaea" -logdir "$p/mine"
[ "$(cat "$p/mine.part/notes.txt" 2>/dev/null)" = precious ] && [ ! -e "$p/mine" ] &&
    pg_pass "pack part: the user's DIR.part is untouched" ||
    pg_fail "pack part: the user's DIR.part was removed or changed"
mkdir "$p/left.part"; touch "$p/left.part/.pangaea-unpacking" "$p/left.part/half"
run "pack part: what an interrupted unpacking marked is replaced" 0 "unpacked into" \
    "$PANGAEA" -replay -pack "$p/run.pangaea" -logdir "$p/left"
if cmp -s "$RUN_OUT" "$p/rec.out" && [ ! -e "$p/left.part" ] &&
   [ ! -e "$p/left/.pangaea-unpacking" ]; then
    pg_pass "pack part: the replay printed the recording's output, no mark left"
else
    pg_fail "pack part: wrong output, or DIR.part or its mark left"; ls -la "$p" "$p/left"
fi

run "pack limit: PANGAEA_UNPACK_MAX=1000 refuses the pack" 2 \
    "refused entry recordings/.*more than PANGAEA_UNPACK_MAX allows \(1000 bytes" \
    env PANGAEA_UNPACK_MAX=1000 "$PANGAEA" -replay -pack "$p/run.pangaea" -logdir "$p/small"
[ ! -e "$p/small" ] && [ ! -e "$p/small.part" ] &&
    pg_pass "pack limit: nothing left behind" || pg_fail "pack limit: files left behind"
# A pack whose entry claims 5 GiB (its data cut short: it is refused
# before a byte is read).
tar --zstd -xOf "$p/run.pangaea" MANIFEST >"$p/MANIFEST"
python3 -S - "$p/MANIFEST" "$p/bomb.pangaea" <<'PY'
import sys, tarfile, io
man = open(sys.argv[1], 'rb').read()
with open(sys.argv[2], 'wb') as out:
    t = tarfile.TarInfo('MANIFEST'); t.size = len(man)
    out.write(t.tobuf(tarfile.USTAR_FORMAT)); out.write(man)
    out.write(b'\0' * (-len(man) % 512))
    rec = man.decode().split('recording ')[1].split('\n')[0]
    t = tarfile.TarInfo('recordings/%s/ltid-1.comm.pgc' % rec); t.size = 5 << 30
    out.write(t.tobuf(tarfile.USTAR_FORMAT)); out.write(b'\0' * 65536)
PY
run "pack limit: an entry of 5 GiB is refused by default" 2 \
    "refused entry recordings/.*more than PANGAEA_UNPACK_MAX allows \(4294967296 bytes" \
    "$PANGAEA" -replay -pack "$p/bomb.pangaea" -logdir "$p/bomb"
[ ! -e "$p/bomb" ] && [ ! -e "$p/bomb.part" ] &&
    pg_pass "pack limit: the 5 GiB entry left nothing" || pg_fail "pack limit: the 5 GiB entry left files"

# --- disk full comm, disk peak ---------------------------------------------

if ! is_root; then
    echo "skipped: disk full comm, disk peak (need root to mount)"
else
    m=$(pg_tmpdir)
    mount -t tmpfs -o size=512k tmpfs "$m" && MOUNTS+=("$m")
    run "disk full comm: the cause is said" 4 \
        "no space left on $m while writing $m/logs/ltid-[12]\.(comm|bufids)\.pgc" \
        "$PANGAEA" -log -logdir "$m/logs" "$PG_BUILD/tests/plain_load" 2 200000
    q=$(pg_tmpdir)
    mount -t tmpfs -o size=320k tmpfs "$q" && MOUNTS+=("$q")
    run "disk peak: 8 tasks record into 320 KiB" 0 "recorded in" \
        "$PANGAEA" -log -logdir "$q/logs" "$PG_BUILD/tests/plain_load" 8 20
    echo "disk peak: the logs take $(du -sk "$q/logs" | cut -f1) KiB in the end"
    undo_all
fi

# --- fifo ------------------------------------------------------------------

f=$(pg_tmpdir)
timeout 60 "$PANGAEA" -log -logdir "$f/logs" "$SOR" 4 >/dev/null 2>&1
rm -f "$f/logs/ltid-2.comm.pgc" && mkfifo "$f/logs/ltid-2.comm.pgc"
fifo="$f/logs/ltid-2.comm.pgc is a FIFO, not a log file"
for cmd in "-dump $f/logs 2" "-races $f/logs" "-tasks $f/logs" "-display $f/logs" \
           "-export perfetto $f/logs" "-pack -logdir $f/logs -o $f/x.pangaea"; do
    rc=0
    timeout 30 "$PANGAEA" $cmd >"$f/out" 2>"$f/err" </dev/null || rc=$?
    if [ "$rc" -ne 124 ] && grep -qF "$f/logs/ltid-2.comm.pgc" "$f/err" &&
       grep -Eq "is a FIFO, not a log file|not a regular file" "$f/err"; then
        pg_pass "fifo: pangaea ${cmd%% *} does not hang, and names it (exit $rc)"
    else
        pg_fail "fifo: pangaea ${cmd%% *}: exit $rc (124: hung), stderr:"; head -5 "$f/err"
    fi
done
rm -f "$f/logs/ltid-3.time.pgc"
mkfifo "$f/logs/ltid-3.time.pgc"
run "fifo: the pre-replay check refuses a FIFO as a log" 2 "is a FIFO, not a log file" \
    "$PANGAEA" -replay -logdir "$f/logs" "$SOR" 4

# --- missing logs ----------------------------------------------------------

g=$(pg_tmpdir)
timeout 60 "$PANGAEA" -log -logdir "$g/logs" "$SOR" 4 >/dev/null 2>&1
rm -f "$g/logs/ltid-3.comm.pgc" "$g/logs/ltid-3.exec.xml"
missing="$g/logs/ltid-3.comm.pgc is missing (ltid 3), and 1 more log"
for cmd in "-races $g/logs" "-tasks $g/logs" "-display $g/logs" "-export perfetto $g/logs"; do
    rc=0
    timeout 30 "$PANGAEA" $cmd >"$g/out" 2>"$g/err" </dev/null || rc=$?
    if grep -qF "$missing" "$g/err"; then
        pg_pass "missing logs: pangaea ${cmd%% *} says what is missing (exit $rc)"
    else
        pg_fail "missing logs: pangaea ${cmd%% *} said nothing of ltid 3 (exit $rc):"; head -3 "$g/err"
    fi
done
before=$(sums "$g/logs")
run "missing logs: -min refuses" 2 "-min: the recording in $g/logs is not whole: .*ltid-3.comm.pgc is missing \\(ltid 3\\), and 1 more log" \
    "$PANGAEA" -min "$g/logs"
[ "$(sums "$g/logs")" = "$before" ] && pg_pass "missing logs: -min changed nothing" ||
    pg_fail "missing logs: -min changed the logs"

# --- sigpipe ----------------------------------------------------------------

own=$(pg_tmpdir)
PVM_TMP=$own timeout 60 "$PANGAEA" -none "$PG_BUILD/tests/plain_lines" 2>"$own.err" |
    head -2 >"$own.out"
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 141 ] && [ "$(wc -l <"$own.out")" -eq 2 ]; then
    pg_pass "sigpipe: pangaea ended the run when its reader went (exit 141)"
else
    pg_fail "sigpipe: exit $rc (124: still running), stderr:"; head -5 "$own.err"
fi
if pid=$(pg_pvmd_pid "$own"); then
    pg_fail "sigpipe: the private pvmd $pid was left running"; pg_pvmd_halt "$own"
elif [ -e "$own/pvmd.$(id -u)" ]; then
    pg_fail "sigpipe: the pvmd's socket file was left in $own"
else
    pg_pass "sigpipe: no pvmd and no socket file left"
fi

# --- swapped logs ----------------------------------------------------------

w=$(pg_tmpdir)
timeout 60 "$PANGAEA" -log -logdir "$w/logs" "$SOR" 4 >/dev/null 2>&1
mv "$w/logs/ltid-2.comm.pgc" "$w/c2" && mv "$w/logs/ltid-3.comm.pgc" "$w/logs/ltid-2.comm.pgc" &&
    mv "$w/c2" "$w/logs/ltid-3.comm.pgc"
swapped="ltid-2.comm.pgc: its header says ltid 3: the log of another task"
run "swapped logs: the pre-replay check refuses them" 2 "ltid-[23].comm.pgc: its header says ltid [23]: the log of another task" \
    "$PANGAEA" -replay -logdir "$w/logs" "$SOR" 4
run "swapped logs: -dump refuses" 2 "$swapped" "$PANGAEA" -dump "$w/logs" 2
run "swapped logs: -races refuses" 2 "$swapped" "$PANGAEA" -races "$w/logs"

# --- time crc --------------------------------------------------------------

t=$(pg_tmpdir)
CLOCK=$PG_BUILD/tests/plain_clock
timeout 60 "$PANGAEA" -log -logdir "$t/logs" "$CLOCK" 2 2 >/dev/null 2>&1
tf=$t/logs/ltid-1.time.pgc
if [ -s "$tf" ]; then
    size=$(stat -c %s "$tf")
    at=$((size - 2))
    byte=$(od -An -tu1 -j "$at" -N1 "$tf" | tr -d ' ')
    printf "$(printf '\\%03o' $((byte ^ 16)))" |
        dd of="$tf" bs=1 seek="$at" conv=notrunc status=none
    run "time crc: a flipped byte of a time file is refused before the replay" 2 \
        "$tf: the chunk of time values at byte 48 is damaged" \
        "$PANGAEA" -replay -logdir "$t/logs" "$CLOCK" 2 2
else
    pg_fail "time crc: the recording wrote no time file for ltid 1"
fi

undo_all
pg_summary
