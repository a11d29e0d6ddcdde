/* `cutec compile gemm`: what cutec generates for a GEMM variant (no GPU needed): the kernel
 * the library would pick for a dtype and layout, as IR, CUDA C, PTX or SASS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/gemm_cli.h"
#include "cutec/gemm_tune.h"
#include "cutec/kernels.h"

static int usage(void)
{
    fputs("usage: cutec compile gemm [--variant auto|registers|shared|pipelined] [--dtype D]\n"
          "         [--out-dtype D] [--layout XYZ] [--align BYTES] [--index 32|64]\n"
          "         [--emit ir|cuda|ptx|sass|usage|banks|time|config] [--arch sm_80|sm_90a|sm_100a]\n"
          "         [--tile BMxBNxBK] [--warps WMxWN] [--stages S] [--raster F] [--read-bytes 8|16]\n"
          "         [--cluster CMxCN] [--store auto|tma|tile|st] [--schedule auto|coop|pingpong|persistent|streamk]\n"
          "         [--epilogue bias|relu|gelu|gelu_tanh|silu|swiglu] [--scale tensor|block [--amax-out 1]]\n"
          "         [--bias row|col] [--peer flags|mirror] [--m M --n N --k K [--card NAME:SMS] [--tune-file F]]\n"
          "  --dtype:  f32 (default), f64, f16, bf16, tf32, s8, e4m3, e5m2; --out-dtype as in\n"
          "            `cutec run gemm help`; the block-scaled nvfp4, mxfp4, mxfp8 (the blackwell\n"
          "            kernel: --arch sm_100a)\n"
          "  --variant: auto (default) is the library's choice: the most advanced variant that\n"
          "            compiles for the dtype and layout (its name goes to stderr)\n"
          "  --layout: BLAS's letters as in `cutec run gemm help` (default nt: A M-major,\n"
          "            B N-major, C column-major)\n"
          "  --index:  32 (default): the kernel for extents and leading dimensions up to\n"
          "            32768, its index arithmetic in 32 bits; 64: any size (which of the two\n"
          "            the library runs for each variant: docs/gemm.md)\n"
          "  --m, --n, --k: the shape of the call: AUTO then takes the tuning file's entry for it on\n"
          "            the card (--card, else this machine's GPU, else \"interp sm_XX\"), as cutec_gemm\n"
          "            does (docs/tune.md; --tune-file: that file); --emit config prints which\n"
          "            configuration and why\n"
          "  --peer:   the hopper kernel with flags between GPUs (cutec_gemm_peer; mirror: and the\n"
          "            second store of each tile, docs/peer.md)\n"
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
/* With no tiling given, each variant takes the library's tiling for it on the target
 * (cute_gemm_library_tiling), of the shape where it is known (mnk[0] > 0),
 * as a call of that shape would. */
static const cute_fn *compile_pick(cute_runtime *rt, cute_gemm_config *cfg, const int64_t mnk[3], bool exportable,
                                   char *err, size_t n)
{
    static const cute_gemm_tiling none;
    bool unset = !memcmp(&cfg->tiling, &none, sizeof none), by_shape = mnk[0] > 0 && unset;
    int arch = cute_runtime_target_arch(rt);
    if (unset && cfg->variant != CUTE_GEMM_AUTO)
        cfg->tiling = cute_gemm_library_tiling(cfg->variant, cfg, by_shape ? mnk : NULL, 1, arch);
    if (cfg->variant != CUTE_GEMM_AUTO) return cute_gemm_compile(rt, cfg, err, n);
    cute_gemm_variant order[CUTE_GEMM_VARIANT_COUNT];
    int count = cute_gemm_auto_variants_for(cfg->dtype, arch, order);
    size_t len = 0;
    if (n) err[0] = 0;
    for (int i = 0; i < count; i++) {
        if (exportable && (order[i] == CUTE_GEMM_HOPPER || order[i] == CUTE_GEMM_BLACKWELL)) continue;
        cfg->variant = order[i];
        if (unset)
            cfg->tiling = cute_gemm_library_tiling(order[i], cfg, by_shape ? mnk : NULL, 1, arch);
        char why[1024];
        const cute_fn *f = cute_gemm_compile(rt, cfg, why, sizeof why);
        if (f) return f;
        len += (size_t)snprintf(err + len, len < n ? n - len : 0, "%s%s: %s", len ? "; " : "",
                                cute_gemm_variant_name(order[i]), why);
        if (len >= n) len = n - 1;
    }
    return NULL;
}

/* the shape and card of `--m --n --k [--card]`: the tuning file's entry, as the library takes it */
typedef struct shape_opts {
    int64_t mnk[3];
    const char *card; /* "NAME:SMS", or NULL */
    const char *file; /* --tune-file, or NULL: cute_tune_db_path */
} shape_opts;

/* the card named by --card, else this machine's GPU, else the interpreter's for the target */
static void card_of(const shape_opts *s, cute_runtime *interp, char *name, size_t n, int *sms)
{
    const char *colon = s->card ? strrchr(s->card, ':') : NULL;
    if (colon) {
        snprintf(name, n, "%.*s", (int)(colon - s->card), s->card);
        *sms = atoi(colon + 1);
        return;
    }
    cute_runtime *gpu = NULL;
    char err[256];
    bool have = cute_runtime_new("cuda", &gpu, err, sizeof err) == CUTE_OK;
    cute_tune_card(have ? gpu : interp, name, n, sms);
    if (gpu) cute_runtime_free(gpu);
}

/* cfg as the library would run a plain AUTO call of the shape: the tuned entry's
 * configuration where there is one (c->tuned), with why in c->why */
static void tuned_choice(const shape_opts *s, cute_runtime *rt, cute_gemm_config *cfg, cute_gemm_choice *c)
{
    static const cute_gemm_tiling none;
    char file[4096] = "", card[128], err[768];
    int sms = 0;
    memset(c, 0, sizeof *c);
    bool plain = cfg->variant == CUTE_GEMM_AUTO && !memcmp(&cfg->tiling, &none, sizeof none) && !cfg->dual &&
                 !cfg->scale && !cute_gemm_epilogue_fused(&cfg->epilogue);
    if (!plain) return (void)snprintf(c->why, sizeof c->why, "default: a variant, tiling, epilogue or scale was given");
    cute_tune_db *db = NULL;
    if (s->file) snprintf(file, sizeof file, "%s", s->file);
    if ((!s->file && !cute_tune_db_path(file, sizeof file)) || cute_tune_db_load(file, &db, err, sizeof err) != CUTE_OK) {
        snprintf(c->why, sizeof c->why, "default: the tuning file is not used: %.700s", file[0] ? err : "none");
        return;
    }
    card_of(s, rt, card, sizeof card, &sms);
    cute_gemm_tune_choice(db, file, card, sms, cfg->dtype, cfg->c_dtype, cfg->major, s->mnk[0], s->mnk[1], s->mnk[2], c);
    if (c->tuned) cfg->variant = c->variant, cfg->tiling = c->tiling;
    cute_tune_db_free(db);
}

static int compile_and_emit(cute_gemm_config *cfg, const gemm_bs_kind *bs, cute_dtype out, const char *emit,
                            const char *arch, const shape_opts *shape)
{
    char err[4096];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec compile gemm: %s\n", err);
        return CLI_FAIL;
    }
    cute_runtime_set_target_arch(rt, arch); /* atoms are checked against it */
    if (bs && !gemm_bs_arch_ok("compile", bs, cute_runtime_target_arch(rt))) {
        cute_runtime_free(rt);
        return CLI_USAGE;
    }
    const cute_dtype *outs;
    int n;
    static const cute_dtype f32[] = {CUTE_F32};
    if (cfg->dtype == CUTE_E2M1 || bs) /* NVFP4, MXFP4, MXFP8: K-major A and B, C f32 unless asked */
        cfg->major[0] = cfg->major[1] = 1, outs = f32;
    else
        gemm_ref_out_dtypes(cfg->dtype, &outs, &n);
    if (out == CUTE_VOID) out = outs[0];
    cfg->c_dtype = out;
    cute_gemm_choice choice = {.why = ""};
    cute_gemm_config asked = *cfg;
    if (shape->mnk[0]) tuned_choice(shape, rt, cfg, &choice);
    cli_clock t0 = cli_clock_now();
    const cute_fn *f = compile_pick(rt, cfg, shape->mnk, emit && !strcmp(emit, "export"), err, sizeof err);
    if (!f && choice.tuned) { /* the library's rule: an entry that does not compile, AUTO's order */
        snprintf(choice.why + strlen(choice.why), sizeof choice.why - strlen(choice.why), "; it does not compile "
                 "here (%.200s): the default", err);
        *cfg = asked, choice.tuned = false;
        f = compile_pick(rt, cfg, shape->mnk, emit && !strcmp(emit, "export"), err, sizeof err);
    }
    static const cute_gemm_tiling none;
    if (f && !choice.tuned && !memcmp(&asked.tiling, &none, sizeof none) && memcmp(&cfg->tiling, &none, sizeof none))
        snprintf(choice.why + strlen(choice.why), sizeof choice.why - strlen(choice.why), "%sthe library's tiling for "
                 "the shape (docs/gemm.md)", choice.why[0] ? "; " : "");
    cli_clock trace = cli_clock_since(t0);
    int rc = CLI_FAIL;
    if (!f)
        fprintf(stderr, "cutec compile gemm: the library has no %s kernel for this layout yet: %s\n",
                cli_gemm_dtype_name(cfg->dtype), err);
    else {
        bool config = emit && !strcmp(emit, "config");
        if (!config)
            fprintf(stderr, "# kernel: %s, %s -> %s, %d-bit index arithmetic\n", cute_gemm_variant_name(cfg->variant),
                    bs ? bs->name : cli_gemm_dtype_name(cfg->dtype), cli_gemm_dtype_name(out), cfg->index_bound ? 32 : 64);
        char text[512];
        cute_gemm_tune_config_text(cfg->variant, &cfg->tiling, text, sizeof text);
        if (choice.why[0]) fprintf(config ? stdout : stderr, "# config: %s\n", choice.why);
        if (config) printf("%s\n", text), rc = CLI_OK;
        else rc = cli_emit_kernel(f, emit, arch, trace);
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
    const gemm_bs_kind *bs = NULL; /* --dtype nvfp4|mxfp4|mxfp8 */
    bool layout_given = false;
    shape_opts shape = {{0, 0, 0}, NULL, NULL};
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (cli_is_help(k)) return usage();
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
        if (!strcmp(k, "--peer")) {
            cfg.peer_flags = !strcmp(v, "flags") || !strcmp(v, "mirror"), cfg.peer_mirror = !strcmp(v, "mirror");
            if (!cfg.peer_flags) {
                fprintf(stderr, "cutec compile gemm: --peer %s (flags or mirror)\n", v);
                return usage();
            }
        } else if (!strcmp(k, "--variant")) {
            if (!cute_gemm_variant_parse(v, &cfg.variant)) {
                fprintf(stderr, "cutec compile gemm: unknown variant \"%s\"\n", v);
                return usage();
            }
        } else if (!strcmp(k, "--dtype") || !strcmp(k, "--out-dtype")) {
            cute_dtype *d = !strcmp(k, "--dtype") ? &cfg.dtype : &out;
            const cute_dtype *outs;
            int nouts;
            bool fp4 = d == &cfg.dtype && !strcmp(v, "e2m1"); /* NVFP4: the blackwell kernel's */
            if (d == &cfg.dtype && (bs = gemm_bs_kind_named(v))) continue;
            if (!cli_gemm_dtype_parse(v, d) || (d == &cfg.dtype && !fp4 && !gemm_ref_out_dtypes(*d, &outs, &nouts))) {
                fprintf(stderr, "cutec compile gemm: %s %s (f32, f64, f16, bf16, tf32, s8, e4m3, e5m2, e2m1%s)\n", k, v,
                        d == &cfg.dtype ? ", or the block-scaled " GEMM_BS_KINDS : "");
                return usage();
            }
        } else if (!strcmp(k, "--layout")) {
            layout_given = true;
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
        } else if (!strcmp(k, "--m") || !strcmp(k, "--n") || !strcmp(k, "--k")) {
            char why[160];
            if (!cli_int(v, 1, (int64_t)1 << 40, &shape.mnk[k[2] == 'm' ? 0 : k[2] == 'n' ? 1 : 2], why, sizeof why)) {
                fprintf(stderr, "cutec compile gemm: %s %s: %s\n", k, v, why);
                return usage();
            }
        } else if (!strcmp(k, "--tune-file")) {
            shape.file = v;
        } else if (!strcmp(k, "--card")) {
            int64_t sms;
            char why_sms[160];
            if (!strrchr(v, ':') || !cli_int(strrchr(v, ':') + 1, 1, 1 << 20, &sms, why_sms, sizeof why_sms)) {
                fprintf(stderr, "cutec compile gemm: --card %s: NAME:SMS, as the tuning file names the card (SMS a "
                                "count from 1)\n", v);
                return usage();
            }
            shape.card = v;
        } else if (!strcmp(k, "--emit")) {
            emit = v;
        } else if (!strcmp(k, "--arch")) {
            char why[256];
            if (!cli_arch(v, why, sizeof why)) return fprintf(stderr, "cutec compile gemm: --arch: %s\n", why), CLI_USAGE;
            arch = v;
        } else {
            fprintf(stderr, "cutec compile gemm: unknown option %s\n", k);
            return usage();
        }
    }
    bool config = emit && !strcmp(emit, "config");
    if (!config && !(emit = cli_emit_form(emit))) return usage();
    if ((shape.mnk[0] || shape.mnk[1] || shape.mnk[2]) && !(shape.mnk[0] && shape.mnk[1] && shape.mnk[2])) {
        fprintf(stderr, "cutec compile gemm: --m, --n and --k go together\n");
        return usage();
    }
    if (bs && cfg.variant != CUTE_GEMM_AUTO && cfg.variant != CUTE_GEMM_BLACKWELL) {
        fprintf(stderr, "cutec compile gemm: --dtype %s runs on the blackwell kernel only, not --variant %s\n", bs->name,
                cute_gemm_variant_name(cfg.variant));
        return CLI_USAGE;
    }
    if (bs && layout_given && (cfg.major[0] != 1 || cfg.major[1] != 1)) {
        fprintf(stderr, "cutec compile gemm: --dtype %s takes K-major A and B (--layout tn, C n or t)\n", bs->name);
        return CLI_USAGE;
    }
    if (bs) gemm_bs_config(bs, &cfg);
    if (out != CUTE_VOID && !gemm_ref_pair_ok(bs ? CUTE_E4M3 : cfg.dtype, out)) {
        fprintf(stderr, "cutec compile gemm: --out-dtype %s: %s inputs give C of %s\n", cli_gemm_dtype_name(out),
                cli_gemm_dtype_name(cfg.dtype), cli_gemm_out_list(cfg.dtype));
        return CLI_USAGE;
    }
    return cli_parse_only() ? CLI_OK : compile_and_emit(&cfg, bs, out, emit, arch, &shape);
}
