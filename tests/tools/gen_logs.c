/*
 * gen_logs.c - writes a synthetic recording, for the display tests and for
 * measuring the display on big runs.
 *
 *   gen_logs DIR TASKS EVENTS [SKEW_US [stepback]]
 *   gen_logs DIR TASKS EVENTS star|star-ack|ring|barriers|spawns
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
 * before their sends; with "stepback", the odd tasks' clocks step back a
 * quarter of a second halfway through the run (as a clock set back by
 * hand or NTP), so that a task's times go backwards once.  The last task
 * gets no <end>, as if it crashed, and
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
 *
 * "barriers": TASKS tasks that each return from EVENTS/TASKS barriers
 * on one group, nothing else (-races numbers each task's barriers per
 * group as it reads them).  "spawns": ltid 1 spawns TASKS children, 100
 * a spawn, the highest ltid first, and only ltids 0 and 1 have logs
 * (EVENTS unused): a
 * replay's check builds its table of where each task runs from it, then
 * stops at the first child's missing log (before any pvmd is needed).
 *
 *   gen_logs DIR every     a recording with every call and event code
 *   gen_logs codes         the codes, as the tables make them
 *
 * "every" (tests/e2e/test_format_page.sh reads it through the page's
 * reader): task 1 sends to task 2 once with each call of pg_calls.def
 * that is a SEND, and task 2 takes them, each with a RECV call in turn
 * (a note, a context 0, 1 or 2, and a poll before some); then every
 * query code, a notice of each kind, a join, a lookup, a leave, a barrier, a route; task 2's exec
 * log has a crash.  "codes" prints "msg CODE NAME" and "query CODE NAME"
 * per code of the log's call tables (log_table.c) and "kind CODE NAME"
 * per event kind of pg_events.def: what the page, its reader and the
 * schema are held to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_table.h"
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

static int barriers(const char *dir, int n, int total)
{
    int per = total / n > 0 ? total / n : 1, k, b;
    double t0 = 1700000000.0 + 1e-3;
    pg_logw *lw;

    lw = open_log(dir, 0, PG_LOG_COMM);
    pg_logw_end(lw, t0 + 2e-6 * per + 1e-3, 0);
    pg_logw_close(lw);
    for (k = 1; k <= n; k++) {
        lw = open_log(dir, k, PG_LOG_COMM);
        for (b = 0; b < per; b++)
            pg_logw_barrier(lw, t0 + 2e-6 * b, "g", n, 0);
        pg_logw_end(lw, t0 + 2e-6 * per + 1e-3, 0);
        if (pg_logw_close(lw) < 0)
            return 1;
    }
    write_exec(dir, n, 1700000000.0, t0 + 2e-6 * per + 1e-3);
    printf("gen_logs: %d tasks, %d events in %s\n", n, n * per, dir);
    return 0;
}

/* ltid 1's spawns of 100 children each (pvm_spawn with a count), the
 * highest ltids first, each spawn's children in descending order. */
static void spawn_down(pg_logw *w, int n)
{
    static int ltid[100];
    static const char *host[100];
    char *argv[] = { "-worker", NULL };
    int c = n + 1, k;

    while (c >= 2) {
        for (k = 0; k < 100 && c >= 2; k++, c--) {
            ltid[k] = c;
            host[k] = c % 2 ? "hostA" : "hostB";
        }
        pg_logw_spawn(w, 1700000000.0, "/usr/bin/gen_worker", argv, 0, "", k,
                      k, ltid, host);
    }
}

static int spawns(const char *dir, int n)
{
    pg_logw *w;
    int ltid;

    for (ltid = 0; ltid <= 1; ltid++) {
        w = open_log(dir, ltid, PG_LOG_COMM);
        pg_logw_end(w, 1700000001.0, 0);
        if (pg_logw_close(w) < 0)
            return 1;
        w = open_log(dir, ltid, PG_LOG_EXEC);
        if (ltid)
            spawn_down(w, n);
        else
            spawn_one(w, 1700000000.0, 1);
        pg_logw_end(w, 1700000001.0, 0);
        if (pg_logw_close(w) < 0)
            return 1;
    }
    printf("gen_logs: ltid 1 spawns %d tasks in %s\n", n, dir);
    return 0;
}

/* ---- every code (gen_logs DIR every, gen_logs codes) --------------------- */
/* The calls of pg_calls.def that are sends and receives with a message
 * code, by their `what` column. */
#define SEND_M(name) "pvm_" #name,
#define RECV_M(name)
#define ROW(what, space, name) what##_##space(name)
#define PG_CALL(name, ret, params, group, what, space, code, gate) \
    ROW(what, space, name)
#define QUERY_Q(name)
#define QUERY_QS(name)
#define SPAWN_N(name)
#define GROUP_N(name)
#define TASK_N(name)
static const char *const send_calls[] = {
#include "pg_calls.def"
};
#undef SEND_M
#undef RECV_M
#define SEND_M(name)
#define RECV_M(name) "pvm_" #name,
static const char *const recv_calls[] = {
#include "pg_calls.def"
};
#undef PG_CALL

#define N_OF(a) ((int)(sizeof(a) / sizeof(a)[0]))
/* as many messages as it takes for each send and each receive call */
#define N_MSGS (N_OF(send_calls) > N_OF(recv_calls) ? N_OF(send_calls)     \
                                                     : N_OF(recv_calls))

static int every_comm1(const char *dir)
{
    pg_logw *w = open_log(dir, 1, PG_LOG_COMM);
    double t = 1700000000.0;
    int to = 2, i, rc = 0;

    for (i = 0; i < N_MSGS; i++) {
        pg_logw_note(w, i + 1, -3, -2, 0);
        rc |= pg_logw_site(w, t, i + 1, "/usr/bin/gen_worker", 64 * i);
        pg_logw_ctx(w, i % 3); /* contexts 0, 1, 2 (format 7) */
        rc |= pg_logw_send(w, t += 1e-3, send_calls[i % N_OF(send_calls)],
                           10 + i, i + 1, 8 * i, 1, &to);
    }
    for (i = 0; i < pg_n_query_calls; i++)
        rc |= pg_logw_query(w, t += 1e-3, pg_query_calls[i], "about", i - 3);
    rc |= pg_logw_join(w, t += 1e-3, "g", 0, 1, 1);
    rc |= pg_logw_gettid(w, t += 1e-3, "g", 1, 2);
    rc |= pg_logw_barrier(w, t += 1e-3, "g", 2, 0);
    rc |= pg_logw_leave(w, t += 1e-3, "g", 3);
    rc |= pg_logw_route(w, t += 1e-3, 3, 0);
    for (i = PG_NOTICE_EXIT; i <= PG_NOTICE_HOSTADD; i++)
        rc |= pg_logw_notice(w, t += 1e-3, "pvm_recv", 90 + i, i,
                             i == PG_NOTICE_EXIT ? 2 : -1, 4);
    rc |= pg_logw_end(w, t + 1, 0);
    return rc | pg_logw_close(w);
}

static int every_comm2(const char *dir)
{
    pg_logw *w = open_log(dir, 2, PG_LOG_COMM);
    double t = 1700000000.5;
    int i, rc = 0;

    for (i = 0; i < N_MSGS; i++) {
        const char *call = recv_calls[i % N_OF(recv_calls)];

        if (i % 2) {
            rc |= pg_logw_poll(w, t += 1e-3, "pvm_nrecv", 1, -1, 0, 0);
            pg_logw_misses(w, i);
        }
        pg_logw_note(w, 0, i % 3 ? 1 : -1, i % 2 ? 10 + i : -1, i == 3);
        pg_logw_ctx(w, i % 3);
        rc |= pg_logw_recv(w, t += 1e-3, call, 1, 10 + i, i + 1, 8 * i);
    }
    rc |= pg_logw_end(w, t + 1, -11);
    return rc | pg_logw_close(w);
}

static int every(const char *dir)
{
    char *argv[] = { "-worker", NULL };
    const char *host = "hostB";
    int two = 2, rc;
    pg_logw *w;

    rc = every_comm1(dir) | every_comm2(dir);
    w = open_log(dir, 0, PG_LOG_EXEC);
    spawn_one(w, 1700000000.0, 1);
    rc |= pg_logw_end(w, 1700000009.0, 0) | pg_logw_close(w);
    w = open_log(dir, 1, PG_LOG_EXEC);
    rc |= pg_logw_spawn(w, 1700000000.1, "/usr/bin/gen_worker", argv, 0, "",
                        1, 1, &two, &host);
    rc |= pg_logw_end(w, 1700000002.0, 0) | pg_logw_close(w);
    w = open_log(dir, 2, PG_LOG_EXEC);
    rc |= pg_logw_crash(w, 1700000002.0, 11, "/usr/bin/gen_worker", 4096);
    rc |= pg_logw_end(w, 1700000002.0, -11) | pg_logw_close(w);
    if (rc)
        fprintf(stderr, "gen_logs: a writer refused an event in %s\n", dir);
    return rc ? 1 : 0;
}

static int codes(void)
{
    int i;

    for (i = 0; i < pg_n_msg_calls; i++)
        printf("msg %d %s\n", i, pg_msg_calls[i]);
    for (i = 0; i < pg_n_query_calls; i++)
        printf("query %d %s\n", i, pg_query_calls[i]);
#define PG_EVENT(kind, code, name, log, ...) printf("kind %d %s\n", code, name);
#include "pg_events.def"
    return 0;
}

int main(int argc, char **argv)
{
    int n, total, k, events = 0;
    double t = 1700000000.0, skew, back = 0;
    pg_logw **w;
    struct inbox *in;
    int *next_id;

    if (argc == 2 && !strcmp(argv[1], "codes"))
        return codes();
    if (argc == 3 && !strcmp(argv[2], "every"))
        return every(argv[1]);
    if (argc == 5 && !strcmp(argv[4], "spawns")) {
        if ((n = atoi(argv[2])) < 1 || n > 1000000)
            return fprintf(stderr, "gen_logs: TASKS 1..1000000\n"), 2;
        return spawns(argv[1], n);
    }
    if (argc == 5 && (!strcmp(argv[4], "star") || !strcmp(argv[4], "barriers") ||
                      !strcmp(argv[4], "star-ack") || !strcmp(argv[4], "ring"))) {
        if ((n = atoi(argv[2])) < 2 || n > 100000 ||
            (total = atoi(argv[3])) < 1)
            return fprintf(stderr, "gen_logs: TASKS 2..100000\n"), 2;
        if (!strcmp(argv[4], "ring"))
            return ring(argv[1], n, total);
        if (!strcmp(argv[4], "barriers"))
            return barriers(argv[1], n, total);
        return star(argv[1], n, total, argv[4][4] == '-');
    }
    if (argc < 4 || (n = atoi(argv[2])) < 2 || n > 4000 ||
        (total = atoi(argv[3])) < 1) {
        fprintf(stderr, "usage: gen_logs DIR TASKS(2..4000) EVENTS "
                "[SKEW_US [stepback]]\n       gen_logs DIR TASKS EVENTS "
                "star|star-ack|ring|barriers|spawns\n");
        return 2;
    }
    skew = argc > 4 ? atof(argv[4]) * 1e-6 : 0;
    if (argc > 5 && !strcmp(argv[5], "stepback"))
        back = 0.25;
    w = calloc(n + 1, sizeof *w);
    in = calloc(n + 1, sizeof *in);
    next_id = calloc(n + 1, sizeof *next_id);
    for (k = 0; k <= n; k++)
        w[k] = open_log(argv[1], k, PG_LOG_COMM);
    while (events < total) {
        double tk;

        k = 1 + rnd(n);
        t += 1e-6 * (1 + rnd(40));
        tk = t + (k % 2 ? skew - (events >= total / 2 ? back : 0) : -skew);
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
