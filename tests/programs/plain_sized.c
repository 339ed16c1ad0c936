/*
 * plain_sized.c - messages whose size the environment chooses.
 *
 * Built against PVM only.  The first task spawns two copies of itself;
 * each sends PLAIN_SIZED_N ints (default 4; the variable reaches the copies
 * when PVM_EXPORT names it) to the first task, which takes them from any
 * sender and prints what it got.  Arguments stay the same whatever the
 * size, so a replay with another PLAIN_SIZED_N differs in message sizes
 * only.  Built a second time with -DPLAIN_SIZED_VARIANT (Makefile: into
 * build/tests/variant/), it is another binary of the same name that
 * behaves the same: a replay must still notice it is not the recorded one.
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_DATA 7

#ifdef PLAIN_SIZED_VARIANT
static const char build[] = "variant build";
#else
static const char build[] = "first build";
#endif

static int size(void)
{
    const char *s = getenv("PLAIN_SIZED_N");
    int n = s ? atoi(s) : 4;

    return n > 0 && n < 100000 ? n : 4;
}

static void worker(void)
{
    int n = size(), i, *v = calloc(n, sizeof *v);

    for (i = 0; v && i < n; i++)
        v[i] = i + 1;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(v, n, 1);
    pvm_send(pvm_parent(), TAG_DATA);
    free(v);
}

int main(int argc, char **argv)
{
    char *args[] = { "-worker", NULL };
    int tids[2], i, bytes, tag, src;

    if (pvm_mytid() < 0)
        return 1;
    if (argc > 1 && !strcmp(argv[1], "-worker")) {
        worker();
        pvm_exit();
        return 0;
    }
    if (pvm_spawn(argv[0], args, PvmTaskDefault, "", 2, tids) != 2) {
        fprintf(stderr, "plain_sized: spawn failed\n");
        pvm_exit();
        return 1;
    }
    for (i = 0; i < 2; i++) {
        int mid = pvm_recv(-1, TAG_DATA);

        pvm_bufinfo(mid, &bytes, &tag, &src);
        printf("%s: got %d bytes from worker %d\n", build, bytes,
               src == tids[0] ? 0 : 1);
    }
    pvm_exit();
    return 0;
}
