/*
 * live.c - `pangaea -log|-replay -live [[ADDR:]PORT] [-live-wait]`: serves
 * the run's event graph over HTTP while the run goes on.
 *
 * Design.  libmicrohttpd (Debian's libmicrohttpd) does HTTP, in a thread
 * of its own (MHD_USE_INTERNAL_POLLING_THREAD), so the monitor's loop and
 * the program are never held up by a browser; it binds 127.0.0.1 unless
 * the user names an address.  Requests are dispatched through one table of
 * routes (method, path, handler): a path exists for one method, and any
 * other method gets 405 with an Allow header naming it; an unknown path
 * 404.  The page (live.html) is embedded at build time like -display's,
 * so the command needs no file at run time and the page no network but
 * this server.  The routes (README.md, "Interactive debugging", has their
 * fields and answers):
 *   GET  /                    the page
 *   GET  /events.json         the snapshot's events from ?since=N on
 *                             (?max=N: at most N of them)
 *                             (&format=cols: in columns, live_json.c)
 *   GET  /control.json        tasks held and their calls, breakpoints,
 *                             what-if runs (live_ctl.c, live_alt.c)
 *   GET  /alternatives.json   the messages a receive could take
 *   POST /control/step        paused tasks (or ltid) make one call
 *   POST /control/pause       tasks (or ltid) stop before their next call
 *   POST /control/resume      tasks (or ltid) go on
 *   POST /control/runto       ltid runs until it has done event
 *   POST /control/break       a breakpoint: call ltid peer tag size hits
 *   POST /control/unbreak     id (or all)
 *   POST /control/gdb         gdb attached to held ltid, in a tmux window
 *   POST /control/choose      ltid's receive takes sender's msgid (a
 *                             what-if when replaying)
 * Before a route is served, the request must show what live_guard.c
 * asks (the run's token, this server's Host and Origin, a control's
 * content type: admit), on the first call, headers only, so nothing of a
 * refused request is read further.  A route's fields come from the query
 * string and a form-encoded body (`curl -d`), gathered over
 * libmicrohttpd's calls (64 KiB at most), and are checked against those
 * it takes; handlers write JSON to a memory stream (serve_route).  Idle
 * connections are closed and connections counted per client (serve): a
 * client that opens many and sends nothing cannot hold the server.
 *
 * The monitor tells the live view what it learns anyway (a task started,
 * ended, reported a crash, a divergence, a wait): the hooks below only
 * note it in the snapshot.  A directory for the tasks' position files and
 * control blocks is made (make_posdir) and named in PANGAEA_LIVE, which
 * every task inherits (replaying, it is how the view follows the tasks;
 * in both modes, how the controls reach them); it is removed when pangaea
 * ends, after every held task was let go (lv_ctl_stop).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter_assets.h"
#include "live.h"
#include "live_pos.h"
#include "pg_internal.h"
#include "top.h"

__asm__(".pushsection .rodata\n"
        ".global top_live_html\n"
        ".type top_live_html, @object\n"
        "top_live_html:\n"
        ".incbin \"src/cli/live/live.html\"\n"
        ".byte 0\n"
        ".size top_live_html, . - top_live_html\n"
        ".popsection\n");
extern const char top_live_html[];

#define MAX_EVENTS 20000 /* per /events.json answer; "more" says if cut */
#define MAX_COLS 100000  /* the same in columns (?format=cols): ~3 MB */
#define STR_(x) #x
#define STR(x) STR_(x) /* a limit above, in an error's text */

static struct MHD_Daemon *daemon_;
static int on, wait_after;
static char url[128], posdir[4200];

/* ---- options ------------------------------------------------------------ */

int top_live_arg(const char *arg, struct top_opts *o)
{
    const char *colon = strrchr(arg, ':');
    const char *port = colon ? colon + 1 : arg;
    struct in_addr a;
    char addr[64];
    char *end;
    long p;

    if (!*port)
        return 0;
    p = strtol(port, &end, 10);
    if (*end || p < 0 || p > 65535)
        return 0;
    if (colon) {
        snprintf(addr, sizeof addr, "%.*s", (int)(colon - arg), arg);
        if (!strcmp(addr, "localhost"))
            snprintf(addr, sizeof addr, "127.0.0.1");
        if (inet_pton(AF_INET, addr, &a) != 1)
            return 0;
        snprintf(o->live_addr, sizeof o->live_addr, "%s", addr);
    }
    o->live_port = (int)p;
    return 1;
}

/* ---- answers ------------------------------------------------------------ */

static enum MHD_Result answer(struct MHD_Connection *c, unsigned code,
                              const char *type, char *body, size_t len,
                              enum MHD_ResponseMemoryMode mem)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mem);
    enum MHD_Result rc;

    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    rc = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return rc;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned code,
                            const char *msg)
{
    return answer(c, code, "text/plain; charset=utf-8", (char *)msg,
                  strlen(msg), MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result serve_page(struct MHD_Connection *c)
{
    return answer(c, MHD_HTTP_OK, "text/html; charset=utf-8",
                  (char *)top_live_html, strlen(top_live_html),
                  MHD_RESPMEM_PERSISTENT);
}

/* The filters' script and style, shared with -display (filter_assets.c). */
static enum MHD_Result serve_filter_js(struct MHD_Connection *c)
{
    return answer(c, MHD_HTTP_OK, "text/javascript; charset=utf-8",
                  (char *)top_filter_js, strlen(top_filter_js),
                  MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result serve_filter_css(struct MHD_Connection *c)
{
    return answer(c, MHD_HTTP_OK, "text/css; charset=utf-8",
                  (char *)top_filter_css, strlen(top_filter_css),
                  MHD_RESPMEM_PERSISTENT);
}

/* What pages have read (the HTTP thread writes, the monitor's reads):
 * when one last polled /events.json (pg_seconds, in ms), and whether an
 * answer held the end of a run that is over. */
static long polled_ms;
static int final_served;

static enum MHD_Result serve_events(struct MHD_Connection *c)
{
    const char *s = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
                                                "since");
    const char *fmt = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
                                                  "format");
    const char *m = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
                                                "max");
    long since = 0, max, limit;
    int cols;
    char *buf = NULL, *end;
    size_t len = 0;
    FILE *fp;

    if (s) {
        since = strtol(s, &end, 10);
        if (*end || end == s || since < 0)
            return text(c, MHD_HTTP_BAD_REQUEST,
                        "since must be a count of events, 0 or more\n");
    }
    if (fmt && strcmp(fmt, "cols") && strcmp(fmt, "events"))
        return text(c, MHD_HTTP_BAD_REQUEST,
                    "format must be events or cols\n");
    cols = fmt && !strcmp(fmt, "cols");
    max = limit = cols ? MAX_COLS : MAX_EVENTS;
    if (m) { /* fewer: a page following a run reads it in smaller bites */
        max = strtol(m, &end, 10);
        if (*end || end == m || max < 1 || max > limit)
            return text(c, MHD_HTTP_BAD_REQUEST,
                        cols ? "max must be 1 to " STR(MAX_COLS) " events\n"
                             : "max must be 1 to " STR(MAX_EVENTS) " events\n");
    }
    if (!(fp = open_memstream(&buf, &len)))
        return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    lv_snap_lock();
    lv_snap_watched(); /* first: the answer says when the next scan is */
    (cols ? lv_json_write_cols : lv_json_write)(fp, since, max);
    if (!lv.running && since + max >= lv.nev)
        __atomic_store_n(&final_served, 1, __ATOMIC_RELEASE);
    lv_snap_unlock();
    __atomic_store_n(&polled_ms, (long)(pg_seconds() * 1000), __ATOMIC_RELEASE);
    if (fclose(fp) != 0) {
        free(buf);
        return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    }
    return answer(c, MHD_HTTP_OK, "application/json", buf, len,
                  MHD_RESPMEM_MUST_FREE);
}

/* ---- the routes: fields checked, then served ---------------------------- */

static enum MHD_Result query_arg(void *cls, enum MHD_ValueKind kind,
                                 const char *key, const char *value)
{
    (void)kind;
    if (strcmp(key, "token")) /* the run's token: checked before */
        lv_form_add(cls, key, value); /* MHD has decoded both */
    return MHD_YES;
}

typedef int (*json_handler)(const struct lv_form *f, FILE *out);

/* Every route: a method and a path, served by a function of the
 * connection or by a handler of the request's fields; the fields it takes
 * (any other is a 400); open: served without the token (the filters'
 * static files, shared with -display's page, hold nothing of the run).
 * README.md lists them (the table under "Interactive debugging"). */
static const struct route {
    const char *method, *path;
    enum MHD_Result (*serve)(struct MHD_Connection *c);
    json_handler json;
    const char *takes;
    int open;
} routes[] = {
    { "GET", "/", serve_page, NULL, "", 0 },
    { "GET", "/events.json", serve_events, NULL, "since format max", 0 },
    { "GET", "/filter.js", serve_filter_js, NULL, "", 1 },
    { "GET", "/filter.css", serve_filter_css, NULL, "", 1 },
    { "GET", "/control.json", NULL, lv_alt_control_json, "", 0 },
    { "GET", "/alternatives.json", NULL, lv_alt_get, "ltid event", 0 },
    { "POST", "/control/step", NULL, lv_ctl_step, "ltid from", 0 },
    { "POST", "/control/pause", NULL, lv_ctl_pause, "ltid", 0 },
    { "POST", "/control/resume", NULL, lv_ctl_resume, "ltid", 0 },
    { "POST", "/control/runto", NULL, lv_ctl_runto, "ltid event", 0 },
    { "POST", "/control/break", NULL, lv_ctl_break,
      "call ltid peer tag size hits site", 0 },
    { "POST", "/control/unbreak", NULL, lv_ctl_unbreak, "id", 0 },
    { "POST", "/control/choose", NULL, lv_alt_choose,
      "ltid event sender msgid", 0 },
    { "POST", "/control/gdb", NULL, lv_gdb_open, "ltid", 0 },
};
#define NROUTES (sizeof routes / sizeof routes[0])

/* A refusal: {"ok":false,"error":why} with code. */
static enum MHD_Result refuse(struct MHD_Connection *c, unsigned code,
                              const char *why)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);

    if (!fp)
        return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    lv_bad(fp, "%s", why);
    if (fclose(fp) != 0) {
        free(buf);
        return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    }
    return answer(c, code, "application/json", buf, len,
                  MHD_RESPMEM_MUST_FREE);
}

/* The route's fields (the query string's, then a form body's) checked
 * against those it takes; then the route: a handler's JSON, or its page. */
static enum MHD_Result serve_route(struct MHD_Connection *c,
                                   const struct route *r, char *body)
{
    struct lv_form f = { 0 };
    char *buf = NULL;
    size_t len = 0;
    FILE *fp;
    int code;

    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, query_arg, &f);
    if (body)
        lv_form_body(&f, body);
    if (!(fp = open_memstream(&buf, &len))) {
        lv_form_free(&f);
        return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    }
    code = lv_guard_fields(&f, r->takes, fp);
    if (!code && r->json)
        code = r->json(&f, fp);
    lv_form_free(&f);
    if (fclose(fp) != 0) {
        free(buf);
        return text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
    }
    if (!code) {
        free(buf);
        return r->serve(c);
    }
    return answer(c, (unsigned)code, "application/json", buf, len,
                  MHD_RESPMEM_MUST_FREE);
}

/* A POST body, gathered over MHD's calls (at most 64 KiB). */
struct body {
    char *buf;
    size_t len;
};

static void request_done(void *cls, struct MHD_Connection *c, void **state,
                         enum MHD_RequestTerminationCode why)
{
    struct body *b = *state;

    (void)cls, (void)c, (void)why;
    if (b) {
        free(b->buf);
        free(b);
        *state = NULL;
    }
}

/* The path exists for another method: 405 naming the one it has. */
static enum MHD_Result not_allowed(struct MHD_Connection *c, size_t i)
{
    const char *msg = "this path takes another method\n";
    struct MHD_Response *r = MHD_create_response_from_buffer(
        strlen(msg), (void *)msg, MHD_RESPMEM_PERSISTENT);
    enum MHD_Result rc;

    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, routes[i].method);
    rc = MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, r);
    MHD_destroy_response(r);
    return rc;
}

/* Gathers a POST's body (the first call made *state); 1 once it is
 * complete (in b->buf). */
static int gather(void **state, const char *upload, size_t *upload_size,
                  struct body **out)
{
    struct body *b = *state;
    char *nb;

    if (*upload_size) {
        if (b->len + *upload_size > 65536 ||
            !(nb = realloc(b->buf, b->len + *upload_size + 1)))
            return -1;
        memcpy(nb + b->len, upload, *upload_size);
        b->buf = nb;
        b->len += *upload_size;
        b->buf[b->len] = 0;
        *upload_size = 0;
        return 0;
    }
    *out = b;
    return 1;
}

static const char *value(struct MHD_Connection *c, enum MHD_ValueKind kind,
                         const char *key)
{
    return MHD_lookup_connection_value(c, kind, key);
}

/* The request's route (NROUTES: none; *other: one of its path with
 * another method). */
static size_t find_route(const char *path, const char *method, size_t *other)
{
    size_t i;

    *other = NROUTES;
    for (i = 0; i < NROUTES; i++) {
        if (strcmp(routes[i].path, path))
            continue;
        if (!strcmp(routes[i].method, method))
            return i;
        *other = i;
    }
    return NROUTES;
}

/* What a request must show before anything is read or done (live_guard.c):
 * the Host and Origin of this server, the token, a control's content
 * type.  MHD_YES with nothing queued when it may go on. */
static enum MHD_Result admit(struct MHD_Connection *c, const struct route *r,
                             int *refused)
{
    const char *why, *tok = value(c, MHD_HEADER_KIND, "X-Pangaea-Token");
    int code;

    *refused = 1;
    code = lv_guard_origin(value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST),
                           value(c, MHD_HEADER_KIND, "Origin"), &why);
    if (code)
        return refuse(c, (unsigned)code, why);
    if (!r->open && !lv_guard_token_ok(tok ? tok
                                           : value(c, MHD_GET_ARGUMENT_KIND,
                                                   "token")))
        return refuse(c, MHD_HTTP_FORBIDDEN, "this request lacks the live "
                      "view's token: open the URL pangaea printed (it "
                      "carries ?token=), or send the token in the header "
                      "X-Pangaea-Token");
    if (!strcmp(r->method, "POST") &&
        !lv_guard_form_type(value(c, MHD_HEADER_KIND,
                                  MHD_HTTP_HEADER_CONTENT_TYPE)))
        return refuse(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, "a control is a "
                      "POST of application/x-www-form-urlencoded fields "
                      "(the page's, or curl -d's)");
    *refused = 0;
    return MHD_YES;
}

static enum MHD_Result dispatch(void *cls, struct MHD_Connection *c,
                                const char *path, const char *method,
                                const char *version, const char *upload,
                                size_t *upload_size, void **state)
{
    struct body *b = NULL;
    size_t i, other;
    const char *why;
    enum MHD_Result res;
    int rc, refused;

    (void)cls, (void)version;
    i = find_route(path, method, &other);
    if (!*state) { /* the first call: headers only */
        if (i == NROUTES) { /* a foreign Host learns nothing, not even 404 */
            if ((rc = lv_guard_origin(value(c, MHD_HEADER_KIND,
                                            MHD_HTTP_HEADER_HOST),
                                      value(c, MHD_HEADER_KIND, "Origin"),
                                      &why)))
                return refuse(c, (unsigned)rc, why);
            if (other < NROUTES)
                return not_allowed(c, other);
            return text(c, MHD_HTTP_NOT_FOUND, "no such page: README.md "
                        "lists the live view's routes\n");
        }
        if ((res = admit(c, &routes[i], &refused)) != MHD_YES || refused)
            return res;
        if (strcmp(method, "POST"))
            return serve_route(c, &routes[i], NULL);
        if (!(*state = calloc(1, sizeof(struct body))))
            return MHD_NO;
        return MHD_YES;
    }
    if ((rc = gather(state, upload, upload_size, &b)) < 0)
        return text(c, MHD_HTTP_CONTENT_TOO_LARGE,
                    "a control's body is a short form\n");
    return rc ? serve_route(c, &routes[i], b->buf ? b->buf : "") : MHD_YES;
}

/* ---- start and end ------------------------------------------------------ */

static void remove_posdir(void)
{
    char path[4400];
    int i;

    if (!posdir[0])
        return;
    lv_snap_lock(); /* the ltids are the tasks the snapshot knows */
    for (i = 0; i < lv.ntasks; i++) {
        snprintf(path, sizeof path, "%s/ltid-%d.pos", posdir,
                 lv.tasks[i]->ltid);
        unlink(path);
    }
    lv_snap_unlock();
    rmdir(posdir);
    posdir[0] = 0;
}

/* In the log directory when it can be written to: every host of the run
 * sees it there (the logs must be shared anyway); else under TMPDIR, seen
 * only on this host.  A name of its own: a leftover is never a log. */
static int make_posdir(const char *logdir, pg_err *err)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(posdir, sizeof posdir, "%s/.pangaea-live.XXXXXX", logdir);
    if (!mkdtemp(posdir)) {
        snprintf(posdir, sizeof posdir, "%s/pangaea-live.XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(posdir)) {
            int e = errno;

            posdir[0] = 0;
            return pg_err_set(err, "cannot make a directory for the live "
                              "view in %s or %s: %s", logdir,
                              tmp && *tmp ? tmp : "/tmp", strerror(e));
        }
    }
    setenv(PG_ENV_LIVE, posdir, 1);
    atexit(remove_posdir);
    return 0;
}

/* The threads of the live view take no signal: Ctrl-C and the others go
 * to the monitor's thread, which ends the run (monitor.c). */
static void block_signals(sigset_t *old)
{
    sigset_t all;

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, old);
}

/* The server's limits (README.md, "Live view"): a connection idle this
 * many seconds is closed (one sending its headers a byte at a time too);
 * so many connections from one client address at once, and in all. */
#define CONN_TIMEOUT 10
#define CONN_PER_CLIENT 16
#define CONN_MAX 64

/* libmicrohttpd's messages (a client refused at the limit, say), named
 * as pangaea's; a client that floods the server does not flood the
 * user's terminal too: the first few only.  (MHD's thread only.) */
static void server_said(void *cls, const char *fmt, va_list ap)
{
    static int said;

    (void)cls;
    if (!on) /* while it starts: a port in use is said once, by us */
        return;
    if (said > 8)
        return;
    if (said++ == 8) {
        fputs("pangaea: -live: more messages of the HTTP server are not "
              "shown\n", stderr);
        return;
    }
    fputs("pangaea: -live: ", stderr);
    vfprintf(stderr, fmt, ap);
}

static struct MHD_Daemon *serve(const struct sockaddr_in *sa, uint16_t port)
{
    struct MHD_Daemon *d;
    sigset_t old;

    block_signals(&old);
    d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
                         port, NULL, NULL, dispatch, NULL,
                         MHD_OPTION_EXTERNAL_LOGGER, server_said, NULL,
                         MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
                         MHD_OPTION_SOCK_ADDR, (struct sockaddr *)sa,
                         MHD_OPTION_CONNECTION_TIMEOUT,
                         (unsigned int)CONN_TIMEOUT,
                         MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                         (unsigned int)CONN_PER_CLIENT,
                         MHD_OPTION_CONNECTION_LIMIT, (unsigned int)CONN_MAX,
                         MHD_OPTION_END);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return d;
}

/* Says where the page is: its URL carries the token (live_guard.c), so
 * it goes to pangaea's stderr, the user's, and nowhere else.  An address
 * other than loopback is reachable from the network: said so. */
static void say_where(const char *addr, unsigned port)
{
    snprintf(url, sizeof url, "http://%s:%u/", addr, port);
    if (strncmp(addr, "127.", 4))
        fprintf(stderr, "pangaea: warning: -live %s:%u: the live page can "
                "be reached from the network (plain HTTP: anyone on the "
                "way can read it); it still requires the token in its "
                "URL\n", addr, port);
    fprintf(stderr, "pangaea: live view at %s?token=%s\n", url,
            lv_guard_token());
}

int top_live_start(const struct top_opts *o, pg_err *err)
{
    const char *addr = o->live_addr[0] ? o->live_addr : "127.0.0.1";
    struct sockaddr_in sa;
    const union MHD_DaemonInfo *info;
    unsigned port;

    unsetenv(PG_ENV_LIVE);
    unsetenv(PG_ENV_HOLD); /* a what-if this view started is not held */
    if (!o->live)
        return 0;
    lv.mode = o->mode; /* before the server can read it */
    lv.running = 1;
    lv_mpi = top_is_mpi_launcher(o->program);
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)o->live_port);
    inet_pton(AF_INET, addr, &sa.sin_addr);
    if (!(daemon_ = serve(&sa, (uint16_t)o->live_port)))
        return pg_err_set(err, "-live: cannot serve on %s:%d (in use, or "
                          "not an address of this host)", addr, o->live_port);
    info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
    port = info ? info->port : (unsigned)o->live_port;
    if (lv_guard_start(addr, port, err) < 0 || /* before any request */
        make_posdir(o->logdir, err) < 0 ||
        lv_ctl_start(o, posdir, err) < 0) { /* the control path */
        MHD_stop_daemon(daemon_);
        return -1;
    }
    lv_alt_start(o);
    say_where(addr, port);
    on = 1;
    wait_after = o->live_wait;
    return 0;
}

/* The position files of a stale directory sub (open as dfd) removed:
 * only regular files, named (untrusted.c); anything else stays, said. */
static void remove_stale_files(int dfd, const char *sub)
{
    struct dirent *f;
    DIR *in = fdopendir(dfd);
    pg_err err;

    if (!in) {
        close(dfd);
        return;
    }
    while ((f = readdir(in)))
        if (((!strncmp(f->d_name, "ltid-", 5) && strstr(f->d_name, ".pos")) ||
             !strcmp(f->d_name, PG_LIVE_CTL_FILE)) &&
            top_in_dir_unlink(dirfd(in), sub, f->d_name, &err) < 0)
            fprintf(stderr, "pangaea: %s\n", err.msg);
    closedir(in);
}

/* A position directory a pangaea killed outright left in the log
 * directory: removed once we hold the directory's lock (so nobody else
 * uses it), and only if it holds nothing but position files.  Each is
 * opened relative to the log directory, never through a link: a
 * recording from elsewhere may have one there pointing anywhere. */
static void remove_stale(const char *logdir)
{
    char sub[4400];
    struct dirent *d;
    DIR *dir;
    const char *ours = strrchr(posdir, '/');
    int fd;

    if (!(dir = opendir(logdir)))
        return;
    while ((d = readdir(dir))) {
        if (strncmp(d->d_name, ".pangaea-live.", 14) ||
            (ours && !strcmp(d->d_name, ours + 1)))
            continue;
        snprintf(sub, sizeof sub, "%s/%s", logdir, top_esc(d->d_name));
        fd = openat(dirfd(dir), d->d_name, O_RDONLY | O_DIRECTORY |
                    O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            fprintf(stderr, "pangaea: %s is not a directory (a symbolic "
                    "link?): left alone\n", sub);
            continue;
        }
        remove_stale_files(fd, sub);
        unlinkat(dirfd(dir), d->d_name, AT_REMOVEDIR);
    }
    closedir(dir);
}

int top_live_follow(const struct top_opts *o, pg_err *err)
{
    sigset_t old;
    int rc;

    if (!on)
        return 0;
    remove_stale(o->logdir);
    block_signals(&old);
    rc = lv_snap_start(o, posdir, err);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

static volatile sig_atomic_t released;

static void on_release(int sig)
{
    (void)sig;
    released = 1;
}

/* -live-wait: the complete page stays until Ctrl-C, a SIGTERM, or Enter
 * when pangaea reads a terminal (a SIGTERM during the run ends both:
 * top_live_finish). */
static void wait_for_user(void)
{
    struct sigaction sa;
    struct pollfd in = { .fd = 0, .events = POLLIN };
    int tty = isatty(0);
    char line[256];

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_release;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    fprintf(stderr, "pangaea: the run is over; the live view stays at %s "
            "until %s\n", url, tty ? "Enter or Ctrl-C" : "Ctrl-C or SIGTERM");
    while (!released) {
        if (poll(&in, tty ? 1 : 0, 500) > 0 && tty) {
            if (!fgets(line, sizeof line, stdin) || line[0])
                break;
        }
    }
}

/* Without -live-wait, a page open on the run (it polled in the last 2 s)
 * gets the run's final state before the server goes: pangaea waits until
 * an answer holding the end of the run was served, 10 s at most (a page
 * still reading a long run's events gets that long). */
static void let_pages_catch_up(void)
{
    double t0 = pg_seconds();

    if (t0 * 1000 - __atomic_load_n(&polled_ms, __ATOMIC_ACQUIRE) > 2000)
        return;
    while (!__atomic_load_n(&final_served, __ATOMIC_ACQUIRE) &&
           pg_seconds() - t0 < 10.0)
        usleep(20000);
}

void top_live_finish(int status)
{
    struct lv_task *t;

    if (!on)
        return;
    lv_snap_lock(); /* pangaea itself, ltid 0, is done too (not an MPI run's) */
    if (!lv_mpi && (t = lv_task(0))) {
        snprintf(t->state, sizeof t->state, "ended");
        t->status = status;
        t->has_status = 1;
    }
    lv_snap_unlock();
    lv_snap_stop(); /* one last scan: the page is complete */
    lv_alt_stop(); /* what-if runs the page started end first */
    /* A SIGTERM that cut the run short ends pangaea too (a service
     * manager, `kill`: nobody waits on the page); Ctrl-C still leaves it
     * served until a second one. */
    if (wait_after && !(top_run_broken && status == 128 + SIGTERM))
        wait_for_user();
    else
        let_pages_catch_up();
    MHD_stop_daemon(daemon_);
    daemon_ = NULL;
    lv_ctl_stop(); /* no task is held any more; the control file goes */
    remove_posdir();
    on = 0;
}

/* ---- what the monitor learns -------------------------------------------- */

void top_live_started(int ltid, const char *program, const char *host)
{
    struct lv_task *t;

    if (!on)
        return;
    lv_snap_lock();
    if ((t = lv_task(ltid))) {
        t->started = 1;
        snprintf(t->program, sizeof t->program, "%s", pg_basename(program));
        snprintf(t->host, sizeof t->host, "%s", host);
    }
    lv_snap_unlock();
}

static int final_state(const struct lv_task *t)
{
    return !strcmp(t->state, "crashed") || !strcmp(t->state, "diverged") ||
           !strcmp(t->state, "failed") || !strcmp(t->state, "stopped");
}

/* A stalled task killed when the replay was ended stays "stalled": that is
 * why it ended. */
static int kept_at_end(const struct lv_task *t)
{
    return final_state(t) || !strcmp(t->state, "stalled");
}

void top_live_ended(int ltid, int normal, int status, int stopped)
{
    struct lv_task *t;

    if (!on)
        return;
    lv_ctl_gone(ltid); /* not under the snapshot's lock (lv_ctl_json) */
    lv_snap_lock();
    if ((t = lv_task(ltid))) {
        if (!kept_at_end(t))
            snprintf(t->state, sizeof t->state, "%s",
                     normal ? "ended" : stopped ? "stopped" : "crashed");
        t->status = status;
        t->has_status = normal;
    }
    lv_snap_unlock();
}

/* ---- what an MPI run learns after its launcher ended --------------------- */

void top_live_rank_note(int ltid, int diverged, const char *text)
{
    top_live_report(ltid, diverged ? PG_REP_DIVERGED : PG_REP_FATAL, text);
}

/* Recording, a rank whose communication log is whole ended well. */
static int log_whole(const char *logdir, int ltid)
{
    char path[4400];
    long events;
    pg_err err;

    pg_log_path(path, sizeof path, logdir, ltid, PG_LOG_COMM);
    return pg_log_check_cut(path, PG_LOG_COMM, &events, &err) == 0;
}

void top_live_ranks_ended(const char *logdir, int launcher_status)
{
    int *ids, n, i, ok;

    if (!on)
        return;
    n = top_log_ltids(logdir, 0, &ids);
    for (i = 0; i < n; i++) {
        ok = lv.mode == PANGAEA_LOG ? log_whole(logdir, ids[i])
                                    : launcher_status == 0;
        top_live_ended(ids[i], ok, 0, !ok && lv.mode != PANGAEA_LOG);
    }
    if (n > 0)
        free(ids);
    lv_snap_stop(); /* the last scan, before the receives are renumbered */
}

const struct top_live_hooks top_live_hooks = {
    top_live_start, top_live_follow, top_live_rank_note, top_live_ranks_ended,
    top_live_finish,
};

void top_live_report(int ltid, int kind, const char *text)
{
    static const char *states[] = {
        [PG_REP_DIVERGED] = "diverged", [PG_REP_FATAL] = "failed",
        [PG_REP_STALL] = "stalled", [PG_REP_RESUMED] = "running",
        [PG_REP_CRASH] = "crashed", [PG_REP_BLOCKED] = "stalled",
        [PG_REP_BADLOG] = "failed",
    };
    struct lv_task *t;
    int expected;

    if (!on || kind < 1 || kind > PG_REP_BADLOG)
        return;
    /* A wait while the page holds a task is expected (the monitor does
     * not call it a stall either): said so, not "stalled". */
    expected = kind == PG_REP_STALL && lv_ctl_any_held();
    lv_snap_lock();
    if ((t = lv_task(ltid)) && !final_state(t)) {
        snprintf(t->state, sizeof t->state, "%s",
                 expected ? "waiting" : states[kind]);
        snprintf(t->note, sizeof t->note, "%s%s",
                 expected ? "while a task is held by the live page: " : "",
                 text);
    }
    lv_snap_unlock();
}
