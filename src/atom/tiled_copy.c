/* TiledCopy on layouts (CuTe's make_tiled_copy*, tidfrg_S/D, get_slice + partition_S/D,
 * retile), built from the layout algebra only. */
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "atom/atom_internal.h"
#include "cutec/copy.h"

static cute_tiled_copy failed_copy(const cute_copy_atom *atom)
{
    cute_tiled_copy t;
    memset(&t, 0, sizeof t);
    t.atom = *atom;
    t.layout_tv = cute_layout_poison();
    return t;
}

cute_tiled_copy cute_make_tiled_copy(cute_alg *c, const cute_copy_atom *atom,
                                     const cute_layout *layout_tv, const cute_tiler *tiler)
{
    cute_tiled_copy t = failed_copy(atom);
    if (c->failed) return t;
    if (cute_rank(layout_tv) != 2) {
        cute_alg_fail(c, "make_tiled_copy: the TV layout must have rank 2 (thread, value)");
        return t;
    }
    /* the atom's threads and values must tile the TV layout's */
    cute_layout thr = cute_get(c, layout_tv, 0), val = cute_get(c, layout_tv, 1);
    cute_layout athr = cute_get(c, &atom->ref_tv, 0), aval = cute_get(c, &atom->ref_tv, 1);
    cute_int nt = cute_size(c, &thr), nv = cute_size(c, &val);
    cute_int at = cute_size(c, &athr), av = cute_size(c, &aval);
    if (c->failed) return t;
    if (cute_int_cmp(c, CUTE_CMP_DIVIDES, at, nt) != CUTE_TRUE ||
        cute_int_cmp(c, CUTE_CMP_DIVIDES, av, nv) != CUTE_TRUE) {
        cute_alg_fail(c, "make_tiled_copy: the atom %s moves %lld value(s) on %lld thread(s), which do "
                         "not divide the %lld value(s) and %lld thread(s) of the TV layout",
                      atom->name, (long long)av.v, (long long)at.v, (long long)nv.v, (long long)nt.v);
        return t;
    }
    t.layout_tv = *layout_tv;
    t.tiler = *tiler;
    return t;
}

cute_tiled_copy cute_make_tiled_copy_tv(cute_alg *c, const cute_copy_atom *atom,
                                        const cute_layout *thr_layout, const cute_layout *val_layout)
{
    if (c->failed) return failed_copy(atom);
    /* equal ranks: the shorter one gets trailing 1s */
    int r = cute_rank(thr_layout) > cute_rank(val_layout) ? cute_rank(thr_layout) : cute_rank(val_layout);
    cute_layout thr = cute_append_to_rank(c, thr_layout, r), val = cute_append_to_rank(c, val_layout, r);
    /* (M,N) -> (thr_idx, val_idx), then its inverse (thr_idx, val_idx) -> (M,N) */
    cute_layout mn = cute_raked_product(c, &thr, &val);
    cute_layout inv = cute_right_inverse(c, &mn);
    cute_int sizes[2] = {cute_size(c, &thr), cute_size(c, &val)};
    cute_tuple tv_shape = cute_tuple_of(c, 2, (cute_tuple[]){cute_tuple_int(sizes[0]), cute_tuple_int(sizes[1])});
    cute_layout shaper = cute_make_layout(c, tv_shape);
    cute_tiler shaper_t = cute_tiler_layout(&shaper);
    cute_layout tv = cute_composition(c, &inv, &shaper_t);
    /* the tiler: each mode's size (product_each) */
    cute_tuple each[CUTE_MAX_RANK];
    for (int i = 0; i < r && !c->failed; i++) {
        cute_layout m = cute_get(c, &mn, i);
        each[i] = cute_tuple_int(cute_size(c, &m));
    }
    cute_tuple shape = cute_tuple_of(c, r, each);
    cute_tiler tiler = cute_tiler_shape(c, &shape);
    return cute_make_tiled_copy(c, atom, &tv, &tiler);
}

cute_tiled_copy cute_make_tiled_copy_mma(cute_alg *c, const cute_copy_atom *atom,
                                         const cute_tiled_mma *mma, cute_mma_operand op)
{
    cute_layout tv = cute_tiled_mma_layout_tv(c, mma, op);
    static const int modes[3][2] = {{0, 2}, {1, 2}, {0, 1}};
    cute_tuple shape = cute_tuple_of(c, 2, (cute_tuple[]){
        cute_tuple_int(cute_tiled_mma_tile_size(c, mma, modes[op][0])),
        cute_tuple_int(cute_tiled_mma_tile_size(c, mma, modes[op][1]))});
    cute_tiler tiler = cute_tiler_shape(c, &shape);
    return cute_make_tiled_copy(c, atom, &tv, &tiler);
}

int64_t cute_tiled_copy_threads(const cute_tiled_copy *t)
{
    int64_t n = 1;
    cute_tuple s = cute_tuple_get(&t->layout_tv.shape, 0);
    for (int i = 0; i < s.nleaves; i++) n *= s.leaf[i].v;
    return n;
}

cute_tuple cute_tiled_copy_tile_shape(cute_alg *c, const cute_tiled_copy *t)
{
    int r = cute_tuple_rank(&t->tiler.tree);
    cute_tuple each[CUTE_MAX_RANK];
    for (int i = 0; i < r && !c->failed; i++) {
        cute_tuple part = cute_tuple_get(&t->tiler.tree, i);
        cute_int n = cute_i(1);
        for (int k = 0; k < part.nleaves; k++)
            n = cute_mul(c, n, cute_size(c, &t->tiler.layouts[part.leaf[k].v]));
        each[i] = cute_tuple_int(n);
    }
    return cute_tuple_of(c, r, each);
}

/* the atom's (thread, value) in the reference layout -> in the source/destination layout */
static cute_layout ref2trg(cute_alg *c, const cute_copy_atom *a, bool src)
{
    cute_layout inv = cute_right_inverse(c, &a->ref_tv);
    cute_tiler trg = cute_tiler_layout(src ? &a->src_tv : &a->dst_tv);
    return cute_composition(c, &inv, &trg);
}

/* CuTe's tile2thrfrg: ((TileM,TileN,...),(RestM,...)) -> ((thr,val),(RestM,...)) */
static cute_layout tile2thrfrg(cute_alg *c, const cute_tiled_copy *t, const cute_layout *tiled,
                               const cute_layout *r2t)
{
    cute_layout athr = cute_get(c, &t->atom.ref_tv, 0), aval = cute_get(c, &t->atom.ref_tv, 1);
    cute_tuple atom_shape = cute_tuple_of(c, 2, (cute_tuple[]){cute_tuple_int(cute_size(c, &athr)),
                                                              cute_tuple_int(cute_size(c, &aval))});
    cute_tiler atom_t = cute_tiler_shape(c, &atom_shape);
    /* ((atom_tid,atom_val),(rest_tid,rest_val)) -> tile index */
    cute_layout atom_tv = cute_zipped_divide(c, &t->layout_tv, &atom_t);
    cute_tiler r2t_t = cute_tiler_layout(r2t), under = cute_tiler_underscore();
    const cute_tiler *parts[2] = {&r2t_t, &under};
    cute_tiler trg_t = tiler_tuple(c, 2, parts);
    cute_layout trg = cute_composition(c, &atom_tv, &trg_t);
    /* zip: ((atom_tid,rest_tid),(atom_val,rest_val)), threads coalesced to one mode */
    cute_layout m0 = cute_get(c, &trg, 0), m1 = cute_get(c, &trg, 1);
    cute_layout tids[2] = {cute_get(c, &m0, 0), cute_get(c, &m1, 0)};
    cute_layout vals[2] = {cute_get(c, &m0, 1), cute_get(c, &m1, 1)};
    cute_layout tid = cute_make_layout_modes(c, 2, tids);
    tid = cute_coalesce(c, &tid);
    cute_layout val_modes[2] = {cute_coalesce(c, &vals[0]), cute_coalesce(c, &vals[1])};
    cute_layout val = cute_make_layout_modes(c, 2, val_modes);
    cute_layout tv_modes[2] = {tid, val};
    cute_layout thrval2mn = cute_make_layout_modes(c, 2, tv_modes);
    /* the tile mode through it: ((thr,(atom_val,rest_val)),(RestM,...)) */
    cute_tiler tv_t = cute_tiler_layout(&thrval2mn);
    const cute_tiler *p2[2] = {&tv_t, &under};
    cute_tiler comp = tiler_tuple(c, 2, p2);
    return cute_composition(c, tiled, &comp);
}

cute_layout cute_tiled_copy_tidfrg(cute_alg *c, const cute_tiled_copy *t, bool src,
                                   const cute_layout *tensor)
{
    if (c->failed) return cute_layout_poison();
    cute_layout tiled = cute_zipped_divide(c, tensor, &t->tiler);
    cute_layout r2t = ref2trg(c, &t->atom, src);
    return tile2thrfrg(c, t, &tiled, &r2t);
}

cute_layout cute_tiled_copy_partition(cute_alg *c, const cute_tiled_copy *t, bool src,
                                      cute_int thr, const cute_layout *tensor, cute_tuple *offset)
{
    cute_layout F = cute_tiled_copy_tidfrg(c, t, src, tensor);
    if (c->failed) return cute_layout_poison();
    /* (thr, _, (_,_,...)) over ((thr,val),(RestM,...)) */
    cute_tuple rest = cute_tuple_get(&F.shape, 1);
    int r = cute_tuple_rank(&rest);
    cute_tuple under = cute_tuple_int(cute_underscore());
    cute_tuple unders = r == 1 ? under : cute_tuple_repeat(c, r, under);
    cute_tuple tv[2] = {cute_tuple_int(thr), under};
    cute_tuple crd = cute_tuple_of(c, 2, (cute_tuple[]){cute_tuple_of(c, 2, tv), unders});
    /* slicing keeps each '_' as a mode: (val, RestM, RestN, ...) */
    return cute_slice_and_offset(c, &crd, &F, offset);
}

cute_layout cute_tiled_copy_layout_tv(cute_alg *c, const cute_tiled_copy *t, bool src)
{
    /* the tidfrg of the tile itself (column-major), the rest mode dropped */
    cute_tuple shape = cute_tiled_copy_tile_shape(c, t);
    cute_layout ref = cute_make_layout(c, shape);
    cute_layout F = cute_tiled_copy_tidfrg(c, t, src, &ref);
    return cute_get(c, &F, 0);
}

cute_layout cute_tiled_copy_retile(cute_alg *c, const cute_tiled_copy *t, const cute_layout *frag)
{
    if (c->failed) return cute_layout_poison();
    int R = cute_rank(frag);
    cute_layout m0 = cute_get(c, frag, 0);
    cute_int V = cute_size(c, &m0);
    cute_layout thr = cute_get(c, &t->layout_tv, 0);
    cute_int nthr = cute_size(c, &thr);
    if (!cute_is_static(V) || !cute_is_static(nthr)) {
        cute_alg_fail(c, "retile: the fragment's value mode must be static");
        return cute_layout_poison();
    }
    /* (m,n) -> v_idx: the shape and order of the first V values inside the TV layout */
    cute_tuple tshape = cute_tiled_copy_tile_shape(c, t);
    cute_layout inv = cute_right_inverse(c, &t->layout_tv);
    cute_layout shaper = cute_make_layout(c, tshape);
    cute_tiler st = cute_tiler_layout(&shaper);
    cute_layout inv_mn = cute_composition(c, &inv, &st);
    cute_layout frg_mn = cute_upcast(c, &inv_mn, nthr.v * V.v);
    /* (atom_vals, rest_vals) -> (v,m,n) */
    cute_layout vl = cute_make_layout(c, cute_tuple_int(V));
    cute_layout frg_inv = cute_right_inverse(c, &frg_mn);
    cute_tiler fi = cute_tiler_layout(&frg_inv);
    cute_layout prod = cute_logical_product(c, &vl, &fi);
    cute_layout aval = cute_get(c, &t->atom.ref_tv, 1);
    cute_layout av = cute_make_layout(c, cute_tuple_int(cute_size(c, &aval)));
    cute_tiler avt = cute_tiler_layout(&av);
    cute_layout frg_v = cute_zipped_divide(c, &prod, &avt);
    /* tile the fragment by (V, each mode of frg_mn) */
    int fr = cute_rank(&frg_mn);
    cute_tuple each[CUTE_MAX_RANK];
    each[0] = cute_tuple_int(V);
    for (int i = 0; i < fr && !c->failed; i++) {
        cute_layout m = cute_get(c, &frg_mn, i);
        each[i + 1] = cute_tuple_int(cute_size(c, &m));
    }
    cute_tuple tile = cute_tuple_of(c, fr + 1, each);
    cute_tiler tt = cute_tiler_shape(c, &tile);
    cute_layout tiled = cute_zipped_divide(c, frag, &tt);
    cute_tiler fv = cute_tiler_layout(&frg_v), under = cute_tiler_underscore();
    const cute_tiler *parts[2] = {&fv, &under};
    cute_tiler comp = tiler_tuple(c, 2, parts);
    cute_layout v = cute_composition(c, &tiled, &comp);
    /* (_, (0, _, _, ...)): the rest of V is 1 */
    cute_tuple rest[CUTE_MAX_RANK];
    rest[0] = cute_tuple_int(cute_i(0));
    for (int i = 1; i < R; i++) rest[i] = cute_tuple_int(cute_underscore());
    cute_tuple crd = cute_tuple_of(c, 2, (cute_tuple[]){cute_tuple_int(cute_underscore()),
                                                        R == 1 ? rest[0] : cute_tuple_of(c, R, rest)});
    cute_layout out = cute_slice(c, &crd, &v);
    return out;
}
