#!/usr/bin/env bash
# test_pack.sh - a pack replays elsewhere with nothing else at hand, and a
# pack that was tampered with is refused before anything runs.
#
# Design.  Programs are copies in a temp dir, so they can be deleted after
# the recording: plain_race (spawns its workers by its own path) and
# Debian's master1/slave1 (master1 spawns "slave1" by name, found through
# PVM_PATH).  The copy of slave1 gets one byte appended (it still runs), so
# it differs from /usr/bin/slave1, which PVM_PATH also reaches: a replay
# that ran the system's slave1 instead of the packed one would diverge on
# the recorded SHA-256 (exit 3).  Each program is recorded, packed, its
# logs and program deleted, and the pack replayed in another directory
# (-cwd recorded: the tasks start in the recorded one, which is there):
# the output must be the recording's (and plain_race's unrecorded runs must
# differ, else that proves nothing).  The pack is then altered (a byte of a
# program flipped, repacked with tar) and must be refused with exit 2,
# naming the program's file, leaving no unpacked directory; a program
# changed after its recording must not be packed; a pack of programs for
# another machine is refused.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
work=$(pg_tmpdir)
mkdir -p "$work/bin" "$work/rec" "$work/elsewhere"
cp "$PG_BUILD/tests/plain_race" /usr/bin/master1 /usr/bin/slave1 "$work/bin/"
printf 'X' >>"$work/bin/slave1"
# The copies come first: the recording runs them, not /usr/bin's.
export PVM_PATH=$work/bin
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# pack_case NAME PROGRAM [FILE...]: record in rec/NAME, pack, delete the
# logs, the program and the FILEs, replay elsewhere.
pack_case() {
    local name=$1 prog=$2 rc i same=0
    shift 2
    (cd "$work/rec" && timeout 60 "$PANGAEA" -log -logdir "$name" "$prog" \
        >"$name.out" 2>"$name.err") || { pg_fail "$name: recording failed"; cat "$work/rec/$name.err"; return 1; }
    rc=0
    (cd "$work/rec" && "$PANGAEA" -pack -logdir "$name" -o "$work/$name.pangaea" \
        2>"$name.pack.err") || rc=$?
    if [ $rc -eq 0 ] && [ -s "$work/$name.pangaea" ]; then
        pg_pass "$name: packed ($(cat "$work/rec/$name.pack.err"))"
    else
        pg_fail "$name: -pack exit $rc: $(cat "$work/rec/$name.pack.err")"; return 1
    fi
    rm -rf "${work:?}/rec/$name" "$prog" "$@"
    for i in 1 2 3; do
        rc=0
        (cd "$work/elsewhere" && timeout 60 "$PANGAEA" -replay -cwd recorded -pack "../$name.pangaea" \
            >"$name.$i.out" 2>"$name.$i.err") || rc=$?
        [ $rc -eq 0 ] && cmp -s "$work/rec/$name.out" "$work/elsewhere/$name.$i.out" &&
            same=$((same + 1))
    done
    if [ "$same" -eq 3 ]; then
        pg_pass "$name: 3 replays from the pack, logs and program deleted, in another directory, print the recording's output"
    else
        pg_fail "$name: $same of 3 replays from the pack match (last exit $rc)"
        head -5 "$work/elsewhere/$name.3.err"; diff "$work/rec/$name.out" "$work/elsewhere/$name.3.out" | head -5
    fi
}

# plain_race races: its unrecorded runs must differ.
pg_repeat 6 "$work/free" "$PANGAEA" -none -logdir "$work/none" "$work/bin/plain_race"
if [ "$PG_REPEAT_BAD" -eq 0 ] && [ "$PG_REPEAT_DISTINCT" -ge 2 ]; then
    pg_pass "plain_race: unrecorded runs differ ($PG_REPEAT_DISTINCT distinct outputs of 6)"
else
    pg_fail "plain_race: unrecorded runs: $PG_REPEAT_BAD failed, $PG_REPEAT_DISTINCT distinct"
fi
sum=$(sha256sum <"$work/bin/plain_race" | cut -d' ' -f1)
pack_case race "$work/bin/plain_race"
pack_case master "$work/bin/master1" "$work/bin/slave1"

# The second and third replays used the directory the first unpacked (so
# -move on it holds); a program altered there is caught all the same.
if grep -q "already unpacked in race.unpacked" "$work/elsewhere/race.3.err"; then
    pg_pass "a replay of the same pack reuses its unpacked directory"
else
    pg_fail "the unpacked directory was not reused: $(cat "$work/elsewhere/race.3.err")"
fi
unpacked=$work/elsewhere/race.unpacked/programs/$sum/plain_race
printf 'Z' >>"$unpacked"
rc=0
(cd "$work/elsewhere" && "$PANGAEA" -replay -pack ../race.pangaea >reuse.out 2>reuse.err) || rc=$?
if [ $rc -eq 2 ] && grep -q "programs/$sum/plain_race was altered" "$work/elsewhere/reuse.err" &&
   [ ! -s "$work/elsewhere/reuse.out" ]; then
    pg_pass "a program altered in the unpacked directory: exit 2, named, nothing ran"
else
    pg_fail "altered unpacked program: exit $rc, $(cat "$work/elsewhere/reuse.err")"
fi

# --- what a pack holds -------------------------------------------------------
list=$(tar --zstd -tf "$work/race.pangaea")
manifest=$(tar --zstd -xOf "$work/race.pangaea" MANIFEST)
if [ "$(head -n 1 <<<"$list")" = MANIFEST ] &&
   [ "$(grep -c '^programs/' <<<"$list")" -eq 1 ] &&
   grep -qx "programs/$sum/plain_race" <<<"$list" &&
   grep -q '^recordings/race/ltid-4.comm.pgc$' <<<"$list" &&
   grep -q "^program $sum x86_64 .*/plain_race$" <<<"$manifest" &&
   grep -q '^pvm-version 3\.4' <<<"$manifest" &&
   grep -q '^pangaea-version ' <<<"$manifest" &&
   grep -q '^host [^ ]* x86_64$' <<<"$manifest" &&
   grep -q '^command pangaea -log .*plain_race' <<<"$manifest"; then
    pg_pass "the pack: MANIFEST first (versions, host and machine, command), the logs, plain_race once (4 tasks ran it) under its SHA-256"
else
    pg_fail "the pack's contents: $(head -c 600 <<<"$list") / $manifest"
fi
if [ "$(tar --zstd -tf "$work/master.pangaea" | grep -c '^programs/')" -eq 2 ]; then
    pg_pass "master1's pack holds master1 and slave1, each once (3 slaves ran)"
else
    pg_fail "master1's pack: $(tar --zstd -tf "$work/master.pangaea" | grep '^programs/')"
fi

# Two recordings of one program (a recording and a branch of it) share it.
cp "$PG_BUILD/tests/plain_race" "$work/bin/plain_race"
for r in one two; do
    (cd "$work/rec" && timeout 60 "$PANGAEA" -log -logdir "$r" "$work/bin/plain_race" >/dev/null 2>&1)
done
(cd "$work/rec" && "$PANGAEA" -pack -logdir one -logdir two -o "$work/two.pangaea" 2>/dev/null)
list=$(tar --zstd -tf "$work/two.pangaea" 2>/dev/null)
if [ "$(grep -c '^programs/' <<<"$list")" -eq 1 ] &&
   grep -q '^recordings/one/ltid-1.exec.xml$' <<<"$list" &&
   grep -q '^recordings/two/ltid-1.exec.xml$' <<<"$list"; then
    pg_pass "a pack of two recordings holds both and their program once"
else
    pg_fail "a pack of two recordings: $(grep -c '^programs/' <<<"$list") programs; $(grep ltid-1.exec <<<"$list")"
fi
rm -f "$work/bin/plain_race"

# --- an altered pack -----------------------------------------------------------
x=$(pg_tmpdir)
tar --zstd -C "$x" -xf "$work/race.pangaea"
target=programs/$sum/plain_race
printf '\x01' | dd of="$x/$target" bs=1 seek=2000 conv=notrunc status=none
tar --zstd -C "$x" -cf "$work/altered.pangaea" MANIFEST recordings programs
mkdir -p "$work/third"
rc=0
(cd "$work/third" && timeout 60 "$PANGAEA" -replay -pack ../altered.pangaea \
    >out 2>err) || rc=$?
if [ $rc -eq 2 ] && grep -qF "$target" "$work/third/err" && grep -q altered "$work/third/err" &&
   [ ! -s "$work/third/out" ] && [ -z "$(ls "$work/third" | grep -v '^out$\|^err$')" ]; then
    pg_pass "an altered program in the pack: exit 2 before anything ran, naming $target; nothing left unpacked"
else
    pg_fail "altered pack: exit $rc, $(cat "$work/third/err"); left: $(ls "$work/third")"
fi

# Programs for another machine: refused before unpacking.
sed -i 's/^\(program [0-9a-f]*\) x86_64 /\1 aarch64 /' "$x/MANIFEST"
tar --zstd -C "$x" -cf "$work/foreign.pangaea" MANIFEST recordings programs
rc=0
(cd "$work/third" && "$PANGAEA" -replay -pack ../foreign.pangaea >out 2>err) || rc=$?
if [ $rc -eq 2 ] && grep -q "built for aarch64" "$work/third/err"; then
    pg_pass "a pack of aarch64 programs is refused here (exit 2): $(cat "$work/third/err")"
else
    pg_fail "foreign pack: exit $rc, $(cat "$work/third/err")"
fi

# A program rebuilt after its recording cannot be packed.
cp "$PG_BUILD/tests/plain_race" "$work/bin/plain_race"
(cd "$work/rec" && timeout 60 "$PANGAEA" -log -logdir again "$work/bin/plain_race" >/dev/null 2>&1)
printf 'Y' >>"$work/bin/plain_race"
rc=0
(cd "$work/rec" && "$PANGAEA" -pack -logdir again -o "$work/again.pangaea" 2>err) || rc=$?
if [ $rc -eq 2 ] && grep -q "plain_race has changed since it was recorded" "$work/rec/err" &&
   [ ! -e "$work/again.pangaea" ] && [ ! -e "$work/again.pangaea.part" ]; then
    pg_pass "a program changed after its recording is not packed (exit 2, named; no file written)"
else
    pg_fail "pack of a changed program: exit $rc, $(cat "$work/rec/err")"
fi

pg_summary
