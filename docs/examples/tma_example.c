/* TMA in a compiled function: the host function makes a TMA atom from the global tensor and
 * the shared layout of one tile (32-byte swizzled rows); in each block, thread 0 expects the
 * tile's bytes on an mbarrier and loads its tile of A, which hangs over A's edge; the block
 * waits on the mbarrier and copies the tile out.  Elements outside A arrive as zeros.  On
 * the interpreter (CUTEC_BACKEND=cuda: an sm_90 GPU). */
#include <stdio.h>
#include <stdlib.h>

#include "cutec/smem.h"
#include "cutec/sync.h"
#include "cutec/tma_copy.h"

enum { TM = 4, TK = 8 }; /* a tile: 4 rows of 8 floats (32 bytes) */

static cute_tma_atom atom;

static void tile_kernel(cute_ctx *c, cute_tensor mO, cute_val map)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int bm = cute_block_idx(c, 0), bk = cute_block_idx(c, 1);
    cute_tuple tile = cute_tuple_ints(a, 2, (int64_t[]){TM, TK});
    cute_smem_allocator sa = cute_smem_allocator_new(c);
    cute_tensor s = cute_smem_alloc_tensor_swizzled(c, &sa, CUTE_F32, (cute_swizzle){1, 2, 3},
                                                    cute_make_layout_row_major(a, tile), 256);
    cute_val bar = cute_smem_alloc_array(c, &sa, CUTE_U64, 1, 8);
    cute_int at[2] = {cute_mul(a, bm, cute_i(TM)), cute_mul(a, bk, cute_i(TK))};
    cute_val first = cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0));
    CUTE_IF(c, first) cute_mbarrier_init(c, bar, cute_val_int(c, CUTE_U32, 1));
    cute_barrier(c);
    CUTE_IF(c, first)
    {
        cute_mbarrier_arrive_and_expect_tx(c, bar, cute_val_int(c, CUTE_U32, atom.bytes));
        cute_tma_load(c, &atom, map, s, at, bar);
    }
    cute_mbarrier_wait(c, bar, cute_val_int(c, CUTE_U32, 0));
    cute_tuple which = cute_tuple_of(a, 2, (cute_tuple[]){cute_tuple_int(bm), cute_tuple_int(bk)});
    cute_tensor gO = cute_tensor_local_tile(c, mO, tile, which, NULL);
    cute_tuple mine = cute_tuple_int(cute_thread_idx(c, 0));
    cute_tensor_store(c, cute_tensor_slice(c, gO, mine), cute_tensor_load(c, cute_tensor_slice(c, s, mine)));
}

static void host(cute_ctx *c, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout tile = cute_make_layout_row_major(a, cute_tuple_ints(a, 2, (int64_t[]){TM, TK}));
    atom = cute_make_tma_atom(c, CUTE_TMA_OP_LOAD, arg[0].tensor, tile, (cute_swizzle){1, 2, 3}, 1);
    cute_launch_cfg cfg = {.grid = {cute_i(2), cute_i(2)}, .block = {cute_i(TM * TK)}};
    CUTE_LAUNCH(c, tile_kernel, cfg, arg[1].tensor, atom.map);
}

int main(void)
{
    char err[512];
    cute_runtime *rt;
    const char *backend = getenv("CUTEC_BACKEND");
    if (cute_runtime_new(backend ? backend : "interp", &rt, err, sizeof err) != CUTE_OK) return puts(err), 1;
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, "(?,?):(?,1)", 16),
                              cute_spec_tensor(CUTE_F32, "(8,16):(16,1)", 16)};
    const cute_fn *f = cute_compile(rt, "tma_tiles", host, NULL, 2, specs, err, sizeof err);
    if (!f) return puts(err), 1;
    float A[5 * 12], O[8 * 16];
    for (int i = 0; i < 5 * 12; i++) A[i] = (float)(i / 12 * 100 + i % 12); /* row*100 + col */
    cute_backend *b = cute_runtime_backend(rt);
    cute_buffer bA, bO;
    b->vt->alloc(b->self, sizeof A, &bA), b->vt->alloc(b->self, sizeof O, &bO);
    b->vt->upload(b->self, &bA, 0, A, sizeof A);
    cute_call_arg args[2] = {cute_call_tensor(&bA, 0, CUTE_F32, 2, (int64_t[]){5, 10}, (int64_t[]){12, 1}),
                             cute_call_tensor(&bO, 0, CUTE_F32, 2, (int64_t[]){8, 16}, (int64_t[]){16, 1})};
    if (cute_call(f, NULL, 2, args, err, sizeof err) != CUTE_OK || b->vt->sync(b->self, NULL) != CUTE_OK)
        return puts(err), 1;
    b->vt->download(b->self, O, &bO, 0, sizeof O);
    for (int i = 0; i < 8; i++, puts(""))
        for (int j = 0; j < 16; j++) printf("%4g", O[i * 16 + j]);
    b->vt->free(b->self, &bA), b->vt->free(b->self, &bO);
    cute_fn_free(f);
    cute_runtime_free(rt);
    return 0;
}
