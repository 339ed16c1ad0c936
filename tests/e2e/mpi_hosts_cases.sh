# tests/e2e/mpi_hosts_cases.sh - an MPI run recorded across three hosts and
# replayed on the same hosts and on others: the checks test_mpi_hosts.sh
# (MPICH) and test_mpi_hosts_openmpi.sh (Open MPI) run (sourced after
# lib.sh and hosts.sh; not a test itself).
#
# The hosts are hosts.sh's network namespaces hA hB hC (hosts_net_up: no
# pvmd).  The launcher starts the ranks of the other hosts through
# $HOSTS_DIR/launch, the test's ssh (a clean environment, as a login
# gives): hydra's -launcher rsh -launcher-exec, Open MPI's plm_rsh_agent.
# pangaea passes its library, mode and log directory with the launcher's
# own environment passing (src/cli/run/mpi_run.c), the only way they can
# reach a rank on another host; the hosts share this machine's file
# system, as a cluster's hosts share the log directory (docs/mpi-notes.md,
# "Several hosts").  tests/programs/mpi_hosts.c: a master (rank 0) takes
# its two workers' results with MPI_Recv(MPI_ANY_SOURCE) and polls
# MPI_Iprobe(MPI_ANY_SOURCE); every rank says on stderr on which host it
# runs.  hosts_case checks, per MPI:
# - the ranks of a run really are on hA, hB, hC (from the ranks' own
#   gethostname(), and the recording's execution logs say the same);
# - unrecorded runs (pangaea -none) across the hosts differ;
# - one recording across the hosts; replays started on hA, on the same
#   hosts, print exactly the recorded output;
# - replays started on hC with the ranks on other hosts (rank 0 on hC, 1 on
#   hA, 2 on hB: the ranks say so) print exactly the recorded output
#   (started on hC: orterun puts rank 0 on its own host whatever the
#   order of -H, hydra follows -hosts; both then agree);
# - a replay of another program (one round more) ends, named, with exit
#   status 3: the ranks on the other hosts follow the recording, not luck.

HOSTS_FREE=${PG_HOSTS_FREE:-3}    # the poll counts alone differ in nearly every run
HOSTS_REPLAYS=${PG_HOSTS_REPLAYS:-3}
HOSTS_MOVED=${PG_HOSTS_MOVED:-2}

# hrun DIR NAME HOST CMD...: CMD run on HOST (bounded); DIR/NAME.{out,err,rc}.
hrun() {
    local dir=$1 name=$2 h=$3 rc=0
    shift 3
    hosts_run "$h" timeout 90 "$@" >"$dir/$name.out" 2>"$dir/$name.err" </dev/null || rc=$?
    echo "$rc" >"$dir/$name.rc"
    return "$rc"
}

# placed FILE H0 H1 H2: the ranks' stderr in FILE says rank i ran on Hi.
placed() {
    local f=$1 i=0 h
    shift
    for h in "$@"; do
        grep -qx "rank $i runs on $h" "$f" || return 1
        i=$((i + 1))
    done
}

# The host the execution log of ltid $2 in recording $1 names.
logged_host() {
    sed -nE 's/.*<header [^>]* host="([^"]*)".*/\1/p' "$1/ltid-$2.exec.xml"
}

# runs DIR PREFIX N HOST PANGAEA-ARGS...: N runs; how many exited 0 and
# printed exactly DIR/rec.out (when it exists) in $SAME, bad ones in $BAD.
runs() {
    local dir=$1 prefix=$2 n=$3 h=$4 i
    shift 4
    SAME=0 BAD=0
    for i in $(seq "$n"); do
        if ! hrun "$dir" "$prefix$i" "$h" "$PG_BUILD/pangaea" "$@"; then
            BAD=$((BAD + 1))
        elif [ -e "$dir/rec.out" ] && cmp -s "$dir/rec.out" "$dir/$prefix$i.out"; then
            SAME=$((SAME + 1))
        fi
    done
}

# first_bad DIR PREFIX N: what went wrong with the first bad run.
first_bad() {
    local dir=$1 prefix=$2 n=$3 i
    for i in $(seq "$n"); do
        if [ "$(cat "$dir/$prefix$i.rc")" != 0 ] || ! cmp -s "$dir/rec.out" "$dir/$prefix$i.out"; then
            echo "run $prefix$i: exit $(cat "$dir/$prefix$i.rc")"
            diff "$dir/rec.out" "$dir/$prefix$i.out" | head -5
            tail -n 8 "$dir/$prefix$i.err"
            return
        fi
    done
}

# hosts_case NAME PROG LAUNCHER-WORDS... : the launcher's words up to the
# host list's option (-hosts or -H), which the case completes.
hosts_case() {
    local name=$1 prog=$2 dir logs distinct h l ok=1
    shift 2
    dir=$(pg_tmpdir) logs=$dir/logs
    local on3=("$@" hA,hB,hC -n 3 "$prog") moved=("$@" hC,hA,hB -n 3 "$prog")

    runs "$dir" free "$HOSTS_FREE" hA -none -logdir "$logs" "${on3[@]}"
    distinct=$(for i in $(seq "$HOSTS_FREE"); do sha256sum <"$dir/free$i.out"; done | sort -u | wc -l)
    if [ "$BAD" -ne 0 ]; then
        pg_fail "$name: $BAD of $HOSTS_FREE unrecorded runs across hA,hB,hC failed"
        tail -n 20 "$dir/free1.err"
        return
    elif placed "$dir/free1.err" hA hB hC; then
        pg_pass "$name: a run's three ranks run on hA, hB, hC (as they say)"
    else
        pg_fail "$name: the ranks did not run on hA, hB, hC:"; cat "$dir/free1.err"
    fi
    if [ "$distinct" -ge 2 ]; then
        pg_pass "$name: unrecorded runs across three hosts differ ($distinct distinct outputs of $HOSTS_FREE)"
    else
        pg_fail "$name: all $HOSTS_FREE unrecorded runs printed the same: the program does not race"
    fi

    if ! hrun "$dir" rec hA "$PG_BUILD/pangaea" -log -logdir "$logs" "${on3[@]}"; then
        pg_fail "$name: the recording across three hosts failed (exit $(cat "$dir/rec.rc"))"
        tail -n 20 "$dir/rec.err"
        return
    fi
    for l in 1 2 3; do
        h=$(logged_host "$logs" "$l")
        [ "$h" = "h$(echo ABC | cut -c"$l")" ] || ok=0
    done
    if [ "$ok" = 1 ] && placed "$dir/rec.err" hA hB hC; then
        pg_pass "$name: recorded across three hosts; each rank's log says its host (ltid 1-3 on hA, hB, hC)"
    else
        pg_fail "$name: the recording's hosts: $(for l in 1 2 3; do logged_host "$logs" $l; done | xargs)"
        cat "$dir/rec.err"
    fi

    runs "$dir" same "$HOSTS_REPLAYS" hA -replay -logdir "$logs" "${on3[@]}"
    if [ "$BAD" -eq 0 ] && [ "$SAME" -eq "$HOSTS_REPLAYS" ]; then
        pg_pass "$name: $HOSTS_REPLAYS replays on the same hosts print exactly the recorded output"
    else
        pg_fail "$name: $SAME of $HOSTS_REPLAYS replays on the same hosts match, $BAD failed"
        first_bad "$dir" same "$HOSTS_REPLAYS"
    fi

    runs "$dir" moved "$HOSTS_MOVED" hC -replay -logdir "$logs" "${moved[@]}"
    if [ "$BAD" -eq 0 ] && [ "$SAME" -eq "$HOSTS_MOVED" ] &&
       placed "$dir/moved1.err" hC hA hB; then
        pg_pass "$name: $HOSTS_MOVED replays started on hC with the ranks on hC, hA, hB print exactly the recorded output"
    else
        pg_fail "$name: $SAME of $HOSTS_MOVED replays on other hosts match, $BAD failed"
        first_bad "$dir" moved "$HOSTS_MOVED"
        grep "runs on" "$dir/moved1.err"
    fi

    hrun "$dir" other hA "$PG_BUILD/pangaea" -replay -logdir "$logs" "$@" hA,hB,hC -n 3 "$prog" 9
    if [ "$(cat "$dir/other.rc")" = 3 ] && grep -q "diverged" "$dir/other.err"; then
        pg_pass "$name: a replay of another program across the hosts stops, named, with exit 3"
    else
        pg_fail "$name: a replay of another program across the hosts exited $(cat "$dir/other.rc")"
        tail -n 8 "$dir/other.err"
    fi
}

# hosts_mpi NAME LAUNCHER PROG LAUNCHER-WORDS...: skips unless the MPI is
# installed and this machine can make the hosts; then hosts_case, with
# @LAUNCH@ in the words the path of the hosts' ssh.
hosts_mpi() {
    local name=$1 launcher=$2 prog=$3 rc=0 w=() a
    shift 3
    command -v "$launcher" >/dev/null ||
        pg_skip "$name is not installed (scripts/install-deps.sh test installs it)"
    hosts_net_up hA hB hC || rc=$?
    [ "$rc" -eq 1 ] && hosts_skip
    if [ "$rc" -ne 0 ]; then
        pg_fail "$name: the test hosts could not be made ($HOSTS_WHY)"
        return
    fi
    for a in "$@"; do w+=("${a//@LAUNCH@/$HOSTS_DIR/launch}"); done
    hosts_case "$name" "$prog" "$launcher" "${w[@]}"
}
