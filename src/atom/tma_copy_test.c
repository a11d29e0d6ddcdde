/* TMA atoms end to end, through cute_compile: the host function makes the atom (and so the
 * call's tensor map), the kernel issues the copies.  Against a CPU reference on fresh random
 * data, poisoned outputs, tensors of odd extents whose edge tiles hang over:
 *  - load -> shared -> global round trip of every tile, for every swizzle and element width
 *    (1, 2, 4, 8 bytes), the kernel waiting on an mbarrier for the tile's transaction bytes:
 *    on the interpreter, and on an sm_90 GPU (else skipped);
 *  - store and reduce-add of shared tiles into a tensor (interpreter and GPU);
 *  - multicast of one tile to the two CTAs of a cluster, each loading half, on the
 *    interpreter (which runs a cluster's blocks together) and an sm_90 GPU; the multicast
 *    masks of column- and row-major cluster layouts against their definition (interpreter);
 *  - compile-only: the GPU kernels of all of it (TMA rows, mbarrier waits, clusters) as CUDA C
 *    that NVRTC compiles for sm_90a, with the SASS's UTMALDG/UTMASTG/UTMAREDG where cuobjdump
 *    would look (checked in the PTX: the rows' instructions);
 *  - misuse named at the call site: a layout TMA cannot write, a swizzle it has not, a shared
 *    tensor that is not the atom's tile, a multicast that does not divide the tile, a box
 *    that does not start at a 16-byte boundary of its rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/jit.h"
#include "cutec/nvrtc.h"
#include "cutec/numeric.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "cutec/tma_copy.h"

enum { NTHR = 128 };

typedef struct tcfg {
    cute_dtype dt;
    cute_swizzle sw; /* element units */
    int bm, bk;      /* the tile: bm rows of bk contiguous elements */
    cute_tma_op op;
} tcfg;

/* what the host function hands its kernel at trace time */
static tcfg now;
static cute_tma_atom atom_now;
static int misuse = -1; /* which misuse host_misuse and load_kernel commit (-1: none) */

static cute_tuple tile_shape(cute_ctx *c)
{
    return cute_tuple_ints(cute_ctx_alg(c), 2, (int64_t[]){now.bm, now.bk});
}

/* --- the tile's mbarrier (cutec/sync.h): the same calls on the GPU and the interpreter ---- */

/* thread 0 initializes it (one arrival: the issuing thread's); visible to the block (and
 * to the cluster's other blocks, whose multicasts complete on it) */
static void bar_init(cute_ctx *c, cute_val bar, bool cluster)
{
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)))
    {
        cute_mbarrier_init(c, bar, cute_val_int(c, CUTE_U32, 1));
        cute_mbarrier_init_fence(c);
    }
    cute_barrier(c);
    if (cluster) cute_cluster_arrive(c), cute_cluster_wait(c);
}

static void bar_expect(cute_ctx *c, cute_val bar, int64_t bytes)
{
    cute_mbarrier_arrive_and_expect_tx(c, bar, cute_val_int(c, CUTE_U32, bytes));
}

static void bar_wait(cute_ctx *c, cute_val bar)
{
    cute_mbarrier_wait(c, bar, cute_val_int(c, CUTE_U32, 0));
}

/* --- kernels ------------------------------------------------------------------------------- */

/* the block's tile in shared memory, laid out as the atom says, and its mbarrier */
static cute_tensor smem_tile(cute_ctx *c, cute_val *bar)
{
    cute_smem_allocator sa = cute_smem_allocator_new(c);
    cute_layout tile = cute_make_layout_row_major(cute_ctx_alg(c), tile_shape(c));
    cute_tensor s = cute_smem_alloc_tensor_swizzled(c, &sa, now.dt, now.sw, tile, 1024);
    *bar = cute_smem_alloc_array(c, &sa, CUTE_U64, 1, 8);
    return s;
}

/* element by element, dst <- src (two tiles of one shape), spread over the threads */
static void copy_tile(cute_ctx *c, cute_tensor src, cute_tensor dst)
{
    CUTE_FOR_STEP(c, i, cute_thread_idx(c, 0), cute_i((int64_t)now.bm * now.bk), NTHR, 0)
    {
        cute_tuple at = cute_tuple_int(i);
        cute_tensor_store(c, cute_tensor_slice(c, dst, at), cute_tensor_load(c, cute_tensor_slice(c, src, at)));
    }
}

static cute_tensor block_tile(cute_ctx *c, cute_tensor g, cute_int *coord)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int bm = cute_block_idx(c, 0), bk = cute_block_idx(c, 1);
    coord[0] = cute_mul(a, bm, cute_i(now.bm)), coord[1] = cute_mul(a, bk, cute_i(now.bk));
    cute_tuple at = cute_tuple_of(a, 2, (cute_tuple[]){cute_tuple_int(bm), cute_tuple_int(bk)});
    return cute_tensor_local_tile(c, g, tile_shape(c), at, NULL);
}

/* the block's tile of the TMA tensor of t (a coordinate tensor of t's shape: CuTe's TMA
 * tensor, whose tile's base coordinate is the box's first element) */
static cute_tensor tma_tile(cute_ctx *c, cute_tensor t)
{
    cute_int unused[2];
    return block_tile(c, cute_make_identity_tensor(c, t.layout.shape), unused);
}

/* each block: its tile of A by TMA into shared memory, then out to its tile of O */
static void load_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mO, cute_val map)
{
    cute_val bar;
    cute_tensor s = smem_tile(c, &bar);
    cute_int coord[2];
    cute_tensor gO = block_tile(c, mO, coord);
    bar_init(c, bar, false);
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)))
    {
        bar_expect(c, bar, atom_now.bytes);
        cute_tensor from = misuse == 5 ? gO : tma_tile(c, mA); /* 5: a global tile, not TMA's */
        if (misuse == 6) /* 6: a box starting 12 bytes into its rows */
            cute_tma_load(c, &atom_now, map, s, (cute_int[]){cute_i(0), cute_i(3)}, bar);
        else cute_tma_copy(c, &atom_now, map, from, s, (cute_tma_copy_opts){.bar = bar});
    }
    bar_wait(c, bar);
    copy_tile(c, s, gO);
}

/* each block: its tile of A into shared memory by plain loads, then by TMA into O (store or
 * reduce-add; the parts outside O are dropped) */
static void store_kernel(cute_ctx *c, cute_tensor mA, cute_tensor mO, cute_val map)
{
    cute_val bar;
    cute_tensor s = smem_tile(c, &bar);
    cute_int coord[2];
    copy_tile(c, block_tile(c, mA, coord), s);
    cute_fence_proxy_async_shared_cta(c); /* the threads' writes, visible to TMA's reads */
    cute_barrier(c);
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)))
    {
        cute_tma_copy(c, &atom_now, map, s, tma_tile(c, mO), (cute_tma_copy_opts){.mc_rank = cute_i(0)});
        cute_tma_store_wait(c, 0, false);
    }
}

static cute_launch_cfg grid_of(cute_ctx *c, cute_tensor t)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int M = t.layout.shape.leaf[0], K = t.layout.shape.leaf[1];
    return (cute_launch_cfg){.grid = {cute_ceil_div(a, M, cute_i(now.bm)), cute_ceil_div(a, K, cute_i(now.bk))},
                             .block = {cute_i(NTHR)}};
}

/* arguments: A (the TMA side, odd extents), O (whole tiles) */
static void host_load(cute_ctx *c, const cute_arg *arg)
{
    cute_layout tile = cute_make_layout_row_major(cute_ctx_alg(c), tile_shape(c));
    atom_now = cute_make_tma_atom(c, CUTE_TMA_OP_LOAD, arg[0].tensor, tile, now.sw, 1);
    CUTE_LAUNCH(c, load_kernel, grid_of(c, arg[1].tensor), arg[0].tensor, arg[1].tensor, atom_now.map);
}

/* arguments: A (whole tiles, read plainly), O (the TMA side, odd extents) */
static void host_store(cute_ctx *c, const cute_arg *arg)
{
    cute_layout tile = cute_make_layout_row_major(cute_ctx_alg(c), tile_shape(c));
    atom_now = cute_make_tma_atom(c, now.op, arg[1].tensor, tile, now.sw, 1);
    CUTE_LAUNCH(c, store_kernel, grid_of(c, arg[0].tensor), arg[0].tensor, arg[1].tensor, atom_now.map);
}

/* --- running a case -------------------------------------------------------------------------- */

/* a row-major matrix on the backend and its host copy */
typedef struct mat {
    int64_t rows, cols, ld;
    uint8_t *h;
    cute_buffer b;
} mat;

static size_t mat_bytes(const mat *m) { return (size_t)(m->rows * m->ld) * (size_t)cute_dtype_bytes(now.dt); }

/* finite random values (random bytes for the integer types), or a poison byte */
static void fill(mat *m, int poison)
{
    size_t n = mat_bytes(m), es = (size_t)cute_dtype_bytes(now.dt);
    for (size_t i = 0; i < n; i++) m->h[i] = poison >= 0 ? (uint8_t)poison : (uint8_t)rand();
    for (size_t i = 0; poison < 0 && i < n; i += es) {
        float f = (float)(rand() % 4001 - 2000) / 16.0f;
        uint16_t h = cute_f32_to_f16(f);
        if (now.dt == CUTE_F32) memcpy(m->h + i, &f, 4);
        if (now.dt == CUTE_F16) memcpy(m->h + i, &h, 2);
    }
}

static bool mat_new(cute_backend *be, mat *m, int64_t rows, int64_t cols, int64_t ld, int poison)
{
    m->rows = rows, m->cols = cols, m->ld = ld;
    m->h = malloc(mat_bytes(m));
    fill(m, poison);
    return be->vt->alloc(be->self, mat_bytes(m), &m->b) == CUTE_OK &&
           be->vt->upload(be->self, &m->b, 0, m->h, mat_bytes(m)) == CUTE_OK;
}

static cute_call_arg mat_arg(const mat *m)
{
    return cute_call_tensor(&m->b, 0, now.dt, 2, (int64_t[]){m->rows, m->cols}, (int64_t[]){m->ld, 1});
}

static uint8_t *at(const mat *m, int64_t i, int64_t j)
{
    return m->h + (size_t)(i * m->ld + j) * (size_t)cute_dtype_bytes(now.dt);
}

/* the reference of one element of the TMA side's partner: copy, or add (f32, u32) */
static void ref_element(uint8_t *o, const uint8_t *a, bool add)
{
    size_t es = (size_t)cute_dtype_bytes(now.dt);
    if (!add) {
        memcpy(o, a, es);
    } else if (now.dt == CUTE_F32) {
        float x, y;
        memcpy(&x, o, 4), memcpy(&y, a, 4), x += y, memcpy(o, &x, 4);
    } else {
        uint32_t x, y;
        memcpy(&x, o, 4), memcpy(&y, a, 4), x += y, memcpy(o, &x, 4);
    }
}

/* the bytes of O a correct run leaves: T is the TMA side (odd), P the whole-tile side.  A
 * store or reduce clips T's rows at 16-byte granularity (as the H200 does: it writes the
 * elements past T's extent up to the next 16-byte boundary, inside T's padded rows) */
static uint8_t *expected(const mat *T, const mat *P, bool store)
{
    const mat *O = store ? T : P;
    uint8_t *want = malloc(mat_bytes(O));
    memcpy(want, O->h, mat_bytes(O));
    int64_t es = cute_dtype_bytes(now.dt), cols = store ? (T->cols * es + 15) / 16 * 16 / es : T->cols;
    for (int64_t i = 0; i < P->rows; i++)
        for (int64_t j = 0; j < P->cols; j++) {
            bool inside = i < T->rows && j < cols;
            if (store && inside)
                ref_element(want + (at(T, i, j) - T->h), at(P, i, j), now.op == CUTE_TMA_OP_REDUCE_ADD);
            if (store) continue;
            uint8_t *o = want + (at(P, i, j) - P->h);
            if (inside) memcpy(o, at(T, i, j), (size_t)es);
            else memset(o, 0, (size_t)es);
        }
    return want;
}

/* compile and call one case on rt: the bytes of O that are wrong, or -1 with a message */
static int run_case(cute_runtime *rt, bool store, const char *where)
{
    cute_backend *be = cute_runtime_backend(rt);
    int es = cute_dtype_bytes(now.dt);
    int64_t M = 3 * now.bm - 3, K = 2 * now.bk + 3;
    int64_t Mp = (M + now.bm - 1) / now.bm * now.bm, Kp = (K + now.bk - 1) / now.bk * now.bk;
    int64_t ld = ((K * es + 15) / 16 * 16 + 16) / es; /* 16-byte rows and one chunk more */
    mat T, P;
    bool ok = mat_new(be, &T, M, K, ld, store && now.op == CUTE_TMA_OP_STORE ? 0xa5 : -1) &&
              mat_new(be, &P, Mp, Kp, Kp, store ? -1 : 0xa5);
    cute_arg_spec specs[2] = {cute_spec_tensor(now.dt, "(?,?):(?,1)", 16), cute_spec_tensor(now.dt, "(?,?):(?,1)", 16)};
    char err[1024] = "";
    const cute_fn *f = ok ? cute_compile(rt, "tma", store ? host_store : host_load, NULL, 2, specs, err, sizeof err) : NULL;
    cute_call_arg args[2] = {mat_arg(store ? &P : &T), mat_arg(store ? &T : &P)};
    cute_status s = f ? cute_call(f, NULL, 2, args, err, sizeof err) : CUTE_ERR_COMPILE;
    if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
    const mat *O = store ? &T : &P;
    uint8_t *want = expected(&T, &P, store), *got = malloc(mat_bytes(O));
    if (s == CUTE_OK) s = be->vt->download(be->self, got, &O->b, 0, mat_bytes(O));
    int bad = 0;
    for (size_t i = 0; s == CUTE_OK && i < mat_bytes(O); i++) bad += got[i] != want[i];
    CHECK(s == CUTE_OK, "%s: %s", where, err[0] ? err : be->vt->error(be->self));
    cute_fn_free(f);
    be->vt->free(be->self, &T.b), be->vt->free(be->self, &P.b);
    free(T.h), free(P.h), free(want), free(got);
    return s == CUTE_OK ? bad : -1;
}

/* the element-unit swizzle of `bytes` (32, 64, 128; 0: none) for dt, and the tile's inner
 * extent: the swizzle's row, or 32 bytes unswizzled */
static void pick(cute_dtype dt, int bytes)
{
    int es = cute_dtype_bytes(dt), m = 0;
    while ((es << m) < 16) m++;
    now.dt = dt;
    now.sw = bytes ? (cute_swizzle){bytes == 32 ? 1 : bytes == 64 ? 2 : 3, m, 3} : (cute_swizzle){0, 0, 0};
    now.bk = (bytes ? bytes : 32) / es;
    now.bm = 8;
}

static void round_trips(cute_runtime *rt, const char *where)
{
    static const cute_dtype dts[] = {CUTE_U8, CUTE_F16, CUTE_F32, CUTE_U64};
    for (size_t d = 0; d < 4; d++)
        for (int sw = 0; sw <= 128; sw = sw ? 2 * sw : 32) {
            pick(dts[d], sw);
            now.op = CUTE_TMA_OP_LOAD;
            int bad = run_case(rt, false, where);
            CHECK(bad == 0, "%s: load %s swizzle %dB: %d bytes wrong", where, cute_dtype_name(now.dt), sw, bad);
        }
    static const cute_dtype sts[] = {CUTE_F16, CUTE_F32, CUTE_U32};
    for (size_t d = 0; d < 3; d++)
        for (int sw = 0; sw <= 128; sw = sw ? 2 * sw : 32)
            for (int red = 0; red < 2; red++) {
                if (red && sts[d] == CUTE_F16) continue; /* the reference adds f32 and u32 */
                pick(sts[d], sw);
                now.op = red ? CUTE_TMA_OP_REDUCE_ADD : CUTE_TMA_OP_STORE;
                int bad = run_case(rt, true, where);
                CHECK(bad == 0, "%s: %s %s swizzle %dB: %d bytes wrong", where, red ? "reduce-add" : "store",
                      cute_dtype_name(now.dt), sw, bad);
            }
}

/* --- multicast: the two CTAs of a cluster share each tile, each loading half of it ------- */

/* block b: tile b/2 of A's rows (both CTAs of a cluster hold the whole tile), out to O's
 * rows [b*bm, b*bm + bm) */
static void mc_kernel(cute_ctx *c, cute_tensor mO, cute_val map)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_val bar;
    cute_tensor s = smem_tile(c, &bar);
    cute_int bx = cute_block_idx(c, 0), rank = cute_int_op2(a, CUTE_IMOD, bx, cute_i(2));
    cute_int coord[2] = {cute_mul(a, cute_int_op2(a, CUTE_IDIV, bx, cute_i(2)), cute_i(now.bm)),
                         cute_mul(a, cute_block_idx(c, 1), cute_i(now.bk))};
    cute_int unused[2];
    cute_tensor gO = block_tile(c, mO, unused);
    bar_init(c, bar, true);
    cute_val mask = cute_tma_multicast_mask(c, cute_make_layout_row_major(a, cute_tuple_ints(a, 1, (int64_t[]){2})),
                                            &rank, 0);
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)))
    {
        bar_expect(c, bar, atom_now.bytes);
        cute_tma_load_multicast(c, &atom_now, map, s, coord, bar, mask, rank);
    }
    bar_wait(c, bar);
    copy_tile(c, s, gO);
    cute_cluster_arrive(c), cute_cluster_wait(c);
}

static void host_mc(cute_ctx *c, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout tile = cute_make_layout_row_major(a, tile_shape(c));
    atom_now = cute_make_tma_atom(c, CUTE_TMA_OP_LOAD_MULTICAST, arg[0].tensor, tile, now.sw, 2);
    cute_int M = arg[0].tensor.layout.shape.leaf[0], K = arg[0].tensor.layout.shape.leaf[1];
    cute_launch_cfg cfg = {.grid = {cute_mul(a, cute_ceil_div(a, M, cute_i(now.bm)), cute_i(2)),
                                    cute_ceil_div(a, K, cute_i(now.bk))},
                           .block = {cute_i(NTHR)}, .cluster = {cute_i(2)}};
    CUTE_LAUNCH(c, mc_kernel, cfg, arg[1].tensor, atom_now.map);
}

/* O's bytes wrong after a multicast run of dtype dt and swizzle sw (-1: it did not run) */
static int run_multicast(cute_runtime *rt, cute_dtype dt, int sw)
{
    pick(dt, sw);
    now.bm = 16;
    cute_backend *be = cute_runtime_backend(rt);
    int es = cute_dtype_bytes(dt);
    int64_t M = 2 * now.bm + 5, K = 2 * now.bk + 3, tiles = (M + now.bm - 1) / now.bm;
    int64_t Kp = (K + now.bk - 1) / now.bk * now.bk, ld = ((K * es + 15) / 16 * 16 + 16) / es;
    mat A, O;
    bool ok = mat_new(be, &A, M, K, ld, -1) && mat_new(be, &O, 2 * tiles * now.bm, Kp, Kp, 0xa5);
    cute_arg_spec specs[2] = {cute_spec_tensor(dt, "(?,?):(?,1)", 16), cute_spec_tensor(dt, "(?,?):(?,1)", 16)};
    char err[1024] = "";
    const cute_fn *f = ok ? cute_compile(rt, "tma_mc", host_mc, NULL, 2, specs, err, sizeof err) : NULL;
    cute_call_arg args[2] = {mat_arg(&A), mat_arg(&O)};
    cute_status s = f ? cute_call(f, NULL, 2, args, err, sizeof err) : CUTE_ERR_COMPILE;
    if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
    uint8_t *got = malloc(mat_bytes(&O));
    if (s == CUTE_OK) s = be->vt->download(be->self, got, &O.b, 0, mat_bytes(&O));
    CHECK(s == CUTE_OK, "multicast: %s", err[0] ? err : be->vt->error(be->self));
    int bad = 0;
    for (int64_t i = 0; s == CUTE_OK && i < O.rows; i++)
        for (int64_t j = 0; j < O.cols; j++) {
            int64_t r = (i / (2 * now.bm)) * now.bm + i % now.bm; /* the row of A block i/bm holds */
            uint8_t zero[8] = {0};
            const uint8_t *want = r < M && j < K ? at(&A, r, j) : zero;
            bad += memcmp(got + (at(&O, i, j) - O.h), want, (size_t)es) != 0;
        }
    cute_fn_free(f);
    be->vt->free(be->self, &A.b), be->vt->free(be->self, &O.b);
    free(A.h), free(O.h), free(got);
    return s == CUTE_OK ? bad : -1;
}

/* --- multicast masks from cluster layouts, on the interpreter ----------------------------- */

static int64_t mask_stride[2]; /* the cluster layout (2,4):(mask_stride) */

/* block (x, y) stands for the CTA at cluster coordinate (x, y): out[2 (x + 2y) + mode] */
static void mask_kernel(cute_ctx *c, cute_tensor out)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout L = cute_make_layout_stride(a, cute_tuple_ints(a, 2, (int64_t[]){2, 4}),
                                            cute_tuple_ints(a, 2, mask_stride));
    cute_int cta[2] = {cute_block_idx(c, 0), cute_block_idx(c, 1)};
    cute_int at = cute_mul(a, cute_add(a, cta[0], cute_mul(a, cta[1], cute_i(2))), cute_i(2));
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)))
    for (int mode = 0; mode < 2; mode++) {
        cute_val m = cute_val_cvt(c, cute_tma_multicast_mask(c, L, cta, mode), CUTE_U32);
        cute_tensor o = cute_tensor_slice(c, out, cute_tuple_int(cute_add(a, at, cute_i(mode))));
        cute_tensor_store(c, o, cute_ssa_scalar(c, m, cute_tuple_int(cute_i(1))));
    }
}

static void host_masks(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(2), cute_i(4)}, .block = {cute_i(32)}};
    CUTE_LAUNCH(c, mask_kernel, cfg, arg[0].tensor);
}

/* the masks against the definition: bit r set for every cluster coordinate r = L(x', y')
 * that agrees with the CTA's in the other mode */
static void masks(cute_runtime *rt)
{
    static const int64_t strides[2][2] = {{1, 2}, {4, 1}}; /* column-major, row-major ranks */
    for (int l = 0; l < 2; l++) {
        mask_stride[0] = strides[l][0], mask_stride[1] = strides[l][1];
        cute_arg_spec spec = cute_spec_tensor(CUTE_U32, "(16):(1)", 4);
        char err[512] = "";
        const cute_fn *f = cute_compile(rt, "masks", host_masks, NULL, 1, &spec, err, sizeof err);
        cute_backend *be = cute_runtime_backend(rt);
        cute_buffer b;
        uint32_t got[16];
        memset(got, 0xa5, sizeof got);
        be->vt->alloc(be->self, sizeof got, &b);
        be->vt->upload(be->self, &b, 0, got, sizeof got);
        cute_call_arg arg = cute_call_tensor(&b, 0, CUTE_U32, 1, (int64_t[]){16}, (int64_t[]){1});
        cute_status s = f ? cute_call(f, NULL, 1, &arg, err, sizeof err) : CUTE_ERR_COMPILE;
        if (s == CUTE_OK) be->vt->download(be->self, got, &b, 0, sizeof got);
        CHECK(s == CUTE_OK, "masks: %s", err);
        int bad = 0;
        for (int x = 0; s == CUTE_OK && x < 2; x++)
            for (int y = 0; y < 4; y++)
                for (int mode = 0; mode < 2; mode++) {
                    uint32_t want = 0;
                    for (int i = 0; i < (mode ? 4 : 2); i++)
                        want |= 1u << ((mode ? x : i) * mask_stride[0] + (mode ? i : y) * mask_stride[1]);
                    bad += got[2 * (x + 2 * y) + mode] != want;
                }
        CHECK(bad == 0, "multicast masks of the cluster layout (2,4):(%lld,%lld): %d wrong",
              (long long)mask_stride[0], (long long)mask_stride[1], bad);
        be->vt->free(be->self, &b);
        cute_fn_free(f);
    }
}

/* --- misuse ---------------------------------------------------------------------------------- */

static void host_misuse(cute_ctx *c, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout tile = cute_make_layout_row_major(a, tile_shape(c));
    cute_swizzle sw = now.sw;
    int mc = 1;
    cute_tma_op op = CUTE_TMA_OP_LOAD;
    if (misuse == 0) /* rows padded by one element: not what TMA writes */
        tile = cute_make_layout_stride(a, tile_shape(c), cute_tuple_ints(a, 2, (int64_t[]){now.bk + 1, 1}));
    if (misuse == 1) sw = (cute_swizzle){3, 3, 3};          /* f32 chunks are Sw<.,2,3> */
    if (misuse == 2) sw = (cute_swizzle){3, 2, 3};          /* 128B rows, 64B tile rows */
    if (misuse == 4) op = CUTE_TMA_OP_LOAD_MULTICAST, mc = 3; /* 3 does not divide 8 rows */
    atom_now = cute_make_tma_atom(c, op, arg[0].tensor, tile, sw, mc);
    if (misuse == 3) now.sw = (cute_swizzle){0, 0, 0}; /* the kernel's tile is not swizzled */
    CUTE_LAUNCH(c, load_kernel, grid_of(c, arg[1].tensor), arg[0].tensor, arg[1].tensor, atom_now.map);
}

static void misuses(cute_runtime *rt)
{
    static const char *want[] = {"must be compact", "Sw<3,3,3> is not one TMA applies to f32",
                                 "needs rows of exactly 128 bytes", "is not a tile of the atom's layout",
                                 "3 CTAs cannot share a tile", "is not a tile of the TMA tensor",
                                 "byte 12 of the row: a TMA box must start at a 16-byte boundary"};
    for (misuse = 0; misuse < 7; misuse++) {
        pick(CUTE_F32, misuse == 3 ? 64 : 0);
        if (misuse == 2) now.sw = (cute_swizzle){3, 2, 3}, now.bk = 16;
        cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, "(?,?):(?,1)", 16), cute_spec_tensor(CUTE_F32, "(?,?):(?,1)", 16)};
        char err[1024] = "";
        const cute_fn *f = cute_compile(rt, "misuse", host_misuse, NULL, 2, specs, err, sizeof err);
        CHECK(!f && strstr(err, want[misuse]) && strstr(err, "tma_copy_test.c:"),
              "misuse %d: want \"%s\" at this file's line, got: %s", misuse, want[misuse], err);
        cute_fn_free(f);
    }
    misuse = -1;
}

/* a call whose tensor TMA cannot describe fails before any launch, naming the argument */
static void call_errors(cute_runtime *rt)
{
    pick(CUTE_F32, 32);
    now.op = CUTE_TMA_OP_LOAD;
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, "(?,?):(?,?)", 16), cute_spec_tensor(CUTE_F32, "(?,?):(?,1)", 16)};
    char err[1024] = "";
    const cute_fn *f = cute_compile(rt, "tma_calls", host_load, NULL, 2, specs, err, sizeof err);
    CHECK(f != NULL, "compiles with a dynamic stride: %s", err);
    cute_backend *be = cute_runtime_backend(rt);
    cute_buffer A, O;
    be->vt->alloc(be->self, 1 << 14, &A), be->vt->alloc(be->self, 1 << 14, &O);
    static const struct { int64_t ld, inner; const char *want; } bad[] = {
        {10, 1, "strides[1] = 40 bytes: a stride is a nonzero multiple of 16 bytes"},
        {1, 12, "mode 1 has stride 12, TMA's first dimension must be contiguous"},
    };
    for (int i = 0; f && i < 2; i++) {
        cute_call_arg args[2] = {cute_call_tensor(&A, 0, CUTE_F32, 2, (int64_t[]){9, 10}, (int64_t[]){bad[i].ld, bad[i].inner}),
                                 cute_call_tensor(&O, 0, CUTE_F32, 2, (int64_t[]){16, 16}, (int64_t[]){16, 1})};
        cute_status s = cute_call(f, NULL, 2, args, err, sizeof err);
        CHECK(s == CUTE_ERR_INVALID && strstr(err, bad[i].want) && strstr(err, "argument 0"),
              "call %d: want \"%s\", got %s", i, bad[i].want, err);
    }
    be->vt->free(be->self, &A), be->vt->free(be->self, &O);
    cute_fn_free(f);
}

/* --- compile-only: what the GPU would run, compiled for sm_90a ------------------------- */

/* a backend that compiles nothing and launches nothing: the kernels are traced for a GPU
 * (not for the interpreter) and then emitted as CUDA C here */
static bool no_supports(void *s, const cute_ir_inst *i) { return (void)s, (void)i, true; }
static cute_status no_compile(void *s, cute_ir_func *const *k, int n, cute_module **out, const char **log)
{
    static int module;
    (void)s, (void)k, (void)n;
    *out = (cute_module *)&module, *log = "";
    return CUTE_OK;
}
static void no_free_module(void *s, cute_module *m) { (void)s, (void)m; }
static cute_status no_launch(void *s, cute_module *m, int k, const cute_launch *cfg, const cute_launch_arg *a, int n)
{
    return (void)s, (void)m, (void)k, (void)cfg, (void)a, (void)n, CUTE_ERR_UNSUPPORTED;
}
static cute_status no_alloc(void *s, size_t b, cute_buffer *o) { return (void)s, (void)b, (void)o, CUTE_ERR_UNSUPPORTED; }
static void no_free(void *s, cute_buffer *b) { (void)s, (void)b; }
static cute_status no_copy_in(void *s, cute_buffer *d, size_t o, const void *src, size_t n)
{
    return (void)s, (void)d, (void)o, (void)src, (void)n, CUTE_ERR_UNSUPPORTED;
}
static cute_status no_copy_out(void *s, void *d, const cute_buffer *src, size_t o, size_t n)
{
    return (void)s, (void)d, (void)src, (void)o, (void)n, CUTE_ERR_UNSUPPORTED;
}
static cute_status no_sync(void *s, void *st) { return (void)s, (void)st, CUTE_OK; }
static const char *no_error(void *s) { return (void)s, "compile-only"; }
static void no_destroy(void *s) { (void)s; }
static const cute_backend_vtable compile_only = {
    CUTE_BACKEND_VERSION, "compile-only", no_supports, no_compile, no_free_module, no_launch,
    no_alloc, no_free, no_copy_in, no_copy_out, no_sync, no_error, no_destroy};

/* host's kernels traced for sm_90a, emitted, compiled: the PTX must hold `want` */
static void compile_for_gpu(cute_nvrtc *nv, cute_host_fn host, const char *what, const char *want)
{
    cute_runtime *rt = cute_runtime_wrap((cute_backend){&compile_only, NULL});
    cute_runtime_set_target_arch(rt, "sm_90a");
    cute_arg_spec specs[2] = {cute_spec_tensor(now.dt, "(?,?):(?,1)", 16), cute_spec_tensor(now.dt, "(?,?):(?,1)", 16)};
    char err[1024] = "", *src = NULL;
    const cute_fn *f = cute_compile(rt, what, host, NULL, 2, specs, err, sizeof err);
    CHECK(f != NULL, "%s traced for sm_90a: %s", what, err);
    const cute_ir_func *k = f ? cute_fn_kernel(f, 0) : NULL;
    cute_cuda_c_opts o = {.arch = "sm_90a"};
    if (k) CHECK(cute_cuda_c_emit(&k, 1, &o, &src, err, sizeof err) == CUTE_OK, "%s: %s", what, err);
    cute_nvrtc_output out;
    if (src) {
        if (getenv("CUTEC_TEST_VERBOSE")) fputs(src, stderr);
        cute_status s = cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = "sm_90a"}, &out);
        CHECK(s == CUTE_OK && strstr(out.ptx, want), "%s for sm_90a: %s\n%s", what, out.log,
              s == CUTE_OK ? "(the PTX lacks the instruction)" : src);
        cute_nvrtc_output_free(&out);
    }
    free(src);
    cute_fn_free(f);
    cute_runtime_free(rt);
}

static void compile_only_gpu(void)
{
    char err[512];
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("no NVRTC: the GPU kernels were not compiled");
        return;
    }
    for (int sw = 0; sw <= 128; sw = sw ? 2 * sw : 32) {
        pick(CUTE_F16, sw);
        compile_for_gpu(nv, host_load, "load", "cp.async.bulk.tensor.2d.shared::cluster.global.tile");
        now.op = CUTE_TMA_OP_STORE;
        compile_for_gpu(nv, host_store, "store", "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group");
        now.op = CUTE_TMA_OP_REDUCE_ADD;
        compile_for_gpu(nv, host_store, "reduce", "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile");
        pick(CUTE_F16, sw);
        now.bm = 16;
        compile_for_gpu(nv, host_mc, "multicast", "multicast::cluster");
    }
    cute_nvrtc_close(nv);
}

/* --- main -------------------------------------------------------------------------------- */

/* multicast f16 tiles of every swizzle in clusters of 2 (where: the backend's name) */
static void multicasts(cute_runtime *rt, const char *where)
{
    static const int sws[] = {0, 32, 64, 128};
    for (int i = 0; i < 4; i++) {
        int bad = run_multicast(rt, CUTE_F16, sws[i]);
        CHECK(bad == 0, "%s: multicast f16 swizzle %dB in clusters of 2: %d elements wrong", where, sws[i], bad);
    }
}

static void on_gpu(void)
{
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no GPU: TMA round trips, stores, reduce-adds and multicast were not run on hardware");
        return;
    }
    if (cute_runtime_target_arch(rt) < 90) {
        SKIP("a GPU before sm_90: no TMA");
        cute_runtime_free(rt);
        return;
    }
    round_trips(rt, "GPU");
    multicasts(rt, "GPU");
    cute_runtime_free(rt);
}

int main(void)
{
    srand((unsigned)time(NULL));
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interpreter: %s", err);
    round_trips(rt, "interpreter");
    multicasts(rt, "interpreter");
    misuses(rt);
    call_errors(rt);
    masks(rt);
    cute_runtime_free(rt);
    compile_only_gpu();
    on_gpu();
    return CHECK_DONE("atom/tma_copy");
}
