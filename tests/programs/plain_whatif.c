/*
 * plain_whatif.c - a master whose bug shows only in a message order that
 * free runs never give, for tests/e2e/test_whatif.sh (`pangaea -whatif`,
 * `-explore`, `-chaos`).  Built against PVM only.
 *
 *   plain_whatif print|crash|ack|once  the master; it spawns its two workers
 *
 * W1 (the fast worker) sends its result (tag 10, value 1) to the master,
 * then tells W2 (tag 20) to go; W2 (the slow worker) waits for that, then
 * sends its result (tag 10, value 2).  W2's result is sent causally after
 * W1's, both through the same pvmd, so a free run always has the master
 * take W1's first; yet W2's result does not follow the master's first
 * receive, so that receive races (`pangaea -races`): it could have taken
 * W2's.  The master takes both with pvm_recv(-1, 10) and prints them in
 * order ("took 1 then 2").  In `crash` mode it aborts (SIGABRT) when the
 * slow worker's result comes first: the order-dependent bug.  In `ack`
 * mode the master answers each result (tag 30) to its sender, and each
 * worker ends after taking its answer: the answers are sent after the
 * master's first receive, so in a what-if forcing it each worker follows
 * its recording up to that receive of its answer, and no further.
 * In `once` mode the master takes its results only the first time it runs
 * in a directory: it leaves the file plain_whatif.once there, and when it
 * finds that file it prints "results not taken" and ends before its
 * receives (its path depends on something PVM does not carry: a what-if
 * forcing one of those receives never reaches it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

static void die(const char *what, int cc)
{
    fprintf(stderr, "plain_whatif: %s failed (%d)\n", what, cc);
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

static int take_from(int tid, int tag, int *src)
{
    int v = 0, bytes, mtag;

    pvm_bufinfo(check("pvm_recv", pvm_recv(tid, tag)), &bytes, &mtag, src);
    pvm_upkint(&v, 1, 1);
    return v;
}

static int take(int tid, int tag)
{
    int src;

    return take_from(tid, tag, &src);
}

static void worker(int index, int other, const char *mode)
{
    int parent = pvm_parent();

    if (index == 1) {
        send_int(parent, 10, 1);
        send_int(other, 20, 0);
    } else {
        take(-1, 20);
        send_int(parent, 10, 2);
    }
    if (!strcmp(mode, "ack"))
        take(parent, 30);
    pvm_exit();
}

/* `once` mode: 1 (and the master ends) when it ran here before. */
static int skip_once(void)
{
    FILE *f = fopen("plain_whatif.once", "r");

    if (f) {
        fclose(f);
        printf("results not taken\n");
        pvm_exit();
        return 1;
    }
    if ((f = fopen("plain_whatif.once", "w")))
        fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "print";
    char self[4096], *args[2][5], idx[2][8];
    int w[2], i, first, second, src;
    ssize_t len;

    check("pvm_mytid", pvm_mytid());
    if (argc > 3 && !strcmp(argv[1], "-worker")) {
        int other = 0;

        if (atoi(argv[2]) == 1)
            other = take(-1, 21); /* the master says who W2 is */
        worker(atoi(argv[2]), other, argv[3]);
        return 0;
    }
    if ((len = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
        die("readlink", -1);
    self[len] = 0;
    for (i = 0; i < 2; i++) {
        snprintf(idx[i], sizeof idx[i], "%d", i + 1);
        args[i][0] = "-worker", args[i][1] = idx[i];
        args[i][2] = (char *)mode, args[i][3] = NULL;
        if (check("pvm_spawn", pvm_spawn(self, args[i], 0, "", 1, &w[i])) != 1)
            die("pvm_spawn", w[i]);
    }
    send_int(w[0], 21, w[1]); /* W1 learns W2's tid */
    if (!strcmp(mode, "once") && skip_once())
        return 0;
    first = take_from(-1, 10, &src);
    if (first == 2 && !strcmp(mode, "crash")) {
        fprintf(stderr, "plain_whatif: the slow worker's result came first\n");
        abort();
    }
    if (!strcmp(mode, "ack"))
        send_int(src, 30, first);
    second = take_from(-1, 10, &src);
    if (!strcmp(mode, "ack"))
        send_int(src, 30, second);
    printf("took %d then %d\n", first, second);
    pvm_exit();
    return 0;
}
