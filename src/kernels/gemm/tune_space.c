/* The GEMM's tuning spaces (cutec/gemm_tune.h): the parameters of the kernel family the
 * library picks on a target, point 0 its default, and the plan as the cheap filter (a tile
 * whose stages do not fit, a ping-pong tile too large for a warpgroup, is refused by the
 * plan the compile would run, before anything is compiled).  The tuner never builds the
 * deliberately broken kernels (GEMM_BREAK_*: gemm_compile_broken is the tests'): its
 * candidates go through cute_gemm_compile. */
#include <stdio.h>
#include <string.h>

#include "cutec/gemm_tune.h"
#include "kernels/gemm/gemm_internal.h"

/* tiles, clusters and warps as one integer each: (a << 12) | b, labelled "AxB" */
#define PAIR(a, b) (((a) << 12) | (b))
static int pair_hi(int v) { return v >> 12; }
static int pair_lo(int v) { return v & 0xfff; }

/* the Hopper kernel: 128x256 cooperative, 1x1, stages as shared memory holds, raster 8, TMA
 * stores piece by piece first (hopper_plan.c's defaults; bench/RESULTS.md measured each
 * against the others) */
static void hopper_space(cute_tune_space *s)
{
    static const int tiles[] = {PAIR(128, 256), PAIR(128, 128), PAIR(128, 192), PAIR(64, 256), PAIR(128, 160)};
    static const char *const tile_l[] = {"128x256", "128x128", "128x192", "64x256", "128x160"};
    static const int clusters[] = {PAIR(1, 1), PAIR(2, 1), PAIR(1, 2)};
    static const char *const cluster_l[] = {"1x1", "2x1", "1x2"};
    static const int stages[] = {0, 3, 4, 5};
    static const char *const stages_l[] = {"auto", "3", "4", "5"};
    static const int schedules[] = {CUTE_GEMM_SCHEDULE_COOP, CUTE_GEMM_SCHEDULE_PINGPONG};
    static const char *const schedule_l[] = {"coop", "pingpong"};
    static const int rasters[] = {8, 16, 4};
    /* C piece by piece through two buffers a warpgroup, or the whole tile first (a stage fewer) */
    static const int stores[] = {CUTE_GEMM_STORE_AUTO, CUTE_GEMM_STORE_TILE};
    static const char *const store_l[] = {"tma", "tile"};
    cute_tune_space_add(s, "tile", 5, tiles, tile_l);
    cute_tune_space_add(s, "cluster", 3, clusters, cluster_l);
    cute_tune_space_add(s, "stages", 4, stages, stages_l);
    cute_tune_space_add(s, "schedule", 2, schedules, schedule_l);
    cute_tune_space_add(s, "raster", 3, rasters, NULL);
    cute_tune_space_add(s, "store", 2, stores, store_l);
}

/* the SM80 tensor-core kernel: 256x128 (the dtype's k-tile), 4x2 warps, 3 stages, raster 8
 * first (plan_multistage.c's defaults for 16- and 8-bit inputs; "auto": the plan's own) */
static void tensorop_space(cute_tune_space *s)
{
    static const int tiles[] = {0, PAIR(128, 256), PAIR(128, 128), PAIR(256, 64), PAIR(64, 128)};
    static const char *const tile_l[] = {"auto", "128x256", "128x128", "256x64", "64x128"};
    static const int warps[] = {0, PAIR(2, 4), PAIR(2, 2), PAIR(4, 1)};
    static const char *const warps_l[] = {"auto", "2x4", "2x2", "4x1"};
    static const int stages[] = {0, 3, 4, 5}; /* (the plan refuses fewer than 3) */
    static const char *const stages_l[] = {"auto", "3", "4", "5"};
    static const int rasters[] = {0, 16, 4, 1};
    static const char *const raster_l[] = {"auto", "16", "4", "1"};
    cute_tune_space_add(s, "tile", 5, tiles, tile_l);
    cute_tune_space_add(s, "warps", 4, warps, warps_l);
    cute_tune_space_add(s, "stages", 4, stages, stages_l);
    cute_tune_space_add(s, "raster", 4, rasters, raster_l);
}

bool cute_gemm_tune_space(cute_dtype d, int arch, cute_tune_space *s, cute_gemm_variant *family, char *why,
                          size_t n)
{
    memset(s, 0, sizeof *s);
    bool sixteen = d == CUTE_BF16 || d == CUTE_F16;
    if (arch == 90 && sixteen) return *family = CUTE_GEMM_HOPPER, hopper_space(s), true;
    bool cores = sixteen || d == CUTE_I8 || d == CUTE_TF32 || d == CUTE_E4M3 || d == CUTE_E5M2 || d == CUTE_F64;
    if (!cores)
        return snprintf(why, n, "gemm: no tuning space for %s inputs (the tensor-core kernels take f16, bf16, "
                        "tf32, s8, e4m3, e5m2 and f64)", cute_dtype_name(d)), false;
    *family = CUTE_GEMM_TENSOROP_SMEM;
    tensorop_space(s);
    return true;
}

/* the value of the parameter named `name` at the point (0 when the space has none) */
static int value_of(const cute_tune_space *s, const int *point, const char *name)
{
    for (int k = 0; k < s->nparams; k++)
        if (!strcmp(s->param[k].name, name)) return point[k];
    return 0;
}

cute_gemm_tiling cute_gemm_tune_tiling(const cute_tune_space *s, const int *point)
{
    int tile = value_of(s, point, "tile"), cluster = value_of(s, point, "cluster"), warps = value_of(s, point, "warps");
    cute_gemm_tiling t = {.bm = pair_hi(tile), .bn = pair_lo(tile), .stages = value_of(s, point, "stages"),
                          .warps_m = pair_hi(warps), .warps_n = pair_lo(warps), .raster = value_of(s, point, "raster"),
                          .cluster_m = pair_hi(cluster), .cluster_n = pair_lo(cluster),
                          .schedule = value_of(s, point, "schedule"), .c_store = value_of(s, point, "store")};
    return t;
}

bool cute_gemm_tune_plan_ok(const cute_gemm_config *cfg, int arch, char *why, size_t n)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    gemm_plan p;
    bool ok = cfg->variant == CUTE_GEMM_HOPPER ? gemm_plan_hopper(&a, cfg, arch, &p)
                                               : gemm_plan_multistage(&a, cfg, arch, &p);
    if (!ok) snprintf(why, n, "%s", a.error);
    return ok;
}
