/*
 * gen_logs.c - writes a synthetic recording, for the display tests and for
 * measuring the display on big runs.
 *
 *   gen_logs DIR TASKS EVENTS [SKEW_US]
 *   gen_logs DIR TASKS EVENTS star|star-ack|ring
 *
 * Design.  Writes the logs of TASKS tasks (ltids 1..TASKS, plus ltid 0,
 * the top-level task) with the log API (pg_logw_*), as a recording would:
 * a small deterministic simulation (fixed seed) in which each step one
 * task either takes a pending message (any of them: the order races) or
 * sends: mostly pvm_send, some pvm_mcast to 2-3 tasks, a few pvm_bcast to
 * all.  It stops after about EVENTS events.  To exercise what the display
 * must show as unmatched, 2% of deliveries are lost (no receive takes
 * them), 0.5% of receives name a message id their sender never logged
 * (selective logging), and messages still pending at the end stay
 * unreceived.  Task i's clock runs SKEW_US microseconds (default 0) ahead
 * of or behind the others by its parity, so receives can be stamped
 * before their sends.  The last task gets no <end>, as if it crashed, and
 * ltid 0's program name is full of characters that need escaping.
 *
 * The star shapes measure the analyses on deep queues and many tasks: a
 * master (ltid 1) takes the messages of TASKS-1 workers with
 * pvm_recv(-1,-1), in a random order that keeps each worker's order, so
 * every receive races with every worker that still has a message queued.
 * "star": the workers send all their messages unasked (the queue is as
 * deep as the run); "star-ack": each worker waits for the master's ack
 * of its message before sending the next (flow control: the workers'
 * clocks learn of each other through the master).  "ring": each task
 * sends to the next and then takes one message (from anyone: no race),
 * EVENTS/2/TASKS rounds; many tasks that each know little.  The logs are written
 * one after the other (a few files open at a time), so TASKS may be tens
 * of thousands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_log.h"

struct msg {
    int from, msgid, tag, bytes;
};

struct inbox {
    struct msg *m;
    int n, cap;
};

/* ltid 0's program name holds what a JSON writer or an HTML page must
 * escape: quotes, a closing script tag, '&', UTF-8, U+2028. */
#define TOP_NAME "pangaea \"top\" </script><b>x</b> & caf\xc3\xa9 \xe2\x80\xa8 \\"

static unsigned long long rng = 0x9E3779B97F4A7C15ull;

static unsigned rnd(unsigned n) /* xorshift: the same run on every machine */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 11) % n;
}

static void push(struct inbox *b, struct msg m)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 16;
        b->m = realloc(b->m, (size_t)b->cap * sizeof *b->m);
        if (!b->m)
            exit(1);
    }
    b->m[b->n++] = m;
}

static pg_logw *open_log(const char *dir, int ltid, pg_log_kind kind)
{
    char path[4200];
    pg_err err;
    pg_logw *w;

    pg_log_path(path, sizeof path, dir, ltid, kind);
    w = pg_logw_open(path, kind, ltid, ltid ? "/usr/bin/gen_worker" : TOP_NAME,
                     ltid % 2 ? "hostA" : "hostB", &err);
    if (!w) {
        fprintf(stderr, "gen_logs: %s\n", err.msg);
        exit(1);
    }
    return w;
}

static void spawn_one(pg_logw *w, double t, int child)
{
    char *argv[] = { "-worker", NULL };
    const char *host = child % 2 ? "hostA" : "hostB";

    pg_logw_spawn(w, t, "/usr/bin/gen_worker", argv, 0, "", 1, 1, &child,
                  &host);
}

/* The family tree: ltid 0 spawned 1, which spawned 2..n. */
static void write_exec(const char *dir, int n, double t, double tend)
{
    int ltid, c;
    pg_logw *w;

    for (ltid = 0; ltid <= n; ltid++) {
        w = open_log(dir, ltid, PG_LOG_EXEC);
        if (ltid == 0)
            spawn_one(w, t, 1);
        for (c = 2; ltid == 1 && c <= n; c++)
            spawn_one(w, t, c);
        if (ltid < n)
            pg_logw_end(w, tend, 0);
        pg_logw_close(w);
    }
}

/* One send from task k: returns the number of events written (1). */
static int do_send(pg_logw **w, struct inbox *in, int *next_id, int n, int k,
                   double t)
{
    int to[64], nto = 0, r = rnd(100), i, d;
    const char *call = r < 3 ? "pvm_bcast" : r < 10 ? "pvm_mcast" : "pvm_send";
    struct msg m = { k, ++next_id[k], 10 + rnd(5), 8 * (1 + rnd(64)) };

    if (r < 3) {
        for (d = 1; d <= n && nto < 64; d++)
            if (d != k)
                to[nto++] = d;
    } else {
        int want = r < 10 ? 2 + rnd(2) : 1;

        for (i = 0; i < 4 * want && nto < want; i++) {
            d = 1 + rnd(n);
            if (d != k && (nto == 0 || to[nto - 1] != d))
                to[nto++] = d;
        }
    }
    if (nto == 0)
        to[nto++] = k % n + 1;
    pg_logw_send(w[k], t, call, m.tag, m.msgid, m.bytes, nto, to);
    for (i = 0; i < nto; i++)
        if (rnd(100) >= 2) /* 2% are lost */
            push(&in[to[i]], m);
    return 1;
}

static int do_recv(pg_logw **w, struct inbox *b, int n, int k, double t)
{
    struct msg m;
    int i;

    if (rnd(200) == 0) { /* a receive whose send was not logged */
        pg_logw_recv(w[k], t, "pvm_recv", k % n + 1, 7, 1000000 + rnd(1000),
                     16);
        return 1;
    }
    i = rnd(b->n);
    m = b->m[i];
    b->m[i] = b->m[--b->n];
    pg_logw_note(w[k], 0, -1, -1, 0); /* receives from anyone (-races) */
    pg_logw_recv(w[k], t, rnd(4) ? "pvm_recv" : "pvm_nrecv", m.from, m.tag,
                 m.msgid, m.bytes);
    return 1;
}

/* ---- the star shapes ------------------------------------------------------- */

/* order[j]: the worker whose message the master's j-th receive takes;
 * each worker sends about the same number. */
static int *star_order(int workers, int total)
{
    int *order = malloc((size_t)total * sizeof *order), j, k;

    if (!order)
        exit(1);
    for (j = 0; j < total; j++)
        order[j] = 2 + j % workers;
    for (j = total - 1; j > 0; j--) { /* shuffled; per-worker order is the
                                         order of its receives */
        k = (int)rnd((unsigned)j + 1);
        int x = order[j];
        order[j] = order[k], order[k] = x;
    }
    return order;
}

/* Worker w's log: its sends (msgid 1, 2, ...), each followed by the
 * master's ack when ack (the master's j-th send has msgid j+1). */
static void star_worker(const char *dir, int w, const int *order, int total,
                        int ack, double t0)
{
    pg_logw *lw = open_log(dir, w, PG_LOG_COMM);
    int j, k = 0, one = 1;

    for (j = 0; j < total; j++) {
        if (order[j] != w)
            continue;
        pg_logw_send(lw, t0 + 2e-6 * j, "pvm_send", 10, ++k, 64, 1, &one);
        if (ack)
            pg_logw_recv(lw, t0 + 2e-6 * j + 1.5e-6, "pvm_recv", 1, 11, j + 1,
                         8);
    }
    pg_logw_end(lw, t0 + 2e-6 * total + 1e-3, 0);
    if (pg_logw_close(lw) < 0)
        exit(1);
}

static int star(const char *dir, int n, int total, int ack)
{
    int workers = n - 1, *order, *count = calloc(n + 1, sizeof *count), j, w;
    double t0 = 1700000000.0 + 1e-3;
    pg_logw *lw;

    if (ack)
        total /= 3; /* a send, a receive and an ack per message */
    else
        total /= 2;
    if (total < 1)
        total = 1;
    order = star_order(workers, total);
    lw = open_log(dir, 0, PG_LOG_COMM);
    pg_logw_end(lw, t0 + 2e-6 * total + 1e-3, 0);
    pg_logw_close(lw);
    lw = open_log(dir, 1, PG_LOG_COMM);
    for (j = 0; j < total; j++) {
        w = order[j];
        pg_logw_note(lw, 0, -1, -1, 0);
        pg_logw_recv(lw, t0 + 2e-6 * j + 1e-6, "pvm_recv", w, 10, ++count[w],
                     64);
        if (ack)
            pg_logw_send(lw, t0 + 2e-6 * j + 1.2e-6, "pvm_send", 11, j + 1, 8,
                         1, &w);
    }
    pg_logw_end(lw, t0 + 2e-6 * total + 1e-3, 0);
    if (pg_logw_close(lw) < 0)
        return 1;
    for (w = 2; w <= n; w++)
        star_worker(dir, w, order, total, ack, t0);
    write_exec(dir, n, 1700000000.0, t0 + 2e-6 * total + 1e-3);
    printf("gen_logs: %d tasks, %d events in %s\n", n,
           total * (ack ? 3 : 2), dir);
    free(order), free(count);
    return 0;
}

static int ring(const char *dir, int n, int total)
{
    int rounds = total / 2 / n, k, r, to, msgs = 0;
    double t0 = 1700000000.0 + 1e-3, t;
    pg_logw *lw;

    if (rounds < 1)
        rounds = 1;
    lw = open_log(dir, 0, PG_LOG_COMM);
    pg_logw_end(lw, t0 + 2e-6 * rounds + 1e-3, 0);
    pg_logw_close(lw);
    for (k = 1; k <= n; k++) {
        lw = open_log(dir, k, PG_LOG_COMM);
        to = k % n + 1;
        for (r = 0; r < rounds; r++, msgs++) {
            t = t0 + 2e-6 * r;
            pg_logw_send(lw, t, "pvm_send", 12, r + 1, 8, 1, &to);
            pg_logw_note(lw, 0, -1, -1, 0);
            pg_logw_recv(lw, t + 1e-6, "pvm_recv", k == 1 ? n : k - 1, 12,
                         r + 1, 8);
        }
        pg_logw_end(lw, t0 + 2e-6 * rounds + 1e-3, 0);
        if (pg_logw_close(lw) < 0)
            return 1;
    }
    write_exec(dir, n, 1700000000.0, t0 + 2e-6 * rounds + 1e-3);
    printf("gen_logs: %d tasks, %d events in %s\n", n, 2 * msgs, dir);
    return 0;
}

int main(int argc, char **argv)
{
    int n, total, k, events = 0;
    double t = 1700000000.0, skew;
    pg_logw **w;
    struct inbox *in;
    int *next_id;

    if (argc == 5 && (!strcmp(argv[4], "star") ||
                      !strcmp(argv[4], "star-ack") || !strcmp(argv[4], "ring"))) {
        if ((n = atoi(argv[2])) < 2 || n > 100000 ||
            (total = atoi(argv[3])) < 1)
            return fprintf(stderr, "gen_logs: TASKS 2..100000\n"), 2;
        if (!strcmp(argv[4], "ring"))
            return ring(argv[1], n, total);
        return star(argv[1], n, total, argv[4][4] == '-');
    }
    if (argc < 4 || (n = atoi(argv[2])) < 2 || n > 4000 ||
        (total = atoi(argv[3])) < 1) {
        fprintf(stderr, "usage: gen_logs DIR TASKS(2..4000) EVENTS "
                "[SKEW_US]\n       gen_logs DIR TASKS EVENTS star|star-ack|ring\n");
        return 2;
    }
    skew = argc > 4 ? atof(argv[4]) * 1e-6 : 0;
    w = calloc(n + 1, sizeof *w);
    in = calloc(n + 1, sizeof *in);
    next_id = calloc(n + 1, sizeof *next_id);
    for (k = 0; k <= n; k++)
        w[k] = open_log(argv[1], k, PG_LOG_COMM);
    while (events < total) {
        double tk;

        k = 1 + rnd(n);
        t += 1e-6 * (1 + rnd(40));
        tk = t + (k % 2 ? skew : -skew);
        if (in[k].n > 0 && rnd(100) < 55)
            events += do_recv(w, &in[k], n, k, tk);
        else
            events += do_send(w, in, next_id, n, k, tk);
    }
    write_exec(argv[1], n, 1700000000.0, t + 1e-3);
    for (k = 0; k <= n; k++) {
        if (k < n)
            pg_logw_end(w[k], t + 1e-3, 0);
        if (pg_logw_close(w[k]) < 0)
            return 1;
        free(in[k].m);
    }
    printf("gen_logs: %d tasks, %d events in %s\n", n, events, argv[1]);
    return 0;
}
