#include <string.h>
#include "whatif.h"
int top_is_explore(const char *arg) { return !strcmp(arg, "-explore"); }
int top_explore(int argc, char **argv) { (void)argc; (void)argv; return 2; }
int top_is_chaos(const char *arg) { return !strcmp(arg, "-chaos"); }
int top_chaos(int argc, char **argv) { (void)argc; (void)argv; return 2; }
