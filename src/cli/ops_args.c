/* ops_args.c — reading op arguments and writing op results. */
#include "cli.h"
#include "layout_ops.h"

#include <errno.h>
#include <stdlib.h>

#include "cutec/notation.h"

/* eval prints every value; beyond this many it is surely a typo, not a request */
#define MAX_VALUES (1 << 24)

void op_out_init(op_out *o)
{
    *o = (op_out){0};
}
void op_out_free(op_out *o)
{
    sb_free(&o->text);
}

cute_layout arg_layout(cute_alg *c, const char *text)
{
    return cute_layout_or_shape_parse(c, text);
}

cute_tuple arg_tuple(cute_alg *c, const char *text)
{
    return cute_tuple_parse(c, text);
}
cute_tiler arg_tiler(cute_alg *c, const char *text)
{
    return cute_tiler_parse(c, text);
}

int64_t arg_int(cute_alg *c, const char *text, const char *what)
{
    if (c->failed) return 0;
    int64_t v = 0;
    char why[160];
    if (!cli_int(text, INT64_MIN, INT64_MAX, &v, why, sizeof why))
        cute_alg_fail(c, "%s \"%s\": expected a decimal integer (%s)", what, text, why);
    return v;
}

bool out_layout(cute_alg *c, op_out *o, const cute_layout *L)
{
    if (c->failed) return false;
    char buf[LAYOUT_TEXT_MAX];
    cute_layout_str(L, buf, sizeof buf);
    sb_put(&o->text, buf);
    return true;
}

bool out_tuple(cute_alg *c, op_out *o, const cute_tuple *t)
{
    if (c->failed) return false;
    char buf[LAYOUT_TEXT_MAX];
    cute_tuple_str(t, buf, sizeof buf);
    sb_put(&o->text, buf);
    return true;
}

bool out_int(cute_alg *c, op_out *o, cute_int x)
{
    if (c->failed) return false;
    char buf[64];
    cute_int_str(x, buf, sizeof buf);
    sb_put(&o->text, buf);
    return true;
}

/* size(L) as a count we can loop to */
static int64_t value_count(cute_alg *c, const cute_layout *L)
{
    cute_int n = cute_size(c, L);
    if (c->failed) return 0;
    if (!cute_is_static(n)) return cute_alg_fail(c, "eval: the size is not static"), 0;
    if (n.v > MAX_VALUES)
        return cute_alg_fail(c, "eval: %lld values is too many to print", (long long)n.v), 0;
    return n.v;
}

bool out_values(cute_alg *c, op_out *o, const cute_layout *L)
{
    int64_t n = value_count(c, L);
    bool basis = !c->failed && cute_layout_has_basis(L);
    for (int64_t i = 0; i < n && !c->failed; i++) {
        if (i) sb_put(&o->text, " ");
        if (basis) {
            cute_tuple crd = cute_layout_eval_basis(c, L, cute_i(i));
            out_tuple(c, o, &crd);
        } else {
            out_int(c, o, cute_layout_eval(c, L, cute_i(i)));
        }
    }
    return !c->failed;
}
