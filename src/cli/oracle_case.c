/* oracle_case.c — one oracle case: turn its named inputs into the arguments of the CLI op
 * of the same name, run it with a fresh context, and compare with the expected output.
 *
 * Results compare as text: layouts are canonical notation, and expected ints are printed
 * the way we print ours, so equal text is equal integers.
 */
#include "cutec/notation.h"
#include <stdio.h>
#include <string.h>

#include "layout_ops.h"
#include "oracle_check.h"

/* The inputs of each family, in the order of the CLI op's arguments; '?' marks optional. */
typedef struct family {
    const char *op;
    const char *inputs[4];
} family;

static const family families[] = {
    {"eval", {"layout"}},
    {"size", {"layout"}},
    {"cosize", {"layout"}},
    {"rank", {"layout"}},
    {"depth", {"layout"}},
    {"coalesce", {"layout", "?profile"}},
    {"filter", {"layout", "?profile"}},
    {"composition", {"a", "b"}},
    {"complement", {"layout", "?cotarget"}},
    {"right_inverse", {"layout"}},
    {"left_inverse", {"layout"}},
    {"logical_divide", {"a", "b"}},
    {"zipped_divide", {"a", "b"}},
    {"tiled_divide", {"a", "b"}},
    {"flat_divide", {"a", "b"}},
    {"logical_product", {"a", "b"}},
    {"zipped_product", {"a", "b"}},
    {"tiled_product", {"a", "b"}},
    {"flat_product", {"a", "b"}},
    {"blocked_product", {"a", "b"}},
    {"raked_product", {"a", "b"}},
    {"crd2idx", {"coord", "layout"}},
    {"idx2crd", {"idx", "shape"}},
    {"slice", {"coord", "layout"}},
    {"dice", {"coord", "layout"}},
    {"swizzle", {"B", "M", "S", "n"}},
    {"swizzle_layout", {"B", "M", "S", "layout"}},
};
#define NFAMILIES ((int)(sizeof families / sizeof families[0]))
#define MAX_INPUTS 4
/* failure lines stay readable: long texts (swizzle values) are cut */
#define SHOW_MAX 160

static const family *find_family(const char *op)
{
    for (int i = 0; i < NFAMILIES; i++)
        if (strcmp(families[i].op, op) == 0) return &families[i];
    return NULL;
}

static void put_cut(strbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (n <= SHOW_MAX) return sb_put(b, s);
    sb_putn(b, s, SHOW_MAX);
    sb_printf(b, "...(%zu chars)", n);
}

/* an input as argument text: strings as they are, ints in decimal */
static bool input_text(const json_value *v, char *num, size_t n, const char **text)
{
    if (v->kind == JSON_STRING) return *text = v->s, true;
    if (v->kind != JSON_INT) return false;
    snprintf(num, n, "%lld", (long long)v->i);
    *text = num;
    return true;
}

typedef struct case_args {
    int n;
    char *v[MAX_INPUTS];
    char num[MAX_INPUTS][32];
} case_args;

/* gather the family's inputs; describes them into why ("a=... b=...") as it goes */
static bool gather_inputs(const family *fam, const json_object *o, case_args *a, strbuf *why)
{
    a->n = 0;
    for (int k = 0; k < MAX_INPUTS && fam->inputs[k]; k++) {
        const char *name = fam->inputs[k];
        bool optional = name[0] == '?';
        name += optional;
        const json_value *v = json_get(o, name);
        if (!v && optional) continue;
        const char *text;
        if (!v || !input_text(v, a->num[a->n], sizeof a->num[a->n], &text)) {
            sb_printf(why, ": input \"%s\" is %s", name,
                      v ? "neither a string nor an int" : "missing");
            return false;
        }
        a->v[a->n++] = (char *)text;
        sb_printf(why, " %s=", name);
        put_cut(why, text);
    }
    return true;
}

/* the expected output as text: "values" joined by spaces, or "result" */
static bool expected_text(const json_object *o, strbuf *want)
{
    const json_value *v = json_get(o, "values");
    if (v && v->kind == JSON_INT_ARRAY) {
        for (int i = 0; i < v->n; i++) sb_printf(want, i ? " %lld" : "%lld", (long long)v->ints[i]);
        return true;
    }
    v = json_get(o, "result");
    if (v && v->kind == JSON_STRING) return sb_put(want, v->s), true;
    if (v && v->kind == JSON_INT) return sb_printf(want, "%lld", (long long)v->i), true;
    return false;
}

static bool is_error_case(const json_object *o)
{
    const json_value *v = json_get(o, "error");
    return v && v->kind == JSON_BOOL && v->i;
}

/* "result offset N" for ops with an offset, when the case gives one */
static void add_offset(const json_object *o, const op_out *out, strbuf *want, strbuf *got)
{
    const json_value *off = json_get(o, "offset");
    if (!off) return;
    if (off->kind == JSON_INT)
        sb_printf(want, " offset %lld", (long long)off->i);
    else
        sb_put(want, " offset (not an int)");
    char buf[1024] = "";
    if (out->has_offset) cute_tuple_str(&out->offset, buf, sizeof buf);
    sb_printf(got, " offset %s", out->has_offset ? buf : "(none)");
}

/* compare a successful run with the expectation; why gets ": expected X, got Y" */
static bool compare(const json_object *o, const op_out *out, strbuf *why)
{
    strbuf want, got;
    sb_init(&want);
    sb_init(&got);
    bool has_want = expected_text(o, &want), ok = false;
    if (!has_want) sb_put(why, ": the case has no \"result\" or \"values\"");
    if (has_want) {
        sb_put(&got, sb_str(&out->text));
        add_offset(o, out, &want, &got);
        ok = strcmp(sb_str(&want), sb_str(&got)) == 0;
    }
    if (has_want && !ok) {
        sb_put(why, ": expected ");
        put_cut(why, sb_str(&want));
        sb_put(why, ", got ");
        put_cut(why, sb_str(&got));
    }
    sb_free(&want);
    sb_free(&got);
    return ok;
}

/* run the op; the verdict depends on whether the case expects an error */
static bool run_case(const layout_op *op, const json_object *o, case_args *a, strbuf *why)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    op_out out;
    op_out_init(&out);
    bool ran = op->run(op, &c, a->n, a->v, &out) && !c.failed;
    bool ok;
    if (is_error_case(o)) {
        ok = !ran;
        const json_value *reason = json_get(o, "reason");
        if (!ok)
            sb_printf(why, ": expected an error (%s), got ",
                      reason && reason->kind == JSON_STRING ? reason->s : "?");
        if (!ok) put_cut(why, sb_str(&out.text));
    } else if (!ran) {
        ok = false;
        sb_printf(why, ": got error: %s", c.error[0] ? c.error : "failed");
    } else {
        ok = compare(o, &out, why);
    }
    op_out_free(&out);
    return ok;
}

const char *oracle_case_family(const json_object *o)
{
    const json_value *v = json_get(o, "op");
    if (!v || v->kind != JSON_STRING) return "(no op)";
    const family *fam = find_family(v->s);
    return fam ? fam->op : "(unknown op)";
}

bool oracle_case_run(const json_object *o, strbuf *why)
{
    const json_value *opv = json_get(o, "op");
    if (!opv || opv->kind != JSON_STRING) return sb_put(why, "no \"op\" string"), false;
    sb_put(why, opv->s);
    const family *fam = find_family(opv->s);
    const layout_op *op = fam ? layout_op_find(fam->op) : NULL;
    if (!op) return sb_put(why, ": unknown op"), false;
    case_args a;
    if (!gather_inputs(fam, o, &a, why)) return false;
    if (a.n < op->min_args || (op->max_args >= 0 && a.n > op->max_args))
        return sb_printf(why, ": %d inputs, the op takes %s", a.n, op->usage), false;
    return run_case(op, o, &a, why);
}
