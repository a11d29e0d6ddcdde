/* `cutec compile gemm`: what cutec generates for a GEMM variant (no GPU needed): the kernel
 * the library would pick for a dtype and layout, as IR, CUDA C, PTX or SASS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/gemm_cli.h"
#include "cutec/kernels.h"

static int usage(void)
{
    fputs("usage: cutec compile gemm [--variant auto|registers|shared|pipelined] [--dtype D]\n"
          "         [--out-dtype D] [--layout XYZ] [--align BYTES] [--index 32|64]\n"
          "         [--emit ir|cuda|ptx|sass|usage|banks|time] [--arch sm_80|sm_90a]\n"
          "         [--tile BMxBNxBK] [--warps WMxWN] [--stages S] [--raster F] [--read-bytes 8|16]\n"
          "         [--cluster CMxCN] [--store tma|st] [--schedule auto|coop|pingpong|persistent]\n"
          "         [--epilogue bias|relu|gelu|gelu_tanh|silu|swiglu] [--scale tensor|block [--amax-out 1]]\n"
          "         [--bias row|col]\n"
          "  --dtype:  f32 (default), f64, f16, bf16, tf32, s8, e4m3, e5m2; --out-dtype as in\n"
          "            `cutec run gemm help`\n"
          "  --variant: auto (default) is the library's choice: the most advanced variant that\n"
          "            compiles for the dtype and layout (its name goes to stderr)\n"
          "  --layout: BLAS's letters as in `cutec run gemm help` (default nt: A M-major,\n"
          "            B N-major, C column-major)\n"
          "  --index:  32 (default): the kernel for extents and leading dimensions up to\n"
          "            32768, its index arithmetic in 32 bits; 64: any size (which of the two\n"
          "            the library runs for each variant: docs/gemm.md)\n"
          "  --emit usage: ptxas's registers, spills and stack of each kernel (NVRTC)\n"
          "  --emit banks: the FFMAs that read two registers of one bank (NVRTC's cubin)\n"
          "  --tile, --warps, --stages, --raster, --read-bytes, --cluster, --store, --schedule: the kernels'\n"
          "            tiling, as in `cutec bench\n"
          "            gemm` (default: the library's for the dtype)\n", stderr);
    return CLI_USAGE;
}

/* the library's kernel for cfg: the variant asked for, or the first of AUTO's on the target that
 * compiles (the arch's own kernel first: cute_gemm_auto_variants_for), as the library picks */
/* For export (`exportable`), AUTO passes over the kernels whose launch builds a tensor map
 * (TMA: hopper, blackwell), which a launcher without cutec cannot do yet (docs/export.md). */
static const cute_fn *compile_pick(cute_runtime *rt, cute_gemm_config *cfg, bool exportable, char *err, size_t n)
{
    if (cfg->variant != CUTE_GEMM_AUTO) return cute_gemm_compile(rt, cfg, err, n);
    cute_gemm_variant order[CUTE_GEMM_VARIANT_COUNT];
    int count = cute_gemm_auto_variants_for(cfg->dtype, cute_runtime_target_arch(rt), order);
    size_t len = 0;
    if (n) err[0] = 0;
    for (int i = 0; i < count; i++) {
        if (exportable && (order[i] == CUTE_GEMM_HOPPER || order[i] == CUTE_GEMM_BLACKWELL)) continue;
        cfg->variant = order[i];
        char why[1024];
        const cute_fn *f = cute_gemm_compile(rt, cfg, why, sizeof why);
        if (f) return f;
        len += (size_t)snprintf(err + len, len < n ? n - len : 0, "%s%s: %s", len ? "; " : "",
                                cute_gemm_variant_name(order[i]), why);
        if (len >= n) len = n - 1;
    }
    return NULL;
}

static int compile_and_emit(cute_gemm_config *cfg, cute_dtype out, const char *emit, const char *arch)
{
    char err[4096];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec compile gemm: %s\n", err);
        return CLI_FAIL;
    }
    cute_runtime_set_target_arch(rt, arch); /* atoms are checked against it */
    const cute_dtype *outs;
    int n;
    static const cute_dtype f32[] = {CUTE_F32};
    if (cfg->dtype == CUTE_E2M1) /* NVFP4: K-major A and B, C f32 unless asked */
        cfg->major[0] = cfg->major[1] = 1, outs = f32;
    else
        gemm_ref_out_dtypes(cfg->dtype, &outs, &n);
    if (out == CUTE_VOID) out = outs[0];
    cfg->c_dtype = out;
    cli_clock t0 = cli_clock_now();
    const cute_fn *f = compile_pick(rt, cfg, emit && !strcmp(emit, "export"), err, sizeof err);
    cli_clock trace = cli_clock_since(t0);
    int rc = CLI_FAIL;
    if (!f)
        fprintf(stderr, "cutec compile gemm: the library has no %s kernel for this layout yet: %s\n",
                cli_gemm_dtype_name(cfg->dtype), err);
    else {
        fprintf(stderr, "# kernel: %s, %s -> %s, %d-bit index arithmetic\n", cute_gemm_variant_name(cfg->variant),
                cli_gemm_dtype_name(cfg->dtype), cli_gemm_dtype_name(out), cfg->index_bound ? 32 : 64);
        rc = cli_emit_kernel(f, emit, arch, trace);
    }
    cute_fn_free(f);
    cute_runtime_free(rt);
    return rc;
}

int cmd_compile_gemm(int argc, char **argv)
{
    cute_gemm_config cfg = {.variant = CUTE_GEMM_AUTO, .dtype = CUTE_F32, .align_bytes = 16,
                            .index_bound = CUTE_GEMM_INDEX_BOUND}; /* "nn" */
    cute_dtype out = CUTE_VOID;
    const char *emit = "cuda", *arch = getenv("CUTEC_ARCH");
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(k, "help") || !strcmp(k, "--help")) return usage();
        if (!v) {
            fprintf(stderr, "cutec compile gemm: %s needs a value\n", k);
            return usage();
        }
        i++;
        bool known;
        char why[160];
        bool tiling = cli_gemm_tiling_option(k, v, &cfg.tiling, &known, why, sizeof why);
        if (known && !tiling) {
            fprintf(stderr, "cutec compile gemm: %s %s: %s\n", k, v, why);
            return usage();
        }
        if (known) continue;
        if (cli_gemm_epilogue_option(k, v, &cfg.epilogue, &cfg.dual, &known)) continue;
        if (known) {
            fprintf(stderr, "cutec compile gemm: %s %s: not an epilogue (bias, relu, gelu, gelu_tanh, silu; --bias "
                    "row|col)\n", k, v);
            return usage();
        }
        if (!strcmp(k, "--scale") || !strcmp(k, "--amax-out")) { /* fp8 scales; --amax-out 1: with amax and out scale */
            bool t = !strcmp(v, "tensor"), bl = !strcmp(v, "block"), on = !strcmp(v, "1");
            if (!strcmp(k, "--scale") ? !(t || bl) : !(on || !strcmp(v, "0"))) {
                fprintf(stderr, "cutec compile gemm: %s %s: tensor or block (--scale), 0 or 1 (--amax-out)\n", k, v);
                return usage();
            }
            if (!strcmp(k, "--scale")) cfg.scale = t ? CUTE_GEMM_SCALE_TENSOR : CUTE_GEMM_SCALE_BLOCK;
            else cfg.amax = cfg.out_scale = on;
            continue;
        }
        if (!strcmp(k, "--variant")) {
            if (!cute_gemm_variant_parse(v, &cfg.variant)) {
                fprintf(stderr, "cutec compile gemm: unknown variant \"%s\"\n", v);
                return usage();
            }
        } else if (!strcmp(k, "--dtype") || !strcmp(k, "--out-dtype")) {
            cute_dtype *d = !strcmp(k, "--dtype") ? &cfg.dtype : &out;
            const cute_dtype *outs;
            int nouts;
            bool fp4 = d == &cfg.dtype && !strcmp(v, "e2m1"); /* NVFP4: the blackwell kernel's */
            if (!cli_gemm_dtype_parse(v, d) || (d == &cfg.dtype && !fp4 && !gemm_ref_out_dtypes(*d, &outs, &nouts))) {
                fprintf(stderr, "cutec compile gemm: %s %s (f32, f64, f16, bf16, tf32, s8, e4m3, e5m2 or e2m1)\n", k, v);
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
    if (!(emit = cli_emit_form(emit))) return usage();
    if (out != CUTE_VOID && !gemm_ref_pair_ok(cfg.dtype, out)) {
        fprintf(stderr, "cutec compile gemm: --out-dtype %s: %s inputs give C of %s\n", cli_gemm_dtype_name(out),
                cli_gemm_dtype_name(cfg.dtype), cli_gemm_out_list(cfg.dtype));
        return CLI_USAGE;
    }
    return cli_parse_only() ? CLI_OK : compile_and_emit(&cfg, out, emit, arch);
}
