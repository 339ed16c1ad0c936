/*
 * plain_kill.c - a parent that kills its children while they wait in a
 * receive (plain PVM, no Pangaea calls).
 *
 *   plain_kill [NCHILD]   spawns NCHILD (default 3) children, takes their
 *                         "ready" messages in arrival order (printing it),
 *                         kills each with pvm_kill in that order, and
 *                         prints what pvm_kill returned
 *   plain_kill -child     sends "ready" to its parent, then waits in
 *                         pvm_recv for a message that never comes
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3, tids[16], order[16], i, k,
        bufid, len, tag, from;
    char *args[] = { "-child", NULL };

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && !strcmp(argv[1], "-child")) {
        pvm_mytid();
        pvm_initsend(PvmDataDefault);
        pvm_send(pvm_parent(), 1);
        pvm_recv(pvm_parent(), 2); /* never sent: killed here */
        printf("not killed?\n");
        pvm_exit();
        return 0;
    }
    if (n < 1 || n > 16)
        n = 3;
    if (pvm_spawn(argv[0], args, PvmTaskDefault, "", n, tids) != n) {
        printf("spawn failed: %d\n", tids[0]);
        pvm_exit();
        return 1;
    }
    for (i = 0; i < n; i++) {
        bufid = pvm_recv(-1, 1);
        pvm_bufinfo(bufid, &len, &tag, &from);
        for (k = 0; k < n && tids[k] != from; k++)
            ;
        order[i] = k;
        printf("child %d is ready\n", k);
    }
    for (i = 0; i < n; i++)
        printf("pvm_kill of child %d: %d\n", order[i], pvm_kill(tids[order[i]]));
    pvm_exit();
    return 0;
}
