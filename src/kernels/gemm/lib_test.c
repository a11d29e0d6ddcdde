/* The GEMM library (cutec_gemm): every malformed call is refused with CUTE_ERR_INVALID and a
 * message naming what is wrong, before anything compiles; well-formed calls on the
 * interpreter give C = alpha A B^T + beta C within f32/f64 rounding of a float64
 * reference, for every combination of operand majors the kernels take, padded leading
 * dimensions, degenerate extents (1 and 0), and the library's caching of compiled fns. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/kernels.h"
#include "kernels/ew_ref.h"
#include "kernels/gemm/gemm_ref.h"

static uint64_t seed;

/* --- validation ------------------------------------------------------------------------ */

/* a call expected to be refused: status INVALID and `word` in the message */
static void refused(cute_gemm_lib *lib, const char *what, cute_gemm_variant v,
                    const cute_call_arg *A, const cute_call_arg *B, const cute_call_arg *C,
                    double alpha, double beta, const char *word)
{
    char err[512] = "";
    cute_status s = cutec_gemm(lib, v, A, B, C, alpha, beta, NULL, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID, "%s: status %s (%s)", what, cute_status_name(s), err);
    CHECK(strstr(err, word) != NULL, "%s: the message \"%s\" does not say \"%s\"", what, err, word);
}

static void validation(cute_runtime *rt)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_buffer buf;
    CHECK(b->vt->alloc(b->self, 1 << 16, &buf) == CUTE_OK, "alloc");
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    /* good operands: A (8,4), B (6,4), C (8,6), column-major */
    cute_call_arg A = cute_call_tensor(&buf, 0, CUTE_F32, 2, (int64_t[]){8, 4}, (int64_t[]){1, 8});
    cute_call_arg B = cute_call_tensor(&buf, 256, CUTE_F32, 2, (int64_t[]){6, 4}, (int64_t[]){1, 6});
    cute_call_arg C = cute_call_tensor(&buf, 512, CUTE_F32, 2, (int64_t[]){8, 6}, (int64_t[]){1, 8});
    cute_call_arg x;

    x = A, x.ndim = 3, x.shape[2] = 1, x.stride[2] = 32;
    refused(lib, "rank 3 A", CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, "rank 3");
    x = B, x.ndim = 1;
    refused(lib, "rank 1 B", CUTE_GEMM_AUTO, &A, &x, &C, 1, 0, "B has rank 1");
    x = A, x.dtype = CUTE_F16;
    refused(lib, "f16 A", CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, "f16");
    x = C, x.dtype = CUTE_F64;
    refused(lib, "f64 C with f32 A", CUTE_GEMM_AUTO, &A, &B, &x, 1, 0, "f32 inputs with a f64 C are not supported");
    x = B, x.shape[1] = 5;
    refused(lib, "K of B", CUTE_GEMM_AUTO, &A, &x, &C, 1, 0, "K mismatch");
    x = C, x.shape[0] = 7;
    refused(lib, "M of C", CUTE_GEMM_AUTO, &A, &B, &x, 1, 0, "M mismatch");
    x = C, x.shape[1] = 5;
    refused(lib, "N of C", CUTE_GEMM_AUTO, &A, &B, &x, 1, 0, "N mismatch");
    x = A, x.stride[0] = 2, x.stride[1] = 16;
    refused(lib, "A without a unit stride", CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, "A has strides (2,16)");
    x = B, x.stride[0] = 4, x.stride[1] = 2;
    refused(lib, "B without a unit stride", CUTE_GEMM_AUTO, &A, &x, &C, 1, 0, "B has strides (4,2)");
    x = A, x.offset = 2;
    refused(lib, "A 2 bytes off", CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, "A is not aligned");
    x = C, x.stride[1] = -8;
    refused(lib, "negative stride", CUTE_GEMM_AUTO, &A, &B, &x, 1, 0, "negative stride");
    x = A, x.stride[1] = 0;
    refused(lib, "broadcast A", CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, "zero (broadcast) stride");
    x = A, x.shape[0] = -1;
    refused(lib, "negative extent", CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, "negative extent");
    x = C, x.stride[1] = 4;
    refused(lib, "C overlapping itself", CUTE_GEMM_AUTO, &A, &B, &x, 1, 0, "overlap");
    /* K = 2^62+1: (K-1+1) * 4 bytes wraps to 4 in int64, inside any buffer but outside all */
    int64_t huge = ((int64_t)1 << 62) + 1;
    cute_call_arg Ak = cute_call_tensor(&buf, 0, CUTE_F32, 2, (int64_t[]){1, huge}, (int64_t[]){1, 1});
    cute_call_arg Bk = cute_call_tensor(&buf, 256, CUTE_F32, 2, (int64_t[]){1, huge}, (int64_t[]){1, 1});
    cute_call_arg Ck = cute_call_tensor(&buf, 512, CUTE_F32, 2, (int64_t[]){1, 1}, (int64_t[]){1, 1});
    refused(lib, "K = 2^62+1", CUTE_GEMM_AUTO, &Ak, &Bk, &Ck, 1, 0, "outside its buffer");
    refused(lib, "NaN alpha", CUTE_GEMM_AUTO, &A, &B, &C, NAN, 0, "alpha");
    refused(lib, "infinite beta", CUTE_GEMM_AUTO, &A, &B, &C, 1, INFINITY, "beta");
    x = cute_call_float(1.0);
    refused(lib, "a scalar for A", CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, "A is not a tensor");
    refused(lib, "no C", CUTE_GEMM_AUTO, &A, &B, NULL, 1, 0, "C is not a tensor");
    refused(lib, "variant 99", (cute_gemm_variant)99, &A, &B, &C, 1, 0, "variant");
    /* nothing to compute: success, C untouched (the buffer is not even read) */
    char err[256] = "";
    cute_call_arg A0 = A, C0 = C;
    A0.shape[0] = C0.shape[0] = 0;
    CHECK(cutec_gemm(lib, CUTE_GEMM_AUTO, &A0, &B, &C0, 1, 0, NULL, err, sizeof err) == CUTE_OK,
          "M = 0 is a no-op: %s", err);
    /* a NULL err buffer is allowed */
    CHECK(cutec_gemm(lib, CUTE_GEMM_AUTO, &A, &B, NULL, 1, 0, NULL, NULL, 0) == CUTE_ERR_INVALID,
          "no err buffer");
    cute_gemm_lib_free(lib);
    b->vt->free(b->self, &buf);
}

static void names(void)
{
    for (int v = 0; v < CUTE_GEMM_VARIANT_COUNT; v++) {
        cute_gemm_variant back;
        CHECK(cute_gemm_variant_parse(cute_gemm_variant_name((cute_gemm_variant)v), &back) &&
                  back == (cute_gemm_variant)v,
              "variant %d round-trips through its name", v);
    }
    cute_gemm_variant x;
    CHECK(!cute_gemm_variant_parse("fast", &x), "\"fast\" is no variant");
    CHECK(strcmp(cute_gemm_variant_name((cute_gemm_variant)42), "?") == 0, "an unknown variant's name");
}

/* --- results on the interpreter -------------------------------------------------------- */

typedef struct operand {
    int64_t rows, cols, ld, elems;
    int major;
    void *host;
    cute_buffer buf;
} operand;

static void make(cute_backend *b, operand *x, cute_dtype d, int64_t rows, int64_t cols, int major,
                 int64_t pad)
{
    x->rows = rows, x->cols = cols, x->major = major;
    x->ld = (major == 0 ? rows : cols) + pad;
    x->elems = x->ld * (major == 0 ? cols : rows);
    size_t bytes = (size_t)(x->elems ? x->elems : 1) * (size_t)cute_dtype_bytes(d);
    x->host = malloc(bytes);
    for (int64_t i = 0; i < x->elems; i++) ew_set(d, x->host, i, ew_random(&seed));
    b->vt->alloc(b->self, bytes, &x->buf);
    b->vt->upload(b->self, &x->buf, 0, x->host, bytes);
}

static cute_call_arg arg(const operand *x, cute_dtype d)
{
    return cute_call_tensor(&x->buf, 0, d, 2, (int64_t[]){x->rows, x->cols},
                            (int64_t[]){x->major == 0 ? 1 : x->ld, x->major == 0 ? x->ld : 1});
}

static void drop(cute_backend *b, operand *x)
{
    b->vt->free(b->self, &x->buf);
    free(x->host);
}

/* C = alpha A B^T + beta C for one shape and layout; false when the kernel does not take
 * the layout (yet), so the caller can count a skip */
static bool product(cute_runtime *rt, cute_gemm_lib *lib, cute_gemm_variant v, cute_dtype d,
                    int64_t M, int64_t N, int64_t K, const int major[3], int64_t pad)
{
    cute_backend *b = cute_runtime_backend(rt);
    operand A, B, C;
    make(b, &A, d, M, K, major[0], pad);
    make(b, &B, d, N, K, major[1], pad);
    make(b, &C, d, M, N, major[2], pad);
    size_t cbytes = (size_t)(C.elems ? C.elems : 1) * (size_t)cute_dtype_bytes(d);
    void *c0 = malloc(cbytes);
    memcpy(c0, C.host, cbytes);
    const double alpha = 1.5, beta = -0.5, tol = d == CUTE_F64 ? 1e-12 : 1e-5;
    cute_call_arg a = arg(&A, d), bb = arg(&B, d), c = arg(&C, d);
    char err[2048] = "";
    cute_status s = cutec_gemm(lib, v, &a, &bb, &c, alpha, beta, NULL, err, sizeof err);
    bool ran = s != CUTE_ERR_COMPILE;
    if (!ran) {
        char why[2300];
        snprintf(why, sizeof why, "gemm %s %s majors A%d B%d C%d not supported yet: %.2000s",
                 cute_gemm_variant_name(v), cute_dtype_name(d), major[0], major[1], major[2], err);
        SKIP(why);
    } else {
        CHECK(s == CUTE_OK, "gemm %s %s %lldx%lldx%lld: %s", cute_gemm_variant_name(v), cute_dtype_name(d),
              (long long)M, (long long)N, (long long)K, err);
        b->vt->download(b->self, C.host, &C.buf, 0, cbytes);
        gemm_ref_operand rA = {A.host, A.ld, A.major}, rB = {B.host, B.ld, B.major}, rC0 = {c0, C.ld, C.major},
                         rC = {C.host, C.ld, C.major};
        double worst;
        int64_t bad = gemm_ref_check_all(d, &rA, &rB, &rC0, &rC, M, N, K, alpha, beta, tol, &worst);
        /* the padding of C is never written */
        for (int64_t i = 0; i < C.elems; i++) {
            int64_t r = C.major == 0 ? i % C.ld : i / C.ld, q = C.major == 0 ? i / C.ld : i % C.ld;
            if ((C.major == 0 ? r >= M : q >= N) && ew_get(d, C.host, i) != ew_get(d, c0, i)) bad++;
        }
        CHECK(bad == 0, "gemm %s %s %lldx%lldx%lld majors A%d B%d C%d pad %lld: %lld wrong (worst %g)",
              cute_gemm_variant_name(v), cute_dtype_name(d), (long long)M, (long long)N, (long long)K,
              major[0], major[1], major[2], (long long)pad, (long long)bad, worst);
    }
    drop(b, &A), drop(b, &B), drop(b, &C);
    free(c0);
    return ran;
}

static void results(cute_runtime *rt)
{
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    const cute_dtype dts[2] = {CUTE_F32, CUTE_F64};
    /* every majors combination, f32 and f64, tails in M, N and K, padded leading dims */
    for (int d = 0; d < 2; d++)
        for (int mask = 0; mask < 8; mask++) {
            int major[3] = {mask & 1, (mask >> 1) & 1, (mask >> 2) & 1};
            product(rt, lib, CUTE_GEMM_REGISTERS, dts[d], 37, 21, 11, major, mask == 5 ? 3 : 0);
        }
    /* more than one block in M and N, several k-tiles; compact and row-major C */
    product(rt, lib, CUTE_GEMM_REGISTERS, CUTE_F32, 150, 131, 24, (int[]){0, 0, 0}, 0);
    product(rt, lib, CUTE_GEMM_REGISTERS, CUTE_F32, 150, 131, 24, (int[]){1, 1, 1}, 4);
    /* degenerate extents: size-1 modes with strides the kernels must not assume */
    product(rt, lib, CUTE_GEMM_REGISTERS, CUTE_F32, 1, 1, 1, (int[]){0, 0, 0}, 0);
    product(rt, lib, CUTE_GEMM_REGISTERS, CUTE_F32, 1, 5, 7, (int[]){1, 1, 1}, 0);
    product(rt, lib, CUTE_GEMM_REGISTERS, CUTE_F64, 9, 1, 3, (int[]){0, 1, 0}, 1);
    /* K = 0: C = beta C */
    product(rt, lib, CUTE_GEMM_REGISTERS, CUTE_F32, 5, 6, 0, (int[]){0, 0, 0}, 0);
    /* AUTO: whichever kernel it picks, the same answer */
    product(rt, lib, CUTE_GEMM_AUTO, CUTE_F32, 70, 33, 17, (int[]){0, 0, 0}, 0);
    product(rt, lib, CUTE_GEMM_AUTO, CUTE_F64, 70, 33, 17, (int[]){1, 1, 0}, 0);
    cute_gemm_lib_free(lib);
}

/* the index width of each kernel the library compiles: the variant's faster one by default,
 * 32-bit only within CUTE_GEMM_INDEX_BOUND, and what cute_gemm_lib_index_width forces */
static void index_widths(cute_runtime *rt)
{
    static const struct {
        int bits;
        cute_gemm_variant v;
        int64_t pad;     /* a leading dimension of 3 + pad */
        int64_t want;    /* the compiled kernel's index_bound */
    } cases[] = {
        {0, CUTE_GEMM_SHARED, 0, CUTE_GEMM_INDEX_BOUND},
        {0, CUTE_GEMM_SHARED, CUTE_GEMM_INDEX_BOUND - 2, 0}, /* ld 32769: past the bound */
        {0, CUTE_GEMM_PIPELINED, 0, CUTE_GEMM_INDEX_BOUND},  /* measured faster in 32 bits */
        {0, CUTE_GEMM_MULTISTAGE, 0, 0},                     /* measured faster in 64 bits */
        {32, CUTE_GEMM_PIPELINED, 0, CUTE_GEMM_INDEX_BOUND},
        {32, CUTE_GEMM_PIPELINED, CUTE_GEMM_INDEX_BOUND - 2, 0},
        {64, CUTE_GEMM_REGISTERS, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cute_gemm_lib *lib = cute_gemm_lib_new(rt);
        CHECK(cute_gemm_lib_index_width(lib, cases[i].bits), "width %d taken", cases[i].bits);
        product(rt, lib, cases[i].v, CUTE_F32, 3, 2, 5, (int[]){0, 0, 0}, cases[i].pad);
        const cute_gemm_config *e = cute_gemm_lib_size(lib) == 1 ? cute_gemm_lib_entry(lib, 0) : NULL;
        CHECK(e && e->variant == cases[i].v && e->index_bound == cases[i].want,
              "case %zu: %s with --index %d and ld %lld compiles index_bound %lld (got %lld)", i,
              cute_gemm_variant_name(cases[i].v), cases[i].bits, (long long)(3 + cases[i].pad),
              (long long)cases[i].want, e ? (long long)e->index_bound : -1LL);
        cute_gemm_lib_free(lib);
    }
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    CHECK(!cute_gemm_lib_index_width(lib, 16) && !cute_gemm_lib_index_width(NULL, 32),
          "index width 16 and a NULL library refused");
    cute_gemm_lib_free(lib);
}

int main(void)
{
    const char *env = getenv("CUTEC_SEED"); /* to repeat a run */
    seed = env ? strtoull(env, NULL, 10) | 1 : (uint64_t)time(NULL) | 1;
    printf("gemm lib_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    names();
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        CHECK(false, "interpreter: %s", err);
        return CHECK_DONE("gemm lib_test");
    }
    validation(rt);
    results(rt);
    index_widths(rt);
    cute_runtime_free(rt);
    return CHECK_DONE("gemm lib_test");
}
