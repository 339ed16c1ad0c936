/*
 * site_name.c - a call site (an object file and an offset from where it
 * was loaded, as callsite.c logs it) as "file.c:LINE", read from the
 * object's debug information with elfutils' libdw (Debian libdw-dev: the
 * library eu-addr2line is built on, so no program is run per site).  Used
 * by `pangaea -races` and -display, and by a task whose replay diverged
 * (replay.c names the call the program made).
 *
 * libdw is opened with dlopen when first needed: every task carries this
 * code, and a task should not load libdw, libelf and their compression
 * libraries at start for a message it prints only when a replay diverges.
 * Without libdw (or debug information) a site is named by its function
 * and offset, or its object and offset.
 *
 * Design.  The offset is from the start of the object's mapping (dladdr's
 * dli_fbase), which lies at the first PT_LOAD segment's address rounded
 * down to its page: adding that address gives the address in the file, for
 * a position-independent program (0) as for a fixed one (0x400000).  The
 * offset is a return address: the call is the byte before it.  Without
 * line information the function and offset are given (the symbol table),
 * else the object's name and the offset.  One Dwfl per object, kept for
 * the run of the command (a report has few objects).  An object that is
 * not a regular file is not read (report_regular).
 *
 * pg_site_parts gives the same site as file, function and line apart (the
 * filters of -display's and -live's pages group sites into a tree of
 * files, functions and lines): the function is the symbol the call lies
 * in, so a call inlined into another function counts as that one's.
 * Both may be called from two threads at once (the JSON race reports
 * write their two halves so): one lock around the objects kept and
 * libdw's use of them.
 */
#define _GNU_SOURCE /* dladdr1 */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg_log.h"

/* The libdw and libelf calls used, found in libdw.so.1 (libelf is its
 * dependency, so dlsym on libdw's handle finds those too). */
static struct {
    int tried, ok;
    __typeof__(dwfl_begin) *begin;
    __typeof__(dwfl_report_offline) *report_offline;
    __typeof__(dwfl_report_end) *report_end;
    __typeof__(dwfl_module_getelf) *module_getelf;
    __typeof__(dwfl_module_getsrc) *module_getsrc;
    __typeof__(dwfl_lineinfo) *lineinfo;
    __typeof__(dwfl_module_addrinfo) *module_addrinfo;
    __typeof__(elf_getphdrnum) *getphdrnum;
    __typeof__(gelf_getphdr) *getphdr;
    Dwfl_Callbacks callbacks;
} dw;

static void *sym(void *h, const char *name)
{
    void *p = dlsym(h, name);

    dw.ok &= p != NULL;
    return p;
}

/* 1 if libdw could be loaded. */
static int load_dw(void)
{
    void *h;

    if (dw.tried)
        return dw.ok;
    dw.tried = 1;
    if (!(h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL)))
        return 0;
    dw.ok = 1;
    *(void **)&dw.begin = sym(h, "dwfl_begin");
    *(void **)&dw.report_offline = sym(h, "dwfl_report_offline");
    *(void **)&dw.report_end = sym(h, "dwfl_report_end");
    *(void **)&dw.module_getelf = sym(h, "dwfl_module_getelf");
    *(void **)&dw.module_getsrc = sym(h, "dwfl_module_getsrc");
    *(void **)&dw.lineinfo = sym(h, "dwfl_lineinfo");
    *(void **)&dw.module_addrinfo = sym(h, "dwfl_module_addrinfo");
    *(void **)&dw.getphdrnum = sym(h, "elf_getphdrnum");
    *(void **)&dw.getphdr = sym(h, "gelf_getphdr");
    *(void **)&dw.callbacks.find_elf = sym(h, "dwfl_build_id_find_elf");
    *(void **)&dw.callbacks.find_debuginfo =
        sym(h, "dwfl_standard_find_debuginfo");
    *(void **)&dw.callbacks.section_address =
        sym(h, "dwfl_offline_section_address");
    return dw.ok;
}

struct obj {
    char *path;
    Dwfl *dwfl;
    Dwfl_Module *mod;
    GElf_Addr base; /* where file offset 0 of the object is, in Dwfl's
                       addresses */
};
static struct obj objs[64];
static int nobjs;

/* The address of the first loadable segment's page, plus the module's bias. */
static int find_base(struct obj *o)
{
    GElf_Addr bias = 0;
    Elf *elf = dw.module_getelf(o->mod, &bias);
    GElf_Phdr ph;
    size_t n, i;

    if (!elf || dw.getphdrnum(elf, &n) != 0)
        return -1;
    for (i = 0; i < n; i++)
        if (dw.getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
            o->base = bias + ((ph.p_vaddr - ph.p_offset) & ~(GElf_Addr)0xfff);
            return 0;
        }
    return -1;
}

/* The object at path given to libdw, if it is a regular file: a log
 * names it, and a log may come from anyone (a FIFO there would hang the
 * command, a device be read).  Opened without waiting (O_NONBLOCK), the
 * descriptor checked, then given to libdw, which keeps it. */
static Dwfl_Module *report_regular(Dwfl *dwfl, const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    Dwfl_Module *mod;

    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return NULL;
    }
    if (!(mod = dw.report_offline(dwfl, "", path, fd)))
        close(fd); /* consumed only on success */
    return mod;
}

static struct obj *open_obj(const char *path)
{
    struct obj *o;
    int i;

    for (i = 0; i < nobjs; i++)
        if (!strcmp(objs[i].path, path))
            return objs[i].mod ? &objs[i] : NULL;
    if (nobjs == (int)(sizeof objs / sizeof objs[0]) || !load_dw())
        return NULL;
    o = &objs[nobjs++];
    memset(o, 0, sizeof *o);
    o->path = strdup(path);
    if (!o->path || !(o->dwfl = dw.begin(&dw.callbacks)))
        return NULL;
    o->mod = report_regular(o->dwfl, path);
    dw.report_end(o->dwfl, NULL, NULL);
    if (o->mod && find_base(o) < 0)
        o->mod = NULL;
    return o->mod ? o : NULL;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

static pthread_mutex_t site_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *site_name(const char *module, long offset, char *buf,
                             int size)
{
    struct obj *o = open_obj(module);
    GElf_Addr addr, symoff = 0;
    GElf_Sym sym;
    Dwfl_Line *line;
    const char *file, *fn;
    int lineno = 0;

    if (o) {
        addr = o->base + (GElf_Addr)offset - 1; /* the call, not after it */
        if ((line = dw.module_getsrc(o->mod, addr)) &&
            (file = dw.lineinfo(line, NULL, &lineno, NULL, NULL, NULL)) &&
            lineno > 0) {
            snprintf(buf, size, "%s:%d", base_name(file), lineno);
            return buf;
        }
        fn = dw.module_addrinfo(o->mod, addr, &symoff, &sym, NULL, NULL,
                                  NULL);
        if (fn) {
            snprintf(buf, size, "%s+0x%lx (%s)", fn, (unsigned long)symoff + 1,
                     base_name(module));
            return buf;
        }
    }
    snprintf(buf, size, "%s+0x%lx", base_name(module), (unsigned long)offset);
    return buf;
}

const char *pg_site_name(const char *module, long offset, char *buf,
                         int size)
{
    const char *name;

    pthread_mutex_lock(&site_lock);
    name = site_name(module, offset, buf, size);
    pthread_mutex_unlock(&site_lock);
    return name;
}

static void site_parts(const char *module, long offset, char *file, int fsize,
                       char *func, int nsize, int *line)
{
    struct obj *o = open_obj(module);
    GElf_Addr addr, symoff = 0;
    GElf_Sym sym;
    Dwfl_Line *l;
    const char *f = NULL, *fn = NULL;
    int lineno = 0;

    if (o) {
        addr = o->base + (GElf_Addr)offset - 1; /* the call, not after it */
        if ((l = dw.module_getsrc(o->mod, addr)))
            f = dw.lineinfo(l, NULL, &lineno, NULL, NULL, NULL);
        fn = dw.module_addrinfo(o->mod, addr, &symoff, &sym, NULL, NULL,
                                NULL);
    }
    snprintf(file, fsize, "%s", base_name(f && lineno > 0 ? f : module));
    snprintf(func, nsize, "%s", fn ? fn : "?");
    *line = f && lineno > 0 ? lineno : 0;
}

void pg_site_parts(const char *module, long offset, char *file, int fsize,
                   char *func, int nsize, int *line)
{
    pthread_mutex_lock(&site_lock);
    site_parts(module, offset, file, fsize, func, nsize, line);
    pthread_mutex_unlock(&site_lock);
}

int pg_site_locate(const void *pc, char *path, size_t size, uintptr_t *off)
{
    struct link_map *lm = NULL;
    Dl_info info;
    ssize_t n;

    if (!dladdr1((void *)pc, &info, (void **)&lm, RTLD_DL_LINKMAP) || !info.dli_fbase)
        return -1;
    *off = (uintptr_t)pc - (uintptr_t)info.dli_fbase;
    if (lm && lm->l_name && lm->l_name[0] == '/') {
        snprintf(path, size, "%s", lm->l_name);
        return 0;
    }
    /* The program itself: its link map has no name. */
    n = readlink("/proc/self/exe", path, size - 1);
    if (n <= 0)
        return -1;
    path[n] = 0;
    return 0;
}
