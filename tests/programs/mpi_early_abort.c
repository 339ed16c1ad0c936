/*
 * mpi_early_abort.c - a run in which one rank's log is missing or cut
 * (tests/e2e/test_mpi_norank.sh).  The rank the launcher numbers as
 * MPI_EARLY_ABORT_RANK says (the launcher's own variable, read before MPI
 * starts: PMI_RANK for MPICH's hydra, OMPI_COMM_WORLD_RANK for Open MPI)
 * does, by the first argument:
 *  - `before`: dies by abort() before MPI_Init.  Both MPIs' MPI_Init
 *    waits for every rank (checked: no rank wrote a log), so the launcher
 *    ends the others in it;
 *  - `during`: dies in MPI's start, once MPI started and before Pangaea's
 *    library began its log: it starts MPI with PMPI_Init, which the
 *    library does not take, as a rank killed inside MPI_Init would be;
 *  - `after`: dies after MPI_Init, its log begun;
 *  - `unlogged`: runs through, but past the library (PMPI_ calls only),
 *    so the run ends well without a log of it.
 * The rank joins the others' first barrier (which they enter once their
 * logs are open) before it dies; they wait in a second barrier it never
 * joins, until the launcher ends them.  Without MPI_EARLY_ABORT_RANK (a
 * replay of such a recording, in which the accident did not happen again)
 * every rank starts and ends through the library.  Plain MPI, built with
 * each MPI's mpicc.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rank the launcher gave this process, or -1 if it says none. */
static int launcher_rank(void)
{
    const char *r = getenv("PMI_RANK");

    if (!r)
        r = getenv("OMPI_COMM_WORLD_RANK");
    return r ? atoi(r) : -1;
}

/* The doomed rank, as `how` says. */
static void doomed(const char *how, int *argc, char ***argv)
{
    if (!strcmp(how, "before"))
        abort();
    if (!strcmp(how, "after"))
        MPI_Init(argc, argv);
    else
        PMPI_Init(argc, argv);
    PMPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(how, "unlogged"))
        abort();
    PMPI_Barrier(MPI_COMM_WORLD);
    PMPI_Finalize();
    exit(0);
}

int main(int argc, char **argv)
{
    const char *which = getenv("MPI_EARLY_ABORT_RANK");
    int rank;

    if (which && atoi(which) == launcher_rank())
        doomed(argc > 1 ? argv[1] : "before", &argc, &argv);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d started\n", rank);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
