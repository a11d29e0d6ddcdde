/* The buffers and the call of one row-reduction problem (rows_problem.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/rows_problem.h"
#include "kernels/ew_ref.h"

static const char *const names[RP_COUNT] = {"softmax", "log-softmax", "rmsnorm", "layernorm", "cross-entropy",
                                            "sum",     "mean",        "amax",    "amin",      "prod"};

void rp_init(rows_problem *p, rp_op op, bool backward, cute_dtype d, int64_t m, int64_t n, cute_backend *be,
             cutec_rows *lib)
{
    memset(p, 0, sizeof *p);
    p->op = op, p->backward = backward, p->d = d, p->m = m, p->n = n, p->be = be, p->lib = lib;
}

const char *rp_op_name(rp_op op) { return (unsigned)op < RP_COUNT ? names[op] : "?"; }

bool rp_op_parse(const char *s, rp_op *op)
{
    for (int i = 0; i < RP_COUNT; i++)
        if (!strcmp(s, names[i])) return *op = (rp_op)i, true;
    return false;
}

static uint64_t seed;

/* n elements of dtype d: standard gaussians (a table of 65536 Box-Muller draws, encoded
 * once, read at random: the 268M elements of the largest benchmark fill in a fraction of a
 * second), or NaN */
static void fill(void *host, cute_dtype d, int64_t n, bool poison)
{
    static unsigned char table[1 << 16][8];
    static cute_dtype encoded = CUTE_VOID;
    int esize = cute_dtype_bytes(d);
    if (encoded != d)
        for (int i = 0; i < 1 << 16; i++) {
            double u = (ew_random(&seed) + 2) / 4, v = (ew_random(&seed) + 2) / 4;
            ew_set(d, table[i], 0, sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(6.283185307179586 * v));
        }
    encoded = d;
    unsigned char nan[8];
    ew_set(d, nan, 0, NAN);
    for (int64_t i = 0; i < n; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        memcpy((unsigned char *)host + i * esize, poison ? nan : table[seed >> 48], (size_t)esize);
    }
}

/* rank 2 (m, n) or rank 1 (m): gaussian (poison NAN: NaN; fake: never touched) */
static bool buf_make(rows_problem *p, rp_buf *x, cute_dtype d, int rank, int64_t m, int64_t n, double poison, bool fake)
{
    static uintptr_t fake_at = (uintptr_t)1 << 32;
    int64_t cnt = rank == 2 ? m * n : m;
    x->bytes = (size_t)(cnt ? cnt : 1) * (size_t)cute_dtype_bytes(d);
    if (fake) {
        x->b = (cute_buffer){(void *)fake_at, x->bytes, 0, 0};
        fake_at += (x->bytes + 4095) / 4096 * 4096 + 4096;
    } else {
        x->host = malloc(x->bytes);
        if (!x->host || p->be->vt->alloc(p->be->self, x->bytes, &x->b) != CUTE_OK) return false;
        fill(x->host, d, cnt, isnan(poison));
        if (p->be->vt->upload(p->be->self, &x->b, 0, x->host, x->bytes) != CUTE_OK) return false;
    }
    int64_t shape[2] = {m, n}, stride[2] = {n, 1}, one[1] = {1};
    x->arg = rank == 2 ? cute_call_tensor(&x->b, 0, d, 2, shape, stride) : cute_call_tensor(&x->b, 0, d, 1, shape, one);
    return true;
}

/* labels in [0, n), i64 */
static bool labels_make(rows_problem *p, bool fake)
{
    if (!buf_make(p, &p->labels, CUTE_I64, 1, p->m, 1, NAN, fake)) return false;
    if (fake) return true;
    int64_t *l = p->labels.host;
    for (int64_t i = 0; i < p->m; i++) l[i] = (int64_t)((ew_random(&seed) + 2) / 4 * (double)p->n) % p->n;
    return p->be->vt->upload(p->be->self, &p->labels.b, 0, l, p->labels.bytes) == CUTE_OK;
}

static bool make_all(rows_problem *p, bool fake)
{
    int64_t m = p->m, n = p->n;
    bool norm = p->op == RP_RMSNORM || p->op == RP_LAYERNORM, ok = true;
    ok = ok && buf_make(p, &p->x, p->d, 2, m, n, 0, fake);
    if (rp_op_reduce(p->op)) return ok && buf_make(p, &p->out, CUTE_F32, 1, p->columns ? n : m, 1, NAN, fake);
    ok = ok && buf_make(p, &p->y, p->d, 2, m, n, NAN, fake);
    if (p->backward && p->op != RP_XENT) ok = ok && buf_make(p, &p->x2, p->d, 2, m, n, 0, fake);
    if (p->backward && (p->op == RP_SOFTMAX || p->op == RP_LOG_SOFTMAX)) ok = ok && buf_make(p, &p->fy, p->d, 2, m, n, NAN, fake);
    if (norm) ok = ok && buf_make(p, &p->w, p->d, 1, n, 1, 0, fake) && buf_make(p, &p->rstd, CUTE_F32, 1, m, 1, NAN, fake);
    if (p->op == RP_LAYERNORM)
        ok = ok && buf_make(p, &p->b, p->d, 1, n, 1, 0, fake) && buf_make(p, &p->mean, CUTE_F32, 1, m, 1, NAN, fake);
    if (norm && p->backward) ok = ok && buf_make(p, &p->dw, p->d, 1, n, 1, NAN, fake);
    if (p->op == RP_LAYERNORM && p->backward) ok = ok && buf_make(p, &p->db, p->d, 1, n, 1, NAN, fake);
    if (p->op == RP_XENT)
        ok = ok && labels_make(p, fake) && buf_make(p, &p->loss, CUTE_F32, 1, m, 1, NAN, fake) &&
             buf_make(p, &p->lse, CUTE_F32, 1, m, 1, NAN, fake);
    return ok;
}

static cute_status forward(rows_problem *p, const cute_call_arg *y)
{
    char *e = p->err;
    size_t n = sizeof p->err;
    cutec_norm_args a = {&p->x.arg, NULL, &p->w.arg, p->op == RP_LAYERNORM ? &p->b.arg : NULL, y, NULL,
                         p->op == RP_LAYERNORM ? &p->mean.arg : NULL, &p->rstd.arg, 1e-5};
    switch (p->op) {
    case RP_SOFTMAX: case RP_LOG_SOFTMAX: return cutec_softmax(p->lib, y, &p->x.arg, p->op == RP_LOG_SOFTMAX, NULL, e, n);
    case RP_RMSNORM: return cutec_rmsnorm(p->lib, &a, NULL, e, n);
    case RP_LAYERNORM: return cutec_layernorm(p->lib, &a, NULL, e, n);
    case RP_SUM: case RP_MEAN: case RP_AMAX: case RP_AMIN: case RP_PROD:
        return (p->columns ? cutec_reduce_cols : cutec_reduce_rows)(p->lib, &p->out.arg, &p->x.arg,
                                                                    (cutec_reduce_op)(p->op - RP_SUM), NULL, e, n);
    default: break;
    }
    cutec_xent_args x = {&p->x.arg, &p->labels.arg, &p->loss.arg, &p->lse.arg, p->backward ? &p->y.arg : NULL, -100, 0,
                         1.0 / (double)p->m};
    return cutec_cross_entropy(p->lib, &x, NULL, e, n);
}

cute_status rp_call(rows_problem *p)
{
    if (!p->backward || p->op == RP_XENT || rp_op_reduce(p->op)) return forward(p, &p->y.arg);
    char *e = p->err;
    size_t n = sizeof p->err;
    if (p->op == RP_SOFTMAX || p->op == RP_LOG_SOFTMAX)
        return cutec_softmax_backward(p->lib, &p->y.arg, &p->x2.arg, &p->fy.arg, p->op == RP_LOG_SOFTMAX, NULL, e, n);
    cutec_norm_grad_args g = {&p->x2.arg, &p->x.arg, &p->w.arg, p->op == RP_LAYERNORM ? &p->mean.arg : NULL,
                              &p->rstd.arg, &p->y.arg, &p->dw.arg, p->op == RP_LAYERNORM ? &p->db.arg : NULL};
    return p->op == RP_LAYERNORM ? cutec_layernorm_backward(p->lib, &g, NULL, e, n)
                                 : cutec_rmsnorm_backward(p->lib, &g, NULL, e, n);
}

/* a backward's inputs: softmax's y, the norms' statistics; what the forward wrote is
 * downloaded into the hosts */
static bool prepare_backward(rows_problem *p)
{
    if (!p->backward || p->op == RP_XENT || rp_op_reduce(p->op)) return true;
    bool soft = p->op == RP_SOFTMAX || p->op == RP_LOG_SOFTMAX;
    cute_status s = forward(p, soft ? &p->fy.arg : &p->y.arg);
    if (s == CUTE_OK) s = p->be->vt->sync(p->be->self, NULL);
    if (s != CUTE_OK) return false;
    rp_buf *read[3] = {&p->fy, &p->rstd, &p->mean};
    for (int i = 0; i < 3; i++)
        if (read[i]->host) p->be->vt->download(p->be->self, read[i]->host, &read[i]->b, 0, read[i]->bytes);
    return true;
}

bool rp_setup(rows_problem *p, bool fake)
{
    seed = (uint64_t)time(NULL) | 1;
    if (!make_all(p, fake)) return snprintf(p->err, sizeof p->err, "out of memory for %lldx%lld", (long long)p->m, (long long)p->n), false;
    return fake || prepare_backward(p);
}

void rp_free(rows_problem *p)
{
    rp_buf *all = &p->x;
    for (int i = 0; i < RP_BUFS; i++) {
        if (all[i].host) p->be->vt->free(p->be->self, &all[i].b);
        free(all[i].host);
        all[i].host = NULL;
    }
}

double rp_bytes(const rows_problem *p)
{
    double mat = (double)p->m * (double)p->n * cute_dtype_bytes(p->d), rows = 4.0 * (double)p->m;
    double vec = (double)p->n * cute_dtype_bytes(p->d);
    switch (p->op) {
    case RP_SOFTMAX: case RP_LOG_SOFTMAX: return (p->backward ? 3 : 2) * mat;
    case RP_RMSNORM: return p->backward ? 3 * mat + rows + 2 * vec : 2 * mat + rows + vec;
    case RP_LAYERNORM: return p->backward ? 3 * mat + 2 * rows + 3 * vec : 2 * mat + 2 * rows + 2 * vec;
    case RP_SUM: case RP_MEAN: case RP_AMAX: case RP_AMIN: case RP_PROD: return mat + (p->columns ? 4.0 * (double)p->n : rows);
    default: return (p->backward ? 2 : 1) * mat + 3 * rows + 8.0 * (double)p->m;
    }
}
