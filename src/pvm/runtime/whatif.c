/*
 * whatif.c - a what-if run: follow a recording up to one receive, make
 * that receive take another message, then run freely.
 *
 * Design.  A what-if task records, as under -log, into the new directory;
 * it also reads its old logs with replay.c's cursor, and "steers" while
 * the next recorded event is one the plan says to follow: that event is
 * replayed (a receive waits for its recorded message, a send is checked,
 * a query answers as recorded) and recorded again.  `pangaea -whatif`
 * (src/cli/search/whatif.c) computes the plan from the old recording:
 * for each ltid, the number (seq) of its first event that causally follows
 * the forced receive, so the prefix a task replays never depends on the
 * forced choice; for the forced task, that receive itself, which takes the
 * chosen message instead of the recorded one.  Past its stop a task is an
 * ordinary recording task.  The plan is a small text file in the new log
 * directory, named by PANGAEA_WHATIF (exported to every task), so it is
 * also a record of what was forced:
 *     from DIR
 *     force LTID SEQ KIND FROM MSGID TAG   (KIND: recv, notice, poll-recv,
 *                                           poll-notice, or nothing)
 *     where LTID TEXT                      (the forced receive's call and
 *                                           site, for messages)
 *     stop LTID SEQ                        (-1: the whole log)
 *     turns P GROUP                        (P: the group's turns followed)
 * Joins and leaves of a group take numbered turns (the coordinator's
 * group_order.c); the turns a what-if follows are the first P of the
 * recording's (the plan follows the turn order as happened-before), and
 * a join or leave past a task's stop asks for a turn after them, so it
 * can never take one the followed joins wait for.
 * Polls.  A run of polls that found nothing is one <poll> event (the
 * last of them, numbered SEQ) and a count on the event after it; forced
 * to find a message (poll-recv, poll-notice), the first poll of that run
 * takes it, waiting for it as a replay waits (its send is not after the
 * poll, so it comes): the forced choice is due at the event after SEQ,
 * whose count is then not given.  A poll that found a message, forced to
 * find nothing (nothing), gives its recorded misses, then one more, and
 * the task runs freely from there.
 * A task the plan does not name (one that only exists past the fork) runs
 * freely from its start.
 * Unreached.  A task that ends while its next recorded event is still
 * one to follow left its recording (its program took another path, one
 * that PVM does not carry: a file, the environment): if that was before
 * its forced receive, the choice was never tried, and a run that ends
 * well would say otherwise; so the task says which receive it never
 * reached, and replay.c reports a divergence (pg_whatif_unreached gives
 * the words: pangaea then exits 3, and -explore counts the run as not
 * having made its order).  This file owns the plan and the substitution;
 * replay.c asks it whether an event is to be followed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_internal.h"

struct pg_whatif pg_whatif;

#define MAX_GROUPS 64
static struct {
    char name[256];
    int followed;
} groups[MAX_GROUPS];
static int ngroups;

static int parse_turns(const char *line)
{
    int p, at = 0;

    if (sscanf(line, "turns %d %n", &p, &at) != 1 || !at || p < 0 ||
        ngroups == MAX_GROUPS)
        return -1;
    snprintf(groups[ngroups].name, sizeof groups[ngroups].name, "%s",
             line + at);
    groups[ngroups++].followed = p;
    return 0;
}

int pg_whatif_turn(const char *group)
{
    int i;

    for (i = 0; pg_whatif.on && group && i < ngroups; i++)
        if (!strcmp(groups[i].name, group))
            return -2 - groups[i].followed;
    return -1;
}

static int parse_line(const char *line)
{
    int ltid, kind = 0, from, msgid, tag, at = 0;
    long seq;
    char k[16];

    if (!strncmp(line, "turns ", 6))
        return parse_turns(line);
    if (sscanf(line, "where %d %n", &ltid, &at) == 1 && at) {
        if (ltid == pg.ltid)
            snprintf(pg_whatif.where, sizeof pg_whatif.where, "%s", line + at);
        return 0;
    }
    if (sscanf(line, "stop %d %ld", &ltid, &seq) == 2) {
        if (ltid == pg.ltid)
            pg_whatif.on = 1, pg_whatif.stop = seq;
        return 0;
    }
    if (sscanf(line, "force %d %ld %15s %d %d %d", &ltid, &seq, k, &from,
               &msgid, &tag) == 6) {
        int poll = !strncmp(k, "poll-", 5), nothing = !strcmp(k, "nothing");
        const char *base = poll ? k + 5 : k;

        kind = !strcmp(base, "recv") || nothing ? PG_EV_RECV
               : !strcmp(base, "notice") ? PG_EV_NOTICE : 0;
        if (!kind)
            return -1;
        if (ltid == pg.ltid) {
            pg_whatif.at_poll = poll, pg_whatif.nothing = nothing;
            memset(&pg_whatif.forced, 0, sizeof pg_whatif.forced);
            pg_whatif.forced.kind = kind;
            pg_whatif.forced.seq = seq;
            pg_whatif.forced.from = from;
            pg_whatif.forced.msgid = msgid;
            pg_whatif.forced.tag = tag;
            pg_whatif.forced.what = PG_NOTICE_EXIT;
            pg_whatif.forced.bytes = -1; /* unknown: not checked */
            pg_whatif.force = 1;
        }
        return 0;
    }
    return -1;
}

int pg_whatif_load(void)
{
    const char *path = getenv(PG_ENV_WHATIF);
    static int loaded;
    char line[4200];
    FILE *f;

    if (loaded++) /* by the constructor, then by pg_start */
        return pg_whatif.on;
    if (!path || !*path)
        return 0;
    if (!(f = fopen(path, "r")))
        pg_fatal("cannot read the what-if plan %s", path);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "from ", 5))
            snprintf(pg_whatif.from, sizeof pg_whatif.from, "%.4095s", line + 5);
        else if (parse_line(line) < 0) {
            fclose(f);
            pg_fatal("the what-if plan %s has a bad line: %.200s", path, line);
        }
    }
    fclose(f);
    if (!pg_whatif.from[0])
        pg_whatif.on = 0;
    return pg_whatif.on;
}

const char *pg_whatif_dir(void)
{
    return pg_whatif.on ? pg_whatif.from : pg.logdir;
}

/* The forced choice is due at the recorded event numbered seq: that
 * event itself, or for polls that found nothing the event after them. */
static int due(long seq)
{
    if (!pg_whatif.on || !pg_whatif.force || pg_whatif.done)
        return 0;
    return seq == pg_whatif.forced.seq ||
           (pg_whatif.at_poll && seq > pg_whatif.forced.seq);
}

int pg_whatif_follows(long seq)
{
    if (!pg_whatif.on)
        return 0;
    if (due(seq))
        return 1;
    return pg_whatif.stop < 0 || seq < pg_whatif.stop;
}

const pg_event *pg_whatif_forced(const pg_event *ev)
{
    static pg_event copy;

    if (!ev || !due(ev->seq) || pg_whatif.nothing)
        return ev;
    pg_whatif.reached = 1;
    copy = pg_whatif.forced;
    copy.seq = ev->seq;
    copy.misses = pg_whatif.at_poll ? 0 : ev->misses;
    copy.call = ev->call;
    copy.t = ev->t;
    pg_whatif.done = pg_whatif.at_poll; /* a recv's own seq moves on */
    return &copy;
}

int pg_whatif_due(long seq)
{
    return due(seq);
}

int pg_whatif_misses(const pg_event *ev)
{
    return pg_whatif.at_poll && due(ev->seq) ? 0 : ev->misses;
}

int pg_whatif_nothing(long seq)
{
    if (!pg_whatif.nothing || !due(seq))
        return 0;
    pg_whatif.done = pg_whatif.reached = 1;
    return 1;
}

void pg_whatif_unreached(int status, long next, char *msg, size_t size)
{
    if (pg_whatif.force && !pg_whatif.reached)
        snprintf(msg, size, "at event %ld: the program ended with status %d "
                 "before its forced receive, event %ld (%s), which was never "
                 "reached: the what-if did not try its choice", next, status,
                 (long)pg_whatif.forced.seq,
                 pg_whatif.where[0] ? pg_whatif.where : "a receive");
    else
        snprintf(msg, size, "at event %ld: the program ended with status %d "
                 "before the end of the part of its recording the what-if "
                 "follows (up to event %ld)", next, status, pg_whatif.stop);
}
