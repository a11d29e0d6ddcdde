/* cutec bench tiers: what tiered compiles cost and give (docs/compile_time.md, "Tiers").
 * For the step-5 GEMM (tensorop_smem) and, on sm_90, the Hopper GEMM (bf16, tn), each
 * round in fresh runtimes with no cache (CUTEC_NO_CACHE):
 *   nvrtc     the cold compile with CUTEC_TIER=0 (trace, CUDA C, NVRTC, module load)
 *   tiered    the cold compile tiered: the first module (the PTX backend's, through
 *             ptxas), then how long until NVRTC's is swapped in, with NVRTC started after
 *             the first module (CUTEC_TIER_EARLY=0) and before its ptxas ("early", =1)
 * (best of the rounds; wall ms and CPU ms: this thread's and its children's, ptxas),
 * then at N^3 the speed of the tiered function once final against the NVRTC-only one
 * (their outputs compared bit for bit: the same cubin) and of the first tier's code
 * (CUTEC_CODEGEN=ptx at the first tier's -O level, and at -O1); last four step-5 GEMMs cold
 * in one runtime with one background worker or four (CUTEC_TIER_THREADS), early or not
 * (best of two rounds at most).
 * --ways W,...: instead of the two orders, the first tier assembled each way (ptxas: the
 * binary through fork; spawn: through posix_spawn, CUTEC_PTXAS_SPAWN=1; thp: its malloc on
 * huge pages, CUTEC_PTXAS_THP=1; late: the binary, the final tier's NVRTC started after it,
 * CUTEC_TIER_EARLY=0; nvjitlink: in the process; loaddata: the driver's JIT loading the PTX;
 * CUTEC_PTX_ASM), the final tier at the default order but for late, each way first in turn
 * (the best and the worst first module); then at N^3 the first tier's own speed (the binary's,
 * and each way's whose code differs), its final tier held back (CUTEC_NVRTC_OPTIONS that NVRTC refuses: the
 * function keeps the first module).
 * --no-many: not the last rows. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cli.h"
#include "cutec/cuda_driver.h"
#include "cutec/kernels.h"
#include "gpu_timing.h"

typedef struct clock2 {
    double wall, cpu;
} clock2;

static clock2 now2(void)
{
    struct timespec w, c;
    struct rusage ch;
    clock_gettime(CLOCK_MONOTONIC, &w);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
    getrusage(RUSAGE_CHILDREN, &ch);
    double child = (ch.ru_utime.tv_sec + ch.ru_stime.tv_sec) * 1e3 + (ch.ru_utime.tv_usec + ch.ru_stime.tv_usec) / 1e3;
    return (clock2){w.tv_sec * 1e3 + w.tv_nsec / 1e6, c.tv_sec * 1e3 + c.tv_nsec / 1e6 + child};
}

static clock2 since(clock2 t0)
{
    clock2 t = now2();
    return (clock2){t.wall - t0.wall, t.cpu - t0.cpu};
}

typedef struct gemm_run {
    cute_runtime *rt;
    const cute_fn *f;
    clock2 t0; /* when its compile began */
    cute_call_arg args[5];
    char err[2048];
} gemm_run;

static cute_status call(void *user, int set)
{
    gemm_run *g = user;
    (void)set;
    return cute_call(g->f, NULL, 5, g->args, g->err, sizeof g->err);
}

/* a fresh runtime (the environment as set now) and cfg compiled in it; wall/cpu of the compile */
static bool compile_in(gemm_run *g, const cute_gemm_config *cfg, clock2 *t)
{
    memset(g, 0, sizeof *g);
    if (cute_runtime_new("cuda", &g->rt, g->err, sizeof g->err) != CUTE_OK) return false;
    g->t0 = now2();
    g->f = cute_gemm_compile(g->rt, cfg, g->err, sizeof g->err);
    if (t) *t = since(g->t0);
    return g->f != NULL;
}

static void done(gemm_run *g)
{
    cute_fn_free(g->f);
    cute_runtime_free(g->rt);
    g->f = NULL, g->rt = NULL;
}

static void best(clock2 *b, clock2 t)
{
    if (b->wall < 0 || t.wall < b->wall) b->wall = t.wall;
    if (b->cpu < 0 || t.cpu < b->cpu) b->cpu = t.cpu;
}

/* A, B (n x n, K-major) and C (n x n, column-major: `--layout tn`) bf16 in g's runtime, A and B random */
static bool buffers(gemm_run *g, int64_t n, cute_buffer bufs[3])
{
    cute_backend *b = cute_runtime_backend(g->rt);
    size_t bytes = (size_t)(n * n * 2);
    uint16_t *h = malloc(bytes);
    if (!h) return false;
    uint32_t x = 7; /* a fixed LCG: the same inputs in every runtime */
    bool ok = true;
    for (int i = 0; i < 3 && ok; i++) {
        for (int64_t k = 0; k < n * n; k++) x = x * 1664525u + 1013904223u, h[k] = (uint16_t)(0x3f00 + (x >> 25)); /* bf16 in [0.5, 1) */
        ok = b->vt->alloc(b->self, bytes, &bufs[i]) == CUTE_OK && b->vt->upload(b->self, &bufs[i], 0, h, bytes) == CUTE_OK;
    }
    free(h);
    int64_t shape[2] = {n, n}, kmajor[2] = {n, 1}, colmajor[2] = {1, n}; /* tn, C column-major */
    for (int i = 0; i < 3; i++) g->args[i] = cute_call_tensor(&bufs[i], 0, CUTE_BF16, 2, shape, i < 2 ? kmajor : colmajor);
    g->args[3] = cute_call_float(1.0), g->args[4] = cute_call_float(0.0);
    return ok;
}

/* TFLOP/s of g's function at n^3 (its own buffers), and C's bytes into out (n*n*2) */
static double speed(gemm_run *g, int64_t n, void *out)
{
    cute_backend *b = cute_runtime_backend(g->rt);
    cute_buffer bufs[3];
    double tf = -1;
    if (buffers(g, n, bufs)) {
        double ms = gpu_time_calls(cute_cuda_backend_driver(b), call, g, 1, 10);
        if (ms > 0) tf = 2.0 * (double)n * n * n / ms / 1e9;
        if (out) b->vt->download(b->self, out, &bufs[2], 0, (size_t)(n * n * 2));
    }
    for (int i = 0; i < 3; i++) b->vt->free(b->self, &bufs[i]);
    return tf;
}

/* the tiered cold compile with the final tier's NVRTC started early or not (CUTEC_TIER_EARLY):
 * the first module, and from the compile's start until the final tier is in */
static bool tiered_once(gemm_run *g, const cute_gemm_config *cfg, const char *early, clock2 *first, clock2 *final_,
                        const char *label)
{
    clock2 t;
    char err[2048] = "";
    setenv("CUTEC_TIER", "1", 1);
    setenv("CUTEC_TIER_EARLY", early, 1);
    if (!compile_in(g, cfg, &t)) return false;
    best(first, t);
    cute_status s = cute_cuda_backend_wait(cute_runtime_backend(g->rt), err, sizeof err);
    best(final_, since(g->t0));
    if (s != CUTE_OK) printf("%s: the final tier FAILED: %s\n", label, err);
    done(g);
    return true;
}

static void kernel_rows(const char *label, const cute_gemm_config *cfg, int rounds, int64_t n)
{
    clock2 nv = {-1, -1}, first = {-1, -1}, final_ = {-1, -1}, efirst = {-1, -1}, efinal = {-1, -1};
    gemm_run g;
    char err[2048] = "";
    bool compiled = true;
    const char *early_env = getenv("CUTEC_TIER_EARLY");
    char early_saved[8];
    snprintf(early_saved, sizeof early_saved, "%s", early_env ? early_env : "");
    for (int r = 0; r < rounds && compiled; r++) {
        clock2 t;
        setenv("CUTEC_TIER", "0", 1);
        if (!(compiled = compile_in(&g, cfg, &t))) break;
        best(&nv, t), done(&g);
        /* the two orders, alternating which goes first */
        for (int o = 0; o < 2 && compiled; o++)
            compiled = (o + r) % 2 ? tiered_once(&g, cfg, "1", &efirst, &efinal, label)
                                   : tiered_once(&g, cfg, "0", &first, &final_, label);
    }
    if (early_saved[0]) setenv("CUTEC_TIER_EARLY", early_saved, 1);
    else unsetenv("CUTEC_TIER_EARLY");
    if (!compiled) {
        printf("%s: compile FAILED (CUTEC_TIER=%s): %s\n", label, getenv("CUTEC_TIER"), g.err);
        done(&g);
        return;
    }
    printf("%-8s cold compile, best of %d, ms wall / cpu: nvrtc %.1f / %.1f; tiered: first module %.1f / %.1f, "
           "final %.1f wall; early: first %.1f / %.1f, in %.1f wall\n",
           label, rounds, nv.wall, nv.cpu, first.wall, first.cpu, final_.wall, efirst.wall, efirst.cpu, efinal.wall);
    if (n <= 0) return;
    /* speed: final tier against NVRTC-only, and the first tier's code */
    size_t bytes = (size_t)(n * n * 2);
    void *c_nv = malloc(bytes), *c_tier = malloc(bytes);
    setenv("CUTEC_NO_CACHE", "1", 1);
    setenv("CUTEC_TIER", "0", 1);
    double tf_nv = compile_in(&g, cfg, NULL) ? speed(&g, n, c_nv) : -1;
    done(&g);
    setenv("CUTEC_TIER", "1", 1);
    double tf_final = -1;
    bool final_ok = false;
    if (compile_in(&g, cfg, NULL)) {
        final_ok = cute_cuda_backend_wait(cute_runtime_backend(g.rt), err, sizeof err) == CUTE_OK;
        tf_final = speed(&g, n, c_tier);
    }
    done(&g);
    const char *opt = getenv("CUTEC_TIER_OPT");
    char saved[8];
    snprintf(saved, sizeof saved, "%s", opt ? opt : "");
    double tf_ptx[2];
    for (int i = 0; i < 2; i++) {
        setenv("CUTEC_CODEGEN", "ptx", 1);
        setenv("CUTEC_PTX_OPT", i ? "1" : (saved[0] ? saved : "3"), 1);
        tf_ptx[i] = compile_in(&g, cfg, NULL) ? speed(&g, n, NULL) : -1;
        done(&g);
    }
    unsetenv("CUTEC_CODEGEN"), unsetenv("CUTEC_PTX_OPT");
    bool same = c_nv && c_tier && tf_nv > 0 && tf_final > 0 && memcmp(c_nv, c_tier, bytes) == 0;
    printf("%-8s %lld^3 TFLOP/s: nvrtc %.1f, tiered final %.1f (%.3f; C %s; %s), first tier's code -O%s %.1f "
           "(%.3f), -O1 %.1f (%.3f)\n",
           label, (long long)n, tf_nv, tf_final, tf_final / tf_nv, same ? "bit for bit the same" : "DIFFERS",
           final_ok ? "swapped" : "NOT SWAPPED", saved[0] ? saved : "3", tf_ptx[0], tf_ptx[0] / tf_nv, tf_ptx[1],
           tf_ptx[1] / tf_nv);
    free(c_nv), free(c_tier);
}

/* the environment of a way of --ways: false for a name not among them */
static bool set_way(const char *way)
{
    unsetenv("CUTEC_PTXAS_SPAWN"), unsetenv("CUTEC_PTX_ASM"), unsetenv("CUTEC_PTXAS_THP"), unsetenv("CUTEC_TIER_EARLY");
    if (!strcmp(way, "spawn")) return setenv("CUTEC_PTXAS_SPAWN", "1", 1), true;
    if (!strcmp(way, "thp")) return setenv("CUTEC_PTXAS_THP", "1", 1), true;
    if (!strcmp(way, "late")) return setenv("CUTEC_TIER_EARLY", "0", 1), true;
    if (!strcmp(way, "ptxas") || !strcmp(way, "nvjitlink") || !strcmp(way, "loaddata"))
        return setenv("CUTEC_PTX_ASM", way, 1), true;
    return false;
}

/* the first tier's own TFLOP/s at n^3 (its final tier refused), or -1 */
static double first_tier_speed(const cute_gemm_config *cfg, int64_t n)
{
    gemm_run g;
    char err[2048];
    setenv("CUTEC_TIER", "1", 1);
    setenv("CUTEC_NVRTC_OPTIONS", "--no-such-nvrtc-option", 1);
    double tf = -1;
    if (compile_in(&g, cfg, NULL)) {
        bool held = cute_cuda_backend_wait(cute_runtime_backend(g.rt), err, sizeof err) != CUTE_OK;
        tf = held ? speed(&g, n, NULL) : -1; /* else NVRTC's ran: not the first tier */
    }
    done(&g);
    unsetenv("CUTEC_NVRTC_OPTIONS");
    return tf;
}

/* --ways: the cold compile's first module and final tier, a row per way, then the first
 * tier's own speed each way against NVRTC's */
static void way_rows(const char *label, const cute_gemm_config *cfg, int rounds, int64_t n, char ways[][16], int nways)
{
    clock2 nv = {-1, -1}, first[8], final_[8];
    double worst[8] = {0}; /* the first module's slowest round, wall */
    gemm_run g;
    bool ok = true;
    for (int w = 0; w < nways; w++) first[w] = final_[w] = (clock2){-1, -1};
    for (int r = 0; r < rounds && ok; r++) {
        clock2 t;
        set_way("");
        setenv("CUTEC_TIER", "0", 1);
        if (!(ok = compile_in(&g, cfg, &t))) break;
        best(&nv, t), done(&g);
        for (int i = 0; i < nways && ok; i++) {
            int w = (i + r) % nways; /* each way first in turn */
            set_way(ways[w]);
            setenv("CUTEC_TIER", "1", 1);
            if (!(ok = compile_in(&g, cfg, &t))) break;
            best(&first[w], t);
            if (t.wall > worst[w]) worst[w] = t.wall;
            char err[2048] = "";
            if (cute_cuda_backend_wait(cute_runtime_backend(g.rt), err, sizeof err) != CUTE_OK)
                printf("%s %s: the final tier FAILED: %s\n", label, ways[w], err);
            best(&final_[w], since(g.t0));
            done(&g);
        }
    }
    if (!ok) {
        printf("%s: compile FAILED: %s\n", label, g.err);
        done(&g);
    } else {
        printf("%-8s cold compile by way, best of %d, ms wall / cpu: nvrtc %.1f / %.1f", label, rounds, nv.wall, nv.cpu);
        for (int w = 0; w < nways; w++)
            printf("; %s first module %.1f / %.1f, worst %.1f, final %.1f", ways[w], first[w].wall, first[w].cpu,
                   worst[w], final_[w].wall);
        printf("\n");
    }
    if (n > 0 && ok) {
        set_way("");
        setenv("CUTEC_TIER", "0", 1);
        double tf_nv = compile_in(&g, cfg, NULL) ? speed(&g, n, NULL) : -1;
        done(&g);
        set_way("ptxas");
        double tf_bin = first_tier_speed(cfg, n); /* the binary's code, whichever way started it */
        printf("%-8s %lld^3 TFLOP/s: nvrtc %.1f; ptxas first tier %.1f (%.3f)", label, (long long)n, tf_nv, tf_bin,
               tf_nv > 0 ? tf_bin / tf_nv : -1);
        for (int w = 0; w < nways; w++) {
            if (strcmp(ways[w], "loaddata") && strcmp(ways[w], "nvjitlink")) continue; /* the binary's code: ptxas's */
            set_way(ways[w]);
            double tf = first_tier_speed(cfg, n);
            printf("; %s first tier %.1f (%.3f)", ways[w], tf, tf_nv > 0 ? tf / tf_nv : -1);
        }
        printf("\n");
    }
    set_way("");
}

/* A model's first step: four step-5 GEMMs (bf16 and fp16 in, C in their type or f32) compiled
 * cold one after another in one runtime, tiered; wall ms until the last first module is
 * back and until every final tier is in, with `threads` background workers
 * (CUTEC_TIER_THREADS) and the final tiers' NVRTC started early or not (CUTEC_TIER_EARLY). */
static bool many_once(const char *threads, const char *early, clock2 *firsts, clock2 *finals)
{
    setenv("CUTEC_TIER", "1", 1);
    setenv("CUTEC_TIER_THREADS", threads, 1);
    setenv("CUTEC_TIER_EARLY", early, 1);
    cute_runtime *rt;
    char err[2048];
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) return printf("many: %s\n", err), false;
    const cute_fn *f[4] = {0};
    clock2 t0 = now2();
    bool ok = true;
    for (int i = 0; i < 4 && ok; i++) {
        cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = i < 2 ? CUTE_BF16 : CUTE_F16,
                                .c_dtype = i % 2 ? CUTE_F32 : CUTE_VOID, .major = {1, 1, 0}, .align_bytes = 16,
                                .index_bound = CUTE_GEMM_INDEX_BOUND};
        ok = (f[i] = cute_gemm_compile(rt, &cfg, err, sizeof err)) != NULL;
    }
    best(firsts, since(t0));
    cute_status s = ok ? cute_cuda_backend_wait(cute_runtime_backend(rt), err, sizeof err) : CUTE_OK;
    best(finals, since(t0));
    if (!ok || s != CUTE_OK) printf("many (threads %s, early %s): %s FAILED: %s\n", threads, early,
                                    ok ? "the final tier" : "compile", err);
    for (int i = 0; i < 4; i++) cute_fn_free(f[i]);
    cute_runtime_free(rt);
    return ok && s == CUTE_OK;
}

static void many_rows(int rounds)
{
    static const char *const ways[4][2] = {{"1", "0"}, {"1", "1"}, {"4", "0"}, {"4", "1"}};
    clock2 firsts[4], finals[4];
    for (int w = 0; w < 4; w++) firsts[w] = finals[w] = (clock2){-1, -1};
    bool ok = true;
    for (int r = 0; r < rounds && ok; r++)
        for (int w = 0; w < 4 && ok; w++) {
            int k = (w + r) % 4; /* each way first in turn */
            ok = many_once(ways[k][0], ways[k][1], &firsts[k], &finals[k]);
        }
    unsetenv("CUTEC_TIER_THREADS"), unsetenv("CUTEC_TIER_EARLY");
    if (!ok) return;
    printf("many     4 step-5 GEMMs cold, best of %d, wall ms, first modules / all final:", rounds);
    for (int w = 0; w < 4; w++)
        printf("%s threads %s early %s: %.1f / %.1f", w ? ";" : "", ways[w][0], ways[w][1], firsts[w].wall,
               finals[w].wall);
    printf("\n");
}

int cmd_bench_tiers(int argc, char **argv)
{
    int rounds = 3, nways = 0;
    int64_t n = 8192;
    bool many = true, bad = false;
    char ways[8][16];
    for (int i = 2; i < argc && !bad; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) n = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--no-many")) many = false;
        else if (!strcmp(argv[i], "--ways") && i + 1 < argc)
            for (const char *p = argv[++i]; *p && !bad; p += *p == ',') {
                size_t len = strcspn(p, ",");
                bad = nways == 8 || len >= sizeof ways[0];
                if (!bad) snprintf(ways[nways], sizeof ways[0], "%.*s", (int)len, p), p += len;
                bad = bad || !set_way(ways[nways++]);
            }
        else bad = true;
    }
    set_way("");
    if (bad || rounds < 1)
        return fprintf(stderr, "usage: cutec bench tiers [--rounds R] [--size N (0: no speed rows)] "
                               "[--ways ptxas,spawn,thp,late,nvjitlink,loaddata] [--no-many]\n"),
               CLI_USAGE;
    if (cli_parse_only()) return CLI_OK;
    char err[512], arch[32];
    cute_cuda *cu;
    if (cute_cuda_open(NULL, &cu, err, sizeof err) != CUTE_OK) {
        printf("cutec bench tiers: skipped: no GPU (%s)\n", err);
        return CLI_OK;
    }
    snprintf(arch, sizeof arch, "%s", cute_cuda_device(cu)->arch);
    printf("cutec bench tiers on %s (%s)\n", cute_cuda_device(cu)->name, arch);
    /* cu stays open: the device's context lives across the runtimes made and freed here */
    setenv("CUTEC_NO_CACHE", "1", 1);
    cute_gemm_config cfg = {.variant = CUTE_GEMM_TENSOROP_SMEM, .dtype = CUTE_BF16, .major = {1, 1, 0},
                            .align_bytes = 16, .index_bound = CUTE_GEMM_INDEX_BOUND};
    if (nways) way_rows("step 5", &cfg, rounds, n, ways, nways);
    else kernel_rows("step 5", &cfg, rounds, n);
    if (!strcmp(arch, "sm_90a")) {
        cfg.variant = CUTE_GEMM_HOPPER;
        if (nways) way_rows("hopper", &cfg, rounds, n, ways, nways);
        else kernel_rows("hopper", &cfg, rounds, n);
    }
    if (many) many_rows(rounds < 2 ? rounds : 2); /* 16 cold compiles a round: two rounds at most */
    cute_cuda_close(cu);
    return CLI_OK;
}
