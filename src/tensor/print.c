/* cute_print_tensor: a tensor's values printed on the device (PRINTF ops) in CuTe DSL's
 * print_tensor layout: the type, then torch-style rows. */
#include <stdio.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "cutec/tensor.h"
#include "trace/ctx_internal.h"

enum { MAX_ARGS = 32 }; /* CUDA's printf takes at most 32 arguments after the format */

/* the format text and the operands of the PRINTF being built */
typedef struct pbuf {
    cute_ctx *c;
    char fmt[8192];
    size_t len;
    cute_val args[MAX_ARGS];
    int nargs;
} pbuf;

static void flush(pbuf *p)
{
    if (p->len == 0 && p->nargs == 0) return;
    cute_printf(p->c, p->fmt, p->nargs, p->args);
    p->len = 0;
    p->fmt[0] = 0;
    p->nargs = 0;
}

/* text, with '%' doubled; flushes first when it would not fit */
static void text(pbuf *p, const char *s)
{
    size_t need = strlen(s) * 2;
    if (p->len + need + 1 >= sizeof p->fmt) flush(p);
    for (; *s && p->len + 2 < sizeof p->fmt; s++) {
        if (*s == '%') p->fmt[p->len++] = '%';
        p->fmt[p->len++] = *s;
    }
    p->fmt[p->len] = 0;
}

/* a conversion and its operand */
static void value(pbuf *p, const char *conv, cute_val v)
{
    if (p->nargs == MAX_ARGS || p->len + strlen(conv) + 1 >= sizeof p->fmt) flush(p);
    size_t n = strlen(conv);
    memcpy(p->fmt + p->len, conv, n + 1);
    p->len += n;
    p->args[p->nargs++] = v;
}

static const char *conversion(cute_dtype d)
{
    if (cute_dtype_is_float(d) || cute_dtype_is_narrow_float(d)) return "%f"; /* as its value */
    switch (d) {
    case CUTE_I64: return "%lld";
    case CUTE_U64: return "%llu";
    case CUTE_U8: case CUTE_U16: case CUTE_U32: return "%u";
    default: return "%d";
    }
}

/* the coordinate subtree at node *k of the base coordinate, its leaves from *leaf on:
 * base + offset, leaf by leaf, in the base's structure ("((0,1),2)") */
static void coord_tree(pbuf *p, const cute_tuple *base, const cute_tuple *off, int *k, int *leaf)
{
    int n = base->node[(*k)++];
    if (n < 0) {
        cute_int x = base->leaf[*leaf];
        if (*leaf < off->nleaves) x = cute_add(&p->c->alg, x, off->leaf[*leaf]);
        value(p, "%lld", cute_int_value(p->c, x, CUTE_I64));
        (*leaf)++;
        return;
    }
    text(p, "(");
    for (int e = 0; e < n && !p->c->alg.failed; e++) {
        if (e) text(p, ",");
        coord_tree(p, base, off, k, leaf);
    }
    text(p, ")");
}

/* element i of a coordinate tensor: its coordinate */
static void coord_value(pbuf *p, const cute_tensor *t, int i)
{
    cute_tuple crd = cute_layout_eval_basis(&p->c->alg, &t->layout, cute_i(i));
    cute_tuple off = cute_tuple_flatten(&crd);
    int k = 0, leaf = 0;
    coord_tree(p, &t->coord, &off, &k, &leaf);
}

/* sizes of t's top modes, folded to (rows, cols, blocks) */
static bool folded_shape(cute_ctx *c, const cute_tensor *t, int64_t *rows, int64_t *cols,
                         int64_t *blocks, int *rank)
{
    int r = cute_rank(&t->layout);
    *rows = *cols = *blocks = 1;
    for (int m = 0; m < r; m++) {
        cute_layout mode = cute_get(&c->alg, &t->layout, m);
        cute_int s = cute_size(&c->alg, &mode);
        if (c->alg.failed) return false;
        if (!cute_is_static(s))
            return cute_ctx_fail(c, "cute_print_tensor needs a static shape (mode %d is dynamic)", m);
        int64_t *dst = m == 0 ? rows : m == 1 ? cols : blocks;
        *dst *= s.v;
    }
    if (*rows * *cols * *blocks > 4096)
        return cute_ctx_fail(c, "cute_print_tensor: %lld elements (at most 4096)",
                             (long long)(*rows * *cols * *blocks));
    *rank = r < 3 ? r : 3;
    return true;
}

void cute_print_tensor(cute_ctx *c, cute_tensor t)
{
    if (!ctx_ok(c)) return;
    int64_t rows, cols, blocks;
    int rank = 1;
    if (!folded_shape(c, &t, &rows, &cols, &blocks, &rank)) return;
    cute_ssa v = {0};
    if (t.kind != CUTE_TENSOR_COORD) {
        v = cute_tensor_load(c, t);
        if (c->alg.failed) return;
    }
    pbuf p;
    memset(&p, 0, sizeof p);
    p.c = c;
    char type[2048];
    cute_tensor_str(c, t, type, sizeof type);
    text(&p, type);
    text(&p, "\n");
    const char *conv = conversion((cute_dtype)t.dtype);
    for (int64_t k = 0; k < blocks; k++)
        for (int64_t i = 0; i < rows; i++) {
            bool first = i == 0, last = i == rows - 1, lastk = k == blocks - 1;
            if (rank <= 1) text(&p, "       [");
            else if (rank == 2) text(&p, first ? "       [[" : "        [");
            else text(&p, first ? (k == 0 ? "       [[[" : "        [[") : "         [");
            for (int64_t j = 0; j < cols && !c->alg.failed; j++) {
                int idx = (int)(i + rows * (j + cols * k)); /* colexicographic over the modes */
                text(&p, " ");
                if (t.kind == CUTE_TENSOR_COORD) coord_value(&p, &t, idx);
                else value(&p, conv, cute_ssa_get(c, v, idx));
                text(&p, ", ");
            }
            if (rank <= 1) text(&p, last ? "]\n" : "],\n");
            else if (rank == 2) text(&p, last ? "]]\n" : "],\n");
            else text(&p, !last ? "],\n" : lastk ? "]]]\n" : "]],\n\n");
        }
    flush(&p);
}
