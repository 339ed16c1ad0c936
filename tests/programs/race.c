/*
 * race.c - plain_race.c built the instrumented way: with pangaea.h and
 * -lpangaea ahead of -lpvm3 (see the Makefile).  The program itself is the
 * same, so a test can compare the two ways of running under Pangaea
 * (linked, here; preloaded, for plain_race) on one and the same program.
 * It makes no Pangaea call: the runtime takes the PVM calls by name.
 */
#include <pangaea.h>
#include "plain_race.c"
