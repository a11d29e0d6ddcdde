/* The CUDA backend's vtable (cutec/cuda_driver.h, cutec/backend.h) on a GPU, with hand-written
 * CUDA C standing in for the code generator: compile through NVRTC and the cache, launch
 * with every parameter type, pointers at offsets, > 48 KB of dynamic shared memory; the
 * second compile shares the module, a second process (a fresh cache) hits the disk, a
 * damaged entry is rebuilt, CUTEC_KEEP writes its files, CUTEC_NO_CACHE compiles afresh.
 * Without a GPU (or NVRTC) it skips visibly. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cutec/cuda_driver.h"

static const char *source =
    "extern \"C\" __global__ void cutec_axpy(float *y, const float *x, float a, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "extern \"C\" __global__ void cutec_reverse(float *out, int n)\n"
    "{\n"
    "    extern __shared__ float s[];\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = (float)i;\n"
    "    __syncthreads();\n"
    "    for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = s[n - 1 - i];\n"
    "}\n"
    "extern \"C\" __global__ void cutec_types(long long *out, bool b, signed char c,\n"
    "    unsigned short h, int i, unsigned int u, long long l, float f, double d,\n"
    "    unsigned short f16, unsigned short bf16)\n"
    "{\n"
    "    out[0] = b; out[1] = c; out[2] = h; out[3] = i; out[4] = u; out[5] = l;\n"
    "    out[6] = (long long)(f * 1000.0f); out[7] = (long long)(d * 1e6);\n"
    "    out[8] = f16; out[9] = bf16;\n"
    "}\n";

typedef struct emitter {
    int calls;
    const char *text; /* what to emit */
} emitter;

static cute_status emit(void *user, cute_ir_func *const *kernels, int n, const char *arch,
                        bool lineinfo, char **out, char *err, size_t errn)
{
    emitter *e = user;
    (void)kernels, (void)n, (void)arch, (void)lineinfo, (void)err, (void)errn;
    e->calls++;
    *out = strdup(e->text);
    return *out ? CUTE_OK : CUTE_ERR_OOM;
}

static cute_ir_func *kernel(const char *name, int n, const cute_type *params)
{
    cute_ir_func *f = cute_ir_func_new(name);
    for (int i = 0; i < n; i++) cute_ir_add_param(f, params[i], NULL);
    return f;
}

static cute_ir_func *ks[3];

static void make_kernels(void)
{
    cute_type pf = cute_type_ptr(CUTE_F32, CUTE_GMEM);
    cute_type axpy[] = {pf, pf, cute_type_of(CUTE_F32), cute_type_of(CUTE_I32)};
    cute_type rev[] = {pf, cute_type_of(CUTE_I32)};
    cute_type types[] = {cute_type_ptr(CUTE_I64, CUTE_GMEM),
                         cute_type_of(CUTE_I1),
                         cute_type_of(CUTE_I8),
                         cute_type_of(CUTE_U16),
                         cute_type_of(CUTE_I32),
                         cute_type_of(CUTE_U32),
                         cute_type_of(CUTE_I64),
                         cute_type_of(CUTE_F32),
                         cute_type_of(CUTE_F64),
                         cute_type_of(CUTE_F16),
                         cute_type_of(CUTE_BF16)};
    ks[0] = kernel("cutec_axpy", 4, axpy);
    ks[1] = kernel("cutec_reverse", 2, rev);
    ks[2] = kernel("cutec_types", 11, types);
}

static cute_launch_arg ptr_arg(const cute_buffer *b, cute_dtype d, size_t offset)
{
    return (cute_launch_arg){.type = cute_type_ptr(d, CUTE_GMEM), .buf = b, .offset = offset};
}
static cute_launch_arg int_arg(cute_dtype d, int64_t v)
{
    cute_launch_arg a = {.type = cute_type_of(d)};
    a.v.i = v;
    return a;
}
static cute_launch_arg float_arg(cute_dtype d, double v)
{
    cute_launch_arg a = {.type = cute_type_of(d)};
    a.v.f = v;
    return a;
}

static int count_files(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t l = strlen(e->d_name), s = strlen(suffix);
        if (l > s && !strcmp(e->d_name + l - s, suffix)) n++;
    }
    if (d) closedir(d);
    return n;
}

typedef struct fixture {
    cute_cuda *cu;
    cute_nvrtc *nv;
    cute_cache *cache;
    cute_backend b;
    emitter em;
} fixture;

static bool setup(fixture *f, cute_cuda *cu, cute_nvrtc *nv, const cute_cache_opts *co)
{
    memset(f, 0, sizeof *f);
    f->cu = cu, f->nv = nv;
    f->cache = cute_cache_open(co);
    f->em.text = source;
    cute_cuda_backend_opts o = {
        .cuda = cu, .nvrtc = nv, .cache = f->cache, .emit = emit, .emit_user = &f->em};
    char err[512];
    cute_status s = cute_cuda_backend_new(&o, &f->b, err, sizeof err);
    CHECK(s == CUTE_OK, "backend: %s", err);
    return s == CUTE_OK;
}

static void teardown(fixture *f)
{
    if (f->b.vt) f->b.vt->destroy(f->b.self);
    cute_cache_close(f->cache);
}

static cute_module *compile(fixture *f, cute_status want)
{
    cute_module *m = NULL;
    const char *log = NULL;
    cute_status s = f->b.vt->compile(f->b.self, ks, 3, &m, &log);
    CHECK(s == want, "compile: %d, want %d: %s", s, want, log ? log : "(no log)");
    CHECK(log != NULL, "a log, even on success");
    return m;
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* Host time per launch, raw cuLaunchKernel (arguments packed once) against the vtable
 * (checked and packed every time): batches of 256, below the driver's queue depth so the
 * GPU never throttles the host; the best of 20 batches. */
static void time_launches(fixture *f, cute_module *m, const cute_launch *cfg,
                          const cute_launch_arg *args, cute_devptr y, cute_devptr x, int n)
{
    static int reported;
    if (reported++) return;
    cute_nvrtc_output out;
    cute_nvrtc_opts o = {.arch = cute_cuda_device(f->cu)->arch};
    void *mod = NULL, *fn = NULL;
    if (cute_nvrtc_compile(f->nv, source, &o, &out) != CUTE_OK ||
        cute_cuda_module_load(f->cu, out.cubin, &mod) != CUTE_OK ||
        cute_cuda_module_function(f->cu, mod, "cutec_axpy", &fn) != CUTE_OK) {
        CHECK(false, "raw module: %s", out.log ? out.log : cute_cuda_error(f->cu));
        cute_nvrtc_output_free(&out);
        return;
    }
    cute_nvrtc_output_free(&out);
    float a = 2.5f;
    void *params[] = {&y, &x, &a, &n};
    enum { BATCH = 256, ROUNDS = 20 };
    double raw = 1e9, vt = 1e9;
    for (int r = 0; r < ROUNDS; r++) {
        cute_cuda_sync(f->cu);
        double t0 = now_us();
        for (int i = 0; i < BATCH; i++)
            cute_cuda_launch(f->cu, fn, cfg->grid, cfg->block, 0, NULL, params);
        double t1 = now_us();
        cute_cuda_sync(f->cu);
        double t2 = now_us();
        for (int i = 0; i < BATCH; i++) f->b.vt->launch(f->b.self, m, 0, cfg, args, 4);
        double t3 = now_us();
        raw = (t1 - t0) / BATCH < raw ? (t1 - t0) / BATCH : raw;
        vt = (t3 - t2) / BATCH < vt ? (t3 - t2) / BATCH : vt;
    }
    cute_cuda_sync(f->cu);
    printf("host time per launch: cuLaunchKernel %.3f us, backend vtable %.3f us (+%.3f us: "
           "checks and packing)\n",
           raw, vt, vt - raw);
    CHECK(vt - raw < 1.0, "the backend adds under 1 us to a launch: +%.3f us", vt - raw);
    cute_cuda_module_unload(f->cu, mod);
}

static void test_axpy(fixture *f, cute_module *m)
{
    const cute_backend_vtable *vt = f->b.vt;
    int n = 1000, off = 16; /* y starts 16 floats into its buffer */
    float *x = malloc(n * sizeof *x), *y = malloc((n + off) * sizeof *y),
          *got = malloc((n + off) * sizeof *got);
    for (int i = 0; i < n + off; i++) y[i] = (float)(i % 17) - 8;
    for (int i = 0; i < n; i++) x[i] = (float)(i % 13) * 0.25f;
    cute_buffer bx, by;
    CHECK(vt->alloc(f->b.self, n * sizeof *x, &bx) == CUTE_OK, "alloc x");
    CHECK(vt->alloc(f->b.self, (n + off) * sizeof *y, &by) == CUTE_OK, "alloc y");
    CHECK(bx.id != by.id && bx.bytes == n * sizeof *x, "buffers numbered, sized");
    vt->upload(f->b.self, &bx, 0, x, n * sizeof *x);
    vt->upload(f->b.self, &by, 0, y, (n + off) * sizeof *y);
    cute_launch_arg args[] = {ptr_arg(&by, CUTE_F32, off * sizeof(float)),
                              ptr_arg(&bx, CUTE_F32, 0), float_arg(CUTE_F32, 2.5),
                              int_arg(CUTE_I32, n)};
    cute_launch cfg = {.grid = {(n + 127) / 128, 1, 1}, .block = {128, 1, 1}};
    cute_status s = vt->launch(f->b.self, m, 0, &cfg, args, 4);
    CHECK(s == CUTE_OK, "launch axpy: %s", vt->error(f->b.self));
    CHECK(vt->sync(f->b.self, NULL) == CUTE_OK, "sync: %s", vt->error(f->b.self));
    CHECK(vt->download(f->b.self, got, &by, 0, (n + off) * sizeof *got) == CUTE_OK, "download");
    int bad = 0;
    for (int i = 0; i < off; i++) bad += got[i] != y[i];
    for (int i = 0; i < n; i++) bad += got[off + i] != 2.5f * x[i] + y[off + i];
    CHECK(bad == 0, "axpy at an offset: %d wrong", bad);

    /* wrong launches are refused before the driver sees them */
    s = vt->launch(f->b.self, m, 0, &cfg, args, 3);
    CHECK(s == CUTE_ERR_INVALID && strstr(vt->error(f->b.self), "takes 4 arguments"), "too few: %s",
          vt->error(f->b.self));
    args[3] = int_arg(CUTE_I64, n);
    s = vt->launch(f->b.self, m, 0, &cfg, args, 4);
    CHECK(s == CUTE_ERR_INVALID && strstr(vt->error(f->b.self), "cutec_axpy"), "wrong type: %s",
          vt->error(f->b.self));
    s = vt->launch(f->b.self, m, 3, &cfg, args, 4);
    CHECK(s == CUTE_ERR_INVALID, "no kernel 3");
    CHECK(vt->upload(f->b.self, &bx, 8, x, n * sizeof *x) == CUTE_ERR_INVALID &&
              strstr(vt->error(f->b.self), "outside buffer"),
          "upload past the end: %s", vt->error(f->b.self));
    CHECK(vt->download(f->b.self, got, &bx, SIZE_MAX, 2) == CUTE_ERR_INVALID, "offset overflow");

    args[3] = int_arg(CUTE_I32, n);
    time_launches(f, m, &cfg, args, (cute_devptr)(uintptr_t)by.ptr, (cute_devptr)(uintptr_t)bx.ptr,
                  n);
    vt->free(f->b.self, &bx);
    vt->free(f->b.self, &by);
    CHECK(bx.ptr == NULL && by.ptr == NULL, "free clears the buffer");
    free(x), free(y), free(got);
}

static void test_smem(fixture *f, cute_module *m)
{
    const cute_backend_vtable *vt = f->b.vt;
    const cute_device_info *d = cute_cuda_device(f->cu);
    int n = (d->smem_per_block_optin < 100 * 1024 ? d->smem_per_block_optin : 100 * 1024) / 4;
    if (n * 4 <= 48 * 1024) {
        SKIP("this device allows no more than 48 KB of shared memory per block");
        return;
    }
    cute_buffer bo;
    vt->alloc(f->b.self, (size_t)n * 4, &bo);
    cute_launch_arg args[] = {ptr_arg(&bo, CUTE_F32, 0), int_arg(CUTE_I32, n)};
    cute_launch cfg = {.grid = {1, 1, 1}, .block = {256, 1, 1}, .smem_bytes = (uint32_t)n * 4};
    cute_status s = vt->launch(f->b.self, m, 1, &cfg, args, 2);
    CHECK(s == CUTE_OK, "%d KB of dynamic shared memory: %s", n * 4 / 1024, vt->error(f->b.self));
    float *got = malloc((size_t)n * 4);
    vt->sync(f->b.self, NULL);
    vt->download(f->b.self, got, &bo, 0, (size_t)n * 4);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += got[i] != (float)(n - 1 - i);
    CHECK(bad == 0, "reversed through %d KB of shared memory: %d wrong", n * 4 / 1024, bad);
    cfg.smem_bytes = (uint32_t)d->smem_per_block_optin + 1024;
    s = vt->launch(f->b.self, m, 1, &cfg, args, 2);
    CHECK(s == CUTE_ERR_INVALID && strstr(vt->error(f->b.self), "allows"),
          "more than the device allows: %s", vt->error(f->b.self));
    vt->free(f->b.self, &bo);
    free(got);
}

static void test_types(fixture *f, cute_module *m)
{
    const cute_backend_vtable *vt = f->b.vt;
    cute_buffer bo;
    vt->alloc(f->b.self, 10 * 8, &bo);
    cute_launch_arg args[] = {
        ptr_arg(&bo, CUTE_I64, 0),
        int_arg(CUTE_I1, 1),
        int_arg(CUTE_I8, -7),
        int_arg(CUTE_U16, 65000),
        int_arg(CUTE_I32, -2000000),
        int_arg(CUTE_U32, 4000000000ll),
        int_arg(CUTE_I64, -(1ll << 40)),
        float_arg(CUTE_F32, 1.5),
        float_arg(CUTE_F64, -0.25),
        float_arg(CUTE_F16, 1.0),
        float_arg(CUTE_BF16, -2.0),
    };
    cute_launch cfg = {.grid = {1, 1, 1}, .block = {1, 1, 1}};
    CHECK(vt->launch(f->b.self, m, 2, &cfg, args, 11) == CUTE_OK, "types: %s",
          vt->error(f->b.self));
    long long got[10] = {0};
    vt->sync(f->b.self, NULL);
    vt->download(f->b.self, got, &bo, 0, sizeof got);
    long long want[10] = {1,    -7,      65000,  -2000000, 4000000000ll, -(1ll << 40),
                          1500, -250000, 0x3c00, 0xc000};
    for (int i = 0; i < 10; i++)
        CHECK(got[i] == want[i], "param %d: %lld, want %lld", i + 1, got[i], want[i]);
    vt->free(f->b.self, &bo);
}

static void run_all(cute_cuda *cu, cute_nvrtc *nv, const char *root)
{
    char dir[512], dump[512], path[1024];
    snprintf(dir, sizeof dir, "%s/cache", root);
    snprintf(dump, sizeof dump, "%s/dump", root);
    cute_cache_opts co = {.dir = dir};
    fixture f;
    if (!setup(&f, cu, nv, &co)) return;

    cute_module *m = compile(&f, CUTE_OK);
    if (!m) return teardown(&f);
    cute_cache_stats st;
    cute_cache_stats_get(f.cache, &st);
    CHECK(st.misses == 1 && st.puts == 1 && count_files(dir, ".cutec") == 1,
          "first compile: a miss, one entry written");
    test_axpy(&f, m);
    test_smem(&f, m);
    test_types(&f, m);
    cute_module *again = compile(&f, CUTE_OK);
    CHECK(again == m && f.em.calls == 2, "the same source again: the loaded module, shared");
    f.b.vt->module_free(f.b.self, again);
    f.b.vt->module_free(f.b.self, m);
    teardown(&f);

    /* another process, as far as the cache can tell: a fresh handle on the same directory */
    setup(&f, cu, nv, &co);
    m = compile(&f, CUTE_OK);
    cute_cache_stats_get(f.cache, &st);
    CHECK(st.disk_hits == 1 && st.misses == 0, "a fresh cache hits the disk (%llu hits)",
          (unsigned long long)st.disk_hits);
    if (m) test_axpy(&f, m);
    f.b.vt->module_free(f.b.self, m);
    teardown(&f);

    /* a damaged entry is rebuilt */
    char hex_name[300] = "";
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".cutec") && e->d_name[0] != '.')
            snprintf(hex_name, sizeof hex_name, "%s", e->d_name);
    if (d) closedir(d);
    snprintf(path, sizeof path, "%s/%s", dir, hex_name);
    FILE *fp = fopen(path, "r+b");
    if (fp) { /* one byte of the cubin, past the 88-byte header */
        fseek(fp, 200, SEEK_SET);
        int c = fgetc(fp);
        fseek(fp, 200, SEEK_SET);
        fputc(c ^ 0xff, fp);
        fclose(fp);
    }
    setup(&f, cu, nv, &co);
    m = compile(&f, CUTE_OK);
    cute_cache_stats_get(f.cache, &st);
    CHECK(st.corrupt == 1 && st.puts == 1, "damage found (%llu), rebuilt and stored again",
          (unsigned long long)st.corrupt);
    if (m) test_axpy(&f, m);
    f.b.vt->module_free(f.b.self, m);
    teardown(&f);

    /* CUTEC_KEEP=all */
    cute_cache_opts keep = {.dir = dir,
                            .keep =
                                CUTE_KEEP_SRC | CUTE_KEEP_PTX | CUTE_KEEP_CUBIN | CUTE_KEEP_SASS,
                            .dump_dir = dump};
    setup(&f, cu, nv, &keep);
    m = compile(&f, CUTE_OK);
    CHECK(count_files(dump, ".cu") == 1 && count_files(dump, ".ptx") == 1 &&
              count_files(dump, ".cubin") == 1 && count_files(dump, ".sass") == 1,
          "CUTEC_KEEP wrote .cu .ptx .cubin .sass into %s: %s", dump, cute_cache_message(f.cache));
    f.b.vt->module_free(f.b.self, m);
    teardown(&f);

    /* CUTEC_NO_CACHE: no sharing, nothing read or written */
    char nodir[600];
    snprintf(nodir, sizeof nodir, "%s/nocache", root);
    cute_cache_opts off = {.dir = nodir, .disabled = true};
    setup(&f, cu, nv, &off);
    m = compile(&f, CUTE_OK);
    again = compile(&f, CUTE_OK);
    CHECK(m && again && m != again && count_files(nodir, ".cutec") == 0,
          "CUTEC_NO_CACHE: two compiles, two modules, no files");
    if (again) test_axpy(&f, again);
    f.b.vt->module_free(f.b.self, m);
    f.b.vt->module_free(f.b.self, again);
    teardown(&f);

    /* a compile error comes back with NVRTC's log */
    setup(&f, cu, nv, &co);
    f.em.text = "extern \"C\" __global__ void cutec_axpy() { this is not C++; }";
    const char *log = NULL;
    cute_module *bad = NULL;
    cute_status s = f.b.vt->compile(f.b.self, ks, 1, &bad, &log);
    CHECK(s == CUTE_ERR_COMPILE && bad == NULL && log && strstr(log, "error"),
          "compile error: %d %s", s, log ? log : "");
    teardown(&f);

    /* no code generator; the cache from the environment (CUTEC_CACHE_DIR, set by main) */
    cute_cuda_backend_opts bare = {.cuda = cu, .nvrtc = nv, .cache = NULL};
    cute_backend b;
    char err[256];
    if (cute_cuda_backend_new(&bare, &b, err, sizeof err) == CUTE_OK) {
        s = b.vt->compile(b.self, ks, 3, &bad, &log);
        CHECK(s == CUTE_ERR_UNSUPPORTED && strstr(log, "code generator"), "no emit: %s", log);
        CHECK(cute_cuda_backend_driver(&b) == cu, "the backend's driver");
        b.vt->destroy(b.self);
    }
}

int main(void)
{
    cute_cuda *cu = NULL;
    char err[512];
    cute_status s = cute_cuda_open(NULL, &cu, err, sizeof err);
    if (s == CUTE_ERR_NO_DRIVER) {
        char why[600];
        snprintf(why, sizeof why, "no GPU (%s)", err);
        SKIP(why);
        /* the backend says the same, and does not crash */
        cute_backend b;
        CHECK(cute_cuda_backend_new(NULL, &b, err, sizeof err) == CUTE_ERR_NO_DRIVER &&
                  b.vt == NULL && err[0],
              "backend without a driver: %s", err);
        return CHECK_DONE("cuda_backend_test");
    }
    CHECK(s == CUTE_OK, "open: %s", err);
    cute_nvrtc *nv = NULL;
    if (s == CUTE_OK && cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        char why[600];
        snprintf(why, sizeof why, "no NVRTC (%s)", err);
        SKIP(why);
        cute_cuda_close(cu);
        return CHECK_DONE("cuda_backend_test");
    }
    char root[256];
    snprintf(root, sizeof root, "%s/cutec-backend-test-XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (s == CUTE_OK && mkdtemp(root)) {
        char env[300];
        snprintf(env, sizeof env, "%s/env-cache", root);
        setenv("CUTEC_CACHE_DIR", env, 1);
        make_kernels();
        run_all(cu, nv, root);
        for (int i = 0; i < 3; i++) cute_ir_func_free(ks[i]);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    }
    cute_nvrtc_close(nv);
    cute_cuda_close(cu);
    return CHECK_DONE("cuda_backend_test");
}
