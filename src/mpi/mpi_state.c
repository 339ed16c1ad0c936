/*
 * mpi_state.c - the MPI front end's state (pg_mpi.h): the rank, the
 * message counters, the clock, ending a run that cannot go on.
 *
 * Design.  The counters name the messages taken (pg_mpi.h): one per
 * (sender rank, tag, communicator), in an open-addressing table that
 * doubles when half full; a program uses few tags, peers and
 * communicators, so lookups are one or two probes.  MPI's
 * non-overtaking rule holds per communicator, so the count does too
 * (mpi_comm.c names the communicators; docs/mpi-notes.md).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pg_mpi.h"

struct pgm_state pgm;

struct slot {
    int used, peer, tag, ctx, count;
};
static struct slot *tab;
static size_t cap, used;
/* The counter used last (NULL after the table grew): a loop takes from
 * one sender and tag, found here without hashing. */
static struct slot *last;

/* The C library's clock_gettime, not the library's own wrapper of it
 * (mpi_clock.c, which records the program's calls). */
double pgm_now(void)
{
    static int (*real)(clockid_t, struct timespec *);
    struct timespec ts;

    if (!real && !(real = (int (*)(clockid_t, struct timespec *))dlsym(
                       RTLD_NEXT, "clock_gettime")))
        return 0;
    real(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t hash(int peer, int tag, int ctx)
{
    uint64_t h = (uint64_t)(unsigned)peer * 0x9E3779B97F4A7C15ull ^
                 (uint64_t)(unsigned)tag * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)(unsigned)ctx * 0x165667B19E3779F9ull;

    return (size_t)(h ^ h >> 29);
}

static struct slot *find(struct slot *t, size_t n, int peer, int tag,
                         int ctx)
{
    size_t i = hash(peer, tag, ctx) & (n - 1);

    while (t[i].used &&
           !(t[i].peer == peer && t[i].tag == tag && t[i].ctx == ctx))
        i = (i + 1) & (n - 1);
    return &t[i];
}

static int grow(void)
{
    size_t n = cap ? 2 * cap : 64, i;
    struct slot *t = calloc(n, sizeof *t), *s;

    if (!t)
        return -1;
    for (i = 0; i < cap; i++)
        if (tab[i].used) {
            s = find(t, n, tab[i].peer, tab[i].tag, tab[i].ctx);
            *s = tab[i];
        }
    free(tab);
    tab = t;
    cap = n;
    last = NULL;
    return 0;
}

/* The counter of (peer, tag, ctx), made if new, NULL if out of memory;
 * remembered as the last (apart from pgm_count: its usual case then sets
 * up no frame). */
static __attribute__((noinline)) struct slot *counter(int peer, int tag,
                                                      int ctx)
{
    struct slot *s;

    if (2 * (used + 1) > cap && grow() < 0)
        return NULL;
    s = find(tab, cap, peer, tag, ctx);
    if (!s->used) {
        *s = (struct slot){ 1, peer, tag, ctx, 0 };
        used++;
    }
    return last = s;
}

int pgm_count(int peer, int tag, int ctx, int take)
{
    struct slot *s = last;

    if ((!s || s->peer != peer || s->tag != tag || s->ctx != ctx) &&
        !(s = counter(peer, tag, ctx)))
        return -1;
    if (s->count == INT32_MAX)
        pgm_die(PGM_REFUSED, "more than %d messages of tag %d from rank %d: "
                "beyond what a log's message id holds", INT32_MAX, tag, peer);
    return take ? ++s->count : s->count + 1;
}

/* The predefined datatypes programs send most, with their sizes once
 * asked (0: not yet): PMPI_Type_size cost about 66 instructions a send
 * with MPICH, as much as the send's wrapper itself (bench/mpi_insn.sh).
 * Predefined handles only: they are never freed, whereas a derived
 * type's handle may come back for another type. */
static struct {
    MPI_Datatype type;
    int size;
} sizes[] = {
    { MPI_DOUBLE, 0 }, { MPI_INT, 0 },  { MPI_BYTE, 0 },
    { MPI_CHAR, 0 },   { MPI_FLOAT, 0 }, { MPI_LONG, 0 },
};

struct pgm_last_type pgm_last_type = { MPI_DATATYPE_NULL, -1 };

static int type_size(MPI_Datatype type)
{
    size_t i;
    int size = 0;

    for (i = 0; i < sizeof sizes / sizeof *sizes; i++)
        if (sizes[i].type == type) {
            if (!sizes[i].size &&
                PMPI_Type_size(type, &sizes[i].size) != MPI_SUCCESS)
                sizes[i].size = 0;
            pgm_last_type.type = type; /* pgm_bytes's next, inline */
            pgm_last_type.size = sizes[i].size;
            return sizes[i].size;
        }
    return PMPI_Type_size(type, &size) == MPI_SUCCESS ? size : 0;
}

/* pgm_bytes (pg_mpi.h) for another type than the one sized last. */
int pgm_bytes_of(MPI_Datatype type, int count)
{
    int size = type_size(type);
    long long n;

    if (count < 0)
        return 0;
    n = (long long)size * count;
    return n > INT32_MAX ? INT32_MAX : (int)n;
}

int pgm_leave_note(int code, const char *msg)
{
    const char *dir = getenv(PGM_ENV_NOTES);
    char path[4096], text[1100];
    int fd, n, ok;

    if (!dir || !*dir || snprintf(path, sizeof path, "%s/" PGM_NOTE_NAME,
                                  dir, pgm.ltid) >= (int)sizeof path)
        return -1;
    n = snprintf(text, sizeof text, "%d\n%s", code, msg);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    ok = write(fd, text, (size_t)n) == n;
    return close(fd) == 0 && ok ? 0 : -1;
}

void pgm_die(int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    int n;

    n = snprintf(msg, sizeof msg, "pangaea: ltid %d (rank %d): ", pgm.ltid,
                 pgm.rank);
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof msg - n - 1, fmt, ap);
    va_end(ap);
    strcat(msg, "\n");
    /* Said by pangaea after the run, else here in one write (a launcher
     * forwards each write on its own).  Not MPI_Abort: MPICH's hydra then
     * tore the job down before forwarding the rank's last words, now and
     * then, and Open MPI 4.1.4's orterun once hung for good after it; a
     * rank that exits non-zero without MPI_Finalize makes either launcher
     * end the job (docs/mpi-notes.md). */
    if (pgm_leave_note(code, msg) < 0 && write(2, msg, strlen(msg)) < 0)
        n = 0;
    if (pgm.comm)
        pg_logw_flush(pgm.comm);
    _exit(code);
}

/* ---- spawns' ranks (mpi_spawn.c) ------------------------------------- */

int pgm_first_spawned(const char *dir, int ranks)
{
    char path[PATH_MAX + 64];
    pg_log_header h;
    pg_event ev;
    pg_err err;
    pg_logr *r;
    int ltid, i, first = 0;

    for (ltid = 1; ltid <= ranks; ltid++) {
        pg_log_path(path, sizeof path, dir, ltid, PG_LOG_EXEC);
        if (!(r = pg_logr_open(path, PG_LOG_EXEC, &h, &err)))
            continue;
        while (pg_logr_next(r, &ev, &err) == 1)
            for (i = 0; ev.kind == PG_EV_SPAWN && i < ev.nchild; i++)
                if (!first || ev.child_ltid[i] < first)
                    first = ev.child_ltid[i];
        pg_logr_close(r);
    }
    return first;
}

void pgm_check_ranks(const char *dir, const char *what)
{
    char path[PATH_MAX + 64];
    struct stat st;
    int first;

    if (pgm.rank != 0 || pgm.base != 0)
        return;
    first = pgm_first_spawned(dir, pgm.size);
    if (first && first <= pgm.size)
        pgm_die(PGM_REFUSED, "%s had %d ranks, this run has %d (its ltid %d "
                "is a rank MPI_Comm_spawn started, in %s): give the launcher "
                "the recorded number", what, first - 1, pgm.size, first, dir);
    pg_log_path(path, sizeof path, dir, pgm.size + 1, PG_LOG_COMM);
    if (first != pgm.size + 1 && stat(path, &st) == 0)
        pgm_die(PGM_REFUSED, "%s has more ranks than the %d of this run "
                "(%s): give the launcher the recorded number", what,
                pgm.size, path);
}

/* ---- communicators ------------------------------------------------------ */

/* A log names ranks of MPI_COMM_WORLD (as ltids), whatever communicator
 * the call was on: ranks of others are translated through their groups.
 * The world's own path costs nothing (pg_mpi.h, inline); another
 * communicator's translation is made once, at its first message, and
 * kept on it as an attribute of a keyval of our own (struct ranks): a
 * group lookup, its translation and its freeing cost ~500 instructions
 * a call with MPICH (bench/mpi_insn.sh on a dup of the world).  The
 * attribute goes with the communicator (its delete callback), so a
 * freed communicator's handle given to the next one made is no stale
 * key; the last communicator used is found without asking MPI, and
 * forgotten by that callback too. */
static MPI_Group world_group(void)
{
    static MPI_Group g = MPI_GROUP_NULL;

    if (g == MPI_GROUP_NULL)
        PMPI_Comm_group(MPI_COMM_WORLD, &g);
    return g;
}

static int translate(MPI_Comm comm, int rank, int to_world)
{
    MPI_Group g;
    int out = MPI_UNDEFINED;

    PMPI_Comm_group(comm, &g);
    if (to_world)
        PMPI_Group_translate_ranks(g, 1, &rank, world_group(), &out);
    else
        PMPI_Group_translate_ranks(world_group(), 1, &rank, g, &out);
    PMPI_Group_free(&g);
    return out;
}

/* pgm_to_world and pgm_from_world (pg_mpi.h) on another communicator
 * than MPI_COMM_WORLD, for a rank >= 0.  An intercommunicator names
 * ranks of its remote group: a spawn's is told them (pgm_inter_remember,
 * as world ranks, ltid - 1); any other has none (world NULL): refused. */
struct ranks {
    int inter;     /* an intercommunicator */
    int size;      /* of the communicator (its remote group's) */
    int *world;    /* world rank of each rank: of this job's world
                      (pgm.base not added), or an intercommunicator's
                      remote ranks as world ranks */
    int *of_world; /* the communicator's rank of each world rank
                      (MPI_UNDEFINED: not in it); made at its first use */
};
static int ranks_key = MPI_KEYVAL_INVALID;
static MPI_Comm last_comm = MPI_COMM_NULL;
static struct ranks *last_ranks;

static int ranks_gone(MPI_Comm comm, int key, void *attr, void *extra)
{
    struct ranks *r = attr;

    (void)comm, (void)key, (void)extra;
    if (r == last_ranks)
        last_comm = MPI_COMM_NULL, last_ranks = NULL;
    free(r->world);
    free(r->of_world);
    free(r);
    return MPI_SUCCESS;
}

/* comm's translation, made at its first use; NULL if MPI or memory
 * fails (the caller then asks MPI each time, as before). */
static int ranks_keyval(void)
{
    return ranks_key != MPI_KEYVAL_INVALID ||
           PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, ranks_gone,
                                   &ranks_key, NULL) == MPI_SUCCESS;
}

static struct ranks *ranks_made(MPI_Comm comm)
{
    struct ranks *r;
    MPI_Group g;
    int i, *mine;

    if (!ranks_keyval())
        return NULL;
    if (!(r = calloc(1, sizeof *r)))
        return NULL;
    PMPI_Comm_test_inter(comm, &r->inter);
    if (!r->inter) {
        PMPI_Comm_size(comm, &r->size);
        r->world = malloc((size_t)r->size * sizeof *r->world);
        mine = malloc((size_t)r->size * sizeof *mine);
        if (!r->world || !mine) {
            free(r->world), free(mine), free(r);
            return NULL;
        }
        for (i = 0; i < r->size; i++)
            mine[i] = i;
        PMPI_Comm_group(comm, &g);
        PMPI_Group_translate_ranks(g, r->size, mine, world_group(),
                                   r->world);
        PMPI_Group_free(&g);
        free(mine);
    }
    if (PMPI_Comm_set_attr(comm, ranks_key, r) != MPI_SUCCESS) {
        free(r->world), free(r);
        return NULL;
    }
    return r;
}

/* comm's translation: the last one used, kept on comm, or made. */
static struct ranks *ranks_of(MPI_Comm comm)
{
    struct ranks *r = NULL;
    int flag = 0;

    if (last_ranks && comm == last_comm)
        return last_ranks;
    if (ranks_key == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(comm, ranks_key, &r, &flag) != MPI_SUCCESS ||
        !flag)
        r = ranks_made(comm);
    if (r)
        last_comm = comm, last_ranks = r;
    return r;
}

void pgm_inter_remember(MPI_Comm inter, int n, const int *u)
{
    struct ranks *r;

    if (!ranks_keyval())
        pgm_die(PGM_REFUSED, "MPI_Comm_spawn: cannot make a keyval");
    if (!(r = calloc(1, sizeof *r)) ||
        !(r->world = malloc((size_t)(n ? n : 1) * sizeof *r->world)))
        pgm_die(PGM_REFUSED, "out of memory");
    r->inter = 1;
    r->size = n;
    memcpy(r->world, u, (size_t)n * sizeof *u);
    if (PMPI_Comm_set_attr(inter, ranks_key, r) != MPI_SUCCESS)
        pgm_die(PGM_REFUSED, "MPI_Comm_spawn: cannot name its "
                "intercommunicator's ranks");
}

/* A remote rank of an intercommunicator as a world rank: a spawn's (r's
 * table), any other refused naming `call`. */
static int inter_to_world(const struct ranks *r, int rank, const char *call)
{
    if (!r || !r->world)
        pgm_die(PGM_REFUSED, "%s on an intercommunicator: Pangaea "
                "records those MPI_Comm_spawn makes, not this one (made by "
                "MPI_Intercomm_create, MPI_Comm_connect, ...: README.md, "
                "MPI programs); nothing is recorded past this call", call);
    if (rank >= r->size)
        pgm_die(PGM_REFUSED, "%s: rank %d of an intercommunicator whose "
                "remote group has %d", call, rank, r->size);
    return r->world[rank];
}

static int inter_from_world(const struct ranks *r, int world)
{
    int i;

    for (i = 0; r && r->world && i < r->size; i++)
        if (r->world[i] == world)
            return i;
    return MPI_UNDEFINED;
}

static int inter(MPI_Comm comm)
{
    int yes = 0;

    PMPI_Comm_test_inter(comm, &yes);
    return yes;
}

/* World ranks are pgm.base + a rank of this job's MPI_COMM_WORLD (0 in
 * the first job; a spawned job's: mpi_spawn.c); a spawn's
 * intercommunicator names ranks of the other job by its table. */
int pgm_to_world_other(MPI_Comm comm, int rank, const char *call)
{
    struct ranks *r;
    int w;

    if (rank < 0)
        return rank; /* MPI_ANY_SOURCE, MPI_PROC_NULL */
    if (comm == MPI_COMM_WORLD)
        return pgm.base + rank; /* pgm_to_world's own case (pg_mpi.h) */
    r = ranks_of(comm);
    if (r ? r->inter : inter(comm))
        return inter_to_world(r, rank, call);
    if (r && rank >= r->size)
        return MPI_UNDEFINED; /* no such rank: MPI refuses the call */
    if ((w = r ? r->world[rank] : translate(comm, rank, 1)) == MPI_UNDEFINED)
        pgm_die(PGM_REFUSED, "%s on a communicator holding ranks of "
                "another job (MPI_Intercomm_merge of a spawn's "
                "intercommunicator): not recorded (README.md, MPI "
                "programs); nothing is recorded past this call", call);
    return pgm.base + w;
}

/* The reverse of r->world, made at the first use: world ranks of a
 * replay's recorded sources. */
static int of_world(struct ranks *r, int world)
{
    int i, n = pgm.size;

    if (!r->of_world) {
        if (!(r->of_world = malloc((size_t)n * sizeof *r->of_world)))
            return -2;
        for (i = 0; i < n; i++)
            r->of_world[i] = MPI_UNDEFINED;
        for (i = 0; i < r->size; i++)
            if (r->world[i] >= 0 && r->world[i] < n)
                r->of_world[r->world[i]] = i;
    }
    return world < n ? r->of_world[world] : MPI_UNDEFINED;
}

int pgm_from_world_other(MPI_Comm comm, int world)
{
    unsigned u = (unsigned)(world - pgm.base);
    struct ranks *r;
    int rank = -2;

    if (world < 0)
        return world;
    if (comm == MPI_COMM_WORLD)
        return u < (unsigned)pgm.size ? (int)u : MPI_UNDEFINED;
    r = ranks_of(comm);
    if (r ? r->inter : inter(comm))
        return inter_from_world(r, world);
    if (u >= (unsigned)pgm.size)
        return MPI_UNDEFINED; /* a rank of another job */
    if (r)
        rank = of_world(r, (int)u);
    return rank == -2 ? translate(comm, (int)u, 0) : rank;
}
