/* The tuning file on disk: where it lives, read through the JIT cache's checks (a regular
 * file of the user's, no symbolic link followed), and merged under a lock and written
 * whole through a temporary file and a rename, as the cache writes its entries. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cutec/cache.h"
#include "cutec/cuda_driver.h"
#include "cutec/tune.h"
#include "runtime/cache_internal.h"
#include "tune/tune_internal.h"

bool cute_tune_db_path(char *buf, size_t n)
{
    const char *env = getenv("CUTEC_TUNE_FILE");
    if (env && *env) return (size_t)snprintf(buf, n, "%s", env) < n;
    char dir[4096];
    if (n) buf[0] = 0;
    if (!cute_cache_default_dir(dir, sizeof dir)) return false;
    return (size_t)snprintf(buf, n, "%s/" TUNE_FILE_NAME, dir) < n;
}

/* the whole file at path into *text (malloc'd); CUTE_OK with *text NULL when missing */
static cute_status slurp(const char *path, char **text, size_t *len, char *err, size_t n)
{
    struct stat st;
    const char *why = NULL;
    *text = NULL, *len = 0;
    int fd = cache_open_regular(path, TUNE_MAX_BYTES, &st, &why);
    if (fd < 0 && !why && errno == ENOENT) return CUTE_OK;
    if (fd < 0)
        return snprintf(err, n, "%s: cannot be read as a tuning file: %s", path, why ? why : strerror(errno)),
               CUTE_ERR_INVALID;
    size_t size = st.st_size > 0 ? (size_t)st.st_size : 0;
    char *s = malloc(size + 1);
    ssize_t got = s ? pread(fd, s, size, 0) : -1;
    close(fd);
    if (!s || got < 0 || (size_t)got != size) {
        free(s);
        return snprintf(err, n, "%s: cannot be read: %s", path, s ? "short read" : "out of memory"), CUTE_ERR_INVALID;
    }
    s[size] = 0;
    *text = s, *len = size;
    return CUTE_OK;
}

cute_status cute_tune_db_load(const char *path, cute_tune_db **out, char *err, size_t n)
{
    char *text;
    size_t len;
    *out = NULL;
    cute_status s = slurp(path, &text, &len, err, n);
    if (s != CUTE_OK) return s;
    if (!text) return (*out = cute_tune_db_new()) ? CUTE_OK : CUTE_ERR_OOM;
    s = cute_tune_db_parse(text, len, path, out, err, n);
    free(text);
    return s;
}

/* dir and file name of path ("." for a bare name) */
static bool split(const char *path, char *dir, size_t nd, const char **name)
{
    const char *slash = strrchr(path, '/');
    *name = slash ? slash + 1 : path;
    if (!**name) return false;
    if (!slash) return snprintf(dir, nd, "."), true;
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    if (len >= nd) return false;
    memcpy(dir, path, len), dir[len] = 0;
    return true;
}

/* the lock of the file: a process-wide mutex (fcntl locks do not exclude threads of one
 * process) and an fcntl write lock on path.lock (other processes); -1 with err */
static pthread_mutex_t writers = PTHREAD_MUTEX_INITIALIZER;
static int lock_file(const char *path, char *err, size_t n)
{
    char lk[4200];
    snprintf(lk, sizeof lk, "%s.lock", path);
    pthread_mutex_lock(&writers);
    int fd = open(lk, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    while (fd >= 0 && fcntl(fd, F_SETLKW, &fl) != 0 && errno == EINTR) {}
    if (fd < 0 || fcntl(fd, F_GETLK, &fl) != 0) {
        snprintf(err, n, "%s: cannot lock: %s", lk, strerror(errno));
        if (fd >= 0) close(fd);
        pthread_mutex_unlock(&writers);
        return -1;
    }
    return fd;
}

static void unlock_file(int fd)
{
    close(fd); /* releases the fcntl lock */
    pthread_mutex_unlock(&writers);
}

/* under the lock: the file read again, the entries put, the whole written back */
static cute_status merge(const char *path, const char *dir, const char *name, const cute_tune_entry *e, int count,
                         char *err, size_t n)
{
    cute_tune_db *db;
    cute_status s = cute_tune_db_load(path, &db, err, n);
    if (s != CUTE_OK) return s; /* never overwrite what we could not read */
    for (int i = 0; i < count && s == CUTE_OK; i++) s = cute_tune_db_put(db, &e[i], err, n);
    char *text = s == CUTE_OK ? cute_tune_db_text(db) : NULL;
    if (s == CUTE_OK && !text) s = CUTE_ERR_OOM, snprintf(err, n, "out of memory");
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t unique = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)&ts;
    if (s == CUTE_OK && !cache_write_atomic(dir, name, unique, text, strlen(text), "", 0, err, n)) s = CUTE_ERR_INVALID;
    free(text);
    cute_tune_db_free(db);
    return s;
}

cute_status cute_tune_db_store(const char *path, const cute_tune_entry *e, int count, char *err, size_t n)
{
    char dir[4096];
    const char *name;
    if (!path || !split(path, dir, sizeof dir, &name))
        return snprintf(err, n, "tune: \"%s\" is not a file's path", path ? path : ""), CUTE_ERR_INVALID;
    if (!cache_mkdirs(dir, err, n)) return CUTE_ERR_INVALID;
    int fd = lock_file(path, err, n);
    if (fd < 0) return CUTE_ERR_INVALID;
    cute_status s = merge(path, dir, name, e, count, err, n);
    unlock_file(fd);
    return s;
}

void cute_tune_card(cute_runtime *rt, char *name, size_t n, int *sms)
{
    cute_cuda *cu = rt ? cute_cuda_backend_driver(cute_runtime_backend(rt)) : NULL;
    const cute_device_info *d = cu ? cute_cuda_device(cu) : NULL;
    *sms = d ? d->sm_count : 0;
    if (d) snprintf(name, n, "%s", d->name);
    else snprintf(name, n, "interp sm_%d", rt ? cute_runtime_target_arch(rt) : 0);
}
