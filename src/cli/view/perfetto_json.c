/*
 * perfetto_json.c - pangaea -export perfetto-json: a recorded run as Chrome/Perfetto
 * trace JSON.
 *
 * The trace follows the Trace Event Format: each task is a process with
 * one thread (pid = tid = ltid + 1: Perfetto reserves pid 0, and ltid 0 is
 * a task), every send and receive a complete ('X') slice of 1 us named by
 * its call, every matched message a flow ('s' on the send's slice, 'f'
 * bound to the enclosing receive slice).  Times are microseconds since the
 * whole second before the first event; a task's events that share a
 * microsecond are moved apart by one, so each slice is found again by its
 * time (the recorded time stays in args.t).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runlog.h"
#include "top.h"

static void trace_meta(const struct top_run *run, FILE *fp)
{
    int i;

    for (i = 0; i < run->ntasks; i++) {
        const struct top_task *t = &run->tasks[i];
        const char *prog = strrchr(t->program, '/');
        char name[1400];

        snprintf(name, sizeof name, "ltid %d: %s on %s", t->ltid,
                 prog ? prog + 1 : t->program, t->host);
        fprintf(fp, "%s{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                "\"name\":\"process_name\",\"args\":{\"name\":",
                i ? ",\n" : "", t->ltid + 1, t->ltid + 1);
        top_json_str(fp, name);
        fprintf(fp, "}},\n{\"ph\":\"M\",\"pid\":%d,\"name\":"
                "\"process_sort_index\",\"args\":{\"sort_index\":%d}},\n",
                t->ltid + 1, i);
        fprintf(fp, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":"
                "\"thread_name\",\"args\":{\"name\":\"ltid %d\"}}",
                t->ltid + 1, t->ltid + 1, t->ltid);
    }
}

/* Each event's slice time, in microseconds (see the design note). */
static double *trace_times(const struct top_run *run)
{
    double *ts = malloc((size_t)(run->nev ? run->nev : 1) * sizeof *ts);
    double base = (double)(long long)run->tmin;
    int i, e;

    for (i = 0; ts && i < run->ntasks; i++)
        for (e = run->tasks[i].first;
             e < run->tasks[i].first + run->tasks[i].nev; e++) {
            ts[e] = (double)(long long)((run->ev[e].t - base) * 1e6 + 0.5);
            if (e > run->tasks[i].first && ts[e] <= ts[e - 1])
                ts[e] = ts[e - 1] + 1;
        }
    return ts;
}

static void trace_slice(const struct top_run *run, FILE *fp, int e,
                        double ts)
{
    const struct top_event *ev = &run->ev[e];
    const struct top_task *t = &run->tasks[ev->task];
    int i, pid = t->ltid + 1;

    fprintf(fp, ",\n{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.0f,"
            "\"dur\":1,\"cat\":\"%s\",\"name\":", pid, pid, ts,
            top_run_is_send(ev) ? "send" : "recv");
    top_json_str(fp, run->calls[ev->call]);
    fprintf(fp, ",\"args\":{\"ltid\":%d,\"seq\":%ld,\"t\":\"%.6f\","
            "\"tag\":%d,\"msgid\":%d,\"bytes\":%d", t->ltid,
            (long)ev->seq, ev->t, ev->tag, ev->msgid, ev->bytes);
    if (top_run_is_send(ev)) {
        fprintf(fp, ",\"to\":[");
        for (i = 0; i < ev->nto; i++)
            fprintf(fp, "%s%d", i ? "," : "", run->to[ev->to + i]);
        fprintf(fp, "],\"received\":%d}}", top_run_links_of(run, e, &i));
    } else {
        fprintf(fp, ",\"from\":%d,\"matched\":%s}}", ev->from,
                top_run_partner(ev) >= 0 ? "true" : "false");
    }
}

static void trace_flow(const struct top_run *run, FILE *fp, int id,
                       const struct top_link *l, const double *ts)
{
    int ps = run->tasks[run->ev[l->send].task].ltid + 1,
        pr = run->tasks[run->ev[l->recv].task].ltid + 1;

    fprintf(fp, ",\n{\"ph\":\"s\",\"id\":%d,\"pid\":%d,\"tid\":%d,"
            "\"ts\":%.0f,\"cat\":\"message\",\"name\":\"message\"}", id, ps,
            ps, ts[l->send]);
    fprintf(fp, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"id\":%d,\"pid\":%d,"
            "\"tid\":%d,\"ts\":%.0f,\"cat\":\"message\","
            "\"name\":\"message\"}", id, pr, pr, ts[l->recv]);
}

int top_export_perfetto_json(const struct top_run *run, FILE *fp)
{
    double *ts = trace_times(run);
    int e;

    if (!ts)
        return -1;
    fprintf(fp, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"logdir\":");
    top_json_str(fp, run->dir);
    fprintf(fp, "},\n\"traceEvents\":[\n");
    trace_meta(run, fp);
    for (e = 0; e < run->nev; e++)
        trace_slice(run, fp, e, ts[e]);
    for (e = 0; e < run->nlinks; e++)
        trace_flow(run, fp, e + 1, &run->links[e], ts);
    fprintf(fp, "\n]}\n");
    free(ts);
    return ferror(fp) ? -1 : 0;
}
