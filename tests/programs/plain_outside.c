/*
 * plain_outside.c - a server and a client, the server started by hand
 * (outside any `pangaea` run), the client under `pangaea`.
 *
 *   plain_outside -server NAME     registers its tid in mailbox NAME and
 *                                  answers requests until told to quit
 *   plain_outside NAME N           finds the server through mailbox NAME,
 *                                  asks it N questions, prints the answers,
 *                                  tells it to quit
 *
 * Built against PVM alone (tests preload Pangaea into the client).
 *
 * Design.  The answers depend on the server's run: its pid, its clock (the
 * microseconds of gettimeofday) and a counter, so two runs print different
 * answers, and a replay without the server can only print the recorded
 * ones if it delivers the recorded messages.  Answers alternate between
 * the default (XDR) encoding with ints, a double and a string, and raw
 * encoding (PvmDataRaw), so both are rebuilt from the recorded bytes.  The
 * client receives the even answers by the server's tid and the odd ones
 * from any task.  Any PVM error: a message on stderr, exit 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <pvm3.h>

#define TAG_ASK 11
#define TAG_ANSWER 12
#define TAG_QUIT 13

static int fail(const char *what, int cc)
{
    fprintf(stderr, "plain_outside: %s: %d\n", what, cc);
    pvm_exit();
    return 1;
}

static int serve(char *name)
{
    int me = pvm_mytid(), mid, src, q, n = 0, len, tag, cc;
    struct timeval tv;
    char text[64];
    double d;

    pvm_initsend(PvmDataDefault);
    pvm_pkint(&me, 1, 1);
    if ((cc = pvm_putinfo(name, pvm_getsbuf(), PvmMboxDefault)) < 0)
        return fail("pvm_putinfo", cc);
    printf("serving\n");
    fflush(stdout);
    for (;;) {
        if ((mid = pvm_recv(-1, -1)) < 0)
            return fail("pvm_recv", mid);
        pvm_bufinfo(mid, &len, &tag, &src);
        if (tag == TAG_QUIT)
            break;
        pvm_upkint(&q, 1, 1);
        gettimeofday(&tv, NULL);
        n++;
        d = q + tv.tv_usec / 1e6;
        snprintf(text, sizeof text, "pid %d answer %d", (int)getpid(), n);
        pvm_initsend(q % 2 ? PvmDataRaw : PvmDataDefault);
        pvm_pkint(&q, 1, 1);
        pvm_pkint(&n, 1, 1);
        pvm_pkdouble(&d, 1, 1);
        pvm_pkstr(text);
        if ((cc = pvm_send(src, TAG_ANSWER)) < 0)
            return fail("pvm_send", cc);
    }
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    int server, mid, i, n, q, k, cc, len, tag, src;
    char text[64];
    double d;

    if (argc == 3 && !strcmp(argv[1], "-server"))
        return serve(argv[2]);
    if (argc != 3 || (n = atoi(argv[2])) < 1)
        return fprintf(stderr, "usage: plain_outside -server NAME | "
                               "plain_outside NAME N\n"), 2;
    if (pvm_mytid() < 0)
        return fail("pvm_mytid", -1);
    if ((mid = pvm_recvinfo(argv[1], 0, PvmMboxDefault)) < 0)
        return fail("no server in the mailbox", mid);
    pvm_setrbuf(mid);
    pvm_upkint(&server, 1, 1);
    for (i = 0; i < n; i++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&i, 1, 1);
        if ((cc = pvm_send(server, TAG_ASK)) < 0)
            return fail("pvm_send", cc);
        if ((mid = pvm_recv(i % 2 ? -1 : server, TAG_ANSWER)) < 0)
            return fail("pvm_recv", mid);
        pvm_bufinfo(mid, &len, &tag, &src);
        if (pvm_upkint(&q, 1, 1) < 0 || pvm_upkint(&k, 1, 1) < 0 ||
            pvm_upkdouble(&d, 1, 1) < 0 || pvm_upkstr(text) < 0)
            return fail("unpacking an answer", i);
        printf("question %d: answer %d #%d %.6f \"%s\" (%d bytes, from the "
               "server: %s)\n", i, q, k, d, text, len,
               src == server ? "yes" : "no");
    }
    pvm_initsend(PvmDataDefault);
    pvm_send(server, TAG_QUIT);
    pvm_exit();
    return 0;
}
