/* The Hopper GEMM's flags between GPUs (cutec_gemm_peer, hopper_peer.c) on two emulated
 * devices of the interpreter, the race check on: the row-parallel reduction of a
 * tensor-parallel GEMM, C = A0 B0^T + A1 B1^T with K split over two ranks.  Rank 0 writes
 * its partial product straight into rank 1's C and signals each tile's flag there; rank 1's
 * producer waits for a tile's flag before its loads and its epilogue adds the partial
 * (beta = 1).  Checked: the values against float64 (fresh gaussian bf16 inputs, C poisoned
 * with NaN), the flags each tile signalled, a second round with the flags counting up; a
 * rank 1 that does not wait is a reported peer-memory race naming rank 0's store; misuse
 * refused with words; the CUDA C holds the release and the acquire (and its PTX for sm_90a
 * where NVRTC is installed).  On two sm_90 GPUs (else skipped, visibly) the same reduction
 * at 1024 x 1024 x (512 + 512) through cute_peer_alloc's mapped memory, three epochs,
 * sampled against float64. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/interp.h"
#include "cutec/peer.h"
#include "kernels/gemm/gemm_testkit.h"

/* On the interpreter: 64 x 64 tiles in 2 stages, two tiles a block (its 2 resident blocks);
 * rank 0 multiplies one k-tile, rank 1 eight: rank 0 stores first, so a rank 1 that does not
 * wait reads its stores unordered (a load before the store would read stale bytes unseen) */
enum { M = 128, N = 256, K0 = 64, K1 = 512, FM = M / 64, FN = N / 64 };

static uint64_t seed;

typedef struct two {
    cute_runtime *rt[2];  /* one interpreter twice, or two GPUs */
    cute_gemm_lib *lib[2];
    int64_t m, n, k[2];
    cute_peer_buffers *C, *flags; /* each rank's C (m, n) bf16 row-major and flags (m/64, n/64) */
    gtk_operand a[2], b[2];
} two;

static bool two_open(two *g, const cute_gemm_tiling *tiles, char *err, size_t n)
{
    size_t cb = (size_t)(g->m * g->n * 2), fb = (size_t)(g->m / 64 * g->n / 64 * 4);
    if (cute_peer_alloc(2, g->rt, cb, &g->C, err, n) || cute_peer_alloc(2, g->rt, fb, &g->flags, err, n)) return false;
    for (int r = 0; r < 2; r++) {
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        if (!gtk_make(b, &g->a[r], CUTE_BF16, g->m, g->k[r], 1, 0, false, &seed) ||
            !gtk_make(b, &g->b[r], CUTE_BF16, g->n, g->k[r], 1, 0, false, &seed))
            return snprintf(err, n, "no memory"), false;
        if (r && g->rt[1] == g->rt[0]) g->lib[1] = g->lib[0]; /* one function for both emulated devices */
        else if (!(g->lib[r] = cute_gemm_lib_new(g->rt[r])) || (tiles && !cute_gemm_lib_tiling(g->lib[r], tiles)))
            return snprintf(err, n, "no library"), false;
    }
    return true;
}

static void two_close(two *g)
{
    for (int r = 0; r < 2; r++) {
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        gtk_operand *x[2] = {&g->a[r], &g->b[r]};
        for (int i = 0; i < 2; i++) {
            if (x[i]->dev.ptr) b->vt->free(b->self, &x[i]->dev);
            free(x[i]->host);
        }
        if (!r || g->lib[1] != g->lib[0]) cute_gemm_lib_free(g->lib[r]);
    }
    cute_peer_free(g->C), cute_peer_free(g->flags);
}

static cute_call_arg c_of(const two *g, int r)
{
    return cute_call_tensor(cute_peer_buffer(g->C, r), 0, CUTE_BF16, 2, (int64_t[]){g->m, g->n}, (int64_t[]){g->n, 1});
}

static cute_call_arg flags_of(const two *g, int r)
{
    int64_t fm = g->m / 64;
    return cute_call_tensor(cute_peer_buffer(g->flags, r), 0, CUTE_U32, 2, (int64_t[]){fm, g->n / 64},
                            (int64_t[]){1, fm});
}

/* every rank's C poisoned with NaN */
static void poison(two *g)
{
    size_t cb = (size_t)(g->m * g->n * 2);
    uint16_t *nan = malloc(cb);
    for (size_t i = 0; i < cb / 2; i++) nan[i] = 0x7fc0; /* a bf16 NaN */
    for (int r = 0; r < 2; r++) {
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        cute_buffer c = *cute_peer_buffer(g->C, r);
        b->vt->upload(b->self, &c, 0, nan, cb);
        b->vt->sync(b->self, NULL);
    }
    free(nan);
}

static cute_status sync_both(two *g, cute_status s)
{
    for (int r = 0; r < 2 && s == CUTE_OK; r++) {
        cute_backend *b = cute_runtime_backend(g->rt[r]);
        s = b->vt->sync(b->self, NULL);
    }
    return s;
}

/* One reduction of epoch e on both ranks (rank 1 waits unless `no_wait`), every C poisoned
 * first: the status of cute_call_peers */
static cute_status reduce(two *g, uint32_t e, bool no_wait, char *err, size_t n)
{
    poison(g);
    cute_call_arg args[2 * CUTE_GEMM_PEER_ARGS], C1 = c_of(g, 1), f0 = flags_of(g, 0), f1 = flags_of(g, 1);
    cute_call_arg A[2] = {gtk_arg(&g->a[0], CUTE_BF16), gtk_arg(&g->a[1], CUTE_BF16)};
    cute_call_arg B[2] = {gtk_arg(&g->b[0], CUTE_BF16), gtk_arg(&g->b[1], CUTE_BF16)};
    /* rank 0: its partial into rank 1's C, each tile signalled there; rank 1: waits, adds its own */
    cute_gemm_peer push = {.signal = &f1, .signal_value = e};
    cute_gemm_peer add = {.wait = &f1, .wait_value = no_wait ? 0 : e, .signal = &f0, .signal_value = e};
    const cute_fn *fs[2];
    cute_status s = cute_gemm_peer_fn(g->lib[0], &A[0], &B[0], &C1, 1.0, 0.0, &push, &fs[0], args, err, n);
    if (s == CUTE_OK)
        s = cute_gemm_peer_fn(g->lib[1], &A[1], &B[1], &C1, 1.0, 1.0, &add, &fs[1], args + CUTE_GEMM_PEER_ARGS, err, n);
    if (s == CUTE_OK) s = cute_call_peers(fs, 2, NULL, CUTE_GEMM_PEER_ARGS, args, err, n);
    return sync_both(g, s);
}

/* rows [first, first + count) of a row-major matrix (or of a flags tensor, whose first
 * mode is its rows of flags) */
static cute_call_arg rows(cute_call_arg x, int64_t first, int64_t count)
{
    x.offset += (size_t)(first * x.stride[0] * cute_dtype_bytes((cute_dtype)x.dtype));
    x.shape[0] = count;
    return x;
}

/* The whole all-reduce of the row-parallel GEMM in two calls a rank, as `cutec bench tp-gemm
 * --order fused` runs it (docs/peer.md): rank r owns C's half r.  First every rank writes its
 * partial of the other's half straight into the other's C, flagging each tile there; then
 * every rank adds its partial of its own half on top (each tile after its flag) and stores
 * the sum into its C and, through the mirror, into the other's.  Both ranks' C poisoned
 * first, both checked whole.  `in_turn`: each call launched alone, one after another (the
 * waits find their flags set), where the interpreter cannot run the ranks together (clusters
 * are not emulated across devices). */
static cute_status row_parallel_as(two *g, uint32_t e, bool in_turn, char *err, size_t n)
{
    poison(g);
    int64_t h = g->m / 2, fh = h / 64;
    cute_call_arg args[2 * CUTE_GEMM_PEER_ARGS], C[2] = {c_of(g, 0), c_of(g, 1)}, f[2] = {flags_of(g, 0), flags_of(g, 1)};
    cute_status s = CUTE_OK;
    for (int step = 0; step < 2 && s == CUTE_OK; step++) {
        const cute_fn *fs[2];
        for (int r = 0; r < 2 && s == CUTE_OK; r++) {
            int half = step ? r : 1 - r, owner = half; /* the half this step multiplies, and its owner */
            cute_call_arg A = rows(gtk_arg(&g->a[r], CUTE_BF16), half * h, h), B = gtk_arg(&g->b[r], CUTE_BF16);
            cute_call_arg out = rows(C[owner], half * h, h), fl = rows(f[owner], half * fh, fh);
            cute_call_arg mirror = rows(C[1 - r], half * h, h);
            cute_gemm_peer push = {.signal = &fl, .signal_value = e};
            cute_gemm_peer add = {.wait = &fl, .wait_value = e, .mirror = &mirror};
            s = cute_gemm_peer_fn(g->lib[r], &A, &B, &out, 1.0, step ? 1.0 : 0.0, step ? &add : &push, &fs[r],
                                  args + r * CUTE_GEMM_PEER_ARGS, err, n);
        }
        if (s == CUTE_OK && !in_turn) s = sync_both(g, cute_call_peers(fs, 2, NULL, CUTE_GEMM_PEER_ARGS, args, err, n));
        for (int r = 0; r < 2 && s == CUTE_OK && in_turn; r++)
            s = sync_both(g, cute_call(fs[r], NULL, CUTE_GEMM_PEER_ARGS, args + r * CUTE_GEMM_PEER_ARGS, err, n));
    }
    return s;
}

static cute_status row_parallel(two *g, uint32_t e, char *err, size_t n) { return row_parallel_as(g, e, false, err, n); }

/* elements of rank r's C off A0 B0^T + A1 B1^T (every `step`-th): the partial rounds to
 * bf16 once, the sum once */
static int wrong_on(const two *g, int r, int64_t step)
{
    cute_backend *b = cute_runtime_backend(g->rt[r]);
    size_t cb = (size_t)(g->m * g->n * 2);
    uint16_t *got = malloc(cb);
    b->vt->download(b->self, got, cute_peer_buffer(g->C, r), 0, cb);
    int wrong = 0;
    for (int64_t e = 0; e < g->m * g->n; e += step) {
        int64_t m = e / g->n, j = e % g->n;
        double p[2] = {0, 0};
        for (int r = 0; r < 2; r++)
            for (int64_t k = 0; k < g->a[r].cols; k++)
                p[r] += ew_get(CUTE_BF16, g->a[r].host, m * g->a[r].ld + k) *
                        ew_get(CUTE_BF16, g->b[r].host, j * g->b[r].ld + k);
        double v = ew_get(CUTE_BF16, got, e), ref = p[0] + p[1];
        wrong += !(fabs(v - ref) <= 0.01 * (fabs(p[0]) + fabs(ref)) + 1e-3);
    }
    free(got);
    return wrong;
}

static int wrong_values(const two *g, int64_t step) { return wrong_on(g, 1, step); }

/* rank r's flags: each tile's (every 64 x 64 block a tile) at e */
static bool flags_are(const two *g, int r, uint32_t e)
{
    uint32_t f[FM * FN];
    cute_backend *b = cute_runtime_backend(g->rt[r]);
    b->vt->download(b->self, f, cute_peer_buffer(g->flags, r), 0, sizeof f);
    for (int i = 0; i < FM * FN; i++)
        if (f[i] != e) return false;
    return true;
}

static int peer_races(cute_runtime *rt, const char *words, bool *said)
{
    int n = 0, found = 0;
    const cute_interp_report *r = cute_interp_reports(*cute_runtime_backend(rt), &n);
    for (int i = 0; i < n; i++)
        if (r[i].kind == CUTE_CHECK_PEER_RACE) {
            found++;
            *said |= strstr(r[i].msg, words) != NULL;
            if (found == 1) printf("  %s\n", r[i].msg);
        }
    return found;
}

static void on_interp(two *g)
{
    char err[4096] = "";
    for (uint32_t e = 1; e <= 2; e++) { /* flags count up: a second round needs no reset */
        cute_status s = reduce(g, e, false, err, sizeof err);
        CHECK(s == CUTE_OK, "epoch %u: %s", e, err);
        CHECK(s != CUTE_OK || wrong_values(g, 1) == 0, "epoch %u: %d wrong", e, wrong_values(g, 1));
        CHECK(s != CUTE_OK || (flags_are(g, 0, e) && flags_are(g, 1, e)), "epoch %u: the flags", e);
    }
    for (uint32_t e = 3; e <= 4; e++) { /* the all-reduce in two calls a rank, its all-gather by the mirror */
        cute_status s = row_parallel(g, e, err, sizeof err);
        CHECK(s == CUTE_OK, "row parallel, epoch %u: %s", e, err);
        CHECK(s != CUTE_OK || (wrong_on(g, 0, 1) == 0 && wrong_on(g, 1, 1) == 0),
              "row parallel, epoch %u: %d wrong on rank 0, %d on rank 1", e, wrong_on(g, 0, 1), wrong_on(g, 1, 1));
    }
    bool said = false; /* rank 1 adds rank 0's partial without waiting for its flag */
    cute_status s = reduce(g, 5, true, err, sizeof err);
    CHECK(s == CUTE_ERR_CHECK, "a read of the peer's tile before its signal passed: %s (%d wrong)", cute_status_name(s), wrong_values(g, 1));
    CHECK(peer_races(g->rt[0], "stored by rank 0 block (", &said) > 0 && said, "%s", err);
}

static void misuse(two *g)
{
    char err[1024] = "";
    cute_call_arg args[CUTE_GEMM_PEER_ARGS], C = c_of(g, 1), A = gtk_arg(&g->a[0], CUTE_BF16),
                  B = gtk_arg(&g->b[0], CUTE_BF16), f1 = flags_of(g, 1);
    cute_call_arg half = cute_call_tensor(cute_peer_buffer(g->C, 0), 0, CUTE_BF16, 2, (int64_t[]){g->m / 2, g->n},
                                          (int64_t[]){g->n, 1});
    cute_call_arg small = cute_call_tensor(cute_peer_buffer(g->flags, 0), 0, CUTE_U32, 2, (int64_t[]){FM - 1, FN},
                                           (int64_t[]){1, FM});
    cute_call_arg wrong = cute_call_tensor(cute_peer_buffer(g->flags, 0), 0, CUTE_F32, 2, (int64_t[]){FM, FN},
                                           (int64_t[]){1, FM});
    const cute_fn *f;
    cute_gemm_peer none = {0}, few = {.wait = &small, .wait_value = 1}, f32 = {.signal = &wrong, .signal_value = 1};
    cute_gemm_peer mis = {.signal = &f1, .signal_value = 1, .mirror = &half};
    cute_status s = cute_gemm_peer_fn(g->lib[0], &A, &B, &C, 1, 0, &none, &f, args, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID && strstr(err, "no flags"), "%s", err);
    s = cute_gemm_peer_fn(g->lib[0], &A, &B, &C, 1, 0, &few, &f, args, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID && strstr(err, "the wait flags must be a u32 rank-2 tensor of at least (2, 4)"), "%s", err);
    s = cute_gemm_peer_fn(g->lib[0], &A, &B, &C, 1, 0, &f32, &f, args, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID && strstr(err, "the signal flags must be a u32"), "%s", err);
    s = cute_gemm_peer_fn(g->lib[0], &A, &B, &C, 1, 0, &mis, &f, args, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID && strstr(err, "the mirror must be a tensor laid out as C (its dtype, shape (128, 256)"),
          "%s", err);
    cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP, .dtype = CUTE_BF16, .major = {1, 1, 1}, .align_bytes = 16,
                            .peer_flags = true};
    f = cute_gemm_compile(g->rt[0], &cfg, err, sizeof err);
    CHECK(!f && strstr(err, "flags between GPUs (cutec_gemm_peer) run in the hopper kernel only"), "%s", err);
    cfg.variant = CUTE_GEMM_HOPPER, cfg.peer_flags = false, cfg.peer_mirror = true;
    f = cute_gemm_compile(g->rt[0], &cfg, err, sizeof err);
    CHECK(!f && strstr(err, "a mirror only with flags"), "%s", err);
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p++) n++;
    return n;
}

/* with a mirror, each TMA store of C is issued twice (to C, to the mirror): in the PTX for
 * sm_90a, twice the plain flagged GEMM's (f's) stores */
static void mirror_code(two *g, const cute_fn *f)
{
    char err[1024] = "", *plain = NULL, *twice = NULL;
    cute_call_arg args[CUTE_GEMM_PEER_ARGS], C = c_of(g, 1), M = c_of(g, 0), f1 = flags_of(g, 1);
    cute_call_arg A = gtk_arg(&g->a[0], CUTE_BF16), B = gtk_arg(&g->b[0], CUTE_BF16);
    cute_gemm_peer both = {.wait = &f1, .wait_value = 1, .signal = &f1, .signal_value = 1, .mirror = &M};
    const cute_fn *fm = NULL;
    CHECK(cute_gemm_peer_fn(g->lib[0], &A, &B, &C, 1, 0, &both, &fm, args, err, sizeof err) == CUTE_OK && fm != f,
          "mirror: %s", err);
    const char *store = "cp.async.bulk.tensor.2d.global.shared::cta";
    if (fm && cute_fn_code(f, "ptx", "sm_90a", &plain, err, sizeof err) == CUTE_OK &&
        cute_fn_code(fm, "ptx", "sm_90a", &twice, err, sizeof err) == CUTE_OK)
        CHECK(count(plain, store) > 0 && count(twice, store) == 2 * count(plain, store), "TMA stores: %d plain, %d "
              "with the mirror", count(plain, store), count(twice, store));
    free(plain), free(twice);
}

/* the generated CUDA C: the producer's acquire, the consumers' release; PTX for sm_90a */
static void code(two *g)
{
    char err[1024] = "", *src = NULL, *ptx = NULL;
    cute_call_arg args[CUTE_GEMM_PEER_ARGS], C = c_of(g, 1), f1 = flags_of(g, 1);
    cute_call_arg A = gtk_arg(&g->a[0], CUTE_BF16), B = gtk_arg(&g->b[0], CUTE_BF16);
    cute_gemm_peer both = {.wait = &f1, .wait_value = 1, .signal = &f1, .signal_value = 1};
    const cute_fn *f = NULL;
    CHECK(cute_gemm_peer_fn(g->lib[0], &A, &B, &C, 1, 0, &both, &f, args, err, sizeof err) == CUTE_OK, "%s", err);
    if (f && cute_fn_code(f, "cuda", NULL, &src, err, sizeof err) == CUTE_OK) {
        CHECK(strstr(src, "st.release.sys.global.u32") && strstr(src, "ld.acquire.sys.global.u32"),
              "the CUDA C lacks the release or the acquire");
        free(src);
    }
    /* one flag for every tile (strides 0, as a shard's flag written by a copy stream): a
     * function of its own, the strides static */
    cute_call_arg one = cute_call_tensor(cute_peer_buffer(g->flags, 0), 0, CUTE_U32, 2, (int64_t[]){FM, FN},
                                         (int64_t[]){0, 0});
    cute_gemm_peer shared = {.wait = &one, .wait_value = 1};
    const cute_fn *fone = NULL;
    CHECK(cute_gemm_peer_fn(g->lib[0], &A, &B, &C, 1, 0, &shared, &fone, args, err, sizeof err) == CUTE_OK && fone &&
          fone != f, "one flag for every tile: %s", err);
    if (f && cute_fn_code(f, "ptx", "sm_90a", &ptx, err, sizeof err) == CUTE_OK) {
        CHECK(strstr(ptx, "st.release.sys.global.u32") && strstr(ptx, "ld.acquire.sys.global.u32"), "ptx");
        free(ptx);
        mirror_code(g, f);
    } else {
        SKIP("no NVRTC: the flagged GEMM's PTX for sm_90a is not compiled here");
    }
}

/* The fused all-reduce in the tiling `cutec bench tp-gemm --pieces library` gives its GEMMs
 * at 8192^3 (the library's: clusters of 2 along M, B's k-tiles multicast, the whole tile's
 * store), in 64 x 64 tiles: C 256 x 128, so each half has a cluster's two tiles along M.
 * The interpreter runs a cluster on one emulated device only: each call alone, in turn. */
static void interp_clusters(cute_runtime *rt)
{
    two g = {.m = 256, .n = 128, .k = {64, 128}, .rt = {rt, rt}};
    char err[1024] = "";
    cute_gemm_tiling tiles = {.bm = 64, .bn = 64, .stages = 2, .cluster_m = 2, .cluster_n = 1,
                              .c_store = CUTE_GEMM_STORE_TILE};
    bool ok = two_open(&g, &tiles, err, sizeof err);
    CHECK(ok, "clusters: %s", err);
    for (uint32_t e = 1; ok && e <= 2; e++) {
        cute_status s = row_parallel_as(&g, e, true, err, sizeof err);
        CHECK(s == CUTE_OK, "row parallel in 2x1 clusters, epoch %u: %s", e, err);
        CHECK(s != CUTE_OK || (wrong_on(&g, 0, 1) == 0 && wrong_on(&g, 1, 1) == 0),
              "row parallel in 2x1 clusters, epoch %u: %d wrong on rank 0, %d on rank 1", e, wrong_on(&g, 0, 1),
              wrong_on(&g, 1, 1));
    }
    /* the kernel is the clustered one: B's k-tiles multicast */
    cute_call_arg args[CUTE_GEMM_PEER_ARGS], C = c_of(&g, 1), f1 = flags_of(&g, 1), A = gtk_arg(&g.a[0], CUTE_BF16),
                  B = gtk_arg(&g.b[0], CUTE_BF16);
    cute_gemm_peer push = {.signal = &f1, .signal_value = 1};
    const cute_fn *f = NULL;
    char *src = NULL;
    if (ok && cute_gemm_peer_fn(g.lib[0], &A, &B, &C, 1, 0, &push, &f, args, err, sizeof err) == CUTE_OK &&
        cute_fn_code(f, "cuda", NULL, &src, err, sizeof err) == CUTE_OK)
        CHECK(strstr(src, "multicast::cluster") != NULL, "clusters: no multicast load in the kernel");
    else
        CHECK(!ok, "clusters: the kernel's code: %s", err);
    free(src);
    two_close(&g);
}

static void interp(void)
{
    two g = {.m = M, .n = N, .k = {K0, K1}};
    char err[1024] = "";
    if (cute_runtime_new("interp", &g.rt[0], err, sizeof err) != CUTE_OK) {
        SKIP("no interpreter");
        return;
    }
    g.rt[1] = g.rt[0]; /* two emulated devices of one interpreter */
    cute_gemm_tiling tiles = {.bm = 64, .bn = 64, .stages = 2};
    bool ok = two_open(&g, &tiles, err, sizeof err);
    CHECK(ok, "%s", err);
    if (ok) on_interp(&g), misuse(&g), code(&g);
    two_close(&g);
    interp_clusters(g.rt[0]);
    cute_runtime_free(g.rt[0]);
}

/* two sm_90 GPUs: the runtimes of cuda:0 and cuda:1, or false (the caller skips) */
static bool two_gpus(two *g)
{
    char err[512];
    for (int r = 0; r < 2; r++) {
        char name[24];
        snprintf(name, sizeof name, "cuda:%d", r);
        if (cute_runtime_new(name, &g->rt[r], err, sizeof err) != CUTE_OK || cute_runtime_target_arch(g->rt[r]) != 90)
            return false;
    }
    return true;
}

static void on_gpus(void)
{
    two g = {.m = 1024, .n = 1024, .k = {512, 512}};
    char err[2048] = "";
    bool ok = two_gpus(&g), opened = ok && two_open(&g, NULL, err, sizeof err);
    if (!ok) SKIP("fewer than two sm_90 GPUs: the flagged GEMM between GPUs not run");
    else CHECK(opened, "%s", err);
    for (uint32_t e = 1; opened && e <= 3; e++) {
        cute_status s = e == 3 ? row_parallel(&g, e, err, sizeof err) : reduce(&g, e, false, err, sizeof err);
        CHECK(s == CUTE_OK, "two GPUs, epoch %u: %s", e, err);
        CHECK(s != CUTE_OK || wrong_values(&g, 257) == 0, "two GPUs, epoch %u: %d wrong of a sample", e,
              wrong_values(&g, 257));
        CHECK(s != CUTE_OK || e != 3 || wrong_on(&g, 0, 257) == 0, "two GPUs, row parallel on GPU 0: %d wrong of a "
              "sample", wrong_on(&g, 0, 257));
    }
    if (ok) two_close(&g);
    /* the fused all-reduce again in the library's tiling at 8192^3 (`--pieces library`: 2x1
     * clusters, the whole tile's store), the two GPUs running together */
    two c = {.m = 1024, .n = 1024, .k = {512, 512}, .rt = {g.rt[0], g.rt[1]}};
    cute_gemm_tiling tiles = {.cluster_m = 2, .cluster_n = 1, .c_store = CUTE_GEMM_STORE_TILE};
    opened = ok && two_open(&c, &tiles, err, sizeof err);
    if (ok) CHECK(opened, "clusters: %s", err);
    for (uint32_t e = 1; opened && e <= 2; e++) {
        cute_status s = row_parallel(&c, e, err, sizeof err);
        CHECK(s == CUTE_OK, "two GPUs, row parallel in 2x1 clusters, epoch %u: %s", e, err);
        CHECK(s != CUTE_OK || (wrong_on(&c, 0, 257) == 0 && wrong_on(&c, 1, 257) == 0),
              "two GPUs, row parallel in 2x1 clusters, epoch %u: %d and %d wrong of a sample", e, wrong_on(&c, 0, 257),
              wrong_on(&c, 1, 257));
    }
    if (ok) two_close(&c);
    for (int r = 0; r < 2; r++)
        if (g.rt[r]) cute_runtime_free(g.rt[r]);
}

int main(void)
{
    seed = check_seed("peer_gemm_test");
    interp();
    on_gpus();
    return CHECK_DONE("peer_gemm_test");
}
