/*
 * plain_output.c - a PVM program that collects its children's output
 * itself, as PVM's manual shows (plain PVM, no Pangaea calls):
 * pvm_setopt(PvmOutputTid, mytid) and pvm_setopt(PvmOutputCode, TAG),
 * without PvmOutputContext, then pvm_trecv(-1, TAG).
 *
 *   plain_output [NCHILD]   spawns NCHILD (default 3) children, prints
 *                           every output line they write as
 *                           "collected: LINE", then how many ended
 *   plain_output -child K   prints "child K says hello" and ends
 *
 * An output message is: int tid, int count, then count bytes; count 0 is
 * the end of that task's output, a negative count a task starting.  A
 * receive that waits 20 s in vain ends the collecting ("nothing came").
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUT_TAG 4242

static int collect(int n)
{
    char buf[4096], *line, *save;
    struct timeval wait = { 20, 0 };
    int ended = 0, tid, count, got = 0;

    while (ended < n) {
        wait.tv_sec = 20;
        if (pvm_trecv(-1, OUT_TAG, &wait) <= 0) {
            printf("nothing came for 20 s: %d of %d children ended\n",
                   ended, n);
            return 1;
        }
        pvm_upkint(&tid, 1, 1);
        pvm_upkint(&count, 1, 1);
        if (count == 0)
            ended++;
        if (count <= 0 || count >= (int)sizeof buf)
            continue;
        pvm_upkbyte(buf, count, 1);
        buf[count] = 0;
        for (line = strtok_r(buf, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            printf("collected: %s\n", line);
            got++;
        }
    }
    printf("%d children ended, %d lines collected\n", ended, got);
    return 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3, tids[16], i, rc;
    char k[16], *args[] = { "-child", k, NULL };

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 2 && !strcmp(argv[1], "-child")) {
        pvm_mytid();
        printf("child %s says hello\n", argv[2]);
        pvm_exit();
        return 0;
    }
    if (n < 1 || n > 16)
        n = 3;
    pvm_setopt(PvmOutputTid, pvm_mytid());
    pvm_setopt(PvmOutputCode, OUT_TAG);
    for (i = 0; i < n; i++) {
        snprintf(k, sizeof k, "%d", i);
        if (pvm_spawn(argv[0], args, PvmTaskDefault, "", 1, &tids[i]) != 1) {
            printf("spawn failed: %d\n", tids[i]);
            pvm_exit();
            return 1;
        }
    }
    rc = collect(n);
    pvm_exit();
    return rc;
}
