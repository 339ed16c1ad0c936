#!/usr/bin/env bash
# test_recv_info.sh - what the runtime asks for each received message:
# - its info (length, context, tag, wait id, source) is read in place from
#   PVM's message buffer, not asked of pvm_getminfo once per message
#   (header.c, pg_hdr_rx_info): recording a receive and taking a message
#   into a full replay's index cost a pvm_getminfo each before (~70-90
#   instructions a message);
# - recording a blocking receive reads the clock twice (its start, and
#   its event's time, which also ends its wait), not three times.
#
# Measured without the clock: the receiving task of bench/stream (3
# workers stream 8-byte messages to one pvm_recv(-1, tag); it sends an
# acknowledgement every 32 messages, each send one pvm_getminfo and one
# clock read of its own) runs under valgrind (callgrind) while recorded
# and while replayed, at N and 3N messages; over the 2N messages between,
# the instructions executed inside pvm_getminfo must stay under 20 a
# receive (the acknowledgements' share is ~3), and a recording's calls of
# clock_gettime under 2.5 a receive (2 and the acknowledgements'; 3 and
# theirs before).  The recordings replay as they must: the layout PVM's
# buffers were read with was checked against pvm_getminfo on the first
# messages (a difference falls back to it).
set -u
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
    pg_skip "valgrind is not installed (scripts/install-deps.sh test)"
PROG=$PG_BUILD/bench/stream
[ -x "$PROG" ] || pg_skip "$PROG is not built (make test-programs)"
N=${PG_INFO_N:-2000}

pg_pvm_start || exit 1
W=$(pg_tmpdir)
pg_callgrind_first "$W" "$PROG" # the first task under callgrind

# run MODE M: a run of MODE (log: a recording into logs-M; replay: of
# that recording) with M messages, its receiving task's profile left in
# $W/cg.MODE.M; fails if the run does.
run() {
    local logs=$W/logs-$2
    [ "$1" = log ] && rm -rf "$logs" && mkdir -p "$logs"
    rm -f "$W/cg.out"
    "$PG_BUILD/pangaea" "-$1" -logdir "$logs" "$W/under-vg" 4 "$2" \
        >"$W/out" 2>&1 || { echo "-$1 of stream 4 $2: $(tail -2 "$W/out")" >&2; return 1; }
    mv "$W/cg.out" "$W/cg.$1.$2"
}

# getminfo PROFILE: instructions executed inside pvm_getminfo.
getminfo() {
    callgrind_annotate --auto=no --threshold=100 --inclusive=no "$1" |
        awk '/:pvm_getminfo / { gsub(",", "", $1); s += $1 } END { print s + 0 }'
}

# clock_reads PROFILE: calls of libc's clock_gettime (from any caller).
clock_reads() {
    callgrind_annotate --tree=caller --auto=no --threshold=100 "$1" |
        awk '/^ *[0-9,]+ .* < / { if (match($0, /\(([0-9,]+)x\)/)) {
                 c = substr($0, RSTART + 1, RLENGTH - 3); gsub(",", "", c); n += c } next }
             / \* .*:clock_gettime/ { s += n }
             { n = 0 }
             END { print s + 0 }'
}

for mode in log replay; do
    if ! run $mode "$N" || ! run $mode $((3 * N)); then
        pg_fail "-$mode of stream 4: a run failed"
        continue
    fi
    a=$(getminfo "$W/cg.$mode.$N") b=$(getminfo "$W/cg.$mode.$((3 * N))")
    per=$(((b - a) / (2 * N)))
    if [ "$per" -lt 20 ]; then
        pg_pass "-$mode: $per instructions in pvm_getminfo a receive (under 20)"
    else
        pg_fail "-$mode: $per instructions in pvm_getminfo a receive (20 or more: asked once a message)"
    fi
done
a=$(clock_reads "$W/cg.log.$N") b=$(clock_reads "$W/cg.log.$((3 * N))")
per=$(awk -v a="$a" -v b="$b" -v n=$((2 * N)) 'BEGIN { printf "%.2f", (b - a) / n }')
if awk -v p="$per" 'BEGIN { exit !(p > 0 && p < 2.5) }'; then
    pg_pass "-log: $per clock reads a receive (2 and the acknowledgements')"
else
    pg_fail "-log: $per clock reads a receive (not under 2.5: the wait read the clock on its own)"
fi
pg_pvm_stop
pg_summary
