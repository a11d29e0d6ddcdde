/* CuTe's promise: the kernel body is written once against a TiledMMA and a TiledCopy, and
 * swapping either atom is a one-line change at trace time.  One body, C(32,32) f32 =
 * A(32,K) B(32,K)^T, is built here with two MMA atoms (UniversalFMA<f32> on f32 inputs,
 * UniversalFMA<f16,f16,f32> on f16 inputs) and three copy atoms (UniversalCopy<uint128>,
 * UniversalCopy<uint32>, AutoVectorizing), run on the interpreter and checked against a
 * float64 reference; the generated IR shows the copy atom's access width.  The same body
 * with CuTe's SM80_16x8x16_F32F16F16F32_TN (mma.sync, two warps) in place of the FMA atom
 * is the promise at its strongest: the warp-collective atom needs no change to the body. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "ir_loads.h"
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "kernels/ew_ref.h"

typedef struct swap_case {
    cute_dtype in;     /* A and B */
    int copy;          /* 0: UniversalCopy<uint128>, 1: UniversalCopy<uint32>, 2: autovec */
    cute_tiled_mma mma;
    cute_tiled_copy copy_a, copy_b; /* make_tiled_copy_A/B of the atom and the TiledMMA */
} swap_case;

/* THE body: identical for every atom choice */
static void tile_gemm(cute_ctx *c, cute_tensor gA, cute_tensor gB, cute_tensor gC)
{
    const swap_case *sc = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int tid = cute_thread_idx(c, 0);
    cute_thr_mma thr = cute_tiled_mma_slice(&sc->mma, tid);
    cute_tensor tCrC = cute_partition_fragment_C(c, thr, gC);
    cute_clear(c, tCrC);
    /* each thread's MMA fragments of A and B, filled by TiledCopies made for this TiledMMA
     * (CuTe's make_tiled_copy_A/B, partition_S, retile_D) */
    cute_tensor tCrA = cute_partition_fragment_A(c, thr, gA), tCrB = cute_partition_fragment_B(c, thr, gB);
    cute_thr_copy tA = cute_tiled_copy_slice(&sc->copy_a, tid), tB = cute_tiled_copy_slice(&sc->copy_b, tid);
    cute_copy(c, &sc->copy_a.atom, cute_partition_S(c, tA, gA), cute_retile_D(c, tA, tCrA));
    cute_copy(c, &sc->copy_b.atom, cute_partition_S(c, tB, gB), cute_retile_D(c, tB, tCrB));
    cute_gemm(c, &sc->mma, tCrC, tCrA, tCrB, tCrC);
    cute_autovec_copy(c, tCrC, cute_partition_C(c, thr, gC));
    (void)a;
}

static void host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(64)}};
    CUTE_LAUNCH(c, tile_gemm, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor);
}

static uint16_t f16_bits(float f)
{
    /* round to nearest even, normal range only (inputs are in [-1, 1) scaled) */
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000, exp = (u >> 23) & 0xff, man = u & 0x7fffff;
    if (exp < 113) return (uint16_t)sign; /* tiny: flush (the inputs avoid this) */
    uint32_t h = sign | ((exp - 112) << 10) | (man >> 13);
    uint32_t rest = man & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;
    return (uint16_t)h;
}

static float f16_value(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    uint32_t u = exp ? sign | ((exp + 112) << 23) | (man << 13) : sign;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static int run_case(cute_runtime *rt, swap_case *sc, int64_t K, uint64_t *seed, const char *what)
{
    char err[2048];
    /* K-major A and B, so a thread's K values of a fragment are contiguous */
    char lay[64];
    snprintf(lay, sizeof lay, "(32,%lld):(%lld,1)", (long long)K, (long long)K);
    cute_arg_spec specs[3] = {cute_spec_tensor(sc->in, lay, 16), cute_spec_tensor(sc->in, lay, 16),
                              cute_spec_tensor(CUTE_F32, "(32,32):(1,32)", 16)};
    const cute_fn *f = cute_compile(rt, "swap", host, sc, 3, specs, err, sizeof err);
    CHECK(f != NULL, "%s: %s", what, err);
    if (!f) return -1;
    /* how wide are the global loads of the body? */
    int widest = ir_widest_load(cute_fn_kernel(f, 0));
    cute_backend *b = cute_runtime_backend(rt);
    size_t es = (size_t)cute_dtype_bytes(sc->in);
    double *A = malloc(sizeof(double) * 32 * (size_t)K), *B = malloc(sizeof(double) * 32 * (size_t)K);
    void *hA = malloc(es * 32 * (size_t)K), *hB = malloc(es * 32 * (size_t)K);
    for (int64_t i = 0; i < 32 * K; i++) {
        float x = (float)ew_random(seed) + 2.0f, y = (float)ew_random(seed) + 2.0f;
        if (sc->in == CUTE_F16) {
            ((uint16_t *)hA)[i] = f16_bits(x), ((uint16_t *)hB)[i] = f16_bits(y);
            A[i] = f16_value(((uint16_t *)hA)[i]), B[i] = f16_value(((uint16_t *)hB)[i]);
        } else {
            ((float *)hA)[i] = x, ((float *)hB)[i] = y, A[i] = x, B[i] = y;
        }
    }
    float C[32 * 32];
    for (int i = 0; i < 32 * 32; i++) C[i] = NAN; /* poison */
    cute_buffer dA, dB, dC;
    b->vt->alloc(b->self, es * 32 * (size_t)K, &dA);
    b->vt->alloc(b->self, es * 32 * (size_t)K, &dB);
    b->vt->alloc(b->self, sizeof C, &dC);
    b->vt->upload(b->self, &dA, 0, hA, es * 32 * (size_t)K);
    b->vt->upload(b->self, &dB, 0, hB, es * 32 * (size_t)K);
    b->vt->upload(b->self, &dC, 0, C, sizeof C);
    int64_t shp[2] = {32, K}, str[2] = {K, 1}, cs[2] = {32, 32}, cst[2] = {1, 32};
    cute_call_arg args[3] = {cute_call_tensor(&dA, 0, sc->in, 2, shp, str), cute_call_tensor(&dB, 0, sc->in, 2, shp, str),
                             cute_call_tensor(&dC, 0, CUTE_F32, 2, cs, cst)};
    char cerr[1024];
    cute_status s = cute_call(f, NULL, 3, args, cerr, sizeof cerr);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s %s", what, cerr, b->vt->error(b->self));
    b->vt->download(b->self, C, &dC, 0, sizeof C);
    int bad = 0;
    for (int n = 0; n < 32; n++)
        for (int mm = 0; mm < 32; mm++) {
            double ref = 0, mag = 0;
            for (int64_t kk = 0; kk < K; kk++) ref += A[mm * K + kk] * B[n * K + kk], mag += fabs(A[mm * K + kk] * B[n * K + kk]);
            if (!(fabs(C[mm + 32 * n] - ref) <= 1e-5 * mag)) bad++;
        }
    CHECK(bad == 0, "%s: %d of 1024 wrong", what, bad);
    b->vt->free(b->self, &dA), b->vt->free(b->self, &dB), b->vt->free(b->self, &dC);
    free(A), free(B), free(hA), free(hB);
    cute_fn_free(f);
    return widest;
}

/* the same body, the MMA atom swapped for mma.sync: 64 threads are two warps, (2,1,1) */
static void mma_sync_cases(cute_runtime *rt, uint64_t *seed)
{
    for (int cp = 1; cp < 3; cp++) {
        cute_alg a;
        cute_alg_init(&a, NULL);
        swap_case sc;
        memset(&sc, 0, sizeof sc);
        sc.in = CUTE_F16;
        sc.copy = cp;
        cute_mma_atom mma;
        CHECK(cute_mma_atom_named(&a, "SM80_16x8x16_F32F16F16F32_TN", &mma), "%s", a.error);
        cute_copy_atom copy = cp == 1 ? cute_copy_atom_universal(&a, sc.in, 16) : cute_copy_atom_autovec(&a, sc.in);
        cute_layout atoms = cute_layout_parse(&a, "(2,1,1):(1,0,0)");
        sc.mma = cute_make_tiled_mma(&a, &mma, &atoms, NULL, NULL, NULL);
        sc.copy_a = cute_make_tiled_copy_mma(&a, &copy, &sc.mma, CUTE_MMA_A);
        sc.copy_b = cute_make_tiled_copy_mma(&a, &copy, &sc.mma, CUTE_MMA_B);
        CHECK(!a.failed, "atoms: %s", a.error);
        char what[128];
        snprintf(what, sizeof what, "%s with %s", mma.name, cp == 1 ? "UniversalCopy<uint16>" : "autovec");
        run_case(rt, &sc, 64, seed, what);
    }
}

int main(void)
{
    uint64_t seed = (uint64_t)time(NULL) | 1;
    printf("atom_swap_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        CHECK(false, "interpreter: %s", err);
        return CHECK_DONE("atom_swap_test");
    }
    static const char *const copies[] = {"UniversalCopy<uint128>", "UniversalCopy<uint32>", "autovec"};
    for (int in = 0; in < 2; in++)
        for (int cp = 0; cp < 3; cp++) {
            cute_alg a;
            cute_alg_init(&a, NULL);
            swap_case sc;
            memset(&sc, 0, sizeof sc);
            sc.in = in ? CUTE_F16 : CUTE_F32;
            sc.copy = cp;
            /* the one line that picks the MMA atom */
            cute_mma_atom mma = in ? cute_mma_atom_universal_mixed(&a, CUTE_F16, CUTE_F32) : cute_mma_atom_universal(&a, CUTE_F32);
            /* the one line that picks the copy atom */
            cute_copy_atom copy = cp == 0 ? cute_copy_atom_universal(&a, sc.in, 128)
                                  : cp == 1 ? cute_copy_atom_universal(&a, sc.in, 8 * cute_dtype_bytes(sc.in))
                                            : cute_copy_atom_autovec(&a, sc.in);
            cute_layout atoms = cute_layout_parse(&a, "(8,8,1):(8,1,0)");
            cute_tiler perm_k = cute_tiler_parse(&a, "8:1"); /* 8 consecutive k per thread */
            sc.mma = cute_make_tiled_mma(&a, &mma, &atoms, NULL, NULL, &perm_k);
            sc.copy_a = cute_make_tiled_copy_mma(&a, &copy, &sc.mma, CUTE_MMA_A);
            sc.copy_b = cute_make_tiled_copy_mma(&a, &copy, &sc.mma, CUTE_MMA_B);
            CHECK(!a.failed, "atoms: %s", a.error);
            char what[128];
            snprintf(what, sizeof what, "%s with %s", mma.name, copies[cp]);
            int widest = run_case(rt, &sc, 64, &seed, what);
            /* a thread's 64 K values of one row: 128-bit chunks, single elements, or the
             * widest the layout proves (128 bits) */
            int want = cp == 1 ? 1 : 16 / cute_dtype_bytes(sc.in);
            CHECK(widest == want, "%s: widest global load %d elements, want %d", what, widest, want);
        }
    mma_sync_cases(rt, &seed);
    cute_runtime_free(rt);
    return CHECK_DONE("atom_swap_test");
}
