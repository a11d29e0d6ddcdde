/* fp8 scales in the CLI's GEMM problems (`cutec run|bench gemm --scale tensor|block
 * [--amax] [--out-scale S]`): the scale tensors, fresh positive values 2^u (u uniform in
 * [-2, 2]) in device memory, and the float64 reference with them (cutec_gemm_scaled's
 * definition, cutec/kernels.h): the sum of each K block's products times its scales, then
 * alpha, beta C and the fused epilogue; amax over that; the output scale last. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gemm_cli.h"
#include "kernels/ew_ref.h"

enum { BLOCK = 128 };

/* a (rows, cols) f32 operand of fresh scales (or all `fill` when fill > 0) */
static bool scales_make(cute_backend *b, gemm_operand *x, int64_t rows, int64_t cols, int major, double fill,
                        uint64_t *seed)
{
    x->rows = rows, x->cols = cols, x->major = major, x->dtype = CUTE_F32;
    x->ld = major == 0 ? rows : cols, x->lstride = x->elems = rows * cols;
    size_t bytes = gemm_operand_bytes(x);
    x->host = malloc(bytes);
    if (!x->host || b->vt->alloc(b->self, bytes, &x->buf) != CUTE_OK) return false;
    for (int64_t i = 0; i < x->elems; i++) ew_set(CUTE_F32, x->host, i, fill >= 0 ? fill : exp2(2 * ew_random(seed)));
    return b->vt->upload(b->self, &x->buf, 0, x->host, bytes) == CUTE_OK;
}

bool gemm_problem_scale(cute_backend *b, gemm_problem *p, const gemm_opts *o, uint64_t seed)
{
    p->scale = o->scale, p->out_scale = o->out_scale > 0, p->amax = o->amax;
    if (!p->scale) return true;
    uint64_t s = seed * 2654435761u + 13;
    int64_t kb = (p->k + BLOCK - 1) / BLOCK, nb = (p->n + BLOCK - 1) / BLOCK;
    bool block = p->scale == CUTE_GEMM_SCALE_BLOCK;
    /* A's block scales M-major, as DeepGEMM takes them (one K block's rows contiguous) */
    return scales_make(b, &p->sa, block ? p->m : 1, block ? kb : 1, 0, -1, &s) &&
           scales_make(b, &p->sb, block ? nb : 1, block ? kb : 1, 1, -1, &s) &&
           scales_make(b, &p->so, 1, 1, 0, p->out_scale ? o->out_scale : 1, &s) &&
           scales_make(b, &p->amax_v, 1, 1, 0, 0, &s);
}

static double at(const gemm_operand *x, int64_t i, int64_t j)
{
    return ew_get(CUTE_F32, x->host, x->major == 0 ? i + j * x->ld : i * x->ld + j);
}

double gemm_problem_scaled_dot(const gemm_problem *p, const double *ar, const double *br, int64_t m, int64_t n,
                               double *mag)
{
    double s = 0, t = 0;
    for (int64_t k0 = 0; k0 < p->k; k0 += BLOCK) {
        double f = p->scale == CUTE_GEMM_SCALE_BLOCK ? at(&p->sa, m, k0 / BLOCK) * at(&p->sb, n / BLOCK, k0 / BLOCK)
                   : p->scale ? at(&p->sa, 0, 0) * at(&p->sb, 0, 0) : 1;
        double bs = 0, bt = 0;
        for (int64_t k = k0; k < k0 + BLOCK && k < p->k; k++) bs += ar[k] * br[k], bt += fabs(ar[k] * br[k]);
        s += f * bs, t += fabs(f) * bt;
    }
    *mag = t;
    return s;
}

double gemm_problem_out(const gemm_problem *p, double x, double *mag)
{
    if (!p->out_scale) return x;
    double so = at(&p->so, 0, 0);
    *mag *= fabs(so);
    return x * so;
}

/* one value (a per-tensor scale, the output scale, amax): a rank-1 tensor of one element; a
 * block-scale tensor stays rank 2 when it is (1, 1) (M or N of one block, K of one) */
static cute_call_arg gemm_scale_arg(const gemm_operand *x, bool blocks)
{
    cute_call_arg a = gemm_operand_arg(x, 1);
    if (x->rows * x->cols == 1 && !blocks) a.ndim = 1;
    return a;
}

cute_gemm_scales gemm_problem_scales(const gemm_problem *p, cute_call_arg args[4])
{
    const gemm_operand *x[4] = {&p->sa, &p->sb, &p->so, &p->amax_v};
    for (int i = 0; i < 4; i++) args[i] = gemm_scale_arg(x[i], i < 2 && p->scale == CUTE_GEMM_SCALE_BLOCK);
    return (cute_gemm_scales){.kind = p->scale, .a = &args[0], .b = &args[1], .out = p->out_scale ? &args[2] : NULL,
                              .amax = p->amax ? &args[3] : NULL};
}

/* operand `which` (0 A, 1 B) as float64 rows of K elements */
static double *rows_of(const gemm_problem *p, int which)
{
    const gemm_operand *x = which ? &p->b : &p->a;
    double *d = malloc(sizeof(double) * (size_t)(x->rows * p->k + 1));
    for (int64_t i = 0; d && i < x->rows; i++)
        for (int64_t k = 0; k < p->k; k++)
            d[i * p->k + k] = ew_get(p->in, x->host, x->major == 0 ? i + k * x->ld : i * x->ld + k);
    return d;
}

/* the element's reference before the output scale (for amax), and its magnitude; ar, br:
 * row m of A and n of B as float64 */
static double pre_scale(const gemm_problem *p, const double *ar, const double *br, double alpha, double beta,
                        int64_t m, int64_t n, double *mag)
{
    double t = 0, s = gemm_problem_scaled_dot(p, ar, br, m, n, &t);
    double c = beta == 0 ? 0 : ew_get(p->out, p->c0, p->c.major == 0 ? m + n * p->c.ld : m * p->c.ld + n);
    *mag = fabs(alpha) * t + fabs(beta * c);
    return gemm_problem_fused_ref(p, m, n, alpha * s + beta * c, mag);
}

double gemm_problem_scaled_value(const gemm_problem *p, double alpha, double beta, int64_t m, int64_t n, double *mag)
{
    double *a = malloc(sizeof(double) * (size_t)(p->k + 1)), *b = malloc(sizeof(double) * (size_t)(p->k + 1));
    for (int64_t k = 0; a && b && k < p->k; k++) {
        a[k] = ew_get(p->in, p->a.host, p->a.major == 0 ? m + k * p->a.ld : m * p->a.ld + k);
        b[k] = ew_get(p->in, p->b.host, p->b.major == 0 ? n + k * p->b.ld : n * p->b.ld + k);
    }
    double x = a && b ? gemm_problem_out(p, pre_scale(p, a, b, alpha, beta, m, n, mag), mag) : NAN;
    free(a), free(b);
    return x;
}

bool gemm_problem_amax_check(cute_backend *b, const gemm_problem *p, double alpha, double beta, double tol)
{
    if (!p->amax) return true;
    float got;
    double *ar = rows_of(p, 0), *br = rows_of(p, 1);
    if (!ar || !br || b->vt->download(b->self, &got, &p->amax_v.buf, 0, sizeof got) != CUTE_OK)
        return free(ar), free(br), false;
    double want = 0, slack = 0, mag;
    for (int64_t m = 0; m < p->m; m++)
        for (int64_t n = 0; n < p->n; n++) {
            want = fmax(want, fabs(pre_scale(p, ar + m * p->k, br + n * p->k, alpha, beta, m, n, &mag)));
            slack = fmax(slack, tol * mag);
        }
    free(ar), free(br);
    bool ok = fabs((double)got - want) <= slack;
    printf("amax: %.9g, float64 %.9g (%s, allowed %.3g)\n", (double)got, want, ok ? "ok" : "WRONG", slack);
    return ok;
}

bool cli_gemm_scale_option(const char *k, const char *v, gemm_opts *o, bool *known)
{
    *known = true;
    if (!strcmp(k, "--scale")) {
        o->scale = !strcmp(v, "tensor") ? CUTE_GEMM_SCALE_TENSOR : !strcmp(v, "block") ? CUTE_GEMM_SCALE_BLOCK
                                                                                         : CUTE_GEMM_SCALE_NONE;
        return o->scale || !strcmp(v, "none");
    }
    if (!strcmp(k, "--out-scale")) {
        char *end;
        o->out_scale = strtod(v, &end);
        return end != v && !*end && isfinite(o->out_scale) && o->out_scale > 0;
    }
    *known = false;
    return false;
}
