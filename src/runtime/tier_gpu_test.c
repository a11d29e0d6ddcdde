/* Tiered compiles on the GPU (tier.h, cuda_backend.c; docs/compile_time.md, "Tiers"): a
 * library kernel compiled cold with CUTEC_TIER=1 runs right (float64 reference) before and
 * after its NVRTC form is swapped in; the cache then holds one entry, NVRTC's (the PTX
 * backend's first tier is never stored), and a second backend on that cache loads it
 * without writing it again; with CUTEC_TIER=0, or lineinfo, the entry is there as the compile
 * returns.
 * Four threads call a tiered function while its final tier swaps in under them: every call
 * right.  A background NVRTC compile that fails (an option NVRTC refuses) is handed out by
 * cute_cuda_backend_wait, once, and the function keeps running the first tier's code.  A
 * first tier ptxas refuses falls back to NVRTC at once, in either order (CUTEC_TIER_EARLY).
 * The first tier built each way (the ptxas binary through fork or posix_spawn, libnvJitLink,
 * the driver's JIT loading the PTX), its final tier held back: right.
 * scripts/device-tier2.sh runs it also with CUTEC_TIER_EARLY=1 CUTEC_TIER_THREADS=4.
 * Without a GPU (or NVRTC, or ptxas) it skips visibly. */
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "cutec/cuda_driver.h"
#include "cutec/kernels.h"
#include "cutec/ptx.h"

enum { N = 10007 };

static char dir[256];

/* the cache's entries: how many, and the inode of the last one (a rewrite is a new file) */
static int entries(ino_t *ino)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len > 6 && !strcmp(e->d_name + len - 6, ".cutec")) {
            char path[600];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (ino && stat(path, &st) == 0) *ino = st.st_ino;
            n++;
        }
    }
    if (d) closedir(d);
    return n;
}

typedef struct problem {
    cute_runtime *rt;
    cute_backend *b;
    cute_buffer x, y, z;
    cute_call_arg in[2], out;
    float hx[N], hy[N], hz[N];
    const cute_fn *f;
    char err[2048];
} problem;

static bool open_problem(problem *p)
{
    memset(p->err, 0, sizeof p->err);
    if (cute_runtime_new("cuda", &p->rt, p->err, sizeof p->err) != CUTE_OK) return false;
    p->b = cute_runtime_backend(p->rt);
    for (int i = 0; i < N; i++) p->hx[i] = (float)rand() / RAND_MAX - 0.5f, p->hy[i] = (float)rand() / RAND_MAX * 3;
    cute_backend *b = p->b;
    b->vt->alloc(b->self, sizeof p->hx, &p->x), b->vt->alloc(b->self, sizeof p->hy, &p->y);
    b->vt->alloc(b->self, sizeof p->hz, &p->z);
    b->vt->upload(b->self, &p->x, 0, p->hx, sizeof p->hx), b->vt->upload(b->self, &p->y, 0, p->hy, sizeof p->hy);
    int64_t shape = N, stride = 1;
    p->in[0] = cute_call_tensor(&p->x, 0, CUTE_F32, 1, &shape, &stride);
    p->in[1] = cute_call_tensor(&p->y, 0, CUTE_F32, 1, &shape, &stride);
    p->out = cute_call_tensor(&p->z, 0, CUTE_F32, 1, &shape, &stride);
    p->f = cute_ew_compile(p->rt, "tier_add", cute_ew_op_expr, (void *)(intptr_t)CUTE_EW_ADD, 2, p->in, &p->out,
                           NULL, p->err, sizeof p->err);
    return p->f != NULL;
}

/* one call on a poisoned z: the wrong elements against float64 */
static int wrong(problem *p)
{
    cute_backend *b = p->b;
    for (int i = 0; i < N; i++) p->hz[i] = -12345.0f;
    b->vt->upload(b->self, &p->z, 0, p->hz, sizeof p->hz);
    if (cute_ew_call(p->f, NULL, 2, p->in, &p->out, p->err, sizeof p->err) != CUTE_OK) return N;
    if (b->vt->sync(b->self, NULL) != CUTE_OK || b->vt->download(b->self, p->hz, &p->z, 0, sizeof p->hz) != CUTE_OK)
        return N;
    int bad = 0;
    for (int i = 0; i < N; i++) bad += p->hz[i] != (float)((double)p->hx[i] + (double)p->hy[i]);
    return bad;
}

static void close_problem(problem *p)
{
    if (p->b) {
        p->b->vt->free(p->b->self, &p->x), p->b->vt->free(p->b->self, &p->y), p->b->vt->free(p->b->self, &p->z);
    }
    cute_fn_free(p->f);
    cute_runtime_free(p->rt);
    memset(p, 0, sizeof *p);
}

static void tiered_then_cached(void)
{
    static problem p;
    setenv("CUTEC_TIER", "1", 1);
    CHECK(open_problem(&p), "tiered compile: %s", p.err);
    if (!p.f) {
        close_problem(&p);
        return;
    }
    CHECK(wrong(&p) == 0, "first call (the first tier, or the final one if NVRTC was quicker): wrong elements");
    char err[2048];
    cute_status s = cute_cuda_backend_wait(p.b, err, sizeof err);
    CHECK(s == CUTE_OK, "the final tier: %s", err);
    CHECK(wrong(&p) == 0, "after the swap: wrong elements");
    ino_t ino = 0, ino2 = 0;
    CHECK(entries(&ino) == 1, "one cache entry, NVRTC's: %d", entries(NULL));
    close_problem(&p);
    /* a second backend on the same cache: a hit, nothing written, nothing in the background */
    CHECK(open_problem(&p), "second compile: %s", p.err);
    CHECK(p.f && wrong(&p) == 0, "the cached final form: wrong elements");
    CHECK(cute_cuda_backend_wait(p.b, err, sizeof err) == CUTE_OK, "nothing failed: %s", err);
    CHECK(entries(&ino2) == 1 && ino2 == ino, "the entry was loaded, not written again");
    close_problem(&p);
}

/* four threads call a tiered function, each into its own output, while its final tier is
 * compiled and swapped in under them, and a while after: every call right */
typedef struct caller {
    problem *p;
    cute_buffer z;
    float hz[N];
    int calls, during, bad;
    char err[512];
} caller;

static void *call_through_swap(void *arg)
{
    caller *c = arg;
    cute_backend *b = c->p->b;
    int64_t shape = N, stride = 1;
    cute_call_arg out = cute_call_tensor(&c->z, 0, CUTE_F32, 1, &shape, &stride);
    for (int after = 0; after < 20 && c->calls < 20000; c->calls++) {
        bool pending = cute_cuda_backend_pending(b) > 0;
        c->during += pending, after += !pending;
        if (cute_ew_call(c->p->f, NULL, 2, c->p->in, &out, c->err, sizeof c->err) != CUTE_OK ||
            b->vt->sync(b->self, NULL) != CUTE_OK || b->vt->download(b->self, c->hz, &c->z, 0, sizeof c->hz) != CUTE_OK)
            return c->bad = N, NULL;
        for (int i = 0; i < N; i++) c->bad += c->hz[i] != (float)((double)c->p->hx[i] + (double)c->p->hy[i]);
    }
    return NULL;
}

static void swap_under_launches(void)
{
    static problem p;
    static caller c[4];
    setenv("CUTEC_TIER", "1", 1);
    setenv("CUTEC_NVRTC_OPTIONS", "-DCUTEC_TIER_TEST_THREADS", 1); /* another key: a miss */
    CHECK(open_problem(&p), "tiered compile: %s", p.err);
    pthread_t t[4];
    int started = 0;
    for (int i = 0; p.f && i < 4; i++) {
        c[i] = (caller){.p = &p};
        if (p.b->vt->alloc(p.b->self, sizeof c[i].hz, &c[i].z) != CUTE_OK) break;
        started += pthread_create(&t[i], NULL, call_through_swap, &c[i]) == 0;
    }
    int during = 0, bad = 0, calls = 0;
    for (int i = 0; i < started; i++) {
        pthread_join(t[i], NULL);
        during += c[i].during, bad += c[i].bad, calls += c[i].calls;
        p.b->vt->free(p.b->self, &c[i].z);
    }
    CHECK(started == 4 && bad == 0, "4 threads, %d calls (%d before the swap): %d wrong elements; %s", calls, during,
          bad, c[0].err);
    if (started && !during) SKIP("the final tier was in before the first call: the swap was not under launches");
    char err[2048];
    CHECK(cute_cuda_backend_wait(p.b, err, sizeof err) == CUTE_OK && cute_cuda_backend_pending(p.b) == 0,
          "the final tier: %s", err);
    close_problem(&p);
    unsetenv("CUTEC_NVRTC_OPTIONS");
}

static void untiered_is_synchronous(void)
{
    static problem p;
    setenv("CUTEC_TIER", "0", 1);
    setenv("CUTEC_NVRTC_OPTIONS", "-DCUTEC_TIER_TEST_UNTIERED", 1); /* another key: a miss */
    CHECK(open_problem(&p), "untiered compile: %s", p.err);
    CHECK(entries(NULL) == 2, "CUTEC_TIER=0: the entry is written before the compile returns: %d", entries(NULL));
    CHECK(p.f && wrong(&p) == 0, "untiered: wrong elements");
    close_problem(&p);
    unsetenv("CUTEC_NVRTC_OPTIONS");
    /* lineinfo asks for NVRTC's own artefacts: not tiered, whatever CUTEC_TIER says */
    setenv("CUTEC_TIER", "1", 1);
    setenv("CUTEC_LINEINFO", "1", 1); /* another key: a miss */
    CHECK(open_problem(&p), "lineinfo compile: %s", p.err);
    CHECK(entries(NULL) == 3, "CUTEC_LINEINFO: NVRTC's entry before the compile returns: %d", entries(NULL));
    CHECK(p.f && wrong(&p) == 0, "lineinfo: wrong elements");
    close_problem(&p);
    unsetenv("CUTEC_LINEINFO");
}

static void background_failure(void)
{
    static problem p;
    setenv("CUTEC_TIER", "1", 1);
    setenv("CUTEC_NVRTC_OPTIONS", "--no-such-nvrtc-option", 1); /* NVRTC refuses; ptxas never sees it */
    CHECK(open_problem(&p), "the first tier does not need NVRTC's options: %s", p.err);
    if (p.f) {
        char err[2048];
        cute_status s = cute_cuda_backend_wait(p.b, err, sizeof err);
        CHECK(s != CUTE_OK, "the background NVRTC failure is handed out");
        CHECK(strstr(err, "NVRTC's form of kernel ew_kernel_0") && strstr(err, "NVRTC failed") &&
                  strstr(err, "PTX backend's module"),
              "the message names NVRTC, the kernel and what runs instead: '%s'", err);
        CHECK(wrong(&p) == 0, "the function keeps running the first tier: wrong elements");
        CHECK(cute_cuda_backend_wait(p.b, err, sizeof err) == CUTE_OK, "handed out once: then '%s'", err);
    }
    close_problem(&p);
    unsetenv("CUTEC_NVRTC_OPTIONS");
}

/* the first tier each way it can be assembled (CUTEC_PTXAS_SPAWN, CUTEC_PTXAS_THP,
 * CUTEC_PTX_ASM: the binary through fork or posix_spawn or on huge pages, libnvJitLink, the
 * driver's JIT loading the PTX), its final tier
 * held back (NVRTC refuses an option): the function keeps the first tier's code, right */
static void first_tier_ways(void)
{
    static const char *const ways[][2] = {
        {"CUTEC_PTXAS_SPAWN", "0"},        {"CUTEC_PTXAS_SPAWN", "1"},     {"CUTEC_PTXAS_THP", "1"},
        {"CUTEC_PTX_ASM", "nvjitlink"},    {"CUTEC_PTX_ASM", "loaddata"}};
    for (size_t w = 0; w < sizeof ways / sizeof *ways; w++) {
        static problem p;
        setenv("CUTEC_TIER", "1", 1);
        setenv(ways[w][0], ways[w][1], 1);
        if (!strcmp(ways[w][1], "nvjitlink") && !cute_ptx_ptxas_found(NULL, 0)) {
            SKIP("no libnvJitLink: its first tier untried");
            unsetenv(ways[w][0]);
            continue;
        }
        setenv("CUTEC_NVRTC_OPTIONS", "--no-such-nvrtc-option", 1);
        CHECK(open_problem(&p), "%s=%s: the first tier: %s", ways[w][0], ways[w][1], p.err);
        if (p.f) {
            char err[2048];
            CHECK(cute_cuda_backend_wait(p.b, err, sizeof err) != CUTE_OK, "%s=%s: the final tier held back",
                  ways[w][0], ways[w][1]);
            CHECK(wrong(&p) == 0, "%s=%s: the first tier's code: wrong elements", ways[w][0], ways[w][1]);
        }
        close_problem(&p);
        unsetenv("CUTEC_NVRTC_OPTIONS"), unsetenv(ways[w][0]);
    }
}

/* ptxas refuses the first tier (CUTEC_PTXAS=/bin/false): the compile returns NVRTC's module,
 * built at once, in either order; an NVRTC job started early is dropped, and says nothing */
static void first_tier_refused(void)
{
    static problem p;
    const char *early[2] = {"0", "1"}, *was = getenv("CUTEC_TIER_EARLY");
    char saved[16];
    snprintf(saved, sizeof saved, "%s", was ? was : "");
    setenv("CUTEC_TIER", "1", 1);
    setenv("CUTEC_PTXAS", "/bin/false", 1);
    for (int e = 0; e < 2; e++) {
        char opt[64];
        snprintf(opt, sizeof opt, "-DCUTEC_TIER_TEST_REFUSED_%d", e); /* another key: a miss */
        setenv("CUTEC_NVRTC_OPTIONS", opt, 1);
        setenv("CUTEC_TIER_EARLY", early[e], 1);
        int before = entries(NULL);
        CHECK(open_problem(&p), "early %s: a refused first tier falls back to NVRTC: %s", early[e], p.err);
        CHECK(entries(NULL) == before + 1, "early %s: NVRTC's entry before the compile returns: %d", early[e],
              entries(NULL) - before);
        CHECK(p.f && wrong(&p) == 0, "early %s: NVRTC's module: wrong elements", early[e]);
        char err[2048];
        CHECK(cute_cuda_backend_wait(p.b, err, sizeof err) == CUTE_OK && cute_cuda_backend_pending(p.b) == 0,
              "early %s: nothing to hand out: '%s'", early[e], err);
        close_problem(&p);
    }
    unsetenv("CUTEC_NVRTC_OPTIONS"), unsetenv("CUTEC_PTXAS");
    if (saved[0]) setenv("CUTEC_TIER_EARLY", saved, 1);
    else unsetenv("CUTEC_TIER_EARLY");
}

int main(void)
{
    char err[512];
    cute_cuda *cu;
    if (cute_cuda_open(NULL, &cu, err, sizeof err) != CUTE_OK) {
        SKIP("no GPU: tiered compiles untested here");
        return CHECK_DONE("tier_gpu_test");
    }
    cute_cuda_close(cu);
    if (!cute_ptx_ptxas_found(NULL, 0)) SKIP("no ptxas binary: the first tier is the driver's JIT here");
    snprintf(dir, sizeof dir, "/tmp/cutec-tier-gpu-XXXXXX");
    if (!mkdtemp(dir)) {
        SKIP("no temporary directory");
        return CHECK_DONE("tier_gpu_test");
    }
    setenv("CUTEC_CACHE_DIR", dir, 1);
    unsetenv("CUTEC_NO_CACHE"), unsetenv("CUTEC_CODEGEN"), unsetenv("CUTEC_KEEP"), unsetenv("CUTEC_LINEINFO");
    srand(11);
    tiered_then_cached();
    untiered_is_synchronous();
    swap_under_launches();
    background_failure();
    first_tier_ways();
    first_tier_refused();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return CHECK_DONE("tier_gpu_test");
}
