/* TMA against a CPU reference written from the PTX ISA's description (not from the
 * emulation's code): a box lands densely in shared memory, innermost dimension first, each
 * 16-byte chunk of byte address a moved to a ^ ((a >> 7) & (span/16 - 1)) << 4; elements
 * outside the tensor load as the fill and are not stored.  Every swizzle, element widths 1
 * to 8 bytes, odd tensors, boxes over every edge (negative coordinates too), zero and NaN
 * fill; stores and reduce-adds; a tensor map updated in global memory (tensormap.replace):
 * on the interpreter, and the same kernels on an sm_90 GPU (else skipped).  The
 * interpreter's checks: not a map, a map breaking the driver's rules, a map whose tensor
 * overruns its buffer, a misaligned shared box or barrier, a rank mismatch, a wrong expect-tx,
 * a read before the wait, an uninitialized mbarrier. */
#include <math.h>

#include "cutec/inst.h"
#include "cutec/jit.h"
#include "cutec/numeric.h"
#include "cutec/tma.h"
#include "interp/gpu_testkit.h"
#include "interp/interp_testkit.h"

static cute_backend be;

enum { SBASE = 1024, SBAR = 0, SMEM = 4096, NTHR = 64 };

/* a 2-D tensor of dtype dt (d0 x d1 elements, rows padded to 16 bytes and one chunk more),
 * random bytes, and its map's fields */
typedef struct tcase {
    cute_dtype dt;
    cute_tma_swizzle sw;
    cute_tma_oob oob;
    uint64_t d0, d1;
    uint32_t b0, b1;
    int32_t c0, c1;
} tcase;

static uint64_t row_bytes(const tcase *k)
{
    return (k->d0 * (uint64_t)cute_dtype_bytes(k->dt) + 15) / 16 * 16 + 16;
}

static cute_tma_desc desc_of(const tcase *k, const cute_buffer *b)
{
    cute_tma_desc d = {.dtype = k->dt, .rank = 2, .address = (uint64_t)(uintptr_t)b->ptr,
                       .swizzle = k->sw, .oob = k->oob};
    d.dims[0] = k->d0, d.dims[1] = k->d1;
    d.strides[1] = row_bytes(k);
    d.box[0] = k->b0, d.box[1] = k->b1;
    return d;
}

/* k's map of the tensor in b, for the interpreter */
static void encode_map(const tcase *k, const cute_buffer *b, uint8_t *map)
{
    cute_tma_desc d = desc_of(k, b);
    char err[256];
    CHECK(cute_tma_encode(&be, &d, map, err, sizeof err) == CUTE_OK, "encode: %s", err);
}

/* the reference: the shared byte offset (from the box's base) of box element e */
static uint64_t ref_smem(const tcase *k, uint64_t e)
{
    uint64_t a = SBASE + e * (uint64_t)cute_dtype_bytes(k->dt);
    uint64_t chunks = (uint64_t)cute_tma_swizzle_bytes(k->sw) / 16; /* 2, 4, 8 or 0 */
    if (chunks) a ^= ((a >> 7) & (chunks - 1)) << 4;
    return a - SBASE;
}

/* where box element (i, j) lies in the tensor: its byte offset, or false outside.  A store
 * (or reduce) clips rows at 16-byte granularity, as the hardware does: it also writes the
 * elements from d0 up to the row's next 16-byte boundary */
static bool ref_global(const tcase *k, uint32_t i, uint32_t j, bool store, uint64_t *off)
{
    int64_t x = k->c0 + (int64_t)i, y = k->c1 + (int64_t)j, es = cute_dtype_bytes(k->dt);
    uint64_t d0 = store ? (k->d0 * (uint64_t)es + 15) / 16 * 16 / (uint64_t)es : k->d0;
    if (x < 0 || y < 0 || (uint64_t)x >= d0 || (uint64_t)y >= k->d1) return false;
    *off = (uint64_t)y * row_bytes(k) + (uint64_t)x * (uint64_t)cute_dtype_bytes(k->dt);
    return true;
}

/* --- kernels ------------------------------------------------------------------------------- */

typedef struct tk {
    kt k;
    cute_vreg tm, o, c0, c1, tid;
} tk;

static bool skip_init; /* a kernel that forgets mbarrier.init */

/* the kernel's parameters, and its mbarrier initialized (one arrival) by thread 0 */
static void begin(tk *t, const char *name, bool map_in_gmem)
{
    kt_begin(&t->k, name);
    kt *k = &t->k;
    t->tm = map_in_gmem ? kt_param_ptr(k, CUTE_U8, "tm") : kt_param(k, CUTE_TMAP, "tm");
    t->o = kt_param_ptr(k, CUTE_U32, "o");
    t->c0 = kt_param(k, CUTE_I32, "c0");
    t->c1 = kt_param(k, CUTE_I32, "c1");
    k->f->smem_bytes = SMEM;
    k->f->smem_align = 1024; /* on a GPU the swizzle acts on the address: SBASE is aligned */
    t->tid = kt_sreg64(k, CUTE_SREG_TID_X);
    if (skip_init) return;
    cute_ir_if(&k->b, kt_cmp(k, CUTE_OP_EQ, t->tid, kt_i64(k, 0)));
    cute_vreg init[2] = {kt_smem(k, CUTE_U64, SBAR), kt_i32(k, 1)};
    cute_ir_inst_op(&k->b, CUTE_INST_MBARRIER_INIT, NULL, 0, init, 2, 0);
    cute_ir_end(&k->b);
    kt_barrier(k);
}

/* if (tid == 0) { [expect tx bytes on the mbarrier,] row(dst/src at sbase, the map, c0, c1
 * [, the mbarrier]) }; a load's tx: the box's bytes (or a wrong count, to be caught) */
static void issue(tk *t, cute_inst row, int64_t sbase, int64_t tx)
{
    kt *k = &t->k;
    cute_ir_if(&k->b, kt_cmp(k, CUTE_OP_EQ, t->tid, kt_i64(k, 0)));
    cute_vreg s = kt_smem(k, CUTE_U8, sbase), bar = kt_smem(k, CUTE_U64, SBAR);
    bool load = row == CUTE_INST_TMA_LOAD_2D;
    if (load)
        cute_ir_inst_op(&k->b, CUTE_INST_MBARRIER_ARRIVE_EXPECT_TX, NULL, 0, (cute_vreg[]){bar, kt_i32(k, tx)}, 2, 0);
    cute_vreg in[5] = {s, t->tm, t->c0, t->c1, bar}, st[4] = {t->tm, t->c0, t->c1, s};
    KT_AT(&k->b);
    cute_ir_inst_op(&k->b, row, NULL, 0, load ? in : st, load ? 5 : 4, 0);
    if (!load) {
        cute_ir_inst_op(&k->b, CUTE_INST_CP_ASYNC_BULK_COMMIT_GROUP, NULL, 0, NULL, 0, 0);
        cute_ir_inst_op(&k->b, CUTE_INST_CP_ASYNC_BULK_WAIT_GROUP, NULL, 0, NULL, 0, 0);
    }
    cute_ir_end(&k->b);
}

/* every thread waits for phase 0 of the mbarrier: while (!try_wait(bar, 0)) {} */
static void wait_phase0(tk *t)
{
    kt *k = &t->k;
    cute_ir_while(&k->b);
    cute_vreg done = cute_ir_new_vreg(k->f, cute_type_of(CUTE_U32), "done", false);
    cute_ir_inst_op(&k->b, CUTE_INST_MBARRIER_TRY_WAIT_PARITY, &done, 1,
                    (cute_vreg[]){kt_smem(k, CUTE_U64, SBAR), kt_i32(k, 0)}, 2, 0);
    cute_ir_while_body(&k->b, kt_cmp(k, CUTE_OP_EQ, done, cute_ir_const_int(&k->b, CUTE_U32, 0)));
    cute_ir_end(&k->b);
}

/* o[w] <-> shared word SBASE/4 + w, w < words, spread over the threads */
static void move_words(tk *t, int64_t words, bool to_shared)
{
    kt *k = &t->k;
    cute_vreg w = kt_for(k, t->tid, kt_i64(k, words), NTHR);
    cute_vreg s = kt_ptr_add(k, kt_smem(k, CUTE_U32, SBASE), w), g = kt_ptr_add(k, t->o, w);
    if (to_shared) kt_store(k, s, kt_load(k, g));
    else kt_store(k, g, kt_load(k, s));
    cute_ir_end(&k->b);
}

/* the box (nb bytes) loaded through the map at (c0, c1), waited for, copied out to o */
static void load_kernel(tk *t, int64_t nb)
{
    begin(t, "load", false);
    issue(t, CUTE_INST_TMA_LOAD_2D, SBASE, nb);
    wait_phase0(t);
    move_words(t, nb / 4, false);
}

/* the box (nb bytes) copied in from o, stored (or added) through the map at (c0, c1) */
static void store_kernel(tk *t, bool reduce, int64_t nb)
{
    begin(t, reduce ? "reduce" : "store", false);
    move_words(t, nb / 4, true);
    cute_ir_inst_op(&t->k.b, CUTE_INST_FENCE_PROXY_ASYNC_SHARED_CTA, NULL, 0, NULL, 0, 0); /* for TMA's reads */
    kt_barrier(&t->k);
    issue(t, reduce ? CUTE_INST_TMA_REDUCE_ADD_2D : CUTE_INST_TMA_STORE_2D, SBASE, 0);
}

/* launch: the map (its 128 bytes, or a global buffer holding them), o, c0, c1 */
static cute_status launch(tk *t, const void *map, const cute_buffer *mapbuf, cute_buffer *o,
                          const tcase *k)
{
    cute_module *m = kt_compile(be, &t->k);
    if (!m) return CUTE_ERR_COMPILE;
    cute_launch_arg a[4] = {kt_arg_buf(mapbuf, CUTE_U8), kt_arg_buf(o, CUTE_U32),
                            kt_arg_int(CUTE_I32, k->c0), kt_arg_int(CUTE_I32, k->c1)};
    if (!mapbuf) {
        memset(&a[0], 0, sizeof a[0]);
        a[0].type = cute_type_of(CUTE_TMAP), a[0].bytes = map;
    }
    cute_status s = kt_launch(be, m, 1, NTHR, 0, a, 4);
    be.vt->module_free(be.self, m);
    return s;
}

static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rand();
}

static uint64_t box_bytes(const tcase *k) { return (uint64_t)k->b0 * k->b1 * (uint64_t)cute_dtype_bytes(k->dt); }

/* --- loads -------------------------------------------------------------------------------- */

static bool is_nan(cute_dtype dt, const uint8_t *v)
{
    uint16_t h;
    float f;
    double x;
    switch (dt) {
    case CUTE_F16: memcpy(&h, v, 2); return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
    case CUTE_BF16: memcpy(&h, v, 2); return (h & 0x7f80) == 0x7f80 && (h & 0x7f);
    case CUTE_F32: memcpy(&f, v, 4); return isnan(f);
    case CUTE_F64: memcpy(&x, v, 8); return isnan(x);
    default: return false;
    }
}

/* box element e of the shared image s is what the reference says: the tensor's element,
 * or the fill outside it */
static bool element_right(const tcase *k, const uint8_t *s, const uint8_t *g, uint32_t i, uint32_t j)
{
    int es = cute_dtype_bytes(k->dt);
    const uint8_t *got = s + ref_smem(k, (uint64_t)j * k->b0 + i);
    uint64_t off;
    if (ref_global(k, i, j, false, &off)) return !memcmp(got, g + off, (size_t)es);
    if (k->oob == CUTE_TMA_OOB_NAN) return is_nan(k->dt, got);
    for (int b = 0; b < es; b++)
        if (got[b]) return false;
    return true;
}

/* a TMA load of k's box into shared memory, copied out word by word: the elements wrong */
static int load_case(const tcase *k)
{
    size_t gbytes = row_bytes(k) * k->d1, nb = box_bytes(k);
    uint8_t *g = malloc(gbytes), *o = malloc(nb);
    fill_random(g, gbytes);
    memset(o, 0xa5, nb);
    cute_buffer bg = kt_buf(be, g, gbytes), bo = kt_buf(be, o, nb);
    _Alignas(64) uint8_t map[CUTE_TMA_MAP_BYTES];
    encode_map(k, &bg, map);
    tk t;
    load_kernel(&t, (int64_t)nb);
    cute_status s = launch(&t, map, NULL, &bo, k);
    CHECK(s == CUTE_OK, "load runs: %s", be.vt->error(be.self));
    if (s == CUTE_OK) s = be.vt->download(be.self, o, &bo, 0, nb); /* a GPU fault shows here */
    CHECK(s == CUTE_OK, "load of %s finishes: %s", cute_dtype_name(k->dt), be.vt->error(be.self));
    int bad = 0;
    for (uint32_t j = 0; j < k->b1; j++)
        for (uint32_t i = 0; i < k->b0; i++) bad += !element_right(k, o, g, i, j);
    be.vt->free(be.self, &bg), be.vt->free(be.self, &bo);
    free(g), free(o);
    return s == CUTE_OK ? bad : -1;
}

/* the box's inner extent: the swizzle's span, or 48 bytes unswizzled */
static uint32_t inner_box(cute_dtype dt, cute_tma_swizzle sw)
{
    int span = cute_tma_swizzle_bytes(sw);
    return (uint32_t)((span ? span : 48) / cute_dtype_bytes(dt));
}

static void loads(void)
{
    static const cute_dtype dts[] = {CUTE_U8, CUTE_F16, CUTE_BF16, CUTE_F32, CUTE_I32, CUTE_F64};
    for (size_t a = 0; a < sizeof dts / sizeof dts[0]; a++)
        for (int sw = CUTE_TMA_SWIZZLE_NONE; sw <= CUTE_TMA_SWIZZLE_128B; sw++) {
            tcase k = {dts[a], (cute_tma_swizzle)sw, CUTE_TMA_OOB_ZERO, 0, 11, 0, 7, 0, 0};
            k.b0 = inner_box(k.dt, k.sw);
            k.d0 = 2 * k.b0 + 3;
            bool flt = dts[a] != CUTE_U8 && dts[a] != CUTE_I32;
            /* the box's first column at a 16-byte boundary (inner_start_ok), a chunk in, over
             * the right edge, before the left one */
            int32_t chunk = 16 / cute_dtype_bytes(k.dt);
            const int32_t at[3][2] = {{chunk, 2}, {(int32_t)(k.d0 - k.b0 / 2) / chunk * chunk, 8}, {-chunk, -2}};
            for (int p = 0; p < 3; p++) {
                k.c0 = at[p][0], k.c1 = at[p][1];
                k.oob = flt && p % 2 ? CUTE_TMA_OOB_NAN : CUTE_TMA_OOB_ZERO;
                int bad = load_case(&k);
                CHECK(bad == 0, "load %s swizzle %dB at (%d,%d) of %llux%llu, %s fill: %d elements wrong",
                      cute_dtype_name(k.dt), cute_tma_swizzle_bytes(k.sw), k.c0, k.c1,
                      (unsigned long long)k.d0, (unsigned long long)k.d1,
                      k.oob ? "NaN" : "zero", bad);
            }
        }
}

/* --- stores and reduce-adds ------------------------------------------------------------------ */

/* the reference of one element of a reduce-add: a + b in dt */
static void ref_add(cute_dtype dt, uint8_t *a, const uint8_t *b)
{
    float x, y;
    int32_t i, j;
    uint16_t h, l;
    switch (dt) {
    case CUTE_F32: memcpy(&x, a, 4), memcpy(&y, b, 4), x = (float)((double)x + y), memcpy(a, &x, 4); break;
    case CUTE_I32:
        memcpy(&i, a, 4), memcpy(&j, b, 4);
        i = (int32_t)((uint32_t)i + (uint32_t)j), memcpy(a, &i, 4);
        break;
    default: /* bf16 */
        memcpy(&h, a, 2), memcpy(&l, b, 2);
        h = cute_f64_to_bf16((double)cute_bf16_to_f32(h) + cute_bf16_to_f32(l)), memcpy(a, &h, 2);
    }
}

/* finite random values of dt (reduce-adds of NaN bit patterns prove nothing) */
static void fill_values(cute_dtype dt, uint8_t *p, size_t n)
{
    fill_random(p, n);
    for (size_t i = 0; dt == CUTE_F32 && i + 4 <= n; i += 4) {
        float f = (float)(rand() % 20001 - 10000) / 64.0f;
        memcpy(p + i, &f, 4);
    }
    for (size_t i = 0; dt == CUTE_BF16 && i + 2 <= n; i += 2) {
        uint16_t h = cute_f32_to_bf16((float)(rand() % 2001 - 1000) / 8.0f);
        memcpy(p + i, &h, 2);
    }
}

/* a shared box (from o) stored or reduce-added into k's tensor: the bytes wrong */
static int store_case(const tcase *k, bool reduce)
{
    size_t gbytes = row_bytes(k) * k->d1, nb = box_bytes(k);
    int es = cute_dtype_bytes(k->dt);
    uint8_t *g = malloc(gbytes), *want = malloc(gbytes), *src = malloc(nb);
    fill_values(k->dt, src, nb);
    if (reduce) fill_values(k->dt, g, gbytes);
    else memset(g, 0xa5, gbytes); /* poison: bytes the store must not touch stay so */
    memcpy(want, g, gbytes);
    for (uint32_t j = 0; j < k->b1; j++)
        for (uint32_t i = 0; i < k->b0; i++) {
            uint64_t off, e = ref_smem(k, (uint64_t)j * k->b0 + i);
            if (!ref_global(k, i, j, true, &off)) continue;
            if (reduce) ref_add(k->dt, want + off, src + e);
            else memcpy(want + off, src + e, (size_t)es);
        }
    cute_buffer bg = kt_buf(be, g, gbytes), bs = kt_buf(be, src, nb);
    _Alignas(64) uint8_t map[CUTE_TMA_MAP_BYTES];
    encode_map(k, &bg, map);
    tk t;
    store_kernel(&t, reduce, (int64_t)nb);
    cute_status s = launch(&t, map, NULL, &bs, k);
    CHECK(s == CUTE_OK, "%s runs: %s", reduce ? "reduce" : "store", be.vt->error(be.self));
    if (s == CUTE_OK) s = be.vt->download(be.self, g, &bg, 0, gbytes); /* a GPU fault shows here */
    CHECK(s == CUTE_OK, "%s of %s finishes: %s", reduce ? "reduce" : "store", cute_dtype_name(k->dt),
          be.vt->error(be.self));
    int bad = 0;
    for (size_t b = 0; b < gbytes; b++) bad += g[b] != want[b];
    be.vt->free(be.self, &bg), be.vt->free(be.self, &bs);
    free(g), free(want), free(src);
    return s == CUTE_OK ? bad : -1;
}

static void stores(void)
{
    static const cute_dtype dts[] = {CUTE_U8, CUTE_BF16, CUTE_F32, CUTE_I32, CUTE_F64};
    for (size_t a = 0; a < sizeof dts / sizeof dts[0]; a++)
        for (int sw = CUTE_TMA_SWIZZLE_NONE; sw <= CUTE_TMA_SWIZZLE_128B; sw++)
            for (int reduce = 0; reduce < 2; reduce++) {
                if (reduce && (dts[a] == CUTE_U8 || dts[a] == CUTE_F64)) continue;
                tcase k = {dts[a], (cute_tma_swizzle)sw, CUTE_TMA_OOB_ZERO, 0, 9, 0, 5, 0, 0};
                k.b0 = inner_box(k.dt, k.sw);
                k.d0 = k.b0 + k.b0 / 2 + 1;
                /* over two edges (past the last column and row: a store starting before the
                 * tensor traps, store_start_ok) */
                k.c0 = (int32_t)(k.d0 - k.b0 / 2 - 1), k.c1 = sw % 2 ? 6 : 7;
                int bad = store_case(&k, reduce);
                CHECK(bad == 0, "%s %s swizzle %dB at (%d,%d): %d bytes wrong",
                      reduce ? "reduce-add" : "store", cute_dtype_name(k.dt),
                      cute_tma_swizzle_bytes(k.sw), k.c0, k.c1, bad);
            }
}

/* --- the checks ----------------------------------------------------------------------------- */

/* a load through map (its 128 bytes as given) at shared sbase: the first report */
static const cute_interp_report *bad_load(const void *map, int64_t sbase, cute_inst row,
                                          const tcase *k, cute_buffer *o)
{
    tk t;
    begin(&t, "bad", false);
    issue(&t, row, sbase, (int64_t)box_bytes(k));
    cute_status s = launch(&t, map, NULL, o, k);
    CHECK(s == CUTE_ERR_CHECK, "a check, not %s", cute_status_name(s));
    return kt_report(be, 0);
}

/* a multicast load whose mask names CTA rank 1, in a launch without clusters: the report */
static const cute_interp_report *bad_multicast(const void *map, const tcase *k, cute_buffer *o)
{
    tk t;
    begin(&t, "bad_multicast", false);
    kt *kk = &t.k;
    cute_ir_if(&kk->b, kt_cmp(kk, CUTE_OP_EQ, t.tid, kt_i64(kk, 0)));
    cute_vreg bar = kt_smem(kk, CUTE_U64, SBAR), mask = cute_ir_const_int(&kk->b, CUTE_U16, 2);
    cute_ir_inst_op(&kk->b, CUTE_INST_MBARRIER_ARRIVE_EXPECT_TX, NULL, 0, (cute_vreg[]){bar, kt_i32(kk, (int64_t)box_bytes(k))}, 2, 0);
    cute_vreg in[6] = {kt_smem(kk, CUTE_U8, SBASE), t.tm, t.c0, t.c1, bar, mask};
    cute_ir_inst_op(&kk->b, CUTE_INST_TMA_LOAD_MC_2D, NULL, 0, in, 6, 0);
    cute_ir_end(&kk->b);
    cute_status s = launch(&t, map, NULL, o, k);
    CHECK(s == CUTE_ERR_CHECK, "a check, not %s", cute_status_name(s));
    return kt_report(be, 0);
}

#define EXPECT(r, kind_, text)                                                                \
    do {                                                                                      \
        const cute_interp_report *r_ = (r);                                                   \
        CHECK(r_ && r_->kind == (kind_) && strstr(r_->msg, (text)), "want \"%s\", got: %s",  \
              text, r_ ? r_->msg : "no report");                                              \
    } while (0)

static void checks(void)
{
    tcase k = {CUTE_F32, CUTE_TMA_SWIZZLE_128B, CUTE_TMA_OOB_ZERO, 40, 16, 32, 8, 0, 0};
    size_t gbytes = row_bytes(&k) * k.d1;
    uint8_t *g = calloc(1, gbytes);
    cute_buffer bg = kt_buf(be, g, gbytes), bo = kt_buf(be, g, 64);
    _Alignas(64) uint8_t map[CUTE_TMA_MAP_BYTES] = {0};
    EXPECT(bad_load(map, SBASE, CUTE_INST_TMA_LOAD_2D, &k, &bo), CUTE_CHECK_TMA, "holds no tensor map");
    cute_tma_desc d = desc_of(&k, &bg);
    cute_tma_pack(&d, map);
    EXPECT(bad_multicast(map, &k, &bo), CUTE_CHECK_TMA, "multicast mask 0x2 names a CTA rank outside the cluster "
           "(the cluster has 1 block)");
    k.c0 = 3; /* 12 bytes into the rows: the H200 trapped on such a box (1 byte in, u8) */
    EXPECT(bad_load(map, SBASE, CUTE_INST_TMA_LOAD_2D, &k, &bo), CUTE_CHECK_TMA, "byte 12 of its row: a box must start "
           "at a 16-byte boundary");
    EXPECT(bad_load(map, SBASE, CUTE_INST_TMA_STORE_2D, &k, &bo), CUTE_CHECK_TMA, "byte 12 of its row");
    k.c0 = 0, k.c1 = -2; /* a load there is zero-filled; a store traps on the GPU */
    EXPECT(bad_load(map, SBASE, CUTE_INST_TMA_STORE_2D, &k, &bo), CUTE_CHECK_TMA, "starts at coordinate -2 of "
           "dimension 1, before the tensor");
    k.c1 = 0;
    d.box[0] = 6; /* 24 bytes: not a multiple of 16 */
    cute_tma_pack(&d, map);
    EXPECT(bad_load(map, SBASE, CUTE_INST_TMA_LOAD_2D, &k, &bo), CUTE_CHECK_TMA, "not a multiple of 16 bytes");
    d = desc_of(&k, &bg);
    cute_tma_pack(&d, map);
    EXPECT(bad_load(map, SBASE + 128, CUTE_INST_TMA_LOAD_2D, &k, &bo), CUTE_CHECK_TMA, "the swizzle's pattern");
    cute_tma_desc d3 = d;
    d3.rank = 3, d3.dims[2] = 1, d3.box[2] = 1, d3.strides[2] = row_bytes(&k) * k.d1;
    cute_tma_pack(&d3, map);
    EXPECT(bad_load(map, SBASE, CUTE_INST_TMA_LOAD_2D, &k, &bo), CUTE_CHECK_TMA,
           "a 2-D copy through a tensor map of rank 3");
    cute_tma_pack(&d, map);
    d.swizzle = CUTE_TMA_SWIZZLE_NONE;
    cute_tma_pack(&d, map);
    EXPECT(bad_load(map, SBASE + 64, CUTE_INST_TMA_LOAD_2D, &k, &bo), CUTE_CHECK_TMA, "not a multiple of 128");
    EXPECT(bad_load(map, SMEM - 512, CUTE_INST_TMA_LOAD_2D, &k, &bo), CUTE_CHECK_SHARED_BOUNDS, "");
    d.dims[1] = k.d1 + 4; /* a map that describes more rows than its buffer holds */
    cute_tma_pack(&d, map);
    k.c1 = (int32_t)k.d1 - 2;
    EXPECT(bad_load(map, SBASE, CUTE_INST_TMA_LOAD_2D, &k, &bo), CUTE_CHECK_GLOBAL_BOUNDS, "");
    d = desc_of(&k, &bg);
    d.dtype = CUTE_U8, d.box[0] = 128, d.swizzle = CUTE_TMA_SWIZZLE_128B;
    cute_tma_pack(&d, map);
    EXPECT(bad_load(map, SBASE, CUTE_INST_TMA_REDUCE_ADD_2D, &k, &bo), CUTE_CHECK_TMA, "not u8");
    be.vt->free(be.self, &bg), be.vt->free(be.self, &bo);
    free(g);
}

/* a load of k's first box after expecting tx bytes, its tile read after the mbarrier's wait
 * (or before it: the async proxy's writes are not acquired yet): the first report */
static const cute_interp_report *sync_case(const tcase *k, int64_t tx, bool wait_first)
{
    size_t gbytes = row_bytes(k) * k->d1, nb = box_bytes(k);
    uint8_t *g = calloc(1, gbytes);
    cute_buffer bg = kt_buf(be, g, gbytes), bo = kt_buf(be, NULL, nb);
    _Alignas(64) uint8_t map[CUTE_TMA_MAP_BYTES];
    encode_map(k, &bg, map);
    tk t;
    begin(&t, "sync", false);
    issue(&t, CUTE_INST_TMA_LOAD_2D, SBASE, tx);
    if (wait_first) wait_phase0(&t);
    cute_ir_if(&t.k.b, kt_cmp(&t.k, CUTE_OP_LT, t.tid, kt_i64(&t.k, 32))); /* the issuing warp */
    move_words(&t, (int64_t)nb / 4, false);
    cute_ir_end(&t.k.b);
    if (!wait_first) wait_phase0(&t);
    cute_status s = launch(&t, map, NULL, &bo, k);
    CHECK(s == CUTE_ERR_CHECK, "a check, not %s", cute_status_name(s));
    be.vt->free(be.self, &bg), be.vt->free(be.self, &bo);
    free(g);
    return kt_report(be, 0);
}

/* the transaction bytes and the mbarrier: TMA's half of the pipeline checks */
static void sync_checks(void)
{
    tcase k = {CUTE_F16, CUTE_TMA_SWIZZLE_128B, CUTE_TMA_OOB_ZERO, 100, 20, 64, 4, 0, 0};
    int64_t nb = (int64_t)box_bytes(&k);
    EXPECT(sync_case(&k, nb - 16, true), CUTE_CHECK_DEADLOCK, "transaction bytes");
    EXPECT(sync_case(&k, nb + 16, true), CUTE_CHECK_DEADLOCK, "transaction bytes");
    EXPECT(sync_case(&k, nb, false), CUTE_CHECK_SHARED_RACE, "race");
    skip_init = true;
    EXPECT(sync_case(&k, nb, true), CUTE_CHECK_SYNC_MISUSE, "no mbarrier.init");
    skip_init = false;
}

/* --- a store's shared source is the store's until cp.async.bulk.wait_group.read ----------- */

/* the box stored from SBASE by thread 0, which then writes (or reads) the box's first word
 * before its wait_group.read 0, and writes it again after: the first report (NULL: none) */
static const cute_interp_report *store_source_case(bool write_early, int *store_line, int *early_line)
{
    tcase k = {CUTE_F32, CUTE_TMA_SWIZZLE_NONE, CUTE_TMA_OOB_ZERO, 40, 9, 12, 4, 4, 2};
    size_t gbytes = row_bytes(&k) * k.d1, nb = box_bytes(&k);
    uint8_t *src = malloc(nb);
    fill_values(k.dt, src, nb);
    cute_buffer bg = kt_buf(be, NULL, gbytes), bs = kt_buf(be, src, nb);
    _Alignas(64) uint8_t map[CUTE_TMA_MAP_BYTES];
    encode_map(&k, &bg, map);
    tk t;
    begin(&t, "store_source", false);
    kt *kk = &t.k;
    move_words(&t, (int64_t)nb / 4, true);
    cute_ir_inst_op(&kk->b, CUTE_INST_FENCE_PROXY_ASYNC_SHARED_CTA, NULL, 0, NULL, 0, 0);
    kt_barrier(kk);
    cute_ir_if(&kk->b, kt_cmp(kk, CUTE_OP_EQ, t.tid, kt_i64(kk, 0)));
    cute_vreg word = kt_smem(kk, CUTE_U32, SBASE);
    KT_AT(&kk->b); *store_line = __LINE__;
    cute_ir_inst_op(&kk->b, CUTE_INST_TMA_STORE_2D, NULL, 0, (cute_vreg[]){t.tm, t.c0, t.c1, kt_smem(kk, CUTE_U8, SBASE)}, 4, 0);
    cute_ir_inst_op(&kk->b, CUTE_INST_CP_ASYNC_BULK_COMMIT_GROUP, NULL, 0, NULL, 0, 0);
    KT_AT(&kk->b); *early_line = __LINE__;
    if (write_early) kt_store(kk, word, cute_ir_const_int(&kk->b, CUTE_U32, 7));
    else kt_store(kk, kt_ptr_add(kk, t.o, kt_i64(kk, 0)), kt_load(kk, word)); /* reading is fine */
    cute_ir_inst_op(&kk->b, CUTE_INST_CP_ASYNC_BULK_WAIT_GROUP_READ, NULL, 0, NULL, 0, 0);
    kt_store(kk, word, cute_ir_const_int(&kk->b, CUTE_U32, 9)); /* after the wait: free again */
    cute_ir_end(&kk->b);
    cute_status s = launch(&t, map, NULL, &bs, &k);
    CHECK(s == (write_early ? CUTE_ERR_CHECK : CUTE_OK), "store source %s: %s", write_early ? "overwritten" : "read",
          be.vt->error(be.self));
    be.vt->free(be.self, &bg), be.vt->free(be.self, &bs);
    free(src);
    return s == CUTE_OK ? NULL : kt_report(be, 0);
}

static void store_source(void)
{
    int store_line, early_line;
    const cute_interp_report *r = store_source_case(true, &store_line, &early_line);
    char want[160];
    snprintf(want, sizeof want, "at src/interp/tma_test.c:%d (thread (0,0,0), warp 0, group 0): no "
             "cp.async.bulk.wait_group.read since", store_line);
    EXPECT(r, CUTE_CHECK_ASYNC_COPY, want);
    CHECK(r && r->line == early_line, "the report is the early write's (line %d), not line %d", early_line, r ? r->line : -1);
    CHECK(store_source_case(false, &store_line, &early_line) == NULL, "reading a store's source before its wait is fine");
}

/* --- tensormap.replace: a map in global memory retargeted by the kernel ------------------- */

enum { FENCE_RELEASE = 1, FENCE_ACQUIRE = 2, FENCES = 3 };

/* thread 0: the map at tm (global) gets address a2 and extent d1 in dimension 1, fences (as
 * `fences` says), then loads the box (c0, c1) through it; the box is copied out to o */
static void replace_kernel(tk *t, int64_t words, int fences)
{
    kt *k = &t->k;
    cute_vreg a2 = kt_param(k, CUTE_U64, "a2"), d1 = kt_param(k, CUTE_U32, "d1");
    cute_ir_if(&k->b, kt_cmp(k, CUTE_OP_EQ, t->tid, kt_i64(k, 0)));
    cute_ir_inst_op(&k->b, CUTE_INST_TENSORMAP_REPLACE_ADDRESS, NULL, 0, (cute_vreg[]){t->tm, a2}, 2, 0);
    cute_ir_inst_op(&k->b, CUTE_INST_TENSORMAP_REPLACE_DIM, NULL, 0, (cute_vreg[]){t->tm, d1}, 2, 1);
    if (fences & FENCE_RELEASE) cute_ir_inst_op(&k->b, CUTE_INST_FENCE_PROXY_TENSORMAP_RELEASE, NULL, 0, NULL, 0, 0);
    if (fences & FENCE_ACQUIRE) cute_ir_inst_op(&k->b, CUTE_INST_FENCE_PROXY_TENSORMAP_ACQUIRE, NULL, 0, &t->tm, 1, 0);
    cute_ir_inst_op(&k->b, CUTE_INST_PREFETCH_TENSORMAP, NULL, 0, &t->tm, 1, 0);
    cute_ir_end(&k->b);
    issue(t, CUTE_INST_TMA_LOAD_2D, SBASE, 4 * words);
    wait_phase0(t);
    move_words(t, words, false);
}

/* the retargeted map's load, fenced as `fences` says: the launch's status, and the box in o */
static cute_status replace_run(int fences, tcase *k, uint8_t *g2, uint8_t *o)
{
    size_t gbytes = row_bytes(k) * k->d1, nb = box_bytes(k);
    uint8_t *g1 = malloc(gbytes);
    fill_random(g1, gbytes), fill_random(g2, gbytes);
    memset(o, 0xa5, nb);
    cute_buffer b1 = kt_buf(be, g1, gbytes), b2 = kt_buf(be, g2, gbytes), bo = kt_buf(be, o, nb);
    _Alignas(64) uint8_t map[CUTE_TMA_MAP_BYTES];
    encode_map(k, &b1, map);
    cute_buffer bm = kt_buf(be, map, sizeof map);
    tk t;
    begin(&t, "replace", true);
    replace_kernel(&t, (int64_t)nb / 4, fences);
    cute_module *m = kt_compile(be, &t.k);
    cute_launch_arg a[6] = {kt_arg_buf(&bm, CUTE_U8), kt_arg_buf(&bo, CUTE_U32), kt_arg_int(CUTE_I32, k->c0),
                            kt_arg_int(CUTE_I32, k->c1), kt_arg_int(CUTE_U64, (int64_t)(uintptr_t)b2.ptr),
                            kt_arg_int(CUTE_U32, 7)};
    cute_status s = m ? kt_launch(be, m, 1, NTHR, 0, a, 6) : CUTE_ERR_COMPILE;
    if (m) be.vt->module_free(be.self, m);
    be.vt->download(be.self, o, &bo, 0, nb);
    be.vt->free(be.self, &b1), be.vt->free(be.self, &b2), be.vt->free(be.self, &bo), be.vt->free(be.self, &bm);
    free(g1);
    return s;
}

static void replace(void)
{
    tcase k = {CUTE_F16, CUTE_TMA_SWIZZLE_64B, CUTE_TMA_OOB_ZERO, 70, 12, 32, 6, 8, 3};
    size_t gbytes = row_bytes(&k) * k.d1, nb = box_bytes(&k);
    uint8_t *g2 = malloc(gbytes), *o = malloc(nb);
    cute_status s = replace_run(FENCES, &k, g2, o);
    CHECK(s == CUTE_OK, "replace runs: %s", be.vt->error(be.self));
    k.d1 = 7; /* rows 7.. now lie outside: zero */
    int bad = 0;
    for (uint32_t j = 0; j < k.b1; j++)
        for (uint32_t i = 0; i < k.b0; i++) bad += !element_right(&k, o, g2, i, j);
    CHECK(bad == 0, "a load through the retargeted map: %d elements wrong", bad);
    free(g2), free(o);
}

/* a load through a replaced map without the writer's release, or without the acquire: each
 * reported, naming the fence that is missing and the writer */
static void replace_unfenced(void)
{
    static const struct {
        int fences;
        const char *want;
    } c[] = {{FENCE_ACQUIRE, "used without the writer's fence.proxy.tensormap::generic.release"},
             {FENCE_RELEASE, "without this thread's fence.proxy.tensormap::generic.acquire"},
             {0, "map changed by tensormap.replace (block 0, thread 0), used without the writer's"}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        tcase k = {CUTE_F16, CUTE_TMA_SWIZZLE_64B, CUTE_TMA_OOB_ZERO, 70, 12, 32, 6, 8, 3};
        uint8_t *g2 = malloc(row_bytes(&k) * k.d1), *o = malloc(box_bytes(&k));
        cute_status s = replace_run(c[i].fences, &k, g2, o);
        CHECK(s == CUTE_ERR_CHECK, "unfenced case %zu: a check, not %s", i, cute_status_name(s));
        EXPECT(kt_report(be, 0), CUTE_CHECK_TMA, c[i].want);
        free(g2), free(o);
    }
}

/* thread 0 copies the map parameter's 128 bytes, 16 at a time (TMAP_LOAD_WORDS), to o */
static void words_kernel(tk *t)
{
    begin(t, "words", false);
    kt *kk = &t->k;
    cute_vreg o64 = cute_ir_op(&kk->b, CUTE_OP_BITCAST, cute_type_ptr(CUTE_U64, CUTE_GMEM), t->o, 0, 0);
    cute_ir_if(&kk->b, kt_cmp(kk, CUTE_OP_EQ, t->tid, kt_i64(kk, 0)));
    for (int i = 0; i < CUTE_TMA_MAP_BYTES / 16; i++) {
        cute_vreg w[2] = {cute_ir_new_vreg(kk->f, cute_type_of(CUTE_U64), NULL, false),
                          cute_ir_new_vreg(kk->f, cute_type_of(CUTE_U64), NULL, false)};
        cute_ir_inst_op(&kk->b, CUTE_INST_TMAP_LOAD_WORDS, w, 2, &t->tm, 1, 16 * i);
        for (int j = 0; j < 2; j++) kt_store(kk, kt_ptr_add(kk, o64, kt_i64(kk, 2 * i + j)), w[j]);
    }
    cute_ir_end(&kk->b);
}

static void words(void)
{
    tcase k = {CUTE_F16, CUTE_TMA_SWIZZLE_64B, CUTE_TMA_OOB_ZERO, 70, 12, 32, 6, 8, 3};
    uint8_t *g = calloc(1, row_bytes(&k) * k.d1);
    cute_buffer bg = kt_buf(be, g, row_bytes(&k) * k.d1), bo = kt_buf(be, NULL, CUTE_TMA_MAP_BYTES);
    _Alignas(64) uint8_t map[CUTE_TMA_MAP_BYTES], got[CUTE_TMA_MAP_BYTES];
    encode_map(&k, &bg, map);
    tk t;
    words_kernel(&t);
    cute_status s = launch(&t, map, NULL, &bo, &k);
    CHECK(s == CUTE_OK, "words runs: %s", be.vt->error(be.self));
    be.vt->download(be.self, got, &bo, 0, sizeof got);
    CHECK(memcmp(got, map, sizeof map) == 0, "the map's 128 bytes copied word by word");
    be.vt->free(be.self, &bg), be.vt->free(be.self, &bo);
    free(g);
}

/* the same loads, stores, reduce-adds and map update on an sm_90 GPU, against the same
 * reference: the reference (and so the emulation) is the hardware's */
static void on_gpu(void)
{
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        tk l, st, rd, rp, wd; /* what would run there, compiled for sm_90a */
        load_kernel(&l, 512), store_kernel(&st, false, 512), store_kernel(&rd, true, 512);
        begin(&rp, "replace", true), replace_kernel(&rp, 128, FENCES), words_kernel(&wd);
        kt_compiles_sm90a((cute_ir_func *[]){l.k.f, st.k.f, rd.k.f, rp.k.f, wd.k.f}, 5);
        SKIP("no GPU: the TMA rows were not run against the reference on hardware");
        return;
    }
    if (cute_runtime_target_arch(rt) >= 90) {
        be = *cute_runtime_backend(rt);
        loads();
        stores();
        replace();
        words();
    } else {
        SKIP("a GPU before sm_90: no TMA");
    }
    cute_runtime_free(rt);
}

int main(void)
{
    srand((unsigned)time(NULL));
    be = kt_backend(&(cute_interp_opts){.threads = 1});
    loads();
    stores();
    checks();
    sync_checks();
    store_source();
    replace();
    replace_unfenced();
    words();
    be.vt->destroy(be.self);
    on_gpu();
    return CHECK_DONE("interp/tma");
}
