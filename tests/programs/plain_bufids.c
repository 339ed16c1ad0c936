/*
 * plain_bufids.c - a program whose output is the buffer ids PVM hands it
 * (plain PVM, no Pangaea calls).
 *
 *   plain_bufids          spawns three children, then takes one message
 *                         of each, in a fixed order (child 0, 1, 2: the
 *                         order of the data never races), keeping each
 *                         with pvm_setrbuf(0), probes the next first;
 *                         prints every id pvm_probe, pvm_recv,
 *                         pvm_getrbuf, pvm_setrbuf and pvm_initsend
 *                         returned, then switches between the kept
 *                         buffers with pvm_setrbuf and unpacks each, and
 *                         compares ids (which was smaller)
 *   plain_bufids -child   sends its number, after a pause that depends
 *                         on its pid, so that the messages reach the
 *                         parent in another order from run to run
 *
 * libpvm3 numbers a message when it reads it off the socket, with the id
 * freed last, so in plain runs the ids depend on when the messages came.
 */
#include <pvm3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define KIDS 3

static int child(void)
{
    int me = -1;

    pvm_recv(pvm_parent(), 1);
    pvm_upkint(&me, 1, 1);
    usleep((getpid() * 7919) % 20000);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&me, 1, 1);
    pvm_send(pvm_parent(), 2);
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    char self[1024], *args[] = { "-child", NULL };
    int tids[KIDS], kept[KIDS], i, v, sb;
    ssize_t n;

    if (pvm_mytid() < 0)
        return 1;
    if (argc > 1 && !strcmp(argv[1], "-child"))
        return child();
    if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
        return 1;
    self[n] = 0;
    if (pvm_spawn(self, args, PvmTaskDefault, "", KIDS, tids) != KIDS)
        return 1;
    for (i = 0; i < KIDS; i++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&i, 1, 1);
        pvm_send(tids[i], 1);
    }
    usleep(30000); /* the children's messages come meanwhile */
    for (i = 0; i < KIDS; i++) {
        int p = pvm_probe(tids[i], 2), r;

        while (p == 0)
            p = pvm_probe(tids[i], 2);
        r = pvm_recv(tids[i], 2);
        printf("child %d: probe %d, recv %d, getrbuf %d\n", i, p, r,
               pvm_getrbuf());
        kept[i] = pvm_setrbuf(0);
    }
    sb = pvm_initsend(PvmDataDefault);
    printf("initsend %d\n", sb);
    for (i = KIDS - 1; i >= 0; i--) {
        v = -1;
        printf("setrbuf(%d) returned %d", kept[i], pvm_setrbuf(kept[i]));
        pvm_upkint(&v, 1, 1);
        printf(", holds %d\n", v);
    }
    printf("child 0's buffer id is %s than child 2's\n",
           kept[0] < kept[2] ? "smaller" : "larger");
    pvm_exit();
    return 0;
}
