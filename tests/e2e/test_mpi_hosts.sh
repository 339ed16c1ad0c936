#!/usr/bin/env bash
# test_mpi_hosts.sh - an MPICH run recorded across three hosts (network
# namespaces, tests/e2e/hosts.sh), replayed on the same hosts and on
# others: the checks are mpi_hosts_cases.sh's.  hydra starts its proxy on
# another host through the test's ssh (-launcher rsh -launcher-exec) and
# gives every rank pangaea's -genv variables through it.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"
. "$(dirname "$0")/mpi_hosts_cases.sh"

hosts_mpi MPICH mpiexec.mpich "$PG_BUILD/tests/mpich/mpi_hosts" \
    -launcher rsh -launcher-exec @LAUNCH@ -hosts
pg_summary
