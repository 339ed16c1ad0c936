#!/usr/bin/env bash
# bench/views.sh - the views of a recording at growing sizes: each view's
# wall time and peak memory (maximum resident set), and how they grow.
#
#   bash bench/views.sh [--max EVENTS] [--tasks "9 256"] [--views "..."]
#
# Design.  Recordings are written by tests/tools/gen_logs (no pvmd, no
# program): the "star" shape, a master taking its workers' messages with
# pvm_recv(-1,-1) while they send unasked (the deep queue, every receive
# racing), and "star-ack", the workers waiting for an ack of each message
# (flow control: each worker's clock learns of all others through the
# master).  Sizes grow by 10 from 10^4 events up to --max (default 10^7),
# for each task count.  Each view runs once under /usr/bin/time (GNU
# time: %e seconds, %M KB, %U user CPU seconds: on a machine shared
# with other work the CPU time is the fair figure); -min runs on a copy;
# "whatif" is -whatif's planning (the master's first receive forced to
# take another worker's message; the program check then stops it).  A view that takes more
# than its budget (VIEW_LIMIT seconds, default 300) is stopped and the
# larger sizes of that view skipped; a view that fails is reported so.
# The growth exponent is log(time2/time1)/log(10) between the last two
# sizes (1: linear, 2: quadratic), of the user CPU time (the wall time
# on a shared machine is mostly waiting); memory's likewise.  A page in
# parts counts its parts' bytes too.  Results go to
# stdout as a table and to bench/results/views.csv.  BUILD names another
# build directory (default build/).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${BUILD:-$ROOT/build}
P=$B/pangaea
G=$B/tests/gen_logs
MAX=10000000
TASKS="9 256"
SHAPES="star star-ack"
VIEWS="races races-json races-jsonl min tasks display perfetto whatif"
LIMIT=${VIEW_LIMIT:-300}
while [ $# -gt 0 ]; do
    case $1 in
    --max) MAX=$2; shift 2 ;;
    --tasks) TASKS=$2; shift 2 ;;
    --shapes) SHAPES=$2; shift 2 ;;
    --views) VIEWS=$2; shift 2 ;;
    *) echo "usage: bench/views.sh [--max N] [--tasks \"9 256\"] [--shapes \"star star-ack\"] [--views \"races ...\"]" >&2; exit 2 ;;
    esac
done
[ -x /usr/bin/time ] || { echo "bench/views.sh: needs GNU time (/usr/bin/time)" >&2; exit 1; }
[ -x "$P" ] && [ -x "$G" ] || { echo "bench/views.sh: build first (make all test-programs)" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/pangaea-views.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
mkdir -p "$ROOT/bench/results"
CSV=$ROOT/bench/results/views.csv
echo "shape,tasks,events,view,seconds,max_rss_kb,status,user_seconds" >"$CSV"

# run VIEW DIR: "seconds kb status user" of one view on the recording in DIR;
# the bytes it printed in $W/bytes (counted, not kept: -races -json of a
# deep queue is gigabytes).
run() {
    local view=$1 d=$2 st=ok rc
    local -a cmd
    case $view in
    races) cmd=("$P" -races "$d") ;;
    races-json) cmd=("$P" -races -json "$d") ;;
    races-jsonl) cmd=("$P" -races -jsonl "$d") ;;
    min) rm -rf "$W/min"; cp -r "$d" "$W/min"; cmd=("$P" -min "$W/min") ;;
    tasks) cmd=("$P" -tasks "$d") ;;
    display) cmd=("$P" -display "$d") ;;
    perfetto) cmd=("$P" -export perfetto "$d") ;;
    whatif) # the planning of a what-if (then the program check stops it,
            # exit 2): the master's first receive made to take another
            # worker's first message
        local took
        took=$("$P" -dump "$d" 1 | grep -m1 '<recv seq="1" ' | sed 's/.* from="\([0-9]*\)".*/\1/')
        rm -rf "$W/new"
        cmd=("$P" -whatif "1:1=$([ "$took" = 2 ] && echo 3 || echo 2):1" -logdir "$d" -o "$W/new" /bin/true) ;;
    esac
    rm -f "$W/time"
    timeout "$LIMIT" /usr/bin/time -o "$W/time" -f "%e %M %U" "${cmd[@]}" \
        2>"$W/err" | wc -c >"$W/bytes"
    rc=${PIPESTATUS[0]}
    [ "$view" = whatif ] && [ "$rc" = 2 ] && grep -q "^pangaea: the recording in .* is of " "$W/err" && rc=0
    rm -rf "$W/new"
    case $rc in
    0|1) ;;
    124) st=timeout ;;
    *) st=failed ;;
    esac
    [ "$view" = display ] && [ -f "$d/pangaea-graph.html" ] &&
        cat "$d/pangaea-graph.html" "$d"/pangaea-graph.parts/part-*.js 2>/dev/null | wc -c >"$W/bytes"
    rm -rf "$d/pangaea-graph.html" "$d/pangaea-graph.parts"
    if [ -s "$W/time" ] && [ "$st" != timeout ]; then
        set -- $(tail -1 "$W/time")
        echo "$1 $2 $st $3"
    else
        echo "- - $st -"
    fi
}

exp_of() { # a1 a2: log10(a2/a1), or -
    awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0 && a != "-" && b != "-") printf "%.2f", log(b / a) / log(10); else printf "-" }'
}

printf "%-9s %6s %9s %-11s %9s %9s %10s %s\n" shape tasks events view seconds "user s" "peak MB" status
for shape in $SHAPES; do
  for tasks in $TASKS; do
    declare -A last_t=() last_m=() stop=()
    for ((n = 10000; n <= MAX; n *= 10)); do
        d=$W/rec; rm -rf "$d"; mkdir -p "$d"
        "$G" "$d" "$tasks" "$n" "$shape" >/dev/null || { echo "gen_logs failed at $n" >&2; continue; }
        for v in $VIEWS; do
            [ -n "${stop[$v]:-}" ] && continue
            read -r secs kb st usr <<<"$(run "$v" "$d")"
            mb=-; [ "$kb" != - ] && mb=$(awk -v k="$kb" 'BEGIN{printf "%.1f", k/1024}')
            ex=""
            if [ -n "${last_t[$v]:-}" ] && [ "$st" = ok ]; then
                ex="growth: user time ^$(exp_of "${last_t[$v]}" "$usr"), memory ^$(exp_of "${last_m[$v]}" "$kb")"
            fi
            [ "$st" = ok ] && ex="$ex $(awk -v b="$(cat "$W/bytes")" -v n="$n" 'BEGIN{printf "output %.1f B/event", b/n}')"
            printf "%-9s %6s %9s %-11s %9s %9s %10s %s %s\n" "$shape" "$tasks" "$n" "$v" "$secs" "$usr" "$mb" "$st" "$ex"
            echo "$shape,$tasks,$n,$v,$secs,$kb,$st,$usr" >>"$CSV"
            last_t[$v]=$usr last_m[$v]=$kb
            [ "$st" != ok ] && stop[$v]=1
        done
    done
    unset last_t last_m stop
  done
done
