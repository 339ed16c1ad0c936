/*
 * group_hostinfo.c - a program that asks the group server who is on which
 * host with pvm_grphostinfo, a libgpvm3 call not in pvm3.h (declared
 * here), for tests/e2e/test_group_lookup.sh: Pangaea names it as not
 * replayed (its answer is the server's at that instant).  Built with
 * -lpangaea -lgpvm3.  Prints "members on this host: N" (1: itself).
 */
#include <stdio.h>
#include <pvm3.h>

int pvm_grphostinfo(char *group, int hosttid, int *coord, int *nmem,
                    int *nhosts);

int main(void)
{
    int me = pvm_mytid(), coord = 0, nmem = 0, nhosts = 0;

    if (me < 0 || pvm_joingroup("hostinfo") < 0)
        return 1;
    if (pvm_grphostinfo("hostinfo", pvm_tidtohost(me), &coord, &nmem,
                        &nhosts) < 0)
        return 1;
    printf("members on this host: %d\n", nmem);
    pvm_lvgroup("hostinfo");
    pvm_exit();
    return 0;
}
