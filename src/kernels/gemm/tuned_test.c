/* The selection rule of cutec_gemm with a tuning file (cutec/gemm_tune.h): a plain AUTO call
 * whose key has an entry for the library's card runs the entry's configuration; another
 * shape, another card, CUTEC_NO_TUNE, cute_gemm_lib_use_tuned(false), a caller's tiling, a
 * corrupt file (named, with its line) and an entry that does not compile all run the
 * default.  Every result is checked against float64.  On the interpreter with an sm_90
 * target (the Hopper kernel), so no GPU is needed.  Also the key's and a configuration's
 * text, and the configuration parser's refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cutec/gemm_tune.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/gemm/gemm_testkit.h"

enum { M = 136, N = 136, K = 128 }; /* M and N past 128: not a skinny shape (the GEMV kernels') */
static char dir[64], file[128];
static const int major[3] = {1, 1, 0}; /* "tnn": A and B K-major, C column-major */

static void write_file(const char *text)
{
    FILE *f = fopen(file, "w");
    if (f) fputs(text, f), fclose(f);
}

/* the file with one entry of (card, key of M x N x k) and config */
static void one_entry(const char *card, int64_t k, const char *config)
{
    char key[256], text[1024];
    cute_gemm_tune_key(CUTE_BF16, CUTE_BF16, major, M, N, k, key, sizeof key);
    snprintf(text, sizeof text, "cutec-tune 1\n# a test's\n%s\t0\t%s\t%s\t0.5\n", card, key, config);
    write_file(text);
}

/* one AUTO call of M x N x k on a fresh library (use: cute_gemm_lib_use_tuned, -1 not
 * called; tiling: a caller's, or NULL): right against float64?  The configuration it ran
 * into *ran, the choice's words into why */
static bool call(int64_t k, int use, const cute_gemm_tiling *tiling, cute_gemm_config *ran, char *why, size_t n)
{
    cute_runtime *rt;
    char err[2048];
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) return snprintf(why, n, "%.200s", err), false;
    cute_runtime_set_target_arch(rt, "sm_90a");
    cute_backend *b = cute_runtime_backend(rt);
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    if (use >= 0) cute_gemm_lib_use_tuned(lib, use);
    if (tiling) cute_gemm_lib_tiling(lib, tiling);
    uint64_t seed = 5;
    gtk_operand A, B, C;
    bool ok = gtk_make(b, &A, CUTE_BF16, M, k, 1, 0, false, &seed) && gtk_make(b, &B, CUTE_BF16, N, k, 1, 0, false, &seed) &&
              gtk_make(b, &C, CUTE_BF16, M, N, 0, 0, true, &seed);
    cute_call_arg a = gtk_arg(&A, CUTE_BF16), bb = gtk_arg(&B, CUTE_BF16), c = gtk_arg(&C, CUTE_BF16);
    ok = ok && cutec_gemm(lib, CUTE_GEMM_AUTO, &a, &bb, &c, 1.0, 0.0, NULL, err, sizeof err) == CUTE_OK;
    void *got = malloc((size_t)(M * N * 2));
    ok = ok && b->vt->download(b->self, got, &C.dev, 0, (size_t)(M * N * 2)) == CUTE_OK;
    gemm_ref_problem p = {{A.host, A.ld, 1}, {B.host, B.ld, 1}, {C.host, C.ld, 0}, CUTE_BF16, CUTE_BF16, {0, 0, 0},
                          M, N, k, 1, 1.0, 0.0};
    double worst = 0;
    ok = ok && gtk_wrong(&p, got, M * N, 0, &seed, &worst) == 0;
    memset(ran, 0, sizeof *ran);
    const cute_gemm_config *last = cute_gemm_lib_size(lib) ? cute_gemm_lib_entry(lib, cute_gemm_lib_size(lib) - 1) : NULL;
    ok = ok && last;
    if (last) *ran = *last;
    cute_gemm_choice ch;
    cute_gemm_lib_choice(lib, CUTE_BF16, CUTE_BF16, major, M, N, k, &ch);
    snprintf(why, n, "%.200s%s", ok ? "" : err, ch.why);
    gtk_operand *all[3] = {&A, &B, &C};
    for (int i = 0; i < 3; i++) b->vt->free(b->self, &all[i]->dev), free(all[i]->host);
    free(got);
    cute_gemm_lib_free(lib);
    cute_runtime_free(rt);
    return ok;
}

/* the library's own choice: the Hopper kernel with its row by shape class (hopper_auto.c) */
static bool is_default(const cute_gemm_config *c, int64_t k)
{
    cute_gemm_tiling lib = gemm_hopper_auto_tiling(c, (int64_t[]){M, N, k});
    return c->variant == CUTE_GEMM_HOPPER && !memcmp(&c->tiling, &lib, sizeof lib);
}

static const char tuned_config[] = "variant=hopper tile=64x128x0 stages=2 raster=4 cluster=1x1 schedule=coop";

static void test_selection(void)
{
    cute_gemm_config ran;
    char why[1024];
    one_entry("interp sm_90", K, tuned_config);
    CHECK(call(K, -1, NULL, &ran, why, sizeof why), "tuned: %s", why);
    CHECK(ran.variant == CUTE_GEMM_HOPPER && ran.tiling.bm == 64 && ran.tiling.bn == 128 && ran.tiling.stages == 2 &&
          ran.tiling.raster == 4, "the tuned entry ran: %s %dx%d, %d stages, raster %d", cute_gemm_variant_name(ran.variant),
          ran.tiling.bm, ran.tiling.bn, ran.tiling.stages, ran.tiling.raster);
    CHECK(strstr(why, "tuned: ") && strstr(why, ":3, 0.5000 ms"), "the choice names the file's line: %s", why);
    CHECK(call(64, -1, NULL, &ran, why, sizeof why) && is_default(&ran, 64), "another K: the default: %s", why);
    CHECK(strstr(why, "default: no tuned entry for \"gemm bf16>bf16 tnn 136x136x64\" on interp sm_90"), "%s", why);
    CHECK(call(K, 0, NULL, &ran, why, sizeof why) && is_default(&ran, K), "use_tuned(false): the default: %s", why);
    cute_gemm_tiling mine = {.bm = 128, .bn = 64};
    CHECK(call(K, -1, &mine, &ran, why, sizeof why) && ran.tiling.bm == 128 && ran.tiling.bn == 64,
          "a caller's tiling wins over the file: %dx%d", ran.tiling.bm, ran.tiling.bn);
    setenv("CUTEC_NO_TUNE", "1", 1);
    CHECK(call(K, -1, NULL, &ran, why, sizeof why) && is_default(&ran, K) && strstr(why, "off"), "CUTEC_NO_TUNE: %s", why);
    CHECK(call(K, 1, NULL, &ran, why, sizeof why) && !is_default(&ran, K), "use_tuned(true) over CUTEC_NO_TUNE: %s", why);
    unsetenv("CUTEC_NO_TUNE");
    one_entry("NVIDIA H200", K, tuned_config);
    CHECK(call(K, -1, NULL, &ran, why, sizeof why) && is_default(&ran, K), "another card's entry: the default: %s", why);
    /* the plan refuses a ping-pong warpgroup of 128 x 256: AUTO's order, right */
    one_entry("interp sm_90", K, "variant=hopper tile=128x256x0 schedule=pingpong");
    CHECK(call(K, -1, NULL, &ran, why, sizeof why) && is_default(&ran, K), "an entry that does not compile: %s", why);
    write_file("cutec-tune 1\nthis is\tnot an entry\n");
    CHECK(call(K, -1, NULL, &ran, why, sizeof why) && is_default(&ran, K), "a corrupt file: %s", why);
    CHECK(strstr(why, "not used") && strstr(why, file) && strstr(why, ":2: 2 tab-separated fields"), "named: %s", why);
}

static void test_text(void)
{
    char key[256], text[512], why[256];
    cute_gemm_tune_key(CUTE_F16, CUTE_F32, (int[]){0, 0, 1}, 1, 2, 3, key, sizeof key);
    CHECK_STR(key, "gemm f16>f32 ntt 1x2x3");
    cute_gemm_tiling t = {.bm = 128, .bn = 192, .bk = 64, .stages = 5, .warps_m = 2, .warps_n = 4, .raster = 16,
                          .cluster_m = 2, .cluster_n = 1, .schedule = CUTE_GEMM_SCHEDULE_PINGPONG,
                          .c_store = CUTE_GEMM_STORE_TILE, .read_bytes = 8}, back;
    cute_gemm_variant v;
    cute_gemm_tune_config_text(CUTE_GEMM_TENSOROP_SMEM, &t, text, sizeof text);
    CHECK(cute_gemm_tune_config_parse(text, &v, &back, why, sizeof why) && v == CUTE_GEMM_TENSOROP_SMEM &&
          !memcmp(&t, &back, sizeof t), "round trip of %s: %s", text, why);
    static const char *const bad[] = {"", "tile=128x128x0", "variant=auto", "variant=hopper tile=128x128",
                                      "variant=hopper tile=128x128x99999", "variant=hopper stages=-1",
                                      "variant=hopper schedule=fast", "variant=hopper colour=red", "variant=hopper tile"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(!cute_gemm_tune_config_parse(bad[i], &v, &back, why, sizeof why), "\"%s\" taken", bad[i]);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/cutec-tuned-XXXXXX");
    if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
    snprintf(file, sizeof file, "%s/tune.txt", dir);
    setenv("CUTEC_TUNE_FILE", file, 1);
    unsetenv("CUTEC_NO_TUNE");
    test_text();
    test_selection();
    unlink(file), rmdir(dir);
    return CHECK_DONE("gemm/tuned_test");
}
