#!/usr/bin/env bash
# test_mpi_hosts_openmpi.sh - an Open MPI run recorded across three hosts
# (network namespaces, tests/e2e/hosts.sh), replayed on the same hosts and
# on others: the checks are mpi_hosts_cases.sh's.  orterun starts an orted
# on another host through the test's ssh (its plm_rsh_agent) and gives
# every rank pangaea's -x variables through it.  As root Open MPI needs
# its two variables (docs/mpi-notes.md); one rank a host needs no
# --oversubscribe.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"
. "$(dirname "$0")/mpi_hosts_cases.sh"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
hosts_mpi "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi/mpi_hosts" \
    --mca plm_rsh_agent @LAUNCH@ -H
pg_summary
