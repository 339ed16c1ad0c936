/*
 * group_barriers.c - messages before, between and after two barriers, for
 * the filters' "collapse between barriers" (tests/e2e/test_filter.sh;
 * built with -lpangaea -lgpvm3).
 *
 * Task 1 spawns 2 copies of itself; the 3 join group "bars".  Before the
 * first barrier each copy sends a greeting to its parent (tag 10), which
 * takes both; between the two barriers each member sends a token to the
 * next instance and takes one from the previous (tag 20), twice; after
 * the second each copy sends its sum to the parent (tag 30), which takes
 * them and prints the total, and a pvm_reduce (PvmMax, tag 40) to
 * instance 0 follows (which also links libgpvm3 in: every other group
 * call used here is one Pangaea wraps).  So each part of the run has
 * events of its own, and a stretch between barriers is not the whole run.
 * Who takes part in the pvm_reduce is what each member's lookups (inside
 * libgpvm3) find in the group, and members leave just after it: two
 * files in the working directory make either side slow, for
 * tests/e2e/test_group_lookup.sh (a replay must look up as recorded):
 * with group_barriers.slow the members wait 300 ms before leaving and
 * task 1 600 ms (its lookups come before their leaves, its own leave
 * after them), with group_barriers.late task 1 waits 300 ms before its
 * pvm_reduce.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

#define G "bars"
#define N 3

static int ring(int inst)
{
    int next = pvm_gettid(G, (inst + 1) % N), prev = pvm_gettid(G, (inst + N - 1) % N);
    int round, v = inst, sum = 0;

    for (round = 0; round < 2; round++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&v, 1, 1);
        pvm_send(next, 20);
        pvm_recv(prev, 20);
        pvm_upkint(&v, 1, 1);
        sum += v;
    }
    return sum;
}

int main(int argc, char **argv)
{
    char *args[] = { "-member", NULL };
    int tids[N - 1], inst, i, v, total = 0;
    int member = argc > 1 && !strcmp(argv[1], "-member");

    pvm_mytid();
    if (!member && pvm_spawn(argv[0], args, PvmTaskDefault, "", N - 1, tids) != N - 1) {
        fprintf(stderr, "group_barriers: spawn failed\n");
        pvm_exit();
        return 1;
    }
    inst = pvm_joingroup(G);
    if (member) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&inst, 1, 1);
        pvm_send(pvm_parent(), 10);
    } else {
        for (i = 0; i < N - 1; i++)
            pvm_recv(-1, 10);
    }
    pvm_barrier(G, N);
    v = ring(inst);
    pvm_barrier(G, N);
    if (member) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&v, 1, 1);
        pvm_send(pvm_parent(), 30);
    } else {
        total = v;
        for (i = 0; i < N - 1; i++) {
            pvm_recv(-1, 30);
            pvm_upkint(&v, 1, 1);
            total += v;
        }
        printf("total %d\n", total);
    }
    v = inst;
    if (!member && access("group_barriers.late", F_OK) == 0)
        usleep(300000);
    pvm_reduce(PvmMax, &v, 1, PVM_INT, 40, G, 0);
    if (inst == 0)
        printf("max instance %d\n", v);
    if (access("group_barriers.slow", F_OK) == 0)
        usleep(member ? 300000 : 600000);
    pvm_lvgroup(G);
    pvm_exit();
    return 0;
}
