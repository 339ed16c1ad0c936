/*
 * mpi_spawn.c - MPI_Comm_spawn and MPI_Comm_spawn_multiple: the ranks a
 * program starts get ltids the same in every run, write their logs into
 * the recording, and talk to their parents over an intercommunicator
 * that the logs name as every other (docs/mpi-notes.md, "Spawned ranks").
 *
 * Design.  A log names a process by its ltid; a rank of the first job is
 * ltid rank+1.  Spawned ranks are numbered after the ranks that exist:
 * the spawn's root takes the next ltids free in the run (a counter in
 * pangaea's directory for the run, PANGAEA_MPI_NOTES, under a lock, since
 * spawns over different communicators may be made at once), and writes
 * them as the children of a <spawn> event of its execution log, as a PVM
 * task's pvm_spawn does.  A replay does not count: the root reads its
 * k-th spawn's children back from that log, so each spawned rank gets the
 * ltid it had, whatever the order of concurrent spawns in this run.  The
 * root then tells them, over the new intercommunicator, with two
 * collectives of the library's own (MPI_Bcast on an intercommunicator:
 * a collective never takes a point-to-point message): the first ltid, the
 * intercommunicator's name (mpi_comm.c) and the parents' ltids.  A child
 * receives them in MPI_Init (pgm_spawn_start), before it opens its logs:
 * its ltid is then base + rank + 1.
 *
 * Inside the library a process is named by its "world rank" (pg_mpi.h:
 * ltid - 1); a spawned job's world rank r is base + r, and a remote rank
 * of a spawn's intercommunicator is looked up in a table kept on the
 * intercommunicator (mpi_state.c, pgm_inter_remember).  An
 * intercommunicator the library did not see made (MPI_Intercomm_create,
 * MPI_Comm_connect/accept) has no table: refused by name at its first
 * point-to-point call, as before.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "pg_mpi.h"

static int spawns_done; /* this rank's <spawn> events, made or followed */

/* ---- the first ltid of a spawn ------------------------------------------ */

/* Recording: n ltids free in the run, after every ltid given so far: the
 * counter PGM_SPAWNS_NAME holds the next one (absent: after this job,
 * the first job's ranks).  A replay keeps it past the ltids it gives
 * again (a what-if records after following). */
static int take_ltids(int n, int replayed_base)
{
    const char *dir = getenv(PGM_ENV_NOTES);
    char path[PATH_MAX], text[32] = "";
    int fd, next = 0, base;
    ssize_t got;

    if (!dir || !*dir ||
        snprintf(path, sizeof path, "%s/" PGM_SPAWNS_NAME, dir) >=
            (int)sizeof path ||
        (fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) <
            0) {
        if (replayed_base >= 0)
            return replayed_base;
        pgm_die(PGM_REFUSED, "MPI_Comm_spawn: no directory of pangaea's "
                "for the run (%s) where spawned ranks take their ltids: "
                "start the launcher with pangaea", PGM_ENV_NOTES);
    }
    if (flock(fd, LOCK_EX) < 0)
        pgm_die(PGM_REFUSED, "MPI_Comm_spawn: cannot lock %s", path);
    if ((got = pread(fd, text, sizeof text - 1, 0)) > 0)
        next = atoi(text);
    if (next < pgm.base + pgm.size + 1)
        next = pgm.base + pgm.size + 1;
    base = replayed_base >= 0 ? replayed_base : next - 1;
    if (base + n + 1 > next)
        next = base + n + 1;
    got = snprintf(text, sizeof text, "%d\n", next);
    if (ftruncate(fd, 0) < 0 || pwrite(fd, text, (size_t)got, 0) != got)
        pgm_die(PGM_REFUSED, "MPI_Comm_spawn: cannot write %s", path);
    close(fd); /* the lock goes with it */
    return base;
}

/* Replay: the ltids the recording gave the children of this rank's next
 * `count` <spawn> events (one call of MPI_Comm_spawn_multiple makes one
 * per command), n children in all; their first, less one. */
static int recorded_base(int count, int n)
{
    char dir[PATH_MAX], path[PATH_MAX + 64];
    pg_log_header h;
    pg_event ev;
    pg_err err;
    pg_logr *r;
    int k = 0, base = -1, kids = 0, rc;

    snprintf(dir, sizeof dir, "%s",
             pgm.whatif ? pgm_force_old_log() : pgm.dir);
    if (pgm.whatif) /* its old comm log's directory */
        snprintf(dir, sizeof dir, "%s", dirname(dir));
    pg_log_path(path, sizeof path, dir, pgm.ltid, PG_LOG_EXEC);
    if (!(r = pg_logr_open(path, PG_LOG_EXEC, &h, &err)))
        pgm_die(PGM_REFUSED, "cannot replay MPI_Comm_spawn: %s", err.msg);
    while ((rc = pg_logr_next(r, &ev, &err)) == 1)
        if (ev.kind == PG_EV_SPAWN && k++ >= spawns_done) {
            if (base < 0 && ev.nchild > 0)
                base = ev.child_ltid[0] - 1;
            kids += ev.nchild;
            if (k == spawns_done + count)
                break;
        }
    pg_logr_close(r);
    if (k < spawns_done + count || kids != n)
        pgm_die(PGM_DIVERGED, "the replay diverged at MPI_Comm_spawn: the "
                "recording's %s has %s (%d ranks started), this run's call "
                "started %d", path,
                k < spawns_done + count ? "fewer spawns" : "this spawn",
                kids, n);
    spawns_done += count;
    return base;
}

/* Recording (a what-if rank too): the spawn in the execution log, as a
 * PVM task's pvm_spawn (children in ltid order); n children in all, of
 * count commands asking for maxprocs[i] each. */
static void log_spawns(int count, char **commands, char ***argvs,
                       const int *maxprocs, int n, int base)
{
    int i, j, first = base + 1, got, *kids;

    if (!pgm.exec)
        return;
    if (!(kids = malloc(((size_t)n + 1) * sizeof *kids)))
        pgm_die(PGM_REFUSED, "out of memory");
    for (i = 0; i < count; i++, first += got) {
        got = maxprocs[i] < 0 ? 0 : maxprocs[i];
        if (got > base + n + 1 - first || i == count - 1)
            got = base + n + 1 - first;
        for (j = 0; j < got; j++)
            kids[j] = first + j;
        if (pg_logw_spawn(pgm.exec, pgm_now(), commands[i],
                          argvs && argvs[i] != MPI_ARGV_NULL ? argvs[i]
                                                             : NULL,
                          0, "", maxprocs[i], got, kids, NULL) < 0)
            pgm_die(PGM_REFUSED, "cannot write its execution log in %s",
                    pgm.dir);
    }
    free(kids);
    if (pgm.mode == PGM_LOG)
        spawns_done += count;
}

/* ---- the spawn ---------------------------------------------------------- */

/* After a spawn over comm (root `root`) made inter: every parent learns
 * the children's first ltid, names the intercommunicator and its remote
 * ranks; comm's rank 0 tells the children (pgm_spawn_start). */
static void spawned(MPI_Comm comm, int root, MPI_Comm inter, int count,
                    char **commands, char ***argvs, const int *maxprocs)
{
    int me, np, n, base = 0, hdr[3], i, *u;

    PMPI_Comm_rank(comm, &me);
    PMPI_Comm_size(comm, &np);
    PMPI_Comm_remote_size(inter, &n);
    if (me == root) {
        if (pgm.mode == PGM_REPLAY)
            base = take_ltids(n, recorded_base(count, n));
        else
            base = take_ltids(n, -1);
        if (pgm.mode == PGM_LOG || pgm.whatif)
            log_spawns(count, commands, argvs, maxprocs, n, base);
    }
    PMPI_Bcast(&base, 1, MPI_INT, root, comm);
    if (!(u = malloc(((size_t)(n > np ? n : np) + 1) * sizeof *u)))
        pgm_die(PGM_REFUSED, "out of memory");
    for (i = 0; i < n; i++)
        u[i] = base + i;
    pgm_inter_remember(inter, n, u);
    hdr[0] = base, hdr[1] = pgm_ctx_made(comm, inter), hdr[2] = np;
    for (i = 0; i < np; i++)
        u[i] = pgm_to_world(comm, i, "MPI_Comm_spawn");
    PMPI_Bcast(hdr, 3, MPI_INT, me == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    PMPI_Bcast(u, np, MPI_INT, me == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    free(u);
}

void pgm_spawn_start(void)
{
    MPI_Comm parent = MPI_COMM_NULL;
    int hdr[3], *u;

    if (PMPI_Comm_get_parent(&parent) != MPI_SUCCESS ||
        parent == MPI_COMM_NULL)
        return;
    PMPI_Bcast(hdr, 3, MPI_INT, 0, parent);
    if (hdr[2] < 1 || !(u = malloc((size_t)hdr[2] * sizeof *u)))
        pgm_die(PGM_REFUSED, "MPI_Init of a spawned rank: its parents "
                "sent no ltids");
    PMPI_Bcast(u, hdr[2], MPI_INT, 0, parent);
    pgm.base = hdr[0];
    pgm_inter_remember(parent, hdr[2], u);
    pgm_ctx_set(parent, hdr[1]);
    free(u);
}

#ifndef OPEN_MPI
/* Debian's MPICH 4.0.2 (ch4:ucx) starts no process: its UCX netmod has
 * no dynamic processes, and MPI_Comm_spawn aborts the job with "Error in
 * spawn call" (MPI_Open_port says why: "not supported with ucx netmod";
 * docs/mpi-notes.md).  Asked once, errors returned rather than fatal, so
 * the run ends naming the call and why rather than MPICH's stack alone. */
static void can_spawn(void)
{
    static int known;
    char port[MPI_MAX_PORT_NAME], why[MPI_MAX_ERROR_STRING] = "";
    MPI_Errhandler self, world;
    int rc, n = 0;

    if (known)
        return;
    PMPI_Comm_get_errhandler(MPI_COMM_SELF, &self);
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &world);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = PMPI_Open_port(MPI_INFO_NULL, port);
    if (rc == MPI_SUCCESS)
        PMPI_Close_port(port);
    else
        PMPI_Error_string(rc, why, &n);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, self);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, world);
    PMPI_Errhandler_free(&self);
    PMPI_Errhandler_free(&world);
    if (rc != MPI_SUCCESS) /* MPICH's stack: the last line says why */
        pgm_die(PGM_REFUSED, "MPI_Comm_spawn: this MPICH cannot start "
                "processes (MPI_Open_port: %s); Pangaea records spawns "
                "with Open MPI (README.md, MPI programs)",
                strrchr(why, ':') ? strrchr(why, ':') + 2 : why);
    known = 1;
}
#else
static void can_spawn(void)
{
}
#endif

PGM_API int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs,
                           MPI_Info info, int root, MPI_Comm comm,
                           MPI_Comm *intercomm, int errcodes[])
{
    int rc;
    char *cmd = (char *)command;

    PGM_SITE();
    if (pgm.mode != PGM_OFF)
        can_spawn();
    rc = PMPI_Comm_spawn(command, argv, maxprocs, info, root, comm,
                         intercomm, errcodes);
    if (rc == MPI_SUCCESS && pgm.mode != PGM_OFF)
        spawned(comm, root, *intercomm, 1, &cmd, &argv, &maxprocs);
    return rc;
}

PGM_API int MPI_Comm_spawn_multiple(int count, char *commands[],
                                    char **argvs[], const int maxprocs[],
                                    const MPI_Info infos[], int root,
                                    MPI_Comm comm, MPI_Comm *intercomm,
                                    int errcodes[])
{
    int rc;

    PGM_SITE();
    if (pgm.mode != PGM_OFF)
        can_spawn();
    rc = PMPI_Comm_spawn_multiple(count, commands, argvs, maxprocs, infos,
                                  root, comm, intercomm, errcodes);
    if (rc == MPI_SUCCESS && pgm.mode != PGM_OFF)
        spawned(comm, root, *intercomm, count, commands, argvs, maxprocs);
    return rc;
}
