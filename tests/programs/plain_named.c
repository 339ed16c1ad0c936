/*
 * plain_named.c - calls pvm_sendsig, which Pangaea passes through and
 * names as not replayed, twice (to itself, a signal it ignores).
 *
 * Built against PVM alone (tests preload Pangaea).  Prints
 * "sendsig returned 0 twice" when both calls succeeded.
 */
#include <signal.h>
#include <stdio.h>
#include <pvm3.h>

int main(void)
{
    int me = pvm_mytid(), a, b;

    if (me < 0)
        return 1;
    signal(SIGUSR1, SIG_IGN);
    a = pvm_sendsig(me, SIGUSR1);
    b = pvm_sendsig(me, SIGUSR1);
    if (a == 0 && b == 0)
        printf("sendsig returned 0 twice\n");
    else
        printf("sendsig returned %d and %d\n", a, b);
    pvm_exit();
    return 0;
}
