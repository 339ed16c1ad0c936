/*
 * plain_known.c - PVM programs whose races are known in advance, for
 * tests/e2e/test_races.sh (`pangaea -races`).  Built against PVM only.
 *
 *   plain_known MODE        the master; it spawns its workers itself
 *
 * Modes, and the races they have (W1, W2, W3: workers in spawn order):
 *   named   each of 2 workers sends one message (tag 10); the master takes
 *           them with pvm_recv(tid, 10) naming the source: no race.
 *   wild    3 workers send one message each (tag 10), W1 another (tag
 *           11); the master takes three with pvm_recv(-1, 10), then the
 *           tag-11 one with pvm_recv(-1, 11): the first receive races
 *           with the two others, the second with the last one, the third
 *           and the tag-11 receive not (nothing else matches).
 *   poll    1 worker sends one message (tag 20) after 300 ms; the master
 *           polls pvm_nrecv(-1, 20) until it comes: the failed polls race
 *           with that message (one <poll> entry), the poll that found it
 *           does not.
 *   notice  1 worker sends one message (tag 5) and exits; the master asked
 *           for its exit notice (tag 99) and takes both with
 *           pvm_recv(-1, -1): the first receive races (the message and
 *           the notice), the second not.
 *   direct  the master sets PvmRouteDirect, then 1 worker sends 3 messages
 *           (tag 30); the master takes them with pvm_recv(-1, 30): with
 *           per-pair order lost, the first receive races with the two
 *           later messages and the second with the third (FIFO broken).
 * The master prints what it took; workers print nothing.  apart: below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>

static void die(const char *what, int cc)
{
    fprintf(stderr, "plain_known: %s failed (%d)\n", what, cc);
    pvm_exit();
    exit(1);
}

static int check(const char *what, int cc)
{
    if (cc < 0)
        die(what, cc);
    return cc;
}

static void send_int(int tid, int tag, int v)
{
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    pvm_pkint(&v, 1, 1);
    check("pvm_send", pvm_send(tid, tag));
}

/* Takes a message with (tid, tag), prints what it was; its sender. */
static int take(int tid, int tag, const int *w, int n)
{
    int mid = check("pvm_recv", pvm_recv(tid, tag)), bytes, mtag, src, i;

    pvm_bufinfo(mid, &bytes, &mtag, &src);
    for (i = 0; i < n && w[i] != src; i++)
        ;
    printf("took tag %d from %s%d\n", mtag, i < n ? "W" : "pvmd ", i + 1);
    return src;
}

/*
 * Mode apart: the master sets PvmRouteDirect; W1 sends 70 messages of tag 30,
 * 70 of tag 31, then one of tag 32 that the master waits for
 * (all of W1's are queued then); W2 sends one of tag 30 after
 * 300 ms; W3 one of tag 31 once the master says so (tag 40),
 * after the first receive.  The master takes one of tag 30 and
 * one of tag 31 at one call site: the first races with W1's
 * other 69 and W2's, the second with W1's 69 and W3's (not
 * W2's: another tag), so the two have other senders.  It takes
 * W2's and W3's messages by name at the end.
 */
static void apart_worker(int parent, int index)
{
    struct timespec nap = { 0, 300 * 1000 * 1000 };
    int i;

    if (index == 1) {
        for (i = 0; i < 140; i++)
            send_int(parent, i < 70 ? 30 : 31, i);
        send_int(parent, 32, 0);
    } else if (index == 2) {
        nanosleep(&nap, NULL);
        send_int(parent, 30, index);
    } else {
        check("pvm_recv", pvm_recv(parent, 40));
        send_int(parent, 31, index);
    }
}

/* Mode apart's master (above). */
static void apart(const int *w)
{
    check("pvm_recv", pvm_recv(w[0], 32));
    take(-1, 30, w, 3);
    send_int(w[2], 40, 0);
    if (take(-1, 31, w, 3) != w[2])
        take(w[2], 31, w, 3);
    take(w[1], 30, w, 3);
}

static void worker(const char *mode, int index)
{
    struct timespec nap = { 0, 300 * 1000 * 1000 };
    int parent = pvm_parent(), i;

    if (!strcmp(mode, "poll"))
        nanosleep(&nap, NULL);
    if (!strcmp(mode, "apart"))
        apart_worker(parent, index);
    else if (!strcmp(mode, "direct"))
        for (i = 0; i < 3; i++)
            send_int(parent, 30, i);
    else
        send_int(parent, !strcmp(mode, "poll") ? 20
                         : !strcmp(mode, "notice") ? 5 : 10, index);
    if (!strcmp(mode, "wild") && index == 1)
        send_int(parent, 11, index);
    pvm_exit();
}

static int spawn(const char *self, const char *mode, int n, int *w)
{
    char idx[4][8], *args[4][4];
    int i;

    for (i = 0; i < n; i++) {
        snprintf(idx[i], sizeof idx[i], "%d", i + 1);
        args[i][0] = "-worker", args[i][1] = (char *)mode;
        args[i][2] = idx[i], args[i][3] = NULL;
        if (check("pvm_spawn", pvm_spawn((char *)self, args[i], 0, "", 1,
                                         &w[i])) != 1)
            die("pvm_spawn", w[i]);
    }
    return n;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "named";
    char self[4096];
    ssize_t len;
    int w[4], i, n;

    check("pvm_mytid", pvm_mytid());
    if (argc > 3 && !strcmp(argv[1], "-worker")) {
        worker(argv[2], atoi(argv[3]));
        return 0;
    }
    if ((len = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
        die("readlink", -1);
    self[len] = 0;
    if (!strcmp(mode, "direct") || !strcmp(mode, "apart"))
        check("pvm_setopt", pvm_setopt(PvmRoute, PvmRouteDirect));
    n = spawn(self, mode, !strcmp(mode, "wild") || !strcmp(mode, "apart") ? 3
                          : !strcmp(mode, "named") ? 2 : 1, w);
    if (!strcmp(mode, "named")) {
        for (i = 0; i < n; i++)
            take(w[i], 10, w, n);
    } else if (!strcmp(mode, "wild")) {
        for (i = 0; i < 3; i++)
            take(-1, 10, w, n);
        take(-1, 11, w, n);
    } else if (!strcmp(mode, "poll")) {
        while (check("pvm_nrecv", pvm_nrecv(-1, 20)) == 0)
            usleep(1000);
        printf("polled until the message came\n");
    } else if (!strcmp(mode, "notice")) {
        check("pvm_notify", pvm_notify(PvmTaskExit, 99, 1, w));
        take(-1, -1, w, n);
        take(-1, -1, w, n);
    } else if (!strcmp(mode, "direct")) {
        for (i = 0; i < 3; i++)
            take(-1, 30, w, n);
    } else if (!strcmp(mode, "apart")) {
        apart(w);
    } else {
        die("unknown mode", -1);
    }
    pvm_exit();
    return 0;
}
