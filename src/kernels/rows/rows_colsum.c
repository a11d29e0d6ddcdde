/* The second pass of dw/db: out(N) = the sums of the columns of the blocks' partial rows
 * (P,N) f32, in a fixed order (no atomics: the same bits every run).  A block of 32
 * columns by 8 row lanes; each thread sums every 8th partial row of its column, then one
 * row lane adds the 8 sums through shared memory. */
#include <stdio.h>

#include "cutec/notation.h"
#include "kernels/rows/rows_lib.h"

enum { COLS = 32, LANES = 8 };

static void colsum_kernel(cute_ctx *c, cute_tensor gP, cute_tensor cP, cute_tensor gOut, cute_tensor cOut,
                          cute_int rows, cute_int cols)
{
    cute_tuple shape = CUTE_CRD(rows, cols);
    cute_alg *a = cute_ctx_alg(c);
    cute_int tx = cute_thread_idx(c, 0), ty = cute_thread_idx(c, 1), bid = cute_block_idx(c, 0);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_tensor sSum = cute_smem_alloc_tensor(c, &A, CUTE_F32, cute_layout_fmt(a, "(%d,%d):(%d,1)", LANES, COLS, COLS), 16);
    cute_tuple one = cute_tuple_int(cute_i(1));
    cute_val acc = cute_val_var(c, cute_val_const(c, CUTE_F32, 0));
    cute_layout blocks = cute_get(a, &gP.layout, 1), row_blocks = cute_get(a, &blocks, 0);
    CUTE_FOR(c, pb, cute_i(0), cute_size(a, &row_blocks)) {
        cute_tuple at = CUTE_CRD(CUTE_CRD(ty, tx), CUTE_CRD(pb, bid));
        cute_ssa in = cute_elem_less(c, cute_tensor_slice(c, cP, at), shape);
        cute_ssa v = cute_tensor_load_if(c, cute_tensor_slice(c, gP, at), in, 0);
        cute_val_assign(c, acc, cute_val_binop(c, CUTE_OP_ADD, acc, cute_ssa_get(c, v, 0)));
    }
    cute_tensor_store(c, cute_tensor_slice(c, sSum, CUTE_CRD(ty, tx)), cute_ssa_scalar(c, acc, one));
    cute_barrier(c);
    CUTE_IF(c, cute_int_eq(c, ty, cute_i(0))) {
        cute_ssa column = cute_tensor_load(c, cute_tensor_slice(c, sSum, CUTE_CRD(CUTE_ALL, tx)));
        cute_val sum = cute_ssa_reduce(c, CUTE_OP_ADD, column);
        cute_tuple at = CUTE_CRD(tx, bid);
        cute_ssa in = cute_elem_less(c, cute_tensor_slice(c, cOut, at), cute_tuple_int(cols));
        cute_ssa out = cute_ssa_cvt(c, cute_ssa_scalar(c, sum, one), (cute_dtype)gOut.dtype);
        cute_tensor_store_if(c, cute_tensor_slice(c, gOut, at), out, in);
    }
}

static void colsum_host(cute_ctx *c, const cute_arg *args)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor P = args[0].tensor, out = args[1].tensor;
    cute_tuple tile = cute_tuple_fmt(a, "(%d,%d)", LANES, COLS), cols = cute_tuple_int(cute_i(COLS));
    cute_tiler by_tile = cute_tiler_shape(a, &tile), by_cols = cute_tiler_shape(a, &cols);
    cute_tuple shape = P.layout.shape;
    cute_tensor gP = cute_tensor_zipped_divide(c, P, &by_tile);
    cute_tensor cP = cute_tensor_zipped_divide(c, cute_make_identity_tensor(c, shape), &by_tile);
    cute_tensor gOut = cute_tensor_zipped_divide(c, out, &by_cols);
    cute_tensor cOut = cute_tensor_zipped_divide(c, cute_make_identity_tensor(c, out.layout.shape), &by_cols);
    cute_layout rest = cute_get(a, &gOut.layout, 1);
    cute_launch_cfg cfg = {.grid = {cute_size(a, &rest)}, .block = {cute_i(COLS), cute_i(LANES)}};
    CUTE_LAUNCH(c, colsum_kernel, cfg, gP, cP, gOut, cOut, shape.leaf[0], shape.leaf[1]);
}

static const cute_fn *make_colsum(cute_runtime *rt, const void *key, const void *dtype, char *err,
                                  size_t n)
{
    (void)key;
    cute_dtype d = *(const cute_dtype *)dtype;
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, "(?,?):(?,1)", 4), cute_spec_tensor(d, "?:1", cute_dtype_bytes(d))};
    return cute_compile(rt, "column_sums", colsum_host, NULL, 2, specs, err, n);
}

cute_status rows_colsum(cutec_rows *lib, const cute_buffer *buf, size_t offset, int64_t rows,
                        const cute_call_arg *out, void *stream, char *err, size_t n)
{
    cute_dtype d = (cute_dtype)out->dtype;
    char key[64];
    snprintf(key, sizeof key, "column_sums/%s", cute_dtype_name(d));
    const cute_fn *fn = rows_lib_find(lib, key, make_colsum, &d, err, n);
    if (!fn) return CUTE_ERR_COMPILE;
    int64_t shape[2] = {rows, out->shape[0]}, stride[2] = {out->shape[0], 1};
    cute_call_arg args[2] = {cute_call_tensor(buf, offset, CUTE_F32, 2, shape, stride), *out};
    return cute_call(fn, stream, 2, args, err, n);
}
