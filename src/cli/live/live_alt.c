/*
 * live_alt.c - choosing the message a receive takes, from the live page
 * (`pangaea -replay|-log -live -hold`): GET /alternatives.json,
 * POST /control/choose, and the what-if runs they start.
 *
 * Design.  Replaying, the alternatives of a receive are what the race
 * analysis of the recording says (races.h: the messages it could have
 * taken), computed once on the first question; a choice starts a what-if
 * of the recording from there: a child `pangaea -whatif LTID:EVENT=
 * SENDER:MSGID -logdir REC -o DIR prog args` (rerun.c, in a thread of its
 * own), which checks the choice, replays what does not depend on it,
 * makes the receive take the chosen message and records from then on.
 * Its directory, state and output are in /control.json ("whatifs"); the
 * replay being watched goes on untouched.
 *
 * Recording, the alternatives are the messages already queued at a held
 * receive that it would accept (the task lists them in its control block,
 * src/pvm/runtime/gate.c); a choice names one to the task and lets the receive be
 * made (one step): the task takes that message, and the recording records
 * what was taken, so it replays identically.  An MPI rank lists, at a
 * held MPI_Recv with a wildcard source, each source's first pending
 * message (src/mpi/mpi_gate.c: the only ones it could take), by its
 * count of that sender and tag, which the page names by the sender's
 * msgid as the view does (lv_ctl_cand_msgid).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live.h"
#include "live_pos.h"
#include "pg_internal.h"
#include "races.h"
#include "rerun.h"
#include "runlog.h"

#define MAX_RUNS 16

struct wi_run {
    int id, ltid, sender, msgid;
    long event;
    char dir[4300], out[4400], err[4400];
    int done, status;
    char why[300];
    pthread_t thread;
};

static pthread_mutex_t amu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int loaded, n;
    struct rc_run run;
    struct rc_race *races;
} an;
static struct wi_run runs[MAX_RUNS];
static int nruns;
static char logdir[4096], program[4096];
static char **args;

void lv_alt_start(const struct top_opts *o)
{
    snprintf(logdir, sizeof logdir, "%s", o->logdir);
    snprintf(program, sizeof program, "%s", o->program);
    args = o->args;
}

/* ---- replay: the race analysis ------------------------------------------- */

static void load_races(void)
{
    if (an.loaded)
        return;
    an.n = top_races_for_display(logdir, &an.run, &an.races);
    an.loaded = 1;
}

static void write_msg(FILE *out, int m)
{
    const struct rc_msg *g = &an.run.msg[m];

    fprintf(out, "{\"ltid\":%d,\"msgid\":%d,\"tag\":%d}",
            g->src >= 0 ? an.run.tasks[g->src].ltid : -1,
            rc_msg_msgid(&an.run, g), rc_msg_tag(&an.run, g));
}

static void write_race(FILE *out, const struct rc_race *r, int first)
{
    const struct rc_ev *e = RC_EV(&an.run, r->task, r->pos);
    int j;

    fprintf(out, "%s{\"ltid\":%d,\"event\":%ld,\"tag\":%d,\"took\":",
            first ? "" : ",\n", an.run.tasks[r->task].ltid,
            rc_ev_seq(&an.run, r->task, r->pos), e->atag);
    if (r->took >= 0)
        write_msg(out, r->took);
    else
        fputs("null", out);
    fputs(",\"alternatives\":[", out);
    for (j = 0; j < r->nalts; j++) {
        fputs(j ? "," : "", out);
        write_msg(out, r->alts[j].msg);
    }
    fputs("]}", out);
}

/* 1 if ltid is a task of the recording (under amu, races loaded). */
static int recorded(long ltid)
{
    int i;

    for (i = 0; i < an.run.ntasks; i++)
        if (an.run.tasks[i].ltid == ltid)
            return 1;
    return 0;
}

static int replay_alts(long ltid, long event, FILE *out)
{
    int i, k = 0;

    pthread_mutex_lock(&amu);
    load_races();
    if (ltid >= 0 && !recorded(ltid)) {
        pthread_mutex_unlock(&amu);
        return lv_bad(out, "ltid %ld is not a task of the recording", ltid);
    }
    fputs("{\"mode\":\"replay\",\"races\":[", out);
    for (i = 0; i < an.n; i++) {
        const struct rc_race *r = &an.races[i];

        if ((ltid >= 0 && an.run.tasks[r->task].ltid != ltid) ||
            (event > 0 && rc_ev_seq(&an.run, r->task, r->pos) != event))
            continue;
        write_race(out, r, k++ == 0);
    }
    fputs("]}\n", out);
    pthread_mutex_unlock(&amu);
    return 200;
}

/* ---- recording: what the held receives could take ------------------------ */

static int log_alts(long ltid, FILE *out)
{
    const struct pg_live_pos *p;
    int ids[4096], n, j, l, i, k = 0;

    fputs("{\"mode\":\"log\",\"races\":[", out);
    lv_ctl_lock();
    n = lv_ctl_tasks(ids, 4096);
    for (j = 0; j < n; j++) {
        l = ids[j];
        if ((ltid >= 0 && l != ltid) || !(p = lv_ctl_page(l)) || !p->held ||
            p->ncand < 1)
            continue;
        fprintf(out, "%s{\"ltid\":%d,\"event\":%ld,\"call\":", k++ ? ",\n"
                : "", l, (long)p->next);
        top_json_str(out, p->call);
        fprintf(out, ",\"tag\":%d,\"took\":null,\"alternatives\":[", p->tag);
        for (i = 0; i < p->ncand && i < PG_LIVE_CANDS; i++)
            fprintf(out, "%s{\"ltid\":%d,\"msgid\":%d,\"tag\":%d,"
                    "\"bytes\":%d}", i ? "," : "", p->cand[i].ltid,
                    lv_ctl_cand_msgid(l, &p->cand[i]), p->cand[i].tag,
                    p->cand[i].bytes);
        fputs("]}", out);
    }
    lv_ctl_unlock();
    fputs("]}\n", out);
    return 200;
}

int lv_alt_get(const struct lv_form *f, FILE *out)
{
    long ltid = -1, event = 0;
    int known;

    if (lv_form_int(f, "ltid", &ltid) < 0 || lv_form_int(f, "event", &event) < 0)
        return lv_bad(out, "ltid and event are numbers%s", "");
    if (lv.mode != PANGAEA_REPLAY && ltid >= 0) { /* a task of this run */
        lv_ctl_lock();
        known = lv_ctl_page((int)ltid) != NULL;
        lv_ctl_unlock();
        if (!known)
            return lv_bad(out, "ltid %ld has no control block (not started, "
                          "or not on this host)", ltid);
    }
    return lv.mode == PANGAEA_REPLAY ? replay_alts(ltid, event, out)
                                     : log_alts(ltid, out);
}

/* ---- choosing ------------------------------------------------------------ */

static int choose_queued(long ltid, long sender, long msgid, FILE *out)
{
    struct pg_live_pos *p;
    int i;

    lv_ctl_lock();
    p = lv_ctl_page((int)ltid);
    for (i = 0; p && p->held && i < p->ncand && i < PG_LIVE_CANDS; i++)
        if (p->cand[i].ltid == sender &&
            lv_ctl_cand_msgid((int)ltid, &p->cand[i]) == msgid)
            break;
    if (!p || !p->held || i >= p->ncand || i >= PG_LIVE_CANDS) {
        char l[32];

        lv_ctl_unlock();
        snprintf(l, sizeof l, "%ld", ltid);
        return lv_bad(out, "that message is not queued at a held receive of "
                      "ltid %s (GET /alternatives.json lists them)", l);
    }
    p->choice = p->cand[i].bufid;
    __atomic_add_fetch(&p->steps, 1, __ATOMIC_SEQ_CST); /* make the call */
    lv_ctl_unlock();
    fprintf(out, "{\"ok\":true,\"mode\":\"log\",\"ltid\":%ld,\"took\":"
            "{\"ltid\":%ld,\"msgid\":%ld}}\n", ltid, sender, msgid);
    return 200;
}

/* The race of ltid's receive at event (under amu), or NULL. */
static const struct rc_race *race_at(long ltid, long event)
{
    const struct rc_race *r;
    int i;

    for (i = 0; i < an.n; i++) {
        r = &an.races[i];
        if (an.run.tasks[r->task].ltid == ltid &&
            rc_ev_seq(&an.run, r->task, r->pos) == event)
            return r;
    }
    return NULL;
}

/* 1 if the race offers sender's msgid (under amu). */
static int offered(const struct rc_race *r, long sender, long msgid)
{
    const struct rc_msg *g;
    int j;

    for (j = 0; j < r->nalts; j++) {
        g = &an.run.msg[r->alts[j].msg];
        if (g->src >= 0 && an.run.tasks[g->src].ltid == sender &&
            rc_msg_msgid(&an.run, g) == msgid)
            return 1;
    }
    return 0;
}

/* Replaying, a choice is one the race analysis offers (what
 * /alternatives.json lists); else 400 naming the field that is not. */
static int bad_choice(long ltid, long event, long sender, long msgid,
                      FILE *out)
{
    const struct rc_race *r;
    int known, ok;

    pthread_mutex_lock(&amu);
    load_races();
    known = recorded(ltid);
    r = race_at(ltid, event);
    ok = r && offered(r, sender, msgid);
    pthread_mutex_unlock(&amu);
    if (!known)
        return lv_bad(out, "ltid %ld is not a task of the recording", ltid);
    if (!r)
        return lv_bad(out, "event %ld of ltid %ld is not a receive that "
                      "could take another message (GET /alternatives.json "
                      "lists them)", event, ltid);
    if (!ok)
        return lv_bad(out, "sender %ld, msgid %ld: not a message that "
                      "receive could take (GET /alternatives.json lists "
                      "them)", sender, msgid);
    return 0;
}

static void *whatif_thread(void *arg)
{
    struct wi_run *w = arg;
    char spec[128], **argv;
    struct top_rerun_result r;
    int n = 0, i;

    for (i = 0; args && args[i]; i++)
        n++;
    argv = calloc((size_t)n + 10, sizeof *argv);
    snprintf(spec, sizeof spec, "%d:%ld=%d:%d", w->ltid, w->event, w->sender,
             w->msgid);
    if (argv) {
        argv[0] = "pangaea", argv[1] = "-whatif", argv[2] = spec;
        argv[3] = "-logdir", argv[4] = logdir, argv[5] = "-o";
        argv[6] = w->dir, argv[7] = program;
        for (i = 0; i < n; i++)
            argv[8 + i] = args[i];
    }
    if (!argv || top_rerun(argv, w->out, w->err, 600, &r) < 0)
        r.status = 127;
    free(argv);
    pthread_mutex_lock(&amu);
    w->status = r.status;
    top_rerun_why(w->err, w->why, sizeof w->why);
    w->done = 1;
    pthread_mutex_unlock(&amu);
    return NULL;
}

static int start_whatif(long ltid, long event, long sender, long msgid,
                        FILE *out)
{
    struct wi_run *w;
    struct stat st;
    int k;

    pthread_mutex_lock(&amu);
    if (nruns == MAX_RUNS) {
        pthread_mutex_unlock(&amu);
        return lv_bad(out, "at most %s what-if runs from one live view", "16");
    }
    w = &runs[nruns];
    memset(w, 0, sizeof *w);
    w->id = nruns + 1, w->ltid = (int)ltid, w->event = event;
    w->sender = (int)sender, w->msgid = (int)msgid;
    snprintf(w->dir, sizeof w->dir, "%s.whatif-%ld.%ld-%ld.%ld", logdir, ltid,
             event, sender, msgid);
    for (k = 2; stat(w->dir, &st) == 0; k++)
        snprintf(w->dir, sizeof w->dir, "%s.whatif-%ld.%ld-%ld.%ld-%d",
                 logdir, ltid, event, sender, msgid, k);
    memcpy(w->out, w->dir, sizeof w->dir); /* both beside the new dir */
    memcpy(w->err, w->dir, sizeof w->dir);
    strcat(w->out, ".stdout");
    strcat(w->err, ".stderr");
    if (pthread_create(&w->thread, NULL, whatif_thread, w)) {
        pthread_mutex_unlock(&amu);
        return lv_bad(out, "cannot start a thread for the what-if%s", "");
    }
    pthread_detach(w->thread);
    nruns++;
    fprintf(out, "{\"ok\":true,\"mode\":\"replay\",\"id\":%d,\"dir\":",
            w->id);
    top_json_str(out, w->dir);
    fputs("}\n", out);
    pthread_mutex_unlock(&amu);
    return 200;
}

int lv_alt_choose(const struct lv_form *f, FILE *out)
{
    long ltid, event = 0, sender, msgid;

    if (lv_form_int(f, "ltid", &ltid) != 1 ||
        lv_form_int(f, "sender", &sender) != 1 ||
        lv_form_int(f, "msgid", &msgid) != 1 ||
        lv_form_int(f, "event", &event) < 0)
        return lv_bad(out, "choose needs ltid, sender and msgid (and event "
                      "when replaying)%s", "");
    if (lv.mode != PANGAEA_REPLAY)
        return choose_queued(ltid, sender, msgid, out);
    if (event < 1)
        return lv_bad(out, "choose needs event=E, the receive's event%s", "");
    if (bad_choice(ltid, event, sender, msgid, out))
        return 400;
    return start_whatif(ltid, event, sender, msgid, out);
}

/* pangaea ends once the what-if runs it started have: each is a whole
 * run of its own, whose recording would otherwise be cut short. */
void lv_alt_stop(void)
{
    int i, left, said = 0;

    for (;;) {
        pthread_mutex_lock(&amu);
        for (i = left = 0; i < nruns; i++)
            left += !runs[i].done;
        pthread_mutex_unlock(&amu);
        if (!left)
            return;
        if (!said++)
            fprintf(stderr, "pangaea: waiting for %d what-if run%s started "
                    "from the live page\n", left, left > 1 ? "s" : "");
        usleep(100000);
    }
}

/* ---- the what-if runs, for /control.json --------------------------------- */

static void write_output(FILE *out, const char *path)
{
    char buf[4096];
    size_t n = 0;
    FILE *f = fopen(path, "r");

    if (f) {
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
    }
    buf[n] = 0;
    top_json_str(out, buf);
}

int lv_alt_control_json(const struct lv_form *f, FILE *out)
{
    const struct wi_run *w;
    int i;

    (void)f;
    lv_ctl_json(out); /* tasks, breakpoints */
    pthread_mutex_lock(&amu);
    fputs("\"whatifs\":[", out);
    for (i = 0; i < nruns; i++) {
        w = &runs[i];
        fprintf(out, "%s{\"id\":%d,\"ltid\":%d,\"event\":%ld,\"sender\":%d,"
                "\"msgid\":%d,\"state\":\"%s\",\"status\":%d,\"dir\":",
                i ? ",\n" : "\n", w->id, w->ltid, w->event, w->sender,
                w->msgid, !w->done ? "running" : w->status ? "failed"
                                                           : "done",
                w->status);
        top_json_str(out, w->dir);
        fputs(",\"why\":", out);
        top_json_str(out, w->why);
        fputs(",\"output\":", out);
        write_output(out, w->out);
        fputs("}", out);
    }
    fputs("]}\n", out);
    pthread_mutex_unlock(&amu);
    return 200;
}
