/*
 * site_resolve.c - a call site of a recording (an object file and an
 * offset from where it was loaded, as callsite.c logs it) as "file.c:LINE",
 * read from the object's debug information with elfutils' libdw (Debian
 * libdw-dev: the library addr2line and eu-addr2line are built on, so no
 * program is run per site).
 *
 * Design.  The offset is from the start of the object's mapping (dladdr's
 * dli_fbase), which lies at the first PT_LOAD segment's address rounded
 * down to its page: adding that address gives the address in the file, for
 * a position-independent program (0) as for a fixed one (0x400000).  The
 * offset is a return address: the call is the byte before it.  Without
 * line information the function and offset are given (the symbol table),
 * else the object's name and the offset.  One Dwfl per object, kept for
 * the run of the command (a report has few objects).
 */
#include "races.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

struct obj {
    char *path;
    Dwfl *dwfl;
    Dwfl_Module *mod;
    GElf_Addr base; /* where file offset 0 of the object is, in Dwfl's
                       addresses */
};
static struct obj objs[64];
static int nobjs;

static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* The address of the first loadable segment's page, plus the module's bias. */
static int find_base(struct obj *o)
{
    GElf_Addr bias = 0;
    Elf *elf = dwfl_module_getelf(o->mod, &bias);
    GElf_Phdr ph;
    size_t n, i;

    if (!elf || elf_getphdrnum(elf, &n) != 0)
        return -1;
    for (i = 0; i < n; i++)
        if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
            o->base = bias + ((ph.p_vaddr - ph.p_offset) & ~(GElf_Addr)0xfff);
            return 0;
        }
    return -1;
}

static struct obj *open_obj(const char *path)
{
    struct obj *o;
    int i;

    for (i = 0; i < nobjs; i++)
        if (!strcmp(objs[i].path, path))
            return objs[i].mod ? &objs[i] : NULL;
    if (nobjs == (int)(sizeof objs / sizeof objs[0]))
        return NULL;
    o = &objs[nobjs++];
    memset(o, 0, sizeof *o);
    o->path = strdup(path);
    if (!o->path || !(o->dwfl = dwfl_begin(&callbacks)))
        return NULL;
    o->mod = dwfl_report_offline(o->dwfl, "", path, -1);
    dwfl_report_end(o->dwfl, NULL, NULL);
    if (o->mod && find_base(o) < 0)
        o->mod = NULL;
    return o->mod ? o : NULL;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

const char *top_site_resolve(const char *module, long offset, char *buf,
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
        if ((line = dwfl_module_getsrc(o->mod, addr)) &&
            (file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL)) &&
            lineno > 0) {
            snprintf(buf, size, "%s:%d", base_name(file), lineno);
            return buf;
        }
        fn = dwfl_module_addrinfo(o->mod, addr, &symoff, &sym, NULL, NULL,
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
