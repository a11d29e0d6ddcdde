/* Every atom lane by lane: one warp runs the atom's instruction with distinct inputs in
 * every lane, and every lane's fragment is checked against what the atom's TV layouts say.
 *
 *   MMA: value v of thread t of A holds A[a_tv(t, v)] (column-major (m,k)), likewise B and
 *   C; D = A B + C is computed in double on the host, and lane t's value v of D must be
 *   D[c_tv(t, v)].  A wrong TV layout puts values where the hardware does not read them:
 *   a deliberately permuted A layout must fail (checked here).
 *   ldmatrix: shared memory holds element e = e; lane t's value v must be dst_tv(t, v).
 *   stmatrix: lane t's value v holds a number; shared element src_tv(t, v) must get it.
 *   cp.async: each lane copies its 4/8/16 bytes; under a false predicate they are zero.
 *
 * It runs on the interpreter (CI) and, when a GPU is there, on the GPU (else skipped,
 * visibly).  Atoms whose value types cutec lacks (tf32, fp8) and rows newer than the GPU
 * are skipped with their reason. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/atom_table.h"
#include "cutec/cuda_c.h"
#include "cutec/inst.h"
#include "cutec/interp.h"
#include "cutec/jit.h"
#include "cutec/notation.h"
#include "cutec/numeric.h"
#include "cutec/nvrtc.h"
#include "cutec/smem.h"
#include "kernels/ew_ref.h"

typedef struct lane_case {
    cute_mma_atom mma;
    cute_copy_atom copy;
    bool is_mma, zfill;
    int na, nb, nc; /* values per thread (copies: nc is the register side's) */
} lane_case;

static int vals_of(cute_alg *a, const cute_layout *tv)
{
    cute_layout v = cute_get(a, tv, 1);
    return (int)cute_size(a, &v).v;
}

/* --- the kernels ------------------------------------------------------------------------ */

static const lane_case *cur; /* the case being traced */

/* thread t's n values of a (32, n):(n, 1) global tensor into new registers of d */
static cute_tensor load_frag(cute_ctx *c, cute_tensor g, cute_dtype d, int n)
{
    cute_tensor r = cute_make_rmem_tensor(c, d, cute_layout_fmt(cute_ctx_alg(c), "%d:1", n));
    cute_autovec_copy(c, CUTE_SLICE(c, g, cute_thread_idx(c, 0), CUTE_ALL), r);
    return r;
}

static void mma_kernel(cute_ctx *c, cute_tensor gA, cute_tensor gB, cute_tensor gC, cute_tensor gD)
{
    const lane_case *k = cur;
    const cute_mma_atom *m = &k->mma;
    cute_tensor rA = load_frag(c, gA, (cute_dtype)m->a_type, k->na);
    cute_tensor rB = load_frag(c, gB, (cute_dtype)m->b_type, k->nb);
    cute_tensor rC = load_frag(c, gC, (cute_dtype)m->c_type, k->nc);
    cute_tensor rD = cute_make_rmem_tensor(c, (cute_dtype)m->c_type, cute_layout_fmt(cute_ctx_alg(c), "%d:1", k->nc));
    m->emit(c, m, rD, rA, rB, rC);
    cute_autovec_copy(c, rD, CUTE_SLICE(c, gD, cute_thread_idx(c, 0), CUTE_ALL));
}

/* the atom's elements in shared memory, laid out by tv: thread t's values at (t, _) */
static cute_tensor smem_view(cute_ctx *c, cute_tensor s, const cute_layout *tv)
{
    cute_tensor v = s;
    v.layout = *tv;
    return CUTE_SLICE(c, v, cute_thread_idx(c, 0), CUTE_ALL);
}

/* ldmatrix: gS (the atom's elements) -> shared -> ldmatrix -> gD (32, n) */
static void ldsm_kernel(cute_ctx *c, cute_tensor gS, cute_tensor gD)
{
    const lane_case *k = cur;
    cute_dtype d = (cute_dtype)k->copy.dtype;
    int total = 32 * k->nc;
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_tensor s = cute_smem_alloc_tensor(c, &A, d, cute_layout_fmt(cute_ctx_alg(c), "%d:1", total), 16);
    cute_tensor flat = s, gflat = gS;
    flat.layout = gflat.layout = cute_layout_fmt(cute_ctx_alg(c), "(32,%d):(%d,1)", k->nc, k->nc);
    cute_autovec_copy(c, CUTE_SLICE(c, gflat, cute_thread_idx(c, 0), CUTE_ALL),
                      CUTE_SLICE(c, flat, cute_thread_idx(c, 0), CUTE_ALL));
    cute_barrier(c);
    cute_tensor r = cute_make_rmem_tensor(c, d, cute_layout_fmt(cute_ctx_alg(c), "%d:1", k->nc));
    k->copy.emit(c, &k->copy, smem_view(c, s, &k->copy.src_tv), r, 0);
    cute_autovec_copy(c, r, CUTE_SLICE(c, gD, cute_thread_idx(c, 0), CUTE_ALL));
}

/* stmatrix: gR (32, n) -> registers -> stmatrix -> shared -> gD (the atom's elements) */
static void stsm_kernel(cute_ctx *c, cute_tensor gR, cute_tensor gD)
{
    const lane_case *k = cur;
    cute_dtype d = (cute_dtype)k->copy.dtype;
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_tensor s = cute_smem_alloc_tensor(c, &A, d, cute_layout_fmt(cute_ctx_alg(c), "%d:1", 32 * k->nc), 16);
    cute_tensor r = load_frag(c, gR, d, k->nc);
    k->copy.emit(c, &k->copy, r, smem_view(c, s, &k->copy.dst_tv), 0);
    cute_barrier(c);
    cute_tensor flat = s, gflat = gD;
    flat.layout = gflat.layout = cute_layout_fmt(cute_ctx_alg(c), "(32,%d):(%d,1)", k->nc, k->nc);
    cute_autovec_copy(c, CUTE_SLICE(c, flat, cute_thread_idx(c, 0), CUTE_ALL),
                      CUTE_SLICE(c, gflat, cute_thread_idx(c, 0), CUTE_ALL));
}

/* cp.async: each lane its n elements of gS into shared (zero-filled where lane % 3 == 0 when
 * zfill), commit, wait, barrier, shared -> gD */
static void cp_async_kernel(cute_ctx *c, cute_tensor gS, cute_tensor gD)
{
    const lane_case *k = cur;
    cute_dtype d = (cute_dtype)k->copy.dtype;
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_tensor s = cute_smem_alloc_tensor(c, &A, d, cute_layout_fmt(cute_ctx_alg(c), "(32,%d):(%d,1)", k->nc, k->nc), 16);
    cute_int tid = cute_thread_idx(c, 0);
    cute_tensor src = CUTE_SLICE(c, gS, tid, CUTE_ALL), dst = CUTE_SLICE(c, s, tid, CUTE_ALL);
    if (k->zfill) {
        cute_val lane = cute_int_value(c, tid, CUTE_I32);
        cute_val r = cute_val_binop(c, CUTE_OP_REM, lane, cute_val_int(c, CUTE_I32, 3));
        cute_val keep = cute_val_cmp(c, CUTE_OP_NE, r, cute_val_int(c, CUTE_I32, 0));
        k->copy.emit(c, &k->copy, src, dst, keep.r);
    } else {
        k->copy.emit(c, &k->copy, src, dst, 0);
    }
    cute_cp_async_commit_group(c);
    cute_cp_async_wait_group(c, 0);
    cute_barrier(c);
    cute_autovec_copy(c, dst, CUTE_SLICE(c, gD, tid, CUTE_ALL));
}

static void host2(cute_ctx *c, const cute_arg *arg)
{
    const lane_case *k = cur;
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(32)}};
    if (strstr(k->copy.name, "LDSM"))
        CUTE_LAUNCH(c, ldsm_kernel, cfg, arg[0].tensor, arg[1].tensor);
    else if (strstr(k->copy.name, "STSM"))
        CUTE_LAUNCH(c, stsm_kernel, cfg, arg[0].tensor, arg[1].tensor);
    else
        CUTE_LAUNCH(c, cp_async_kernel, cfg, arg[0].tensor, arg[1].tensor);
}

static void host4(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(32)}};
    CUTE_LAUNCH(c, mma_kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor, arg[3].tensor);
}

/* --- running a case ---------------------------------------------------------------------- */

typedef struct buf {
    cute_buffer b;
    cute_dtype d;
    int64_t n;
    void *host;
} buf;

static uint64_t seed;
static bool last_skipped; /* the last compile was skipped (a type the CUDA C backend lacks) */
#define SKIPPED (-2)      /* run_mma: skipped, and said so */

/* a value of d that is exact in d, distinct-ish and small: k/8 for k in [-32, 32) (ints: k) */
static double sample(cute_dtype d)
{
    int k = (int)((ew_random(&seed) + 2.0) * 16.0) - 32; /* ew_random is in [-2, 2) */
    if (k == 0) k = 33;
    return cute_dtype_is_float(d) ? k / 8.0 : (d == CUTE_U8 ? (double)(k + 32) : (double)k);
}

static void put(buf *b, int64_t i, double v)
{
    uint8_t *h = b->host;
    switch (b->d) {
    case CUTE_F16: ((uint16_t *)h)[i] = cute_f64_to_f16(v); break;
    case CUTE_BF16: ((uint16_t *)h)[i] = cute_f64_to_bf16(v); break;
    case CUTE_F32: ((float *)h)[i] = (float)v; break;
    case CUTE_TF32: ((float *)h)[i] = cute_f64_to_tf32(v); break;
    case CUTE_E4M3: h[i] = cute_f64_to_e4m3(v); break;
    case CUTE_E5M2: h[i] = cute_f64_to_e5m2(v); break;
    case CUTE_F64: ((double *)h)[i] = v; break;
    case CUTE_I8: ((int8_t *)h)[i] = (int8_t)v; break;
    case CUTE_U8: h[i] = (uint8_t)v; break;
    case CUTE_I32: ((int32_t *)h)[i] = (int32_t)v; break;
    default: ((uint16_t *)h)[i] = (uint16_t)v; break;
    }
}

static double get(const buf *b, int64_t i)
{
    const uint8_t *h = b->host;
    switch (b->d) {
    case CUTE_F16: return cute_f16_to_f32(((const uint16_t *)h)[i]);
    case CUTE_BF16: return cute_bf16_to_f32(((const uint16_t *)h)[i]);
    case CUTE_F32: case CUTE_TF32: return ((const float *)h)[i];
    case CUTE_E4M3: return cute_e4m3_to_f32(h[i]);
    case CUTE_E5M2: return cute_e5m2_to_f32(h[i]);
    case CUTE_F64: return ((const double *)h)[i];
    case CUTE_I8: return ((const int8_t *)h)[i];
    case CUTE_U8: return h[i];
    case CUTE_I32: return ((const int32_t *)h)[i];
    default: return ((const uint16_t *)h)[i];
    }
}

/* v as a value of d holds it (float8 keeps 3 or 2 fraction bits) */
static double as_stored(cute_dtype d, double v)
{
    uint64_t bits = 0;
    buf one = {.d = d, .n = 1, .host = &bits};
    put(&one, 0, v);
    return get(&one, 0);
}

static bool make_buf(cute_backend *be, buf *b, cute_dtype d, int64_t n)
{
    b->d = d, b->n = n;
    b->host = calloc((size_t)n, (size_t)cute_dtype_bytes(d));
    return b->host && be->vt->alloc(be->self, (size_t)n * (size_t)cute_dtype_bytes(d), &b->b) == CUTE_OK;
}

static void free_bufs(cute_backend *be, buf *b, int n)
{
    for (int i = 0; i < n; i++) be->vt->free(be->self, &b[i].b), free(b[i].host);
}

static void upload(cute_backend *be, buf *b)
{
    be->vt->upload(be->self, &b->b, 0, b->host, (size_t)b->n * (size_t)cute_dtype_bytes(b->d));
}

static void download(cute_backend *be, buf *b)
{
    be->vt->download(be->self, b->host, &b->b, 0, (size_t)b->n * (size_t)cute_dtype_bytes(b->d));
}

/* a (32, n):(n, 1) tensor argument (or (n):(1) when rows == 0) over b */
static cute_call_arg frag_arg(buf *b, int64_t rows)
{
    static int64_t shp[8][2], str[8][2];
    static int k;
    k = (k + 1) % 8;
    shp[k][0] = rows ? rows : b->n, shp[k][1] = rows ? b->n / rows : 1;
    str[k][0] = rows ? b->n / rows : 1, str[k][1] = 1;
    return cute_call_tensor(&b->b, 0, b->d, 2, shp[k], str[k]);
}

static const cute_fn *compile(cute_runtime *rt, lane_case *k, int n, const cute_arg_spec *specs,
                        void (*host)(cute_ctx *, const cute_arg *), const char *what)
{
    char err[2048];
    cur = k;
    last_skipped = false;
    const cute_fn *f = cute_compile(rt, what, host, k, n, specs, err, sizeof err);
    if (!f && strstr(err, "no C type")) {
        char why[2300];
        snprintf(why, sizeof why, "%s: the CUDA C backend lacks its register type yet (%s)", what, err);
        SKIP(why);
        last_skipped = true;
        return NULL;
    }
    CHECK(f != NULL, "%s: %s", what, err);
    return f;
}

static bool call(cute_runtime *rt, const cute_fn *f, int n, cute_call_arg *args, const char *what)
{
    cute_backend *be = cute_runtime_backend(rt);
    char cerr[1024] = "";
    cute_status s = cute_call(f, NULL, n, args, cerr, sizeof cerr);
    if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s %s", what, cerr, be->vt->error(be->self));
    return s == CUTE_OK;
}

static int64_t at(cute_alg *a, const cute_layout *tv, int t, int v)
{
    return cute_layout_eval(a, tv, cute_i(t + 32 * v)).v;
}

static double poison(cute_dtype d) { return cute_dtype_is_float(d) ? NAN : 0x7fffffff; }

/* lane t's inputs placed by a_place (A) and the atom's B and C layouts; the number of D
 * values that are not the matrices' product (-1: it did not run) */
static int run_mma(cute_runtime *rt, lane_case *k, const cute_layout *a_place, const char *what)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    const cute_mma_atom *m = &k->mma;
    int64_t M = m->m, N = m->n, K = m->k;
    cute_dtype ta = (cute_dtype)m->a_type, tb = (cute_dtype)m->b_type, tc = (cute_dtype)m->c_type;
    double *Am = malloc(sizeof(double) * (size_t)(M * K)), *Bm = malloc(sizeof(double) * (size_t)(N * K)),
           *Cm = malloc(sizeof(double) * (size_t)(M * N));
    for (int64_t i = 0; i < M * K; i++) Am[i] = as_stored(ta, sample(ta));
    for (int64_t i = 0; i < N * K; i++) Bm[i] = as_stored(tb, sample(tb));
    for (int64_t i = 0; i < M * N; i++) Cm[i] = as_stored(tc, sample(tc));
    cute_backend *be = cute_runtime_backend(rt);
    buf b[4];
    memset(b, 0, sizeof b);
    make_buf(be, &b[0], ta, 32 * k->na), make_buf(be, &b[1], tb, 32 * k->nb);
    make_buf(be, &b[2], tc, 32 * k->nc), make_buf(be, &b[3], tc, 32 * k->nc);
    for (int t = 0; t < 32; t++) {
        for (int v = 0; v < k->na; v++) put(&b[0], t * k->na + v, Am[at(&a, a_place, t, v)]);
        for (int v = 0; v < k->nb; v++) put(&b[1], t * k->nb + v, Bm[at(&a, &m->b_tv, t, v)]);
        for (int v = 0; v < k->nc; v++) put(&b[2], t * k->nc + v, Cm[at(&a, &m->c_tv, t, v)]), put(&b[3], t * k->nc + v, poison(tc));
    }
    for (int i = 0; i < 4; i++) upload(be, &b[i]);
    char lay[4][48];
    int nv[4] = {k->na, k->nb, k->nc, k->nc};
    cute_arg_spec specs[4];
    for (int i = 0; i < 4; i++) {
        snprintf(lay[i], sizeof lay[i], "(32,%d):(%d,1)", nv[i], nv[i]);
        specs[i] = cute_spec_tensor(b[i].d, lay[i], cute_dtype_bytes(b[i].d) < 4 ? 4 : cute_dtype_bytes(b[i].d));
    }
    int wrong = -1;
    const cute_fn *f = compile(rt, k, 4, specs, host4, what);
    if (!f && last_skipped) wrong = SKIPPED;
    cute_call_arg args[4] = {frag_arg(&b[0], 32), frag_arg(&b[1], 32), frag_arg(&b[2], 32), frag_arg(&b[3], 32)};
    if (f && call(rt, f, 4, args, what)) {
        download(be, &b[3]);
        wrong = 0;
        double tol = tc == CUTE_F16 ? 1e-2 : 1e-6;
        for (int t = 0; t < 32; t++)
            for (int v = 0; v < k->nc; v++) {
                int64_t e = at(&a, &m->c_tv, t, v), mm = e % M, nn = e / M;
                double want = Cm[e];
                for (int64_t kk = 0; kk < K; kk++) want += Am[mm + M * kk] * Bm[nn + N * kk];
                double got = get(&b[3], t * k->nc + v);
                if (!(fabs(got - want) <= tol * (fabs(want) + 1))) wrong++;
            }
    }
    cute_fn_free(f);
    free_bufs(be, b, 4);
    free(Am), free(Bm), free(Cm);
    return wrong;
}

/* element i's value in a copy test: distinct where the type allows (i8: repeats every 255) */
static double elem(cute_dtype d, int64_t i)
{
    return d == CUTE_I8 ? (double)(i % 255 - 127) : (double)(i + 1);
}

/* ldmatrix / stmatrix / cp.async: the number of wrong elements (-1: it did not run) */
static int run_copy(cute_runtime *rt, lane_case *k, const char *what)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    cute_backend *be = cute_runtime_backend(rt);
    const cute_copy_atom *cp = &k->copy;
    bool st = strstr(cp->name, "STSM") != NULL, ld = strstr(cp->name, "LDSM") != NULL;
    int64_t total = 32 * (int64_t)k->nc;
    buf b[2];
    memset(b, 0, sizeof b);
    make_buf(be, &b[0], (cute_dtype)cp->dtype, total), make_buf(be, &b[1], (cute_dtype)cp->dtype, total);
    cute_dtype d = (cute_dtype)cp->dtype;
    for (int64_t i = 0; i < total; i++) put(&b[0], i, elem(d, i)), put(&b[1], i, d == CUTE_I8 ? 99 : 0xdead & 0x7fff);
    upload(be, &b[0]), upload(be, &b[1]);
    char lay[48];
    snprintf(lay, sizeof lay, "(32,%d):(%d,1)", k->nc, k->nc);
    cute_arg_spec specs[2] = {cute_spec_tensor(b[0].d, lay, 16), cute_spec_tensor(b[1].d, lay, 16)};
    int wrong = -1;
    const cute_fn *f = compile(rt, k, 2, specs, host2, what);
    cute_call_arg args[2] = {frag_arg(&b[0], 32), frag_arg(&b[1], 32)};
    if (f && call(rt, f, 2, args, what)) {
        download(be, &b[1]);
        wrong = 0;
        for (int t = 0; t < 32; t++)
            for (int v = 0; v < k->nc; v++) {
                int64_t i = t * k->nc + v;
                double got = ld ? get(&b[1], i) : get(&b[1], st ? at(&a, &cp->src_tv, t, v) : i);
                double want = ld ? elem(d, at(&a, &cp->dst_tv, t, v)) : st ? elem(d, i)
                              : k->zfill && t % 3 == 0 ? 0.0 : elem(d, i);
                if (got != want) wrong++;
            }
    }
    cute_fn_free(f);
    free_bufs(be, b, 2);
    return wrong;
}

/* --- the cases ------------------------------------------------------------------------- */

static void mma_cases(cute_runtime *rt, const char *where)
{
    for (int i = 0; i < cute_atom_count(); i++) {
        cute_atom_info r = cute_atom_info_at(i);
        if (!r.mma || !r.min_arch || r.traits.scope == CUTE_SCOPE_WARPGROUP) continue; /* wgmma_test.c */
        lane_case k;
        memset(&k, 0, sizeof k);
        cute_alg a;
        cute_alg_init(&a, NULL);
        char what[160];
        snprintf(what, sizeof what, "%s on %s", r.name, where);
        if (!cute_mma_atom_named(&a, r.name, &k.mma)) {
            char why[1400];
            snprintf(why, sizeof why, "%s: %s", what, a.error);
            SKIP(why);
            continue;
        }
        k.is_mma = true;
        k.na = vals_of(&a, &k.mma.a_tv), k.nb = vals_of(&a, &k.mma.b_tv), k.nc = vals_of(&a, &k.mma.c_tv);
        int wrong = run_mma(rt, &k, &k.mma.a_tv, what);
        CHECK(wrong == 0 || wrong == SKIPPED, "%s: %d of %d D values are not the product of the layouts' A, B, C", what, wrong, 32 * k.nc);
    }
}

/* the test can fail: A placed by a layout with two values swapped gives a wrong D */
static void permuted_fails(cute_runtime *rt, const char *where)
{
    lane_case k;
    memset(&k, 0, sizeof k);
    cute_alg a;
    cute_alg_init(&a, NULL);
    cute_mma_atom_named(&a, "SM80_16x8x16_F32BF16BF16F32_TN", &k.mma);
    k.is_mma = true, k.na = 8, k.nb = 4, k.nc = 4;
    cute_layout wrong_a = cute_layout_parse(&a, "((4,8),(2,2,2)):((32,1),(8,16,128))");
    char what[160];
    snprintf(what, sizeof what, "SM80_16x8x16_F32BF16BF16F32_TN with a permuted ALayout on %s", where);
    int wrong = run_mma(rt, &k, &wrong_a, what);
    CHECK(wrong > 0, "%s: a wrong A layout went unnoticed (%d wrong)", what, wrong);
}

/* the atoms that permute bytes (SM75_U8x16_LDSM_T_PRMT_*) take 8-bit types only */
static bool bytes_only(const cute_atom_info *r)
{
    return strstr(r->name, "_U8x") != NULL;
}

static void copy_cases(cute_runtime *rt, const char *where)
{
    static const cute_dtype types[] = {CUTE_U16, CUTE_BF16, CUTE_I8};
    for (int i = 0; i < cute_atom_count(); i++) {
        cute_atom_info r = cute_atom_info_at(i);
        if (r.mma || !r.min_arch) continue;
        for (int ty = bytes_only(&r) ? 2 : 0; ty < 3; ty++)
            for (int z = 0; z < (r.traits.pred == CUTE_PRED_ZFILL ? 2 : 1); z++) {
                lane_case k;
                memset(&k, 0, sizeof k);
                cute_alg a;
                cute_alg_init(&a, NULL);
                CHECK(cute_copy_atom_named(&a, r.name, types[ty], &k.copy), "%s", a.error);
                k.zfill = z;
                k.nc = vals_of(&a, strstr(r.name, "STSM") ? &k.copy.src_tv : &k.copy.dst_tv);
                char what[200];
                snprintf(what, sizeof what, "%s of %s%s on %s", r.name, cute_dtype_name(types[ty]),
                         z ? " (zero-filling a third of the lanes)" : "", where);
                int wrong = run_copy(rt, &k, what);
                CHECK(wrong == 0, "%s: %d of %d elements wrong", what, wrong, 32 * k.nc);
            }
    }
}

/* --- compile-only: the CUDA C of each atom through NVRTC, and its PTX instruction ------- */

/* a (rows, n):(n, 1) global tensor parameter of d */
static cute_tensor param(cute_ctx *c, const char *name, cute_dtype d, int n)
{
    cute_val p = cute_param_ptr(c, name, d);
    return cute_make_tensor(c, p, cute_layout_fmt(cute_ctx_alg(c), "(32,%d):(%d,1)", n, n), 16);
}

static void compile_only(cute_nvrtc *nv, lane_case *k, const cute_atom_info *r)
{
    cur = k;
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "lane");
    if (r->mma) {
        const cute_mma_atom *m = &k->mma;
        mma_kernel(c, param(c, "a", (cute_dtype)m->a_type, k->na), param(c, "b", (cute_dtype)m->b_type, k->nb),
                   param(c, "c", (cute_dtype)m->c_type, k->nc), param(c, "d", (cute_dtype)m->c_type, k->nc));
    } else {
        cute_tensor s = param(c, "s", (cute_dtype)k->copy.dtype, k->nc), d = param(c, "d", (cute_dtype)k->copy.dtype, k->nc);
        if (strstr(r->name, "LDSM")) ldsm_kernel(c, s, d);
        else if (strstr(r->name, "STSM")) stsm_kernel(c, s, d);
        else cp_async_kernel(c, s, d);
    }
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f != NULL, "%s: %s", r->name, cute_ctx_error(c));
    char *src = NULL, err[2048], arch[16];
    snprintf(arch, sizeof arch, "sm_%d%s", r->min_arch < 80 ? 80 : r->min_arch, r->min_arch >= 90 ? "a" : "");
    cute_cuda_c_opts co = {0};
    co.arch = arch;
    if (f && cute_cuda_c_emit((const cute_ir_func **)&f, 1, &co, &src, err, sizeof err) == CUTE_OK) {
        cute_nvrtc_output o;
        memset(&o, 0, sizeof o);
        cute_status s = cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = arch}, &o);
        CHECK(s == CUTE_OK, "%s for %s: %s", r->name, arch, o.log ? o.log : "");
        /* the PTX holds the row's instruction (cp.async rows: their mnemonic's stem; a row
         * named by its id: its mnemonic) */
        const cute_inst_info *I = cute_inst_info_of(cute_inst_lookup(r->inst));
        const char *mn = I && !strcmp(I->id, r->inst) ? I->mnemonic : r->inst;
        char stem[64];
        snprintf(stem, sizeof stem, "%.*s", (int)strcspn(mn, " "), mn);
        CHECK(s != CUTE_OK || (o.ptx && strstr(o.ptx, stem)), "%s: no %s in the PTX", r->name, stem);
        cute_nvrtc_output_free(&o);
    } else if (f && strstr(err, "no C type")) {
        char why[2200];
        snprintf(why, sizeof why, "%s: the CUDA C backend lacks its register type yet (%s)", r->name, err);
        SKIP(why);
    } else {
        CHECK(false, "%s: CUDA C: %s", r->name, f ? err : "not traced");
    }
    free(src);
    if (f) cute_ir_func_free(f);
    cute_ctx_free(c);
}

static void compile_all(void)
{
    cute_nvrtc *nv;
    char err[512];
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("no NVRTC: the atoms' CUDA C was not compiled");
        return;
    }
    for (int i = 0; i < cute_atom_count(); i++) {
        cute_atom_info r = cute_atom_info_at(i);
        lane_case k;
        memset(&k, 0, sizeof k);
        cute_alg a;
        cute_alg_init(&a, NULL);
        if (!r.min_arch || r.traits.scope == CUTE_SCOPE_WARPGROUP) continue; /* wgmma_test.c */
        if (r.mma ? !cute_mma_atom_named(&a, r.name, &k.mma) : !cute_copy_atom_named(&a, r.name, bytes_only(&r) ? CUTE_I8 : CUTE_BF16, &k.copy))
            continue; /* a type cutec lacks: skipped (and said so) by the lane cases */
        if (r.mma)
            k.na = vals_of(&a, &k.mma.a_tv), k.nb = vals_of(&a, &k.mma.b_tv), k.nc = vals_of(&a, &k.mma.c_tv);
        else
            k.nc = vals_of(&a, strstr(r.name, "STSM") ? &k.copy.src_tv : &k.copy.dst_tv), k.zfill = true;
        compile_only(nv, &k, &r);
    }
    cute_nvrtc_close(nv);
}

static void all_cases(cute_runtime *rt, const char *where)
{
    mma_cases(rt, where);
    permuted_fails(rt, where);
    copy_cases(rt, where);
}

int main(void)
{
    seed = (uint64_t)time(NULL) | 1;
    printf("atom_lane_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    compile_all();
    char err[512];
    cute_runtime *rt;
    cute_status made = cute_runtime_new("interp", &rt, err, sizeof err);
    CHECK(made == CUTE_OK, "interpreter: %s", err);
    if (made == CUTE_OK) {
        all_cases(rt, "the interpreter");
        cute_runtime_free(rt);
    }
    if (cute_runtime_new("cuda", &rt, err, sizeof err) == CUTE_OK) {
        all_cases(rt, "the GPU");
        cute_runtime_free(rt);
    } else {
        SKIP("no GPU: the atoms ran on the interpreter only");
    }
    return CHECK_DONE("atom_lane_test");
}
