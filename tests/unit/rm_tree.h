/*
 * rm_tree.h - removes a unit test's temporary directory tree.  Included
 * where <ftw.h> would be: the includer defines _XOPEN_SOURCE (or
 * _GNU_SOURCE) before its first system header, as nftw needs.
 */
#ifndef RM_TREE_H
#define RM_TREE_H

#include <ftw.h>
#include <stdio.h>

static inline int ck_rm_entry(const char *path, const struct stat *st,
                              int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Removes the directory tree dir, not following links. */
static inline void ck_rm_tree(const char *dir)
{
    nftw(dir, ck_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
