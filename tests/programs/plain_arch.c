/*
 * plain_arch.c - prints the data signature PVM gives each architecture
 * named on the command line (pvm_archcode), one "NAME CODE" line each.
 *
 *   plain_arch ARCH...
 *
 * Built against PVM alone (tests preload Pangaea): test_archcode.sh
 * records it and checks that a replay answers what was recorded.  Any
 * PVM error enrolling: a message on stderr, exit 1.
 */
#include <stdio.h>
#include <pvm3.h>

int main(int argc, char **argv)
{
    int i;

    if (pvm_mytid() < 0) {
        fprintf(stderr, "plain_arch: cannot enrol in PVM\n");
        return 1;
    }
    for (i = 1; i < argc; i++)
        printf("%s %d\n", argv[i], pvm_archcode(argv[i]));
    pvm_exit();
    return 0;
}
