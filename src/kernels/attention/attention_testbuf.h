/* The attention tests' tensors (attention_test.c, attention_bwd_test.c): host values, their
 * exact widening to double, the device buffer; random or poisoned. */
#ifndef CUTEC_ATTENTION_TESTBUF_H
#define CUTEC_ATTENTION_TESTBUF_H

#include <stdlib.h>
#include <string.h>

#include "cutec/backend.h"
#include "kernels/ew_ref.h"

typedef struct buf {
    cute_dtype d;
    size_t n;
    void *host;
    double *wide;
    cute_buffer dev;
} buf;

/* n elements of d: random (ew_random), or poisoned (all ones bits: NaN in every float type) */
static inline void make(cute_backend *b, buf *x, cute_dtype d, size_t n, bool poison, uint64_t *seed)
{
    x->d = d, x->n = n;
    size_t es = (size_t)cute_dtype_bytes(d);
    x->host = malloc(n * es);
    x->wide = malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        if (poison)
            memset((char *)x->host + i * es, 0xff, es);
        else
            ew_set(d, x->host, (int64_t)i, ew_random(seed));
        x->wide[i] = ew_get(d, x->host, (int64_t)i);
    }
    b->vt->alloc(b->self, n * es, &x->dev);
    b->vt->upload(b->self, &x->dev, 0, x->host, n * es);
}

static inline void drop(cute_backend *b, buf *x)
{
    b->vt->free(b->self, &x->dev);
    free(x->host), free(x->wide);
}

/* the device's values back into host and wide */
static inline void fetch(cute_backend *b, buf *x)
{
    b->vt->download(b->self, x->host, &x->dev, 0, x->n * (size_t)cute_dtype_bytes(x->d));
    for (size_t i = 0; i < x->n; i++) x->wide[i] = ew_get(x->d, x->host, (int64_t)i);
}

/* (B, S, heads, D) strides: compact, or (sdpa) of memory laid out (B, heads, S, D) */
static inline void strides(int64_t S, int64_t heads, int64_t D, bool sdpa, int64_t st[4])
{
    st[0] = S * heads * D, st[3] = 1;
    st[1] = sdpa ? D : heads * D;
    st[2] = sdpa ? S * D : D;
}

#endif
