/*
 * plain_contexts.c - two contexts, one tag (plain PVM, no Pangaea calls).
 *
 *   plain_contexts          makes a context with pvm_newcontext, spawns
 *                           two children and sends each the context's
 *                           number; takes tag 5 from any sender in that
 *                           context, then tag 5 from any sender in the base
 *                           context, and prints both
 *   plain_contexts -child   child 0 sends tag 5 in the context it was
 *                           given, child 1 in the base context
 *
 * Each receive can take only one message (PVM matches a message's context
 * with the receiver's), so the output never changes; a race analysis that
 * ignored contexts would see the first receive race between the two.
 */
#include <pvm3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int child(void)
{
    int v[2]; /* which child, the context */
    char line[64];

    pvm_recv(pvm_parent(), 1);
    pvm_upkint(v, 2, 1);
    if (v[0] == 0)
        pvm_setcontext(v[1]);
    snprintf(line, sizeof line, "child %d in the %s context", v[0],
             v[0] == 0 ? "new" : "base");
    pvm_initsend(PvmDataDefault);
    pvm_pkstr(line);
    pvm_send(pvm_parent(), 5);
    pvm_exit();
    return 0;
}

static void take(const char *where)
{
    char line[64] = "";

    if (pvm_recv(-1, 5) > 0)
        pvm_upkstr(line);
    printf("%s context: %s\n", where, line);
}

int main(int argc, char **argv)
{
    char self[1024], *args[] = { "-child", NULL };
    int tids[2], v[2], ctx, base, i;
    ssize_t n;

    if (pvm_mytid() < 0)
        return 1;
    if (argc > 1 && !strcmp(argv[1], "-child"))
        return child();
    if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
        return 1;
    self[n] = 0;
    ctx = pvm_newcontext();
    if (pvm_spawn(self, args, PvmTaskDefault, "", 2, tids) != 2)
        return 1;
    for (i = 0; i < 2; i++) {
        v[0] = i;
        v[1] = ctx;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(v, 2, 1);
        pvm_send(tids[i], 1);
    }
    usleep(50000); /* both messages are there before the first receive */
    base = pvm_setcontext(ctx);
    take("new");
    pvm_setcontext(base);
    take("base");
    pvm_exit();
    return 0;
}
