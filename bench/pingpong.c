/*
 * pingpong.c - round trip of pvm_send/pvm_recv between two tasks.
 *
 *   pingpong [BYTES [N]]     BYTES per message (default 8), N round trips
 *                            (default 20000)
 *
 * The first task spawns one child ("-child"), warms up with 200 round
 * trips, then times N: pack BYTES with PvmDataDefault, pvm_send, and
 * pvm_recv(-1, tag) of the child's echo (the child unpacks and packs the
 * bytes again).  Both sides receive "from any task": the receives Pangaea
 * records.  Prints
 *     BENCH name=pingpong bytes=B n=N secs=S us=MICROSECONDS_PER_ROUND_TRIP
 */
#include "bench.h"

enum { TAG_PING = 1, TAG_PONG = 2, TAG_STOP = 3 };
#define WARMUP 200

static void child(int bytes)
{
    char *buf = malloc(bytes > 0 ? bytes : 1);
    int parent = pvm_parent(), mid, len, tag, src;

    for (;;) {
        mid = bench_check("pvm_recv", pvm_recv(-1, -1));
        bench_check("pvm_bufinfo", pvm_bufinfo(mid, &len, &tag, &src));
        if (tag == TAG_STOP)
            break;
        if (len > 0)
            bench_check("pvm_upkbyte", pvm_upkbyte(buf, len, 1));
        bench_send_bytes(parent, TAG_PONG, buf, len);
    }
    free(buf);
}

static void round_trip(int kid, char *buf, int bytes)
{
    bench_send_bytes(kid, TAG_PING, buf, bytes);
    bench_check("pvm_recv", pvm_recv(-1, TAG_PONG));
    if (bytes > 0)
        bench_check("pvm_upkbyte", pvm_upkbyte(buf, bytes, 1));
}

int main(int argc, char **argv)
{
    int bytes, n, kid, i;
    char *buf, *args[3] = { "-child", NULL, NULL }, arg[16];
    double t0, t1, u0, s0, u1, s1;

    bench_name = "pingpong";
    bench_check("pvm_mytid", pvm_mytid());
    if (argc == 3 && !strcmp(argv[1], "-child")) {
        child(bench_int_arg(argc, argv, 2, 8, 0));
        pvm_exit();
        return 0;
    }
    bytes = bench_int_arg(argc, argv, 1, 8, 0);
    n = bench_int_arg(argc, argv, 2, 20000, 1);
    buf = calloc(bytes > 0 ? bytes : 1, 1);
    snprintf(arg, sizeof arg, "%d", bytes);
    args[1] = arg;
    kid = bench_spawn(args);
    for (i = 0; i < WARMUP; i++)
        round_trip(kid, buf, bytes);
    bench_cpu(&u0, &s0);
    t0 = bench_now();
    for (i = 0; i < n; i++)
        round_trip(kid, buf, bytes);
    t1 = bench_now();
    bench_cpu(&u1, &s1);
    bench_send_bytes(kid, TAG_STOP, buf, 0);
    printf("BENCH name=pingpong bytes=%d n=%d secs=%.6f us=%.3f hwm_kb=%ld "
           "usr=%.3f sys=%.3f\n", bytes, n, t1 - t0, (t1 - t0) * 1e6 / n,
           bench_hwm_kb(), (u1 - u0) * 1e6 / n, (s1 - s0) * 1e6 / n);
    free(buf);
    pvm_exit();
    return 0;
}
