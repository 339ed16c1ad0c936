/*
 * plain_getopt.c - prints the output and trace options PVM reports, in
 * the task and in a child it spawns.
 *
 *   plain_getopt        prints its own line, then its child's
 *   plain_getopt -child sends its line to its parent
 *
 * Built against PVM alone (tests preload Pangaea).  Under pangaea these
 * must read as in a plain run: pangaea's own output tid, code and context
 * are not the program's.
 */
#include <stdio.h>
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

    for (i = 0; i < sizeof opts / sizeof *opts && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, " %s=%d", opts[i].name,
                              pvm_getopt(opts[i].opt));
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
