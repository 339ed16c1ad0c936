#!/usr/bin/env bash
# tests/layers.sh - the folders and files of the library and of the command
# form layers without a cycle (`make check` runs it; `make layers` alone).
#
# Design.  What a file uses is read from its object, not guessed from its
# text: each undefined symbol of build/src/DIR/X.o that another object of
# the same part (the library: src/base, src/log, src/pvm/runtime,
# src/pvm/wrap; the command: src/cli/*) defines is an edge X -> Y (a call,
# or a use of its data).  Two orders are declared below, lowest first:
# the folders of each part (a file may use files of its own folder or of
# lower folders) and, one line each, the layers of files (a file may use
# only files of lower layers).  A file used "upwards" fails, and so does a
# file or folder that is in no layer (a new one is placed on purpose).  The
# command's files may use any of the library's.  #includes are checked
# too: the library and the coordinator include no header of src/cli; the
# base, the log format and the command's recording model, analyses and
# pages include nothing of PVM's and use no PVM symbol; the headers'
# includes have no cycle.  A cycle among the
# edges is named (tsort) whatever the declared order.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$ROOT/build}
fail=0

LIB_FOLDERS='src/base src/log src/pvm/runtime src/pvm/wrap'
# The MPI front end (its PMPI library: build/libpangaea-*.so) stands beside
# PVM's on the same base and log layers, and uses nothing of PVM's.
MPI_FOLDERS='src/base src/log src/mpi'
# The analysis' folder holds the one model of a recording (races.c), from
# which the recording folder's runlog.c derives the views' graph.
TOP_FOLDERS='src/cli/files src/cli/analysis src/cli/recording src/cli/view src/cli/run src/cli/pack src/cli/search src/cli/live src/cli/main'
BASE_LOG_LAYERS='
err grow util
log_table log_bin log_sink site_name
log_xml log_binr_event log_binw live_gate
log_binr
log_read log_write log_schema
log_dump
'
MPI_LAYERS="$BASE_LOG_LAYERS
mpi_state
mpi_comm mpi_chaos
mpi_site mpi_isend mpi_persist
mpi_crash mpi_gate
mpi_stop
mpi_force
mpi_spawn
mpi_log
mpi_p2p mpi_clock
mpi_start
mpi_fortran mpi_f08
"
LIB_LAYERS="$BASE_LOG_LAYERS"'
real progsum state
progmap whatif
select coord_client notice chaos live_pos datafile timelog task_env
header callsite killed reserve replay_index
stop
record replay
gate bufid
runtime
outside wrap_sig
wrap_mhf wrap_wait wrap_buf wrap_context
wrap_send wrap_exit wrap_notify wrap_spawn wrap_query
wrap_recv wrap_group wrap_route wrap_time wrap_tasks wrap_kill wrap_named
wrap_fds wrap_mbox wrap_hosts
'
TOP_LAYERS='
untrusted
stdin_fwd filter_assets
paths json logdir daemon lamport races_clock rerun debug runenv
mpi_ids mpi_launch
hostcheck move races dump pack mpi_whatif
runlog unpack
races_find
races_runs
races_out minimize
mpi_run
whatif
display_races
live_mpi
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

# objects FOLDERS: the objects of the sources in FOLDERS (a stale object
# of a removed source does not count).
objects() {
    local c d
    for d in $1; do
        for c in "$ROOT/$d"/*.c; do
            [ -e "$c" ] && echo "$B/$d/$(basename "$c" .c).o"
        done
    done
}

# folder_of FOLDERS: "X FOLDER-RANK FOLDER" for every file X of FOLDERS.
folder_of() {
    local d c k=0
    for d in $1; do
        k=$((k + 1))
        for c in "$ROOT/$d"/*.c; do
            [ -e "$c" ] && echo "$(basename "$c" .c) $k $d"
        done
    done
}

# edges FOLDERS: "X Y" for every symbol X.o uses that Y.o defines (X != Y).
# One nm for all the objects (-A: each line names its object): a pair of
# nm and awk per object cost make check ten CPU seconds of process starts.
edges() {
    objects "$1" | xargs nm -A | awk '
        { f = $1; sub(/:[^:]*$/, "", f); sub(/.*\//, "", f); sub(/\.o$/, "", f) }
        $2 ~ /^[TDBRCVW]$/ { def[$3] = f; next }
        $2 == "U" { use[NR] = f " " $3 }
        END { for (i in use) { split(use[i], a, " ");
              if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]] } }' | sort -u
}

# check NAME FOLDERS LAYERS: every object in a layer, every edge downwards,
# between folders and between files.
check() {
    local name=$1 folders=$2 layers=$3 e cyc bad=0 o
    for o in $(objects "$folders"); do
        if [ ! -e "$o" ]; then
            echo "FAIL: $name: no $o (build first: make)"
            fail=1
            return
        fi
    done
    e=$(edges "$folders")
    cyc=$(echo "$e" | tsort 2>&1 >/dev/null | grep -v '^tsort: -:' | sed 's/^tsort: //')
    if [ -n "$cyc" ]; then
        echo "FAIL: $name: the files use each other in a cycle: $(echo $cyc)"
        bad=1
    fi
    awk -v name="$name" -v folders="$(folder_of "$folders")" '
        BEGIN { n = split(folders, l, "\n")
                for (i = 1; i <= n; i++) { split(l[i], f, " "); fr[f[1]] = f[2]; fd[f[1]] = f[3] } }
        fr[$2] > fr[$1] {
            printf "FAIL: %s: %s.c (%s) uses %s.c (%s), a folder that is not below its own\n", name, $1, fd[$1], $2, fd[$2]
            bad = 1
        }
        END { exit bad }' <<<"$e" || bad=1
    awk -v name="$name" -v layers="$layers" -v objs="$(objects "$folders" | xargs -n1 basename | sed 's/\.o$//')" '
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
    [ "$bad" -eq 0 ] && echo "PASS: $name: $(echo "$e" | grep -c .) uses between $(objects "$folders" | wc -l) files in $(echo $folders | wc -w) folders, all downwards, no cycle"
}

# Every folder of src/ is in one of the orders (or is the coordinator's).
for d in $(cd "$ROOT" && find src -name '*.c' -printf '%h\n' | sort -u); do
    case " $LIB_FOLDERS $MPI_FOLDERS $TOP_FOLDERS src/pvm/coordinator " in
        *" $d "*) ;;
        *) echo "FAIL: $d is in no folder order: add it to tests/layers.sh"; fail=1 ;;
    esac
done
check "the library" "$LIB_FOLDERS" "$LIB_LAYERS"
check "the MPI library" "$MPI_FOLDERS" "$MPI_LAYERS"
check "the command" "$TOP_FOLDERS" "$TOP_LAYERS"

# The library and the coordinator never include the command's headers.
cli_h=$(cd "$ROOT" && ls src/cli/*/*.h | xargs -n1 basename | paste -sd'|')
bad=$(grep -lE "#include \"($cli_h)\"" "$ROOT"/src/base/* "$ROOT"/src/log/* "$ROOT"/src/pvm/*/* "$ROOT"/src/mpi/* 2>/dev/null)
if [ -n "$bad" ]; then
    echo "FAIL: the library includes the command's headers: $bad"
    fail=1
fi
# The base, the log format, the MPI front end, the recording model, the
# analyses and the pages know nothing of PVM: a second front end (docs/ARCHITECTURE.md)
# shares them as they are.  Their sources include no PVM header, and their
# objects use no pvm_ function and nothing src/pvm/ defines (the Makefile
# also links them alone, without libpvm3: tests/tools/views_only.c).
NO_PVM='src/base src/log src/mpi src/cli/files src/cli/recording src/cli/analysis src/cli/view'
bad=$(for d in $NO_PVM; do
          grep -lE '#include [<"](pvm3|pg_internal|pg_proto|live_pos)\.h[>"]' "$ROOT/$d"/*.[ch] 2>/dev/null
      done)
pvm_defs=$(objects "src/pvm/runtime src/pvm/wrap" | xargs nm --defined-only 2>/dev/null |
           awk '$2 ~ /^[TDBRCVW]$/ && $3 ~ /^pg_/ {print $3}' | sort -u)
uses=$(objects "$NO_PVM" | xargs nm -A -u | awk -v b="$B/" '
           { f = $1; sub(/:[^:]*$/, "", f); sub(b, "", f); print $NF, f }' | sort)
bad_sym=$(join <(echo "$pvm_defs") <(echo "$uses") | head -5)
bad_sym="$bad_sym$(echo "$uses" | awk '$1 ~ /^pvm_/' | head -5)"
if [ -n "$bad" ] || [ -n "$bad_sym" ]; then
    echo "FAIL: a part that must know nothing of PVM uses it: $bad $bad_sym"
    fail=1
else
    echo "PASS: $NO_PVM: no PVM header, no PVM symbol"
fi
# Headers including headers: no cycle.
cyc=$(for h in "$ROOT"/src/*/*.h "$ROOT"/src/*/*/*.h; do
          sed -n 's/^#include "\(.*\)"/\1/p' "$h" | sed "s|^|$(basename "$h") |"
      done | tsort 2>&1 >/dev/null | grep -v '^tsort: -:' | sed 's/^tsort: //')
if [ -n "$cyc" ]; then
    echo "FAIL: headers include each other in a cycle: $(echo $cyc)"
    fail=1
else
    echo "PASS: #includes: no library header includes the command's, no cycle"
fi
exit $fail
