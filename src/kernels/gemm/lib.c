/* The GEMM library: C = alpha A B^T + beta C through the compiled kernels, each compiled
 * once per runtime and pattern (variant, dtype, which mode of each operand has stride 1,
 * assumed alignment), as the elementwise library does for its ops.
 *
 * The call is checked here, before anything is compiled, so that a wrong argument is named
 * in words ("B has 12 columns (K) but A has 8") rather than as a spec mismatch. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/cuda_arch.h"
#include "cutec/gemv.h"
#include "cutec/kernels.h"
#include "kernels/fn_cache.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemm/gemm_ref.h"

static const char *const names[CUTE_GEMM_VARIANT_COUNT] = {
    "auto", "registers", "shared", "pipelined", "multistage", "tensorop", "tensorop_smem", "hopper", "blackwell"};

const char *cute_gemm_variant_name(cute_gemm_variant v)
{
    return (unsigned)v < CUTE_GEMM_VARIANT_COUNT ? names[v] : "?";
}

int cute_gemm_variant_arch(cute_gemm_variant v)
{
    return v == CUTE_GEMM_HOPPER ? 90 : v == CUTE_GEMM_BLACKWELL ? 100 : 0;
}

bool cute_gemm_variant_parse(const char *name, cute_gemm_variant *out)
{
    for (int i = 0; i < CUTE_GEMM_VARIANT_COUNT; i++)
        if (name && strcmp(name, names[i]) == 0) {
            *out = (cute_gemm_variant)i;
            return true;
        }
    return false;
}

/* --- the table (fn_cache): one entry per pattern, also for patterns that failed to compile
 * (so AUTO does not retry a variant that cannot take the pattern on every call) --------- */

typedef fn_cache_entry entry;

static const cute_gemm_config *config_of(const entry *e)
{
    return e->key;
}

/* Shared by threads: the lock guards the table and the zeros; an entry, once made, never
 * moves or changes (the table holds pointers), so a call reads its entry unlocked. */
struct cute_gemm_lib {
    cute_runtime *rt;
    pthread_mutex_t lock;
    fn_cache fns; /* the compiled patterns, cute_gemm_config keys */
    int index_bits;    /* cute_gemm_lib_index_width: 0, 32 or 64 */
    cute_gemm_tiling tiling; /* cute_gemm_lib_tiling */
    cute_buffer zeros; /* for K = 0: A and B of one zero column each */
    size_t zeros_bytes;
    gemm_streamk_ws *streamk; /* stream-K's workspaces, one a stream (streamk_args) */
    int nstreamk;
    cute_buffer *retired; /* smaller zeros (or workspaces) that kernels on other threads may still read */
    int nretired;
    cute_gemv_lib *skinny; /* AUTO's skinny shapes: the GEMV kernels (cutec_gemm_skinny) */
    fn_cache grouped;      /* the grouped kernels (grouped_call.c), cute_gemm_config keys */
    gemm_tuned tuned;      /* the tuning file's entries (tuned.c) */
};

/* fn_cache_same for cute_gemm_config keys */
static bool same_config(const void *x, const void *y)
{
    const cute_gemm_config *a = x, *b = y;
    return a->variant == b->variant && a->dtype == b->dtype && a->c_dtype == b->c_dtype &&
           a->batched == b->batched && !memcmp(&a->tiling, &b->tiling, sizeof a->tiling) &&
           a->major[0] == b->major[0] &&
           a->major[1] == b->major[1] && a->major[2] == b->major[2] &&
           a->align_bytes == b->align_bytes && a->index_bound == b->index_bound &&
           !memcmp(&a->epilogue, &b->epilogue, sizeof a->epilogue) && a->dual == b->dual && a->scale == b->scale &&
           a->out_scale == b->out_scale && a->amax == b->amax && a->peer_flags == b->peer_flags &&
           a->peer_broadcast == b->peer_broadcast && a->peer_mirror == b->peer_mirror;
}

/* fn_cache_compile for cute_gemm_config keys */
static const cute_fn *compile_config(cute_runtime *rt, const void *cfg, const void *user,
                                     char *err, size_t n)
{
    (void)user;
    return cute_gemm_compile(rt, cfg, err, n);
}

cute_gemm_lib *cute_gemm_lib_new(cute_runtime *rt)
{
    cute_gemm_lib *lib = calloc(1, sizeof *lib);
    if (!lib) return NULL;
    lib->rt = rt;
    lib->skinny = cute_gemv_lib_new(rt);
    if (!lib->skinny) return free(lib), NULL;
    fn_cache_init(&lib->fns, sizeof(cute_gemm_config), same_config);
    fn_cache_init(&lib->grouped, sizeof(cute_gemm_config), same_config);
    pthread_mutex_init(&lib->lock, NULL);
    return lib;
}

void cute_gemm_lib_free(cute_gemm_lib *lib)
{
    if (!lib) return;
    fn_cache_free(&lib->fns);
    fn_cache_free(&lib->grouped);
    cute_backend *b = cute_runtime_backend(lib->rt);
    if (lib->zeros_bytes) b->vt->free(b->self, &lib->zeros);
    for (int i = 0; i < lib->nstreamk; i++) b->vt->free(b->self, &lib->streamk[i].buf);
    free(lib->streamk);
    for (int i = 0; i < lib->nretired; i++) b->vt->free(b->self, &lib->retired[i]);
    free(lib->retired);
    cute_gemv_lib_free(lib->skinny);
    gemm_tuned_free(&lib->tuned);
    pthread_mutex_destroy(&lib->lock);
    free(lib);
}

static const cute_fn *compile_grouped(cute_runtime *rt, const void *key, const void *user, char *err, size_t n)
{
    (void)user;
    return cute_gemm_grouped_compile(rt, key, err, n);
}

const cute_fn *gemm_lib_grouped(cute_gemm_lib *lib, const cute_gemm_config *cfg, cute_runtime **rt, char *err,
                                size_t n)
{
    *rt = lib->rt;
    pthread_mutex_lock(&lib->lock);
    const cute_fn *f = fn_cache_fn(&lib->grouped, lib->rt, cfg, compile_grouped, NULL, "gemm grouped", err, n);
    pthread_mutex_unlock(&lib->lock);
    return f;
}

const cute_fn *gemm_lib_fn(cute_gemm_lib *lib, const cute_gemm_config *cfg, cute_runtime **rt, char *err, size_t n)
{
    *rt = lib->rt;
    pthread_mutex_lock(&lib->lock);
    const cute_fn *f = fn_cache_fn(&lib->fns, lib->rt, cfg, compile_config, NULL, "gemm", err, n);
    pthread_mutex_unlock(&lib->lock);
    return f;
}

bool cute_gemm_lib_tiling(cute_gemm_lib *lib, const cute_gemm_tiling *t)
{
    cute_gemm_tiling z = {0};
    if (!t) t = &z;
    if (!lib || t->bm < 0 || t->bn < 0 || t->bk < 0 || t->stages < 0 || t->warps_m < 0 || t->warps_n < 0 ||
        t->raster < 0 || (t->read_bytes && t->read_bytes != 8 && t->read_bytes != 16) || t->cluster_m < 0 ||
        t->cluster_n < 0 || t->c_store < CUTE_GEMM_STORE_AUTO || t->c_store > CUTE_GEMM_STORE_TILE ||
        t->schedule < CUTE_GEMM_SCHEDULE_AUTO || t->schedule > CUTE_GEMM_SCHEDULE_STREAMK)
        return false;
    pthread_mutex_lock(&lib->lock);
    lib->tiling = *t;
    pthread_mutex_unlock(&lib->lock);
    return true;
}

cute_gemm_tiling gemm_lib_caller_tiling(cute_gemm_lib *lib)
{
    pthread_mutex_lock(&lib->lock);
    cute_gemm_tiling t = lib->tiling;
    pthread_mutex_unlock(&lib->lock);
    return t;
}

bool cute_gemm_lib_index_width(cute_gemm_lib *lib, int bits)
{
    if (!lib || (bits != 0 && bits != 32 && bits != 64)) return false;
    pthread_mutex_lock(&lib->lock);
    lib->index_bits = bits;
    pthread_mutex_unlock(&lib->lock);
    return true;
}

/* Which variants run faster with 32-bit index arithmetic, when the extents allow it.
 * Measured on the H200 (bench/RESULTS.md, 2026-11-21, third pass): shared 39 against 25
 * TFLOP/s at 8192^3 (at 128 registers two blocks fit per SM); pipelined 46.4 against 48.2
 * (its 32-bit build spills four loop-invariant offsets at the 128-register bound, which
 * it reloads every k-tile; the 64-bit build spills one, outside the loop).  Since the
 * epilogue's run-at-a-time rewrite neither spills, and 32 bits is the faster: 49.4 / 50.4
 * against 48.2 / 48.9 TFLOP/s at 4096^3 / 8192^3 (96.9% / 94.5% of cuBLAS against 94.9% /
 * 92.1%; an H100, 2026-11-26 15:54, scripts/device-sgemm.sh). */
static const bool narrow_is_faster[CUTE_GEMM_VARIANT_COUNT] = {
    [CUTE_GEMM_REGISTERS] = true, [CUTE_GEMM_SHARED] = true, [CUTE_GEMM_PIPELINED] = true,
    [CUTE_GEMM_MULTISTAGE] = false, [CUTE_GEMM_TENSOROP] = true, [CUTE_GEMM_TENSOROP_SMEM] = true,
    [CUTE_GEMM_HOPPER] = false, [CUTE_GEMM_BLACKWELL] = false};

static int64_t index_bound_for(const cute_gemm_lib *lib, cute_gemm_variant v, bool fits)
{
    bool narrow = fits && (lib->index_bits == 32 || (lib->index_bits == 0 && narrow_is_faster[v]));
    return narrow ? CUTE_GEMM_INDEX_BOUND : 0;
}

int cute_gemm_lib_size(cute_gemm_lib *lib)
{
    if (!lib) return 0;
    pthread_mutex_lock(&lib->lock);
    int n = lib->fns.n;
    pthread_mutex_unlock(&lib->lock);
    return n;
}

const cute_gemm_config *cute_gemm_lib_entry(cute_gemm_lib *lib, int i)
{
    if (!lib) return NULL;
    pthread_mutex_lock(&lib->lock);
    const cute_gemm_config *c = i >= 0 && i < lib->fns.n ? config_of(lib->fns.e[i]) : NULL;
    pthread_mutex_unlock(&lib->lock);
    return c;
}

/* --- checking the call ----------------------------------------------------------------- */

static const char *const operand[3] = {"A", "B", "C"};

/* The unit-stride mode of a rank-2 operand, or -1.  A mode of extent 1 is never stepped,
 * so its stride does not matter: (M,1) and (1,K) tensors take any strides. */
static int unit_mode(const cute_call_arg *x)
{
    for (int m = 0; m < 2; m++)
        if (x->stride[m] == 1 && x->shape[m] != 1) return m;
    for (int m = 0; m < 2; m++)
        if (x->shape[m] == 1) return m;
    return -1;
}

/* the largest power of two up to 16 dividing v (v = 0: 16) */
/* (unsigned: a product that wraps modulo 2^64 keeps its divisors up to 16) */
static int pow2_dividing(uint64_t v)
{
    int a = 16;
    while (a > 1 && v % (uint64_t)a) a /= 2;
    return a;
}

/* What the kernels assume of x, made true: the unit mode's stride is 1, and a leading
 * dimension that is never stepped (its extent is 1) is 16 bytes, so that it contradicts no
 * alignment (dynamic strides must be positive).
 * Returns the alignment x can promise: its address, its leading dimension and the extent of
 * its unit-stride mode, in bytes (cute_gemm_config.align_bytes). */
static int normalize(cute_call_arg *x, int major)
{
    int other = 1 - major, esize = cute_dtype_bytes((cute_dtype)x->dtype);
    x->stride[major] = 1;
    if (x->shape[other] == 1) x->stride[other] = 16 / esize; /* divisible by any alignment */
    int align = cute_call_arg_alignment(x, 16), ld = pow2_dividing((uint64_t)x->stride[other] * (uint64_t)esize);
    /* a batch's matrices each start as aligned as the first (a batch of one never steps) */
    if (x->ndim == 3 && x->shape[2] <= 1) x->stride[2] = 16 / esize;
    if (x->ndim == 3 && x->shape[2] > 1) {
        int l = pow2_dividing((uint64_t)x->stride[2] * (uint64_t)esize);
        if (l < align) align = l;
    }
    /* the unit-stride extent too: then no vector straddles the matrix's edge */
    int run = pow2_dividing((uint64_t)x->shape[major] * (uint64_t)esize);
    if (run < align) align = run;
    return ld < align ? ld : align;
}

static cute_status invalid(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return CUTE_ERR_INVALID;
}

/* each operand a rank-2 (or, all three, rank-3 batched) tensor, extents >= 0, positive
 * strides where stepped */
static cute_status check_operands(const cute_call_arg *const x[3], char *err, size_t n)
{
    for (int i = 0; i < 3; i++) {
        if (!x[i] || x[i]->kind != CUTE_ARG_TENSOR || !x[i]->buf)
            return invalid(err, n, "gemm: %s is not a tensor", operand[i]);
        if (x[i]->ndim != 2 && x[i]->ndim != 3)
            return invalid(err, n, "gemm: %s has rank %d (2, or 3 for a batch)", operand[i], x[i]->ndim);
        if (x[i]->ndim != x[0]->ndim)
            return invalid(err, n, "gemm: %s has rank %d but A has rank %d", operand[i], x[i]->ndim, x[0]->ndim);
        if (i < 2 && x[i]->dtype != x[0]->dtype)
            return invalid(err, n, "gemm: B is %s but A is %s (one input dtype)",
                           cute_dtype_name((cute_dtype)x[i]->dtype), cute_dtype_name((cute_dtype)x[0]->dtype));
        for (int m = 0; m < x[i]->ndim; m++)
            if (x[i]->shape[m] < 0)
                return invalid(err, n, "gemm: %s has a negative extent %lld in mode %d",
                               operand[i], (long long)x[i]->shape[m], m);
        /* an empty operand's strides are never used; else a mode that is stepped must step
         * forward (no broadcast: the kernels promise positive strides) */
        bool empty = x[i]->shape[0] == 0 || x[i]->shape[1] == 0;
        for (int m = 0; m < 2 && !empty; m++)
            if (x[i]->stride[m] < 1 && x[i]->shape[m] > 1)
                return invalid(err, n, "gemm: %s has a %s stride %lld in mode %d", operand[i],
                               x[i]->stride[m] ? "negative" : "zero (broadcast)",
                               (long long)x[i]->stride[m], m);
    }
    cute_dtype in = (cute_dtype)x[0]->dtype, out = (cute_dtype)x[2]->dtype;
    if (!gemm_ref_pair_ok(in, out)) {
        char outs[64];
        gemm_ref_out_text(in, cute_dtype_name, outs, sizeof outs);
        return invalid(err, n, "gemm: %s inputs with a %s C are not supported (%s inputs give C of %s)",
                       cute_dtype_name(in), cute_dtype_name(out), cute_dtype_name(in), outs);
    }
    return CUTE_OK;
}

/* A (M,K), B (N,K), C (M,N) */
static cute_status check_shapes(const cute_call_arg *A, const cute_call_arg *B,
                                const cute_call_arg *C, char *err, size_t n)
{
    if (A->shape[1] != B->shape[1])
        return invalid(err, n, "gemm: K mismatch: A (M,K) has K = %lld but B (N,K) has K = %lld",
                       (long long)A->shape[1], (long long)B->shape[1]);
    if (C->shape[0] != A->shape[0])
        return invalid(err, n, "gemm: M mismatch: C (M,N) has M = %lld but A (M,K) has M = %lld",
                       (long long)C->shape[0], (long long)A->shape[0]);
    if (C->shape[1] != B->shape[0])
        return invalid(err, n, "gemm: N mismatch: C (M,N) has N = %lld but B (N,K) has N = %lld",
                       (long long)C->shape[1], (long long)B->shape[0]);
    if (A->ndim == 3 && (A->shape[2] != C->shape[2] || B->shape[2] != C->shape[2]))
        return invalid(err, n, "gemm: batch mismatch: A, B and C have L = %lld, %lld and %lld",
                       (long long)A->shape[2], (long long)B->shape[2], (long long)C->shape[2]);
    return CUTE_OK;
}

/* cfg's majors and alignment from the operands, normalized */
static cute_status check_layouts(cute_call_arg x[3], cute_gemm_config *cfg, char *err, size_t n)
{
    cfg->align_bytes = 16;
    for (int i = 0; i < 3; i++) {
        int esize = cute_dtype_bytes((cute_dtype)x[i].dtype);
        int m = unit_mode(&x[i]);
        if (m < 0)
            return invalid(err, n, "gemm: %s has strides (%lld,%lld): one mode must have stride 1",
                           operand[i], (long long)x[i].stride[0], (long long)x[i].stride[1]);
        cfg->major[i] = m;
        int a = normalize(&x[i], m);
        if (a < esize)
            return invalid(err, n, "gemm: %s is not aligned to its %d-byte elements (address or "
                           "leading dimension)", operand[i], esize);
        if (a < cfg->align_bytes) cfg->align_bytes = a;
    }
    /* C's elements must be distinct: each is written by one thread */
    const cute_call_arg *C = &x[2];
    int major = cfg->major[2], ld = 1 - major;
    if (C->shape[ld] > 1 && C->stride[ld] < C->shape[major])
        return invalid(err, n, "gemm: C's elements overlap (leading dimension %lld < %lld)",
                       (long long)C->stride[ld], (long long)C->shape[major]);
    return CUTE_OK;
}

/* every extent and stride within CUTE_GEMM_INDEX_BOUND: the 32-bit kernels take it */
static bool fits_index_bound(const cute_call_arg x[3])
{
    for (int i = 0; i < 3; i++)
        for (int m = 0; m < x[i].ndim; m++)
            if (x[i].shape[m] > CUTE_GEMM_INDEX_BOUND || x[i].stride[m] > CUTE_GEMM_INDEX_BOUND)
                return false;
    return true;
}

/* The library's tiling by dtype and size where the caller set none (cute_gemm_lib_tiling):
 * the first row of the input dtype whose `up_to` the call's M N L (C's elements) does not
 * exceed; zero fields, and sizes no row takes, keep the plan's defaults (plan_multistage.c:
 * 256x128x64 in 3 stages (f16 on sm_90: 4), 4x2 warps, raster 8 for 16- and 8-bit inputs; f64 128x64x16, 4,
 * 2x2).  scripts/device-tctune.sh measures the candidates at 4096^3 and 8192^3 against
 * cuBLAS; a row takes the winner's tiling (rows of one dtype in increasing up_to; INT64_MAX
 * for every size, e.g. {CUTE_F64, INT64_MAX, {.read_bytes = 8}}).  (A tiling the dtype's
 * atom cannot take makes AUTO fall back to the next variant: tensorop_test runs these
 * rows.) */
static const struct {
    cute_dtype d;
    int64_t up_to;
    cute_gemm_tiling t; /* {bm, bn, bk, stages, warps_m, warps_n, raster, read_bytes, cluster_m, cluster_n, c_store, schedule} */
} by_size[] = {
    /* H200, 2026-11-26 15:14 (bench/RESULTS.md): s8 128x128 tiles, two blocks an SM, 61.2% of
     * cuBLAS at 4096^3 against 58.3% for 256x128; f64 8-byte fragment reads 92.6% / 95.0% at
     * 4096^3 / 8192^3 against 85.8% / 89.3% for 16-byte ones.  bf16/f16: no candidate beat
     * the default by more than the noise (and sm_90 takes the Hopper kernel first).  s8 again
     * 2026-11-27 13:38: 948 TOPS, ahead of step 4's epilogue (936), 128x128x64 in 4 stages
     * (924), 256x128 / 128x256 (922 / 916) and 8 warps on 128x128 (748). */
    {CUTE_I8, 4096LL * 4096, {.bm = 128, .bn = 128, .bk = 128, .stages = 3, .warps_m = 2, .warps_n = 2, .raster = 8}},
    {CUTE_F64, INT64_MAX, {.read_bytes = 8}},
};

/* Whether by_size's s8 row runs the SM80 stream-K schedule for the calls it takes
 * (unbatched, no fused epilogue): measured slower than a block a tile (s8 4096^3 864 TOPS
 * against 944, bench/RESULTS.md s14), so false until a stream-K form leads. */
static const bool s8_streamk = false;

/* The calls (M N L up to this) whose s8 tiling is by_size's s8 row on the persistent SM80
 * kernel (two blocks an SM at 128x128x128, C's tile over the last stage), the row then taking
 * them all: 0, none, until scripts/device-s15.sh measures it 1% ahead of AUTO (4096LL * 4096
 * where it leads at 4096^3 only, INT64_MAX at 8192^3 too). */
static const int64_t s8_persistent_up_to = 0;

cute_gemm_tiling cute_gemm_default_tiling(cute_gemm_variant v, const cute_gemm_config *cfg, int64_t m, int64_t n,
                                          int64_t k, int64_t l)
{
    static const cute_gemm_tiling none;
    if (v == CUTE_GEMM_HOPPER) return gemm_hopper_auto_tiling(cfg, (int64_t[]){m, n, k});
    if (v != CUTE_GEMM_TENSOROP && v != CUTE_GEMM_TENSOROP_SMEM) return none;
    bool persist = cfg->dtype == CUTE_I8 && m * n * l <= s8_persistent_up_to;
    for (size_t i = 0; i < sizeof by_size / sizeof by_size[0]; i++)
        if (by_size[i].d == cfg->dtype && (m * n * l <= by_size[i].up_to || persist)) {
            cute_gemm_tiling t = by_size[i].t;
            if (persist && t.schedule == CUTE_GEMM_SCHEDULE_AUTO) t.schedule = CUTE_GEMM_SCHEDULE_PERSISTENT;
            if (s8_streamk && t.schedule == CUTE_GEMM_SCHEDULE_AUTO && cfg->dtype == CUTE_I8 && !cfg->batched &&
                !cute_gemm_epilogue_fused(&cfg->epilogue))
                t.schedule = CUTE_GEMM_SCHEDULE_STREAMK;
            return t;
        }
    return none;
}

cute_gemm_tiling cute_gemm_library_tiling(cute_gemm_variant v, const cute_gemm_config *cfg, const int64_t mnk[3],
                                          int64_t l, int arch)
{
    static const cute_gemm_tiling none;
    cute_gemm_tiling t = mnk ? cute_gemm_default_tiling(v, cfg, mnk[0], mnk[1], mnk[2], l) : none;
    int64_t room = cute_cuda_arch_smem_per_block(arch);
    bool sm80 = v == CUTE_GEMM_TENSOROP || v == CUTE_GEMM_TENSOROP_SMEM;
    if (!sm80 || cfg->dtype == CUTE_F64 || t.bm || t.bn || t.stages || t.warps_m || t.warps_n || !room ||
        room >= gemm_tensorop_default_smem(cfg->dtype, arch)) /* its 256 x 128 rows in 3 stages fit */
        return t;
    t.bm = t.bn = 128, t.warps_m = t.warps_n = 2; /* by_size's s8 form: 96 KB for every dtype's k */
    return t;
}

/* the tiling variant v compiles with for a call of (M, N, K) mnk, L batches: the caller's,
 * else the library's (cute_gemm_library_tiling) */
static cute_gemm_tiling tiling_for(const cute_gemm_lib *lib, cute_gemm_variant v, const cute_gemm_config *cfg,
                                   const int64_t mnk[3], int64_t l)
{
    static const cute_gemm_tiling none;
    if (memcmp(&lib->tiling, &none, sizeof none)) return lib->tiling;
    return cute_gemm_library_tiling(v, cfg, mnk, l, cute_runtime_target_arch(lib->rt));
}

/* the variant's entry; AUTO: the most advanced kernel that compiles for the pattern, else
 * the first failure */
int cute_gemm_auto_variants(cute_dtype d, cute_gemm_variant out[CUTE_GEMM_VARIANT_COUNT])
{
    static const cute_gemm_variant fma[] = {CUTE_GEMM_PIPELINED, CUTE_GEMM_SHARED, CUTE_GEMM_REGISTERS};
    static const cute_gemm_variant cores[] = {CUTE_GEMM_TENSOROP_SMEM, CUTE_GEMM_TENSOROP};
    /* f64: DMMA first, then the FMA steps */
    static const cute_gemm_variant f64[] = {CUTE_GEMM_TENSOROP_SMEM, CUTE_GEMM_PIPELINED,
                                            CUTE_GEMM_SHARED, CUTE_GEMM_REGISTERS};
    const cute_gemm_variant *v = d == CUTE_F64 ? f64 : d == CUTE_F32 ? fma : cores;
    int n = d == CUTE_F64 ? 4 : d == CUTE_F32 ? 3 : 2;
    memcpy(out, v, (size_t)n * sizeof *out);
    return n;
}

/* AUTO's order on the library's target: on sm_90 the Hopper kernel first for 16-bit inputs,
 * on sm_100 the Blackwell kernel (each refuses the patterns it does not take, and the SM80
 * kernels follow) */
int cute_gemm_auto_variants_for(cute_dtype d, int arch, cute_gemm_variant out[CUTE_GEMM_VARIANT_COUNT])
{
    if (d == CUTE_E2M1) return out[0] = CUTE_GEMM_BLACKWELL, 1; /* NVFP4: only it */
    int n = cute_gemm_auto_variants(d, out);
    if ((arch != 90 && arch != 100) || (d != CUTE_BF16 && d != CUTE_F16)) return n;
    memmove(out + 1, out, (size_t)n * sizeof *out);
    out[0] = arch == 90 ? CUTE_GEMM_HOPPER : CUTE_GEMM_BLACKWELL;
    return n + 1;
}

static int auto_order(const cute_gemm_lib *lib, cute_dtype d, cute_gemm_variant out[CUTE_GEMM_VARIANT_COUNT])
{
    return cute_gemm_auto_variants_for(d, cute_runtime_target_arch(lib->rt), out);
}

/* A tuned entry's kernel for a plain AUTO call (cute_gemm_lib_use_tuned's rule), or NULL:
 * none, or it does not compile (AUTO's order follows) */
static const entry *pick_tuned(cute_gemm_lib *lib, cute_gemm_config *cfg, bool fits, const int64_t mnk[3])
{
    static const cute_gemm_tiling none;
    if (cute_gemm_epilogue_fused(&cfg->epilogue) || cfg->scale || cfg->dual || cfg->batched ||
        memcmp(&lib->tiling, &none, sizeof none) || !gemm_tuned_maybe(&lib->tuned, lib->rt))
        return NULL;
    cute_gemm_choice ch;
    gemm_tuned_choice(&lib->tuned, lib->rt, cfg->dtype, cute_gemm_c_dtype(cfg), cfg->major, mnk[0], mnk[1], mnk[2],
                      &ch);
    if (!ch.tuned) return NULL;
    cute_gemm_config c = *cfg;
    c.variant = ch.variant, c.tiling = ch.tiling, c.index_bound = index_bound_for(lib, ch.variant, fits);
    const entry *e = fn_cache_get(&lib->fns, lib->rt, &c, compile_config, NULL);
    if (e && e->fn) *cfg = c;
    return e && e->fn ? e : NULL;
}

static const entry *pick(cute_gemm_lib *lib, cute_gemm_variant v, cute_gemm_config *cfg, bool fits,
                         int64_t l, const int64_t mnk[3])
{
    cute_gemm_variant order[CUTE_GEMM_VARIANT_COUNT] = {v};
    const entry *tuned = v == CUTE_GEMM_AUTO ? pick_tuned(lib, cfg, fits, mnk) : NULL;
    if (tuned) return tuned;
    int count = v != CUTE_GEMM_AUTO ? 1 : auto_order(lib, cfg->dtype, order);
    const entry *first = NULL;
    for (int i = 0; i < count; i++) {
        cfg->variant = order[i];
        cfg->index_bound = index_bound_for(lib, order[i], fits);
        cfg->tiling = tiling_for(lib, order[i], cfg, mnk, l);
        const entry *e = fn_cache_get(&lib->fns, lib->rt, cfg, compile_config, NULL);
        if (!e) return NULL;
        if (e->fn) return e;
        if (!first) first = e;
    }
    return first;
}

bool cute_gemm_lib_use_tuned(cute_gemm_lib *lib, bool on)
{
    if (!lib) return false;
    pthread_mutex_lock(&lib->lock);
    lib->tuned.want = on ? 1 : 2;
    pthread_mutex_unlock(&lib->lock);
    return true;
}

void cute_gemm_lib_choice(cute_gemm_lib *lib, cute_dtype in, cute_dtype out, const int major[3], int64_t m,
                          int64_t n, int64_t k, cute_gemm_choice *c)
{
    if (!lib || !major) {
        memset(c, 0, sizeof *c);
        snprintf(c->why, sizeof c->why, "gemm: no library or no majors");
        return;
    }
    pthread_mutex_lock(&lib->lock);
    gemm_tuned_choice(&lib->tuned, lib->rt, in, out, major, m, n, k, c);
    pthread_mutex_unlock(&lib->lock);
}

/* why no kernel runs: the reason of each variant tried */
static void explain(cute_gemm_lib *lib, cute_gemm_variant v, const cute_gemm_config *cfg,
                    int64_t l, const int64_t mnk[3], char *err, size_t n)
{
    int len = snprintf(err, n, "gemm %s: no kernel for %s, A %s-major, B %s-major, C %s-major, "
                       "%d-byte aligned", names[v], cute_dtype_name(cfg->dtype),
                       cfg->major[0] ? "K" : "M", cfg->major[1] ? "K" : "N",
                       cfg->major[2] ? "row" : "column", cfg->align_bytes);
    for (int i = 0; i < lib->fns.n && len >= 0 && (size_t)len < n; i++) {
        const entry *e = lib->fns.e[i];
        cute_gemm_config c = *cfg;
        c.variant = config_of(e)->variant;
        c.index_bound = config_of(e)->index_bound; /* each variant's own width */
        c.tiling = tiling_for(lib, c.variant, &c, mnk, l);
        if (!e->fn && same_config(config_of(e), &c) && (v == CUTE_GEMM_AUTO || v == c.variant))
            len += snprintf(err + len, n - (size_t)len, "; %s: %s", names[c.variant], e->err);
    }
}

/* K = 0 leaves C = beta C, but the JIT launches nothing for an empty tensor: the product
 * is computed with K = 1 from a zero column for A and for B instead (on the device, in
 * stream order, by the same kernels) */
static cute_status zero_k(cute_gemm_lib *lib, cute_call_arg *A, cute_call_arg *B, char *err,
                          size_t n)
{
    int esize = cute_dtype_bytes((cute_dtype)A->dtype);
    int64_t rows = A->shape[0] > B->shape[0] ? A->shape[0] : B->shape[0];
    size_t bytes = (size_t)rows * (size_t)esize;
    cute_backend *b = cute_runtime_backend(lib->rt);
    if (bytes > lib->zeros_bytes) {
        void *host = calloc(1, bytes);
        cute_buffer *r = realloc(lib->retired, (size_t)(lib->nretired + 1) * sizeof *r);
        if (r) lib->retired = r;
        if (!host || !r) {
            free(host);
            snprintf(err, n, "gemm: K = 0: out of memory");
            return CUTE_ERR_OOM;
        }
        if (lib->zeros_bytes) lib->retired[lib->nretired++] = lib->zeros;
        lib->zeros_bytes = 0;
        cute_status s = b->vt->alloc(b->self, bytes, &lib->zeros);
        if (s == CUTE_OK) s = b->vt->upload(b->self, &lib->zeros, 0, host, bytes);
        free(host);
        if (s != CUTE_OK) {
            snprintf(err, n, "gemm: K = 0: zeros for A and B: %s", cute_status_name(s));
            return s;
        }
        lib->zeros_bytes = bytes;
    }
    /* a batch shares the zero column (its L stride is 0) */
    int nd = A->ndim;
    int64_t stride[3] = {1, 16 / esize, 0};
    *A = cute_call_tensor(&lib->zeros, 0, (cute_dtype)A->dtype, nd, (int64_t[]){A->shape[0], 1, A->shape[2]}, stride);
    *B = cute_call_tensor(&lib->zeros, 0, (cute_dtype)B->dtype, nd, (int64_t[]){B->shape[0], 1, B->shape[2]}, stride);
    return CUTE_OK;
}

/* The kernel of cfg's pattern (compiled at its first use) picked for args (A, B, C, alpha,
 * beta, then the epilogue's vector or the dual GEMM's B1, ...); K = 0 through the library's
 * zero columns (B1's too).  run_pattern runs it with nargs of them. */
const cute_fn *gemm_lib_pattern_fn(cute_gemm_lib *lib, cute_gemm_variant variant, cute_gemm_config *cfg,
                                   cute_call_arg *args, char *err, size_t n, cute_status *status)
{
    cute_status s = CUTE_OK;
    const int64_t mnk[3] = {args[2].shape[0], args[2].shape[1], args[0].shape[1]}; /* before zero_k */
    pthread_mutex_lock(&lib->lock);
    if (args[0].shape[1] == 0) s = zero_k(lib, &args[0], &args[1], err, n);
    if (args[0].shape[1] == 0 && cfg->dual) args[5] = args[1];
    const cute_call_arg *C = &args[2];
    int64_t l = C->ndim == 3 ? C->shape[2] : 1; /* batches */
    if (s == CUTE_OK) s = check_layouts(args, cfg, err, n);
    bool fits = fits_index_bound(args);
    if (s == CUTE_OK && (cfg->dual || cfg->peer_mirror)) { /* B1's or the mirror's alignment and extents count too */
        cute_call_arg more[3] = {args[0], cfg->dual ? args[5] : args[1], cfg->dual ? args[2] : args[9]};
        cute_gemm_config other = *cfg;
        s = check_layouts(more, &other, err, n);
        if (other.align_bytes < cfg->align_bytes) cfg->align_bytes = other.align_bytes;
        fits = fits && fits_index_bound(more);
    }
    const entry *e = s == CUTE_OK ? pick(lib, variant, cfg, fits, l, mnk) : NULL;
    if (s == CUTE_OK && !e) s = CUTE_ERR_OOM, snprintf(err, n, "gemm: out of memory");
    if (s == CUTE_OK && !e->fn) s = CUTE_ERR_COMPILE, explain(lib, variant, cfg, l, mnk, err, n);
    pthread_mutex_unlock(&lib->lock);
    *status = s;
    return s == CUTE_OK ? e->fn : NULL;
}

/* stream's stream-K workspace (lock held), made or grown to `bytes`: its flags past flags_at
 * start at 0 (the kernels leave them so); a smaller one is retired, kernels in flight may
 * still use it.  One a stream: a stream runs its kernels one after another, two streams'
 * kernels sharing one slot would mix their partials. */
static cute_status streamk_workspace(cute_gemm_lib *lib, void *stream, size_t bytes, size_t flags_at,
                                     const cute_buffer **out)
{
    int i = 0;
    while (i < lib->nstreamk && lib->streamk[i].stream != stream) i++;
    if (i < lib->nstreamk && lib->streamk[i].bytes >= bytes) return *out = &lib->streamk[i].buf, CUTE_OK;
    cute_backend *b = cute_runtime_backend(lib->rt);
    cute_buffer fresh;
    cute_buffer *r = realloc(lib->retired, (size_t)(lib->nretired + 1) * sizeof *r);
    gemm_streamk_ws *w = i == lib->nstreamk ? realloc(lib->streamk, (size_t)(i + 1) * sizeof *w) : lib->streamk;
    void *zeros = calloc(1, bytes - flags_at);
    if (r) lib->retired = r;
    if (w) lib->streamk = w;
    cute_status s = r && w && zeros ? b->vt->alloc(b->self, bytes, &fresh) : CUTE_ERR_OOM;
    if (s == CUTE_OK) s = b->vt->upload(b->self, &fresh, flags_at, zeros, bytes - flags_at);
    free(zeros);
    if (s != CUTE_OK) return s;
    if (i < lib->nstreamk) lib->retired[lib->nretired++] = lib->streamk[i].buf;
    else lib->nstreamk++;
    lib->streamk[i] = (gemm_streamk_ws){.stream = stream, .buf = fresh, .bytes = bytes};
    return *out = &lib->streamk[i].buf, CUTE_OK;
}

/* the stream-K kernel's arguments 6 and 7 (the stream's workspace and flags; 5, the vector,
 * where the call has none one element of C's dtype in 16 bytes past the flags, unread: A's
 * first element was too short for a 1 x 1 A below C's element size); *ws, the caller's,
 * alive through the call, a copy of the workspace's buffer (the table may move once the
 * lock is let go) */
static cute_status streamk_args(cute_gemm_lib *lib, const cute_gemm_config *cfg, cute_call_arg *args, int *nargs,
                                void *stream, cute_buffer *ws, char *err, size_t n)
{
    int blocks = gemm_resident_blocks(lib->rt, 1, 384);
    size_t flags_at, bytes = gemm_streamk_workspace_bytes(&cfg->tiling, blocks, &flags_at);
    cute_dtype wd = CUTE_F32;
    if (cfg->variant != CUTE_GEMM_HOPPER) { /* SM80: up to two blocks an SM, slots of the accumulators' type */
        const cute_gemm_tiling *t = &cfg->tiling;
        wd = gemm_streamk_acc_dtype(cfg->dtype), blocks *= 2;
        int64_t slot = (int64_t)(t->bm ? t->bm : 256) * (t->bn ? t->bn : 256), row = GEMM_STREAMK_SM80_ROW;
        bytes = gemm_streamk_workspace_of((slot + row - 1) / row * row, cute_dtype_bytes(wd), blocks, &flags_at);
    }
    size_t spare = (bytes + 15) / 16 * 16; /* the stand-in vector's 16 bytes */
    const cute_buffer *at = NULL;
    pthread_mutex_lock(&lib->lock);
    cute_status s = streamk_workspace(lib, stream, spare + 16, flags_at, &at);
    if (s == CUTE_OK) *ws = *at;
    pthread_mutex_unlock(&lib->lock);
    if (s != CUTE_OK) return snprintf(err, n, "gemm stream-K: a workspace of %zu bytes: %s", bytes, cute_status_name(s)), s;
    if (*nargs == 5) /* no vector: the spare bytes stand in, unread */
        args[5] = cute_call_tensor(ws, spare, (cute_dtype)args[2].dtype, 1, (int64_t[]){1}, (int64_t[]){1});
    int64_t elems = (int64_t)(flags_at / (size_t)cute_dtype_bytes(wd)), row = GEMM_STREAMK_SM80_ROW;
    args[6] = cfg->variant == CUTE_GEMM_HOPPER
                  ? cute_call_tensor(ws, 0, wd, 1, (int64_t[]){elems}, (int64_t[]){1})
                  : cute_call_tensor(ws, 0, wd, 2, (int64_t[]){row, elems / row}, (int64_t[]){1, row});
    args[7] = cute_call_tensor(ws, flags_at, CUTE_U32, 1, (int64_t[]){blocks}, (int64_t[]){1});
    *nargs = 8;
    return CUTE_OK;
}

static cute_status run_pattern(cute_gemm_lib *lib, cute_gemm_variant variant, cute_gemm_config *cfg,
                               cute_call_arg *args, int nargs, void *stream, char *err, size_t n)
{
    cute_status s;
    const cute_fn *f = gemm_lib_pattern_fn(lib, variant, cfg, args, err, n, &s);
    if (!f) return s;
    cute_buffer ws; /* stream-K's workspace, as args[6] and [7] point at it */
    bool sk_variant = cfg->variant == CUTE_GEMM_HOPPER || cfg->variant == CUTE_GEMM_TENSOROP ||
                      cfg->variant == CUTE_GEMM_TENSOROP_SMEM;
    char why[1024]; /* the persistent SM80 kernel's tile counter lives in the stream-K flags */
    bool counter = gemm_sm80_dynamic(cfg, why, sizeof why) == 1;
    if (sk_variant && (cfg->tiling.schedule == CUTE_GEMM_SCHEDULE_STREAMK || counter) &&
        (s = streamk_args(lib, cfg, args, &nargs, stream, &ws, err, n)) != CUTE_OK)
        return s;
    s = cute_call(f, stream, nargs, args, why, sizeof why);
    if (s != CUTE_OK) snprintf(err, n, "gemm %s: %s", names[cfg->variant], why);
    return s;
}

cute_status cutec_gemm(cute_gemm_lib *lib, cute_gemm_variant variant, const cute_call_arg *A,
                       const cute_call_arg *B, const cute_call_arg *C, double alpha, double beta,
                       void *stream, char *err, size_t n)
{
    return cutec_gemm_ex(lib, variant, A, B, C, alpha, beta, NULL, NULL, stream, err, n);
}

/* the epilogue's vector: given where the epilogue has one (a rank-1 tensor of C's dtype,
 * unit stride, M or N long), and not otherwise */
static cute_status check_vector(const cute_gemm_epilogue *e, const cute_call_arg *v, const cute_call_arg *C,
                                char *err, size_t n)
{
    bool wanted = e && e->bias != CUTE_GEMM_BIAS_NONE;
    if (!wanted) return v ? invalid(err, n, "gemm: a vector argument but the epilogue has no bias") : CUTE_OK;
    int64_t len = C->shape[e->bias == CUTE_GEMM_BIAS_ROW ? 0 : 1];
    if (!v || v->kind != CUTE_ARG_TENSOR || v->ndim != 1 || v->dtype != C->dtype || v->shape[0] != len ||
        (len > 1 && v->stride[0] != 1))
        return invalid(err, n, "gemm: the epilogue's %s bias must be a unit-stride rank-1 tensor of C's dtype (%s), "
                       "%lld long (C's %s)", e->bias == CUTE_GEMM_BIAS_ROW ? "row" : "column",
                       cute_dtype_name((cute_dtype)C->dtype), (long long)len, e->bias == CUTE_GEMM_BIAS_ROW ? "M" : "N");
    return CUTE_OK;
}

cute_status cutec_gemm_ex(cute_gemm_lib *lib, cute_gemm_variant variant, const cute_call_arg *A,
                          const cute_call_arg *B, const cute_call_arg *C, double alpha, double beta,
                          const cute_gemm_epilogue *epilogue, const cute_call_arg *v, void *stream, char *err,
                          size_t n)
{
    return cutec_gemm_scaled(lib, variant, A, B, C, alpha, beta, NULL, epilogue, v, stream, err, n);
}

cute_status cutec_gemm_scaled(cute_gemm_lib *lib, cute_gemm_variant variant, const cute_call_arg *A,
                              const cute_call_arg *B, const cute_call_arg *C, double alpha, double beta,
                              const cute_gemm_scales *scales, const cute_gemm_epilogue *epilogue,
                              const cute_call_arg *v, void *stream, char *err, size_t n)
{
    bool scaled = scales && scales->kind != CUTE_GEMM_SCALE_NONE;
    bool fused = cute_gemm_epilogue_fused(epilogue);
    char scratch[512];
    if (!err || !n) err = scratch, n = sizeof scratch;
    err[0] = 0;
    if (!lib) return snprintf(err, n, "gemm: no library"), CUTE_ERR_INVALID;
    if ((unsigned)variant >= CUTE_GEMM_VARIANT_COUNT)
        return snprintf(err, n, "gemm: unknown variant %d", (int)variant), CUTE_ERR_INVALID;
    const cute_call_arg *in[3] = {A, B, C};
    cute_status s = check_operands(in, err, n);
    if (s == CUTE_OK) s = check_shapes(A, B, C, err, n);
    if (s == CUTE_OK) s = check_vector(fused ? epilogue : NULL, v, C, err, n);
    if (s == CUTE_OK && scales) s = gemm_scales_check(scales, A, B, err, n);
    if (s != CUTE_OK) return s;
    if (!isfinite(alpha) || !isfinite(beta))
        return invalid(err, n, "gemm: alpha (%g) and beta (%g) must be finite", alpha, beta);
    /* an integer result takes integer scales (cuBLAS's 32-bit integer compute does too) */
    if (C->dtype == CUTE_I32 && (alpha != floor(alpha) || beta != floor(beta)))
        return invalid(err, n, "gemm: an s32 C takes integral alpha and beta (got %g and %g)", alpha, beta);
    if (C->shape[0] == 0 || C->shape[1] == 0) return CUTE_OK; /* nothing to write */
    /* N or M at most 128: streamed once by the GEMV kernels, but for M of 32 to 128, or N of 8 to
     * 128 against M past 128, on sm_90 (the Hopper kernel's few-row and few-column tiles:
     * hopper_auto.c) */
    if (variant == CUTE_GEMM_AUTO && !fused && !scaled && !gemm_few_rows_to_hopper(lib->rt, A, B, C)) {
        char why[1024]; /* its messages are the GEMV kernels': the caller called gemm */
        s = cutec_gemm_skinny(lib->skinny, A, B, C, alpha, beta, stream, why, sizeof why);
        if (s != CUTE_OK && s != CUTE_ERR_UNSUPPORTED)
            snprintf(err, n, "gemm (M or N at most 128: the GEMV kernels): %s", why);
        if (s != CUTE_ERR_UNSUPPORTED) return s;
        s = CUTE_OK, err[0] = 0;
    }
    cute_call_arg args[10] = {*A, *B, *C, cute_call_float(alpha), cute_call_float(beta), v ? *v : *C};
    cute_gemm_config cfg = {.dtype = (cute_dtype)A->dtype, .c_dtype = (cute_dtype)C->dtype,
                            .batched = A->ndim == 3};
    if (fused) cfg.epilogue = *epilogue;
    if (!scaled) return run_pattern(lib, variant, &cfg, args, v && fused ? 6 : 5, stream, err, n);
    /* the scaled kernels take (A, B, C, alpha, beta, v, sa, sb, out, amax): where the call has
     * no v, out or amax, a tensor of the spec stands in, unread: sa's first element (not C's,
     * which the kernel writes) */
    cute_call_arg one = cute_call_tensor(scales->a->buf, scales->a->offset, CUTE_F32, 1, (int64_t[]){1}, (int64_t[]){1});
    if (!v) args[5] = one, args[5].dtype = C->dtype;
    args[6] = *scales->a, args[7] = *scales->b;
    args[8] = scales->out ? *scales->out : one, args[9] = scales->amax ? *scales->amax : one;
    cfg.scale = scales->kind, cfg.out_scale = scales->out != NULL, cfg.amax = scales->amax != NULL;
    return run_pattern(lib, variant == CUTE_GEMM_AUTO ? CUTE_GEMM_HOPPER : variant, &cfg, args, 10, stream, err, n);
}

/* the dual GEMM's B1 beside B0: the same dtype, shape and strides (so one kernel's layout
 * and alignment serve both) */
static cute_status check_b1(const cute_call_arg *B0, const cute_call_arg *B1, char *err, size_t n)
{
    if (!B1 || B1->kind != CUTE_ARG_TENSOR || !B1->buf)
        return invalid(err, n, "gemm swiglu: B1 must be a tensor");
    bool same = B1->dtype == B0->dtype && B1->ndim == B0->ndim;
    for (int i = 0; same && i < B0->ndim; i++) same = B1->shape[i] == B0->shape[i] && B1->stride[i] == B0->stride[i];
    if (!same)
        return invalid(err, n, "gemm swiglu: B1 must be laid out as B0 (the same dtype, shape (N,K) and strides)");
    return CUTE_OK;
}

cute_status cutec_gemm_swiglu(cute_gemm_lib *lib, const cute_call_arg *A, const cute_call_arg *B0,
                              const cute_call_arg *B1, const cute_call_arg *C, double alpha, double beta,
                              void *stream, char *err, size_t n)
{
    char scratch[512];
    if (!err || !n) err = scratch, n = sizeof scratch;
    err[0] = 0;
    if (!lib) return snprintf(err, n, "gemm swiglu: no library"), CUTE_ERR_INVALID;
    const cute_call_arg *in[3] = {A, B0, C};
    cute_status s = check_operands(in, err, n);
    if (s == CUTE_OK) s = check_shapes(A, B0, C, err, n);
    if (s == CUTE_OK) s = check_b1(B0, B1, err, n);
    if (s != CUTE_OK) return s;
    if (!isfinite(alpha) || !isfinite(beta))
        return invalid(err, n, "gemm swiglu: alpha (%g) and beta (%g) must be finite", alpha, beta);
    if (C->shape[0] == 0 || C->shape[1] == 0) return CUTE_OK; /* nothing to write */
    cute_call_arg args[6] = {*A, *B0, *C, cute_call_float(alpha), cute_call_float(beta), *B1};
    cute_gemm_config cfg = {.dtype = (cute_dtype)A->dtype, .c_dtype = (cute_dtype)C->dtype, .batched = A->ndim == 3,
                            .dual = true};
    /* the kernel of the library's target: tcgen05 on sm_100, wgmma elsewhere */
    cute_gemm_variant v = cute_runtime_target_arch(lib->rt) == 100 ? CUTE_GEMM_BLACKWELL : CUTE_GEMM_HOPPER;
    return run_pattern(lib, v, &cfg, args, 6, stream, err, n);
}

/* a flags tensor of cutec_gemm_peer (NULL: none): u32, rank 2, one flag at least for each of
 * C's 64 x 64 blocks, strides not negative (0: the blocks along that mode share a flag) */
static cute_status check_flags(const cute_call_arg *f, const char *which, const cute_call_arg *C, char *err, size_t n)
{
    int64_t rows = (C->shape[0] + CUTE_GEMM_FLAG_ROWS - 1) / CUTE_GEMM_FLAG_ROWS;
    int64_t cols = (C->shape[1] + CUTE_GEMM_FLAG_COLS - 1) / CUTE_GEMM_FLAG_COLS;
    if (!f) return CUTE_OK;
    bool ok = f->kind == CUTE_ARG_TENSOR && f->buf && f->dtype == CUTE_U32 && f->ndim == 2;
    if (ok && (f->shape[0] < rows || f->shape[1] < cols || f->stride[0] < 0 || f->stride[1] < 0)) ok = false;
    if (!ok)
        return invalid(err, n, "gemm peer: the %s flags must be a u32 rank-2 tensor of at least (%lld, %lld) "
                       "elements (C's 64 x 64 blocks), strides not negative", which, (long long)rows, (long long)cols);
    return CUTE_OK;
}

/* the mirror of cutec_gemm_peer (NULL: none): a tensor of C's dtype, shape and strides */
static cute_status check_mirror(const cute_call_arg *m, const cute_call_arg *C, char *err, size_t n)
{
    if (!m) return CUTE_OK;
    bool same = m->kind == CUTE_ARG_TENSOR && m->buf && m->dtype == C->dtype && m->ndim == C->ndim;
    for (int i = 0; same && i < C->ndim; i++) same = m->shape[i] == C->shape[i] && m->stride[i] == C->stride[i];
    if (!same)
        return invalid(err, n, "gemm peer: the mirror must be a tensor laid out as C (its dtype, shape (%lld, %lld) "
                       "and strides (%lld, %lld))", (long long)C->shape[0], (long long)C->shape[1],
                       (long long)C->stride[0], (long long)C->stride[1]);
    return CUTE_OK;
}

cute_status cute_gemm_peer_fn(cute_gemm_lib *lib, const cute_call_arg *A, const cute_call_arg *B, const cute_call_arg *C,
                              double alpha, double beta, const cute_gemm_peer *peer, const cute_fn **fn,
                              cute_call_arg args[CUTE_GEMM_PEER_ARGS], char *err, size_t n)
{
    char scratch[512];
    if (!err || !n) err = scratch, n = sizeof scratch;
    err[0] = 0;
    const cute_call_arg *in[3] = {A, B, C};
    cute_status s = lib ? check_operands(in, err, n) : invalid(err, n, "gemm peer: no library");
    if (s == CUTE_OK) s = check_shapes(A, B, C, err, n);
    if (s == CUTE_OK && (!peer || (!peer->wait && !peer->signal)))
        s = invalid(err, n, "gemm peer: no flags (a wait or a signal tensor, or call cutec_gemm)");
    if (s == CUTE_OK) s = check_flags(peer->wait, "wait", C, err, n);
    if (s == CUTE_OK) s = check_flags(peer->signal, "signal", C, err, n);
    if (s == CUTE_OK) s = check_mirror(peer->mirror, C, err, n);
    if (s == CUTE_OK && A->ndim != 2) s = invalid(err, n, "gemm peer: rank-2 operands (no batch)");
    if (s == CUTE_OK && (!isfinite(alpha) || !isfinite(beta)))
        s = invalid(err, n, "gemm peer: alpha (%g) and beta (%g) must be finite", alpha, beta);
    *fn = NULL;
    if (s != CUTE_OK) return s;
    /* a missing tensor: the other stands in, with the value 0 (no wait, no signal) */
    const cute_call_arg *w = peer->wait ? peer->wait : peer->signal, *sg = peer->signal ? peer->signal : peer->wait;
    cute_call_arg a[CUTE_GEMM_PEER_ARGS] = {*A, *B, *C, cute_call_float(alpha), cute_call_float(beta), *w,
                                            cute_call_int(peer->wait ? peer->wait_value : 0), *sg,
                                            cute_call_int(peer->signal ? peer->signal_value : 0),
                                            peer->mirror ? *peer->mirror : *C};
    memcpy(args, a, sizeof a);
    cute_gemm_config cfg = {.dtype = (cute_dtype)A->dtype, .c_dtype = (cute_dtype)C->dtype, .peer_flags = true,
                            .peer_mirror = peer->mirror != NULL};
    for (int i = 0; i < 2; i++) /* a mode of stride 0 compiles as a static 0 (dynamic strides are positive) */
        for (int m = 0; m < 2; m++) cfg.peer_broadcast |= (uint8_t)((i ? sg : w)->stride[m] == 0) << (2 * i + m);
    *fn = gemm_lib_pattern_fn(lib, CUTE_GEMM_HOPPER, &cfg, args, err, n, &s);
    return s;
}

cute_status cutec_gemm_peer(cute_gemm_lib *lib, const cute_call_arg *A, const cute_call_arg *B, const cute_call_arg *C,
                            double alpha, double beta, const cute_gemm_peer *peer, void *stream, char *err, size_t n)
{
    char scratch[512], why[1024];
    if (!err || !n) err = scratch, n = sizeof scratch;
    cute_call_arg args[CUTE_GEMM_PEER_ARGS];
    const cute_fn *f;
    cute_status s = cute_gemm_peer_fn(lib, A, B, C, alpha, beta, peer, &f, args, err, n);
    if (s != CUTE_OK) return s;
    s = cute_call(f, stream, CUTE_GEMM_PEER_ARGS, args, why, sizeof why);
    if (s != CUTE_OK) snprintf(err, n, "gemm peer: %s", why);
    return s;
}
