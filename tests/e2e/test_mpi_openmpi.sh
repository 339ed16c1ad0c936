#!/usr/bin/env bash
# test_mpi_openmpi.sh - MPI programs under Pangaea with Open MPI (the
# checks are tests/e2e/mpi_cases.sh's; test_mpi.sh runs them with MPICH),
# and a Fortran program of Open MPI, whose bindings call PMPI_ directly:
# every rank says it was not recorded, and pangaea fails.  Open MPI as
# root needs its two variables (mpi_cases.sh sets them), and
# --oversubscribe for 4 ranks on 2 cores.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"

command -v mpiexec.openmpi >/dev/null ||
    pg_skip "Open MPI is not installed (scripts/install-deps.sh test installs it)"
one_mpi "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi/mpi_master" --oversubscribe

# Fortran: Open MPI's bindings bypass the library; each rank says so.
dir=$(pg_tmpdir)
timeout 60 "$PG_BUILD/pangaea" -log -logdir "$dir/logs" mpiexec.openmpi \
    --oversubscribe -n 2 "$PG_BUILD/tests/openmpi/mpi_fmaster" >"$dir/out" 2>"$dir/err"
rc=$?
if [ "$rc" -ne 0 ] && [ "$(grep -c "ended without its MPI calls reaching Pangaea's library" "$dir/err")" -eq 2 ]; then
    pg_pass "Open MPI: a Fortran program's ranks say they were not recorded (exit $rc)"
else
    pg_fail "Open MPI: a Fortran program: exit $rc"
    head -5 "$dir/err"
fi

pg_summary
