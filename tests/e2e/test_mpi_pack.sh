#!/usr/bin/env bash
# test_mpi_pack.sh - an MPI recording in one file, replayed elsewhere
# (`pangaea -pack`, `pangaea -replay -pack FILE`; src/cli/run/mpi_launch.c
# keeps the launcher's command line, the ranks their program's checksum),
# with tests/programs/mpi_master.c on 4 ranks:
# - MPICH: a copy of the program is recorded and packed; the pack's
#   MANIFEST names the launcher's command line and the program; the copy
#   is removed, and -replay -pack in another directory runs the packed
#   program with the recorded launcher line: exactly the recorded output,
#   exit 0 (unrecorded runs differ: test_mpi.sh);
# - -replay -pack of an MPI run given a program is refused (exit 2);
# - a recording without its launcher line (pangaea-mpi-launch removed) is
#   refused by -pack, naming it (exit 2), nothing written;
# - Open MPI: a race-only recording (-log -min) of a program the
#   launcher finds through PATH, packed and replayed elsewhere (the
#   program gone), gives the recorded output.
. "$(dirname "$0")/lib.sh"

pg_need_mpich
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
P=$PG_BUILD/pangaea
dir=$(pg_tmpdir)
cd "$dir" || exit 1
mkdir prog there
cp "$PG_BUILD/tests/mpich/mpi_master" prog/master

timeout 60 "$P" -log -logdir rec mpiexec.mpich -n 4 "$dir/prog/master" >rec.out 2>rec.err ||
    { pg_fail "MPICH: recording a copy of mpi_master"; cat rec.err; pg_summary; exit 1; }
if "$P" -pack -logdir rec -o run.pangaea 2>pack.err &&
    tar --zstd -xOf run.pangaea MANIFEST >manifest &&
    grep -q "^command pangaea -log -logdir .*/rec /usr/bin/mpiexec.hydra -n 4 $dir/prog/master$" manifest &&
    grep -q "^program [0-9a-f]\{64\} x86_64 $dir/prog/master$" manifest; then
    pg_pass "MPICH: -pack of an MPI recording: its MANIFEST names the launcher's command line and the program"
else
    pg_fail "MPICH: -pack of an MPI recording"; cat pack.err manifest
fi
rm -r prog # only the pack has the program now
rc=0
(cd there && timeout 60 "$P" -replay -pack ../run.pangaea >../there.out 2>../there.err) || rc=$?
if [ "$rc" -eq 0 ] && cmp -s rec.out there.out &&
    grep -q "replaying the recording rec of ../run.pangaea, unpacked into" there.err; then
    pg_pass "MPICH: -replay -pack elsewhere, the program gone: the packed program with the recorded launcher line, exactly the recorded output"
else
    pg_fail "MPICH: -replay -pack: exit $rc"; cat there.err; diff rec.out there.out | head -5
fi
rc=0
(cd there && timeout 60 "$P" -replay -pack ../run.pangaea extra >../args.out 2>../args.err) || rc=$?
if [ "$rc" -eq 2 ] && grep -q "takes the recorded launcher command line; give no program" args.err; then
    pg_pass "MPICH: -replay -pack of an MPI run given arguments: refused (exit 2)"
else
    pg_fail "MPICH: -replay -pack with arguments: exit $rc"; cat args.err
fi
rm rec/pangaea-mpi-launch
rc=0
"$P" -pack -logdir rec -o none.pangaea 2>none.err || rc=$?
if [ "$rc" -eq 2 ] && grep -q "an MPI run's without its launcher's command line (pangaea-mpi-launch" none.err &&
    [ ! -e none.pangaea ]; then
    pg_pass "MPICH: -pack of an MPI recording without its launcher line: refused, named (exit 2), nothing written"
else
    pg_fail "MPICH: -pack without the launcher line: exit $rc"; cat none.err
fi

if command -v mpiexec.openmpi >/dev/null; then
    mkdir oprog othere
    cp "$PG_BUILD/tests/openmpi/mpi_master" oprog/master
    rc=0
    { PATH=$dir/oprog:$PATH timeout 60 "$P" -log -min -logdir orec \
        mpiexec.openmpi --oversubscribe -n 4 master >orec.out 2>orec.err &&
        "$P" -pack -logdir orec -o orun.pangaea 2>opack.err && rm -r oprog &&
        (cd othere && timeout 60 "$P" -replay -pack ../orun.pangaea >../othere.out 2>../othere.err); } || rc=$?
    if [ "$rc" -eq 0 ] && cmp -s orec.out othere.out && grep -q "is race-only now" orec.err; then
        pg_pass "Open MPI: a race-only recording of a program found through PATH, packed and replayed elsewhere: the recorded output"
    else
        pg_fail "Open MPI: pack of a race-only recording: exit $rc"; cat orec.err opack.err othere.err 2>/dev/null | tail -5
    fi
else
    pg_fail "Open MPI is not installed (scripts/install-deps.sh test installs it)"
fi

pg_summary
