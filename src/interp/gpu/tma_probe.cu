// Which TMA boxes trap: one 2-D tile-mode copy per process (a trap ends the context), so
// scripts/device-hopfix.sh can run each variant on its own and record what the hardware does.
// interp/tma_test's first GPU load (u8, box 48x7 at column 1 of a 99x11 tensor, rows of 128
// bytes) ended in CUDA_ERROR_ILLEGAL_INSTRUCTION; tma_copy_test's u8 loads at tile-aligned
// columns passed.  The interpreter and the TMA atoms now refuse a box whose first column is
// not at a 16-byte boundary of its row: this probe is the evidence for (or against) that rule.
//   nvcc -O2 -arch=sm_90a tma_probe.cu -lcuda -o tma_probe
//   ./tma_probe load|store ELEMENT_BYTES BOX0 C0 [C1, the first row: 2]
// prints "load es=1 box0=48 c0=1: ok, 0 of 336 elements wrong" or "...: TRAP <the error>".
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { D1 = 11, ROW = 128, BOX1 = 7, SBASE = 1024 };
static int C1 = 2; // the box's first row (argument 5)

__global__ void load(const __grid_constant__ CUtensorMap map, unsigned char *out, int c0, int c1, int bytes)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    unsigned bar = (unsigned)__cvta_generic_to_shared(smem), dst = bar + SBASE;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
        asm volatile("fence.mbarrier_init.release.cluster;");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst), "l"(&map), "r"(c0), "r"(c1), "r"(bar) : "memory");
    }
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar) : "memory");
    for (int i = threadIdx.x; i < bytes; i += blockDim.x) out[i] = smem[SBASE + i];
}

__global__ void store(const __grid_constant__ CUtensorMap map, const unsigned char *in, int c0, int c1, int bytes)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    for (int i = threadIdx.x; i < bytes; i += blockDim.x) smem[SBASE + i] = in[i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned src = (unsigned)__cvta_generic_to_shared(smem) + SBASE;
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                     ::"l"(&map), "r"(c0), "r"(c1), "r"(src) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

static CUtensorMapDataType type_of(int es)
{
    return es == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : es == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16 : CU_TENSOR_MAP_DATA_TYPE_UINT32;
}

// the load's elements that differ from the tensor of d0 x D1 (zero outside it)
static int wrong(const unsigned char *g, const unsigned char *o, int es, long d0, int box0, int c0)
{
    int bad = 0;
    for (int j = 0; j < BOX1; j++)
        for (int i = 0; i < box0; i++) {
            long x = c0 + i, y = C1 + j;
            const unsigned char *got = o + (j * box0 + i) * es;
            unsigned char zero[8] = {0};
            const unsigned char *want = x >= 0 && x < d0 && y >= 0 && y < D1 ? g + y * ROW + x * es : zero;
            bad += memcmp(got, want, es) != 0;
        }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 6) return fprintf(stderr, "usage: tma_probe load|store ELEMENT_BYTES BOX0 C0 [C1]\n"), 2;
    if (argc == 6) C1 = atoi(argv[5]);
    bool is_load = !strcmp(argv[1], "load");
    int es = atoi(argv[2]), box0 = atoi(argv[3]), c0 = atoi(argv[4]), bytes = box0 * BOX1 * es;
    printf("%s es=%d box0=%d c0=%d (byte %d of the row) c1=%d: ", argv[1], es, box0, c0, c0 * es, C1);
    unsigned char *g, *o, h[ROW * D1], ho[4096];
    for (int i = 0; i < ROW * D1; i++) h[i] = (unsigned char)(rand() | 1);
    cudaMalloc(&g, ROW * D1), cudaMalloc(&o, 4096);
    cudaMemcpy(g, h, ROW * D1, cudaMemcpyHostToDevice);
    cudaMemcpy(o, h, 4096 < ROW * D1 ? 4096 : ROW * D1, cudaMemcpyHostToDevice);
    CUtensorMap map;
    long d0 = es == 1 ? 99 : (ROW - 16) / es - 1; /* 99 u8 as interp/tma_test's; odd extents */
    cuuint64_t dims[2] = {(cuuint64_t)d0, D1}, strides[1] = {ROW};
    cuuint32_t box[2] = {(cuuint32_t)box0, BOX1}, estr[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(&map, type_of(es), 2, g, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) return printf("the driver refused the map (%d)\n", (int)r), 1;
    if (is_load) load<<<1, 64, SBASE + 4096>>>(map, o, c0, C1, bytes);
    else store<<<1, 64, SBASE + 4096>>>(map, o, c0, C1, bytes);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return printf("TRAP %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e)), 1;
    if (!is_load) return printf("ok\n"), 0;
    cudaMemcpy(ho, o, bytes, cudaMemcpyDeviceToHost);
    printf("ok, %d of %d elements wrong\n", wrong(h, ho, es, d0, box0, c0), box0 * BOX1);
    return 0;
}
