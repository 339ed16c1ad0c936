/*
 * postmortem.c - the post-mortem modes of `pangaea`: they read a recorded run
 * (runlog.c) and never start PVM.
 *
 *   pangaea -display [LOGDIR]            the event graph, one HTML file
 *   pangaea -tasks [LOGDIR]              every task and how it ended
 *   pangaea -export perfetto [LOGDIR]    Perfetto's protobuf trace
 *   pangaea -export perfetto-json [LOGDIR]  the same as trace JSON
 *
 * Design.  main() hands argv here before its own parsing, so the record
 * and replay options stay apart from these.  This file has the dispatch;
 * the task table is tasks.c's, the traces perfetto.c's and perfetto_json.c's, the HTML
 * display.c's, the JSON string writer json.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "races.h" /* rc_memstats */
#include "runlog.h"
#include "top.h"

#define DEFAULT_LOGDIR "logs"

static int pm_usage(const char *why)
{
    fprintf(stderr, "pangaea: %s\n"
            "usage: pangaea -display [LOGDIR]\n"
            "       pangaea -tasks [LOGDIR]\n"
            "       pangaea -export perfetto [LOGDIR] > trace.perfetto-trace\n"
            "       pangaea -export perfetto-json [LOGDIR] > trace.json\n"
            "LOGDIR defaults to %s/\n", why, DEFAULT_LOGDIR);
    return TOP_EXIT_USAGE;
}

static int pm_display(struct top_run *run)
{
    char path[4300];
    pg_err err;

    snprintf(path, sizeof path, "%s/pangaea-graph.html", run->dir);
    if (top_display_write(run, path, &err) < 0) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        return TOP_EXIT_FAILED;
    }
    printf("%s\n", path);
    return 0;
}

/* -export perfetto streams the logs itself (perfetto.c): no graph. */
static int pm_perfetto(const char *dir)
{
    char path[4096];
    pg_err err;
    int rc;

    if (!realpath(dir, path)) {
        fprintf(stderr, "pangaea: no log directory %s: %s\n", dir,
                strerror(errno));
        return TOP_EXIT_USAGE;
    }
    top_note_missing(path); /* logdir.c: a task's logs missing is said */
    if ((rc = top_export_perfetto(path, stdout, &err)) < 0)
        fprintf(stderr, "pangaea: %s\n", err.msg);
    if (rc_memstats())
        fprintf(stderr, "pangaea: memory: peak resident %ld KB\n",
                rc_peak_kb());
    return rc == -1 ? TOP_EXIT_USAGE : rc < 0 ? TOP_EXIT_FAILED : 0;
}

int top_is_binary_export(int argc, char **argv)
{
    return argc > 2 && !strcmp(argv[1], "-export") &&
           !strcmp(argv[2], "perfetto");
}

int top_postmortem(int argc, char **argv)
{
    const char *mode = argv[1], *dir;
    int first = 2, rc, json = 0;
    struct top_run run;
    pg_err err;

    if (!strcmp(mode, "-export")) {
        if (argc < 3 || (strcmp(argv[2], "perfetto") &&
                         !(json = !strcmp(argv[2], "perfetto-json"))))
            return pm_usage("-export knows two formats: perfetto, perfetto-json");
        first = 3;
    }
    if (argc > first + 1)
        return pm_usage("too many arguments");
    if (top_is_binary_export(argc, argv) && isatty(1))
        return pm_usage("-export perfetto writes a binary trace: redirect "
                        "it to a file (> trace.perfetto-trace)");
    dir = argc > first ? argv[first] : DEFAULT_LOGDIR;
    if (top_is_binary_export(argc, argv))
        return pm_perfetto(dir);
    if ((!strcmp(mode, "-tasks")     ? top_run_load_summary(&run, dir, &err)
         : !strcmp(mode, "-display") ? top_run_load_lean(&run, dir, &err)
                                     : top_run_load(&run, dir, &err)) < 0) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        return TOP_EXIT_USAGE;
    }
    top_note_missing(dir); /* logdir.c: a task's logs missing is said */
    if (!strcmp(mode, "-display"))
        rc = pm_display(&run);
    else if (!strcmp(mode, "-tasks"))
        rc = top_tasks_print(&run, stdout) < 0 ? TOP_EXIT_FAILED : 0;
    else
        rc = top_export_perfetto_json(&run, stdout) < 0 ? TOP_EXIT_FAILED : 0;
    if (fflush(stdout) != 0)
        rc = TOP_EXIT_FAILED;
    if (rc_memstats() && !strcmp(mode, "-tasks")) /* PANGAEA_MEMSTATS=1 */
        fprintf(stderr, "pangaea: memory: %d tasks, %d sends kept in %zu "
                "bytes; peak resident %ld KB\n", run.ntasks, run.nsends,
                run.kept_sends, rc_peak_kb());
    else if (rc_memstats()) /* (test_scaling.sh reads them) */
        fprintf(stderr, "pangaea: memory: %d tasks; peak resident %ld KB\n",
                run.ntasks, rc_peak_kb());
    top_run_free(&run);
    return rc;
}
