/* Paired values (cute_ssa_from_words, ssa_half2.c): u32 words taken as f16 or bf16 pairs go
 * through a chain of paired instructions (fma, then mul of the result by an operand) as the
 * words themselves: the kernel's IR packs no halves (no INSERT), and every half of every
 * result is the exact value rounded once to nearest even, checked bit for bit against a
 * float64 reference on the interpreter and the GPU.  And sm_100a's e2m1 decode
 * (cute_ssa_e2m1_words, cvt.rn.f16x2.e2m1x2 four bytes to a row) on the interpreter: every
 * element the f16 of its nibble, its words (cute_ssa_words) those the row wrote; refused,
 * naming the instruction, when tracing for sm_90a. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "backends.h"
#include "check.h"
#include "ir_count.h"
#include "check_interp.h"
#include "cutec/jit.h"
#include "cutec/numeric.h"
#include "kernels/ew_ref.h"

enum { W = 8 }; /* words: 16 halves */

static void kernel(cute_ctx *c, cute_tensor a, cute_tensor b, cute_tensor d, cute_tensor out)
{
    cute_dtype h = (cute_dtype)out.dtype;
    cute_ssa x = cute_ssa_from_words(c, cute_tensor_load(c, a), h);
    cute_ssa y = cute_ssa_from_words(c, cute_tensor_load(c, b), h);
    cute_ssa z = cute_ssa_from_words(c, cute_tensor_load(c, d), h);
    cute_ssa r = cute_ssa_fma(c, x, y, z);
    cute_tensor_store(c, cute_tensor_slice(c, out, CUTE_CRD(CUTE_ALL, 0)), r);
    cute_tensor_store(c, cute_tensor_slice(c, out, CUTE_CRD(CUTE_ALL, 1)),
                      cute_ssa_binop(c, CUTE_OP_MUL, r, x));
}

static void host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(1)}};
    CUTE_LAUNCH(c, kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor, arg[3].tensor);
}

static double widen(cute_dtype d, uint16_t v) { return d == CUTE_F16 ? cute_f16_to_f32(v) : cute_bf16_to_f32(v); }
static uint16_t narrow(cute_dtype d, double x) { return d == CUTE_F16 ? cute_f64_to_f16(x) : cute_f64_to_bf16(x); }

/* halves in [2^-6, 8) in magnitude: a b + c and r a are exact in float64, so rounding the
 * float64 once is the correctly rounded result */
static uint16_t random_half(cute_dtype d, uint64_t *seed)
{
    double x = ew_random(seed) * 3;
    x = fabs(x) < 0x1p-6 ? copysign(0x1p-6, x) : fabs(x) >= 8 ? copysign(7.5, x) : x;
    return narrow(d, x);
}

static void run(cute_runtime *rt, const char *where, cute_dtype d, uint64_t *seed)
{
    cute_backend *be = cute_runtime_backend(rt);
    cute_arg_spec specs[4] = {cute_spec_tensor(CUTE_U32, "8:1", 4), cute_spec_tensor(CUTE_U32, "8:1", 4),
                              cute_spec_tensor(CUTE_U32, "8:1", 4), cute_spec_tensor(d, "(16,2):(1,16)", 4)};
    char err[1024];
    const cute_fn *f = cute_compile(rt, "half2_words", host, NULL, 4, specs, err, sizeof err);
    CHECK(f != NULL, "%s %s: %s", where, cute_dtype_name(d), err);
    if (!f) return;
    /* the stores' vectors take one INSERT an element (2 x 16); packing the halves of the
     * operands again would add 2 a pair and operand (80) */
    int inserts = ir_count_ops(&cute_fn_kernel(f, 0)->body, CUTE_OP_INSERT);
    CHECK(inserts == 4 * W, "%s: %d INSERTs, want %d: the paired operands were packed again",
          cute_dtype_name(d), inserts, 4 * W);
    uint16_t in[3][2 * W], out[4 * W];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 2 * W; i++) in[k][i] = random_half(d, seed);
    for (int i = 0; i < 4 * W; i++) out[i] = 0xA5A5u;
    cute_buffer B[4];
    for (int k = 0; k < 3; k++) be->vt->alloc(be->self, sizeof in[k], &B[k]), be->vt->upload(be->self, &B[k], 0, in[k], sizeof in[k]);
    be->vt->alloc(be->self, sizeof out, &B[3]), be->vt->upload(be->self, &B[3], 0, out, sizeof out);
    int64_t n1[1] = {W}, s1[1] = {1}, n2[2] = {2 * W, 2}, s2[2] = {1, 2 * W};
    cute_call_arg args[4] = {cute_call_tensor(&B[0], 0, CUTE_U32, 1, n1, s1), cute_call_tensor(&B[1], 0, CUTE_U32, 1, n1, s1),
                             cute_call_tensor(&B[2], 0, CUTE_U32, 1, n1, s1), cute_call_tensor(&B[3], 0, d, 2, n2, s2)};
    cute_status s = cute_call(f, NULL, 4, args, err, sizeof err);
    if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
    CHECK(s == CUTE_OK, "%s %s: %s", where, cute_dtype_name(d), err);
    be->vt->download(be->self, out, &B[3], 0, sizeof out);
    int bad = 0, first = -1;
    for (int i = 0; i < 2 * W; i++) { /* element i: half i % 2 of word i / 2 (little-endian) */
        double x = widen(d, in[0][i]), y = widen(d, in[1][i]), z = widen(d, in[2][i]);
        uint16_t r = narrow(d, x * y + z), r2 = narrow(d, widen(d, r) * x);
        if (out[i] != r || out[2 * W + i] != r2) bad++, first = first < 0 ? i : first;
    }
    CHECK(bad == 0, "%s %s: %d of %d halves wrong (first %d: fma 0x%04x, mul 0x%04x)", where, cute_dtype_name(d),
          bad, 2 * W, first, first < 0 ? 0 : out[first], first < 0 ? 0 : out[2 * W + first]);
    for (int k = 0; k < 4; k++) be->vt->free(be->self, &B[k]);
    cute_fn_free(f);
}

static void e2m1_kernel(cute_ctx *c, cute_tensor in, cute_tensor out, cute_tensor words)
{
    cute_ssa h = cute_ssa_e2m1_words(c, cute_tensor_load(c, in));
    cute_tensor_store(c, out, h);
    cute_tensor_store(c, words, cute_ssa_words(c, h));
}

static void e2m1_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(1)}};
    CUTE_LAUNCH(c, e2m1_kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor);
}

static void e2m1(uint64_t *seed)
{
    char err[1024];
    cute_runtime *rt = check_interp();
    if (!rt) return;
    cute_backend *be = cute_runtime_backend(rt);
    cute_arg_spec specs[3] = {cute_spec_tensor(CUTE_U32, "4:1", 4), cute_spec_tensor(CUTE_F16, "32:1", 4),
                              cute_spec_tensor(CUTE_U32, "16:1", 4)};
    cute_runtime_set_target_arch(rt, "sm_90a");
    const cute_fn *f = cute_compile(rt, "e2m1", e2m1_host, NULL, 3, specs, err, sizeof err);
    CHECK(!f && strstr(err, "cvt.rn.f16x2.e2m1x2 needs sm_100a"), "sm_90a refused: %s", err);
    cute_runtime_set_target_arch(rt, "sm_100a");
    f = cute_compile(rt, "e2m1", e2m1_host, NULL, 3, specs, err, sizeof err);
    CHECK(f != NULL, "sm_100a: %s", err);
    uint32_t in[4];
    uint16_t out[32];
    uint32_t words[16];
    for (int i = 0; i < 4; i++) in[i] = (uint32_t)(ew_random(seed) * 0x7fffffff) * 2654435761u; /* every nibble */
    cute_buffer B[3];
    be->vt->alloc(be->self, sizeof in, &B[0]), be->vt->upload(be->self, &B[0], 0, in, sizeof in);
    be->vt->alloc(be->self, sizeof out, &B[1]), be->vt->alloc(be->self, sizeof words, &B[2]);
    cute_call_arg args[3] = {cute_call_tensor(&B[0], 0, CUTE_U32, 1, (int64_t[]){4}, (int64_t[]){1}),
                             cute_call_tensor(&B[1], 0, CUTE_F16, 1, (int64_t[]){32}, (int64_t[]){1}),
                             cute_call_tensor(&B[2], 0, CUTE_U32, 1, (int64_t[]){16}, (int64_t[]){1})};
    cute_status s = f ? cute_call(f, NULL, 3, args, err, sizeof err) : CUTE_ERR_INVALID;
    CHECK(s == CUTE_OK, "e2m1 runs: %s", err);
    be->vt->download(be->self, out, &B[1], 0, sizeof out), be->vt->download(be->self, words, &B[2], 0, sizeof words);
    int bad = 0;
    for (int e = 0; e < 32; e++) { /* element e: nibble e % 8 of word e / 8 */
        uint16_t want = cute_f32_to_f16(cute_e2m1_to_f32((uint8_t)(in[e / 8] >> 4 * (e % 8) & 0xf)));
        bad += out[e] != want || (uint16_t)(words[e / 2] >> 16 * (e % 2)) != want;
    }
    CHECK(bad == 0, "e2m1 decode: %d of 32 elements wrong (words 0x%08x ...)", bad, in[0]);
    for (int k = 0; k < 3; k++) be->vt->free(be->self, &B[k]);
    cute_fn_free(f);
    cute_runtime_free(rt);
}

int main(void)
{
    uint64_t seed = (uint64_t)time(NULL) | 1;
    const char *what = "the paired words";
    printf("half2_words_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    for (int round = 0; round < 10; round++) check_half_types("interp", "the interpreter", &seed, run, what);
    for (int round = 0; round < 4; round++) e2m1(&seed);
    check_half_types("cuda", "the GPU", &seed, run, what);
    return CHECK_DONE("half2_words_test");
}
