/*
 * test_live_ctl.c - the live view's control path without a pvmd
 * (src/cli/live/live_ctl.c): a request's fields (form-encoded bodies,
 * "any", bad numbers), and what each control writes into a task's
 * control block and the run's breakpoint file, read back as a task
 * would read them (src/pvm/runtime/live_pos.h), and on /control.json.
 *
 * The task's page is made here as a task makes it (ltid-N.pos with its
 * magic); no task runs.
 */
#include <check.h>

#include "check_run.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "live.h"
#include "live_pos.h"
#include "pg_internal.h"

static struct lv_form form(const char *body)
{
    struct lv_form f = { 0 };
    char *copy = strdup(body);

    lv_form_body(&f, copy);
    free(copy);
    return f;
}

START_TEST(form_fields_are_decoded_and_the_last_wins)
{
    struct lv_form f = form("call=pvm_send&tag=21&note=a+b%2Fc%3D&tag=22&x");
    long v;

    ck_assert_str_eq(lv_form_get(&f, "call"), "pvm_send");
    ck_assert_str_eq(lv_form_get(&f, "note"), "a b/c=");
    ck_assert_str_eq(lv_form_get(&f, "tag"), "22");
    ck_assert_str_eq(lv_form_get(&f, "x"), "");
    ck_assert_ptr_null(lv_form_get(&f, "ltid"));
    ck_assert_int_eq(lv_form_int(&f, "tag", &v), 1);
    ck_assert_int_eq(v, 22);
    ck_assert_int_eq(lv_form_int(&f, "x", &v), 0);   /* empty: any */
    ck_assert_int_eq(lv_form_int(&f, "ltid", &v), 0); /* absent */
    ck_assert_int_eq(lv_form_int(&f, "call", &v), -1);
    lv_form_free(&f);
    ck_assert_int_eq(f.n, 0);
}
END_TEST

static char dir[] = "/tmp/pangaea-ctl-unit.XXXXXX";

static struct pg_live_pos *make_page(int ltid)
{
    char path[200];
    struct pg_live_pos *p;
    int fd;

    snprintf(path, sizeof path, "%s/ltid-%d.pos", dir, ltid);
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, sizeof *p), 0);
    p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    ck_assert_ptr_ne(p, MAP_FAILED);
    p->ltid = ltid;
    p->magic = PG_LIVE_MAGIC;
    return p;
}

static struct pg_live_ctl *map_ctl(void)
{
    char path[200];
    struct pg_live_ctl *c;
    int fd;

    snprintf(path, sizeof path, "%s/%s", dir, PG_LIVE_CTL_FILE);
    fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    c = mmap(NULL, sizeof *c, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    ck_assert_ptr_ne(c, MAP_FAILED);
    return c;
}

/* Runs handler h on body; returns its status, its JSON in *out. */
static int run(int (*h)(const struct lv_form *, FILE *), const char *body,
               char **out)
{
    struct lv_form f = form(body);
    size_t len = 0;
    FILE *fp = open_memstream(out, &len);
    int code;

    ck_assert_ptr_nonnull(fp);
    code = h(&f, fp);
    fclose(fp);
    lv_form_free(&f);
    return code;
}

START_TEST(controls_reach_the_tasks_pages_and_the_breakpoint_file)
{
    struct top_opts o;
    struct pg_live_pos *p1, *p2, *p3;
    struct pg_live_ctl *c;
    pg_err err;
    char *out;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    memset(&o, 0, sizeof o);
    o.hold = 1;
    ck_assert_int_eq(lv_ctl_start(&o, dir, &err), 0);
    ck_assert_str_eq(getenv(PG_ENV_HOLD), "1");
    p1 = make_page(1);
    p2 = make_page(2);
    p3 = make_page(3001002); /* a grandchild: ltids are sparse */
    c = map_ctl();
    ck_assert_uint_eq(c->magic, PG_LIVE_CTL_MAGIC);

    ck_assert_int_eq(run(lv_ctl_pause, "", &out), 200);
    ck_assert_str_eq(out, "{\"ok\":true,\"paused\":[1,2,3001002]}\n");
    free(out);
    ck_assert(p1->pause && p1->gate && p2->pause && p2->gate && p3->pause);
    ck_assert_int_eq(run(lv_ctl_resume, "ltid=3001002", &out), 200);
    free(out);
    ck_assert(!p3->pause);
    ck_assert_int_eq(run(lv_ctl_step, "ltid=2", &out), 200); /* not held */
    free(out);
    ck_assert_int_eq(p2->steps, 0);
    p2->held = 1; /* as gate.c does, the call published first */
    snprintf(p2->call, sizeof p2->call, "pvm_barrier");
    snprintf(p2->args, sizeof p2->args, "group g count 3");
    p2->tag = -1;
    ck_assert_int_eq(run(lv_ctl_step, "ltid=2", &out), 200);
    ck_assert_str_eq(out, "{\"ok\":true,\"calls\":[{\"ltid\":2,\"call\":"
                     "\"pvm_barrier\",\"args\":\"group g count 3\",\"tag\":-1,"
                     "\"holds\":0}],\"stepped\":[2]}\n");
    free(out);
    ck_assert_int_eq(p1->steps, 0);
    ck_assert_int_eq(p2->steps, 1);
    /* A step not taken yet: another is not given (two tabs, a double
     * click), whatever the view. */
    ck_assert_int_eq(run(lv_ctl_step, "ltid=2&from=2:0", &out), 200);
    ck_assert(strstr(out, "\"stepped\":[]}\n"));
    free(out);
    ck_assert_int_eq(p2->steps, 1);
    p2->steps = 0, p2->holds = 1; /* taken; held again, as gate.c does */
    ck_assert_int_eq(run(lv_ctl_step, "from=2:0", &out), 200); /* stale */
    ck_assert(strstr(out, "\"stepped\":[]}\n"));
    free(out);
    ck_assert_int_eq(p2->steps, 0);
    ck_assert_int_eq(run(lv_ctl_step, "from=2:x", &out), 400);
    free(out);
    ck_assert_int_eq(run(lv_ctl_resume, "ltid=1", &out), 200);
    free(out);
    ck_assert(!p1->pause && !p1->gate && p2->pause);
    ck_assert_int_eq(c->all_go, 0); /* one task: not the run's state */
    ck_assert_int_eq(run(lv_ctl_step, "from=1:0,2:1", &out), 200);
    ck_assert(strstr(out, "\"stepped\":[2]}\n")); /* the held only */
    free(out);
    ck_assert_int_eq(p2->steps, 1);
    ck_assert_int_eq(run(lv_ctl_runto, "ltid=1&event=7", &out), 200);
    free(out);
    ck_assert(p1->runto == 7 && p1->gate && !p1->pause);
    ck_assert_int_eq(run(lv_ctl_runto, "ltid=1", &out), 400);
    free(out);
    ck_assert_int_eq(run(lv_ctl_step, "ltid=9", &out), 400); /* no page */
    free(out);

    ck_assert_int_eq(run(lv_ctl_break, "call=send&tag=21&hits=2", &out), 200);
    ck_assert_str_eq(out, "{\"ok\":true,\"id\":1}\n");
    free(out);
    ck_assert_int_eq(c->nbp, 1);
    ck_assert_str_eq(c->bp[0].call, "send");
    ck_assert_int_eq(c->bp[0].tag, 21);
    ck_assert_int_eq(c->bp[0].hits, 2);
    ck_assert_int_eq(c->bp[0].ltid, PG_LIVE_ANY);
    ck_assert_int_eq(c->bp[0].peer, PG_LIVE_ANY);
    ck_assert_int_eq(run(lv_ctl_break, "tag=x", &out), 400);
    free(out);
    ck_assert_int_eq(run(lv_ctl_break, "ltid=2&size=any", &out), 200);
    free(out);
    ck_assert_int_eq(c->nbp, 2);
    ck_assert_int_eq(c->bp[1].size, PG_LIVE_ANY);

    /* A task held: what /control.json says of it. */
    snprintf(p2->call, sizeof p2->call, "pvm_recv");
    p2->peer = -1, p2->tag = 10, p2->size = -1, p2->at = 4, p2->pid = 42;
    p2->next = 6; /* a <site> record (5) comes first */
    p2->args[0] = 0;
    p2->held = 1;
    {
        size_t len = 0;
        FILE *fp = open_memstream(&out, &len);

        lv_ctl_json(fp);
        fclose(fp);
        ck_assert_ptr_nonnull(strstr(out, "{\"ltid\":2,\"pid\":42,\"state\":"
                                          "\"held\",\"pause\":true"));
        ck_assert_ptr_nonnull(strstr(out, "\"held\":{\"call\":\"pvm_recv\","
                                          "\"peer\":-1,\"tag\":10,\"size\":-1,"
                                          "\"event\":6,\"done\":4,\"args\":"
                                          "\"\",\"why\":\"hold\""));
        ck_assert_ptr_nonnull(strstr(out, "\"calls\":[\"send\",\"mcast\","));
        ck_assert_ptr_nonnull(strstr(out, "gdb -p 42 -ex 'break pg_gate_after'"));
        ck_assert_ptr_nonnull(strstr(out, "\"call\":\"send\",\"ltid\":null,"
                                          "\"peer\":null,\"tag\":21"));
        free(out);
    }
    ck_assert_int_eq(run(lv_ctl_unbreak, "id=1", &out), 200);
    free(out);
    ck_assert_int_eq(c->nbp, 1);
    ck_assert_int_eq(c->bp[0].ltid, 2); /* the other moved into its slot */
    ck_assert_int_eq(run(lv_ctl_unbreak, "id=1", &out), 400);
    free(out);
    ck_assert_int_eq(run(lv_ctl_unbreak, "id=all", &out), 200);
    free(out);
    ck_assert_int_eq(c->nbp, 0);

    /* A call site: FILE:LINE or a function, matched by the task. */
    ck_assert_int_eq(run(lv_ctl_break, "site=sor.c:228", &out), 200);
    free(out);
    ck_assert_str_eq(c->bp[0].site, "sor.c:228");
    ck_assert_int_eq(run(lv_ctl_break, "site=relax_row", &out), 200);
    free(out);
    ck_assert_str_eq(c->bp[1].site, "relax_row");
    ck_assert_int_eq(run(lv_ctl_break, "site=sor.c:0", &out), 400);
    ck_assert_ptr_nonnull(strstr(out, "site is FILE:LINE"));
    free(out);
    ck_assert_int_eq(run(lv_ctl_break, "site=../sor.c:3", &out), 400);
    free(out);
    ck_assert_int_eq(run(lv_ctl_unbreak, "id=all", &out), 200);
    free(out);

    /* Resume all is the run's state (tasks that start later read it);
     * pause all ends it. */
    ck_assert_int_eq(run(lv_ctl_resume, "", &out), 200);
    free(out);
    ck_assert_int_eq(c->all_go, 1);
    ck_assert(!p1->pause && !p2->pause && !p3->pause);
    ck_assert_int_eq(run(lv_ctl_pause, "ltid=2", &out), 200);
    free(out);
    ck_assert_int_eq(c->all_go, 1);
    ck_assert_int_eq(run(lv_ctl_pause, "", &out), 200);
    free(out);
    ck_assert_int_eq(c->all_go, 0);

    lv_ctl_stop(); /* lets every task go */
    ck_assert(!p2->pause && !p2->gate);
    munmap(p1, sizeof *p1), munmap(p2, sizeof *p2), munmap(p3, sizeof *p3);
    munmap(c, sizeof *c);
    {
        char path[200];

        snprintf(path, sizeof path, "%s/ltid-1.pos", dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/ltid-2.pos", dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/ltid-3001002.pos", dir);
        unlink(path);
    }
    ck_assert_int_eq(rmdir(dir), 0); /* the control file went too */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("live_ctl");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, form_fields_are_decoded_and_the_last_wins);
    tcase_add_test(tc, controls_reach_the_tasks_pages_and_the_breakpoint_file);
    suite_add_tcase(s, tc);
    return ck_run(s) ? 1 : 0;
}
