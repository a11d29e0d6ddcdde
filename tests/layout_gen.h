/* Random layouts, tilers and coordinates for the property tests, as the oracle makes them:
 * small shapes (1..8), nesting up to 2 levels, strides compact, scattered, with zeros,
 * sometimes negative.  Everything is produced as notation text and parsed, so a failing
 * case prints as the text that reproduces it.  Header-only (static functions). */
#ifndef CUTEC_TEST_LAYOUT_GEN_H
#define CUTEC_TEST_LAYOUT_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cutec/notation.h"
#include "tuple_build.h" /* tuple_subtree_end */

typedef struct gen {
    uint64_t s;
} gen;

/* CUTEC_SEED from the environment, else the time; printed so a failure reproduces */
static inline uint64_t gen_seed(const char *prog)
{
    const char *e = getenv("CUTEC_SEED");
    uint64_t s = e ? strtoull(e, NULL, 0) : (uint64_t)time(NULL);
    printf("%s: CUTEC_SEED=%llu\n", prog, (unsigned long long)s);
    return s ? s : 1;
}

static inline uint32_t gen_u32(gen *g)
{
    uint64_t x = g->s += 0x9e3779b97f4a7c15ull; /* splitmix64 */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((x ^ (x >> 31)) >> 16);
}

static inline int gen_int(gen *g, int lo, int hi) { return lo + (int)(gen_u32(g) % (uint32_t)(hi - lo + 1)); }
static inline bool gen_chance(gen *g, int percent) { return gen_int(g, 0, 99) < percent; }

/* options for one layout */
typedef struct gen_opts {
    int max_leaves;   /* at most this many leaves (>= 1) */
    bool pow2;        /* shapes and strides powers of two (or stride 0) */
    bool negative;    /* strides may be negative */
    int64_t max_size; /* regenerate until size <= max_size */
} gen_opts;

/* A skeleton: the tuple tree as text with '#' for each leaf, e.g. "((#,#),#)". */
static inline int gen_skeleton(gen *g, char *out, int max_leaves, int depth)
{
    if (max_leaves <= 1 || depth >= 2 || gen_chance(g, depth == 0 ? 25 : 60)) {
        strcat(out, "#");
        return 1;
    }
    int n = gen_int(g, 1, max_leaves < 4 ? max_leaves : 4), used = 0;
    strcat(out, "(");
    for (int i = 0; i < n && used < max_leaves; i++) {
        if (i) strcat(out, ",");
        int left = max_leaves - used - (n - i - 1);
        used += gen_skeleton(g, out, left < 1 ? 1 : left, depth + 1);
    }
    strcat(out, ")");
    return used;
}

/* fill a skeleton's '#' with values */
static inline void gen_fill(const char *skel, const int64_t *v, char *out, size_t n)
{
    size_t len = 0;
    int k = 0;
    out[0] = 0;
    for (const char *p = skel; *p && len + 24 < n; p++) {
        if (*p == '#')
            len += (size_t)snprintf(out + len, n - len, "%lld", (long long)v[k++]);
        else
            out[len++] = *p, out[len] = 0;
    }
}

static inline int64_t gen_shape_leaf(gen *g, bool pow2)
{
    if (pow2) return (int64_t)1 << gen_int(g, 0, 3);
    return gen_chance(g, 15) ? 1 : gen_int(g, 2, 8);
}

/* strides for shapes s[0..n): compact in a random order (maybe with gaps), scattered,
 * or with zeros */
static inline void gen_strides(gen *g, const int64_t *s, int n, const gen_opts *o, int64_t *d)
{
    int style = gen_int(g, 0, 3);
    if (style <= 1) { /* compact in a random order; style 1 adds gaps */
        int order[32];
        for (int i = 0; i < n; i++) order[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = gen_int(g, 0, i), t = order[i];
            order[i] = order[j], order[j] = t;
        }
        int64_t cur = 1;
        for (int k = 0; k < n; k++) {
            int i = order[k];
            if (style == 1 && gen_chance(g, 30)) cur *= o->pow2 ? 2 : gen_int(g, 2, 3);
            d[i] = cur;
            cur *= s[i];
        }
    } else {
        for (int i = 0; i < n; i++)
            d[i] = o->pow2 ? (int64_t)1 << gen_int(g, 0, 6) : gen_int(g, 1, 48);
    }
    for (int i = 0; i < n; i++) {
        if (gen_chance(g, style == 3 ? 30 : 8)) d[i] = 0;
        if (o->negative && gen_chance(g, 15)) d[i] = -d[i];
    }
}

/* A random layout as text (parse it with a static context). */
static inline void gen_layout_text(gen *g, const gen_opts *o, char *out, size_t n)
{
    for (int tries = 0;; tries++) {
        char skel[256] = "";
        int leaves = gen_skeleton(g, skel, o->max_leaves, 0);
        int64_t s[32], d[32], size = 1;
        for (int i = 0; i < leaves; i++) size *= s[i] = gen_shape_leaf(g, o->pow2);
        if (size > o->max_size && tries < 100) continue;
        gen_strides(g, s, leaves, o, d);
        char a[512], b[512];
        gen_fill(skel, s, a, sizeof a);
        gen_fill(skel, d, b, sizeof b);
        snprintf(out, n, "%s:%s", a, b);
        return;
    }
}

static inline cute_layout gen_layout(gen *g, const gen_opts *o, char *text, size_t n)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    gen_layout_text(g, o, text, n);
    return cute_layout_parse(&c, text);
}

/* A random tiler for A: one layout (a whole-layout tiler), or a tuple by mode with
 * layouts, ints and '_'. */
static inline void gen_tiler_text(gen *g, const cute_layout *A, const gen_opts *o, char *out,
                                  size_t n)
{
    gen_opts to = *o;
    to.max_leaves = 3;
    to.negative = false;
    int rank = cute_rank(A);
    if (gen_chance(g, 40) || cute_tuple_is_int(&A->shape)) {
        if (gen_chance(g, 25) && !cute_tuple_is_int(&A->shape)) { /* an int: n:1 */
            snprintf(out, n, "%lld", (long long)gen_shape_leaf(g, o->pow2));
            return;
        }
        gen_layout_text(g, &to, out, n);
        return;
    }
    int m = gen_int(g, 1, rank);
    size_t len = (size_t)snprintf(out, n, "(");
    for (int i = 0; i < m && len < n; i++) {
        char e[256];
        int kind = gen_int(g, 0, 9);
        if (kind < 2)
            strcpy(e, "_");
        else if (kind < 5)
            snprintf(e, sizeof e, "%lld", (long long)gen_shape_leaf(g, o->pow2));
        else {
            to.max_leaves = 2;
            gen_layout_text(g, &to, e, sizeof e);
        }
        len += (size_t)snprintf(out + len, n - len, "%s%s", i ? "," : "", e);
    }
    if (len < n) snprintf(out + len, n - len, ")");
}

/* A coordinate for L's shape with '_' at random leaves (or a whole mode), other leaves a
 * random in-range int. */
static inline void gen_coord_text(gen *g, const cute_tuple *shape, int pos, int *leaf,
                                  int under_pct, char *out, size_t n)
{
    if (shape->node[pos] < 0) {
        int64_t s = shape->leaf[*leaf].v;
        (*leaf)++;
        if (gen_chance(g, under_pct))
            snprintf(out + strlen(out), n - strlen(out), "_");
        else
            snprintf(out + strlen(out), n - strlen(out), "%lld",
                     (long long)gen_int(g, 0, (int)(s > 0 ? s - 1 : 0)));
        return;
    }
    int r = shape->node[pos];
    strncat(out, "(", n - strlen(out) - 1);
    int p = pos + 1;
    for (int i = 0; i < r; i++) {
        if (i) strncat(out, ",", n - strlen(out) - 1);
        int nl, end = 0;
        /* a whole sub-tuple as one '_' or one int, sometimes */
        if (shape->node[p] >= 0 && gen_chance(g, 20)) {
            end = tuple_subtree_end(shape, p, &nl);
            int64_t size = 1;
            for (int k = 0; k < nl; k++) size *= shape->leaf[*leaf + k].v;
            *leaf += nl;
            if (gen_chance(g, under_pct))
                strncat(out, "_", n - strlen(out) - 1);
            else
                snprintf(out + strlen(out), n - strlen(out), "%lld",
                         (long long)gen_int(g, 0, (int)(size - 1)));
            p = end;
            continue;
        }
        end = tuple_subtree_end(shape, p, NULL);
        gen_coord_text(g, shape, p, leaf, under_pct, out, n);
        p = end;
    }
    strncat(out, ")", n - strlen(out) - 1);
}

/* L(i) for every i < size(L) on a static layout; false (and no values) if too large */
static inline bool gen_values(const cute_layout *L, int64_t *v, int64_t max, int64_t *count)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    cute_int size = cute_size(&c, L);
    if (c.failed || !cute_is_static(size) || size.v > max) return false;
    for (int64_t i = 0; i < size.v; i++) {
        v[i] = cute_layout_eval(&c, L, cute_i(i)).v;
        if (c.failed) return false;
    }
    *count = size.v;
    return true;
}

#endif
