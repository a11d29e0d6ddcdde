/* cuda_keep.h — CUTEC_KEEP: a compile's artifacts written beside the cache, named by key. */
#ifndef CUTEC_RUNTIME_CUDA_KEEP_H
#define CUTEC_RUNTIME_CUDA_KEEP_H

#include "cutec/cache.h"

/* Write what keep asks for: <key>.cu (source), <key>.ptx, <key>.cubin, <key>.sass (by
 * `cuobjdump -sass` on the cubin; without cuobjdump the file says so).  ptx may be NULL.
 * Best effort: a failure is noted in cute_cache_message and never fails the compile. */
void cuda_keep_artifacts(cute_cache *c, const cute_cache_key *k, unsigned keep, const char *source,
                         const char *ptx, const void *cubin, size_t cubin_len);

/* `cuobjdump -sass cubin > sass` (cuobjdump from PATH, else /usr/local/cuda/bin); false
 * when it cannot run or fails */
bool cuda_keep_disassemble(const char *cubin, const char *sass);

#endif
