/*
 * chaos_runs.c - `pangaea -chaos [-runs N] [-seed S] [-timeout S]
 * [-logdir DIR] prog args`: recorded runs under receive-side perturbation.
 *
 * Design.  A driver around `pangaea -log` (rerun.c): run i records into
 * DIR/chaos-i with PANGAEA_CHAOS set to seed S+i, which every task's
 * runtime reads (src/pvm/runtime/chaos.c: random delays before receives, a random
 * pick among the queued messages a receive would accept, polls that
 * sometimes find nothing).  S is the time unless given, and printed with
 * every run, so `-chaos -runs 1 -seed X` runs one of them again (as far
 * as timing allows; the recording, not the seed, is what repeats
 * exactly).  A run is kept when it fails (exit status other than 0, or a
 * stall past -timeout) or prints an output no earlier run printed; the
 * others are removed.  The summary lists the kept runs, each marked
 * "failed" (with why) or "new output".  Exit status: 1 when a run failed,
 * 0 if none, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg_proto.h"
#include "rerun.h"
#include "whatif.h"

static int seen_before(char (*hashes)[17], int n, const char *hash)
{
    int i;

    for (i = 0; i < n; i++)
        if (!strcmp(hashes[i], hash))
            return 1;
    return 0;
}

static void drop(const char *dir)
{
    char path[PATH_MAX + 16];

    top_rerun_remove(dir);
    snprintf(path, sizeof path, "%s.out", dir);
    remove(path);
    snprintf(path, sizeof path, "%s.err", dir);
    remove(path);
}

int top_chaos(int argc, char **argv)
{
    struct top_driver d;
    char (*hashes)[17], dir[PATH_MAX], out[PATH_MAX + 8], err[PATH_MAX + 8];
    char why[600], seed[32], *args[1100];
    int i, k, nfail = 0, nkept = 0, *kept, *failed;
    struct top_rerun_result r;
    pg_err e;

    if (top_driver_opts(argc, argv, "-chaos", &d, &e) < 0 ||
        top_driver_dir(&d, "chaos-0", &e) < 0) {
        fprintf(stderr, "pangaea: %s\n", e.msg);
        return 2;
    }
    if (!d.have_seed)
        d.seed = (long long)time(NULL);
    hashes = calloc(d.runs, sizeof *hashes);
    kept = calloc(d.runs, sizeof *kept);
    failed = calloc(d.runs, sizeof *failed);
    if (!hashes || !kept || !failed)
        return 2;
    args[0] = "pangaea", args[1] = "-log", args[2] = "-logdir", args[3] = dir;
    for (k = 0; d.prog[k] && k < 1090; k++)
        args[4 + k] = d.prog[k];
    args[4 + k] = NULL;
    for (i = 0; i < d.runs; i++) {
        snprintf(dir, sizeof dir, "%s/chaos-%d", d.logdir, i);
        snprintf(out, sizeof out, "%s.out", dir);
        snprintf(err, sizeof err, "%s.err", dir);
        snprintf(seed, sizeof seed, "%lld", d.seed + i);
        setenv(PG_ENV_CHAOS, seed, 1);
        if (top_rerun(args, out, err, d.timeout, &r) < 0)
            return 2;
        top_rerun_why(err, why, sizeof why);
        printf("run %d seed %s: %s%s%s, output %s%s\n", i, seed,
               r.timed_out ? "stalled (stopped after -timeout)"
               : r.status == 0 ? "ended well" : "failed",
               why[0] ? ": " : "", why, r.hash,
               seen_before(hashes, i, r.hash) ? "" : " (new)");
        fflush(stdout);
        kept[i] = r.timed_out || r.status != 0 ||
                  !seen_before(hashes, i, r.hash);
        failed[i] = r.timed_out || r.status != 0;
        nfail += failed[i];
        nkept += kept[i];
        memcpy(hashes[i], r.hash, sizeof hashes[i]);
        if (!kept[i])
            drop(dir);
    }
    unsetenv(PG_ENV_CHAOS);
    printf("%d runs, %d failed, %d kept\n", d.runs, nfail, nkept);
    for (i = 0; i < d.runs; i++)
        if (kept[i]) {
            snprintf(dir, sizeof dir, "%s/chaos-%d", d.logdir, i);
            printf("run %d (seed %lld, %s): ", i, d.seed + i,
                   failed[i] ? "failed" : "new output");
            top_driver_replay_cmd(stdout, &d, dir);
        }
    free(hashes), free(kept), free(failed);
    return nfail ? 1 : 0;
}
