/* Compile and call: a host function that launches two kernels, TensorSSA reductions, DLPack
 * arguments, and every way a call can contradict its spec (each an error, never a run). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cache.h"
#include "cutec/cuda_c.h"
#include "cutec/jit.h"
#include "cutec/nvrtc.h"
#include "cutec/notation.h"

enum { N = 64 };

/* kernel 1: y[i] = 2 * x[i] (one element per thread) */
static void twice(cute_ctx *c, cute_tensor x, cute_tensor y)
{
    cute_int i = cute_add(cute_ctx_alg(c), cute_mul(cute_ctx_alg(c), cute_block_idx(c, 0), cute_i(32)),
                          cute_thread_idx(c, 0));
    cute_tensor xi = cute_tensor_slice(c, x, cute_tuple_int(i));
    cute_tensor yi = cute_tensor_slice(c, y, cute_tuple_int(i));
    cute_ssa v = cute_tensor_load(c, xi);
    cute_tensor_store(c, yi, cute_ssa_binop(c, CUTE_OP_ADD, v, v));
}

/* kernel 2: out[0] = sum of y[0..8), out[1] = max of them (a TensorSSA reduction) */
static void reduce8(cute_ctx *c, cute_tensor y, cute_tensor out)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tiler first8 = cute_tiler_parse(a, "8:1");
    cute_ssa v = cute_tensor_load(c, cute_tensor_compose(c, y, &first8));
    cute_val s = cute_ssa_reduce(c, CUTE_OP_ADD, v), m = cute_ssa_reduce(c, CUTE_OP_MAX, v);
    cute_tuple shape1 = cute_tuple_int(cute_i(1));
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)))
    {
        cute_tensor_store(c, cute_tensor_slice(c, out, cute_tuple_int(cute_i(0))), cute_ssa_scalar(c, s, shape1));
        cute_tensor_store(c, cute_tensor_slice(c, out, cute_tuple_int(cute_i(1))), cute_ssa_scalar(c, m, shape1));
    }
}

static void two_kernels(cute_ctx *c, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int n = cute_size(a, &arg[0].tensor.layout);
    cute_launch_cfg one = {.grid = {cute_ceil_div(a, n, cute_i(32))}, .block = {cute_i(32)}};
    CUTE_LAUNCH(c, twice, one, arg[0].tensor, arg[1].tensor);
    cute_launch_cfg single = {.grid = {cute_i(1)}, .block = {cute_i(32)}};
    CUTE_LAUNCH(c, reduce8, single, arg[1].tensor, arg[2].tensor);
}

static cute_runtime *rt;
static cute_backend *be;

static void run_two_kernels(void)
{
    cute_arg_spec specs[3] = {cute_spec_tensor(CUTE_F32, "(?{div=32}):(1)", 4),
                              cute_spec_tensor(CUTE_F32, "(?{div=32}):(1)", 4),
                              cute_spec_tensor(CUTE_F32, "2:1", 4)};
    char err[1024];
    const cute_fn *f = cute_compile(rt, "two", two_kernels, NULL, 3, specs, err, sizeof err);
    CHECK(f != NULL, "%s", err);
    if (!f) return;
    CHECK(cute_fn_kernel_count(f) == 2, "two kernels traced");
    float x[N], y[N], out[2] = {-1, -1};
    for (int i = 0; i < N; i++) x[i] = (float)((i * 37) % 23) - 11.0f, y[i] = -7.0f;
    cute_buffer X, Y, O;
    be->vt->alloc(be->self, sizeof x, &X), be->vt->alloc(be->self, sizeof y, &Y), be->vt->alloc(be->self, sizeof out, &O);
    be->vt->upload(be->self, &X, 0, x, sizeof x), be->vt->upload(be->self, &Y, 0, y, sizeof y);
    be->vt->upload(be->self, &O, 0, out, sizeof out);
    /* x and y arrive as DLPack tensors, out as pointer + shape + strides */
    int64_t shape[1] = {N}, two[1] = {2}, unit[1] = {1};
    cute_dlpack_tensor dx = {X.ptr, {2, 0}, 1, {2, 32, 1}, shape, NULL, 0};
    cute_dlpack_tensor dy = {Y.ptr, {2, 0}, 1, {2, 32, 1}, shape, unit, 0};
    cute_call_arg args[3];
    CHECK(cute_call_dlpack(&dx, &X, &args[0], err, sizeof err), "%s", err);
    CHECK(cute_call_dlpack(&dy, &Y, &args[1], err, sizeof err), "%s", err);
    args[2] = cute_call_tensor(&O, 0, CUTE_F32, 1, two, unit);
    char cerr[1024];
    cute_status s = cute_call(f, NULL, 3, args, cerr, sizeof cerr);
    be->vt->sync(be->self, NULL);
    CHECK(s == CUTE_OK, "%s", cerr);
    be->vt->download(be->self, y, &Y, 0, sizeof y), be->vt->download(be->self, out, &O, 0, sizeof out);
    int bad = 0;
    float sum = 0, max = -1e30f;
    for (int i = 0; i < N; i++) bad += y[i] != 2 * x[i];
    for (int i = 0; i < 8; i++) sum += y[i], max = y[i] > max ? y[i] : max;
    CHECK(bad == 0, "%d of the doubled elements wrong", bad);
    CHECK(out[0] == sum && out[1] == max, "sum %g (want %g), max %g (want %g)", out[0], sum, out[1], max);

    /* every contradiction of the spec is refused with a message naming it */
    struct {
        const char *what, *needle;
        cute_call_arg a0;
    } bad_calls[] = {
        {"not a multiple of 32", "multiple of 32", cute_call_tensor(&X, 0, CUTE_F32, 1, (int64_t[]){48}, unit)},
        {"a static stride differs", "static", cute_call_tensor(&X, 0, CUTE_F32, 1, shape, (int64_t[]){2})},
        {"dtype", "f16", cute_call_tensor(&X, 0, CUTE_F16, 1, shape, unit)},
        {"rank", "dimensions", cute_call_tensor(&X, 0, CUTE_F32, 2, (int64_t[]){8, 8}, (int64_t[]){8, 1})},
        {"misaligned", "aligned", cute_call_tensor(&X, 2, CUTE_F32, 1, shape, unit)},
        {"past the buffer", "outside its buffer", cute_call_tensor(&X, 0, CUTE_F32, 1, (int64_t[]){128}, unit)},
        /* (2^62+32) * 4 bytes wraps to 128 in int64: the check must not believe it fits */
        {"2^62+32 elements", "outside its buffer",
         cute_call_tensor(&X, 0, CUTE_F32, 1, (int64_t[]){((int64_t)1 << 62) + 32}, unit)},
        {"ndim 20", "20 dimensions", cute_call_tensor(&X, 0, CUTE_F32, 20, (int64_t[8]){N, N, N, N, N, N, N, N}, (int64_t[8]){1})},
    };
    for (size_t k = 0; k < sizeof bad_calls / sizeof *bad_calls; k++) {
        cute_call_arg b[3] = {bad_calls[k].a0, args[1], args[2]};
        s = cute_call(f, NULL, 3, b, cerr, sizeof cerr);
        CHECK(s == CUTE_ERR_INVALID && strstr(cerr, bad_calls[k].needle),
              "%s: got %d '%s'", bad_calls[k].what, s, cerr);
    }
    CHECK(cute_call(f, NULL, 2, args, cerr, sizeof cerr) == CUTE_ERR_INVALID && strstr(cerr, "arguments"),
          "argument count: %s", cerr);
    /* an empty tensor makes a call do nothing, but not accept a wrong argument beside it
     * (found by fuzz/fuzz_jit.c) */
    cute_call_arg empty_and_bad[3] = {cute_call_tensor(&X, 0, CUTE_F32, 1, (int64_t[]){0}, unit),
                                      cute_call_tensor(&Y, 0, CUTE_F16, 1, shape, unit), args[2]};
    CHECK(cute_call(f, NULL, 3, empty_and_bad, cerr, sizeof cerr) == CUTE_ERR_INVALID && strstr(cerr, "f16"),
          "an empty tensor beside a wrong dtype: %s", cerr);
    cute_dlpack_tensor odd = dx;
    odd.dtype.bits = 8;
    odd.dtype.code = 2;
    CHECK(!cute_call_dlpack(&odd, &X, &args[0], err, sizeof err) && strstr(err, "not supported"),
          "an 8-bit float DLTensor: %s", err);
    be->vt->free(be->self, &X), be->vt->free(be->self, &Y), be->vt->free(be->self, &O);
    cute_fn_free(f);
}

/* warps and atomics: each warp sums its 32 values with xor shuffles and lane 0 adds the sum
 * to out[0]; a vote (any x > 100: none) adds 1 to out[1] if it is ever true; y = fast exp */
static void warp_kernel(cute_ctx *c, cute_tensor x, cute_tensor out, cute_tensor y)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int tid = cute_add(a, cute_mul(a, cute_block_idx(c, 0), cute_i(64)), cute_thread_idx(c, 0));
    cute_val v = cute_ssa_get(c, cute_tensor_load(c, cute_tensor_slice(c, x, cute_tuple_int(tid))), 0);
    cute_val sum = cute_val_var(c, v);
    for (int k = 16; k >= 1; k /= 2) /* unrolled at trace time */
        cute_val_assign(c, sum, cute_val_binop(c, CUTE_OP_ADD, sum,
                                               cute_val_shfl(c, sum, cute_val_int(c, CUTE_I32, k), CUTE_SHFL_XOR)));
    cute_val big = cute_val_vote(c, cute_val_cmp(c, CUTE_OP_GT, v, cute_val_const(c, CUTE_F32, 100)), CUTE_VOTE_ANY);
    CUTE_IF(c, cute_int_eq(c, cute_lane_idx(c), cute_i(0)))
    {
        cute_val_atomic(c, cute_tensor_ptr(c, out, cute_i(0)), sum, CUTE_ATOMIC_ADD);
        cute_val one = cute_val_select(c, big, cute_val_const(c, CUTE_F32, 1), cute_val_const(c, CUTE_F32, 0));
        cute_val_atomic(c, cute_tensor_ptr(c, out, cute_i(1)), one, CUTE_ATOMIC_ADD);
    }
    cute_tuple one = cute_tuple_int(cute_i(1));
    cute_tensor_store(c, cute_tensor_slice(c, y, cute_tuple_int(tid)),
                      cute_ssa_scalar(c, cute_val_fast(c, CUTE_OP_EXP, v), one));
}

static void warp_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(N / 64)}, .block = {cute_i(64)}};
    CUTE_LAUNCH(c, warp_kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor);
}

static void warps_and_atomics(void)
{
    cute_arg_spec specs[3] = {cute_spec_tensor(CUTE_F32, "64:1", 4), cute_spec_tensor(CUTE_F32, "2:1", 4),
                              cute_spec_tensor(CUTE_F32, "64:1", 4)};
    char err[1024];
    const cute_fn *f = cute_compile(rt, "warps", warp_host, NULL, 3, specs, err, sizeof err);
    CHECK(f != NULL, "%s", err);
    if (!f) return;
    /* the same kernel through CUDA C and NVRTC, for sm_80 and sm_90a (no GPU needed) */
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) == CUTE_OK) {
        const cute_ir_func *k = cute_fn_kernel(f, 0);
        char *src = NULL;
        CHECK(cute_cuda_c_emit(&k, 1, NULL, &src, err, sizeof err) == CUTE_OK, "%s", err);
        for (int a = 0; a < 2 && src; a++) {
            cute_nvrtc_output o;
            cute_nvrtc_opts opt = {0};
            opt.arch = a ? "sm_90a" : "sm_80";
            CHECK(cute_nvrtc_compile(nv, src, &opt, &o) == CUTE_OK, "%s: %s", opt.arch, o.log);
            cute_nvrtc_output_free(&o);
        }
        free(src);
        cute_nvrtc_close(nv);
    } else {
        SKIP("NVRTC not found: the warp kernel was not compiled to CUDA");
    }
    float x[N], out[2] = {0, 0}, y[N];
    for (int i = 0; i < N; i++) x[i] = (float)(i % 7) - 3.0f;
    cute_buffer X, O, Y;
    be->vt->alloc(be->self, sizeof x, &X), be->vt->alloc(be->self, sizeof out, &O), be->vt->alloc(be->self, sizeof y, &Y);
    be->vt->upload(be->self, &X, 0, x, sizeof x), be->vt->upload(be->self, &O, 0, out, sizeof out);
    int64_t n64[1] = {N}, n2[1] = {2}, unit[1] = {1};
    cute_call_arg args[3] = {cute_call_tensor(&X, 0, CUTE_F32, 1, n64, unit),
                             cute_call_tensor(&O, 0, CUTE_F32, 1, n2, unit),
                             cute_call_tensor(&Y, 0, CUTE_F32, 1, n64, unit)};
    char cerr[1024];
    cute_status s = cute_call(f, NULL, 3, args, cerr, sizeof cerr);
    be->vt->sync(be->self, NULL);
    CHECK(s == CUTE_OK, "%s", cerr);
    be->vt->download(be->self, out, &O, 0, sizeof out), be->vt->download(be->self, y, &Y, 0, sizeof y);
    float want = 0;
    int bad = 0;
    for (int i = 0; i < N; i++) {
        want += x[i];
        double e = exp((double)x[i]);
        bad += !(fabs(y[i] - e) <= 1e-5 * e);
    }
    CHECK(out[0] == want && out[1] == 0, "warp sums %g (want %g), votes %g (want 0)", out[0], want, out[1]);
    CHECK(bad == 0, "%d fast exps off by more than 1e-5", bad);
    be->vt->free(be->self, &X), be->vt->free(be->self, &O), be->vt->free(be->self, &Y);
    cute_fn_free(f);
}

/* a host function that misuses the DSL: compile fails with the line */
static void bad_host(cute_ctx *c, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tiler T = cute_tiler_parse(a, "12:1");
    cute_tensor t = arg[0].tensor;
    /* 12 elements of (8,?):(1,16): the first mode holds 8, and 8 does not divide 12 */
    cute_tensor u = cute_tensor_compose(c, t, &T);
    (void)u;
}

static void compile_errors(void)
{
    cute_arg_spec specs[1] = {cute_spec_tensor(CUTE_F32, "(8,?):(1,16)", 4)};
    char err[1024];
    const cute_fn *f = cute_compile(rt, "bad", bad_host, NULL, 1, specs, err, sizeof err);
    CHECK(!f && strstr(err, "jit_test.c:") && strstr(err, "Divisibility"), "%s", err);
    cute_arg_spec broken[1] = {cute_spec_tensor(CUTE_F32, "(8,?):(1,8", 4)};
    f = cute_compile(rt, "bad", bad_host, NULL, 1, broken, err, sizeof err);
    CHECK(!f && strstr(err, "argument 0"), "a malformed spec: %s", err);
}

/* shared memory of n GiB: 4 GiB and more do not fit the launch's 32 bits */
static void smem_host(cute_ctx *c, const cute_arg *arg)
{
    cute_int bytes = cute_mul(cute_ctx_alg(c), arg[1].i, cute_i((int64_t)1 << 30));
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(32)}, .smem_bytes = bytes};
    CUTE_LAUNCH(c, twice, cfg, arg[0].tensor, arg[0].tensor);
}

static void hostile_sizes(void)
{
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, "32:1", 4), cute_spec_int("?")};
    char err[1024];
    const cute_fn *f = cute_compile(rt, "smem", smem_host, NULL, 2, specs, err, sizeof err);
    CHECK(f != NULL, "%s", err);
    if (f) {
        cute_buffer X;
        be->vt->alloc(be->self, 32 * sizeof(float), &X);
        int64_t n32[1] = {32}, unit[1] = {1};
        cute_call_arg args[2] = {cute_call_tensor(&X, 0, CUTE_F32, 1, n32, unit), cute_call_int(4)};
        char cerr[512] = "";
        cute_status s = cute_call(f, NULL, 2, args, cerr, sizeof cerr); /* 4 GiB narrows to 0 */
        CHECK(s == CUTE_ERR_INVALID && strstr(cerr, "4294967296 bytes of shared memory"),
              "4 GiB of shared memory: %d '%s'", s, cerr);
        be->vt->free(be->self, &X);
        cute_fn_free(f);
    }
    /* a void element (0 bytes) divided the host by zero while tracing; so might any other */
    int bad_dtypes[] = {CUTE_VOID, CUTE_PTR, CUTE_NDTYPES + 3};
    for (int i = 0; i < 3; i++) {
        cute_arg_spec v[2] = {cute_spec_tensor((cute_dtype)bad_dtypes[i], "32:1", 4), cute_spec_int("?")};
        f = cute_compile(rt, "void", smem_host, NULL, 2, v, err, sizeof err);
        CHECK(!f && strstr(err, "argument 0: dtype") && strstr(err, "not an element type"),
              "dtype %d: %s", bad_dtypes[i], err);
        cute_fn_free(f);
    }
}

/* kernel 3: y[i] = x[i]^2, traced only by kernel_code (so no backend has it loaded) */
static void square(cute_ctx *c, cute_tensor x, cute_tensor y)
{
    cute_tensor xi = cute_tensor_slice(c, x, cute_tuple_int(cute_thread_idx(c, 0)));
    cute_tensor yi = cute_tensor_slice(c, y, cute_tuple_int(cute_thread_idx(c, 0)));
    cute_ssa v = cute_tensor_load(c, xi);
    cute_tensor_store(c, yi, cute_ssa_binop(c, CUTE_OP_MUL, v, v));
}

static void square_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(32)}};
    CUTE_LAUNCH(c, square, cfg, arg[0].tensor, arg[1].tensor);
}

static int count_suffix(const char *dir, const char *suffix, char *last, size_t n)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls '%s' 2>/dev/null | grep -c '%s$'", dir, suffix);
    FILE *p = popen(cmd, "r");
    int k = 0;
    if (p && fscanf(p, "%d", &k) != 1) k = 0;
    if (p) pclose(p);
    snprintf(cmd, sizeof cmd, "ls '%s'/*%s 2>/dev/null | tail -1", dir, suffix);
    p = popen(cmd, "r");
    if (p && !fgets(last, (int)n, p)) last[0] = 0;
    if (p) pclose(p);
    last[strcspn(last, "\n")] = 0;
    return k;
}

/* the user's own kernel's code on any backend: cute_fn_code, and CUTEC_KEEP on the
 * interpreter (it was silently ignored there) */
static void kernel_code(void)
{
    cute_runtime *ip;
    char err[4096], dump[] = "/tmp/cutec-keep-XXXXXX", cache[] = "/tmp/cutec-keepc-XXXXXX";
    CHECK(cute_runtime_new("interp", &ip, err, sizeof err) == CUTE_OK, "%s", err);
    CHECK(mkdtemp(dump) && mkdtemp(cache), "temporary directories");
    setenv("CUTEC_KEEP", "src,ptx", 1), setenv("CUTEC_DUMP_DIR", dump, 1), setenv("CUTEC_CACHE_DIR", cache, 1);
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, "32:1", 4), cute_spec_tensor(CUTE_F32, "32:1", 4)};
    const cute_fn *f = cute_compile(ip, "square", square_host, NULL, 2, specs, err, sizeof err);
    unsetenv("CUTEC_KEEP"), unsetenv("CUTEC_DUMP_DIR"), unsetenv("CUTEC_CACHE_DIR");
    CHECK(f != NULL, "%s", err);
    if (!f) return cute_runtime_free(ip);
    char last[512] = "", *text = NULL;
    CHECK(count_suffix(dump, ".cu", last, sizeof last) == 1, "CUTEC_KEEP=src on the interpreter: one .cu in %s", dump);
    char *kept = last[0] ? check_read_file(last) : NULL;
    CHECK(kept && strstr(kept, "square"), "the kept CUDA C is the kernel's (%s)", last);
    free(kept);
    CHECK(cute_fn_code(f, "cuda", NULL, &text, err, sizeof err) == CUTE_OK && strstr(text, "__global__") &&
              strstr(text, "square"), "cute_fn_code cuda: %s", err);
    free(text), text = NULL;
    cute_status s = cute_fn_code(f, "ptx", "sm_80", &text, err, sizeof err);
    if (s == CUTE_ERR_NO_NVRTC) {
        SKIP("NVRTC not found: no PTX of the user's kernel");
    } else {
        CHECK(s == CUTE_OK && strstr(text, ".entry") && strstr(text, "square"), "cute_fn_code ptx: %s", err);
        CHECK(count_suffix(dump, ".ptx", last, sizeof last) == 1, "CUTEC_KEEP=ptx on the interpreter: one .ptx");
    }
    free(text), text = NULL;
    s = cute_fn_code(f, "sass", NULL, &text, err, sizeof err);
    if (s != CUTE_OK) SKIP("no SASS of the user's kernel (no NVRTC or no cuobjdump)");
    else CHECK(strstr(text, "square") != NULL, "cute_fn_code sass names the kernel");
    free(text), text = NULL;
    s = cute_fn_code(f, "usage", "sm_80", &text, err, sizeof err);
    if (s != CUTE_OK) SKIP("no ptxas report of the user's kernel (no NVRTC)");
    else CHECK(strstr(text, "square") && strstr(text, "registers"), "cute_fn_code usage: %s", text);
    free(text), text = NULL;
    s = cute_fn_code(f, "banks", "sm_90a", &text, err, sizeof err);
    if (s != CUTE_OK) SKIP("no FFMA bank report of the user's kernel (no NVRTC)");
    else CHECK(!strncmp(text, "ffma: longest loop ", 19), "cute_fn_code banks: %s", text);
    free(text), text = NULL;
    CHECK(cute_fn_code(f, "asm", NULL, &text, err, sizeof err) == CUTE_ERR_INVALID &&
              strstr(err, "cuda, ptx, sass, usage or banks"),
          "an unknown kind of code: %s", err);
    cute_fn_free(f);
    cute_runtime_free(ip);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dump, cache);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dump);
}

static int take_first(const cute_cache_entry *e, void *user)
{
    *(cute_cache_entry *)user = *e;
    return 1; /* stop */
}

static bool first_entry(cute_cache *c, cute_cache_entry *e)
{
    return cute_cache_list(c, take_first, e) && e->name[0];
}

/* a compile that loads nothing goes through the JIT cache (nvrtc_of.c): the second
 * cute_fn_code of a kernel is the first's, from one entry; an entry that does not parse is
 * replaced; ptxas's report is an entry of its own; CUTEC_NO_CACHE writes nothing */
static void compile_only_cache(void)
{
    cute_runtime *ip;
    char err[4096], dir[] = "/tmp/cutec-nvrtc-of-XXXXXX", last[512] = "";
    CHECK(cute_runtime_new("interp", &ip, err, sizeof err) == CUTE_OK, "%s", err);
    CHECK(mkdtemp(dir) != NULL, "a temporary directory");
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, "32:1", 4), cute_spec_tensor(CUTE_F32, "32:1", 4)};
    const cute_fn *f = cute_compile(ip, "square", square_host, NULL, 2, specs, err, sizeof err);
    CHECK(f != NULL, "%s", err);
    setenv("CUTEC_CACHE_DIR", dir, 1);
    char *a = NULL, *b = NULL;
    cute_status s = f ? cute_fn_code(f, "ptx", "sm_80", &a, err, sizeof err) : CUTE_ERR_INVALID;
    if (s == CUTE_ERR_NO_NVRTC) {
        SKIP("NVRTC not found: no compile to cache");
    } else {
        CHECK(s == CUTE_OK, "cute_fn_code ptx: %s", err);
    }
    if (s == CUTE_OK) {
        CHECK(count_suffix(dir, ".cutec", last, sizeof last) == 1, "one cache entry after the first compile");
        CHECK(cute_fn_code(f, "ptx", "sm_80", &b, err, sizeof err) == CUTE_OK && !strcmp(a, b),
              "the second PTX is the first's: %s", err);
        free(b), b = NULL;
        /* a well-formed entry whose payload is not an output */
        cute_cache_opts o = {.dir = dir, .no_memory = true};
        cute_cache *c = cute_cache_open(&o);
        cute_cache_entry e = {0};
        CHECK(c && first_entry(c, &e) && cute_cache_put(c, &e.key, "CNVO junk", 9), "an entry replaced by junk");
        cute_cache_close(c);
        CHECK(cute_fn_code(f, "ptx", "sm_80", &b, err, sizeof err) == CUTE_OK && !strcmp(a, b),
              "PTX compiled again past a payload that does not parse: %s", err);
        free(b), b = NULL;
        CHECK(cute_fn_code(f, "usage", "sm_80", &b, err, sizeof err) == CUTE_OK, "usage: %s", err);
        free(b), b = NULL;
        CHECK(cute_fn_code(f, "usage", "sm_80", &b, err, sizeof err) == CUTE_OK && b && strstr(b, "registers"),
              "ptxas's report from its own entry: %s", b ? b : err);
        CHECK(count_suffix(dir, ".cutec", last, sizeof last) == 2, "two entries: the PTX's and the report's");
        free(b), b = NULL;
        setenv("CUTEC_NO_CACHE", "1", 1);
        CHECK(cute_fn_code(f, "ptx", "sm_90a", &b, err, sizeof err) == CUTE_OK, "%s", err);
        CHECK(count_suffix(dir, ".cutec", last, sizeof last) == 2, "CUTEC_NO_CACHE: no entry written");
        unsetenv("CUTEC_NO_CACHE");
    }
    unsetenv("CUTEC_CACHE_DIR");
    free(a), free(b);
    if (f) cute_fn_free(f);
    cute_runtime_free(ip);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
    char err[512];
    if (cute_runtime_new(NULL, &rt, err, sizeof err) != CUTE_OK) {
        CHECK(false, "%s", err);
        return CHECK_DONE("jit_test");
    }
    be = cute_runtime_backend(rt);
    printf("jit_test: backend %s\n", cute_runtime_backend_name(rt));
    run_two_kernels();
    warps_and_atomics();
    compile_errors();
    hostile_sizes();
    kernel_code();
    compile_only_cache();
    cute_runtime_free(rt);
    return CHECK_DONE("jit_test");
}
