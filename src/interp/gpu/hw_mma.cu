// hw_mma.cu — runs the PTX instructions the interpreter emulates (mma.sync, ldmatrix,
// cvt packs) on a GPU with fixed inputs and writes every lane's inputs and results as the
// C header src/interp/hw_mma_cases.h, which asm_test.c replays through the interpreter.
// Not part of the build.  On a machine with nvcc and an sm_80+ GPU:
//   nvcc -O2 -arch=native src/interp/gpu/hw_mma.cu -o /tmp/hw_mma && /tmp/hw_mma > src/interp/hw_mma_cases.h
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

enum { NIN = 12, NOUT = 4 };
typedef struct { const char *ptx; int nout, nin; uint32_t in[32][NIN], out[32][NOUT]; } mcase;

#define MMA_KERNEL(NAME, PTX, ND, NA, NB, NC)                                                     \
    __global__ void NAME(const uint32_t *in, uint32_t *out)                                       \
    {                                                                                              \
        int l = threadIdx.x;                                                                       \
        uint32_t r[16] = {0}, d[4] = {0};                                                          \
        for (int k = 0; k < NA + NB + NC; k++) r[k] = in[l * NIN + k];                             \
        MMA_ASM_##ND##_##NA##_##NB##_##NC(PTX);                                                    \
        for (int k = 0; k < ND; k++) out[l * NOUT + k] = d[k];                                     \
    }
#define MMA_ASM_4_4_2_4(P) asm volatile(P : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]))
#define MMA_ASM_4_2_1_4(P) asm volatile(P : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]))
#define MMA_ASM_2_4_2_2(P) asm volatile(P : "=r"(d[0]), "=r"(d[1]) : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]))

#define P_K16(T) "mma.sync.aligned.m16n8k16.row.col.f32." T "." T ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
#define P_K8(T) "mma.sync.aligned.m16n8k8.row.col.f32." T "." T ".f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
#define P_TF32 "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
#define P_H16 "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
MMA_KERNEL(k_f16_k16, P_K16("f16"), 4, 4, 2, 4)
MMA_KERNEL(k_bf16_k16, P_K16("bf16"), 4, 4, 2, 4)
MMA_KERNEL(k_f16_k8, P_K8("f16"), 4, 2, 1, 4)
MMA_KERNEL(k_bf16_k8, P_K8("bf16"), 4, 2, 1, 4)
MMA_KERNEL(k_tf32, P_TF32, 4, 4, 2, 4)
MMA_KERNEL(k_h16, P_H16, 2, 4, 2, 2)

#define LDM_KERNEL(NAME, PTX, N)                                                                   \
    __global__ void NAME(const uint32_t *img, const uint32_t *in, uint32_t *out)                  \
    {                                                                                              \
        __shared__ __align__(16) uint32_t s[256];                                                 \
        int l = threadIdx.x;                                                                       \
        for (int i = l; i < 256; i += 32) s[i] = img[i];                                           \
        __syncwarp();                                                                              \
        uint32_t a = (uint32_t)__cvta_generic_to_shared(s) + in[l * NIN], d[4] = {0};              \
        LDM_ASM_##N(PTX);                                                                          \
        for (int k = 0; k < N; k++) out[l * NOUT + k] = d[k];                                      \
    }
#define LDM_ASM_1(P) asm volatile(P : "=r"(d[0]) : "r"(a))
#define LDM_ASM_2(P) asm volatile(P : "=r"(d[0]), "=r"(d[1]) : "r"(a))
#define LDM_ASM_4(P) asm volatile(P : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a))
LDM_KERNEL(k_ldm1, "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];", 1)
LDM_KERNEL(k_ldm2t, "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];", 2)
LDM_KERNEL(k_ldm4, "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];", 4)
LDM_KERNEL(k_ldm4t, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];", 4)

__global__ void k_cvt(const uint32_t *in, uint32_t *out)
{
    int l = threadIdx.x;
    float a = __uint_as_float(in[l * NIN]), b = __uint_as_float(in[l * NIN + 1]);
    uint32_t h, bf;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(h) : "f"(a), "f"(b));
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(bf) : "f"(a), "f"(b));
    out[l * NOUT] = h;
    out[l * NOUT + 1] = bf;
}

static uint32_t rnd(void) { return (uint32_t)rand() << 16 ^ (uint32_t)rand(); }
static uint16_t f2h_small(int v) { /* v/4 for |v| <= 8 as f16 bits, exactly */
    float f = v / 4.0f;
    if (f == 0) return 0;
    uint32_t u; memcpy(&u, &f, 4);
    int e = (int)((u >> 23) & 0xff) - 127 + 15;
    return (uint16_t)((u >> 16 & 0x8000) | (e << 10) | ((u >> 13) & 0x3ff));
}
static uint16_t f2b_small(int v) { float f = v / 4.0f; uint32_t u; memcpy(&u, &f, 4); return (uint16_t)(u >> 16); }

static void print_case(const char *name, const mcase *c, const char *img)
{
    printf("    {\"%s\", \"", name);
    for (const char *p = c->ptx; *p; p++) putchar(*p == '"' ? '\'' : *p);
    printf("\", %d, %d, %s,\n     {", c->nout, c->nin, img ? img : "0");
    for (int l = 0; l < 32; l++) {
        printf("{");
        for (int k = 0; k < c->nin; k++) printf("0x%x%s", c->in[l][k], k + 1 < c->nin ? "," : "");
        printf("}%s", l < 31 ? "," : "");
    }
    printf("},\n     {");
    for (int l = 0; l < 32; l++) {
        printf("{");
        for (int k = 0; k < c->nout; k++) printf("0x%x%s", c->out[l][k], k + 1 < c->nout ? "," : "");
        printf("}%s", l < 31 ? "," : "");
    }
    printf("}},\n");
}

typedef void (*mma_fn)(const uint32_t *, uint32_t *);

int main(void)
{
    uint32_t *din, *dout, *dimg;
    CK(cudaMalloc(&din, 32 * NIN * 4));
    CK(cudaMalloc(&dout, 32 * NOUT * 4));
    CK(cudaMalloc(&dimg, 1024));
    srand(11);
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("/* generated by src/interp/gpu/hw_mma.cu on an %s (sm_%d%d): each case's 32 lanes,\n"
           " * their input registers and the results the hardware gave */\n", p.name, p.major, p.minor);
    printf("typedef struct hw_case {\n    const char *name, *ptx;\n    int nout, nin, img;\n"
           "    uint32_t in[32][%d], out[32][%d];\n} hw_case;\n", NIN, NOUT);
    /* the shared-memory image of the ldmatrix cases: 512 distinct 16-bit values */
    uint16_t img[512];
    for (int i = 0; i < 512; i++) img[i] = (uint16_t)(i * 37 + 5);
    printf("static const uint16_t hw_img[512] = {");
    for (int i = 0; i < 512; i++) printf("%s0x%x", i ? "," : "", img[i]);
    printf("};\nstatic const hw_case hw_cases[] = {\n");
    CK(cudaMemcpy(dimg, img, 1024, cudaMemcpyHostToDevice));
    struct { const char *name, *ptx; mma_fn fn; int nd, na, nb, nc, type; bool rnd; } mm[] = {
        {"mma f16 k16", P_K16("f16"), k_f16_k16, 4, 4, 2, 4, 0, false},
        {"mma bf16 k16", P_K16("bf16"), k_bf16_k16, 4, 4, 2, 4, 1, false},
        {"mma f16 k8", P_K8("f16"), k_f16_k8, 4, 2, 1, 4, 0, false},
        {"mma bf16 k8", P_K8("bf16"), k_bf16_k8, 4, 2, 1, 4, 1, false},
        {"mma tf32 k8", P_TF32, k_tf32, 4, 4, 2, 4, 2, false},
        {"mma f16 k16 f16 accumulate", P_H16, k_h16, 2, 4, 2, 2, 3, false},
        {"mma f16 k16 random", P_K16("f16"), k_f16_k16, 4, 4, 2, 4, 0, true},
        {"mma bf16 k16 random", P_K16("bf16"), k_bf16_k16, 4, 4, 2, 4, 1, true},
        {"mma f16 k8 random", P_K8("f16"), k_f16_k8, 4, 2, 1, 4, 0, true},
        {"mma bf16 k8 random", P_K8("bf16"), k_bf16_k8, 4, 2, 1, 4, 1, true},
        {"mma tf32 k8 random", P_TF32, k_tf32, 4, 4, 2, 4, 2, true},
        {"mma f16 k16 f16 accumulate random", P_H16, k_h16, 2, 4, 2, 2, 3, true},
        {"mma f16 k16 random wide", P_K16("f16"), k_f16_k16, 4, 4, 2, 4, 4, true},
    };
    for (int q = 0; q < (int)(sizeof mm / sizeof mm[0]); q++) {
        mcase c;
        memset(&c, 0, sizeof c);
        c.ptx = mm[q].ptx, c.nout = mm[q].nd, c.nin = mm[q].na + mm[q].nb + mm[q].nc;
        for (int l = 0; l < 32; l++)
            for (int k = 0; k < c.nin; k++) {
                bool isc = k >= mm[q].na + mm[q].nb;
                int t = mm[q].type;
                if (mm[q].rnd) {
                    uint32_t u = rnd();
                    if (t == 0 || t == 3) u &= 0xbfffbfffu; /* f16: |x| < 2 */
                    if (t == 1) u = (u & 0x807f807fu) | ((120u + rnd() % 10) << 7) | ((120u + rnd() % 10) << 23);
                    if (t == 2) u = (u & 0x807fffffu) | ((120u + rnd() % 10) << 23);
                    if (t == 4) u = (u & 0x83ff83ffu) | ((5u + rnd() % 20) << 10) | ((5u + rnd() % 20) << 26);
                    if (isc && t != 3) { float f = (float)((int)(rnd() % 2001) - 1000) / 64; memcpy(&u, &f, 4); }
                    if (isc && t == 4) { float f = ldexpf((float)((int)(rnd() % 2001) - 1000), (int)(rnd() % 30) - 20); memcpy(&u, &f, 4); }
                    c.in[l][k] = u;
                } else if (isc && t != 3) {
                    float f = (float)((int)(rnd() % 17) - 8) / 4;
                    memcpy(&c.in[l][k], &f, 4);
                } else if (t == 2) { /* tf32: v/4 with junk in the 13 bits the hardware drops */
                    float f = (float)((int)(rnd() % 17) - 8) / 4;
                    uint32_t u; memcpy(&u, &f, 4);
                    c.in[l][k] = f == 0 ? 0 : u | (rnd() & 0x1fff);
                } else {
                    int lo = (int)(rnd() % 17) - 8, hi = (int)(rnd() % 17) - 8;
                    c.in[l][k] = t == 1 ? (uint32_t)f2b_small(lo) | (uint32_t)f2b_small(hi) << 16
                                        : (uint32_t)f2h_small(lo) | (uint32_t)f2h_small(hi) << 16;
                }
            }
        uint32_t flat[32 * NIN], o[32 * NOUT];
        for (int l = 0; l < 32; l++) memcpy(&flat[l * NIN], c.in[l], NIN * 4);
        CK(cudaMemcpy(din, flat, sizeof flat, cudaMemcpyHostToDevice));
        mm[q].fn<<<1, 32>>>(din, dout);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost));
        for (int l = 0; l < 32; l++) memcpy(c.out[l], &o[l * NOUT], NOUT * 4);
        print_case(mm[q].name, &c, NULL);
    }
    struct { const char *name, *ptx; void (*fn)(const uint32_t *, const uint32_t *, uint32_t *); int n; } lm[] = {
        {"ldmatrix x1", "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];", k_ldm1, 1},
        {"ldmatrix x2 trans", "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];", k_ldm2t, 2},
        {"ldmatrix x4", "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];", k_ldm4, 4},
        {"ldmatrix x4 trans", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];", k_ldm4t, 4},
    };
    for (int q = 0; q < 4; q++) {
        mcase c;
        memset(&c, 0, sizeof c);
        c.ptx = lm[q].ptx, c.nout = lm[q].n, c.nin = 1;
        for (int l = 0; l < 32; l++) c.in[l][0] = (uint32_t)((l * 13 + q * 7) % 64) * 16; /* a row each */
        uint32_t flat[32 * NIN], o[32 * NOUT];
        for (int l = 0; l < 32; l++) memcpy(&flat[l * NIN], c.in[l], NIN * 4);
        CK(cudaMemcpy(din, flat, sizeof flat, cudaMemcpyHostToDevice));
        lm[q].fn<<<1, 32>>>(dimg, din, dout);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost));
        for (int l = 0; l < 32; l++) memcpy(c.out[l], &o[l * NOUT], NOUT * 4);
        print_case(lm[q].name, &c, "1");
    }
    {
        mcase c;
        memset(&c, 0, sizeof c);
        c.ptx = "cvt.rn.f16x2.f32 %0, %1, %2;", c.nout = 1, c.nin = 2;
        for (int l = 0; l < 32; l++) c.in[l][0] = rnd() & 0xc7ffffffu, c.in[l][1] = rnd() & 0xc7ffffffu;
        c.in[0][0] = 0x7fc00001u; /* a NaN */
        uint32_t flat[32 * NIN], o[32 * NOUT];
        for (int l = 0; l < 32; l++) memcpy(&flat[l * NIN], c.in[l], NIN * 4);
        CK(cudaMemcpy(din, flat, sizeof flat, cudaMemcpyHostToDevice));
        k_cvt<<<1, 32>>>(din, dout);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost));
        for (int l = 0; l < 32; l++) c.out[l][0] = o[l * NOUT];
        print_case("cvt f16x2", &c, NULL);
        c.ptx = "cvt.rn.bf16x2.f32 %0, %1, %2;";
        for (int l = 0; l < 32; l++) c.out[l][0] = o[l * NOUT + 1];
        print_case("cvt bf16x2", &c, NULL);
    }
    printf("};\n");
    return 0;
}
