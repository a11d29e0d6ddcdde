/* cutec run gemm / cutec bench gemm: a GEMM verified element by element against a float64
 * CPU reference (and timed on a GPU), and a benchmark table of the library's variants
 * against cuBLAS in one process on the same random inputs.
 *
 * Layout letters are BLAS's (and CuTe's gemm examples'): the operation cuBLAS would be
 * given for each operand of a column-major C = op(A) op(B), B being K x N there.
 *   A: n = M-major (column-major A(M,K))       t = K-major (row-major A(M,K))
 *   B: n = K-major (column-major B(K,N))       t = N-major (B given as (N,K), N contiguous)
 *   C: n = column-major (default)              t = row-major
 * So "tn" is CuTe's K-major A and B, "nt" its M-major A and N-major B (every operand
 * column-major in cutec's (M,K), (N,K), (M,N) view). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli/cublas.h"
#include "cutec/kernels.h"
#include "kernels/gemm/gemm_ref.h"
#include "cutec/runtime.h"
#include "kernels/ew_ref.h"

#define MAX_SIZES 16

typedef struct gemm_opts {
    cute_dtype dtype;
    int64_t m, n, k, pad;
    char layout[4];
    cute_gemm_variant variant;
    const char *backend;
    double alpha, beta;
    int iters;
    int index_bits; /* cute_gemm_lib_index_width: 0 (auto), 32 or 64 */
    uint64_t seed;
    int64_t sizes[MAX_SIZES];
    int nsizes;
    cute_gemm_variant variants[CUTE_GEMM_VARIANT_COUNT];
    int nvariants;
} gemm_opts;

static void usage(void)
{
    fputs(
            "usage: cutec run gemm [--dtype f32|f64] [--m M --n N --k K] [--layout XY[Z]]\n"
            "         [--variant auto|registers|shared|pipelined] [--backend cuda|interp]\n"
            "         [--alpha A] [--beta B] [--pad P] [--iters N] [--seed S] [--index auto|32|64]\n"
            "       cutec bench gemm [--dtype f32|f64] [--sizes 4096,8192] [--layout XY[Z]]\n"
            "         [--variants registers,shared,pipelined] [--alpha A] [--beta B] [--iters N]\n"
            "         [--seed S] [--index auto|32|64]\n"
            "\n"
            "C(M,N) = alpha * A(M,K) * B(N,K)^T + beta * C, B given as (N,K) (CuTe's convention).\n"
            "run: fresh random A, B and C (seeded; the seed is printed), every element checked\n"
            "against a float64 CPU reference (error relative to the sum of |terms|, tolerance 1e-5\n"
            "for f32 and 1e-12 for f64); on a GPU also the median time and TFLOP/s.\n"
            "bench: square sizes, each variant and cuBLAS (fp32 without TF32) timed with CUDA\n"
            "events (median of --iters), TFLOP/s = 2MNK/t, the ratio to cuBLAS, and each result's\n"
            "largest difference from cuBLAS's relative to max |C|.\n"
            "\n"
            "layout: BLAS's letters, one per operand (the op cuBLAS would get for a column-major C):\n"
            "  A  n: M-major (column-major A(M,K))   t: K-major\n"
            "  B  n: K-major (column-major B(K,N))   t: N-major (B(N,K) with N contiguous)\n"
            "  C  n: column-major (the default)      t: row-major\n"
            "  \"tn\": A and B K-major; \"nt\" (the default): every operand column-major as (M,K),\n"
            "  (N,K), (M,N).  --pad P adds P elements to every leading dimension.\n"
            "index: the width of the kernels' index arithmetic.  auto (the default): each variant\n"
            "  in the width measured faster for it (docs/gemm.md); 32: 32-bit kernels wherever\n"
            "  every extent and leading dimension is at most 32768; 64: always 64-bit.\n"
            "defaults: run --m 256 --n 256 --k 256 --alpha 1.5 --beta -0.5 --iters 10;\n"
            "          bench --sizes 4096,8192 --alpha 1 --beta 0 --iters 10\n",
          stdout);
}

static bool parse_layout(const char *s, char *out)
{
    size_t n = strlen(s);
    if (n < 2 || n > 3) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i] == 'N' ? 'n' : s[i] == 'T' ? 't' : s[i];
        if (c != 'n' && c != 't') return false;
        out[i] = c;
    }
    out[2] = n == 3 ? out[2] : 'n';
    out[3] = 0;
    return true;
}

/* the last refused value's reason, for the message */
static char why[160];

static bool parse_int(const char *s, int64_t *out, int64_t least, int64_t most)
{
    return cli_int(s, least, most, out, why, sizeof why);
}

/* every operand, (rows + pad) x (cols + pad) elements of 8 bytes, has a byte count that
 * fits 63 bits (then no size computed from them wraps) */
static bool sizes_fit(const gemm_opts *o)
{
    int64_t dims[3][2] = {{o->m, o->k}, {o->n, o->k}, {o->m, o->n}}, r, c, bytes;
    for (int i = 0; i < 3; i++)
        if (__builtin_add_overflow(dims[i][0], o->pad, &r) ||
            __builtin_add_overflow(dims[i][1], o->pad, &c) || __builtin_mul_overflow(r, c, &bytes) ||
            __builtin_mul_overflow(bytes, 8, &bytes))
            return snprintf(why, sizeof why, "--m %lld --n %lld --k %lld --pad %lld make an operand "
                            "of more than 2^63 bytes", (long long)o->m, (long long)o->n,
                            (long long)o->k, (long long)o->pad), false;
    return true;
}

static bool parse_sizes(const char *s, gemm_opts *o)
{
    o->nsizes = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (o->nsizes == MAX_SIZES || !parse_int(t, &o->sizes[o->nsizes++], 1, (int64_t)1 << 28))
            return false;
    return o->nsizes > 0;
}

static bool parse_variants(const char *s, gemm_opts *o)
{
    o->nvariants = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (o->nvariants == CUTE_GEMM_VARIANT_COUNT ||
            !cute_gemm_variant_parse(t, &o->variants[o->nvariants++]))
            return false;
    return o->nvariants > 0;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return end != s && !*end && isfinite(*out);
}

static int parse(int argc, char **argv, gemm_opts *o, bool bench)
{
    memset(o, 0, sizeof *o);
    o->dtype = CUTE_F32;
    o->m = o->n = o->k = 256;
    snprintf(o->layout, sizeof o->layout, "ntn");
    o->alpha = bench ? 1.0 : 1.5;
    o->beta = bench ? 0.0 : -0.5;
    o->iters = 10;
    o->seed = (uint64_t)time(NULL);
    o->sizes[0] = 4096, o->sizes[1] = 8192, o->nsizes = 2;
    o->variants[0] = CUTE_GEMM_REGISTERS, o->variants[1] = CUTE_GEMM_SHARED;
    o->variants[2] = CUTE_GEMM_PIPELINED, o->nvariants = 3;
    const char *cmd = argv[0];
    if (argc >= 3 && (!strcmp(argv[2], "help") || !strcmp(argv[2], "--help")))
        return usage(), -1;
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "cutec %s gemm: %s needs a value\n", cmd, k);
            return CLI_USAGE;
        }
        i++;
        int64_t x = 0;
        bool ok = true;
        if (!strcmp(k, "--dtype")) ok = cute_dtype_parse(v, &o->dtype) && (o->dtype == CUTE_F32 || o->dtype == CUTE_F64);
        else if (!strcmp(k, "--layout")) ok = parse_layout(v, o->layout);
        else if (!strcmp(k, "--alpha")) ok = parse_double(v, &o->alpha);
        else if (!strcmp(k, "--beta")) ok = parse_double(v, &o->beta);
        else if (!strcmp(k, "--iters")) {
            ok = parse_int(v, &x, 1, 1000);
            o->iters = (int)x;
        }
        else if (!bench && !strcmp(k, "--m")) ok = parse_int(v, &o->m, 0, INT64_MAX);
        else if (!bench && !strcmp(k, "--n")) ok = parse_int(v, &o->n, 0, INT64_MAX);
        else if (!bench && !strcmp(k, "--k")) ok = parse_int(v, &o->k, 0, INT64_MAX);
        else if (!bench && !strcmp(k, "--pad")) ok = parse_int(v, &o->pad, 0, INT64_MAX);
        else if (!bench && !strcmp(k, "--variant")) ok = cute_gemm_variant_parse(v, &o->variant);
        else if (!bench && !strcmp(k, "--backend")) o->backend = v;
        else if (!strcmp(k, "--index")) {
            ok = !strcmp(v, "auto") || (parse_int(v, &x, 32, 64) && (x == 32 || x == 64));
            o->index_bits = strcmp(v, "auto") ? (int)x : 0;
        }
        else if (!strcmp(k, "--seed")) {
            ok = parse_int(v, &x, 0, INT64_MAX);
            o->seed = (uint64_t)x;
        }
        else if (bench && !strcmp(k, "--sizes")) ok = parse_sizes(v, o);
        else if (bench && !strcmp(k, "--variants")) ok = parse_variants(v, o);
        else {
            fprintf(stderr, "cutec %s gemm: unknown option %s (see `cutec %s gemm help`)\n", cmd, k, cmd);
            return CLI_USAGE;
        }
        if (!ok) {
            fprintf(stderr, "cutec %s gemm: bad value for %s: %s%s%s\n", cmd, k, v,
                    why[0] ? ": " : "", why);
            return CLI_USAGE;
        }
        why[0] = 0;
    }
    if (!sizes_fit(o)) {
        fprintf(stderr, "cutec %s gemm: %s\n", cmd, why);
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* --- the problem: operands on the host and the device --------------------------------- */

/* one operand, (rows, cols) = A (M,K), B (N,K) or C (M,N), stored with a unit stride in
 * mode `major` and leading dimension ld */
typedef struct operand {
    int64_t rows, cols, ld, elems;
    int major;
    void *host;
    cute_buffer buf;
} operand;

static int64_t at(const operand *x, int64_t i, int64_t j)
{
    gemm_ref_operand r = {x->host, x->ld, x->major};
    return gemm_ref_at(&r, i, j);
}

static cute_call_arg arg_of(const operand *x, cute_dtype d)
{
    int64_t shape[2] = {x->rows, x->cols};
    int64_t stride[2] = {x->major == 0 ? 1 : x->ld, x->major == 0 ? x->ld : 1};
    return cute_call_tensor(&x->buf, 0, d, 2, shape, stride);
}

typedef struct problem {
    cute_dtype dtype;
    int64_t m, n, k;
    operand a, b, c;
    void *c0; /* C's initial values (host) */
} problem;

/* the unit-stride modes the layout letters mean (see the top of this file) */
static void majors(const char *layout, int major[3])
{
    major[0] = layout[0] == 'n' ? 0 : 1;
    major[1] = layout[1] == 'n' ? 1 : 0;
    major[2] = layout[2] == 't' ? 1 : 0;
}

bool cli_gemm_layout_majors(const char *s, int major[3])
{
    char letters[4];
    if (!parse_layout(s, letters)) return false;
    majors(letters, major);
    return true;
}

static const char *major_words(const char *layout)
{
    static char buf[96];
    snprintf(buf, sizeof buf, "A %s-major, B %s-major, C %s", layout[0] == 'n' ? "M" : "K",
             layout[1] == 'n' ? "K" : "N", layout[2] == 't' ? "row-major" : "column-major");
    return buf;
}

static bool operand_make(cute_backend *b, operand *x, cute_dtype d, int64_t rows, int64_t cols,
                         int major, int64_t pad, uint64_t *seed)
{
    x->rows = rows, x->cols = cols, x->major = major;
    x->ld = (major == 0 ? rows : cols) + pad;
    x->elems = x->ld * (major == 0 ? cols : rows);
    size_t bytes = (size_t)(x->elems ? x->elems : 1) * (size_t)cute_dtype_bytes(d);
    x->host = malloc(bytes);
    if (!x->host || b->vt->alloc(b->self, bytes, &x->buf) != CUTE_OK) return false;
    for (int64_t i = 0; i < x->elems; i++) ew_set(d, x->host, i, ew_random(seed));
    return b->vt->upload(b->self, &x->buf, 0, x->host, bytes) == CUTE_OK;
}

static void operand_drop(cute_backend *b, operand *x)
{
    if (x->buf.ptr) b->vt->free(b->self, &x->buf);
    free(x->host);
    memset(x, 0, sizeof *x);
}

static size_t operand_bytes(const operand *x, cute_dtype d)
{
    return (size_t)(x->elems ? x->elems : 1) * (size_t)cute_dtype_bytes(d);
}

static bool problem_make(cute_backend *b, problem *p, cute_dtype d, int64_t m, int64_t n,
                         int64_t k, const char *layout, int64_t pad, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    p->dtype = d, p->m = m, p->n = n, p->k = k;
    int maj[3];
    majors(layout, maj);
    uint64_t s = seed * 2654435761u + 1; /* xorshift: any nonzero state */
    bool ok = operand_make(b, &p->a, d, m, k, maj[0], pad, &s) &&
              operand_make(b, &p->b, d, n, k, maj[1], pad, &s) &&
              operand_make(b, &p->c, d, m, n, maj[2], pad, &s);
    if (ok) {
        p->c0 = malloc(operand_bytes(&p->c, d));
        if (p->c0) memcpy(p->c0, p->c.host, operand_bytes(&p->c, d));
    }
    return ok && p->c0;
}

static void problem_drop(cute_backend *b, problem *p)
{
    operand_drop(b, &p->a), operand_drop(b, &p->b), operand_drop(b, &p->c);
    free(p->c0);
}

/* --- the float64 reference ---------------------------------------------------------------- */

/* element (m,n): alpha sum_k A(m,k) B(n,k) + beta C0(m,n), and the sum of the terms' |.| */
static void ref_element(const problem *p, double alpha, double beta, int64_t m, int64_t n,
                        double *ref, double *mag)
{
    gemm_ref_operand a = {p->a.host, p->a.ld, p->a.major}, b = {p->b.host, p->b.ld, p->b.major},
                     c = {p->c0, p->c.ld, p->c.major};
    *ref = gemm_ref_element(p->dtype, &a, &b, &c, p->k, m, n, alpha, beta, mag);
}

typedef struct verdict {
    int64_t checked, bad;
    double worst;         /* largest |got - ref| / sum |terms| */
    int64_t wm, wn;       /* where */
    double got, want;
} verdict;

static void judge(verdict *v, double got, double ref, double mag, double tol, int64_t m, int64_t n)
{
    double e = gemm_ref_error(got, ref, mag);
    if (e != e) e = INFINITY; /* NaN never passes */
    v->checked++;
    if (!(e <= tol)) v->bad++;
    if (e > v->worst || v->checked == 1) v->worst = e, v->wm = m, v->wn = n, v->got = got, v->want = ref;
}

static void merge(verdict *into, const verdict *v)
{
    into->checked += v->checked, into->bad += v->bad;
    if (v->checked && (v->worst > into->worst || into->checked == v->checked)) {
        into->worst = v->worst, into->wm = v->wm, into->wn = v->wn;
        into->got = v->got, into->want = v->want;
    }
}

/* the full check: rows of C split over threads; A and B converted to K-contiguous float64
 * rows first so that the inner loop is a plain dot product */
typedef struct ref_job {
    const problem *p;
    const double *a, *b; /* (M,K) and (N,K), K contiguous */
    const void *got;     /* C after the kernel (host copy, C's layout) */
    double alpha, beta, tol;
    int64_t m0, m1;
    verdict v;
} ref_job;

static void *ref_rows(void *arg)
{
    ref_job *j = arg;
    const problem *p = j->p;
    const int64_t nb = 32; /* B rows per block: they stay in cache while the rows of A pass */
    for (int64_t n0 = 0; n0 < p->n; n0 += nb)
        for (int64_t m = j->m0; m < j->m1; m++) {
            const double *ar = j->a + m * p->k;
            for (int64_t n = n0; n < n0 + nb && n < p->n; n++) {
                const double *br = j->b + n * p->k;
                double s = 0, t = 0;
                for (int64_t k = 0; k < p->k; k++) {
                    double x = ar[k] * br[k];
                    s += x, t += fabs(x);
                }
                double c = ew_get(p->dtype, p->c0, at(&p->c, m, n));
                double ref = j->alpha * s + j->beta * c, mag = fabs(j->alpha) * t + fabs(j->beta * c);
                judge(&j->v, ew_get(p->dtype, j->got, at(&p->c, m, n)), ref, mag, j->tol, m, n);
            }
        }
    return NULL;
}

static double *k_rows(const problem *p, const operand *x)
{
    double *d = malloc(sizeof(double) * (size_t)(x->rows * p->k + 1));
    if (!d) return NULL;
    for (int64_t i = 0; i < x->rows; i++)
        for (int64_t k = 0; k < p->k; k++) d[i * p->k + k] = ew_get(p->dtype, x->host, at(x, i, k));
    return d;
}

static bool check_all(const problem *p, const void *got, double alpha, double beta, double tol,
                      verdict *out)
{
    memset(out, 0, sizeof *out);
    double *a = k_rows(p, &p->a), *b = k_rows(p, &p->b);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = ncpu < 1 ? 1 : ncpu > 64 ? 64 : (int)ncpu;
    if (p->m < nt) nt = p->m > 0 ? (int)p->m : 1;
    ref_job jobs[64];
    pthread_t th[64];
    bool ok = a && b, started[64] = {false};
    for (int t = 0; t < nt && ok; t++) {
        jobs[t] = (ref_job){p, a, b, got, alpha, beta, tol, p->m * t / nt, p->m * (t + 1) / nt, {0}};
        /* the last share, or one no thread could be started for, runs here */
        if (t < nt - 1) started[t] = pthread_create(&th[t], NULL, ref_rows, &jobs[t]) == 0;
        if (!started[t]) ref_rows(&jobs[t]);
    }
    for (int t = 0; t < nt && ok; t++)
        if (started[t]) pthread_join(th[t], NULL);
    for (int t = 0; t < nt && ok; t++) merge(out, &jobs[t].v);
    free(a), free(b);
    return ok;
}

static double tolerance(cute_dtype d) { return d == CUTE_F64 ? 1e-12 : 1e-5; }

/* Two results in the same precision, summed in different orders, differ by rounding that
 * grows like sqrt(K) relative to max |C| (about 3e-6 in f32 at K = 4096 on the H200):
 * 8 u sqrt(K), u the unit roundoff, and never below the per-element tolerance.  TF32
 * (u = 2^-11) lands thousands of times above it. */
static double bench_tolerance(cute_dtype d, int64_t k)
{
    double u = d == CUTE_F64 ? ldexp(1, -53) : ldexp(1, -24), t = 8 * u * sqrt((double)k);
    return t > tolerance(d) ? t : tolerance(d);
}

/* --- timing ------------------------------------------------------------------------------- */

typedef cute_status (*gemm_call)(void *user, int set);

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median milliseconds per call: `reps` timings with device events, each around `batch`
 * back-to-back calls that rotate over `sets` input sets (so that inputs that fit in the
 * L2 are not timed from it); batch is chosen so that one timing spans about 2 ms.  < 0 on
 * failure. */
static double time_calls(cute_cuda *cu, gemm_call fn, void *user, int sets, int reps)
{
    void *e0 = NULL, *e1 = NULL;
    double ms = -1, t[1000];
    if (cute_cuda_event_new(cu, &e0) != CUTE_OK || cute_cuda_event_new(cu, &e1) != CUTE_OK) goto out;
    int calls = 0, batch = 1;
    for (int w = 0; w < 2 + sets; w++) /* warm-up: module load, first touches */
        if (fn(user, calls++ % sets) != CUTE_OK) goto out;
    for (int r = -1; r < reps; r++) { /* r = -1: measures one call to size the batch */
        float e = 0;
        if (cute_cuda_event_record(cu, e0, NULL) != CUTE_OK) goto out;
        for (int i = 0; i < batch; i++)
            if (fn(user, calls++ % sets) != CUTE_OK) goto out;
        if (cute_cuda_event_record(cu, e1, NULL) != CUTE_OK || cute_cuda_event_sync(cu, e1) != CUTE_OK ||
            cute_cuda_event_elapsed(cu, e0, e1, &e) != CUTE_OK)
            goto out;
        if (r < 0) {
            double one = e > 0 ? e : 1e-3;
            batch = (int)ceil(2.0 / one);
            batch = batch < 1 ? 1 : batch > 200 ? 200 : batch;
        } else {
            t[r] = (double)e / batch;
        }
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    ms = t[reps / 2];
out:
    if (e0) cute_cuda_event_free(cu, e0);
    if (e1) cute_cuda_event_free(cu, e1);
    return ms;
}

/* --- run --------------------------------------------------------------------------------- */

typedef struct lib_call {
    cute_gemm_lib *lib;
    cute_gemm_variant variant;
    const problem *p; /* sets of inputs: p[0 .. sets) */
    double alpha, beta;
    char err[2048];
} lib_call;

static cute_status call_lib(void *user, int set)
{
    lib_call *l = user;
    const problem *p = &l->p[set];
    cute_call_arg A = arg_of(&p->a, p->dtype), B = arg_of(&p->b, p->dtype), C = arg_of(&p->c, p->dtype);
    return cutec_gemm(l->lib, l->variant, &A, &B, &C, l->alpha, l->beta, NULL, l->err, sizeof l->err);
}

static void print_verdict(const verdict *v, double tol)
{
    if (v->bad == 0)
        printf("verified: %lld elements, max error %.2g (tolerance %g, relative to the sum of |terms|)\n",
               (long long)v->checked, v->worst, tol);
    else
        printf("FAILED: %lld of %lld elements wrong, max error %.3g at (m,n) = (%lld,%lld): got %.17g, "
               "want %.17g\n", (long long)v->bad, (long long)v->checked, v->worst, (long long)v->wm,
               (long long)v->wn, v->got, v->want);
}

static int run(const gemm_opts *o)
{
    char err[1024];
    cute_runtime *rt;
    if (cute_runtime_new(o->backend, &rt, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec run gemm: %s\n", err);
        return CLI_FAIL;
    }
    cute_backend *b = cute_runtime_backend(rt);
    bool cuda = !strcmp(cute_runtime_backend_name(rt), "cuda");
    printf("gemm %s M=%lld N=%lld K=%lld layout %s (%s), alpha %g, beta %g\n", cute_dtype_name(o->dtype),
           (long long)o->m, (long long)o->n, (long long)o->k, o->layout, major_words(o->layout), o->alpha,
           o->beta);
    printf("variant %s, backend %s, seed %llu%s\n", cute_gemm_variant_name(o->variant),
           cute_runtime_backend_name(rt), (unsigned long long)o->seed,
           o->pad ? ", leading dimensions padded" : "");
    problem p;
    int rc = CLI_FAIL;
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    if (lib) cute_gemm_lib_index_width(lib, o->index_bits);
    lib_call l = {lib, o->variant, &p, o->alpha, o->beta, ""};
    if (!lib || !problem_make(b, &p, o->dtype, o->m, o->n, o->k, o->layout, o->pad, o->seed)) {
        fprintf(stderr, "cutec run gemm: out of memory\n");
    } else if (call_lib(&l, 0) != CUTE_OK || b->vt->sync(b->self, NULL) != CUTE_OK) {
        fprintf(stderr, "cutec run gemm: %s\n", l.err[0] ? l.err : b->vt->error(b->self));
    } else if (b->vt->download(b->self, p.c.host, &p.c.buf, 0, operand_bytes(&p.c, o->dtype)) != CUTE_OK) {
        fprintf(stderr, "cutec run gemm: %s\n", b->vt->error(b->self));
    } else {
        int ne = cute_gemm_lib_size(lib); /* the kernel that ran is the last one compiled */
        if (ne > 0) {
            const cute_gemm_config *k = cute_gemm_lib_entry(lib, ne - 1);
            printf("kernel: %s, %d-bit index arithmetic\n", cute_gemm_variant_name(k->variant),
                   k->index_bound ? 32 : 64);
        }
        verdict v;
        double tol = tolerance(o->dtype);
        if (!check_all(&p, p.c.host, o->alpha, o->beta, tol, &v)) {
            fprintf(stderr, "cutec run gemm: out of memory for the reference\n");
        } else {
            print_verdict(&v, tol);
            rc = v.bad == 0 ? CLI_OK : CLI_FAIL;
        }
        if (cuda) {
            double ms = time_calls(cute_cuda_backend_driver(b), call_lib, &l, 1, o->iters);
            if (ms < 0) {
                fprintf(stderr, "cutec run gemm: timing: %s\n", l.err[0] ? l.err : b->vt->error(b->self));
                rc = CLI_FAIL;
            } else {
                printf("time: %.4f ms (median of %d), %.2f TFLOP/s\n", ms, o->iters,
                       2.0 * (double)o->m * (double)o->n * (double)o->k / ms / 1e9);
            }
        }
    }
    if (lib) problem_drop(b, &p);
    cute_gemm_lib_free(lib);
    cute_runtime_free(rt);
    return rc;
}

/* --- bench ------------------------------------------------------------------------------- */

typedef struct ref_call {
    cute_cublas *h;
    const problem *p;
    double alpha, beta;
} ref_call;

static cute_status call_ref(void *user, int set)
{
    ref_call *r = user;
    const problem *p = &r->p[set];
    cute_call_arg A = arg_of(&p->a, p->dtype), B = arg_of(&p->b, p->dtype), C = arg_of(&p->c, p->dtype);
    return cute_ref_gemm(r->h, p->dtype, &A, &B, &C, r->alpha, r->beta, NULL);
}

/* max |x - r| / max |r| over C's elements; NaN anywhere gives NaN */
static double max_rel_diff(const problem *p, const void *x, const void *r)
{
    double d = 0, big = 0;
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t m = 0; m < p->m; m++) {
            int64_t i = at(&p->c, m, n);
            double xv = ew_get(p->dtype, x, i), rv = ew_get(p->dtype, r, i);
            if (xv != xv || rv != rv) return NAN;
            if (fabs(xv - rv) > d) d = fabs(xv - rv);
            if (fabs(rv) > big) big = fabs(rv);
        }
    return d / (big > 0 ? big : 1);
}

/* cuBLAS's own result on a few hundred random elements against the float64 reference */
static void sample_check(const problem *p, const void *got, double alpha, double beta, uint64_t seed,
                         verdict *v)
{
    memset(v, 0, sizeof *v);
    uint64_t s = seed | 1;
    for (int i = 0; i < 256; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        int64_t m = (int64_t)(s % (uint64_t)p->m), n = (int64_t)((s >> 32) % (uint64_t)p->n);
        double ref, mag;
        ref_element(p, alpha, beta, m, n, &ref, &mag);
        judge(v, ew_get(p->dtype, got, at(&p->c, m, n)), ref, mag, tolerance(p->dtype), m, n);
    }
}

/* the SM clock now, by nvidia-smi where it is installed ("" if not) */
static void sm_clock(char *buf, size_t n)
{
    buf[0] = 0;
    FILE *f = popen("nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null", "r");
    if (!f) return;
    if (!fgets(buf, (int)n, f)) buf[0] = 0;
    pclose(f);
    buf[strcspn(buf, "\n")] = 0;
}

typedef struct bench_ctx {
    const gemm_opts *o;
    cute_runtime *rt;
    cute_backend *b;
    cute_cuda *cu;
    cute_gemm_lib *lib;
    cute_cublas *h;
} bench_ctx;

static void print_row(int64_t size, const char *name, double ms, double flops, double ref_ms,
                      double diff, const char *verdict)
{
    printf("%-6lld %-10s %10.4f %9.2f %8.1f%% %12.2e  %s\n", (long long)size, name, ms, flops / ms / 1e9,
           ref_ms > 0 ? 100.0 * ref_ms / ms : 0.0, diff, verdict);
}

/* one size: the check of every variant against cuBLAS on set 0, then the timings */
static int bench_size(bench_ctx *x, int64_t size)
{
    const gemm_opts *o = x->o;
    cute_backend *b = x->b;
    double flops = 2.0 * (double)size * (double)size * (double)size;
    size_t set_bytes = 3 * (size_t)size * (size_t)size * (size_t)cute_dtype_bytes(o->dtype);
    size_t l2 = (size_t)cute_cuda_device(x->cu)->l2_bytes;
    int sets = (int)((3 * l2 + set_bytes - 1) / set_bytes);
    sets = sets < 1 ? 1 : sets > 8 ? 8 : sets;
    problem p[8];
    int made = 0, rc = CLI_OK;
    for (; made < sets; made++)
        if (!problem_make(b, &p[made], o->dtype, size, size, size, o->layout, 0, o->seed + (uint64_t)made)) {
            problem_drop(b, &p[made]);
            break;
        }
    if (made < sets) {
        printf("%-6lld out of device or host memory for %d input sets\n", (long long)size, sets);
        for (int i = 0; i < made; i++) problem_drop(b, &p[i]);
        return CLI_FAIL;
    }
    size_t cbytes = operand_bytes(&p[0].c, o->dtype);
    void *ref = malloc(cbytes), *got = malloc(cbytes);
    ref_call rc_ = {x->h, p, o->alpha, o->beta};
    double ref_ms = -1;
    /* cuBLAS on set 0 from C0: the reference result, itself sampled against float64 */
    if (!ref || !got || call_ref(&rc_, 0) != CUTE_OK || b->vt->sync(b->self, NULL) != CUTE_OK ||
        b->vt->download(b->self, ref, &p[0].c.buf, 0, cbytes) != CUTE_OK) {
        printf("%-6lld cublas     failed: %s\n", (long long)size,
               ref && got ? cute_cublas_error(x->h) : "out of memory");
        rc = CLI_FAIL;
    } else {
        verdict v;
        sample_check(&p[0], ref, o->alpha, o->beta, o->seed, &v);
        ref_ms = time_calls(x->cu, call_ref, &rc_, sets, o->iters);
        print_row(size, "cublas", ref_ms, flops, ref_ms, v.worst,
                  v.bad ? "WRONG vs float64 (sampled)" : "ok vs float64 (256 samples)");
        if (v.bad || ref_ms < 0) rc = CLI_FAIL;
    }
    for (int i = 0; i < o->nvariants && rc == CLI_OK; i++) {
        lib_call l = {x->lib, o->variants[i], p, o->alpha, o->beta, ""};
        const char *name = cute_gemm_variant_name(o->variants[i]);
        /* C back to C0, one call, compare with cuBLAS's */
        if (b->vt->upload(b->self, &p[0].c.buf, 0, p[0].c0, cbytes) != CUTE_OK) {
            rc = CLI_FAIL;
            break;
        }
        cute_status s = call_lib(&l, 0);
        if (s == CUTE_ERR_COMPILE) { /* a variant that cannot take this pattern (yet) */
            printf("%-6lld %-10s %10s  unsupported: %.90s\n", (long long)size, name, "-", l.err);
            continue;
        }
        if (s != CUTE_OK || b->vt->sync(b->self, NULL) != CUTE_OK ||
            b->vt->download(b->self, got, &p[0].c.buf, 0, cbytes) != CUTE_OK) {
            printf("%-6lld %-10s failed: %s\n", (long long)size, name, l.err[0] ? l.err : b->vt->error(b->self));
            rc = CLI_FAIL;
            continue;
        }
        double diff = max_rel_diff(&p[0], got, ref), tol = bench_tolerance(o->dtype, size);
        bool ok = diff <= tol;
        double ms = time_calls(x->cu, call_lib, &l, sets, o->iters);
        if (ms < 0) {
            printf("%-6lld %-10s timing failed: %s\n", (long long)size, name, l.err[0] ? l.err : b->vt->error(b->self));
            rc = CLI_FAIL;
            continue;
        }
        print_row(size, name, ms, flops, ref_ms, diff, ok ? "ok vs cuBLAS" : "WRONG vs cuBLAS");
        if (!ok) rc = CLI_FAIL;
    }
    char clock[128];
    sm_clock(clock, sizeof clock);
    if (clock[0]) printf("#      SM clock after these runs (now, max): %s; %d input set%s rotated\n", clock,
                         sets, sets > 1 ? "s" : "");
    free(ref), free(got);
    for (int i = 0; i < sets; i++) problem_drop(b, &p[i]);
    return rc;
}

static int bench(const gemm_opts *o)
{
    char err[1024];
    bench_ctx x = {o, NULL, NULL, NULL, NULL, NULL};
    if (cute_runtime_new("cuda", &x.rt, err, sizeof err) != CUTE_OK) {
        printf("cutec bench gemm: skipped: no GPU (%s)\n", err);
        return CLI_OK;
    }
    x.b = cute_runtime_backend(x.rt);
    x.cu = cute_cuda_backend_driver(x.b);
    if (cute_cublas_open(x.cu, &x.h, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec bench gemm: %s\n", err);
        cute_runtime_free(x.rt);
        return CLI_FAIL;
    }
    x.lib = cute_gemm_lib_new(x.rt);
    if (x.lib) cute_gemm_lib_index_width(x.lib, o->index_bits);
    const cute_device_info *d = cute_cuda_device(x.cu);
    printf("# %s (%s), %d SMs, peak SM clock %d MHz, L2 %d MB; cuBLAS %s (version %d, default math: no TF32)\n",
           d->name, d->arch, d->sm_count, d->clock_khz / 1000, d->l2_bytes >> 20, cute_cublas_path(x.h),
           cute_cublas_version(x.h));
    printf("# %s M=N=K, layout %s (%s), alpha %g, beta %g, seed %llu\n", cute_dtype_name(o->dtype), o->layout,
           major_words(o->layout), o->alpha, o->beta, (unsigned long long)o->seed);
    static const char *widths[] = {("each variant's faster width where extents and leading dimensions are <= 32768 "
                                    "(registers, shared: 32-bit; pipelined: 64-bit)"),
                                   "32-bit where extents and leading dimensions are <= 32768 (--index 32)",
                                   "64-bit (--index 64)"};
    printf("# index arithmetic: %s\n", widths[o->index_bits / 32]);
    printf("# time: median of %d CUDA-event timings, each over back-to-back calls (about 2 ms)\n", o->iters);
    printf("# diff: max |C - C_cuBLAS| / max |C_cuBLAS|, allowed max(%g, 8 u sqrt(K)); cuBLAS's row: its\n"
           "#   largest error vs float64 on 256 samples, relative to the sum of |terms| (allowed %g)\n",
           tolerance(o->dtype), tolerance(o->dtype));
    printf("%-6s %-10s %10s %9s %9s %12s  %s\n", "size", "kernel", "ms", "TFLOP/s", "of cuBLAS", "diff", "check");
    int rc = x.lib ? CLI_OK : CLI_FAIL;
    for (int i = 0; i < o->nsizes && x.lib; i++)
        if (bench_size(&x, o->sizes[i]) != CLI_OK) rc = CLI_FAIL;
    cute_gemm_lib_free(x.lib);
    cute_cublas_close(x.h);
    cute_runtime_free(x.rt);
    return rc;
}

int cmd_run_gemm(int argc, char **argv)
{
    gemm_opts o;
    int rc = parse(argc, argv, &o, false);
    return rc < 0 ? CLI_OK : rc || cli_parse_only() ? rc : run(&o);
}

int cmd_bench_gemm(int argc, char **argv)
{
    gemm_opts o;
    int rc = parse(argc, argv, &o, true);
    return rc < 0 ? CLI_OK : rc || cli_parse_only() ? rc : bench(&o);
}
