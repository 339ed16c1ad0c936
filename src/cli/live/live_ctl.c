/*
 * live_ctl.c - the control path of `pangaea -log|-replay -live [-hold]`:
 * holding tasks at their PVM calls from the live page or a script.
 * The routes (live.c) call the handlers below; the tasks'
 * side is src/lib/gate.c.
 *
 * Design.  pangaea talks to a task through the task's position file,
 * PANGAEA_LIVE/ltid-N.pos, which pangaea maps too (read-write): its
 * control block (src/pvm/runtime/live_pos.h) says pause, steps (calls let through
 * while paused), run-to, and a choice among queued messages; the task
 * says there which call it waits before.  The breakpoints are in one file
 * for the run, PANGAEA_LIVE/control, made here before any task starts and
 * mapped by each task, which evaluates them itself (hit counts by an
 * atomic add in that file).  So a control costs the program nothing but
 * the load PG_GATE makes, pangaea keeps no thread per task, and nothing
 * is added to the program's messages.  Every handler runs in the HTTP
 * thread, under one mutex of its own (the snapshot's lock only to read
 * task states).  Tasks are found by listing the directory.
 *
 *   step   [ltid] [from]       held tasks make one call each, then wait
 *                              (from: the holds the asker saw, so two
 *                              tabs clicking at once step once)
 *   pause  [ltid]              tasks stop before their next call
 *   resume [ltid]              tasks go on (breakpoints still apply); all:
 *                              tasks that start later too (all_go)
 *   runto  ltid event          the task runs until it has done `event`
 *   break  [call ltid peer tag size hits site]  a conditional breakpoint
 *                              (site: FILE:LINE or a function; the task
 *                              matches it, gate.c)
 *   unbreak id|all
 * Choosing a message at a racing receive is live_alt.c.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"
#include "live_pos.h"
#include "pg_grow.h"
#include "pg_internal.h"
#include "pg_mpi_env.h"
#include "runlog.h"

#define MAX_TASKS 4096 /* tasks a command names at once */

static pthread_mutex_t cmu = PTHREAD_MUTEX_INITIALIZER;
static struct pg_live_ctl *ctl;
/* The pages mapped so far, by ltid (ltids follow the family tree, so
 * they are sparse: 3001, 3001002...). */
static struct mapped {
    int ltid;
    struct pg_live_pos *p;
} *pages;
static int npages;
static size_t cap_pages;
static char dir[4200];
static char replay_dir[4096]; /* replaying: the recording (its ltids) */
static int next_bp = 1, hold_opt;

/* ---- start and end ------------------------------------------------------- */

int lv_ctl_start(const struct top_opts *o, const char *posdir, pg_err *err)
{
    char path[4400];
    void *map;
    int fd;

    snprintf(dir, sizeof dir, "%s", posdir);
    snprintf(replay_dir, sizeof replay_dir, "%s",
             o->mode == PANGAEA_REPLAY ? o->logdir : "");
    hold_opt = o->hold;
    snprintf(path, sizeof path, "%s/%s", posdir, PG_LIVE_CTL_FILE);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || ftruncate(fd, sizeof *ctl) < 0) {
        if (fd >= 0)
            close(fd);
        return pg_err_set(err, "-live: cannot make %s: %s", path,
                          strerror(errno));
    }
    map = mmap(NULL, sizeof *ctl, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return pg_err_set(err, "-live: cannot map %s: %s", path,
                          strerror(errno));
    ctl = map;
    ctl->magic = PG_LIVE_CTL_MAGIC;
    if (o->hold)
        setenv(PG_ENV_HOLD, "1", 1);
    return 0;
}

void lv_ctl_stop(void)
{
    char path[4400];
    int i;

    pthread_mutex_lock(&cmu);
    for (i = 0; i < npages; i++) {
        pages[i].p->pause = 0; /* nobody can let them go any more */
        pages[i].p->gate = 0;
        munmap(pages[i].p, sizeof *pages[i].p);
    }
    free(pages);
    pages = NULL;
    npages = 0;
    cap_pages = 0;
    if (ctl) {
        ctl->nbp = 0;
        munmap(ctl, sizeof *ctl);
        ctl = NULL;
        snprintf(path, sizeof path, "%s/%s", dir, PG_LIVE_CTL_FILE);
        unlink(path);
    }
    pthread_mutex_unlock(&cmu);
}

void lv_ctl_gone(int ltid)
{
    struct pg_live_pos *p;

    pthread_mutex_lock(&cmu);
    if ((p = lv_ctl_page(ltid))) {
        __atomic_store_n(&p->held, 0, __ATOMIC_RELEASE);
        p->pause = p->gate = 0;
        p->steps = 0;
        p->ncand = 0;
    }
    pthread_mutex_unlock(&cmu);
}

/* ---- the tasks' pages ---------------------------------------------------- */

/* The page of ltid, mapped once it is complete; NULL before (or never). */
static struct pg_live_pos *mapped(int ltid)
{
    int i;

    for (i = 0; i < npages; i++)
        if (pages[i].ltid == ltid)
            return pages[i].p;
    return NULL;
}

struct pg_live_pos *lv_ctl_page(int ltid)
{
    struct pg_live_pos *p;
    struct stat st;
    char path[4400];
    void *map;
    int fd;

    if (ltid <= 0 || !dir[0])
        return NULL;
    if ((p = mapped(ltid)))
        return p;
    snprintf(path, sizeof path, "%s/ltid-%d.pos", dir, ltid);
    if (pg_grow(&pages, &cap_pages, (size_t)npages + 1, sizeof *pages) < 0 ||
        (fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
        return NULL;
    /* A page not yet of its size (the task sizes it after creating it):
     * mapped now, reading it would be a SIGBUS.  Asked again later. */
    if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof *p) {
        close(fd);
        return NULL;
    }
    map = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return NULL;
    if (__atomic_load_n(&((struct pg_live_pos *)map)->magic,
                        __ATOMIC_ACQUIRE) != PG_LIVE_MAGIC) {
        munmap(map, sizeof *p);
        return NULL;
    }
    pages[npages].ltid = ltid;
    pages[npages].p = map;
    npages++;
    return map;
}

/* The ltids with a page, ascending, into ids (at most max); under
 * lv_ctl_lock. */
int lv_ctl_tasks(int *ids, int max)
{
    struct dirent *d;
    DIR *dp = opendir(dir);
    int n = 0, l, i, j;

    if (!dp)
        return 0;
    while ((d = readdir(dp)) && n < max)
        if (sscanf(d->d_name, "ltid-%d.pos", &l) == 1 && lv_ctl_page(l))
            ids[n++] = l;
    closedir(dp);
    for (i = 1; i < n; i++) /* few: insertion sort */
        for (j = i; j > 0 && ids[j - 1] > ids[j]; j--)
            l = ids[j], ids[j] = ids[j - 1], ids[j - 1] = l;
    return n;
}

int lv_ctl_any_held(void)
{
    int i, held = 0;

    pthread_mutex_lock(&cmu);
    for (i = 0; i < npages && !held; i++)
        held = pages[i].p->held;
    pthread_mutex_unlock(&cmu);
    return held;
}

void lv_ctl_lock(void)
{
    pthread_mutex_lock(&cmu);
}

void lv_ctl_unlock(void)
{
    pthread_mutex_unlock(&cmu);
}

/* ---- arguments ----------------------------------------------------------- */

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Decodes application/x-www-form-urlencoded text in place. */
static void url_decode(char *s)
{
    char *o = s;

    for (; *s; s++) {
        if (*s == '+')
            *o++ = ' ';
        else if (*s == '%' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
            *o++ = (char)(hexval(s[1]) * 16 + hexval(s[2]));
            s += 2;
        } else
            *o++ = *s;
    }
    *o = 0;
}

void lv_form_add(struct lv_form *f, const char *k, const char *v)
{
    if (f->n == LV_FORM_MAX) {
        f->dropped++;
        return;
    }
    f->key[f->n] = strdup(k);
    f->val[f->n] = strdup(v ? v : "");
    if (f->key[f->n] && f->val[f->n])
        f->n++;
}

void lv_form_body(struct lv_form *f, char *body)
{
    char *pair, *save = NULL, *eq;

    for (pair = strtok_r(body, "&", &save); pair;
         pair = strtok_r(NULL, "&", &save)) {
        if ((eq = strchr(pair, '=')))
            *eq++ = 0;
        url_decode(pair);
        if (eq)
            url_decode(eq);
        lv_form_add(f, pair, eq);
    }
}

void lv_form_free(struct lv_form *f)
{
    while (f->n > 0) {
        f->n--;
        free(f->key[f->n]);
        free(f->val[f->n]);
    }
}

const char *lv_form_get(const struct lv_form *f, const char *key)
{
    int i;

    for (i = f->n - 1; i >= 0; i--) /* the body's win over the query's */
        if (!strcmp(f->key[i], key))
            return f->val[i];
    return NULL;
}

/* An integer field: 1 and *v; 0 when absent, empty or "any"; -1 when it
 * is not a number. */
int lv_form_int(const struct lv_form *f, const char *key, long *v)
{
    const char *s = lv_form_get(f, key);
    char *end;

    if (!s || !*s || !strcmp(s, "any"))
        return 0;
    errno = 0;
    *v = strtol(s, &end, 10);
    return *end || errno || *v < INT_MIN || *v > INT_MAX ? -1 : 1;
}

int lv_bad(FILE *out, const char *fmt, ...)
{
    char msg[600];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fputs("{\"ok\":false,\"error\":", out);
    top_json_str(out, msg);
    fputs("}\n", out);
    return 400;
}

/* The tasks a command is for: the one named by ltid, else all. */
static int targets(const struct lv_form *f, FILE *out, int *ids, int max)
{
    long l;
    int rc = lv_form_int(f, "ltid", &l);

    if (rc < 0)
        return lv_bad(out, "ltid must be a task's number, not %s",
                      lv_form_get(f, "ltid")), -1;
    if (rc == 0)
        return lv_ctl_tasks(ids, max);
    if (!lv_ctl_page((int)l))
        return lv_bad(out, "ltid %s has no control block yet (not started, "
                      "or not on this host)", lv_form_get(f, "ltid")), -1;
    ids[0] = (int)l;
    return 1;
}

/* 1 when a command is for all tasks (no ltid). */
static int for_all(const struct lv_form *f)
{
    long l;

    return lv_form_int(f, "ltid", &l) == 0;
}

/* A step's "from": LTID:HOLDS,... the holds its asker saw per task.  The
 * count (at most max), or -1 when malformed. */
static int parse_from(const char *s, int *ltid, unsigned *holds, int max)
{
    int n = 0, used;

    while (s && *s && n < max) {
        if (sscanf(s, "%d:%u%n", &ltid[n], &holds[n], &used) != 2 ||
            (s[used] && s[used] != ','))
            return -1;
        n++;
        s += used + (s[used] == ',');
    }
    return s && *s ? -1 : n;
}

/* A held task is stepped unless a step given it is not taken yet, or the
 * asker saw it at another hold (from: stepped since, from another tab):
 * two clicks on one view make one step. */
static int steppable(const struct pg_live_pos *p, int ltid, const int *fl,
                     const unsigned *fh, int nfrom)
{
    int i;

    if (!p->pause || !__atomic_load_n(&p->held, __ATOMIC_ACQUIRE) ||
        __atomic_load_n(&p->steps, __ATOMIC_ACQUIRE) > 0)
        return 0;
    if (nfrom < 0)
        return 1;
    for (i = 0; i < nfrom; i++)
        if (fl[i] == ltid)
            return fh[i] == p->holds;
    return 0;
}

static void say_done(FILE *out, const char *what, const int *ids, int n)
{
    int i;

    fprintf(out, "{\"ok\":true,\"%s\":[", what);
    for (i = 0; i < n; i++)
        fprintf(out, "%s%d", i ? "," : "", ids[i]);
    fputs("]}\n", out);
}

/* ---- commands ------------------------------------------------------------ */

/* Steps the held tasks named (all: every held one): each makes the call
 * it waits before, then waits again.  A paused task not held (inside a
 * call that blocks, a barrier say) is not given a step: it would pass its
 * next call unseen.  The answer names the calls let go, read before the
 * step is given (the task publishes its next call once it has it). */
int lv_ctl_step(const struct lv_form *f, FILE *out)
{
    static int fl[MAX_TASKS];      /* the HTTP thread's only */
    static unsigned fh[MAX_TASKS];
    int ids[MAX_TASKS], n, i, k = 0, nfrom = -1;
    struct pg_live_pos *p;

    if (lv_form_get(f, "from") &&
        (nfrom = parse_from(lv_form_get(f, "from"), fl, fh, MAX_TASKS)) < 0)
        return lv_bad(out, "from is LTID:HOLDS,... (the holds of each task "
                      "as /control.json showed them), not %s",
                      lv_form_get(f, "from"));
    lv_ctl_lock();
    if ((n = targets(f, out, ids, MAX_TASKS)) < 0) {
        lv_ctl_unlock();
        return 400;
    }
    fputs("{\"ok\":true,\"calls\":[", out);
    for (i = 0; i < n; i++) {
        p = mapped(ids[i]);
        if (!steppable(p, ids[i], fl, fh, nfrom))
            continue;
        fprintf(out, "%s{\"ltid\":%d,\"call\":", k ? "," : "", ids[i]);
        top_json_str(out, p->call);
        fputs(",\"args\":", out);
        top_json_str(out, p->args);
        fprintf(out, ",\"tag\":%d,\"holds\":%u}", p->tag, p->holds);
        __atomic_add_fetch(&p->steps, 1, __ATOMIC_SEQ_CST);
        ids[k++] = ids[i];
    }
    lv_ctl_unlock();
    fputs("],\"stepped\":[", out);
    for (i = 0; i < k; i++)
        fprintf(out, "%s%d", i ? "," : "", ids[i]);
    fputs("]}\n", out);
    return 200;
}

int lv_ctl_pause(const struct lv_form *f, FILE *out)
{
    int ids[MAX_TASKS], n, i;

    lv_ctl_lock();
    if ((n = targets(f, out, ids, MAX_TASKS)) < 0) {
        lv_ctl_unlock();
        return 400;
    }
    if (for_all(f) && ctl) /* all: tasks to come too */
        __atomic_store_n(&ctl->all_go, 0, __ATOMIC_SEQ_CST);
    for (i = 0; i < n; i++) {
        mapped(ids[i])->pause = 1;
        mapped(ids[i])->gate = 1;
    }
    lv_ctl_unlock();
    say_done(out, "paused", ids, n);
    return 200;
}

int lv_ctl_resume(const struct lv_form *f, FILE *out)
{
    int ids[MAX_TASKS], n, i;
    struct pg_live_pos *p;

    lv_ctl_lock();
    if (for_all(f) && ctl) /* all: tasks to come too (before listing) */
        __atomic_store_n(&ctl->all_go, 1, __ATOMIC_SEQ_CST);
    if ((n = targets(f, out, ids, MAX_TASKS)) < 0) {
        lv_ctl_unlock();
        return 400;
    }
    for (i = 0; i < n; i++) {
        p = mapped(ids[i]);
        p->gate = p->runto > 0; /* breakpoints keep their own word */
        p->steps = 0;
        p->pause = 0;
    }
    lv_ctl_unlock();
    say_done(out, "resumed", ids, n);
    return 200;
}

int lv_ctl_runto(const struct lv_form *f, FILE *out)
{
    long l, e;
    struct pg_live_pos *p;

    if (lv_form_int(f, "ltid", &l) != 1)
        return lv_bad(out, "runto needs ltid=N, a task's number%s", "");
    if (lv_form_int(f, "event", &e) != 1 || e < 1)
        return lv_bad(out, "runto needs event=E, an event's number (1 the "
                      "first)%s", "");
    lv_ctl_lock();
    if (!(p = lv_ctl_page((int)l))) {
        lv_ctl_unlock();
        return lv_bad(out, "ltid %s has no control block yet",
                      lv_form_get(f, "ltid"));
    }
    p->runto = e;
    p->gate = 1;
    p->steps = 0;
    p->pause = 0; /* it runs, and stops once it has done event e */
    lv_ctl_unlock();
    fprintf(out, "{\"ok\":true,\"ltid\":%ld,\"runto\":%ld}\n", l, e);
    return 200;
}

/* Replaying: 1 if ltid is a task of the recording.  (Recording, a task
 * not started yet can be named.) */
static int recorded(int ltid)
{
    int *ids, n = top_log_ltids(replay_dir, 0, &ids), i, found = 0;

    for (i = 0; i < n && !found; i++)
        found = ids[i] == ltid;
    if (n > 0)
        free(ids);
    return found;
}

/* A breakpoint field: PG_LIVE_ANY when absent; -1 (said) when bad (not a
 * number; replaying, a task the recording does not have). */
static int bp_field(const struct lv_form *f, FILE *out, const char *key,
                    int32_t *v)
{
    long x;
    int rc = lv_form_int(f, key, &x);

    if (rc < 0)
        return lv_bad(out, "%s is a number or \"any\", not %s", key,
                      lv_form_get(f, key)), -1;
    if (rc && replay_dir[0] && (!strcmp(key, "ltid") || !strcmp(key, "peer"))
        && !recorded((int)x))
        return lv_bad(out, "%s %ld is not a task of the recording", key,
                      x), -1;
    *v = rc ? (int32_t)x : PG_LIVE_ANY;
    return 0;
}

/* The calls a breakpoint can name: every wrapped PVM call (the library's
 * table, pg_calls.def), each gated before it is made (gate.c). */
static const char *const gated_calls[] = {
#define PG_CALL(name, ret, params, group, ...) #name,
#include "pg_calls.def"
#undef PG_CALL
    NULL
};

/* An MPI run's: the calls its ranks' gates hold before (pg_mpi_env.h). */
static const char *const mpi_calls[] = { PGM_GATED_CALLS, NULL };

/* The run's calls, and their prefix (which a breakpoint may leave out). */
static const char *const *run_calls(const char **prefix)
{
    *prefix = lv_mpi ? "MPI_" : "pvm_";
    return lv_mpi ? mpi_calls : gated_calls;
}

/* 1 if call names a gated call of the run, with or without its prefix. */
static int known_call(const char *call)
{
    const char *pre;
    const char *const *calls = run_calls(&pre);
    size_t n = strlen(pre);
    int i;

    for (i = 0; calls[i]; i++)
        if (!strcmp(call, calls[i]) ||
            (!strncmp(calls[i], pre, n) && !strcmp(call, calls[i] + n)) ||
            (!strncmp(call, pre, n) && !strcmp(call + n, calls[i])))
            return 1;
    return 0;
}

static void write_calls(FILE *out)
{
    const char *pre;
    const char *const *calls = run_calls(&pre);
    int i;

    fputs("\"calls\":[", out);
    for (i = 0; calls[i]; i++)
        fprintf(out, "%s\"%s\"", i ? "," : "", calls[i]);
    fputs("]", out);
}

void lv_gdb_line(int pid, char *buf, size_t len)
{
    if (lv_mpi) /* the rank waits in its gate: `bt` shows the program */
        snprintf(buf, len, "gdb -p %d", pid);
    else
        snprintf(buf, len, "gdb -p %d -ex 'break pg_gate_after' -ex "
                 "continue", pid);
}

/* A breakpoint's site: FILE:LINE (a base name, as the filters show it)
 * or a function's name; 1 if site is one. */
static int site_ok(const char *site, size_t max)
{
    const char *colon = strrchr(site, ':');
    size_t n = strlen(site);

    if (!n || n >= max || strchr(site, '/'))
        return 0;
    if (colon)
        return colon > site && colon[1] && colon[1] != '0' &&
               strspn(colon + 1, "0123456789") == strlen(colon + 1);
    return strspn(site, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789_") == n && !(site[0] >= '0' && site[0] <= '9');
}

int lv_ctl_break(const struct lv_form *f, FILE *out)
{
    struct pg_live_bp b;
    const char *call = lv_form_get(f, "call"), *site = lv_form_get(f, "site");
    long hits = 0;

    memset(&b, 0, sizeof b);
    if (bp_field(f, out, "ltid", &b.ltid) < 0 ||
        bp_field(f, out, "peer", &b.peer) < 0 ||
        bp_field(f, out, "tag", &b.tag) < 0 ||
        bp_field(f, out, "size", &b.size) < 0)
        return 400;
    if (lv_form_int(f, "hits", &hits) < 0 || hits < 0)
        return lv_bad(out, "hits is the match to stop at (1 the first, 0 "
                      "every one), not %s", lv_form_get(f, "hits"));
    if (call && call[0] && strcmp(call, "any") &&
        (strlen(call) >= sizeof b.call || !known_call(call)))
        return lv_bad(out, "no gated %s call is named %s (see \"calls\" "
                      "on /control.json)", lv_mpi ? "MPI" : "PVM", call);
    snprintf(b.call, sizeof b.call, "%s", call && strcmp(call, "any") ? call
                                                                      : "");
    if (site && site[0] && strcmp(site, "any") && !site_ok(site, sizeof b.site))
        return lv_bad(out, "site is FILE:LINE (sor.c:228) or a function's "
                      "name, not %s", site);
    snprintf(b.site, sizeof b.site, "%s", site && strcmp(site, "any") ? site
                                                                      : "");
    b.hits = (int32_t)hits;
    lv_ctl_lock();
    if (!ctl || ctl->nbp >= PG_LIVE_BPS) {
        lv_ctl_unlock();
        return lv_bad(out, "at most %s breakpoints at once", "16");
    }
    b.id = next_bp++;
    ctl->bp[ctl->nbp] = b;
    __atomic_store_n(&ctl->nbp, ctl->nbp + 1, __ATOMIC_RELEASE);
    lv_ctl_unlock();
    fprintf(out, "{\"ok\":true,\"id\":%d}\n", b.id);
    return 200;
}

/* Removes slot i: the last one moves into it (a task reading meanwhile
 * sees one or the other, the count shrinking after). */
static void drop_bp(int i)
{
    int last = ctl->nbp - 1;

    ctl->bp[i].id = 0;
    if (i != last) {
        ctl->bp[i] = ctl->bp[last];
        ctl->bp[last].id = 0;
    }
    __atomic_store_n(&ctl->nbp, last, __ATOMIC_RELEASE);
}

int lv_ctl_unbreak(const struct lv_form *f, FILE *out)
{
    const char *all = lv_form_get(f, "id");
    long id = 0;
    int i, n = 0;

    if (!all || (strcmp(all, "all") && lv_form_int(f, "id", &id) != 1))
        return lv_bad(out, "unbreak needs id=N (or id=all)%s", "");
    lv_ctl_lock();
    for (i = ctl ? ctl->nbp - 1 : -1; i >= 0; i--)
        if (!strcmp(all, "all") || ctl->bp[i].id == id) {
            drop_bp(i);
            n++;
        }
    lv_ctl_unlock();
    if (!n)
        return lv_bad(out, "no breakpoint %s", all);
    fprintf(out, "{\"ok\":true,\"removed\":%d}\n", n);
    return 200;
}

/* ---- /control.json ------------------------------------------------------- */

static void write_any(FILE *out, const char *key, int32_t v)
{
    if (v == PG_LIVE_ANY)
        fprintf(out, ",\"%s\":null", key);
    else
        fprintf(out, ",\"%s\":%d", key, v);
}

static void write_bps(FILE *out)
{
    const struct pg_live_bp *b;
    int i;

    fputs("\"breakpoints\":[", out);
    for (i = 0; ctl && i < ctl->nbp; i++) {
        b = &ctl->bp[i];
        fprintf(out, "%s{\"id\":%d,\"call\":", i ? "," : "", b->id);
        top_json_str(out, b->call[0] ? b->call : "any");
        write_any(out, "ltid", b->ltid);
        write_any(out, "peer", b->peer);
        write_any(out, "tag", b->tag);
        write_any(out, "size", b->size);
        fputs(",\"site\":", out);
        top_json_str(out, b->site[0] ? b->site : "any");
        fprintf(out, ",\"hits\":%d,\"count\":%d}", b->hits, b->count);
    }
    fputs("]", out);
}

static void write_held(FILE *out, const struct pg_live_pos *p)
{
    char gdb[200];
    int i;

    fprintf(out, ",\"held\":{\"call\":");
    top_json_str(out, p->call);
    fprintf(out, ",\"peer\":%d,\"tag\":%d,\"size\":%d,\"event\":%ld,"
            "\"done\":%ld,\"args\":", p->peer, p->tag, p->size,
            (long)p->next, (long)p->at);
    top_json_str(out, p->args);
    fputs(",\"why\":", out);
    top_json_str(out, p->why[0] ? p->why : hold_opt ? "hold" : "pause");
    fputs(",\"site\":", out);
    top_json_str(out, p->site);
    lv_gdb_line(p->pid, gdb, sizeof gdb);
    fputs(",\"gdb\":", out);
    top_json_str(out, gdb);
    fputs(",\"candidates\":[", out);
    for (i = 0; i < p->ncand && i < PG_LIVE_CANDS; i++)
        fprintf(out, "%s{\"ltid\":%d,\"msgid\":%d,\"tag\":%d,\"bytes\":%d,"
                "\"mid\":%d}", i ? "," : "", p->cand[i].ltid,
                lv_ctl_cand_msgid(p->ltid, &p->cand[i]), p->cand[i].tag,
                p->cand[i].bytes,
                p->cand[i].bufid);
    fputs("]}", out);
}

static void write_task(FILE *out, int ltid)
{
    const struct pg_live_pos *p = mapped(ltid);
    char state[16] = "";
    int i;

    lv_snap_lock(); /* looked up only: a task is the snapshot's to add */
    for (i = 0; i < lv.ntasks; i++)
        if (lv.tasks[i]->ltid == ltid)
            snprintf(state, sizeof state, "%s", lv.tasks[i]->state);
    lv_snap_unlock();
    if (!state[0] || !strcmp(state, "running"))
        snprintf(state, sizeof state, "%s", p->held ? "held"
                                         : p->pause ? "pausing" : "running");
    fprintf(out, "{\"ltid\":%d,\"pid\":%d,\"state\":\"%s\",\"pause\":%s,"
            "\"steps\":%d,\"runto\":%ld,\"holds\":%u", ltid, p->pid, state,
            p->pause ? "true" : "false", p->steps, (long)p->runto, p->holds);
    if (p->held)
        write_held(out, p);
    fputs("}", out);
}

const char *lv_ctl_choose_note(void)
{
    if (!lv_mpi || lv.mode == PANGAEA_REPLAY)
        return NULL;
    return "An MPI rank held in MPI_Recv with a wildcard source lists the "
           "first pending message of each source (MPI_Iprobe with the "
           "receive's tag and communicator): by MPI's non-overtaking rule "
           "the only ones it could take; the one chosen is taken and "
           "recorded. Other calls list none.";
}

int lv_ctl_cand_msgid(int ltid, const struct pg_live_cand *c)
{
    return lv_mpi ? lv_snap_mpi_msgid(c->ltid, ltid, c->tid, c->tag,
                                      c->msgid)
                  : c->msgid;
}

/* The tasks and breakpoints, as the first members of /control.json
 * (live_alt.c adds the what-if runs and closes it). */
void lv_ctl_json(FILE *out)
{
    int ids[MAX_TASKS], n, i;

    lv_ctl_lock();
    n = lv_ctl_tasks(ids, MAX_TASKS);
    fprintf(out, "{\"v\":1,\"mode\":\"%s\",\"hold\":%s,\"tmux\":%s,",
            lv.mode == PANGAEA_REPLAY ? "replay" : "log",
            hold_opt ? "true" : "false",
            getenv("TMUX") && getenv("TMUX")[0] ? "true" : "false");
    if (lv_ctl_choose_note()) { /* the page says it where choices go */
        fputs("\"choose\":", out);
        top_json_str(out, lv_ctl_choose_note());
        fputs(",", out);
    }
    fputs("\"tasks\":[", out);
    for (i = 0; i < n; i++) {
        fputs(i ? ",\n" : "\n", out);
        write_task(out, ids[i]);
    }
    fputs("],\n", out);
    write_bps(out);
    fputs(",\n", out);
    write_calls(out);
    fputs(",\n", out);
    lv_ctl_unlock();
}
