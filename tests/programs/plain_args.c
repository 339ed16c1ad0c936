/*
 * plain_args.c - prints its arguments as hex bytes, and has a child print
 * the same arguments it hands on to it: arguments are data, any bytes a C
 * string holds ($'\001', invalid UTF-8), and both the recording and the
 * replay must give every task exactly the bytes it was started with.
 * The child sends its line to the parent, so all output is ltid 1's.
 *
 *   plain_args ARG...         ltid 1; spawns itself as "-child ARG..."
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "N: hh hh ..|hh ..|" for argv[from..argc-1]. */
static void hex_args(int argc, char **argv, int from, char *out, size_t size)
{
    size_t n = 0;
    int i;
    const unsigned char *p;

    n += snprintf(out + n, size - n, "%d:", argc - from);
    for (i = from; i < argc && n < size; i++) {
        for (p = (const unsigned char *)argv[i]; *p && n < size; p++)
            n += snprintf(out + n, size - n, " %02x", *p);
        if (n < size)
            n += snprintf(out + n, size - n, " |");
    }
}

int main(int argc, char **argv)
{
    char line[8192], self[4096], **cargv;
    int child, i;
    ssize_t len;

    if (argc > 1 && !strcmp(argv[1], "-child")) {
        hex_args(argc, argv, 2, line, sizeof line);
        pvm_initsend(PvmDataDefault);
        pvm_pkstr(line);
        pvm_send(pvm_parent(), 1);
        pvm_exit();
        return 0;
    }
    hex_args(argc, argv, 1, line, sizeof line);
    printf("parent %s\n", line);
    len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return 1;
    self[len] = 0;
    cargv = calloc(argc + 1, sizeof *cargv);
    cargv[0] = "-child";
    for (i = 1; i < argc; i++)
        cargv[i] = argv[i];
    if (pvm_spawn(self, cargv, PvmTaskDefault, "", 1, &child) != 1) {
        printf("spawn failed: %d\n", child);
        pvm_exit();
        return 1;
    }
    pvm_recv(child, 1);
    pvm_upkstr(line);
    printf("child  %s\n", line);
    pvm_exit();
    return 0;
}
