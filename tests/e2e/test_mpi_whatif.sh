#!/usr/bin/env bash
# test_mpi_whatif.sh - pangaea -whatif on MPI recordings (src/mpi/mpi_force.c,
# src/cli/run/mpi_whatif.c), with MPICH and Open MPI:
#  - tests/programs/mpi_orders.c (4 ranks; the master takes 3 results with
#    MPI_Recv(MPI_ANY_SOURCE)) recorded; its first receive forced to take
#    an alternative -races lists: the run ends well, the master took that
#    worker's result first (its output), the new recording's -races says
#    that receive took that message, -tasks matches every message, and 3
#    replays of the new recording print the what-if's output;
#  - a message -races does not list for that receive (the one it took) is
#    refused, exit 2, listing the alternatives; nothing is recorded;
#  - the program run another way (mpi_orders poll: an MPI_Iprobe where
#    the forced MPI_Recv was) ends the run at the forced event, named,
#    exit 4;
#  - tests/programs/mpi_master.c: an MPI_Iprobe(MPI_ANY_SOURCE) that found
#    a message forced to find another finds it (the probe order printed
#    begins with that worker), and the new recording replays; forcing
#    MPI_Testany's tests that found none done is refused before anything
#    runs (exit 2), named;
#  - mpi_orders sendrecv (both MPIs), the workers' stops between the
#    halves of their MPI_Sendrecv: the what-if ends well, its recording
#    matches every message and replays;
#  - a PVM recording (tests/programs/plain_orders.c) forked with an MPI
#    launcher is refused (exit 2), named, nothing run;
#  - mpi_orders poll (both MPIs): MPI_Iprobe polls that found nothing,
#    forced to find ltid 4's result: the first poll finds it ("after 0
#    polls"), and the new recording replays.
. "$(dirname "$0")/lib.sh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
P=$PG_BUILD/pangaea

# first_race LOGDIR: "SEQ TOOK_LTID ALT_LTID ALT_MSGID" of ltid 1's first race.
first_race() {
    "$P" -races -json "$1" | python3 -S -c '
import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"] if x["ltid"] == 1 and x["call"] == "MPI_Recv"][0]
a = r["alternatives"][0]
print(r["seq"], r["took"]["ltid"], a["ltid"], a["msgid"])'
}

# took LOGDIR SEQ: the ltid ltid 1's event SEQ took, per -races -json.
took() {
    "$P" -races -json "$1" | python3 -S -c '
import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"] if x["ltid"] == 1 and x["seq"] == int(sys.argv[1])]
print(r[0]["took"]["ltid"] if r else "none")' "$2"
}

# whatif_case NAME LAUNCHER PROGDIR [LAUNCHER OPTIONS...]
whatif_case() {
    local name=$1 launcher=$2 progdir=$3 dir rc seq tl al am out i bad
    shift 3
    dir=$(pg_tmpdir)
    timeout 120 "$P" -log -logdir "$dir/rec" "$launcher" "$@" -n 4 \
        "$progdir/mpi_orders" >"$dir/rec.out" 2>"$dir/rec.err" ||
        { pg_fail "$name: recording mpi_orders"; cat "$dir/rec.err"; return; }
    read -r seq tl al am <<<"$(first_race "$dir/rec")"
    rc=0
    timeout 120 "$P" -whatif "1:$seq=$al:$am" -logdir "$dir/rec" -o "$dir/new" \
        "$launcher" "$@" -n 4 "$progdir/mpi_orders" >"$dir/new.out" 2>"$dir/new.err" || rc=$?
    out=$(cat "$dir/new.out")
    if [ "$rc" -eq 0 ] && [ "$(awk '{print $2}' "$dir/new.out")" = "$((al - 1))" ] &&
        grep -q "what-if: ltid 1 event $seq takes $al:$am instead" "$dir/new.err" &&
        [ "$(took "$dir/new" "$seq")" = "$al" ]; then
        pg_pass "$name: -whatif 1:$seq=$al:$am (recorded: ltid $tl's) takes ltid $al's result first ($out)"
    else
        pg_fail "$name: -whatif 1:$seq=$al:$am: exit $rc, output \"$out\", the new recording's receive took $(took "$dir/new" "$seq")"
        cat "$dir/new.err"
    fi
    if "$P" -tasks "$dir/new" | grep -q "^4 tasks, 3 sends, 3 receives, 3 messages matched, 0 send destinations and 0 receives unmatched"; then
        pg_pass "$name: -tasks matches every message of the what-if's recording"
    else
        pg_fail "$name: -tasks on the what-if's recording"
        "$P" -tasks "$dir/new" | tail -1
    fi
    bad=0
    for i in 1 2 3; do
        timeout 120 "$P" -replay -logdir "$dir/new" "$launcher" "$@" -n 4 \
            "$progdir/mpi_orders" >"$dir/r$i.out" 2>"$dir/r$i.err" &&
            cmp -s "$dir/r$i.out" "$dir/new.out" || bad=$((bad + 1))
    done
    if [ "$bad" -eq 0 ]; then
        pg_pass "$name: 3 replays of the what-if's recording print its output ($out)"
    else
        pg_fail "$name: $bad of 3 replays of the what-if's recording differ"
        cat "$dir/r1.out" "$dir/r1.err"
    fi
    rc=0
    timeout 120 "$P" -whatif "1:$seq=$tl:1" -logdir "$dir/rec" -o "$dir/no" \
        "$launcher" "$@" -n 4 "$progdir/mpi_orders" >"$dir/no.out" 2>"$dir/no.err" || rc=$?
    if [ "$rc" -eq 2 ] && grep -q "cannot take $tl:1, which is not one of its alternatives" "$dir/no.err" &&
        [ ! -e "$dir/no" ]; then
        pg_pass "$name: the message the receive took is refused (exit 2), nothing recorded"
    else
        pg_fail "$name: -whatif of the message taken: exit $rc"
        cat "$dir/no.err"
    fi
    # another program at the forced event (mpi_orders poll probes first)
    rc=0
    timeout 120 "$P" -whatif "1:$seq=$al:$am" -logdir "$dir/rec" -o "$dir/other" \
        "$launcher" "$@" -n 4 "$progdir/mpi_orders" poll >"$dir/other.out" 2>"$dir/other.err" || rc=$?
    if [ "$rc" -eq 4 ] && grep -q "ltid 1 (rank 0): what-if: event $seq, the receive forced, was MPI_Recv when recorded; the program called MPI_Iprobe there" "$dir/other.err"; then
        pg_pass "$name: a program that makes another call at the forced event ends the run, named (exit 4)"
    else
        pg_fail "$name: another call at the forced event: exit $rc"
        cat "$dir/other.err"
    fi
}

pg_need_mpich
whatif_case MPICH mpiexec.mpich "$PG_BUILD/tests/mpich"
if command -v mpiexec.openmpi >/dev/null; then
    whatif_case "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi" --oversubscribe
else
    pg_fail "Open MPI is not installed (scripts/install-deps.sh test installs it)"
fi

# Probes and polls.  mpi_master: an MPI_Iprobe that found a message, and
# MPI_Testany's tests that found none done (logged as MPI_Irecv polls; a
# few thousand in every run so far: recorded again if a run had none).
dir=$(pg_tmpdir)
for _ in 1 2 3; do
    rm -rf "$dir/rec"
    timeout 120 "$P" -log -logdir "$dir/rec" mpiexec.mpich -n 4 \
        "$PG_BUILD/tests/mpich/mpi_master" >"$dir/rec.out" 2>"$dir/rec.err" ||
        pg_fail "MPICH: recording mpi_master"
    # "SEQ LTID MSGID" of the first MPI_Iprobe race that took a message,
    # then of the first race of MPI_Testany's tests that found none done
    "$P" -races -json "$dir/rec" | python3 -S -c '
import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"] if x["alternatives"]]
for x in ([y for y in r if y["took"] and y["call"] == "MPI_Iprobe"][:1] +
          [y for y in r if not y["took"] and y["call"] == "MPI_Irecv"][:1]):
    print(x["seq"], x["alternatives"][0]["ltid"], x["alternatives"][0]["msgid"])' >"$dir/probes"
    [ "$(wc -l <"$dir/probes")" -eq 2 ] && break
done
read -r seq al am <<<"$(sed -n 1p "$dir/probes")"
rc=0
timeout 120 "$P" -whatif "1:$seq=$al:$am" -logdir "$dir/rec" -o "$dir/p1" \
    mpiexec.mpich -n 4 "$PG_BUILD/tests/mpich/mpi_master" >"$dir/p1.out" 2>"$dir/p1.err" || rc=$?
first=$(sed -n 's/^probe: \([0-9]\).*/\1/p' "$dir/p1.out")
# The probe's event number may move: polls that found nothing before it
# when recorded (a <poll> numbered before it) are not made by the forced
# probe, which waits for its message at its first poll.
probe_took=$("$P" -races -json "$dir/p1" | python3 -S -c '
import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"]
     if x["ltid"] == 1 and x["call"] == "MPI_Iprobe" and x["took"]]
print(r[0]["took"]["ltid"] if r else "none")')
if [ "$rc" -eq 0 ] && [ "$first" = "$((al - 1))" ] && [ "$probe_took" = "$al" ] &&
    timeout 120 "$P" -replay -logdir "$dir/p1" mpiexec.mpich -n 4 \
        "$PG_BUILD/tests/mpich/mpi_master" >"$dir/p1r.out" 2>"$dir/p1r.err" &&
    cmp -s "$dir/p1.out" "$dir/p1r.out"; then
    pg_pass "MPICH: -whatif 1:$seq=$al:$am makes an MPI_Iprobe find ltid $al's result first; its recording replays"
else
    pg_fail "MPICH: -whatif 1:$seq=$al:$am (MPI_Iprobe): exit $rc, probe order begins with ${first:-?}, the new recording's first probe took ltid $probe_took"
    cat "$dir/p1.err" "$dir/p1r.err" 2>/dev/null | head -20
fi
read -r seq al am <<<"$(sed -n 2p "$dir/probes")"
rc=0
timeout 120 "$P" -whatif "1:$seq=$al:$am" -logdir "$dir/rec" -o "$dir/p2" \
    mpiexec.mpich -n 4 "$PG_BUILD/tests/mpich/mpi_master" >"$dir/p2.out" 2>"$dir/p2.err" || rc=$?
if [ "$rc" -eq 2 ] &&
    grep -q "pangaea: -whatif 1:$seq: in an MPI run Pangaea forces a receive that took a message, or MPI_Iprobe polls that found nothing, not polls that found nothing (MPI_Irecv)" "$dir/p2.err" &&
    [ ! -s "$dir/p2.out" ] && [ ! -e "$dir/p2/ltid-1.comm.pgc" ] &&
    ! grep -q "instead" "$dir/p2.err"; then
    pg_pass "MPICH: -whatif 1:$seq=$al:$am (MPI_Testany's tests that found none done) is refused, named, before it runs (exit 2), without saying what it would have forced"
else
    pg_fail "MPICH: -whatif 1:$seq=$al:$am (MPI_Testany's tests): exit $rc"
    cat "$dir/p2.err"
fi

# poll_and_sendrecv NAME LAUNCHER PROGDIR [LAUNCHER OPTIONS...]
poll_and_sendrecv() {
    local name=$1 launcher=$2 progdir=$3 dir rc seq tl al am
    shift 3
    # mpi_orders poll: the master's MPI_Iprobe polls that found nothing,
    # forced to find ltid 4's result at the first of them
    dir=$(pg_tmpdir)
    timeout 120 "$P" -log -logdir "$dir/rec" "$launcher" "$@" -n 4 \
        "$progdir/mpi_orders" poll >"$dir/rec.out" 2>"$dir/rec.err" ||
        pg_fail "$name: recording mpi_orders poll"
    seq=$("$P" -races -json "$dir/rec" | python3 -S -c '
import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"] if not x["took"] and x["call"] == "MPI_Iprobe"]
print(r[0]["seq"] if r else 0)')
    rc=0
    timeout 120 "$P" -whatif "1:$seq=4:1" -logdir "$dir/rec" -o "$dir/new" "$launcher" "$@" -n 4 \
        "$progdir/mpi_orders" poll >"$dir/new.out" 2>"$dir/new.err" || rc=$?
    if [ "$rc" -eq 0 ] && grep -qx "poll: 3 after 0 polls that found nothing" "$dir/new.out" &&
        grep -q "ltid 1 event $seq (polls that found nothing) takes 4:1 instead" "$dir/new.err" &&
        timeout 120 "$P" -replay -logdir "$dir/new" "$launcher" "$@" -n 4 \
            "$progdir/mpi_orders" poll >"$dir/r.out" 2>"$dir/r.err" &&
        cmp -s "$dir/r.out" "$dir/new.out"; then
        pg_pass "$name: -whatif 1:$seq=4:1: the first of the MPI_Iprobe polls that found nothing finds ltid 4's result; its recording replays"
    else
        pg_fail "$name: -whatif 1:$seq=4:1 on polls that found nothing: exit $rc"
        cat "$dir/new.out" "$dir/new.err"
    fi
    # mpi_orders sendrecv: the workers' stops fall between the two halves
    # of their MPI_Sendrecv (the master's answer follows the forced
    # receive): each worker is free from its next call
    dir=$(pg_tmpdir)
    timeout 120 "$P" -log -logdir "$dir/rec" "$launcher" "$@" -n 4 \
        "$progdir/mpi_orders" sendrecv >"$dir/rec.out" 2>"$dir/rec.err" ||
        pg_fail "$name: recording mpi_orders sendrecv"
    read -r seq tl al am <<<"$(first_race "$dir/rec")"
    rc=0
    timeout 120 "$P" -whatif "1:$seq=$al:$am" -logdir "$dir/rec" -o "$dir/new" "$launcher" "$@" -n 4 \
        "$progdir/mpi_orders" sendrecv >"$dir/new.out" 2>"$dir/new.err" || rc=$?
    if [ "$rc" -eq 0 ] && [ "$(awk '{print $2}' "$dir/new.out")" = "$((al - 1))" ] &&
        "$P" -tasks "$dir/new" | grep -q "^4 tasks, 6 sends, 6 receives, 6 messages matched" &&
        timeout 120 "$P" -replay -logdir "$dir/new" "$launcher" "$@" -n 4 \
            "$progdir/mpi_orders" sendrecv >"$dir/r.out" 2>"$dir/r.err" &&
        cmp -s "$dir/r.out" "$dir/new.out"; then
        pg_pass "$name: -whatif 1:$seq=$al:$am with the workers' stops inside MPI_Sendrecv: ends well, replays"
    else
        pg_fail "$name: -whatif 1:$seq=$al:$am (sendrecv): exit $rc"
        cat "$dir/new.out" "$dir/new.err"
    fi
}
poll_and_sendrecv MPICH mpiexec.mpich "$PG_BUILD/tests/mpich"
command -v mpiexec.openmpi >/dev/null &&
    poll_and_sendrecv "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi" --oversubscribe

# A PVM recording forked with an MPI launcher: refused, nothing run.
dir=$(pg_tmpdir)
if pg_pvm_start; then
    timeout 120 "$P" -log -logdir "$dir/pvm" "$PG_BUILD/tests/plain_orders" 1 \
        >"$dir/pvm.out" 2>"$dir/pvm.err" || pg_fail "recording plain_orders (PVM)"
    spec=$("$P" -races -json "$dir/pvm" | python3 -S -c '
import json, sys, races_json
x = races_json.load(sys.stdin)["races"][0]
a = x["alternatives"][0]
print("%d:%d=%d:%d" % (x["ltid"], x["seq"], a["ltid"], a["msgid"]))')
    pg_pvm_stop
    rc=0
    timeout 120 "$P" -whatif "$spec" -logdir "$dir/pvm" -o "$dir/new" mpiexec.mpich -n 4 \
        "$PG_BUILD/tests/mpich/mpi_orders" >"$dir/new.out" 2>"$dir/new.err" || rc=$?
    if [ "$rc" -eq 2 ] && grep -q "the recording in .*pvm is a PVM run's: fork it without the MPI launcher" "$dir/new.err" &&
        [ ! -s "$dir/new.out" ] && [ ! -e "$dir/new/ltid-1.comm.pgc" ]; then
        pg_pass "-whatif $spec of a PVM recording with an MPI launcher is refused, named (exit 2)"
    else
        pg_fail "-whatif of a PVM recording with an MPI launcher: exit $rc"
        cat "$dir/new.err"
    fi
else
    pg_fail "cannot start a private pvmd"
fi

# A forced receive the program never reaches (mpi_orders once: the
# master takes one result when its file exists): named, exit 3, never
# "ended well".
dir=$(pg_tmpdir)
timeout 120 "$P" -log -logdir "$dir/rec" mpiexec.mpich -n 4 \
    "$PG_BUILD/tests/mpich/mpi_orders" once "$dir/seen" >"$dir/rec.out" 2>"$dir/rec.err" ||
    pg_fail "MPICH: recording mpi_orders once"
seq=$("$P" -races -json "$dir/rec" | python3 -S -c '
import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"] if x["took"] and x["alternatives"]]
print(r[-1]["seq"], "%d:%d" % (r[-1]["alternatives"][0]["ltid"], r[-1]["alternatives"][0]["msgid"]))')
read -r seq alt <<<"$seq"
rc=0
timeout 120 "$P" -whatif "1:$seq=$alt" -logdir "$dir/rec" -o "$dir/new" mpiexec.mpich -n 4 \
    "$PG_BUILD/tests/mpich/mpi_orders" once "$dir/seen" >"$dir/new.out" 2>"$dir/new.err" || rc=$?
if [ "$rc" -eq 3 ] &&
    grep -q "ltid 1 (rank 0): what-if: the program ended before its forced receive, event $seq (MPI_Recv at mpi_orders.c:[0-9]*), which was never reached" "$dir/new.err" &&
    ! grep -q "ended well" "$dir/new.err"; then
    pg_pass "MPICH: a forced receive the program never reaches (1:$seq=$alt) is named, exit 3"
else
    pg_fail "MPICH: an unreached forced receive: exit $rc"
    cat "$dir/new.err"
fi

pg_summary
