/* The tuning file from C (docs/tune.md): store an entry, read the file back, ask which
 * configuration two GEMM shapes take on that card.
 *   ./tune_example FILE          writes FILE, then prints the two choices
 *   ./tune_example --bad FILE    writes a FILE that is not a tuning file (for `cutec tune show`) */
#include <stdio.h>
#include <string.h>

#include "cutec/gemm_tune.h"

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--bad")) {
        FILE *f = fopen(argv[2], "w");
        return f && fputs("cutec-tune 1\nNVIDIA H200\t132\n", f) >= 0 && !fclose(f) ? 0 : 1;
    }
    if (argc != 2) return fprintf(stderr, "usage: tune_example [--bad] FILE\n"), 2;
    const int tn[3] = {1, 1, 0}; /* A and B K-major, C column-major: --layout tn */
    cute_tune_entry e = {.card = "NVIDIA H200", .sms = 132, .ms = 0.1876};
    cute_gemm_tiling t = {.bm = 128, .bn = 128, .stages = 4, .raster = 16, .cluster_m = 2, .cluster_n = 1,
                          .schedule = CUTE_GEMM_SCHEDULE_COOP};
    cute_gemm_tune_key(CUTE_BF16, CUTE_BF16, tn, 4096, 4096, 4096, e.key, sizeof e.key);
    cute_gemm_tune_config_text(CUTE_GEMM_HOPPER, &t, e.config, sizeof e.config);
    char err[512];
    cute_tune_db *db = NULL;
    if (cute_tune_db_store(argv[1], &e, 1, err, sizeof err) != CUTE_OK ||
        cute_tune_db_load(argv[1], &db, err, sizeof err) != CUTE_OK)
        return fprintf(stderr, "%s\n", err), 1;
    for (int64_t k = 4096; k >= 2048; k -= 2048) {
        cute_gemm_choice c;
        cute_gemm_tune_choice(db, argv[1], "NVIDIA H200", 132, CUTE_BF16, CUTE_BF16, tn, 4096, 4096, k, &c);
        printf("K = %lld: %s\n", (long long)k, c.why);
    }
    cute_tune_db_free(db);
    return 0;
}
