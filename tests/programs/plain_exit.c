/*
 * plain_exit.c - a task whose only PVM call is pvm_exit (or, with
 * -mytid, pvm_mytid first): for a task whose pvmd is gone before it
 * enrols, whose exit path must not try to enrol again and again.
 *
 * Built against PVM alone (the test preloads Pangaea).
 */
#include <pvm3.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "-mytid"))
        pvm_mytid();
    pvm_exit();
    return 0;
}
