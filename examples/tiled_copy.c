/* A kernel of your own with a TiledCopy: B = A for a row-major f32 matrix of any size.  Each
 * block takes an 8x64 tile (zipped_divide), each of its 128 threads a 1x4 row chunk moved
 * with one 128-bit access (a UniversalCopy<uint128> atom), and the matrix's ragged edge is
 * predicated with a coordinate tensor partitioned like the data.  No index arithmetic.
 *   cc -std=c11 tiled_copy.c $(pkg-config --cflags --libs cutec) -o tiled_copy */
#include <stdio.h>
#include <stdlib.h>

#include "cutec/copy.h"
#include "cutec/jit.h"
#include "cutec/notation.h"

/* 8x16 threads (row-major), each 1x4 values: the tiler is 8x64 */
static cute_tiled_copy tiled_copy(cute_alg *a, cute_copy_atom *atom)
{
    *atom = cute_copy_atom_universal(a, CUTE_F32, 128);
    cute_layout thr = cute_layout_parse(a, "(8,16):(16,1)"), val = cute_layout_parse(a, "(1,4):(0,1)");
    return cute_make_tiled_copy_tv(a, atom, &thr, &val);
}

static void copy_kernel(cute_ctx *c, cute_tensor gA, cute_tensor gB, cute_tensor cA, cute_int m,
                        cute_int n)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_copy_atom atom;
    cute_tiled_copy tc = tiled_copy(a, &atom);
    cute_thr_copy thr = cute_tiled_copy_slice(&tc, cute_thread_idx(c, 0));
    cute_tuple tile = cute_tuple_fmt(a, "((_,_),%I)", cute_block_idx(c, 0)); /* this block's */
    cute_tensor tA = cute_partition_S(c, thr, cute_tensor_slice(c, gA, tile));
    cute_tensor tB = cute_partition_D(c, thr, cute_tensor_slice(c, gB, tile));
    cute_tensor tP = cute_partition_S(c, thr, cute_tensor_slice(c, cA, tile));
    cute_ssa inside = cute_elem_less(c, tP, cute_tuple_fmt(a, "(%I,%I)", m, n));
    cute_tensor r = cute_make_fragment_like(c, tA);
    cute_copy_if(c, &atom, inside, tA, r);
    cute_copy_if(c, &atom, inside, r, tB);
}

static void copy_host(cute_ctx *c, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor mA = arg[0].tensor, mB = arg[1].tensor;
    cute_tiler tile = cute_tiler_parse(a, "(8,64)");
    cute_tensor gA = cute_tensor_zipped_divide(c, mA, &tile); /* ((8,64),(M/8,N/64)) */
    cute_tensor gB = cute_tensor_zipped_divide(c, mB, &tile);
    cute_tensor cA = cute_tensor_zipped_divide(c, cute_make_identity_tensor(c, mA.layout.shape), &tile);
    cute_layout tiles = {cute_tuple_get(&gA.layout.shape, 1), cute_tuple_get(&gA.layout.stride, 1)};
    cute_launch_cfg cfg = {.grid = {cute_size(a, &tiles)}, .block = {cute_i(128)}};
    CUTE_LAUNCH(c, copy_kernel, cfg, gA, gB, cA, mA.layout.shape.leaf[0], mA.layout.shape.leaf[1]);
}

int main(void)
{
    char err[2048];
    cute_runtime *rt;
    if (cute_runtime_new(NULL, &rt, err, sizeof err) != CUTE_OK) return printf("%s\n", err), 1;
    /* any rows; columns a multiple of 4 and 16-byte aligned rows, so 128-bit accesses hold */
    cute_arg_spec specs[2] = {cute_spec_tensor_compact(CUTE_F32, "(?,?{div=4})", true, 16),
                              cute_spec_tensor_compact(CUTE_F32, "(?,?{div=4})", true, 16)};
    const cute_fn *f = cute_compile(rt, "tiled_copy", copy_host, NULL, 2, specs, err, sizeof err);
    if (!f) return printf("compile: %s\n", err), 1;
    enum { M = 21, N = 140 };
    static float ha[M * N], hb[M * N];
    for (int i = 0; i < M * N; i++) ha[i] = (float)rand(), hb[i] = -1.0f;
    cute_backend *b = cute_runtime_backend(rt);
    cute_buffer A, B;
    b->vt->alloc(b->self, sizeof ha, &A), b->vt->alloc(b->self, sizeof hb, &B);
    b->vt->upload(b->self, &A, 0, ha, sizeof ha), b->vt->upload(b->self, &B, 0, hb, sizeof hb);
    int64_t shape[2] = {M, N}, stride[2] = {N, 1};
    cute_call_arg args[2] = {cute_call_tensor(&A, 0, CUTE_F32, 2, shape, stride),
                             cute_call_tensor(&B, 0, CUTE_F32, 2, shape, stride)};
    cute_status s = cute_call(f, NULL, 2, args, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s != CUTE_OK) return printf("call: %s\n", err), 1;
    b->vt->download(b->self, hb, &B, 0, sizeof hb);
    int bad = 0;
    for (int i = 0; i < M * N; i++) bad += hb[i] != ha[i];
    printf("tiled copy %dx%d on %s: %d of %d wrong\n", M, N, cute_runtime_backend_name(rt), bad,
           M * N);
    cute_fn_free(f);
    b->vt->free(b->self, &A), b->vt->free(b->self, &B);
    cute_runtime_free(rt);
    return bad != 0;
}
