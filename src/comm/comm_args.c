/* What a collective's tensors must be (comm_internal.h): one dense tensor a rank, one dtype
 * that NCCL moves, the element counts the collective implies, and send and recv apart or
 * in place the way NCCL allows. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "comm_internal.h"
#include "nccl_lib.h"

const char *comm_name(comm_collective k)
{
    static const char *const names[] = {"cute_comm_all_reduce", "cute_comm_reduce_scatter",
                                        "cute_comm_all_gather"};
    return names[k];
}

static cute_status bad(cute_status s, char *err, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* NCCL's type for d, or -1 */
static int nccl_type(int version, cute_dtype d)
{
    switch (d) {
    case CUTE_I8: return NCCL_INT8;
    case CUTE_U8: return NCCL_UINT8;
    case CUTE_I32: return NCCL_INT32;
    case CUTE_U32: return NCCL_UINT32;
    case CUTE_I64: return NCCL_INT64;
    case CUTE_U64: return NCCL_UINT64;
    case CUTE_F16: return NCCL_FLOAT16;
    case CUTE_BF16: return NCCL_BFLOAT16;
    case CUTE_F32: return NCCL_FLOAT32;
    case CUTE_F64: return NCCL_FLOAT64;
    case CUTE_E4M3: return version >= NCCL_FP8_SINCE ? NCCL_FLOAT8E4M3 : -1;
    case CUTE_E5M2: return version >= NCCL_FP8_SINCE ? NCCL_FLOAT8E5M2 : -1;
    default: return -1;
    }
}

static int cmp_mode(const void *a, const void *b)
{
    const int64_t *x = a, *y = b; /* {stride, extent} */
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* x's element count when it is a dense tensor inside its buffer, else -1 */
static int64_t dense_count(const cute_call_arg *x)
{
    if (x->kind != CUTE_ARG_TENSOR || !x->buf || x->ndim < 0 || x->ndim > 8) return -1;
    int64_t modes[8][2], count = 1, next = 1;
    int m = 0;
    for (int i = 0; i < x->ndim; i++) {
        if (x->shape[i] < 0 || __builtin_mul_overflow(count, x->shape[i], &count)) return -1;
        if (x->shape[i] > 1) modes[m][0] = x->stride[i], modes[m++][1] = x->shape[i];
    }
    qsort(modes, (size_t)m, sizeof *modes, cmp_mode);
    for (int i = 0; i < m; i++) {
        if (modes[i][0] != next) return -1;
        next *= modes[i][1];
    }
    int64_t bytes = count * cute_dtype_bytes(x->dtype);
    if (x->offset > x->buf->bytes || (uint64_t)bytes > x->buf->bytes - x->offset) return -1;
    return count;
}

static cute_status bad(cute_status s, char *err, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static cute_status bad(cute_status s, char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return s;
}

/* a dense tensor's strides are positive (dense_count): its first element is at its offset */
char *comm_start(const cute_call_arg *x) { return (char *)x->buf->ptr + x->offset; }

/* send and recv of one rank: apart, or in place as NCCL allows it (recv's start for
 * all-reduce; the rank's run of the larger one for reduce-scatter and all-gather) */
static bool apart_or_in_place(comm_collective k, const cute_call_arg *s, const cute_call_arg *r,
                              int64_t ns, int64_t nr, int rank)
{
    int64_t es = cute_dtype_bytes(s->dtype);
    char *s0 = comm_start(s), *s1 = s0 + ns * es, *r0 = comm_start(r), *r1 = r0 + nr * es;
    if (s1 <= r0 || r1 <= s0) return true;
    if (k == COMM_ALL_REDUCE) return s0 == r0;
    if (k == COMM_REDUCE_SCATTER) return r0 == s0 + (int64_t)rank * nr * es;
    return s0 == r0 + (int64_t)rank * ns * es;
}

/* the collective's tensors checked: NCCL's element count (recv's for reduce-scatter, send's
 * otherwise) and type */
cute_status comm_check_call(int nranks, int nccl_version, comm_collective k,
                            const cute_call_arg *send, const cute_call_arg *recv, int op,
                            size_t *count, int *type, char *err, size_t n)
{
    const char *what = comm_name(k);
    if (nranks < 1 || !send || !recv)
        return bad(CUTE_ERR_INVALID, err, n, "%s: %s", what,
                   nranks < 1 ? "no communicator" : !send ? "the send array is NULL"
                                                          : "the recv array is NULL");
    if (k != COMM_ALL_GATHER && (op < CUTE_COMM_SUM || op > CUTE_COMM_AVG))
        return bad(CUTE_ERR_INVALID, err, n, "%s: no reduction op %d", what, op);
    int64_t ns0 = 0, nr0 = 0;
    for (int i = 0; i < nranks; i++) {
        int64_t ns = dense_count(&send[i]), nr = dense_count(&recv[i]);
        if (ns < 0 || nr < 0)
            return bad(CUTE_ERR_INVALID, err, n, "%s: rank %d's %s is not a dense tensor inside its "
                       "buffer", what, i, ns < 0 ? "send" : "recv");
        if (send[i].dtype != send[0].dtype || recv[i].dtype != send[0].dtype)
            return bad(CUTE_ERR_INVALID, err, n, "%s: rank %d's send and recv are %s and %s, rank "
                       "0's send %s: one dtype for every tensor", what, i,
                       cute_dtype_name(send[i].dtype), cute_dtype_name(recv[i].dtype),
                       cute_dtype_name(send[0].dtype));
        if (i == 0) ns0 = ns, nr0 = nr;
        if (ns != ns0 || nr != nr0)
            return bad(CUTE_ERR_INVALID, err, n, "%s: rank %d's send and recv hold %lld and %lld "
                       "elements, rank 0's %lld and %lld", what, i, (long long)ns, (long long)nr,
                       (long long)ns0, (long long)nr0);
        if (!apart_or_in_place(k, &send[i], &recv[i], ns, nr, i))
            return bad(CUTE_ERR_INVALID, err, n, "%s: rank %d's send and recv overlap (in place, "
                       "NCCL wants %s)", what, i, k == COMM_ALL_REDUCE ? "the same start"
                       : "the rank's run of the larger tensor");
    }
    bool fits = k == COMM_ALL_REDUCE ? nr0 == ns0
              : k == COMM_REDUCE_SCATTER ? ns0 % nranks == 0 && nr0 == ns0 / nranks
                                    : nr0 == ns0 * nranks;
    if (!fits)
        return bad(CUTE_ERR_INVALID, err, n, "%s: send holds %lld elements and recv %lld; over %d "
                   "ranks recv must hold %s", what, (long long)ns0, (long long)nr0, nranks,
                   k == COMM_ALL_REDUCE ? "as many" : k == COMM_REDUCE_SCATTER ? "send's / ranks"
                                                                     : "send's * ranks");
    if ((*type = nccl_type(nccl_version, (cute_dtype)send[0].dtype)) < 0)
        return bad(CUTE_ERR_UNSUPPORTED, err, n, "%s: NCCL %d takes no %s tensors", what,
                   nccl_version, cute_dtype_name(send[0].dtype));
    *count = (size_t)(k == COMM_REDUCE_SCATTER ? nr0 : ns0);
    return CUTE_OK;
}

