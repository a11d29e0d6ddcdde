/* cli_mirror: a buffer on the host and the device (mirror.h) */
#include "cli/mirror.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/gemm/gemm_ref.h"

bool cli_mirror_alloc(cute_backend *b, cli_mirror *m, size_t bytes)
{
    m->bytes = bytes;
    m->host = malloc(bytes);
    if (m->host && b->vt->alloc(b->self, bytes, &m->dev) == CUTE_OK) return true;
    free(m->host);
    m->host = NULL;
    return false;
}

bool cli_mirror_gaussian(cute_backend *b, cli_mirror *m, cute_dtype d, uint64_t *seed)
{
    gemm_ref_fill_pooled(d, m->host, (int64_t)(m->bytes / (size_t)cute_dtype_bytes(d)), seed);
    return b->vt->upload(b->self, &m->dev, 0, m->host, m->bytes) == CUTE_OK;
}

bool cli_mirror_poison(cute_backend *b, cli_mirror *m)
{
    memset(m->host, 0xff, m->bytes);
    return b->vt->upload(b->self, &m->dev, 0, m->host, m->bytes) == CUTE_OK;
}

bool cli_mirror_download(cute_backend *b, cli_mirror *m)
{
    return b->vt->download(b->self, m->host, &m->dev, 0, m->bytes) == CUTE_OK;
}

void cli_mirrors_free(cute_backend *b, cli_mirror *m, int n)
{
    for (int i = 0; i < n; i++)
        if (m[i].host) b->vt->free(b->self, &m[i].dev), free(m[i].host), m[i].host = NULL;
}

cute_call_arg cli_bshd_tensor(const cute_buffer *buf, cute_dtype d, int64_t B, int64_t S, int64_t H, int64_t D)
{
    return cute_call_tensor(buf, 0, d, 4, (int64_t[]){B, S, H, D}, (int64_t[]){S * H * D, H * D, D, 1});
}
