/*
 * stream.c - many tasks stream messages to one, which takes them in
 * whatever order they come: the growth benchmark.
 *
 *   stream [T [M [W]]]   T tasks in all (default 4): the first and T-1
 *                        workers; M messages in all (default 100000);
 *                        window W (default 32)
 *
 * The first task spawns T-1 workers and tells each how many 8-byte
 * messages to send: first 4W to warm up (untimed), then its share of M,
 * split as evenly as can be, once the first task says go (timed from
 * there).  A worker sends in batches of W and may be at most two batches
 * ahead of the acknowledgements (one per W messages taken), so the queue
 * of the first task stays under 2W per worker however long the run.  The
 * first task takes every message with pvm_recv(-1, tag), so the order of
 * the workers' messages races: every receive is an event that Pangaea
 * records and replays.  The timed section ends at the last message.
 * Prints
 *     BENCH name=stream t=T n=M w=W secs=S us=MICROSECONDS_PER_MESSAGE
 *           hwm_kb=PEAK_MEMORY_OF_THE_RECEIVING_TASK
 */
#include "bench.h"

enum { TAG_SETUP = 1, TAG_DATA = 2, TAG_ACK = 3, TAG_GO = 4 };
#define WARM(w) (4 * (w))      /* warm-up messages per worker */
#define MAXT 128

static void worker(void)
{
    int parent = pvm_parent(), v[3], sent, acked = 0, count, w, idx;

    bench_check("pvm_recv", pvm_recv(parent, TAG_SETUP));
    bench_check("pvm_upkint", pvm_upkint(v, 3, 1));
    idx = v[0];
    w = v[2];
    count = WARM(w) + v[1];
    for (sent = 0; sent < count; sent++) {
        if (sent == WARM(w))
            bench_check("pvm_recv", pvm_recv(parent, TAG_GO));
        /* at most two batches beyond what has been acknowledged */
        while (sent - acked * w >= 2 * w) {
            bench_check("pvm_recv", pvm_recv(parent, TAG_ACK));
            acked++;
        }
        bench_check("pvm_initsend", pvm_initsend(PvmDataDefault));
        bench_check("pvm_pkint", pvm_pkint(&idx, 1, 1));
        bench_check("pvm_pkint", pvm_pkint(&sent, 1, 1));
        bench_check("pvm_send", pvm_send(parent, TAG_DATA));
    }
}

int main(int argc, char **argv)
{
    int t, m, w, i, k, v[3], got[MAXT], tids[MAXT], idx, seq;
    char *args[] = { "-worker", NULL };
    double t0 = 0, t1, u0 = 0, s0 = 0, u1, s1;

    bench_name = "stream";
    bench_check("pvm_mytid", pvm_mytid());
    if (argc == 2 && !strcmp(argv[1], "-worker")) {
        worker();
        pvm_exit();
        return 0;
    }
    t = bench_int_arg(argc, argv, 1, 4, 2);
    m = bench_int_arg(argc, argv, 2, 100000, 1);
    w = bench_int_arg(argc, argv, 3, 32, 1);
    if (t > MAXT)
        t = MAXT;
    for (k = 1; k < t; k++) {
        tids[k] = bench_spawn(args);
        got[k] = 0;
    }
    for (k = 1; k < t; k++) {
        v[0] = k;
        v[1] = m / (t - 1) + (k <= m % (t - 1));
        v[2] = w;
        bench_check("pvm_initsend", pvm_initsend(PvmDataDefault));
        bench_check("pvm_pkint", pvm_pkint(v, 3, 1));
        bench_check("pvm_send", pvm_send(tids[k], TAG_SETUP));
    }
    for (i = 0; i < m + WARM(w) * (t - 1); i++) {
        if (i == WARM(w) * (t - 1)) {
            bench_cpu(&u0, &s0);
            t0 = bench_now();
            bench_check("pvm_initsend", pvm_initsend(PvmDataDefault));
            bench_check("pvm_mcast", pvm_mcast(tids + 1, t - 1, TAG_GO));
        }
        bench_check("pvm_recv", pvm_recv(-1, TAG_DATA));
        bench_check("pvm_upkint", pvm_upkint(&idx, 1, 1));
        bench_check("pvm_upkint", pvm_upkint(&seq, 1, 1));
        if (idx < 1 || idx >= t || seq != got[idx])
            bench_die("stream (message out of order or damaged)", PvmBadMsg);
        if (++got[idx] % w == 0) {
            bench_check("pvm_initsend", pvm_initsend(PvmDataDefault));
            bench_check("pvm_send", pvm_send(tids[idx], TAG_ACK));
        }
    }
    t1 = bench_now();
    bench_cpu(&u1, &s1);
    printf("BENCH name=stream t=%d n=%d w=%d secs=%.6f us=%.3f hwm_kb=%ld "
           "usr=%.3f sys=%.3f\n", t, m, w, t1 - t0, (t1 - t0) * 1e6 / m,
           bench_hwm_kb(), (u1 - u0) * 1e6 / m, (s1 - s0) * 1e6 / m);
    pvm_exit();
    return 0;
}
