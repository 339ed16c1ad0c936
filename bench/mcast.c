/*
 * mcast.c - pvm_mcast to K tasks, each of which answers.
 *
 *   mcast [K [N]]     K children (default 3), N multicasts (default 10000)
 *
 * The first task spawns K children, warms up, then times N rounds of: pack
 * 8 bytes, pvm_mcast to the K children, and K pvm_recv(-1, tag) of their
 * 8-byte answers (taken in whatever order they come: what Pangaea records).
 * Prints
 *     BENCH name=mcast k=K n=N secs=S us=MICROSECONDS_PER_ROUND
 */
#include "bench.h"

enum { TAG_CAST = 1, TAG_ANSWER = 2, TAG_STOP = 3 };
#define WARMUP 100
#define MAXK 64

static void child(void)
{
    char buf[8] = { 0 };
    int parent = pvm_parent(), mid, len, tag, src;

    for (;;) {
        mid = bench_check("pvm_recv", pvm_recv(-1, -1));
        bench_check("pvm_bufinfo", pvm_bufinfo(mid, &len, &tag, &src));
        if (tag == TAG_STOP)
            break;
        bench_check("pvm_upkbyte", pvm_upkbyte(buf, 8, 1));
        bench_send_bytes(parent, TAG_ANSWER, buf, 8);
    }
}

static void round_k(int *kids, int k, char *buf)
{
    int i;

    bench_check("pvm_initsend", pvm_initsend(PvmDataDefault));
    bench_check("pvm_pkbyte", pvm_pkbyte(buf, 8, 1));
    bench_check("pvm_mcast", pvm_mcast(kids, k, TAG_CAST));
    for (i = 0; i < k; i++) {
        bench_check("pvm_recv", pvm_recv(-1, TAG_ANSWER));
        bench_check("pvm_upkbyte", pvm_upkbyte(buf, 8, 1));
    }
}

int main(int argc, char **argv)
{
    int k, n, i, kids[MAXK];
    char buf[8] = { 0 }, *args[] = { "-child", NULL };
    double t0, t1, u0, s0, u1, s1;

    bench_name = "mcast";
    bench_check("pvm_mytid", pvm_mytid());
    if (argc == 2 && !strcmp(argv[1], "-child")) {
        child();
        pvm_exit();
        return 0;
    }
    k = bench_int_arg(argc, argv, 1, 3, 1);
    n = bench_int_arg(argc, argv, 2, 10000, 1);
    if (k > MAXK)
        k = MAXK;
    for (i = 0; i < k; i++)
        kids[i] = bench_spawn(args);
    for (i = 0; i < WARMUP; i++)
        round_k(kids, k, buf);
    bench_cpu(&u0, &s0);
    t0 = bench_now();
    for (i = 0; i < n; i++)
        round_k(kids, k, buf);
    t1 = bench_now();
    bench_cpu(&u1, &s1);
    bench_check("pvm_initsend", pvm_initsend(PvmDataDefault));
    bench_check("pvm_mcast", pvm_mcast(kids, k, TAG_STOP));
    printf("BENCH name=mcast k=%d n=%d secs=%.6f us=%.3f hwm_kb=%ld usr=%.3f "
           "sys=%.3f\n", k, n, t1 - t0, (t1 - t0) * 1e6 / n, bench_hwm_kb(),
           (u1 - u0) * 1e6 / n, (s1 - s0) * 1e6 / n);
    pvm_exit();
    return 0;
}
