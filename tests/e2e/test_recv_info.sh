#!/usr/bin/env bash
# test_recv_info.sh - a received message's info (length, context, tag,
# wait id, source) is read in place from PVM's message buffer, not asked
# of pvm_getminfo once per message (header.c, pg_hdr_rx_info): recording
# a receive and taking a message into a full replay's index cost a
# pvm_getminfo each before (~70-90 instructions a message).
#
# Measured without the clock: the receiving task of bench/stream (3
# workers stream 8-byte messages to one pvm_recv(-1, tag); it sends an
# acknowledgement every 32 messages, each send one pvm_getminfo of its
# own) runs under valgrind (callgrind) while recorded and while replayed,
# at N and 3N messages; the instructions executed inside pvm_getminfo,
# over the 2N messages between, must stay under 20 a receive (the
# acknowledgements' share is ~3).  The recordings replay as they must:
# the layout PVM's buffers were read with was checked against
# pvm_getminfo on the first messages (a difference falls back to it).
set -u
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
    pg_skip "valgrind is not installed (scripts/install-deps.sh test)"
PROG=$PG_BUILD/bench/stream
[ -x "$PROG" ] || pg_skip "$PROG is not built (make test-programs)"
N=${PG_INFO_N:-2000}

pg_pvm_start || exit 1
W=$(pg_tmpdir)
cat >"$W/under-vg" <<EOS
#!/bin/sh
[ "\$1" = -worker ] && exec "$PROG" "\$@"
exec valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$PROG" "\$@" 2>>"$W/vg.err"
EOS
chmod +x "$W/under-vg"

# getminfo MODE M: instructions the receiving task executed inside
# pvm_getminfo in a run of MODE (log: a recording into logs-M; replay:
# of that recording) with M messages; empty if the run failed.
getminfo() {
    local logs=$W/logs-$2
    [ "$1" = log ] && rm -rf "$logs" && mkdir -p "$logs"
    rm -f "$W/cg.out"
    "$PG_BUILD/pangaea" "-$1" -logdir "$logs" "$W/under-vg" 4 "$2" \
        >"$W/out" 2>&1 || { echo "-$1 of stream 4 $2: $(tail -2 "$W/out")" >&2; return; }
    callgrind_annotate --auto=no --threshold=100 --inclusive=no "$W/cg.out" |
        awk '/:pvm_getminfo / { gsub(",", "", $1); s += $1 } END { print s + 0 }'
}

for mode in log replay; do
    a=$(getminfo $mode "$N")
    b=$(getminfo $mode $((3 * N)))
    if [ -z "$a" ] || [ -z "$b" ]; then
        pg_fail "-$mode of stream 4: a run failed"
        continue
    fi
    per=$(((b - a) / (2 * N)))
    if [ "$per" -lt 20 ]; then
        pg_pass "-$mode: $per instructions in pvm_getminfo a receive (under 20)"
    else
        pg_fail "-$mode: $per instructions in pvm_getminfo a receive (20 or more: asked once a message)"
    fi
done
pg_pvm_stop
pg_summary
