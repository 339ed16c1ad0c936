/*
 * sor.c - red-black successive over-relaxation for Laplace's equation on
 * N PVM tasks: the demo program of Pangaea (after Hicks & Berman, 1996).
 *
 *   sor N [iterations] [gridsize]
 *
 * Design.  The grid is gridsize x gridsize; its edges are fixed (the top edge
 * is a sine bump, the others 0) and its interior rows are cut into N
 * horizontal strips, one per task.  Each iteration does a red half-sweep,
 * swaps boundary rows with the two neighbours, a black half-sweep and swaps
 * again; rows always come from one named neighbour (pvm_recv(tid, tag)), so
 * the grid itself is the same in every run.  Then every task sends the
 * largest change of its strip to task 0, which takes them with
 * pvm_recv(-1, tag) in whatever order they come and folds them into a
 * "residual" by a naive floating-point sum with terms of very different
 * size: its bits, and the printed arrival order, depend on that order.
 * Task 0 sends the global maximum back with pvm_mcast; all tasks stop early,
 * together, if it falls below a tolerance.
 *
 * So the output is nondeterministic by design, but a pure function of the
 * order in which task 0 received the reductions: exactly what Pangaea
 * records and replays.  To make the race common, children wait a random
 * 0-200 us (seeded by their pid) before each reduction message.
 *
 * The first task is the process started WITHOUT "-child K" (under `pangaea`
 * pvm_parent() is the pangaea task, so it cannot tell).  It spawns each
 * child by the absolute path of its own executable with "-child K", then
 * sends it the run's parameters and every task's tid.  Children print
 * nothing on success (their stdout would land in the pvmd log anyway).
 * Any PVM error: a message on stderr and exit status 1.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <limits.h>
#include <pvm3.h>
#include <pangaea.h>     /* not needed: Pangaea takes the PVM calls */

enum {
    TAG_SETUP = 100,    /* task 0 -> child: parameters and tids          */
    TAG_CHANGE = 101,   /* child -> task 0: index, local maximum change  */
    TAG_GMAX = 102,     /* task 0 -> all: global maximum change          */
    TAG_STRIP = 103,    /* child -> task 0: its strip, at the end        */
    TAG_ROW = 1000      /* + 2 * exchange number + direction             */
};

#define MAXTASKS 64
#define TOLERANCE 1e-13

struct sor {
    int me, ntasks, iters, n;   /* task index, tasks, iterations, grid size */
    int tids[MAXTASKS];
    int lo, hi;                 /* owned global rows [lo, hi)               */
    double *u;                  /* rows lo-1 .. hi (two ghost rows)         */
    double omega;
    unsigned seed;              /* for the children's random delays         */
};

static struct sor S;
static int spawned;             /* children started, for clean-up on error */

/* Stops everything: a task that fails leaves the others blocked in
 * pvm_recv, so the first task kills the children it started. */
static void die(const char *what, int code)
{
    fprintf(stderr, "sor[%d]: %s failed (PVM error %d)\n", S.me, what, code);
    if (S.me == 0)
        for (int k = 1; k <= spawned; k++)
            if (S.tids[k] > 0)
                pvm_kill(S.tids[k]);
    pvm_exit();
    exit(1);
}

static void check(const char *what, int rc)
{
    if (rc < 0)
        die(what, rc);
}

static double *row(int i) { return S.u + (size_t)(i - S.lo + 1) * S.n; }

/* Strip k of the interior rows 1 .. n-2, as even as integer division goes. */
static void strip_bounds(int k, int *lo, int *hi)
{
    int inner = S.n - 2;
    *lo = 1 + (int)((long)k * inner / S.ntasks);
    *hi = 1 + (int)((long)(k + 1) * inner / S.ntasks);
}

static void init_grid(void)
{
    strip_bounds(S.me, &S.lo, &S.hi);
    S.u = calloc((size_t)(S.hi - S.lo + 2) * S.n, sizeof *S.u);
    if (!S.u) {
        fprintf(stderr, "sor: out of memory\n");
        exit(1);
    }
    if (S.lo == 1)              /* the top edge is this task's upper ghost */
        for (int j = 0; j < S.n; j++)
            row(0)[j] = sin(M_PI * j / (S.n - 1));
    S.omega = 2.0 / (1.0 + sin(M_PI / (S.n - 1)));
}

/* One half-sweep over the cells of one colour; returns the largest change. */
static double half_sweep(int colour)
{
    double maxchange = 0.0;
    for (int i = S.lo; i < S.hi; i++) {
        double *up = row(i - 1), *mid = row(i), *down = row(i + 1);
        for (int j = 1 + (i + 1 + colour) % 2; j < S.n - 1; j += 2) {
            double avg = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
            double delta = S.omega * (avg - mid[j]);
            mid[j] += delta;
            if (fabs(delta) > maxchange)
                maxchange = fabs(delta);
        }
    }
    return maxchange;
}

static void send_row(int dest, int tag, const double *r)
{
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    check("pvm_pkdouble", pvm_pkdouble((double *)r, S.n, 1));
    check("pvm_send", pvm_send(dest, tag));
}

static void recv_row(int src, int tag, double *r)
{
    check("pvm_recv", pvm_recv(src, tag));
    check("pvm_upkdouble", pvm_upkdouble(r, S.n, 1));
}

/* Swap edge rows with both neighbours.  The tag names the exchange, so the
 * right row is taken even if messages of one pair overtook each other. */
static void exchange(int step)
{
    int up = TAG_ROW + 2 * step, down = up + 1;   /* direction of travel */
    if (S.me > 0)
        send_row(S.tids[S.me - 1], up, row(S.lo));
    if (S.me < S.ntasks - 1)
        send_row(S.tids[S.me + 1], down, row(S.hi - 1));
    if (S.me > 0)
        recv_row(S.tids[S.me - 1], down, row(S.lo - 1));
    if (S.me < S.ntasks - 1)
        recv_row(S.tids[S.me + 1], up, row(S.hi));
}

/* The offset task k adds to the residual sum with its change: +B for
 * k = 1 mod 4, -B for k = 3 mod 4, none for even k.  While an offset is
 * open, the sum is large and what is added to it loses its low bits; which
 * values do depends on the arrival order, and so do the sum's bits.  This
 * is the ill-conditioned sum of the Pangaea paper's motivation, made sharp. */
static int offset_sign(int k)
{
    return k % 2 == 0 ? 0 : (k / 2) % 2 ? -1 : 1;
}

struct order {                  /* task 0's record of arrivals, printed */
    char *text;
    size_t len, cap;
    double residual;
};

static void order_add(struct order *o, const char *s)
{
    size_t l = strlen(s);
    if (o->len + l + 1 > o->cap) {
        o->cap = 2 * (o->len + l + 1);
        o->text = realloc(o->text, o->cap);
        if (!o->text) {
            fprintf(stderr, "sor: out of memory\n");
            exit(1);
        }
    }
    memcpy(o->text + o->len, s, l + 1);
    o->len += l;
}

/* Task 0: take every other task's change in arrival order, fold them into
 * the residual, send back the maximum.  Returns the global maximum. */
static double reduce_master(double mine, int iter, struct order *o)
{
    double gmax = mine, sum = mine;
    double big = ldexp(1.0, ilogb(mine) + 32);  /* B: 2^32 x task 0's change */
    int open = 0;                               /* offsets still in the sum */
    char buf[32];
    if (mine == 0.0)
        big = 0.0;
    if (iter > 0 && S.ntasks > 1)
        order_add(o, "/");
    for (int got = 1; got < S.ntasks; got++) {
        int k;
        double change;
        check("pvm_recv", pvm_recv(-1, TAG_CHANGE));
        check("pvm_upkint", pvm_upkint(&k, 1, 1));
        check("pvm_upkdouble", pvm_upkdouble(&change, 1, 1));
        if (k < 1 || k >= S.ntasks)
            die("reduction (bad task index)", PvmBadMsg);
        sum += change + offset_sign(k) * big;   /* naive, in arrival order */
        open += offset_sign(k);
        if (change > gmax)
            gmax = change;
        snprintf(buf, sizeof buf, got > 1 ? ",%d" : "%d", k);
        order_add(o, buf);
    }
    o->residual += sum - open * big;            /* exact: both multiples */
    if (S.ntasks > 1) {
        check("pvm_initsend", pvm_initsend(PvmDataDefault));
        check("pvm_pkdouble", pvm_pkdouble(&gmax, 1, 1));
        check("pvm_mcast", pvm_mcast(S.tids + 1, S.ntasks - 1, TAG_GMAX));
    }
    return gmax;
}

/* A child: a short random pause makes the arrival order at task 0 vary. */
static double reduce_child(double mine)
{
    double gmax;
    usleep((useconds_t)(rand_r(&S.seed) % 201));
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    check("pvm_pkint", pvm_pkint(&S.me, 1, 1));
    check("pvm_pkdouble", pvm_pkdouble(&mine, 1, 1));
    check("pvm_send", pvm_send(S.tids[0], TAG_CHANGE));
    check("pvm_recv", pvm_recv(S.tids[0], TAG_GMAX));
    check("pvm_upkdouble", pvm_upkdouble(&gmax, 1, 1));
    return gmax;
}

/* Runs the iterations; returns how many were done. */
static int iterate(struct order *o)
{
    int iter;
    for (iter = 0; iter < S.iters; iter++) {
        double red = half_sweep(0);
        exchange(2 * iter);
        double black = half_sweep(1);
        exchange(2 * iter + 1);
        double mine = red > black ? red : black;
        double gmax = S.me == 0 ? reduce_master(mine, iter, o)
                                : reduce_child(mine);
        if (gmax < TOLERANCE) {
            iter++;
            break;
        }
    }
    return iter;
}

/* Task 0 assembles the whole grid (strips from named tasks, in index
 * order) and sums it row-major: the same bits whenever the grid is. */
static double checksum(void)
{
    double sum = 0.0;
    double *r = malloc((size_t)S.n * sizeof *r);
    if (!r) {
        fprintf(stderr, "sor: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < S.hi; i++)      /* top edge and task 0's strip */
        for (int j = 0; j < S.n; j++)
            sum += row(i)[j];
    for (int k = 1; k < S.ntasks; k++) {
        int lo, hi;
        strip_bounds(k, &lo, &hi);
        check("pvm_recv", pvm_recv(S.tids[k], TAG_STRIP));
        for (int i = lo; i < hi; i++) {
            check("pvm_upkdouble", pvm_upkdouble(r, S.n, 1));
            for (int j = 0; j < S.n; j++)
                sum += r[j];
        }
    }
    free(r);
    return sum;                         /* the bottom edge is all zero */
}

static void send_strip(void)
{
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    check("pvm_pkdouble", pvm_pkdouble(row(S.lo), (S.hi - S.lo) * S.n, 1));
    check("pvm_send", pvm_send(S.tids[0], TAG_STRIP));
}

/* The path children are spawned by: absolute, because the pvmd resolves a
 * relative path from its own working directory, not ours. */
static const char *self_path(const char *argv0)
{
    static char path[PATH_MAX];
    if (!strchr(argv0, '/'))
        return argv0;           /* found by PATH: let the pvmd search too */
    if (realpath(argv0, path))
        return path;
    return argv0;
}

static void spawn_children(const char *argv0)
{
    const char *prog = self_path(argv0);
    char index[16];
    char *args[] = { "-child", index, NULL };
    for (int k = 1; k < S.ntasks; k++) {
        snprintf(index, sizeof index, "%d", k);
        int n = pvm_spawn((char *)prog, args, PvmTaskDefault, "", 1,
                          &S.tids[k]);
        if (n != 1)
            die("pvm_spawn", n < 0 ? n : S.tids[k]);
        spawned = k;
    }
    for (int k = 1; k < S.ntasks; k++) {
        check("pvm_initsend", pvm_initsend(PvmDataDefault));
        check("pvm_pkint", pvm_pkint(&k, 1, 1));
        check("pvm_pkint", pvm_pkint(&S.ntasks, 1, 1));
        check("pvm_pkint", pvm_pkint(&S.iters, 1, 1));
        check("pvm_pkint", pvm_pkint(&S.n, 1, 1));
        check("pvm_pkint", pvm_pkint(S.tids, S.ntasks, 1));
        check("pvm_send", pvm_send(S.tids[k], TAG_SETUP));
    }
}

static void receive_setup(int index)
{
    check("pvm_recv", pvm_recv(-1, TAG_SETUP));
    check("pvm_upkint", pvm_upkint(&S.me, 1, 1));
    check("pvm_upkint", pvm_upkint(&S.ntasks, 1, 1));
    check("pvm_upkint", pvm_upkint(&S.iters, 1, 1));
    check("pvm_upkint", pvm_upkint(&S.n, 1, 1));
    if (S.me != index || S.ntasks < 2 || S.ntasks > MAXTASKS)
        die("set-up message (inconsistent)", PvmBadMsg);
    check("pvm_upkint", pvm_upkint(S.tids, S.ntasks, 1));
}

static void usage(void)
{
    fprintf(stderr, "usage: sor N [iterations] [gridsize]   (1 <= N <= %d,"
            " gridsize >= N + 2)\n", MAXTASKS);
    exit(2);
}

static int parse_int(const char *s, int min)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < min || v > 1000000)
        usage();
    return (int)v;
}

static void print_result(int done, struct order *o, double sum)
{
    printf("sor: N=%d iterations=%d grid=%d residual=%a order=%s\n",
           S.ntasks, done, S.n, o->residual, o->text ? o->text : "");
    printf("sor: checksum=%a\n", sum);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int child = argc == 3 && strcmp(argv[1], "-child") == 0;
    S.tids[0] = pvm_mytid();
    check("pvm_mytid", S.tids[0]);
    S.seed = (unsigned)getpid() * 2654435761u;

    if (child) {
        receive_setup(parse_int(argv[2], 1));
    } else {
        if (argc < 2 || argc > 4)
            usage();
        S.ntasks = parse_int(argv[1], 1);
        S.iters = argc > 2 ? parse_int(argv[2], 1) : 50;
        S.n = argc > 3 ? parse_int(argv[3], 3) : 64;
        if (S.ntasks > MAXTASKS || S.n < S.ntasks + 2)
            usage();
        spawn_children(argv[0]);
    }
    init_grid();

    struct order o = { 0 };
    int done = iterate(&o);
    if (S.me == 0)
        print_result(done, &o, checksum());
    else
        send_strip();
    free(o.text);
    free(S.u);
    pvm_exit();
    return 0;
}
