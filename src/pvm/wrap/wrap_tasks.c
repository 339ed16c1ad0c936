/*
 * wrap_tasks.c - pvm_tasks and pvm_config: what the virtual machine holds,
 * as the program may see it.
 *
 * Two things are wrong with PVM's answers under `pangaea`:
 *  - they list Pangaea's own tasks: `pangaea` itself and its coordinator,
 *    and those of any other `pangaea` run on the same virtual machine (a
 *    server and its client recorded apart).  A program that counts the
 *    tasks of the machine (NetPIPE refuses to run unless it finds exactly
 *    its own two) must not see them, so they are taken out of every
 *    pvm_tasks answer, and the first task's parent (`pangaea`) reads as
 *    none, as pvm_parent says (wrap_spawn.c).  Another run's tasks are
 *    known by their programs: a coordinator runs pangaea-coord (-debug's
 *    hook pangaea-debugger), and the task that spawned one is a `pangaea`;
 *  - they depend on timing (which tasks still run, which hosts are up), so
 *    a program that polls them takes other branches from run to run.  Each
 *    call is a <query call="pvm_tasks|pvm_config"> event whose answer is a
 *    record of the data file (datafile.c); a replay gives that answer back
 *    without asking PVM.  Tids differ from run to run: a task of the run is
 *    recorded by its ltid and given back as the tid that ltid has in the
 *    replay; a task outside the run keeps its recorded tid, and so do
 *    pids, flags and host (pvmd) tids, which are the recording's.
 * A what-if run (whatif.c) follows its recording up to the forced receive:
 * there the recorded query is checked and passed over, and the answer is
 * PVM's of today (the run goes its own way after that receive anyway).
 * The arrays returned are ours, valid until the next call, as PVM's are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_internal.h"

#define NO_LTID (-1)

/* ---- a byte buffer for records ---------------------------------------- */
struct out {
    char *p;
    size_t n, cap;
};

static void put(struct out *o, const void *v, size_t n)
{
    if (o->n + n > o->cap) {
        o->cap = (o->n + n) * 2 + 256;
        if (!(o->p = realloc(o->p, o->cap)))
            pg_fatal("out of memory");
    }
    memcpy(o->p + o->n, v, n);
    o->n += n;
}

static void put_int(struct out *o, int v)
{
    int32_t x = v;

    put(o, &x, sizeof x);
}

static void put_str(struct out *o, const char *s)
{
    put(o, s ? s : "", strlen(s ? s : "") + 1);
}

struct in {
    const char *p, *end;
};

static int get_int(struct in *i)
{
    int32_t x;

    if (i->p + sizeof x > i->end)
        pg_fatal("a recorded task or host table is cut short");
    memcpy(&x, i->p, sizeof x);
    i->p += sizeof x;
    return x;
}

static const char *get_str(struct in *i)
{
    const char *s = i->p, *nul = memchr(s, 0, i->end - s);

    if (!nul)
        pg_fatal("a recorded task or host table is cut short");
    i->p = nul + 1;
    return s;
}

/* ---- tids as ltids and back -------------------------------------------- */
/* Hidden: `pangaea`, the coordinator, and the entries of tid 0 that PVM
 * lists while a process enrols (a connection not yet a task; they show
 * while Pangaea's tasks start, and are no task the program could use). */
static int own_task(int tid)
{
    return tid <= 0 || tid == pg.top || tid == pg.coord;
}

/* 1 if a_out is one of Pangaea's programs. */
static int pangaea_program(const char *a_out)
{
    static const char *const ours[] = { "pangaea", "pangaea-coord",
                                        "pangaea-debugger" };
    const char *base = a_out && strrchr(a_out, '/') ? strrchr(a_out, '/') + 1
                                                    : a_out ? a_out : "";
    size_t i;

    for (i = 0; i < sizeof ours / sizeof ours[0]; i++)
        if (!strcmp(base, ours[i]))
            return 1;
    return 0;
}

/* Hidden in an answer of n tasks: ours, any Pangaea program, and the
 * parent of a coordinator (another run's `pangaea`). */
static int is_ours(int tid, int n, const struct pvmtaskinfo *ti)
{
    int i;

    if (own_task(tid))
        return 1;
    for (i = 0; i < n; i++)
        if (pangaea_program(ti[i].ti_a_out) &&
            (ti[i].ti_tid == tid || ti[i].ti_ptid == tid))
            return 1;
    return 0;
}

/* A task tid: its ltid, or NO_LTID (outside the run, or none). */
static int ltid_of_task(int tid)
{
    if (tid <= 0 || (tid & 0x3ffff) == 0) /* none, or a daemon */
        return NO_LTID;
    return pg_ltid_now(tid) >= 0 ? pg_ltid_now(tid) : NO_LTID;
}

static int tid_back(int ltid, int recorded)
{
    int tid;

    if (ltid == NO_LTID)
        return recorded;
    tid = pg_tid_of(ltid);
    return tid > 0 ? tid : recorded;
}

/* ---- pvm_tasks --------------------------------------------------------- */
static struct pvmtaskinfo *tasks;
static char *tasks_text;

/* The answer without our tasks, as a 'T' record. */
static void tasks_record(struct out *o, int n, const struct pvmtaskinfo *ti)
{
    int i, kept = 0;

    for (i = 0; i < n; i++)
        kept += !is_ours(ti[i].ti_tid, n, ti);
    put_int(o, kept);
    for (i = 0; i < n; i++) {
        int ptid = ti[i].ti_ptid > 0 && is_ours(ti[i].ti_ptid, n, ti)
                       ? 0 : ti[i].ti_ptid;

        if (is_ours(ti[i].ti_tid, n, ti))
            continue;
        put_int(o, ltid_of_task(ti[i].ti_tid));
        put_int(o, ti[i].ti_tid);
        put_int(o, ltid_of_task(ptid));
        put_int(o, ptid);
        put_int(o, ti[i].ti_host);
        put_int(o, ti[i].ti_flag);
        put_int(o, ti[i].ti_pid);
        put_str(o, ti[i].ti_a_out);
    }
}

/* The table of a 'T' record, in our arrays, tids of this run. */
static int tasks_from(const char *rec, size_t size, struct pvmtaskinfo **out)
{
    struct in in = { rec, rec + size };
    int n = get_int(&in), i, l;

    free(tasks);
    free(tasks_text);
    tasks = calloc(n > 0 ? n : 1, sizeof *tasks);
    tasks_text = malloc(size ? size : 1); /* the names, kept */
    if (!tasks || !tasks_text)
        pg_fatal("out of memory");
    memcpy(tasks_text, rec, size);
    in = (struct in){ tasks_text + sizeof(int32_t), tasks_text + size };
    for (i = 0; i < n; i++) {
        l = get_int(&in);
        tasks[i].ti_tid = tid_back(l, get_int(&in));
        l = get_int(&in);
        tasks[i].ti_ptid = tid_back(l, get_int(&in));
        tasks[i].ti_host = get_int(&in);
        tasks[i].ti_flag = get_int(&in);
        tasks[i].ti_pid = get_int(&in);
        tasks[i].ti_a_out = (char *)get_str(&in);
    }
    *out = tasks;
    return n;
}

static void where_text(int where, char *buf, size_t size)
{
    if ((where & 0x3ffff) == 0) /* all (0), or one host (a pvmd's tid) */
        snprintf(buf, size, "t%x", where);
    else
        snprintf(buf, size, "ltid %d", pg_peer_ltid(where));
}

int pvm_tasks(int where, int *ntask, struct pvmtaskinfo **taskp)
{
    struct pvmtaskinfo *ti = NULL;
    struct out o = { 0 };
    char about[64];
    size_t size;
    char *rec;
    int cc, n = 0;

    /* `pangaea` itself (ltid 0, monitor.c) sees every task */
    PG_RETURN_REAL_UNLESS(tasks, pg_app_call() && pg.ltid != 0,
                          pg_real.tasks(where, ntask, taskp));
    PG_ENTER();
    where_text(where, about, sizeof about);
    if (pg_replaying() && pg_selected(-1)) { /* a what-if records it too */
        cc = pg_replay_query("pvm_tasks", about);
        if (cc >= 0) {
            rec = pg_data_get('T', &size);
            n = tasks_from(rec, size, &ti);
            if (pg.mode == PANGAEA_LOG)
                pg_data_put('T', rec, size);
            free(rec);
        }
        if (pg.mode == PANGAEA_LOG)
            pg_record_query("pvm_tasks", about, cc);
    } else {
        if (pg_replay_steers() && pg_selected(-1)) /* a what-if run */
            pg_replay_query("pvm_tasks", about); /* in step; today's answer */
        cc = pg_real.tasks(where, &n, &ti);
        if (cc >= 0)
            tasks_record(&o, n, ti);
        if (cc >= 0)
            n = tasks_from(o.p, o.n, &ti); /* the same, without ours */
        if (pg.mode == PANGAEA_LOG && pg_selected(-1)) {
            if (cc >= 0)
                pg_data_put('T', o.p, o.n);
            pg_record_query("pvm_tasks", about, cc);
        }
        free(o.p);
    }
    PG_LEAVE();
    if (cc >= 0 && ntask)
        *ntask = n;
    if (cc >= 0 && taskp)
        *taskp = ti;
    return cc;
}

/* ---- pvm_config ------------------------------------------------------- */
static struct pvmhostinfo *hosts;
static char *hosts_text;

static void hosts_record(struct out *o, int nhost, int narch,
                         const struct pvmhostinfo *hi)
{
    int i;

    put_int(o, nhost);
    put_int(o, narch);
    for (i = 0; i < nhost; i++) {
        put_int(o, hi[i].hi_tid);
        put_int(o, hi[i].hi_speed);
        put_int(o, hi[i].hi_dsig);
        put_str(o, hi[i].hi_name);
        put_str(o, hi[i].hi_arch);
    }
}

static int hosts_from(const char *rec, size_t size, int *narch,
                      struct pvmhostinfo **out)
{
    struct in in;
    int n, i;

    free(hosts_text);
    if (!(hosts_text = malloc(size ? size : 1)))
        pg_fatal("out of memory");
    memcpy(hosts_text, rec, size);
    in = (struct in){ hosts_text, hosts_text + size };
    n = get_int(&in);
    *narch = get_int(&in);
    free(hosts);
    if (!(hosts = calloc(n > 0 ? n : 1, sizeof *hosts)))
        pg_fatal("out of memory");
    for (i = 0; i < n; i++) {
        hosts[i].hi_tid = get_int(&in);
        hosts[i].hi_speed = get_int(&in);
        hosts[i].hi_dsig = get_int(&in);
        hosts[i].hi_name = (char *)get_str(&in);
        hosts[i].hi_arch = (char *)get_str(&in);
    }
    *out = hosts;
    return n;
}

int pvm_config(int *nhostp, int *narchp, struct pvmhostinfo **hostp)
{
    struct pvmhostinfo *hi = NULL;
    struct out o = { 0 };
    int cc, n = 0, narch = 0;
    size_t size;
    char *rec;

    PG_RETURN_REAL_UNLESS(config, pg_app_call() && pg.ltid != 0 && pg_selected(-1),
                          pg_real.config(nhostp, narchp, hostp));
    PG_ENTER();
    if (pg_replaying()) { /* a what-if records it too */
        cc = pg_replay_query("pvm_config", "");
        if (cc >= 0) {
            rec = pg_data_get('C', &size);
            n = hosts_from(rec, size, &narch, &hi);
            if (pg.mode == PANGAEA_LOG)
                pg_data_put('C', rec, size);
            free(rec);
        }
        if (pg.mode == PANGAEA_LOG)
            pg_record_query("pvm_config", "", cc);
    } else {
        if (pg_replay_steers()) /* a what-if run: see pvm_tasks */
            pg_replay_query("pvm_config", "");
        cc = pg_real.config(&n, &narch, &hi);
        if (pg.mode == PANGAEA_LOG) {
            if (cc >= 0) {
                hosts_record(&o, n, narch, hi);
                pg_data_put('C', o.p, o.n);
            }
            pg_record_query("pvm_config", "", cc);
        }
        free(o.p);
    }
    PG_LEAVE();
    if (cc >= 0 && nhostp)
        *nhostp = n;
    if (cc >= 0 && narchp)
        *narchp = narch;
    if (cc >= 0 && hostp)
        *hostp = hi;
    return cc;
}
