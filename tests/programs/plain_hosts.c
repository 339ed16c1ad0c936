/*
 * plain_hosts.c - adds the hosts named on its command line with
 * pvm_addhosts, then deletes with pvm_delhosts the ones it added, and
 * prints what PVM answered for each host (its pvmd tid, or an error
 * code).  The answers
 * depend on the virtual machine at that instant (a host already in it is
 * PvmDupHost): a replay must print the recorded ones.  Built against PVM
 * alone (tests preload Pangaea).
 */
#include <stdio.h>
#include <pvm3.h>

static void show(const char *what, int cc, const int *infos, int n)
{
    int i;

    printf("%s: %d host(s)", what, cc);
    for (i = 0; i < n; i++)
        printf(", %s %d", infos[i] < 0 ? "error" : "tid", infos[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    int infos[16], n = argc - 1, added = 0, cc, i;
    char *mine[16];

    if (n < 1 || n > 16 || pvm_mytid() < 0)
        return 1;
    cc = pvm_addhosts(argv + 1, n, infos);
    show("pvm_addhosts", cc, infos, n);
    for (i = 0; i < n; i++)
        if (infos[i] >= 0)
            mine[added++] = argv[i + 1];
    if (added) {
        cc = pvm_delhosts(mine, added, infos);
        show("pvm_delhosts", cc, infos, added);
    }
    pvm_exit();
    return 0;
}
