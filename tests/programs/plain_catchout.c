/*
 * plain_catchout.c - a parent that collects its children's output with
 * pvm_catchout(stdout), as PVM's manual shows (plain PVM, no Pangaea
 * calls).
 *
 *   plain_catchout [NCHILD]    spawns NCHILD (default 3) children, waits
 *                              for their exit notices, prints
 *                              "parent: N children ended", pvm_exit
 *                              (which waits for the children's output)
 *                              (PvmShowTids off: the lines are the
 *                              children's, without their tids, which
 *                              differ from run to run whatever the order)
 *   plain_catchout -child K    prints "child K line J" for J = 0..4, a
 *                              few hundred microseconds apart (the
 *                              pause depends on its pid: the lines of the
 *                              children interleave differently each run)
 */
#include <stdio.h> /* before pvm3.h: it declares pvm_catchout(FILE *) */
#include <pvm3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int child(int k)
{
    int j;

    for (j = 0; j < 5; j++) {
        printf("child %d line %d\n", k, j);
        fflush(stdout);
        usleep(200 + (getpid() * 7919 + j * 104729) % 1500);
    }
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    char self[1024], arg[16], *args[] = { "-child", arg, NULL };
    int n = 3, i, tids[64], me = pvm_mytid();
    ssize_t len;

    if (me < 0)
        return 1;
    if (argc > 2 && !strcmp(argv[1], "-child"))
        return child(atoi(argv[2]));
    if (argc > 1)
        n = atoi(argv[1]);
    if (n < 1 || n > 64 ||
        (len = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
        return 1;
    self[len] = 0;
    pvm_setopt(PvmShowTids, 0);
    pvm_catchout(stdout);
    for (i = 0; i < n; i++) {
        snprintf(arg, sizeof arg, "%d", i);
        if (pvm_spawn(self, args, PvmTaskDefault, "", 1, &tids[i]) != 1)
            return 1;
    }
    pvm_notify(PvmTaskExit, 77, n, tids);
    for (i = 0; i < n; i++)
        if (pvm_recv(-1, 77) < 0)
            return 1;
    printf("parent: %d children ended\n", n);
    pvm_exit();
    return 0;
}
