#!/usr/bin/env bash
# test_mpi_hpcc.sh - a real MPI program nobody here wrote: HPCC (Debian's
# hpcc, built with Open MPI), on its example input made small (N 200, NB
# 40: seconds), 4 ranks.  It writes hpccoutf.txt in its working
# directory: timings from MPI_Wtime, time() and getrusage(), and results
# of RandomAccess, whose ranks poll a wildcard MPI_Irecv with MPI_Test and
# MPI_Testany, test their MPI_Isend requests and cancel their last
# receive.  Two unrecorded runs write other files; a recording and three
# replays: each replay writes the recorded file byte for byte.
. "$(dirname "$0")/lib.sh"

command -v hpcc >/dev/null ||
    pg_skip "hpcc is not installed (scripts/install-deps.sh test installs it)"
command -v mpiexec.openmpi >/dev/null ||
    pg_skip "Open MPI is not installed (scripts/install-deps.sh test installs it)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
PVM_TMP=$(pg_tmpdir)
export PVM_TMP
dir=$(pg_tmpdir)
sed 's/^1000  *Ns$/200          Ns/; s/^80  *NBs$/40           NBs/' \
    /usr/share/doc/hpcc/examples/_hpccinf.txt >"$dir/hpccinf.txt"
grep -q "^200 *Ns" "$dir/hpccinf.txt" ||
    pg_fail "the example input's problem size was not found to make it small"

# run MODE OUT: hpcc under pangaea MODE in $dir, its file saved as OUT.
run() {
    rm -f "$dir/hpccoutf.txt"
    (cd "$dir" && timeout 120 "$PG_BUILD/pangaea" "$1" -logdir "$dir/logs" \
        mpiexec.openmpi --oversubscribe -n 4 hpcc >"$2.log" 2>&1) &&
        mv "$dir/hpccoutf.txt" "$2"
}

run -none "$dir/free1" && run -none "$dir/free2"
if ! cmp -s "$dir/free1" "$dir/free2"; then
    pg_pass "HPCC: two unrecorded runs write other output files"
else
    pg_fail "HPCC: two unrecorded runs wrote the same file: nothing to replay"
fi
if run -log "$dir/rec"; then
    same=0
    for i in 1 2 3; do
        run -replay "$dir/rep$i" && cmp -s "$dir/rec" "$dir/rep$i" && same=$((same + 1))
    done
    if [ "$same" -eq 3 ]; then
        pg_pass "HPCC: 3 replays write the recorded hpccoutf.txt byte for byte"
    else
        pg_fail "HPCC: $same of 3 replays write the recorded hpccoutf.txt"
        for i in 1 2 3; do
            grep -m2 "diverged\|refused" "$dir/rep$i.log"
            [ -e "$dir/rep$i" ] && diff "$dir/rec" "$dir/rep$i" | head -5
        done
    fi
else
    pg_fail "HPCC: the recording failed"
    tail -5 "$dir/rec.log"
fi

pg_summary
