// hw_probe.cu — compares the interpreter's arithmetic and include/cutec/numeric.h's
// conversions with an NVIDIA GPU's, on the GPU (float8/tf32 against cvt on sm_89 and later).
// Not part of the build (no GPU in CI).  On a machine with nvcc and a GPU:
//   gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Isrc -c src/interp/numeric.c -o /tmp/numeric.o
//   nvcc -O2 -arch=native -Iinclude src/interp/gpu/hw_probe.cu /tmp/numeric.o -o /tmp/hw_probe && /tmp/hw_probe
// Prints one line per check: what was compared and how many results differ.
// docs/interpreter.md records its output on the H200.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <vector>

extern "C" {
#include "cutec/numeric.h"
}

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__);             \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint64_t d2u(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }
static double u2d(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }

// --- every f32 pattern to f16 and bf16 ------------------------------------------------------
// set 0: f16, bf16 (round to nearest even); set 1: e4m3, e5m2, ue4m3 (cvt.rn.satfinite,
// .relu), tf32 (cvt.rna); each result's bits in a u32
#define NOUT 4
__device__ uint32_t f8(uint16_t pair) { return pair & 0xffu; } // the low byte: b (x); a was 0.0f
__global__ void k_every_f32(uint32_t base, uint32_t n, int set, uint32_t *out)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = __uint_as_float(base + i), z = 0.0f;
    uint32_t r[NOUT] = {0, 0, 0, 0};
    uint16_t p;
    if (set == 0) {
        r[0] = __half_as_ushort(__float2half_rn(x));
        r[1] = __bfloat16_as_ushort(__float2bfloat16_rn(x));
    } else {
        asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(p) : "f"(z), "f"(x)); r[0] = f8(p);
        asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(p) : "f"(z), "f"(x)); r[1] = f8(p);
        asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(p) : "f"(z), "f"(x)); r[2] = f8(p);
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r[3]) : "f"(x));
    }
    for (int k = 0; k < NOUT; k++) out[(size_t)k * n + i] = r[k];
}

static uint32_t ours(int set, int k, float x)
{
    if (set == 0) return k == 0 ? cute_f32_to_f16(x) : k == 1 ? cute_f32_to_bf16(x) : 0;
    switch (k) {
    case 0: return cute_f32_to_e4m3(x);
    case 1: return cute_f32_to_e5m2(x);
    case 2: return cute_f32_to_ue4m3(x);
    default: return f2u(cute_f32_to_tf32(x));
    }
}

static void every_f32(int set)
{
    static const char *names[2][NOUT] = {{"f16", "bf16", "-", "-"}, {"e4m3", "e5m2", "ue4m3 (e4m3 .relu)", "tf32 (rna)"}};
    const uint32_t chunk = 1u << 26;
    uint32_t *d;
    CK(cudaMalloc(&d, (size_t)NOUT * chunk * 4));
    std::vector<uint32_t> g((size_t)NOUT * chunk);
    uint64_t bad[NOUT] = {0};
    for (uint64_t base = 0; base < (1ull << 32); base += chunk) {
        k_every_f32<<<chunk / 256, 256>>>((uint32_t)base, chunk, set, d);
        CK(cudaMemcpy(g.data(), d, (size_t)NOUT * chunk * 4, cudaMemcpyDeviceToHost));
        int nt = 16;
        std::vector<uint64_t> b((size_t)nt * NOUT);
        std::vector<std::thread> th;
        for (int t = 0; t < nt; t++)
            th.emplace_back([&, t] {
                for (uint32_t i = t; i < chunk; i += nt)
                    for (int k = 0; k < NOUT; k++) {
                        float x = u2f((uint32_t)(base + i));
                        uint32_t want = ours(set, k, x), got = g[(size_t)k * chunk + i];
                        if (want != got && b[(size_t)t * NOUT + k]++ == 0 && t == 0)
                            printf("  %s of %08x: gpu %x, ours %x\n", names[set][k], f2u(x), got, want);
                    }
            });
        for (auto &x : th) x.join();
        for (int t = 0; t < nt; t++)
            for (int k = 0; k < NOUT; k++) bad[k] += b[(size_t)t * NOUT + k];
    }
    for (int k = 0; k < NOUT; k++)
        if (names[set][k][0] != '-')
            printf("f32 -> %s, all 2^32 patterns: %llu differ\n", names[set][k], (unsigned long long)bad[k]);
    cudaFree(d);
}

// --- every e4m3 / e5m2 code to f16 (cvt.rn.f16x2.e4m3x2, sm_89): both in one u32 -----------------
__global__ void k_f8_to_f16(uint32_t *h)
{
    uint32_t i = threadIdx.x, a, b;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(a) : "h"((uint16_t)i));
    asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(b) : "h"((uint16_t)i));
    h[i] = (a & 0xffffu) | b << 16;
}

static void f8_codes(void)
{
    uint32_t *d, h[256];
    CK(cudaMalloc(&d, sizeof h));
    k_f8_to_f16<<<1, 256>>>(d);
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int bad[2] = {0, 0};
    for (int i = 0; i < 256; i++)
        for (int k = 0; k < 2; k++) {
            float v = k ? cute_e5m2_to_f32((uint8_t)i) : cute_e4m3_to_f32((uint8_t)i);
            uint16_t want = cute_f32_to_f16(v), got = (uint16_t)(h[i] >> (16 * k));
            if (want != got && bad[k]++ < 3)
                printf("  f16 of %s %02x: gpu %04x ours %04x\n", k ? "e5m2" : "e4m3", i, got, want);
        }
    printf("e4m3 -> f16, e5m2 -> f16, all 256 codes: %d / %d differ\n", bad[0], bad[1]);
    cudaFree(d);
}

// --- every f16/bf16 pattern to f32; f64 to f16/bf16 -------------------------------------------
__global__ void k_small_to_f32(uint32_t *h, uint32_t *b)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    h[i] = __float_as_uint(__half2float(__ushort_as_half((unsigned short)i)));
    b[i] = __float_as_uint(__bfloat162float(__ushort_as_bfloat16((unsigned short)i)));
}
__global__ void k_f64_to_small(const double *x, int n, uint16_t *h, uint16_t *b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    h[i] = __half_as_ushort(__double2half(x[i]));
    b[i] = __bfloat16_as_ushort(__double2bfloat16(x[i]));
}

static void small_patterns(void)
{
    uint32_t *dh, *db, h[65536], b[65536];
    CK(cudaMalloc(&dh, sizeof h));
    CK(cudaMalloc(&db, sizeof b));
    k_small_to_f32<<<256, 256>>>(dh, db);
    CK(cudaMemcpy(h, dh, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b, db, sizeof b, cudaMemcpyDeviceToHost));
    int bh = 0, bb = 0;
    for (int i = 0; i < 65536; i++) {
        if (f2u(cute_f16_to_f32((uint16_t)i)) != h[i] && bh++ < 3)
            printf("  f32 of f16 %04x: gpu %08x ours %08x\n", i, h[i], f2u(cute_f16_to_f32((uint16_t)i)));
        if (f2u(cute_bf16_to_f32((uint16_t)i)) != b[i] && bb++ < 3)
            printf("  f32 of bf16 %04x: gpu %08x ours %08x\n", i, b[i], f2u(cute_bf16_to_f32((uint16_t)i)));
    }
    printf("f16 -> f32, all 65536: %d differ; bf16 -> f32: %d differ\n", bh, bb);
    cudaFree(dh);
    cudaFree(db);
    // f64: midpoints of f16 and bf16 neighbours, one f64 ulp either side, and randoms
    std::vector<double> x;
    for (int i = 0; i < 0x7bff; i++) {
        double a = cute_f16_to_f32((uint16_t)i), c = cute_f16_to_f32((uint16_t)(i + 1)), m = (a + c) / 2;
        x.push_back(nextafter(m, 1e300)), x.push_back(nextafter(m, -1e300)), x.push_back(-m);
    }
    for (int i = 0; i < 0x7f7f; i++) {
        double a = cute_bf16_to_f32((uint16_t)i), c = cute_bf16_to_f32((uint16_t)(i + 1)), m = (a + c) / 2;
        x.push_back(nextafter(m, 1e300)), x.push_back(nextafter(m, -1e300)), x.push_back(m);
    }
    srand(1);
    for (int i = 0; i < 1 << 20; i++) {
        uint64_t u = ((uint64_t)rand() << 40) ^ ((uint64_t)rand() << 20) ^ (uint64_t)rand();
        u = (u & 0x800fffffffffffffull) | ((uint64_t)(1023 - 140 + rand() % 290) << 52);
        x.push_back(u2d(u));
    }
    x.push_back(NAN), x.push_back(INFINITY), x.push_back(1e300), x.push_back(-0.0);
    int n = (int)x.size();
    double *dx;
    uint16_t *d16, *d16b;
    std::vector<uint16_t> r16(n), rb(n);
    CK(cudaMalloc(&dx, n * 8));
    CK(cudaMalloc(&d16, n * 2));
    CK(cudaMalloc(&d16b, n * 2));
    CK(cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice));
    k_f64_to_small<<<(n + 255) / 256, 256>>>(dx, n, d16, d16b);
    CK(cudaMemcpy(r16.data(), d16, n * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(rb.data(), d16b, n * 2, cudaMemcpyDeviceToHost));
    int b1 = 0, b2 = 0;
    for (int i = 0; i < n; i++) {
        if (cute_f64_to_f16(x[i]) != r16[i] && b1++ < 3)
            printf("  f16 of f64 %a: gpu %04x ours %04x\n", x[i], r16[i], cute_f64_to_f16(x[i]));
        if (cute_f64_to_bf16(x[i]) != rb[i] && b2++ < 3)
            printf("  bf16 of f64 %a: gpu %04x ours %04x\n", x[i], rb[i], cute_f64_to_bf16(x[i]));
    }
    printf("f64 -> f16 / bf16, %d values (ties +-1 ulp, random): %d / %d differ\n", n, b1, b2);
    cudaFree(dx), cudaFree(d16), cudaFree(d16b);
}

// --- NaN results, signed zeros, conversions, shifts, division ------------------------------------
__global__ void k_specials(uint32_t *o, uint64_t *o64)
{
    float qn = __uint_as_float(0xffc00001u), sn = __uint_as_float(0x7f800001u), one = 1.0f, z = 0.0f;
    volatile float vz = z; // keep the compiler from folding
    int k = 0;
    o[k++] = __float_as_uint(qn + one);                     // 0 add, payload NaN
    o[k++] = __float_as_uint(sn * one);                     // 1 mul, signalling NaN
    o[k++] = __float_as_uint(fmaf(qn, one, one));           // 2 fma
    o[k++] = __float_as_uint(vz / vz);                      // 3 0/0
    o[k++] = __float_as_uint(sqrtf(-one - vz));             // 4 sqrt(-1)
    o[k++] = __float_as_uint(fminf(-vz, vz));               // 5 min(-0, +0)
    o[k++] = __float_as_uint(fminf(vz, -vz));               // 6 min(+0, -0)
    o[k++] = __float_as_uint(fmaxf(-vz, vz));               // 7 max(-0, +0)
    o[k++] = __float_as_uint(fmaxf(vz, -vz));               // 8 max(+0, -0)
    o[k++] = __float_as_uint(fminf(qn, one));               // 9 min(NaN, 1)
    o[k++] = __float_as_uint(fminf(qn, qn));                // 10 min(NaN, NaN)
    o[k++] = __half_as_ushort(__hadd(__float2half(vz / vz), __float2half(one))); // 11 f16 add NaN
    o[k++] = __half_as_ushort(__float2half(qn));            // 12 f16 of NaN
    o[k++] = __float_as_uint(__half2float(__ushort_as_half(0xfe01))); // 13 f32 of f16 NaN payload
    o[k++] = __float_as_uint((float)((double)__uint_as_float(0xffc00001u) + (double)vz)); // 14 f32(f64(NaN))
    o[k++] = (uint32_t)__float2int_rz(__uint_as_float(0x7fc00000u) + vz); // 15 (int)NaN
    o[k++] = (uint32_t)__float2int_rz(1e10f + vz);          // 16
    o[k++] = (uint32_t)__float2int_rz(-1e10f + vz);         // 17
    o[k++] = __float2uint_rz(-5.0f + vz);                   // 18
    float big = 300.7f + vz;
    unsigned char uc;
    asm("{ .reg .u16 t; cvt.rzi.sat.u8.f32 t, %1; cvt.u32.u16 %0, t; }" : "=r"(o[k]) : "f"(big)); k++; // 19
    int s33 = 33 + (int)vz, sm1 = -1 + (int)vz, x = -8 + (int)vz;
    uint32_t r;
    asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(1u), "r"(s33)); o[k++] = r;   // 20 shl by 33
    asm("shr.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(s33)); o[k++] = r;    // 21 sar by 33
    asm("shr.u32 %0, %1, %2;" : "=r"(r) : "r"(0x80000000u), "r"(sm1)); o[k++] = r; // 22 shr by -1
    int mn = INT32_MIN + (int)vz, m1 = -1 + (int)vz;
    o[k++] = (uint32_t)(mn / m1);                           // 23 INT_MIN / -1
    o[k++] = (uint32_t)(mn % m1);                           // 24 INT_MIN % -1
    o[k++] = __half_as_ushort(__hfma(__float2half(4.53125f + vz), __float2half(3.53125f), __float2half(32768.0f))); // 25
    o[k++] = __bfloat16_as_ushort(__hfma(__float2bfloat16(7.0f + vz), __float2bfloat16(37.0f), __float2bfloat16(-0x1p-100f))); // 26
    o[k++] = __float_as_uint(rsqrtf(2.0f + vz));            // 27
    (void)uc;
    double dq = __longlong_as_double(0xfff8000000000001ll);
    o64[0] = (uint64_t)__double_as_longlong(dq + 1.0);      // f64 add NaN payload
    o64[1] = (uint64_t)__double_as_longlong(((double)vz) / (double)vz); // f64 0/0
    o64[2] = (uint64_t)__double_as_longlong(fmin(dq, dq));
    o64[3] = (uint64_t)__double_as_longlong((double)__uint_as_float(0xffc00001u)); // f64 of f32 NaN
}

static void specials(void)
{
    uint32_t *d, o[32];
    uint64_t *d64, o64[4];
    CK(cudaMalloc(&d, sizeof o));
    CK(cudaMalloc(&d64, sizeof o64));
    k_specials<<<1, 1>>>(d, d64);
    CK(cudaMemcpy(o, d, sizeof o, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o64, d64, sizeof o64, cudaMemcpyDeviceToHost));
    const char *names[] = {"f32 add(NaN payload,1)", "f32 mul(sNaN,1)", "f32 fma(NaN,1,1)", "f32 0/0",
                           "f32 sqrt(-1)", "fminf(-0,+0)", "fminf(+0,-0)", "fmaxf(-0,+0)", "fmaxf(+0,-0)",
                           "fminf(NaN,1)", "fminf(NaN,NaN)", "f16 add(NaN,1)", "f16 of f32 NaN",
                           "f32 of f16 NaN fe01", "f32(f64(NaN ffc00001))", "cvt.rzi.s32 NaN",
                           "cvt.rzi.s32 1e10", "cvt.rzi.s32 -1e10", "cvt.rzi.u32 -5",
                           "cvt.rzi.sat.u8 300.7", "shl.b32 1<<33", "shr.s32 -8>>33", "shr.u32 x>>-1",
                           "INT_MIN / -1", "INT_MIN % -1", "hfma f16 tie case", "hfma bf16 sticky case",
                           "rsqrtf(2)"};
    for (int i = 0; i < 28; i++) printf("  %-28s %08x\n", names[i], o[i]);
    printf("  %-28s %016llx\n", "f64 add(NaN payload,1)", (unsigned long long)o64[0]);
    printf("  %-28s %016llx\n", "f64 0/0", (unsigned long long)o64[1]);
    printf("  %-28s %016llx\n", "fmin(NaN,NaN) f64", (unsigned long long)o64[2]);
    printf("  %-28s %016llx\n", "f64 of f32 NaN", (unsigned long long)o64[3]);
    printf("  (rsqrtf(2) correctly rounded: %08x)\n", f2u((float)(1.0 / sqrt(2.0))));
}

// --- math functions: the largest difference in f32 ulps between the GPU and glibc ---------------
#define NFN 11
__global__ void k_math(const float *x, int n, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[0 * n + i] = expf(v);
    y[1 * n + i] = exp2f(v);
    y[2 * n + i] = logf(fabsf(v));
    y[3 * n + i] = log2f(fabsf(v));
    y[4 * n + i] = sqrtf(fabsf(v));
    y[5 * n + i] = rsqrtf(fabsf(v));
    y[6 * n + i] = tanhf(v);
    y[7 * n + i] = sinf(v);
    y[8 * n + i] = cosf(v);
    y[9 * n + i] = erff(v);
    y[10 * n + i] = powf(fabsf(v), 1.37f);
}

static int64_t ulps(float a, float b)
{
    if (a != a && b != b) return 0;
    if (a == b) return 0;
    int32_t x = (int32_t)f2u(a), y = (int32_t)f2u(b);
    if (x < 0) x = INT32_MIN - x;
    if (y < 0) y = INT32_MIN - y;
    return x > y ? (int64_t)x - y : (int64_t)y - x;
}

static void math(void)
{
    int n = 1 << 20;
    std::vector<float> x(n), y((size_t)NFN * n);
    srand(2);
    for (int i = 0; i < n; i++) x[i] = (float)((double)rand() / RAND_MAX * 40 - 20);
    float *dx, *dy;
    CK(cudaMalloc(&dx, n * 4));
    CK(cudaMalloc(&dy, (size_t)NFN * n * 4));
    CK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
    k_math<<<n / 256, 256>>>(dx, n, dy);
    CK(cudaMemcpy(y.data(), dy, (size_t)NFN * n * 4, cudaMemcpyDeviceToHost));
    const char *names[NFN] = {"expf", "exp2f", "logf", "log2f", "sqrtf", "rsqrtf", "tanhf", "sinf",
                              "cosf", "erff", "powf"};
    for (int f = 0; f < NFN; f++) {
        int64_t worst = 0, differ = 0;
        for (int i = 0; i < n; i++) {
            float v = x[i], c;
            switch (f) {
            case 0: c = expf(v); break;
            case 1: c = exp2f(v); break;
            case 2: c = logf(fabsf(v)); break;
            case 3: c = log2f(fabsf(v)); break;
            case 4: c = sqrtf(fabsf(v)); break;
            case 5: c = (float)(1.0 / sqrt((double)fabsf(v))); break;
            case 6: c = tanhf(v); break;
            case 7: c = sinf(v); break;
            case 8: c = cosf(v); break;
            case 9: c = erff(v); break;
            default: c = powf(fabsf(v), 1.37f); break;
            }
            int64_t u = ulps(c, y[(size_t)f * n + i]);
            differ += u != 0;
            if (u > worst) worst = u;
        }
        printf("  %-7s on [-20,20]: %6.2f%% differ from glibc, at most %lld ulp\n", names[f],
               100.0 * differ / n, (long long)worst);
    }
    cudaFree(dx), cudaFree(dy);
}

int main(void)
{
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("device: %s (sm_%d%d)\n", p.name, p.major, p.minor);
    small_patterns();
    specials();
    math();
    every_f32(0);
    if (p.major * 10 + p.minor >= 89) {
        f8_codes();
        every_f32(1);
    }
    return 0;
}
