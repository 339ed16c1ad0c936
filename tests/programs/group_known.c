/*
 * group_known.c - a pvm_reduce whose race is known, for
 * tests/e2e/test_races.sh (built with -lpangaea -lgpvm3).
 *
 * Task 1 spawns 2 copies of itself; the 3 join group "known", meet at a
 * barrier (logged: the joins before it happen before everything after),
 * and reduce one double each with PvmSum to instance 0.  The root takes the
 * two contributions in arrival order (libgpvm3 receives them from any
 * source): its first receive of them races with the other contribution,
 * the second does not.  Nothing else races: the barrier orders the joins'
 * traffic before the reduce.  The root prints the sum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

#define G "known"
#define N 3
#define TAG_SUM 40

int main(int argc, char **argv)
{
    char self[4096], *args[] = { "-member", NULL };
    double v;
    ssize_t len;
    int tids[N], inst;

    pvm_mytid();
    if (argc < 2 || strcmp(argv[1], "-member")) {
        if ((len = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
            return 1;
        self[len] = 0;
        if (pvm_spawn(self, args, 0, "", N - 1, tids) != N - 1) {
            fprintf(stderr, "group_known: spawn failed\n");
            pvm_exit();
            return 1;
        }
    }
    if ((inst = pvm_joingroup(G)) < 0 || pvm_barrier(G, N) < 0) {
        fprintf(stderr, "group_known: join or barrier failed\n");
        pvm_exit();
        return 1;
    }
    v = 1.0 + inst;
    if (pvm_reduce(PvmSum, &v, 1, PVM_DOUBLE, TAG_SUM, G, 0) < 0) {
        fprintf(stderr, "group_known: pvm_reduce failed\n");
        pvm_exit();
        return 1;
    }
    if (inst == 0)
        printf("sum %g\n", v);
    pvm_barrier(G, N); /* nobody leaves before the root has its sum */
    pvm_lvgroup(G);
    pvm_exit();
    return 0;
}
