/* The cache on disk: file names, the entry format (cache_internal.h), atomic writes and
 * checked reads.  Nothing here trusts a file: every field is checked before use, and a
 * file that fails is removed so the next compile replaces it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/le_bytes.h"
#include "cache_internal.h"
#include "sha256.h"

static bool is_hex64(const char *s)
{
    for (int i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    return true;
}

cache_file_kind cache_file_classify(const char *name, cute_cache_key *key)
{
    if (strncmp(name, CACHE_TEMP_PREFIX, strlen(CACHE_TEMP_PREFIX)) == 0) return CACHE_FILE_TEMP;
    if (strncmp(name, CACHE_MEMO_NAME, strlen(CACHE_MEMO_NAME)) == 0) {
        const char *rest = name + strlen(CACHE_MEMO_NAME);
        size_t len = strlen(rest);
        if (!*rest || (rest[0] == '.' && len > 4 && !strcmp(rest + len - 4, ".tmp")))
            return CACHE_FILE_MEMO;
    }
    if (strlen(name) < 66 || !is_hex64(name) || name[64] != '.') return CACHE_FILE_OTHER;
    const char *ext = name + 64;
    if (key) cache_key_from_hex(name, key);
    if (strcmp(ext, CACHE_ENTRY_EXT) == 0) return CACHE_FILE_ENTRY;
    static const char *const artifacts[] = {".cu", ".ptx", ".cubin", ".sass"};
    for (size_t i = 0; i < sizeof artifacts / sizeof artifacts[0]; i++)
        if (strcmp(ext, artifacts[i]) == 0) return CACHE_FILE_ARTIFACT;
    return CACHE_FILE_OTHER;
}

bool cache_mkdirs(const char *dir, char *err, size_t n)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        snprintf(err, n, "cache directory name too long");
        return false;
    }
    for (char *p = path + 1;; p++) {
        bool end = *p == '\0';
        if (*p != '/' && !end) continue;
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            snprintf(err, n, "cannot make %s: %s", path, strerror(errno));
            return false;
        }
        if (end) break;
        *p = '/';
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, n, "%s is not a directory", dir);
        return false;
    }
    return true;
}

static bool write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        p += w, n -= (size_t)w;
    }
    return true;
}

/* bytes read; short only at end of file; -1 on error */
static ssize_t read_all(int fd, void *data, size_t n)
{
    char *p = data;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* The directory entry must reach the disk too, or a crash could lose the rename. */
static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)fsync(fd);
    close(fd);
}

bool cache_write_atomic(const char *dir, const char *name, uint64_t unique, const void *head,
                        size_t nhead, const void *body, size_t nbody, char *err, size_t n)
{
    char tmp[4096], final[4096];
    int fd = -1;
    /* pid + the handle's counter + randomness: unique across processes, threads and pid
     * namespaces sharing the directory; O_EXCL makes a clash a retry, not a shared file */
    for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
        snprintf(tmp, sizeof tmp, "%s/" CACHE_TEMP_PREFIX "%.16s.%ld.%016llx.%d", dir, name,
                 (long)getpid(), (unsigned long long)unique, attempt);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        snprintf(err, n, "cannot create a file in %s: %s", dir, strerror(errno));
        return false;
    }
    bool ok = write_all(fd, head, nhead) && write_all(fd, body, nbody) && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) ok = false, saved = errno;
    snprintf(final, sizeof final, "%s/%s", dir, name);
    /* a directory planted under the name: removed when empty, else named in the message */
    if (ok && rename(tmp, final) != 0 && !(cache_discard(final) && rename(tmp, final) == 0))
        ok = false, saved = errno;
    if (!ok) {
        struct stat st;
        bool is_dir = lstat(final, &st) == 0 && S_ISDIR(st.st_mode);
        unlink(tmp);
        snprintf(err, n, "cannot write %s: %s", final,
                 is_dir ? "a directory has its name (cutec never makes one): remove it"
                        : strerror(saved));
        return false;
    }
    sync_dir(dir);
    return true;
}


static void entry_name(const cute_cache_key *k, char *buf, size_t n)
{
    char hex[2 * CUTE_CACHE_KEY_BYTES + 1];
    cute_cache_key_hex(k, hex);
    snprintf(buf, n, "%s" CACHE_ENTRY_EXT, hex);
}

bool cache_entry_write(const char *dir, const cute_cache_key *k, uint64_t unique, const void *bytes,
                       size_t len, char *err, size_t n)
{
    if ((uint64_t)len > CACHE_MAX_PAYLOAD) /* it would be refused when read */
        return snprintf(err, n, "a %zu-byte payload is larger than an entry may be", len), false;
    uint8_t head[CACHE_HEADER_BYTES];
    memcpy(head, CACHE_MAGIC, 8);
    le_put32(head + 8, CACHE_FORMAT);
    le_put32(head + 12, CACHE_HEADER_BYTES);
    memcpy(head + 16, k->b, 32);
    le_put64(head + 48, len);
    cute_sha256(bytes, len, head + 56);
    char name[128];
    entry_name(k, name, sizeof name);
    return cache_write_atomic(dir, name, unique, head, sizeof head, bytes, len, err, n);
}

/* why head (of a file of `size` bytes) is not an entry for k; NULL when it is */
static const char *header_problem(const uint8_t *head, const cute_cache_key *k, uint64_t size)
{
    if (memcmp(head, CACHE_MAGIC, 8) != 0) return "bad magic";
    if (le_get32(head + 8) != CACHE_FORMAT) return "other format version";
    if (le_get32(head + 12) != CACHE_HEADER_BYTES) return "bad header size";
    if (memcmp(head + 16, k->b, 32) != 0) return "key differs from its name";
    if (le_get64(head + 48) != size - CACHE_HEADER_BYTES) return "truncated or overlong";
    return NULL;
}

/* Remove path only if it is still the file we read: another process may have renamed a
 * good entry into place since. */
static void unlink_if_same(const char *path, int fd)
{
    struct stat a, b;
    if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        unlink(path);
}

/* path is not a file cutec wrote: removed (a directory only when empty), a miss */
static cache_read_result untrusted(const char *path, const char *why, char *err, size_t n)
{
    bool gone = cache_discard(path);
    snprintf(err, n, "untrusted cache entry %s (%s): %s", path, why,
             gone ? "removed" : "not removed: remove it");
    return CACHE_READ_CORRUPT;
}

/* the payload of an open entry whose header passed: read and hashed, or why not */
static const char *read_payload(int fd, const uint8_t *head, size_t m, uint8_t **data)
{
    uint8_t sum[32];
    if (!(*data = malloc(m ? m : 1))) return NULL;
    if (read_all(fd, *data, m) != (ssize_t)m) return "short read";
    cute_sha256(*data, m, sum);
    return memcmp(sum, head + 56, 32) != 0 ? "checksum mismatch" : NULL;
}

cache_read_result cache_entry_read(const char *dir, const cute_cache_key *k, void **bytes,
                                   size_t *len, char *err, size_t n)
{
    char name[128], path[4096];
    entry_name(k, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    const char *why = NULL;
    int fd = cache_open_regular(path, CACHE_HEADER_BYTES + CACHE_MAX_PAYLOAD, &st, &why);
    if (fd < 0 && why) return untrusted(path, why, err, n);
    if (fd < 0) {
        if (errno == ENOENT) return CACHE_READ_MISSING;
        snprintf(err, n, "cannot open %s: %s", path, strerror(errno));
        return CACHE_READ_IOERR;
    }
    uint8_t head[CACHE_HEADER_BYTES], *data = NULL;
    if ((uint64_t)st.st_size < CACHE_HEADER_BYTES)
        why = "shorter than its header";
    else if (read_all(fd, head, sizeof head) != (ssize_t)sizeof head)
        why = "unreadable header";
    else if (!(why = header_problem(head, k, (uint64_t)st.st_size)) &&
             !(why = read_payload(fd, head, (size_t)(st.st_size - CACHE_HEADER_BYTES), &data))) {
        close(fd);
        if (!data) return snprintf(err, n, "out of memory reading %s", path), CACHE_READ_IOERR;
        *bytes = data, *len = (size_t)(st.st_size - CACHE_HEADER_BYTES);
        return CACHE_READ_OK;
    }
    free(data);
    snprintf(err, n, "corrupt cache entry %s (%s): removed", path, why);
    unlink_if_same(path, fd);
    close(fd);
    return CACHE_READ_CORRUPT;
}

void cache_entry_unlink(const char *dir, const cute_cache_key *k)
{
    char name[128], path[4096];
    entry_name(k, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

bool cache_entry_header_ok(const char *path, const cute_cache_key *k)
{
    struct stat st;
    const char *why;
    int fd = cache_open_regular(path, CACHE_HEADER_BYTES + CACHE_MAX_PAYLOAD, &st, &why);
    if (fd < 0) return false;
    uint8_t head[CACHE_HEADER_BYTES];
    bool ok = fstat(fd, &st) == 0 && (uint64_t)st.st_size >= CACHE_HEADER_BYTES &&
              read_all(fd, head, sizeof head) == (ssize_t)sizeof head &&
              !header_problem(head, k, (uint64_t)st.st_size);
    close(fd);
    return ok;
}
