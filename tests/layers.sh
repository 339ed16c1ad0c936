#!/usr/bin/env bash
# tests/layers.sh - the files of the library and of the command form layers
# without a cycle (`make check` runs it; `make layers` alone).
#
# Design.  What a file uses is read from its object, not guessed from its
# text: each undefined symbol of build/lib/X.o (build/toplevel/X.o) that
# another object of the same directory defines is an edge X -> Y (a call,
# or a use of its data).  The layers are declared below, lowest first, one
# line each; a file may use only files of lower layers, so a file used
# "upwards" fails, and so does a file that is in no layer (a new file is
# placed on purpose).  The command's files may use any of the library's.
# #includes are checked too: no header of src/lib or src/coordinator
# includes one of src/toplevel, and the headers' includes have no cycle.
# A cycle among the edges is named (tsort) whatever the declared order.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$ROOT/build}
fail=0

LIB_LAYERS='
err grow
log_table log_bin log_sink
log_xml log_binr_event log_binw
log_binr
log_read log_write log_schema
log_dump
real progsum state site_name
progmap whatif
select coord_client notice chaos live_pos datafile timelog task_env
header callsite killed reserve
stop
record replay
gate
runtime
outside
wrap_mhf
wrap_send wrap_exit wrap_notify wrap_spawn wrap_query
wrap_recv wrap_group wrap_route wrap_time wrap_tasks wrap_kill wrap_named
wrap_fds wrap_mbox wrap_hosts
'
TOP_LAYERS='
untrusted
stdin_fwd filter_assets
paths json logdir daemon lamport races_clock rerun debug runenv
hostcheck move races dump pack
runlog unpack
races_find
races_out whatif minimize
display_races
live_snap
live_json
live_ctl
live_alt live_gdb live_guard
live
display tasks perfetto perfetto_json monitor
explore_order
postmortem explore chaos_runs
main
'

# objects DIR SRC: the objects in DIR of the sources in SRC (a stale
# object of a removed source does not count).
objects() {
    local c
    for c in "$2"/*.c; do
        echo "$1/$(basename "$c" .c).o"
    done
}

# edges DIR SRC: "X Y" for every symbol X.o uses that Y.o defines (X != Y).
edges() {
    local o
    for o in $(objects "$1" "$2"); do
        nm --defined-only "$o" | awk -v f="$(basename "$o" .o)" \
            '$2 ~ /^[TDBRCVW]$/ {print "D", f, $3}'
        nm -u "$o" | awk -v f="$(basename "$o" .o)" '{print "U", f, $2}'
    done | awk '$1 == "D" {def[$3] = $2; next}
                {use[NR] = $2 " " $3}
                END {for (i in use) {split(use[i], a, " ");
                     if ((a[2] in def) && def[a[2]] != a[1])
                         print a[1], def[a[2]]}}' | sort -u
}

# check NAME DIR LAYERS: every object in a layer, every edge downwards.
check() {
    local name=$1 dir=$2 layers=$3 e cyc bad=0 o
    for o in $(objects "$dir" "$ROOT/$name"); do
        if [ ! -e "$o" ]; then
            echo "FAIL: $name: no $o (build first: make)"
            fail=1
            return
        fi
    done
    e=$(edges "$dir" "$ROOT/$name")
    cyc=$(echo "$e" | tsort 2>&1 >/dev/null | grep -v '^tsort: -:' | sed 's/^tsort: //')
    if [ -n "$cyc" ]; then
        echo "FAIL: $name: the files use each other in a cycle: $(echo $cyc)"
        bad=1
    fi
    awk -v name="$name" -v layers="$layers" -v objs="$(objects "$dir" "$ROOT/$name" | xargs -n1 basename | sed 's/\.o$//')" '
        BEGIN {
            n = split(layers, line, "\n"); k = 0
            for (i = 1; i <= n; i++) {
                if (line[i] == "") continue
                k++; m = split(line[i], f, " ")
                for (j = 1; j <= m; j++) rank[f[j]] = k
            }
            m = split(objs, o, "\n")
            for (j = 1; j <= m; j++)
                if (!(o[j] in rank)) {
                    printf "FAIL: %s: %s.c is in no layer: add it to tests/layers.sh\n", name, o[j]
                    bad = 1
                }
        }
        ($1 in rank) && ($2 in rank) && rank[$2] >= rank[$1] {
            printf "FAIL: %s: %s.c (layer %d) uses %s.c (layer %d), which is not below it\n", name, $1, rank[$1], $2, rank[$2]
            bad = 1
        }
        END { exit bad }' <<<"$e" || bad=1
    [ "$bad" -ne 0 ] && fail=1
    [ "$bad" -eq 0 ] && echo "PASS: $name: $(echo "$e" | grep -c .) uses between $(objects "$dir" "$ROOT/$name" | wc -l) files, all downwards, no cycle"
}

check "src/lib" "$B/lib" "$LIB_LAYERS"
check "src/toplevel" "$B/toplevel" "$TOP_LAYERS"

# The library and the coordinator never include the command's headers.
bad=$(grep -lE '#include "(top|runlog)\.h"' "$ROOT"/src/lib/* "$ROOT"/src/coordinator/* 2>/dev/null)
if [ -n "$bad" ]; then
    echo "FAIL: the library includes the command's headers: $bad"
    fail=1
fi
# Headers including headers: no cycle.
cyc=$(for h in "$ROOT"/src/*/*.h; do
          sed -n 's/^#include "\(.*\)"/\1/p' "$h" | sed "s|^|$(basename "$h") |"
      done | tsort 2>&1 >/dev/null | grep -v '^tsort: -:' | sed 's/^tsort: //')
if [ -n "$cyc" ]; then
    echo "FAIL: headers include each other in a cycle: $(echo $cyc)"
    fail=1
else
    echo "PASS: #includes: no library header includes the command's, no cycle"
fi
exit $fail
