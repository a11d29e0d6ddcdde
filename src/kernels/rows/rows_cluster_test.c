/* The cluster exchange of the row kernels (rows_cluster.c) alone, on the interpreter, which
 * runs a cluster's blocks together and checks their distributed shared memory: clusters of
 * 2, 3 and 16 blocks of 64 threads, six rounds (the slots' parity and each mbarrier's phase
 * reused three times), two stages a round (online softmax pairs, then sums); every block's
 * last thread must hold the cluster's result, against float64, on fresh random inputs with
 * poisoned outputs; st.async onto mbarriers. */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "cutec/jit.h"
#include "kernels/rows/rows_internal.h"

enum { THREADS = 64, ROUNDS = 6, OUTS = 3 };

static uint64_t seed;
static double uniform(void) /* in [-1, 1) */
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(seed >> 11) / 9007199254740992.0 * 2 - 1;
}

static cute_val at(cute_ctx *c, cute_tensor t, cute_int i, cute_int j)
{
    return cute_ssa_get(c, cute_tensor_load(c, cute_tensor_slice(c, t, CUTE_CRD(i, j))), 0);
}

static void put(cute_ctx *c, cute_tensor y, int k, cute_int round, cute_int rank, cute_val v)
{
    cute_tensor e = cute_tensor_slice(c, y, CUTE_CRD(cute_i(k), round, rank));
    cute_tensor_store(c, e, cute_ssa_scalar(c, v, cute_tuple_int(cute_i(1))));
}

/* x (ROUNDS, n): block r's value in each round; y (OUTS, ROUNDS, n): what block r got */
static void exchange_kernel(cute_ctx *c, cute_tensor x, cute_tensor y)
{
    const row_plan *p = cute_ctx_user(c);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    row_cluster cl = row_cluster_alloc(c, &A, p);
    cute_reducer online = cute_reducer_online_softmax(), sum = cute_reducer_op(CUTE_OP_ADD);
    cute_int rank = cute_block_idx(c, 1), last = cute_i(THREADS - 1);
    CUTE_FOR(c, round, cute_i(0), cute_i(ROUNDS)) {
        cute_val xv = at(c, x, round, rank);
        cute_val pair[2] = {xv, cute_val_const(c, CUTE_F32, 1)}, sq[1] = {cute_val_binop(c, CUTE_OP_MUL, xv, xv)};
        row_cluster_allreduce(c, &cl, &online, pair, 0, round);
        row_cluster_allreduce(c, &cl, &sum, sq, 1, round);
        CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), last)) {
            put(c, y, 0, round, rank, pair[0]), put(c, y, 1, round, rank, pair[1]), put(c, y, 2, round, rank, sq[0]);
        }
    }
}

static void exchange_host(cute_ctx *c, const cute_arg *arg)
{
    const row_plan *p = cute_ctx_user(c);
    cute_launch_cfg cfg = {.grid = {cute_i(1), cute_i(p->cluster)}, .block = {cute_i(THREADS)},
                           .cluster = {cute_i(1), cute_i(p->cluster)}};
    CUTE_LAUNCH(c, exchange_kernel, cfg, arg[0].tensor, arg[1].tensor);
}

/* the float64 results of one round over n values */
static void want(const float *x, int n, double *out)
{
    double m = -INFINITY, s = 0, q = 0;
    for (int r = 0; r < n; r++) m = fmax(m, x[r]);
    for (int r = 0; r < n; r++) s += exp(x[r] - m), q += (double)x[r] * x[r];
    out[0] = m, out[1] = s, out[2] = q;
}

static int64_t compare(const float *x, const float *y, int n, char *first, size_t len)
{
    int64_t bad = 0;
    for (int i = 0; i < ROUNDS; i++) {
        double w[OUTS];
        want(x + i * n, n, w);
        for (int k = 0; k < OUTS; k++)
            for (int r = 0; r < n; r++) {
                double got = y[(k * ROUNDS + i) * n + r];
                if (fabs(got - w[k]) <= 1e-5 * fmax(1, fabs(w[k]))) continue;
                if (!bad++) snprintf(first, len, "round %d value %d block %d: got %.9g want %.9g", i, k, r, got, w[k]);
            }
    }
    return bad;
}

static void run(cute_runtime *rt, int n)
{
    cute_backend *be = cute_runtime_backend(rt);
    row_plan p = {.cluster = n};
    char xs[64], ys[64], err[1024] = "", first[256] = "";
    snprintf(xs, sizeof xs, "(%d,%d):(%d,1)", ROUNDS, n, n);
    snprintf(ys, sizeof ys, "(%d,%d,%d):(%d,%d,1)", OUTS, ROUNDS, n, ROUNDS * n, n);
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, xs, 4), cute_spec_tensor(CUTE_F32, ys, 4)};
    const cute_fn *f = cute_compile(rt, "cluster_exchange", exchange_host, &p, 2, specs, err, sizeof err);
    CHECK(f != NULL, "cluster of %d: %s", n, err);
    if (!f) return;
    float *x = malloc(sizeof(float) * ROUNDS * n), *y = malloc(sizeof(float) * OUTS * ROUNDS * n);
    for (int i = 0; i < ROUNDS * n; i++) x[i] = (float)(uniform() * 1e4); /* the max subtraction must hold */
    for (int i = 0; i < OUTS * ROUNDS * n; i++) y[i] = NAN;
    cute_buffer X, Y;
    be->vt->alloc(be->self, sizeof(float) * ROUNDS * n, &X), be->vt->alloc(be->self, sizeof(float) * OUTS * ROUNDS * n, &Y);
    be->vt->upload(be->self, &X, 0, x, sizeof(float) * ROUNDS * n);
    be->vt->upload(be->self, &Y, 0, y, sizeof(float) * OUTS * ROUNDS * n);
    int64_t shx[2] = {ROUNDS, n}, stx[2] = {n, 1}, shy[3] = {OUTS, ROUNDS, n}, sty[3] = {ROUNDS * n, n, 1};
    cute_call_arg args[2] = {cute_call_tensor(&X, 0, CUTE_F32, 2, shx, stx), cute_call_tensor(&Y, 0, CUTE_F32, 3, shy, sty)};
    cute_status s = cute_call(f, NULL, 2, args, err, sizeof err);
    if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
    CHECK(s == CUTE_OK, "cluster of %d: %s", n, err);
    be->vt->download(be->self, y, &Y, 0, sizeof(float) * OUTS * ROUNDS * n);
    int64_t bad = s == CUTE_OK ? compare(x, y, n, first, sizeof first) : 0;
    CHECK(bad == 0, "cluster of %d: %lld wrong (%s)", n, (long long)bad, first);
    be->vt->free(be->self, &X), be->vt->free(be->self, &Y);
    free(x), free(y);
    cute_fn_free(f);
}

int main(void)
{
    seed = (uint64_t)time(NULL);
    printf("seed %llu\n", (unsigned long long)seed);
    cute_runtime *rt = NULL;
    char err[256];
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interpreter: %s", err);
    if (!rt) return CHECK_DONE("rows_cluster_test");
    int sizes[] = {2, 3, 16};
    for (int i = 0; i < 3; i++) run(rt, sizes[i]);
    cute_runtime_free(rt);
    return CHECK_DONE("rows_cluster_test");
}
