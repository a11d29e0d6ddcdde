/* cutec/comm.h: NCCL's loading (a missing or wrong library is an error naming it), the checks
 * of a collective's tensors (no GPU needed), and on the GPUs there are (one is enough: NCCL
 * runs a communicator of one rank) all-reduce, reduce-scatter and all-gather against a
 * reference in double on fresh random data. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "comm_internal.h"
#include "cutec/cuda_driver.h"
#include "cutec/numeric.h"
#include "nccl_lib.h"

/* cute_nccl_version's answer in a child whose CUTEC_NCCL is `lib` (the library is found once
 * a process): its message into err */
static int version_with(const char *lib, char *err, size_t n)
{
    int fd[2];
    if (pipe(fd)) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        setenv("CUTEC_NCCL", lib, 1);
        char e[512] = "";
        int v = cute_nccl_version(e, sizeof e);
        if (write(fd[1], e, strlen(e) + 1) < 0) _exit(2);
        _exit(v > 0 ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], err, n - 1);
    err[got > 0 ? got : 0] = 0;
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void loading(void)
{
    char err[512] = ""; /* the children first: this process has not looked for NCCL yet */
    CHECK(version_with("/nonexistent/libnccl.so.2", err, sizeof err) == 1 &&
              strstr(err, "/nonexistent/libnccl.so.2") && strstr(err, "CUTEC_NCCL"),
          "a missing library: %s", err);
    CHECK(version_with("libm.so.6", err, sizeof err) == 1 && strstr(err, "ncclGetVersion"),
          "not NCCL: %s", err);
    int v = cute_nccl_version(err, sizeof err);
    if (v) printf("comm_test: NCCL %d\n", v);
    CHECK(v >= 20000 || (v == 0 && strstr(err, "NCCL")), "version %d, %s", v, err);
}

static void open_refusals(void)
{
    char err[512] = "";
    cute_comm *c = (cute_comm *)1;
    CHECK(cute_comm_open(0, NULL, &c, err, sizeof err) == CUTE_ERR_INVALID && !c, "0 ranks: %s", err);
    cute_runtime *rt = NULL;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "%s", err);
    cute_runtime *two[2] = {rt, rt};
    CHECK(cute_comm_open(2, two, &c, err, sizeof err) == CUTE_ERR_INVALID && strstr(err, "rank 0") &&
              strstr(err, "interp"),
          "an interpreter: %s", err);
    cute_runtime_free(rt);
    CHECK(cute_comm_size(NULL) == 0, "no communicator, no ranks");
    CHECK(cute_comm_sync(NULL, NULL, err, sizeof err) == CUTE_ERR_INVALID, "sync NULL: %s", err);
    CHECK(cute_comm_all_reduce(NULL, NULL, NULL, CUTE_COMM_SUM, NULL, err, sizeof err) ==
              CUTE_ERR_INVALID && strstr(err, "cute_comm_all_reduce"),
          "all-reduce NULL: %s", err);
}

/* two ranks' tensors over host memory (the check reads only pointers and sizes) */
typedef struct {
    cute_buffer buf[2];
    cute_call_arg send[2], recv[2];
} pair;

static void tensors(pair *p, cute_dtype d, int ndim, const int64_t *ss, const int64_t *sst,
                    const int64_t *rs, const int64_t *rst, size_t bytes)
{
    static char mem[2][1 << 16];
    for (int i = 0; i < 2; i++) {
        p->buf[i] = (cute_buffer){mem[i], bytes, 0, (uint64_t)i};
        p->send[i] = cute_call_tensor(&p->buf[i], 0, d, ndim, ss, sst);
        p->recv[i] = cute_call_tensor(&p->buf[i], bytes / 2, d, ndim, rs, rst);
    }
}

static cute_status check(pair *p, comm_collective k, int op, int version, size_t *count, char *err)
{
    int type = -1;
    return comm_check_call(2, version, k, p->send, p->recv, op, count, &type, err, 512);
}

static void argument_checks(void)
{
    char err[512];
    size_t count = 0;
    pair p;
    int64_t s48[2] = {4, 8}, row[2] = {8, 1}, col[2] = {1, 4}, gap[2] = {16, 1};
    tensors(&p, CUTE_F32, 2, s48, row, s48, col, 4096);
    CHECK(check(&p, COMM_ALL_REDUCE, CUTE_COMM_SUM, 22809, &count, err) == CUTE_OK && count == 32,
          "row-major send, column-major recv: %s", err);
    CHECK(check(&p, COMM_ALL_REDUCE, 5, 22809, &count, err) == CUTE_ERR_INVALID && strstr(err, "op 5"),
          "op 5: %s", err);
    p.send[1] = cute_call_tensor(&p.buf[1], 0, CUTE_F32, 2, s48, gap);
    CHECK(check(&p, COMM_ALL_REDUCE, CUTE_COMM_SUM, 22809, &count, err) == CUTE_ERR_INVALID &&
              strstr(err, "rank 1's send is not a dense tensor"),
          "a gap between rows: %s", err);
    tensors(&p, CUTE_F32, 2, s48, row, s48, row, 190); /* recv reaches past 190 bytes */
    CHECK(check(&p, COMM_ALL_REDUCE, CUTE_COMM_SUM, 22809, &count, err) == CUTE_ERR_INVALID &&
              strstr(err, "rank 0's recv"),
          "outside its buffer: %s", err);
    tensors(&p, CUTE_F32, 2, s48, row, s48, row, 4096);
    p.recv[1].dtype = CUTE_BF16;
    CHECK(check(&p, COMM_ALL_REDUCE, CUTE_COMM_SUM, 22809, &count, err) == CUTE_ERR_INVALID &&
              strstr(err, "rank 1") && strstr(err, "bf16"),
          "two dtypes: %s", err);
    int64_t s44[2] = {4, 4}, row4[2] = {4, 1};
    tensors(&p, CUTE_F32, 2, s48, row, s44, row4, 4096);
    CHECK(check(&p, COMM_REDUCE_SCATTER, CUTE_COMM_MAX, 22809, &count, err) == CUTE_OK && count == 16,
          "reduce-scatter 32 -> 16 a rank: %s", err);
    CHECK(check(&p, COMM_ALL_REDUCE, CUTE_COMM_SUM, 22809, &count, err) == CUTE_ERR_INVALID &&
              strstr(err, "as many"),
          "all-reduce 32 -> 16: %s", err);
    CHECK(check(&p, COMM_ALL_GATHER, 0, 22809, &count, err) == CUTE_ERR_INVALID &&
              strstr(err, "send's * ranks"),
          "all-gather 32 -> 16: %s", err);
}

/* in place as NCCL allows it, and overlaps it does not */
static void in_place(void)
{
    char err[512];
    size_t count = 0;
    pair p;
    int64_t s8[1] = {8}, s16[1] = {16}, unit[1] = {1};
    tensors(&p, CUTE_BF16, 1, s8, unit, s8, unit, 4096);
    for (int i = 0; i < 2; i++) p.recv[i] = p.send[i];
    CHECK(check(&p, COMM_ALL_REDUCE, CUTE_COMM_SUM, 22809, &count, err) == CUTE_OK, "all-reduce in place: %s", err);
    p.recv[1].offset = 2;
    CHECK(check(&p, COMM_ALL_REDUCE, CUTE_COMM_SUM, 22809, &count, err) == CUTE_ERR_INVALID &&
              strstr(err, "rank 1's send and recv overlap"),
          "shifted by one element: %s", err);
    for (int i = 0; i < 2; i++) {
        p.recv[i] = cute_call_tensor(&p.buf[i], 0, CUTE_BF16, 1, s16, unit);
        p.send[i] = cute_call_tensor(&p.buf[i], (size_t)i * 16, CUTE_BF16, 1, s8, unit);
    }
    CHECK(check(&p, COMM_ALL_GATHER, 0, 22809, &count, err) == CUTE_OK && count == 8,
          "all-gather in place (rank i's run of recv): %s", err);
    p.send[1].offset = 0;
    CHECK(check(&p, COMM_ALL_GATHER, 0, 22809, &count, err) == CUTE_ERR_INVALID,
          "rank 1 sending from rank 0's run: %s", err);
}

static void dtypes(void)
{
    char err[512];
    size_t count = 0;
    pair p;
    int64_t s8[1] = {8}, unit[1] = {1};
    tensors(&p, CUTE_E4M3, 1, s8, unit, s8, unit, 4096);
    CHECK(check(&p, COMM_ALL_GATHER, 0, 22809, &count, err) == CUTE_ERR_INVALID, "e4m3 8 -> 8 gather");
    CHECK(check(&p, COMM_ALL_REDUCE, CUTE_COMM_SUM, 22809, &count, err) == CUTE_OK, "e4m3, NCCL 2.28: %s", err);
    CHECK(check(&p, COMM_ALL_REDUCE, CUTE_COMM_SUM, 22300, &count, err) == CUTE_ERR_UNSUPPORTED &&
              strstr(err, "E4M3") && strstr(err, "22300"),
          "e4m3, NCCL 2.23: %s", err);
    tensors(&p, CUTE_E2M1, 1, s8, unit, s8, unit, 4096);
    CHECK(check(&p, COMM_ALL_REDUCE, CUTE_COMM_SUM, 22809, &count, err) == CUTE_ERR_UNSUPPORTED,
          "e2m1: %s", err);
}

/* --- on the GPUs ---------------------------------------------------------------------- */

enum { MAX_RANKS = 8, N = 3 * 5 * 4096 + 8 }; /* elements a rank: odd, a multiple of 8 */

typedef struct {
    int n;
    cute_runtime *rt[MAX_RANKS];
    cute_comm *comm;
    cute_buffer send[MAX_RANKS], recv[MAX_RANKS];
    float host[MAX_RANKS][N];
} group;

static uint64_t seed;
static float gaussian(void)
{
    double u[2];
    for (int i = 0; i < 2; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        u[i] = ((double)(seed >> 11) + 0.5) / 9007199254740992.0;
    }
    return (float)(sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]));
}

static void upload(group *g, cute_dtype d)
{
    for (int r = 0; r < g->n; r++) {
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        static uint16_t half[N];
        for (int i = 0; i < N; i++) {
            float x = gaussian();
            g->host[r][i] = d == CUTE_BF16 ? cute_bf16_to_f32(half[i] = cute_f32_to_bf16(x)) : x;
        }
        b->vt->upload(b->self, &g->send[r], 0, d == CUTE_BF16 ? (void *)half : g->host[r],
                      (size_t)N * cute_dtype_bytes(d));
        static unsigned char nan[(size_t)N * 4 * MAX_RANKS];
        memset(nan, 0xff, g->recv[r].bytes); /* poison: NaN in f32 and bf16 */
        b->vt->upload(b->self, &g->recv[r], 0, nan, g->recv[r].bytes);
    }
}

/* element i of a downloaded recv, as f32 */
static float got(const void *tmp, int64_t i, cute_dtype d)
{
    return d == CUTE_BF16 ? cute_bf16_to_f32(((const uint16_t *)tmp)[i]) : ((const float *)tmp)[i];
}

static double reduce(group *g, int64_t i, cute_comm_op op)
{
    double acc = g->host[0][i];
    for (int r = 1; r < g->n; r++) {
        double x = g->host[r][i];
        acc = op == CUTE_COMM_MAX ? fmax(acc, x) : op == CUTE_COMM_MIN ? fmin(acc, x) : acc + x;
    }
    return op == CUTE_COMM_AVG ? acc / g->n : acc;
}

/* one collective on every rank, then each rank's recv against the reference: reductions to
 * a few units of the dtype's rounding of their result, gathers bit for bit */
static void collective(group *g, comm_collective k, cute_comm_op op, cute_dtype d)
{
    char err[512] = "";
    cute_call_arg send[MAX_RANKS], recv[MAX_RANKS];
    int64_t ns = N, nr = k == COMM_ALL_REDUCE ? N : k == COMM_REDUCE_SCATTER ? N / g->n : (int64_t)N * g->n;
    if (k == COMM_REDUCE_SCATTER && N % g->n) return; /* 3 ranks, 5, 6, 7: not a multiple */
    upload(g, d);
    for (int r = 0; r < g->n; r++) {
        send[r] = cute_call_tensor(&g->send[r], 0, d, 1, &ns, (int64_t[]){1});
        recv[r] = cute_call_tensor(&g->recv[r], 0, d, 1, &nr, (int64_t[]){1});
    }
    cute_status s = k == COMM_ALL_REDUCE ? cute_comm_all_reduce(g->comm, send, recv, op, NULL, err, sizeof err)
                  : k == COMM_REDUCE_SCATTER ? cute_comm_reduce_scatter(g->comm, send, recv, op, NULL, err, sizeof err)
                                             : cute_comm_all_gather(g->comm, send, recv, NULL, err, sizeof err);
    if (s == CUTE_OK) s = cute_comm_sync(g->comm, NULL, err, sizeof err);
    CHECK(s == CUTE_OK, "%s %s over %d ranks: %s", comm_name(k), cute_dtype_name(d), g->n, err);
    size_t bytes = (size_t)nr * cute_dtype_bytes(d);
    void *tmp = malloc(bytes);
    int64_t bad = 0, first = -1;
    double first_got = 0, first_want = 0;
    double ulp = d == CUTE_BF16 ? 1.0 / 128 : 1.0 / 8388608;
    for (int r = 0; s == CUTE_OK && r < g->n; r++) {
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        b->vt->download(b->self, tmp, &g->recv[r], 0, bytes);
        for (int64_t i = 0; i < nr; i++) {
            float y = got(tmp, i, d);
            double want = k == COMM_ALL_GATHER ? g->host[i / N][i % N]
                        : reduce(g, k == COMM_REDUCE_SCATTER ? r * nr + i : i, op);
            double tol = k == COMM_ALL_GATHER || op == CUTE_COMM_MAX || op == CUTE_COMM_MIN
                       ? 0 : 2 * ulp * g->n * (fabs(want) + 4);
            if (!(fabs(y - want) <= tol) && bad++ == 0) first = r * nr + i, first_got = y, first_want = want;
        }
    }
    free(tmp);
    CHECK(bad == 0, "%s %s op %d over %d ranks: %lld of %lld wrong (the first: element %lld of rank %lld, %.9g "
          "where %.9g)", comm_name(k), cute_dtype_name(d), op, g->n, (long long)bad, (long long)nr * g->n,
          (long long)(first % nr), (long long)(first / nr), first_got, first_want);
}

static bool group_open(group *g, char *err, size_t n)
{
    cute_cuda *cu = NULL;
    if (cute_cuda_open(NULL, &cu, err, n) != CUTE_OK) return false;
    g->n = cute_cuda_device_count(cu);
    cute_cuda_close(cu);
    if (g->n > MAX_RANKS) g->n = MAX_RANKS;
    for (int r = 0; r < g->n; r++) {
        char name[24];
        snprintf(name, sizeof name, "cuda:%d", r);
        if (cute_runtime_new(name, &g->rt[r], err, n) != CUTE_OK) return false;
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        if (b->vt->alloc(b->self, (size_t)N * 4, &g->send[r]) != CUTE_OK ||
            b->vt->alloc(b->self, (size_t)N * 4 * g->n, &g->recv[r]) != CUTE_OK)
            return snprintf(err, n, "out of device memory"), false;
    }
    return cute_comm_open(g->n, g->rt, &g->comm, err, n) == CUTE_OK;
}

static void on_gpus(void)
{
    static group g;
    char err[512] = "";
    if (!group_open(&g, err, sizeof err)) {
        SKIP(err);
    } else {
        printf("comm_test: %d GPUs\n", g.n);
        CHECK(cute_comm_size(g.comm) == g.n, "size %d", cute_comm_size(g.comm));
        static const cute_comm_op ops[] = {CUTE_COMM_SUM, CUTE_COMM_MAX, CUTE_COMM_AVG};
        for (int i = 0; i < 3; i++) collective(&g, COMM_ALL_REDUCE, ops[i], CUTE_F32);
        collective(&g, COMM_ALL_REDUCE, CUTE_COMM_SUM, CUTE_BF16);
        collective(&g, COMM_REDUCE_SCATTER, CUTE_COMM_SUM, CUTE_F32);
        collective(&g, COMM_REDUCE_SCATTER, CUTE_COMM_MIN, CUTE_BF16);
        collective(&g, COMM_ALL_GATHER, CUTE_COMM_SUM, CUTE_BF16);
        collective(&g, COMM_ALL_GATHER, CUTE_COMM_SUM, CUTE_F32);
        if (g.n < 2) SKIP("one GPU: collectives ran over a single rank; two GPUs test the exchange");
    }
    cute_comm_free(g.comm);
    for (int r = 0; r < g.n; r++) {
        if (!g.rt[r]) continue;
        cute_backend *b = cute_runtime_backend(g.rt[r]);
        if (g.send[r].ptr) b->vt->free(b->self, &g.send[r]);
        if (g.recv[r].ptr) b->vt->free(b->self, &g.recv[r]);
        cute_runtime_free(g.rt[r]);
    }
}

int main(void)
{
    seed = check_seed("comm_test");
    loading();
    open_refusals();
    argument_checks();
    in_place();
    dtypes();
    on_gpus();
    return CHECK_DONE("comm_test");
}
