/* Launch v2 (issue 12 item 2): thread-block clusters and by-value tensor maps.
 *  - a recording backend sees what a call launches: a static cluster compiled into the kernel
 *    and given at the launch, a dynamic one from an argument, a tensor map built by the
 *    call's prepare step from that call's arguments (128 bytes, 64-byte aligned), the launch
 *    that asks for PDL (cute_launch_cfg.pdl) and the one that does not; a cluster
 *    that does not divide the grid and a failing build are errors before any launch;
 *  - the CUDA C of such kernels (__grid_constant__ parameter, __cluster_dims__, the map's
 *    address as an asm operand) compiles with NVRTC for sm_90a;
 *  - the interpreter runs a clustered launch, also as a dependent launch (PDL: ignored);
 *  - on a GPU (else skipped): clusters through __cluster_dims__ and cuLaunchKernelEx (each
 *    block reads its %cluster_ctarank), each also with PDL (the kernel waiting first), the
 *    map's bytes as the kernel sees them, and a driver without the optional entry points
 *    (cute_cuda_opts.hide): only what needs them fails (PDL alone: a plain launch). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/jit.h"
#include "cutec/nvrtc.h"
#include "cutec/sync.h"
#include "cutec/cuda_driver.h"
#include "trace/ctx_internal.h" /* the test's kernels append raw PTX (no DSL call does yet) */

/* --- a backend that records the launches ------------------------------------------------ */
enum { MAX_REC = 4 };
static struct {
    int n;
    cute_launch cfg[MAX_REC];
    unsigned char map[MAX_REC][128];
    bool map_aligned[MAX_REC];
} rec;

static bool rec_supports(void *s, const cute_ir_inst *i) { return (void)s, (void)i, true; }
static cute_status rec_compile(void *s, cute_ir_func *const *k, int n, cute_module **out,
                               const char **log)
{
    (void)s, (void)k, (void)n;
    *out = (cute_module *)&rec; /* never dereferenced */
    *log = "";
    return CUTE_OK;
}
static void rec_module_free(void *s, cute_module *m) { (void)s, (void)m; }
static cute_status rec_launch(void *s, cute_module *m, int kernel, const cute_launch *cfg,
                              const cute_launch_arg *args, int nargs)
{
    (void)s, (void)m, (void)kernel;
    if (rec.n == MAX_REC) return CUTE_ERR_INVALID;
    rec.cfg[rec.n] = *cfg;
    for (int i = 0; i < nargs; i++)
        if (args[i].type.dtype == CUTE_TMAP) {
            memcpy(rec.map[rec.n], args[i].bytes, 128);
            rec.map_aligned[rec.n] = (uintptr_t)args[i].bytes % 64 == 0;
        }
    rec.n++;
    return CUTE_OK;
}
static cute_status rec_alloc(void *s, size_t b, cute_buffer *o)
{
    (void)s;
    memset(o, 0, sizeof *o);
    o->ptr = calloc(1, b ? b : 1);
    o->bytes = b;
    return o->ptr ? CUTE_OK : CUTE_ERR_OOM;
}
static void rec_free(void *s, cute_buffer *b) { (void)s, free(b->ptr); }
static cute_status rec_copy_in(void *s, cute_buffer *d, size_t o, const void *src, size_t n)
{
    return (void)s, memcpy((char *)d->ptr + o, src, n), CUTE_OK;
}
static cute_status rec_copy_out(void *s, void *d, const cute_buffer *src, size_t o, size_t n)
{
    return (void)s, memcpy(d, (const char *)src->ptr + o, n), CUTE_OK;
}
static cute_status rec_sync(void *s, void *st) { return (void)s, (void)st, CUTE_OK; }
static const char *rec_error(void *s) { return (void)s, "recorded"; }
static void rec_destroy(void *s) { (void)s; }
static const cute_backend_vtable rec_vt = {
    CUTE_BACKEND_VERSION, "recording", rec_supports, rec_compile, rec_module_free, rec_launch,
    rec_alloc,            rec_free,    rec_copy_in,  rec_copy_out, rec_sync,       rec_error,
    rec_destroy};

/* --- the function: a tensor map from argument 0, two launches --------------------------- */

/* the map's bytes from this call's arguments: byte i is (extent + i) mod 256, so each call's
 * own extent shows; an extent of 7 fails, as a driver refusing the map would */
static cute_status pattern_map(void *user, cute_runtime *rt, const cute_call_arg *args, int nargs,
                               void *out, char *err, size_t n)
{
    (void)user, (void)rt;
    if (nargs < 1 || args[0].ndim != 1) return snprintf(err, n, "no tensor"), CUTE_ERR_INVALID;
    if (args[0].shape[0] == 7) return snprintf(err, n, "seven is refused"), CUTE_ERR_INVALID;
    for (int i = 0; i < 128; i++) ((unsigned char *)out)[i] = (unsigned char)(args[0].shape[0] + i);
    return CUTE_OK;
}

/* the map's address is a PTX operand: prefetch it, as a TMA kernel would */
static void map_kernel(cute_ctx *c, cute_tensor x, cute_val map)
{
    (void)x;
    cute_ir_varop(&c->b, CUTE_OP_ASM, "prefetch.tensormap [%0];", (cute_vreg[]){map.r}, 1, 0);
}

static void two_launches(cute_ctx *c, const cute_arg *arg)
{
    cute_host_opaque map = cute_host_tensor_map(c, pattern_map, NULL);
    cute_int n = arg[0].tensor.layout.shape.leaf[0];
    cute_launch_cfg fixed = {.grid = {cute_i(4)}, .block = {cute_i(32)}, .cluster = {cute_i(2)}};
    CUTE_LAUNCH(c, map_kernel, fixed, arg[0].tensor, map);
    cute_launch_cfg given = {.grid = {n}, .block = {cute_i(32)}, .cluster = {arg[1].i}, .pdl = true};
    CUTE_LAUNCH(c, map_kernel, given, arg[0].tensor, map);
}

static void check_cuda_c(const cute_fn *f)
{
    const cute_ir_func *k = cute_fn_kernel(f, 0);
    char err[1024], *src = NULL;
    CHECK(cute_cuda_c_emit(&k, 1, NULL, &src, err, sizeof err) == CUTE_OK, "%s", err);
    if (!src) return;
    CHECK(strstr(src, "const __grid_constant__ cute_tmap") && strstr(src, "__cluster_dims__(2, 1, 1)"),
          "the kernel's signature: %s", src);
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) == CUTE_OK) {
        cute_nvrtc_output o;
        cute_nvrtc_opts opt = {.arch = "sm_90a"};
        CHECK(cute_nvrtc_compile(nv, src, &opt, &o) == CUTE_OK, "sm_90a: %s\n%s", o.log, src);
        cute_nvrtc_output_free(&o);
        cute_nvrtc_close(nv);
    } else {
        SKIP("NVRTC not found: the tensor-map kernel was not compiled");
    }
    free(src);
}

static cute_status call(const cute_fn *f, cute_buffer *X, int64_t n, int64_t cluster, char *err)
{
    cute_call_arg args[2] = {cute_call_tensor(X, 0, CUTE_F32, 1, &n, (int64_t[]){1}),
                             cute_call_int(cluster)};
    rec.n = 0;
    return cute_call(f, NULL, 2, args, err, 512);
}

static void recorded_launches(void)
{
    cute_runtime *rt = cute_runtime_wrap((cute_backend){&rec_vt, NULL});
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, "(?):(1)", 4), cute_spec_int("?")};
    char err[512];
    const cute_fn *f = cute_compile(rt, "v2", two_launches, NULL, 2, specs, err, sizeof err);
    CHECK(f != NULL, "%s", err);
    if (!f) {
        cute_runtime_free(rt);
        return;
    }
    const int *c0 = cute_fn_kernel(f, 0)->cluster_dims, *c1 = cute_fn_kernel(f, 1)->cluster_dims;
    CHECK(c0[0] == 2 && c0[1] == 1 && c0[2] == 1, "static cluster compiled in: %d %d %d", c0[0],
          c0[1], c0[2]);
    CHECK(c1[0] == 0, "a dynamic cluster is not compiled in: %d", c1[0]);
    cute_buffer X;
    rec_alloc(NULL, 64 * 4, &X);
    CHECK(call(f, &X, 12, 3, err) == CUTE_OK && rec.n == 2, "a call: %s (%d launches)", err, rec.n);
    cute_dim3 k0 = rec.cfg[0].cluster, k1 = rec.cfg[1].cluster;
    CHECK(k0.x == 2 && k0.y == 1 && k0.z == 1, "launch 0's cluster %u %u %u", k0.x, k0.y, k0.z);
    CHECK(k1.x == 3 && k1.y == 1 && k1.z == 1 && rec.cfg[1].grid.x == 12, "launch 1's cluster %u",
          k1.x);
    CHECK(!rec.cfg[0].pdl && rec.cfg[1].pdl, "PDL asked by launch 1 only: %d %d", rec.cfg[0].pdl, rec.cfg[1].pdl);
    int bad = 0;
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < 128; i++) bad += rec.map[l][i] != (unsigned char)(12 + i);
    CHECK(bad == 0 && rec.map_aligned[0] && rec.map_aligned[1], "the map's bytes: %d wrong", bad);
    CHECK(call(f, &X, 12, 5, err) == CUTE_ERR_INVALID && strstr(err, "does not divide") && !rec.n,
          "a cluster of 5 in a grid of 12: %s", err);
    CHECK(call(f, &X, 7, 1, err) == CUTE_ERR_INVALID && strstr(err, "tensor map 0: seven") && !rec.n,
          "a failing build fails the call before any launch: %s", err);
    check_cuda_c(f);
    rec_free(NULL, &X);
    cute_fn_free(f);
    cute_runtime_free(rt);
}

/* --- a clustered launch that runs: y = 2x, blocks in clusters of 2 --------------------- */
enum { BLOCK = 64 };

static void twice_kernel(cute_ctx *c, cute_tensor x, cute_tensor y, cute_int n)
{
    cute_alg *a = cute_ctx_alg(c);
    if (*(const bool *)cute_ctx_user(c)) cute_griddepcontrol_wait(c); /* PDL: before any access */
    cute_int i = cute_add(a, cute_mul(a, cute_block_idx(c, 0), cute_i(BLOCK)), cute_thread_idx(c, 0));
    CUTE_IF(c, cute_int_lt(c, i, n))
    {
        cute_ssa v = cute_tensor_load(c, cute_tensor_slice(c, x, cute_tuple_int(i)));
        cute_tensor_store(c, cute_tensor_slice(c, y, cute_tuple_int(i)), cute_ssa_binop(c, CUTE_OP_ADD, v, v));
    }
}

/* cluster: argument 2 (dynamic) or, when the spec is static, the number itself; the user
 * pointer: a bool, launch with PDL */
static void clustered_host(cute_ctx *c, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int n = arg[0].tensor.layout.shape.leaf[0];
    cute_int pairs = cute_ceil_div(a, n, cute_i(2 * BLOCK));
    cute_launch_cfg cfg = {.grid = {cute_mul(a, pairs, cute_i(2))}, .block = {cute_i(BLOCK)},
                           .cluster = {arg[2].i}, .pdl = *(const bool *)cute_ctx_user(c)};
    CUTE_LAUNCH(c, twice_kernel, cfg, arg[0].tensor, arg[1].tensor, n);
}

/* y = 2x on rt with clusters of 2 (static or dynamic), with PDL or not; the wrong
 * elements, or -1 */
static int run_clustered(cute_runtime *rt, bool dynamic, bool pdl, char *err, size_t errn)
{
    cute_arg_spec specs[3] = {cute_spec_tensor(CUTE_F32, "(?):(1)", 4),
                              cute_spec_tensor(CUTE_F32, "(?):(1)", 4),
                              cute_spec_int(dynamic ? "?" : "2")};
    static const bool pdls[2] = {false, true}; /* (the user pointer outlives the fn) */
    const cute_fn *f = cute_compile(rt, pdl ? "clustered_pdl" : "clustered", clustered_host, (void *)&pdls[pdl], 3,
                                    specs, err, errn);
    if (!f) return -1;
    enum { N = 300 };
    float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = (float)(i % 17) - 8.0f, y[i] = -1e30f;
    cute_backend *b = cute_runtime_backend(rt);
    cute_buffer X, Y;
    b->vt->alloc(b->self, sizeof x, &X), b->vt->alloc(b->self, sizeof y, &Y);
    b->vt->upload(b->self, &X, 0, x, sizeof x), b->vt->upload(b->self, &Y, 0, y, sizeof y);
    int64_t n = N, one = 1;
    cute_call_arg args[3] = {cute_call_tensor(&X, 0, CUTE_F32, 1, &n, &one),
                             cute_call_tensor(&Y, 0, CUTE_F32, 1, &n, &one), cute_call_int(2)};
    cute_status s = cute_call(f, NULL, 3, args, err, errn);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s == CUTE_OK) s = b->vt->download(b->self, y, &Y, 0, sizeof y);
    int wrong = 0;
    for (int i = 0; i < N; i++) wrong += y[i] != 2 * x[i];
    b->vt->free(b->self, &X), b->vt->free(b->self, &Y);
    cute_fn_free(f);
    return s == CUTE_OK ? wrong : -1;
}

static void interp_clusters(void)
{
    cute_runtime *rt;
    char err[1024];
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "%s", err);
    for (int dynamic = 0; dynamic < 2; dynamic++)
        for (int pdl = 0; pdl < 2; pdl++)
            CHECK(run_clustered(rt, dynamic, pdl, err, sizeof err) == 0, "interpreter, %s cluster%s: %s",
                  dynamic ? "dynamic" : "static", pdl ? ", PDL" : "", err);
    cute_runtime_free(rt);
}

/* --- on a GPU ------------------------------------------------------------------------------ */

static cute_status emit(void *user, cute_ir_func *const *k, int n, const char *arch, bool lineinfo,
                        char **source, char *err, size_t errn)
{
    (void)user;
    cute_cuda_c_opts o = {.arch = arch, .line_directives = lineinfo};
    return cute_cuda_c_emit((const cute_ir_func *const *)k, n, &o, source, err, errn);
}

/* a CUDA runtime whose driver (*cu, closed by the caller after the runtime) pretends to
 * lack the entry points in hide (NULL: none) */
static cute_runtime *gpu_runtime(const char *hide, cute_cuda **cu_out, char *err, size_t n)
{
    cute_cuda *cu;
    cute_cuda_opts co = {.hide = hide};
    *cu_out = NULL;
    if (cute_cuda_open(&co, &cu, err, n) != CUTE_OK) return NULL;
    cute_cuda_backend_opts bo = {.cuda = cu, .emit = emit};
    cute_backend b;
    if (cute_cuda_backend_new(&bo, &b, err, n) != CUTE_OK) {
        cute_cuda_close(cu);
        return NULL;
    }
    *cu_out = cu;
    return cute_runtime_wrap(b);
}

/* the kernel reads its map's 16 words through the map's address (param space) and its
 * cluster rank, as TMA code would address them */
static void readback_kernel(cute_ctx *c, cute_tensor out, cute_val map)
{
    cute_val tid = cute_int_value(c, cute_thread_idx(c, 0), CUTE_U64);
    cute_vreg w = cute_ir_new_vreg(c->fn, cute_type_of(CUTE_U64), "w", false);
    cute_ir_varop(&c->b, CUTE_OP_ASM, "{ .reg .u64 a; mad.lo.u64 a, %2, 8, %1; ld.u64 %0, [a]; }",
                  (cute_vreg[]){w, map.r, tid.r}, 3, 1);
    cute_vreg rank = cute_ir_new_vreg(c->fn, cute_type_of(CUTE_U32), "rank", false);
    cute_ir_varop(&c->b, CUTE_OP_ASM, "mov.u32 %0, %%cluster_ctarank;", (cute_vreg[]){rank}, 1, 1);
    cute_alg *a = cute_ctx_alg(c);
    cute_int at = cute_add(a, cute_mul(a, cute_block_idx(c, 0), cute_i(17)), cute_thread_idx(c, 0));
    cute_tensor o = cute_tensor_slice(c, out, cute_tuple_int(at));
    cute_tuple one = cute_tuple_int(cute_i(1));
    CUTE_IF(c, cute_int_lt(c, cute_thread_idx(c, 0), cute_i(16)))
    cute_tensor_store(c, o, cute_ssa_scalar(c, ctx_val(c, w), one));
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(16)))
    cute_tensor_store(c, o, cute_ssa_scalar(c, cute_val_cvt(c, ctx_val(c, rank), CUTE_U64), one));
}

static void readback_host(cute_ctx *c, const cute_arg *arg)
{
    cute_host_opaque map = cute_host_tensor_map(c, pattern_map, NULL);
    cute_launch_cfg cfg = {.grid = {cute_i(4)}, .block = {cute_i(32)}, .cluster = {arg[1].i}};
    CUTE_LAUNCH(c, readback_kernel, cfg, arg[0].tensor, map);
}

/* 4 blocks in clusters of 2 (static: __cluster_dims__; dynamic: cuLaunchKernelEx) */
static cute_status gpu_readback(cute_runtime *rt, bool dynamic, char *err, size_t errn)
{
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_U64, "(68):(1)", 8),
                              cute_spec_int(dynamic ? "?" : "2")};
    const cute_fn *f = cute_compile(rt, "readback", readback_host, NULL, 2, specs, err, errn);
    if (!f) return CUTE_ERR_COMPILE;
    uint64_t out[68];
    cute_backend *b = cute_runtime_backend(rt);
    cute_buffer O;
    b->vt->alloc(b->self, sizeof out, &O);
    int64_t n = 68, one = 1;
    cute_call_arg args[2] = {cute_call_tensor(&O, 0, CUTE_U64, 1, &n, &one), cute_call_int(2)};
    cute_status s = cute_call(f, NULL, 2, args, err, errn);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    if (s == CUTE_OK) s = b->vt->download(b->self, out, &O, 0, sizeof out);
    int bad = 0;
    for (int blk = 0; s == CUTE_OK && blk < 4; blk++) {
        unsigned char want[128];
        for (int i = 0; i < 128; i++) want[i] = (unsigned char)(68 + i); /* pattern_map, n = 68 */
        bad += memcmp(&out[blk * 17], want, 128) != 0;
        bad += out[blk * 17 + 16] != (uint64_t)(blk % 2);
    }
    if (bad) snprintf(err, errn, "%d blocks saw the wrong map or cluster rank", bad), s = CUTE_ERR_CHECK;
    b->vt->free(b->self, &O);
    cute_fn_free(f);
    return s;
}

static void gpu(void)
{
    char err[2048];
    cute_cuda *cu;
    cute_runtime *rt = gpu_runtime(NULL, &cu, err, sizeof err);
    if (!rt) {
        SKIP("no GPU: clusters and tensor maps were not launched");
        return;
    }
    const cute_device_info *d = cute_cuda_device(cu);
    if (d->cc_major < 9) {
        SKIP("a GPU before sm_90: no clusters");
        cute_runtime_free(rt);
        cute_cuda_close(cu);
        return;
    }
    for (int dynamic = 0; dynamic < 2; dynamic++) {
        for (int pdl = 0; pdl < 2; pdl++)
            CHECK(run_clustered(rt, dynamic, pdl, err, sizeof err) == 0, "GPU, %s cluster%s: %s",
                  dynamic ? "dynamic" : "static", pdl ? ", PDL" : "", err);
        CHECK(gpu_readback(rt, dynamic, err, sizeof err) == CUTE_OK, "GPU readback, %s: %s",
              dynamic ? "dynamic" : "static", err);
    }
    cute_runtime_free(rt);
    cute_cuda_close(cu);
    /* an older driver: no cuLaunchKernelEx and friends */
    rt = gpu_runtime("cuLaunchKernelEx,cuTensorMapEncodeTiled,cuOccupancyMaxActiveClusters", &cu,
                     err, sizeof err);
    CHECK(rt != NULL, "a driver without the optional entry points still opens: %s", err);
    if (!rt) return;
    CHECK(!cute_cuda_has(cu, "cuLaunchKernelEx"), "hidden");
    CHECK(run_clustered(rt, false, false, err, sizeof err) == 0, "a compiled-in cluster needs no "
          "cuLaunchKernelEx: %s", err);
    CHECK(run_clustered(rt, false, true, err, sizeof err) == 0, "PDL without cuLaunchKernelEx: a plain "
          "launch: %s", err);
    CHECK(run_clustered(rt, true, false, err, sizeof err) == -1 && strstr(err, "cuLaunchKernelEx"),
          "a dynamic cluster names what is missing: %s", err);
    unsigned char map[128] __attribute__((aligned(64)));
    cute_tensor_map_desc desc = {.rank = 1};
    CHECK(cute_cuda_tensor_map_encode_tiled(cu, &desc, map) == CUTE_ERR_UNSUPPORTED &&
              strstr(cute_cuda_error(cu), "cuTensorMapEncodeTiled"),
          "a tensor map names what is missing: %s", cute_cuda_error(cu));
    cute_runtime_free(rt);
    cute_cuda_close(cu);
}

int main(void)
{
    recorded_launches();
    interp_clusters();
    gpu();
    return CHECK_DONE("launch_v2_test");
}
