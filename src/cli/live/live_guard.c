/*
 * live_guard.c - who may talk to the live view (live.c's server), and in
 * what words: a secret per run, the Host and Origin a request must name,
 * the content type of a control, the fields each route takes.
 *
 * Design.  The server can be reached by whatever can open a connection to
 * its address: other users of the host and, through the user's own
 * browser, any web site the user has open (a cross-site form POST needs no
 * preflight; DNS rebinding lets a site read what a name it owns points
 * at).  So, as Jupyter does:
 *  - a token of 192 random bits (getrandom) is made per run; the URL
 *    pangaea prints carries it (`?token=`), the page sends it with every
 *    request (header X-Pangaea-Token), and every route but the filters'
 *    static files refuses a request without it (403).  It lives in
 *    pangaea's memory and on its stderr only: not in the environment the
 *    tasks inherit, not on a command line.  Compared in constant time.
 *  - Host must name the address served with its port: that IPv4 address
 *    (or localhost for a loopback one); for 0.0.0.0 any IPv4 address, or
 *    localhost, or the host's name as gethostname() says it.  A name a web
 *    site owns is refused, whatever it resolves to.
 *  - Origin, when the browser sends one, must be `http://` and that Host.
 *  - a control is a POST of application/x-www-form-urlencoded (the page's
 *    own, and curl -d's): a JSON, multipart or text/plain body is never
 *    read as a form (415).
 *  - each route names the fields it takes: an unknown one, one given
 *    twice, or more than a form holds is a 400 naming it.
 * Every check is a function of the request's strings (live.c looks them
 * up), so the unit test tests/unit/test_live_guard.c runs them as they are.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

#include "live.h"

static char token[49], served[64];
static unsigned served_port;

int lv_guard_start(const char *addr, unsigned port, pg_err *err)
{
    unsigned char raw[24];
    size_t i;

    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        return pg_err_set(err, "-live: no random bytes for the page's "
                          "token (getrandom failed)");
    for (i = 0; i < sizeof raw; i++)
        snprintf(token + 2 * i, 3, "%02x", raw[i]);
    snprintf(served, sizeof served, "%s", addr);
    served_port = port;
    return 0;
}

const char *lv_guard_token(void)
{
    return token;
}

int lv_guard_token_ok(const char *given)
{
    size_t i, n = strlen(token);
    unsigned char diff = 0;

    if (!token[0] || !given || strlen(given) != n)
        return 0;
    for (i = 0; i < n; i++) /* every byte, whatever differs first */
        diff |= (unsigned char)(given[i] ^ token[i]);
    return diff == 0;
}

static int is_ipv4(const char *name)
{
    struct in_addr a;

    return inet_pton(AF_INET, name, &a) == 1;
}

/* The host names a request may use for the address served. */
static int served_name(const char *name)
{
    char me[256];

    if (!strcmp(served, "0.0.0.0")) {
        if (is_ipv4(name) || !strcasecmp(name, "localhost"))
            return 1;
        return gethostname(me, sizeof me) == 0 && me[0] &&
               !strcasecmp(name, me);
    }
    return !strcmp(name, served) ||
           (!strncmp(served, "127.", 4) && !strcasecmp(name, "localhost"));
}

/* Host is NAME[:PORT] naming the address and port served. */
static int host_ok(const char *host)
{
    char name[256], *end;
    const char *colon;
    long port = 80;

    if (!host || !*host || strlen(host) >= sizeof name || host[0] == '[')
        return 0;
    snprintf(name, sizeof name, "%s", host);
    if ((colon = strrchr(host, ':'))) {
        name[colon - host] = 0;
        port = strtol(colon + 1, &end, 10);
        if (!colon[1] || *end)
            return 0;
    }
    return port == (long)served_port && served_name(name);
}

int lv_guard_origin(const char *host, const char *origin, const char **why)
{
    if (!host_ok(host)) {
        *why = "this server answers only requests for the address it "
               "serves (the Host of the URL pangaea printed)";
        return 403;
    }
    if (origin && (strncasecmp(origin, "http://", 7) ||
                   strcasecmp(origin + 7, host))) {
        *why = "a request from another web site (its Origin is not this "
               "server's) is refused";
        return 403;
    }
    return 0;
}

int lv_guard_form_type(const char *type)
{
    static const char form[] = "application/x-www-form-urlencoded";
    size_t n = sizeof form - 1;

    if (!type)
        return 0;
    while (*type == ' ')
        type++;
    if (strncasecmp(type, form, n))
        return 0;
    type += n;
    while (*type == ' ')
        type++;
    return !*type || *type == ';';
}

/* 1 if key is one of the words of takes (space-separated). */
static int takes_key(const char *takes, const char *key)
{
    size_t n = strlen(key);
    const char *p = takes;

    while ((p = strstr(p, key))) {
        if ((p == takes || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
            return 1;
        p += n;
    }
    return 0;
}

int lv_guard_fields(const struct lv_form *f, const char *takes, FILE *out)
{
    int i, j;

    if (f->dropped)
        return lv_bad(out, "more than %d fields: no route takes so many",
                      LV_FORM_MAX);
    for (i = 0; i < f->n; i++) {
        if (!takes_key(takes, f->key[i]))
            return takes[0]
                ? lv_bad(out, "unknown field %s (this route takes: %s)",
                         f->key[i], takes)
                : lv_bad(out, "unknown field %s (this route takes none)",
                         f->key[i]);
        for (j = 0; j < i; j++)
            if (!strcmp(f->key[j], f->key[i]))
                return lv_bad(out, "field %s is given twice", f->key[i]);
    }
    return 0;
}
