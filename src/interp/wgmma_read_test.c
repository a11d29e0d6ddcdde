/* wgmma's shared-memory read window under the interpreter: a wgmma reads its A and B tiles
 * until a wgmma.wait_group covers its group.  One warpgroup loads two stages (A and B of a
 * 64x64x16 bf16 SS atom: K block 0 of 128-byte swizzled (64, 64) tiles), issues wgmmas on them, and then loads B of a
 * stage again (the next k-tile's load).  Reloading a stage before the wait is reported with
 * the store's line and the wgmma's; after wait_group 0, or after wait_group 1 for the older
 * of two groups, it runs clean; after wait_group 1 for the newer group it is reported; a
 * K block of the stage the wgmma does not read may be loaded before the wait (only the bytes
 * read are held).  Stages stored without fence.proxy.async before the wgmma are reported
 * (the async proxy reads them) with the store's line and the wgmma's.  In lockstep and under
 * the warp scheduler (a named barrier). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/atom_table.h"
#include "cutec/jit.h"
#include "cutec/notation.h"
#include "cutec/numeric.h"
#include "cutec/smem.h"
#include "cutec/smem_atoms.h"
#include "cutec/sync.h"

typedef enum {
    RELOAD_AFTER_WAIT,   /* mma, commit, wait 0, reload stage 0: clean */
    RELOAD_BEFORE_WAIT,  /* mma, commit, reload stage 0, wait 0: reported */
    RELOAD_OLDER,        /* two groups, wait 1, reload stage 0: clean */
    RELOAD_NEWER,        /* two groups, wait 1, reload stage 1: reported */
    RELOAD_OTHER_BLOCK,  /* mma on K block 0, commit, reload block 1 of the stage, wait 0: clean */
    NO_PROXY_FENCE,      /* as RELOAD_AFTER_WAIT without fence.proxy.async after the loads: reported */
} reload_when;

typedef struct rd_plan {
    cute_mma_atom mma;
    reload_when when;
    bool scheduled;
    int nc;                     /* accumulators per thread */
    int mma_line;               /* the wgmma's line, for the report */
} rd_plan;

enum { M = 64, N = 64, K = 16 };

/* a stage's (rows, 64) bf16 operand tile, K-major 128-byte swizzled (one GMMA atom wide,
 * as a GEMM's K tile): a wgmma reads one (rows, 16) block of it, 32 of each row's 128 bytes */
static cute_tensor stage_tile(cute_ctx *c, cute_smem_allocator *al, int rows)
{
    cute_composed L = cute_smem_layout_gmma_tile(cute_ctx_alg(c), "Layout_K_SW128_Atom", CUTE_BF16, rows, 64);
    return cute_smem_alloc_tensor_composed(c, al, CUTE_BF16, L, 16);
}

/* K block kb of a stage tile: (rows, 16) */
static cute_tensor block(cute_ctx *c, cute_tensor t, int kb)
{
    cute_alg *a = cute_ctx_alg(c);
    return cute_tensor_local_tile(c, t, cute_tuple_fmt(a, "(64,%d)", K), cute_tuple_fmt(a, "(0,%d)", kb), NULL);
}

static int store_line; /* load_stage's store, for the report */

/* g into s, thread t its 8 elements of the (64, 16) tile */
static void load_stage(cute_ctx *c, cute_tensor g, cute_tensor s)
{
    cute_layout by = cute_layout_parse(cute_ctx_alg(c), "(128,8):(8,1)");
    cute_tiler T = cute_tiler_layout(&by);
    g.layout = cute_composition(cute_ctx_alg(c), &g.layout, &T);
    s.layout = cute_composition(cute_ctx_alg(c), &s.layout, &T);
    store_line = __LINE__ + 1;
    cute_autovec_copy(c, CUTE_SLICE(c, g, cute_thread_idx(c, 0), CUTE_ALL), CUTE_SLICE(c, s, cute_thread_idx(c, 0), CUTE_ALL));
}

static void meet(cute_ctx *c, const rd_plan *p)
{
    if (p->scheduled) cute_named_barrier_sync(c, 1, 128);
    else cute_barrier(c);
}

static void rd_kernel(cute_ctx *c, cute_tensor gA, cute_tensor gB, cute_tensor gD)
{
    rd_plan *p = cute_ctx_user(c);
    bool two = p->when == RELOAD_OLDER || p->when == RELOAD_NEWER;
    cute_smem_allocator al = cute_smem_allocator_new(c);
    cute_tensor sA[2] = {stage_tile(c, &al, M), stage_tile(c, &al, M)}, sB[2] = {stage_tile(c, &al, N), stage_tile(c, &al, N)};
    for (int s = 0; s < 2; s++) load_stage(c, gA, block(c, sA[s], 0)), load_stage(c, gB, block(c, sB[s], 0));
    if (p->when != NO_PROXY_FENCE) cute_fence_proxy_async_shared_cta(c);
    meet(c, p);
    cute_tensor acc = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_fmt(cute_ctx_alg(c), "%d:1", p->nc));
    cute_fill(c, acc, 0);
    cute_warpgroup_arrive(c);
    for (int s = 0; s < 1 + two; s++) {
        cute_tensor a0 = block(c, sA[s], 0), b0 = block(c, sB[s], 0);
        p->mma_line = __LINE__ + 1;
        cute_ctx_site(c, __FILE__, __LINE__), p->mma.emit(c, &p->mma, acc, a0, b0, acc); /* the emitter has no site macro */
        cute_warpgroup_commit_batch(c);
    }
    if (p->when != RELOAD_BEFORE_WAIT && p->when != RELOAD_OTHER_BLOCK) cute_warpgroup_wait(c, two);
    meet(c, p);
    load_stage(c, gB, block(c, sB[p->when == RELOAD_NEWER], p->when == RELOAD_OTHER_BLOCK));
    cute_warpgroup_wait(c, 0);
    cute_autovec_copy(c, acc, CUTE_SLICE(c, gD, cute_thread_idx(c, 0), CUTE_ALL));
}

static void rd_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(128)}};
    CUTE_LAUNCH(c, rd_kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor);
}

/* run p's kernel on fresh inputs: its status; why: the report */
static cute_status run(cute_runtime *rt, rd_plan *p, char *why, size_t whyn)
{
    cute_arg_spec specs[3] = {cute_spec_tensor(CUTE_BF16, "(64,16):(16,1)", 16), cute_spec_tensor(CUTE_BF16, "(64,16):(16,1)", 16),
                              cute_spec_tensor(CUTE_F32, "(128,32):(32,1)", 16)};
    const cute_fn *f = cute_compile(rt, "wgmma_read", rd_host, p, 3, specs, why, whyn);
    CHECK(f != NULL, "compiles: %s", why);
    if (!f) return CUTE_ERR_COMPILE;
    cute_backend *be = cute_runtime_backend(rt);
    static uint16_t a[M * K], b[N * K];
    static float d[128 * 32];
    for (int i = 0; i < M * K; i++) a[i] = cute_f32_to_bf16((float)(rand() % 64 - 32) / 8), b[i] = cute_f32_to_bf16((float)(rand() % 64 - 32) / 8);
    memset(d, 0xff, sizeof d); /* poison */
    cute_buffer B[3] = {{0}};
    int64_t shp[3][2] = {{M, K}, {N, K}, {128, 32}}, str[3][2] = {{K, 1}, {K, 1}, {32, 1}};
    void *h[3] = {a, b, d};
    size_t bytes[3] = {sizeof a, sizeof b, sizeof d};
    cute_call_arg args[3];
    for (int i = 0; i < 3; i++) {
        be->vt->alloc(be->self, bytes[i], &B[i]);
        be->vt->upload(be->self, &B[i], 0, h[i], bytes[i]);
        args[i] = cute_call_tensor(&B[i], 0, i < 2 ? CUTE_BF16 : CUTE_F32, 2, shp[i], str[i]);
    }
    cute_status s = cute_call(f, NULL, 3, args, why, whyn);
    if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
    if (s != CUTE_OK && !why[0]) snprintf(why, whyn, "%s", be->vt->error(be->self));
    for (int i = 0; i < 3; i++) be->vt->free(be->self, &B[i]);
    cute_fn_free(f);
    return s;
}

/* the report p's run must give (why: its text) */
static bool names_sites(const rd_plan *p, const char *why)
{
    char store_at[80], mma_at[80];
    if (p->when == NO_PROXY_FENCE) {
        snprintf(mma_at, sizeof mma_at, "wgmma_read_test.c:%d: async-proxy read of shared byte", p->mma_line);
        snprintf(store_at, sizeof store_at, "wgmma_read_test.c:%d through the generic proxy", store_line);
        return strstr(why, "shared-memory race") && strstr(why, store_at) && strstr(why, mma_at) && strstr(why, "fence.proxy.async");
    }
    snprintf(store_at, sizeof store_at, "wgmma_read_test.c:%d: write of shared bytes", store_line);
    snprintf(mma_at, sizeof mma_at, "wgmma_read_test.c:%d (thread (", p->mma_line);
    return strstr(why, store_at) && strstr(why, mma_at) && strstr(why, "no wgmma.wait_group since");
}

static void one(cute_runtime *rt, reload_when when, bool scheduled, bool reported, const char *what)
{
    rd_plan p = {.when = when, .scheduled = scheduled};
    cute_alg a;
    cute_alg_init(&a, NULL);
    CHECK(cute_mma_atom_named(&a, "SM90_64x64x16_F32BF16BF16_SS", &p.mma), "%s", a.error);
    cute_layout v = cute_get(&a, &p.mma.c_tv, 1);
    p.nc = (int)cute_size(&a, &v).v;
    char why[2048] = "";
    cute_status s = run(rt, &p, why, sizeof why);
    const char *sched = scheduled ? " (warp scheduler)" : "";
    if (!reported) CHECK(s == CUTE_OK, "%s%s runs clean: %s", what, sched, why);
    else CHECK(s == CUTE_ERR_CHECK && names_sites(&p, why) && !strstr(why, "internal"),
               "%s%s is reported at both sites: %s", what, sched, why);
    if (reported) printf("  %.400s\n", why);
}

int main(void)
{
    srand((unsigned)time(NULL));
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interpreter: %s", err);
    for (int sch = 0; sch < 2; sch++) {
        one(rt, RELOAD_AFTER_WAIT, sch, false, "a stage reloaded after wait_group 0");
        one(rt, RELOAD_BEFORE_WAIT, sch, true, "a stage reloaded before wait_group");
        one(rt, RELOAD_OLDER, sch, false, "the older group's stage reloaded after wait_group 1");
        one(rt, RELOAD_NEWER, sch, true, "the newer group's stage reloaded after wait_group 1");
        one(rt, RELOAD_OTHER_BLOCK, sch, false, "a K block the wgmma does not read, loaded before wait_group");
        one(rt, NO_PROXY_FENCE, sch, true, "stages stored without fence.proxy.async before the wgmma");
    }
    cute_runtime_free(rt);
    return CHECK_DONE("interp wgmma read window");
}
