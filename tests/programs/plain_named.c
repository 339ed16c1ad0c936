/*
 * plain_named.c - calls pvm_getnoresets, which Pangaea passes through and
 * names as not replayed, twice.
 *
 * Built against PVM alone (tests preload Pangaea).  Prints
 * "getnoresets returned 0 twice" when both calls succeeded.
 */
#include <stdio.h>
#include <pvm3.h>

int main(void)
{
    int me = pvm_mytid(), a, b, *tids, n;

    if (me < 0)
        return 1;
    a = pvm_getnoresets(&tids, &n);
    b = pvm_getnoresets(&tids, &n);
    if (a == 0 && b == 0)
        printf("getnoresets returned 0 twice\n");
    else
        printf("getnoresets returned %d and %d\n", a, b);
    pvm_exit();
    return 0;
}
