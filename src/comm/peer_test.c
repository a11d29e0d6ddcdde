/* Peer memory (cutec/peer.h) on two emulated devices of the interpreter, and on two GPUs
 * where there are: every block pushes its tile of `src` into the peer's `recv`, signals the
 * peer's flag, waits for its own and reads the tile the peer pushed (out = 2 x recv).  The
 * checks: the values (fresh random inputs, outputs poisoned); a kernel that reads its tile
 * without waiting, or pushes it after its signal, is a reported race naming both ranks'
 * sites and the flag; one whose flag
 * is never signalled is a reported deadlock, not a hang; misuse and bad runtimes refused
 * with words; the generated CUDA C holds the release and acquire (and compiles for sm_90a
 * where NVRTC is installed). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_driver.h"
#include "cutec/interp.h"
#include "cutec/peer.h"
#include "cutec/tensor.h"

enum { TILES = 4, E = 64, N = TILES * E, ARGS = 7 };
enum { CORRECT, NO_WAIT, NO_SIGNAL, BAD_FLAGS, SIGNAL_FIRST };

static uint64_t seed;
static float rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((seed >> 40) % 2001) / 1000.0f - 1.0f;
}

static cute_tensor at(cute_ctx *c, cute_tensor t, cute_int i) { return cute_tensor_slice(c, t, cute_tuple_int(i)); }

static void exchange_kernel(cute_ctx *c, cute_tensor src, cute_tensor dst, cute_tensor fpeer, cute_tensor recv,
                            cute_tensor fmine, cute_tensor out, cute_int epoch)
{
    int mode = *(const int *)cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int b = cute_block_idx(c, 0), i = cute_add(a, cute_mul(a, b, cute_i(E)), cute_thread_idx(c, 0));
    if (mode == SIGNAL_FIRST) cute_peer_signal(c, fpeer, b, epoch); /* wrong: before the push */
    cute_tensor_store(c, at(c, dst, i), cute_tensor_load(c, at(c, src, i))); /* the push */
    if (mode != NO_SIGNAL && mode != SIGNAL_FIRST) cute_peer_signal(c, mode == BAD_FLAGS ? src : fpeer, b, epoch);
    if (mode != NO_WAIT) cute_peer_wait(c, fmine, b, epoch);
    cute_ssa v = cute_tensor_load(c, at(c, recv, i));
    cute_tensor_store(c, at(c, out, i), cute_ssa_binop(c, CUTE_OP_MUL, cute_ssa_scalar(c, cute_val_const(c, CUTE_F32, 2.0), v.shape), v));
}

static void exchange_host(cute_ctx *c, const cute_arg *x)
{
    cute_launch_cfg cfg = {.grid = {cute_i(TILES)}, .block = {cute_i(E)}};
    CUTE_LAUNCH(c, exchange_kernel, cfg, x[0].tensor, x[1].tensor, x[2].tensor, x[3].tensor, x[4].tensor,
                x[5].tensor, x[6].i);
}

static const cute_fn *compile(cute_runtime *rt, const int *mode, char *err, size_t n)
{
    cute_arg_spec s[ARGS];
    for (int k = 0; k < 6; k++) s[k] = cute_spec_tensor(k == 2 || k == 4 ? CUTE_U32 : CUTE_F32, "(?):(1)", 4);
    s[6] = cute_spec_int("?");
    return cute_compile(rt, "peer_exchange", exchange_host, (void *)mode, ARGS, s, err, n);
}

/* what two ranks share: recv tiles and flags (peer memory), and their own src and out */
typedef struct ranks {
    cute_runtime *rt[2];
    cute_peer_buffers *recv, *flags;
    cute_buffer src[2], out[2];
    float host_src[2][N];
} ranks;

static bool ranks_open(ranks *g, char *err, size_t n)
{
    if (cute_peer_alloc(2, g->rt, N * 4, &g->recv, err, n) || cute_peer_alloc(2, g->rt, TILES * 4, &g->flags, err, n))
        return false;
    for (int r = 0; r < 2; r++) {
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        if (b->vt->alloc(b->self, N * 4, &g->src[r]) || b->vt->alloc(b->self, N * 4, &g->out[r]))
            return snprintf(err, n, "no memory"), false;
        for (int i = 0; i < N; i++) g->host_src[r][i] = rnd();
        b->vt->upload(b->self, &g->src[r], 0, g->host_src[r], sizeof g->host_src[r]);
    }
    return true;
}

static void ranks_close(ranks *g)
{
    for (int r = 0; r < 2; r++) {
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        if (g->src[r].ptr) b->vt->free(b->self, &g->src[r]);
        if (g->out[r].ptr) b->vt->free(b->self, &g->out[r]);
    }
    cute_peer_free(g->recv), cute_peer_free(g->flags);
}

/* one exchange of epoch `epoch` on both ranks: the call's status; outputs poisoned first */
static cute_status exchange(ranks *g, const cute_fn *const *fs, int64_t epoch, char *err, size_t n)
{
    cute_call_arg args[2 * ARGS];
    int64_t len = N, tiles = TILES, one = 1;
    float nan[N];
    for (int i = 0; i < N; i++) nan[i] = NAN;
    for (int r = 0; r < 2; r++) {
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        b->vt->upload(b->self, &g->out[r], 0, nan, sizeof nan);
        cute_call_arg *a = args + r * ARGS;
        a[0] = cute_call_tensor(&g->src[r], 0, CUTE_F32, 1, &len, &one);
        a[1] = cute_call_tensor(cute_peer_buffer(g->recv, 1 - r), 0, CUTE_F32, 1, &len, &one);
        a[2] = cute_call_tensor(cute_peer_buffer(g->flags, 1 - r), 0, CUTE_U32, 1, &tiles, &one);
        a[3] = cute_call_tensor(cute_peer_buffer(g->recv, r), 0, CUTE_F32, 1, &len, &one);
        a[4] = cute_call_tensor(cute_peer_buffer(g->flags, r), 0, CUTE_U32, 1, &tiles, &one);
        a[5] = cute_call_tensor(&g->out[r], 0, CUTE_F32, 1, &len, &one);
        a[6] = cute_call_int(epoch);
    }
    cute_status s = cute_call_peers(fs, 2, NULL, ARGS, args, err, n);
    for (int r = 0; r < 2 && s == CUTE_OK; r++) {
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        s = b->vt->sync(b->self, NULL);
    }
    return s;
}

/* each rank's out is twice the other rank's src: the wrong elements */
static int wrong_values(ranks *g)
{
    int wrong = 0;
    for (int r = 0; r < 2; r++) {
        float got[N];
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        b->vt->download(b->self, got, &g->out[r], 0, sizeof got);
        for (int i = 0; i < N; i++) wrong += got[i] != 2 * g->host_src[1 - r][i];
    }
    return wrong;
}

/* the reports of the interpreter's last launch of kind k, and whether one says `words` */
static int reports_of(cute_runtime *rt, cute_interp_check k, const char *words, bool *said)
{
    int n = 0, found = 0;
    const cute_interp_report *r = cute_interp_reports(*cute_runtime_backend(rt), &n);
    for (int i = 0; i < n; i++)
        if (r[i].kind == k) {
            found++;
            if (words && strstr(r[i].msg, words)) *said = true;
            printf("  %s\n", r[i].msg);
        }
    return found;
}

static void on_interp(void)
{
    ranks g = {0};
    char err[2048] = "";
    int modes[4] = {CORRECT, NO_WAIT, NO_SIGNAL, SIGNAL_FIRST};
    CHECK(cute_runtime_new("interp", &g.rt[0], err, sizeof err) == CUTE_OK, "%s", err);
    g.rt[1] = g.rt[0]; /* two emulated devices of one interpreter */
    CHECK(ranks_open(&g, err, sizeof err), "%s", err);
    const cute_fn *f[4];
    for (int m = 0; m < 4; m++) CHECK((f[m] = compile(g.rt[0], &modes[m], err, sizeof err)) != NULL, "%s", err);
    for (int64_t epoch = 1; epoch <= 2 && f[0]; epoch++) { /* flags count up: a second round works */
        const cute_fn *fs[2] = {f[0], f[0]};
        cute_status s = exchange(&g, fs, epoch, err, sizeof err);
        CHECK(s == CUTE_OK, "epoch %lld: %s", (long long)epoch, err);
        CHECK(wrong_values(&g) == 0, "epoch %lld: %d wrong", (long long)epoch, wrong_values(&g));
    }
    if (f[1]) { /* a read of the peer's tile with no wait: a race naming the writer */
        const cute_fn *fs[2] = {f[1], f[1]};
        bool said = false;
        cute_status s = exchange(&g, fs, 3, err, sizeof err);
        CHECK(s == CUTE_ERR_CHECK, "a read before the signal passed: %s", cute_status_name(s));
        CHECK(reports_of(g.rt[0], CUTE_CHECK_PEER_RACE, "stored by rank 0 block (", &said) > 0 && said, "%s", err);
        CHECK(strstr(err, "peer_test.c:") != NULL, "the sites: %s", err);
    }
    if (f[2]) { /* nobody signals: every waiting warp is reported, with the flags, no hang */
        const cute_fn *fs[2] = {f[2], f[2]};
        bool said = false;
        cute_status s = exchange(&g, fs, 4, err, sizeof err);
        CHECK(s == CUTE_ERR_CHECK, "a wait nobody satisfies passed: %s", cute_status_name(s));
        CHECK(reports_of(g.rt[0], CUTE_CHECK_DEADLOCK, "flag", &said) >= 2 && said, "%s", err);
    }
    if (f[3]) { /* the tile stored after the signal: the waiter saw the flag, not the tile */
        const cute_fn *fs[2] = {f[3], f[3]};
        bool said = false;
        cute_status s = exchange(&g, fs, 5, err, sizeof err);
        CHECK(s == CUTE_ERR_CHECK, "a push after its signal passed: %s", cute_status_name(s));
        CHECK(reports_of(g.rt[0], CUTE_CHECK_PEER_RACE, "released by rank 0)", &said) > 0 && said, "%s", err);
    }
    for (int m = 0; m < 4; m++)
        if (f[m]) cute_fn_free(f[m]);
    ranks_close(&g);
    cute_runtime_free(g.rt[0]);
}

static void misuse(void)
{
    char err[1024] = "";
    cute_runtime *a = NULL, *b = NULL;
    int bad = BAD_FLAGS;
    CHECK(cute_runtime_new("interp", &a, err, sizeof err) == CUTE_OK && cute_runtime_new("interp", &b, err, sizeof err) == CUTE_OK, "%s", err);
    const cute_fn *f = compile(a, &bad, err, sizeof err); /* an f32 tensor as the flags */
    CHECK(!f && strstr(err, "cute_peer_signal: the flags must be a u32 tensor in global memory") &&
          strstr(err, "peer_test.c:"), "%s", err);
    cute_runtime *two[2] = {a, b};
    cute_peer_buffers *p = NULL;
    cute_status s = cute_peer_alloc(2, two, 64, &p, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID && !p && strstr(err, "rank 1's runtime is not rank 0's interpreter"), "%s", err);
    s = cute_peer_alloc(0, two, 64, &p, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID && strstr(err, "0 ranks"), "%s", err);
    int modes[2] = {CORRECT, NO_WAIT};
    const cute_fn *fs[2] = {compile(a, &modes[0], err, sizeof err), compile(a, &modes[1], err, sizeof err)};
    s = cute_call_peers(fs, 2, NULL, 0, NULL, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID && strstr(err, "every rank calls the same function"), "%s", err);
    char *src = NULL;
    if (fs[0] && cute_fn_code(fs[0], "cuda", NULL, &src, err, sizeof err) == CUTE_OK) {
        CHECK(check_count(src, "st.release.sys.global.u32") == 1 && check_count(src, "ld.acquire.sys.global.u32") == 1,
              "the CUDA C lacks the release or the acquire:\n%s", src);
        free(src);
    }
    char *ptx = NULL;
    if (fs[0] && cute_fn_code(fs[0], "ptx", "sm_90a", &ptx, err, sizeof err) == CUTE_OK) {
        CHECK(strstr(ptx, "st.release.sys.global.u32") && strstr(ptx, "ld.acquire.sys.global.u32"), "ptx");
        free(ptx);
    } else {
        SKIP("no NVRTC: the exchange kernel's PTX for sm_90a is not compiled here");
    }
    for (int i = 0; i < 2; i++)
        if (fs[i]) cute_fn_free(fs[i]);
    cute_runtime_free(a), cute_runtime_free(b);
}

static void on_gpus(void)
{
    ranks g = {0};
    char err[2048] = "";
    cute_cuda *cu = NULL;
    int have = cute_cuda_open(NULL, &cu, err, sizeof err) == CUTE_OK ? cute_cuda_device_count(cu) : 0;
    cute_cuda_close(cu);
    if (have < 2) {
        SKIP(have ? "one GPU: peer memory between two GPUs not run" : "no GPU: peer memory on GPUs not run");
        return;
    }
    int mode = CORRECT;
    const cute_fn *fs[2] = {NULL, NULL};
    bool ok = cute_runtime_new("cuda:0", &g.rt[0], err, sizeof err) == CUTE_OK &&
              cute_runtime_new("cuda:1", &g.rt[1], err, sizeof err) == CUTE_OK && ranks_open(&g, err, sizeof err);
    for (int r = 0; ok && r < 2; r++) ok = (fs[r] = compile(g.rt[r], &mode, err, sizeof err)) != NULL;
    CHECK(ok, "%s", err);
    for (int64_t epoch = 1; ok && epoch <= 3; epoch++) {
        cute_status s = exchange(&g, fs, epoch, err, sizeof err);
        CHECK(s == CUTE_OK, "two GPUs, epoch %lld: %s", (long long)epoch, err);
        CHECK(wrong_values(&g) == 0, "two GPUs, epoch %lld: %d wrong", (long long)epoch, wrong_values(&g));
    }
    for (int r = 0; r < 2; r++)
        if (fs[r]) cute_fn_free(fs[r]);
    ranks_close(&g);
    for (int r = 0; r < 2; r++) cute_runtime_free(g.rt[r]);
}

int main(void)
{
    seed = check_seed("peer_test");
    on_interp();
    misuse();
    on_gpus();
    return CHECK_DONE("peer_test");
}
