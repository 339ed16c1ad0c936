/*
 * mpi_chaos.c - perturbation of a recorded MPI run for `pangaea -chaos
 * ... mpiexec ...` (pg_mpi.h): rare message orders made likelier, only
 * in ways MPI itself allows, in a recorded run (whatever a chaos run
 * finds replays like any recording).
 *
 * Design.  As the PVM runtime's chaos (src/pvm/runtime/chaos.c, whose
 * schedule this follows; the front ends share no runtime code):
 *  - a random delay before a wrapped call (PGM_SITE), up to 5, 50 or 250
 *    ms by the run's seed, three calls in four, for the rank's first 32
 *    delays, then shrinking as 32/k at its k-th, so that a long run is
 *    not slowed past any time limit; a call repeated at the same site (a
 *    polling loop) is not delayed again;
 *  - MPI_Recv(MPI_ANY_SOURCE) takes one of the messages already arrived
 *    that it admits, drawn at random: MPI_Iprobe per rank finds, per
 *    sender, the oldest such message (MPI's non-overtaking rule: the only
 *    one of that sender the receive could take), and the receive is
 *    posted for the sender drawn.  Nothing arrived: it takes what comes.
 * PANGAEA_CHAOS holds the run's seed (mpi_run.c passes it to every rank
 * through the launcher); each rank draws from its own generator seeded
 * with it and its ltid.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pg_mpi.h"

static const long scales_ns[] = { 5000000L, 50000000L, 250000000L };

static struct {
    uint64_t state;
    long scale_ns, delays;
    void *last_pc;
} ch;

/* xorshift64*: small, and the same sequence on every host. */
static uint32_t draw(void)
{
    ch.state ^= ch.state >> 12;
    ch.state ^= ch.state << 25;
    ch.state ^= ch.state >> 27;
    return (uint32_t)((ch.state * 2685821657736338717ULL) >> 32);
}

void pgm_chaos_start(void)
{
    const char *s = getenv(PGM_ENV_CHAOS);
    unsigned long long seed;
    char *end;

    if (!s || !*s || pgm.mode != PGM_LOG || pgm.whatif)
        return;
    seed = strtoull(s, &end, 10);
    if (*end)
        pgm_die(PGM_REFUSED, "%s must be a seed (a number), not \"%.40s\"",
                PGM_ENV_CHAOS, s);
    ch.state = (seed + 1) * 0x9E3779B97F4A7C15ULL ^
               ((uint64_t)pgm.ltid * 0xBF58476D1CE4E5B9ULL);
    if (!ch.state)
        ch.state = 1;
    ch.scale_ns = scales_ns[seed % 3];
    pgm.chaos = 1;
    pgm.hooks |= PGM_HOOK_CHAOS;
    fprintf(stderr, "pangaea: ltid %d (rank %d) perturbs its receives (chaos "
            "seed %llu)\n", pgm.ltid, pgm.rank, seed);
}

void pgm_chaos_delay(void)
{
    struct timespec nap = { 0, 0 };
    long most = ch.scale_ns;

    if (pgm.pc == ch.last_pc)
        return; /* a loop at one site (polls): delayed once */
    ch.last_pc = pgm.pc;
    if (draw() % 4 == 0)
        return;
    if (++ch.delays > 32)
        most = (long)((double)most * 32 / (double)ch.delays);
    nap.tv_nsec = most > 1 ? (long)(draw() % (uint32_t)most) : 0;
    nanosleep(&nap, NULL);
}

void pgm_chaos_pick(int *source, int tag, MPI_Comm comm)
{
    int r, flag, n = 0, size, *from;
    MPI_Status st;

    if (!pgm.chaos || *source != MPI_ANY_SOURCE ||
        PMPI_Comm_size(comm, &size) != MPI_SUCCESS ||
        !(from = malloc((size_t)size * sizeof *from)))
        return;
    for (r = 0; r < size; r++) /* ranks of comm */
        if (PMPI_Iprobe(r, tag, comm, &flag, &st) == MPI_SUCCESS && flag)
            from[n++] = r;
    if (n > 0)
        *source = from[draw() % (uint32_t)n];
    free(from);
}
