/* The GEMV library (cutec_gemv): checks a call and names what is wrong in words, picks the
 * kernel (A's major), the vector width (what every address, stride and extent allows) and
 * the number of K splits (enough blocks to stream the whole card), compiles each
 * configuration once and keeps the split-K workspace. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/cuda_driver.h"
#include "kernels/fn_cache.h"
#include "kernels/gemv/gemv_internal.h"

struct cute_gemv_lib {
    cute_runtime *rt;
    pthread_mutex_t lock;
    fn_cache fns;          /* the compiled configurations, cute_gemv_config keys */
    int splits;            /* cute_gemv_lib_splits */
    cute_gemv_config last; /* cute_gemv_lib_last */
    int last_splits;
    cute_buffer ws; /* the split-K workspace */
    size_t ws_bytes;
    cute_buffer zeros; /* K = 0: a zero column for A and x */
    size_t zeros_bytes;
    bool nondeterministic; /* cute_gemv_lib_deterministic(lib, false) */
    int mma_from;          /* cute_gemv_lib_mma_from */
    int l2_prefetch;       /* cute_gemv_lib_l2_prefetch */
    bool tile_at_a_time;   /* cute_gemv_lib_tile_at_a_time */
    int ahead;             /* cute_gemv_lib_ahead */
    int smem_stages;       /* cute_gemv_lib_smem_stages */
    int fma_decode;        /* cute_gemv_lib_fma_decode */
    bool tf32_bits;       /* cute_gemv_lib_tf32_bits */
    cute_buffer sums;      /* the atomic reduction's sums, zero between calls */
    size_t sums_bytes;
    bool sums_dirty;      /* a failed call may have left sums behind: zero them again */
    int one_launch;       /* cute_gemv_lib_one_launch (-1: the library's choice) */
    cute_buffer counts;   /* the one-launch form's counters, zero between calls */
    size_t counts_bytes;
    bool counts_dirty;    /* as sums_dirty */
    cute_buffer *retired; /* smaller workspaces that kernels in flight may still use */
    int nretired;
    cute_gemm_lib *gemm; /* many vectors on the Hopper GEMM (hopper.c), made on its first call */
    bool no_gemm;        /* cute_gemv_lib_hopper(lib, false) */
    bool last_gemm;      /* cute_gemv_lib_last_gemm */
};

/* fn_cache_same for cute_gemv_config keys */
static bool same_config(const void *x, const void *y)
{
    const cute_gemv_config *a = x, *b = y;
    return a->dtype == b->dtype && a->y_dtype == b->y_dtype && a->a_major == b->a_major &&
           a->vec == b->vec && a->split == b->split && gemv_nvec(a) == gemv_nvec(b) &&
           a->sf_vec == b->sf_vec && a->atomic == b->atomic && a->mma == b->mma &&
           a->many_splits == b->many_splits && a->l2_prefetch == b->l2_prefetch &&
           a->tile_at_a_time == b->tile_at_a_time && a->smem_stages == b->smem_stages &&
           gemv_ahead(a) == gemv_ahead(b) &&
           a->fma_decode == b->fma_decode &&
           a->tf32_bits == b->tf32_bits && a->skew == b->skew && a->one_launch == b->one_launch &&
           a->scale_words == b->scale_words && a->diag == b->diag && a->wide == b->wide &&
           a->min_blocks == b->min_blocks;
}

/* fn_cache_compile for cute_gemv_config keys */
static const cute_fn *compile_config(cute_runtime *rt, const void *cfg, const void *user, char *err,
                                     size_t n)
{
    (void)user;
    return cute_gemv_compile(rt, cfg, err, n);
}

cute_gemv_lib *cute_gemv_lib_new(cute_runtime *rt)
{
    cute_gemv_lib *lib = calloc(1, sizeof *lib);
    if (!lib) return NULL;
    lib->rt = rt;
    lib->mma_from = CUTE_GEMV_MMA_FROM;
    lib->smem_stages = -1;
    lib->l2_prefetch = -1;
    lib->fma_decode = -1;
    lib->one_launch = -1;
    lib->tf32_bits = true; /* f32 8-16 vectors +3-8 points of the copy on an H200 (session 38) */
    fn_cache_init(&lib->fns, sizeof(cute_gemv_config), same_config);
    pthread_mutex_init(&lib->lock, NULL);
    return lib;
}

void cute_gemv_lib_free(cute_gemv_lib *lib)
{
    if (!lib) return;
    fn_cache_free(&lib->fns);
    cute_backend *b = cute_runtime_backend(lib->rt);
    if (lib->ws_bytes) b->vt->free(b->self, &lib->ws);
    if (lib->zeros_bytes) b->vt->free(b->self, &lib->zeros);
    if (lib->sums_bytes) b->vt->free(b->self, &lib->sums);
    if (lib->counts_bytes) b->vt->free(b->self, &lib->counts);
    for (int i = 0; i < lib->nretired; i++) b->vt->free(b->self, &lib->retired[i]);
    free(lib->retired);
    cute_gemm_lib_free(lib->gemm);
    pthread_mutex_destroy(&lib->lock);
    free(lib);
}

bool cute_gemv_lib_splits(cute_gemv_lib *lib, int splits)
{
    if (!lib || splits < 0) return false;
    pthread_mutex_lock(&lib->lock);
    lib->splits = splits;
    pthread_mutex_unlock(&lib->lock);
    return true;
}

bool cute_gemv_lib_mma_from(cute_gemv_lib *lib, int vectors)
{
    if (!lib || vectors < 1 || vectors > CUTE_GEMV_MAX_VECTORS + 1) return false;
    pthread_mutex_lock(&lib->lock);
    lib->mma_from = vectors;
    pthread_mutex_unlock(&lib->lock);
    return true;
}

void cute_gemv_lib_deterministic(cute_gemv_lib *lib, bool deterministic)
{
    pthread_mutex_lock(&lib->lock);
    lib->nondeterministic = !deterministic;
    pthread_mutex_unlock(&lib->lock);
}

bool cute_gemv_lib_l2_prefetch(cute_gemv_lib *lib, int distance)
{
    if (!lib || distance < -1 || distance > CUTE_GEMV_MAX_L2_PREFETCH) return false;
    pthread_mutex_lock(&lib->lock);
    lib->l2_prefetch = distance;
    pthread_mutex_unlock(&lib->lock);
    return true;
}

void cute_gemv_lib_tile_at_a_time(cute_gemv_lib *lib, bool on)
{
    pthread_mutex_lock(&lib->lock);
    lib->tile_at_a_time = on;
    pthread_mutex_unlock(&lib->lock);
}

bool gemv_lib_tile_at_a_time(cute_gemv_lib *lib)
{
    pthread_mutex_lock(&lib->lock);
    bool on = lib->tile_at_a_time;
    pthread_mutex_unlock(&lib->lock);
    return on;
}

bool cute_gemv_lib_ahead(cute_gemv_lib *lib, int ahead)
{
    if (!lib || ahead < 0 || ahead > CUTE_GEMV_MAX_AHEAD) return false;
    pthread_mutex_lock(&lib->lock);
    lib->ahead = ahead;
    pthread_mutex_unlock(&lib->lock);
    return true;
}

int gemv_lib_ahead(cute_gemv_lib *lib)
{
    pthread_mutex_lock(&lib->lock);
    int d = lib->ahead;
    pthread_mutex_unlock(&lib->lock);
    return d;
}

bool cute_gemv_lib_smem_stages(cute_gemv_lib *lib, int stages)
{
    if (!lib || stages < -1 || stages == 1 || stages > CUTE_GEMV_MAX_SMEM_STAGES) return false;
    pthread_mutex_lock(&lib->lock);
    lib->smem_stages = stages;
    pthread_mutex_unlock(&lib->lock);
    return true;
}

int gemv_lib_smem_stages(cute_gemv_lib *lib)
{
    pthread_mutex_lock(&lib->lock);
    int d = lib->smem_stages;
    pthread_mutex_unlock(&lib->lock);
    int arch = cute_runtime_target_arch(lib->rt); /* cp.async: sm_80 on (0: the interpreter) */
    if (arch && arch < 80) return 0;
    return d < 0 ? 0 : d; /* the library's choice: none (bench/RESULTS.md, gemv6) */
}

bool cute_gemv_lib_fma_decode(cute_gemv_lib *lib, int level)
{
    if (!lib || level < -1 || level > CUTE_GEMV_MAX_FMA_DECODE) return false;
    pthread_mutex_lock(&lib->lock);
    lib->fma_decode = level;
    pthread_mutex_unlock(&lib->lock);
    return true;
}

int gemv_lib_fma_decode(cute_gemv_lib *lib)
{
    pthread_mutex_lock(&lib->lock);
    int d = lib->fma_decode;
    pthread_mutex_unlock(&lib->lock);
    /* the library's choice (-1) is for the bit decode before sm_100; sm_100a decodes e2m1 by
     * cvt and keeps level 0 unless asked (not measured there) */
    return d < 0 && cute_runtime_target_arch(lib->rt) >= 100 ? 0 : d;
}

/* (3x5x100000 on an H200, us a call: bf16 391 splits 6.0, 131 5.7-5.8; f32 782 7.2-8.2, 391
 * 5.7-6.1; bench/RESULTS.md, odd41) */
int cute_gemv_one_launch_splits(cute_dtype d)
{
    return cute_dtype_bits(d) == 16 ? 1 : 3;
}

bool cute_gemv_lib_one_launch(cute_gemv_lib *lib, int on)
{
    if (!lib || on < -1 || on > 1) return false;
    pthread_mutex_lock(&lib->lock);
    lib->one_launch = on;
    pthread_mutex_unlock(&lib->lock);
    return true;
}

void cute_gemv_lib_tf32_bits(cute_gemv_lib *lib, bool on)
{
    pthread_mutex_lock(&lib->lock);
    lib->tf32_bits = on;
    pthread_mutex_unlock(&lib->lock);
}

int gemv_lib_l2_prefetch(cute_gemv_lib *lib)
{
    pthread_mutex_lock(&lib->lock);
    int d = lib->l2_prefetch;
    pthread_mutex_unlock(&lib->lock);
    return d < 0 ? 0 : d; /* (the library's choice: none but in the skew form) */
}

void cute_gemv_lib_last(cute_gemv_lib *lib, cute_gemv_config *cfg, int *splits)
{
    pthread_mutex_lock(&lib->lock);
    if (cfg) *cfg = lib->last;
    if (splits) *splits = lib->last_splits;
    pthread_mutex_unlock(&lib->lock);
}

bool cute_gemv_lib_last_gemm(cute_gemv_lib *lib)
{
    pthread_mutex_lock(&lib->lock);
    bool on = lib->last_gemm;
    pthread_mutex_unlock(&lib->lock);
    return on;
}

void cute_gemv_lib_hopper(cute_gemv_lib *lib, bool on)
{
    pthread_mutex_lock(&lib->lock);
    lib->no_gemm = !on;
    pthread_mutex_unlock(&lib->lock);
}

/* the call on the Hopper GEMM kernel where it takes it (hopper.c); CUTE_ERR_UNSUPPORTED: the
 * GEMV kernels' */
static cute_status by_gemm(cute_gemv_lib *lib, const gemv_operands *o, double alpha, double beta, void *stream,
                           char *err, size_t n)
{
    if (!gemv_hopper_takes(lib->rt, o)) return CUTE_ERR_UNSUPPORTED;
    pthread_mutex_lock(&lib->lock);
    bool off = lib->no_gemm;
    if (!off && !lib->gemm) lib->gemm = cute_gemm_lib_new(lib->rt);
    cute_gemm_lib *gemm = lib->gemm;
    pthread_mutex_unlock(&lib->lock);
    if (off) return CUTE_ERR_UNSUPPORTED;
    if (!gemm) return snprintf(err, n, "gemv: out of memory"), CUTE_ERR_OOM;
    cute_status s = gemv_hopper_call(gemm, o, alpha, beta, stream, err, n);
    if (s == CUTE_ERR_UNSUPPORTED) return s;
    pthread_mutex_lock(&lib->lock);
    lib->last_gemm = true;
    pthread_mutex_unlock(&lib->lock);
    return s;
}

const cute_fn *gemv_lib_fn(cute_gemv_lib *lib, const cute_gemv_config *cfg, char *err, size_t n)
{
    pthread_mutex_lock(&lib->lock);
    const cute_fn *fn = fn_cache_fn(&lib->fns, lib->rt, cfg, compile_config, NULL, "gemv", err, n);
    lib->last = *cfg, lib->last_splits = 1, lib->last_gemm = false;
    pthread_mutex_unlock(&lib->lock);
    return fn;
}

/* a buffer of at least `bytes` in *buf (lock held), zero-filled when `zero`; a smaller one
 * is kept until the library is freed, since kernels in flight on another stream may still
 * use it */
static cute_status grow(cute_gemv_lib *lib, cute_buffer *buf, size_t *have, size_t bytes, bool zero,
                        char *err, size_t n)
{
    if (bytes <= *have) return CUTE_OK;
    cute_backend *b = cute_runtime_backend(lib->rt);
    cute_buffer *r = realloc(lib->retired, (size_t)(lib->nretired + 1) * sizeof *r);
    void *host = zero ? calloc(1, bytes) : NULL;
    if (r) lib->retired = r;
    if (!r || (zero && !host)) {
        free(host);
        return snprintf(err, n, "gemv: workspace: out of memory"), CUTE_ERR_OOM;
    }
    if (*have) lib->retired[lib->nretired++] = *buf;
    *have = 0;
    cute_status s = b->vt->alloc(b->self, bytes, buf);
    if (s == CUTE_OK && zero) s = b->vt->upload(b->self, buf, 0, host, bytes);
    free(host);
    if (s != CUTE_OK)
        return snprintf(err, n, "gemv: workspace of %zu bytes: %s", bytes, cute_status_name(s)), s;
    *have = bytes;
    return CUTE_OK;
}

/* K = 0 leaves y = beta y, but the JIT launches nothing for an empty A: the product is
 * computed with K = 1 from a zero column of A (M-major; the batches overlap, one element
 * apart, as strides must be positive) and a zero x */
static cute_status zero_k(cute_gemv_lib *lib, gemv_operands *o, char *err, size_t n)
{
    int64_t M = o->A.shape[0], N = o->x.shape[1], L = o->A.shape[2];
    cute_dtype d = (cute_dtype)o->A.dtype;
    cute_status s =
        grow(lib, &lib->zeros, &lib->zeros_bytes, (size_t)(M + N + L + 16) * 4, true, err, n);
    if (s != CUTE_OK) return s;
    o->A = cute_call_tensor(&lib->zeros, 0, d, 3, (int64_t[]){M, 1, L}, (int64_t[]){1, M, 1});
    o->x = cute_call_tensor(&lib->zeros, 0, d, 3, (int64_t[]){1, N, L}, (int64_t[]){1, 1, 1});
    o->major = 0, o->vec = 1;
    return CUTE_OK;
}

/* the SMs to fill: the device's, or a few on the interpreter */
static int sm_count(cute_runtime *rt)
{
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(rt));
    return cu ? cute_cuda_device(cu)->sm_count : 2;
}

int gemv_lib_sm_count(cute_gemv_lib *lib)
{
    return sm_count(lib->rt);
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* The tensor-core form's splits: its blocks (8 warps on 128 rows, or through the ring 4 on
 * 64), 16 warps an SM up to 64 vectors (8 past: registers; fewer where the ring's shared
 * memory holds fewer: gemv_mma_blocks), in one wave (a second, partial wave would leave SMs
 * idle for as long as the first took) */
static int64_t mma_splits(int64_t units, int64_t tiles, const cute_gemv_config *cfg, int sms, int arch)
{
    /* 16-bit through the ring: one split where the blocks of rows alone reach nine SMs in ten
     * (H200, 8192 rows, 8 vectors: 90.5% of the copy in one split, 71.5% in 2; split-K's second
     * kernel and workspace cost more than the SMs it leaves idle) */
    if (cfg->smem_stages && cfg->dtype != CUTE_F32 && units * 10 >= (int64_t)sms * 9) return 1;
    int64_t slots = (int64_t)sms * gemv_mma_blocks(cfg, arch), s = slots / units;
    return s < 1 ? 1 : s < tiles ? s : tiles;
}

/* How many splits of K: enough work for the whole card, no more splits than k-tiles.  The
 * K-major kernel wants about 16 warps an SM (each a few KB of loads in flight: about what
 * keeps an SM's share of the memory's bandwidth busy), splitting only below half that, as a
 * split costs a second kernel; the M-major kernel about 16 blocks of 128 threads an SM. */
static int64_t choose_splits(const gemv_operands *o, const cute_gemv_config *cfg, int sms, int arch)
{
    int64_t M = o->A.shape[0], K = o->A.shape[1], L = o->A.shape[2];
    int64_t rows_per_unit = o->major == 1 ? gemv_rows_per_warp(cfg) : 128 * (int64_t)o->vec;
    int64_t units = ceil_div(M, rows_per_unit) * L, want = (int64_t)sms * 16;
    int64_t tiles = ceil_div(K, cute_gemv_k_tile(cfg));
    if (cfg->mma) return mma_splits(ceil_div(M, gemv_mma_rows(cfg, arch)) * L, tiles, cfg, sms, arch);
    if (units >= want / 2 || tiles <= 1) return 1;
    /* the skew form's blocks of 8 warps take up to 105 registers a thread (3 vectors: 2
     * blocks an SM): its splits stop at 16 warps an SM, so that they run in one wave (3 blocks
     * an SM at 80 registers, 6 splits at 4097x3x8191, measured slower: bench/RESULTS.md, odd41) */
    int64_t s = cfg->skew ? want / units : ceil_div(want, units);
    return s < tiles ? s : tiles;
}

/* the tensor-core form's operands: f16, bf16 or f32, K-major A, 16-byte vectors */
static bool gemv_mma_able(const gemv_operands *o)
{
    cute_dtype d = (cute_dtype)o->A.dtype;
    return (d == CUTE_F16 || d == CUTE_BF16 || d == CUTE_F32) && o->major == 1 &&
           o->vec * cute_dtype_bytes(d) == 16;
}

bool cute_gemv_mma_for(cute_dtype d, int vectors)
{
    return (d == CUTE_F16 || d == CUTE_BF16 || d == CUTE_F32) && vectors >= CUTE_GEMV_MMA_FROM;
}

/* (lock held) */
static bool gemv_takes_mma(const cute_gemv_lib *lib, const gemv_operands *o)
{
    return gemv_mma_able(o) && o->x.shape[1] >= lib->mma_from;
}

/* the skew form's L2 prefetch, the library's choice: the next k-tile (4097x3x8191 bf16: 66.3% of
 * the copy against 63.9% without, 28.0 against 28.9 us; bench/RESULTS.md, odd42) */
#define GEMV_SKEW_L2_PREFETCH 1

/* K-major f16 or bf16 A whose rows' starts allow narrower vectors than 16 bytes: the skew
 * form's (4097x3x8191 bf16: 62.2% of the copy against 54.3 in vectors of one element; f32
 * kept those, 73.2 against the skew form's 62.6; bench/RESULTS.md, skinny38b) */
static bool skew_able(const gemv_operands *o)
{
    cute_dtype d = (cute_dtype)o->A.dtype;
    return o->major == 1 && (d == CUTE_F16 || d == CUTE_BF16) && o->vec * cute_dtype_bytes(d) < 16;
}

/* the configuration, splits and K extent per split of a call (lock held) */
static cute_gemv_config configure(cute_gemv_lib *lib, const gemv_operands *o, int64_t *splits,
                                  int64_t *kchunk)
{
    cute_gemv_config cfg = {.dtype = (cute_dtype)o->A.dtype,
                            .y_dtype = (cute_dtype)o->y.dtype,
                            .a_major = o->major,
                            .vec = o->vec,
                            .vectors = (int)o->x.shape[1],
                            .mma = gemv_takes_mma(lib, o),
                            .l2_prefetch = o->major == 1 && lib->l2_prefetch > 0 ? lib->l2_prefetch : 0};
    if (skew_able(o)) { /* 16-byte vectors between a scalar head and tail, no ring */
        cfg.skew = true, cfg.vec = 16 / cute_dtype_bytes(cfg.dtype);
        if (lib->l2_prefetch < 0) cfg.l2_prefetch = GEMV_SKEW_L2_PREFETCH;
    }
    int arch = cute_runtime_target_arch(lib->rt); /* the ring: asked for or the library's, where cp.async runs */
    int stages = lib->smem_stages < 0 ? cute_gemv_ring_default(&cfg) : lib->smem_stages;
    if (stages > 0 && (!arch || arch >= 80) && cute_gemv_ring_able(&cfg)) cfg.smem_stages = stages;
    /* the tensor-core form's ring within what a block of the target may have, the library's
     * stages or those asked for */
    cfg.smem_stages = cute_gemv_ring_fit(&cfg, arch);
    cfg.tf32_bits = lib->tf32_bits && cfg.mma && cfg.dtype == CUTE_F32;
    int64_t K = o->A.shape[1], tk = cute_gemv_k_tile(&cfg);
    int64_t s = lib->splits ? lib->splits : choose_splits(o, &cfg, sm_count(lib->rt), arch);
    /* split-K in one launch: asked for, or the library's on sm_90 on (its dependent launch) */
    bool one = cfg.a_major == 1 && !cfg.mma && (lib->one_launch < 0 ? arch >= 90 : lib->one_launch == 1);
    /* ... whose last block reads every split's parts: cute_gemv_one_launch_splits an SM at most */
    int64_t most = (int64_t)sm_count(lib->rt) * cute_gemv_one_launch_splits(cfg.dtype);
    if (one && !lib->splits && s > most) s = most;
    int64_t tiles = ceil_div(K, tk);
    if (s > tiles) s = tiles;
    *kchunk = tiles ? ceil_div(tiles, s ? s : 1) * tk : tk;
    *splits = K ? ceil_div(K, *kchunk) : 1; /* K = 0: one split of nothing, y = beta y */
    cfg.split = *splits != 1;
    cfg.atomic = cfg.split && lib->nondeterministic;
    cfg.one_launch = one && cfg.split;
    cfg.many_splits = cfg.split && !cfg.atomic && !cfg.one_launch && *splits > CUTE_GEMV_FEW_SPLITS;
    return cfg;
}

/* `bytes` zeroed bytes in *buf (lock held): the atomic reduction's sums (M*N*L f32), the
 * one-launch form's counters; *dirty: a failed call may have left them non-zero */
static cute_status zeroed(cute_gemv_lib *lib, cute_buffer *buf, size_t *have, bool *dirty, size_t bytes,
                          const char *what, char *err, size_t n)
{
    if (bytes > *have) *dirty = false; /* grow() zeroes what it makes */
    cute_status s = grow(lib, buf, have, bytes, true, err, n);
    if (s != CUTE_OK || !*dirty) return s;
    void *host = calloc(1, *have);
    cute_backend *b = cute_runtime_backend(lib->rt);
    s = host ? b->vt->upload(b->self, buf, 0, host, *have) : CUTE_ERR_OOM;
    free(host);
    if (s != CUTE_OK) return snprintf(err, n, "gemv: zeroing the %s: %s", what, cute_status_name(s)), s;
    *dirty = false;
    return CUTE_OK;
}

/* the call's arguments: the operands, the workspace (M,N,L,S), the atomic sums (M,N,L,1),
 * or (1,N,1,1) unread; skew, A's misalignment (argument 7); one launch, the counters (M L
 * of them: at least one a row group and batch) after it */
static cute_status arguments(cute_gemv_lib *lib, const gemv_operands *o,
                             const cute_gemv_config *cfg, int64_t splits, int64_t kchunk,
                             double alpha, double beta, cute_call_arg args[9], char *err, size_t n)
{
    int64_t M = o->A.shape[0], N = o->x.shape[1], L = o->A.shape[2];
    bool split = cfg->split;
    int64_t w[4] = {split ? M : 1, N, split ? L : 1, split && !cfg->atomic ? splits : 1};
    size_t bytes = (size_t)(w[0] * w[1] * w[2] * w[3]) * 4;
    cute_buffer *buf = cfg->atomic ? &lib->sums : &lib->ws;
    cute_status s = cfg->atomic ? zeroed(lib, &lib->sums, &lib->sums_bytes, &lib->sums_dirty, bytes, "sums", err, n)
                                : grow(lib, &lib->ws, &lib->ws_bytes, bytes, false, err, n);
    int64_t ncounts = M * L;
    if (s == CUTE_OK && cfg->one_launch)
        s = zeroed(lib, &lib->counts, &lib->counts_bytes, &lib->counts_dirty, (size_t)ncounts * 4, "counters", err, n);
    if (s != CUTE_OK) return s;
    if (cfg->one_launch)
        args[gemv_counts_arg(cfg)] = cute_call_tensor(&lib->counts, 0, CUTE_U32, 1, (int64_t[]){ncounts}, (int64_t[]){1});
    if (cfg->skew) { /* A[0,0,0]'s misalignment, in elements */
        uintptr_t at = (uintptr_t)o->A.buf->ptr + o->A.offset;
        args[7] = cute_call_int((int64_t)(at % 16 / (uintptr_t)cute_dtype_bytes(cfg->dtype)));
    }
    args[0] = o->A, args[1] = o->x, args[2] = o->y;
    /* compact; the static mode of one vector has stride 0, as CuTe's compact layouts give it */
    int64_t ws[4] = {1, N > 1 ? w[0] : 0, w[0] * w[1], w[0] * w[1] * w[2]};
    args[3] = cute_call_tensor(buf, 0, CUTE_F32, 4, w, ws);
    args[4] = cute_call_int(kchunk);
    args[5] = cute_call_float(alpha), args[6] = cute_call_float(beta);
    return CUTE_OK;
}

static cute_status gemv_call(cute_gemv_lib *lib, const cute_call_arg *A, const cute_call_arg *x,
                             const cute_call_arg *y, bool vectors, double alpha, double beta,
                             void *stream, char *err, size_t n)
{
    char scratch[512];
    if (!err || !n) err = scratch, n = sizeof scratch;
    err[0] = 0;
    if (!lib) return snprintf(err, n, "gemv: no library"), CUTE_ERR_INVALID;
    gemv_operands o;
    cute_status s = gemv_check(A, x, y, vectors, alpha, beta, &o, err, n);
    if (s != CUTE_OK) return s;
    if (o.A.dtype == CUTE_E2M1)
        return snprintf(err, n, "gemv: e2m1 A takes scales: cutec_gemv_nvfp4"), CUTE_ERR_INVALID;
    if (o.x.shape[1] > CUTE_GEMV_MAX_VECTORS && !gemv_mma_able(&o))
        return gemv_invalid(err, n, "gemv: %lld vectors: more than %d take the tensor cores, which need f16, "
                            "bf16 or f32, K-major A, and A's and x's rows 16-byte aligned (got %s, %s-major A, "
                            "%d-element vectors)", (long long)o.x.shape[1], CUTE_GEMV_MAX_VECTORS,
                            cute_dtype_name((cute_dtype)o.A.dtype), o.major ? "K" : "M", o.vec);
    if (o.A.shape[0] == 0 || o.A.shape[2] == 0) return CUTE_OK; /* nothing to write */
    if (vectors && (s = by_gemm(lib, &o, alpha, beta, stream, err, n)) != CUTE_ERR_UNSUPPORTED) return s;
    s = CUTE_OK, err[0] = 0;
    int64_t splits, kchunk;
    cute_call_arg args[9];
    pthread_mutex_lock(&lib->lock);
    if (o.A.shape[1] == 0) s = zero_k(lib, &o, err, n);
    cute_gemv_config cfg = configure(lib, &o, &splits, &kchunk);
    if (s == CUTE_OK) s = arguments(lib, &o, &cfg, splits, kchunk, alpha, beta, args, err, n);
    const fn_cache_entry *e =
        s == CUTE_OK ? fn_cache_get(&lib->fns, lib->rt, &cfg, compile_config, NULL) : NULL;
    if (s == CUTE_OK && !e) s = CUTE_ERR_OOM, snprintf(err, n, "gemv: out of memory");
    if (s == CUTE_OK && !e->fn) s = CUTE_ERR_COMPILE, snprintf(err, n, "%s", e->err);
    lib->last = cfg, lib->last_splits = (int)splits, lib->last_gemm = false;
    pthread_mutex_unlock(&lib->lock);
    if (s != CUTE_OK) return s;
    char why[1024];
    s = cute_call(e->fn, stream, gemv_nargs(&cfg), args, why, sizeof why);
    if (s != CUTE_OK) snprintf(err, n, "gemv: %s", why);
    if (s != CUTE_OK && (cfg.atomic || cfg.one_launch)) { /* the sums or counters may hold this call's */
        pthread_mutex_lock(&lib->lock);
        lib->sums_dirty |= cfg.atomic, lib->counts_dirty |= cfg.one_launch;
        pthread_mutex_unlock(&lib->lock);
    }
    return s;
}

cute_status cutec_gemv(cute_gemv_lib *lib, const cute_call_arg *A, const cute_call_arg *x,
                       const cute_call_arg *y, double alpha, double beta, void *stream, char *err,
                       size_t n)
{
    return gemv_call(lib, A, x, y, false, alpha, beta, stream, err, n);
}

cute_status cutec_gemv_vectors(cute_gemv_lib *lib, const cute_call_arg *A, const cute_call_arg *X,
                               const cute_call_arg *Y, double alpha, double beta, void *stream,
                               char *err, size_t n)
{
    return gemv_call(lib, A, X, Y, true, alpha, beta, stream, err, n);
}
