#!/usr/bin/env bash
# test_recording_id.sh - every log names the recording it belongs to, and
# a log of another recording is refused by name.
#
# Two recordings of the same program (tests/programs/plain_spread.c: ltid
# 1 and three workers, each worker reading its pid, so it has a time file)
# have logs of the same tasks under the same names.  A log copied from one
# into the other was accepted by every reader (its ltid is right); now its
# header names another recording than the directory's ltid-0.exec.xml and
#  - a communication log is refused by -replay, -dump and -races,
#  - a time file, a data file and an execution log by -replay,
# each with exit 2 and a message naming the file; a time file of another
# task of the same recording is refused too; the recordings as made are
# read by all of them.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_spread
dir=$(pg_tmpdir)
cd "$dir" || exit 1

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

for r in a b; do
    timeout 120 "$PANGAEA" -log -logdir "$r" "$PROG" >"$r.out" 2>&1 ||
        { pg_fail "recording $r failed"; cat "$r.out"; pg_summary; exit 1; }
done
ida=$(sed -n 's/.*recording="\([0-9a-f]*\)".*/\1/p' a/ltid-0.exec.xml)
idb=$(sed -n 's/.*recording="\([0-9a-f]*\)".*/\1/p' b/ltid-0.exec.xml)
if [ ${#ida} -eq 16 ] && [ ${#idb} -eq 16 ] && [ "$ida" != "$idb" ] &&
        [ "$(grep -l "recording=\"$ida\"" a/ltid-*.exec.xml | wc -l)" -eq 5 ] &&
        "$PANGAEA" -dump a 2 | grep -q "recording=\"$ida\""; then
    pg_pass "each recording has an identity of its own, in every log's header ($ida, $idb)"
else
    pg_fail "recording identities: '$ida' and '$idb'"
fi

# run NAME STATUS TEXT CMD...: CMD exits STATUS and prints TEXT (a regex).
run() {
    local name=$1 want=$2 text=$3 rc=0
    shift 3
    timeout 120 "$@" >run.out 2>&1 || rc=$?
    if [ "$rc" -eq "$want" ] && grep -q -- "$text" run.out; then
        pg_pass "$name"
    else
        pg_fail "$name: exit $rc (want $want), output:"; head -5 run.out
    fi
}

run "the recording as made replays" 0 "as recorded" \
    "$PANGAEA" -replay -logdir a "$PROG"
run "the recording as made: -races reads it (races found: exit 1)" 1 \
    "pvm_recv(-1, -1) at plain_spread.c" "$PANGAEA" -races a

other="is a log of recording $idb, but its directory holds recording $ida"
cp -r a comm && cp b/ltid-2.comm.pgc comm/
run "a comm log of another recording: -replay refuses it" 2 \
    "comm/ltid-2.comm.pgc $other" "$PANGAEA" -replay -logdir comm "$PROG"
run "a comm log of another recording: -dump refuses it" 2 \
    "comm/ltid-2.comm.pgc $other" "$PANGAEA" -dump comm 2
run "a comm log of another recording: -races refuses it" 2 \
    "comm/ltid-2.comm.pgc $other" "$PANGAEA" -races comm

cp -r a time && cp b/ltid-3.time.pgc time/
run "a time file of another recording: -replay refuses it" 2 \
    "time/ltid-3.time.pgc $other" "$PANGAEA" -replay -logdir time "$PROG"

cp -r a exec && cp b/ltid-4.exec.xml exec/
run "an execution log of another recording: -replay refuses it" 2 \
    "exec/ltid-4.exec.xml $other" "$PANGAEA" -replay -logdir exec "$PROG"

cp -r a swap && cp a/ltid-2.time.pgc swap/ltid-3.time.pgc
run "a time file of another task: -replay refuses it" 2 \
    "swap/ltid-3.time.pgc: its header says ltid 2: the time file of another task" \
    "$PANGAEA" -replay -logdir swap "$PROG"

# Data files: plain_tasks' master keeps what pvm_tasks answered in one.
TASKS=$PG_BUILD/tests/plain_tasks
for r in ta tb; do
    timeout 120 "$PANGAEA" -log -logdir "$r" "$TASKS" 2 >"$r.out" 2>&1 ||
        { pg_fail "recording $r failed"; cat "$r.out"; }
done
idta=$(sed -n 's/.*recording="\([0-9a-f]*\)".*/\1/p' ta/ltid-0.exec.xml)
idtb=$(sed -n 's/.*recording="\([0-9a-f]*\)".*/\1/p' tb/ltid-0.exec.xml)
run "a recording with a data file replays" 0 "as recorded" \
    "$PANGAEA" -replay -logdir ta "$TASKS" 2
cp -r ta data && cp tb/ltid-1.data.pgc data/
run "a data file of another recording: -replay refuses it" 2 \
    "data/ltid-1.data.pgc is a log of recording $idtb, but its directory holds recording $idta" \
    "$PANGAEA" -replay -logdir data "$TASKS" 2

cd / && pg_summary
