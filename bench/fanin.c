/*
 * fanin.c - many workers send to one task as fast as they can, with no
 * flow control: the fan-in a user tries first.
 *
 *   fanin [W [M]]   W workers (default 16), M 8-byte messages each
 *                   (default 10000)
 *
 * The first task spawns W workers; each waits for "go", then sends its M
 * messages (two ints: its index and a count) with pvm_send and ends.  The
 * first task multicasts "go" and takes all W*M messages with
 * pvm_recv(-1, 1), so every receive races with every worker that has a
 * message queued: each is an event Pangaea records and replays.  Unlike
 * stream.c nothing holds the workers back, so the queue of the first task
 * grows as far as the workers run ahead.  Timed from "go" to the last
 * message.  Prints
 *     BENCH name=fanin w=W m=M secs=S rate=MESSAGES_PER_SECOND
 *           us=MICROSECONDS_PER_MESSAGE hwm_kb=PEAK_MEMORY
 */
#include "bench.h"

enum { TAG_DATA = 1, TAG_GO = 2 };
#define MAXW 128

static void worker(int m)
{
    int parent = pvm_parent(), idx, i;

    bench_check("pvm_recv", pvm_recv(parent, TAG_GO));
    bench_check("pvm_upkint", pvm_upkint(&idx, 1, 1));
    for (i = 0; i < m; i++) {
        bench_check("pvm_initsend", pvm_initsend(PvmDataDefault));
        bench_check("pvm_pkint", pvm_pkint(&idx, 1, 1));
        bench_check("pvm_pkint", pvm_pkint(&i, 1, 1));
        bench_check("pvm_send", pvm_send(parent, TAG_DATA));
    }
}

/* Says go to each worker, with its index. */
static void go(const int *tids, int w)
{
    int k;

    for (k = 0; k < w; k++) {
        bench_check("pvm_initsend", pvm_initsend(PvmDataDefault));
        bench_check("pvm_pkint", pvm_pkint(&k, 1, 1));
        bench_check("pvm_send", pvm_send(tids[k], TAG_GO));
    }
}

int main(int argc, char **argv)
{
    int w, m, i, k, idx, seq, got[MAXW], tids[MAXW];
    char *args[] = { "-worker", NULL, NULL }, arg[16];
    double t0, t1;

    bench_name = "fanin";
    bench_check("pvm_mytid", pvm_mytid());
    if (argc == 3 && !strcmp(argv[1], "-worker")) {
        worker(bench_int_arg(argc, argv, 2, 10000, 1));
        pvm_exit();
        return 0;
    }
    w = bench_int_arg(argc, argv, 1, 16, 1);
    m = bench_int_arg(argc, argv, 2, 10000, 1);
    if (w > MAXW)
        w = MAXW;
    snprintf(arg, sizeof arg, "%d", m);
    args[1] = arg;
    for (k = 0; k < w; k++) {
        tids[k] = bench_spawn(args);
        got[k] = 0;
    }
    t0 = bench_now();
    go(tids, w);
    for (i = 0; i < w * m; i++) {
        bench_check("pvm_recv", pvm_recv(-1, TAG_DATA));
        bench_check("pvm_upkint", pvm_upkint(&idx, 1, 1));
        bench_check("pvm_upkint", pvm_upkint(&seq, 1, 1));
        if (idx < 0 || idx >= w || seq != got[idx]++)
            bench_die("fanin (message out of order or damaged)", PvmBadMsg);
    }
    t1 = bench_now();
    printf("BENCH name=fanin w=%d m=%d secs=%.6f rate=%.0f us=%.3f "
           "hwm_kb=%ld\n", w, m, t1 - t0, w * m / (t1 - t0),
           (t1 - t0) * 1e6 / (w * m), bench_hwm_kb());
    pvm_exit();
    return 0;
}
