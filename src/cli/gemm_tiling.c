/* The GEMM commands' tiling options (--tile BMxBNxBK, --warps WMxWN, --stages S, --raster F,
 * --read-bytes 8|16, --cluster CMxCN, --store auto|tma|tile|st, --schedule
 * auto|coop|pingpong|persistent|streamk, --scale-mul staged|promote|load|interleave), shared by
 * `cutec run|bench gemm` and `cutec compile gemm`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli/gemm_cli.h"

/* "AxBxC" (n numbers, each 1 to 4096) */
static bool parse_x(const char *s, int n, int *out, char *why, size_t wn)
{
    int64_t v[4];
    int k = 0;
    if (!cli_dims(s, n, INT64_MAX, v, &k, why, wn)) return false;
    for (int i = 0; i < k; i++)
        if (v[i] < 1 || v[i] > 4096) return snprintf(why, wn, "each of \"%s\" must be 1 to 4096", s), false;
    if (k != n) return snprintf(why, wn, "\"%s\" is not %d extents", s, n), false;
    for (int i = 0; i < k; i++) out[i] = (int)v[i];
    return true;
}

bool cli_gemm_tiling_option(const char *k, const char *v, cute_gemm_tiling *t, bool *known, char *why,
                            size_t wn)
{
    *known = true;
    if (!strcmp(k, "--tile")) return parse_x(v, 3, &t->bm, why, wn);
    if (!strcmp(k, "--warps")) return parse_x(v, 2, &t->warps_m, why, wn);
    if (!strcmp(k, "--stages")) return parse_x(v, 1, &t->stages, why, wn);
    if (!strcmp(k, "--raster")) return parse_x(v, 1, &t->raster, why, wn);
    if (!strcmp(k, "--cluster")) return parse_x(v, 2, &t->cluster_m, why, wn);
    if (!strcmp(k, "--read-bytes")) {
        if (!parse_x(v, 1, &t->read_bytes, why, wn)) return false;
        if (t->read_bytes == 8 || t->read_bytes == 16) return true;
        return snprintf(why, wn, "--read-bytes is 8 or 16, not %s", v), false;
    }
    if (!strcmp(k, "--schedule")) {
        static const char *names[] = {[CUTE_GEMM_SCHEDULE_AUTO] = "auto", [CUTE_GEMM_SCHEDULE_COOP] = "coop",
                                      [CUTE_GEMM_SCHEDULE_PINGPONG] = "pingpong",
                                      [CUTE_GEMM_SCHEDULE_PERSISTENT] = "persistent",
                                      [CUTE_GEMM_SCHEDULE_STREAMK] = "streamk"};
        for (t->schedule = 0; t->schedule < (int)(sizeof names / sizeof names[0]); t->schedule++)
            if (!strcmp(v, names[t->schedule])) return true;
        return snprintf(why, wn, "--schedule is auto, coop, pingpong, persistent or streamk, not %s", v), false;
    }
    if (!strcmp(k, "--scale-mul")) {
        t->scale_mul = !strcmp(v, "staged")    ? CUTE_GEMM_SCALE_MUL_STAGED
                       : !strcmp(v, "promote") ? CUTE_GEMM_SCALE_MUL_PROMOTE
                       : !strcmp(v, "load")    ? CUTE_GEMM_SCALE_MUL_LOAD
                       : !strcmp(v, "interleave") ? CUTE_GEMM_SCALE_MUL_INTERLEAVE
                                               : -1;
        if (t->scale_mul >= 0) return true;
        return snprintf(why, wn, "--scale-mul is staged, promote, load or interleave, not %s", v), false;
    }
    if (!strcmp(k, "--store")) {
        t->c_store = !strcmp(v, "tma")       ? CUTE_GEMM_STORE_TMA
                     : !strcmp(v, "tile")    ? CUTE_GEMM_STORE_TILE
                     : !strcmp(v, "st")      ? CUTE_GEMM_STORE_ST
                     : !strcmp(v, "auto")    ? CUTE_GEMM_STORE_AUTO
                                             : -1;
        if (t->c_store >= 0) return true;
        return snprintf(why, wn, "--store is auto, tma, tile or st, not %s", v), false;
    }
    *known = false;
    return false;
}
