/*
 * tasks.c - pangaea -tasks: every task of a recorded run and how it ended.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runlog.h"
#include "top.h"

/* Terminal-safe copy: control characters from a log become '?'. */
static const char *tty_safe(const char *s, char *buf, size_t size)
{
    size_t i;

    for (i = 0; s[i] && i + 1 < size; i++)
        buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7F ? '?' : s[i];
    buf[i] = 0;
    return buf;
}

static void print_last(FILE *fp, const struct top_run *run,
                       const struct top_event *e, char *buf, size_t size)
{
    fprintf(fp, "       last message: event %ld, %s", e->seq,
            run->calls[e->call]);
    if (e->site >= 0)
        fprintf(fp, " at %s", tty_safe(run->sites[e->site], buf, size));
    fputc('\n', fp);
}

int top_tasks_print(const struct top_run *run, FILE *fp)
{
    char end[400], end2[400], parent[16], host[256], prog[1024];
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
                tty_safe(top_run_ending(t, end, sizeof end), end2, sizeof end2),
                t->nsend, t->nrecv,
                tty_safe(t->program[0] ? t->program : "?", prog, sizeof prog));
        if (t->note[0])
            fprintf(fp, "       note: %s\n",
                    tty_safe(t->note, prog, sizeof prog));
        if (t->nev > 0) /* where it last sent or received */
            print_last(fp, run, &run->ev[t->first + t->nev - 1], prog,
                       sizeof prog);
    }
    fprintf(fp, "%d tasks, %d sends, %d receives, %d messages matched, "
            "%d send destinations and %d receives unmatched\n", run->ntasks,
            run->nsends, run->nrecvs, run->nlinks, run->unmatched_sends,
            run->unmatched_recvs);
    return ferror(fp) ? -1 : 0;
}
