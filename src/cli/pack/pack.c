/*
 * pack.c - `pangaea -pack [-logdir DIR]... -o FILE [-force]`: a recording in one
 * file, to be replayed elsewhere (`pangaea -replay -pack FILE`, unpack.c).
 *
 * Design.  A pack is a POSIX tar archive compressed with zstd, written and
 * read with libarchive (`tar --zstd -tf FILE` lists it), never a container
 * of our own.  It holds, in this order:
 *   MANIFEST                      text, one fact a line (below); first, so a
 *                                 reader checks it before unpacking more
 *   recordings/NAME/...           every file of each log directory (its
 *                                 logs, the recorded stdin and working
 *                                 directory facts, whatever the run left
 *                                 there) but the lock and previous/
 *   programs/SHA256/BASENAME      each program the execution logs name, once
 *                                 however many tasks and recordings ran it
 * Programs are stored by content (their SHA-256, which each task recorded
 * in its execution log header), so a recording and its what-if branches
 * (several -logdir) share them.  A program is hashed again as it is packed:
 * one rebuilt since the recording is refused (exit 2), since the pack would
 * replay something else.  The MANIFEST lines:
 *   pangaea-pack 1                 the format
 *   pangaea-version V, pvm-version V   of the packing pangaea
 *   packed-on HOST MACHINE         where it was packed
 *   command ...                    the recorded command line (for people)
 *   recording NAME                 one per log directory, the first replays
 *   host NAME MACHINE              each host tasks ran on, and the machine
 *                                  (ELF) of the programs that ran there
 *   program SHA256 MACHINE PATH    each program, and where it was recorded
 * Names and paths cannot hold a newline (refused).
 */
#define _GNU_SOURCE
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pg_grow.h"
#include "pg_internal.h"
#include "top.h"

#define MAX_DIRS 16

struct prog { char sha[65], path[PATH_MAX], machine[32]; };
struct host { char name[256], machine[32]; };

static struct prog *progs;
static struct host *hosts;
static int nprogs, nhosts;
static size_t cap_progs, cap_hosts;

int top_version(int argc, char **argv)
{
    (void)argc, (void)argv;
    printf("pangaea %s\nbuilt with PVM %s\n", PG_VERSION, pvm_version());
    return 0;
}

/* The machine an ELF file is built for, e.g. "x86_64"; "unknown" when the
 * file is no ELF.  unpack.c compares a pack's programs with itself. */
void top_elf_machine(const char *path, char *out, size_t size)
{
    static const struct { int em; const char *name; } names[] = {
        { EM_X86_64, "x86_64" }, { EM_386, "i386" }, { EM_AARCH64, "aarch64" },
        { EM_ARM, "arm" }, { EM_PPC64, "ppc64" }, { EM_PPC, "ppc" },
        { EM_RISCV, "riscv" }, { EM_S390, "s390" }, { EM_MIPS, "mips" },
    };
    unsigned char h[EI_NIDENT + 4] = { 0 };
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(h, 1, sizeof h, f) : 0, i;
    int em;

    if (f)
        fclose(f);
    if (n < sizeof h || memcmp(h, ELFMAG, SELFMAG)) {
        snprintf(out, size, "unknown");
        return;
    }
    em = h[EI_DATA] == ELFDATA2MSB ? h[18] << 8 | h[19] : h[19] << 8 | h[18];
    snprintf(out, size, "elf-machine-%d", em);
    for (i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].em == em)
            snprintf(out, size, "%s", names[i].name);
}

static void nomem(void)
{
    fprintf(stderr, "pangaea: out of memory\n");
    exit(TOP_EXIT_FAILED);
}

/* ---- what the recording ran -------------------------------------------- */

static int add_program(const char *log, const pg_log_header *h, pg_err *err)
{
    char sum[65];
    int i;

    for (i = 0; i < nprogs; i++)
        if (!strcmp(progs[i].sha, h->sha256))
            return 0;
    if (strchr(h->exe, '\n'))
        return pg_err_set(err, "%s: its program's path holds a newline", log);
    if (pg_file_sum(h->exe, sum) < 0)
        return pg_err_set(err, "cannot read %s, the program %s ran: %s",
                          h->exe, log, strerror(errno));
    if (strcmp(sum, h->sha256))
        return pg_err_set(err, "%s has changed since it was recorded (%s "
                          "says SHA-256 %s, it is now %s): a pack must hold "
                          "the recorded program; record again", h->exe, log,
                          h->sha256, sum);
    if (pg_grow(&progs, &cap_progs, nprogs + 1, sizeof *progs) < 0)
        nomem();
    snprintf(progs[nprogs].sha, sizeof progs->sha, "%s", h->sha256);
    snprintf(progs[nprogs].path, sizeof progs->path, "%s", h->exe);
    top_elf_machine(h->exe, progs[nprogs].machine, sizeof progs->machine);
    nprogs++;
    return 0;
}

static void add_host(const char *name, const char *machine)
{
    int i;

    for (i = 0; i < nhosts; i++)
        if (!strcmp(hosts[i].name, name))
            return;
    if (pg_grow(&hosts, &cap_hosts, nhosts + 1, sizeof *hosts) < 0)
        nomem();
    snprintf(hosts[nhosts].name, sizeof hosts->name, "%s", name);
    snprintf(hosts[nhosts++].machine, sizeof hosts->machine, "%s", machine);
}

/* Every execution log of dir: its program (ltid 0 is pangaea: not packed). */
static int scan_exec_logs(const char *dir, pg_err *err)
{
    char path[PATH_MAX + 300];
    struct dirent *e;
    pg_log_header h;
    pg_logr *r;
    DIR *d = opendir(dir);
    int ltid, cc = 0, found = 0;

    if (!d)
        return pg_err_set(err, "cannot read the log directory %s: %s", dir,
                          strerror(errno));
    while (cc == 0 && (e = readdir(d))) {
        if ((ltid = pg_log_name_ltid(e->d_name, PG_LOG_EXEC)) < 0)
            continue;
        found = 1;
        pg_log_path(path, sizeof path, dir, ltid, PG_LOG_EXEC);
        if (!(r = pg_logr_open(path, PG_LOG_EXEC, &h, err))) {
            cc = -1;
            break;
        }
        pg_logr_close(r);
        if (ltid == 0)
            continue;
        if (!h.sha256[0] || !h.exe[0])
            cc = pg_err_set(err, "%s records no program checksum (a log of "
                            "an older pangaea): it cannot be packed", path);
        else if ((cc = add_program(path, &h, err)) == 0)
            add_host(h.host, progs[nprogs - 1].machine);
    }
    closedir(d);
    if (cc == 0 && !found)
        return pg_err_set(err, "no recording in %s (no ltid-N.exec.xml)", dir);
    return cc;
}

/* ---- writing ----------------------------------------------------------- */

static int put_file(struct archive *a, const char *name, const char *path,
                    pg_err *err)
{
    struct archive_entry *e = archive_entry_new();
    struct stat st;
    char buf[65536];
    ssize_t n;
    /* O_NONBLOCK and a regular file only: a FIFO would hang -pack */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK),
        cc = 0;

    if (!e)
        nomem();
    if (fd >= 0 && pg_log_regular(fd, path, err) < 0) {
        archive_entry_free(e);
        close(fd);
        return -1;
    }
    if (fd < 0 || fstat(fd, &st) < 0) {
        archive_entry_free(e);
        if (fd >= 0)
            close(fd);
        return pg_err_set(err, "cannot read %s: %s", path, strerror(errno));
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    archive_entry_set_pathname(e, name);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, st.st_mode & 0777);
    archive_entry_set_size(e, st.st_size);
    archive_entry_set_mtime(e, st.st_mtime, 0);
    if (archive_write_header(a, e) != ARCHIVE_OK)
        cc = pg_err_set(err, "writing the pack: %s", archive_error_string(a));
    while (cc == 0 && (n = read(fd, buf, sizeof buf)) > 0)
        if (archive_write_data(a, buf, n) != n)
            cc = pg_err_set(err, "writing the pack: %s",
                            archive_error_string(a));
    close(fd);
    archive_entry_free(e);
    return cc;
}

static int put_text(struct archive *a, const char *name, const char *text,
                    pg_err *err)
{
    struct archive_entry *e = archive_entry_new();
    size_t len = strlen(text);
    int cc = 0;

    if (!e)
        nomem();
    archive_entry_set_pathname(e, name);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, len);
    archive_entry_set_mtime(e, time(NULL), 0);
    if (archive_write_header(a, e) != ARCHIVE_OK ||
        archive_write_data(a, text, len) != (ssize_t)len)
        cc = pg_err_set(err, "writing the pack: %s", archive_error_string(a));
    archive_entry_free(e);
    return cc;
}

/* Every regular file under dir (previous/ and the lock left out: another
 * recording, and a run's own), as recordings/NAME/... */
static int put_dir(struct archive *a, const char *dir, const char *name,
                   pg_err *err)
{
    char path[PATH_MAX + 300], sub[PATH_MAX + 300];
    struct dirent *e;
    struct stat st;
    DIR *d = opendir(dir);
    int cc = 0;

    if (!d)
        return pg_err_set(err, "cannot read %s: %s", dir, strerror(errno));
    while (cc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            !strcmp(e->d_name, ".pangaea.lock") ||
            !strcmp(e->d_name, "previous"))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(sub, sizeof sub, "%s/%s", name, e->d_name);
        if (lstat(path, &st) < 0)
            cc = pg_err_set(err, "cannot read %s: %s", path, strerror(errno));
        else if (S_ISDIR(st.st_mode))
            cc = put_dir(a, path, sub, err);
        else if (S_ISREG(st.st_mode))
            cc = put_file(a, sub, path, err);
        else
            fprintf(stderr, "pangaea: -pack leaves out %s (not a regular "
                    "file)\n", path);
    }
    closedir(d);
    return cc;
}

/* The recorded command line, from ltid 0's spawn of the first task. */
static void recorded_command(const char *dir, char *out, size_t size)
{
    char path[PATH_MAX + 64];
    pg_log_header h;
    pg_event ev;
    pg_err err;
    pg_logr *r;
    size_t n;
    int i;

    snprintf(out, size, "?");
    if (top_mpi_launch_line(dir, out, size) == 0) { /* an MPI run's */
        for (n = 0; out[n]; n++)
            out[n] = out[n] == '\n' ? ' ' : out[n];
        return;
    }
    pg_log_path(path, sizeof path, dir, 0, PG_LOG_EXEC);
    if (!(r = pg_logr_open(path, PG_LOG_EXEC, &h, &err)))
        return;
    if (pg_logr_next(r, &ev, &err) == 1 && ev.kind == PG_EV_SPAWN) {
        n = snprintf(out, size, "pangaea -log -logdir %s %s", dir, ev.program);
        for (i = 0; i < ev.argc && n < size; i++)
            n += snprintf(out + n, size - n, " %s", ev.argv[i]);
        for (n = 0; out[n]; n++)
            if (out[n] == '\n')
                out[n] = ' ';
    }
    pg_logr_close(r);
}

static char *manifest(char dirs[][PATH_MAX], char names[][256], int ndirs)
{
    char *text = NULL, cmd[8192], host[256] = "?", me[32];
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    int i;

    if (!f)
        nomem();
    gethostname(host, sizeof host - 1);
    top_elf_machine("/proc/self/exe", me, sizeof me);
    recorded_command(dirs[0], cmd, sizeof cmd);
    fprintf(f, "pangaea-pack 1\npangaea-version %s\npvm-version %s\n"
            "packed-on %s %s\ncommand %s\n", PG_VERSION, pvm_version(), host,
            me, cmd);
    for (i = 0; i < ndirs; i++)
        fprintf(f, "recording %s\n", names[i]);
    for (i = 0; i < nhosts; i++)
        fprintf(f, "host %s %s\n", hosts[i].name, hosts[i].machine);
    for (i = 0; i < nprogs; i++)
        fprintf(f, "program %s %s %s\n", progs[i].sha, progs[i].machine,
                progs[i].path);
    fclose(f);
    return text;
}

static int write_pack(int fd, const char *out, char dirs[][PATH_MAX],
                      char names[][256], int ndirs, pg_err *err)
{
    struct archive *a = archive_write_new();
    char *text = manifest(dirs, names, ndirs), name[PATH_MAX + 128];
    int i, cc = 0;

    if (!a)
        nomem();
    if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
        archive_write_add_filter_zstd(a) != ARCHIVE_OK ||
        archive_write_open_fd(a, fd) != ARCHIVE_OK)
        cc = pg_err_set(err, "cannot write %s: %s", out,
                        archive_error_string(a));
    if (cc == 0)
        cc = put_text(a, "MANIFEST", text, err);
    for (i = 0; cc == 0 && i < ndirs; i++) {
        snprintf(name, sizeof name, "recordings/%s", names[i]);
        cc = put_dir(a, dirs[i], name, err);
    }
    for (i = 0; cc == 0 && i < nprogs; i++) {
        snprintf(name, sizeof name, "programs/%s/%s", progs[i].sha,
                 pg_basename(progs[i].path));
        cc = put_file(a, name, progs[i].path, err);
    }
    if (archive_write_close(a) != ARCHIVE_OK && cc == 0)
        cc = pg_err_set(err, "cannot write %s: %s", out,
                        archive_error_string(a));
    archive_write_free(a);
    free(text);
    return cc;
}

/* A name for each recording in the pack: its directory's, made unique. */
static void name_recording(char names[][256], int i, const char *dir)
{
    int k, n = 1;

    snprintf(names[i], 256, "%s", pg_basename(dir));
    for (k = 0; k < i; k++)
        if (!strcmp(names[k], names[i])) {
            snprintf(names[i], 256, "%s-%d", pg_basename(dir), ++n);
            k = -1;
        }
}

static int pack_usage(const char *why)
{
    fprintf(stderr, "pangaea: %s\nusage: pangaea -pack [-logdir DIR]... "
            "-o FILE [-force]\n", why);
    return TOP_EXIT_USAGE;
}

/* The pack is written to a file of its own (FILE.part-XXXXXX, made
 * O_EXCL: nobody's FILE.part is overwritten), then put in place: linked
 * as FILE, which fails if FILE exists (nothing a user had is replaced),
 * or renamed over it with -force. */
static int put_pack(const char *out, char dirs[][PATH_MAX],
                    char names[][256], int n, int force, pg_err *err)
{
    char tmp[PATH_MAX + 32];
    int fd, cc;

    snprintf(tmp, sizeof tmp, "%s.part-XXXXXX", out);
    if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0)
        return pg_err_set(err, "cannot write %s: %s", tmp, strerror(errno));
    fchmod(fd, 0644);
    cc = write_pack(fd, out, dirs, names, n, err);
    if (close(fd) < 0 && cc == 0)
        cc = pg_err_set(err, "cannot write %s: %s", tmp, strerror(errno));
    if (cc == 0 && (force ? rename(tmp, out) : link(tmp, out)) < 0)
        cc = errno == EEXIST
                 ? pg_err_set(err, "%s exists: pangaea does not overwrite it "
                              "(add -force to replace it)", out)
                 : pg_err_set(err, "cannot write %s: %s", out,
                              strerror(errno));
    if (cc < 0 || !force)
        unlink(tmp);
    return cc;
}

int top_pack(int argc, char **argv)
{
    static char dirs[MAX_DIRS][PATH_MAX], names[MAX_DIRS][256];
    char cmd[8192];
    struct stat st;
    const char *out = NULL;
    pg_err err;
    int i, n = 0, force = 0;

    for (i = 2; i < argc; i++)
        if (!strcmp(argv[i], "-replay")) /* -pack FILE -replay meant */
            return pack_usage("-replay is a mode: the mode comes first, "
                              "before -pack (to replay a pack: pangaea "
                              "-replay -pack FILE)");
    for (i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "-force"))
            force = 1;
        else if (!strcmp(argv[i], "-logdir") && i + 1 < argc && n < MAX_DIRS) {
            if (!realpath(argv[++i], dirs[n]))
                return fprintf(stderr, "pangaea: cannot use the log "
                               "directory %s: %s\n", argv[i],
                               strerror(errno)), TOP_EXIT_USAGE;
            name_recording(names, n, dirs[n]), n++;
        } else
            return pack_usage("-pack: unknown or incomplete option");
    }
    if (!out)
        return pack_usage("-pack: say where the pack goes: -o FILE");
    if (!force && lstat(out, &st) == 0) /* checked again as it is linked */
        return fprintf(stderr, "pangaea: %s exists: pangaea does not "
                       "overwrite it (add -force to replace it)\n", out),
               TOP_EXIT_USAGE;
    if (n == 0 && !realpath("logs", dirs[n]))
        return fprintf(stderr, "pangaea: no recording to pack: logs/: %s\n",
                       strerror(errno)), TOP_EXIT_USAGE;
    if (n == 0)
        name_recording(names, n++, dirs[0]);
    for (i = 0; i < n; i++) {
        /* Not while a run writes there; a recording cut short is packed
         * as it is (a replay follows it as far as it goes), but said. */
        if (top_mpi_recording(dirs[i]) && /* mpi_launch.c */
            top_mpi_launch_line(dirs[i], cmd, sizeof cmd) < 0)
            return fprintf(stderr, "pangaea: -pack: the recording in %s is "
                           "an MPI run's without its launcher's command "
                           "line (%s, which a replay from the pack needs: "
                           "written after a recording by this pangaea); "
                           "nothing was written\n", dirs[i],
                           TOP_MPI_LAUNCH), TOP_EXIT_USAGE;
        if (top_logdir_lock(dirs[i], 1, &err) < 0 ||
            scan_exec_logs(dirs[i], &err) < 0)
            return fprintf(stderr, "pangaea: %s\n", err.msg), TOP_EXIT_USAGE;
        if (pg_logdir_incomplete(dirs[i]))
            fprintf(stderr, "pangaea: the recording in %s did not end well: "
                    "packing what it holds\n", dirs[i]);
    }
    if (put_pack(out, dirs, names, n, force, &err) < 0) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        return TOP_EXIT_FAILED;
    }
    fprintf(stderr, "pangaea: packed %d recording%s and %d program%s into "
            "%s\n", n, n == 1 ? "" : "s", nprogs, nprogs == 1 ? "" : "s", out);
    return 0;
}
