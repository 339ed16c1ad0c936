/*
 * plain_fifo.c - workers that each send numbered messages, and a master
 * that checks it takes each worker's messages in the order sent: PVM keeps
 * a sender's messages in order, so any other order is one PVM never gives
 * (tests/e2e/test_fifo.sh: `-chaos`, `-explore`, `-whatif` must not make
 * one).  Built against PVM only.
 *
 *   plain_fifo recv|poll|drift [WORKERS [N]]
 *
 * Each of WORKERS workers (default 1) sends N (default 10) numbered
 * messages (tag 1, value 1..N), then a last one (tag 2).  The master takes them all with
 * pvm_recv(-1, -1) (`recv`) or by polling pvm_nrecv(-1, -1) until every
 * worker's last message came (`poll`).  It prints "in order: W workers, N
 * messages each" and ends with 0, or names the first message out of order
 * ("out of order: from worker K took 7 after 3") and ends with 1.
 * `drift` is `recv` with workers whose count of messages comes from
 * outside PVM: 10 plus the size of ./plain_fifo.count, to which each
 * worker appends a byte first; no two runs agree, so a what-if's workers
 * cannot follow their recording (tests/e2e/test_whatif_real.sh: -explore
 * says "skipped", not "failed").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pvm3.h>

#define MAXW 8

static int N = 10;

static void send_int(int tid, int tag, int v)
{
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    if (pvm_send(tid, tag) < 0) {
        fprintf(stderr, "plain_fifo: pvm_send failed\n");
        exit(1);
    }
}

static void worker(void)
{
    int i, parent = pvm_parent();

    pvm_recv(parent, 3); /* how many */
    pvm_upkint(&N, 1, 1);
    if (N < 0) { /* drift: from a file that grows every run */
        struct stat st;
        int fd = open("plain_fifo.count", O_WRONLY | O_CREAT | O_APPEND, 0644);

        if (fd < 0 || write(fd, "x", 1) != 1 || fstat(fd, &st) < 0)
            exit(1);
        close(fd);
        N = 10 + (int)st.st_size;
    }
    for (i = 1; i <= N; i++)
        send_int(parent, 1, i);
    send_int(parent, 2, 0);
    pvm_exit();
}

/* The next message, by pvm_recv or by polling. */
static int next(int poll)
{
    struct timespec nap = { 0, 200000L };
    int mid;

    if (!poll)
        return pvm_recv(-1, -1);
    while ((mid = pvm_nrecv(-1, -1)) == 0)
        nanosleep(&nap, NULL);
    return mid;
}

int main(int argc, char **argv)
{
    int tids[MAXW], last[MAXW] = { 0 }, nw = argc > 2 ? atoi(argv[2]) : 1;
    int poll = argc > 1 && !strcmp(argv[1], "poll"), done = 0, k, v, mid;
    int drift = argc > 1 && !strcmp(argv[1], "drift");
    int bytes, tag, src;

    if (pvm_parent() >= 0) {
        worker();
        return 0;
    }
    if (argc > 3)
        N = atoi(argv[3]);
    if (nw < 1 || nw > MAXW || argc < 2 || N < 1) {
        fprintf(stderr, "usage: plain_fifo recv|poll [WORKERS 1..%d [N]]\n",
                MAXW);
        return 2;
    }
    if (pvm_spawn(argv[0], NULL, PvmTaskDefault, "", nw, tids) != nw) {
        fprintf(stderr, "plain_fifo: spawn failed\n");
        pvm_exit();
        return 1;
    }
    for (k = 0; k < nw; k++)
        send_int(tids[k], 3, drift ? -1 : N);
    while (done < nw) {
        if ((mid = next(poll)) < 0)
            break;
        pvm_bufinfo(mid, &bytes, &tag, &src);
        pvm_upkint(&v, 1, 1);
        for (k = 0; k < nw && tids[k] != src; k++)
            ;
        if (k == nw)
            continue;
        if (tag == 2 && (drift || last[k] == N)) {
            done++;
            continue;
        }
        if (tag == 2 || v != last[k] + 1) {
            printf("out of order: from worker %d took %s%d after %d\n",
                   k + 1, tag == 2 ? "the last message, " : "", v, last[k]);
            pvm_exit();
            return 1;
        }
        last[k] = v;
    }
    printf("in order: %d workers, %d messages each\n", nw, N);
    pvm_exit();
    return 0;
}
