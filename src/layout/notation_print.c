/* CuTe's notation, printed: int-tuples, layouts, tilers and swizzled layouts as CuTe prints
 * them.  Below every op of the algebra, whose messages show their operands. */
#include <stdio.h>
#include <string.h>

#include "cutec/notation.h"
#include "layout_internal.h"
#include "sink.h"

static int plain_leaf(void *user, cute_int x, char *buf, size_t n)
{
    (void)user;
    return cute_int_str(x, buf, n);
}

typedef struct leaf_writer {
    cute_leaf_writer fn;
    void *user;
} leaf_writer;

static void put_leaf(sink *s, cute_int x, cute_basis basis, const leaf_writer *w)
{
    char tmp[1024]; /* a tiler's leaf is a whole layout */
    w->fn(w->user, x, tmp, sizeof tmp);
    put(s, tmp);
    for (int k = (basis & 3) - 1; k >= 0; k--) { /* innermost first, as CuTe prints */
        snprintf(tmp, sizeof tmp, "@%d", ((basis >> (2 + 4 * k)) & 15) - 1);
        put(s, tmp);
    }
}

static int put_tuple(sink *s, const cute_tuple *t, int pos, int *leaf, const leaf_writer *w)
{
    if (t->node[pos] < 0) {
        put_leaf(s, t->leaf[*leaf], t->basis[*leaf], w);
        (*leaf)++;
        return pos + 1;
    }
    int n = t->node[pos];
    put(s, "(");
    pos++;
    for (int i = 0; i < n; i++) {
        if (i) put(s, ",");
        pos = put_tuple(s, t, pos, leaf, w);
    }
    put(s, ")");
    return pos;
}

int cute_tuple_str_with(const cute_tuple *t, char *buf, size_t n, cute_leaf_writer fn, void *user)
{
    sink s = {buf, n, 0};
    leaf_writer w = {fn ? fn : plain_leaf, user};
    if (n) buf[0] = 0;
    if (cute_tuple_is_poison(t)) {
        put(&s, "<poison>");
        return (int)s.len;
    }
    int leaf = 0;
    put_tuple(&s, t, 0, &leaf, &w);
    return (int)s.len;
}

int cute_tuple_str(const cute_tuple *t, char *buf, size_t n)
{
    return cute_tuple_str_with(t, buf, n, NULL, NULL);
}

int cute_layout_str_with(const cute_layout *L, char *buf, size_t n, cute_leaf_writer fn, void *user)
{
    if (cute_layout_is_poison(L)) return cute_tuple_str(&L->shape, buf, n);
    int a = cute_tuple_str_with(&L->shape, buf, n, fn, user);
    size_t used = (size_t)a < n ? (size_t)a : n;
    if (used + 1 < n) buf[used] = ':';
    int b = cute_tuple_str_with(&L->stride, buf + (used + 1 < n ? used + 1 : n),
                                used + 1 < n ? n - used - 1 : 0, fn, user);
    return a + 1 + b;
}

int cute_layout_str(const cute_layout *L, char *buf, size_t n)
{
    return cute_layout_str_with(L, buf, n, NULL, NULL);
}

/* a tiler's tree leaf is the index of its layout (or '_') */
static int tiler_leaf(void *user, cute_int x, char *buf, size_t n)
{
    const cute_tiler *T = user;
    if (cute_is_underscore(x)) return snprintf(buf, n, "_");
    return cute_layout_str(&T->layouts[x.v], buf, n);
}

int cute_tiler_str(const cute_tiler *T, char *buf, size_t n)
{
    return cute_tuple_str_with(&T->tree, buf, n, tiler_leaf, (void *)T);
}

int cute_composed_str(const cute_composed *L, char *buf, size_t n)
{
    char off[64], lay[2048];
    cute_int_str(L->offset, off, sizeof off);
    cute_layout_str(&L->layout, lay, sizeof lay);
    return snprintf(buf, n, "Sw<%d,%d,%d> o %s o %s", L->sw.B, L->sw.M, L->sw.S, off, lay);
}

void cute_layout_print(FILE *f, const cute_layout *L)
{
    char buf[4096];
    cute_layout_str(L, buf, sizeof buf);
    fputs(buf, f);
}
