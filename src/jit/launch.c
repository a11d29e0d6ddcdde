/* CUTE_LAUNCH inside a host function: trace the kernel, turning each host value into its
 * kernel-side counterpart.  A host unknown (an argument's extent, stride or pointer) used by
 * the kernel becomes one kernel parameter; an expression of unknowns is rebuilt from those
 * parameters, so every relation the algebra knew on the host (M*8 is 8 times M) still holds
 * in the kernel. */
#include <stdlib.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS
#include "jit_internal.h"

static cute_fn *jit_of(cute_ctx *c)
{
    cute_fn *f = c->jit;
    if (!f) cute_ctx_fail(c, "CUTE_LAUNCH outside a host function given to cute_compile");
    return f;
}

static bool push_param(cute_ctx *c, launch_rec *L, kparam p)
{
    if (L->nparams == MAX_PARAMS)
        return cute_ctx_fail(c, "a kernel with more than %d parameters", MAX_PARAMS);
    if (L->nparams == L->capparams) {
        int cap = L->capparams ? 2 * L->capparams : 8;
        kparam *q = realloc(L->params, (size_t)cap * sizeof *q);
        if (!q) return cute_ctx_fail(c, "out of memory");
        L->params = q;
        L->capparams = cap;
    }
    L->params[L->nparams++] = p;
    return true;
}

static const host_sym *find_hsym(cute_fn *f, int sym)
{
    for (int i = 0; i < f->nhsyms; i++)
        if (f->hsyms[i].sym == sym) return &f->hsyms[i];
    return NULL;
}

/* a new kernel parameter standing for host symbol `sym` */
static cute_int kernel_symbol(cute_ctx *c, cute_fn *f, int sym)
{
    const char *name = "?";
    int64_t div, lb;
    cute_symbolic_symbol_info(c->sym, sym, &name, &div, &lb);
    const host_sym *h = find_hsym(f, sym);
    if (!h) {
        cute_ctx_fail(c, "the dynamic value '%s' does not come from an argument, so a kernel "
                         "cannot receive it", name);
        return cute_i(0);
    }
    cute_int k = cute_param_int(c, name, h->div, h->lb);
    push_param(c, f->cur, (kparam){P_SYM, sym, cute_type_of(CUTE_I64)});
    return k;
}

static cute_int rename_int(cute_ctx *c, cute_fn *f, cute_int x, kmap_entry *map, int *nmap);

static cute_int rename_atom(cute_ctx *c, cute_fn *f, uint32_t id, kmap_entry *map, int *nmap)
{
    cute_symbolic_atom a;
    if (!cute_symbolic_get_atom(c->sym, id, &a)) {
        cute_ctx_fail(c, "internal: a malformed host expression");
        return cute_i(0);
    }
    if (a.is_symbol) {
        cute_int k = cute_i(0);
        int j = 0;
        for (; j < *nmap; j++)
            if (map[j].sym == a.symbol) break;
        if (j < *nmap) {
            k = map[j].k;
        } else {
            if (*nmap == MAX_KERNEL_SYMS) {
                cute_ctx_fail(c, "a kernel receives more than %d dynamic values", MAX_KERNEL_SYMS);
                return cute_i(0);
            }
            k = kernel_symbol(c, f, a.symbol);
            map[(*nmap)++] = (kmap_entry){a.symbol, k};
        }
        return cute_div(&c->alg, k, cute_i(a.scale));
    }
    cute_int x = rename_int(c, f, a.a, map, nmap), y = cute_i(0);
    if (a.op != CUTE_IABS && a.op != CUTE_ISGN) y = rename_int(c, f, a.b, map, nmap);
    return cute_div(&c->alg, cute_int_op2(&c->alg, a.op, x, y), cute_i(a.scale));
}

static cute_int rename_int(cute_ctx *c, cute_fn *f, cute_int x, kmap_entry *map, int *nmap)
{
    if (!cute_is_dynamic(x) || c->alg.failed) return x;
    int n = cute_symbolic_nterms(c->sym, x);
    cute_int sum = cute_i(0);
    for (int i = 0; i < n && !c->alg.failed; i++) {
        cute_symbolic_term t;
        cute_symbolic_get_term(c->sym, x, i, &t);
        cute_int p = cute_i(t.coef);
        for (int k = 0; k < t.deg; k++) p = cute_mul(&c->alg, p, rename_atom(c, f, t.atom[k], map, nmap));
        sum = cute_add(&c->alg, sum, p);
    }
    return sum;
}

cute_int cute__karg_int(cute_ctx *c, cute_int x)
{
    cute_fn *f = jit_of(c);
    if (!f || !ctx_ok(c)) return cute_i(0);
    return rename_int(c, f, x, f->cur->map, &f->cur->nmap);
}

static cute_tuple rename_tuple(cute_ctx *c, cute_fn *f, cute_tuple t)
{
    for (int i = 0; i < t.nleaves; i++)
        if (cute_is_dynamic(t.leaf[i])) t.leaf[i] = rename_int(c, f, t.leaf[i], f->cur->map, &f->cur->nmap);
    return t;
}

cute_layout cute__karg_layout(cute_ctx *c, cute_layout L)
{
    cute_fn *f = jit_of(c);
    if (!f || !ctx_ok(c)) return cute_layout_poison();
    L.shape = rename_tuple(c, f, L.shape);
    L.stride = rename_tuple(c, f, L.stride);
    return L;
}

cute_tensor cute__karg_tensor(cute_ctx *c, cute_tensor t)
{
    cute_fn *f = jit_of(c);
    if (!f || !ctx_ok(c)) return t;
    if (t.kind == CUTE_TENSOR_GMEM) {
        if (t.host_arg < 0 || t.host_arg >= f->nargs) {
            cute_ctx_fail(c, "CUTE_LAUNCH: a tensor that is not (a view of) an argument");
            return t;
        }
        char name[32];
        snprintf(name, sizeof name, "p%d", t.host_arg);
        t.base = cute_param_ptr(c, name, (cute_dtype)t.dtype);
        push_param(c, f->cur, (kparam){P_PTR, t.host_arg, t.base.t});
        t.host_arg = -1;
        t.offset = rename_int(c, f, t.offset, f->cur->map, &f->cur->nmap);
    } else if (t.kind == CUTE_TENSOR_COORD) {
        t.coord = rename_tuple(c, f, t.coord);
    } else {
        cute_ctx_fail(c, "CUTE_LAUNCH: only global and coordinate tensors can be kernel arguments");
        return t;
    }
    t.layout = cute__karg_layout(c, t.layout);
    return t;
}

cute_val cute__karg_scalar(cute_ctx *c, cute_host_scalar s)
{
    cute_fn *f = jit_of(c);
    cute_val none = {0, cute_type_of((cute_dtype)s.dtype), 0};
    if (!f || !ctx_ok(c)) return none;
    char name[32];
    snprintf(name, sizeof name, "f%d", s.arg);
    cute_vreg r = cute_ir_add_param(c->fn, cute_type_of((cute_dtype)s.dtype), name);
    push_param(c, f->cur, (kparam){P_FLOAT, s.arg, cute_type_of((cute_dtype)s.dtype)});
    return ctx_val(c, r);
}

cute_host_opaque cute_host_tensor_map(cute_ctx *c, cute_opaque_build build, void *user)
{
    cute_fn *f = c->jit;
    cute_host_opaque none = {-1};
    if (!f || c->fn) {
        cute_ctx_fail(c, "cute_host_tensor_map belongs in the host function given to cute_compile");
        return none;
    }
    if (!build) return cute_ctx_fail(c, "cute_host_tensor_map: no build function"), none;
    if (f->nopaques == MAX_OPAQUE)
        return cute_ctx_fail(c, "more than %d tensor maps in one function", MAX_OPAQUE), none;
    f->opaques[f->nopaques] = (opaque_rec){.build = build, .user = user};
    return (cute_host_opaque){f->nopaques++};
}

cute_val cute__karg_opaque(cute_ctx *c, cute_host_opaque h)
{
    cute_fn *f = jit_of(c);
    cute_val none = {0, cute_type_of(CUTE_TMAP), 0};
    if (!f || !ctx_ok(c)) return none;
    if (h.index < 0 || h.index >= f->nopaques) {
        cute_ctx_fail(c, "CUTE_LAUNCH: a tensor map that cute_host_tensor_map did not make");
        return none;
    }
    char name[32];
    snprintf(name, sizeof name, "tmap%d", h.index);
    cute_vreg r = cute_ir_add_param(c->fn, cute_type_of(CUTE_TMAP), name);
    push_param(c, f->cur, (kparam){P_OPAQUE, h.index, cute_type_of(CUTE_TMAP)});
    return ctx_val(c, r);
}

/* all cluster entries unset: no cluster; else an unset entry is 1 */
static void cluster_of(launch_rec *r, const cute_launch_cfg *cfg)
{
    r->has_cluster = false;
    for (int i = 0; i < 3; i++) r->has_cluster |= !cute_is_const(cfg->cluster[i], 0);
    for (int i = 0; i < 3; i++)
        r->cluster[i] = !r->has_cluster ? cute_i(0)
                        : cute_is_const(cfg->cluster[i], 0) ? cute_i(1) : cfg->cluster[i];
}

bool cute__launch_begin(cute_ctx *c, const char *kernel, cute_launch_cfg cfg, const char *file,
                        int line)
{
    cute_ctx_site(c, file, line);
    cute_fn *f = jit_of(c);
    if (!f || c->alg.failed) return false;
    launch_rec *L = realloc(f->launches, (size_t)(f->nlaunches + 1) * sizeof *L);
    cute_ir_func **K = realloc(f->kernels, (size_t)(f->nkernels + 1) * sizeof *K);
    if (L) f->launches = L;
    if (K) f->kernels = K;
    if (!L || !K) return cute_ctx_fail(c, "out of memory");
    launch_rec *r = &f->launches[f->nlaunches++];
    memset(r, 0, sizeof *r);
    r->kernel = f->nkernels;
    for (int i = 0; i < 3; i++) {
        r->grid[i] = cute_is_const(cfg.grid[i], 0) && cfg.grid[i].div == 0 ? cute_i(1) : cfg.grid[i];
        r->block[i] = cute_is_const(cfg.block[i], 0) ? cute_i(1) : cfg.block[i];
    }
    r->smem = cfg.smem_bytes;
    cluster_of(r, &cfg);
    r->pdl = cfg.pdl;
    r->file = file;
    r->line = line;
    r->map = malloc(MAX_KERNEL_SYMS * sizeof *r->map);
    if (!r->map) return cute_ctx_fail(c, "out of memory");
    f->cur = r;
    char name[64];
    snprintf(name, sizeof name, "%s_%d", kernel, f->nkernels);
    if (!cute_kernel_begin(c, name)) return false;
    /* the special registers' ranges: the largest grid and block this recipe can give */
    int64_t gmax[3], bmax[3], lo;
    for (int i = 0; i < 3; i++) {
        if (!cute_symbolic_range(c->sym, r->grid[i], &lo, &gmax[i]) || gmax[i] > INT32_MAX) gmax[i] = 0;
        if (!cute_symbolic_range(c->sym, r->block[i], &lo, &bmax[i]) || bmax[i] > 1024) bmax[i] = 0;
        if (gmax[i] < 0) gmax[i] = 0;
        if (bmax[i] < 0) bmax[i] = 0;
    }
    cute_kernel_launch_extents(c, gmax, bmax);
    if (cute_is_static(r->block[0]) && cute_is_static(r->block[1]) && cute_is_static(r->block[2]))
        cute_kernel_block_threads(c, r->block[0].v * r->block[1].v * r->block[2].v);
    return true;
}

void cute__launch_end(cute_ctx *c)
{
    cute_fn *f = c->jit;
    cute_ir_func *k = cute_kernel_end(c);
    if (f && f->cur) {
        free(f->cur->map); /* only needed while tracing */
        f->cur->map = NULL;
    }
    if (!f || !k) return;
    f->kernels[f->nkernels++] = k;
    /* launch bounds: a static block size is a promise the compiler can use */
    launch_rec *r = f->cur;
    if (cute_is_static(r->block[0]) && cute_is_static(r->block[1]) && cute_is_static(r->block[2]))
        k->max_threads = (int)(r->block[0].v * r->block[1].v * r->block[2].v);
    /* a static cluster is compiled in; a dynamic one is given at each launch */
    bool fixed = r->has_cluster;
    for (int i = 0; i < 3; i++) fixed &= cute_is_static(r->cluster[i]) && r->cluster[i].v >= 1;
    for (int i = 0; i < 3 && fixed; i++) k->cluster_dims[i] = (int)r->cluster[i].v;
    /* shared memory: what the host asked for and what the kernel allocated (smem.h) while
     * it was traced, whichever is more; call.c evaluates r->smem at each call */
    if (k->smem_bytes > 0) r->smem = cute_max(&c->alg, r->smem, cute_i(k->smem_bytes));
    if (cute_is_static(r->smem)) k->smem_bytes = r->smem.v;
    f->cur = NULL;
}
