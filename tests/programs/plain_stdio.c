/*
 * plain_stdio.c - a PVM program that uses what a user's shell gives it:
 * standard input and the working directory (plain PVM, no Pangaea calls).
 *
 *   plain_stdio [NCHILD]   the first task: prints its directory, reads
 *                          numbers from stdin with scanf until 0 or end of
 *                          file, echoing each ("got N") as it comes, then
 *                          spawns NCHILD (default 3) children
 *   plain_stdio -child     a child: reads the first line of ./input.txt
 *                          (relative: it must run where the user started)
 *                          and sends it and its directory to its parent
 *
 * The parent prints the children's answers in the order they arrive
 * (pvm_recv from any task), so runs differ and a replay has work to do.
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void child(void)
{
    char dir[1024] = "?", line[256] = "(no input.txt)";
    FILE *f = fopen("input.txt", "r");

    if (f) {
        if (!fgets(line, sizeof line, f))
            strcpy(line, "(empty)");
        line[strcspn(line, "\n")] = 0;
        fclose(f);
    }
    if (!getcwd(dir, sizeof dir))
        strcpy(dir, "?");
    pvm_initsend(PvmDataDefault);
    pvm_pkstr(dir);
    pvm_pkstr(line);
    pvm_send(pvm_parent(), 7);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3, i, x, count = 0, sum = 0,
        tids[16], bufid, len, tag, from, who;
    char dir[1024], line[256];

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && !strcmp(argv[1], "-child")) {
        pvm_mytid();
        child();
        pvm_exit();
        return 0;
    }
    if (!getcwd(dir, sizeof dir))
        strcpy(dir, "?");
    printf("cwd %s\n", dir);
    while (scanf("%d", &x) == 1 && x != 0) {
        printf("got %d\n", x);
        count++;
        sum += x;
    }
    printf("read %d numbers, sum %d\n", count, sum);
    if (n < 1 || n > 16)
        n = 3;
    char *args[] = { "-child", NULL };
    if (pvm_spawn(argv[0], args, PvmTaskDefault, "", n, tids) != n) {
        printf("spawn failed: %d\n", tids[0]);
        pvm_exit();
        return 1;
    }
    for (i = 0; i < n; i++) {
        bufid = pvm_recv(-1, 7);
        pvm_bufinfo(bufid, &len, &tag, &from);
        for (who = 0; who < n && tids[who] != from; who++)
            ;
        pvm_upkstr(dir);
        pvm_upkstr(line);
        printf("child %d: cwd %s, input.txt: %s\n", who, dir, line);
    }
    pvm_exit();
    return 0;
}
