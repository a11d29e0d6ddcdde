/* cutec compile|run|bench gemv: the GEMV kernels' code (no GPU needed), a run checked
 * element by element against a float64 reference with its time and bandwidth, and a
 * benchmark table against a device-to-device copy in the same process. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cutec/gemv.h"
#include "cutec/numeric.h"
#include "cutec/cuda_driver.h"
#include "gpu_timing.h"
#include "kernels/ew_ref.h"

typedef struct gemv_opts {
    cute_dtype dtype, y_dtype;
    int64_t M, K, L;
    int major;   /* A's unit-stride mode: 1 rows (K-major), 0 cols (M-major) */
    int splits;  /* 0: the library's choice */
    int vectors; /* 0: cutec_gemv; else cutec_gemv_vectors with N of them */
    int sf_vec;  /* nvfp4 (16) or mxfp8 (32): cutec_gemv_blockscaled; else 0 */
    bool atomic; /* --reduction atomic: split-K's non-deterministic reduction */
    int mma_from; /* --mma-from: the tensor-core form from this many vectors on */
    int l2_prefetch; /* --l2-prefetch D: K-major A's k-tile D ahead asked of L2 (0: none; -1,
                        unset: the library's choice) */
    bool tile_at_a_time; /* --tile-at-a-time 1: NVFP4's k-tiles loaded one at a time */
    int smem_stages;     /* --smem-stages N: the ring of N stages (0: none; -1 the library's) */
    int ahead;           /* --ahead N: NVFP4's register form, N k-tiles loaded ahead (0: the library's) */
    bool wide;           /* compile --wide 1: NVFP4's register form with wide k-tiles (cfg.wide) */
    int fma_decode;      /* --fma-decode 0|1: NVFP4's scales by their bits (-1: the library's) */
    int tf32_bits;       /* --tf32-bits 0|1: f32's 3xTF32 halves by cvt.rna or by bits (-1: the
                            library's: bits) */
    int hopper;          /* --hopper 0|1: many 16-bit vectors on the Hopper GEMM (1, the default) */
    int iters;
    const char *emit, *arch, *backend;
    const char *forms; /* bench --forms A/R,...: NVFP4's register forms on one problem */
} gemv_opts;

static int64_t nvec(const gemv_opts *o)
{
    return o->vectors ? o->vectors : 1;
}

static int usage(const char *cmd)
{
    fprintf(
        stderr,
        "usage: cutec %s gemv [--dtype f32|f16|bf16|e4m3|nvfp4|mxfp8] [--out-dtype f32|f16|bf16]\n"
        "         [--shape MxK] [--batch L] [--layout rows|cols] [--vectors N] [--splits N]\n"
        "         [--reduction ordered|atomic] [--mma-from N] [--l2-prefetch D] [--iters N]\n"
        "         [--tile-at-a-time 0|1] [--smem-stages 0|2..8] [--ahead 1|2] [--wide 0|1]\n"
        "         [--fma-decode 0|1] [--forms F,...]\n"
        "         [--tf32-bits 0|1] [--hopper 0|1]\n"
        "         [--emit ir|cuda|ptx|sass|time] [--arch sm_80|sm_90a|sm_100a] [--backend cuda|interp]\n"
        "  y(M,L) = 1.5 A(M,K,L) x(K,L) - 0.5 y; rows: A row-major (K contiguous), cols: "
        "column-major;\n"
        "  --vectors N: N vectors at once, x (K,N,L) and y (M,N,L) (the skinny GEMM's path, N <= "
        "128;\n    f16, bf16 and f32 from 8 on (--mma-from N: from N on) through the tensor cores)\n"
        "  --hopper 0: 8 to 128 vectors of f16 or bf16 (16-bit y, sm_90) on the GEMV kernels' tensor\n"
        "    cores, not the Hopper GEMM's 64-row tiles (the default)\n"
        "  nvfp4: e2m1 A and x with a ue4m3 scale per 16 (seed 001); mxfp8: e4m3 with ue8m0 per "
        "32\n"
        "  --wide 1 (compile): NVFP4's register form one ahead in k-tiles of 2,048 elements (the\n"
        "    library's where its blocks are 4 an SM or fewer)\n"
        "  bench --forms lib,2,1,ring4,two,one,no-words,narrow,blocks6,noscales: forms on one\n"
        "    problem, each a row: the library's, NVFP4's register forms (k-tiles ahead), a ring of\n"
        "    N stages, split-K's second kernel, split-K in one launch, the library's under\n"
        "    CUTEC_GEMV_TRIAL=no-words, narrow or blocks6, and the diagnostic noscales\n"
        "    (wrong by design: not checked; the others under 0)\n",
        cmd);
    return CLI_USAGE;
}

static bool option(gemv_opts *o, const char *k, const char *v, bool *out_given, char *why, size_t n)
{
    int64_t x = 0, dims[2];
    int nd = 0;
    bool ok = true;
    if (!strcmp(k, "--dtype")) {
        o->sf_vec = !strcmp(v, "nvfp4") ? 16 : !strcmp(v, "mxfp8") ? 32 : 0;
        if (o->sf_vec)
            o->dtype = o->sf_vec == 16 ? CUTE_E2M1 : CUTE_E4M3;
        else
            ok = cute_dtype_parse(v, &o->dtype) && (o->dtype == CUTE_F32 || o->dtype == CUTE_F16 ||
                                                    o->dtype == CUTE_BF16 || o->dtype == CUTE_E4M3);
        if (!ok) snprintf(why, n, "f32, f16, bf16, e4m3, nvfp4 or mxfp8");
    } else if (!strcmp(k, "--out-dtype"))
        ok = cute_dtype_parse(v, &o->y_dtype), *out_given = true;
    else if (!strcmp(k, "--shape")) {
        ok = cli_dims(v, 2, (int64_t)1 << 40, dims, &nd, why, n) && nd == 2;
        if (ok)
            o->M = dims[0], o->K = dims[1];
        else if (!why[0])
            snprintf(why, n, "MxK");
    } else if (!strcmp(k, "--batch"))
        ok = cli_int(v, 1, 1 << 20, &o->L, why, n);
    else if (!strcmp(k, "--layout"))
        ok = !strcmp(v, "rows") || !strcmp(v, "cols"), o->major = !strcmp(v, "rows");
    else if (!strcmp(k, "--vectors"))
        ok = cli_int(v, 1, CUTE_GEMV_MAX_MMA_VECTORS, &x, why, n), o->vectors = (int)x;
    else if (!strcmp(k, "--mma-from"))
        ok = cli_int(v, 1, CUTE_GEMV_MAX_VECTORS + 1, &x, why, n), o->mma_from = (int)x;
    else if (!strcmp(k, "--l2-prefetch"))
        ok = cli_int(v, 0, CUTE_GEMV_MAX_L2_PREFETCH, &x, why, n), o->l2_prefetch = (int)x;
    else if (!strcmp(k, "--tile-at-a-time"))
        ok = cli_int(v, 0, 1, &x, why, n), o->tile_at_a_time = x == 1;
    else if (!strcmp(k, "--smem-stages"))
        ok = cli_int(v, 0, CUTE_GEMV_MAX_SMEM_STAGES, &x, why, n) && x != 1, o->smem_stages = (int)x;
    else if (!strcmp(k, "--ahead"))
        ok = cli_int(v, 1, CUTE_GEMV_MAX_AHEAD, &x, why, n), o->ahead = (int)x;
    else if (!strcmp(k, "--wide"))
        ok = cli_int(v, 0, 1, &x, why, n), o->wide = x == 1;
    else if (!strcmp(k, "--fma-decode"))
        ok = cli_int(v, 0, CUTE_GEMV_MAX_FMA_DECODE, &x, why, n), o->fma_decode = (int)x;
    else if (!strcmp(k, "--tf32-bits"))
        ok = cli_int(v, 0, 1, &x, why, n), o->tf32_bits = (int)x;
    else if (!strcmp(k, "--hopper"))
        ok = cli_int(v, 0, 1, &x, why, n), o->hopper = (int)x;
    else if (!strcmp(k, "--forms"))
        o->forms = v;
    else if (!strcmp(k, "--reduction"))
        ok = !strcmp(v, "ordered") || !strcmp(v, "atomic"), o->atomic = !strcmp(v, "atomic");
    else if (!strcmp(k, "--splits"))
        ok = cli_int(v, 0, 1 << 16, &x, why, n), o->splits = (int)x;
    else if (!strcmp(k, "--iters"))
        ok = cli_int(v, 1, 1000000, &x, why, n), o->iters = (int)x;
    else if (!strcmp(k, "--emit"))
        o->emit = v;
    else if (!strcmp(k, "--arch"))
        o->arch = v, ok = cli_arch(v, why, n);
    else if (!strcmp(k, "--backend"))
        o->backend = v;
    else
        ok = false;
    return ok;
}

static int parse(int argc, char **argv, gemv_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dtype = CUTE_BF16, o->M = o->K = 8192, o->L = 1, o->major = 1, o->iters = 20;
    o->mma_from = CUTE_GEMV_MMA_FROM;
    o->smem_stages = -1, o->fma_decode = -1, o->tf32_bits = -1, o->hopper = 1, o->l2_prefetch = -1;
    bool out_given = false;
    if (argc < 2 || strcmp(argv[1], "gemv") != 0) return usage(argv[0]);
    for (int i = 2; i < argc; i += 2) {
        char why[160] = "";
        if (i + 1 >= argc) return usage(argv[0]);
        if (!option(o, argv[i], argv[i + 1], &out_given, why, sizeof why)) {
            fprintf(stderr, "cutec %s gemv: bad option %s %s%s%s\n", argv[0], argv[i], argv[i + 1],
                    why[0] ? ": " : "", why);
            return CLI_USAGE;
        }
    }
    if (!out_given)
        o->y_dtype = o->dtype == CUTE_E4M3 || o->dtype == CUTE_E2M1 ? CUTE_F16 : o->dtype;
    if (o->sf_vec && (o->vectors || !o->major)) {
        fprintf(stderr, "cutec %s gemv: nvfp4 and mxfp8 take row-major A and one vector\n",
                argv[0]);
        return CLI_USAGE;
    }
    if (!o->arch) o->arch = getenv("CUTEC_ARCH");
    return CLI_OK;
}

/* --- compile: the widest vectors, no split (--splits 2: the split-K pair) ------------- */
static int emit(const gemv_opts *o)
{
    char err[4096];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec compile gemv: %s\n", err);
        return CLI_FAIL;
    }
    cute_runtime_set_target_arch(rt, o->arch);
    cute_gemv_config cfg = {.dtype = o->dtype,
                            .y_dtype = o->y_dtype,
                            .a_major = o->major,
                            .vec = 128 / cute_dtype_bits(o->dtype),
                            .split = o->splits > 1,
                            .many_splits = o->splits > CUTE_GEMV_FEW_SPLITS,
                            .vectors = (int)nvec(o),
                            .sf_vec = o->sf_vec,
                            .mma = o->major && !o->sf_vec && cute_gemv_mma_for(o->dtype, CUTE_GEMV_MAX_MMA_VECTORS) &&
                                   nvec(o) >= o->mma_from,
                            .l2_prefetch = o->major && o->sf_vec != 32 && o->l2_prefetch > 0 ? o->l2_prefetch : 0,
                            .tile_at_a_time = o->sf_vec == 16 && o->tile_at_a_time};
    bool nvfp4_ring = o->sf_vec == 16 && !cfg.tile_at_a_time && !cfg.l2_prefetch;
    if (o->smem_stages > 0 && (nvfp4_ring || (!o->sf_vec && cute_gemv_ring_able(&cfg))))
        cfg.smem_stages = o->smem_stages; /* the ring, where asked for and able */
    else if (o->smem_stages < 0)
        cfg.smem_stages = cute_gemv_ring_default(&cfg); /* the library's choice */
    cfg.smem_stages = cute_gemv_ring_fit(&cfg, cute_runtime_target_arch(rt)); /* as the library fits it */
    if (nvfp4_ring && !cfg.smem_stages) /* NVFP4's register form (0: one ahead) */
        cfg.ahead = o->ahead;
    int trial = o->sf_vec == 16 ? cute_gemv_trial(err, sizeof err) : 0; /* (CUTEC_GEMV_TRIAL as the library reads it) */
    if (trial < 0) {
        fprintf(stderr, "cutec compile gemv: %s\n", err);
        cute_runtime_free(rt);
        return CLI_FAIL;
    }
    if (nvfp4_ring && !cfg.smem_stages) {
        /* the library's (its scale buffers 4-byte aligned) */
        cfg.scale_words = trial != CUTE_GEMV_TRIAL_NO_WORDS && trial != CUTE_GEMV_TRIAL_NOSCALES;
        cfg.diag = trial == CUTE_GEMV_TRIAL_NOSCALES ? CUTE_GEMV_DIAG_SCALES_ONCE : 0;
        if (o->wide) cfg.wide = true, cfg.ahead = 1; /* (the library's where the blocks are few) */
    } else if (cfg.tile_at_a_time && trial == CUTE_GEMV_TRIAL_BLOCKS6) { /* (the trials' blocks an SM) */
        cfg.min_blocks = 6;
    }
    cfg.fma_decode = o->sf_vec == 16 && o->fma_decode > 0 ? o->fma_decode : 0;
    cfg.tf32_bits = o->tf32_bits != 0 && cfg.mma && o->dtype == CUTE_F32;
    /* split-K in one launch where the library runs it (sm_90 on) */
    cfg.one_launch = cfg.split && o->major && !cfg.mma && !o->sf_vec && cute_runtime_target_arch(rt) >= 90;
    cli_clock t0 = cli_clock_now();
    const cute_fn *f = cute_gemv_compile(rt, &cfg, err, sizeof err);
    int rc = f ? cli_emit_kernel(f, o->emit, o->arch, cli_clock_since(t0)) : CLI_FAIL;
    if (!f) fprintf(stderr, "cutec compile gemv: %s\n", err);
    cute_fn_free(f);
    cute_runtime_free(rt);
    return rc;
}

/* --- run and bench ------------------------------------------------------------------- */
typedef struct problem {
    cute_runtime *rt;
    cute_gemv_lib *lib;
    cute_buffer buf[5]; /* A, x, y, and block-scaled SFA, SFB */
    void *host[5], *y0;
    size_t bytes[5];
    cute_call_arg A, x, y, sfa, sfb;
    bool vectors;
    int sf_vec;
    bool checked; /* --forms: this form's y checked already (a repeat is timed only) */
    char err[1024];
} problem;

/* n random elements of d: uniform in [-2, 2) rounded to d; e2m1 of [-6, 6); scales (ue4m3,
 * ue8m0) in [1/2, 2) (an f16 y of K = 16384 such products stays finite) */
static bool upload_random(problem *p, int i, cute_dtype d, int64_t n, uint64_t *seed)
{
    cute_backend *b = cute_runtime_backend(p->rt);
    p->bytes[i] = (size_t)((n ? n : 1) * cute_dtype_bits(d) + 7) / 8;
    p->host[i] = malloc(p->bytes[i]);
    if (!p->host[i] || b->vt->alloc(b->self, p->bytes[i], &p->buf[i]) != CUTE_OK) return false;
    uint8_t *u8 = p->host[i];
    for (int64_t k = 0; k < n; k++) {
        double r = ew_random(seed);
        if (d == CUTE_E2M1)
            u8[k / 2] = (uint8_t)(k % 2 ? u8[k / 2] | cute_f64_to_e2m1(3 * r) << 4
                                        : cute_f64_to_e2m1(3 * r));
        else if (d == CUTE_UE4M3)
            u8[k] = cute_f64_to_ue4m3(pow(2.0, 0.5 * r));
        else if (d == CUTE_UE8M0)
            u8[k] = cute_f64_to_ue8m0(pow(2.0, 0.5 * r));
        else
            ew_set(d, p->host[i], k, r);
    }
    return b->vt->upload(b->self, &p->buf[i], 0, p->host[i], p->bytes[i]) == CUTE_OK;
}

/* block-scaled: the scale buffers in their layout, and their call arguments */
static bool make_scales(problem *p, const gemv_opts *o, uint64_t *seed)
{
    cute_dtype sd = o->sf_vec == 16 ? CUTE_UE4M3 : CUTE_UE8M0;
    int64_t na = cute_gemv_sf_count(o->M, o->K, o->L, o->sf_vec),
            nb = cute_gemv_sf_count(1, o->K, o->L, o->sf_vec);
    if (!upload_random(p, 3, sd, na, seed) || !upload_random(p, 4, sd, nb, seed)) return false;
    p->sfa = cute_call_tensor(&p->buf[3], 0, sd, 1, (int64_t[]){na}, (int64_t[]){1});
    p->sfb = cute_call_tensor(&p->buf[4], 0, sd, 1, (int64_t[]){nb}, (int64_t[]){1});
    p->sf_vec = o->sf_vec;
    return true;
}

static bool problem_make(problem *p, const gemv_opts *o)
{
    uint64_t seed = (uint64_t)time(NULL) | 1;
    int64_t M = o->M, K = o->K, L = o->L, N = nvec(o);
    int64_t sA[3] = {o->major ? K : 1, o->major ? 1 : M, M * K};
    if (!upload_random(p, 0, o->dtype, M * K * L, &seed) ||
        !upload_random(p, 1, o->dtype, K * N * L, &seed) ||
        !upload_random(p, 2, o->y_dtype, M * N * L, &seed))
        return false;
    p->y0 = malloc(p->bytes[2]);
    if (!p->y0) return false;
    memcpy(p->y0, p->host[2], p->bytes[2]);
    p->A = cute_call_tensor(&p->buf[0], 0, o->dtype, 3, (int64_t[]){M, K, L}, sA);
    if (o->vectors) {
        p->x = cute_call_tensor(&p->buf[1], 0, o->dtype, 3, (int64_t[]){K, N, L},
                                (int64_t[]){1, K, K * N});
        p->y = cute_call_tensor(&p->buf[2], 0, o->y_dtype, 3, (int64_t[]){M, N, L},
                                (int64_t[]){1, M, M * N});
    } else {
        p->x = cute_call_tensor(&p->buf[1], 0, o->dtype, 2, (int64_t[]){K, L}, (int64_t[]){1, K});
        p->y = cute_call_tensor(&p->buf[2], 0, o->y_dtype, 2, (int64_t[]){M, L}, (int64_t[]){1, M});
    }
    p->vectors = o->vectors > 0;
    return !o->sf_vec || make_scales(p, o, &seed);
}

static void problem_drop(problem *p)
{
    cute_backend *b = cute_runtime_backend(p->rt);
    for (int i = 0; i < 5; i++)
        if (p->host[i]) b->vt->free(b->self, &p->buf[i]), free(p->host[i]);
    free(p->y0);
}

static cute_status call_gemv(void *user, int set)
{
    (void)set;
    problem *p = user;
    if (p->sf_vec)
        return cutec_gemv_blockscaled(p->lib, &p->A, &p->sfa, &p->x, &p->sfb, &p->y, 1.5, -0.5,
                                      NULL, p->err, sizeof p->err);
    if (p->vectors)
        return cutec_gemv_vectors(p->lib, &p->A, &p->x, &p->y, 1.5, -0.5, NULL, p->err,
                                  sizeof p->err);
    return cutec_gemv(p->lib, &p->A, &p->x, &p->y, 1.5, -0.5, NULL, p->err, sizeof p->err);
}

/* element i of buffer `which` decoded exactly; block-scaled, times its scale at
 * (row, k, l) of an operand of `rows` rows */
static double value(const problem *p, const gemv_opts *o, int which, int64_t i, int64_t row,
                    int64_t k, int64_t l, int64_t rows)
{
    const uint8_t *u8 = p->host[which];
    if (!o->sf_vec) return ew_get(o->dtype, u8, i);
    double v = o->dtype == CUTE_E2M1 ? cute_e2m1_to_f32((uint8_t)(u8[i / 2] >> 4 * (i % 2)))
                                     : cute_e4m3_to_f32(u8[i]);
    uint8_t s =
        ((const uint8_t *)p->host[3 + which])[cute_gemv_sf_index(row, k, l, rows, o->K, o->sf_vec)];
    return v * (o->sf_vec == 16 ? cute_ue4m3_to_f32(s) : cute_ue8m0_to_f32(s));
}

/* row m of vector v (of batch l) of y against the float64 reference: wrong or not */
static bool wrong(const problem *p, const gemv_opts *o, int64_t m, int64_t v, int64_t l)
{
    double ulp = o->y_dtype == CUTE_F32 ? 0x1p-23 : o->y_dtype == CUTE_F16 ? 0x1p-10 : 0x1p-7;
    int64_t N = nvec(o), xo = (v + l * N) * o->K, yi = m + (v + l * N) * o->M;
    double sum = 0, mag = 0;
    for (int64_t k = 0; k < o->K; k++) {
        int64_t ia = (o->major ? m * o->K + k : m + k * o->M) + l * o->M * o->K;
        double t = value(p, o, 0, ia, m, k, l, o->M) * value(p, o, 1, xo + k, 0, k, l, 1);
        sum += t, mag += fabs(t);
    }
    double y0 = ew_get(o->y_dtype, p->y0, yi);
    double want = 1.5 * sum - 0.5 * y0, got = ew_get(o->y_dtype, p->host[2], yi);
    double tol = (1.5 * mag + 0.5 * fabs(y0)) * (o->K + 2) * 0x1p-23 + fabs(want) * ulp;
    return !(fabs(got - want) <= tol);
}

/* the rows of y checked: every row, or past 2^26 products (8192x8192 with one vector; the
 * skinny GEMMs of `bench gemv --vectors` have up to 128 times that) one row in `step` and
 * the last; past 2^24 with --forms (a check a form, several forms a problem) */
static int64_t row_step(const gemv_opts *o)
{
    double products = (double)o->M * (double)o->K * (double)nvec(o) * (double)o->L;
    double most = o->forms ? 0x1p24 : 0x1p26;
    return products > most ? (int64_t)ceil(products / most) : 1;
}

static int64_t rows_checked(const gemv_opts *o)
{
    int64_t step = row_step(o), rows = (o->M + step - 1) / step + ((o->M - 1) % step != 0);
    return rows * nvec(o) * o->L;
}

/* y's elements (rows_checked) against the float64 reference (inputs as stored, decoded
 * exactly) */
static int64_t verify(const problem *p, const gemv_opts *o)
{
    int64_t bad = 0, step = row_step(o);
    for (int64_t l = 0; l < o->L; l++)
        for (int64_t v = 0; v < nvec(o); v++)
            for (int64_t m = 0; m < o->M; m++)
                if (m % step == 0 || m == o->M - 1) bad += wrong(p, o, m, v, l);
    return bad;
}

/* one checked call, then the median time (device events on the GPU, else the wall clock) */
static double run_one(problem *p, const gemv_opts *o, int64_t *bad)
{
    cute_backend *b = cute_runtime_backend(p->rt);
    cute_gemv_lib_splits(p->lib, o->splits);
    cute_gemv_lib_deterministic(p->lib, !o->atomic);
    if (call_gemv(p, 0) != CUTE_OK || b->vt->sync(b->self, NULL) != CUTE_OK) {
        fprintf(stderr, "cutec: %s\n", p->err[0] ? p->err : b->vt->error(b->self));
        return -1;
    }
    b->vt->download(b->self, p->host[2], &p->buf[2], 0, p->bytes[2]);
    *bad = p->checked ? 0 : verify(p, o);
    cute_cuda *cu = cute_cuda_backend_driver(b);
    if (cu) return gpu_time_calls(cu, call_gemv, p, 1, o->iters);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    call_gemv(p, 0);
    b->vt->sync(b->self, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
}

/* the bytes a GEMV must move: A and x read, y read and written */
static double moved(const gemv_opts *o)
{
    double n = (double)nvec(o), es = cute_dtype_bits(o->dtype) / 8.0,
           ys = cute_dtype_bytes(o->y_dtype);
    if (o->sf_vec) es += 1.0 / o->sf_vec; /* a byte of scale per block */
    return (double)o->L * ((double)o->M * o->K * es + n * o->K * es + 2.0 * n * o->M * ys);
}

static void describe(const problem *p, const gemv_opts *o, char *buf, size_t n)
{
    cute_gemv_config cfg;
    int splits;
    cute_gemv_lib_last(p->lib, &cfg, &splits);
    if (cute_gemv_lib_last_gemm(p->lib)) { /* many 16-bit vectors on sm_90 */
        snprintf(buf, n, "hopper %s->%s %lldx%lld N=%lld L=%lld, the Hopper GEMM's 64-row tiles",
                 cute_dtype_name(o->dtype), cute_dtype_name(o->y_dtype), (long long)o->M, (long long)o->K,
                 (long long)nvec(o), (long long)o->L);
        return;
    }
    const char *kind = o->sf_vec == 16   ? "nvfp4"
                       : o->sf_vec == 32 ? "mxfp8"
                       : cfg.skew        ? "skew"
                       : cfg.mma         ? "mma"
                       : o->major        ? "rows"
                                         : "cols";
    char form[96] = ""; /* NVFP4's k-tile walk, or the ring */
    if (cfg.smem_stages && o->sf_vec != 16)
        snprintf(form, sizeof form, ", ring of %d", cfg.smem_stages);
    else if (o->sf_vec == 16 && cfg.ahead > 1)
        snprintf(form, sizeof form, ", registers %d k-tiles ahead", cfg.ahead);
    else if (o->sf_vec == 16)
        snprintf(form, sizeof form, cfg.smem_stages ? ", ring of %d" : cfg.tile_at_a_time ? ", a k-tile at a time"
                                                                                             : ", registers",
                 cfg.smem_stages);
    if (cfg.fma_decode) strncat(form, ", scales by bits", sizeof form - strlen(form) - 1);
    if (cfg.scale_words) strncat(form, ", scale words", sizeof form - strlen(form) - 1);
    if (cfg.wide) strncat(form, ", wide k-tiles", sizeof form - strlen(form) - 1);
    if (cfg.min_blocks) snprintf(form + strlen(form), sizeof form - strlen(form), ", %d blocks an SM", cfg.min_blocks);
    if (cfg.diag) strncat(form, ", scales once (wrong by design)", sizeof form - strlen(form) - 1);
    if (cfg.tf32_bits) strncat(form, ", tf32 by bits", sizeof form - strlen(form) - 1);
    if (cfg.l2_prefetch) /* (NVFP4's, the rows' and the skew form's) */
        snprintf(form + strlen(form), sizeof form - strlen(form), ", L2 prefetch %d ahead", cfg.l2_prefetch);
    const char *how = cfg.atomic && cfg.one_launch ? " (atomic, one launch)"
                      : cfg.atomic                  ? " (atomic)"
                      : cfg.one_launch              ? " (one launch)"
                                                    : "";
    snprintf(buf, n, "%s %s->%s %lldx%lld N=%lld L=%lld, vec %d, %d split%s%s%s", kind, cute_dtype_name(o->dtype),
             cute_dtype_name(o->y_dtype), (long long)o->M, (long long)o->K, (long long)nvec(o), (long long)o->L,
             cfg.vec, splits, splits == 1 ? "" : "s", how, form);
}

/* after run_one: y made again from its first bytes and one more call; whether it gave y's
 * bits of the first call (a deterministic reduction's, whichever block came last) */
static bool same_bits_again(problem *p)
{
    cute_backend *b = cute_runtime_backend(p->rt);
    void *again = malloc(p->bytes[2]);
    bool same = again && b->vt->upload(b->self, &p->buf[2], 0, p->y0, p->bytes[2]) == CUTE_OK &&
                call_gemv(p, 0) == CUTE_OK && b->vt->sync(b->self, NULL) == CUTE_OK &&
                b->vt->download(b->self, again, &p->buf[2], 0, p->bytes[2]) == CUTE_OK &&
                !memcmp(again, p->host[2], p->bytes[2]);
    free(again);
    return same;
}

static int run(const gemv_opts *o)
{
    problem p = {0};
    if (cute_runtime_new(o->backend, &p.rt, p.err, sizeof p.err) != CUTE_OK) {
        fprintf(stderr, "cutec run gemv: %s\n", p.err);
        return CLI_FAIL;
    }
    if (!cute_runtime_on_gpu(p.rt)) cute_runtime_set_target_arch(p.rt, o->arch); /* the interpreter's target */
    double macs = (double)o->M * (double)o->K * (double)o->L * (double)nvec(o);
    if (!cli_interp_fits("run gemv", p.rt, macs, CLI_INTERP_GEMV)) {
        cute_runtime_free(p.rt);
        return CLI_USAGE;
    }
    p.lib = cute_gemv_lib_new(p.rt);
    cute_gemv_lib_mma_from(p.lib, o->mma_from);
    cute_gemv_lib_l2_prefetch(p.lib, o->l2_prefetch);
    cute_gemv_lib_tile_at_a_time(p.lib, o->tile_at_a_time);
    cute_gemv_lib_smem_stages(p.lib, o->smem_stages);
    cute_gemv_lib_ahead(p.lib, o->ahead);
    cute_gemv_lib_fma_decode(p.lib, o->fma_decode);
    if (o->tf32_bits >= 0) cute_gemv_lib_tf32_bits(p.lib, o->tf32_bits == 1);
    cute_gemv_lib_hopper(p.lib, o->hopper == 1);
    int64_t bad = -1;
    double ms = problem_make(&p, o) ? run_one(&p, o, &bad) : -1;
    char what[160];
    describe(&p, o, what, sizeof what);
    bool gpu = !strcmp(cute_runtime_backend_name(p.rt), "cuda"); /* times mean something */
    /* on the GPU, the deterministic reductions once more from the same y: the same bits */
    bool twice = ms >= 0 && gpu && !o->atomic, same = twice && same_bits_again(&p);
    if (ms >= 0)
        printf("gemv %s, backend %s: %s (%lld wrong of %lld)%s", what,
               cute_runtime_backend_name(p.rt), bad ? "FAILED" : "verified against float64",
               (long long)bad, (long long)rows_checked(o),
               !twice ? "" : same ? ", the same bits twice" : ", NOT the same bits twice");
    if (ms >= 0 && gpu) printf(", %.4f ms, %.1f GB/s", ms, moved(o) / ms / 1e6);
    if (ms >= 0) printf("\n");
    problem_drop(&p);
    cute_gemv_lib_free(p.lib);
    cute_runtime_free(p.rt);
    return ms >= 0 && bad == 0 && same == twice ? CLI_OK : CLI_FAIL;
}

/* one bench row of p as the library runs it now */
static bool bench_row(problem *p, const gemv_opts *o)
{
    int64_t bad = -1;
    double ms = run_one(p, o, &bad);
    char what[160];
    describe(p, o, what, sizeof what);
    if (ms < 0) { /* (a row for every form: --forms's rows are read in order) */
        printf("%-44s failed: no time\n", what);
        return false;
    }
    double gbs = moved(o) / ms / 1e6, copy = gpu_copy_gbs(p->rt, (size_t)moved(o), o->iters);
    printf("%-44s %9.4f %9.1f %9.1f %7.1f%%%s\n", what, ms, gbs, copy, 100 * gbs / copy,
           bad ? "  WRONG" : "");
    return ms >= 0 && bad == 0;
}

/* whether s starts with the form `word` (then a comma or its end) */
static bool form_is(const char *s, const char *word)
{
    size_t n = strlen(word);
    return !strncmp(s, word, n) && (s[n] == ',' || !s[n]);
}

/* a --forms form set on the library: "lib" (the library's choice), "A" (NVFP4's register
 * form, A k-tiles ahead), "ringN" (a ring of N stages), "two", "one" (split-K's
 * second kernel, split-K in one launch: cute_gemv_lib_one_launch), "no-words", "narrow",
 * "blocks6" and "noscales"
 * (the library's choice under CUTEC_GEMV_TRIAL of that name, which the library reads at each
 * call; every other form runs under 0); the characters it took in *used, or false */
static bool set_form(cute_gemv_lib *lib, const gemv_opts *o, const char *s, gemv_opts *f, int *used)
{
    static const char *const launches[] = {"two", "one"};
    int ahead = 0, stages = o->smem_stages, one = -1;
    *used = 0;
    static const char *const trials[] = {"no-words", "noscales", "narrow", "blocks6"};
    const char *trial = "0";
    for (int i = 0; i < 4; i++)
        if (form_is(s, trials[i])) trial = trials[i];
    if (setenv("CUTEC_GEMV_TRIAL", trial, 1)) return false;
    for (int i = 0; i < 2; i++)
        if (form_is(s, launches[i])) *used = 3, one = i;
    if (strcmp(trial, "0"))
        *used = (int)strlen(trial), stages = -1;
    else if (form_is(s, "lib"))
        *used = 3, stages = -1;
    else if (one < 0 && sscanf(s, "ring%d%n", &stages, used) != 1 && sscanf(s, "%d%n", &ahead, used) != 1)
        return false;
    if (s[*used] != ',' && s[*used]) return false;
    f->ahead = ahead, f->smem_stages = stages;
    return cute_gemv_lib_ahead(lib, ahead) && cute_gemv_lib_smem_stages(lib, stages) &&
           cute_gemv_lib_one_launch(lib, one);
}

/* --forms: each form a row on the one problem (y as made before each form's checked call; a
 * form's repeat timed, not checked again; the diagnostics, wrong by design, not checked) */
static bool bench_forms(problem *p, const gemv_opts *o)
{
    cute_backend *b = cute_runtime_backend(p->rt);
    gemv_opts f = *o;
    bool ok = true;
    for (const char *s = o->forms; *s;) {
        int used = 0;
        if (!set_form(p->lib, o, s, &f, &used)) {
            printf("cutec bench gemv: --forms %s: a form is lib, ahead (1, 2), ringN, two, one, no-words, narrow, blocks6 or noscales\n", o->forms);
            return false;
        }
        p->checked = form_is(s, "noscales");
        for (const char *q = o->forms; q < s && !p->checked; q = strchr(q, ',') ? strchr(q, ',') + 1 : s)
            p->checked = !strncmp(q, s, (size_t)used) && (q[used] == ',' || !q[used]);
        ok = b->vt->upload(b->self, &p->buf[2], 0, p->y0, p->bytes[2]) == CUTE_OK && bench_row(p, &f) && ok;
        s += used + (s[used] == ',');
    }
    return ok;
}

static int bench_one(cute_runtime *rt, cute_gemv_lib *lib, const gemv_opts *o)
{
    problem p = {.rt = rt, .lib = lib};
    bool ok = problem_make(&p, o) && (o->forms ? bench_forms(&p, o) : bench_row(&p, o));
    problem_drop(&p);
    return ok ? CLI_OK : CLI_FAIL;
}

static int bench(const gemv_opts *base, bool shape_given)
{
    char err[1024], clock[128];
    cute_runtime *rt;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        printf("cutec bench gemv: skipped: no GPU (%s)\n", err);
        return CLI_OK;
    }
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(rt));
    const cute_device_info *dev = cute_cuda_device(cu);
    gpu_sm_clock(cu, clock, sizeof clock);
    printf("# %s, %d SMs, %s; uniform inputs in [-2, 2); GB/s of A + x + y; copy: A's bytes D2D\n",
           dev->name, dev->sm_count, clock);
    printf("%-44s %9s %9s %9s %8s\n", "gemv", "ms", "GB/s", "copy GB/s", "of copy");
    static const int64_t shapes[][3] = {{8192, 8192, 1}, {16384, 4096, 1}, {4096, 16384, 1}};
    static const int64_t seed001[][3] = {{7168, 16384, 1}, {4096, 7168, 8}, {7168, 2048, 4}};
    cute_gemv_lib *lib = cute_gemv_lib_new(rt);
    cute_gemv_lib_mma_from(lib, base->mma_from);
    cute_gemv_lib_l2_prefetch(lib, base->l2_prefetch);
    cute_gemv_lib_tile_at_a_time(lib, base->tile_at_a_time);
    cute_gemv_lib_smem_stages(lib, base->smem_stages);
    cute_gemv_lib_ahead(lib, base->ahead);
    cute_gemv_lib_fma_decode(lib, base->fma_decode);
    if (base->tf32_bits >= 0) cute_gemv_lib_tf32_bits(lib, base->tf32_bits == 1);
    cute_gemv_lib_hopper(lib, base->hopper == 1);
    int rc = CLI_OK;
    for (int s = 0; s < (shape_given ? 1 : 3); s++) {
        gemv_opts o = *base;
        const int64_t *sh = base->sf_vec ? seed001[s] : shapes[s];
        if (!shape_given) o.M = sh[0], o.K = sh[1], o.L = sh[2];
        if (bench_one(rt, lib, &o) != CLI_OK) rc = CLI_FAIL;
    }
    cute_gemv_lib_free(lib);
    cute_runtime_free(rt);
    return rc;
}

static bool has_shape(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--shape")) return true;
    return false;
}

int cmd_gemv(int argc, char **argv)
{
    gemv_opts o;
    int rc = parse(argc, argv, &o);
    if (rc || cli_parse_only()) return rc;
    if (!strcmp(argv[0], "compile")) {
        if (!(o.emit = cli_emit_form(o.emit))) return usage(argv[0]);
        return emit(&o);
    }
    if (o.wide) { /* (run and bench call the library, which chooses the form itself) */
        fprintf(stderr, "cutec %s gemv: --wide is compile's (the library chooses wide k-tiles itself: "
                        "CUTEC_GEMV_TRIAL=narrow asks it for the other form)\n", argv[0]);
        return CLI_USAGE;
    }
    return !strcmp(argv[0], "run") ? run(&o) : bench(&o, has_shape(argc, argv));
}
