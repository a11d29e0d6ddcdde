/* The cache directory as a whole, for `cutec cache`: list, size, clear.  Only names
 * cutec writes are touched (cache_file_classify); anything else in the directory is the
 * user's.  Whatever bears one of our names and is not a directory is ours: clear removes
 * a FIFO or a symbolic link planted under an entry's name too. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_internal.h"

typedef bool (*visit_fn)(const char *path, const char *name, cache_file_kind kind,
                         const cute_cache_key *key, const struct stat *st, void *user);

/* every file of ours in dir; false when dir cannot be read or visit stops */
static bool walk(const char *dir, visit_fn visit, void *user)
{
    DIR *d = opendir(dir);
    if (!d) return false;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        cute_cache_key key = {{0}};
        cache_file_kind kind = cache_file_classify(e->d_name, &key);
        if (kind == CACHE_FILE_OTHER) continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        /* a FIFO, link or socket under our name is ours to list and clear (never to read);
         * a directory is left alone */
        if (lstat(path, &st) != 0 || S_ISDIR(st.st_mode)) continue;
        ok = visit(path, e->d_name, kind, &key, &st, user);
    }
    closedir(d);
    return ok;
}

typedef struct list_ctx {
    int (*fn)(const cute_cache_entry *e, void *user);
    void *user;
} list_ctx;

static bool list_one(const char *path, const char *name, cache_file_kind kind,
                     const cute_cache_key *key, const struct stat *st, void *user)
{
    list_ctx *lc = user;
    if (kind != CACHE_FILE_ENTRY) return true;
    cute_cache_entry e = {.key = *key, .bytes = (uint64_t)st->st_size, .mtime = st->st_mtime};
    snprintf(e.name, sizeof e.name, "%s", name);
    e.header_ok = cache_entry_header_ok(path, key);
    return lc->fn(&e, lc->user) == 0;
}

bool cute_cache_list(cute_cache *c, int (*fn)(const cute_cache_entry *e, void *user), void *user)
{
    list_ctx lc = {fn, user};
    if (!cute_cache_dir(c)) return false;
    walk(cute_cache_dir(c), list_one, &lc);
    return true;
}

typedef struct size_ctx {
    uint64_t bytes, files;
} size_ctx;

static bool size_one(const char *path, const char *name, cache_file_kind kind,
                     const cute_cache_key *key, const struct stat *st, void *user)
{
    (void)path, (void)name, (void)kind, (void)key;
    size_ctx *sc = user;
    sc->bytes += (uint64_t)st->st_size;
    sc->files++;
    return true;
}

bool cute_cache_size(cute_cache *c, uint64_t *bytes, uint64_t *files)
{
    size_ctx sc = {0, 0};
    bool ok = cute_cache_dir(c) && walk(cute_cache_dir(c), size_one, &sc);
    if (bytes) *bytes = sc.bytes;
    if (files) *files = sc.files;
    return ok;
}

static bool clear_one(const char *path, const char *name, cache_file_kind kind,
                      const cute_cache_key *key, const struct stat *st, void *user)
{
    (void)name, (void)kind, (void)key, (void)st;
    if (unlink(path) == 0) ++*(uint64_t *)user;
    return true;
}

bool cute_cache_clear(cute_cache *c, uint64_t *removed)
{
    uint64_t n = 0;
    cache_forget_memory(c);
    bool ok = cute_cache_dir(c) && walk(cute_cache_dir(c), clear_one, &n);
    if (removed) *removed = n;
    return ok;
}
