/* cp.async under the interpreter: data lands at the wait that covers its group, not at issue.
 * A pipeline that waits runs clean and copies right (zero fill included); reading or writing
 * a destination before its wait, from the issuing thread or another one after a barrier, is
 * reported with both sites; wait_group N leaves the N newest groups in flight; a copy not yet
 * committed is not covered by wait_group; a copy still pending at the end is reported. */
#include "cutec/inst.h"
#include "interp/interp_testkit.h"

static cute_backend be;

typedef struct ak {
    kt k;
    cute_vreg g, o, t, s; /* global source (u32), output (u32), thread, shared (u32) */
} ak;

static void begin(ak *a, const char *name)
{
    kt_begin(&a->k, name);
    a->g = kt_param_ptr(&a->k, CUTE_U32, "g");
    a->o = kt_param_ptr(&a->k, CUTE_U32, "o");
    a->t = kt_sreg64(&a->k, CUTE_SREG_TID_X);
    a->k.f->smem_bytes = 4096;
    a->s = kt_smem(&a->k, CUTE_U32, 0);
}

static cute_vreg at(ak *a, cute_vreg p, int64_t words_per_thread, int64_t plus)
{
    kt *k = &a->k;
    return kt_ptr_add(k, p, kt_bin(k, CUTE_OP_ADD, kt_bin(k, CUTE_OP_MUL, a->t, kt_i64(k, words_per_thread)), kt_i64(k, plus)));
}

/* 16 bytes: g[4t + 4*src_block ..] -> s[4t + 4*dst_block ..] (zfill: src_size given) */
static void copy16(ak *a, int dst_block, int src_block, cute_vreg src_size)
{
    cute_vreg in[3] = {at(a, a->s, 4, 128 * dst_block), at(a, a->g, 4, 128 * src_block), src_size};
    cute_ir_inst_op(&a->k.b, src_size ? CUTE_INST_CP_ASYNC_CG_16_ZFILL : CUTE_INST_CP_ASYNC_CG_16, NULL, 0, in,
                    src_size ? 3 : 2, 0);
}
static void commit(ak *a) { cute_ir_inst_op(&a->k.b, CUTE_INST_CP_ASYNC_COMMIT_GROUP, NULL, 0, NULL, 0, 0); }
static void wait_group(ak *a, int n) { cute_ir_inst_op(&a->k.b, CUTE_INST_CP_ASYNC_WAIT_GROUP, NULL, 0, NULL, 0, n); }
static void wait_all(ak *a) { cute_ir_inst_op(&a->k.b, CUTE_INST_CP_ASYNC_WAIT_ALL, NULL, 0, NULL, 0, 0); }
/* o[4t + 128 block + w] = s[4t + 128 block + w], w < 4 */
static void read_back(ak *a, int block)
{
    for (int w = 0; w < 4; w++)
        kt_store(&a->k, at(a, a->o, 4, 128 * block + w), kt_load(&a->k, at(a, a->s, 4, 128 * block + w)));
}

static uint32_t g[1024], o[1024];

/* run a's kernel on 32 threads; the status */
static cute_status run(ak *a)
{
    cute_module *m = kt_compile(be, &a->k);
    CHECK(m != NULL, "compiles");
    if (!m) return CUTE_ERR_COMPILE;
    for (int i = 0; i < 1024; i++) g[i] = (uint32_t)rand() | 1u, o[i] = 0xdeadbeefu;
    cute_buffer bg = kt_buf(be, g, sizeof g), bo = kt_buf(be, o, sizeof o);
    cute_launch_arg args[2] = {kt_arg_buf(&bg, CUTE_U32), kt_arg_buf(&bo, CUTE_U32)};
    cute_status s = kt_launch(be, m, 1, 32, 0, args, 2);
    be.vt->download(be.self, o, &bo, 0, sizeof o);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bg), be.vt->free(be.self, &bo);
    return s;
}

/* two stages, each waited for; the second zero-fills all but src_size = 4t % 17 bytes */
static void pipeline(void)
{
    ak a;
    begin(&a, "pipeline");
    copy16(&a, 0, 0, 0);
    commit(&a);
    cute_vreg n = kt_cvt(&a.k, kt_bin(&a.k, CUTE_OP_REM, kt_bin(&a.k, CUTE_OP_MUL, a.t, kt_i64(&a.k, 4)), kt_i64(&a.k, 17)), CUTE_U32);
    copy16(&a, 1, 1, n);
    commit(&a);
    wait_group(&a, 1);
    read_back(&a, 0);
    wait_group(&a, 0);
    kt_barrier(&a.k);
    read_back(&a, 1);
    CHECK(run(&a) == CUTE_OK, "runs clean: %s", be.vt->error(be.self));
    int bad = 0;
    for (int t = 0; t < 32; t++)
        for (int w = 0; w < 4; w++) {
            int size = 4 * t % 17;
            bad += o[4 * t + w] != g[4 * t + w];
            uint32_t want = 0;
            for (int b = 0; b < 4; b++)
                if (4 * w + b < size) want |= g[128 + 4 * t + w] & 0xffu << (8 * b);
            bad += o[128 + 4 * t + w] != want;
        }
    CHECK(bad == 0, "copies and zero fill: %d words wrong", bad);
}

/* the report of a's kernel: kind and the two lines in its message */
static void expect(ak *a, int line, int copy_line, const char *what)
{
    CHECK(run(a) == CUTE_ERR_CHECK, "%s: a check", what);
    const cute_interp_report *r = kt_report(be, 0);
    char issued[96];
    snprintf(issued, sizeof issued, "async_test.c:%d, and no cp.async.wait_group covering it ran since", copy_line);
    CHECK(r && r->kind == CUTE_CHECK_ASYNC_COPY && r->line == line && strstr(r->msg, issued), "%s: %s", what,
          r ? r->msg : "no report");
    if (r) printf("  %s\n", r->msg);
}

static void read_before_wait(void)
{
    ak a;
    begin(&a, "early");
    KT_AT(&a.k.b); int copy_line = __LINE__;
    copy16(&a, 0, 0, 0);
    commit(&a);
    KT_AT(&a.k.b); int line = __LINE__;
    read_back(&a, 0);
    wait_group(&a, 0);
    expect(&a, line, copy_line, "read before the wait");
}

/* wait_group 1 leaves the newest group in flight */
static void newest_group_pending(void)
{
    ak a;
    begin(&a, "newest");
    copy16(&a, 0, 0, 0);
    commit(&a);
    KT_AT(&a.k.b); int copy_line = __LINE__;
    copy16(&a, 1, 1, 0);
    commit(&a);
    KT_AT(&a.k.b);
    wait_group(&a, 1);
    read_back(&a, 0); /* landed */
    KT_AT(&a.k.b); int line = __LINE__;
    read_back(&a, 1); /* not yet */
    wait_all(&a);
    expect(&a, line, copy_line, "the newest group");
}

/* a barrier lands nothing: another thread's read after it is still too early */
static void other_thread_after_barrier(void)
{
    ak a;
    begin(&a, "barrier");
    KT_AT(&a.k.b); int copy_line = __LINE__;
    copy16(&a, 0, 0, 0);
    commit(&a);
    kt_barrier(&a.k);
    KT_AT(&a.k.b); int line = __LINE__;
    cute_vreg neighbour = kt_ptr_add(&a.k, a.s, kt_bin(&a.k, CUTE_OP_REM, kt_bin(&a.k, CUTE_OP_MUL, kt_bin(&a.k, CUTE_OP_ADD, a.t, kt_i64(&a.k, 1)), kt_i64(&a.k, 4)), kt_i64(&a.k, 128)));
    kt_store(&a.k, at(&a, a.o, 4, 0), kt_load(&a.k, neighbour));
    wait_all(&a);
    expect(&a, line, copy_line, "another thread after a barrier");
}

/* a store over a destination in flight */
static void write_before_wait(void)
{
    ak a;
    begin(&a, "overwrite");
    KT_AT(&a.k.b); int copy_line = __LINE__;
    copy16(&a, 0, 0, 0);
    KT_AT(&a.k.b); int line = __LINE__;
    kt_store(&a.k, at(&a, a.s, 4, 2), cute_ir_const_int(&a.k.b, CUTE_U32, 7));
    wait_all(&a);
    expect(&a, line, copy_line, "a store before the wait");
}

/* wait_group waits for committed groups only; wait_all commits first */
static void uncommitted(void)
{
    ak a;
    begin(&a, "uncommitted");
    KT_AT(&a.k.b); int copy_line = __LINE__;
    copy16(&a, 0, 0, 0);
    wait_group(&a, 0);
    KT_AT(&a.k.b); int line = __LINE__;
    read_back(&a, 0);
    expect(&a, line, copy_line, "a copy not committed");
    begin(&a, "wait_all");
    copy16(&a, 0, 0, 0);
    wait_all(&a);
    read_back(&a, 0);
    CHECK(run(&a) == CUTE_OK && o[5] == g[5], "wait_all lands it: %s", be.vt->error(be.self));
}

static void pending_at_exit(void)
{
    ak a;
    begin(&a, "exit");
    copy16(&a, 0, 0, 0);
    commit(&a);
    KT_AT(&a.k.b); int line = __LINE__;
    copy16(&a, 1, 1, 0);
    commit(&a);
    wait_group(&a, 1); /* the first group lands, the second never does */
    CHECK(run(&a) == CUTE_ERR_CHECK, "a check");
    const cute_interp_report *r = kt_report(be, 0);
    CHECK(r && r->kind == CUTE_CHECK_ASYNC_COPY && r->line == line && strstr(r->msg, "still pending when the kernel ends"),
          "%s", r ? r->msg : "no report");
    if (r) printf("  %s\n", r->msg);
}

int main(void)
{
    cute_interp_opts opts = {.threads = 1};
    be = kt_backend(&opts);
    srand(5);
    pipeline();
    read_before_wait();
    newest_group_pending();
    other_thread_after_barrier();
    write_before_wait();
    uncommitted();
    pending_at_exit();
    be.vt->destroy(be.self);
    return CHECK_DONE("interp async");
}
