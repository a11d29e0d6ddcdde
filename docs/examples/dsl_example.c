/* A kernel written with the DSL: C = A * alpha + B for 2-D row-major tensors of any size.
 * The host function tiles the tensors with the layout algebra; the kernel slices its tile,
 * predicates the tail with a coordinate tensor, and the loads and stores vectorize where
 * the algebra proves they can.  Runs on the interpreter (or the GPU: CUTEC_BACKEND=cuda). */
#include <stdio.h>
#include <stdlib.h>

#include "cutec/kernels.h"
#include "cutec/notation.h"

enum { TM = 4, TN = 32 }; /* one thread per (row, 4-wide column chunk): a 4x32 tile per block */

static void axpby_kernel(cute_ctx *c, cute_tensor gA, cute_tensor gB, cute_tensor gC,
                         cute_tensor cC, cute_val alpha, cute_layout thr, cute_int m, cute_int n)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int tid = cute_thread_idx(c, 0), bid = cute_block_idx(c, 0);
    /* this block's tile (mode 1 of a zipped tensor says which tile: ((_,_),bid) keeps the
     * tile's two modes), then this thread's share of it */
    cute_tuple pick = cute_tuple_fmt(a, "((_,_),%I)", bid);
    cute_tensor tA = cute_tensor_local_partition(c, cute_tensor_slice(c, gA, pick), thr, tid);
    cute_tensor tB = cute_tensor_local_partition(c, cute_tensor_slice(c, gB, pick), thr, tid);
    cute_tensor tC = cute_tensor_local_partition(c, cute_tensor_slice(c, gC, pick), thr, tid);
    cute_tensor tP = cute_tensor_local_partition(c, cute_tensor_slice(c, cC, pick), thr, tid);
    /* the bounds predicate: each element's (row, column) against (m, n) */
    cute_ssa p = cute_elem_less(c, tP, cute_tuple_fmt(a, "(%I,%I)", m, n));
    cute_ssa x = cute_tensor_load_if(c, tA, p, 0.0), y = cute_tensor_load_if(c, tB, p, 0.0);
    cute_ssa ax = cute_ssa_binop(c, CUTE_OP_MUL, x, cute_ssa_scalar(c, alpha, x.shape));
    cute_tensor_store_if(c, tC, cute_ssa_binop(c, CUTE_OP_ADD, ax, y), p);
}

static void axpby_host(cute_ctx *c, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor mA = arg[0].tensor, mB = arg[1].tensor, mC = arg[2].tensor;
    cute_tiler tile = cute_tiler_parse(a, "(4,32)"); /* a 4x32 tile per block */
    cute_tensor gA = cute_tensor_zipped_divide(c, mA, &tile);
    cute_tensor gB = cute_tensor_zipped_divide(c, mB, &tile);
    cute_tensor gC = cute_tensor_zipped_divide(c, mC, &tile);
    cute_tensor cC = cute_tensor_zipped_divide(c, cute_make_identity_tensor(c, mC.layout.shape), &tile);
    /* 4x8 threads, each owning a 1x4 row chunk: thread (i,j) -> rows i, columns 4j..4j+3 */
    cute_layout thr = cute_layout_parse(a, "(4,8):(8,1)");
    cute_layout tiles = {cute_tuple_get(&gC.layout.shape, 1), cute_tuple_get(&gC.layout.stride, 1)};
    cute_launch_cfg cfg = {.grid = {cute_size(a, &tiles)}, .block = {cute_i(32)}};
    cute_int m = mC.layout.shape.leaf[0], n = mC.layout.shape.leaf[1];
    CUTE_LAUNCH(c, axpby_kernel, cfg, gA, gB, gC, cC, arg[3].f, thr, m, n);
}

int main(void)
{
    char err[2048];
    cute_runtime *rt;
    if (cute_runtime_new(NULL, &rt, err, sizeof err) != CUTE_OK) {
        printf("no runtime: %s\n", err);
        return 1;
    }
    cute_arg_spec specs[4] = {cute_spec_tensor_compact(CUTE_F32, "(?,?{div=4})", true, 16),
                              cute_spec_tensor_compact(CUTE_F32, "(?,?{div=4})", true, 16),
                              cute_spec_tensor_compact(CUTE_F32, "(?,?{div=4})", true, 16),
                              cute_spec_float(CUTE_F32)};
    const cute_fn *f = cute_compile(rt, "axpby", axpby_host, NULL, 4, specs, err, sizeof err);
    if (!f) {
        printf("compile: %s\n", err);
        return 1;
    }
    int64_t M = 10, N = 36, shape[2] = {M, N}, stride[2] = {N, 1};
    size_t bytes = (size_t)(M * N) * sizeof(float);
    float *ha = malloc(bytes), *hb = malloc(bytes), *hc = malloc(bytes);
    for (int64_t i = 0; i < M * N; i++) ha[i] = (float)i, hb[i] = 1000.0f, hc[i] = -1.0f;
    cute_backend *b = cute_runtime_backend(rt);
    cute_buffer A, B, C;
    b->vt->alloc(b->self, bytes, &A), b->vt->alloc(b->self, bytes, &B), b->vt->alloc(b->self, bytes, &C);
    b->vt->upload(b->self, &A, 0, ha, bytes), b->vt->upload(b->self, &B, 0, hb, bytes);
    b->vt->upload(b->self, &C, 0, hc, bytes);
    cute_call_arg args[4] = {cute_call_tensor(&A, 0, CUTE_F32, 2, shape, stride),
                             cute_call_tensor(&B, 0, CUTE_F32, 2, shape, stride),
                             cute_call_tensor(&C, 0, CUTE_F32, 2, shape, stride), cute_call_float(2.0)};
    char cerr[1024];
    cute_status s = cute_call(f, NULL, 4, args, cerr, sizeof cerr);
    b->vt->sync(b->self, NULL);
    b->vt->download(b->self, hc, &C, 0, bytes);
    int bad = 0;
    for (int64_t i = 0; i < M * N; i++) bad += hc[i] != 2.0f * ha[i] + 1000.0f;
    printf("axpby %lldx%lld: %s, %d wrong\n", (long long)M, (long long)N,
           s == CUTE_OK ? "ran" : cerr, bad);
    /* a call that breaks the spec: 35 columns is not a multiple of 4 */
    int64_t bad_shape[2] = {M, 35};
    args[0] = cute_call_tensor(&A, 0, CUTE_F32, 2, bad_shape, (int64_t[]){35, 1});
    s = cute_call(f, NULL, 4, args, cerr, sizeof cerr);
    printf("35 columns: %s\n", cerr);
    cute_fn_free(f);
    b->vt->free(b->self, &A), b->vt->free(b->self, &B), b->vt->free(b->self, &C);
    free(ha), free(hb), free(hc);
    cute_runtime_free(rt);
    return bad != 0;
}
