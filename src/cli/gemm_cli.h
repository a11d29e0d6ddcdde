/* The GEMM commands' shared parts (gemm_cmd.c, gemm_problem.c, gemm_check.c): a problem's
 * operands on the host and the device, its float64 check, and the dtype names the CLI
 * speaks (s8, s32 for cutec's i8, i32). */
#ifndef CUTEC_CLI_GEMM_CLI_H
#define CUTEC_CLI_GEMM_CLI_H

#include "cutec/kernels.h"
#include "cutec/cuda_driver.h"
#include "kernels/gemm/gemm_ref.h"

/* --dtype / --out-dtype names: cute_dtype_parse's, and s8, s32 for i8, i32 */
bool cli_gemm_dtype_parse(const char *name, cute_dtype *out);
const char *cli_gemm_dtype_name(cute_dtype d);
/* "f16, bf16 or f32": C's dtypes for inputs of dtype in */
const char *cli_gemm_out_list(cute_dtype in);

/* --tile BMxBNxBK, --warps WMxWN, --stages S into t: true if k is one of them (*known) and
 * v is good (else why says what is wrong) */
bool cli_gemm_tiling_option(const char *k, const char *v, cute_gemm_tiling *t, bool *known, char *why,
                            size_t wn);

/* one operand, (rows, cols[, L]) = A (M,K,L), B (N,K,L) or C (M,N,L), stored with a unit
 * stride in mode `major`, leading dimension ld, batch l at l * lstride */
typedef struct gemm_operand {
    int64_t rows, cols, ld, lstride, elems;
    int major;
    cute_dtype dtype;
    void *host;
    cute_buffer buf;
} gemm_operand;

typedef struct gemm_problem {
    cute_dtype in, out;
    int64_t m, n, k, l;
    gemm_operand a, b, c;
    void *c0; /* C's initial values (host) */
    cute_gemm_epilogue epi; /* a fused epilogue (gemm_problem_fuse; zero: none) */
    gemm_operand v;         /* its vector, (M or N, 1), where it has a bias */
    bool dual;              /* the dual GEMM with SwiGLU: C = alpha silu(A B^T) (A B1^T) + beta C */
    gemm_operand b1;        /* its B1, laid out as B */
    cute_gemm_scale_kind scale; /* fp8 scales (gemm_scales.c; NONE: none) */
    bool out_scale, amax;       /* ... with an output scale, an amax */
    gemm_operand sa, sb, so, amax_v; /* f32: A's and B's scales, the output scale, amax */
} gemm_problem;

/* the unit-stride modes BLAS's layout letters mean ("nt", "tnt"; see gemm_cmd.c); false:
 * not two or three of n, t */
bool cli_gemm_parse_layout(const char *s, char out[4]);
const char *cli_gemm_major_words(const char *layout);
/* fresh inputs (gemm_ref_fill) uploaded to b; false: out of host or device memory */
bool gemm_problem_make(cute_backend *b, gemm_problem *p, cute_dtype in, cute_dtype out,
                       const int64_t mnkl[4], const char *layout, int64_t pad, uint64_t seed);
void gemm_problem_drop(cute_backend *b, gemm_problem *p);
/* A's and B's values cut to 8 significant bits, bf16's (f16: the low 3 fraction bits cleared;
 * f32, tf32: the low 16; other dtypes unchanged), uploaded again: the same magnitudes with
 * fewer bits toggling in the multipliers.  False: the upload failed */
bool gemm_problem_coarsen(cute_backend *b, gemm_problem *p);
/* the problem with a fused epilogue e (NULL or zero: none), and fresh values of its vector;
 * false: out of memory */
bool gemm_problem_fuse(cute_backend *b, gemm_problem *p, const cute_gemm_epilogue *e, uint64_t seed);
/* the problem as the dual GEMM with SwiGLU, with a fresh B1 (false: out of memory) */
bool gemm_problem_dual(cute_backend *b, gemm_problem *p, uint64_t seed);
/* the dual GEMM's float64 reference of element (m, n, l), and its magnitude (gemm_swiglu.c) */
double gemm_problem_swiglu_ref(const gemm_problem *p, double alpha, double beta, int64_t m, int64_t n, int64_t l,
                               double *mag);
/* `cutec bench gemm --epilogue swiglu`'s reference: two cuBLAS GEMMs and cutec's
 * elementwise silu(x) * y, timed together on the problem's sets; < 0 on failure (gemm_swiglu.c) */
double gemm_bench_swiglu_ref(cute_runtime *rt, void *cublas, const gemm_problem *p, int sets, int iters, char *err,
                             size_t n);
/* the float64 reference of element (m, n) after the problem's epilogue; *mag grows by the
 * vector's |v| */
double gemm_problem_fused_ref(const gemm_problem *p, int64_t m, int64_t n, double ref, double *mag);
/* --epilogue NAME (bias, relu, gelu, gelu_tanh, silu, none; swiglu: *dual) and --bias
 * row|col into e */
bool cli_gemm_epilogue_option(const char *k, const char *v, cute_gemm_epilogue *e, bool *dual, bool *known);
size_t gemm_operand_bytes(const gemm_operand *x);
/* the operand as a call argument: rank 2, or rank 3 with the batch mode when L > 1 */
cute_call_arg gemm_operand_arg(const gemm_operand *x, int64_t l);
/* the problem as the float64 reference sees it (C0 from p->c0) */
gemm_ref_problem gemm_problem_ref(const gemm_problem *p, double alpha, double beta);

/* the result of a check: how many elements were off, and the worst one */
typedef struct gemm_verdict {
    int64_t checked, bad;
    double worst; /* largest |got - ref| / sum |terms| */
    int64_t wm, wn, wl;
    double got, want;
} gemm_verdict;

/* every element of `got` (C's layout) against float64, on every CPU core; false: out of
 * memory */
bool gemm_check_all(const gemm_problem *p, const void *got, double alpha, double beta,
                    double tol, gemm_verdict *v);
/* `samples` random elements (seeded) against float64 */
void gemm_check_sample(const gemm_problem *p, const void *got, double alpha, double beta,
                       double tol, uint64_t seed, int samples, gemm_verdict *v);
void gemm_verdict_print(const gemm_verdict *v, double tol);

/* --- the commands' options and calls (gemm_cmd.c, gemm_bench.c) ------------------------- */

#define GEMM_MAX_SIZES 16
#define GEMM_MAX_SWEEP 8

typedef struct gemm_opts {
    cute_dtype in, out; /* out CUTE_VOID: the input dtype's default */
    int64_t m, n, k, l, pad;
    char layout[4];
    cute_gemm_variant variant;
    const char *backend;
    const char *arch; /* run --arch: the interpreter's target (sm_100a picks the Blackwell kernel) */
    double alpha, beta;
    bool alpha_given, beta_given, layout_given;
    int iters;
    int index_bits; /* cute_gemm_lib_index_width: 0 (auto), 32 or 64 */
    cute_gemm_tiling tiling; /* cute_gemm_lib_tiling (zero: the defaults) */
    /* bench: --cluster, --raster, --schedule, --tile, --store and --stages may list values
     * (1x1,2x1 / 8,16 / coop,pingpong / 128x128x64,64x256x64 / tma,st / 3,4): each variant
     * runs with each combination, a row each (a sweep in one process, on the same inputs) */
    int clusters[GEMM_MAX_SWEEP][2], nclusters, rasters[GEMM_MAX_SWEEP], nrasters;
    cute_gemm_tiling schedules[GEMM_MAX_SWEEP], tiles[GEMM_MAX_SWEEP], stores[GEMM_MAX_SWEEP]; /* the field each sets */
    cute_gemm_tiling stage_list[GEMM_MAX_SWEEP];                                                /* --stages 3,4 */
    int nschedules, ntiles, nstores, nstages;
    uint64_t seed;
    int64_t sizes[GEMM_MAX_SIZES][3]; /* bench: M, N, K of each problem (--sizes S or MxNxK) */
    int nsizes;
    cute_gemm_variant variants[CUTE_GEMM_VARIANT_COUNT];
    int nvariants;
    bool variants_given; /* bench --variants; else every kernel the card runs */
    int groups;       /* --groups: the grouped GEMM of that many problems (0: none) */
    int64_t tokens;   /* bench --groups: the mean M of a group (an expert's tokens) */
    const char *plot; /* bench: the chart's SVG file (NULL: none) */
    double ceiling;   /* bench --ceiling TFLOPS: the "of ceiling" column and the chart's (0: none; the chart
                       * then draws cuBLAS's best rate) */
    bool ceiling_auto; /* bench --ceiling auto: measured first (mma_ceiling), then as above */
    bool epilogue_cost; /* bench --epilogue-cost: each variant with the epilogue and plain, timed in turns */
    bool turns;         /* bench --turns: each variant timed in turns with cuBLAS */
    bool coarse;        /* bench --fill coarse: A and B cut to bf16's precision (gemm_problem_coarsen) */
    cute_gemm_epilogue epi; /* --epilogue, --bias */
    bool dual;              /* --epilogue swiglu */
    cute_gemm_scale_kind scale; /* --scale tensor|block */
    double out_scale;           /* --out-scale (0: none) */
    bool amax;                  /* --amax */
    const struct gemm_bs_kind *bs; /* run --dtype nvfp4|mxfp4|mxfp8: a block-scaled kind (gemm_mx.c; in is
                                    * its codes' dtype), else NULL */
} gemm_opts;

/* --- fp8 scales (gemm_scales.c) --------------------------------------------------------- */
/* --scale, --out-scale into o (true if k is one of them, *known, and v is good) */
bool cli_gemm_scale_option(const char *k, const char *v, gemm_opts *o, bool *known);
/* the problem with o's scales: fresh scale tensors (2^u, u uniform in [-2, 2]), the output
 * scale, amax zeroed; false: out of memory */
bool gemm_problem_scale(cute_backend *b, gemm_problem *p, const gemm_opts *o, uint64_t seed);
/* the scales as the library takes them, their arguments in args */
cute_gemm_scales gemm_problem_scales(const gemm_problem *p, cute_call_arg args[4]);
/* sum_k A(m,k) B(n,k) with the scales of each K block (ar, br: row m of A and n of B as
 * float64), and in *mag the sum of the scaled terms' |.| */
double gemm_problem_scaled_dot(const gemm_problem *p, const double *ar, const double *br, int64_t m, int64_t n,
                               double *mag);
/* x times the output scale (where the problem has one), *mag likewise */
double gemm_problem_out(const gemm_problem *p, double x, double *mag);
/* element (m, n)'s whole reference with the scales, the epilogue and the output scale */
double gemm_problem_scaled_value(const gemm_problem *p, double alpha, double beta, int64_t m, int64_t n, double *mag);
/* amax downloaded and checked against the reference's max |x| (printed); false: wrong */
bool gemm_problem_amax_check(cute_backend *b, const gemm_problem *p, double alpha, double beta, double tol);

/* one library call on input set `set` (a gpu_timed_call) */
typedef struct gemm_lib_call {
    cute_gemm_lib *lib;
    cute_gemm_variant variant;
    const gemm_problem *p; /* sets of inputs: p[0 .. sets) */
    double alpha, beta;
    char err[2048];
} gemm_lib_call;
cute_status gemm_call_lib(void *user, int set);
double gemm_flops(const gemm_problem *p);
const char *gemm_rate_unit(cute_dtype in); /* TFLOP/s, TOPS for integers */
int gemm_bench(const gemm_opts *o);        /* gemm_bench.c: `cutec bench gemm` */
/* input sets to rotate so that timings are not of the L2: as many as fill 3 x L2, <= 8 */
int gemm_bench_sets(cute_cuda *cu, cute_dtype in, cute_dtype out, int64_t l, const int64_t mnk[3]);
/* without --variants, drop from o's list the variants that do not run on sm_<arch> (their
 * names, comma-separated, into skipped; "" when none) */
void cli_gemm_card_variants(gemm_opts *o, int arch, char *skipped, size_t n);
int gemm_grouped(const gemm_opts *o, bool bench); /* gemm_grouped.c: --groups */
/* The card's tensor-core ceiling for inputs named dtype (cli_gemm_dtype_name's; e5m2 takes
 * e4m3's rows, the same rate): `cutec bench mma`'s wgmma row of the dtype where the card runs
 * wgmma (sm_90), else its best mma.sync row, measured now (checked, then `timings` timings);
 * the rate (TFLOP/s, TOPS for s8) and the row in what; 0 when no row has the dtype, < 0 on
 * failure (why in err).  mma_bench.c. */
double mma_ceiling(cute_runtime *rt, const char *dtype, int timings, char *what, size_t wn, char *err, size_t en);
/* --ceiling auto or TFLOPS for `cutec bench gemm` (o->ceiling_auto, o->ceiling): the rate
 * measured or given, and a header line saying which into words ("" with neither); 0 with
 * neither, < 0 on failure (said on stderr).  gemm_bench.c. */
double gemm_bench_ceiling(cute_runtime *rt, const gemm_opts *o, char *words, size_t n);

/* --- the block-scaled kinds (gemm_mx.c): `--dtype nvfp4|mxfp4|mxfp8`, the Blackwell kernel's ------ */
typedef struct gemm_bs_kind {
    const char *name;  /* "nvfp4" */
    cute_dtype d, sf;  /* the codes' and the scales' dtypes */
    int vec;           /* one scale per vec of K */
    const char *inst;  /* the MMA's kind, for the printout */
    const char *what;  /* "e2m1, a ue4m3 scale per 16 of K" */
    cute_status (*entry)(cute_gemm_lib *, const cute_call_arg *, const cute_call_arg *, const cute_call_arg *,
                         const cute_call_arg *, const cute_call_arg *, double, double, void *, char *, size_t);
} gemm_bs_kind;
/* the kind called name, or NULL */
const gemm_bs_kind *gemm_bs_kind_named(const char *name);
#define GEMM_BS_KINDS "nvfp4, mxfp4, mxfp8"
/* false, with a message naming `cmd`, the kind and the target, when sm_<arch> has no tcgen05
 * (the block-scaled kinds are sm_100's) */
bool gemm_bs_arch_ok(const char *cmd, const gemm_bs_kind *k, int arch);
/* a configuration of kind k for the blackwell kernel (K-major A and B) */
void gemm_bs_config(const gemm_bs_kind *k, cute_gemm_config *cfg);
int gemm_mx_run(const gemm_opts *o); /* run --dtype nvfp4|mxfp4|mxfp8 */

#endif
