/* MMA atoms as table rows, and TiledMMA partitioning built from the layout algebra
 * (CuTe's make_tiled_mma, thrfrg_A/B/C, get_slice, partition_A/B/C). */
#include <stdio.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "cutec/mma.h"
#include "cutec/notation.h"
#include "atom/atom_internal.h"

cute_tiled_mma cute_make_tiled_mma(cute_alg *c, const cute_mma_atom *atom,
                                   const cute_layout *atom_layout, const cute_tiler *perm_m,
                                   const cute_tiler *perm_n, const cute_tiler *perm_k)
{
    cute_tiled_mma t;
    memset(&t, 0, sizeof t);
    t.atom = *atom;
    cute_layout al = cute_append_to_rank(c, atom_layout, 3);
    if (!c->failed && cute_rank(&al) != 3)
        cute_alg_fail(c, "make_tiled_mma: the atom layout has rank %d (at most 3: M, N, K)",
                      cute_rank(&al));
    cute_tiler whole = cute_tiler_layout(&al);
    t.thr_vmnk = cute_tiled_product(c, &atom->thr_id, &whole);
    const cute_tiler *given[3] = {perm_m, perm_n, perm_k};
    for (int i = 0; i < 3; i++) {
        t.perm_given[i] = given[i] && !(cute_tuple_is_int(&given[i]->tree) &&
                                        cute_is_underscore(given[i]->tree.leaf[0]));
        t.perm[i] = t.perm_given[i] ? *given[i] : int_tiler(c, cute_tiled_mma_tile_size(c, &t, i));
    }
    return t;
}

int64_t cute_tiled_mma_threads(const cute_tiled_mma *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->thr_vmnk.shape.nleaves; i++) n *= t->thr_vmnk.shape.leaf[i].v;
    return n;
}

static cute_int mode_size(cute_alg *c, const cute_layout *L, int i)
{
    cute_layout m = cute_get(c, L, i);
    return cute_size(c, &m);
}

cute_int cute_tiled_mma_tile_size(cute_alg *c, const cute_tiled_mma *t, int i)
{
    if (t->perm_given[i]) { /* the permutation's size: of its one layout, or per part */
        const cute_tiler *p = &t->perm[i];
        cute_int n = cute_i(1);
        for (int k = 0; k < p->nlayouts; k++) n = cute_mul(c, n, cute_size(c, &p->layouts[k]));
        return n;
    }
    int64_t atom[3] = {t->atom.m, t->atom.n, t->atom.k};
    return cute_mul(c, cute_i(atom[i]), mode_size(c, &t->thr_vmnk, i + 1));
}

/* the tile modes and thread modes of each operand */
static const int tile_modes[3][2] = {{0, 2}, {1, 2}, {0, 1}}; /* A: (M,K), B: (N,K), C: (M,N) */
static const int thr_modes[3][2] = {{1, 3}, {2, 3}, {1, 2}};

cute_layout cute_tiled_mma_thrfrg(cute_alg *c, const cute_tiled_mma *t, cute_mma_operand op,
                                  const cute_layout *tile)
{
    if (c->failed) return cute_layout_poison();
    if (cute_rank(tile) < 2) {
        cute_alg_fail(c, "tiled_mma: the tile must have rank 2 or more");
        return cute_layout_poison();
    }
    const cute_tiler *perms[2] = {&t->perm[tile_modes[op][0]], &t->perm[tile_modes[op][1]]};
    cute_tiler t_tile = tiler_tuple(c, 2, perms);
    cute_layout permuted = cute_logical_divide(c, tile, &t_tile);
    int64_t atom[3] = {t->atom.m, t->atom.n, t->atom.k};
    int64_t ad[2] = {atom[tile_modes[op][0]], atom[tile_modes[op][1]]};
    cute_tuple atom_shape = cute_tuple_ints(c, 2, ad);
    cute_tiler a_tile = cute_tiler_shape(c, &atom_shape);
    cute_layout at = cute_zipped_divide(c, &permuted, &a_tile);
    const cute_layout *tv = op == CUTE_MMA_A ? &t->atom.a_tv : op == CUTE_MMA_B ? &t->atom.b_tv : &t->atom.c_tv;
    cute_tiler tvt = cute_tiler_layout(tv), under = cute_tiler_underscore();
    const cute_tiler *tv_parts[2] = {&tvt, &under};
    cute_tiler tv_tile = tiler_tuple(c, 2, tv_parts);
    cute_layout tvl = cute_composition(c, &at, &tv_tile);
    cute_tiler thr0 = int_tiler(c, mode_size(c, &t->thr_vmnk, thr_modes[op][0]));
    cute_tiler thr1 = int_tiler(c, mode_size(c, &t->thr_vmnk, thr_modes[op][1]));
    const cute_tiler *inner[2] = {&thr0, &thr1};
    cute_tiler thr_pair = tiler_tuple(c, 2, inner);
    const cute_tiler *outer[2] = {&under, &thr_pair};
    cute_tiler thr_tile = tiler_tuple(c, 2, outer);
    return cute_zipped_divide(c, &tvl, &thr_tile);
}

cute_layout cute_tiled_mma_partition(cute_alg *c, const cute_tiled_mma *t, cute_mma_operand op,
                                     cute_int thr, const cute_layout *tile, cute_tuple *offset)
{
    cute_layout F = cute_tiled_mma_thrfrg(c, t, op, tile);
    if (c->failed) return cute_layout_poison();
    /* the thread's (v,m,n,k), each mode's coordinate linearized (CuTe get_flat_coord) */
    cute_tuple hier = cute_layout_coord_of(c, &t->thr_vmnk, thr);
    cute_int flat[4];
    for (int i = 0; i < 4 && !c->failed; i++) {
        cute_tuple si = cute_tuple_get(&t->thr_vmnk.shape, i), ci = cute_tuple_get(&hier, i);
        cute_tuple compact = cute_tuple_compact_col_major(c, &si);
        flat[i] = cute_crd2idx(c, &ci, &si, &compact);
    }
    /* ((v,(t0,t1)), (_, (_,_,...))) */
    cute_tuple rest = cute_tuple_get(&F.shape, 1);
    cute_tuple rest1 = cute_tuple_get(&rest, 1);
    int r = cute_tuple_rank(&rest1);
    cute_tuple under = cute_tuple_int(cute_underscore());
    cute_tuple unders = r == 1 ? under : cute_tuple_repeat(c, r, under);
    cute_tuple pair_t[2] = {cute_tuple_int(flat[thr_modes[op][0]]), cute_tuple_int(flat[thr_modes[op][1]])};
    cute_tuple thr_part[2] = {cute_tuple_int(flat[0]), cute_tuple_of(c, 2, pair_t)};
    cute_tuple val_part[2] = {under, unders};
    cute_tuple crd_parts[2] = {cute_tuple_of(c, 2, thr_part), cute_tuple_of(c, 2, val_part)};
    cute_tuple crd = cute_tuple_of(c, 2, crd_parts);
    return cute_slice_and_offset(c, &crd, &F, offset);
}
