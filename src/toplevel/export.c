/*
 * export.c - the post-mortem modes of `pangaea`: they read a recorded run
 * (runlog.c) and never start PVM.
 *
 *   pangaea -display [LOGDIR]            the event graph, one HTML file
 *   pangaea -tasks [LOGDIR]              every task and how it ended
 *   pangaea -export perfetto [LOGDIR]    Chrome/Perfetto trace JSON
 *
 * Design.  main() hands argv here before its own parsing, so the record
 * and replay options stay apart from these.  This file has the dispatch,
 * the task table, the trace export and the JSON string writer that every
 * JSON output shares; the HTML is display.c's.
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

#define DEFAULT_LOGDIR "logs"

/* ---- JSON ------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s, or 0. */
static int utf8_len(const unsigned char *s)
{
    int n, i;
    unsigned c = s[0], min;

    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, min = 0x10000;
    else
        return 0;
    c &= 0x3F >> (n - 1);
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    return n;
}

/* Besides what JSON needs, '<', '>' and '&' are escaped so that no string
 * can close the <script> the display embeds its data in, and U+2028/9 so
 * the text is also a valid JavaScript literal. */
void top_json_str(FILE *fp, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    int n;

    putc('"', fp);
    for (; *s; s += n) {
        n = utf8_len(s);
        if (n == 0) {
            fputs("\\ufffd", fp);
            n = 1;
        } else if (*s == '"' || *s == '\\')
            fprintf(fp, "\\%c", *s);
        else if (*s < 0x20 || *s == '<' || *s == '>' || *s == '&')
            fprintf(fp, "\\u%04x", *s);
        else if (n == 3 && s[0] == 0xE2 && s[1] == 0x80 &&
                 (s[2] == 0xA8 || s[2] == 0xA9))
            fprintf(fp, "\\u%04x", 0x2000 | (s[2] & 0x2F));
        else
            fwrite(s, 1, n, fp);
    }
    putc('"', fp);
}

/* ---- -tasks ----------------------------------------------------------- */

/* Terminal-safe copy: control characters from a log become '?'. */
static const char *tty_safe(const char *s, char *buf, size_t size)
{
    size_t i;

    for (i = 0; s[i] && i + 1 < size; i++)
        buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7F ? '?' : s[i];
    buf[i] = 0;
    return buf;
}

int top_tasks_print(const struct top_run *run, FILE *fp)
{
    char end[64], parent[16], host[256], prog[1024];
    int i, hw = 4, w;

    for (i = 0; i < run->ntasks; i++)
        if ((w = (int)strlen(run->tasks[i].host)) > hw)
            hw = w;
    fprintf(fp, "%-6s %-6s %-*s %-32s %7s %7s  %s\n", "LTID", "PARENT", hw,
            "HOST", "ENDED", "SENDS", "RECVS", "PROGRAM");
    for (i = 0; i < run->ntasks; i++) {
        const struct top_task *t = &run->tasks[i];

        snprintf(parent, sizeof parent, "%d", t->parent);
        fprintf(fp, "%-6d %-6s %-*s %-32s %7d %7d  %s\n", t->ltid,
                t->parent < 0 ? "-" : parent, hw,
                tty_safe(t->host[0] ? t->host : "?", host, sizeof host),
                top_run_ending(t, end, sizeof end), t->nsend, t->nrecv,
                tty_safe(t->program[0] ? t->program : "?", prog, sizeof prog));
        if (t->note[0])
            fprintf(fp, "       note: %s\n",
                    tty_safe(t->note, prog, sizeof prog));
    }
    fprintf(fp, "%d tasks, %d sends, %d receives, %d messages matched, "
            "%d send destinations and %d receives unmatched\n", run->ntasks,
            run->nsends, run->nrecvs, run->nlinks, run->unmatched_sends,
            run->unmatched_recvs);
    return ferror(fp) ? -1 : 0;
}

/* ---- -export perfetto -------------------------------------------------- */

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
            ev->seq, ev->t, ev->tag, ev->msgid, ev->bytes);
    if (top_run_is_send(ev)) {
        fprintf(fp, ",\"to\":[");
        for (i = 0; i < ev->nto; i++)
            fprintf(fp, "%s%d", i ? "," : "", run->to[ev->to + i]);
        fprintf(fp, "],\"received\":%d}}", ev->nmatch);
    } else {
        fprintf(fp, ",\"from\":%d,\"matched\":%s}}", ev->from,
                ev->partner >= 0 ? "true" : "false");
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

int top_export_perfetto(const struct top_run *run, FILE *fp)
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

/* ---- the dispatch ------------------------------------------------------ */

static int pm_usage(const char *why)
{
    fprintf(stderr, "pangaea: %s\n"
            "usage: pangaea -display [LOGDIR]\n"
            "       pangaea -tasks [LOGDIR]\n"
            "       pangaea -export perfetto [LOGDIR] > trace.json\n"
            "LOGDIR defaults to %s/\n", why, DEFAULT_LOGDIR);
    return TOP_EXIT_USAGE;
}

static int pm_display(const struct top_run *run)
{
    char path[4300];
    pg_err err;

    snprintf(path, sizeof path, "%s/pangaea-graph.html", run->dir);
    if (top_display_write(run, path, &err) < 0) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        return TOP_EXIT_FAILED;
    }
    printf("%s\n", path);
    return 0;
}

int top_is_postmortem(const char *arg)
{
    return !strcmp(arg, "-display") || !strcmp(arg, "-tasks") ||
           !strcmp(arg, "-export");
}

int top_postmortem(int argc, char **argv)
{
    const char *mode = argv[1], *dir;
    int first = 2, rc;
    struct top_run run;
    pg_err err;

    if (!strcmp(mode, "-export")) {
        if (argc < 3 || strcmp(argv[2], "perfetto"))
            return pm_usage("-export knows one format: perfetto");
        first = 3;
    }
    if (argc > first + 1)
        return pm_usage("too many arguments");
    dir = argc > first ? argv[first] : DEFAULT_LOGDIR;
    if (top_run_load(&run, dir, &err) < 0) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        return TOP_EXIT_USAGE;
    }
    if (!strcmp(mode, "-display"))
        rc = pm_display(&run);
    else if (!strcmp(mode, "-tasks"))
        rc = top_tasks_print(&run, stdout) < 0 ? TOP_EXIT_FAILED : 0;
    else
        rc = top_export_perfetto(&run, stdout) < 0 ? TOP_EXIT_FAILED : 0;
    if (fflush(stdout) != 0)
        rc = TOP_EXIT_FAILED;
    top_run_free(&run);
    return rc;
}
