/* A GEMM problem of the CLI: operands of the input and output dtypes, batched, laid out as
 * BLAS's layout letters say, filled with fresh inputs on the host and the device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gemm_cli.h"
#include "kernels/ew_ref.h"

bool cli_gemm_dtype_parse(const char *name, cute_dtype *out)
{
    if (!strcmp(name, "s8")) return *out = CUTE_I8, true;
    if (!strcmp(name, "s32")) return *out = CUTE_I32, true;
    return cute_dtype_parse(name, out);
}

const char *cli_gemm_dtype_name(cute_dtype d)
{
    switch (d) {
    case CUTE_I8: return "s8";
    case CUTE_I32: return "s32";
    case CUTE_E4M3: return "e4m3";
    case CUTE_E5M2: return "e5m2";
    default: return cute_dtype_name(d);
    }
}

const char *cli_gemm_out_list(cute_dtype in)
{
    static char buf[64];
    gemm_ref_out_text(in, cli_gemm_dtype_name, buf, sizeof buf);
    return buf;
}

bool cli_gemm_parse_layout(const char *s, char out[4])
{
    size_t n = strlen(s);
    if (n < 2 || n > 3) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i] == 'N' ? 'n' : s[i] == 'T' ? 't' : s[i];
        if (c != 'n' && c != 't') return false;
        out[i] = c;
    }
    out[2] = n == 3 ? out[2] : 'n';
    out[3] = 0;
    return true;
}

/* the unit-stride modes the layout letters mean (see the top of gemm_cmd.c) */
static void majors(const char *layout, int major[3])
{
    major[0] = layout[0] == 'n' ? 0 : 1;
    major[1] = layout[1] == 'n' ? 1 : 0;
    major[2] = layout[2] == 't' ? 1 : 0;
}

bool cli_gemm_layout_majors(const char *s, int major[3])
{
    char letters[4];
    if (!cli_gemm_parse_layout(s, letters)) return false;
    majors(letters, major);
    return true;
}

const char *cli_gemm_major_words(const char *layout)
{
    static char buf[96];
    snprintf(buf, sizeof buf, "A %s-major, B %s-major, C %s", layout[0] == 'n' ? "M" : "K",
             layout[1] == 'n' ? "K" : "N", layout[2] == 't' ? "row-major" : "column-major");
    return buf;
}

size_t gemm_operand_bytes(const gemm_operand *x)
{
    return (size_t)(x->elems ? x->elems : 1) * (size_t)cute_dtype_bytes(x->dtype);
}

enum { FRESH_ELEMS = 1 << 22 };

static bool operand_make(cute_backend *b, gemm_operand *x, cute_dtype d, int64_t rows, int64_t cols,
                         int64_t l, int major, int64_t pad, uint64_t *seed)
{
    x->rows = rows, x->cols = cols, x->major = major, x->dtype = d;
    x->ld = (major == 0 ? rows : cols) + pad;
    x->lstride = x->ld * (major == 0 ? cols : rows);
    x->elems = x->lstride * l;
    size_t bytes = gemm_operand_bytes(x);
    x->host = malloc(bytes);
    if (!x->host || b->vt->alloc(b->self, bytes, &x->buf) != CUTE_OK) return false;
    /* past 4M elements from a pool of fresh ones: gemm_ref_fill's ~100 ns an element (150 for
     * fp8) took 19 s to make e4m3's three input sets at 4096^3, longer than a bench's turn */
    (x->elems > FRESH_ELEMS ? gemm_ref_fill_pooled : gemm_ref_fill)(d, x->host, x->elems, seed);
    return b->vt->upload(b->self, &x->buf, 0, x->host, bytes) == CUTE_OK;
}

static void operand_drop(cute_backend *b, gemm_operand *x)
{
    if (x->buf.ptr) b->vt->free(b->self, &x->buf);
    free(x->host);
    memset(x, 0, sizeof *x);
}

bool gemm_problem_make(cute_backend *b, gemm_problem *p, cute_dtype in, cute_dtype out,
                       const int64_t mnkl[4], const char *layout, int64_t pad, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    p->in = in, p->out = out, p->m = mnkl[0], p->n = mnkl[1], p->k = mnkl[2], p->l = mnkl[3];
    int maj[3];
    majors(layout, maj);
    uint64_t s = seed * 2654435761u + 1; /* xorshift: any nonzero state */
    bool ok = operand_make(b, &p->a, in, p->m, p->k, p->l, maj[0], pad, &s) &&
              operand_make(b, &p->b, in, p->n, p->k, p->l, maj[1], pad, &s) &&
              operand_make(b, &p->c, out, p->m, p->n, p->l, maj[2], pad, &s);
    if (ok) {
        p->c0 = malloc(gemm_operand_bytes(&p->c));
        if (p->c0) memcpy(p->c0, p->c.host, gemm_operand_bytes(&p->c));
    }
    return ok && p->c0;
}

static bool operand_coarsen(cute_backend *b, gemm_operand *x)
{
    uint32_t keep = x->dtype == CUTE_F16 ? 0xFFF8u : x->dtype == CUTE_F32 || x->dtype == CUTE_TF32 ? 0xFFFF0000u : 0;
    if (!keep) return true;
    for (int64_t i = 0; i < x->elems; i++)
        if (x->dtype == CUTE_F16) ((uint16_t *)x->host)[i] &= (uint16_t)keep;
        else ((uint32_t *)x->host)[i] &= keep;
    return b->vt->upload(b->self, &x->buf, 0, x->host, gemm_operand_bytes(x)) == CUTE_OK;
}

bool gemm_problem_coarsen(cute_backend *b, gemm_problem *p)
{
    return operand_coarsen(b, &p->a) && operand_coarsen(b, &p->b);
}

void gemm_problem_drop(cute_backend *b, gemm_problem *p)
{
    operand_drop(b, &p->a), operand_drop(b, &p->b), operand_drop(b, &p->c), operand_drop(b, &p->v);
    operand_drop(b, &p->b1), operand_drop(b, &p->sa), operand_drop(b, &p->sb), operand_drop(b, &p->so);
    operand_drop(b, &p->amax_v);
    free(p->c0);
    p->c0 = NULL;
}

cute_call_arg gemm_operand_arg(const gemm_operand *x, int64_t l)
{
    int64_t shape[3] = {x->rows, x->cols, l};
    int64_t stride[3] = {x->major == 0 ? 1 : x->ld, x->major == 0 ? x->ld : 1, x->lstride};
    return cute_call_tensor(&x->buf, 0, x->dtype, l > 1 ? 3 : 2, shape, stride);
}

gemm_ref_problem gemm_problem_ref(const gemm_problem *p, double alpha, double beta)
{
    return (gemm_ref_problem){{p->a.host, p->a.ld, p->a.major},
                              {p->b.host, p->b.ld, p->b.major},
                              {p->c0, p->c.ld, p->c.major},
                              p->in,
                              p->out,
                              {p->a.lstride, p->b.lstride, p->c.lstride},
                              p->m,
                              p->n,
                              p->k,
                              p->l,
                              alpha,
                              beta};
}

bool gemm_problem_fuse(cute_backend *b, gemm_problem *p, const cute_gemm_epilogue *e, uint64_t seed)
{
    operand_drop(b, &p->v);
    memset(&p->epi, 0, sizeof p->epi);
    if (!cute_gemm_epilogue_fused(e)) return true;
    p->epi = *e;
    uint64_t s = seed * 2654435761u + 7;
    if (e->bias == CUTE_GEMM_BIAS_NONE) return true;
    return operand_make(b, &p->v, p->out, e->bias == CUTE_GEMM_BIAS_ROW ? p->m : p->n, 1, 1, 0, 0, &s);
}

double gemm_problem_fused_ref(const gemm_problem *p, int64_t m, int64_t n, double ref, double *mag)
{
    if (!cute_gemm_epilogue_fused(&p->epi)) return ref;
    double v = p->epi.bias == CUTE_GEMM_BIAS_NONE ? 0 : ew_get(p->out, p->v.host, p->epi.bias == CUTE_GEMM_BIAS_ROW ? m : n);
    *mag += fabs(v);
    return gemm_ref_epilogue(&p->epi, ref, v);
}

bool gemm_problem_dual(cute_backend *b, gemm_problem *p, uint64_t seed)
{
    uint64_t s = seed * 2654435761u + 11;
    p->dual = true;
    return operand_make(b, &p->b1, p->in, p->n, p->k, p->l, p->b.major, p->b.ld - (p->b.major ? p->k : p->n), &s);
}

bool cli_gemm_epilogue_option(const char *k, const char *v, cute_gemm_epilogue *e, bool *dual, bool *known)
{
    *known = true;
    if (!strcmp(k, "--bias")) {
        e->bias = !strcmp(v, "row") ? CUTE_GEMM_BIAS_ROW : !strcmp(v, "col") ? CUTE_GEMM_BIAS_COL : CUTE_GEMM_BIAS_NONE;
        return e->bias != CUTE_GEMM_BIAS_NONE || !strcmp(v, "none");
    }
    if (!strcmp(k, "--epilogue")) {
        if (!strcmp(v, "swiglu")) return *dual = true;
        if (!strcmp(v, "bias")) return e->bias = e->bias ? e->bias : CUTE_GEMM_BIAS_COL, true;
        return cute_gemm_act_parse(v, &e->act);
    }
    *known = false;
    return false;
}
