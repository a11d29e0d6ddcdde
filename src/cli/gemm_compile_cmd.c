/* `cutec compile gemm`: what cutec generates for a GEMM variant (no GPU needed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cutec/kernels.h"

static int usage(void)
{
    fputs("usage: cutec compile gemm [--variant registers|shared|pipelined] [--dtype f32|f64]\n"
          "         [--layout XYZ] [--align BYTES] [--index 32|64] [--emit ir|cuda|ptx|sass]\n"
          "         [--arch sm_90a]\n"
          "  --layout: BLAS's letters as in `cutec run gemm help` (default nt: A M-major,\n"
          "            B N-major, C column-major)\n"
          "  --index:  32 (default): the kernel for extents and leading dimensions up to\n"
          "            32768, its index arithmetic in 32 bits; 64: any size (which of the two\n"
          "            the library runs for each variant: docs/gemm.md)\n", stderr);
    return CLI_USAGE;
}

int cmd_compile_gemm(int argc, char **argv)
{
    cute_gemm_config cfg = {CUTE_GEMM_PIPELINED, CUTE_F32, {0, 0, 0}, 16, CUTE_GEMM_INDEX_BOUND}; /* "nt" */
    const char *emit = "cuda", *arch = getenv("CUTEC_ARCH");
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(k, "help") || !strcmp(k, "--help")) return usage();
        if (!v) {
            fprintf(stderr, "cutec compile gemm: %s needs a value\n", k);
            return usage();
        }
        i++;
        if (!strcmp(k, "--variant")) {
            if (!cute_gemm_variant_parse(v, &cfg.variant)) {
                fprintf(stderr, "cutec compile gemm: unknown variant \"%s\"\n", v);
                return usage();
            }
        } else if (!strcmp(k, "--dtype")) {
            if (!strcmp(v, "f32")) cfg.dtype = CUTE_F32;
            else if (!strcmp(v, "f64")) cfg.dtype = CUTE_F64;
            else {
                fprintf(stderr, "cutec compile gemm: --dtype %s (f32 or f64)\n", v);
                return usage();
            }
        } else if (!strcmp(k, "--layout")) {
            if (!cli_gemm_layout_majors(v, cfg.major)) {
                fprintf(stderr, "cutec compile gemm: --layout %s (two or three of n, t)\n", v);
                return usage();
            }
        } else if (!strcmp(k, "--align")) {
            int64_t a = 0;
            char why[160];
            if (!cli_int(v, 1, 16, &a, why, sizeof why)) {
                fprintf(stderr, "cutec compile gemm: --align %s: %s\n", v, why);
                return usage();
            }
            cfg.align_bytes = (int)a;
        } else if (!strcmp(k, "--index")) {
            if (strcmp(v, "32") && strcmp(v, "64")) {
                fprintf(stderr, "cutec compile gemm: --index %s (32 or 64)\n", v);
                return usage();
            }
            cfg.index_bound = !strcmp(v, "32") ? CUTE_GEMM_INDEX_BOUND : 0;
        } else if (!strcmp(k, "--emit")) {
            emit = v;
        } else if (!strcmp(k, "--arch")) {
            arch = v;
        } else {
            fprintf(stderr, "cutec compile gemm: unknown option %s\n", k);
            return usage();
        }
    }
    if (strcmp(emit, "ir") && strcmp(emit, "cuda") && strcmp(emit, "ptx") && strcmp(emit, "sass")) return usage();
    if (cli_parse_only()) return CLI_OK;
    char err[4096];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec compile gemm: %s\n", err);
        return CLI_FAIL;
    }
    if (cfg.variant == CUTE_GEMM_AUTO) cfg.variant = CUTE_GEMM_PIPELINED;
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    int rc = CLI_FAIL;
    if (!f)
        fprintf(stderr, "cutec compile gemm: %s\n", err);
    else
        rc = cli_emit_kernel(f, emit, arch);
    cute_fn_free(f);
    cute_runtime_free(rt);
    return rc;
}
