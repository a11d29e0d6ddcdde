/* cutec/gemm_tune.h — the GEMM's side of the autotuner (docs/tune.md): its parameter space
 * for the kernel family the library picks on a target, its configurations as the tuning
 * file writes them, and the rule by which cutec_gemm takes a tuned entry. */
#ifndef CUTEC_GEMM_TUNE_H
#define CUTEC_GEMM_TUNE_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/kernels.h"
#include "cutec/tune.h"

/* The space `cutec tune gemm` searches for inputs of dtype d on sm_`arch` (0: the
 * interpreter's): the Hopper kernel's (tile, cluster, stages, schedule, raster) on sm_90 for
 * f16 and bf16, else the SM80 tensor-core kernel's (tile, warps, stages, raster); point 0 is
 * the library's default.  *family: the variant the points configure.  False (why) for a
 * dtype no tensor-core family takes. */
bool cute_gemm_tune_space(cute_dtype d, int arch, cute_tune_space *s, cute_gemm_variant *family, char *why,
                          size_t n);
/* the tiling of a point of that space */
cute_gemm_tiling cute_gemm_tune_tiling(const cute_tune_space *s, const int *point);
/* whether the family's plan takes cfg on sm_`arch` (no compile: the tiles fit, the
 * schedule takes them); false with the plan's reason */
bool cute_gemm_tune_plan_ok(const cute_gemm_config *cfg, int arch, char *why, size_t n);

/* The key of a plain GEMM call in the tuning file: "gemm bf16>bf16 tnn 4096x4096x4096"
 * (input and C dtypes, BLAS's layout letters of A, B, C as `--layout` takes them, M x N x K) */
void cute_gemm_tune_key(cute_dtype in, cute_dtype out, const int major[3], int64_t m, int64_t n, int64_t k,
                        char *buf, size_t size);
/* a configuration as the file writes it ("variant=hopper tile=128x256x0 cluster=1x1 ..."),
 * and back (false with why for text that is not one) */
void cute_gemm_tune_config_text(cute_gemm_variant v, const cute_gemm_tiling *t, char *buf, size_t n);
bool cute_gemm_tune_config_parse(const char *text, cute_gemm_variant *v, cute_gemm_tiling *t, char *why, size_t n);

/* Whether the library takes tuned entries (default: yes, unless $CUTEC_NO_TUNE is set to
 * anything but "" or "0").  The rule: a call with variant AUTO, no fused epilogue, no
 * scales, not batched and not dual, with no tiling set (cute_gemm_lib_tiling), whose key
 * has an entry for the library's card (cute_tune_card) in the tuning file
 * (cute_tune_db_path, read at the first such call), runs the entry's configuration; where
 * that does not compile, AUTO's order as without it. */
bool cute_gemm_lib_use_tuned(cute_gemm_lib *lib, bool on);
/* What the library picks for a plain call of these and why: *tuned and the entry's
 * configuration, or not and the words why not ("no entry for ... in FILE", "FILE:3: ..."). */
typedef struct cute_gemm_choice {
    bool tuned;
    cute_gemm_variant variant; /* tuned: the entry's; else AUTO */
    cute_gemm_tiling tiling;
    double ms;                 /* tuned: the entry's time */
    char why[768];
} cute_gemm_choice;
void cute_gemm_lib_choice(cute_gemm_lib *lib, cute_dtype in, cute_dtype out, const int major[3], int64_t m,
                          int64_t n, int64_t k, cute_gemm_choice *c);
/* the same lookup in a table for a card (the CLI's `compile gemm`, which has no library) */
void cute_gemm_tune_choice(const cute_tune_db *db, const char *file, const char *card, int sms, cute_dtype in,
                           cute_dtype out, const int major[3], int64_t m, int64_t n, int64_t k, cute_gemm_choice *c);

CUTE_API_END
#endif
