/*
 * plain_lines.c - a task that prints numbered lines until it is killed:
 * for a reader of pangaea's output that goes away (`pangaea ... | head`).
 *
 * Built against PVM alone.  It enrols (pvm_mytid), then prints "line N"
 * with a pause of 10 ms every 100 lines, forever.
 */
#include <pvm3.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
    struct timespec nap = { 0, 10 * 1000 * 1000 };
    long n;

    setvbuf(stdout, NULL, _IOLBF, 0);
    pvm_mytid();
    for (n = 1;; n++) {
        printf("line %ld\n", n);
        if (n % 100 == 0)
            nanosleep(&nap, NULL);
    }
}
