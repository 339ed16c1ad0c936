/*
 * plain_spawnwho.c - a parent waiting for a child that may never enrol.
 *
 * Built against PVM only.  Spawns the program its first argument names
 * (any executable: a script that sleeps before it calls PVM, or never
 * does) and waits for one message from it.  A run interrupted while the
 * child has not made its first PVM call must still end the child
 * (tests/e2e/test_stopped.sh).
 */
#include <pvm3.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int tid;

    if (pvm_mytid() < 0 || argc < 2)
        return 1;
    if (pvm_spawn(argv[1], NULL, PvmTaskDefault, "", 1, &tid) != 1) {
        fprintf(stderr, "plain_spawnwho: cannot spawn %s\n", argv[1]);
        pvm_exit();
        return 1;
    }
    printf("spawned t%x\n", tid);
    fflush(stdout);
    pvm_recv(tid, 1);
    pvm_exit();
    return 0;
}
