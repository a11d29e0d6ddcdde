/* cutec_call_packed on the interpreter: one struct filled once and called twice with new
 * data pointers gives C = alpha A B^T + beta C (against float64) and out = a + b, each time
 * on the memory of that call; a malformed struct (another size, an unknown kernel, a tensor
 * count the kernel does not take) is refused with its reason, and a refused GEMM says why. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_interp.h"
#include "cutec/kernels.h"
#include "cutec/packed_call.h"
#include "kernels/ew_ref.h"

enum { M = 5, N = 7, K = 9 };
static uint64_t seed;

/* n random f32 in a new interpreter buffer (and in host) */
static cute_buffer random_buffer(cute_backend *b, float *host, int n)
{
    cute_buffer buf;
    for (int i = 0; i < n; i++) host[i] = (float)ew_random(&seed);
    b->vt->alloc(b->self, (size_t)n * 4, &buf);
    b->vt->upload(b->self, &buf, 0, host, (size_t)n * 4);
    return buf;
}

/* the struct of a row-major f32 GEMM: A (M,K), B (N,K), C (M,N); its buffers come with data */
static void fill_gemm(cutec_packed_call *p, cute_gemm_lib *lib)
{
    memset(p, 0, sizeof *p);
    p->size = sizeof *p, p->kernel = CUTEC_PACKED_GEMM, p->which = CUTE_GEMM_AUTO;
    p->ntensors = 3, p->lib = lib, p->alpha = 1.5, p->beta = -0.5;
    int64_t shape[3][2] = {{M, K}, {N, K}, {M, N}};
    for (int i = 0; i < 3; i++)
        p->arg[i] = cute_call_tensor(NULL, 0, CUTE_F32, 2, shape[i], (int64_t[]){shape[i][1], 1});
}

/* C (poisoned beforehand where beta would not read it) against float64 */
static int gemm_errors(const float *A, const float *B, const float *C0, const float *C)
{
    int bad = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double s = 0, mag = 0;
            for (int k = 0; k < K; k++) s += (double)A[m * K + k] * B[n * K + k], mag += fabs(A[m * K + k] * B[n * K + k]);
            double want = 1.5 * s - 0.5 * C0[m * N + n];
            bad += !(fabs(C[m * N + n] - want) <= (1.5 * mag + fabs(C0[m * N + n])) * 0x1p-20);
        }
    return bad;
}

static void gemm_twice(cute_runtime *rt)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    cutec_packed_call *p = malloc(sizeof *p);
    fill_gemm(p, lib);
    cute_buffer bufs[2][3]; /* the second call's: other memory, only data[] says so */
    for (int call = 0; call < 2; call++) {
        float A[M * K], B[N * K], C0[M * N], C[M * N];
        cute_buffer *mine = bufs[call];
        mine[0] = random_buffer(b, A, M * K), mine[1] = random_buffer(b, B, N * K), mine[2] = random_buffer(b, C0, M * N);
        for (int i = 0; i < 3; i++) p->data[i] = mine[i].ptr;
        if (call == 0)
            for (int i = 0; i < 3; i++) p->buf[i] = mine[i];
        cute_status s = cutec_call_packed(p);
        CHECK(s == CUTE_OK, "call %d: %s", call, p->err);
        b->vt->download(b->self, C, &mine[2], 0, sizeof C);
        CHECK(s == CUTE_OK && gemm_errors(A, B, C0, C) == 0, "call %d: %d wrong", call, gemm_errors(A, B, C0, C));
    }
    for (int i = 0; i < 6; i++) b->vt->free(b->self, &bufs[i / 3][i % 3]);
    p->arg[1].shape[1] = K + 1; /* cutec_gemm's own checks, its message in err */
    CHECK(cutec_call_packed(p) == CUTE_ERR_INVALID && strstr(p->err, "K mismatch"), "%s", p->err);
    free(p);
    cute_gemm_lib_free(lib);
}

static void add(cute_runtime *rt)
{
    cute_backend *b = cute_runtime_backend(rt);
    cute_ew_lib *lib = cute_ew_lib_new(rt);
    cutec_packed_call *p = calloc(1, sizeof *p);
    p->size = sizeof *p, p->kernel = CUTEC_PACKED_EW, p->which = CUTE_EW_ADD, p->ntensors = 3, p->lib = lib;
    float x[33], y[33], out[33];
    cute_buffer bufs[3] = {random_buffer(b, x, 33), random_buffer(b, y, 33), random_buffer(b, out, 33)};
    for (int i = 0; i < 3; i++) {
        p->buf[i] = bufs[i], p->data[i] = bufs[i].ptr;
        p->arg[i] = cute_call_tensor(NULL, 0, CUTE_F32, 1, (int64_t[]){33}, (int64_t[]){1});
    }
    CHECK(cutec_call_packed(p) == CUTE_OK, "add: %s", p->err);
    b->vt->download(b->self, out, &bufs[2], 0, sizeof out);
    int bad = 0;
    for (int i = 0; i < 33; i++) bad += out[i] != x[i] + y[i];
    CHECK(bad == 0, "add: %d of 33 wrong", bad);
    for (int i = 0; i < 3; i++) b->vt->free(b->self, &bufs[i]);
    free(p);
    cute_ew_lib_free(lib);
}

static void refused(void)
{
    cutec_packed_call *p = calloc(1, sizeof *p);
    p->size = sizeof *p - 8;
    CHECK(cutec_call_packed(p) == CUTE_ERR_INVALID && strstr(p->err, "bytes"), "size: %s", p->err);
    p->size = sizeof *p, p->kernel = 7;
    CHECK(cutec_call_packed(p) == CUTE_ERR_INVALID && strstr(p->err, "unknown kernel 7"), "kernel: %s", p->err);
    p->kernel = CUTEC_PACKED_GEMM, p->ntensors = 2;
    CHECK(cutec_call_packed(p) == CUTE_ERR_INVALID && strstr(p->err, "3 tensors"), "count: %s", p->err);
    p->ntensors = 9;
    CHECK(cutec_call_packed(p) == CUTE_ERR_INVALID && strstr(p->err, "more tensors"), "count: %s", p->err);
    CHECK(cutec_call_packed(NULL) == CUTE_ERR_INVALID, "NULL");
    free(p);
}

int main(void)
{
    seed = check_seed("packed_call_test");
    cute_runtime *rt = check_interp();
    if (!rt) return CHECK_DONE("packed_call_test");
    gemm_twice(rt);
    add(rt);
    refused();
    cute_runtime_free(rt);
    return CHECK_DONE("packed_call_test");
}
