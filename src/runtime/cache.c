/* The cache handle: options, the in-memory map (open addressing on the key, which is
 * already uniformly random), and get/put over memory then disk (cache_file.c). */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache_internal.h"
#include "env/env_choice.h"

typedef struct slot {
    bool used, dead; /* dead: a tombstone left by remove */
    cute_cache_key key;
    void *bytes;
    size_t len;
} slot;

struct cute_cache {
    char *dir;      /* NULL: no disk */
    char *dump_dir; /* CUTEC_KEEP's target; NULL: none */
    bool disabled, memory;
    unsigned keep;
    bool lineinfo;
    pthread_mutex_t lock; /* the map, the counters, the message */
    slot *slots;
    size_t cap, filled; /* filled counts tombstones too */
    size_t memory_limit, memory_used;
    uint64_t seed, counter; /* temporary file names */
    cute_cache_stats stats;
    char msg[1024];
};

static bool env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static const char *env_str(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

void cute_cache_opts_from_env(cute_cache_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dir = env_str("CUTEC_CACHE_DIR");
    o->disabled = env_flag("CUTEC_NO_CACHE");
    char unknown[64];
    o->keep = cache_keep_parse_checked(getenv("CUTEC_KEEP"), unknown, sizeof unknown);
    if (unknown[0]) {
        char msg[256];
        snprintf(msg, sizeof msg, "CUTEC_KEEP=%.64s: %s is not one of src|cu|ptx|cubin|sass|all", getenv("CUTEC_KEEP"),
                 unknown);
        cute_env_warn_once("CUTEC_KEEP", msg, "the words it knows");
    }
    o->dump_dir = env_str("CUTEC_DUMP_DIR");
    o->lineinfo = env_flag("CUTEC_LINEINFO");
}

bool cute_cache_default_dir(char *buf, size_t n)
{
    const char *v;
    int w = -1;
    if ((v = env_str("CUTEC_CACHE_DIR")))
        w = snprintf(buf, n, "%s", v);
    else if ((v = env_str("XDG_CACHE_HOME")))
        w = snprintf(buf, n, "%s/cutec", v);
    else if ((v = env_str("HOME")))
        w = snprintf(buf, n, "%s/.cache/cutec", v);
    if (w < 0 || (size_t)w >= n) {
        if (n) buf[0] = '\0';
        return false;
    }
    return true;
}

static void set_msg(cute_cache *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
}

/* 64 random bits for temporary names; the clock and addresses when there is no urandom */
static uint64_t random_seed(const void *salt)
{
    uint64_t s = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &s, sizeof s) != (ssize_t)sizeof s) s = 0;
        close(fd);
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return s ^ (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)(uintptr_t)salt ^
           (uint64_t)getpid() << 40;
}

static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t next_unique(cute_cache *c)
{
    pthread_mutex_lock(&c->lock);
    uint64_t u = splitmix(c->seed + c->counter++);
    pthread_mutex_unlock(&c->lock);
    return u;
}

cute_cache *cute_cache_open(const cute_cache_opts *o)
{
    cute_cache_opts def;
    if (!o) cute_cache_opts_from_env(&def), o = &def;
    cute_cache *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    pthread_mutex_init(&c->lock, NULL);
    c->disabled = o->disabled;
    c->memory = !o->no_memory;
    c->keep = o->keep;
    c->lineinfo = o->lineinfo;
    c->memory_limit = o->memory_limit ? o->memory_limit : (size_t)256 << 20;
    c->seed = random_seed(c);
    if (!o->no_disk && !o->disabled) {
        char def_dir[4096], err[1024];
        const char *dir = o->dir;
        if (!dir && cute_cache_default_dir(def_dir, sizeof def_dir)) dir = def_dir;
        if (!dir)
            set_msg(c, "no cache directory (set CUTEC_CACHE_DIR or HOME): memory only");
        else if (!cache_mkdirs(dir, err, sizeof err) || !cache_dir_trusted(dir, err, sizeof err))
            set_msg(c, "%s: memory only", err);
        else if (!(c->dir = strdup(dir)))
            return cute_cache_close(c), NULL;
    }
    const char *dump = o->dump_dir ? o->dump_dir : c->dir;
    if (dump && !(c->dump_dir = strdup(dump))) return cute_cache_close(c), NULL;
    return c;
}

static void map_free(cute_cache *c)
{
    for (size_t i = 0; i < c->cap; i++) free(c->slots[i].bytes);
    free(c->slots);
    c->slots = NULL;
    c->cap = c->filled = c->memory_used = 0;
}

void cute_cache_close(cute_cache *c)
{
    if (!c) return;
    map_free(c);
    pthread_mutex_destroy(&c->lock);
    free(c->dir);
    free(c->dump_dir);
    free(c);
}

const char *cute_cache_dir(const cute_cache *c)
{
    return c->dir;
}
const char *cute_cache_dump_dir(const cute_cache *c)
{
    return c->dump_dir;
}
bool cute_cache_enabled(const cute_cache *c)
{
    return !c->disabled;
}
unsigned cute_cache_keep(const cute_cache *c)
{
    return c->keep;
}
bool cute_cache_lineinfo(const cute_cache *c)
{
    return c->lineinfo;
}
const char *cute_cache_message(const cute_cache *c)
{
    return c->msg;
}

void cute_cache_stats_get(const cute_cache *c, cute_cache_stats *out)
{
    pthread_mutex_lock((pthread_mutex_t *)&c->lock);
    *out = c->stats;
    pthread_mutex_unlock((pthread_mutex_t *)&c->lock);
}

/* --- the memory map (callers hold the lock) ------------------------------------------ */

static size_t key_hash(const cute_cache_key *k)
{
    size_t h;
    memcpy(&h, k->b, sizeof h);
    return h;
}

/* the slot holding k, or NULL */
static slot *map_find(cute_cache *c, const cute_cache_key *k)
{
    if (!c->cap) return NULL;
    for (size_t i = key_hash(k) & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
        slot *s = &c->slots[i];
        if (!s->used) return NULL;
        if (!s->dead && memcmp(s->key.b, k->b, sizeof k->b) == 0) return s;
    }
}

static void map_remove(cute_cache *c, const cute_cache_key *k)
{
    slot *s = map_find(c, k);
    if (!s) return;
    free(s->bytes);
    c->memory_used -= s->len;
    s->bytes = NULL, s->len = 0, s->dead = true;
}

static bool map_grow(cute_cache *c)
{
    size_t cap = c->cap ? c->cap * 2 : 64;
    slot *slots = calloc(cap, sizeof *slots), *old = c->slots;
    if (!slots) return false;
    size_t oldcap = c->cap;
    c->slots = slots, c->cap = cap, c->filled = 0;
    for (size_t i = 0; i < oldcap; i++) {
        if (!old[i].used || old[i].dead) continue;
        size_t j = key_hash(&old[i].key) & (cap - 1);
        while (slots[j].used) j = (j + 1) & (cap - 1);
        slots[j] = old[i];
        c->filled++;
    }
    free(old);
    return true;
}

/* Keep a copy of bytes under k.  Past the memory limit the map starts over: entries are
 * on disk, and a process that compiles that much is rare. */
static void map_put(cute_cache *c, const cute_cache_key *k, const void *bytes, size_t len)
{
    if (len > c->memory_limit) return;
    map_remove(c, k);
    if (c->memory_used + len > c->memory_limit) map_free(c);
    if ((c->filled + 1) * 4 > c->cap * 3 && !map_grow(c)) return;
    void *copy = malloc(len ? len : 1);
    if (!copy) return;
    memcpy(copy, bytes, len);
    size_t i = key_hash(k) & (c->cap - 1);
    while (c->slots[i].used && !c->slots[i].dead) i = (i + 1) & (c->cap - 1);
    if (!c->slots[i].used) c->filled++;
    c->slots[i] = (slot){true, false, *k, copy, len};
    c->memory_used += len;
}

/* --- get / put ----------------------------------------------------------------------- */

static bool copy_out(const void *src, size_t len, void **bytes, size_t *n)
{
    void *p = malloc(len ? len : 1);
    if (!p) return false;
    memcpy(p, src, len);
    *bytes = p, *n = len;
    return true;
}

/* the disk's answer for k, under the lock's protection for the counters and the map */
static bool disk_get(cute_cache *c, const cute_cache_key *k, void **bytes, size_t *len)
{
    char err[1024] = "";
    cache_read_result r = cache_entry_read(c->dir, k, bytes, len, err, sizeof err);
    pthread_mutex_lock(&c->lock);
    if (r == CACHE_READ_OK) {
        c->stats.disk_hits++;
        if (c->memory) map_put(c, k, *bytes, *len);
    } else if (r != CACHE_READ_MISSING) {
        if (r == CACHE_READ_CORRUPT) c->stats.corrupt++;
        set_msg(c, "%s", err);
    }
    pthread_mutex_unlock(&c->lock);
    return r == CACHE_READ_OK;
}

bool cute_cache_get(cute_cache *c, const cute_cache_key *k, void **bytes, size_t *len)
{
    *bytes = NULL, *len = 0;
    if (c->disabled) return false;
    pthread_mutex_lock(&c->lock);
    slot *s = c->memory ? map_find(c, k) : NULL;
    bool hit = s && copy_out(s->bytes, s->len, bytes, len);
    if (hit) c->stats.memory_hits++;
    pthread_mutex_unlock(&c->lock);
    if (!hit && c->dir) hit = disk_get(c, k, bytes, len);
    if (!hit) {
        pthread_mutex_lock(&c->lock);
        c->stats.misses++;
        pthread_mutex_unlock(&c->lock);
    }
    return hit;
}

bool cute_cache_put(cute_cache *c, const cute_cache_key *k, const void *bytes, size_t len)
{
    if (c->disabled) return false;
    bool ok = c->memory;
    if (c->memory) {
        pthread_mutex_lock(&c->lock);
        map_put(c, k, bytes, len);
        pthread_mutex_unlock(&c->lock);
    }
    char err[1024] = "";
    bool disk = c->dir && cache_entry_write(c->dir, k, next_unique(c), bytes, len, err, sizeof err);
    pthread_mutex_lock(&c->lock);
    c->stats.puts++;
    if (c->dir && !disk) set_msg(c, "%s", err);
    ok = ok || disk;
    if (!ok) c->stats.put_failures++;
    pthread_mutex_unlock(&c->lock);
    return ok;
}

void cute_cache_remove(cute_cache *c, const cute_cache_key *k)
{
    pthread_mutex_lock(&c->lock);
    map_remove(c, k);
    pthread_mutex_unlock(&c->lock);
    if (c->dir) cache_entry_unlink(c->dir, k);
}

bool cute_cache_write_artifact(cute_cache *c, const cute_cache_key *k, const char *ext,
                               const void *bytes, size_t len, char *path, size_t npath)
{
    char hex[2 * CUTE_CACHE_KEY_BYTES + 1], name[256], err[1024];
    if (!c->dump_dir) {
        pthread_mutex_lock(&c->lock);
        set_msg(c, "CUTEC_KEEP: no directory to write to (set CUTEC_DUMP_DIR)");
        pthread_mutex_unlock(&c->lock);
        return false;
    }
    cute_cache_key_hex(k, hex);
    snprintf(name, sizeof name, "%s.%s", hex, ext);
    if (path) snprintf(path, npath, "%s/%s", c->dump_dir, name);
    bool ok =
        cache_mkdirs(c->dump_dir, err, sizeof err) &&
        cache_write_atomic(c->dump_dir, name, next_unique(c), bytes, len, "", 0, err, sizeof err);
    if (!ok) {
        pthread_mutex_lock(&c->lock);
        set_msg(c, "CUTEC_KEEP: %s", err);
        pthread_mutex_unlock(&c->lock);
    }
    return ok;
}

bool cache_memo_read(cute_cache *c, char *buf, size_t n)
{
    char path[4096];
    struct stat st;
    const char *why;
    if (!c->dir || n < 2) return false;
    snprintf(path, sizeof path, "%s/" CACHE_MEMO_NAME, c->dir);
    int fd = cache_open_regular(path, n - 1, &st, &why);
    if (fd < 0) {
        if (why) cache_discard(path); /* not ours: the next compile writes a fresh one */
        return false;
    }
    ssize_t got = read(fd, buf, n - 1);
    close(fd);
    buf[got > 0 ? got : 0] = 0;
    return got > 0;
}

bool cache_memo_write(cute_cache *c, const char *text)
{
    char err[1024];
    return c->dir && cache_write_atomic(c->dir, CACHE_MEMO_NAME, next_unique(c), text,
                                        strlen(text), "", 0, err, sizeof err);
}

/* the map is forgotten with the files (cache_dir.c) */
void cache_forget_memory(cute_cache *c)
{
    pthread_mutex_lock(&c->lock);
    map_free(c);
    pthread_mutex_unlock(&c->lock);
}
