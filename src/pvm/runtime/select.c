/*
 * select.c - selective logging and replay (the paper's section 5.4).
 *
 * Two ways to narrow what is recorded: the program suspends and resumes
 * Pangaea around regions (pangaea_suspend/resume), or the user names tags
 * and/or ltids when starting `pangaea` (-only tag=5,7 -only ltid=2, passed
 * to every task as PANGAEA_ONLY="tag=5,7 ltid=2").  An event outside the
 * selection is neither logged nor, in replay, matched: the message still
 * carries its header (message ids stay the same in every run), it simply
 * takes whatever PVM gives it.  A receive's tag is the received message's
 * when recording, and the tag the program asks for when replaying (a
 * wildcard, -1, counts as selected): both agree unless a wildcard receive
 * took an unselected message, which the README names as the limit.
 * "race-only" marks a recording `pangaea -min` pruned (what is kept and
 * how it replays: src/cli/analysis/minimize.c, replay.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_internal.h"

static int in(const int *v, int n, int x)
{
    int i;

    for (i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

int pg_selected(int tag)
{
    const struct pg_select *s = &pg.sel;

    if (pg.suspended > 0)
        return 0;
    if (s->nltids > 0 && !in(s->ltids, s->nltids, pg.ltid))
        return 0;
    return s->ntags == 0 || tag == -1 || in(s->tags, s->ntags, tag);
}

/* "5,7,12" into v; returns the count or -1. */
static int parse_list(const char *s, int *v, int max)
{
    char *end;
    long x;
    int n = 0;

    for (;;) {
        errno = 0;
        x = strtol(s, &end, 10);
        if (end == s || errno || x < -2147483647L || x > 2147483647L ||
            n == max)
            return -1;
        v[n++] = (int)x;
        if (*end == 0 || *end == ' ')
            return n;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
}

int pg_select_parse(const char *text, struct pg_select *sel, pg_err *err)
{
    const char *p = text;
    int n;

    memset(sel, 0, sizeof *sel);
    if (!text || !*text)
        return 0;
    if (strlen(text) >= sizeof sel->text)
        return pg_err_set(err, "selection too long: %.40s...", text);
    snprintf(sel->text, sizeof sel->text, "%s", text);
    while (*p) {
        if (!strncmp(p, "tag=", 4) &&
            (n = parse_list(p + 4, sel->tags + sel->ntags,
                            64 - sel->ntags)) > 0)
            sel->ntags += n;
        else if (!strncmp(p, PG_SELECT_RACE_ONLY " ", 10) ||
                 !strcmp(p, PG_SELECT_RACE_ONLY))
            sel->race_only = 1; /* pangaea -min made it: replay.c */
        else if (!strncmp(p, "ltid=", 5) &&
                 (n = parse_list(p + 5, sel->ltids + sel->nltids,
                                 64 - sel->nltids)) > 0)
            sel->nltids += n;
        else
            return pg_err_set(err, "bad selection \"%s\": say tag=N,N... "
                              "and/or ltid=N,N... (at most 64 each)", text);
        p += strcspn(p, " ");
        p += strspn(p, " ");
    }
    return 0;
}

void pangaea_suspend(void)
{
    pg.suspended++;
}

void pangaea_resume(void)
{
    if (pg.suspended > 0)
        pg.suspended--;
}
