// hw_mma.cu — runs the instruction table's register and shared-memory rows (every mma.sync,
// ldmatrix, stmatrix and cvt pack of include/cutec/ir_insts.def) on a GPU with distinct
// inputs per lane and writes every lane's inputs and results as the C header
// src/interp/hw_mma_cases.h, which src/interp/inst_test.c replays through the interpreter.
// Not part of the build.  On a machine with nvcc and an sm_90 GPU (the sm_90 rows need it):
//   nvcc -O2 -arch=sm_90a src/interp/gpu/hw_mma.cu -o /tmp/hw_mma && /tmp/hw_mma > src/interp/hw_mma_cases.h
// Each row gets a case of random inputs ("<ROW> random"); the 16-bit, tf32 and f64 rows also
// one of small exact values ("<ROW> small") and the f32-accumulating f16 rows one of widely
// spread magnitudes ("<ROW> random wide").  A row added to the table gets its kernel here
// (one asm statement, its operands numbered in PTX order) and a line in `rows` below.
// `/tmp/hw_mma SEED` draws other random inputs (the header's default is seed 11).
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

enum { NIN = 32, NOUT = 8 }; // 32-bit words per lane (an f64 register is two, low first)

// a lane's input words r[], its output words d[]
#define LANE_IN                                                                                    \
    int l = threadIdx.x;                                                                           \
    uint32_t r[NIN], d[NOUT] = {0};                                                                \
    for (int k = 0; k < NIN; k++) r[k] = in[l * NIN + k]
#define LANE_OUT                                                                                   \
    for (int k = 0; k < NOUT; k++) out[l * NOUT + k] = d[k]
// shared memory holds the 1 KB image; a = its shared-window address + the lane's word 0
#define SHARED_IMAGE                                                                               \
    __shared__ __align__(16) uint32_t s[256];                                                      \
    for (int i = l; i < 256; i += 32) s[i] = img[i];                                               \
    __syncwarp();                                                                                  \
    uint32_t a = (uint32_t)__cvta_generic_to_shared(s) + r[0]

__global__ void k_MMA_16x8x8_F16F16F16F16(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, {%5, %6};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x8_F32F16F16F32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x8_F32BF16BF16F32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x16_F16F16F16F16(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x16_F32F16F16F32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x16_F32BF16BF16F32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x4_F32TF32TF32F32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x8_F32TF32TF32F32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
    LANE_OUT;
}

__global__ void k_MMA_8x8x4_F64F64F64F64(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    double x[16], y[4] = {0};
    for (int k = 0; k < 4; k++) x[k] = __hiloint2double((int)r[2 * k + 1], (int)r[2 * k]);
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};"
                 : "=d"(y[0]), "=d"(y[1])
                 : "d"(x[0]), "d"(x[1]), "d"(x[2]), "d"(x[3]));
    for (int k = 0; k < 2; k++) d[2 * k] = (uint32_t)__double2loint(y[k]), d[2 * k + 1] = (uint32_t)__double2hiint(y[k]);
    LANE_OUT;
}

__global__ void k_MMA_16x8x4_F64F64F64F64(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    double x[16], y[4] = {0};
    for (int k = 0; k < 7; k++) x[k] = __hiloint2double((int)r[2 * k + 1], (int)r[2 * k]);
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=d"(y[0]), "=d"(y[1]), "=d"(y[2]), "=d"(y[3])
                 : "d"(x[0]), "d"(x[1]), "d"(x[2]), "d"(x[3]), "d"(x[4]), "d"(x[5]), "d"(x[6]));
    for (int k = 0; k < 4; k++) d[2 * k] = (uint32_t)__double2loint(y[k]), d[2 * k + 1] = (uint32_t)__double2hiint(y[k]);
    LANE_OUT;
}

__global__ void k_MMA_16x8x8_F64F64F64F64(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    double x[16], y[4] = {0};
    for (int k = 0; k < 10; k++) x[k] = __hiloint2double((int)r[2 * k + 1], (int)r[2 * k]);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=d"(y[0]), "=d"(y[1]), "=d"(y[2]), "=d"(y[3])
                 : "d"(x[0]), "d"(x[1]), "d"(x[2]), "d"(x[3]), "d"(x[4]), "d"(x[5]), "d"(x[6]), "d"(x[7]), "d"(x[8]), "d"(x[9]));
    for (int k = 0; k < 4; k++) d[2 * k] = (uint32_t)__double2loint(y[k]), d[2 * k + 1] = (uint32_t)__double2hiint(y[k]);
    LANE_OUT;
}

__global__ void k_MMA_16x8x16_F64F64F64F64(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    double x[16], y[4] = {0};
    for (int k = 0; k < 16; k++) x[k] = __hiloint2double((int)r[2 * k + 1], (int)r[2 * k]);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%16, %17, %18, %19};"
                 : "=d"(y[0]), "=d"(y[1]), "=d"(y[2]), "=d"(y[3])
                 : "d"(x[0]), "d"(x[1]), "d"(x[2]), "d"(x[3]), "d"(x[4]), "d"(x[5]), "d"(x[6]), "d"(x[7]), "d"(x[8]), "d"(x[9]), "d"(x[10]), "d"(x[11]), "d"(x[12]), "d"(x[13]), "d"(x[14]), "d"(x[15]));
    for (int k = 0; k < 4; k++) d[2 * k] = (uint32_t)__double2loint(y[k]), d[2 * k + 1] = (uint32_t)__double2hiint(y[k]);
    LANE_OUT;
}

__global__ void k_MMA_16x8x16_S32S8S8S32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x16_S32S8U8S32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x16_S32U8S8S32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x16_S32U8U8S32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x32_S32S8S8S32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x32_S32S8U8S32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x32_S32U8S8S32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x32_S32U8U8S32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x32_F32E4M3E4M3F32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x32_F32E4M3E5M2F32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x32_F32E5M2E4M3F32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
    LANE_OUT;
}

__global__ void k_MMA_16x8x32_F32E5M2E5M2F32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]));
    LANE_OUT;
}

__global__ void k_LDMATRIX_X1(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    SHARED_IMAGE;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(d[0]) : "r"(a));
    LANE_OUT;
}

__global__ void k_LDMATRIX_X1_TRANS(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    SHARED_IMAGE;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(d[0]) : "r"(a));
    LANE_OUT;
}

__global__ void k_LDMATRIX_X2(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    SHARED_IMAGE;
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(d[0]), "=r"(d[1]) : "r"(a));
    LANE_OUT;
}

__global__ void k_LDMATRIX_X2_TRANS(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    SHARED_IMAGE;
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(d[0]), "=r"(d[1]) : "r"(a));
    LANE_OUT;
}

__global__ void k_LDMATRIX_X4(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    SHARED_IMAGE;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a));
    LANE_OUT;
}

__global__ void k_LDMATRIX_X4_TRANS(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    SHARED_IMAGE;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a));
    LANE_OUT;
}

__global__ void k_STMATRIX_X1(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    SHARED_IMAGE;
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" : : "r"(a), "r"(r[1]) : "memory");
    __syncwarp();
    for (int k = 0; k < 4; k++) d[k] = s[r[0] / 4 + k];
    LANE_OUT;
}

__global__ void k_STMATRIX_X1_TRANS(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    SHARED_IMAGE;
    asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" : : "r"(a), "r"(r[1]) : "memory");
    __syncwarp();
    for (int k = 0; k < 4; k++) d[k] = s[r[0] / 4 + k];
    LANE_OUT;
}

__global__ void k_STMATRIX_X2(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    SHARED_IMAGE;
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" : : "r"(a), "r"(r[1]), "r"(r[2]) : "memory");
    __syncwarp();
    for (int k = 0; k < 4; k++) d[k] = s[r[0] / 4 + k];
    LANE_OUT;
}

__global__ void k_STMATRIX_X2_TRANS(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    SHARED_IMAGE;
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" : : "r"(a), "r"(r[1]), "r"(r[2]) : "memory");
    __syncwarp();
    for (int k = 0; k < 4; k++) d[k] = s[r[0] / 4 + k];
    LANE_OUT;
}

__global__ void k_STMATRIX_X4(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    SHARED_IMAGE;
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" : : "r"(a), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]) : "memory");
    __syncwarp();
    for (int k = 0; k < 4; k++) d[k] = s[r[0] / 4 + k];
    LANE_OUT;
}

__global__ void k_STMATRIX_X4_TRANS(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    SHARED_IMAGE;
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" : : "r"(a), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]) : "memory");
    __syncwarp();
    for (int k = 0; k < 4; k++) d[k] = s[r[0] / 4 + k];
    LANE_OUT;
}

__global__ void k_CVT_RN_F16X2_F32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d[0]) : "f"(__uint_as_float(r[0])), "f"(__uint_as_float(r[1])));
    LANE_OUT;
}

__global__ void k_CVT_RN_BF16X2_F32(const uint32_t *img, const uint32_t *in, uint32_t *out)
{
    LANE_IN;
    asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d[0]) : "f"(__uint_as_float(r[0])), "f"(__uint_as_float(r[1])));
    LANE_OUT;
}

enum { T_F16, T_BF16, T_TF32, T_F32, T_F64, T_S8, T_U8, T_S32, T_E4M3, T_E5M2 };
enum { K_MMA, K_LDM, K_STM, K_CVT };
typedef void (*kernel_fn)(const uint32_t *, const uint32_t *, uint32_t *);
static const struct row {
    const char *id;
    kernel_fn fn;
    int kind, a, b, c; // mma: element types of A, B, C (and D)
    int na, nb, nc;    // registers of A, B, C (stmatrix: na = its registers)
    int nout, words;   // registers out; words per A/B/C/D register (f64: 2)
} rows[] = {
    {"MMA_16x8x8_F16F16F16F16", k_MMA_16x8x8_F16F16F16F16, K_MMA, T_F16, T_F16, T_F16, 2, 1, 2, 2, 1},
    {"MMA_16x8x8_F32F16F16F32", k_MMA_16x8x8_F32F16F16F32, K_MMA, T_F16, T_F16, T_F32, 2, 1, 4, 4, 1},
    {"MMA_16x8x8_F32BF16BF16F32", k_MMA_16x8x8_F32BF16BF16F32, K_MMA, T_BF16, T_BF16, T_F32, 2, 1, 4, 4, 1},
    {"MMA_16x8x16_F16F16F16F16", k_MMA_16x8x16_F16F16F16F16, K_MMA, T_F16, T_F16, T_F16, 4, 2, 2, 2, 1},
    {"MMA_16x8x16_F32F16F16F32", k_MMA_16x8x16_F32F16F16F32, K_MMA, T_F16, T_F16, T_F32, 4, 2, 4, 4, 1},
    {"MMA_16x8x16_F32BF16BF16F32", k_MMA_16x8x16_F32BF16BF16F32, K_MMA, T_BF16, T_BF16, T_F32, 4, 2, 4, 4, 1},
    {"MMA_16x8x4_F32TF32TF32F32", k_MMA_16x8x4_F32TF32TF32F32, K_MMA, T_TF32, T_TF32, T_F32, 2, 1, 4, 4, 1},
    {"MMA_16x8x8_F32TF32TF32F32", k_MMA_16x8x8_F32TF32TF32F32, K_MMA, T_TF32, T_TF32, T_F32, 4, 2, 4, 4, 1},
    {"MMA_8x8x4_F64F64F64F64", k_MMA_8x8x4_F64F64F64F64, K_MMA, T_F64, T_F64, T_F64, 1, 1, 2, 2, 2},
    {"MMA_16x8x4_F64F64F64F64", k_MMA_16x8x4_F64F64F64F64, K_MMA, T_F64, T_F64, T_F64, 2, 1, 4, 4, 2},
    {"MMA_16x8x8_F64F64F64F64", k_MMA_16x8x8_F64F64F64F64, K_MMA, T_F64, T_F64, T_F64, 4, 2, 4, 4, 2},
    {"MMA_16x8x16_F64F64F64F64", k_MMA_16x8x16_F64F64F64F64, K_MMA, T_F64, T_F64, T_F64, 8, 4, 4, 4, 2},
    {"MMA_16x8x16_S32S8S8S32", k_MMA_16x8x16_S32S8S8S32, K_MMA, T_S8, T_S8, T_S32, 2, 1, 4, 4, 1},
    {"MMA_16x8x16_S32S8U8S32", k_MMA_16x8x16_S32S8U8S32, K_MMA, T_S8, T_U8, T_S32, 2, 1, 4, 4, 1},
    {"MMA_16x8x16_S32U8S8S32", k_MMA_16x8x16_S32U8S8S32, K_MMA, T_U8, T_S8, T_S32, 2, 1, 4, 4, 1},
    {"MMA_16x8x16_S32U8U8S32", k_MMA_16x8x16_S32U8U8S32, K_MMA, T_U8, T_U8, T_S32, 2, 1, 4, 4, 1},
    {"MMA_16x8x32_S32S8S8S32", k_MMA_16x8x32_S32S8S8S32, K_MMA, T_S8, T_S8, T_S32, 4, 2, 4, 4, 1},
    {"MMA_16x8x32_S32S8U8S32", k_MMA_16x8x32_S32S8U8S32, K_MMA, T_S8, T_U8, T_S32, 4, 2, 4, 4, 1},
    {"MMA_16x8x32_S32U8S8S32", k_MMA_16x8x32_S32U8S8S32, K_MMA, T_U8, T_S8, T_S32, 4, 2, 4, 4, 1},
    {"MMA_16x8x32_S32U8U8S32", k_MMA_16x8x32_S32U8U8S32, K_MMA, T_U8, T_U8, T_S32, 4, 2, 4, 4, 1},
    {"MMA_16x8x32_F32E4M3E4M3F32", k_MMA_16x8x32_F32E4M3E4M3F32, K_MMA, T_E4M3, T_E4M3, T_F32, 4, 2, 4, 4, 1},
    {"MMA_16x8x32_F32E4M3E5M2F32", k_MMA_16x8x32_F32E4M3E5M2F32, K_MMA, T_E4M3, T_E5M2, T_F32, 4, 2, 4, 4, 1},
    {"MMA_16x8x32_F32E5M2E4M3F32", k_MMA_16x8x32_F32E5M2E4M3F32, K_MMA, T_E5M2, T_E4M3, T_F32, 4, 2, 4, 4, 1},
    {"MMA_16x8x32_F32E5M2E5M2F32", k_MMA_16x8x32_F32E5M2E5M2F32, K_MMA, T_E5M2, T_E5M2, T_F32, 4, 2, 4, 4, 1},
    {"LDMATRIX_X1", k_LDMATRIX_X1, K_LDM, 0, 0, 0, 0, 0, 0, 1, 1},
    {"LDMATRIX_X1_TRANS", k_LDMATRIX_X1_TRANS, K_LDM, 0, 0, 0, 0, 0, 0, 1, 1},
    {"LDMATRIX_X2", k_LDMATRIX_X2, K_LDM, 0, 0, 0, 0, 0, 0, 2, 1},
    {"LDMATRIX_X2_TRANS", k_LDMATRIX_X2_TRANS, K_LDM, 0, 0, 0, 0, 0, 0, 2, 1},
    {"LDMATRIX_X4", k_LDMATRIX_X4, K_LDM, 0, 0, 0, 0, 0, 0, 4, 1},
    {"LDMATRIX_X4_TRANS", k_LDMATRIX_X4_TRANS, K_LDM, 0, 0, 0, 0, 0, 0, 4, 1},
    {"STMATRIX_X1", k_STMATRIX_X1, K_STM, 0, 0, 0, 1, 0, 0, 4, 1},
    {"STMATRIX_X1_TRANS", k_STMATRIX_X1_TRANS, K_STM, 0, 0, 0, 1, 0, 0, 4, 1},
    {"STMATRIX_X2", k_STMATRIX_X2, K_STM, 0, 0, 0, 2, 0, 0, 4, 1},
    {"STMATRIX_X2_TRANS", k_STMATRIX_X2_TRANS, K_STM, 0, 0, 0, 2, 0, 0, 4, 1},
    {"STMATRIX_X4", k_STMATRIX_X4, K_STM, 0, 0, 0, 4, 0, 0, 4, 1},
    {"STMATRIX_X4_TRANS", k_STMATRIX_X4_TRANS, K_STM, 0, 0, 0, 4, 0, 0, 4, 1},
    {"CVT_RN_F16X2_F32", k_CVT_RN_F16X2_F32, K_CVT, 0, 0, 0, 0, 0, 0, 1, 1},
    {"CVT_RN_BF16X2_F32", k_CVT_RN_BF16X2_F32, K_CVT, 0, 0, 0, 0, 0, 0, 1, 1},
};

static uint32_t rnd(void) { return (uint32_t)rand() << 16 ^ (uint32_t)rand(); }
static uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint16_t f16_small(int v) // v/4 for |v| <= 8 as f16 bits, exactly
{
    float f = v / 4.0f;
    if (f == 0) return 0;
    uint32_t u = f32_bits(f);
    int e = (int)((u >> 23) & 0xff) - 127 + 15;
    return (uint16_t)((u >> 16 & 0x8000) | (e << 10) | ((u >> 13) & 0x3ff));
}
static uint16_t bf16_small(int v) { return (uint16_t)(f32_bits(v / 4.0f) >> 16); }
static int small(void) { return (int)(rnd() % 17) - 8; }

// one 32-bit register of A or B of element type t: random, small (exact sums) or wide
static uint32_t ab_word(int t, int mode)
{
    uint32_t u = rnd();
    if (mode == 1) { // small
        if (t == T_F16) return f16_small(small()) | (uint32_t)f16_small(small()) << 16;
        if (t == T_BF16) return bf16_small(small()) | (uint32_t)bf16_small(small()) << 16;
        if (t == T_TF32) { float f = small() / 4.0f; return f == 0 ? 0 : f32_bits(f) | (rnd() & 0x1fff); }
    }
    switch (t) {
    case T_F16: return mode == 2 ? (u & 0x83ff83ffu) | ((5u + rnd() % 20) << 10) | ((5u + rnd() % 20) << 26)
                                 : u & 0xbfffbfffu; // |x| < 2
    case T_BF16: return (u & 0x807f807fu) | ((120u + rnd() % 10) << 7) | ((120u + rnd() % 10) << 23);
    case T_TF32: return (u & 0x807fffffu) | ((120u + rnd() % 10) << 23); // low 13 bits: junk
    case T_E4M3: // no NaN (S.1111.111)
        for (int b = 0; b < 4; b++) if ((u >> (8 * b) & 0x7f) == 0x7f) u ^= 1u << (8 * b);
        return u;
    case T_E5M2: // no infinity or NaN (exponent 31)
        for (int b = 0; b < 4; b++) if ((u >> (8 * b + 2) & 0x1f) == 0x1f) u ^= 1u << (8 * b + 6);
        return u;
    default: return u; // s8, u8
    }
}

// C's registers (f32, s32, f16x2) as words; f64 C and A/B: two words
static void c_words(int t, int mode, uint32_t *w)
{
    if (t == T_F32) {
        float f = mode == 1 ? small() / 4.0f
                  : mode == 2 ? ldexpf((float)((int)(rnd() % 2001) - 1000), (int)(rnd() % 30) - 20)
                              : (float)((int)(rnd() % 2001) - 1000) / 64;
        w[0] = f32_bits(f);
    } else if (t == T_S32) {
        w[0] = rnd() % 2000001u - 1000000u;
    } else if (t == T_F16) {
        w[0] = mode == 1 ? f16_small(small()) | (uint32_t)f16_small(small()) << 16 : rnd() & 0xbfffbfffu;
    }
}
static void f64_words(int mode, uint32_t *w)
{
    double x = mode == 1 ? small() / 4.0 : ldexp((double)rnd() / 4294967296.0 - 0.5, (int)(rnd() % 12) - 6);
    uint64_t b;
    memcpy(&b, &x, 8);
    w[0] = (uint32_t)b, w[1] = (uint32_t)(b >> 32);
}

typedef struct mcase { uint32_t in[32][NIN], out[32][NOUT]; int nin, nout; } mcase;

static void inputs(const struct row *R, int mode, int q, mcase *c)
{
    memset(c, 0, sizeof *c);
    int w = R->words;
    c->nout = R->nout * w;
    if (R->kind == K_MMA) c->nin = (R->na + R->nb + R->nc) * w;
    else if (R->kind == K_CVT) c->nin = 2;
    else c->nin = 1 + R->na;
    for (int l = 0; l < 32; l++) {
        uint32_t *x = c->in[l];
        if (R->kind == K_LDM || R->kind == K_STM) { // a distinct 16-byte row each, and registers
            x[0] = (uint32_t)((l * 13 + q * 7) % 64) * 16;
            for (int k = 0; k < R->na; k++) x[1 + k] = rnd();
            continue;
        }
        if (R->kind == K_CVT) {
            x[0] = rnd() & 0xc7ffffffu, x[1] = rnd() & 0xc7ffffffu;
            continue;
        }
        for (int k = 0; k < R->na + R->nb + R->nc; k++) {
            bool isc = k >= R->na + R->nb;
            if (w == 2) f64_words(mode, &x[2 * k]);
            else if (isc) c_words(R->c, mode, &x[k]);
            else x[k] = ab_word(k < R->na ? R->a : R->b, mode);
        }
    }
    if (R->kind == K_CVT) c->in[0][0] = 0x7fc00001u; // a NaN
}

static void print_case(const char *name, const char *row, const mcase *c, int img)
{
    printf("    {\"%s\", \"%s\", %d, %d, %d,\n     {", name, row, c->nout, c->nin, img);
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

int main(int argc, char **argv)
{
    uint32_t *din, *dout, *dimg;
    CK(cudaMalloc(&din, 32 * NIN * 4));
    CK(cudaMalloc(&dout, 32 * NOUT * 4));
    CK(cudaMalloc(&dimg, 1024));
    srand(argc > 1 ? (unsigned)atoi(argv[1]) : 11); // another seed: more cases (fitting the model)
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("/* generated by src/interp/gpu/hw_mma.cu on an %s (sm_%d%d): each case's 32 lanes,\n"
           " * their input registers and the results the hardware gave, as 32-bit words (an f64 register\n"
           " * is two, low word first); `row` names the instruction table's row (CUTE_INST_<row>) */\n",
           p.name, p.major, p.minor);
    printf("#define HW_NIN %d\n#define HW_NOUT %d\ntypedef struct hw_case {\n    const char *name, *row;\n"
           "    int nout, nin, img; /* words out and in per lane; img: shared memory holds hw_img first */\n"
           "    uint32_t in[32][HW_NIN], out[32][HW_NOUT];\n} hw_case;\n", NIN, NOUT);
    uint16_t img[512]; // 512 distinct 16-bit values
    for (int i = 0; i < 512; i++) img[i] = (uint16_t)(i * 37 + 5);
    printf("static const uint16_t hw_img[512] = {");
    for (int i = 0; i < 512; i++) printf("%s0x%x", i ? "," : "", img[i]);
    printf("};\nstatic const hw_case hw_cases[] = {\n");
    CK(cudaMemcpy(dimg, img, 1024, cudaMemcpyHostToDevice));
    static mcase c;
    for (int q = 0; q < (int)(sizeof rows / sizeof rows[0]); q++) {
        const struct row *R = &rows[q];
        bool exactable = R->kind == K_MMA && (R->a == T_F16 || R->a == T_BF16 || R->a == T_TF32 || R->a == T_F64);
        bool wide = R->kind == K_MMA && R->a == T_F16 && R->c == T_F32;
        for (int mode = 0; mode < 3; mode++) { // random, small, random wide
            if ((mode == 1 && !exactable) || (mode == 2 && !wide)) continue;
            inputs(R, mode, q, &c);
            uint32_t flat[32 * NIN], o[32 * NOUT];
            for (int l = 0; l < 32; l++) memcpy(&flat[l * NIN], c.in[l], NIN * 4);
            CK(cudaMemcpy(din, flat, sizeof flat, cudaMemcpyHostToDevice));
            R->fn<<<1, 32>>>(dimg, din, dout);
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost));
            for (int l = 0; l < 32; l++) memcpy(c.out[l], &o[l * NOUT], NOUT * 4);
            char name[96];
            snprintf(name, sizeof name, "%s %s", R->id, mode == 0 ? "random" : mode == 1 ? "small" : "random wide");
            print_case(name, R->id, &c, R->kind == K_LDM || R->kind == K_STM);
        }
    }
    printf("};\n");
    return 0;
}
