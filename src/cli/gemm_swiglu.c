/* `cutec run|bench gemm --epilogue swiglu`, the dual GEMM C = alpha silu(A B0^T) (A B1^T)
 * + beta C: its float64 reference, and the unfused reference it is benched against (two
 * cuBLAS GEMMs into scratch tensors, then cutec's elementwise silu(x) * y into C). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cublas.h"
#include "cli/gemm_cli.h"
#include "cli/gpu_timing.h"
#include "kernels/ew_ref.h"

double gemm_problem_swiglu_ref(const gemm_problem *p, double alpha, double beta, int64_t m, int64_t n, int64_t l,
                               double *mag)
{
    gemm_ref_problem r = gemm_problem_ref(p, 1.0, 0.0);
    double mg, mu, g = gemm_ref_value(&r, m, n, l, &mg);
    r.B.data = p->b1.host;
    double u = gemm_ref_value(&r, m, n, l, &mu);
    double c0 = beta == 0 ? 0 : ew_get(p->out, p->c0, gemm_ref_at_l(&r, 2, m, n, l));
    /* the rounding of g passes through silu (slope below 1.1) times u, u's times silu(g) */
    *mag = fabs(alpha) * (1.1 * mg * fabs(u) + fabs(g) * mu) + fabs(beta * c0);
    return alpha * g / (1 + exp(-g)) * u + beta * c0;
}

/* silu(x) * y, in f32 (the elementwise library's silu) */
static cute_ssa silu_mul(cute_ctx *c, const cute_ssa *in, int nin, void *user)
{
    (void)nin, (void)user;
    cute_ssa s = cute_ew_op_expr(c, in, 1, (void *)(intptr_t)CUTE_EW_SILU);
    return cute_ssa_binop(c, CUTE_OP_MUL, s, cute_ssa_cvt(c, in[1], CUTE_F32));
}

typedef struct unfused {
    cute_cublas *h;
    const gemm_problem *p;
    gemm_operand g[2];  /* A B0^T and A B1^T, laid out as C */
    const cute_fn *ew;
    char err[512];
} unfused;

static cute_status call_unfused(void *user, int set)
{
    unfused *u = user;
    const gemm_problem *p = &u->p[set];
    cute_call_arg A = gemm_operand_arg(&p->a, p->l), B0 = gemm_operand_arg(&p->b, p->l),
                  B1 = gemm_operand_arg(&p->b1, p->l), C = gemm_operand_arg(&p->c, p->l);
    cute_call_arg G = gemm_operand_arg(&u->g[0], p->l), U = gemm_operand_arg(&u->g[1], p->l);
    cute_status s = cute_ref_gemm(u->h, &A, &B0, &G, 1.0, 0.0, NULL);
    if (s == CUTE_OK) s = cute_ref_gemm(u->h, &A, &B1, &U, 1.0, 0.0, NULL);
    cute_call_arg in[2] = {G, U};
    if (s == CUTE_OK) s = cute_ew_call(u->ew, NULL, 2, in, &C, u->err, sizeof u->err);
    return s;
}

double gemm_bench_swiglu_ref(cute_runtime *rt, void *cublas, const gemm_problem *p, int sets, int iters, char *err,
                             size_t n)
{
    cute_backend *b = cute_runtime_backend(rt);
    unfused u = {cublas, p, {p->c, p->c}, NULL, ""};
    size_t bytes = gemm_operand_bytes(&p->c);
    bool ok = b->vt->alloc(b->self, bytes, &u.g[0].buf) == CUTE_OK;
    ok = b->vt->alloc(b->self, bytes, &u.g[1].buf) == CUTE_OK && ok;
    cute_call_arg G = gemm_operand_arg(&u.g[0], p->l), C = gemm_operand_arg(&p->c, p->l), in[2] = {G, G};
    if (ok) u.ew = cute_ew_compile(rt, "swiglu_silu_mul", silu_mul, NULL, 2, in, &C, NULL, err, n);
    double ms = ok && u.ew ? gpu_time_calls(cute_cuda_backend_driver(b), call_unfused, &u, sets, iters) : -1;
    if (ms < 0 && ok && u.ew) snprintf(err, n, "%s", u.err[0] ? u.err : cute_cublas_error(cublas));
    if (!ok) snprintf(err, n, "out of device memory for the unfused reference");
    cute_fn_free(u.ew);
    for (int i = 0; i < 2; i++)
        if (u.g[i].buf.ptr && u.g[i].buf.ptr != p->c.buf.ptr) b->vt->free(b->self, &u.g[i].buf);
    return ms;
}
