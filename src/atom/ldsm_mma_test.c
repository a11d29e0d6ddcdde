/* The SM80 tensor-core path end to end on one tile, written as CuTe writes it (seed 000
 * step 4, ampere/tensorop_gemm.py): A and B (32x64 bf16, K-major) go global -> swizzled
 * shared memory by cp.async (SM80_CP_ASYNC_CACHEGLOBAL<uint128>, a TiledCopy of 128 threads),
 * shared -> registers by ldmatrix (SM75_U32x4_LDSM_N through make_tiled_copy_A/B of the
 * TiledMMA, retile_D onto the MMA fragments), and C (32x32 f32) = A B^T by
 * SM80_16x8x16_F32BF16BF16F32_TN tiled over 2x2 warps; checked against a float64
 * reference.  Then again with B N-major (a "TT" GEMM's B): its shared tile is the MN-major
 * atom and ldmatrix transposes it on the way (SM75_U16x8_LDSM_T); and with no N permutation,
 * B by SM75_U32x2_LDSM_N (a lane's row address, two registers).  Nothing in the body
 * knows a fragment layout or a majorness: atoms and layouts decide.  The fragments are
 * packed (tensor/packed_regs.c): the IR moves no value in or out of a register's lanes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/atom_table.h"
#include "cutec/interp.h"
#include "cutec/jit.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "cutec/smem_atoms.h"
#include "kernels/ew_ref.h"

enum { M = 32, N = 32, K = 64 };

typedef struct plan {
    bool b_mn;   /* B is N-major */
    bool narrow; /* no N permutation: a thread holds one atom of B, loaded by ldmatrix x2 */
    cute_tiled_mma mma;
    cute_tiled_copy g2s[2], s2r_a, s2r_b; /* g2s: of A, of B */
    cute_composed smem[2];                /* (32,64) of bf16, swizzled: A's, B's */
} plan;

static cute_tensor to_smem(cute_ctx *c, const plan *p, cute_smem_allocator *A, cute_tensor g, cute_int tid, int op)
{
    cute_tensor s = cute_smem_alloc_tensor_composed(c, A, CUTE_BF16, p->smem[op], 128);
    cute_thr_copy t = cute_tiled_copy_slice(&p->g2s[op], tid);
    cute_copy(c, &p->g2s[op].atom, cute_partition_S(c, t, g), cute_partition_D(c, t, s));
    return s;
}

static void kernel(cute_ctx *c, cute_tensor gA, cute_tensor gB, cute_tensor gC)
{
    const plan *p = cute_ctx_user(c);
    cute_int tid = cute_thread_idx(c, 0);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_tensor sA = to_smem(c, p, &A, gA, tid, 0), sB = to_smem(c, p, &A, gB, tid, 1);
    cute_cp_async_commit_group(c);
    cute_cp_async_wait_group(c, 0);
    cute_barrier(c);
    cute_thr_mma thr = cute_tiled_mma_slice(&p->mma, tid);
    cute_tensor tCrA = cute_partition_fragment_A(c, thr, sA), tCrB = cute_partition_fragment_B(c, thr, sB);
    cute_tensor tCrC = cute_partition_fragment_C(c, thr, gC);
    cute_clear(c, tCrC);
    cute_thr_copy ta = cute_tiled_copy_slice(&p->s2r_a, tid), tb = cute_tiled_copy_slice(&p->s2r_b, tid);
    cute_copy(c, &p->s2r_a.atom, cute_partition_S(c, ta, sA), cute_retile_D(c, ta, tCrA));
    cute_copy(c, &p->s2r_b.atom, cute_partition_S(c, tb, sB), cute_retile_D(c, tb, tCrB));
    cute_gemm(c, &p->mma, tCrC, tCrA, tCrB, tCrC);
    cute_autovec_copy(c, tCrC, cute_partition_C(c, thr, gC));
}

static void host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(128)}};
    CUTE_LAUNCH(c, kernel, cfg, arg[0].tensor, arg[1].tensor, arg[2].tensor);
}

/* the cp.async TiledCopy and the swizzled stage of a (32,64) tile, K- or MN-major */
static void operand_plan(cute_alg *a, const cute_copy_atom *cp, bool mn, cute_tiled_copy *g2s, cute_composed *smem)
{
    /* 128 threads, each 8 consecutive elements (16 bytes) along the major mode */
    cute_layout thr = cute_layout_parse(a, mn ? "(4,32):(1,4)" : "(16,8):(8,1)");
    cute_layout val = cute_layout_parse(a, mn ? "(8,1):(1,0)" : "(1,8):(0,1)");
    *g2s = cute_make_tiled_copy_tv(a, cp, &thr, &val);
    cute_composed atom = cute_smem_atom_sm80(a, CUTE_BF16, mn ? CUTE_MAJOR_MN : CUTE_MAJOR_K, mn ? 32 : K, 128);
    cute_tuple shape = cute_tuple_parse(a, "(32,64)");
    *smem = cute_smem_layout_staged(a, &atom, &shape);
}

static bool make_plan(cute_alg *a, plan *p)
{
    cute_mma_atom mma;
    cute_copy_atom ldsm, ldsm_b, cp;
    if (!cute_mma_atom_named(a, "SM80_16x8x16_F32BF16BF16F32_TN", &mma) ||
        !cute_copy_atom_named(a, "SM75_U32x4_LDSM_N", CUTE_BF16, &ldsm) ||
        !cute_copy_atom_named(a, p->b_mn ? "SM75_U16x8_LDSM_T" : p->narrow ? "SM75_U32x2_LDSM_N" : "SM75_U32x4_LDSM_N",
                              CUTE_BF16, &ldsm_b) ||
        !cute_copy_atom_named(a, "SM80_CP_ASYNC_CACHEGLOBAL<uint128>", CUTE_BF16, &cp))
        return false;
    /* 2x2 warps; N permuted to 32 so each thread holds two atoms of B (tensorop_gemm.py's
     * permutation_mnk), which ldmatrix x4 loads at once */
    cute_layout warps = cute_layout_parse(a, "(2,2,1):(2,1,0)");
    cute_tiler perm_n = cute_tiler_parse(a, "32:1");
    p->mma = cute_make_tiled_mma(a, &mma, &warps, NULL, p->narrow ? NULL : &perm_n, NULL);
    p->s2r_a = cute_make_tiled_copy_mma(a, &ldsm, &p->mma, CUTE_MMA_A);
    p->s2r_b = cute_make_tiled_copy_mma(a, &ldsm_b, &p->mma, CUTE_MMA_B);
    operand_plan(a, &cp, false, &p->g2s[0], &p->smem[0]);
    operand_plan(a, &cp, p->b_mn, &p->g2s[1], &p->smem[1]);
    return !a->failed;
}

/* the INSERT and EXTRACT ops of a block and the blocks inside it */
static int lane_moves(const cute_ir_block *b)
{
    int n = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        n += in->op == CUTE_OP_INSERT || in->op == CUTE_OP_EXTRACT;
        for (int k = 0; k < 2; k++)
            if (in->body[k]) n += lane_moves(in->body[k]);
    }
    return n;
}

static void run(cute_runtime *rt, const char *where, int variant, uint64_t *seed)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    plan p;
    memset(&p, 0, sizeof p);
    bool b_mn = variant == 1;
    p.b_mn = b_mn, p.narrow = variant == 2;
    CHECK(make_plan(&a, &p), "plan: %s", a.error);
    if (a.failed) return;
    char err[2048];
    cute_arg_spec specs[3] = {cute_spec_tensor(CUTE_BF16, "(32,64):(64,1)", 16),
                              cute_spec_tensor(CUTE_BF16, b_mn ? "(32,64):(1,32)" : "(32,64):(64,1)", 16),
                              cute_spec_tensor(CUTE_F32, "(32,32):(1,32)", 16)};
    const cute_fn *f = cute_compile(rt, "ldsm_mma", host, &p, 3, specs, err, sizeof err);
    CHECK(f != NULL, "%s: %s", where, err);
    if (!f) return;
    /* packed fragments: what ldmatrix writes, mma.sync reads, no value unpacked in between */
    int moves = lane_moves(&cute_fn_kernel(f, 0)->body);
    CHECK(moves == 0, "variant %d: %d INSERT/EXTRACT ops between ldmatrix and mma.sync, want 0", variant, moves);
    cute_backend *be = cute_runtime_backend(rt);
    uint16_t hA[M * K], hB[N * K];
    float hC[M * N];
    for (int i = 0; i < M * K; i++) hA[i] = cute_f64_to_bf16(ew_random(seed)), hB[i] = cute_f64_to_bf16(ew_random(seed));
    for (int i = 0; i < M * N; i++) hC[i] = NAN;
    cute_buffer bA, bB, bC;
    be->vt->alloc(be->self, sizeof hA, &bA), be->vt->alloc(be->self, sizeof hB, &bB), be->vt->alloc(be->self, sizeof hC, &bC);
    be->vt->upload(be->self, &bA, 0, hA, sizeof hA), be->vt->upload(be->self, &bB, 0, hB, sizeof hB);
    be->vt->upload(be->self, &bC, 0, hC, sizeof hC);
    int64_t sk[2] = {32, 64}, tk[2] = {64, 1}, tn[2] = {1, 32}, sc[2] = {32, 32}, tc[2] = {1, 32};
    cute_call_arg args[3] = {cute_call_tensor(&bA, 0, CUTE_BF16, 2, sk, tk),
                             cute_call_tensor(&bB, 0, CUTE_BF16, 2, sk, b_mn ? tn : tk),
                             cute_call_tensor(&bC, 0, CUTE_F32, 2, sc, tc)};
    char cerr[1024] = "";
    cute_status s = cute_call(f, NULL, 3, args, cerr, sizeof cerr);
    if (s == CUTE_OK) s = be->vt->sync(be->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s %s", where, cerr, be->vt->error(be->self));
    be->vt->download(be->self, hC, &bC, 0, sizeof hC);
    int bad = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double ref = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                double x = cute_bf16_to_f32(hA[m * K + k]) * (double)cute_bf16_to_f32(hB[b_mn ? n + N * k : n * K + k]);
                ref += x, mag += fabs(x);
            }
            if (!(fabs(hC[m + 32 * n] - ref) <= 1e-5 * mag + 1e-6)) bad++;
        }
    CHECK(bad == 0, "%s, B %s-major%s: %d of %d elements of C wrong", where, b_mn ? "N" : "K",
          p.narrow ? " by ldmatrix x2" : "", bad, M * N);
    be->vt->free(be->self, &bA), be->vt->free(be->self, &bB), be->vt->free(be->self, &bC);
    cute_fn_free(f);
}

int main(void)
{
    uint64_t seed = (uint64_t)time(NULL) | 1;
    printf("ldsm_mma_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    char err[512];
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interpreter: %s", err);
    if (!check_failed) {
        for (int v = 0; v < 3; v++) run(rt, "the interpreter", v, &seed);
        cute_runtime_free(rt);
    }
    if (cute_runtime_new("cuda", &rt, err, sizeof err) == CUTE_OK) {
        for (int v = 0; v < 3; v++) run(rt, "the GPU", v, &seed);
        cute_runtime_free(rt);
    } else {
        SKIP("no GPU: ran on the interpreter only");
    }
    return CHECK_DONE("ldsm_mma_test");
}
