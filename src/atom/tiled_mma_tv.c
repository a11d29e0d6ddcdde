/* A TiledMMA's thread-value layouts: (thread index, value) -> element of the whole A, B or C
 * tile, as CuTe's get_layoutA_TV / get_layoutB_TV / get_layoutC_TV build them.
 *
 * thrfrg of a compact reference tile gives ((ThrV,(Thr0,Thr1)),(FrgV,Rest)) -> index; its
 * thread mode is indexed by the operand's own threads.  Widening that mode to all of
 * (ThrV,ThrM,ThrN,ThrK) (stride 0 along the threads the operand does not depend on) and
 * composing it with the inverse of thr_vmnk (thread index -> its (v,m,n,k) as one index)
 * turns it into a thread-index mode.
 */
#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "atom/atom_internal.h"
#include "cutec/mma.h"

static cute_int vmnk_size(cute_alg *c, const cute_tiled_mma *t, int i)
{
    cute_layout m = cute_get(c, &t->thr_vmnk, i);
    return cute_size(c, &m);
}

/* thread index -> colexicographic index of its (v,m,n,k): right_inverse((vmnk, its
 * complement)), restricted to the threads by (size,1):(1,0) as CuTe's thridx_2_thrid */
static cute_layout thridx_to_thrid(cute_alg *c, const cute_tiled_mma *t)
{
    cute_layout modes[2] = {t->thr_vmnk, cute_complement_default(c, &t->thr_vmnk)};
    cute_layout whole = cute_make_layout_modes(c, 2, modes);
    cute_layout inv = cute_right_inverse(c, &whole);
    int64_t shape[2] = {cute_tiled_mma_threads(t), 1}, stride[2] = {1, 0};
    cute_layout keep =
        cute_make_layout_stride(c, cute_tuple_ints(c, 2, shape), cute_tuple_ints(c, 2, stride));
    return cute_compose(c, &keep, &inv);
}

/* (a,b):(1,0) or (a,b):(0,1): a pair of thread modes of which one is ignored */
static cute_tiler broadcast_pair(cute_alg *c, cute_int a, cute_int b, bool keep_first)
{
    int64_t shape[2] = {a.v, b.v}, stride[2] = {keep_first ? 1 : 0, keep_first ? 0 : 1};
    cute_layout L =
        cute_make_layout_stride(c, cute_tuple_ints(c, 2, shape), cute_tuple_ints(c, 2, stride));
    return cute_tiler_layout(&L);
}

/* The tiler that widens thrfrg's thread mode (ThrV,(Thr0,Thr1)) to every thread mode, in
 * (v,m,n,k) order: A (ThrV,((ThrM,ThrN):(1,0),ThrK)), B (ThrV,((ThrM,ThrN):(0,1),ThrK)),
 * C (ThrV,(ThrM,(ThrN,ThrK):(1,0))).  CuTe leaves C's mode alone, which is the same when
 * ThrK is 1 (always, for its MMAs); with ThrK > 1 this keeps every thread inside the tile
 * (the K-threads share C, as the N-threads share A). */
static bool widen_tiler(cute_alg *c, const cute_tiled_mma *t, cute_mma_operand op, cute_tiler *out)
{
    cute_int m = vmnk_size(c, t, 1), n = vmnk_size(c, t, 2), k = vmnk_size(c, t, 3);
    cute_tiler under = cute_tiler_underscore(), pair;
    if (op == CUTE_MMA_C) {
        if (k.v == 1) return false;
        cute_tiler nk = broadcast_pair(c, n, k, true);
        const cute_tiler *p[2] = {&under, &nk};
        pair = tiler_tuple(c, 2, p);
    } else {
        cute_tiler mn = broadcast_pair(c, m, n, op == CUTE_MMA_A);
        const cute_tiler *p[2] = {&mn, &under};
        pair = tiler_tuple(c, 2, p);
    }
    const cute_tiler *thr[2] = {&under, &pair};
    cute_tiler thr_mode = tiler_tuple(c, 2, thr);
    const cute_tiler *whole[2] = {&thr_mode, &under};
    *out = tiler_tuple(c, 2, whole);
    return true;
}

cute_layout cute_tiled_mma_layout_tv(cute_alg *c, const cute_tiled_mma *t, cute_mma_operand op)
{
    if (c->failed) return cute_layout_poison();
    static const int modes[3][2] = {{0, 2}, {1, 2}, {0, 1}}; /* A (M,K), B (N,K), C (M,N) */
    cute_int dims[2] = {cute_tiled_mma_tile_size(c, t, modes[op][0]),
                        cute_tiled_mma_tile_size(c, t, modes[op][1])};
    cute_tuple shape[2] = {cute_tuple_int(dims[0]), cute_tuple_int(dims[1])};
    cute_layout ref = cute_make_layout(c, cute_tuple_of(c, 2, shape));
    cute_layout F = cute_tiled_mma_thrfrg(c, t, op, &ref);
    cute_tiler widen;
    if (widen_tiler(c, t, op, &widen)) F = cute_composition(c, &F, &widen);
    cute_layout thrid = thridx_to_thrid(c, t);
    cute_tiler by_thread = cute_tiler_layout(&thrid), under = cute_tiler_underscore();
    const cute_tiler *parts[2] = {&by_thread, &under};
    cute_tiler tv = tiler_tuple(c, 2, parts);
    return cute_composition(c, &F, &tv);
}
