/*
 * plain_hostsync.c - prints what pvm_hostsync says of the task's own
 * host: its clock and the offset from the task's clock, to the
 * microsecond, which differ from run to run.  A replay must print the
 * recorded ones.  Built against PVM alone (tests preload Pangaea).
 */
#include <stdio.h>
#include <pvm3.h>

int main(void)
{
    struct timeval clk, delta;
    int me = pvm_mytid(), cc;

    if (me < 0)
        return 1;
    cc = pvm_hostsync(pvm_tidtohost(me), &clk, &delta);
    if (cc < 0) {
        fprintf(stderr, "plain_hostsync: pvm_hostsync: %d\n", cc);
        return 1;
    }
    printf("clock %ld.%06ld, delta %ld.%06ld\n", (long)clk.tv_sec,
           (long)clk.tv_usec, (long)delta.tv_sec, (long)delta.tv_usec);
    pvm_exit();
    return 0;
}
