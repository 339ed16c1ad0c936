/*
 * plain_signal.c - where a signal sent with pvm_sendsig lands decides the
 * output (plain PVM, no Pangaea calls).
 *
 *   plain_signal          spawns a child, waits for its word that it is
 *                         ready, waits a little (0.2 to 3 ms, by its pid),
 *                         sends it SIGUSR1 with pvm_sendsig, and prints
 *                         what the child reports
 *   plain_signal -child   catches SIGUSR1 (the handler sets a flag), says
 *                         it is ready, then polls with pvm_nrecv until the
 *                         flag is set, and reports how many polls that
 *                         took: it depends on when the signal landed
 *   plain_signal -compute the child computes instead of polling: it
 *                         counts rounds of arithmetic, without calling
 *                         PVM, until the flag is set (the signal lands in
 *                         its own code, between two PVM calls); the
 *                         count is printed ten wide, so the report is
 *                         the same size whatever it counts: a replay,
 *                         which raises the signal as the call before
 *                         returns, counts 0 and sends that report, which
 *                         must match the recorded send's size
 *   plain_signal -term    SIGTERM instead (sent 0.2 s after the child's
 *                         word came), which the child does not catch: it
 *                         waits in pvm_recv for a message that never
 *                         comes, dies there, and the parent prints its
 *                         exit notice
 */
#include <pvm3.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t landed;

static void on_usr1(int sig)
{
    (void)sig;
    landed = 1;
}

/* Rounds of arithmetic until the flag is set: no PVM call. */
static long compute(void)
{
    volatile unsigned long acc = 0;
    long rounds = 0, k;

    while (!landed && rounds < 100000000L) {
        for (k = 0; k < 1000; k++)
            acc += (unsigned long)k * (unsigned long)rounds;
        rounds++;
    }
    return rounds;
}

static int child(int term, int comp)
{
    long polls = 0;
    char line[100];

    if (!term)
        signal(SIGUSR1, on_usr1);
    pvm_initsend(PvmDataDefault);
    pvm_send(pvm_parent(), 1);
    if (term)
        pvm_recv(-1, 99); /* nobody sends tag 99: SIGTERM ends the task */
    if (comp)
        polls = compute();
    while (!landed && polls < 100000000L) {
        if (pvm_nrecv(-1, 99) > 0)
            break; /* nobody sends tag 99 */
        polls++;
    }
    snprintf(line, sizeof line, "child: SIGUSR1 %s after %*ld %s",
             landed ? "landed" : "never landed", comp ? 10 : 0, polls,
             comp ? "rounds" : "polls");
    pvm_initsend(PvmDataDefault);
    pvm_pkstr(line);
    pvm_send(pvm_parent(), 2);
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    char self[1024], line[100], *args[] = { "-child", NULL, NULL };
    int tid, term = argc > 1 && !strcmp(argv[argc - 1], "-term");
    int comp = argc > 1 && !strcmp(argv[argc - 1], "-compute");
    ssize_t n;

    if (pvm_mytid() < 0)
        return 1;
    if (argc > 1 && !strcmp(argv[1], "-child"))
        return child(term, comp);
    if (term || comp)
        args[1] = term ? "-term" : "-compute";
    if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
        return 1;
    self[n] = 0;
    if (pvm_spawn(self, args, PvmTaskDefault, "", 1, &tid) != 1 ||
        pvm_recv(tid, 1) < 0)
        return 1;
    usleep(term ? 200000 : 200 + (getpid() * 7919) % 2800);
    if (term) {
        pvm_notify(PvmTaskExit, 3, 1, &tid);
        printf("parent: pvm_sendsig returned %d\n", pvm_sendsig(tid, SIGTERM));
        if (pvm_recv(-1, 3) < 0)
            return 1;
        printf("parent: the child ended\n");
        pvm_exit();
        return 0;
    }
    printf("parent: pvm_sendsig returned %d\n", pvm_sendsig(tid, SIGUSR1));
    if (pvm_recv(tid, 2) < 0 || pvm_upkstr(line) < 0)
        return 1;
    printf("%s\n", line);
    pvm_exit();
    return 0;
}
