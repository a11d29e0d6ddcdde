/* TensorSSA arithmetic on f16 and bf16 in paired instructions (ssa_half2.c, issue 12 item
 * 8c): add, sub, mul, min, max, neg and fma of 33 elements (16 pairs and an odd one) lower
 * to fma/min/max/neg .f16x2 / .bf16x2 rows, two elements to an instruction, and every
 * result is the exact value rounded once to nearest even, checked bit for bit against a
 * reference in exact integer arithmetic (values scaled by 2^48 in 128 bits), on the
 * interpreter and the GPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends.h"
#include "check.h"
#include "cutec/inst.h"
#include "cutec/jit.h"
#include "cutec/numeric.h"
#include "kernels/ew_ref.h"

enum { N = 33, OPS = 7 }; /* add, sub, mul, min, max, neg, fma */
typedef __int128 i128;

static void kernel(cute_ctx *c, cute_tensor a, cute_tensor b, cute_tensor d, cute_tensor out)
{
    cute_ssa x = cute_tensor_load(c, a), y = cute_tensor_load(c, b), z = cute_tensor_load(c, d);
    cute_ssa r[OPS] = {cute_ssa_binop(c, CUTE_OP_ADD, x, y), cute_ssa_binop(c, CUTE_OP_SUB, x, y),
                       cute_ssa_binop(c, CUTE_OP_MUL, x, y), cute_ssa_binop(c, CUTE_OP_MIN, x, y),
                       cute_ssa_binop(c, CUTE_OP_MAX, x, y), cute_ssa_unop(c, CUTE_OP_NEG, x),
                       cute_ssa_fma(c, x, y, z)};
    for (int k = 0; k < OPS; k++) cute_tensor_store(c, cute_tensor_slice(c, out, CUTE_CRD(CUTE_ALL, k)), r[k]);
}

static void host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(1)}};
    CUTE_LAUNCH(c, kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor, arg[3].tensor);
}

static double widen(cute_dtype d, uint16_t h) { return d == CUTE_F16 ? cute_f16_to_f32(h) : cute_bf16_to_f32(h); }
static uint16_t narrow(cute_dtype d, double x) { return d == CUTE_F16 ? cute_f64_to_f16(x) : cute_f64_to_bf16(x); }

/* x (a 16-bit float, or a product of two) times 2^48, exactly */
static i128 scaled(double x) { return (i128)ldexp(x, 48); }

/* the 16-bit code nearest to v / 2^48, ties to the even code: the neighbours of a guess */
static uint16_t round_exact(cute_dtype d, i128 v)
{
    uint16_t guess = narrow(d, ldexp((double)v, -48)), best = guess;
    i128 bestd = -1;
    for (int k = -2; k <= 2; k++) {
        uint16_t code = (uint16_t)(guess + k);
        double w = widen(d, code);
        if ((code ^ guess) & 0x8000u || !isfinite(w) || ldexp(w, 48) != floor(ldexp(w, 48)))
            continue; /* another sign, or too small to be a candidate at this scale */
        i128 dist = scaled(w) - v;
        dist = dist < 0 ? -dist : dist;
        if (bestd < 0 || dist < bestd || (dist == bestd && !(code & 1))) best = code, bestd = dist;
    }
    return best;
}

static uint16_t reference(cute_dtype d, int op, uint16_t a, uint16_t b, uint16_t e)
{
    double x = widen(d, a), y = widen(d, b);
    switch (op) {
    case 0: return round_exact(d, scaled(x) + scaled(y));
    case 1: return round_exact(d, scaled(x) - scaled(y));
    case 2: return round_exact(d, scaled(x * y)); /* exact: 11 x 11 (8 x 8) bits */
    case 3: return x < y ? a : b;
    case 4: return x > y ? a : b;
    case 5: return a ^ 0x8000u;
    default: return round_exact(d, scaled(x * y) + scaled(widen(d, e)));
    }
}

/* the paired rows in the kernel's IR */
static int paired_rows(const cute_ir_block *blk)
{
    int n = 0;
    for (uint32_t i = 0; i < blk->n; i++) {
        int64_t r = blk->inst[i].imm2;
        n += blk->inst[i].op == CUTE_OP_INST &&
             (r == CUTE_INST_FMA_RN_F16X2 || r == CUTE_INST_FMA_RN_BF16X2 || r == CUTE_INST_MIN_F16X2 ||
              r == CUTE_INST_MIN_BF16X2 || r == CUTE_INST_MAX_F16X2 || r == CUTE_INST_MAX_BF16X2 ||
              r == CUTE_INST_NEG_F16X2 || r == CUTE_INST_NEG_BF16X2);
        for (int k = 0; k < 2; k++)
            if (blk->inst[i].body[k]) n += paired_rows(blk->inst[i].body[k]);
    }
    return n;
}

static void run(cute_runtime *rt, const char *where, cute_dtype d, uint64_t *seed)
{
    cute_backend *be = cute_runtime_backend(rt);
    cute_arg_spec specs[4] = {cute_spec_tensor(d, "33:1", 2), cute_spec_tensor(d, "33:1", 2),
                              cute_spec_tensor(d, "33:1", 2), cute_spec_tensor(d, "(33,7):(1,33)", 2)};
    char err[1024];
    const cute_fn *f = cute_compile(rt, "half2", host, NULL, 4, specs, err, sizeof err);
    CHECK(f != NULL, "%s %s: %s", where, cute_dtype_name(d), err);
    if (!f) return;
    int rows = paired_rows(&cute_fn_kernel(f, 0)->body);
    CHECK(rows == OPS * (N + 1) / 2, "%s: %d paired instructions, want %d", cute_dtype_name(d), rows, OPS * (N + 1) / 2);
    uint16_t in[3][N], out[OPS * N];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < N; i++) { /* gaussian, 2^-6 <= |x|: products exact at the 2^-48 scale */
            double x = ew_random(seed) * 8;
            in[k][i] = narrow(d, fabs(x) < 0x1p-6 ? copysign(0x1p-6, x) : x);
        }
    for (int i = 0; i < OPS * N; i++) out[i] = 0xA5A5u;
    cute_buffer B[4];
    for (int k = 0; k < 3; k++) be->vt->alloc(be->self, sizeof in[k], &B[k]), be->vt->upload(be->self, &B[k], 0, in[k], sizeof in[k]);
    be->vt->alloc(be->self, sizeof out, &B[3]), be->vt->upload(be->self, &B[3], 0, out, sizeof out);
    int64_t n1[1] = {N}, s1[1] = {1}, n2[2] = {N, OPS}, s2[2] = {1, N};
    cute_call_arg args[4] = {cute_call_tensor(&B[0], 0, d, 1, n1, s1), cute_call_tensor(&B[1], 0, d, 1, n1, s1),
                             cute_call_tensor(&B[2], 0, d, 1, n1, s1), cute_call_tensor(&B[3], 0, d, 2, n2, s2)};
    cute_status s = cute_call(f, NULL, 4, args, err, sizeof err);
    if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
    CHECK(s == CUTE_OK, "%s %s: %s", where, cute_dtype_name(d), err);
    be->vt->download(be->self, out, &B[3], 0, sizeof out);
    static const char *const names[OPS] = {"add", "sub", "mul", "min", "max", "neg", "fma"};
    for (int op = 0; op < OPS; op++) {
        int bad = 0, first = -1;
        for (int i = 0; i < N; i++)
            if (out[op * N + i] != reference(d, op, in[0][i], in[1][i], in[2][i])) bad++, first = first < 0 ? i : first;
        CHECK(bad == 0, "%s %s %s: %d of %d wrong (element %d: got 0x%04x, want 0x%04x)", where, cute_dtype_name(d),
              names[op], bad, N, first, first < 0 ? 0 : out[op * N + first],
              first < 0 ? 0 : reference(d, op, in[0][first], in[1][first], in[2][first]));
    }
    for (int k = 0; k < 4; k++) be->vt->free(be->self, &B[k]);
    cute_fn_free(f);
}

int main(void)
{
    uint64_t seed = (uint64_t)time(NULL) | 1;
    const char *what = "the paired f16/bf16 arithmetic";
    printf("half2_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    for (int round = 0; round < 20; round++) check_half_types("interp", "the interpreter", &seed, run, what);
    check_half_types("cuda", "the GPU", &seed, run, what);
    return CHECK_DONE("half2_test");
}
