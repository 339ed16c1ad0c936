/*
 * explore.h - the parts of `pangaea -explore` (explore.c) that keep its
 * runs' orders (explore_order.c): the sets of choices, "LTID#K=SENDER:
 * MSGID" or "LTID#K=none" each, that tell runs apart; whether a child would make an order
 * a run made already; the state -resume goes on from.
 */
#ifndef PG_TOP_EXPLORE_H
#define PG_TOP_EXPLORE_H

#include <limits.h>
#include <pthread.h>
#include <stdio.h>

#include "races.h"
#include "rerun.h"

/* A set of choices, "LTID#K=SENDER:MSGID" or "LTID#K=none" each. */
struct choices {
    char **v;
    int n, cap;
};

struct node {
    char dir[PATH_MAX];
    char chain[1024];   /* the forced choices, in order */
    int depth;
    int failed;
    int usable;         /* ended well: its races are worth a look */
    int skipped;        /* could not be forced (status 2 or 3) */
    char **order;       /* its receives' choices, sorted; NULL: none */
    int norder;
    char **tried;       /* its key, when its order lacks some of it */
    int ntried;
    /* while it runs (a thread of its own: top_rerun waits for it) */
    enum { IDLE, RUNNING, DONE, FINISHED } state;
    struct choices key; /* its prefix and forced choice, sorted */
    char **argv;
    int nmode;
    int timeout;
    struct top_rerun_result r;
    pthread_t thread;
};

/* Why alternatives were not run (the summary's counts). */
enum skip { RUN, HOST, DEPTH, BUDGET, NSKIP };

struct explore {
    const struct top_driver *d;
    struct node *nodes;
    int n;              /* runs made (nodes used) */
    int found;          /* a run failed */
    int skip[NSKIP];    /* alternatives not run, by reason */
    int nskipped;       /* runs that could not force their choice */
    int running;        /* runs started and not finished */
    int jobs;           /* runs at once (-jobs; 1 for a group program) */
    int limit;          /* runs in all (-runs, more with -resume) */
    int next;           /* the first run not wholly expanded (-runs) */
    char hash0[17];     /* run 0's output */
};


/* ---- explore_order.c ---- */
void ex_add_choice(struct choices *c, const char *s); /* exits 2 out of memory */
void ex_free_choices(struct choices *c);
/* Receive pos of task t took message m (-1: found nothing): its choice,
 * as -whatif names it (LTID:SEQ=...), and as orders name it (LTID#K=...). */
void ex_name_choice(const struct rc_run *run, int t, int pos, int m,
                    char *buf, size_t size);
void ex_order_name(const struct rc_run *run, int t, int pos, int m,
                   char *buf, size_t size);
/* The choices of task t's receives before its event `before`, into c. */
void ex_task_choices(const struct rc_run *run, int t, int before,
                     struct choices *c);
int ex_by_text(const void *a, const void *b);     /* for qsort, bsearch */
int ex_by_receive(const void *a, const void *b);  /* "LTID:SEQ=" only */
/* c, sorted, becomes node nd's order (c is emptied). */
void ex_keep_order(struct node *nd, struct choices *c);
/* Node nd's key becomes what it tried, if its order lacks some of it. */
void ex_keep_tried(struct node *nd);
/* Node nd's order from its recording (none if it cannot be read). */
void ex_order_of_recording(struct node *nd);
/* 1 when every choice of c is in the order of a run made already. */
int ex_already_run(const struct explore *x, const struct choices *c);
/* The choices a child forcing receive pos of task keeps (its prefix),
 * into c: 0, or -1 out of memory. */
int ex_prefix_of(struct rc_run *run, int task, int pos, struct choices *c);
int ex_same_order(const struct node *a, const struct node *b);
/* -resume: a run whose recording must stay; the state written, read
 * (returns the run to expand next, or -1 with err naming the file and
 * line of a bad one); how many runs the state of d's DIR holds (0 without
 * -resume). */
int ex_frontier(const struct explore *x, int i);
void ex_save_state(const struct explore *x);
int ex_load_state(struct explore *x, pg_err *err);
int ex_runs_made(const struct top_driver *d);

#endif
