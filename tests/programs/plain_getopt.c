/*
 * plain_getopt.c - prints the output and trace options PVM reports, in
 * the task and in a child it spawns.
 *
 *   plain_getopt        prints its own line, then its child's
 *   plain_getopt -catchout  the same after pvm_catchout(stdout): its
 *                       children's output is its own to collect
 *                       (PvmShowTids off: lines without tids)
 *   plain_getopt -child sends its line to its parent
 *
 * A value that is the task's own tid prints as "me", its parent's as
 * "parent": tids differ from run to run.
 *
 * Built against PVM alone (tests preload Pangaea).  Under pangaea these
 * must read as in a plain run: pangaea's own output tid, code and context
 * are not the program's.
 */
#include <stdio.h> /* before pvm3.h: it declares pvm_catchout(FILE *) */
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

static const struct { int opt; const char *name; } opts[] = {
    { PvmOutputTid, "OutputTid" }, { PvmOutputCode, "OutputCode" },
    { PvmOutputContext, "OutputContext" },
    { PvmSelfOutputTid, "SelfOutputTid" },
    { PvmSelfOutputCode, "SelfOutputCode" },
    { PvmSelfOutputContext, "SelfOutputContext" },
    { PvmTraceTid, "TraceTid" }, { PvmTraceCode, "TraceCode" },
    { PvmRoute, "Route" },
};

static void line(const char *who, char *buf, size_t size)
{
    size_t i, n = (size_t)snprintf(buf, size, "%s:", who);
    int v, me = pvm_mytid(), parent = pvm_parent();

    for (i = 0; i < sizeof opts / sizeof *opts && n < size; i++) {
        v = pvm_getopt(opts[i].opt);
        if (v == me && v > 0)
            n += (size_t)snprintf(buf + n, size - n, " %s=me", opts[i].name);
        else if (v == parent && v > 0)
            n += (size_t)snprintf(buf + n, size - n, " %s=parent",
                                  opts[i].name);
        else
            n += (size_t)snprintf(buf + n, size - n, " %s=%d", opts[i].name,
                                  v);
    }
}

int main(int argc, char **argv)
{
    char buf[1024], self[1024], *args[] = { "-child", NULL };
    int tid;
    ssize_t n;

    if (pvm_mytid() < 0)
        return 1;
    if (argc > 1 && !strcmp(argv[1], "-child")) {
        line("child", buf, sizeof buf);
        pvm_initsend(PvmDataDefault);
        pvm_pkstr(buf);
        pvm_send(pvm_parent(), 1);
        pvm_exit();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "-catchout")) {
        pvm_setopt(PvmShowTids, 0); /* no "[tid] BEGIN" lines: tids differ */
        pvm_catchout(stdout);
    }
    line("task", buf, sizeof buf);
    printf("%s\n", buf);
    if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
        return 1;
    self[n] = 0;
    if (pvm_spawn(self, args, PvmTaskDefault, "", 1, &tid) != 1 ||
        pvm_recv(tid, 1) < 0 || pvm_upkstr(buf) < 0)
        return 1;
    printf("%s\n", buf);
    pvm_exit();
    return 0;
}
