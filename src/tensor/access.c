/* Loads and stores of whole (statically sized) tensors, vectorized as the layout and the
 * proven alignment allow; predicated variants; the bounds predicate of coordinate tensors. */
#include <stdlib.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "cutec/tensor.h"
#include "tensor_internal.h"
#include "trace/ctx_internal.h"

static cute_ssa new_ssa(cute_ctx *c, cute_dtype d, cute_tuple shape, int n)
{
    cute_ssa s = {.dtype = (uint8_t)d, .n = n, .shape = shape, .kernel = c->kernel}; /* no pairs */
    s.v = cute_ir_alloc(c->fn, (size_t)(n ? n : 1) * sizeof(cute_vreg));
    if (!s.v) {
        cute_ctx_fail(c, "out of memory");
        return bad_ssa();
    }
    return s;
}

/* size of t as a static int, or an error naming what */
static int static_size(cute_ctx *c, const cute_tensor *t, const char *what)
{
    cute_int n = cute_size(&c->alg, &t->layout);
    if (c->alg.failed) return -1;
    if (!cute_is_static(n) || n.v > 4096) {
        cute_ctx_fail(c, "%s needs a statically sized tensor of at most 4096 elements (this one "
                         "has %s%s)", what, cute_is_static(n) ? "" : "a dynamic size",
                      cute_is_static(n) ? "more" : "");
        return -1;
    }
    return (int)n.v;
}

/* the bits an element takes in memory: 4 for e2m1 (two per byte), else whole bytes */
static int elem_bits(cute_dtype d)
{
    return cute_dtype_is_packed(d) ? cute_dtype_bits(d) : 8 * cute_dtype_bytes(d);
}

/* Does a swizzle keep every w-element chunk (w = 2^k) that starts at a multiple of w
 * contiguous, in order, and starting at a multiple of w?  Exactly when B == 0 or 2^M >= w.
 *
 * sw(x) = x ^ f(x), where f copies a B-bit source field onto a B-bit destination field:
 * S >= 0: source at bit M+S, destination at M; S < 0: source at M, destination at M-S.
 * Either way the lower field starts at bit M.  A chunk is x = o | j, o = 0 mod 2^k, j < 2^k.
 *  (if)   M >= k: both fields lie at or above bit k, so f(o | j) = f(o) with its low k
 *         bits 0, and sw(o | j) = (o ^ f(o)) | j = sw(o) + j, sw(o) = 0 mod 2^k.
 *  (only if) B > 0, M < k: bit M is one of j's bits.  S >= 0: bit M is flipped by source
 *         bit M+S; if M+S >= k take an o with it set: j = 0 maps to sw(o) with bit M set,
 *         not a multiple of 2^k; if M+S < k, j = 2^(M+S) maps to 2^(M+S) + 2^M within
 *         the chunk: out of order.  S < 0: j = 2^M flips bit M-S, so element 2^M of the
 *         chunk moves by 2^(M-S) (out of order, or out of the chunk).
 * The chunks are those of the unswizzled offsets, which vector_width proves contiguous
 * and w-aligned; so the condition is needed and sufficient for arbitrary offsets. */
static bool swizzle_keeps_vectors(cute_swizzle sw, int w)
{
    return sw.B == 0 || ((int64_t)1 << sw.M) >= w;
}

/* The widest access, in elements, whose every chunk of w consecutive elements is
 * contiguous and aligned to w*esize bytes: w divides n, the layout's leading contiguous
 * run (max_common_vector with the compact layout), the offset, and every stride past the
 * first w elements; the base alignment covers w*esize; and the swizzle, if any, keeps
 * w-chunks whole (swizzle_keeps_vectors).  Unprovable means narrower. */
static int vector_width(cute_ctx *c, const cute_tensor *t, int n)
{
    int ebits = elem_bits((cute_dtype)t->dtype);
    int w = 128 / ebits;
    while (w > 1 && (t->align * 8 < w * ebits || n % w || !swizzle_keeps_vectors(t->sw, w))) w /= 2;
    if (w <= 1) return 1;
    cute_alg *a = &c->alg;
    cute_alg_trial trial;
    cute_alg_trial_begin(a, &trial);
    cute_layout compact = cute_make_layout(a, t->layout.shape);
    cute_int run = cute_max_common_vector(a, &t->layout, &compact);
    for (; w > 1 && !a->failed; w /= 2) {
        cute_int W = cute_i(w);
        if (cute_int_cmp(a, CUTE_CMP_DIVIDES, W, run) != CUTE_TRUE) continue;
        if (cute_int_cmp(a, CUTE_CMP_DIVIDES, W, t->offset) != CUTE_TRUE) continue;
        cute_layout unit = cute_make_layout(a, cute_tuple_int(W));
        cute_tiler T = cute_tiler_layout(&unit);
        cute_layout split = cute_logical_divide(a, &t->layout, &T);
        if (a->failed) break;
        cute_layout rest = cute_get(a, &split, 1);
        bool ok = true;
        for (int i = 0; i < rest.stride.nleaves && ok; i++)
            ok = cute_is_const(rest.shape.leaf[i], 1) ||
                 cute_int_cmp(a, CUTE_CMP_DIVIDES, W, rest.stride.leaf[i]) == CUTE_TRUE;
        if (ok) break;
    }
    /* choosing a width is a question, not part of the user's computation: a failed proof
     * (e.g. a dynamic stride the algebra cannot order) just means scalar accesses */
    bool failed = a->failed;
    cute_alg_trial_end(a, &trial);
    return failed ? 1 : w;
}


/* w elements from v (a vector, or a scalar when w is 1) into regs[i..i+w) */
static void unpack(cute_ctx *c, cute_vreg v, cute_dtype d, int i, int w, cute_vreg *regs, bool assign)
{
    for (int j = 0; j < w; j++) {
        cute_vreg e = v;
        if (w > 1) {
            e = cute_ir_op(&c->b, CUTE_OP_EXTRACT, cute_type_of(d), v, 0, 0);
            c->b.last->imm = j;
        }
        if (assign)
            cute_ir_mov(&c->b, regs[i + j], e);
        else
            regs[i + j] = e;
    }
}

/* regs[i..i+w) as one value of type vt */
static cute_vreg pack(cute_ctx *c, cute_type vt, int i, int w, const cute_vreg *regs)
{
    if (w == 1) return regs[i];
    cute_vreg v = ctx_const(c, vt, 0); /* every lane is written below */
    for (int j = 0; j < w; j++) {
        v = cute_ir_op(&c->b, CUTE_OP_INSERT, vt, v, regs[i + j], 0);
        c->b.last->imm = j;
    }
    return v;
}

/* Sub-byte elements (e2m1) in memory have no address of their own: w of them from element
 * i move as w*bits/8 whole bytes through a u8 pointer, and BITCAST turns the bytes into
 * lanes (element 0 in the low nibble, as CuTe packs).  The chunk must start on a byte:
 * its element offset a proven multiple of the elements per byte, w a multiple of them. */
static void packed_access(cute_ctx *c, const cute_tensor *t, int i, int w, bool load, cute_vreg *regs,
                          bool assign)
{
    cute_dtype d = (cute_dtype)t->dtype;
    int per = 8 / cute_dtype_bits(d);
    cute_composed L = {t->sw, t->offset, t->layout};
    cute_int off = cute_composed_eval(&c->alg, &L, cute_i(i));
    if (c->alg.failed) return;
    if (w % per || cute_int_cmp(&c->alg, CUTE_CMP_DIVIDES, cute_i(per), off) != CUTE_TRUE) {
        char s[64];
        cute_int_str(off, s, sizeof s);
        cute_ctx_fail(c, "%s %d %s element%s at element offset %s: %s elements move in whole bytes "
                         "(%d per byte), so an access needs a multiple of %d elements at an offset "
                         "provably a multiple of %d (make the layout's contiguous run and the offset "
                         "even, or recast to u8)",
                      load ? "a load of" : "a store of", w, cute_dtype_name(d), w > 1 ? "s" : "", s,
                      cute_dtype_name(d), per, per, per);
        return;
    }
    cute_space sp = (cute_space)t->base.t.space;
    cute_vreg bytes = cute_ir_op(&c->b, CUTE_OP_BITCAST, cute_type_ptr(CUTE_U8, sp), t->base.r, 0, 0);
    cute_val o = cute_int_index(c, cute_div(&c->alg, off, cute_i(per)));
    if (c->alg.failed) return;
    cute_vreg p = cute_ir_op(&c->b, CUTE_OP_PTR_ADD, cute_type_ptr(CUTE_U8, sp), bytes, o.r, 0);
    int nb = w / per;
    cute_type bt = nb > 1 ? cute_type_vec(CUTE_U8, nb) : cute_type_of(CUTE_U8), vt = cute_type_vec(d, w);
    if (load) {
        cute_vreg v = cute_ir_op(&c->b, CUTE_OP_LOAD, bt, p, 0, 0);
        c->b.last->imm = nb;
        unpack(c, cute_ir_op(&c->b, CUTE_OP_BITCAST, vt, v, 0, 0), d, i, w, regs, assign);
        return;
    }
    cute_vreg v = cute_ir_op(&c->b, CUTE_OP_BITCAST, bt, pack(c, vt, i, w, regs), 0, 0);
    cute_ir_op_void(&c->b, CUTE_OP_STORE, bt, p, v, 0, nb);
}

/* one access of w elements at element i: LOAD into out[i..i+w) or STORE from in[i..i+w) */
static void access(cute_ctx *c, const cute_tensor *t, int i, int w, bool load, cute_vreg *regs,
                   bool assign)
{
    if (w > 1 && !swizzle_keeps_vectors(t->sw, w)) {
        /* a caller (the copy atoms) proved the chunk contiguous before the swizzle: split
         * it into the pieces the swizzle keeps whole (swizzle_keeps_vectors) */
        int w2 = 1;
        while (swizzle_keeps_vectors(t->sw, 2 * w2) && w % (2 * w2) == 0) w2 *= 2;
        for (int j = 0; j < w; j += w2) access(c, t, i + j, w2, load, regs, assign);
        return;
    }
    cute_dtype d = (cute_dtype)t->dtype;
    if (cute_dtype_is_packed(d)) {
        packed_access(c, t, i, w, load, regs, assign);
        return;
    }
    int esize = cute_dtype_bytes(d);
    cute_vreg p = cute_tensor_ptr(c, *t, cute_i(i)).r;
    cute_type vt = w > 1 ? cute_type_vec(d, w) : cute_type_of(d);
    int align = w * esize;
    if (load) {
        cute_vreg v = cute_ir_op(&c->b, CUTE_OP_LOAD, vt, p, 0, 0);
        c->b.last->imm = align;
        unpack(c, v, d, i, w, regs, assign);
        return;
    }
    cute_ir_op_void(&c->b, CUTE_OP_STORE, vt, p, pack(c, vt, i, w, regs), 0, align);
}

static bool memory_tensor(cute_ctx *c, const cute_tensor *t, const char *what)
{
    if (t->kind == CUTE_TENSOR_GMEM || t->kind == CUTE_TENSOR_SMEM || t->kind == CUTE_TENSOR_RMEM)
        return tensor_usable(c, t, what);
    return cute_ctx_fail(c, "%s of a coordinate tensor (use cute_elem_less for predicates)", what);
}

static int64_t reg_index(cute_ctx *c, const cute_tensor *t, int i)
{
    cute_int off = cute_add(&c->alg, t->offset, cute_layout_eval(&c->alg, &t->layout, cute_i(i)));
    return cute_is_static(off) ? off.v : -1;
}

cute_ssa cute_tensor_load(cute_ctx *c, cute_tensor t)
{
    if (!ctx_ok(c) || !memory_tensor(c, &t, "load")) return bad_ssa();
    int n = static_size(c, &t, "cute_tensor_load");
    if (n < 0) return bad_ssa();
    cute_tuple shape = t.layout.shape;
    cute_ssa s = new_ssa(c, (cute_dtype)t.dtype, shape, n);
    if (!s.v) return s;
    if (t.kind == CUTE_TENSOR_RMEM) {
        /* copies, so later assignments don't alias: a BITCAST (to the tensor's type, which
         * a recast register differs from) defines a register holding the value now (one
         * definition, where a mutable copy needs a declaration and an assignment) */
        for (int i = 0; i < n; i++)
            s.v[i] = t.pack > 1 ? tensor_rmem_get(c, &t, i) /* an EXTRACT: a value already */
                                : cute_ir_op(&c->b, CUTE_OP_BITCAST, cute_type_of((cute_dtype)t.dtype),
                                             t.regs[reg_index(c, &t, i)], 0, 0);
        return c->alg.failed ? bad_ssa() : s;
    }
    int w = vector_width(c, &t, n);
    for (int i = 0; i < n && !c->alg.failed; i += w) access(c, &t, i, w, true, s.v, false);
    return c->alg.failed ? bad_ssa() : s;
}

static bool shapes_match(cute_ctx *c, int n, cute_ssa v, const char *what)
{
    if (!ssa_usable(c, &v, what)) return false;
    if (v.n == n && v.v) return true;
    return cute_ctx_fail(c, "%s: the value has %d elements, the tensor %d", what, v.n, n);
}

void cute_tensor_store(cute_ctx *c, cute_tensor t, cute_ssa v)
{
    if (!ctx_ok(c) || !memory_tensor(c, &t, "store")) return;
    int n = static_size(c, &t, "cute_tensor_store");
    if (n < 0 || !shapes_match(c, n, v, "cute_tensor_store")) return;
    if (v.dtype != t.dtype) {
        cute_ctx_fail(c, "cute_tensor_store: %s values into a %s tensor (convert with cute_ssa_cvt)",
                      cute_dtype_name((cute_dtype)v.dtype), cute_dtype_name((cute_dtype)t.dtype));
        return;
    }
    if (t.kind == CUTE_TENSOR_RMEM) {
        for (int i = 0; i < n; i++) tensor_rmem_set(c, &t, i, v.v[i]);
        return;
    }
    int w = vector_width(c, &t, n);
    for (int i = 0; i < n && !c->alg.failed; i += w) access(c, &t, i, w, false, v.v, false);
}

/* the AND of pred[i..i+w), and whether it is the constant true */
static cute_vreg chunk_pred(cute_ctx *c, cute_ssa pred, int i, int w)
{
    cute_vreg p = pred.v[i];
    for (int j = 1; j < w; j++) p = ctx_pure_op(c, CUTE_OP_AND, cute_type_of(CUTE_I1), p, pred.v[i + j]);
    return p;
}

/* The pointer to element i of t, emitted here so that a predicated chunk's vector access
 * and its element-by-element fallback (ctx_ptr_add: the chunk's pointer plus an
 * immediate) both find it in the lowering memo, instead of each computing the address
 * inside its own scope; and the immediates of the chunk's w elements, which every chunk
 * shares */
void tensor_hoist_ptr(cute_ctx *c, const cute_tensor *t, int i, int w)
{
    if (t->kind != CUTE_TENSOR_GMEM && t->kind != CUTE_TENSOR_SMEM) return;
    cute_tensor_ptr(c, *t, cute_i(i));
    cute_composed L = {t->sw, t->offset, t->layout};
    for (int j = 1; j < w && !c->alg.failed; j++) ctx_hoist_offset(c, cute_composed_eval(&c->alg, &L, cute_i(i + j)));
}

/* CONST's bits for `fill` of dtype d (a double's bits for floats) */
static int64_t fill_bits(cute_dtype d, double fill)
{
    int64_t bits = (int64_t)fill;
    if (cute_dtype_is_float(d)) memcpy(&bits, &fill, sizeof bits);
    return bits;
}

bool tensor_load_by_words(const cute_tensor *t, int w)
{
    int esize = cute_dtype_bytes((cute_dtype)t->dtype);
    return w > 1 && esize < 4 && (w * esize) % 4 == 0 && swizzle_keeps_vectors(t->sw, w) &&
           !cute_dtype_is_packed((cute_dtype)t->dtype); /* sub-byte: no element addresses */
}

/* the fallback of tensor_load_chunk_if: element by element into a vector of type et */
static cute_vreg gather(cute_ctx *c, const cute_tensor *t, int i, int w, const cute_vreg *each,
                        cute_vreg filled, cute_type et)
{
    cute_dtype d = (cute_dtype)t->dtype;
    cute_vreg f = cute_ir_new_vreg(c->fn, et, NULL, true);
    cute_ir_mov(&c->b, f, filled);
    for (int j = 0; j < w; j++) {
        ctx_open_if(c, each[j]);
        cute_vreg e = cute_ir_op(&c->b, CUTE_OP_LOAD, cute_type_of(d), cute_tensor_ptr(c, *t, cute_i(i + j)).r, 0, 0);
        c->b.last->imm = cute_dtype_bytes(d);
        cute_vreg g = cute_ir_op(&c->b, CUTE_OP_INSERT, et, f, e, 0);
        c->b.last->imm = j;
        cute_ir_mov(&c->b, f, g);
        ctx_close(c);
    }
    return f;
}

void tensor_load_chunk_if(cute_ctx *c, const cute_tensor *t, int i, int w, cute_vreg all,
                          const cute_vreg *each, double fill, cute_vreg *regs)
{
    cute_dtype d = (cute_dtype)t->dtype;
    int bytes = w * cute_dtype_bytes(d);
    cute_type et = cute_type_vec(d, w);
    cute_type wt = bytes == 4 ? cute_type_of(CUTE_U32) : cute_type_vec(CUTE_U32, bytes / 4);
    cute_vreg words = cute_ir_new_vreg(c->fn, wt, NULL, true);
    cute_vreg filled = ctx_const(c, et, fill_bits(d, fill));
    cute_ir_mov(&c->b, words, ctx_const(c, wt, 0)); /* defined here; both branches set it */
    tensor_hoist_ptr(c, t, i, w);
    ctx_open_if(c, all);
    cute_vreg v = cute_ir_op(&c->b, CUTE_OP_LOAD, et, cute_tensor_ptr(c, *t, cute_i(i)).r, 0, 0);
    c->b.last->imm = bytes;
    cute_ir_mov(&c->b, words, cute_ir_op(&c->b, CUTE_OP_BITCAST, wt, v, 0, 0));
    ctx_open_else(c);
    cute_vreg f = gather(c, t, i, w, each, filled, et);
    cute_ir_mov(&c->b, words, cute_ir_op(&c->b, CUTE_OP_BITCAST, wt, f, 0, 0));
    ctx_close(c);
    cute_vreg g = cute_ir_op(&c->b, CUTE_OP_BITCAST, et, words, 0, 0);
    for (int j = 0; j < w; j++) {
        cute_vreg x = cute_ir_op(&c->b, CUTE_OP_EXTRACT, cute_type_of(d), g, 0, 0);
        c->b.last->imm = j;
        cute_ir_mov(&c->b, regs[j], x);
    }
}

/* predicated access: per chunk, the vector access when the whole chunk is in, else each
 * element on its own */
static void access_if(cute_ctx *c, const cute_tensor *t, int n, cute_ssa pred, bool load,
                      cute_vreg *regs, double fill)
{
    int w = vector_width(c, t, n);
    for (int i = 0; i < n && !c->alg.failed; i += w) {
        if (load && tensor_load_by_words(t, w)) {
            tensor_load_chunk_if(c, t, i, w, chunk_pred(c, pred, i, w), pred.v + i, fill, regs + i);
            continue;
        }
        cute_vreg all = chunk_pred(c, pred, i, w);
        if (!cute_dtype_is_packed((cute_dtype)t->dtype)) tensor_hoist_ptr(c, t, i, w);
        ctx_open_if(c, all);
        access(c, t, i, w, load, regs, true);
        int unit = cute_dtype_is_packed((cute_dtype)t->dtype) ? 8 / cute_dtype_bits((cute_dtype)t->dtype) : 1;
        if (w > unit) { /* element by element (sub-byte: byte by byte) */
            ctx_open_else(c);
            for (int j = 0; j < w; j += unit) {
                ctx_open_if(c, chunk_pred(c, pred, i + j, unit));
                access(c, t, i + j, unit, load, regs, true);
                ctx_close(c);
            }
        }
        ctx_close(c);
    }
}

static bool pred_ok(cute_ctx *c, int n, cute_ssa pred, const char *what)
{
    if (!shapes_match(c, n, pred, what)) return false;
    if (pred.dtype != CUTE_I1) return cute_ctx_fail(c, "%s: the predicate must be i1", what);
    return true;
}

cute_ssa cute_tensor_load_if(cute_ctx *c, cute_tensor t, cute_ssa pred, double fill)
{
    if (!ctx_ok(c) || !memory_tensor(c, &t, "load")) return bad_ssa();
    int n = static_size(c, &t, "cute_tensor_load_if");
    if (n < 0 || !pred_ok(c, n, pred, "cute_tensor_load_if")) return bad_ssa();
    if (t.kind == CUTE_TENSOR_RMEM) {
        cute_ctx_fail(c, "cute_tensor_load_if of registers: use cute_ssa_select");
        return bad_ssa();
    }
    cute_ssa s = new_ssa(c, (cute_dtype)t.dtype, t.layout.shape, n);
    if (!s.v) return s;
    cute_vreg f = cute_val_const(c, (cute_dtype)t.dtype, fill).r;
    for (int i = 0; i < n; i++) {
        s.v[i] = cute_ir_new_vreg(c->fn, cute_type_of((cute_dtype)t.dtype), NULL, true);
        cute_ir_mov(&c->b, s.v[i], f);
    }
    access_if(c, &t, n, pred, true, s.v, fill);
    return c->alg.failed ? bad_ssa() : s;
}

void cute_tensor_store_if(cute_ctx *c, cute_tensor t, cute_ssa v, cute_ssa pred)
{
    if (!ctx_ok(c) || !memory_tensor(c, &t, "store")) return;
    int n = static_size(c, &t, "cute_tensor_store_if");
    if (n < 0 || !shapes_match(c, n, v, "cute_tensor_store_if") ||
        !pred_ok(c, n, pred, "cute_tensor_store_if"))
        return;
    if (v.dtype != t.dtype || t.kind == CUTE_TENSOR_RMEM) {
        cute_ctx_fail(c, "cute_tensor_store_if: %s", t.kind == CUTE_TENSOR_RMEM
                                                         ? "registers are never predicated"
                                                         : "the value's type differs from the tensor's");
        return;
    }
    access_if(c, &t, n, pred, false, v.v, 0.0);
}

cute_val cute_tensor_ptr(cute_ctx *c, cute_tensor t, cute_int i)
{
    cute_val none = {0, cute_type_of(CUTE_VOID), 0};
    if (!ctx_ok(c)) return none;
    if ((t.kind == CUTE_TENSOR_GMEM || t.kind == CUTE_TENSOR_SMEM) && !tensor_usable(c, &t, "cute_tensor_ptr"))
        return none;
    if (t.kind != CUTE_TENSOR_GMEM && t.kind != CUTE_TENSOR_SMEM) {
        cute_ctx_fail(c, "cute_tensor_ptr needs a global or shared tensor");
        return none;
    }
    if (cute_dtype_is_packed((cute_dtype)t.dtype)) {
        cute_ctx_fail(c, "cute_tensor_ptr: a %s element has no address of its own (recast the "
                         "tensor to u8)", cute_dtype_name((cute_dtype)t.dtype));
        return none;
    }
    if (t.sw.B == 0 && cute_is_static(i)) {
        /* (base + offset) + layout(i): the first part (the thread's and the tile's) is one
         * register every element of the fragment shares through the lowering memo, the
         * second a static coordinate times the strides.  As one sum, offset + layout(i),
         * each element's address repeated the thread's part after its own term (C's 32
         * elements a piece under beta in the Hopper epilogue: a fifth of NVVM's time
         * reassociating them, 250 more SASS instructions; docs/compile_time.md). */
        cute_vreg b = ctx_ptr_add(c, t.base, t.offset);
        cute_int at = cute_layout_eval(&c->alg, &t.layout, i);
        cute_vreg p = c->alg.failed || !b ? 0 : ctx_ptr_add(c, (cute_val){b, t.base.t, t.base.kernel}, at);
        return p ? ctx_val(c, p) : none;
    }
    cute_composed L = {t.sw, t.offset, t.layout}; /* sw(offset + layout(i)) */
    cute_int off = cute_composed_eval(&c->alg, &L, i);
    cute_vreg p = c->alg.failed ? 0 : ctx_ptr_add(c, t.base, off);
    return p ? ctx_val(c, p) : none;
}

cute_ssa cute_elem_less(cute_ctx *c, cute_tensor coords, cute_tuple shape)
{
    if (!ctx_ok(c)) return bad_ssa();
    if (coords.kind != CUTE_TENSOR_COORD) {
        cute_ctx_fail(c, "cute_elem_less needs a coordinate (identity) tensor");
        return bad_ssa();
    }
    int n = static_size(c, &coords, "cute_elem_less");
    if (n < 0) return bad_ssa();
    cute_ssa s = new_ssa(c, CUTE_I1, coords.layout.shape, n);
    if (!s.v) return s;
    cute_tuple flat_shape = cute_tuple_flatten(&shape);
    for (int i = 0; i < n && !c->alg.failed; i++) {
        cute_tuple crd = cute_layout_eval_basis(&c->alg, &coords.layout, cute_i(i));
        cute_tuple flat = cute_tuple_flatten(&crd);
        cute_tuple base = cute_tuple_flatten(&coords.coord);
        cute_vreg all = 0;
        for (int m = 0; m < flat_shape.nleaves && !c->alg.failed; m++) {
            cute_int x = m < flat.nleaves ? flat.leaf[m] : cute_i(0);
            if (m < base.nleaves) x = cute_add(&c->alg, x, base.leaf[m]);
            cute_val lt = cute_int_lt(c, x, flat_shape.leaf[m]);
            all = all ? ctx_pure_op(c, CUTE_OP_AND, cute_type_of(CUTE_I1), all, lt.r) : lt.r;
        }
        s.v[i] = all ? all : cute_ir_const_int(&c->b, CUTE_I1, 1);
    }
    return c->alg.failed ? bad_ssa() : s;
}

/* for the atom layer's copy emitters: one access of w elements at element i, and the widest
 * provable width (see above) */
void tensor_access_chunk(cute_ctx *c, const cute_tensor *t, int i, int w, bool load,
                         cute_vreg *regs, bool assign)
{
    access(c, t, i, w, load, regs, assign);
}

int tensor_proven_align(cute_ctx *c, const cute_tensor *t)
{
    int esize = cute_dtype_bytes((cute_dtype)t->dtype), a = t->align;
    cute_alg_trial trial;
    cute_alg_trial_begin(&c->alg, &trial);
    while (a > esize && !c->alg.failed &&
           cute_int_cmp(&c->alg, CUTE_CMP_DIVIDES, cute_i(a / esize), t->offset) != CUTE_TRUE)
        a /= 2;
    bool failed = c->alg.failed;
    cute_alg_trial_end(&c->alg, &trial);
    return failed ? esize : a;
}

int tensor_vector_width(cute_ctx *c, const cute_tensor *t, int n)
{
    return vector_width(c, t, n);
}
