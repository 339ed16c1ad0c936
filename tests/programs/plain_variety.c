/*
 * plain_variety.c - a racing PVM program that uses the less common corners
 * of the message API: pvm_psend/pvm_precv, PvmDataRaw and PvmDataInPlace
 * packing, pvm_mcast, and PvmRouteDirect switched on by the receiver while
 * the senders are already streaming (docs/pvm-notes.md: that can break even one
 * sender's FIFO order; nothing here assumes an order).
 *
 *   plain_variety [K [M]]   K workers (default 3), M messages each (default 24)
 *
 * Built against PVM alone (an unmodified program; tests preload Pangaea).
 *
 * Design.  The master spawns K copies of itself ("-worker I", absolute path)
 * and sends each its set-up with pvm_psend (PVM_INT).  Worker I sends M
 * messages of L doubles to the master, each a pure function of (I, J), in
 * turn by pvm_psend, PvmDataRaw and PvmDataInPlace packing, with random
 * pauses of 0-100 us ("go" and the tokens below use PvmDataDefault).  The
 * master switches on direct routing after the first message, and receives
 * alternately with pvm_precv(-1, tag) and pvm_recv(-1, tag) + pvm_upkdouble;
 * it checks every payload against the formula (a runtime that damages a
 * message is caught here) and hashes the payloads in arrival order.  Then
 * it multicasts "go"; each worker multicasts a token to the other workers,
 * takes theirs with pvm_recv(-1, tag) and reports their order to the master
 * by pvm_psend.
 *
 * The master prints the arrival order (I.J), the payload hash, the report
 * order and each worker's token order: a pure function of the receive
 * orders, different between runs only because those are.  Workers print
 * nothing.  Any PVM error or bad payload: message on stderr, exit status 1.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

enum { TAG_SETUP = 1, TAG_DATA = 2, TAG_GO = 3, TAG_TOKEN = 4, TAG_REPORT = 5 };

#define MAXW 32
#define L 8                     /* doubles per data message */

static int me, nworkers, nmsgs;
static int tids[MAXW + 1];

static void die(const char *what, int code)
{
    fprintf(stderr, "variety[%d]: %s failed (PVM error %d)\n", me, what, code);
    if (me == 0)
        for (int i = 1; i <= nworkers; i++)
            if (tids[i] > 0)
                pvm_kill(tids[i]);
    pvm_exit();
    exit(1);
}

static int check(const char *what, int rc)
{
    if (rc < 0)
        die(what, rc);
    return rc;
}

/* The payload of worker i's message j; [0] and [1] name it exactly. */
static void payload(int i, int j, double p[L])
{
    p[0] = i;
    p[1] = j;
    for (int l = 2; l < L; l++)
        p[l] = sin(i * 31.0 + j * 7.0 + l) * pow(10.0, l - 4);
}

/* ---- worker ------------------------------------------------------------ */

/* Message j goes out by one of three ways, in turn.  Not PvmDataDefault:
 * pvm_precv copies raw bytes and would see XDR's byte order (measured). */
static void send_data(int j)
{
    static double p[L];         /* stays put until pvm_send returns (InPlace) */
    static const int enc[] = { 0, PvmDataRaw, PvmDataInPlace };
    payload(me, j, p);
    if (j % 3 == 0) {
        check("pvm_psend", pvm_psend(tids[0], TAG_DATA, p, L, PVM_DOUBLE));
        return;
    }
    check("pvm_initsend", pvm_initsend(enc[j % 3]));
    check("pvm_pkdouble", pvm_pkdouble(p, L, 1));
    check("pvm_send", pvm_send(tids[0], TAG_DATA));
}

static void exchange_tokens(void)
{
    int others[MAXW], n = 0, report[MAXW + 1];
    for (int i = 1; i <= nworkers; i++)
        if (i != me)
            others[n++] = tids[i];
    check("pvm_recv", pvm_recv(tids[0], TAG_GO));
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    check("pvm_pkint", pvm_pkint(&me, 1, 1));
    if (n > 0)
        check("pvm_mcast", pvm_mcast(others, n, TAG_TOKEN));
    report[0] = me;
    for (int got = 0; got < n; got++) {
        check("pvm_recv", pvm_recv(-1, TAG_TOKEN));
        check("pvm_upkint", pvm_upkint(&report[got + 1], 1, 1));
    }
    check("pvm_psend", pvm_psend(tids[0], TAG_REPORT, report, n + 1, PVM_INT));
}

static void worker(void)
{
    unsigned seed = (unsigned)getpid() * 2654435761u;
    for (int j = 0; j < nmsgs; j++) {
        usleep((useconds_t)(rand_r(&seed) % 101));
        send_data(j);
    }
    exchange_tokens();
}

/* ---- master ------------------------------------------------------------ */

struct text { char *s; size_t len, cap; };

/* Appends a short piece (under 32 bytes) of printed text. */
static void add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    if (t->cap - t->len < 32) {
        t->cap = 2 * t->cap + 64;
        if (!(t->s = realloc(t->s, t->cap))) {
            fprintf(stderr, "variety: out of memory\n");
            exit(1);
        }
    }
    va_start(ap, fmt);
    t->len += (size_t)vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
}

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Message n: by pvm_precv when n is even, else by pvm_recv + unpack. */
static int receive_data(int n, double p[L])
{
    int src, tag, cnt;
    if (n % 2 == 0) {
        check("pvm_precv", pvm_precv(-1, TAG_DATA, p, L, PVM_DOUBLE,
                                     &src, &tag, &cnt));
        if (cnt != (int)sizeof(double[L]))     /* alen counts bytes */
            die("pvm_precv (short message)", PvmBadMsg);
    } else {
        int bufid = check("pvm_recv", pvm_recv(-1, TAG_DATA)), bytes;
        check("pvm_bufinfo", pvm_bufinfo(bufid, &bytes, &tag, &src));
        check("pvm_upkdouble", pvm_upkdouble(p, L, 1));
    }
    return src;
}

static void collect_data(struct text *order, uint64_t *hash)
{
    for (int n = 0; n < nworkers * nmsgs; n++) {
        double p[L], want[L];
        int src = receive_data(n, p), i = (int)p[0], j = (int)p[1];
        if (i < 1 || i > nworkers || j < 0 || j >= nmsgs || tids[i] != src)
            die("data message (unknown sender)", PvmBadMsg);
        payload(i, j, want);
        if (memcmp(p, want, sizeof p) != 0)
            die("data message (damaged payload)", PvmBadMsg);
        *hash = fnv(*hash, p, sizeof p);
        add(order, n ? " %d.%d" : "%d.%d", i, j);
        if (n == 0)             /* the receiver switches, mid-stream */
            check("pvm_setopt", pvm_setopt(PvmRoute, PvmRouteDirect));
    }
}

static void collect_reports(struct text *reports, struct text *tokens)
{
    int order[MAXW + 1][MAXW + 1], seen[MAXW + 1] = { 0 };
    for (int n = 0; n < nworkers; n++) {
        int r[MAXW + 1], src, tag, cnt;
        check("pvm_precv", pvm_precv(-1, TAG_REPORT, r, MAXW + 1, PVM_INT,
                                     &src, &tag, &cnt));
        if (cnt != nworkers * (int)sizeof(int) || r[0] < 1 || r[0] > nworkers
            || seen[r[0]]++)
            die("report (malformed)", PvmBadMsg);
        memcpy(order[r[0]], r, sizeof r);
        add(reports, n ? ",%d" : "%d", r[0]);
    }
    for (int i = 1; i <= nworkers; i++) {
        add(tokens, i > 1 ? " %d:" : "%d:", i);
        for (int k = 1; k < nworkers; k++)
            add(tokens, k > 1 ? ",%d" : "%d", order[i][k]);
    }
}

static const char *self_path(const char *argv0)
{
    static char path[PATH_MAX];
    if (strchr(argv0, '/') && realpath(argv0, path))
        return path;    /* the pvmd resolves relative paths from its cwd */
    return argv0;
}

static void spawn_workers(const char *argv0)
{
    const char *prog = self_path(argv0);
    char index[16];
    char *args[] = { "-worker", index, NULL };
    for (int i = 1; i <= nworkers; i++) {
        snprintf(index, sizeof index, "%d", i);
        int n = pvm_spawn((char *)prog, args, PvmTaskDefault, "", 1, &tids[i]);
        if (n != 1)
            die("pvm_spawn", n < 0 ? n : tids[i]);
    }
    int setup[MAXW + 3] = { nworkers, nmsgs };
    memcpy(setup + 2, tids, (size_t)(nworkers + 1) * sizeof *tids);
    for (int i = 1; i <= nworkers; i++)
        check("pvm_psend", pvm_psend(tids[i], TAG_SETUP, setup, nworkers + 3,
                                     PVM_INT));
}

static void master(const char *argv0)
{
    struct text order = { 0 }, reports = { 0 }, tokens = { 0 };
    uint64_t hash = 14695981039346656037ull;
    spawn_workers(argv0);
    collect_data(&order, &hash);
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    check("pvm_mcast", pvm_mcast(tids + 1, nworkers, TAG_GO));
    collect_reports(&reports, &tokens);
    printf("variety: K=%d M=%d\n", nworkers, nmsgs);
    printf("variety: order=%s\n", order.s);
    printf("variety: payload-hash=%016llx\n", (unsigned long long)hash);
    printf("variety: reports=%s\n", reports.s);
    printf("variety: tokens=%s\n", tokens.s ? tokens.s : "");
    fflush(stdout);
    free(order.s);
    free(reports.s);
    free(tokens.s);
}

static void receive_setup(void)
{
    int setup[MAXW + 3], src, tag, cnt;
    check("pvm_precv", pvm_precv(-1, TAG_SETUP, setup, MAXW + 3, PVM_INT,
                                 &src, &tag, &cnt));
    nworkers = setup[0];
    nmsgs = setup[1];
    if (nworkers < me || nworkers > MAXW
        || cnt != (nworkers + 3) * (int)sizeof(int))
        die("set-up message (inconsistent)", PvmBadMsg);
    memcpy(tids, setup + 2, (size_t)(nworkers + 1) * sizeof *tids);
}

static int parse_int(const char *s, int min, int max)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "usage: variety [K (1..%d) [M (1..1000)]]\n", MAXW);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv)
{
    check("pvm_mytid", tids[0] = pvm_mytid());
    if (argc == 3 && strcmp(argv[1], "-worker") == 0) {
        me = parse_int(argv[2], 1, MAXW);
        receive_setup();
        worker();
    } else {
        if (argc > 3)
            parse_int("", 0, 0);
        nworkers = argc > 1 ? parse_int(argv[1], 1, MAXW) : 3;
        nmsgs = argc > 2 ? parse_int(argv[2], 1, 1000) : 24;
        master(argv[0]);
    }
    pvm_exit();
    return 0;
}
