/* The CTA pair's tcgen05 rows (cta_group::2) on the interpreter: a cluster of two blocks of
 * four warps; each block holds its half of A (128 x 32 bf16; 64 rows for M = 128) and of B (32 of
 * the 64 rows), in
 * the canonical K-major layout (tcgen05_testkit.h); warp 0 of each allocates the pair's 64
 * columns; thread 0 of block 0 issues two M = 256, N = 64 MMAs reading both blocks' shared
 * memory and commits them to the mbarrier of both blocks (multicast, mask 3); every warp of
 * each block waits for its own and reads its 32 lanes of the block's half of D.  Against
 * float64; a relay (the commit to block 0 only, block 0 then arriving on block 1's mbarrier
 * across the cluster) computes the same; so does M = 128 (each block's 64 rows of D in CuTe's
 * "2x2" layout, tmem_frg_2sm: lanes 64.. hold N's second half, an assumption of this emulation);
 * each broken variant is reported, none hanging; the kernel compiles for sm_100a (no Blackwell
 * here). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "cutec/numeric.h"
#include "interp/gpu_testkit.h"
#include "interp/tcgen05_testkit.h"

enum { P_N = TC_N, P_HALF_N = P_N / 2, P_THREADS = 128 };
enum { P_A_OFF = 0, P_B_OFF = TC_M * TC_K * 2, P_BAR_OFF = P_B_OFF + P_HALF_N * TC_K * 2, P_SLOT_OFF = P_BAR_OFF + 8,
       P_SMEM = P_SLOT_OFF + 8, P_WORDS = P_BAR_OFF / 4 };
typedef enum {
    P_GOOD, P_RELAY, P_M128, P_MASK_ONE, P_PEER_NO_WAIT, P_PEER_NO_ALLOC, P_PEER_ONE_ALLOC, P_NO_CLUSTER_SYNC, P_NO_CLUSTER, P_VARIANTS
} pair_variant;
typedef struct pair_lines {
    int alloc, mma, wait, ld, end;
} pair_lines;

static uint16_t A[2][TC_M][TC_K], B[2][P_HALF_N][TC_K];

static cute_vreg rank_of(kt *k) { return SK_GET(k, CUTE_INST_CLUSTER_CTARANK); }
static void cluster_sync(kt *k)
{
    SK_DO(k, CUTE_INST_BARRIER_CLUSTER_ARRIVE);
    SK_DO(k, CUTE_INST_BARRIER_CLUSTER_WAIT);
}

/* the block's half of A and B from src + rank * P_WORDS */
static void copy_half(kt *k, cute_vreg src, cute_vreg rank, cute_vreg tid)
{
    cute_vreg s = kt_smem(k, CUTE_U32, 0), base = kt_cvt(k, kt_bin(k, CUTE_OP_MUL, rank, sk_u32(k, P_WORDS)), CUTE_I64);
    for (int i = 0; i < P_WORDS / P_THREADS; i++) {
        cute_vreg at = kt_cvt(k, kt_bin(k, CUTE_OP_ADD, tid, sk_u32(k, P_THREADS * i)), CUTE_I64);
        kt_store(k, kt_ptr_add(k, s, at), kt_load(k, kt_ptr_add(k, src, kt_bin(k, CUTE_OP_ADD, base, at))));
    }
}

/* warp 0 of each block: the pair's allocation (block 1 breaks it in two variants) */
static void alloc(kt *k, pair_variant v, cute_vreg rank, cute_vreg tid, pair_lines *L)
{
    sk_if(k, CUTE_OP_LT, tid, sk_u32(k, 32));
    cute_vreg slot = kt_smem(k, CUTE_U32, P_SLOT_OFF), cols = sk_u32(k, TC_COLS);
    if (v == P_PEER_NO_ALLOC || v == P_PEER_ONE_ALLOC) {
        sk_if(k, CUTE_OP_EQ, rank, sk_u32(k, 0));
        KT_AT(&k->b), L->alloc = __LINE__;
        SK_DO(k, CUTE_INST_TCGEN05_ALLOC_2SM, slot, cols);
        cute_ir_else(&k->b);
        if (v == P_PEER_ONE_ALLOC) SK_DO(k, CUTE_INST_TCGEN05_ALLOC, slot, cols);
        else { /* the address the pair's would have given, by one thread */
            sk_if(k, CUTE_OP_EQ, tid, sk_u32(k, 0));
            kt_store(k, slot, sk_u32(k, 0));
            cute_ir_end(&k->b);
        }
        cute_ir_end(&k->b);
    } else {
        KT_AT(&k->b), L->alloc = __LINE__;
        SK_DO(k, CUTE_INST_TCGEN05_ALLOC_2SM, slot, cols);
    }
    cute_ir_end(&k->b);
}

/* thread 0 of block 0: the pair's MMAs over K, then the commit (to both blocks, or to block 0) */
static void issue(kt *k, pair_variant v, cute_vreg rank, cute_vreg tid, cute_vreg taddr, cute_vreg bar, pair_lines *L)
{
    sk_if(k, CUTE_OP_EQ, kt_bin(k, CUTE_OP_OR, rank, tid), sk_u32(k, 0));
    cute_vreg a = kt_cvt(k, kt_smem(k, CUTE_U8, P_A_OFF), CUTE_U32), b = kt_cvt(k, kt_smem(k, CUTE_U8, P_B_OFF), CUTE_U32);
    uint32_t idesc = 1u << 4 | 1u << 7 | 1u << 10 | (uint32_t)(P_N >> 3) << 17 | (v == P_M128 ? 128u : 256u) >> 4 << 24;
    for (int k0 = 0; k0 < TC_K; k0 += 16) {
        KT_AT(&k->b), L->mma = __LINE__;
        SK_DO(k, CUTE_INST_TCGEN05_MMA_F16_2SM, taddr, tc_desc(k, a, k0, false), tc_desc(k, b, k0, false),
              sk_u32(k, idesc), sk_u32(k, k0 > 0));
    }
    bool both = v != P_RELAY && v != P_MASK_ONE;
    SK_DO(k, CUTE_INST_TCGEN05_COMMIT_2SM_MULTICAST, bar, cute_ir_const_int(&k->b, CUTE_U16, both ? 3 : 1));
    cute_ir_end(&k->b);
}

/* the relay: thread 0 of block 0, having seen the MMAs complete, arrives on block 1's mbarrier */
static void relay(kt *k, cute_vreg rank, cute_vreg tid, cute_vreg bar)
{
    sk_if(k, CUTE_OP_EQ, kt_bin(k, CUTE_OP_OR, rank, tid), sk_u32(k, 0));
    cute_vreg peer = SK_GET(k, CUTE_INST_MAPA, kt_op(k, CUTE_OP_CVT, cute_type_of(CUTE_U32), bar, 0, 0), sk_u32(k, 1));
    SK_DO(k, CUTE_INST_MBARRIER_ARRIVE_CLUSTER, peer);
    cute_ir_end(&k->b);
}

static cute_ir_func *pair_kernel(pair_variant v, pair_lines *L)
{
    kt k;
    cute_vreg src, out = sk_begin(&k, "tcgen05_pair", P_SMEM, &src), tid = sk_tid(&k), rank = rank_of(&k);
    cute_vreg bar = kt_smem(&k, CUTE_U64, P_BAR_OFF);
    copy_half(&k, src, rank, tid);
    sk_if(&k, CUTE_OP_EQ, tid, sk_u32(&k, 0));
    SK_DO(&k, CUTE_INST_MBARRIER_INIT, bar, sk_u32(&k, 1));
    SK_DO(&k, CUTE_INST_FENCE_MBARRIER_INIT);
    cute_ir_end(&k.b);
    alloc(&k, v, rank, tid, L);
    SK_DO(&k, CUTE_INST_FENCE_PROXY_ASYNC_SHARED_CTA);
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
    if (v == P_NO_CLUSTER_SYNC) kt_barrier(&k); /* the block's own writes only: the peer's may not have landed */
    else cluster_sync(&k);
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    cute_vreg taddr = kt_load(&k, kt_smem(&k, CUTE_U32, P_SLOT_OFF));
    issue(&k, v, rank, tid, taddr, bar, L);
    KT_AT(&k.b), L->wait = __LINE__;
    if (v == P_PEER_NO_WAIT) sk_if(&k, CUTE_OP_EQ, rank, sk_u32(&k, 0)); /* block 1 reads without waiting */
    sk_wait(&k, bar, sk_u32(&k, 0));
    if (v == P_PEER_NO_WAIT) cute_ir_end(&k.b);
    if (v == P_RELAY) relay(&k, rank, tid, bar);
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    cute_vreg row = kt_bin(&k, CUTE_OP_ADD, tid, kt_bin(&k, CUTE_OP_MUL, rank, sk_u32(&k, TC_M))); /* D's row */
    if (v == P_M128) /* each block's D: 64 rows of N / 2 columns twice over ("2x2": lanes 64.. hold N's second half) */
        tc_drain_cols(&k, kt_bin(&k, CUTE_OP_SHR, tid, sk_u32(&k, 5)), out, row, taddr, P_HALF_N, P_N, &L->ld);
    else tc_drain(&k, TC_GOOD, out, tid, row, taddr, &L->ld);
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
    KT_AT(&k.b), L->end = __LINE__;
    cluster_sync(&k); /* neither block frees or exits while the other may still use the pair's */
    sk_if(&k, CUTE_OP_LT, tid, sk_u32(&k, 32));
    SK_DO(&k, v == P_PEER_ONE_ALLOC ? CUTE_INST_TCGEN05_DEALLOC : CUTE_INST_TCGEN05_DEALLOC_2SM, taddr,
          sk_u32(&k, TC_COLS));
    cute_ir_end(&k.b);
    return k.f;
}

/* random bf16 halves and both blocks' shared-memory images */
static void operands(uint32_t *img)
{
    for (int h = 0; h < 2; h++) {
        uint8_t *bytes = (uint8_t *)(img + h * P_WORDS);
        for (int r = 0; r < TC_M; r++)
            for (int k = 0; k < TC_K; k++) {
                A[h][r][k] = cute_f32_to_bf16((float)(rand() % 2001 - 1000) / 256.0f);
                memcpy(bytes + P_A_OFF + tc_kmajor_offset(r, k), &A[h][r][k], 2);
            }
        for (int r = 0; r < P_HALF_N; r++)
            for (int k = 0; k < TC_K; k++) {
                B[h][r][k] = cute_f32_to_bf16((float)(rand() % 2001 - 1000) / 300.0f);
                memcpy(bytes + P_B_OFF + tc_kmajor_offset(r, k), &B[h][r][k], 2);
            }
    }
}

/* variant v on a cluster of two blocks (one: P_NO_CLUSTER); out (256 x 64 words) poisoned */
static cute_status run(cute_backend be, pair_variant v, pair_lines *L, uint32_t *out)
{
    static uint32_t img[2 * P_WORDS];
    operands(img);
    return tc_run(be, pair_kernel(v, L), 2, v == P_NO_CLUSTER ? 1 : 2, img, sizeof img, out, 2 * TC_M * P_N);
}

/* out against float64: row m of block h is A[h][m] times B's 64 rows (block 0's 32, then 1's) */
static void check_product(const uint32_t *out, const char *what)
{
    double worst = 0;
    for (int h = 0; h < 2; h++)
        for (int m = 0; m < TC_M; m++)
            for (int n = 0; n < P_N; n++) {
                const uint16_t *b = B[n / P_HALF_N][n % P_HALF_N];
                double want = 0, mag = 0;
                for (int k = 0; k < TC_K; k++) {
                    double p = (double)cute_bf16_to_f32(A[h][m][k]) * cute_bf16_to_f32(b[k]);
                    want += p, mag += fabs(p);
                }
                float got;
                memcpy(&got, &out[(h * TC_M + m) * P_N + n], 4);
                double err = fabs(got - want) / (mag + 1e-30);
                worst = err > worst || err != err ? (err != err ? INFINITY : err) : worst;
            }
    CHECK(worst < 1e-6, "%s: D = A B (256x64x32 bf16 over the CTA pair) against float64: worst %.3g of sum |ab|",
          what, worst);
}

/* M = 128 (64 rows a block): block h's lane L, column j holds D's row 64 h + L % 64, column
 * j + 32 (L / 64) (the "2x2" layout), A's row L % 64 of block h's half */
static void check_m128(const uint32_t *out)
{
    double worst = 0;
    for (int h = 0; h < 2; h++)
        for (int lane = 0; lane < TC_M; lane++)
            for (int j = 0; j < P_HALF_N; j++) {
                int n = j + P_HALF_N * (lane / 64);
                const uint16_t *a = A[h][lane % 64], *b = B[n / P_HALF_N][n % P_HALF_N];
                double want = 0, mag = 0;
                for (int k = 0; k < TC_K; k++) {
                    double p = (double)cute_bf16_to_f32(a[k]) * cute_bf16_to_f32(b[k]);
                    want += p, mag += fabs(p);
                }
                float got;
                memcpy(&got, &out[(h * TC_M + lane) * P_N + j], 4);
                double err = fabs(got - want) / (mag + 1e-30);
                worst = err > worst || err != err ? (err != err ? INFINITY : err) : worst;
            }
    CHECK(worst < 1e-6, "D = A B (128x64x32 bf16 over the CTA pair, M = 128: 64 rows a block in the 2x2 layout) "
          "against float64: worst %.3g of sum |ab|", worst);
}

static void good(cute_backend be)
{
    static uint32_t out[2 * TC_M * P_N];
    pair_lines L;
    CHECK(run(be, P_GOOD, &L, out) == CUTE_OK, "the pair kernel runs: %s", be.vt->error(be.self));
    check_product(out, "multicast commit");
    CHECK(run(be, P_RELAY, &L, out) == CUTE_OK, "the relayed pair kernel runs: %s", be.vt->error(be.self));
    check_product(out, "commit to block 0, relayed to block 1");
    CHECK(run(be, P_M128, &L, out) == CUTE_OK, "the pair kernel of M = 128 runs: %s", be.vt->error(be.self));
    check_m128(out);
}

typedef struct broken {
    pair_variant v;
    cute_interp_check kind;
    const char *words; /* in the message */
    int line;          /* the site it names (0: any) */
} broken;

static void each_broken(cute_backend be)
{
    pair_lines L;
    static uint32_t out[2 * TC_M * P_N];
    cute_ir_func_free(pair_kernel(P_GOOD, &L)); /* for its lines */
    const broken cases[] = {
        /* block 1 waits for ever on its mbarrier, block 0 at the last cluster barrier */
        {P_MASK_ONE, CUTE_CHECK_DEADLOCK, "128 of the cluster's 256 live threads arrived", L.end},
        {P_PEER_NO_WAIT, CUTE_CHECK_TMEM, "never written", L.ld},
        {P_PEER_NO_ALLOC, CUTE_CHECK_TMEM, "lie outside its live allocations", L.mma},
        {P_PEER_ONE_ALLOC, CUTE_CHECK_TMEM, "allocated with cta_group::1", L.mma},
        {P_NO_CLUSTER_SYNC, CUTE_CHECK_UNINIT_SHARED, "of the cluster's block 1", L.mma},
        {P_NO_CLUSTER, CUTE_CHECK_TMEM, "is not in the cluster", L.alloc},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const broken *c = &cases[i];
        cute_status s = run(be, c->v, &L, out);
        const cute_interp_report *r = kt_report(be, 0);
        bool kind_ok = r && (r->kind == c->kind ||
                             (c->v == P_NO_CLUSTER_SYNC && r->kind == CUTE_CHECK_SHARED_RACE)); /* either, by timing */
        CHECK(s != CUTE_OK && kind_ok && strstr(r->msg, c->v == P_NO_CLUSTER_SYNC && r->kind == CUTE_CHECK_SHARED_RACE
                                                         ? "cluster's block 1" : c->words) &&
                  r->line == c->line,
              "variant %d: reported (%s), want kind %d at line %d with \"%s\"", (int)c->v, r ? r->msg : "none",
              (int)c->kind, c->line, c->words);
    }
}

int main(void)
{
    srand(22);
    cute_interp_opts o = {0};
    cute_backend be = kt_backend(&o);
    good(be);
    each_broken(be);
    be.vt->destroy(be.self);
    pair_lines L;
    kt_compiles_for((cute_ir_func *[]){pair_kernel(P_GOOD, &L)}, 1, "sm_100a",
                    "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64");
    return CHECK_DONE("interp/tcgen05_pair");
}
