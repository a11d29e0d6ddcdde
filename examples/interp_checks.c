/* Your own kernel on the interpreter, which checks every access: y = 2 x over a vector cut
 * into tiles of 256, first written without the bounds predicate (the classic mistake: the
 * last tile runs past the end), then with it.  The interpreter stops the first at the bad
 * access and names the block, the thread, the buffer and the line of this file that made
 * it; the second runs clean and is checked.  Needs no GPU.
 *   cc -std=c11 interp_checks.c $(pkg-config --cflags --libs cutec) -o interp_checks */
#include <stdio.h>
#include <string.h>

#include "cutec/copy.h"
#include "cutec/jit.h"
#include "cutec/notation.h"

enum { THREADS = 64, VALS = 4 }; /* a tile is THREADS * VALS elements */

static void scale_kernel(cute_ctx *c, cute_tensor gX, cute_tensor gY, cute_tensor cX, cute_int n)
{
    bool predicated = *(const bool *)cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_copy_atom atom = cute_copy_atom_universal(a, CUTE_F32, 32);
    cute_layout thr = cute_layout_fmt(a, "%d:%d", THREADS, VALS);
    cute_layout val = cute_layout_fmt(a, "%d:1", VALS);
    cute_tiled_copy tc = cute_make_tiled_copy_tv(a, &atom, &thr, &val);
    cute_thr_copy t = cute_tiled_copy_slice(&tc, cute_thread_idx(c, 0));
    cute_tuple tile = cute_tuple_fmt(a, "(_,%I)", cute_block_idx(c, 0));
    cute_tensor tX = cute_partition_S(c, t, cute_tensor_slice(c, gX, tile));
    cute_tensor tY = cute_partition_D(c, t, cute_tensor_slice(c, gY, tile));
    cute_tensor r = cute_make_fragment_like(c, tX);
    cute_ssa inside = cute_elem_less(c, cute_partition_S(c, t, cute_tensor_slice(c, cX, tile)),
                                     CUTE_CRD(n));
    if (predicated) cute_copy_if(c, &atom, inside, tX, r);
    else cute_copy(c, &atom, tX, r); /* the mistake: the last tile reads past the end */
    cute_ssa x = cute_tensor_load(c, r);
    cute_tensor_store(c, r, cute_ssa_binop(c, CUTE_OP_ADD, x, x));
    if (predicated) cute_copy_if(c, &atom, inside, r, tY);
    else cute_copy(c, &atom, r, tY);
}

static void scale_host(cute_ctx *c, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tiler tile = cute_tiler_parse(a, "256"); /* THREADS * VALS */
    cute_tensor gX = cute_tensor_zipped_divide(c, arg[0].tensor, &tile); /* (256, tiles) */
    cute_tensor gY = cute_tensor_zipped_divide(c, arg[1].tensor, &tile);
    cute_tensor cX = cute_tensor_zipped_divide(c, cute_make_identity_tensor(c, arg[0].tensor.layout.shape), &tile);
    cute_layout tiles = {cute_tuple_get(&gX.layout.shape, 1), cute_tuple_get(&gX.layout.stride, 1)};
    cute_launch_cfg cfg = {.grid = {cute_size(a, &tiles)}, .block = {cute_i(THREADS)}};
    CUTE_LAUNCH(c, scale_kernel, cfg, gX, gY, cX, arg[0].tensor.layout.shape.leaf[0]);
}

/* compile and run one version on x[0..n): the call's status, its report in err */
static cute_status run(cute_runtime *rt, bool predicated, const float *x, float *y, int n,
                       char *err, size_t errn)
{
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, "?:1", 4), cute_spec_tensor(CUTE_F32, "?:1", 4)};
    const cute_fn *f = cute_compile(rt, "scale", scale_host, &predicated, 2, specs, err, errn);
    if (!f) return CUTE_ERR_INVALID;
    cute_backend *b = cute_runtime_backend(rt);
    cute_buffer X, Y;
    b->vt->alloc(b->self, n * sizeof *x, &X), b->vt->alloc(b->self, n * sizeof *y, &Y);
    b->vt->upload(b->self, &X, 0, x, n * sizeof *x), b->vt->upload(b->self, &Y, 0, y, n * sizeof *y);
    int64_t shape[1] = {n}, stride[1] = {1};
    cute_call_arg args[2] = {cute_call_tensor(&X, 0, CUTE_F32, 1, shape, stride),
                             cute_call_tensor(&Y, 0, CUTE_F32, 1, shape, stride)};
    cute_status s = cute_call(f, NULL, 2, args, err, errn);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    b->vt->download(b->self, y, &Y, 0, n * sizeof *y);
    b->vt->free(b->self, &X), b->vt->free(b->self, &Y);
    cute_fn_free(f);
    return s;
}

int main(void)
{
    char err[4096];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) return printf("%s\n", err), 1;
    enum { N = 1000 }; /* 4 tiles, the last one 232 elements short */
    static float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = (float)(i % 97) - 48.5f, y[i] = -7.0f;
    cute_status s = run(rt, false, x, y, N, err, sizeof err);
    printf("without the predicate: %s\n%s\n", cute_status_name(s), err);
    bool caught = s == CUTE_ERR_CHECK && strstr(err, "interp_checks.c:");
    s = run(rt, true, x, y, N, err, sizeof err);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += y[i] != 2 * x[i];
    printf("with it: %s, %d of %d wrong\n", s == CUTE_OK ? "ran clean" : err, bad, N);
    cute_runtime_free(rt);
    return !caught || s != CUTE_OK || bad != 0;
}
