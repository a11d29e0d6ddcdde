/* A libFuzzer target for the notation parser and the layout algebra.
 *
 * The input is up to five lines (split at '\n' or NUL):
 *   1  A   a layout or a shape            "(4,8):(1,4)", "(2,3)"
 *   2  B   a layout, shape or tiler       "(2,4)", "(3:4,_)"
 *   3  t   an int-tuple: profile, cotarget, coordinate, shape
 *   4  u   an int-tuple: a second coordinate or an order
 *   5  k   up to 8 integers steering the ops: indices, swizzle B M S, upcast factors
 * Every line is also parsed in every grammar.  Every op runs in a fresh context, on
 * whatever parsed (poison included: an op on poison must return poison with an error).
 *
 * Beyond "no crash, no UB, no leak" it checks what must hold for any input:
 *   - a poison result comes with an error message;
 *   - a non-poison layout prints, and its text parses back to the same text;
 *   - printing into a short buffer truncates, NUL-terminates and returns the full length.
 * A broken invariant aborts with the op's name and texts, so libFuzzer saves the input.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/layout.h"
#include "cutec/notation.h"
#include "cutec/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT 4096
#define NLINES 5
#define NKNOBS 8

/* ---------------------------------------------------------------------------------- */
/* A backend that proves nothing: dynamic results are fresh unknowns whose divisor follows
 * only from the operands' (products multiply, sums take the gcd).  Sound, so the algebra
 * must cope with CUTE_UNKNOWN everywhere; this is what drives its dynamic paths. */

static int64_t known_div(cute_int x) /* 0: no divisor known beyond 1 (or the value 0) */
{
    if (cute_is_static(x)) return x.v < 0 ? (x.v == INT64_MIN ? 0 : -x.v) : x.v;
    return x.div;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b, b = t;
    }
    return a;
}

static cute_int unk_make(void *self, int64_t div, const char *name)
{
    (void)name;
    int64_t *next = self;
    return (cute_int){(*next)++, div < 1 ? 1 : div};
}

static cute_int unk_compute(void *self, cute_int_op op, cute_int a, cute_int b)
{
    int64_t da = known_div(a), db = known_div(b), d = 1;
    if (op == CUTE_IMUL && (__builtin_mul_overflow(da, db, &d) || d <= 0)) d = 1;
    if (op == CUTE_IADD || op == CUTE_ISUB) d = gcd64(da, db);
    return unk_make(self, d, NULL);
}

static cute_truth unk_decide(void *self, cute_cmp cmp, cute_int a, cute_int b)
{
    (void)self, (void)cmp, (void)a, (void)b;
    return CUTE_UNKNOWN;
}

static int64_t unk_next;
static const cute_arith unknowns = {&unk_next, unk_make, unk_compute, unk_decide, NULL, NULL};

/* ---------------------------------------------------------------------------------- */
/* invariants */

static FILE *devnull(void)
{
    static FILE *f;
    if (!f) f = fopen("/dev/null", "w");
    return f;
}

static void broken(const char *op, const char *what, const char *text)
{
    fprintf(stderr, "fuzz_layout: %s: %s: %s\n", op, what, text);
    abort();
}

static void fresh(cute_alg *c)
{
    cute_alg_init(c, &unknowns);
}

/* false while an operand failed to parse: an op on poison returns poison, with or
 * without a message of its own */
static bool operands_ok = true;

/* a failed call must say why */
static void see_failure(const char *op, const cute_alg *c)
{
    if (!c->failed && operands_ok) broken(op, "poison result without an error", "");
    if (!c->failed) return;
    if (!memchr(c->error, 0, sizeof c->error) || !c->error[0])
        broken(op, "empty or unterminated error message", "");
}

/* printing into n bytes: the full length back, NUL-terminated, a prefix of the full text */
static void see_truncation(const char *op, const char *full, int len, char *small, size_t n,
                           int got)
{
    if (got != len) broken(op, "truncated print returned another length", full);
    if (n && (strlen(small) >= n || strncmp(small, full, n - 1) != 0))
        broken(op, "truncated print is not a terminated prefix", full);
}

static void see_int(const char *op, const cute_alg *c, cute_int x)
{
    char buf[64];
    if (c->failed) return see_failure(op, c);
    cute_int_str(x, buf, sizeof buf);
}

static void see_tuple(const char *op, const cute_alg *c, const cute_tuple *t)
{
    char buf[4096], small[8];
    if (cute_tuple_is_poison(t)) return see_failure(op, c);
    int len = cute_tuple_str(t, buf, sizeof buf);
    if (len < 0 || len >= (int)sizeof buf) broken(op, "tuple text too long", buf);
    for (size_t n = 0; n <= sizeof small; n += 3)
        see_truncation(op, buf, len, small, n, cute_tuple_str(t, small, n));
}

/* the layout's values at a few indices: all of them when the size is small and static */
static void eval_some(const cute_layout *L, const int64_t *knob)
{
    cute_alg c;
    fresh(&c);
    cute_int n = cute_size(&c, L);
    int64_t count = cute_is_static(n) && n.v > 0 && n.v <= 64 ? n.v : 2;
    for (int64_t i = 0; i < count; i++) {
        fresh(&c);
        see_int("eval", &c, cute_layout_eval(&c, L, cute_i(i)));
    }
    fresh(&c);
    see_int("eval(knob)", &c, cute_layout_eval(&c, L, cute_i(knob[0])));
    fresh(&c);
    cute_tuple crd = cute_layout_coord_of(&c, L, cute_i(knob[1]));
    see_tuple("coord_of", &c, &crd);
    fresh(&c);
    cute_int d = cute_int_dynamic(&c, knob[2] > 0 && knob[2] < 1024 ? knob[2] : 1, "i");
    see_int("eval(dynamic)", &c, cute_layout_eval(&c, L, d));
}

/* pictures of small static layouts */
static void render_some(const cute_layout *L)
{
    cute_alg c;
    fresh(&c);
    cute_int n = cute_size(&c, L);
    if (!cute_is_static(n) || n.v > 1024 || !cute_tuple_is_static(&L->stride)) return;
    int (*const draw[])(cute_alg *, FILE *, const cute_layout *) = {
        cute_render_text, cute_render_svg, cute_render_latex};
    for (size_t k = 0; k < sizeof draw / sizeof draw[0]; k++) {
        fresh(&c);
        if (draw[k](&c, devnull(), L) != 0) see_failure("render", &c);
    }
}

static void see_layout(const char *op, const cute_alg *c, const cute_layout *L, const int64_t *knob)
{
    char buf[4096], again[4096], small[8];
    if (cute_layout_is_poison(L)) return see_failure(op, c);
    int len = cute_layout_str(L, buf, sizeof buf);
    if (len < 0 || len >= (int)sizeof buf) broken(op, "layout text too long", buf);
    for (size_t n = 0; n <= sizeof small; n += 3)
        see_truncation(op, buf, len, small, n, cute_layout_str(L, small, n));
    cute_alg p;
    fresh(&p);
    cute_layout R = cute_layout_parse(&p, buf);
    if (p.failed) broken(op, "printed layout does not parse back", buf);
    cute_layout_str(&R, again, sizeof again);
    if (strcmp(buf, again) != 0) broken(op, "printed layout parses to another text", buf);
    cute_alg q;
    fresh(&q);
    see_int("size", &q, cute_size(&q, L));
    fresh(&q);
    see_int("cosize", &q, cute_cosize(&q, L));
    (void)cute_rank(L), (void)cute_depth(L), (void)cute_layout_has_basis(L);
    cute_layout_print(devnull(), L);
    eval_some(L, knob);
    render_some(L);
}

/* ---------------------------------------------------------------------------------- */
/* the ops */

typedef cute_layout (*unary_op)(cute_alg *, const cute_layout *);
typedef cute_layout (*binary_op)(cute_alg *, const cute_layout *, const cute_layout *);
typedef cute_layout (*tiler_op)(cute_alg *, const cute_layout *, const cute_tiler *);
typedef cute_layout (*profile_op)(cute_alg *, const cute_layout *, const cute_tuple *);

typedef struct {
    const char *name;
    unary_op f;
} unary_entry;
typedef struct {
    const char *name;
    binary_op f;
} binary_entry;
typedef struct {
    const char *name;
    tiler_op f;
} tiler_entry;
typedef struct {
    const char *name;
    profile_op f;
} profile_entry;

static const unary_entry unary_ops[] = {
    {"coalesce", cute_coalesce},
    {"filter_zeros", cute_filter_zeros},
    {"filter", cute_filter},
    {"complement_default", cute_complement_default},
    {"right_inverse", cute_right_inverse},
    {"left_inverse", cute_left_inverse},
    {"flatten", cute_flatten},
    {"make_layout_like", cute_make_layout_like},
};
static const binary_entry binary_ops[] = {
    {"compose", cute_compose},
    {"blocked_product", cute_blocked_product},
    {"raked_product", cute_raked_product},
    {"max_common_layout", cute_max_common_layout},
    {"append", cute_append},
    {"prepend", cute_prepend},
};
static const tiler_entry tiler_ops[] = {
    {"composition", cute_composition},       {"logical_divide", cute_logical_divide},
    {"zipped_divide", cute_zipped_divide},   {"tiled_divide", cute_tiled_divide},
    {"flat_divide", cute_flat_divide},       {"logical_product", cute_logical_product},
    {"zipped_product", cute_zipped_product}, {"tiled_product", cute_tiled_product},
    {"flat_product", cute_flat_product},
};
static const profile_entry profile_ops[] = {
    {"coalesce_profile", cute_coalesce_profile},
    {"filter_profile", cute_filter_profile},
    {"complement", cute_complement},
    {"unflatten", cute_unflatten},
};

typedef struct operands {
    cute_layout A, B;
    cute_tiler T;
    cute_tuple t, u;
    int64_t knob[NKNOBS];
} operands;

/* clamp a knob into a small int range, for counts and mode indices */
static int small(int64_t k, int lo, int hi)
{
    return k < lo ? lo : k > hi ? hi : (int)k;
}

static void run_table_ops(const operands *o)
{
    cute_alg c;
    cute_layout R;
    for (size_t k = 0; k < sizeof unary_ops / sizeof unary_ops[0]; k++) {
        fresh(&c), R = unary_ops[k].f(&c, &o->A);
        see_layout(unary_ops[k].name, &c, &R, o->knob);
    }
    for (size_t k = 0; k < sizeof binary_ops / sizeof binary_ops[0]; k++) {
        fresh(&c), R = binary_ops[k].f(&c, &o->A, &o->B);
        see_layout(binary_ops[k].name, &c, &R, o->knob);
    }
    for (size_t k = 0; k < sizeof tiler_ops / sizeof tiler_ops[0]; k++) {
        fresh(&c), R = tiler_ops[k].f(&c, &o->A, &o->T);
        see_layout(tiler_ops[k].name, &c, &R, o->knob);
    }
    for (size_t k = 0; k < sizeof profile_ops / sizeof profile_ops[0]; k++) {
        fresh(&c), R = profile_ops[k].f(&c, &o->A, &o->t);
        see_layout(profile_ops[k].name, &c, &R, o->knob);
    }
}

static void run_mode_ops(const operands *o)
{
    const int64_t *k = o->knob;
    int i = small(k[0], -2, 40), j = small(k[1], -2, 40);
    int modes[4] = {small(k[0], -2, 40), small(k[1], -2, 40), small(k[2], -2, 40),
                    small(k[3], -2, 40)};
    cute_alg c;
    cute_layout R;
    fresh(&c), R = cute_get(&c, &o->A, i), see_layout("get", &c, &R, k);
    fresh(&c), R = cute_select(&c, &o->A, small(k[4], 0, 4), modes);
    see_layout("select", &c, &R, k);
    fresh(&c), R = cute_take(&c, &o->A, i, j), see_layout("take", &c, &R, k);
    fresh(&c), R = cute_group_modes(&c, &o->A, i, j), see_layout("group_modes", &c, &R, k);
    fresh(&c), R = cute_replace(&c, &o->A, i, &o->B), see_layout("replace", &c, &R, k);
    fresh(&c), R = cute_append_to_rank(&c, &o->A, small(k[1], -2, 40));
    see_layout("append_to_rank", &c, &R, k);
    fresh(&c), R = cute_make_layout_modes(&c, 2, (cute_layout[]){o->A, o->B});
    see_layout("make_layout_modes", &c, &R, k);
}

static void run_tuple_ops(const operands *o)
{
    const int64_t *k = o->knob;
    cute_alg c;
    cute_layout R;
    cute_tuple off;
    cute_tuple tl;
    fresh(&c), R = cute_make_layout(&c, o->t), see_layout("make_layout", &c, &R, k);
    fresh(&c), R = cute_make_layout_row_major(&c, o->t);
    see_layout("make_layout_row_major", &c, &R, k);
    fresh(&c), R = cute_make_layout_stride(&c, o->t, o->u);
    see_layout("make_layout_stride", &c, &R, k);
    fresh(&c), R = cute_make_ordered_layout(&c, o->t, o->u);
    see_layout("make_ordered_layout", &c, &R, k);
    fresh(&c), R = cute_make_identity_layout(&c, o->t);
    see_layout("make_identity_layout", &c, &R, k);
    fresh(&c), R = cute_slice_and_offset(&c, &o->t, &o->A, &off), see_layout("slice", &c, &R, k);
    fresh(&c), R = cute_dice(&c, &o->t, &o->A), see_layout("dice", &c, &R, k);
    fresh(&c), see_int("eval_crd", &c, cute_layout_eval_crd(&c, &o->A, &o->t));
    fresh(&c), R = cute_tile_to_shape(&c, &o->A, &o->t, k[5] & 1 ? &o->u : NULL);
    see_layout("tile_to_shape", &c, &R, k);
    fresh(&c), R = cute_local_tile(&c, &o->A, &o->t, &o->u, k[5] & 2 ? &o->t : NULL, &off);
    see_layout("local_tile", &c, &R, k);
    fresh(&c), R = cute_local_partition(&c, &o->A, &o->B, cute_i(k[0]), &off);
    see_layout("local_partition", &c, &R, k);
    fresh(&c), R = cute_make_layout_tv(&c, &o->A, &o->B, &tl),
               see_layout("make_layout_tv", &c, &R, k);
    if (!cute_layout_is_poison(&R)) {
        see_tuple("make_layout_tv tiler", &c, &tl);
        int (*const draw[])(cute_alg *, FILE *, const cute_layout *, const cute_tuple *) = {
            cute_render_tv_text, cute_render_tv_svg, cute_render_tv_latex};
        for (size_t d = 0; d < sizeof draw / sizeof draw[0]; d++) {
            cute_int n = cute_size(&c, &R);
            if (!cute_is_static(n) || n.v > 1024) break;
            fresh(&c);
            if (draw[d](&c, devnull(), &R, &tl) != 0) see_failure("render_tv", &c);
        }
    }
}

static void run_int_tuple_ops(const operands *o)
{
    cute_alg c;
    cute_tuple r;
    fresh(&c), see_int("product", &c, cute_tuple_product(&c, &o->t));
    r = cute_tuple_flatten(&o->t);
    if (!cute_tuple_is_poison(&o->t)) see_tuple("tuple_flatten", &c, &r);
    fresh(&c), r = cute_idx2crd(&c, cute_i(o->knob[0]), &o->t), see_tuple("idx2crd", &c, &r);
    fresh(&c), see_int("crd2idx", &c, cute_crd2idx(&c, &o->u, &o->t, &o->A.stride));
    fresh(&c), r = cute_tuple_cat(&c, &o->t, &o->u), see_tuple("tuple_cat", &c, &r);
    fresh(&c), r = cute_tuple_shape_ceil_div(&c, &o->t, cute_i(o->knob[1]));
    see_tuple("shape_ceil_div", &c, &r);
    fresh(&c), r = cute_tuple_compact_col_major(&c, &o->t), see_tuple("compact_col_major", &c, &r);
    (void)cute_tuple_congruent(&o->t, &o->u), (void)cute_tuple_weakly_congruent(&o->t, &o->u);
    fresh(&c), (void)cute_tuple_equal(&c, &o->t, &o->u);
}

static void run_cast_ops(const operands *o)
{
    const int64_t *k = o->knob;
    cute_alg c;
    cute_layout R;
    fresh(&c), R = cute_upcast(&c, &o->A, k[2]), see_layout("upcast", &c, &R, k);
    fresh(&c), R = cute_downcast(&c, &o->A, k[3]), see_layout("downcast", &c, &R, k);
    fresh(&c), R = cute_recast(&c, &o->A, small(k[2], -64, 1024), small(k[3], -64, 1024));
    see_layout("recast", &c, &R, k);
    fresh(&c), see_int("max_common_vector", &c, cute_max_common_vector(&c, &o->A, &o->B));
}

static void see_composed(const char *op, const cute_alg *c, const cute_composed *L)
{
    char buf[4096];
    if (cute_layout_is_poison(&L->layout)) return see_failure(op, c);
    cute_composed_str(L, buf, sizeof buf);
    for (int64_t i = 0; i < 4; i++) {
        cute_alg e;
        fresh(&e);
        see_int(op, &e, cute_composed_eval(&e, L, cute_i(i)));
    }
}

static void run_swizzle_ops(const operands *o)
{
    const int64_t *k = o->knob;
    cute_swizzle sw = {small(k[5], -4, 70), small(k[6], -4, 70), small(k[7], -70, 70)};
    if (cute_swizzle_valid(sw))
        for (int i = 0; i < 4; i++) (void)cute_swizzle_apply(sw, k[i]);
    cute_alg c;
    fresh(&c);
    cute_composed S = cute_make_composed(&c, sw, cute_i(k[4]), &o->A), R;
    see_composed("make_composed", &c, &S);
    fresh(&c), R = cute_composed_composition(&c, &S, &o->T),
               see_composed("composed_composition", &c, &R);
    fresh(&c), R = cute_composed_logical_divide(&c, &S, &o->T);
    see_composed("composed_logical_divide", &c, &R);
    fresh(&c), R = cute_composed_zipped_divide(&c, &S, &o->T);
    see_composed("composed_zipped_divide", &c, &R);
    fresh(&c), R = cute_composed_logical_product(&c, &S, &o->T);
    see_composed("composed_logical_product", &c, &R);
    fresh(&c), R = cute_composed_slice(&c, &o->t, &S), see_composed("composed_slice", &c, &R);
    fresh(&c), R = cute_composed_tile_to_shape(&c, &S, &o->t, NULL);
    see_composed("composed_tile_to_shape", &c, &R);
}

/* ---------------------------------------------------------------------------------- */
/* parsing */

/* every grammar on one text, each in a fresh context */
static void parse_all_ways(const char *text, const int64_t *knob)
{
    cute_alg c;
    cute_layout L;
    cute_tuple t;
    cute_tiler T;
    fresh(&c), L = cute_layout_parse(&c, text), see_layout("layout_parse", &c, &L, knob);
    fresh(&c), L = cute_layout_or_shape_parse(&c, text);
    see_layout("layout_or_shape_parse", &c, &L, knob);
    fresh(&c), t = cute_tuple_parse(&c, text), see_tuple("tuple_parse", &c, &t);
    fresh(&c), T = cute_tiler_parse(&c, text);
    if (cute_tuple_is_poison(&T.tree))
        see_failure("tiler_parse", &c);
    else
        cute_tiler_str(&T, (char[256]){0}, 256);
    /* the text as a format with its '%' escaped: only "%%" conversions */
    char fmt[2 * MAX_INPUT + 1], *f = fmt;
    for (const char *p = text; *p; p++) {
        if (*p == '%') *f++ = '%';
        *f++ = *p;
    }
    *f = 0;
    fresh(&c), L = cute_layout_fmt(&c, fmt), see_layout("layout_fmt(text)", &c, &L, knob);
    fresh(&c), t = cute_tuple_fmt(&c, fmt), see_tuple("tuple_fmt(text)", &c, &t);
}

/* fixed formats whose holes take the knobs, static and dynamic */
static void format_knobs(const int64_t *k)
{
    cute_alg c;
    fresh(&c);
    cute_int d = cute_int_dynamic(&c, k[3] > 0 && k[3] < 1 << 20 ? k[3] : 1, "n");
    cute_layout L = cute_layout_fmt(&c, "((%d,%ld),%I):((%lld,%I),%d)", (int)k[0], (long)k[1], d,
                                    (long long)k[2], cute_i(k[4]), (int)k[5]);
    see_layout("layout_fmt", &c, &L, k);
}

/* split into NLINES NUL-terminated lines (missing ones are ""), knobs from the last */
static void split(char *text, char **line, int64_t *knob)
{
    for (int i = 0; i < NLINES; i++) {
        line[i] = text;
        text += strcspn(text, "\n");
        if (*text) *text++ = 0;
    }
    static const int64_t defaults[NKNOBS] = {1, 2, 2, 2, 0, 3, 4, 3};
    char *p = line[NLINES - 1], *end;
    for (int i = 0; i < NKNOBS; i++) {
        knob[i] = defaults[i];
        long long v = strtoll(p, &end, 10);
        if (end != p) knob[i] = v, p = end;
        p += strspn(p, " ,");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[MAX_INPUT + 1];
    if (size > MAX_INPUT) size = MAX_INPUT;
    for (size_t i = 0; i < size; i++) text[i] = data[i] ? (char)data[i] : '\n';
    text[size] = 0;
    char *line[NLINES];
    operands o;
    split(text, line, o.knob);
    operands_ok = true;
    for (int i = 0; i < NLINES - 1; i++) parse_all_ways(line[i], o.knob);
    format_knobs(o.knob);

    cute_alg c;
    fresh(&c), o.A = cute_layout_or_shape_parse(&c, line[0]);
    fresh(&c), o.B = cute_layout_or_shape_parse(&c, line[1]);
    fresh(&c), o.T = cute_tiler_parse(&c, line[1]);
    fresh(&c), o.t = cute_tuple_parse(&c, line[2]);
    fresh(&c), o.u = cute_tuple_parse(&c, line[3]);
    operands_ok = !cute_layout_is_poison(&o.A) && !cute_layout_is_poison(&o.B) &&
                  !cute_tuple_is_poison(&o.T.tree) && !cute_tuple_is_poison(&o.t) &&
                  !cute_tuple_is_poison(&o.u);
    run_table_ops(&o);
    run_mode_ops(&o);
    run_tuple_ops(&o);
    run_int_tuple_ops(&o);
    run_cast_ops(&o);
    run_swizzle_ops(&o);
    return 0;
}
