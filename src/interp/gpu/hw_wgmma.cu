// hw_wgmma.cu — records fp8 wgmma (m64nNk32, f32 accumulators, A and B from shared memory)
// on an sm_90 GPU: each case's shared images of A and B, every thread's accumulators in and
// out, written as the C header src/interp/hw_wgmma_cases.h.  The interpreter computes fp8
// wgmma closer to exact than the H200 (docs/interpreter.md: about 14 bits of the sum are
// kept there); these recordings are what a model of that arithmetic must be fitted to and
// replayed against (as hw_mma_cases.h is for mma.sync).  Not part of the build:
//   nvcc -O2 -gencode arch=compute_90a,code=sm_90a src/interp/gpu/hw_wgmma.cu -o /tmp/hw_wgmma
//   /tmp/hw_wgmma > src/interp/hw_wgmma_cases.h
// `/tmp/hw_wgmma SEED` draws other inputs (default 11).  Operands are K-major without swizzle,
// as the interpreter's descriptor decoding (inst_wgmma.c) reads them: byte (r, k) of an
// operand of rows r (M for A, N for B) lies at (r/8)*256 + (k/16)*128 + (r%8)*16 + k%16
// (LBO 128, SBO 256).  Before the recordings, a case of small exact values is checked against
// the exact product with that layout: if it differs the program says so and writes nothing.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__);            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum { NMAX = 32, AB = 64 * 32, BB = NMAX * 32, REGS = NMAX / 2 };

__device__ uint64_t desc_of(uint32_t saddr)
{
    return (uint64_t)((saddr >> 4) & 0x3fff) | (uint64_t)(128 >> 4) << 16 | (uint64_t)(256 >> 4) << 32;
}

// the warpgroup loads A and B into shared memory, fences them for the async proxy, issues
// one wgmma (scale-d 1) and waits for it; c/d: REGS words per thread
#define WG_PROLOGUE                                                                                \
    __shared__ __align__(128) uint8_t sa[AB], sb[BB];                                              \
    int t = threadIdx.x;                                                                           \
    for (int i = t; i < AB; i += 128) sa[i] = a[i];                                                \
    for (int i = t; i < BB; i += 128) sb[i] = b[i];                                                \
    float f[REGS];                                                                                 \
    for (int i = 0; i < REGS; i++) f[i] = __uint_as_float(c[t * REGS + i]);                        \
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");                                   \
    __syncthreads();                                                                               \
    uint64_t da = desc_of((uint32_t)__cvta_generic_to_shared(sa));                                 \
    uint64_t db = desc_of((uint32_t)__cvta_generic_to_shared(sb));                                 \
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory")
#define WG_EPILOGUE                                                                                \
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");                                 \
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");                                 \
    for (int i = 0; i < REGS; i++) d[t * REGS + i] = __float_as_uint(f[i])
#define F4(i) "+f"(f[i]), "+f"(f[i + 1]), "+f"(f[i + 2]), "+f"(f[i + 3])
#define R4 "%0, %1, %2, %3"
#define R8 R4 ", %4, %5, %6, %7"
#define R16 R8 ", %8, %9, %10, %11, %12, %13, %14, %15"
// one kernel per (N, types): REGLIST the accumulators' operands, DA DB the descriptors'
#define KERNEL(name, N, T, REGLIST, DA, DB, ...)                                                   \
    __global__ void name(const uint8_t *a, const uint8_t *b, const uint32_t *c, uint32_t *d)      \
    {                                                                                              \
        WG_PROLOGUE;                                                                               \
        asm volatile("{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n" #N  \
                     "k32.f32." T " {" REGLIST "}, " DA ", " DB ", p, 1, 1; }"                    \
                     : __VA_ARGS__ : "l"(da), "l"(db) : "memory");                                \
        WG_EPILOGUE;                                                                               \
    }
KERNEL(k8_e4m3_e4m3, 8, "e4m3.e4m3", R4, "%4", "%5", F4(0))
KERNEL(k32_e4m3_e4m3, 32, "e4m3.e4m3", R16, "%16", "%17", F4(0), F4(4), F4(8), F4(12))
KERNEL(k16_e4m3_e5m2, 16, "e4m3.e5m2", R8, "%8", "%9", F4(0), F4(4))
KERNEL(k16_e5m2_e4m3, 16, "e5m2.e4m3", R8, "%8", "%9", F4(0), F4(4))
KERNEL(k16_e5m2_e5m2, 16, "e5m2.e5m2", R8, "%8", "%9", F4(0), F4(4))

typedef void (*kernel_fn)(const uint8_t *, const uint8_t *, const uint32_t *, uint32_t *);
typedef struct row {
    const char *id; /* the instruction table's row (CUTE_INST_<id>) */
    int n, ta, tb;  /* N; the types of A and B: 0 e4m3, 1 e5m2 */
    kernel_fn fn;
} row;
static const row rows[] = {
    {"WGMMA_64x8x32_F32E4M3E4M3_SS", 8, 0, 0, k8_e4m3_e4m3},
    {"WGMMA_64x32x32_F32E4M3E4M3_SS", 32, 0, 0, k32_e4m3_e4m3},
    {"WGMMA_64x16x32_F32E4M3E5M2_SS", 16, 0, 1, k16_e4m3_e5m2},
    {"WGMMA_64x16x32_F32E5M2E4M3_SS", 16, 1, 0, k16_e5m2_e4m3},
    {"WGMMA_64x16x32_F32E5M2E5M2_SS", 16, 1, 1, k16_e5m2_e5m2},
};

/* --- host: fp8 values, the layouts, the cases --------------------------------------------- */

static double fp8(int type, uint8_t v)
{
    int s = v >> 7, e = type ? (v >> 2) & 31 : (v >> 3) & 15, m = type ? v & 3 : v & 7;
    int mb = type ? 2 : 3, bias = type ? 15 : 7;
    double x = e ? ldexp(1.0 + m / (double)(1 << mb), e - bias) : ldexp(m / (double)(1 << mb), 1 - bias);
    return s ? -x : x;
}

static bool finite8(int type, uint8_t v)
{
    return type ? ((v >> 2) & 31) != 31 : (v & 0x7f) != 0x7f;
}

/* byte (r, k) of a K-major operand in the recorded layout */
static int at(int r, int k) { return (r / 8) * 256 + (k / 16) * 128 + (r % 8) * 16 + k % 16; }

/* thread t's register i of D: its row and column (CuTe's CLayout_64xN) */
static void d_place(int t, int i, int *row, int *col)
{
    int w = t / 32, l = t % 32;
    *row = 16 * w + l / 4 + 8 * ((i / 2) % 2);
    *col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
}

static uint32_t rnd(void) { return (uint32_t)rand() << 16 ^ (uint32_t)rand(); }

/* a random finite code of `type`; small: one of +-0.5, +-1, +-1.5, +-2 */
static uint8_t code(int type, bool small)
{
    static const uint8_t s4[] = {0x30, 0x38, 0x3c, 0x40}, s5[] = {0x38, 0x3c, 0x3e, 0x40};
    if (small) return (uint8_t)((type ? s5 : s4)[rand() % 4] | (rand() & 1) << 7);
    for (;;) {
        uint8_t v = (uint8_t)rnd();
        if (finite8(type, v)) return v;
    }
}

typedef struct kcase {
    uint8_t a[AB], b[BB];
    uint32_t c[128 * REGS], d[128 * REGS];
} kcase;

/* mode 0: random codes, C of moderate size; 1: random codes, C spread over many binades;
 * 2: small exact values (the layout check) */
static void fill(const row *R, int mode, kcase *K)
{
    memset(K, 0, sizeof *K);
    for (int i = 0; i < AB; i++) K->a[i] = code(R->ta, mode == 2);
    for (int i = 0; i < R->n * 32; i++) K->b[i] = code(R->tb, mode == 2);
    for (int t = 0; t < 128; t++)
        for (int i = 0; i < R->n / 2; i++) {
            float x = mode == 2 ? (float)(rand() % 9 - 4) : ldexpf((float)(rnd() % 2000001) / 1e6f - 1.0f,
                                                                    mode == 1 ? rand() % 40 - 20 : rand() % 8);
            memcpy(&K->c[t * REGS + i], &x, 4);
        }
}

static void run(const row *R, kcase *K)
{
    uint8_t *a, *b;
    uint32_t *c, *d;
    CK(cudaMalloc(&a, AB));
    CK(cudaMalloc(&b, BB));
    CK(cudaMalloc(&c, sizeof K->c));
    CK(cudaMalloc(&d, sizeof K->d));
    CK(cudaMemcpy(a, K->a, AB, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, K->b, BB, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(c, K->c, sizeof K->c, cudaMemcpyHostToDevice));
    CK(cudaMemset(d, 0xff, sizeof K->d));
    R->fn<<<1, 128>>>(a, b, c, d);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(K->d, d, sizeof K->d, cudaMemcpyDeviceToHost));
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
    CK(cudaFree(d));
}

/* small exact values: every D must be the exact C + A B with the layouts above */
static int layout_errors(const row *R, const kcase *K)
{
    int bad = 0;
    for (int t = 0; t < 128; t++)
        for (int i = 0; i < R->n / 2; i++) {
            int r, col;
            d_place(t, i, &r, &col);
            float c, got;
            memcpy(&c, &K->c[t * REGS + i], 4), memcpy(&got, &K->d[t * REGS + i], 4);
            double want = c;
            for (int k = 0; k < 32; k++) want += fp8(R->ta, K->a[at(r, k)]) * fp8(R->tb, K->b[at(col, k)]);
            bad += got != (float)want;
        }
    return bad;
}

static void print_words(const uint32_t *w, int n, int per)
{
    printf("{");
    for (int t = 0; t < 128; t++) {
        printf("%s{", t ? "," : "");
        for (int i = 0; i < n; i++) printf("%s0x%x", i ? "," : "", w[t * per + i]);
        printf("}");
    }
    printf("}");
}

static void print_bytes(const uint8_t *v, int n)
{
    printf("{");
    for (int i = 0; i < n; i++) printf("%s0x%x", i ? "," : "", v[i]);
    printf("}");
}

static void print_case(const row *R, const char *mode, const kcase *K)
{
    printf("    {\"%s %s\", \"%s\", %d,\n     ", R->id, mode, R->id, R->n);
    print_bytes(K->a, AB), printf(",\n     "), print_bytes(K->b, R->n * 32), printf(",\n     ");
    print_words(K->c, R->n / 2, REGS), printf(",\n     "), print_words(K->d, R->n / 2, REGS), printf("},\n");
}

int main(int argc, char **argv)
{
    srand(argc > 1 ? (unsigned)atoi(argv[1]) : 11u);
    static kcase K;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) { /* the layout, first */
        fill(&rows[r], 2, &K);
        run(&rows[r], &K);
        int bad = layout_errors(&rows[r], &K);
        if (bad) return fprintf(stderr, "%s: %d accumulators differ from the exact product of small values: the "
                                "recorder's layout or descriptors are wrong; nothing recorded\n", rows[r].id, bad), 1;
    }
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("/* generated by src/interp/gpu/hw_wgmma.cu on an %s (sm_%d%d), seed %d: fp8 wgmma\n"
           " * m64nNk32 with f32 accumulators, A (64x32) and B (Nx32) K-major in shared memory, byte (r, k)\n"
           " * at (r/8)*256 + (k/16)*128 + (r%%8)*16 + k%%16 (descriptors: LBO 128, SBO 256, no swizzle);\n"
           " * c and d: each thread's N/2 accumulator registers before and after (D's element of thread\n"
           " * t, register i: row 16(t/32) + (t%%32)/4 + 8((i/2)%%2), column 8(i/4) + 2(t%%4) + i%%2), scale-d 1.\n"
           " * The layout was checked against the exact product of small values first. */\n",
           p.name, p.major, p.minor, argc > 1 ? atoi(argv[1]) : 11);
    printf("typedef struct hw_wgmma_case {\n    const char *name, *row;\n    int n;\n    uint8_t a[%d], b[%d];\n"
           "    uint32_t c[128][%d], d[128][%d];\n} hw_wgmma_case;\nstatic const hw_wgmma_case hw_wgmma_cases[] = {\n",
           AB, BB, REGS, REGS);
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        for (int mode = 0; mode < 2; mode++) {
            fill(&rows[r], mode, &K);
            run(&rows[r], &K);
            print_case(&rows[r], mode ? "random wide" : "random", &K);
        }
    printf("};\n");
    return 0;
}
