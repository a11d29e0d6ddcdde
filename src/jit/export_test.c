/* cute_export: the exported launcher, compiled with plain cc against the CUDA driver's
 * header and the toolkit's stub libcuda (no GPU here), takes the same calls as cute_call and
 * refuses the same ones: for each case both check the same arguments, and where both accept,
 * the launcher plans the launches the compiled function would make (grid, block, shared
 * bytes, every parameter).  Skips visibly without NVRTC, cc or the toolkit. */
#include <dlfcn.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "cutec/export.h"
#include "cutec/notation.h"
#include "jit_internal.h"

/* the launcher's types (export_types.inc), as its ABI lays them out */
typedef struct aot_arg {
    int kind;
    const cute_dlpack_tensor *tensor;
    int64_t i;
    double f;
} aot_arg;
typedef struct aot_launch {
    int kernel, nparams;
    unsigned grid[3], block[3], cluster[3], smem_bytes;
    uint64_t slot[64];
} aot_launch;
typedef struct aot_plan {
    int nlaunch;
    aot_launch launch[8];
} aot_plan;
typedef int (*plan_fn)(int, const aot_arg *, aot_plan *, char *, size_t);

/* C = A + alpha B on 2-D row-major f32 tensors, a 4x32 tile per block */
static void axpy_kernel(cute_ctx *c, cute_tensor gA, cute_tensor gB, cute_tensor gC,
                        cute_tensor cC, cute_val alpha, cute_int m, cute_int n)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_layout thr = cute_layout_parse(a, "(4,8):(8,1)");
    cute_int tid = cute_thread_idx(c, 0);
    cute_tuple pick = cute_tuple_fmt(a, "((_,_),%I)", cute_block_idx(c, 0));
    cute_tensor tA = cute_tensor_local_partition(c, cute_tensor_slice(c, gA, pick), thr, tid);
    cute_tensor tB = cute_tensor_local_partition(c, cute_tensor_slice(c, gB, pick), thr, tid);
    cute_tensor tC = cute_tensor_local_partition(c, cute_tensor_slice(c, gC, pick), thr, tid);
    cute_tensor tP = cute_tensor_local_partition(c, cute_tensor_slice(c, cC, pick), thr, tid);
    cute_ssa p = cute_elem_less(c, tP, cute_tuple_fmt(a, "(%I,%I)", m, n));
    cute_ssa x = cute_tensor_load_if(c, tA, p, 0.0), y = cute_tensor_load_if(c, tB, p, 0.0);
    cute_ssa ay = cute_ssa_binop(c, CUTE_OP_MUL, y, cute_ssa_scalar(c, alpha, y.shape));
    cute_tensor_store_if(c, tC, cute_ssa_binop(c, CUTE_OP_ADD, x, ay), p);
}

static void axpy_host(cute_ctx *c, const cute_arg *arg)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_tiler tile = cute_tiler_parse(a, "(4,32)");
    cute_tensor mC = arg[2].tensor, g[3];
    for (int i = 0; i < 3; i++) g[i] = cute_tensor_zipped_divide(c, arg[i].tensor, &tile);
    cute_tensor cC = cute_tensor_zipped_divide(c, cute_make_identity_tensor(c, mC.layout.shape), &tile);
    cute_layout tiles = {cute_tuple_get(&g[2].layout.shape, 1), cute_tuple_get(&g[2].layout.stride, 1)};
    cute_launch_cfg cfg = {.grid = {cute_size(a, &tiles)}, .block = {cute_i(32)}};
    CUTE_LAUNCH(c, axpy_kernel, cfg, g[0], g[1], g[2], cC, arg[3].f, mC.layout.shape.leaf[0],
                mC.layout.shape.leaf[1]);
}

static char dir[] = "/tmp/cutec-export-XXXXXX";

static plan_fn skip(const char *why)
{
    SKIP(why);
    return NULL;
}

/* export axpy and build its launcher as a shared object; NULL (and a skip) when the tools
 * are missing */
static plan_fn build_launcher(const cute_fn *f)
{
    char err[4096], cmd[1024], lib[256];
    const char *archs[2] = {"sm_90a", "sm_80"};
    cute_status s = cute_export(f, &(cute_export_opts){.dir = dir, .archs = archs, .narchs = 2},
                                err, sizeof err);
    if (s == CUTE_ERR_NO_NVRTC) return skip("no NVRTC: cute_export not tried");
    CHECK(s == CUTE_OK, "cute_export: %s", err);
    snprintf(cmd, sizeof cmd, "%s/axpy.c", dir);
    char *text = check_read_file(cmd); /* the images' table: each arch's number and name */
    CHECK(text && strstr(text, "{90, \"sm_90a\", axpy_image0,") && strstr(text, "{80, \"sm_80\", axpy_image1,"),
          "%s: no table of sm_90a's and sm_80's images", cmd);
    free(text);
    const char *cuda = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    snprintf(cmd, sizeof cmd, "%s/include/cuda.h", cuda);
    if (s != CUTE_OK || access(cmd, R_OK) != 0) return skip("no cuda.h: the launcher not compiled");
    snprintf(lib, sizeof lib, "%s/lib64/stubs/libcuda.so", cuda);
    snprintf(cmd, sizeof cmd, "cc -std=c11 -Wall -Wextra -Werror -fPIC -shared -I%s/include "
             "%s/axpy.c -L%s/lib64/stubs -lcuda -o %s/libaxpy.so", cuda, dir, cuda, dir);
    CHECK(system(cmd) == 0, "%s", cmd);
    /* the stub first, so that the launcher's libcuda.so.1 is it */
    if (!dlopen(lib, RTLD_NOW | RTLD_GLOBAL)) return skip("no stub libcuda");
    snprintf(cmd, sizeof cmd, "%s/libaxpy.so", dir);
    void *h = dlopen(cmd, RTLD_NOW);
    CHECK(h != NULL, "dlopen: %s", dlerror());
    return h ? (plan_fn)(uintptr_t)dlsym(h, "axpy_plan") : NULL;
}

typedef struct call_case {
    const char *what;
    int64_t m, n, lda;  /* A's extents and row stride (B and C compact) */
    size_t a_offset;    /* bytes */
    int nargs, a_ndim, a_dtype_bits, c_is_a;
    const char *want;   /* a piece of both messages; NULL: accepted */
    int64_t ldb;        /* B's row stride (0: compact) */
} call_case;

/* one case through cute_call_prepare and the launcher's plan */
static void compare(const cute_fn *f, plan_fn plan, const cute_buffer *buf, const call_case *k)
{
    int64_t shA[2] = {k->m, k->n}, stA[2] = {k->lda, 1}, sh[2] = {k->m, k->n}, st[2] = {k->n, 1};
    int64_t stB[2] = {k->ldb ? k->ldb : k->n, 1};
    cute_dtype da = k->a_dtype_bits == 16 ? CUTE_F16 : CUTE_F32;
    cute_call_arg args[4] = {cute_call_tensor(&buf[0], k->a_offset, da, k->a_ndim, shA, stA),
                             cute_call_tensor(&buf[1], 0, CUTE_F32, 2, sh, stB),
                             cute_call_tensor(&buf[k->c_is_a ? 0 : 2], 0, CUTE_F32, 2, sh, st),
                             cute_call_float(0.5)};
    cute_dlpack_tensor t[3];
    aot_arg x[4];
    for (int i = 0; i < 3; i++) {
        t[i] = (cute_dlpack_tensor){.data = args[i].buf->ptr, .ndim = args[i].ndim,
                                    .dtype = {2, i ? 32 : (uint8_t)k->a_dtype_bits, 1},
                                    .shape = args[i].shape, .strides = args[i].stride,
                                    .byte_offset = args[i].offset};
        x[i] = (aot_arg){.kind = 0, .tensor = &t[i]};
    }
    x[3] = (aot_arg){.kind = 2, .f = 0.5};
    char e1[1024], e2[1024];
    cute_call_frame *fr = cute_call_frame_new();
    aot_plan p;
    cute_status s = cute_call_prepare(f, fr, k->nargs, args, e1, sizeof e1);
    int ok = plan(k->nargs, x, &p, e2, sizeof e2);
    CHECK((s == CUTE_OK) == (ok == 1), "%s: cute_call \"%s\", launcher \"%s\"", k->what, e1, e2);
    if (k->want)
        CHECK(strstr(e1, k->want) && strstr(e2, k->want), "%s: \"%s\" / \"%s\"", k->what, e1, e2);
    CHECK(!ok || p.nlaunch == fr->nlaunch, "%s: %d launches, %d", k->what, p.nlaunch, fr->nlaunch);
    for (int i = 0; ok && i < p.nlaunch && i < fr->nlaunch; i++) {
        const cute_launch *L = &fr->cfg[i];
        CHECK(p.launch[i].grid[0] == L->grid.x && p.launch[i].block[0] == L->block.x &&
              p.launch[i].smem_bytes >= L->smem_bytes, "%s: grid %u block %u", k->what,
              p.launch[i].grid[0], p.launch[i].block[0]);
        for (int q = 0; q < p.launch[i].nparams; q++) {
            const cute_launch_arg *a = &fr->args[i][q];
            uint64_t want = a->buf ? (uint64_t)(uintptr_t)a->buf->ptr + a->offset : (uint64_t)a->v.i;
            if (cute_dtype_is_float((cute_dtype)a->type.dtype)) {
                float v = (float)a->v.f;
                want = 0;
                memcpy(&want, &v, 4);
            } else if (!a->buf && cute_dtype_bytes((cute_dtype)a->type.dtype) == 4) {
                want &= 0xffffffffu;
            }
            CHECK(p.launch[i].slot[q] == want, "%s: parameter %d: %llx, want %llx", k->what, q,
                  (unsigned long long)p.launch[i].slot[q], (unsigned long long)want);
        }
    }
    cute_call_frame_free(fr);
}

static const call_case cases[] = {
    {"compact 10x36", 10, 36, 36, 0, 4, 2, 32, 0, NULL, 0},
    {"36 columns, A's rows 40 apart", 10, 36, 40, 0, 4, 2, 32, 0, "a compact tensor of this shape", 0},
    {"35 columns", 10, 35, 35, 0, 4, 2, 32, 0, "not a multiple of 4", 0},
    {"A 4 bytes in", 10, 36, 36, 4, 4, 2, 32, 0, "16-byte aligned", 0},
    {"A of rank 1", 10, 36, 36, 0, 4, 1, 32, 0, "1 dimensions given, 2 expected", 0},
    {"A of f16", 10, 36, 36, 0, 4, 2, 16, 0, "argument 0", 0},
    {"three arguments", 10, 36, 36, 0, 3, 2, 32, 0, "3 arguments given, the function takes 4", 0},
    {"C is A", 10, 36, 36, 0, 4, 2, 32, 1, "share memory", 0},
    {"no rows", 0, 36, 36, 0, 4, 2, 32, 0, NULL, 0},
    /* B's spec shares A's strides (strides_of): the same rows apart, or refused */
    {"B's rows 40 apart, A's 36", 10, 36, 36, 0, 4, 2, 32, 0, "argument 1: stride 0 is 40, argument 0's 36", 40},
};

int main(void)
{
    char err[2048], cmd[512];
    cute_runtime *rt = NULL;
    if (!mkdtemp(dir)) {
        CHECK(false, "mkdtemp");
        return CHECK_DONE("export_test");
    }
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "%s", err);
    cute_arg_spec specs[4] = {cute_spec_tensor_compact(CUTE_F32, "(?,?{div=4})", true, 16),
                              cute_spec_tensor(CUTE_F32, "(?,?{div=4}):(?{div=4},1)", 16),
                              cute_spec_tensor_compact(CUTE_F32, "(?,?{div=4})", true, 16),
                              cute_spec_float(CUTE_F32)};
    specs[1].strides_of = 1 + 0; /* B addressed as A (the kernel does not, but the check is the spec's) */
    const cute_fn *f = rt ? cute_compile(rt, "axpy", axpy_host, NULL, 4, specs, err, sizeof err) : NULL;
    CHECK(f != NULL, "compile: %s", err);
    cute_status s = f ? cute_export(f, &(cute_export_opts){.name = "9lives"}, err, sizeof err)
                      : CUTE_ERR_INVALID;
    CHECK(s == CUTE_ERR_INVALID && (!f || strstr(err, "not a C identifier")), "%s", err);
    plan_fn plan = f ? build_launcher(f) : NULL;
    cute_backend *b = rt ? cute_runtime_backend(rt) : NULL;
    cute_buffer buf[3];
    for (int i = 0; plan && i < 3; i++) b->vt->alloc(b->self, 64 * 64 * 4, &buf[i]);
    for (size_t i = 0; plan && i < sizeof cases / sizeof *cases; i++) compare(f, plan, buf, &cases[i]);
    for (int i = 0; plan && i < 3; i++) b->vt->free(b->self, &buf[i]);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0, "%s", cmd);
    cute_fn_free(f);
    cute_runtime_free(rt);
    return CHECK_DONE("export_test");
}
