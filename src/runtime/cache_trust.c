/* What the cache trusts: a directory only this user can write, and in it only regular files
 * of this user's, of a sane size, opened without following links or waiting on FIFOs.
 * Anything else named like a cutec file is not read: it is removed (docs/cache.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cache_internal.h"

bool cache_dir_trusted(const char *dir, char *err, size_t n)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return snprintf(err, n, "%s is not a directory", dir), false;
    if (st.st_uid != geteuid())
        return snprintf(err, n,
                        "cache directory %s belongs to uid %ld, not to you (uid %ld): anyone "
                        "who owns it could plant code there; set CUTEC_CACHE_DIR to a "
                        "directory of your own",
                        dir, (long)st.st_uid, (long)geteuid()),
               false;
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return snprintf(err, n,
                        "cache directory %s is writable by %s (mode %03o): others could plant "
                        "code there; make it yours alone (chmod 700 %s) or set CUTEC_CACHE_DIR",
                        dir, st.st_mode & S_IWOTH ? "others" : "its group",
                        (unsigned)(st.st_mode & 0777), dir),
               false;
    return true;
}

/* why st (of an open file) is not a file cutec wrote; NULL when it may be */
static const char *not_ours(const struct stat *st, uint64_t max)
{
    if (S_ISDIR(st->st_mode)) return "a directory";
    if (!S_ISREG(st->st_mode)) return "not a regular file (a FIFO, socket or device)";
    if (st->st_uid != geteuid()) return "owned by another user";
    if ((uint64_t)st->st_size > max) return "larger than any file cutec writes";
    return NULL;
}

int cache_open_regular(const char *path, uint64_t max, struct stat *st, const char **why)
{
    *why = NULL;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ELOOP) *why = "a symbolic link (cutec writes none)";
        if (errno == ENXIO) *why = "not a regular file (a socket)";
        return -1;
    }
    if (fstat(fd, st) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    if ((*why = not_ours(st, max))) {
        close(fd);
        return -1;
    }
    return fd;
}

bool cache_discard(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT;
    return S_ISDIR(st.st_mode) ? rmdir(path) == 0 : unlink(path) == 0;
}
