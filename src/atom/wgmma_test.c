/* wgmma atoms lane by lane, on the interpreter and (when there is one) the GPU: one
 * warpgroup copies A (64 x K) and B (N x K) from global memory into shared tiles laid out
 * by a GMMA atom (K- or MN-major, INTER / SW32 / SW64 / SW128), fences, issues the atom
 * through its emitter (descriptors from the shared layouts), commits, waits and writes every
 * thread's accumulators out.  Thread t's value v must be D[m][n] with (m, n) = CLayout(t, v)
 * and D = A B + C computed in double on the host from fresh random inputs; the RS atoms take
 * A from registers placed by their ALayout.  A descriptor built from a layout other than the
 * one the data was written with must give wrong results (checked), and so must a CLayout
 * off by one value.  Again with CUTEC_WGMMA_DESC=stage (each operand's descriptor built
 * once, the k-blocks' offsets added to it).  Every dtype: f16 and bf16 (both majors), tf32, the four fp8 pairs, s8
 * and u8. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/atom_table.h"
#include "cutec/jit.h"
#include "cutec/notation.h"
#include "cutec/numeric.h"
#include "cutec/smem.h"
#include "cutec/smem_atoms.h"
#include "cutec/sync.h"
#include "kernels/ew_ref.h"

typedef struct wg_case {
    const char *atom, *a_smem, *b_smem; /* the atom; the GMMA atoms of A's and B's shared tiles */
    const char *lie;                    /* B's atom the descriptor is told (a wrong one), or NULL */
} wg_case;

static const wg_case cases[] = {
    {"SM90_64x64x16_F32BF16BF16_SS", "Layout_K_SW128_Atom", "Layout_K_SW128_Atom", NULL},
    {"SM90_64x256x16_F32BF16BF16_SS", "Layout_MN_SW128_Atom", "Layout_MN_SW64_Atom", NULL},
    {"SM90_64x8x16_F32F16F16_SS", "Layout_K_INTER_Atom", "Layout_MN_INTER_Atom", NULL},
    {"SM90_64x24x16_F32F16F16_RS", NULL, "Layout_K_SW32_Atom", NULL},
    {"SM90_64x32x8_F32TF32TF32_SS_TN", "Layout_K_SW64_Atom", "Layout_K_SW128_Atom", NULL},
    {"SM90_64x16x8_F32TF32TF32_RS_TN", NULL, "Layout_K_INTER_Atom", NULL},
    {"SM90_64x40x32_F32E4M3E4M3_SS_TN", "Layout_K_SW128_Atom", "Layout_K_SW32_Atom", NULL},
    {"SM90_64x16x32_F32E4M3E5M2_SS_TN", "Layout_K_SW64_Atom", "Layout_K_SW64_Atom", NULL},
    {"SM90_64x16x32_F32E5M2E4M3_RS_TN", NULL, "Layout_K_SW128_Atom", NULL},
    {"SM90_64x8x32_F32E5M2E5M2_SS_TN", "Layout_K_INTER_Atom", "Layout_K_SW128_Atom", NULL},
    {"SM90_64x48x32_S32S8S8_SS_TN", "Layout_K_SW128_Atom", "Layout_K_SW32_Atom", NULL},
    {"SM90_64x24x32_S32U8S8_RS_TN", NULL, "Layout_K_SW64_Atom", NULL},
    {"SM90_64x16x32_S32U8U8_SS_TN", "Layout_K_INTER_Atom", "Layout_K_INTER_Atom", NULL},
    /* B written K-major SW32, its descriptor made from K-major INTER (the same 2 KiB,
     * arranged otherwise): must give wrong values */
    {"SM90_64x64x16_F32BF16BF16_SS", "Layout_K_SW128_Atom", "Layout_K_SW32_Atom", "Layout_K_INTER_Atom"},
};

typedef struct wg_plan {
    cute_mma_atom mma;
    const wg_case *k;
    int leave_out; /* misuse: 1 leaves out cute_warpgroup_arrive, 2 cute_warpgroup_wait */
    bool scheduled; /* a named barrier: the interpreter runs the warps one at a time */
    int na, nc; /* A values (RS) and accumulators per thread */
    bool zero;  /* cute_gemm's test: cute_gemm_zero into accumulators holding NaN */
} wg_plan;

static uint64_t seed;

/* --- the kernel ----------------------------------------------------------------------------- */

/* a shared tile of d laid out by GMMA atom `name`, as wide as the atom along K (a GEMM's
 * K tile), and its first (rows, K) block: the wgmma operand */
static cute_tensor smem_tile(cute_ctx *c, cute_smem_allocator *al, const char *name, cute_dtype d, int rows, int K)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_composed L = cute_smem_layout_gmma_tile(a, name, d, rows, K);
    cute_tensor t = cute_smem_alloc_tensor_composed(c, al, d, L, 16);
    char first[32];
    snprintf(first, sizeof first, "(%d,%d)", rows, K);
    cute_tiler T = cute_tiler_parse(a, first);
    t.layout = cute_composition(a, &t.layout, &T);
    return t;
}

/* the (rows, K) tile t as (128, rows K / 128): thread t's elements t n .. t n + n - 1 */
static cute_tensor by_thread(cute_ctx *c, cute_tensor t, int total)
{
    cute_layout by = cute_layout_fmt(cute_ctx_alg(c), "(128,%d):(%d,1)", total / 128, total / 128);
    cute_tiler T = cute_tiler_layout(&by);
    t.layout = cute_composition(cute_ctx_alg(c), &t.layout, &T);
    return CUTE_SLICE(c, t, cute_thread_idx(c, 0), CUTE_ALL);
}

static cute_tensor load_frag(cute_ctx *c, cute_tensor g, cute_dtype d, int n)
{
    cute_tensor r = cute_make_rmem_tensor(c, d, cute_layout_fmt(cute_ctx_alg(c), "%d:1", n));
    cute_autovec_copy(c, CUTE_SLICE(c, g, cute_thread_idx(c, 0), CUTE_ALL), r);
    return r;
}

static void wg_kernel(cute_ctx *c, cute_tensor gA, cute_tensor gB, cute_tensor gC, cute_tensor gD)
{
    const wg_plan *p = cute_ctx_user(c);
    const cute_mma_atom *m = &p->mma;
    cute_dtype ta = (cute_dtype)m->a_type, tb = (cute_dtype)m->b_type;
    cute_smem_allocator al = cute_smem_allocator_new(c);
    cute_tensor sB = smem_tile(c, &al, p->k->b_smem, tb, m->n, m->k), sA = sB, rA = sB;
    cute_autovec_copy(c, by_thread(c, gB, m->n * m->k), by_thread(c, sB, m->n * m->k));
    if (p->k->a_smem) {
        sA = smem_tile(c, &al, p->k->a_smem, ta, 64, m->k);
        cute_autovec_copy(c, by_thread(c, gA, 64 * m->k), by_thread(c, sA, 64 * m->k));
    } else {
        rA = load_frag(c, gA, ta, p->na);
    }
    cute_fence_proxy_async_shared_cta(c); /* the generic proxy's writes, read by the async proxy */
    if (p->scheduled) cute_named_barrier_sync(c, 1, 128);
    else cute_barrier(c);
    if (p->k->lie) { /* the same bytes, described by another atom's layout */
        cute_tensor other = smem_tile(c, &al, p->k->lie, tb, m->n, m->k);
        sB.layout = other.layout, sB.sw = other.sw;
    }
    cute_tensor acc = load_frag(c, gC, (cute_dtype)m->c_type, p->nc);
    if (p->leave_out != 1) cute_warpgroup_arrive(c);
    m->emit(c, m, acc, p->k->a_smem ? sA : rA, sB, acc);
    cute_warpgroup_commit_batch(c);
    if (p->leave_out != 2) cute_warpgroup_wait(c, 0);
    cute_autovec_copy(c, acc, CUTE_SLICE(c, gD, cute_thread_idx(c, 0), CUTE_ALL));
}

static void wg_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(128)}};
    CUTE_LAUNCH(c, wg_kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor, arg[3].tensor);
}

/* --- host side --------------------------------------------------------------------------------- */

/* a value exact in d: k/8 for k in [-32, 32) (integers: k; u8: k + 32) */
static double sample(cute_dtype d)
{
    int k = (int)((ew_random(&seed) + 2.0) * 16.0) - 32;
    if (k == 0) k = 33;
    return cute_dtype_is_float(d) ? k / 8.0 : d == CUTE_U8 ? (double)(k + 32) : (double)k;
}

/* element i of a host array of d: write v (as d holds it), give back what it holds */
static double store(cute_dtype d, void *h, int64_t i, double v)
{
    uint8_t *b = h;
    switch (d) {
    case CUTE_F16: ((uint16_t *)h)[i] = cute_f64_to_f16(v); return cute_f16_to_f32(((uint16_t *)h)[i]);
    case CUTE_BF16: ((uint16_t *)h)[i] = cute_f64_to_bf16(v); return cute_bf16_to_f32(((uint16_t *)h)[i]);
    case CUTE_TF32: ((float *)h)[i] = cute_f64_to_tf32(v); return ((float *)h)[i];
    case CUTE_F32: ((float *)h)[i] = (float)v; return ((float *)h)[i];
    case CUTE_E4M3: b[i] = cute_f64_to_e4m3(v); return cute_e4m3_to_f32(b[i]);
    case CUTE_E5M2: b[i] = cute_f64_to_e5m2(v); return cute_e5m2_to_f32(b[i]);
    case CUTE_I8: ((int8_t *)h)[i] = (int8_t)v; return ((int8_t *)h)[i];
    case CUTE_U8: b[i] = (uint8_t)v; return b[i];
    default: ((int32_t *)h)[i] = (int32_t)v; return ((int32_t *)h)[i];
    }
}

static double load(cute_dtype d, const void *h, int64_t i)
{
    return d == CUTE_I32 ? ((const int32_t *)h)[i] : ((const float *)h)[i];
}

typedef struct wg_bufs {
    cute_buffer b[4];
    void *h[4];
    size_t bytes[4];
} wg_bufs;

static bool alloc_bufs(cute_backend *be, wg_bufs *B, const size_t *bytes)
{
    memset(B, 0, sizeof *B);
    for (int i = 0; i < 4; i++) {
        B->bytes[i] = bytes[i];
        B->h[i] = calloc(1, bytes[i]);
        if (!B->h[i] || be->vt->alloc(be->self, bytes[i], &B->b[i]) != CUTE_OK) return false;
    }
    return true;
}

static void free_bufs(cute_backend *be, wg_bufs *B)
{
    for (int i = 0; i < 4; i++) {
        if (B->b[i].ptr) be->vt->free(be->self, &B->b[i]);
        free(B->h[i]);
    }
}

static cute_call_arg arg2(wg_bufs *B, int i, cute_dtype d, int64_t rows, int64_t cols, bool row_major)
{
    static int64_t shp[4][2], str[4][2];
    shp[i][0] = rows, shp[i][1] = cols;
    str[i][0] = row_major ? cols : 1, str[i][1] = row_major ? 1 : rows;
    return cute_call_tensor(&B->b[i], 0, d, 2, shp[i], str[i]);
}

static int vals(cute_alg *a, const cute_layout *tv)
{
    cute_layout v = cute_get(a, tv, 1);
    return (int)cute_size(a, &v).v;
}

typedef struct wg_mats {
    int M, N, K;
    double *A, *B, *C; /* column-major (m,k), (n,k), (m,n) */
} wg_mats;

/* the inputs: A (64, K) column-major, or by ALayout (RS); B (N, K) column-major; C by
 * CLayout; fresh random values of each type */
static void fill(cute_alg *a, const wg_plan *p, wg_mats *X, wg_bufs *B)
{
    const cute_mma_atom *m = &p->mma;
    for (int i = 0; i < X->N * X->K; i++) X->B[i] = store((cute_dtype)m->b_type, B->h[1], i, sample((cute_dtype)m->b_type));
    if (p->k->a_smem)
        for (int i = 0; i < X->M * X->K; i++)
            X->A[i] = store((cute_dtype)m->a_type, B->h[0], i, sample((cute_dtype)m->a_type));
    else
        for (int t = 0; t < 128; t++)
            for (int v = 0; v < p->na; v++) {
                int64_t at = cute_layout_eval(a, &m->a_tv, cute_i(t + 128 * v)).v;
                X->A[at] = store((cute_dtype)m->a_type, B->h[0], t * p->na + v, sample((cute_dtype)m->a_type));
            }
    for (int t = 0; t < 128; t++)
        for (int v = 0; v < p->nc; v++) {
            int64_t at = cute_layout_eval(a, &m->c_tv, cute_i(t + 128 * v)).v;
            X->C[at] = store((cute_dtype)m->c_type, B->h[2], t * p->nc + v, sample((cute_dtype)m->c_type));
        }
}

/* values of D that differ from A B + C, thread t's value v read at CLayout(t, v + shift) */
enum { WG_TERMS = 33 }; /* C and one instruction's products (fp8: k 32) */

/* The exponent an fp8 value aligns by: its own, no lower than its type's least normal one */
static int fp8_exp(double x, cute_dtype d)
{
    int e, emin = d == CUTE_E4M3 ? -6 : d == CUTE_E5M2 ? -14 : -126;
    frexp(x, &e);
    return e - 1 < emin ? emin : e - 1;
}

/* D of an fp8 wgmma as the H200 sums it (fitted to its recordings, src/interp/wgmma_fp8_sum.c
 * and interp/wgmma_fp8_test): terms[0] is C, then the K products; each term truncated toward
 * zero at 2^(emax - 13), emax the largest of C's exponent and the products' a- plus
 * b-exponents; their exact sum truncated at 2^(max(emax, its exponent) - 13).  (The other
 * types' sums are exact: the test's values are multiples of 1/8.) */
static double fp8_sum(const double *terms, const int *exps, int n)
{
    int emax = INT32_MIN, e;
    for (int k = 0; k < n; k++)
        if (terms[k] != 0 && exps[k] > emax) emax = exps[k];
    if (emax == INT32_MIN) return 0;
    double s = 0, unit = ldexp(1, emax - 13);
    for (int k = 0; k < n; k++) s += trunc(terms[k] / unit) * unit;
    frexp(s, &e);
    unit = ldexp(1, (e - 1 > emax ? e - 1 : emax) - 13);
    return trunc(s / unit) * unit;
}

/* A B + C at D[m][n], as the hardware forms it */
static double reference(const wg_plan *p, const wg_mats *X, int64_t at, int mm, int n)
{
    cute_dtype ta = (cute_dtype)p->mma.a_type, tb = (cute_dtype)p->mma.b_type;
    bool fp8 = ta == CUTE_E4M3 || ta == CUTE_E5M2;
    double terms[WG_TERMS], ref = X->C[at];
    int exps[WG_TERMS];
    terms[0] = ref, exps[0] = fp8_exp(ref, CUTE_F32);
    for (int k = 0; k < X->K; k++) {
        double a = X->A[mm + X->M * k], b = X->B[n + X->N * k];
        terms[k + 1] = a * b, exps[k + 1] = fp8_exp(a, ta) + fp8_exp(b, tb), ref += a * b;
    }
    return fp8 ? fp8_sum(terms, exps, X->K + 1) : ref;
}

static int compare(cute_alg *a, const wg_plan *p, const wg_mats *X, const void *D, int shift, const char *what)
{
    int wrong = 0;
    for (int t = 0; t < 128; t++)
        for (int v = 0; v < p->nc; v++) {
            int64_t at = cute_layout_eval(a, &p->mma.c_tv, cute_i(t + 128 * ((v + shift) % p->nc))).v;
            int mm = (int)(at % X->M), n = (int)(at / X->M);
            double ref = reference(p, X, at, mm, n), got = load((cute_dtype)p->mma.c_type, D, t * p->nc + v);
            if (got != ref && wrong++ < 3 && !shift && !p->k->lie)
                fprintf(stderr, "%s: thread %d value %d (D[%d][%d]): got %.9g, want %.9g\n", what, t, v, mm, n, got, ref);
        }
    return wrong;
}

static cute_arg_spec spec(cute_dtype d, int64_t rows, int64_t cols, bool row_major)
{
    char lay[96];
    snprintf(lay, sizeof lay, "(%lld,%lld):(%lld,%lld)", (long long)rows, (long long)cols,
             (long long)(row_major ? cols : 1), (long long)(row_major ? 1 : rows));
    return cute_spec_tensor(d, lay, 16);
}

/* run the case: the number of D values off the reference (-1: it did not run); *shifted
 * gets the count under a CLayout one value off */
static int run_case(cute_runtime *rt, wg_plan *p, const char *what, int *shifted)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    const cute_mma_atom *m = &p->mma;
    cute_dtype ta = (cute_dtype)m->a_type, tb = (cute_dtype)m->b_type, tc = (cute_dtype)m->c_type;
    wg_mats X = {64, m->n, m->k, calloc(64 * 32, sizeof(double)), calloc(256 * 32, sizeof(double)),
                 calloc(64 * 256, sizeof(double))};
    bool rs = !p->k->a_smem;
    int64_t na = rs ? 128 * p->na : 64 * m->k;
    size_t bytes[4] = {(size_t)na * (size_t)cute_dtype_bytes(ta), (size_t)(X.N * X.K) * (size_t)cute_dtype_bytes(tb),
                       (size_t)(128 * p->nc) * 4, (size_t)(128 * p->nc) * 4};
    cute_backend *be = cute_runtime_backend(rt);
    wg_bufs B;
    int wrong = -1;
    cute_arg_spec specs[4] = {rs ? spec(ta, 128, p->na, true) : spec(ta, 64, m->k, false), spec(tb, X.N, X.K, false),
                              spec(tc, 128, p->nc, true), spec(tc, 128, p->nc, true)};
    char err[2048] = "";
    const cute_fn *f = cute_compile(rt, "wgmma_lanes", wg_host, p, 4, specs, err, sizeof err);
    CHECK(f != NULL, "%s: %s", what, err);
    if (f && X.A && X.B && X.C && alloc_bufs(be, &B, bytes)) {
        fill(&a, p, &X, &B);
        memset(B.h[3], 0xff, bytes[3]); /* poison: NaN / -1 */
        for (int i = 0; i < 4; i++) be->vt->upload(be->self, &B.b[i], 0, B.h[i], bytes[i]);
        cute_call_arg args[4] = {rs ? arg2(&B, 0, ta, 128, p->na, true) : arg2(&B, 0, ta, 64, m->k, false),
                                 arg2(&B, 1, tb, X.N, X.K, false), arg2(&B, 2, tc, 128, p->nc, true),
                                 arg2(&B, 3, tc, 128, p->nc, true)};
        cute_status s = cute_call(f, NULL, 4, args, err, sizeof err);
        if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
        CHECK(s == CUTE_OK, "%s: %s %s", what, err, be->vt->error(be->self));
        if (s == CUTE_OK && be->vt->download(be->self, B.h[3], &B.b[3], 0, bytes[3]) == CUTE_OK) {
            wrong = compare(&a, p, &X, B.h[3], 0, what);
            *shifted = compare(&a, p, &X, B.h[3], 1, what);
        }
        free_bufs(be, &B);
    }
    cute_fn_free(f);
    free(X.A), free(X.B), free(X.C);
    return wrong;
}

static void all_cases(cute_runtime *rt, const char *where, bool scheduled)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (scheduled && i % 4) continue; /* a sample, SS and RS, under the warp scheduler */
        wg_plan p = {.k = &cases[i], .scheduled = scheduled};
        cute_alg a;
        cute_alg_init(&a, NULL);
        CHECK(cute_mma_atom_named(&a, cases[i].atom, &p.mma), "%s", a.error);
        p.na = vals(&a, &p.mma.a_tv), p.nc = vals(&a, &p.mma.c_tv);
        char what[200];
        snprintf(what, sizeof what, "%s (A %s, B %s%s%s) on %s%s", cases[i].atom,
                 cases[i].a_smem ? cases[i].a_smem : "registers", cases[i].b_smem, cases[i].lie ? " described as " : "",
                 cases[i].lie ? cases[i].lie : "", where, scheduled ? ", warps one at a time" : "");
        int shifted = 0, wrong = run_case(rt, &p, what, &shifted);
        if (cases[i].lie)
            CHECK(wrong > 0, "%s: a descriptor of the wrong layout went unnoticed", what);
        else
            CHECK(wrong == 0, "%s: %d of %d accumulators are not A B + C", what, wrong, 128 * p.nc);
        CHECK(wrong < 0 || shifted > 0, "%s: a CLayout one value off went unnoticed", what);
    }
}

/* --- the same atom through a TiledMMA and cute_gemm: a 64 x 64 x 64 product, four k-blocks
 * of one shared K tile (the descriptors' start moves 32 bytes a block in the swizzle); an
 * RS atom takes A from a packed fragment (cute_make_fragment_A) loaded from A's tile ---- */

enum { GM = 64, GN = 64, GK = 64 };

static bool is_rs(const wg_case *k) { return strstr(k->atom, "_RS") != NULL; }

static void gemm_kernel(cute_ctx *c, cute_tensor gA, cute_tensor gB, cute_tensor gC)
{
    const wg_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_smem_allocator al = cute_smem_allocator_new(c);
    cute_tensor sA = smem_tile(c, &al, p->k->a_smem, CUTE_BF16, GM, GK), sB = smem_tile(c, &al, p->k->b_smem, CUTE_BF16, GN, GK);
    cute_autovec_copy(c, by_thread(c, gA, GM * GK), by_thread(c, sA, GM * GK));
    cute_autovec_copy(c, by_thread(c, gB, GN * GK), by_thread(c, sB, GN * GK));
    cute_fence_proxy_async_shared_cta(c);
    cute_barrier(c);
    cute_layout one = cute_layout_parse(a, "(1,1,1):(0,0,0)");
    cute_tiled_mma mma = cute_make_tiled_mma(a, &p->mma, &one, NULL, NULL, NULL);
    cute_thr_mma thr = cute_tiled_mma_slice(&mma, cute_thread_idx(c, 0));
    cute_tensor acc = cute_partition_fragment_C(c, thr, gC), tA = cute_partition_A(c, thr, sA);
    if (is_rs(p->k)) { /* A's values in the instruction's words, written before the fence */
        cute_tensor rA = cute_make_fragment_A(c, &mma, tA);
        cute_autovec_copy(c, tA, rA);
        tA = rA;
    }
    cute_fill(c, acc, p->zero ? NAN : 0);
    cute_warpgroup_arrive(c);
    if (p->zero) cute_gemm_zero(c, &mma, acc, tA, cute_partition_B(c, thr, sB));
    else cute_gemm(c, &mma, acc, tA, cute_partition_B(c, thr, sB), acc);
    cute_warpgroup_commit_batch(c);
    cute_warpgroup_wait(c, 0);
    cute_autovec_copy(c, acc, cute_partition_C(c, thr, gC));
}

/* the occurrences of needle in f's CUDA C (-1: no code) */
static int in_code(const cute_fn *f, const char *needle)
{
    char *src = NULL, err[256];
    if (cute_fn_code(f, "cuda", "sm_90a", &src, err, sizeof err) != CUTE_OK) return -1;
    int n = 0;
    for (const char *s = src; (s = strstr(s, needle)); s++) n++;
    free(src);
    return n;
}

/* the atoms' own choice of descriptors a stage (cute_mma_atom.desc_stage) in run_gemm */
static bool atom_stage;

static void gemm_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(128)}};
    CUTE_LAUNCH(c, gemm_kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor);
}

/* D values off A B^T (float64); -1: it did not run.  zero: by cute_gemm_zero, the
 * accumulators holding NaN before (scale-d 0 must not read them) */
static int run_gemm(cute_runtime *rt, const wg_case *k, const char *where, bool zero)
{
    wg_plan p = {.k = k, .zero = zero};
    cute_alg a;
    cute_alg_init(&a, NULL);
    CHECK(cute_mma_atom_named(&a, k->atom, &p.mma), "%s", a.error);
    p.mma.desc_stage = atom_stage;
    cute_arg_spec specs[3] = {spec(CUTE_BF16, GM, GK, false), spec(CUTE_BF16, GN, GK, false), spec(CUTE_F32, GM, GN, false)};
    char err[2048] = "";
    const cute_fn *f = cute_compile(rt, "wgmma_gemm", gemm_host, &p, 3, specs, err, sizeof err);
    CHECK(f != NULL, "cute_gemm with %s on %s: %s", k->atom, where, err);
    /* one fence for the batch: a fence between its wgmmas would make ptxas wait for all
     * but the last of them at a wait_group 1 (each its own group) */
    int nf = f ? in_code(f, "wgmma.fence") : -1;
    CHECK(nf == 1, "cute_gemm with %s: %d wgmma.fence in its code (the caller's one)", k->atom, nf);
    /* with CUTEC_WGMMA_DESC=stage, or unset where the atom asks (desc_stage), a k-block's
     * descriptor is the operand's low word plus its offset (16-byte units), "(lo | LBO) +
     * ((u32)2)" in the code; never otherwise */
    const char *form = getenv("CUTEC_WGMMA_DESC");
    int adds = f ? in_code(f, "u) + ((u32)") : -1, per_stage = form ? !strcmp(form, "stage") : atom_stage;
    CHECK(per_stage ? adds > 0 : adds == 0, "cute_gemm with %s%s: %d k-block offsets added to a descriptor",
          k->atom, per_stage ? " (a stage)" : "", adds);
    cute_backend *be = cute_runtime_backend(rt);
    wg_bufs B;
    size_t bytes[4] = {GM * GK * 2, GN * GK * 2, GM * GN * 4, 4};
    int wrong = -1;
    double *A = calloc(GM * GK, sizeof *A), *Bm = calloc(GN * GK, sizeof *Bm);
    if (f && A && Bm && alloc_bufs(be, &B, bytes)) {
        for (int i = 0; i < GM * GK; i++) A[i] = store(CUTE_BF16, B.h[0], i, sample(CUTE_BF16));
        for (int i = 0; i < GN * GK; i++) Bm[i] = store(CUTE_BF16, B.h[1], i, sample(CUTE_BF16));
        memset(B.h[2], 0xff, bytes[2]);
        for (int i = 0; i < 3; i++) be->vt->upload(be->self, &B.b[i], 0, B.h[i], bytes[i]);
        cute_call_arg args[3] = {arg2(&B, 0, CUTE_BF16, GM, GK, false), arg2(&B, 1, CUTE_BF16, GN, GK, false),
                                 arg2(&B, 2, CUTE_F32, GM, GN, false)};
        cute_status s = cute_call(f, NULL, 3, args, err, sizeof err);
        if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
        CHECK(s == CUTE_OK, "cute_gemm with %s on %s: %s %s", k->atom, where, err, be->vt->error(be->self));
        if (s == CUTE_OK && be->vt->download(be->self, B.h[2], &B.b[2], 0, bytes[2]) == CUTE_OK) {
            wrong = 0;
            for (int n = 0; n < GN; n++)
                for (int m = 0; m < GM; m++) {
                    double ref = 0;
                    for (int kk = 0; kk < GK; kk++) ref += A[m + GM * kk] * Bm[n + GN * kk];
                    wrong += ((float *)B.h[2])[m + GM * n] != ref;
                }
        }
        free_bufs(be, &B);
    }
    free(A), free(Bm);
    cute_fn_free(f);
    return wrong;
}

static void gemm_cases(cute_runtime *rt, const char *where)
{
    static const wg_case k[] = {
        {"SM90_64x64x16_F32BF16BF16_SS", "Layout_K_SW128_Atom", "Layout_K_SW128_Atom", NULL},
        {"SM90_64x64x16_F32BF16BF16_SS", "Layout_MN_SW128_Atom", "Layout_K_SW64_Atom", NULL},
        {"SM90_64x64x16_F32BF16BF16_RS", "Layout_K_SW128_Atom", "Layout_K_SW128_Atom", NULL},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        for (int zero = 0; zero < 2; zero++) {
            int wrong = run_gemm(rt, &k[i], where, zero);
            CHECK(wrong == 0, "%s with %s (A %s, B %s) on %s: %d of %d values off A B^T",
                  zero ? "cute_gemm_zero (NaN before)" : "cute_gemm", k[i].atom, k[i].a_smem, k[i].b_smem, where,
                  wrong, GM * GN);
        }
}

/* a kernel without its fence, or without its wait, is refused at trace time, at the
 * user's line, as the user's mistake */
static void misuse(cute_runtime *rt)
{
    static const char *const want[3] = {"", "cute_warpgroup_arrive must come between them",
                                        "that is still in flight: a cute_warpgroup_wait"};
    for (int leave = 1; leave <= 2; leave++) {
        wg_plan p = {.k = &cases[0], .leave_out = leave};
        cute_alg a;
        cute_alg_init(&a, NULL);
        cute_mma_atom_named(&a, cases[0].atom, &p.mma);
        p.na = vals(&a, &p.mma.a_tv), p.nc = vals(&a, &p.mma.c_tv);
        cute_arg_spec specs[4] = {spec(CUTE_BF16, 64, 16, false), spec(CUTE_BF16, 64, 16, false),
                                  spec(CUTE_F32, 128, p.nc, true), spec(CUTE_F32, 128, p.nc, true)};
        char err[2048] = "";
        const cute_fn *f = cute_compile(rt, "wgmma_misuse", wg_host, &p, 4, specs, err, sizeof err);
        CHECK(!f && strstr(err, want[leave]) && strstr(err, "wgmma_test.c:") && !strstr(err, "internal"),
              "without its %s: %s", leave == 1 ? "fence" : "wait", err);
        cute_fn_free(f);
    }
}

int main(void)
{
    seed = (uint64_t)time(NULL) | 1;
    printf("wgmma_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interpreter: %s", err);
    all_cases(rt, "the interpreter", false);
    all_cases(rt, "the interpreter", true);
    gemm_cases(rt, "the interpreter");
    /* the descriptors built once a stage, the k-blocks' offsets added (wgmma_emit.c) */
    setenv("CUTEC_WGMMA_DESC", "stage", 1);
    all_cases(rt, "the interpreter, descriptors a stage", false);
    gemm_cases(rt, "the interpreter, descriptors a stage");
    /* the atom's own choice, and the variable over it */
    unsetenv("CUTEC_WGMMA_DESC");
    atom_stage = true;
    gemm_cases(rt, "the interpreter, the atom's descriptors a stage");
    setenv("CUTEC_WGMMA_DESC", "each", 1);
    gemm_cases(rt, "the interpreter, CUTEC_WGMMA_DESC=each over the atom's choice");
    unsetenv("CUTEC_WGMMA_DESC");
    atom_stage = false;
    misuse(rt);
    cute_runtime_free(rt);
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no GPU: the wgmma atoms ran on the interpreter only");
        return CHECK_DONE("atom wgmma");
    }
    all_cases(rt, "the GPU", false);
    gemm_cases(rt, "the GPU");
    setenv("CUTEC_WGMMA_DESC", "stage", 1);
    gemm_cases(rt, "the GPU, descriptors a stage");
    unsetenv("CUTEC_WGMMA_DESC");
    cute_runtime_free(rt);
    return CHECK_DONE("atom wgmma");
}
