/*
 * group_lookup.c - group lookups that fail, as the race in pvm-examples'
 * `ge` makes them fail now and then (built with -lpangaea -lgpvm3).
 *
 * Task 1 spawns a copy of itself that does not join, joins group "lookup",
 * and asks for the instance of that child in the group (PvmNotInGroup),
 * of itself in a group that does not exist, and for the tid of an
 * instance nobody has (PvmNoInst): each answer is printed.  It then tells
 * the child to end.  A recording holds these failures; a replay must give
 * the same answers.
 */
#include <stdio.h>
#include <string.h>
#include <pvm3.h>

/* Every group call it makes is one libpangaea defines too: without a use
 * of a libgpvm3 function Pangaea does not wrap, --as-needed would drop
 * libgpvm3 and the real calls could not be found. */
int (*volatile keep_gpvm3)(char *, int) = pvm_freezegroup;

int main(int argc, char **argv)
{
    char *args[] = { "-idle", NULL };
    int child, me = pvm_mytid();

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && !strcmp(argv[1], "-idle")) {
        pvm_recv(pvm_parent(), 1);
        pvm_exit();
        return 0;
    }
    if (pvm_spawn(argv[0], args, PvmTaskDefault, "", 1, &child) != 1) {
        printf("spawn failed: %d\n", child);
        pvm_exit();
        return 1;
    }
    printf("joined as instance %d\n", pvm_joingroup("lookup"));
    printf("instance of the child, not a member: %d\n",
           pvm_getinst("lookup", child));
    printf("instance of myself in a group that does not exist: %d\n",
           pvm_getinst("no-such-group", me));
    printf("tid of instance 5, which nobody has: %d\n",
           pvm_gettid("lookup", 5) < 0 ? pvm_gettid("lookup", 5) : 0);
    printf("my own instance: %d\n", pvm_getinst("lookup", me));
    pvm_lvgroup("lookup");
    pvm_initsend(PvmDataDefault);
    pvm_send(child, 1);
    pvm_exit();
    return 0;
}
