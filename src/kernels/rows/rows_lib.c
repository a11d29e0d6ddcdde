/* The row-reduction library: arguments checked against the op's table, the plan chosen for
 * the row length and alignment, the compiled function found or made (one per plan), the
 * call; the column sums' second pass. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/cuda_driver.h"
#include "kernels/rows/rows_internal.h"
#include "kernels/resident.h"
#include "kernels/rows/rows_lib.h"

#define RESIDENT_KEYS 8
typedef struct resident_key {
    int size, threads, per_sm, clusters;
} resident_key;

struct cutec_rows {
    cute_runtime *rt;
    pthread_mutex_t lock; /* the table and the column-sum scratch */
    fn_cache fns;         /* the plans' key strings */
    cute_buffer scratch; /* column partial sums, grown as needed */
    bool dry;            /* compile, do not launch (cutec compile) */
    const cute_fn *last; /* the function the last call compiled or found */
    resident_key resident[RESIDENT_KEYS]; /* the driver's answers so far */
    int nresident;
    rows_launch launch; /* the last call's */
};

cutec_rows *cutec_rows_new(cute_runtime *rt)
{
    cutec_rows *lib = calloc(1, sizeof *lib);
    if (!lib) return NULL;
    lib->rt = rt;
    fn_cache_init(&lib->fns, 0, NULL);
    pthread_mutex_init(&lib->lock, NULL);
    return lib;
}

void cutec_rows_free(cutec_rows *lib)
{
    if (!lib) return;
    fn_cache_free(&lib->fns);
    cute_backend *b = cute_runtime_backend(lib->rt);
    if (lib->scratch.bytes) b->vt->free(b->self, &lib->scratch);
    pthread_mutex_destroy(&lib->lock);
    free(lib);
}

cute_runtime *rows_lib_runtime(cutec_rows *lib) { return lib->rt; }

/* the compiled function for a key (lock held); make() compiles it */
const cute_fn *rows_lib_find(cutec_rows *lib, const char *key, fn_cache_compile *make,
                             const void *user, char *err, size_t n)
{
    const cute_fn *fn = fn_cache_fn(&lib->fns, lib->rt, key, make, user, key, err, n);
    return fn ? lib->last = fn : NULL;
}

void rows_lib_dry_run(cutec_rows *lib, bool on) { lib->dry = on; }
bool rows_lib_dry(const cutec_rows *lib) { return lib->dry; }
const cute_fn *rows_lib_last(const cutec_rows *lib) { return lib->last; }
void rows_lib_note_launch(cutec_rows *lib, rows_launch l) { lib->launch = l; }
rows_launch rows_lib_last_launch(const cutec_rows *lib) { return lib->launch; }

void rows_lib_lock(cutec_rows *lib) { pthread_mutex_lock(&lib->lock); }
void rows_lib_unlock(cutec_rows *lib) { pthread_mutex_unlock(&lib->lock); }

/* at least `bytes` of device scratch, 16-byte aligned (lock held) */
cute_status rows_lib_scratch(cutec_rows *lib, size_t bytes, const cute_buffer **out)
{
    cute_backend *b = cute_runtime_backend(lib->rt);
    if (lib->scratch.bytes < bytes) {
        if (lib->scratch.bytes) b->vt->free(b->self, &lib->scratch);
        memset(&lib->scratch, 0, sizeof lib->scratch);
        cute_status s = b->vt->alloc(b->self, bytes, &lib->scratch);
        if (s != CUTE_OK) return memset(&lib->scratch, 0, sizeof lib->scratch), s;
    }
    *out = &lib->scratch;
    return CUTE_OK;
}

/* the blocks that keep every SM busy: the device's SM count (8 on the interpreter) times 2 */
int64_t rows_lib_resident_blocks(cutec_rows *lib)
{
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(lib->rt));
    const cute_device_info *d = cu ? cute_cuda_device(cu) : NULL;
    return 2 * (d && d->sm_count > 0 ? d->sm_count : 4);
}

/* the clusters of a persistent grid the device holds at once (kernels/resident.h), asked of
 * the driver once per kind of cluster (lock held); 0: not known */
int rows_lib_resident_clusters(cutec_rows *lib, int size, int threads, int per_sm)
{
    for (int i = 0; i < lib->nresident; i++)
        if (lib->resident[i].size == size && lib->resident[i].threads == threads && lib->resident[i].per_sm == per_sm)
            return lib->resident[i].clusters;
    int clusters = kernels_resident_clusters(lib->rt, size, threads, per_sm);
    if (lib->nresident < RESIDENT_KEYS)
        lib->resident[lib->nresident++] = (resident_key){.size = size, .threads = threads, .per_sm = per_sm, .clusters = clusters};
    return clusters;
}
