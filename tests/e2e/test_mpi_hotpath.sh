#!/usr/bin/env bash
# test_mpi_hotpath.sh - the MPI library's fast paths log what its slow
# paths did (src/mpi: a receive's bytes read from its status rather than
# asked of PMPI_Get_count, the last two call sites, the last counter and
# the last predefined datatype remembered rather than looked up), with
# MPICH and Open MPI: tests/programs/mpi_hotpath.c, 2 ranks, rank 1
# sending from four call sites in turn messages of 12, 16, 0 and 20 bytes
# (MPI_INT, MPI_DOUBLE, MPI_INT, a derived type) on tags 1, 2, 1, 3, three
# rounds; rank 0 taking them with a larger buffer and wildcards (MPI_Recv,
# MPI_Irecv + MPI_Wait) and printing each one's tag and bytes.
# - every receive is logged with the bytes MPI_Get_count gave the program;
# - every send with its bytes;
# - the sends' sites cycle through four ids, named by the four lines
#   of the program that call MPI_Send; the receives' alternate between
#   two, MPI_Recv's and MPI_Wait's;
# - a message on a dup of the world and one on a split that orders the
#   ranks the other way, made after the dup was freed (it may get the
#   dup's handle), are logged with world ranks (each communicator's
#   translation is kept on it, not on its handle);
# - -tasks matches every receive to its send (the counters), and a replay
#   prints what the recording printed.
set -u
. "$(dirname "$0")/lib.sh"

P=$PG_BUILD/pangaea
SRC=$PG_ROOT/tests/programs/mpi_hotpath.c
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # CI runs as root
W=$(pg_tmpdir)
want_bytes="12 16 0 20 12 16 0 20 12 16 0 20"
# the lines of the four MPI_Send calls (A B C D)
lines=$(grep -n 'MPI_Send(.*/\* [ABCD] \*/' "$SRC" | cut -d: -f1 | xargs)
# the lines of the receiver's MPI_Recv and MPI_Wait
rlines="$(grep -n 'MPI_Recv(buf' "$SRC" | cut -d: -f1) $(grep -n 'MPI_Wait(&req' "$SRC" | cut -d: -f1)"

# check MPI LAUNCHER...: the checks above on one MPI's build.
check() {
    local mpi=$1 prog=$PG_BUILD/tests/$1/mpi_hotpath d=$W/$1 got sites ids a b
    local -a r
    shift
    if [ ! -x "$prog" ] || ! command -v "$1" >/dev/null; then
        pg_fail "$mpi: $prog or $1 missing (make test-programs; scripts/install-deps.sh test)"
        return
    fi
    if ! timeout 120 "$P" -log -logdir "$d" "$@" -n 2 "$prog" >"$d.rec" 2>"$d.err"; then
        pg_fail "$mpi: the recording failed"; tail -n 5 "$d.err"; return
    fi
    "$P" -dump "$d" 1 >"$d.1.xml" && "$P" -dump "$d" 2 >"$d.2.xml" ||
        { pg_fail "$mpi: -dump failed"; return; }
    got=$(sed -n 's/^recv [0-9]* //p' "$d.rec" | xargs)
    if [ "$got" = "$want_bytes" ] &&
       [ "$(grep '<recv .*tag="[123]"' "$d.1.xml" | grep -o 'bytes="[0-9]*"' | sed 's/.*bytes="//; s/"//' | xargs)" = "$got" ]; then
        pg_pass "$mpi: every receive is logged with the bytes MPI_Get_count gave the program ($got)"
    else
        pg_fail "$mpi: the receives' bytes: program \"$got\", log \"$(grep '<recv .*tag="[123]"' "$d.1.xml" | grep -o 'bytes="[0-9]*"' | sed 's/.*bytes="//; s/"//' | xargs)\", want \"$want_bytes\""
    fi
    got=$(grep '<send .*tag="[123]"' "$d.2.xml" | grep -o 'bytes="[0-9]*"' | sed 's/.*bytes="//; s/"//' | xargs)
    if [ "$got" = "$want_bytes" ]; then
        pg_pass "$mpi: every send is logged with its bytes (MPI_INT, MPI_DOUBLE, a derived type)"
    else
        pg_fail "$mpi: the sends' bytes: \"$got\", want \"$want_bytes\""
    fi
    # the send events' site ids, and the line each site names
    ids=$(grep '<send .*tag="[123]"' "$d.2.xml" | grep -o 'site="[0-9]*"' | sed 's/.*site="//; s/"//' | xargs)
    sites=$(for i in $(echo "$ids" | cut -d' ' -f1-4); do
                sed -n "s/.*<!-- site $i: mpi_hotpath\.c:\([0-9]*\) -->.*/\1/p" "$d.2.xml"
            done | xargs)
    if [ "$(echo "$ids" | wc -w)" = 12 ] &&
       [ "$ids" = "$(echo "$ids" | cut -d' ' -f1-4) $(echo "$ids" | cut -d' ' -f1-4) $(echo "$ids" | cut -d' ' -f1-4)" ] &&
       [ "$sites" = "$lines" ]; then
        pg_pass "$mpi: the sends' sites cycle through four ids, at the program's four MPI_Send lines ($sites)"
    else
        pg_fail "$mpi: the sends' sites: ids \"$ids\", lines \"$sites\", want four ids cycling at lines \"$lines\""
    fi
    # the receives' sites: MPI_Recv's three times, then MPI_Wait's (the
    # MPI_Irecv's completion), each round: two sites in turn
    ids=$(grep '<recv .*tag="[123]"' "$d.1.xml" | grep -o 'site="[0-9]*"' | sed 's/.*site="//; s/"//' | xargs)
    read -ra r <<<"$ids"
    a=${r[0]:-x} b=${r[3]:-x}
    sites="$(sed -n "s/.*<!-- site $a: mpi_hotpath\.c:\([0-9]*\) -->.*/\1/p" "$d.1.xml") $(sed -n "s/.*<!-- site $b: mpi_hotpath\.c:\([0-9]*\) -->.*/\1/p" "$d.1.xml")"
    if [ "$ids" = "$a $a $a $b $a $a $a $b $a $a $a $b" ] && [ "$a" != "$b" ] &&
       [ "$sites" = "$rlines" ]; then
        pg_pass "$mpi: the receives' sites alternate between MPI_Recv's and MPI_Wait's lines ($sites)"
    else
        pg_fail "$mpi: the receives' sites: ids \"$ids\", lines \"$sites\", want MPI_Recv's three times then MPI_Wait's, at lines \"$rlines\""
    fi
    # a dup's and then a reversed split's message (the split may get the
    # freed dup's handle): world ranks in both logs
    got="$(grep -A1 '<send .*tag="[45]"' "$d.2.xml" | grep -o '<to ltid="[0-9]*"' | xargs) $(grep -o '<recv .*tag="[45]"' "$d.1.xml" | grep -o 'from="[0-9]*"' | xargs)"
    if grep -qx "comm 4 1" "$d.rec" && grep -qx "comm 5 0" "$d.rec" &&
       [ "$got" = '<to ltid=1 <to ltid=1 from=2 from=2' ]; then
        pg_pass "$mpi: messages on a dup and on a reversed split made after it was freed are logged with world ranks (to ltid 1, from ltid 2)"
    else
        pg_fail "$mpi: the dup's and the split's messages: $got; program: $(grep '^comm' "$d.rec" | xargs)"
    fi
    if "$P" -tasks "$d" | grep -q "^2 tasks, 14 sends, 14 receives, 14 messages matched, 0 send destinations and 0 receives unmatched"; then
        pg_pass "$mpi: -tasks matches every receive to its send"
    else
        pg_fail "$mpi: -tasks: $("$P" -tasks "$d" | tail -1)"
    fi
    if timeout 120 "$P" -replay -logdir "$d" "$@" -n 2 "$prog" >"$d.rep" 2>"$d.rep.err" &&
       cmp -s "$d.rec" "$d.rep"; then
        pg_pass "$mpi: the replay prints what the recording printed"
    else
        pg_fail "$mpi: the replay failed or printed other output"
        tail -n 5 "$d.rep.err"
    fi
}

if command -v mpiexec.mpich >/dev/null; then
    check mpich mpiexec.mpich
fi
if command -v mpiexec.openmpi >/dev/null; then
    check openmpi mpiexec.openmpi --oversubscribe
fi
command -v mpiexec.mpich >/dev/null || command -v mpiexec.openmpi >/dev/null ||
    pg_skip "no MPI is installed (scripts/install-deps.sh test installs both)"

pg_summary
