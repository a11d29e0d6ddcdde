/* Encoding a tensor map for a backend: the driver's bytes on CUDA, the packed fields on the
 * interpreter.  The driver's encodings are cached for the process: a call that launches the
 * same tensor (same pointer, shape, strides, box, swizzle ...) again reuses its 128 bytes
 * instead of calling cuTensorMapEncodeTiled (about a microsecond) at every call.  The cache
 * is a small direct-mapped table under one mutex; a collision replaces the older entry. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cutec/runtime.h"
#include "cutec/tma.h"

enum { CACHE_SLOTS = 256 };

typedef struct cache_entry {
    bool used;
    const cute_cuda *cu; /* the driver (and so the context) that encoded it */
    cute_tma_desc d;
    _Alignas(64) unsigned char map[CUTE_TMA_MAP_BYTES];
} cache_entry;

static struct {
    pthread_mutex_t lock;
    cache_entry e[CACHE_SLOTS];
    uint64_t hits, misses;
} cache = {PTHREAD_MUTEX_INITIALIZER, {{0}}, 0, 0};

/* a description with every unused field zeroed, so that equal maps compare equal bytewise */
static cute_tma_desc canonical(const cute_tma_desc *d)
{
    cute_tma_desc c;
    memset(&c, 0, sizeof c);
    c.dtype = d->dtype, c.rank = d->rank, c.address = d->address;
    c.swizzle = d->swizzle, c.l2 = d->l2, c.oob = d->oob;
    for (int i = 0; i < d->rank; i++) {
        c.dims[i] = d->dims[i];
        c.strides[i] = i ? d->strides[i] : 0;
        c.box[i] = d->box[i];
        c.elem_strides[i] = d->elem_strides[i] ? d->elem_strides[i] : 1;
    }
    return c;
}

static unsigned slot_of(const cute_cuda *cu, const cute_tma_desc *c)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)(uintptr_t)cu; /* FNV-1a over the fields */
    const unsigned char *p = (const unsigned char *)c;
    for (size_t i = 0; i < sizeof *c; i++) h = (h ^ p[i]) * 1099511628211ull;
    return (unsigned)(h % CACHE_SLOTS);
}

static bool cache_get(const cute_cuda *cu, const cute_tma_desc *c, void *map)
{
    cache_entry *e = &cache.e[slot_of(cu, c)];
    pthread_mutex_lock(&cache.lock);
    bool hit = e->used && e->cu == cu && !memcmp(&e->d, c, sizeof *c);
    if (hit) memcpy(map, e->map, CUTE_TMA_MAP_BYTES);
    hit ? cache.hits++ : cache.misses++;
    pthread_mutex_unlock(&cache.lock);
    return hit;
}

static void cache_put(const cute_cuda *cu, const cute_tma_desc *c, const void *map)
{
    cache_entry *e = &cache.e[slot_of(cu, c)];
    pthread_mutex_lock(&cache.lock);
    e->used = true, e->cu = cu, e->d = *c;
    memcpy(e->map, map, CUTE_TMA_MAP_BYTES);
    pthread_mutex_unlock(&cache.lock);
}

void cute_tma_cache_counts(uint64_t *hits, uint64_t *misses)
{
    pthread_mutex_lock(&cache.lock);
    *hits = cache.hits, *misses = cache.misses;
    pthread_mutex_unlock(&cache.lock);
}

static cute_status driver_encode(cute_cuda *cu, const cute_tma_desc *c, void *map, char *err,
                                 size_t n)
{
    if (cache_get(cu, c, map)) return CUTE_OK;
    uint64_t strides[CUTE_TMA_MAX_RANK - 1];
    for (int i = 1; i < c->rank; i++) strides[i - 1] = c->strides[i]; /* the driver's: dims 1.. */
    cute_tensor_map_desc t = {cute_tma_data_type(c->dtype), (unsigned)c->rank,
                              (void *)(uintptr_t)c->address, c->dims, strides, c->box,
                              c->elem_strides, 0, (int)c->swizzle, (int)c->l2, (int)c->oob};
    cute_status s = cute_cuda_tensor_map_encode_tiled(cu, &t, map);
    if (s != CUTE_OK) return snprintf(err, n, "%s", cute_cuda_error(cu)), s;
    cache_put(cu, c, map);
    return CUTE_OK;
}

cute_status cute_tma_encode(cute_backend *b, const cute_tma_desc *d, void *map, char *err,
                            size_t n)
{
    cute_status s = cute_tma_desc_check(d, err, n);
    if (s != CUTE_OK) return s;
    if ((uintptr_t)map % 64)
        return snprintf(err, n, "a tensor map's 128 bytes must be 64-byte aligned"), CUTE_ERR_INVALID;
    cute_tma_desc c = canonical(d);
    cute_cuda *cu = cute_cuda_backend_driver(b);
    if (cu) return driver_encode(cu, &c, map, err, n);
    if (b && b->vt && !strcmp(b->vt->name, "interp")) return cute_tma_pack(&c, map), CUTE_OK;
    snprintf(err, n, "a tensor map for the %s backend: only cuda and interp have TMA",
             b && b->vt ? b->vt->name : "(none)");
    return CUTE_ERR_UNSUPPORTED;
}
