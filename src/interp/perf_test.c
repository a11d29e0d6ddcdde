/* The interpreter's cost on the two yardsticks, each checked against a CPU
 * reference: the f32 elementwise add over 2^20 elements and a 256^3 SGEMM (shared-memory
 * tiles, 16x16 threads each computing a 2x2 block of C), on one worker thread.  What is
 * checked are counts (cute_interp_stats: one dispatch per instruction per block, no more
 * decoded instructions than today), never wall-clock time, which depends on the machine's
 * load (the interpreter's speed is a benchmark's business). */
#include "interp/interp_testkit.h"

/* C[i] = A[i] + B[i] for i < n */
static cute_module *add_kernel(cute_backend be)
{
    kt k;
    kt_begin(&k, "add_f32");
    cute_vreg A = kt_param_ptr(&k, CUTE_F32, "A"), B = kt_param_ptr(&k, CUTE_F32, "B");
    cute_vreg C = kt_param_ptr(&k, CUTE_F32, "C"), n = kt_param(&k, CUTE_I64, "n");
    KT_AT(&k.b);
    cute_vreg i = kt_gtid(&k);
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_LT, i, n));
    cute_vreg a = kt_load(&k, kt_ptr_add(&k, A, i)), b = kt_load(&k, kt_ptr_add(&k, B, i));
    kt_store(&k, kt_ptr_add(&k, C, i), kt_bin(&k, CUTE_OP_ADD, a, b));
    cute_ir_end(&k.b);
    return kt_compile(be, &k);
}

static void test_add(void)
{
    int n = kt_small() ? 1 << 16 : 1 << 20;
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    srand(1);
    for (int i = 0; i < n; i++) {
        a[i] = (float)rand() / RAND_MAX * 100 - 50;
        b[i] = (float)rand() / RAND_MAX * 1e-3f;
    }
    cute_interp_opts o = {.threads = 1};
    cute_backend be = kt_backend(&o);
    cute_module *m = add_kernel(be);
    CHECK(m != NULL, "add compiles");
    cute_buffer A = kt_buf(be, a, n * 4), B = kt_buf(be, b, n * 4), C = kt_buf(be, NULL, n * 4);
    cute_launch_arg args[4] = {kt_arg_buf(&A, CUTE_F32), kt_arg_buf(&B, CUTE_F32),
                               kt_arg_buf(&C, CUTE_F32), kt_arg_int(CUTE_I64, n)};
    cute_status s = kt_launch(be, m, (uint32_t)(n + 255) / 256, 256, 0, args, 4);
    CHECK(s == CUTE_OK, "add runs: %s", be.vt->error(be.self));
    be.vt->download(be.self, c, &C, 0, n * 4);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += memcmp(&c[i], &(float){a[i] + b[i]}, 4) != 0;
    CHECK(bad == 0, "%d of %d sums differ from the CPU's", bad, n);
    /* one dispatch per instruction per block of 256 threads, each op run once per thread
     * (the IF is the one control instruction), and no more instructions than today's 17 */
    cute_interp_stats st;
    CHECK(cute_interp_last_stats(be, &st), "the interpreter's counts");
    CHECK(st.blocks == (uint64_t)n / 256 && st.dispatched == st.blocks * st.decoded &&
              st.thread_ops == (uint64_t)n * (st.decoded - 1) && st.decoded <= 17,
          "add: %llu blocks, %llu dispatched, %llu thread-ops, %u decoded",
          (unsigned long long)st.blocks, (unsigned long long)st.dispatched,
          (unsigned long long)st.thread_ops, st.decoded);
    be.vt->module_free(be.self, m);
    be.vt->destroy(be.self);
    free(a), free(b), free(c);
}

/* C = A * B, all n x n row-major; a block computes a 32x32 tile of C with 16x16 threads,
 * each thread a 2x2 block; the k loop stages 32x16 tiles of A and B in shared memory. */
static cute_module *sgemm_kernel(cute_backend be)
{
    enum { T = 32, KT = 16 };
    kt k;
    kt_begin(&k, "sgemm");
    k.f->smem_bytes = 2 * T * KT * 4;
    cute_vreg A = kt_param_ptr(&k, CUTE_F32, "A"), B = kt_param_ptr(&k, CUTE_F32, "B");
    cute_vreg C = kt_param_ptr(&k, CUTE_F32, "C"), n = kt_param(&k, CUTE_I64, "n");
    KT_AT(&k.b);
    cute_vreg tx = kt_sreg64(&k, CUTE_SREG_TID_X), ty = kt_sreg64(&k, CUTE_SREG_TID_Y);
    cute_vreg bx = kt_sreg64(&k, CUTE_SREG_CTAID_X), by = kt_sreg64(&k, CUTE_SREG_CTAID_Y);
    cute_vreg sA = kt_smem(&k, CUTE_F32, 0), sB = kt_smem(&k, CUTE_F32, T * KT * 4);
    cute_vreg row0 = kt_bin(&k, CUTE_OP_MUL, by, kt_i64(&k, T));
    cute_vreg col0 = kt_bin(&k, CUTE_OP_MUL, bx, kt_i64(&k, T));
    cute_vreg tlin = kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, ty, kt_i64(&k, 16)), tx);
    cute_vreg acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) acc[i][j] = kt_var(&k, cute_ir_const_float(&k.b, CUTE_F32, 0));
    cute_vreg kt0 = kt_for(&k, kt_i64(&k, 0), n, KT);
    /* 256 threads load 512 elements of each tile: element e = tlin + 256 * r */
    for (int r = 0; r < 2; r++) {
        cute_vreg e = kt_bin(&k, CUTE_OP_ADD, tlin, kt_i64(&k, 256 * r));
        /* A tile: T rows x KT cols: (e / KT, e % KT) */
        cute_vreg ar = kt_bin(&k, CUTE_OP_DIV, e, kt_i64(&k, KT)), ac = kt_bin(&k, CUTE_OP_REM, e, kt_i64(&k, KT));
        cute_vreg ga = kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, kt_bin(&k, CUTE_OP_ADD, row0, ar), n),
                              kt_bin(&k, CUTE_OP_ADD, kt0, ac));
        kt_store(&k, kt_ptr_add(&k, sA, e), kt_load(&k, kt_ptr_add(&k, A, ga)));
        /* B tile: KT rows x T cols: (e / T, e % T) */
        cute_vreg br = kt_bin(&k, CUTE_OP_DIV, e, kt_i64(&k, T)), bc = kt_bin(&k, CUTE_OP_REM, e, kt_i64(&k, T));
        cute_vreg gb = kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, kt_bin(&k, CUTE_OP_ADD, kt0, br), n),
                              kt_bin(&k, CUTE_OP_ADD, col0, bc));
        kt_store(&k, kt_ptr_add(&k, sB, e), kt_load(&k, kt_ptr_add(&k, B, gb)));
    }
    kt_barrier(&k);
    cute_vreg kk = kt_for(&k, kt_i64(&k, 0), kt_i64(&k, KT), 1);
    cute_vreg a[2], b[2];
    for (int i = 0; i < 2; i++) {
        cute_vreg r = kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, ty, kt_i64(&k, 2)), kt_i64(&k, i));
        a[i] = kt_load(&k, kt_ptr_add(&k, sA, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, r, kt_i64(&k, KT)), kk)));
        cute_vreg c = kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, tx, kt_i64(&k, 2)), kt_i64(&k, i));
        b[i] = kt_load(&k, kt_ptr_add(&k, sB, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, kk, kt_i64(&k, T)), c)));
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            cute_ir_mov(&k.b, acc[i][j], kt_op(&k, CUTE_OP_FMA, cute_type_of(CUTE_F32), a[i], b[j], acc[i][j]));
    cute_ir_end(&k.b); /* kk */
    kt_barrier(&k);
    cute_ir_end(&k.b); /* kt0 */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            cute_vreg r = kt_bin(&k, CUTE_OP_ADD, row0, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, ty, kt_i64(&k, 2)), kt_i64(&k, i)));
            cute_vreg c = kt_bin(&k, CUTE_OP_ADD, col0, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, tx, kt_i64(&k, 2)), kt_i64(&k, j)));
            kt_store(&k, kt_ptr_add(&k, C, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, r, n), c)), acc[i][j]);
        }
    return kt_compile(be, &k);
}

/* Every block dispatches the same instructions; every op runs for all 256 threads (the
 * control instructions: the k-tile FOR once, then per k-tile the inner FOR and two
 * barriers); at 256^3 no more than today's 136 decoded, 8971 dispatched per block. */
static void sgemm_counts(cute_backend be, int n)
{
    cute_interp_stats st;
    CHECK(cute_interp_last_stats(be, &st), "the interpreter's counts");
    uint64_t blocks = (uint64_t)(n / 32) * (uint64_t)(n / 32), control = 1 + 3 * (uint64_t)n / 16;
    uint64_t per_block = st.blocks ? st.dispatched / st.blocks : 0;
    CHECK(st.blocks == blocks && st.dispatched == blocks * per_block &&
              st.thread_ops == blocks * 256 * (per_block - control),
          "sgemm: %llu blocks, %llu dispatched, %llu thread-ops", (unsigned long long)st.blocks,
          (unsigned long long)st.dispatched, (unsigned long long)st.thread_ops);
    if (n == 256)
        CHECK(st.decoded <= 136 && per_block <= 8971, "sgemm: %u decoded, %llu per block",
              st.decoded, (unsigned long long)per_block);
}

static void test_sgemm(void)
{
    int n = kt_small() ? 64 : 256;
    float *a = malloc(n * n * 4), *b = malloc(n * n * 4), *c = malloc(n * n * 4);
    srand(2);
    for (int i = 0; i < n * n; i++) {
        a[i] = (float)(rand() % 17 - 8) / 8;
        b[i] = (float)(rand() % 13 - 6) / 4;
    }
    cute_interp_opts o = {.threads = 1};
    cute_backend be = kt_backend(&o);
    cute_module *m = sgemm_kernel(be);
    CHECK(m != NULL, "sgemm compiles");
    cute_buffer A = kt_buf(be, a, n * n * 4), B = kt_buf(be, b, n * n * 4), C = kt_buf(be, NULL, n * n * 4);
    cute_launch_arg args[4] = {kt_arg_buf(&A, CUTE_F32), kt_arg_buf(&B, CUTE_F32),
                               kt_arg_buf(&C, CUTE_F32), kt_arg_int(CUTE_I64, n)};
    cute_launch cfg = {.grid = {(uint32_t)n / 32, (uint32_t)n / 32, 1}, .block = {16, 16, 1}};
    cute_status s = be.vt->launch(be.self, m, 0, &cfg, args, 4);
    CHECK(s == CUTE_OK, "sgemm runs: %s", be.vt->error(be.self));
    be.vt->download(be.self, c, &C, 0, n * n * 4);
    /* the products and sums are exact in f32 (small multiples of 1/32), so any order agrees */
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float ref = 0;
            for (int p = 0; p < n; p++) ref = fmaf(a[i * n + p], b[p * n + j], ref);
            bad += c[i * n + j] != ref;
        }
    CHECK(bad == 0, "%d of %d elements of C differ from the CPU's", bad, n * n);
    sgemm_counts(be, n);
    be.vt->module_free(be.self, m);
    be.vt->destroy(be.self);
    free(a), free(b), free(c);
}

int main(void)
{
    test_add();
    test_sgemm();
    return CHECK_DONE("interp perf");
}
