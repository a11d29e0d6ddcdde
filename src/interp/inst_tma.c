/* TMA under the interpreter, from its own descriptor: the tmap operand's 128 bytes are the
 * fields that cute_tma_encode validated and packed (cutec/tma.h), not the driver's opaque
 * encoding.  A box is walked element by element, innermost dimension first, as the hardware
 * lays it out densely in shared memory; each element's shared byte address then goes
 * through the map's swizzle (Sw<B,4,3> on byte addresses, the layout algebra's own
 * cute_swizzle_apply), so a kernel whose shared layout names another swizzle reads what a
 * GPU would put there.  Elements outside the tensor load as the map's fill (zero or NaN)
 * and are skipped by stores and reduces, except that these clip dimension 0 at the next
 * 16-byte boundary of the row, as the hardware does (store_inner_extent).
 *
 * Timing: a copy moves its data when it is issued (loads land at once, stores read their
 * source at once), which is one of the executions the hardware allows.  A load's bytes are
 * the async proxy's writes: a read acquires them through the mbarrier the load completes its
 * transaction bytes on (tma_complete_tx), so a read of the tile before its wait is a
 * reported race.  A store's (or reduce-add's) shared box stays read, as the hardware may read
 * it any time before, until a cp.async.bulk.wait_group(.read) covers its bulk group: a write
 * to it before then is reported (async_read.c), and its source must have been fenced for
 * the async proxy (proxy.c), as the bulk store's. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "cutec/layout.h" /* cute_swizzle_apply: plain integer arithmetic, no layouts */
#include "cutec/numeric.h"
#include "cutec/tma.h"
#include "interp/interp_internal.h"
#include "interp/mbarrier.h"

#define TMA_SMEM_ALIGN 128 /* a tensor copy's shared address (PTX ISA) */

static bool tma_bad(ictx *X, const dinst *d, uint32_t t, cute_interp_check kind,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static bool tma_bad(ictx *X, const dinst *d, uint32_t t, cute_interp_check kind,
                    const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const cute_inst_info *I = cute_inst_info_of((cute_inst)d->imm2);
    return interp_report(X, d, t, kind, 0, 0, 0, "%s: %s", I ? I->id : "TMA", msg);
}

/* a global access through a tensor map: its tensor need not be an argument of the launch
 * (grouped GEMM retargets maps to tensors the kernel never sees), so any live buffer of the
 * backend will do; outside every buffer it is reported as any access is */
static bool tma_gcheck(ictx *X, const dinst *d, uint32_t t, uint64_t addr, uint32_t bytes, int how)
{
    const ilaunch *L = X->L;
    for (int i = 0; i < L->nbufs; i++)
        if (addr >= L->bufs[i].base && addr - L->bufs[i].base < L->bufs[i].bytes)
            return interp_gcheck(X, d, t, addr, bytes, bytes, how) != NULL;
    return interp_backend_holds(L->B, addr, bytes) || interp_gcheck(X, d, t, addr, bytes, bytes, how);
}

/* operand k of thread t as a tensor map: unpacked and held to the driver's rules */
static bool map_of(ictx *X, const dinst *d, uint32_t k, uint32_t t, cute_tma_desc *M)
{
    uint64_t a = interp_addr(X, d, k, t);
    bool in_gmem = d->vtype[k].dtype != CUTE_TMAP;
    if (in_gmem && (!interp_gcheck(X, d, t, a, CUTE_TMA_MAP_BYTES, 64, 0) || !interp_tmap_fenced(X, d, t, a)))
        return false;
    if (!a || !cute_tma_unpack((const void *)(uintptr_t)a, M))
        return tma_bad(X, d, t, CUTE_CHECK_TMA, "the map operand holds no tensor map encoded "
                       "for the interpreter (cute_tma_encode on the interp backend)");
    char why[256];
    if (cute_tma_desc_check(M, why, sizeof why) != CUTE_OK)
        return tma_bad(X, d, t, CUTE_CHECK_TMA, "the tensor map breaks the driver's rules: %s", why);
    if (M->rank != d->row->num)
        return tma_bad(X, d, t, CUTE_CHECK_TMA, "a %d-D copy through a tensor map of rank %d",
                       d->row->num, M->rank);
    return true;
}

/* --- walking a box ------------------------------------------------------------------------ */

typedef struct box_walk {
    const cute_tma_desc *M;
    int64_t at[CUTE_TMA_MAX_RANK];  /* the box's first coordinates */
    uint32_t n[CUTE_TMA_MAX_RANK];  /* elements per dimension: ceil(box / elem_stride) */
    uint32_t j[CUTE_TMA_MAX_RANK];  /* the current element's index in the box */
} box_walk;

static void walk_init(box_walk *w, const cute_tma_desc *M, ictx *X, const dinst *d,
                      uint32_t first, uint32_t t)
{
    memset(w, 0, sizeof *w);
    w->M = M;
    for (int i = 0; i < M->rank; i++) {
        w->at[i] = (int32_t)interp_get32(X, d, first + (uint32_t)i, t);
        uint32_t es = M->elem_strides[i] ? M->elem_strides[i] : 1;
        w->n[i] = (M->box[i] + es - 1) / es;
    }
}

/* the current element's global address, or false when it lies outside the tensor; `inner`:
 * the extent of dimension 0 that counts as inside */
static bool walk_inside_to(const box_walk *w, uint64_t inner, uint64_t *addr)
{
    const cute_tma_desc *M = w->M;
    uint64_t a = M->address;
    for (int i = 0; i < M->rank; i++) {
        int64_t g = w->at[i] + (int64_t)w->j[i] * (M->elem_strides[i] ? M->elem_strides[i] : 1);
        if (g < 0 || (uint64_t)g >= (i ? M->dims[i] : inner)) return false;
        a += (uint64_t)g * (i ? M->strides[i] : (uint64_t)cute_dtype_bytes(M->dtype));
    }
    return *addr = a, true;
}

static bool walk_inside(const box_walk *w, uint64_t *addr)
{
    return walk_inside_to(w, w->M->dims[0], addr);
}

/* where a store or reduce stops in dimension 0: the hardware clips a row at 16-byte
 * granularity of the global address, so it also writes the elements from the extent up to
 * the next 16-byte boundary (seen on H100 and H200; the base address is 16-byte aligned) */
static uint64_t store_inner_extent(const cute_tma_desc *M)
{
    uint64_t es = (uint64_t)cute_dtype_bytes(M->dtype);
    return (M->dims[0] * es + 15) / 16 * 16 / es;
}

static bool walk_next(box_walk *w)
{
    for (int i = 0; i < w->M->rank; i++) {
        if (++w->j[i] < w->n[i]) return true;
        w->j[i] = 0;
    }
    return false;
}

/* element e of the box (dense, innermost first) at shared base: its swizzled address */
static uint64_t smem_at(const cute_tma_desc *M, uint64_t base, uint64_t e)
{
    int span = cute_tma_swizzle_bytes(M->swizzle);
    uint64_t a = base + e * (uint64_t)cute_dtype_bytes(M->dtype);
    if (!span) return a;
    cute_swizzle sw = {span == 32 ? 1 : span == 64 ? 2 : 3, 4, 3};
    return (uint64_t)cute_swizzle_apply(sw, (int64_t)a);
}

/* the shared box at base: aligned as TMA needs, its swizzle modelled, inside shared memory */
static bool smem_box_ok(ictx *X, const dinst *d, uint32_t t, const cute_tma_desc *M,
                        uint64_t base, int how)
{
    int span = cute_tma_swizzle_bytes(M->swizzle), esize = cute_dtype_bytes(M->dtype);
    uint64_t period = span ? (uint64_t)span * 8 : TMA_SMEM_ALIGN;
    if (base % period)
        return tma_bad(X, d, t, CUTE_CHECK_TMA, "shared address %" PRIu64 " is not a multiple of "
                       "%" PRIu64 " bytes (%s)", base, period,
                       span ? "the swizzle's pattern: else TMA's swizzle is not the layout's"
                            : "a tensor copy's shared address");
    if (span && M->box[0] * (uint32_t)esize != (uint32_t)span)
        return tma_bad(X, d, t, CUTE_CHECK_UNSUPPORTED, "a %dB-swizzled box whose inner extent "
                       "(%u x %d bytes) is not the swizzle's span", span, M->box[0], esize);
    return interp_sbounds(X, d, t, base, (uint32_t)cute_tma_box_bytes(M), 1, how);
}

/* the box of thread t (coordinates from operand `first`) starts at a 16-byte boundary of its
 * row in dimension 0: an H200 ran a load starting one byte into its row (interp/tma_test, u8
 * at column 1) into CUDA_ERROR_ILLEGAL_INSTRUCTION, so that is refused here as there (and by
 * the TMA atoms for a static coordinate, src/atom/tma_copy.c) */
static bool inner_start_ok(ictx *X, const dinst *d, uint32_t t, const cute_tma_desc *M, uint32_t first)
{
    int64_t c0 = (int32_t)interp_get32(X, d, first, t), es = cute_dtype_bytes(M->dtype);
    if (c0 * es % 16 == 0) return true;
    return tma_bad(X, d, t, CUTE_CHECK_TMA, "the box starts at element %lld of dimension 0, byte "
                   "%lld of its row: a box must start at a 16-byte boundary there (the GPU traps "
                   "with an illegal instruction)", (long long)c0, (long long)(c0 * es));
}

/* a store's or reduce-add's box starts inside the tensor in every dimension: it may run past
 * the end (those elements are not written) but not start before the start.  Measured on an
 * H100 with src/interp/gpu/tma_probe.cu: a store at row -2 or column -16 ends in
 * CUDA_ERROR_ILLEGAL_INSTRUCTION; a load there is zero-filled; a store past the last row or
 * column is clipped */
static bool store_start_ok(ictx *X, const dinst *d, uint32_t t, const cute_tma_desc *M, uint32_t first)
{
    for (uint32_t j = 0; j < (uint32_t)M->rank; j++) {
        int64_t cj = (int32_t)interp_get32(X, d, first + j, t);
        if (cj < 0)
            return tma_bad(X, d, t, CUTE_CHECK_TMA, "the store's box starts at coordinate %lld of "
                           "dimension %u, before the tensor: a TMA store or reduce-add may run past "
                           "the tensor's end but not start before its start (the GPU traps with an "
                           "illegal instruction)", (long long)cj, j);
    }
    return true;
}

/* --- the transaction count ------------------------------------------------------------------ */

/* the load's bytes land on the mbarrier at bar of block Y (the issuer's, or a multicast's
 * destination): its phase completes when its arrivals and transaction bytes are all in (a
 * wrong expect_tx then never completes it: the deadlock report shows the bytes expected and
 * those that came) */
static void tma_complete_tx(ictx *X, ictx *Y, ictx *B, const dinst *d, uint32_t t, uint64_t bar, uint64_t bytes,
                            uint32_t stamp)
{
    if (bar % 8)
        tma_bad(X, d, t, CUTE_CHECK_TMA, "mbarrier address %" PRIu64 " is not 8-byte aligned", bar);
    else if (interp_sbounds(X, d, t, bar, 8, 8, 0))
        interp_mbarrier_complete_tx(X, B, Y, d, t, bar, (uint32_t)bytes, stamp);
}

/* --- loads ------------------------------------------------------------------------------- */

/* the fill of an element outside the tensor: zero, or the map's NaN (all ones but the sign) */
static void oob_fill(const cute_tma_desc *M, uint8_t *v, int esize)
{
    memset(v, 0, (size_t)esize);
    if (M->oob != CUTE_TMA_OOB_NAN) return;
    memset(v, 0xff, (size_t)esize);
    v[esize - 1] = 0x7f;
}

/* the box at the coordinates of thread t as the shared image the load writes at dst (img:
 * its bytes from dst on, swizzled as TMA places them); false after a report */
static bool gather_box(ictx *X, const dinst *d, uint32_t t, const cute_tma_desc *M, uint64_t dst, uint8_t *img)
{
    int esize = cute_dtype_bytes(M->dtype);
    box_walk w;
    walk_init(&w, M, X, d, 2, t);
    uint64_t e = 0, g;
    do {
        uint8_t *s = img + (smem_at(M, dst, e++) - dst);
        if (!walk_inside(&w, &g)) oob_fill(M, s, esize);
        else if (tma_gcheck(X, d, t, g, (uint32_t)esize, 0)) memcpy(s, (const void *)(uintptr_t)g, (size_t)esize);
        else return false;
    } while (walk_next(&w));
    return true;
}

/* the CTAs a load writes: a multicast's mask (each bit a rank of the cluster), else the
 * issuer alone; 0 after a report */
static uint32_t destinations(ictx *X, const dinst *d, uint32_t t, int rank)
{
    if (d->row->flag != 1) return 1u << X->rank; /* a plain load, or the CTA pair's */
    uint32_t mask = interp_get32(X, d, 3 + (uint32_t)rank, t) & 0xffff, n = interp_cluster_size(X);
    if (mask && !(mask >> n)) return mask;
    tma_bad(X, d, t, CUTE_CHECK_TMA, "multicast mask 0x%x %s (the cluster has %u block%s)", mask,
            mask ? "names a CTA rank outside the cluster" : "names no CTA", n, n > 1 ? "s" : "");
    return 0;
}

/* the image written by the async proxy into block Y at dst, its bytes then completing on
 * the mbarrier at bar of block B (Y's; for the CTA pair's load, the one its address names):
 * in the issuer's own block a write checked as its thread's (bounds, pending reads, races);
 * in another block of the cluster only bounds and exit are checked */
static void land(ictx *X, ictx *Y, ictx *B, const dinst *d, uint32_t t, uint64_t dst, uint64_t bar,
                 const uint8_t *img, uint32_t bytes)
{
    uint32_t stamp = interp_hb_async_stamp(Y);
    memcpy(Y->smem + dst, img, bytes);
    if (Y == X && !interp_async_proxy_write(X, d, t, dst, bytes, stamp)) return;
    if (Y != X) {
        Y->writes++;
        for (uint32_t i = 0; i < bytes; i++)
            Y->shadow[dst + i] = (sshadow){.w_epoch = stamp, .writer = (uint16_t)HB_PROXY(Y)};
    }
    tma_complete_tx(X, Y, B, d, t, bar, bytes, stamp);
}

/* the box into shared memory (of every CTA of a multicast's mask, at the same offset, each
 * CTA's mbarrier at the same offset receiving the bytes), as the async proxy writes it */
static void load_thread(ictx *X, const dinst *d, uint32_t t)
{
    cute_tma_desc M;
    if (!map_of(X, d, 1, t, &M)) return;
    uint64_t dst = interp_addr(X, d, 0, t), bar = interp_addr(X, d, 2 + (uint32_t)M.rank, t);
    uint32_t bytes = (uint32_t)cute_tma_box_bytes(&M), mask = destinations(X, d, t, M.rank);
    ictx *B = NULL; /* the CTA pair's load: the block whose mbarrier counts the bytes */
    if (d->row->flag == 2 && !interp_cluster_target(X, d, t, interp_get32(X, d, 2 + (uint32_t)M.rank, t), &B, &bar))
        return;
    if (!mask || !inner_start_ok(X, d, t, &M, 2) || !smem_box_ok(X, d, t, &M, dst, 1)) return;
    uint8_t *img = malloc(bytes);
    if (!img) {
        X->oom = X->stop = true;
        return;
    }
    ictx *Y[16];
    bool ok = gather_box(X, d, t, &M, dst, img);
    for (uint32_t r = 0; ok && r < 16; r++) /* every destination there before any lands */
        ok = !(mask >> r & 1) || interp_cluster_block(X, d, t, r, "the multicast mask", &Y[r]);
    for (uint32_t r = 0; ok && r < 16 && !X->stop; r++)
        if (mask >> r & 1) land(X, Y[r], B ? B : Y[r], d, t, dst, bar, img, bytes);
    free(img);
}

void inst_tma_load(ictx *X, const dinst *d, const imask *m)
{
    EACH(X, m, t, { load_thread(X, d, t); });
}

/* --- stores and reduce-adds --------------------------------------------------------------- */

/* *g += *s for one element of dtype dt; false when TMA's .add has no such type */
static bool add_element(cute_dtype dt, void *g, const void *s)
{
    union { uint16_t h; uint32_t u; int32_t i; uint64_t q; float f; } a, b;
    size_t n = (size_t)cute_dtype_bytes(dt);
    memcpy(&a, g, n), memcpy(&b, s, n);
    switch (dt) {
    case CUTE_F32: a.f += b.f; break;
    case CUTE_F16: a.h = cute_f32_to_f16(cute_f16_to_f32(a.h) + cute_f16_to_f32(b.h)); break;
    case CUTE_BF16: a.h = cute_f32_to_bf16(cute_bf16_to_f32(a.h) + cute_bf16_to_f32(b.h)); break;
    case CUTE_U32: case CUTE_I32: a.u += b.u; break;
    case CUTE_U64: a.q += b.q; break;
    default: return false;
    }
    memcpy(g, &a, n);
    return true;
}

static void store_thread(ictx *X, const dinst *d, uint32_t t)
{
    cute_tma_desc M;
    if (!map_of(X, d, 0, t, &M)) return;
    bool reduce = d->row->flag;
    uint64_t src = interp_addr(X, d, 1 + (uint32_t)M.rank, t);
    if (!inner_start_ok(X, d, t, &M, 1) || !store_start_ok(X, d, t, &M, 1) || !smem_box_ok(X, d, t, &M, src, 0))
        return;
    int esize = cute_dtype_bytes(M.dtype);
    uint8_t probe[8] = {0};
    if (reduce && !add_element(M.dtype, probe, probe)) {
        tma_bad(X, d, t, CUTE_CHECK_TMA, "TMA's reduce-add takes f16, bf16, f32, u32, i32 or u64 "
                "elements, not %s", cute_dtype_name(M.dtype));
        return;
    }
    uint32_t *groups = interp_bulk_groups(X), bytes = (uint32_t)cute_tma_box_bytes(&M);
    if (!groups || (checking(X, CUTE_CHECK_SHARED_RACE) && !interp_proxy_fenced(X, d, t, src, bytes)))
        return;
    box_walk w;
    walk_init(&w, &M, X, d, 1, t);
    uint64_t e = 0, g;
    do {
        uint64_t s = smem_at(&M, src, e++);
        if (!walk_inside_to(&w, store_inner_extent(&M), &g)) continue;
        if (!interp_scheck(X, d, t, s, (uint32_t)esize, (uint32_t)esize, 0)) return;
        if (!tma_gcheck(X, d, t, g, (uint32_t)esize, reduce ? 2 : 1)) return;
        if (reduce) add_element(M.dtype, (void *)(uintptr_t)g, X->smem + s);
        else memcpy((void *)(uintptr_t)g, X->smem + s, (size_t)esize);
    } while (walk_next(&w));
    interp_async_read_begin(X, d, t, src, bytes, AREAD_BULK, groups[t]); /* until its wait */
}

void inst_tma_store(ictx *X, const dinst *d, const imask *m)
{
    EACH(X, m, t, { store_thread(X, d, t); });
}

/* --- hints, groups, fences: the map is checked, nothing else happens -------------------- */

void inst_tma_prefetch(ictx *X, const dinst *d, const imask *m)
{
    cute_tma_desc M;
    EACH(X, m, t, { map_of(X, d, 0, t, &M); });
}

void inst_tmap_prefetch(ictx *X, const dinst *d, const imask *m)
{
    cute_tma_desc M;
    EACH(X, m, t, {
        uint64_t a = interp_addr(X, d, 0, t);
        if (d->vtype[0].dtype != CUTE_TMAP && !interp_gcheck(X, d, t, a, CUTE_TMA_MAP_BYTES, 64, 0))
            continue;
        if (!a || !cute_tma_unpack((const void *)(uintptr_t)a, &M))
            tma_bad(X, d, t, CUTE_CHECK_TMA, "the operand holds no tensor map");
    });
}

/* --- tensormap.replace: one field of a map in global memory ------------------------------ */

static bool replace_field(cute_tma_desc *M, int field, int64_t dim, uint64_t v)
{
    if (field == 0) return M->address = v, true;
    if (dim < 0 || dim >= M->rank - (field == 2)) return false;
    if (field == 1) M->dims[dim] = (uint32_t)v;
    else M->strides[dim + 1] = v;
    return true;
}

void inst_tmap_replace(ictx *X, const dinst *d, const imask *m)
{
    int field = d->row->flag;
    EACH(X, m, t, {
        uint64_t a = interp_addr(X, d, 0, t);
        cute_tma_desc M;
        if (!interp_gcheck(X, d, t, a, CUTE_TMA_MAP_BYTES, 64, 1)) continue;
        void *map = (void *)(uintptr_t)a;
        if (!cute_tma_unpack(map, &M)) {
            tma_bad(X, d, t, CUTE_CHECK_TMA, "the 128 bytes at the address hold no tensor map");
            continue;
        }
        uint64_t v = field == 1 ? interp_get32(X, d, 1, t) : REG(X, d->var[1])[t].u64;
        if (!replace_field(&M, field, d->imm, v)) {
            tma_bad(X, d, t, CUTE_CHECK_TMA, "dimension %lld of a rank-%d tensor map",
                    (long long)d->imm, M.rank);
            continue;
        }
        cute_tma_pack(&M, map);
        interp_tmap_written(X, t, a);
    });
}
