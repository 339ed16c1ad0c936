/*
 * gen_logs.c - writes a synthetic recording, for the display tests and for
 * measuring the display on big runs.
 *
 *   gen_logs DIR TASKS EVENTS [SKEW_US]
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

int main(int argc, char **argv)
{
    int n, total, k, events = 0;
    double t = 1700000000.0, skew;
    pg_logw **w;
    struct inbox *in;
    int *next_id;

    if (argc < 4 || (n = atoi(argv[2])) < 2 || n > 4000 ||
        (total = atoi(argv[3])) < 1) {
        fprintf(stderr, "usage: gen_logs DIR TASKS(2..4000) EVENTS "
                "[SKEW_US]\n");
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
