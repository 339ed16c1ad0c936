/*
 * untrusted.c - what `pangaea` does with what a recording holds, when the
 * recording may be anyone's (a colleague's, one attached to a bug
 * report): strings shown escaped, host names checked, files inside a
 * log directory written and deleted without following anything out of it.
 *
 * Design.
 *  - Strings.  A log's strings (program names, module paths, file names
 *    from the recorded programs' debug information) may hold terminal
 *    control sequences.  top_esc() escapes one for a message;
 *    top_safe_output() puts a filter on stderr, and on stdout for the
 *    commands that only read logs (-races, -dump, -tasks, -display,
 *    -export), so that nothing pangaea prints, whichever code prints it,
 *    reaches the terminal as a control: every C0 control byte but newline
 *    and tab, DEL, and the C1 controls in UTF-8 (C2 80..9F) become \xNN.
 *    Pangaea's own messages hold none, and a run's output (-log,
 *    -replay: the tasks' output comes out on stdout, monitor.c) is never
 *    filtered: the program's colours are its business.
 *  - Host names.  pvm_addhosts reads a host name as a line of a PVM host
 *    file, whose options make the pvmd run commands: a host name from a
 *    log (or given to -move) must be a DNS name or an address.
 *  - Files.  A name inside a log directory is opened relative to the
 *    directory (openat) with O_NOFOLLOW, a temporary one with O_EXCL, and
 *    anything there that is not a regular file (a symbolic link, a FIFO, a
 *    directory) is refused with its name: a planted link must not turn a
 *    write into an overwrite of some other file of the user's, nor a FIFO
 *    hang the command.  The directory itself is the user's choice and is
 *    followed as given.  A file is written under NAME.tmp and renamed into
 *    place (renameat replaces a link, never writes through it).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg_err.h"
#include "pg_util.h"
#include "top.h"

/* ---- strings ---------------------------------------------------------- */

/* 1 if byte c (followed by next) starts a control to escape: C0 but
 * newline and tab, DEL, or C2 followed by 80..9F (a C1 control in UTF-8). */
static int is_control(unsigned char c, int next)
{
    return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f ||
           (c == 0xc2 && next >= 0x80 && next <= 0x9f);
}

/* s with its controls as \xNN, into out[size] (cut if need be). */
static void escape_into(const char *s, char *out, size_t size)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 0;

    for (; *p && n + 5 < size; p++) {
        if (is_control(p[0], p[1])) {
            if (p[0] == 0xc2)
                p++; /* the C1 control's own byte is what is shown */
            n += (size_t)snprintf(out + n, size - n, "\\x%02x", p[0]);
        } else
            out[n++] = (char)*p;
    }
    out[n] = 0;
}

const char *top_esc(const char *s)
{
    static char bufs[4][1024]; /* a message may name four strings */
    static int next;
    char *b = bufs[next++ % 4];

    escape_into(s ? s : "", b, sizeof bufs[0]);
    return b;
}

/* The filter under stdout or stderr: cookie is the descriptor; a C2 at
 * the end of one write is held until the next byte is known. */
struct safe_fd {
    int fd, held; /* held: a C2 byte not yet written */
};

static int put_all(int fd, const char *buf, size_t n)
{
    ssize_t w;

    while (n > 0) {
        w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Whether any byte of word w is below 0x20, DEL or C2: eight bytes that
 * may hold a control (or start one) at once; a word without one is plain.
 * (Bytes >= 0x80 mark themselves in ~w's test: only the ones that are
 * 0xc2 or wrap below 0x20 count, as bit hacks' haszero/hasless.) */
static int maybe_control(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, high = ones * 0x80;
    uint64_t del = w ^ (ones * 0x7f), c2 = w ^ (ones * 0xc2);

    return (((w - ones * 0x20) & ~w) | ((del - ones) & ~del) |
            ((c2 - ones) & ~c2)) & high ? 1 : 0;
}

/* How many of buf's first bytes pass as they are: neither a control nor
 * a C2 (which may start one).  A report is nearly all such bytes: they
 * are written without a copy (byte by byte, the filter was a quarter of
 * -races -json's time at 256 tasks), and looked at eight at a time
 * (a byte at a time it was a quarter again at 1,000 tasks). */
static size_t plain_span(const char *buf, size_t size)
{
    size_t i = 0, end;
    unsigned char c;
    uint64_t w;

    while (i < size) {
        if (i + 8 <= size) {
            memcpy(&w, buf + i, 8);
            if (!maybe_control(w)) {
                i += 8;
                continue;
            }
        }
        for (end = i + 8 < size ? i + 8 : size; i < end; i++) {
            c = (unsigned char)buf[i]; /* which byte: a newline is plain */
            if (c == 0xc2 || is_control(c, 0))
                return i;
        }
    }
    return i;
}

static ssize_t safe_write(void *cookie, const char *buf, size_t size)
{
    struct safe_fd *s = cookie;
    char out[4 * 1024 + 8];
    size_t i, n = 0, k;
    unsigned char c;

    for (i = 0; i < size; i++) {
        if (!s->held && (k = plain_span(buf + i, size - i)) > 0) {
            if (put_all(s->fd, out, n) < 0 || put_all(s->fd, buf + i, k) < 0)
                return -1;
            n = 0, i += k - 1;
            continue;
        }
        c = (unsigned char)buf[i];
        if (s->held) {
            s->held = 0;
            if (c >= 0x80 && c <= 0x9f)
                n += (size_t)snprintf(out + n, 5, "\\x%02x", c);
            else
                out[n++] = (char)0xc2, i--; /* a plain C2: this byte anew */
        } else if (c == 0xc2)
            s->held = 1;
        else if (is_control(c, 0))
            n += (size_t)snprintf(out + n, 5, "\\x%02x", c);
        else
            out[n++] = (char)c;
        if (n > sizeof out - 8) {
            if (put_all(s->fd, out, n) < 0)
                return -1;
            n = 0;
        }
    }
    return put_all(s->fd, out, n) < 0 ? -1 : (ssize_t)size;
}

static int safe_close(void *cookie)
{
    struct safe_fd *s = cookie;
    int rc = s->held ? put_all(s->fd, "\xc2", 1) : 0;

    rc |= close(s->fd);
    free(s);
    return rc < 0 ? -1 : 0;
}

/* A stream writing to a copy of descriptor fd through the filter. */
static FILE *safe_stream(int fd, int mode)
{
    cookie_io_functions_t io = { NULL, safe_write, NULL, safe_close };
    struct safe_fd *s = calloc(1, sizeof *s);
    FILE *f;

    if (!s || (s->fd = dup(fd)) < 0) {
        free(s);
        return NULL;
    }
    if (!(f = fopencookie(s, "w", io))) {
        close(s->fd);
        free(s);
        return NULL;
    }
    /* a report of a deep queue is gigabytes: fewer, larger writes */
    setvbuf(f, NULL, mode, mode == _IOFBF ? 1 << 16 : BUFSIZ);
    return f;
}

void top_safe_output(int out_too)
{
    FILE *out = out_too ? safe_stream(1, isatty(1) ? _IOLBF : _IOFBF) : NULL;
    FILE *err = safe_stream(2, _IONBF);

    fflush(stdout);
    if (out)
        stdout = out; /* glibc's stdout and stderr are assignable */
    if (err)
        stderr = err;
}

/* ---- host names ----------------------------------------------------- */

/* One label of a DNS name: letters, digits, '-' inside, '_' (some sites
 * name hosts so); 1 to 63 bytes. */
static int label_ok(const char *s, size_t n)
{
    size_t i;

    if (n < 1 || n > 63 || s[0] == '-' || s[n - 1] == '-')
        return 0;
    for (i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_')
            return 0;
    return 1;
}

/* `s` is a host name: an IPv4 or IPv6 address, or a DNS name (labels
 * joined by dots, at most 253 bytes).  Nothing else may reach
 * pvm_addhosts or PvmTaskHost: no spaces, no host-file options. */
int top_host_name_ok(const char *s)
{
    unsigned char a[16];
    const char *dot;
    size_t n = strlen(s);

    if (inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1)
        return 1;
    if (n < 1 || n > 253)
        return 0;
    for (; (dot = strchr(s, '.')); s = dot + 1)
        if (!label_ok(s, (size_t)(dot - s)))
            return 0;
    return label_ok(s, strlen(s));
}

/* ---- files in a log directory ----------------------------------------- */

/* The directory of path (".", if it has no '/') and its last name. */
static int split_path(const char *path, char *dir, size_t size,
                      const char **name, pg_err *err)
{
    const char *slash = strrchr(path, '/');

    *name = slash ? slash + 1 : path;
    if (!**name || strlen(*name) > NAME_MAX - 8)
        return pg_err_set(err, "%s: not a file name", path);
    if (!slash)
        snprintf(dir, size, ".");
    else if (snprintf(dir, size, "%.*s",
                      slash == path ? 1 : (int)(slash - path), path) >=
             (int)size)
        return pg_err_set(err, "%.100s...: the name is too long", path);
    return 0;
}

/* err for a name in a log directory that is not a regular file. */
static int not_regular(const char *dir, const char *name, mode_t mode,
                       pg_err *err)
{
    return pg_err_set(err, "%s/%s is %s, not a regular file: refused (not "
                      "followed, not touched)", dir, top_esc(name),
                      S_ISLNK(mode) ? "a symbolic link" :
                      S_ISFIFO(mode) ? "a FIFO" :
                      S_ISDIR(mode) ? "a directory" : "a special file");
}

int top_in_dir_check(int dfd, const char *dir, const char *name, pg_err *err)
{
    struct stat st;

    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : pg_err_set(err, "%s/%s: %s", dir,
                                                top_esc(name),
                                                strerror(errno));
    return S_ISREG(st.st_mode) ? 0 : not_regular(dir, name, st.st_mode, err);
}

int top_in_dir_unlink(int dfd, const char *dir, const char *name, pg_err *err)
{
    if (top_in_dir_check(dfd, dir, name, err) < 0)
        return -1;
    if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
        return pg_err_set(err, "cannot remove %s/%s: %s", dir, top_esc(name),
                          strerror(errno));
    return 0;
}

FILE *top_file_begin(struct top_file *f, const char *path, pg_err *err)
{
    int fd;

    memset(f, 0, sizeof *f);
    f->dfd = -1;
    if (split_path(path, f->dir, sizeof f->dir, &f->name, err) < 0)
        return NULL;
    snprintf(f->tmp, sizeof f->tmp, "%s.tmp", f->name);
    if ((f->dfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        pg_err_set(err, "cannot open the directory %s: %s", f->dir,
                   strerror(errno));
        return NULL;
    }
    /* The final name may be replaced only if it is a regular file; a
     * temporary left by a run that died is ours to replace. */
    if (top_in_dir_check(f->dfd, f->dir, f->name, err) < 0 ||
        top_in_dir_unlink(f->dfd, f->dir, f->tmp, err) < 0)
        goto fail;
    fd = openat(f->dfd, f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                O_CLOEXEC, 0600);
    if (fd < 0 || !(f->fp = fdopen(fd, "w"))) {
        pg_err_set(err, "cannot write %s/%s: %s", f->dir, f->tmp,
                   strerror(errno));
        if (fd >= 0)
            close(fd);
        unlinkat(f->dfd, f->tmp, 0);
        goto fail;
    }
    return f->fp;
fail:
    close(f->dfd);
    f->dfd = -1;
    return NULL;
}

int top_file_end(struct top_file *f, int ok, pg_err *err)
{
    int failed = !ok || ferror(f->fp);

    if ((fclose(f->fp) != 0) | failed) {
        if (ok)
            pg_err_set(err, "cannot write %s/%s: %s", f->dir, f->tmp,
                       strerror(errno ? errno : EIO));
        ok = 0;
    } else if (renameat(f->dfd, f->tmp, f->dfd, f->name) < 0) {
        pg_err_set(err, "cannot write %s/%s: %s", f->dir, f->name,
                   strerror(errno));
        ok = 0;
    }
    if (!ok)
        unlinkat(f->dfd, f->tmp, 0);
    close(f->dfd);
    return ok ? 0 : -1;
}
