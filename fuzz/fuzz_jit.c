/* A libFuzzer target for the JIT's spec strings and call checks.
 *
 * The input (binary):
 *   byte 0..3   spec 0: kind, dtype, compact (0 layout, 1 column-, 2 row-major shape),
 *               log2 of the alignment; then its text up to '\n'
 *   then        spec 1 likewise (an int spec: "?", "?{div=N}", a number)
 *   then        the call: per argument, kind, dtype, ndim (any byte: -128..127),
 *               offset (u32), buffer bytes (u64), then ndim pairs (shape, stride) of i64
 * The host function launches nothing, so a call runs every argument check (spec kinds,
 * dtypes, ranks, static leaves, divisibility, bounds, the buffer's extent) and nothing
 * else.  Beyond "no crash, no UB, no leak": a compile either gives a function or an error
 * message; a call is CUTE_OK or CUTE_ERR_INVALID with a message; and an accepted tensor
 * lies inside its buffer (checked here again in 128-bit arithmetic). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/jit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct reader {
    const uint8_t *p, *end;
} reader;

static uint64_t take(reader *r, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes && r->p < r->end; i++) v |= (uint64_t)*r->p++ << 8 * i;
    return v;
}

static cute_arg_spec read_spec(reader *r)
{
    cute_arg_spec s;
    memset(&s, 0, sizeof s);
    s.kind = (uint8_t)take(r, 1);
    s.dtype = (uint8_t)take(r, 1);
    s.compact = (uint8_t)(take(r, 1) % 4);
    s.align = 1 << (take(r, 1) % 8);
    size_t n = 0;
    while (r->p < r->end && *r->p != '\n' && n + 1 < sizeof s.layout) s.layout[n++] = (char)*r->p++;
    if (r->p < r->end) r->p++;
    return s;
}

static void nothing(cute_ctx *c, const cute_arg *args)
{
    (void)c, (void)args;
}

/* an accepted tensor's elements lie in its buffer: recomputed in 128 bits */
static void check_inside(const cute_call_arg *x)
{
    __int128 lo = 0, hi = 0;
    for (int i = 0; i < x->ndim; i++) {
        if (x->shape[i] == 0) return;
        __int128 span = (__int128)(x->shape[i] - 1) * x->stride[i];
        if (span < 0) lo += span; else hi += span;
    }
    cute_dtype d = (cute_dtype)x->dtype; /* e2m1: two elements a byte */
    __int128 ebits = cute_dtype_is_packed(d) ? cute_dtype_bits(d) : 8 * cute_dtype_bytes(d);
    __int128 first = lo * ebits, end = (hi + 1) * ebits;
    first = first >= 0 ? first / 8 : -((-first + 7) / 8); /* floor */
    end = (end + 7) / 8;                                  /* ceil (end > 0) */
    if ((__int128)x->offset + first < 0 || (__int128)x->offset + end > (__int128)x->buf->bytes)
        abort();
}

static void call(const cute_fn *f, reader *r)
{
    cute_call_arg args[2];
    cute_buffer bufs[2];
    for (int k = 0; k < 2; k++) {
        memset(&args[k], 0, sizeof args[k]);
        args[k].kind = (uint8_t)(take(r, 1) % 3);
        args[k].dtype = (uint8_t)take(r, 1);
        args[k].ndim = (int8_t)take(r, 1);
        args[k].offset = (size_t)take(r, 4);
        bufs[k] = (cute_buffer){(void *)(uintptr_t)4096, (size_t)take(r, 8), 0, 0};
        args[k].buf = &bufs[k]; /* never dereferenced: nothing is launched */
        args[k].i = (int64_t)take(r, 8);
        for (int i = 0; i < 8 && i < args[k].ndim; i++)
            args[k].shape[i] = (int64_t)take(r, 8), args[k].stride[i] = (int64_t)take(r, 8);
    }
    char err[1024] = "";
    cute_status s = cute_call(f, NULL, 2, args, err, sizeof err);
    if (s != CUTE_OK && s != CUTE_ERR_INVALID) abort();
    if (s == CUTE_ERR_INVALID && !err[0]) abort();
    for (int k = 0; k < 2 && s == CUTE_OK; k++)
        if (args[k].kind == CUTE_ARG_TENSOR && args[k].ndim >= 0 && args[k].ndim <= 8)
            check_inside(&args[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cute_runtime *rt;
    char err[1024] = "";
    if (!rt && cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) abort();
    reader r = {data, data + size};
    cute_arg_spec specs[2] = {read_spec(&r), read_spec(&r)};
    const cute_fn *f = cute_compile(rt, "fuzz", nothing, NULL, 2, specs, err, sizeof err);
    if (!f && !err[0]) abort(); /* a refusal says why */
    if (f) call(f, &r);
    cute_fn_free(f);
    return 0;
}
