/* cutec run gemm / cutec bench gemm: a GEMM of any of the library's dtypes, batched or not,
 * verified element by element against a float64 CPU reference (and timed on a GPU), and a
 * benchmark table of the library's variants against cuBLAS in one process on the same
 * gaussian inputs.
 *
 * Layout letters are BLAS's (and CuTe's gemm examples'): the operation cuBLAS would be
 * given for each operand of a column-major C = op(A) op(B), B being K x N there.
 *   A: n = M-major (column-major A(M,K))       t = K-major (row-major A(M,K))
 *   B: n = K-major (column-major B(K,N))       t = N-major (B given as (N,K), N contiguous)
 *   C: n = column-major (default)              t = row-major
 * So "tn" is CuTe's K-major A and B, "nt" its M-major A and N-major B (every operand
 * column-major in cutec's (M,K), (N,K), (M,N) view). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli/cublas.h"
#include "cli/gemm_cli.h"
#include "cli/gpu_timing.h"
#include "kernels/ew_ref.h"

static void usage(void)
{
    fputs(
            "usage: cutec run gemm [--dtype D] [--out-dtype D] [--m M --n N --k K] [--batch L]\n"
            "         [--layout XY[Z]] [--variant auto|registers|shared|pipelined|multistage|tensorop|\n"
            "         tensorop_smem|hopper|blackwell] [--backend cuda|interp [--arch sm_80|sm_90a|sm_100a]]\n"
            "         [--alpha A] [--beta B]\n"
            "         [--pad P] [--iters N]\n"
            "         [--seed S] [--index auto|32|64] [--tile BMxBNxBK] [--stages S] [--warps WMxWN]\n"
            "         [--raster F] [--read-bytes 8|16] [--cluster CMxCN] [--store auto|tma|tile|st]\n"
            "         [--schedule auto|coop|pingpong|persistent|streamk]\n"
            "         [--epilogue bias|relu|gelu|gelu_tanh|silu|swiglu] [--bias row|col] [--groups G]\n"
            "         [--scale tensor|block [--amax] [--out-scale S] [--scale-mul staged|promote|load|interleave]]\n"
            "       cutec bench gemm [--dtype D] [--out-dtype D] [--sizes 4096,8192,MxNxK] [--batch L]\n"
            "         [--layout XY[Z]] [--variants V,V,... (default: all)] [--alpha A]\n"
            "         [--beta B] [--iters N] [--seed S] [--index auto|32|64] [--tile BMxBNxBK]\n"
            "         [--stages S] [--warps WMxWN] [--raster F] [--read-bytes 8|16] [--cluster CMxCN]\n"
            "         [--store auto|tma|tile|st] [--schedule auto|coop|pingpong|persistent|streamk] [--epilogue bias|relu|gelu|gelu_tanh|silu|swiglu]\n"
            "         [--bias row|col] [--plot FILE.svg] [--ceiling auto|TFLOPS] [--epilogue-cost]\n"
            "         [--turns] [--groups G [--tokens T]] [--fill gaussian|coarse]\n"
            "         [--scale tensor|block [--amax] [--out-scale S] [--scale-mul staged|promote|load|interleave]]\n"
            "\n"
            "C(M,N,L) = alpha * A(M,K,L) * B(N,K,L)^T + beta * C, B given as (N,K) (CuTe's\n"
            "convention), L batches (--batch, default 1: rank-2 operands).\n"
            "dtype: the inputs' (A and B): f32 (default), f64, f16, bf16, tf32, s8, e4m3, e5m2;\n"
            "  run: the block-scaled kinds nvfp4 (e2m1 with a ue4m3 scale per 16 of K), mxfp4 (e2m1,\n"
            "  ue8m0 per 32) and mxfp8 (e4m3, ue8m0 per 32): K-major, C f32, f16 or bf16, the\n"
            "  Blackwell kernel (an sm_100 target: --arch sm_100a on the interpreter).\n"
            "out-dtype: C's: f16 -> f16, bf16 or f32; bf16 -> bf16, f16 or f32; tf32 -> f32;\n"
            "  s8 -> s32; e4m3, e5m2 -> f32, f16 or bf16; f32 -> f32; f64 -> f64 (the first is\n"
            "  the default).  s8 takes integer alpha and beta.\n"
            "run: fresh gaussian A, B and C rounded to their dtypes (s8: uniform integers in\n"
            "[-128,127]; seeded, the seed is printed), every element checked against a float64\n"
            "CPU reference: error relative to the sum of |terms|, tolerance by dtype (f32 1e-5,\n"
            "f64 1e-12, s8 exact, the others 2^-10 plus C's rounding; docs/gemm.md); on a GPU\n"
            "also the median time and TFLOP/s (TOPS for s8).\n"
            "bench: square sizes (or MxNxK), each variant and cuBLAS (f32 without TF32; tf32 through\n"
            "CUBLAS_COMPUTE_32F_FAST_TF32; fp8 through cuBLASLt) timed with CUDA events (median\n"
            "of --iters), TFLOP/s = 2MNKL/t, the ratio to cuBLAS, each result's largest\n"
            "difference from cuBLAS's relative to max |C|, and 256 of its elements checked\n"
            "against float64.  --plot draws each variant and cuBLAS against size, the ceiling\n"
            "(--ceiling; default cuBLAS's best) as a dashed line.\n"
            "--ceiling auto: first `cutec bench mma`'s row of the inputs' dtype in this process (wgmma\n"
            "  on sm_90, else mma.sync; about a second), or --ceiling TFLOPS: every row then also as\n"
            "  a share of it (column \"of ceiling\", after \"of cuBLAS\"; with --groups too).\n"
            "--epilogue-cost: each variant with its epilogue (--epilogue, --bias, --alpha, --beta,\n"
            "  --amax, --out-scale) and plain (alpha 1, beta 0, none of them; fp8 keeps its input\n"
            "  scales), both checked, then timed in turns, --iters rounds of one timing each (AB BA\n"
            "  ...), the SM clock (NVML) sampled beside each: the medians, and the cost in time and\n"
            "  in cycles (time x clock).\n"
            "--turns: each variant, once checked, timed in turns with cuBLAS (AB BA ...), --iters rounds\n"
            "  of one timing each, the SM clock (NVML) beside each: its row against cuBLAS's median of\n"
            "  the same turns, and a line of the rounds' ratios (median, least, largest; in time and in\n"
            "  cycles) and the two clocks: a clock falling under the power cap weighs on both alike.\n"
            "--fill coarse: A's and B's gaussians cut to bf16's 8 significant bits (f16: the low 3\n"
            "  fraction bits cleared, f32 and tf32 the low 16; the other dtypes as they are), for\n"
            "  telling what the data's bits cost (power) from what the kernel does.\n"
            "\n"
            "layout: BLAS's letters, one per operand (the op cuBLAS would get for a column-major C):\n"
            "  A  n: M-major (column-major A(M,K))   t: K-major\n"
            "  B  n: K-major (column-major B(K,N))   t: N-major (B(N,K) with N contiguous)\n"
            "  C  n: column-major (the default)      t: row-major\n"
            "  \"tn\": A and B K-major (what cuBLASLt's fp8 needs: fp8's default); \"nt\" (the\n"
            "  others' default): every operand column-major as (M,K), (N,K), (M,N).  --pad P adds\n"
            "  P elements to every leading dimension.\n"
            "tile, stages, warps, raster: the multi-stage kernels' tiling (--tile 128x256x32\n"
            "  --stages 4 --warps 2x4; --raster F: F tiles along N side by side, tensor cores),\n"
            "  for tuning; unset: the library's choice for the dtype and size (docs/gemm.md).\n"
            "  --read-bytes: f64's fragment reads from K-major tiles, LDS.128 (16) or LDS.64 (8).\n"
            "  --cluster CMxCN: the hopper kernel's thread-block clusters (1x1, 2x1, 1x2, ...): CM\n"
            "  blocks along M share B's tile, CN along N share A's, each loading its share (TMA\n"
            "  multicast).\n"
            "  --store: the Hopper kernel's C path for a 16-bit C: stmatrix + TMA store piece by\n"
            "  piece through two buffers a warpgroup (tma), or the whole tile written first into\n"
            "  buffers of its own, then its stores (tile: one barrier, no wait for a store's read,\n"
            "  a stage fewer); or 16-byte st.global from shared memory (st); auto: the library's\n"
            "  choice by shape.\n"
            "  --schedule: the Hopper kernel's consumer warpgroups, coop (both on one tile, the\n"
            "  default), pingpong (a tile each, --tile then each warpgroup's: 128x128 by\n"
            "  default, or 64x256; their main loops and epilogues take turns) or streamk\n"
            "  (cooperative; the last partial wave and the one before split into equal runs\n"
            "  of k-tiles, a block each, partial sums added through a workspace); for tensorop and\n"
            "  tensorop_smem, persistent (a block an SM walking tiles, the next tile's first\n"
            "  k-tiles loading under this one's epilogue); auto: the library's choice.\n"
            "  bench takes lists of --cluster, --raster, --schedule, --tile, --store and --stages, a\n"
            "  row for each combination (hopper2x1r8, hopper-pp, hopper-t64x256x64, hopper-tile,\n"
            "  tensorop_smem-s4); a value may repeat (--stages 3,4,3,4: the two in turns).\n"
            "epilogue: a fused epilogue after alpha and beta (the hopper kernel, a 16-bit C):\n"
            "  bias (x + v, v one value per column: --bias col, the default, or row), relu,\n"
            "  gelu (erf), gelu_tanh, silu (with --bias, after it); run checks it against\n"
            "  float64, bench adds a row per variant with it after the plain ones.  swiglu:\n"
            "  the dual GEMM C = alpha silu(A B0^T) (A B1^T) + beta C in one kernel (hopper, B\n"
            "  K-major), benched against two cuBLAS calls and cutec's elementwise silu(x) y.\n"
            "scale: fp8 scales in device memory (the hopper kernel, e4m3/e5m2): tensor (one f32\n"
            "  for A, one for B) or block (A per 1x128, B per 128x128 block of K, DeepSeek-V3's),\n"
            "  fresh values 2^u, u uniform in [-2, 2]; --amax: max |x| of C before the output\n"
            "  scale, atomically (checked against float64); --out-scale S: C = S x (a 16-bit C\n"
            "  for both).  bench adds torch._scaled_mm's rows (bench/torch_scaled_mm.py).\n"
            "  --scale-mul: how block scales reach the k-tile's promotion: promote (the default:\n"
            "  loaded into registers two k-tiles ahead), staged (cp.async to shared memory three\n"
            "  k-tiles ahead), load (multiplied as soon as loaded) or interleave (promote's scales,\n"
            "  the promotion in parts between the next k-tile's wgmmas).\n"
            "index: the width of the kernels' index arithmetic.  auto (the default): each variant\n"
            "  in the width measured faster for it (docs/gemm.md); 32: 32-bit kernels wherever\n"
            "  every extent and leading dimension is at most 32768; 64: always 64-bit.\n"
            "arch (run, --backend interp): the target the interpreter compiles for: sm_90a picks the\n"
            "  Hopper kernel, sm_100a the Blackwell one (tcgen05 and tensor memory, emulated: no\n"
            "  Blackwell has run it; docs/blackwell.md).\n"
            "groups: the grouped GEMM (sm_90's kernel, or the interpreter), G problems of one N and\n"
            "  K and M uniform in [0, 2 M] (run: --m; bench: --tokens T, default 512, and N = K =\n"
            "  each size), layout tnt (K-major A and B, row-major C) unless given; bench times a\n"
            "  loop of cuBLAS calls over the same groups beside it, and torch._grouped_mm on the\n"
            "  same group sizes (bf16, bench/torch_grouped.py; a skip line where it is missing).\n"
            "defaults: run --m 256 --n 256 --k 256 --alpha 1.5 --beta -0.5 (s8: 2, -1) --iters 10;\n"
            "          bench --sizes 4096,8192 --alpha 1 --beta 0 --iters 10\n",
          stdout);
}

/* the last refused value's reason, for the message */
static char why[160];

static bool parse_int(const char *s, int64_t *out, int64_t least, int64_t most)
{
    return cli_int(s, least, most, out, why, sizeof why);
}

/* every operand, (rows + pad) x (cols + pad) x batch elements of 8 bytes, has a byte count
 * that fits 63 bits (then no size computed from them wraps) */
static bool sizes_fit(const gemm_opts *o)
{
    int64_t dims[3][2] = {{o->m, o->k}, {o->n, o->k}, {o->m, o->n}}, r, c, bytes;
    for (int i = 0; i < 3; i++)
        if (__builtin_add_overflow(dims[i][0], o->pad, &r) ||
            __builtin_add_overflow(dims[i][1], o->pad, &c) || __builtin_mul_overflow(r, c, &bytes) ||
            __builtin_mul_overflow(bytes, o->l, &bytes) || __builtin_mul_overflow(bytes, 8, &bytes))
            return snprintf(why, sizeof why, "--m %lld --n %lld --k %lld --pad %lld --batch %lld "
                            "make an operand of more than 2^63 bytes", (long long)o->m,
                            (long long)o->n, (long long)o->k, (long long)o->pad, (long long)o->l),
                   false;
    return true;
}

/* one problem of --sizes: S (M = N = K = S) or MxNxK, each 1 to 2^28 */
static bool parse_size(const char *t, int64_t mnk[3])
{
    int n = 0;
    if (!cli_dims(t, 3, INT64_MAX, mnk, &n, why, sizeof why)) return false;
    if (n == 1) mnk[1] = mnk[2] = mnk[0];
    for (int i = 0; i < 3; i++)
        if (mnk[i] < 1 || mnk[i] > (int64_t)1 << 28)
            return snprintf(why, sizeof why, "\"%s\": each extent 1 to 2^28", t), false;
    return n == 1 || n == 3 || (snprintf(why, sizeof why, "\"%s\" is not S or MxNxK", t), false);
}

static bool parse_sizes(const char *s, gemm_opts *o)
{
    o->nsizes = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (o->nsizes == GEMM_MAX_SIZES || !parse_size(t, o->sizes[o->nsizes++])) return false;
    return o->nsizes > 0;
}

/* bench's --cluster CMxCN,... and --raster F,...: the values each variant is swept over */
static bool parse_sweep(const char *s, bool cluster, gemm_opts *o)
{
    int *n = cluster ? &o->nclusters : &o->nrasters, dims = cluster ? 2 : 1;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    *n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int64_t v[2] = {0, 0};
        int k = 0;
        if (*n == GEMM_MAX_SWEEP || !cli_dims(t, dims, 4096, v, &k, why, sizeof why) || k != dims || v[0] < 1 ||
            (cluster && v[1] < 1))
            return snprintf(why, sizeof why, "up to %d values of %s, each 1 to 4096", GEMM_MAX_SWEEP,
                            cluster ? "CMxCN" : "F"), false;
        if (cluster) o->clusters[*n][0] = (int)v[0], o->clusters[*n][1] = (int)v[1];
        else o->rasters[*n] = (int)v[0];
        ++*n;
    }
    return *n > 0;
}

/* bench's lists of one tiling option, --schedule coop,pingpong, --tile BMxBNxBK,... or
 * --stages 3,4: each value a tiling of its own in list[], a row each */
static bool parse_tiling_list(const char *key, const char *s, cute_gemm_tiling *list, int *n)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    *n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        bool known;
        if (*n == GEMM_MAX_SWEEP) return snprintf(why, sizeof why, "up to %d values of %s", GEMM_MAX_SWEEP, key), false;
        list[*n] = (cute_gemm_tiling){0};
        if (!cli_gemm_tiling_option(key, t, &list[(*n)++], &known, why, sizeof why)) return false;
    }
    return *n > 0;
}

static bool parse_variants(const char *s, gemm_opts *o)
{
    o->nvariants = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (o->nvariants == CUTE_GEMM_VARIANT_COUNT ||
            !cute_gemm_variant_parse(t, &o->variants[o->nvariants++]))
            return false;
    return o->variants_given = o->nvariants > 0;
}

void cli_gemm_card_variants(gemm_opts *o, int arch, char *skipped, size_t n)
{
    int kept = 0;
    size_t len = 0;
    skipped[0] = 0;
    for (int i = 0; i < o->nvariants; i++) {
        int needs = cute_gemm_variant_arch(o->variants[i]);
        if (o->variants_given || !needs || needs == arch) {
            o->variants[kept++] = o->variants[i];
        } else if (len < n) {
            int w = snprintf(skipped + len, n - len, "%s%s", len ? ", " : "", cute_gemm_variant_name(o->variants[i]));
            len += w > 0 ? (size_t)w : 0;
        }
    }
    o->nvariants = kept;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return end != s && !*end && isfinite(*out);
}

static bool is_input_dtype(cute_dtype d)
{
    const cute_dtype *outs;
    int n;
    return gemm_ref_out_dtypes(d, &outs, &n);
}

static void defaults(gemm_opts *o, bool bench)
{
    memset(o, 0, sizeof *o);
    o->in = CUTE_F32, o->out = CUTE_VOID;
    o->m = o->n = o->k = 256, o->l = 1;
    snprintf(o->layout, sizeof o->layout, "ntn");
    o->alpha = bench ? 1.0 : 1.5;
    o->beta = bench ? 0.0 : -0.5;
    o->iters = 10;
    o->seed = (uint64_t)time(NULL);
    for (int i = 0; i < 3; i++) o->sizes[0][i] = 4096, o->sizes[1][i] = 8192;
    o->nsizes = 2;
    o->tokens = 512;
    for (int v = CUTE_GEMM_AUTO + 1; v < CUTE_GEMM_VARIANT_COUNT; v++) /* every kernel the library has */
        o->variants[o->nvariants++] = (cute_gemm_variant)v;
}

/* one option and its value: true if it was understood and the value is good; *known
 * false for an option this command does not have */
static bool option(gemm_opts *o, bool bench, const char *k, const char *v, bool *known)
{
    int64_t x = 0;
    *known = true;
    if (!strcmp(k, "--dtype") && bench && gemm_bs_kind_named(v)) /* no Blackwell to time it on */
        return snprintf(why, sizeof why, "bench does not time the block-scaled kinds (no Blackwell here); "
                        "`cutec run gemm --dtype %s --arch sm_100a --backend interp` checks them", v), false;
    if (!strcmp(k, "--dtype") && !bench && (o->bs = gemm_bs_kind_named(v))) return o->in = o->bs->d, true;
    if (!strcmp(k, "--dtype")) return o->bs = NULL, cli_gemm_dtype_parse(v, &o->in) && is_input_dtype(o->in);
    if (!strcmp(k, "--out-dtype")) return cli_gemm_dtype_parse(v, &o->out);
    if (!strcmp(k, "--layout")) return o->layout_given = true, cli_gemm_parse_layout(v, o->layout);
    if (!strcmp(k, "--alpha")) return o->alpha_given = true, parse_double(v, &o->alpha);
    if (!strcmp(k, "--beta")) return o->beta_given = true, parse_double(v, &o->beta);
    if (!strcmp(k, "--batch")) return parse_int(v, &o->l, 1, INT64_MAX);
    if (!strcmp(k, "--groups")) return parse_int(v, &x, 1, 4096) && (o->groups = (int)x);
    if (bench && !strcmp(k, "--tokens")) return parse_int(v, &o->tokens, 1, 1 << 20);
    if (bench && !strcmp(k, "--cluster")) return parse_sweep(v, true, o);
    if (bench && !strcmp(k, "--raster")) return parse_sweep(v, false, o);
    if (bench && !strcmp(k, "--schedule")) return parse_tiling_list(k, v, o->schedules, &o->nschedules);
    if (bench && !strcmp(k, "--store") && strchr(v, ',')) return parse_tiling_list(k, v, o->stores, &o->nstores);
    if (bench && !strcmp(k, "--tile") && strchr(v, ',')) return parse_tiling_list(k, v, o->tiles, &o->ntiles);
    if (bench && !strcmp(k, "--stages") && strchr(v, ',')) return parse_tiling_list(k, v, o->stage_list, &o->nstages);
    bool tiling = cli_gemm_tiling_option(k, v, &o->tiling, known, why, sizeof why);
    if (*known) return tiling;
    bool epi = cli_gemm_epilogue_option(k, v, &o->epi, &o->dual, known);
    if (*known) return epi;
    bool scale = cli_gemm_scale_option(k, v, o, known);
    if (*known) return scale;
    *known = true;
    if (!strcmp(k, "--iters")) return parse_int(v, &x, 1, 1000) && (o->iters = (int)x);
    if (!strcmp(k, "--seed")) return parse_int(v, &x, 0, INT64_MAX) && ((o->seed = (uint64_t)x), true);
    if (!strcmp(k, "--index")) {
        bool ok = !strcmp(v, "auto") || (parse_int(v, &x, 32, 64) && (x == 32 || x == 64));
        o->index_bits = strcmp(v, "auto") ? (int)x : 0;
        return ok;
    }
    if (!bench && !strcmp(k, "--m")) return parse_int(v, &o->m, 0, INT64_MAX);
    if (!bench && !strcmp(k, "--n")) return parse_int(v, &o->n, 0, INT64_MAX);
    if (!bench && !strcmp(k, "--k")) return parse_int(v, &o->k, 0, INT64_MAX);
    if (!bench && !strcmp(k, "--pad")) return parse_int(v, &o->pad, 0, INT64_MAX);
    if (!bench && !strcmp(k, "--variant")) return cute_gemm_variant_parse(v, &o->variant);
    if (!bench && !strcmp(k, "--backend")) return o->backend = v, true;
    if (!bench && !strcmp(k, "--arch")) return o->arch = v, cli_arch(v, why, sizeof why);
    if (bench && !strcmp(k, "--sizes")) return parse_sizes(v, o);
    if (bench && !strcmp(k, "--variants")) return parse_variants(v, o);
    if (bench && !strcmp(k, "--plot")) return o->plot = v, true;
    if (bench && !strcmp(k, "--fill")) return (o->coarse = !strcmp(v, "coarse")) || !strcmp(v, "gaussian");
    if (bench && !strcmp(k, "--ceiling")) {
        if ((o->ceiling_auto = !strcmp(v, "auto"))) return o->ceiling = 0, true;
        bool ok = parse_double(v, &o->ceiling) && o->ceiling > 0;
        if (!ok) snprintf(why, sizeof why, "auto or a rate in TFLOP/s (TOPS for s8) above 0");
        return ok;
    }
    *known = false;
    return false;
}

/* bench: --ceiling auto without being asked (for the dtypes `cutec bench mma` has a row of):
 * off while it costs more than half a second (scripts/device-meas38.sh measures it) */
enum { CEILING_BY_DEFAULT = 0 };

/* what the options mean together: C's dtype, s8's integer alpha and beta */
static int settle(gemm_opts *o, const char *cmd, bool bench)
{
    const cute_dtype *outs;
    int n;
    cute_dtype in = o->bs ? CUTE_E4M3 : o->in; /* the block-scaled kinds write C as fp8 does: f32, f16, bf16 */
    gemm_ref_out_dtypes(in, &outs, &n);
    if (o->out == CUTE_VOID) o->out = outs[0];
    /* fp8: K-major A and B unless told otherwise, the only layout cuBLASLt's fp8 takes */
    if ((o->in == CUTE_E4M3 || o->in == CUTE_E5M2) && !o->layout_given) o->layout[0] = 't', o->layout[1] = 'n';
    /* grouped: K-major A and B, row-major C (an MoE layer's activations and weights) */
    if (o->groups && !o->layout_given) snprintf(o->layout, sizeof o->layout, "tnt");
    if (o->bs && !o->layout_given) o->layout[0] = 't', o->layout[1] = 'n';
    if (o->bs && (o->l > 1 || o->groups || o->dual || o->scale || cute_gemm_epilogue_fused(&o->epi) ||
                  o->layout[0] != 't' || o->layout[1] != 'n')) {
        fprintf(stderr, "cutec %s gemm: %s takes K-major A and B (layout tn, C n or t) and neither --batch, "
                        "--groups, --epilogue nor --scale\n", cmd, o->bs->name);
        return CLI_USAGE;
    }
    if (o->groups && (o->l > 1 || o->dual || cute_gemm_epilogue_fused(&o->epi))) {
        fprintf(stderr, "cutec %s gemm: --groups goes with neither --batch nor --epilogue\n", cmd);
        return CLI_USAGE;
    }
    static const cute_gemm_tiling untiled;
    cute_gemm_tiling clustered = {.cluster_m = o->tiling.cluster_m, .cluster_n = o->tiling.cluster_n};
    if (o->bs && memcmp(&o->tiling, &clustered, sizeof clustered)) { /* it would be ignored */
        fprintf(stderr, "cutec %s gemm: %s's tiles are the Blackwell kernel's (128 x 128): of the tiling it takes "
                        "--cluster 1x1 or 2x1 (the CTA pair) only\n", cmd, o->bs->name);
        return CLI_USAGE;
    }
    if (o->groups && memcmp(&o->tiling, &untiled, sizeof untiled)) { /* it would be ignored */
        fprintf(stderr, "cutec %s gemm: --groups runs the grouped kernel with its own tiling: --tile, --stages, "
                        "--warps, --cluster, --raster, --store and --schedule are not taken with it\n", cmd);
        return CLI_USAGE;
    }
    if ((o->amax || o->out_scale > 0) && !o->scale) {
        fprintf(stderr, "cutec %s gemm: --amax and --out-scale go with --scale tensor|block\n", cmd);
        return CLI_USAGE;
    }
    if (o->ceiling_auto && (o->in == CUTE_F32 || o->bs)) {
        fprintf(stderr, "cutec %s gemm: --ceiling auto: f32 runs on no tensor core, so `cutec bench mma` has no ceiling "
                        "for it (it times bf16, f16, tf32, s8, e4m3 and f64; e5m2 takes e4m3's): give --ceiling TFLOPS\n", cmd);
        return CLI_USAGE;
    }
    if (bench && CEILING_BY_DEFAULT && !o->ceiling && o->in != CUTE_F32) o->ceiling_auto = true;
    if (o->turns && (o->epilogue_cost || o->groups || o->dual)) {
        fprintf(stderr, "cutec %s gemm: --turns times each variant in turns with cuBLAS's one GEMM: not with "
                        "--epilogue-cost, --groups or --epilogue swiglu\n", cmd);
        return CLI_USAGE;
    }
    if (o->epilogue_cost && (o->groups || o->dual)) {
        fprintf(stderr, "cutec %s gemm: --epilogue-cost times one GEMM with its epilogue against itself plain: not with "
                        "--groups or --epilogue swiglu\n", cmd);
        return CLI_USAGE;
    }
    if (o->epilogue_cost && !cute_gemm_epilogue_fused(&o->epi) && o->alpha == 1 && o->beta == 0 && !o->amax &&
        !(o->out_scale > 0)) {
        fprintf(stderr, "cutec %s gemm: --epilogue-cost: nothing to cost against the plain GEMM: give --epilogue, --beta, "
                        "--alpha, --amax or --out-scale\n", cmd);
        return CLI_USAGE;
    }
    if (!gemm_ref_pair_ok(in, o->out)) {
        fprintf(stderr, "cutec %s gemm: --out-dtype %s: %s inputs give C of %s\n", cmd, cli_gemm_dtype_name(o->out),
                o->bs ? o->bs->name : cli_gemm_dtype_name(in), cli_gemm_out_list(in));
        return CLI_USAGE;
    }
    if (!gemm_ref_integral(o->in)) return CLI_OK;
    if (!o->alpha_given && !bench) o->alpha = 2;
    if (!o->beta_given && !bench) o->beta = -1;
    if (o->alpha != floor(o->alpha) || o->beta != floor(o->beta) || fabs(o->alpha) > 65536 ||
        fabs(o->beta) > 65536) {
        fprintf(stderr, "cutec %s gemm: %s takes integer alpha and beta (|x| <= 65536), not %g and %g\n",
                cmd, cli_gemm_dtype_name(o->in), o->alpha, o->beta);
        return CLI_USAGE;
    }
    return CLI_OK;
}

static int parse(int argc, char **argv, gemm_opts *o, bool bench)
{
    defaults(o, bench);
    const char *cmd = argv[0];
    if (argc >= 3 && cli_is_help(argv[2]))
        return usage(), -1;
    for (int i = 2; i < argc; i += 2) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool amax = !strcmp(k, "--amax"), cost = bench && !strcmp(k, "--epilogue-cost"),
             turns = bench && !strcmp(k, "--turns");
        if (amax || cost || turns) { /* flags: no value */
            if (amax) o->amax = true;
            if (cost) o->epilogue_cost = true;
            if (turns) o->turns = true;
            i--;
            continue;
        }
        if (!v) { /* the last word: an option of ours without its value, or not one of ours */
            gemm_opts scratch = *o;
            bool known;
            option(&scratch, bench, k, "", &known), why[0] = 0;
            if (known) fprintf(stderr, "cutec %s gemm: %s needs a value\n", cmd, k);
            else fprintf(stderr, "cutec %s gemm: unknown option %s (see `cutec %s gemm help`)\n", cmd, k, cmd);
            return CLI_USAGE;
        }
        bool known, ok = option(o, bench, k, v, &known);
        if (!known) {
            fprintf(stderr, "cutec %s gemm: unknown option %s (see `cutec %s gemm help`)\n", cmd, k, cmd);
            return CLI_USAGE;
        }
        if (!ok) {
            fprintf(stderr, "cutec %s gemm: bad value for %s: %s%s%s\n", cmd, k, v,
                    why[0] ? ": " : "", why);
            return CLI_USAGE;
        }
        why[0] = 0;
    }
    if (!sizes_fit(o)) {
        fprintf(stderr, "cutec %s gemm: %s\n", cmd, why);
        return CLI_USAGE;
    }
    return settle(o, cmd, bench);
}

const char *gemm_rate_unit(cute_dtype in) { return gemm_ref_integral(in) ? "TOPS" : "TFLOP/s"; }

double gemm_flops(const gemm_problem *p)
{
    return (p->dual ? 4.0 : 2.0) * (double)p->m * (double)p->n * (double)p->k * (double)p->l; /* dual: 2 products */
}

/* --- run --------------------------------------------------------------------------------- */

cute_status gemm_call_lib(void *user, int set)
{
    gemm_lib_call *c = user;
    const gemm_problem *p = &c->p[set];
    cute_call_arg A = gemm_operand_arg(&p->a, p->l), B = gemm_operand_arg(&p->b, p->l),
                  C = gemm_operand_arg(&p->c, p->l);
    if (p->dual) {
        cute_call_arg B1 = gemm_operand_arg(&p->b1, p->l);
        return cutec_gemm_swiglu(c->lib, &A, &B, &B1, &C, c->alpha, c->beta, NULL, c->err, sizeof c->err);
    }
    cute_call_arg V = gemm_operand_arg(&p->v, 1), S[4];
    V.ndim = 1;
    cute_gemm_scales sc = gemm_problem_scales(p, S);
    return cutec_gemm_scaled(c->lib, c->variant, &A, &B, &C, c->alpha, c->beta, p->scale ? &sc : NULL, &p->epi,
                             p->epi.bias != CUTE_GEMM_BIAS_NONE ? &V : NULL, NULL, c->err, sizeof c->err);
}

static void print_kernel(cute_gemm_lib *lib)
{
    int ne = cute_gemm_lib_size(lib); /* the kernel that ran is the last one compiled */
    if (ne <= 0) return;
    const cute_gemm_config *k = cute_gemm_lib_entry(lib, ne - 1);
    printf("kernel: %s, %d-bit index arithmetic\n", cute_gemm_variant_name(k->variant), k->index_bound ? 32 : 64);
}

/* the run's result checked, and timed on a GPU */
static int verify_and_time(const gemm_opts *o, cute_runtime *rt, gemm_lib_call *c, const gemm_problem *p)
{
    cute_backend *b = cute_runtime_backend(rt);
    gemm_verdict v;
    double tol = gemm_ref_tolerance(o->in, o->out);
    if (!gemm_check_all(p, p->c.host, o->alpha, o->beta, tol, &v)) {
        fprintf(stderr, "cutec run gemm: out of memory for the reference\n");
        return CLI_FAIL;
    }
    gemm_verdict_print(&v, tol);
    int rc = v.bad == 0 && gemm_problem_amax_check(b, p, o->alpha, o->beta, tol) ? CLI_OK : CLI_FAIL;
    if (!cute_runtime_on_gpu(rt)) return rc;
    double ms = gpu_time_calls(cute_cuda_backend_driver(b), gemm_call_lib, c, 1, o->iters);
    if (ms < 0) {
        fprintf(stderr, "cutec run gemm: timing: %s\n", c->err[0] ? c->err : b->vt->error(b->self));
        return CLI_FAIL;
    }
    printf("time: %.4f ms (median of %d), %.2f %s\n", ms, o->iters, gemm_flops(p) / ms / 1e9, gemm_rate_unit(o->in));
    return rc;
}

static void print_problem(const gemm_opts *o, cute_runtime *rt)
{
    printf("gemm %s", cli_gemm_dtype_name(o->in));
    if (o->out != o->in) printf(" -> %s", cli_gemm_dtype_name(o->out));
    printf(" M=%lld N=%lld K=%lld", (long long)o->m, (long long)o->n, (long long)o->k);
    if (o->l > 1) printf(" L=%lld", (long long)o->l);
    printf(" layout %s (%s), alpha %g, beta %g\n", o->layout, cli_gemm_major_words(o->layout), o->alpha, o->beta);
    if (o->dual) printf("epilogue: swiglu, the dual GEMM: C = alpha silu(A B0^T) (A B1^T) + beta C\n");
    if (cute_gemm_epilogue_fused(&o->epi))
        printf("epilogue: %s%s\n", o->epi.bias ? o->epi.bias == CUTE_GEMM_BIAS_ROW ? "row bias, " : "column bias, " : "",
               cute_gemm_act_name(o->epi.act));
    if (o->scale)
        printf("scales: %s (f32 in device memory)%s%s\n", cute_gemm_scale_name(o->scale), o->out_scale > 0 ? ", output scale" : "",
               o->amax ? ", amax" : "");
    printf("variant %s, backend %s, seed %llu%s\n", cute_gemm_variant_name(o->variant),
           cute_runtime_backend_name(rt), (unsigned long long)o->seed, o->pad ? ", leading dimensions padded" : "");
}

static int run(const gemm_opts *o)
{
    char err[1024];
    cute_runtime *rt;
    if (cute_runtime_new(o->backend, &rt, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec run gemm: %s\n", err);
        return CLI_FAIL;
    }
    cute_backend *b = cute_runtime_backend(rt);
    if (o->arch && cute_runtime_on_gpu(rt)) {
        fprintf(stderr, "cutec run gemm: --arch %s is the interpreter's target (--backend interp); a GPU runs "
                        "its own arch\n", o->arch);
        cute_runtime_free(rt);
        return CLI_USAGE;
    }
    double macs = (o->dual ? 2.0 : 1.0) * (double)o->m * (double)o->n * (double)o->k * (double)o->l;
    if (!cli_interp_fits("run gemm", rt, macs, CLI_INTERP_GEMM)) {
        cute_runtime_free(rt);
        return CLI_USAGE;
    }
    cute_runtime_set_target_arch(rt, o->arch);
    print_problem(o, rt);
    gemm_problem p;
    int rc = CLI_FAIL;
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    if (lib) cute_gemm_lib_index_width(lib, o->index_bits), cute_gemm_lib_tiling(lib, &o->tiling);
    gemm_lib_call c = {lib, o->variant, &p, o->alpha, o->beta, ""};
    int64_t mnkl[4] = {o->m, o->n, o->k, o->l};
    if (!lib || !gemm_problem_make(b, &p, o->in, o->out, mnkl, o->layout, o->pad, o->seed) ||
        !gemm_problem_fuse(b, &p, &o->epi, o->seed) || (o->dual && !gemm_problem_dual(b, &p, o->seed)) ||
        !gemm_problem_scale(b, &p, o, o->seed)) {
        fprintf(stderr, "cutec run gemm: out of memory\n");
    } else if (gemm_call_lib(&c, 0) != CUTE_OK || b->vt->sync(b->self, NULL) != CUTE_OK) {
        fprintf(stderr, "cutec run gemm: %s\n", c.err[0] ? c.err : b->vt->error(b->self));
    } else if (b->vt->download(b->self, p.c.host, &p.c.buf, 0, gemm_operand_bytes(&p.c)) != CUTE_OK) {
        fprintf(stderr, "cutec run gemm: %s\n", b->vt->error(b->self));
    } else {
        print_kernel(lib);
        rc = verify_and_time(o, rt, &c, &p);
    }
    if (lib) gemm_problem_drop(b, &p);
    cute_gemm_lib_free(lib);
    cute_runtime_free(rt);
    return rc;
}

int cmd_run_gemm(int argc, char **argv)
{
    gemm_opts o;
    int rc = parse(argc, argv, &o, false);
    return rc < 0 ? CLI_OK : rc || cli_parse_only() ? rc : o.groups ? gemm_grouped(&o, false) : o.bs ? gemm_mx_run(&o)
                                                                                                        : run(&o);
}

int cmd_bench_gemm(int argc, char **argv)
{
    gemm_opts o;
    int rc = parse(argc, argv, &o, true);
    return rc < 0 ? CLI_OK : rc || cli_parse_only() ? rc : o.groups ? gemm_grouped(&o, true) : gemm_bench(&o);
}
