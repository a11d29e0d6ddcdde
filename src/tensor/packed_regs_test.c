/* Packed register tensors (packed_regs.c): 8- and 16-bit elements in 32-bit words behave as
 * any register tensor.  A kernel writes a packed (3,5) tensor whole, copies it element by
 * element through slices into a second one with another layout (mirroring the columns),
 * overwrites one row of it with ones, and stores it: every bit of every element comes back, on the
 * interpreter and the GPU.  15 elements: the last word is partly used.  (That the CUDA C of
 * packed fragments compiles, with no GPU, is kernels/gemm/spill_test's part.) */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/jit.h"
#include "cutec/numeric.h"
#include "tensor/tensor_internal.h"
#include "trace/ctx_internal.h"

enum { R = 3, C = 5 };

static void kernel(cute_ctx *c, cute_tensor x, cute_tensor y)
{
    cute_dtype d = (cute_dtype)x.dtype;
    cute_alg *a = cute_ctx_alg(c);
    cute_tensor r = tensor_make_packed_rmem(c, d, cute_layout_parse(a, "(3,5):(1,3)"));
    cute_tensor r2 = tensor_make_packed_rmem(c, d, cute_layout_parse(a, "(3,5):(5,1)"));
    CHECK(r.pack == 4 / cute_dtype_bytes(d) && cute_ir_type(c->fn, r.regs[0]).dtype == CUTE_U32,
          "%s: %d elements to a u32 word", cute_dtype_name(d), r.pack);
    cute_tensor_store(c, r, cute_tensor_load(c, x));
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            cute_tensor_store(c, cute_tensor_slice(c, r2, CUTE_CRD(i, j)),
                              cute_tensor_load(c, cute_tensor_slice(c, r, CUTE_CRD(i, C - 1 - j))));
    cute_tensor row2 = cute_tensor_slice(c, r2, CUTE_CRD(2, CUTE_ALL));
    cute_tensor_store(c, row2, cute_ssa_fill(c, d, row2.layout.shape, 1.0));
    cute_tensor_store(c, y, cute_tensor_load(c, r2));
}

static void host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(1)}};
    CUTE_LAUNCH(c, kernel, cfg, arg[0].tensor, arg[1].tensor);
}

/* the bits of 1.0 in d */
static uint8_t one_bits(cute_dtype d, int byte)
{
    uint16_t v = d == CUTE_F16 ? cute_f32_to_f16(1.0f) : d == CUTE_BF16 ? cute_f32_to_bf16(1.0f)
               : d == CUTE_E4M3 ? 0x38 : d == CUTE_E5M2 ? 0x3c : 1;
    return (uint8_t)(v >> (8 * byte));
}

static void run(cute_runtime *rt, const char *where, cute_dtype d, uint64_t *seed)
{
    cute_backend *be = cute_runtime_backend(rt);
    int es = cute_dtype_bytes(d);
    cute_arg_spec specs[2] = {cute_spec_tensor(d, "(3,5):(5,1)", 4), cute_spec_tensor(d, "(3,5):(5,1)", 4)};
    char err[1024];
    const cute_fn *f = cute_compile(rt, "packed", host, NULL, 2, specs, err, sizeof err);
    CHECK(f != NULL, "%s %s: %s", where, cute_dtype_name(d), err);
    if (!f) return;
    uint8_t x[R * C * 2], y[R * C * 2];
    for (int i = 0; i < R * C * es; i++) {
        *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = (uint8_t)(*seed >> 56), y[i] = 0xA5; /* fresh bits; y poisoned */
    }
    cute_buffer X, Y;
    be->vt->alloc(be->self, sizeof x, &X), be->vt->alloc(be->self, sizeof y, &Y);
    be->vt->upload(be->self, &X, 0, x, sizeof x), be->vt->upload(be->self, &Y, 0, y, sizeof y);
    int64_t sh[2] = {R, C}, st[2] = {C, 1};
    cute_call_arg args[2] = {cute_call_tensor(&X, 0, d, 2, sh, st), cute_call_tensor(&Y, 0, d, 2, sh, st)};
    cute_status s = cute_call(f, NULL, 2, args, err, sizeof err);
    if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
    CHECK(s == CUTE_OK, "%s %s: %s", where, cute_dtype_name(d), err);
    be->vt->download(be->self, y, &Y, 0, sizeof y);
    int bad = 0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            for (int b = 0; b < es; b++) {
                uint8_t want = i == 2 ? one_bits(d, b) : x[(i * C + C - 1 - j) * es + b];
                bad += y[(i * C + j) * es + b] != want;
            }
    CHECK(bad == 0, "%s %s: %d bytes of 15 elements wrong", where, cute_dtype_name(d), bad);
    be->vt->free(be->self, &X), be->vt->free(be->self, &Y);
    cute_fn_free(f);
}

static void run_all(const char *backend, const char *where, uint64_t *seed)
{
    static const cute_dtype types[] = {CUTE_F16, CUTE_BF16, CUTE_E4M3, CUTE_E5M2, CUTE_I8, CUTE_U8};
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new(backend, &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no GPU: packed register tensors ran on the interpreter only");
        return;
    }
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) run(rt, where, types[i], seed);
    cute_runtime_free(rt);
}

int main(void)
{
    uint64_t seed = (uint64_t)time(NULL) | 1;
    printf("packed_regs_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    run_all("interp", "the interpreter", &seed);
    run_all("cuda", "the GPU", &seed);
    return CHECK_DONE("packed_regs_test");
}
