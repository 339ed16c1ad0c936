#!/usr/bin/env bash
# test_mpi_live_choose.sh - choosing on the live page the message a held
# MPI_Recv takes while an MPI run is recorded (src/mpi/mpi_gate.c: each
# source's first pending message, found with MPI_Iprobe, is what the
# receive could take; src/cli/live/live_alt.c).  MPICH and Open MPI, real
# launchers, headless Chromium.  tests/programs/mpi_master.c, 4 ranks,
# `pangaea -log -live 0 -hold -live-wait LAUNCHER -n 4 PROG`:
# - the 3 workers stepped once each (their results sent), the master held
#   before its wildcard MPI_Recv: /alternatives.json lists the 3 workers'
#   results, each named as the view names messages (the sender's msgid 1);
# - an alternative other than the first clicked on the page
#   (control_page.py): the master's receive takes the chosen worker's
#   message (the view's events say so);
# - everything resumed, the run is recorded, its output names the chosen
#   rank first, and a replay (pangaea -replay) prints the recorded output.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_lib.sh"
. "$(dirname "$0")/mpi_cases.sh"
. "$(dirname "$0")/mpi_live_cases.sh"

PANGAEA=$PG_BUILD/pangaea
live_traps
command -v curl >/dev/null || { pg_skip "needs curl"; exit 0; }
command -v chromedriver >/dev/null || { pg_skip "needs chromium-driver"; exit 0; }
D=$(pg_tmpdir)

alts() { curl -sf "${URL}alternatives.json?ltid=1"; }
three_alts() { [ "$(jget "$(alts)" "sorted(a['ltid'] for r in d['races'] for a in r['alternatives'])")" = "[2, 3, 4]" ]; }
named() { [ "$(jget "$(alts)" "sorted(a['msgid'] for r in d['races'] for a in r['alternatives'])")" = "[1, 1, 1]" ]; }

choose_mpi() {
    local name=$1 launcher=$2 prog=$3 rec res sender l
    shift 3
    launcher_ok "$name" "$launcher" || return
    rec=$D/rec-$launcher
    start_live "log-$launcher" -log -live 0 -hold -live-wait -logdir "$rec" \
        "$launcher" "$@" -n 4 "$prog" || return
    if ! wait_for 60 held_n 4; then
        pg_fail "$name: the 4 ranks were never all held: $(ctl) $(cat "$D/log-$launcher.err")"
        stop_pangaea
        return
    fi
    for l in 2 3 4; do
        post step -d ltid=$l >/dev/null
        wait_for 30 held_again $l 2 || pg_fail "$name: ltid $l not held again after its step: $(ctl)"
    done
    wait_for 30 counts_are "1:0 2:1 3:1 4:1"
    wait_for 30 three_alts
    expect "$name: the master's held wildcard MPI_Recv lists the 3 workers' results" \
        "$(jget "$(alts)" "[(r['ltid'], r['call'], sorted(a['ltid'] for a in r['alternatives'])) for r in d['races']]")" \
        "[(1, 'MPI_Recv', [2, 3, 4])]"
    wait_for 30 named
    expect "$name: each named as the view names messages (the sender's msgid)" \
        "$(jget "$(alts)" "sorted(a['msgid'] for r in d['races'] for a in r['alternatives'])")" "[1, 1, 1]"
    if res=$(python3 -S "$MPI_LIVE_HERE/control_page.py" - choose <<<"$PAGE_URL"); then
        sender=$(jget "$res" 'd["picked"]["sender"]')
        wait_for 30 master_took_one
        expect "$name: page: the chosen message (ltid $sender's, not the first listed) is the one the receive took" \
            "$(master_recvs)" "[('recv', $sender)]"
    else
        pg_fail "$name: page: clicking an alternative did not work: $(ctl)"
        sender=0
    fi
    post resume -d '' >/dev/null
    if ! wait_for 120 over "log-$launcher"; then
        pg_fail "$name: the run did not end after resume: $(cat "$D/log-$launcher.err")"
        stop_pangaea
        return
    fi
    stop_pangaea
    expect "$name: recorded (pangaea's status)" "$RC" 0
    expect "$name: the recorded output names the chosen rank first" \
        "$(grep -v '^pangaea' "$D/log-$launcher.out" | head -1 | awk '{print $2}')" "$((sender - 1))"
    timeout 120 "$PANGAEA" -replay -logdir "$rec" "$launcher" "$@" -n 4 "$prog" \
        >"$D/replay-$launcher.out" 2>"$D/replay-$launcher.err"
    expect "$name: a replay prints the recorded output" \
        "$?:$(grep -v '^pangaea' "$D/replay-$launcher.out" | md5sum)" \
        "0:$(grep -v '^pangaea' "$D/log-$launcher.out" | md5sum)"
}

choose_mpi MPICH mpiexec.mpich "$PG_BUILD/tests/mpich/mpi_master"
choose_mpi "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi/mpi_master" --oversubscribe
pg_summary
