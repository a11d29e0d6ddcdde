/* The copy algorithms on tensors (cute_copy, cute_copy_if, cute_autovec_copy, cute_clear,
 * cute_axpby) and a thread's slice of a TiledCopy (partition_S/D, retile_S/D). */
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "atom/atom_internal.h"
#include "cutec/copy.h"
#include "atom/atom_internal.h"
#include "tensor/tensor_internal.h"
#include "trace/ctx_internal.h"

cute_thr_copy cute_tiled_copy_slice(const cute_tiled_copy *tc, cute_int thr)
{
    cute_thr_copy t = {tc, thr};
    return t;
}

static cute_tensor partition(cute_ctx *c, cute_thr_copy thr, cute_tensor t, bool src)
{
    if (!ctx_alive(c) || !atom_threads_ok(c, cute_tiled_copy_threads(thr.tc), "TiledCopy",
                                          src ? "cute_partition_S" : "cute_partition_D"))
        return t;
    cute_tuple off;
    cute_layout P = cute_tiled_copy_partition(&c->alg, thr.tc, src, thr.thr, &t.layout, &off);
    return tensor_moved(c, t, P, off);
}

cute_tensor cute_partition_S(cute_ctx *c, cute_thr_copy thr, cute_tensor t) { return partition(c, thr, t, true); }
cute_tensor cute_partition_D(cute_ctx *c, cute_thr_copy thr, cute_tensor t) { return partition(c, thr, t, false); }

/* retile_S and retile_D are the same reshaping (both work in the reference layout) */
static cute_tensor retile(cute_ctx *c, cute_thr_copy thr, cute_tensor frag)
{
    if (!ctx_alive(c)) return frag;
    cute_layout L = cute_tiled_copy_retile(&c->alg, thr.tc, &frag.layout);
    return tensor_moved(c, frag, L, cute_tuple_int(cute_i(0)));
}

cute_tensor cute_retile_S(cute_ctx *c, cute_thr_copy thr, cute_tensor frag) { return retile(c, thr, frag); }
cute_tensor cute_retile_D(cute_ctx *c, cute_thr_copy thr, cute_tensor frag) { return retile(c, thr, frag); }

static int static_size(cute_ctx *c, const cute_tensor *t, const char *what)
{
    cute_int n = cute_size(&c->alg, &t->layout);
    if (c->alg.failed) return -1;
    if (!cute_is_static(n) || n.v > 4096) {
        cute_ctx_fail(c, "%s: tensors of a static size up to 4096 elements (a thread's partition)", what);
        return -1;
    }
    return (int)n.v;
}

static bool same_size(cute_ctx *c, const cute_tensor *src, const cute_tensor *dst, const char *what)
{
    int ns = static_size(c, src, what), nd = static_size(c, dst, what);
    if (ns < 0 || nd < 0) return false;
    if (ns != nd) return cute_ctx_fail(c, "%s: the source has %d elements, the destination %d", what, ns, nd);
    if (src->dtype != dst->dtype)
        return cute_ctx_fail(c, "%s: %s into %s (convert through a TensorSSA with cute_ssa_cvt)", what,
                             cute_dtype_name((cute_dtype)src->dtype), cute_dtype_name((cute_dtype)dst->dtype));
    return true;
}

void cute_clear(cute_ctx *c, cute_tensor t) { cute_fill(c, t, 0.0); }

/* registers where pred is false set to 0: CuTe clears a fragment before a predicated copy */
static void zero_where_not(cute_ctx *c, cute_tensor dst, int n)
{
    if (dst.kind != CUTE_TENSOR_RMEM) return;
    cute_vreg z = ctx_const_int(c, (cute_dtype)dst.dtype, 0); /* 0 and 0.0: all bits zero */
    for (int i = 0; i < n && !c->alg.failed; i++) tensor_rmem_set(c, &dst, i, z);
}

/* The vectors of an autovectorizing copy run along the source's first mode.  Where a load's
 * unit-stride mode comes later (an MMA fragment's values go down M first while the shared
 * tile is K-major: f64's fragments), both sides are viewed with that mode first: element j
 * of one still pairs with element j of the other, and the loads widen.  Registers have no
 * order of their own, so nothing else changes.  (Stores keep their order: the transposing
 * stores of a padded tile are laid out for scalar accesses, ampere/sgemm.py's padding.) */
static void unit_mode_first(cute_ctx *c, cute_tensor *src, cute_tensor *dst)
{
    cute_tensor *mem = src, *other = dst;
    if (src->kind == CUTE_TENSOR_RMEM || dst->kind != CUTE_TENSOR_RMEM) return;
    cute_alg *a = &c->alg;
    cute_alg_trial trial;
    cute_alg_trial_begin(a, &trial);
    cute_layout flat = cute_flatten(a, &mem->layout);
    int r = flat.shape.nleaves, u = -1;
    for (int i = 0; i < r && u < 0 && !a->failed; i++)
        if (cute_is_const(flat.stride.leaf[i], 1) && cute_is_static(flat.shape.leaf[i]) &&
            flat.shape.leaf[i].v > 1)
            u = i;
    if (u <= 0) { /* none, or first already */
        cute_alg_trial_end(a, &trial);
        return;
    }
    /* the other side indexed by the memory side's flat coordinates */
    cute_layout compact = cute_make_layout(a, flat.shape);
    cute_tiler by = cute_tiler_layout(&compact);
    cute_layout o = cute_composition(a, &other->layout, &by);
    cute_layout m_modes[CUTE_MAX_RANK], o_modes[CUTE_MAX_RANK];
    for (int i = 0; i < r && !a->failed; i++) {
        int from = i == 0 ? u : i <= u ? i - 1 : i; /* u, then the others in order */
        m_modes[i] = cute_get(a, &flat, from), o_modes[i] = cute_get(a, &o, from);
    }
    cute_layout ml = cute_make_layout_modes(a, r, m_modes), ol = cute_make_layout_modes(a, r, o_modes);
    if (cute_alg_trial_end(a, &trial)) /* else a view the algebra cannot build: keep the order */
        mem->layout = ml, other->layout = ol;
}

static void autovec(cute_ctx *c, cute_tensor src, cute_tensor dst, const cute_ssa *pred)
{
    int n = static_size(c, &src, "cute_autovec_copy");
    if (n < 0) return;
    if (!pred) unit_mode_first(c, &src, &dst);
    /* each side with its own widest proven accesses; the values pass through registers */
    cute_ssa v;
    if (!pred)
        v = cute_tensor_load(c, src);
    else if (src.kind == CUTE_TENSOR_RMEM)
        v = cute_tensor_load(c, src);
    else
        v = cute_tensor_load_if(c, src, *pred, 0.0);
    if (!pred || dst.kind == CUTE_TENSOR_RMEM)
        cute_tensor_store(c, dst, v);
    else
        cute_tensor_store_if(c, dst, v, *pred);
}

void cute_autovec_copy(cute_ctx *c, cute_tensor src, cute_tensor dst)
{
    if (!ctx_ok(c) || !tensor_usable(c, &src, "cute_autovec_copy") ||
        !tensor_usable(c, &dst, "cute_autovec_copy") || !same_size(c, &src, &dst, "cute_autovec_copy"))
        return;
    autovec(c, src, dst, NULL);
}

/* An atom straddling the edge of the data: its values that are in, one by one; a
 * zero-filling atom (cp.async) zero-fills the others, as it would have done whole. */
static void one_by_one(cute_ctx *c, const cute_copy_atom *atom, cute_tensor sj, cute_tensor dj,
                       const cute_vreg *each, int vals)
{
    cute_dtype d = (cute_dtype)sj.dtype;
    cute_copy_atom one = cute_copy_atom_universal(&c->alg, d, 8 * cute_dtype_bytes(d));
    bool zfill = atom->traits.pred == CUTE_PRED_ZFILL && dj.kind != CUTE_TENSOR_RMEM;
    cute_vreg zero = 0;
    if (zfill)
        zero = cute_dtype_is_float(d) ? cute_ir_const_float(&c->b, d, 0.0) : cute_ir_const_int(&c->b, d, 0);
    for (int i = 0; i < vals && !c->alg.failed; i++) {
        cute_tuple ci = cute_tuple_int(cute_i(i)), o1, o2;
        cute_tensor si = tensor_moved(c, sj, cute_slice_and_offset(&c->alg, &ci, &sj.layout, &o1), o1);
        cute_tensor di = tensor_moved(c, dj, cute_slice_and_offset(&c->alg, &ci, &dj.layout, &o2), o2);
        si.layout = cute_make_layout(&c->alg, cute_tuple_int(cute_i(1)));
        di.layout = si.layout;
        if (zfill) tensor_access_chunk(c, &di, 0, 1, false, &zero, false);
        one.emit(c, &one, si, di, each[i]);
    }
}

/* the values one thread has of one atom: mode 1 of a TV layout */
static int atom_vals(cute_ctx *c, const cute_layout *tv)
{
    cute_layout v = cute_get(&c->alg, tv, 1);
    return (int)cute_size(&c->alg, &v).v;
}

/* an atom whose source and destination hold different numbers of values per thread
 * (ldmatrix x1: a 16-byte row's address, one register): both sides hold as many atoms */
static bool same_atoms(cute_ctx *c, const cute_copy_atom *atom, const cute_tensor *src, const cute_tensor *dst,
                       int vals, int dvals, const char *what)
{
    int ns = static_size(c, src, what), nd = static_size(c, dst, what);
    if (ns < 0 || nd < 0) return false;
    if (ns % vals || nd % dvals || ns / vals != nd / dvals)
        return cute_ctx_fail(c, "%s: %s takes %d source and %d destination values per thread: the source's %d "
                                "and the destination's %d are not as many atoms", what, atom->name, vals, dvals, ns, nd);
    if (src->dtype != dst->dtype)
        return cute_ctx_fail(c, "%s: %s into %s", what, cute_dtype_name((cute_dtype)src->dtype),
                             cute_dtype_name((cute_dtype)dst->dtype));
    return true;
}

/* mode 0 of t holds whole atoms of `vals` values */
static bool first_mode_holds(cute_ctx *c, const cute_copy_atom *atom, const cute_tensor *t, int vals, const char *what)
{
    cute_layout m0 = cute_get(&c->alg, &t->layout, 0);
    cute_int v0 = cute_size(&c->alg, &m0);
    if (c->alg.failed) return false;
    if (cute_is_static(v0) && v0.v % vals == 0) return true;
    return cute_ctx_fail(c, "%s: the first mode (%lld values) is not a multiple of the atom's %d values (%s)", what,
                         (long long)v0.v, vals, atom->name);
}

/* src/dst split into the atom's values and the rest: ((AtomVal),(rest...)) */
static cute_layout by_atom(cute_ctx *c, const cute_layout *L, int vals)
{
    cute_tuple t = cute_tuple_int(cute_i(vals));
    cute_tiler T = cute_tiler_shape(&c->alg, &t);
    return cute_zipped_divide(&c->alg, L, &T);
}

/* one atom's values under a predicate: the atom's instruction where all its values are in;
 * else value by value (a vector straddling the edge of a matrix still moves its inside
 * part).  A UniversalCopy load of narrow elements into registers joins its branches on
 * 32-bit words (tensor_load_chunk_if); other copies clear the registers first.  A store's
 * pointer is computed before the branch, for the vector store and the fallback (loads keep
 * theirs inside: hoisted, they cost the pipelined SGEMM registers and spills). */
static void atom_if(cute_ctx *c, const cute_copy_atom *atom, cute_tensor sj, cute_tensor dj,
                    int vals, cute_vreg all, const cute_vreg *each)
{
    if (sj.kind != CUTE_TENSOR_RMEM && dj.kind == CUTE_TENSOR_RMEM && dj.pack <= 1 &&
        copy_atom_is_universal(atom) && tensor_load_by_words(&sj, vals) &&
        tensor_vector_width(c, &sj, vals) == vals) {
        cute_vreg regs[64];
        if (atom_rmem_read(c, &dj, vals, regs, "cute_copy_if")) /* unpacked: the registers themselves */
            tensor_load_chunk_if(c, &sj, 0, vals, all, each, 0.0, regs);
        return;
    }
    zero_where_not(c, dj, vals);
    tensor_hoist_ptr(c, &dj, 0, vals);
    ctx_open_if(c, all);
    atom->emit(c, atom, sj, dj, 0);
    ctx_open_else(c);
    one_by_one(c, atom, sj, dj, each, vals);
    ctx_close(c);
}

static void copy_atoms(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst,
                       const cute_ssa *pred, bool whole, const char *what)
{
    if (!ctx_ok(c) || !tensor_usable(c, &src, what) || !tensor_usable(c, &dst, what) ||
        !atom_arch_ok(c, atom->min_arch, atom->name, what))
        return;
    if (pred && atom->traits.pred == CUTE_PRED_NONE) {
        cute_ctx_fail(c, "%s: %s cannot be predicated: every lane of the warp executes it (copy whole "
                         "tiles with it, or predicate with a thread-scope atom)", what, atom->name);
        return;
    }
    int vals = atom_vals(c, &atom->src_tv), dvals = atom_vals(c, &atom->dst_tv);
    if (!(vals == dvals || atom->autovec ? same_size(c, &src, &dst, what)
                                         : same_atoms(c, atom, &src, &dst, vals, dvals, what)))
        return;
    int n = static_size(c, &src, what);
    if (pred && !ssa_usable(c, pred, what)) return;
    if (pred && (pred->n != n || pred->dtype != CUTE_I1)) {
        cute_ctx_fail(c, "%s: the predicate must be an i1 TensorSSA shaped like the source", what);
        return;
    }
    if (atom->autovec) { /* a predicated load from memory already gives 0 where pred fails */
        if (pred && src.kind == CUTE_TENSOR_RMEM) zero_where_not(c, dst, n);
        autovec(c, src, dst, pred);
        return;
    }
    if (!first_mode_holds(c, atom, &src, vals, what) || !first_mode_holds(c, atom, &dst, dvals, what)) return;
    cute_tensor s = src, d = dst;
    s.layout = by_atom(c, &src.layout, vals);
    d.layout = by_atom(c, &dst.layout, dvals);
    cute_layout order = cute_make_layout(&c->alg, src.layout.shape); /* element -> pred index */
    cute_layout order_by = by_atom(c, &order, vals);
    if (pred && (vals == 1 || vals > 64 || whole)) zero_where_not(c, dst, n);
    cute_tuple under = cute_tuple_int(cute_underscore());
    for (int j = 0; j < n / vals && !c->alg.failed; j++) {
        cute_tuple crd = cute_tuple_of(&c->alg, 2, (cute_tuple[]){under, cute_tuple_int(cute_i(j))});
        cute_tuple so, dof;
        cute_tensor sj = tensor_moved(c, s, cute_slice_and_offset(&c->alg, &crd, &s.layout, &so), so);
        cute_tensor dj = tensor_moved(c, d, cute_slice_and_offset(&c->alg, &crd, &d.layout, &dof), dof);
        if (!pred) {
            atom->emit(c, atom, sj, dj, 0);
            continue;
        }
        cute_tuple po;
        cute_layout pl = cute_slice_and_offset(&c->alg, &crd, &order_by, &po);
        cute_vreg each[64], all = 0;
        for (int i = 0; i < vals && i < 64 && !c->alg.failed; i++) {
            each[i] = pred->v[po.leaf[0].v + cute_layout_eval(&c->alg, &pl, cute_i(i)).v];
            all = all ? ctx_pure_op(c, CUTE_OP_AND, cute_type_of(CUTE_I1), all, each[i]) : each[i];
        }
        if (vals == 1 || vals > 64 || whole)
            atom->emit(c, atom, sj, dj, all);
        else
            atom_if(c, atom, sj, dj, vals, all, each);
    }
}

void cute_copy(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst)
{
    copy_atoms(c, atom, src, dst, NULL, false, "cute_copy");
}

void cute_copy_if(cute_ctx *c, const cute_copy_atom *atom, cute_ssa pred, cute_tensor src,
                  cute_tensor dst)
{
    copy_atoms(c, atom, src, dst, &pred, false, "cute_copy_if");
}

void cute_copy_if_whole(cute_ctx *c, const cute_copy_atom *atom, cute_ssa pred, cute_tensor src,
                        cute_tensor dst)
{
    copy_atoms(c, atom, src, dst, &pred, true, "cute_copy_if_whole");
}

/* y = alpha x + beta y where pred holds (all of y when pred is NULL) */
static void axpby(cute_ctx *c, cute_val alpha, cute_tensor x, cute_val beta, cute_tensor y,
                  const cute_ssa *pred, const char *what)
{
    if (!ctx_ok(c) || !same_size(c, &x, &y, what)) return;
    cute_ssa xs = cute_tensor_load(c, x);
    cute_ssa ax = cute_ssa_binop(c, CUTE_OP_MUL, xs, cute_ssa_scalar(c, alpha, xs.shape));
    cute_val zero = cute_val_const(c, (cute_dtype)y.dtype, 0.0);
    bool masked = pred && y.kind != CUTE_TENSOR_RMEM;
    /* beta == 0: y is written, never read (it may hold anything, NaN included) */
    ctx_open_if(c, cute_val_cmp(c, CUTE_OP_EQ, beta, zero).r);
    if (masked)
        cute_tensor_store_if(c, y, ax, *pred);
    else
        cute_tensor_store(c, y, ax);
    ctx_open_else(c);
    cute_ssa ys = masked ? cute_tensor_load_if(c, y, *pred, 0.0) : cute_tensor_load(c, y);
    cute_ssa r = cute_ssa_binop(c, CUTE_OP_ADD, ax, cute_ssa_binop(c, CUTE_OP_MUL, ys, cute_ssa_scalar(c, beta, ys.shape)));
    if (masked)
        cute_tensor_store_if(c, y, r, *pred);
    else
        cute_tensor_store(c, y, r);
    ctx_close(c);
}

void cute_axpby(cute_ctx *c, cute_val alpha, cute_tensor x, cute_val beta, cute_tensor y)
{
    axpby(c, alpha, x, beta, y, NULL, "cute_axpby");
}

void cute_axpby_if(cute_ctx *c, cute_ssa pred, cute_val alpha, cute_tensor x, cute_val beta,
                   cute_tensor y)
{
    axpby(c, alpha, x, beta, y, &pred, "cute_axpby_if");
}
