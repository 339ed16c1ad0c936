/*
 * plain_matcher.c - a racing program that receives through its own matcher
 * (pvm_recvf) and keeps messages aside with pvm_setrbuf/pvm_getrbuf.
 *
 * Built against PVM only.  The master spawns K workers (argument, default 3);
 * each sends M messages holding (worker, seq, payload).  The master installs
 * a matcher that peeks into each queued message (pvm_setrbuf + pvm_upkint,
 * as PVM's documentation shows) and accepts only messages whose payload is
 * even; odd ones it takes afterwards with the default matcher.  (A peek
 * moves the message's unpack position, so a second peek of a message the
 * matcher turned down fails: it is turned down again, which is right, and
 * PvmAutoErr is off meanwhile to keep PVM from printing that.)  Every third
 * message is set aside (pvm_setrbuf(0)) and unpacked only after the next
 * receive.  It prints the order it took messages in, which depends on
 * arrival order, and checks every payload and pvm_bufinfo length.
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG 7
#define M 20

static int even_payload(int mid, int tid, int tag)
{
    int v[3], save, ok;
    struct pvmminfo mi;

    /* PVM's own messages go through the matcher too: keep the context. */
    if (pvm_getminfo(mid, &mi) < 0 || mi.ctx != pvm_getcontext() ||
        mi.tag != TAG)
        return 0;
    save = pvm_setrbuf(mid);
    ok = pvm_upkint(v, 3, 1) >= 0 && v[2] % 2 == 0;
    pvm_setrbuf(save);
    (void)tid;
    (void)tag;
    return ok;
}

static void die(const char *what)
{
    fprintf(stderr, "plain_matcher: %s\n", what);
    pvm_exit();
    exit(1);
}

static void take(int mid, char *order)
{
    int v[3], bytes, tag, src;
    char s[32];

    if (pvm_bufinfo(mid, &bytes, &tag, &src) < 0 || bytes != 12)
        die("pvm_bufinfo reports another length than the program sent");
    if (pvm_upkint(v, 3, 1) < 0 || v[2] != v[0] * 100 + v[1])
        die("payload damaged");
    snprintf(s, sizeof s, " %d.%d", v[0], v[1]);
    strcat(order, s);
}

static void master(const char *self, int k)
{
    static char order[64 * 1024];
    int tids[16], i, n, mid, aside = 0;
    char arg[16], *argv[] = { "-child", arg, NULL };
    void *old;

    for (i = 0; i < k; i++) {
        snprintf(arg, sizeof arg, "%d", i + 1);
        if (pvm_spawn((char *)self, argv, PvmTaskDefault, "", 1, &tids[i]) != 1)
            die("spawn failed");
    }
    pvm_setopt(PvmAutoErr, 0);
    old = (void *)pvm_recvf(even_payload);
    for (n = 0; n < k * M / 2; n++) {
        mid = pvm_recv(-1, TAG);
        if (n % 3 == 0) {           /* keep this one aside for a while */
            aside = pvm_setrbuf(0);
            continue;
        }
        take(mid, order);
        if (aside) {
            pvm_setrbuf(aside);
            if (pvm_getrbuf() != aside)
                die("pvm_getrbuf lost the buffer set aside");
            take(aside, order);
            aside = 0;
        }
    }
    if (aside) {
        pvm_setrbuf(aside);
        take(aside, order);
    }
    pvm_recvf((int (*)(int, int, int))old);
    pvm_setopt(PvmAutoErr, 1);
    strcat(order, " |");
    for (n = 0; n < k * M / 2; n++)
        take(pvm_recv(-1, TAG), order);
    printf("matcher: order=%s\n", order);
}

int main(int argc, char **argv)
{
    int i, v[3];

    if (pvm_mytid() < 0)
        return 1;
    if (argc > 2 && !strcmp(argv[1], "-child")) {
        v[0] = atoi(argv[2]);
        for (i = 0; i < M; i++) {
            v[1] = i;
            v[2] = v[0] * 100 + i;
            pvm_initsend(PvmDataDefault);
            pvm_pkint(v, 3, 1);
            pvm_send(pvm_parent(), TAG);
        }
    } else {
        master(argv[0], argc > 1 ? atoi(argv[1]) : 3);
    }
    pvm_exit();
    return 0;
}
