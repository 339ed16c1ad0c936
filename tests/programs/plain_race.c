/*
 * plain_race.c - a PVM program whose output depends only on the order in
 * which its messages are received, and that order races.
 *
 *   plain_race [K [M]]     K workers (default 3), M messages each (default 30)
 *
 * Built against PVM alone (pvm3.h, -lpvm3): an "already-built unmodified
 * program" that the tests run with Pangaea preloaded.  race.c is the same
 * program built the instrumented way (it includes this file).
 *
 * Design.  The master spawns K copies of itself by the absolute path of its
 * executable with "-worker I" and sends each the tids of all.  Worker I
 * sends M messages to the master with varying tags, interleaved with M to
 * worker I%K+1, pausing a random 0-100 us (seeded by its pid) between them.
 * The master takes the K*M data messages, plus one report per worker, in
 * three phases that use every kind of receive:
 *   1. pvm_recv(-1, -1)                               (blocking, any source)
 *   2. pvm_nrecv(-1, -1) polling                      (non-blocking)
 *   3. pvm_probe(-1, -1), then pvm_recv(tid, tag) of what it saw,
 *      or pvm_trecv(-1, -1, 50 ms) when nothing is there yet.
 * After phase 1 it multicasts a "poke" to the workers.  Each worker takes
 * its peer's messages and the poke with pvm_recv(-1, -1) and reports where
 * the poke came among them; reports can arrive in phase 2 or 3.
 *
 * The master prints the sequence of (worker, tag) it received, the poke
 * positions, and a hash of both: nothing about timing (poll counts,
 * timeouts) or tids, so the output is a pure function of the receive order
 * and differs between runs only because that order does.  Workers print
 * nothing.  Any PVM error: message on stderr, exit status 1.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <pvm3.h>

enum {
    TAG_SETUP = 1, TAG_POKE = 2, TAG_REPORT = 3,
    TAG_DATA = 10,  /* .. TAG_DATA+3: worker -> master        */
    TAG_PEER = 20   /* .. TAG_PEER+2: worker -> next worker   */
};

#define MAXW 64
#define DEADLINE_S 60   /* phase 3 gives up after this long */

static int me;                  /* 0: master, 1..K: worker */
static int nworkers, nmsgs;
static int tids[MAXW + 1];

static void die(const char *what, int code)
{
    fprintf(stderr, "race[%d]: %s failed (PVM error %d)\n", me, what, code);
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

static void send_ints(int dest, int tag, int a, int b)
{
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    check("pvm_pkint", pvm_pkint(&a, 1, 1));
    check("pvm_pkint", pvm_pkint(&b, 1, 1));
    check("pvm_send", pvm_send(dest, tag));
}

/* ---- worker ------------------------------------------------------------ */

static void worker(void)
{
    unsigned seed = (unsigned)getpid() * 2654435761u;
    int next = tids[me % nworkers + 1], got = 0, poke_at = -1;

    for (int j = 0; j < nmsgs; j++) {
        usleep((useconds_t)(rand_r(&seed) % 101));
        send_ints(tids[0], TAG_DATA + (me + j) % 4, me, j);
        send_ints(next, TAG_PEER + j % 3, me, j);
    }
    /* nmsgs from the previous worker and the poke, in any order. */
    while (got < nmsgs || poke_at < 0) {
        int bufid = check("pvm_recv", pvm_recv(-1, -1)), tag, src, bytes;
        check("pvm_bufinfo", pvm_bufinfo(bufid, &bytes, &tag, &src));
        if (tag == TAG_POKE)
            poke_at = got;
        else if (tag >= TAG_PEER && tag < TAG_PEER + 3)
            got++;
        else
            die("worker receive (unexpected tag)", PvmBadMsg);
    }
    send_ints(tids[0], TAG_REPORT, me, poke_at);
}

/* ---- master ------------------------------------------------------------ */

struct log {
    char *text;                 /* "worker:tag" per message, in order */
    size_t len, cap;
    int poke_at[MAXW + 1];
    int data, reports;
};

/* Records one received message (the active receive buffer). */
static void take(struct log *lg, int bufid)
{
    int tag, src, bytes, who, val;
    check("pvm_bufinfo", pvm_bufinfo(bufid, &bytes, &tag, &src));
    check("pvm_upkint", pvm_upkint(&who, 1, 1));
    check("pvm_upkint", pvm_upkint(&val, 1, 1));
    if (who < 1 || who > nworkers || tids[who] != src)
        die("master receive (unknown sender)", PvmBadMsg);
    if (tag == TAG_REPORT) {
        lg->poke_at[who] = val;
        lg->reports++;
    } else if (tag >= TAG_DATA && tag < TAG_DATA + 4) {
        lg->data++;
    } else {
        die("master receive (unexpected tag)", PvmBadMsg);
    }
    lg->len += (size_t)snprintf(lg->text + lg->len, lg->cap - lg->len,
                                "%s%d:%d", lg->len ? " " : "", who, tag);
}

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec / 1e6;
}

static void phase_recv(struct log *lg, int until)
{
    while (lg->data + lg->reports < until)
        take(lg, check("pvm_recv", pvm_recv(-1, -1)));
}

static void phase_nrecv(struct log *lg, int until)
{
    while (lg->data + lg->reports < until) {
        int bufid = check("pvm_nrecv", pvm_nrecv(-1, -1));
        if (bufid > 0)
            take(lg, bufid);
        else
            usleep(20);
    }
}

static void phase_probe(struct log *lg, int until)
{
    double deadline = now() + DEADLINE_S;
    while (lg->data + lg->reports < until) {
        int bufid = check("pvm_probe", pvm_probe(-1, -1));
        if (bufid > 0) {
            int tag, src, bytes;
            check("pvm_bufinfo", pvm_bufinfo(bufid, &bytes, &tag, &src));
            take(lg, check("pvm_recv", pvm_recv(src, tag)));
            continue;
        }
        struct timeval tmo = { 0, 50000 };
        bufid = check("pvm_trecv", pvm_trecv(-1, -1, &tmo));
        if (bufid > 0)
            take(lg, bufid);
        else if (now() > deadline)
            die("master receive (nothing for a minute)", PvmSysErr);
    }
}

/* FNV-1a, 64 bits: a short stand-in for the whole order. */
static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static void print_log(const struct log *lg)
{
    char pokes[16 * MAXW] = "";
    size_t n = 0;
    for (int i = 1; i <= nworkers; i++)
        n += (size_t)snprintf(pokes + n, sizeof pokes - n, "%s%d",
                              i > 1 ? "," : "", lg->poke_at[i]);
    uint64_t h = fnv(fnv(14695981039346656037ull, lg->text, lg->len),
                     pokes, n);
    printf("race: K=%d M=%d received=%d\n", nworkers, nmsgs,
           lg->data + lg->reports);
    printf("race: order=%s\n", lg->text);
    printf("race: pokes=%s\n", pokes);
    printf("race: hash=%016llx\n", (unsigned long long)h);
    fflush(stdout);
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
    for (int i = 1; i <= nworkers; i++) {
        check("pvm_initsend", pvm_initsend(PvmDataDefault));
        check("pvm_pkint", pvm_pkint(&nworkers, 1, 1));
        check("pvm_pkint", pvm_pkint(&nmsgs, 1, 1));
        check("pvm_pkint", pvm_pkint(tids, nworkers + 1, 1));
        check("pvm_send", pvm_send(tids[i], TAG_SETUP));
    }
}

static void master(const char *argv0)
{
    static struct log lg;
    int total = nworkers * nmsgs + nworkers;
    lg.cap = (size_t)total * 8 + 1;     /* "NN:NN " is at most 6 */
    if (!(lg.text = calloc(lg.cap, 1))) {
        fprintf(stderr, "race: out of memory\n");
        exit(1);
    }
    spawn_workers(argv0);
    phase_recv(&lg, nworkers * nmsgs / 3);
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    check("pvm_mcast", pvm_mcast(tids + 1, nworkers, TAG_POKE));
    phase_nrecv(&lg, 2 * nworkers * nmsgs / 3);
    phase_probe(&lg, total);
    print_log(&lg);
    free(lg.text);
}

static int parse_int(const char *s, int min, int max)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < min || v > max) {
        fprintf(stderr, "usage: race [K (1..%d) [M (1..1000)]]\n", MAXW);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv)
{
    check("pvm_mytid", tids[0] = pvm_mytid());
    if (argc == 3 && strcmp(argv[1], "-worker") == 0) {
        me = parse_int(argv[2], 1, MAXW);
        check("pvm_recv", pvm_recv(-1, TAG_SETUP));
        check("pvm_upkint", pvm_upkint(&nworkers, 1, 1));
        check("pvm_upkint", pvm_upkint(&nmsgs, 1, 1));
        if (nworkers < me || nworkers > MAXW)
            die("set-up message (inconsistent)", PvmBadMsg);
        check("pvm_upkint", pvm_upkint(tids, nworkers + 1, 1));
        worker();
    } else {
        if (argc > 3)
            parse_int("", 0, 0);
        nworkers = argc > 1 ? parse_int(argv[1], 1, MAXW) : 3;
        nmsgs = argc > 2 ? parse_int(argv[2], 1, 1000) : 30;
        master(argv[0]);
    }
    pvm_exit();
    return 0;
}
