/* CuTe's notation, read: a recursive-descent parser of int-tuples, layouts, tilers and
 * swizzled layouts, and printf-like formatting into it.  It builds what it reads with the
 * algebra's constructors, so it stands above them (the printer, which every op's message
 * uses, is notation_print.c). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cutec/notation.h"
#include "layout_internal.h"

/* ---------------------------------------------------------------------------------- */
/* parsing */

typedef struct parser {
    cute_alg *c;
    const char *text, *p;
    const char *what;        /* "layout", "int-tuple", "tiler" */
    const cute_int *holes;   /* values of "%I" holes (cute_layout_fmt), written as ?#k */
    int nholes;
} parser;

/* text quoted in a message: whole when short, else its start and end around "...", so the
 * reason that follows is never cut off by the message's length */
#define CLIP_N 72
static const char *clip(const char *text, char *buf)
{
    size_t n = text ? strlen(text) : 0;
    if (n < CLIP_N) return text ? text : "";
    snprintf(buf, CLIP_N, "%.32s...%s (%zu characters)", text, text + n - 16, n);
    return buf;
}

static void skip_ws(parser *ps)
{
    while (*ps->p && isspace((unsigned char)*ps->p)) ps->p++;
}

static bool parse_fail(parser *ps, const char *expected)
{
    char q[CLIP_N];
    return cute_alg_fail(ps->c, "parse %s \"%s\": at column %d: expected %s, found %s",
                         ps->what, clip(ps->text, q), (int)(ps->p - ps->text) + 1, expected,
                         *ps->p ? (char[]){'\'', *ps->p, '\'', 0} : "end of text");
}

static bool parse_digits(parser *ps, int64_t *out)
{
    if (!isdigit((unsigned char)*ps->p)) return parse_fail(ps, "a digit");
    int64_t v = 0;
    while (isdigit((unsigned char)*ps->p)) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *ps->p - '0', &v))
            return parse_fail(ps, "an integer that fits in 64 bits");
        ps->p++;
    }
    *out = v;
    return true;
}

/* '?' [ '{div=' N '}' ] | '?#' k (a hole) */
static bool parse_dynamic(parser *ps, cute_int *out)
{
    ps->p++; /* '?' */
    if (*ps->p == '#' && ps->holes) {
        ps->p++;
        int64_t k;
        if (!parse_digits(ps, &k)) return false;
        if (k >= ps->nholes) return parse_fail(ps, "a hole index");
        *out = ps->holes[k];
        return true;
    }
    int64_t div = 1;
    if (*ps->p == '{') {
        ps->p++;
        if (strncmp(ps->p, "div=", 4) != 0) return parse_fail(ps, "'div='");
        ps->p += 4;
        if (!parse_digits(ps, &div)) return false;
        if (div < 1) return parse_fail(ps, "a divisor >= 1");
        if (*ps->p != '}') return parse_fail(ps, "'}'");
        ps->p++;
    }
    *out = cute_int_dynamic(ps->c, div, NULL);
    return !ps->c->failed;
}

/* '@i@j...' after an int.  CuTe prints a nested basis innermost index first (E<1,0>, mode
 * 1's sub-mode 0, prints 1@0@1), so the path is the printed indices reversed. */
static bool parse_basis(parser *ps, cute_basis *basis)
{
    int len = 0;
    int64_t idx[3];
    while (*ps->p == '@') {
        ps->p++;
        int64_t m;
        if (!parse_digits(ps, &m)) return false;
        if (len == 3 || m > 14) return parse_fail(ps, "a basis path of at most 3 modes < 15");
        idx[len++] = m;
    }
    unsigned bits = 0;
    for (int k = 0; k < len; k++) bits |= (unsigned)(idx[len - 1 - k] + 1) << (2 + 4 * k);
    *basis = (cute_basis)(bits | (unsigned)len);
    return true;
}

/* one leaf: Int | ?... | _ , with an optional basis after an Int */
static bool parse_leaf(parser *ps, tuple_builder *b, bool allow_underscore)
{
    cute_int x;
    cute_basis basis = 0;
    if (*ps->p == '_') {
        if (!allow_underscore) return parse_fail(ps, "an integer ('_' is not allowed here)");
        ps->p++;
        x = cute_underscore();
    } else if (*ps->p == '?') {
        if (!parse_dynamic(ps, &x)) return false;
        if (*ps->p == '@' && !parse_basis(ps, &basis)) return false;
    } else {
        bool neg = *ps->p == '-';
        if (neg) ps->p++;
        int64_t v;
        if (!parse_digits(ps, &v)) return false;
        x = cute_i(neg ? -v : v);
        if (*ps->p == '@' && !parse_basis(ps, &basis)) return false;
    }
    tb_leaf(b, x, basis);
    return true;
}

static bool parse_tuple_rec(parser *ps, tuple_builder *b, bool allow_underscore, int depth)
{
    skip_ws(ps);
    if (depth > CUTE_MAX_NODES) return parse_fail(ps, "less nesting");
    if (*ps->p != '(') return parse_leaf(ps, b, allow_underscore);
    ps->p++;
    /* count elements first: the preorder header needs the arity */
    int header = b->t.nnodes;
    tb_open(b, 0);
    skip_ws(ps);
    int n = 0;
    if (*ps->p == ')') {
        ps->p++;
    } else {
        for (;;) {
            if (!parse_tuple_rec(ps, b, allow_underscore, depth + 1)) return false;
            n++;
            skip_ws(ps);
            if (*ps->p == ',') {
                ps->p++;
                continue;
            }
            if (*ps->p == ')') {
                ps->p++;
                break;
            }
            return parse_fail(ps, "',' or ')'");
        }
    }
    if (n > CUTE_MAX_RANK) b->overflow = true;
    if (header < CUTE_MAX_NODES) b->t.node[header] = (int8_t)n;
    return true;
}

static bool parse_tuple_into(parser *ps, cute_tuple *out, bool allow_underscore)
{
    tuple_builder b;
    tb_init(&b);
    if (!parse_tuple_rec(ps, &b, allow_underscore, 0)) return false;
    char q[CLIP_N];
    if (b.overflow)
        return cute_alg_fail(ps->c, "parse %s \"%s\": more than %d leaves or %d nodes",
                             ps->what, clip(ps->text, q), CUTE_MAX_LEAVES, CUTE_MAX_NODES);
    *out = b.t;
    return true;
}

static bool expect_end(parser *ps)
{
    skip_ws(ps);
    return *ps->p == 0 || parse_fail(ps, "end of text");
}

static bool check_no_basis(parser *ps, const cute_tuple *t, const char *part)
{
    char q[CLIP_N];
    for (int i = 0; i < t->nleaves; i++)
        if (t->basis[i])
            return cute_alg_fail(ps->c, "parse %s \"%s\": a basis ('@') is only allowed in "
                                        "strides, not in the %s", ps->what, clip(ps->text, q), part);
    return true;
}

static bool parse_layout_at(parser *ps, cute_layout *L)
{
    if (!parse_tuple_into(ps, &L->shape, false)) return false;
    if (!check_no_basis(ps, &L->shape, "shape")) return false;
    skip_ws(ps);
    if (*ps->p != ':') return parse_fail(ps, "':' between shape and stride");
    ps->p++;
    if (!parse_tuple_into(ps, &L->stride, false)) return false;
    if (!cute_tuple_congruent(&L->shape, &L->stride)) {
        char s[256], d[256], q[CLIP_N];
        cute_tuple_str(&L->shape, s, sizeof s);
        cute_tuple_str(&L->stride, d, sizeof d);
        return cute_alg_fail(ps->c, "parse layout \"%s\": shape %s and stride %s are not "
                                    "congruent (different tuple structure)", clip(ps->text, q), s, d);
    }
    return true;
}

static void parser_init(parser *ps, cute_alg *c, const char *text, const char *what)
{
    memset(ps, 0, sizeof *ps);
    ps->c = c;
    ps->text = ps->p = text ? text : "";
    ps->what = what;
}

static cute_tuple tuple_parse_holes(cute_alg *c, const char *text, const cute_int *holes, int n)
{
    if (c->failed) return cute_tuple_poison();
    parser ps;
    parser_init(&ps, c, text, "int-tuple");
    ps.holes = holes, ps.nholes = n;
    cute_tuple t;
    if (!parse_tuple_into(&ps, &t, true) || !expect_end(&ps)) return cute_tuple_poison();
    return t;
}

cute_tuple cute_tuple_parse(cute_alg *c, const char *text)
{
    return tuple_parse_holes(c, text, NULL, 0);
}

static cute_layout layout_parse_holes(cute_alg *c, const char *text, const cute_int *holes,
                                      int n)
{
    if (c->failed) return cute_layout_poison();
    parser ps;
    parser_init(&ps, c, text, "layout");
    ps.holes = holes, ps.nholes = n;
    cute_layout L;
    if (!parse_layout_at(&ps, &L) || !expect_end(&ps)) return cute_layout_poison();
    return L;
}

cute_layout cute_layout_parse(cute_alg *c, const char *text)
{
    return layout_parse_holes(c, text, NULL, 0);
}

/* ':' at parenthesis depth 0 */
static bool has_top_colon(const char *s)
{
    int depth = 0;
    for (; *s; s++) {
        if (*s == '(') depth++;
        if (*s == ')') depth--;
        if (*s == ':' && depth == 0) return true;
    }
    return false;
}

cute_layout cute_layout_or_shape_parse(cute_alg *c, const char *text)
{
    if (c->failed) return cute_layout_poison();
    if (text && has_top_colon(text)) return cute_layout_parse(c, text);
    cute_tuple shape = cute_tuple_parse(c, text);
    if (!c->failed && cute_tuple_has_underscore(&shape)) {
        char q[CLIP_N];
        cute_alg_fail(c, "parse shape \"%s\": '_' is not a size", clip(text, q));
        return cute_layout_poison();
    }
    return cute_make_layout(c, shape);
}

/* Tiler elements: split the text at depth-1 commas ourselves, since an element may be a
 * layout "(4,2):(1,4)" whose own parentheses the tuple grammar cannot tell apart. */
static bool parse_tiler_rec(parser *ps, cute_tiler *T, tuple_builder *b, const char *end)
{
    skip_ws(ps);
    const char *start = ps->p;
    char buf[1024], qt[CLIP_N];
    int len = (int)(end - start);
    while (len > 0 && isspace((unsigned char)start[len - 1])) len--;
    if (len <= 0) return parse_fail(ps, "a tiler element");
    if (len >= (int)sizeof buf) return parse_fail(ps, "a shorter tiler");
    memcpy(buf, start, len);
    buf[len] = 0;
    if (has_top_colon(buf)) { /* one layout */
        if (T->nlayouts == CUTE_MAX_TILER_LAYOUTS)
            return cute_alg_fail(ps->c, "parse tiler \"%s\": more than %d layouts", clip(ps->text, qt),
                                 CUTE_MAX_TILER_LAYOUTS);
        cute_layout L;
        if (!parse_layout_at(ps, &L)) return false;
        skip_ws(ps);
        if (ps->p != start + len) return parse_fail(ps, "',' or ')' after a layout");
        T->layouts[T->nlayouts] = L;
        T->from_int[T->nlayouts] = false;
        tb_leaf(b, cute_i(T->nlayouts++), 0);
        return true;
    }
    if (buf[0] == '_' && len == 1) {
        ps->p++;
        tb_leaf(b, cute_underscore(), 0);
        return true;
    }
    if (buf[0] != '(') { /* an int n: make_layout(n) */
        tuple_builder ib;
        tb_init(&ib);
        if (!parse_leaf(ps, &ib, false)) return false;
        skip_ws(ps);
        if (ps->p != start + len) return parse_fail(ps, "',' or ')' after an int");
        if (T->nlayouts == CUTE_MAX_TILER_LAYOUTS)
            return cute_alg_fail(ps->c, "parse tiler \"%s\": more than %d elements", clip(ps->text, qt),
                                 CUTE_MAX_TILER_LAYOUTS);
        if (ib.t.basis[0]) return parse_fail(ps, "a size (no '@' basis)");
        T->layouts[T->nlayouts] = tiler_int_layout(ib.t.leaf[0]);
        T->from_int[T->nlayouts] = true;
        tb_leaf(b, cute_i(T->nlayouts++), 0);
        return true;
    }
    /* a tuple of tilers: split at depth-1 commas */
    ps->p++;
    int header = b->t.nnodes, n = 0;
    tb_open(b, 0);
    const char *q = ps->p, *close = start + len - 1;
    if (*close != ')') return parse_fail(ps, "')' closing the tiler tuple");
    int depth = 0;
    const char *elem = q;
    for (; q <= close; q++) {
        if (q == close || (*q == ',' && depth == 0)) {
            ps->p = elem;
            skip_ws(ps);
            if (q == close && n == 0 && ps->p == close) break; /* "()" */
            if (!parse_tiler_rec(ps, T, b, q)) return false;
            n++;
            elem = q + 1;
            continue;
        }
        if (*q == '(') depth++;
        if (*q == ')') depth--;
        if (depth < 0) return parse_fail(ps, "balanced parentheses");
    }
    ps->p = start + len;
    if (n > CUTE_MAX_RANK) b->overflow = true;
    if (header < CUTE_MAX_NODES) b->t.node[header] = (int8_t)n;
    return true;
}

cute_tiler cute_tiler_parse(cute_alg *c, const char *text)
{
    cute_tiler T = tiler_poison();
    if (c->failed) return T;
    parser ps;
    parser_init(&ps, c, text, "tiler");
    tuple_builder b;
    tb_init(&b);
    int depth = 0;
    for (const char *q = ps.text; *q; q++) {
        depth += (*q == '(') - (*q == ')');
        if (depth < 0) break;
    }
    if (depth != 0) {
        parse_fail(&ps, "balanced parentheses");
        return T;
    }
    if (!parse_tiler_rec(&ps, &T, &b, ps.text + strlen(ps.text)) || !expect_end(&ps))
        return T;
    T.tree = tb_finish(&b, c, "parse tiler");
    return T;
}

static bool parse_small_int(parser *ps, int *out)
{
    skip_ws(ps);
    bool neg = *ps->p == '-';
    if (neg) ps->p++;
    int64_t v;
    if (!parse_digits(ps, &v)) return false;
    if (v > 64) return parse_fail(ps, "a swizzle parameter of at most 64");
    *out = (int)(neg ? -v : v);
    skip_ws(ps);
    return true;
}

static bool expect_char(parser *ps, char ch, const char *what)
{
    skip_ws(ps);
    if (*ps->p != ch) return parse_fail(ps, what);
    ps->p++;
    return true;
}

cute_composed cute_composed_parse(cute_alg *c, const char *text)
{
    cute_composed R = {{0, 0, 0}, {0, 0}, cute_layout_poison()};
    if (c->failed) return R;
    parser ps;
    parser_init(&ps, c, text, "swizzled layout");
    cute_swizzle sw;
    skip_ws(&ps);
    if (strncmp(ps.p, "Sw<", 3) != 0) {
        parse_fail(&ps, "'Sw<B,M,S> o ...'");
        return R;
    }
    ps.p += 3;
    if (!parse_small_int(&ps, &sw.B) || !expect_char(&ps, ',', "','") ||
        !parse_small_int(&ps, &sw.M) || !expect_char(&ps, ',', "','") ||
        !parse_small_int(&ps, &sw.S) || !expect_char(&ps, '>', "'>'") ||
        !expect_char(&ps, 'o', "'o' (composition)"))
        return R;
    skip_ws(&ps);
    /* an optional offset: an int followed by 'o' */
    cute_int offset = cute_i(0);
    const char *save = ps.p;
    tuple_builder b;
    tb_init(&b);
    if ((*ps.p == '-' || isdigit((unsigned char)*ps.p) || *ps.p == '?') && parse_leaf(&ps, &b, false)) {
        skip_ws(&ps);
        if (*ps.p == 'o') {
            ps.p++;
            offset = b.t.leaf[0];
        } else {
            ps.p = save;
        }
    } else {
        if (c->failed) return R;
        ps.p = save;
    }
    cute_layout L;
    if (!parse_layout_at(&ps, &L) || !expect_end(&ps)) return R;
    return cute_make_composed(c, sw, offset, &L);
}

/* ---------------------------------------------------------------------------------- */
/* formatting with holes */

/* Render fmt with its arguments into out; %I holes become ?#k with their values kept. */
static bool render_fmt(cute_alg *c, const char *fmt, va_list ap, char *out, size_t n,
                       cute_int *holes, int *nholes)
{
    size_t len = 0;
    char q[CLIP_N];
    *nholes = 0;
    for (const char *f = fmt; *f; f++) {
        char piece[64];
        if (*f != '%') {
            piece[0] = *f, piece[1] = 0;
        } else if (f[1] == '%') {
            strcpy(piece, "%"), f++;
        } else if (f[1] == 'd') {
            snprintf(piece, sizeof piece, "%d", va_arg(ap, int)), f++;
        } else if (f[1] == 'l' && f[2] == 'd') {
            snprintf(piece, sizeof piece, "%ld", va_arg(ap, long)), f += 2;
        } else if (f[1] == 'l' && f[2] == 'l' && f[3] == 'd') {
            snprintf(piece, sizeof piece, "%lld", va_arg(ap, long long)), f += 3;
        } else if (f[1] == 'I') {
            cute_int x = va_arg(ap, cute_int);
            f++;
            if (cute_is_dynamic(x)) {
                if (*nholes == 16) return cute_alg_fail(c, "format \"%s\": more than 16 holes", clip(fmt, q));
                holes[*nholes] = x;
                snprintf(piece, sizeof piece, "?#%d", (*nholes)++);
            } else {
                cute_int_str(x, piece, sizeof piece);
            }
        } else {
            return cute_alg_fail(c, "format \"%s\": unknown conversion '%%%c' (use %%d, %%ld, "
                                    "%%lld or %%I)", clip(fmt, q), f[1] ? f[1] : ' ');
        }
        size_t pl = strlen(piece);
        if (len + pl + 1 > n) return cute_alg_fail(c, "format \"%s\": text too long", clip(fmt, q));
        memcpy(out + len, piece, pl + 1);
        len += pl;
    }
    out[len] = 0;
    return true;
}

/* the format rendered, then read as a layout (into L) or else a tuple (into t) */
static void parse_fmt(cute_alg *c, const char *fmt, va_list ap, cute_layout *L, cute_tuple *t)
{
    char text[2048];
    cute_int holes[16];
    int nholes;
    if (c->failed || !render_fmt(c, fmt, ap, text, sizeof text, holes, &nholes)) return;
    if (L)
        *L = layout_parse_holes(c, text, holes, nholes);
    else
        *t = tuple_parse_holes(c, text, holes, nholes);
}

cute_layout cute_layout_fmt(cute_alg *c, const char *fmt, ...)
{
    cute_layout L = cute_layout_poison();
    va_list ap;
    va_start(ap, fmt);
    parse_fmt(c, fmt, ap, &L, NULL);
    va_end(ap);
    return L;
}

cute_tuple cute_tuple_fmt(cute_alg *c, const char *fmt, ...)
{
    cute_tuple t = cute_tuple_poison();
    va_list ap;
    va_start(ap, fmt);
    parse_fmt(c, fmt, ap, NULL, &t);
    va_end(ap);
    return t;
}
