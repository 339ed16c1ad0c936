/*
 * display_races.c - the races of `pangaea -races` in the event graph
 * (display.c, graph.html): the page marks each racing receive and draws a
 * dashed line from each alternative send to it; its details list the
 * alternatives and the call site.
 *
 * Design.  The graph is derived from the recording's model (races.h,
 * runlog.c), which the analysis reads too: the races are found on the
 * run's own model, and an event of the model is the graph's through
 * run->graph_of (no second load, no second matching).  Failed polls and
 * notices are not drawn (no mark, no line);
 * a notice an alternative is named in the details only.  A run where
 * every receive races (a master taking results from anyone) has as many
 * races as receives, so the data is flat integers:
 *   "races":[recv, first, site, n, send, fifo_broken, ... (n pairs), ...]
 *   "raceSites":["file.c:LINE", ...]     (site indexes into it)
 *   "raceNotes":[recv, "text", ...]      (alternatives that are notices:
 *                                         send -1 above)
 */
#include <stdlib.h>
#include <string.h>

#include "log_table.h"
#include "races.h"
#include "runlog.h"

static int races_of(const struct top_run *run, struct rc_race **races,
                    int bare)
{
    int n;

    *races = NULL;
    if (!run->model || run->model->view->unanalysable[0])
        return 0; /* -races would refuse these logs: drawn without */
    if ((n = bare ? rc_find_bare(run->model, races)
                  : rc_find(run->model, races)) < 0)
        return *races = NULL, 0;
    return n;
}

int top_run_races(const struct top_run *run, struct rc_race **races)
{
    return races_of(run, races, 0);
}

int top_run_races_bare(const struct top_run *run, struct rc_race **races)
{
    return races_of(run, races, 1);
}

static void notice_text(FILE *fp, const struct rc_run *rr, int m)
{
    char buf[160];

    if (rr->msg[m].notice_of >= 0)
        snprintf(buf, sizeof buf, "the exit notice of ltid %d (tag %d)",
                 rr->tasks[rr->msg[m].notice_of].ltid,
                 rc_msg_tag(rr, &rr->msg[m]));
    else
        snprintf(buf, sizeof buf, "a notice of PVM's (tag %d)",
                 rc_msg_tag(rr, &rr->msg[m]));
    top_json_str(fp, buf);
}

/* The index of the site's name in names (adding it), -1 when full. */
static int site_index(char names[][600], int *n, const char *name)
{
    int i;

    for (i = 0; i < *n; i++)
        if (!strcmp(names[i], name))
            return i;
    if (*n == 256)
        return -1;
    snprintf(names[*n], 600, "%s", name);
    return (*n)++;
}

/* e's index in the page (part) being written, or -1 and *part the part
 * it is in; every event is in a page of the whole run. */
static int race_here(const struct top_display_map *m, int e, int *part)
{
    *part = 0;
    return !m ? e : m->here(m->ctx, e, part);
}

/* An alternative send that lies in another part of the page: named. */
static void elsewhere_text(FILE *fp, const struct top_run *run, int s,
                           int part)
{
    char buf[160];

    snprintf(buf, sizeof buf, "ltid %d msg %d, in part %d of this page",
             run->tasks[run->ev[s].task].ltid, run->ev[s].msgid, part + 1);
    top_json_str(fp, buf);
}

void top_display_races(FILE *fp, const struct top_run *run)
{
    struct rc_race *r = NULL;
    int n = top_run_races(run, &r);

    top_display_races_of(fp, run, r, n, NULL);
    if (n > 0)
        rc_races_free(r, n);
}

void top_display_races_of(FILE *fp, const struct top_run *run,
                          const struct rc_race *r, int n,
                          const struct top_display_map *pm)
{
    static char names[256][600];
    const struct rc_run *rr = run->model;
    int i, j, out = 0, part, recv, s;
    const int *map = run->graph_of;
    int nnames = 0, nnotes = 0, si;
    char site[600];

    fprintf(fp, ",\n\"races\":[");
    for (i = 0; i < n; i++) {
        const struct rc_ev *e = RC_EV(rr, r[i].task, r[i].pos);

        recv = map[rr->tasks[r[i].task].first + r[i].pos - 1];
        if (recv < 0 || (recv = race_here(pm, recv, &part)) < 0)
            continue; /* a failed poll, a notice: not drawn; elsewhere */
        si = site_index(names, &nnames, rc_site_name(rr, r[i].task, e->site,
                                                     site, sizeof site));
        fprintf(fp, "%s%d,%d,%d,%d", out++ ? ",\n" : "", recv, r[i].first, si,
                r[i].nalts);
        for (j = 0; j < r[i].nalts; j++) {
            const struct rc_msg *m = &rr->msg[r[i].alts[j].msg];

            s = m->src >= 0 ? map[rr->tasks[m->src].first + m->src_pos - 1]
                            : -1;
            fprintf(fp, ",%d,%d", s >= 0 ? race_here(pm, s, &part) : -1,
                    r[i].alts[j].fifo_broken);
        }
    }
    fprintf(fp, "],\n\"raceSites\":[");
    for (i = 0; i < nnames; i++) {
        fprintf(fp, "%s", i ? "," : "");
        top_json_str(fp, names[i]);
    }
    fprintf(fp, "],\n\"raceNotes\":[");
    for (i = 0; i < n; i++) {
        recv = map[rr->tasks[r[i].task].first + r[i].pos - 1];
        if (recv >= 0)
            recv = race_here(pm, recv, &part);
        for (j = 0; recv >= 0 && j < r[i].nalts; j++) {
            const struct rc_msg *m = &rr->msg[r[i].alts[j].msg];

            if (m->src < 0) {
                fprintf(fp, "%s%d,", nnotes++ ? "," : "", recv);
                notice_text(fp, rr, r[i].alts[j].msg);
            } else if ((s = map[rr->tasks[m->src].first + m->src_pos - 1]) >= 0
                       && race_here(pm, s, &part) < 0) {
                fprintf(fp, "%s%d,", nnotes++ ? "," : "", recv);
                elsewhere_text(fp, run, s, part);
            }
        }
    }
    fprintf(fp, "]");
}
