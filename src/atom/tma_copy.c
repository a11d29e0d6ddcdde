/* TMA copies in a kernel: one thread issues the instruction row of the atom's operation and
 * rank (ir_insts.def, "sm_90 TMA"), its coordinates in the map's dimension order.  The
 * shared tensor must be a tile of the layout and swizzle the atom was made from: TMA lays
 * the box out as the map says, and any other layout would read it scrambled. */
#include <stdio.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "cutec/inst.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "cutec/tma_copy.h"
#include "trace/ctx_internal.h"

/* the row of op for rank: each operation's five rows are consecutive, 1-D first */
static cute_inst row_for(cute_tma_op op, int rank)
{
    cute_inst first = op == CUTE_TMA_OP_LOAD             ? CUTE_INST_TMA_LOAD_1D
                      : op == CUTE_TMA_OP_LOAD_MULTICAST ? CUTE_INST_TMA_LOAD_MC_1D
                      : op == CUTE_TMA_OP_LOAD_2SM       ? CUTE_INST_TMA_LOAD_2SM_1D
                      : op == CUTE_TMA_OP_STORE          ? CUTE_INST_TMA_STORE_1D
                                                         : CUTE_INST_TMA_REDUCE_ADD_1D;
    return (cute_inst)(first + rank - 1);
}

static const char *op_name(cute_tma_op op)
{
    static const char *n[] = {"load", "multicast load", "store", "reduce-add", "CTA-pair load"};
    return (unsigned)op < 5 ? n[op] : "?";
}

/* the smem tensor is a tile of the atom's shared layout, with its swizzle */
static bool smem_matches(cute_ctx *c, const cute_tma_atom *a, const cute_tensor *s)
{
    cute_layout L = cute_flatten(&c->alg, &s->layout);
    bool shape = L.shape.nleaves == a->modes;
    for (int m = 0; shape && m < a->modes; m++) shape = cute_is_const(L.shape.leaf[m], a->extent[m]);
    int es = cute_dtype_bytes(a->dtype), mbits = 0;
    while ((es << mbits) < 16) mbits++;
    cute_swizzle want = a->spec.swizzle ? (cute_swizzle){(int)a->spec.swizzle, mbits, 3} : CUTE_SW_NONE;
    bool sw = s->sw.B == want.B && (!want.B || (s->sw.M == want.M && s->sw.S == want.S));
    if (shape && sw) return true;
    char got[256];
    cute_layout_str(&s->layout, got, sizeof got);
    return cute_ctx_fail(c, "TMA %s: the shared tensor %s (swizzle Sw<%d,%d,%d>) is not a tile of "
                         "the atom's layout and swizzle Sw<%d,%d,%d>: TMA would lay the box out "
                         "otherwise", op_name(a->op), got, s->sw.B, s->sw.M, s->sw.S, want.B,
                         want.M, want.S);
}

static bool usable(cute_ctx *c, const cute_tma_atom *a, cute_val map, const cute_tensor *s,
                   bool load)
{
    if (!ctx_ok(c)) return false;
    if (a->map.index < 0) return cute_ctx_fail(c, "a TMA copy with an atom cute_make_tma_atom refused");
    bool is_load = a->op == CUTE_TMA_OP_LOAD || a->op == CUTE_TMA_OP_LOAD_MULTICAST || a->op == CUTE_TMA_OP_LOAD_2SM;
    if (is_load != load)
        return cute_ctx_fail(c, "a TMA %s with a %s atom", load ? "load" : "store", op_name(a->op));
    if (cute_ctx_arch(c) && cute_ctx_arch(c) < 90)
        return cute_ctx_fail(c, "TMA needs sm_90; this kernel is for sm_%d", cute_ctx_arch(c));
    if (map.t.dtype != CUTE_TMAP && !(map.t.dtype == CUTE_PTR && map.t.space == CUTE_GMEM))
        return cute_ctx_fail(c, "TMA %s: the map must be the kernel's tensor-map parameter (or a "
                             "global pointer to one)", op_name(a->op));
    if (s->kind != CUTE_TENSOR_SMEM || s->dtype != a->dtype)
        return cute_ctx_fail(c, "TMA %s: the shared side must be a shared tensor of %s",
                             op_name(a->op), cute_dtype_name(a->dtype));
    return smem_matches(c, a, s);
}

/* the box's first element in the map's dimension 0 (the contiguous one) lies at a 16-byte
 * boundary of its row: an H200 ran a load starting one byte into its row into
 * CUDA_ERROR_ILLEGAL_INSTRUCTION (interp/tma_test, u8 at column 1).  A static coordinate is
 * held to it here; a dynamic one whose divisor does not prove it, by the interpreter at run
 * time (inst_tma.c) */
static bool inner_aligned(cute_ctx *c, const cute_tma_atom *a, cute_int x)
{
    int64_t es = cute_dtype_bytes(a->dtype);
    if (!cute_is_static(x) || x.v * es % 16 == 0) return true;
    return cute_ctx_fail(c, "TMA %s: the box starts at element %lld of the contiguous mode, byte "
                         "%lld of the row: a TMA box must start at a 16-byte boundary there (a "
                         "multiple of %lld %s elements)", op_name(a->op), (long long)x.v,
                         (long long)(x.v * es), (long long)(16 / es), cute_dtype_name(a->dtype));
}

/* a store's or reduce-add's box may run past the tensor's end, but a box starting before it
 * traps on the GPU (src/interp/gpu/tma_probe.cu, an H100): a static negative coordinate is
 * refused here, a dynamic one by the interpreter at run time (inst_tma.c) */
static bool store_start_inside(cute_ctx *c, const cute_tma_atom *a, int j, cute_int x)
{
    if ((a->op != CUTE_TMA_OP_STORE && a->op != CUTE_TMA_OP_REDUCE_ADD) || !cute_is_static(x) || x.v >= 0)
        return true;
    return cute_ctx_fail(c, "TMA %s: the box starts at coordinate %lld of TMA dimension %d, before the "
                         "tensor: a store may run past the tensor's end but not start before its start",
                         op_name(a->op), (long long)x.v, j);
}

/* in[first..]: the coordinates in the map's order (i32); dimension `moved` shifted by `shift`;
 * false after a report */
static bool put_coords(cute_ctx *c, const cute_tma_atom *a, const cute_int *coord, int moved,
                       cute_int shift, cute_vreg *in)
{
    for (int j = 0; j < a->spec.rank; j++) {
        cute_int x = coord[a->spec.mode[j]];
        if (j == moved) x = cute_add(&c->alg, x, shift);
        if ((j == 0 && !inner_aligned(c, a, x)) || !store_start_inside(c, a, j, x)) return false;
        in[j] = cute_int_value(c, x, CUTE_I32).r;
    }
    return true;
}

/* the load of slice `slice` of the tile (multicast: this CTA's share; else the whole) */
static void load(cute_ctx *c, const cute_tma_atom *a, cute_val map, cute_tensor smem,
                 const cute_int *coord, cute_val bar, cute_val mask, cute_int slice)
{
    int split = a->spec.mode[a->split];
    int64_t before = 1; /* elements of smem's index before the split mode's (colexicographic) */
    for (int m = 0; m < split; m++) before *= a->extent[m];
    cute_int first = cute_mul(&c->alg, slice, cute_i((int64_t)a->spec.box[a->split]));
    cute_vreg in[9];
    in[0] = cute_tensor_ptr(c, smem, cute_mul(&c->alg, first, cute_i(before))).r;
    in[1] = map.r;
    if (!put_coords(c, a, coord, a->split, first, in + 2)) return;
    in[2 + a->spec.rank] = bar.r;
    in[3 + a->spec.rank] = mask.r;
    cute_ir_inst_op(&c->b, row_for(a->op, a->spec.rank), NULL, 0, in,
                    3 + a->spec.rank + (a->op == CUTE_TMA_OP_LOAD_MULTICAST), 0);
}

void cute_tma_load(cute_ctx *c, const cute_tma_atom *a, cute_val map, cute_tensor smem,
                   const cute_int *coord, cute_val bar)
{
    if (!usable(c, a, map, &smem, true)) return;
    if (a->op == CUTE_TMA_OP_LOAD_MULTICAST) {
        cute_ctx_fail(c, "a multicast atom loads with cute_tma_load_multicast");
        return;
    }
    if (a->op == CUTE_TMA_OP_LOAD_2SM && (bar.t.dtype != CUTE_U32 || bar.t.lanes != 1)) {
        cute_ctx_fail(c, "the CTA pair's TMA load takes its mbarrier as a u32 shared::cluster address (cute_mapa)");
        return;
    }
    if (a->op == CUTE_TMA_OP_LOAD_2SM && cute_ctx_arch(c) && cute_ctx_arch(c) < 100) {
        cute_ctx_fail(c, "the CTA pair's TMA load (cta_group::2) needs sm_100; this kernel is for sm_%d", cute_ctx_arch(c));
        return;
    }
    load(c, a, map, smem, coord, bar, (cute_val){0}, cute_i(0));
}

void cute_tma_load_multicast(cute_ctx *c, const cute_tma_atom *a, cute_val map, cute_tensor smem,
                             const cute_int *coord, cute_val bar, cute_val mask, cute_int mc_rank)
{
    if (!usable(c, a, map, &smem, true)) return;
    if (a->op != CUTE_TMA_OP_LOAD_MULTICAST) {
        cute_ctx_fail(c, "cute_tma_load_multicast needs a CUTE_TMA_OP_LOAD_MULTICAST atom");
        return;
    }
    load(c, a, map, smem, coord, bar, cute_val_cvt(c, mask, CUTE_U16), mc_rank);
}

void cute_tma_store(cute_ctx *c, const cute_tma_atom *a, cute_val map, cute_tensor smem,
                    const cute_int *coord)
{
    if (!usable(c, a, map, &smem, false)) return;
    cute_vreg in[7];
    in[0] = map.r;
    if (!put_coords(c, a, coord, -1, cute_i(0), in + 1)) return;
    in[1 + a->spec.rank] = cute_tensor_ptr(c, smem, cute_i(0)).r;
    cute_ir_inst_op(&c->b, row_for(a->op, a->spec.rank), NULL, 0, in, 2 + a->spec.rank, 0);
    cute_ir_inst_op(&c->b, CUTE_INST_CP_ASYNC_BULK_COMMIT_GROUP, NULL, 0, NULL, 0, 0);
}

void cute_tma_store_wait(cute_ctx *c, int n, bool read_only)
{
    if (!ctx_ok(c)) return;
    if (n < 0) {
        cute_ctx_fail(c, "cute_tma_store_wait: %d groups", n);
        return;
    }
    cute_ir_inst_op(&c->b, read_only ? CUTE_INST_CP_ASYNC_BULK_WAIT_GROUP_READ : CUTE_INST_CP_ASYNC_BULK_WAIT_GROUP,
                    NULL, 0, NULL, 0, n);
}

/* the coordinate tile's first element, one index per mode of the global tensor; false after
 * a report when t is not a tile of the TMA tensor shaped like the atom's tile */
static bool tile_coord(cute_ctx *c, const cute_tma_atom *a, const cute_tensor *t, cute_int *coord)
{
    cute_layout L = cute_flatten(&c->alg, &t->layout);
    cute_tuple base = cute_tuple_flatten(&t->coord);
    bool ok = t->kind == CUTE_TENSOR_COORD && L.shape.nleaves == a->modes && base.nleaves == a->modes;
    for (int m = 0; ok && m < a->modes; m++) ok = cute_is_const(L.shape.leaf[m], a->extent[m]);
    if (!ok) {
        char got[256];
        cute_layout_str(&t->layout, got, sizeof got);
        return cute_ctx_fail(c, "cute_tma_copy: %s is not a tile of the TMA tensor (a coordinate tensor "
                             "tiled like the atom's %d-mode tile)", got, a->modes);
    }
    for (int m = 0; m < a->modes; m++) coord[m] = base.leaf[m];
    return true;
}

void cute_tma_copy(cute_ctx *c, const cute_tma_atom *a, cute_val map, cute_tensor src,
                   cute_tensor dst, cute_tma_copy_opts o)
{
    cute_int coord[CUTE_TMA_MAX_RANK];
    bool load = src.kind == CUTE_TENSOR_COORD;
    if (!ctx_ok(c) || !tile_coord(c, a, load ? &src : &dst, coord)) return;
    if (!load) cute_tma_store(c, a, map, src, coord);
    else if (a->op == CUTE_TMA_OP_LOAD_MULTICAST) cute_tma_load_multicast(c, a, map, dst, coord, o.bar, o.mask, o.mc_rank);
    else cute_tma_load(c, a, map, dst, coord, o.bar);
}

cute_val cute_tma_multicast_mask(cute_ctx *c, cute_layout cluster, const cute_int *cta, int mode)
{
    cute_layout L = cute_flatten(&c->alg, &cluster);
    int n = L.shape.nleaves;
    if (!cute_tuple_is_static(&L.shape) || !cute_tuple_is_static(&L.stride) || mode < 0 || mode >= n ||
        cute_size(&c->alg, &L).v > 16) {
        cute_ctx_fail(c, "cute_tma_multicast_mask: a static cluster layout of at most 16 CTAs, and "
                      "one of its %d modes", n);
        return cute_val_int(c, CUTE_U16, 0);
    }
    uint32_t pattern = 0; /* the CTAs along `mode` from coordinate 0 of it */
    for (int64_t j = 0; j < L.shape.leaf[mode].v; j++) pattern |= 1u << (j * L.stride.leaf[mode].v);
    cute_int base = cute_i(0); /* the rank of cta with its `mode` coordinate 0 */
    for (int m = 0; m < n; m++)
        if (m != mode) base = cute_add(&c->alg, base, cute_mul(&c->alg, cta[m], L.stride.leaf[m]));
    cute_val mask = cute_val_binop(c, CUTE_OP_SHL, cute_val_int(c, CUTE_U32, pattern),
                                   cute_int_value(c, base, CUTE_U32));
    return cute_val_cvt(c, mask, CUTE_U16);
}
