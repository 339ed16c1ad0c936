/*
 * unpack.c - `pangaea -replay -pack FILE [-logdir DIR] [args...]`: replays
 * a pack (pack.c) where nothing of the recording machine is at hand.
 *
 * Design.  Everything is checked before any task starts, and a pack that
 * fails a check leaves nothing behind:
 *  - the MANIFEST comes first in the archive; its format, and the machine
 *    of every program (ELF) against this pangaea's own, are checked before
 *    another byte is unpacked (a pack of aarch64 programs on x86_64: exit 2);
 *  - the pack is unpacked into DIR.part and renamed to DIR only when every
 *    program's SHA-256 is the one it is stored under and the manifest names
 *    (an altered program: exit 2, naming its file in the pack); entries
 *    outside recordings/ and programs/, or with "..", are refused;
 *  - DIR.part holds the file .pangaea-unpacking from its making until
 *    just before the rename: a DIR.part that an interrupted unpacking
 *    left is removed only when it holds that mark (a real directory, not
 *    a link); any other DIR.part is the user's and is refused, untouched;
 *  - what a pack unpacks to is limited (PANGAEA_UNPACK_MAX bytes, default
 *    4 GiB): an entry whose size would pass the limit is refused before a
 *    byte of it is written, so a small pack cannot fill a disk;
 *  - DIR is -logdir, else the pack's name without ".pangaea" plus
 *    ".unpacked", in the current directory.  A DIR that holds this very
 *    pack (the same MANIFEST) is used as it is, its programs hashed again:
 *    so `pangaea -move` / `-move-host` on DIR/recordings/NAME place tasks
 *    elsewhere for the next replay from the pack.  A DIR holding anything
 *    else is refused.
 * The first recording of the manifest replays; its first task is the
 * packed program, and with no arguments on the command line it gets the
 * recorded ones.  PANGAEA_PROGDIR=DIR/programs makes every spawn of the
 * replay start the packed copy of what the recording ran (progmap.c).
 */
#define _GNU_SOURCE
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg_internal.h"
#include "top.h"

#define MANIFEST_MAX (1 << 20)
#define PART_MARK ".pangaea-unpacking"
#define UNPACK_MAX_ENV "PANGAEA_UNPACK_MAX"
#define UNPACK_MAX_DEFAULT (4LL << 30)

struct pack {
    const char *file;
    char *manifest;           /* the MANIFEST's text */
    char dir[PATH_MAX];       /* where it unpacks */
    char first[256];          /* the recording that replays */
    int reuse;                /* dir holds this pack already */
    long long left;           /* bytes it may still unpack to */
};

/* ---- the manifest ------------------------------------------------------ */

/* Checks the format and every program's machine against ours. */
static int check_manifest(struct pack *p, pg_err *err)
{
    char me[32], sha[65], machine[64], path[PATH_MAX], *line, *save = NULL;
    char *text = strdup(p->manifest);
    int cc = 0, version = 0;

    if (!text)
        return pg_err_set(err, "out of memory");
    top_elf_machine("/proc/self/exe", me, sizeof me);
    for (line = strtok_r(text, "\n", &save); line && cc == 0;
         line = strtok_r(NULL, "\n", &save)) {
        if (sscanf(line, "pangaea-pack %d", &version) == 1 && version != 1)
            cc = pg_err_set(err, "%s: a pack of format %d; this pangaea "
                            "reads format 1", p->file, version);
        else if (!p->first[0] && !strncmp(line, "recording ", 10))
            snprintf(p->first, sizeof p->first, "%s", line + 10);
        else if (sscanf(line, "program %64s %63s %4095[^\n]", sha, machine,
                        path) == 3 && strcmp(machine, me))
            cc = pg_err_set(err, "%s holds %s built for %s; this machine "
                            "runs %s programs: replay it on a %s host",
                            p->file, path, machine, me, machine);
    }
    free(text);
    if (cc == 0 && (version != 1 || !p->first[0] || strchr(p->first, '/') ||
                    p->first[0] == '.'))
        cc = pg_err_set(err, "%s: not a pangaea pack (MANIFEST without "
                        "format 1 or a recording)", p->file);
    return cc;
}

/* The SHA-256 the manifest gives the program stored as programs/SHA/NAME
 * is its name's: a second check that the manifest names it at all. */
static int manifest_names(const struct pack *p, const char *sha)
{
    char key[80];

    snprintf(key, sizeof key, "\nprogram %s ", sha);
    return strstr(p->manifest, key) != NULL;
}

/* ---- unpacking --------------------------------------------------------- */

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void rm_tree(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* An entry's name is safe: under recordings/ or programs/, no "..". */
static int safe_name(const char *name)
{
    return (!strncmp(name, "recordings/", 11) ||
            !strncmp(name, "programs/", 9)) &&
           !strstr(name, "..") && !strstr(name, "//");
}

static int mkdirs(char *path)
{
    char *s;

    for (s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        if (mkdir(path, 0700) < 0 && errno != EEXIST)
            return *s = '/', -1;
        *s = '/';
    }
    return 0;
}

static int write_entry(struct archive *a, const char *to, mode_t perm,
                       pg_err *err)
{
    char path[PATH_MAX], buf[65536];
    la_ssize_t n;
    int fd, cc = 0;

    snprintf(path, sizeof path, "%s", to);
    if (mkdirs(path) < 0 ||
        (fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, perm)) < 0)
        return pg_err_set(err, "cannot write %s: %s", to, strerror(errno));
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0)
        if (write(fd, buf, n) != n)
            cc = pg_err_set(err, "cannot write %s: %s", to, strerror(errno));
    if (n < 0 && cc == 0)
        cc = pg_err_set(err, "reading the pack: %s", archive_error_string(a));
    if (close(fd) < 0 && cc == 0)
        cc = pg_err_set(err, "cannot write %s: %s", to, strerror(errno));
    return cc;
}

/* A program in the pack is what its name and the manifest say it is. */
static int check_program(const struct pack *p, const char *name,
                         const char *path, pg_err *err)
{
    char sum[65], sha[65] = "";

    sscanf(name, "programs/%64[0-9a-f]/", sha);
    if (strlen(sha) != 64 || !manifest_names(p, sha))
        return pg_err_set(err, "%s: %s is not a program its MANIFEST names",
                          p->file, name);
    if (pg_file_sum(path, sum) < 0)
        return pg_err_set(err, "cannot read %s: %s", path, strerror(errno));
    if (strcmp(sum, sha))
        return pg_err_set(err, "%s: the program %s was altered: its SHA-256 "
                          "is %s, recorded as %s", p->file, name, sum, sha);
    return 0;
}

/* The most bytes a pack may unpack to: PANGAEA_UNPACK_MAX, else 4 GiB. */
static long long unpack_max(void)
{
    const char *v = getenv(UNPACK_MAX_ENV);
    char *end;
    long long n = v ? strtoll(v, &end, 10) : -1;

    return v && *v && !*end && n >= 0 ? n : UNPACK_MAX_DEFAULT;
}

/* Reads the MANIFEST (the first entry), checks it, then (unless the
 * directory is reused) unpacks the rest into `into`, checking programs. */
static int read_pack(struct pack *p, const char *into, pg_err *err)
{
    struct archive *a = archive_read_new();
    struct archive_entry *e;
    char to[PATH_MAX + 300];
    const char *name;
    la_ssize_t n;
    int cc = 0, rc;

    archive_read_support_filter_all(a);
    archive_read_support_format_tar(a);
    if (archive_read_open_filename(a, p->file, 65536) != ARCHIVE_OK) {
        cc = pg_err_set(err, "cannot read the pack %s: %s%s%s", p->file,
                        archive_error_string(a),
                        archive_errno(a) > 0 ? ": " : "",
                        archive_errno(a) > 0 ? strerror(archive_errno(a)) : "");
        archive_read_free(a);
        return cc;
    }
    if (archive_read_next_header(a, &e) != ARCHIVE_OK ||
        strcmp(archive_entry_pathname(e), "MANIFEST") ||
        archive_entry_size(e) >= MANIFEST_MAX ||
        !(p->manifest = calloc(1, archive_entry_size(e) + 2)) ||
        (n = archive_read_data(a, p->manifest + 1,
                               archive_entry_size(e))) !=
            archive_entry_size(e))
        cc = pg_err_set(err, "%s is not a pangaea pack (no MANIFEST first)",
                        p->file);
    if (cc == 0) {
        p->manifest[0] = '\n'; /* every line starts after a newline */
        cc = check_manifest(p, err);
    }
    while (cc == 0 && into &&
           (rc = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        name = archive_entry_pathname(e);
        if (archive_entry_filetype(e) == AE_IFDIR && safe_name(name))
            continue; /* tar's own directory entries: made as files come */
        if (!safe_name(name) || archive_entry_filetype(e) != AE_IFREG) {
            cc = pg_err_set(err, "%s: refused entry %s (only files under "
                            "recordings/ and programs/)", p->file, name);
            break;
        }
        if (archive_entry_size(e) > p->left) {
            cc = pg_err_set(err, "%s: refused entry %s: the pack unpacks to "
                            "more than %s allows (%lld bytes; set it to "
                            "more to unpack it)", p->file, name,
                            UNPACK_MAX_ENV, unpack_max());
            break;
        }
        p->left -= archive_entry_size(e);
        snprintf(to, sizeof to, "%s/%s", into, name);
        cc = write_entry(a, to, archive_entry_perm(e) & 0755, err);
        if (cc == 0 && !strncmp(name, "programs/", 9))
            cc = check_program(p, name, to, err);
    }
    if (cc == 0 && into && rc != ARCHIVE_EOF)
        cc = pg_err_set(err, "reading the pack %s: %s", p->file,
                        archive_error_string(a));
    archive_read_free(a);
    return cc;
}

static int same_manifest(const struct pack *p)
{
    char path[PATH_MAX + 16], *old = NULL;
    size_t len = 0;
    FILE *f;
    int same = 0;

    snprintf(path, sizeof path, "%s/MANIFEST", p->dir);
    if (!(f = fopen(path, "re")))
        return 0;
    if (getdelim(&old, &len, 0, f) >= 0)
        same = !strcmp(old, p->manifest + 1);
    free(old);
    fclose(f);
    return same;
}

static int save_manifest(const struct pack *p, const char *into, pg_err *err)
{
    char path[2 * PATH_MAX];
    FILE *f;

    snprintf(path, sizeof path, "%s/MANIFEST", into);
    if (!(f = fopen(path, "we")) || fputs(p->manifest + 1, f) < 0 ||
        fclose(f) < 0)
        return pg_err_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* A reused directory's programs are hashed again (someone may have
 * edited one since): each must be the one the manifest names. */
static int recheck_programs(const struct pack *p, pg_err *err)
{
    char sha[65], machine[64], opath[PATH_MAX], name[PATH_MAX + 100],
        path[2 * PATH_MAX + 200];
    const char *line;
    int cc = 0;

    for (line = strstr(p->manifest, "\nprogram "); line && cc == 0;
         line = strstr(line + 1, "\nprogram ")) {
        if (sscanf(line, "\nprogram %64s %63s %4095[^\n]", sha, machine,
                   opath) != 3)
            continue;
        snprintf(name, sizeof name, "programs/%s/%s", sha, pg_basename(opath));
        snprintf(path, sizeof path, "%s/%s", p->dir, name);
        cc = check_program(p, name, path, err);
    }
    return cc;
}

static void default_dir(struct pack *p)
{
    char base[NAME_MAX + 1]; /* a name, so "BASE.unpacked" fits p->dir */
    size_t n;

    snprintf(base, sizeof base, "%s", pg_basename(p->file));
    n = strlen(base);
    if (n > 8 && !strcmp(base + n - 8, ".pangaea"))
        base[n - 8] = 0;
    snprintf(p->dir, sizeof p->dir, "%s.unpacked", base);
}

/* Puts (on) or takes away the mark that says pangaea is unpacking into
 * part. */
static int mark_part(const char *part, int on, pg_err *err)
{
    char mark[PATH_MAX + 64];
    int fd;

    snprintf(mark, sizeof mark, "%s/%s", part, PART_MARK);
    if (!on)
        return unlink(mark) < 0 ? pg_err_set(err, "cannot remove %s: %s",
                                             mark, strerror(errno)) : 0;
    fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
              0644);
    if (fd < 0)
        return pg_err_set(err, "cannot make %s: %s", mark, strerror(errno));
    close(fd);
    return 0;
}

/* What an interrupted unpacking left goes; anything else at part is the
 * user's: refused, untouched. */
static int clear_part(const char *part, pg_err *err)
{
    char mark[PATH_MAX + 64];
    struct stat st;

    if (lstat(part, &st) < 0)
        return errno == ENOENT ? 0 : pg_err_set(err, "cannot use %s: %s",
                                                part, strerror(errno));
    snprintf(mark, sizeof mark, "%s/%s", part, PART_MARK);
    if (!S_ISDIR(st.st_mode) || lstat(mark, &st) < 0 || !S_ISREG(st.st_mode))
        return pg_err_set(err, "%s exists and is not what an unpacking by "
                          "pangaea left: move it away, or unpack elsewhere "
                          "with -logdir DIR", part);
    rm_tree(part);
    return 0;
}

static int unpack(struct pack *p, pg_err *err)
{
    char part[PATH_MAX + 16];
    struct stat st;

    if (read_pack(p, NULL, err) < 0) /* the manifest alone, first */
        return -1;
    if (stat(p->dir, &st) == 0) {
        if (!same_manifest(p))
            return pg_err_set(err, "%s exists and holds something else than "
                              "the pack %s: remove it, or unpack elsewhere "
                              "with -logdir DIR", p->dir, p->file);
        p->reuse = 1;
        return recheck_programs(p, err);
    }
    snprintf(part, sizeof part, "%s.part", p->dir);
    if (clear_part(part, err) < 0)
        return -1;
    free(p->manifest);
    p->manifest = NULL;
    p->left = unpack_max();
    if (mkdir(part, 0700) < 0)
        return pg_err_set(err, "cannot make %s: %s", part, strerror(errno));
    if (mark_part(part, 1, err) < 0 || read_pack(p, part, err) < 0 ||
        save_manifest(p, part, err) < 0 || mark_part(part, 0, err) < 0 ||
        (rename(part, p->dir) < 0 &&
         pg_err_set(err, "cannot make %s: %s", p->dir, strerror(errno)))) {
        rm_tree(part);
        return -1;
    }
    return 0;
}

/* ---- the replay -------------------------------------------------------- */

/* The first task's packed program, and the recorded arguments. */
static int first_task(struct top_opts *o, const char *progdir, pg_err *err)
{
    char path[PATH_MAX + 64];
    pg_log_header h;
    pg_event ev;
    pg_logr *r;
    int cc = 0;

    pg_log_path(path, sizeof path, o->logdir, 1, PG_LOG_EXEC);
    if (!(r = pg_logr_open(path, PG_LOG_EXEC, &h, err)))
        return -1;
    pg_logr_close(r);
    if (snprintf(o->program, sizeof o->program, "%s/%s/%s", progdir,
                 h.sha256, pg_basename(h.exe)) >= (int)sizeof o->program)
        return pg_err_set(err, "%s: the path is too long", progdir);
    if (access(o->program, X_OK) < 0)
        return pg_err_set(err, "the pack holds no program for ltid 1 (%s)",
                          o->program);
    if (o->args && o->args[0])
        return 0; /* arguments given: checked against the recorded ones */
    pg_log_path(path, sizeof path, o->logdir, 0, PG_LOG_EXEC);
    if (!(r = pg_logr_open(path, PG_LOG_EXEC, &h, err)))
        return -1;
    if (pg_logr_next(r, &ev, err) != 1 || ev.kind != PG_EV_SPAWN)
        cc = pg_err_set(err, "%s records no spawn of a program", path);
    else {
        char **args = calloc(ev.argc + 1, sizeof *args);
        int i;

        for (i = 0; args && i < ev.argc; i++)
            if (!(args[i] = strdup(ev.argv[i])))
                args = NULL; /* out of memory: reported below */
        if (!args)
            cc = pg_err_set(err, "out of memory");
        o->args = args;
    }
    pg_logr_close(r);
    return cc;
}

int top_unpack(struct top_opts *o, pg_err *err)
{
    struct pack p = { .file = o->pack };
    char path[2 * PATH_MAX], progdir[2 * PATH_MAX];

    if (o->pack_dir)
        snprintf(p.dir, sizeof p.dir, "%s", o->pack_dir);
    else
        default_dir(&p);
    if (unpack(&p, err) < 0) {
        free(p.manifest);
        return -1;
    }
    snprintf(path, sizeof path, "%s/recordings/%s", p.dir, p.first);
    snprintf(progdir, sizeof progdir, "%s/programs", p.dir);
    if (!realpath(path, o->logdir) || !realpath(progdir, path)) {
        free(p.manifest);
        return pg_err_set(err, "%s: the unpacked recording is missing",
                          p.dir);
    }
    snprintf(progdir, sizeof progdir, "%.*s", PATH_MAX - 1, path);
    free(p.manifest);
    setenv(PG_ENV_PROGDIR, progdir, 1);
    if (top_mpi_recording(o->logdir) /* its launcher's line: mpi_launch.c */
            ? top_mpi_unpacked(o, progdir, err) < 0
            : first_task(o, progdir, err) < 0)
        return -1;
    fprintf(stderr, "pangaea: replaying the recording %s of %s, %s %s\n",
            p.first, o->pack, p.reuse ? "already unpacked in" : "unpacked into",
            p.dir);
    return 0;
}
