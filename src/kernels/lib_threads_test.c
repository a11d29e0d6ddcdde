/* One GEMM library and one elementwise library shared by threads (issue 12): 4 threads at
 * once call cutec_gemm and cute_ew with the same patterns, so they race to compile the
 * same entries of the libraries' tables (fn_cache, under each library's lock).  Every
 * result is what one call alone gives (against float64), and the shared GEMM library ends
 * with as many compiled entries as a library that saw the same calls from one thread: no
 * pattern compiled twice, none lost. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_interp.h"
#include "cutec/kernels.h"
#include "kernels/ew_ref.h"

enum { THREADS = 4, M = 10, N = 12, K = 5 }; /* M, N > 8: not the skinny (GEMV) path */

typedef struct job {
    cute_runtime *rt;
    cute_gemm_lib *gemm;
    cute_ew_lib *ew;
    uint64_t seed;
    bool together; /* start at the barrier with the other threads */
    int bad, failed; /* wrong elements, failed calls */
    char err[512];
} job;

static pthread_barrier_t start;

static cute_buffer upload(cute_backend *b, const float *host, int n)
{
    cute_buffer buf;
    b->vt->alloc(b->self, (size_t)n * 4, &buf);
    b->vt->upload(b->self, &buf, 0, host, (size_t)n * 4);
    return buf;
}

/* C = A B^T with A (M,K) M-major when a_major is 0, else K-major; B (N,K), C (M,N) row-major */
static void gemm_once(job *j, int a_major)
{
    cute_backend *b = cute_runtime_backend(j->rt);
    float A[M * K], B[N * K], C[M * N];
    for (int i = 0; i < M * K; i++) A[i] = (float)ew_random(&j->seed);
    for (int i = 0; i < N * K; i++) B[i] = (float)ew_random(&j->seed);
    cute_buffer bufs[3] = {upload(b, A, M * K), upload(b, B, N * K), upload(b, C, M * N)};
    int64_t sa[2] = {a_major ? K : 1, a_major ? 1 : M};
    cute_call_arg a = cute_call_tensor(&bufs[0], 0, CUTE_F32, 2, (int64_t[]){M, K}, sa);
    cute_call_arg bb = cute_call_tensor(&bufs[1], 0, CUTE_F32, 2, (int64_t[]){N, K}, (int64_t[]){K, 1});
    cute_call_arg c = cute_call_tensor(&bufs[2], 0, CUTE_F32, 2, (int64_t[]){M, N}, (int64_t[]){N, 1});
    if (cutec_gemm(j->gemm, CUTE_GEMM_AUTO, &a, &bb, &c, 1.0, 0.0, NULL, j->err, sizeof j->err) != CUTE_OK)
        j->failed++;
    b->vt->download(b->self, C, &bufs[2], 0, sizeof C);
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double s = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                double p = (double)A[a_major ? m * K + k : k * M + m] * B[n * K + k];
                s += p, mag += fabs(p);
            }
            j->bad += !(fabs(C[m * N + n] - s) <= mag * 0x1p-20);
        }
    for (int i = 0; i < 3; i++) b->vt->free(b->self, &bufs[i]);
}

static void add_once(job *j, int n)
{
    cute_backend *b = cute_runtime_backend(j->rt);
    float x[64], y[64], z[64];
    for (int i = 0; i < n; i++) x[i] = (float)ew_random(&j->seed), y[i] = (float)ew_random(&j->seed);
    cute_buffer bufs[3] = {upload(b, x, n), upload(b, y, n), upload(b, z, n)};
    cute_call_arg t[3];
    for (int i = 0; i < 3; i++) t[i] = cute_call_tensor(&bufs[i], 0, CUTE_F32, 1, (int64_t[]){n}, (int64_t[]){1});
    if (cute_ew(j->ew, CUTE_EW_ADD, &t[2], &t[0], &t[1], NULL, j->err, sizeof j->err) != CUTE_OK) j->failed++;
    b->vt->download(b->self, z, &bufs[2], 0, (size_t)n * 4);
    for (int i = 0; i < n; i++) j->bad += z[i] != x[i] + y[i];
    for (int i = 0; i < 3; i++) b->vt->free(b->self, &bufs[i]);
}

static void *calls(void *arg)
{
    job *j = arg;
    if (j->together) pthread_barrier_wait(&start);
    for (int round = 0; round < 2; round++) {
        gemm_once(j, 0), gemm_once(j, 1);
        add_once(j, 64), add_once(j, 33);
    }
    return NULL;
}

int main(void)
{
    uint64_t seed = check_seed("lib_threads_test");
    cute_runtime *rt = check_interp();
    if (!rt) return CHECK_DONE("lib_threads_test");
    cute_gemm_lib *shared = cute_gemm_lib_new(rt), *alone = cute_gemm_lib_new(rt);
    cute_ew_lib *ew = cute_ew_lib_new(rt);
    job jobs[THREADS];
    pthread_t th[THREADS];
    pthread_barrier_init(&start, NULL, THREADS);
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (job){.rt = rt, .gemm = shared, .ew = ew, .seed = seed + 2 * (uint64_t)t, .together = true};
        CHECK(pthread_create(&th[t], NULL, calls, &jobs[t]) == 0, "thread %d", t);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK(jobs[t].failed == 0 && jobs[t].bad == 0, "thread %d: %d calls failed (%s), %d elements wrong",
              t, jobs[t].failed, jobs[t].err, jobs[t].bad);
    }
    job one = {.rt = rt, .gemm = alone, .ew = ew, .seed = seed};
    calls(&one);
    CHECK(cute_gemm_lib_size(shared) == cute_gemm_lib_size(alone) && cute_gemm_lib_size(alone) > 0,
          "%d entries shared by threads, %d from one thread", cute_gemm_lib_size(shared),
          cute_gemm_lib_size(alone));
    pthread_barrier_destroy(&start);
    cute_gemm_lib_free(shared), cute_gemm_lib_free(alone), cute_ew_lib_free(ew);
    cute_runtime_free(rt);
    return CHECK_DONE("lib_threads_test");
}
