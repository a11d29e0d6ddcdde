/* The library's elementwise kernels from an installed cutec: out = a + b, then out = gelu(a),
 * on f32 matrices of an odd size, checked element by element on the host.  Runs on the GPU
 * when there is one, else on the interpreter (CUTEC_BACKEND=cuda|interp picks).
 *   cc -std=c11 elementwise.c $(pkg-config --cflags --libs cutec) -o elementwise */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cutec/kernels.h"

enum { M = 37, N = 100 };

static float gelu(float x) { return 0.5f * x * (1.0f + erff(x / sqrtf(2.0f))); }

/* how many of out differ from want by more than tol (relative) */
static int count_wrong(const float *out, const float *want, int n, float tol)
{
    int bad = 0;
    for (int i = 0; i < n; i++) bad += fabsf(out[i] - want[i]) > tol * (1.0f + fabsf(want[i]));
    return bad;
}

int main(void)
{
    char err[1024];
    cute_runtime *rt;
    if (cute_runtime_new(NULL, &rt, err, sizeof err) != CUTE_OK) return printf("%s\n", err), 1;
    cute_backend *b = cute_runtime_backend(rt);
    static float ha[M * N], hb[M * N], hc[M * N], want[M * N];
    for (int i = 0; i < M * N; i++)
        ha[i] = (float)rand() / RAND_MAX * 4 - 2, hb[i] = (float)rand() / RAND_MAX, hc[i] = NAN;
    cute_buffer A, B, C;
    b->vt->alloc(b->self, sizeof ha, &A), b->vt->alloc(b->self, sizeof hb, &B);
    b->vt->alloc(b->self, sizeof hc, &C);
    b->vt->upload(b->self, &A, 0, ha, sizeof ha), b->vt->upload(b->self, &B, 0, hb, sizeof hb);
    int64_t shape[2] = {M, N}, stride[2] = {N, 1}; /* row-major */
    cute_call_arg a = cute_call_tensor(&A, 0, CUTE_F32, 2, shape, stride);
    cute_call_arg bb = cute_call_tensor(&B, 0, CUTE_F32, 2, shape, stride);
    cute_call_arg c = cute_call_tensor(&C, 0, CUTE_F32, 2, shape, stride);

    cute_ew_lib *lib = cute_ew_lib_new(rt);
    int wrong = 0;
    for (int op = 0; op < 2; op++) {
        b->vt->upload(b->self, &C, 0, hc, sizeof hc); /* poisoned: NaN everywhere */
        cute_status s = cute_ew(lib, op ? CUTE_EW_GELU : CUTE_EW_ADD, &c, &a, &bb, NULL, err,
                                sizeof err);
        if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
        if (s != CUTE_OK) return printf("%s: %s\n", op ? "gelu" : "add", err), 1;
        float out[M * N];
        b->vt->download(b->self, out, &C, 0, sizeof out);
        for (int i = 0; i < M * N; i++) want[i] = op ? gelu(ha[i]) : ha[i] + hb[i];
        int bad = count_wrong(out, want, M * N, 1e-5f);
        printf("%s on %s, %dx%d f32: %d of %d wrong\n", op ? "gelu" : "add",
               cute_runtime_backend_name(rt), M, N, bad, M * N);
        wrong += bad;
    }
    cute_ew_lib_free(lib);
    b->vt->free(b->self, &A), b->vt->free(b->self, &B), b->vt->free(b->self, &C);
    cute_runtime_free(rt);
    return wrong != 0;
}
