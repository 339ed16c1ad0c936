/*
 * select.c - a racing program with regions it keeps out of the logs.
 *
 * Built the instrumented way (pangaea.h): the master spawns K workers; each
 * sends M "work" messages (tag 5) and M "chatter" messages (tag 9) to the
 * master, which takes them with pvm_recv(-1, tag) in two loops.  It prints
 * the arrival order of the work, and only an order-free sum of the chatter.
 * With -suspend the chatter loop runs between pangaea_suspend() and
 * pangaea_resume(), so a recording holds the work messages only, and a
 * replay still prints exactly what the recording printed.  Run with
 * `pangaea -only tag=5` instead, the program needs no Pangaea call.
 */
#include <pvm3.h>
#include <pangaea.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M 15

static void take(int tag, int k, int suspend, const char *name)
{
    char line[8192] = "";
    int i, v[2];
    long sum = 0;

    if (suspend)
        pangaea_suspend();
    for (i = 0; i < k * M; i++) {
        pvm_recv(-1, tag);
        pvm_upkint(v, 2, 1);
        sum += v[0] * 100 + v[1];
        snprintf(line + strlen(line), sizeof line - strlen(line), " %d.%d",
                 v[0], v[1]);
    }
    if (suspend)
        pangaea_resume();
    if (tag == 5)
        printf("select: %s order=%s\n", name, line);
    else
        printf("select: %s sum=%ld\n", name, sum);
}

int main(int argc, char **argv)
{
    int k = 3, i, tid, v[2], suspend;
    char arg[16], *args[] = { "-worker", arg, NULL };

    if (pvm_mytid() < 0)
        return 1;
    if (argc > 2 && !strcmp(argv[1], "-worker")) {
        v[0] = atoi(argv[2]);
        for (i = 0; i < M; i++) {
            v[1] = i;
            pvm_initsend(PvmDataDefault);
            pvm_pkint(v, 2, 1);
            pvm_send(pvm_parent(), 5);
            pvm_initsend(PvmDataDefault);
            pvm_pkint(v, 2, 1);
            pvm_send(pvm_parent(), 9);
        }
        pvm_exit();
        return 0;
    }
    suspend = argc > 1 && !strcmp(argv[1], "-suspend");
    for (i = 1; i <= k; i++) {
        snprintf(arg, sizeof arg, "%d", i);
        if (pvm_spawn(argv[0], args, PvmTaskDefault, "", 1, &tid) != 1)
            return 1;
    }
    take(5, k, 0, "work");
    take(9, k, suspend, "chatter");
    pvm_exit();
    return 0;
}
