/* The tables of an exported launcher (export.c writes them after the launcher's runtime,
 * src/jit/export_launcher.inc): each argument's spec, the launch program's steps, each
 * launch's configuration and parameters, each kernel's name, shared memory and cluster.
 * They are cute_fn's own, written as C initializers; what a launcher cannot do without
 * cutec (a tensor-map parameter, a scalar of a narrow float type) is refused here. */
#include <stdio.h>
#include <string.h>

#include "export_internal.h"

/* the launcher's name of each cute_int_op, in the order of cutec/int.h */
static const char *op_name(int op)
{
    static const char *names[] = {"AOT_ADD", "AOT_SUB", "AOT_MUL", "AOT_DIV", "AOT_CEILDIV",
                                  "AOT_MOD", "AOT_MIN", "AOT_MAX", "AOT_ABS", "AOT_SGN",
                                  "AOT_XOR", "AOT_AND", "AOT_SHL", "AOT_SHR"};
    _Static_assert(CUTE_ISHR == 13, "cute_int_op and the launcher's operations differ");
    return op >= 0 && op <= CUTE_ISHR ? names[op] : NULL;
}

static void leaf(FILE *o, const cute_fn *f, const spec_leaf *l)
{
    const host_sym *h = l->dynamic && l->hsym >= 0 ? &f->hsyms[l->hsym] : NULL;
    fprintf(o, "{%d, %d, %lldLL, %lldLL, %lldLL, %d}", l->dynamic, l->dynamic ? l->hsym : -1,
            (long long)l->value, (long long)(h ? h->div : 1), (long long)(h ? h->lb : 0),
            l->dynamic && l->hsym < 0 ? l->step : 0);
}

static bool write_args(FILE *o, const cute_fn *f, const char *name, char *err, size_t n)
{
    fprintf(o, "static const aot_argspec %s_args[%d] = {\n", name, f->nargs ? f->nargs : 1);
    for (int k = 0; k < f->nargs; k++) {
        const arg_info *a = &f->args[k];
        int code = 0, bits = 0;
        cute_dtype d = (cute_dtype)a->spec.dtype;
        if (a->spec.kind == CUTE_ARG_TENSOR && !cute__dtype_dlpack(d, &code, &bits))
            return snprintf(err, n, "export %s: argument %d: %s tensors have no DLPack dtype",
                            f->name, k, cute_dtype_name(d)), false;
        fprintf(o, "    {%d, %d, %d, %d, %d, %d, \"%s\", {", a->spec.kind, code, bits,
                a->spec.align > 0 ? a->spec.align : 1, a->nleaves, a->written,
                a->spec.kind == CUTE_ARG_TENSOR ? cute_dtype_name(d) : "");
        int leaves = a->spec.kind == CUTE_ARG_INT ? 1 : a->nleaves;
        for (int i = 0; i < leaves; i++) leaf(o, f, &a->shape[i]), fputs(", ", o);
        fputs("{0}}, {", o);
        for (int i = 0; a->spec.kind == CUTE_ARG_TENSOR && i < a->nleaves; i++)
            leaf(o, f, &a->stride[i]), fputs(", ", o);
        fprintf(o, "{0}}, %d},\n", a->spec.strides_of);
    }
    fputs("};\n", o);
    return true;
}

static bool write_steps(FILE *o, const cute_fn *f, const char *name, char *err, size_t n)
{
    const launch_prog *p = &f->prog;
    fprintf(o, "static const aot_step %s_steps[%d] = {\n", name, p->nsteps ? p->nsteps : 1);
    for (int i = 0; i < p->nsteps; i++) {
        const lp_step *s = &p->steps[i];
        const char *op = s->kind == LP_OP ? op_name(s->op) : "0";
        if (!op)
            return snprintf(err, n, "export %s: a launch recipe uses an operation the launcher "
                            "lacks (%d)", f->name, s->op), false;
        static const char *kinds[] = {"AOT_CONST", "AOT_VALUE", "AOT_OP", "AOT_EXACT"};
        fprintf(o, "    {%s, %s, %d, %d, %lldLL},\n", kinds[s->kind], op, s->a, s->b,
                (long long)s->k);
    }
    fputs("};\n", o);
    return true;
}

/* a kernel parameter as the launcher passes it: its source, width, float or signed */
static bool param(FILE *o, const cute_fn *f, const kparam *q, char *err, size_t n)
{
    cute_dtype d = (cute_dtype)q->type.dtype;
    int64_t lo = 0, hi = 0;
    if (q->kind == P_OPAQUE)
        return snprintf(err, n, "export %s: a tensor-map parameter (TMA) is built at each call "
                        "by cutec; launchers without cutec cannot build it yet", f->name), false;
    if (q->kind == P_PTR) return fprintf(o, "{AOT_P_PTR, %d, 8, 0, 0}, ", q->index), true;
    if (q->kind == P_FLOAT) {
        if (d != CUTE_F32 && d != CUTE_F64)
            return snprintf(err, n, "export %s: a %s scalar parameter (only f32 and f64 scalars "
                            "are exported)", f->name, cute_dtype_name(d)), false;
        return fprintf(o, "{AOT_P_FLOAT, %d, %d, 1, 0}, ", q->index, d == CUTE_F64 ? 8 : 4), true;
    }
    bool is_signed = !cute_dtype_int_range(d, &lo, &hi) || lo < 0;
    int bytes = d == CUTE_I1 ? 1 : cute_dtype_bytes(d);
    fprintf(o, "{AOT_P_VALUE, %d, %d, 0, %d}, ", q->index, bytes, is_signed);
    return true;
}

static bool write_launches(FILE *o, const cute_fn *f, const char *name, char *err, size_t n)
{
    for (int i = 0; i < f->nlaunches; i++) {
        const launch_rec *r = &f->launches[i];
        fprintf(o, "static const aot_param %s_params%d[%d] = {", name, i, r->nparams ? r->nparams : 1);
        for (int p = 0; p < r->nparams; p++)
            if (!param(o, f, &r->params[p], err, n)) return false;
        fputs("};\n", o);
    }
    fprintf(o, "static const aot_launch %s_launches[%d] = {\n", name, f->nlaunches ? f->nlaunches : 1);
    for (int i = 0; i < f->nlaunches; i++) {
        const launch_rec *r = &f->launches[i];
        fprintf(o, "    {%d, {%d, %d, %d}, {%d, %d, %d}, %d, {%d, %d, %d}, %d, %d, %d, %s_params%d},\n",
                r->kernel, r->grid_step[0], r->grid_step[1], r->grid_step[2], r->block_step[0],
                r->block_step[1], r->block_step[2], r->smem_step, r->cluster_step[0],
                r->cluster_step[1], r->cluster_step[2], r->has_cluster, r->nparams, r->line,
                name, i);
    }
    fputs("};\n", o);
    return true;
}

static void write_kernels(FILE *o, const cute_fn *f, const char *name)
{
    fprintf(o, "static const aot_kernel %s_kernels[%d] = {\n", name, f->nkernels);
    for (int k = 0; k < f->nkernels; k++) {
        const cute_ir_func *K = f->kernels[k];
        const int *cd = K->cluster_dims;
        bool fixed = cd[0] > 0 && cd[1] > 0 && cd[2] > 0;
        fprintf(o, "    {\"%s\", %lluu, {%d, %d, %d}},\n", K->name, (unsigned long long)K->smem_bytes,
                fixed ? cd[0] : 0, fixed ? cd[1] : 0, fixed ? cd[2] : 0);
    }
    fputs("};\n", o);
}

bool export_tables(FILE *o, const cute_fn *f, const char *name, int nimages, char *err, size_t n)
{
    if (f->nkernels > EXPORT_MAX_KERNELS)
        return snprintf(err, n, "export %s: %d kernels (a launcher holds at most %d)", f->name,
                        f->nkernels, EXPORT_MAX_KERNELS), false;
    if (!write_args(o, f, name, err, n) || !write_steps(o, f, name, err, n) ||
        !write_launches(o, f, name, err, n))
        return false;
    write_kernels(o, f, name);
    fprintf(o, "static const aot_fn %s_fn = {\"%s\", %d, %d, %d, %d, %d, %d, %d, %s_args, "
               "%s_steps, %s_launches, %s_kernels, %s_images, %lldLL};\n",
            name, name, f->nargs, f->nhsyms, f->prog.nsteps, f->nlaunches, f->nkernels, nimages,
            f->noalias, name, name, name, name, name, (long long)f->index_bound);
    return true;
}
