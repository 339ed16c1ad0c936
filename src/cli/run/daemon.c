/*
 * daemon.c - a pvmd for the run.
 *
 * With a pvmd reachable (the user's virtual machine), `pangaea` joins it and
 * leaves it running.  Without one it starts a private daemon for this run
 * (pvm_start_pvmd, with the environment the spawned tasks and the group
 * server need) and halts it at the end, which also ends any task left.
 */
#include <errno.h>
#include <pvm3.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_internal.h"
#include "top.h"

/* The daemon searches PVM_PATH for programs named without a '/'; on Debian
 * the group server and examples live outside its default path. */
static void daemon_env(void)
{
    const char *home = getenv("HOME");
    char path[4096];

    setenv("PVM_ROOT", "/usr/lib/pvm3", 0);
    if (geteuid() == 0)
        setenv("PVM_ALLOW_ROOT", "1", 0); /* both pvmd and tasks refuse root otherwise */
    if (!getenv("PVM_PATH")) {
        snprintf(path, sizeof path,
                 "%s/pvm3/bin/LINUX64:/usr/lib/pvm3/bin/LINUX64:"
                 "/usr/lib/pvm3/lib:/usr/bin:/usr/local/bin",
                 home ? home : "/root");
        setenv("PVM_PATH", path, 1);
    }
}

/* A pvmd that is alive but stopped or hung accepts the connection and
 * never answers: PVM would wait for ever.  An alarm bounds the wait
 * (PANGAEA_PVMD_WAIT seconds, 20 by default: PVM itself tries
 * to connect three times in 12 s); its handler can only write
 * and leave, so the message is made beforehand.  Nothing was started. */
static char no_answer[4400];

static void on_no_answer(int sig)
{
    ssize_t n = write(2, no_answer, strlen(no_answer));

    (void)sig;
    (void)n;
    _exit(TOP_EXIT_FAILED);
}

static int enrol_bounded(const char *sock)
{
    const char *env = getenv("PANGAEA_PVMD_WAIT");
    int secs = env && atoi(env) > 0 ? atoi(env) : 20, tid;

    snprintf(no_answer, sizeof no_answer, "pangaea: the pvmd of %s does not "
             "answer (waited %d s): is it stopped or hung? Nothing was "
             "started.\n", sock, secs);
    signal(SIGALRM, on_no_answer);
    alarm(secs);
    tid = pvm_mytid();
    alarm(0);
    signal(SIGALRM, SIG_DFL);
    return tid;
}

/* A Unix socket nobody listens on: its daemon died (kill -9 leaves the
 * socket file behind); connect says so at once, where libpvm tries three
 * times in 12 s and prints each attempt. */
static int nobody_listens(const char *path)
{
    struct sockaddr_un a;
    int fd, rc;

    if (strlen(path) >= sizeof a.sun_path)
        return 0; /* cannot tell: let PVM try */
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    memcpy(a.sun_path, path, strlen(path));
    if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        return 0;
    rc = connect(fd, (struct sockaddr *)&a, sizeof a);
    close(fd);
    return rc < 0 && (errno == ECONNREFUSED || errno == ENOENT);
}

/* The file names the daemon's Unix socket; when that is gone, or nobody
 * listens on it, the daemon is gone too, and PVM would spend 12 s finding
 * out. */
static int socket_gone(const char *sock)
{
    char path[4096] = "";
    FILE *f = fopen(sock, "r");

    if (!f)
        return 0;
    if (!fgets(path, sizeof path, f))
        path[0] = 0;
    fclose(f);
    path[strcspn(path, "\n")] = 0;
    return path[0] == '/' && (access(path, F_OK) < 0 || nobody_listens(path));
}

int top_daemon_connect(int *started, pg_err *err)
{
    const char *dir = getenv("PVM_TMP") ? getenv("PVM_TMP") : "/tmp";
    char sock[4200];
    int cc;

    *started = 0;
    daemon_env();
    pvm_setopt(PvmAutoErr, 0);
    /* The daemon's socket file says whether one runs; asking PVM instead
     * prints an error for every attempt when none does. */
    snprintf(sock, sizeof sock, "%s/pvmd.%d", dir, (int)getuid());
    if (access(sock, F_OK) == 0) {
        if (!socket_gone(sock) && enrol_bounded(sock) >= 0)
            return 0;
        return pg_err_set(err, "%s exists but no pvmd answers there: a "
                               "stale file of a daemon that died? (remove "
                               "it, or halt that daemon)", sock);
    }
    cc = pvm_start_pvmd(0, NULL, 1);
    if (cc < 0 && cc != PvmDupHost)
        return pg_err_set(err, "no pvmd runs and a private one does not "
                               "start (pvm_start_pvmd: %s; its log is "
                               "%s/pvml.%d)", pg_pvm_strerror(cc), dir,
                          (int)getuid());
    if (pvm_mytid() < 0)
        return pg_err_set(err, "started a pvmd but cannot enrol in it");
    *started = 1;
    return 0;
}

void top_daemon_release(int started)
{
    top_stdin_end(); /* its helper is our child too: gone before waitpid */
    if (started) {
        signal(SIGTERM, SIG_IGN); /* pvm_halt ends every task, us included */
        pvm_halt();
        while (waitpid(-1, NULL, 0) > 0) /* the daemon was our child */
            ;
        signal(SIGTERM, SIG_DFL);
    } else
        pvm_exit();
}
