/* Deliberately broken kernels: each check fires with the right kind, block, thread, op,
 * buffer/offset and call site (file:line), the launch returns CUTE_ERR_CHECK, and nothing
 * crashes (this program also runs under ASan+UBSan: make SAN=1 test). */
#include "cutec/inst.h"
#include "interp/interp_testkit.h"

static cute_backend be;
static cute_interp_opts opts;

static void fresh(void)
{
    if (be.vt) be.vt->destroy(be.self);
    be = kt_backend(&opts);
}

/* run m on (grid x block) with args; expect one report of kind at line */
static const cute_interp_report *expect(cute_module *m, uint32_t grid, uint32_t block,
                                        const cute_launch_arg *args, int n, cute_interp_check kind,
                                        int line, const char *what)
{
    CHECK(m != NULL, "%s: compiles", what);
    if (!m) return NULL;
    cute_status s = kt_launch(be, m, grid, block, 0, args, n);
    CHECK(s == CUTE_ERR_CHECK, "%s: launch gives %d, want CUTE_ERR_CHECK", what, (int)s);
    const cute_interp_report *r = kt_report(be, 0);
    CHECK(r != NULL, "%s: a report", what);
    if (!r) return NULL;
    printf("  %s\n", r->msg);
    CHECK(r->kind == kind, "%s: kind %s, want %s", what, cute_interp_check_name(r->kind),
          cute_interp_check_name(kind));
    CHECK(r->line == line && r->file && strcmp(r->file, __FILE__) == 0, "%s: at %s:%d, want line %d",
          what, r->file ? r->file : "?", r->line, line);
    CHECK(strstr(be.vt->error(be.self), r->msg) != NULL, "%s: error() holds the report", what);
    return r;
}

/* --- out of bounds, global: no i < n guard -------------------------------------------- */
static void oob_global(void)
{
    fresh();
    kt k;
    kt_begin(&k, "oob_global");
    cute_vreg A = kt_param_ptr(&k, CUTE_F32, "A"), C = kt_param_ptr(&k, CUTE_F32, "C");
    cute_vreg i = kt_gtid(&k);
    KT_AT(&k.b); int line = __LINE__;
    cute_vreg a = kt_load(&k, kt_ptr_add(&k, A, i));
    kt_store(&k, kt_ptr_add(&k, C, i), a);
    cute_module *m = kt_compile(be, &k);
    cute_buffer bA = kt_buf(be, NULL, 1000 * 4), bC = kt_buf(be, NULL, 1024 * 4);
    cute_launch_arg args[2] = {kt_arg_buf(&bA, CUTE_F32), kt_arg_buf(&bC, CUTE_F32)};
    const cute_interp_report *r =
        expect(m, 4, 256, args, 2, CUTE_CHECK_GLOBAL_BOUNDS, line, "out-of-bounds global load");
    if (r) {
        CHECK(r->block.x == 3 && r->thread.x == 232, "first bad thread: block %u thread %u",
              r->block.x, r->thread.x);
        CHECK(strcmp(r->op, "LOAD") == 0, "op %s", r->op);
        CHECK(r->buffer == bA.id && r->offset == 4000 && r->bytes == 4,
              "buffer %llu offset %lld bytes %u", (unsigned long long)r->buffer,
              (long long)r->offset, r->bytes);
        CHECK(r->more == 23, "23 more threads of block 3 fail there, got %u", r->more);
        CHECK(strstr(r->msg, "parameter A") && strstr(r->msg, "past its end"), "%s", r->msg);
    }
    be.vt->module_free(be.self, m);
    /* the same with 4 workers: the same first report */
    opts.threads = 4;
    fresh();
    opts.threads = 1;
    kt_begin(&k, "oob_global");
    A = kt_param_ptr(&k, CUTE_F32, "A"), C = kt_param_ptr(&k, CUTE_F32, "C");
    i = kt_gtid(&k);
    KT_AT(&k.b); line = __LINE__;
    a = kt_load(&k, kt_ptr_add(&k, A, i));
    kt_store(&k, kt_ptr_add(&k, C, i), a);
    m = kt_compile(be, &k);
    bA = kt_buf(be, NULL, 1000 * 4), bC = kt_buf(be, NULL, 1024 * 4);
    args[0] = kt_arg_buf(&bA, CUTE_F32), args[1] = kt_arg_buf(&bC, CUTE_F32);
    for (int rep = 0; rep < 20; rep++) { /* the workers race: the answer must not */
        r = expect(m, 4, 256, args, 2, CUTE_CHECK_GLOBAL_BOUNDS, line, "4 workers");
        if (r) CHECK(r->block.x == 3 && r->thread.x == 232, "4 workers: block %u thread %u", r->block.x, r->thread.x);
    }
    be.vt->module_free(be.self, m);

    /* a null pointer argument, and a buffer that is not an argument */
    fresh();
    kt_begin(&k, "null");
    A = kt_param_ptr(&k, CUTE_F32, "A");
    KT_AT(&k.b); line = __LINE__;
    kt_store(&k, A, cute_ir_const_float(&k.b, CUTE_F32, 1));
    m = kt_compile(be, &k);
    cute_launch_arg null = kt_arg_buf(NULL, CUTE_F32);
    r = expect(m, 1, 1, &null, 1, CUTE_CHECK_GLOBAL_BOUNDS, line, "store through null");
    if (r) CHECK(strstr(r->msg, "null pointer") != NULL, "%s", r->msg);
    be.vt->module_free(be.self, m);
    kt_begin(&k, "elsewhere");
    A = kt_param_ptr(&k, CUTE_F32, "A");
    cute_vreg delta = kt_param(&k, CUTE_I64, "delta");
    KT_AT(&k.b); line = __LINE__;
    kt_store(&k, kt_ptr_add(&k, A, delta), cute_ir_const_float(&k.b, CUTE_F32, 1));
    m = kt_compile(be, &k);
    cute_buffer small = kt_buf(be, NULL, 16), other = kt_buf(be, NULL, 64);
    cute_launch_arg two[2] = {kt_arg_buf(&small, CUTE_F32),
                              kt_arg_int(CUTE_I64, ((char *)other.ptr - (char *)small.ptr) / 4)};
    r = expect(m, 1, 1, two, 2, CUTE_CHECK_GLOBAL_BOUNDS, line, "store into another buffer");
    if (r) CHECK(r->buffer == other.id && strstr(r->msg, "not an argument of this launch"), "%s", r->msg);
    two[1] = kt_arg_int(CUTE_I64, -1);
    r = expect(m, 1, 1, two, 2, CUTE_CHECK_GLOBAL_BOUNDS, line, "store before a buffer");
    if (r) CHECK(r->buffer == small.id && r->offset == -4 && strstr(r->msg, "4 bytes before the start"), "%s", r->msg);
    be.vt->module_free(be.self, m);
}

/* --- out of bounds, shared: 512 threads store to 1024 bytes ---------------------------- */
static void oob_shared(void)
{
    fresh();
    kt k;
    kt_begin(&k, "oob_shared");
    k.f->smem_bytes = 1024;
    cute_vreg s = kt_smem(&k, CUTE_F32, 0);
    cute_vreg t = kt_sreg64(&k, CUTE_SREG_TID_X);
    KT_AT(&k.b); int line = __LINE__;
    kt_store(&k, kt_ptr_add(&k, s, t), cute_ir_const_float(&k.b, CUTE_F32, 2));
    cute_module *m = kt_compile(be, &k);
    const cute_interp_report *r =
        expect(m, 2, 512, NULL, 0, CUTE_CHECK_SHARED_BOUNDS, line, "out-of-bounds shared store");
    if (r) {
        CHECK(r->block.x == 0 && r->thread.x == 256 && r->offset == 1024 && r->bytes == 4,
              "block %u thread %u offset %lld", r->block.x, r->thread.x, (long long)r->offset);
        CHECK(strcmp(r->op, "STORE") == 0, "op %s", r->op);
    }
    be.vt->module_free(be.self, m);
}

/* --- uninitialized shared read: s[t] = t; barrier; read s[t + 1] -------------------------- */
static void uninit_shared(void)
{
    fresh();
    kt k;
    kt_begin(&k, "uninit");
    k.f->smem_bytes = 65 * 4;
    cute_vreg out = kt_param_ptr(&k, CUTE_I32, "out");
    cute_vreg s = kt_smem(&k, CUTE_I32, 0);
    cute_vreg t = kt_sreg64(&k, CUTE_SREG_TID_X);
    kt_store(&k, kt_ptr_add(&k, s, t), kt_cvt(&k, t, CUTE_I32));
    kt_barrier(&k);
    KT_AT(&k.b); int line = __LINE__;
    cute_vreg v = kt_load(&k, kt_ptr_add(&k, s, kt_bin(&k, CUTE_OP_ADD, t, kt_i64(&k, 1))));
    kt_store(&k, kt_ptr_add(&k, out, t), v);
    cute_module *m = kt_compile(be, &k);
    cute_buffer o = kt_buf(be, NULL, 64 * 4);
    cute_launch_arg arg = kt_arg_buf(&o, CUTE_I32);
    const cute_interp_report *r =
        expect(m, 1, 64, &arg, 1, CUTE_CHECK_UNINIT_SHARED, line, "uninitialized shared read");
    if (r) CHECK(r->thread.x == 63 && r->offset == 256, "thread %u byte %lld", r->thread.x, (long long)r->offset);
    be.vt->module_free(be.self, m);
}

/* --- a missing barrier: s[t] = x; y = s[(t + 1) % n] ----------------------------------------- */
static cute_module *neighbour(bool barrier, int *line)
{
    kt k;
    kt_begin(&k, barrier ? "with_barrier" : "no_barrier");
    k.f->smem_bytes = 32 * 4;
    cute_vreg out = kt_param_ptr(&k, CUTE_I32, "out");
    cute_vreg s = kt_smem(&k, CUTE_I32, 0);
    cute_vreg t = kt_sreg64(&k, CUTE_SREG_TID_X);
    KT_AT(&k.b);
    kt_store(&k, kt_ptr_add(&k, s, t), kt_cvt(&k, t, CUTE_I32));
    if (barrier) kt_barrier(&k);
    cute_vreg nb = kt_bin(&k, CUTE_OP_REM, kt_bin(&k, CUTE_OP_ADD, t, kt_i64(&k, 1)), kt_i64(&k, 32));
    KT_AT(&k.b); *line = __LINE__;
    cute_vreg v = kt_load(&k, kt_ptr_add(&k, s, nb));
    kt_store(&k, kt_ptr_add(&k, out, t), v);
    return kt_compile(be, &k);
}

static void shared_race(void)
{
    fresh();
    int line;
    cute_module *m = neighbour(false, &line);
    cute_buffer o = kt_buf(be, NULL, 32 * 4);
    cute_launch_arg arg = kt_arg_buf(&o, CUTE_I32);
    const cute_interp_report *r =
        expect(m, 1, 32, &arg, 1, CUTE_CHECK_SHARED_RACE, line, "missing barrier");
    if (r) CHECK(r->thread.x == 0 && strstr(r->msg, "thread (1,0,0) wrote them at src/interp/checks_test.c:"), "%s", r->msg);
    be.vt->module_free(be.self, m);
    m = neighbour(true, &line);
    CHECK(kt_launch(be, m, 1, 32, 0, &arg, 1) == CUTE_OK, "with the barrier: %s", be.vt->error(be.self));
    int32_t got[32];
    be.vt->download(be.self, got, &o, 0, sizeof got);
    int bad = 0;
    for (int i = 0; i < 32; i++) bad += got[i] != (i + 1) % 32;
    CHECK(bad == 0, "neighbour values");
    be.vt->module_free(be.self, m);
}

/* --- global races: every thread writes out[0]; thread t reads out[t+1] that t+1 writes ---- */
static void global_race(void)
{
    fresh();
    kt k;
    kt_begin(&k, "global_waw");
    cute_vreg out = kt_param_ptr(&k, CUTE_I32, "out");
    cute_vreg t = cute_ir_sreg(&k.b, CUTE_SREG_TID_X);
    KT_AT(&k.b); int line = __LINE__;
    kt_store(&k, out, t);
    cute_module *m = kt_compile(be, &k);
    cute_buffer o = kt_buf(be, NULL, 64 * 4);
    cute_launch_arg arg = kt_arg_buf(&o, CUTE_I32);
    const cute_interp_report *r = expect(m, 1, 8, &arg, 1, CUTE_CHECK_GLOBAL_RACE, line, "global write-write");
    if (r) CHECK(r->buffer == o.id && r->offset == 0 && r->thread.x == 1, "buffer %llu thread %u",
                 (unsigned long long)r->buffer, r->thread.x);
    be.vt->module_free(be.self, m);

    kt_begin(&k, "global_raw");
    out = kt_param_ptr(&k, CUTE_I32, "out");
    cute_vreg t64 = kt_sreg64(&k, CUTE_SREG_TID_X);
    cute_vreg v = kt_load(&k, kt_ptr_add(&k, out, kt_bin(&k, CUTE_OP_ADD, t64, kt_i64(&k, 1))));
    KT_AT(&k.b); line = __LINE__;
    kt_store(&k, kt_ptr_add(&k, out, t64), v);
    m = kt_compile(be, &k);
    r = expect(m, 1, 8, &arg, 1, CUTE_CHECK_GLOBAL_RACE, line, "global read-write");
    if (r) CHECK(r->thread.x == 1 && r->offset == 4 && strstr(r->msg, "thread (0,0,0) read"), "%s", r->msg);
    /* different blocks may do this (no barrier can order them): not a report */
    be.vt->module_free(be.self, m);
}

/* --- a named barrier orders the global accesses of one warp's threads: thread t reads
 * out[(t+1) % 32], all meet at bar.sync 1, 32, thread t writes out[t].  Not a race (the warp
 * scheduler runs it; its logs once saw only a block barrier end an interval) -------------- */
static void global_named_barrier(void)
{
    fresh();
    kt k;
    kt_begin(&k, "global_named");
    cute_vreg out = kt_param_ptr(&k, CUTE_I32, "out");
    cute_vreg t = kt_sreg64(&k, CUTE_SREG_TID_X);
    cute_vreg nb = kt_bin(&k, CUTE_OP_REM, kt_bin(&k, CUTE_OP_ADD, t, kt_i64(&k, 1)), kt_i64(&k, 32));
    cute_vreg v = kt_load(&k, kt_ptr_add(&k, out, nb));
    cute_vreg bar[2] = {kt_i32(&k, 1), kt_i32(&k, 32)};
    cute_ir_inst_op(&k.b, CUTE_INST_BAR_SYNC, NULL, 0, bar, 2, 0);
    kt_store(&k, kt_ptr_add(&k, out, t), v);
    cute_module *m = kt_compile(be, &k);
    int32_t in[32], got[32];
    for (int i = 0; i < 32; i++) in[i] = 1000 + 7 * i;
    cute_buffer o = kt_buf(be, in, sizeof in);
    cute_launch_arg arg = kt_arg_buf(&o, CUTE_I32);
    CHECK(m && kt_launch(be, m, 1, 32, 0, &arg, 1) == CUTE_OK, "read, bar.sync, write: %s", be.vt->error(be.self));
    be.vt->download(be.self, got, &o, 0, sizeof got);
    int bad = 0;
    for (int i = 0; i < 32; i++) bad += got[i] != in[(i + 1) % 32];
    CHECK(bad == 0, "read, bar.sync, write: %d values", bad);
    if (m) be.vt->module_free(be.self, m);
}

/* --- a barrier in divergent code ---------------------------------------------------------- */
static void divergent_barrier(void)
{
    fresh();
    kt k;
    kt_begin(&k, "divergent");
    cute_vreg t = kt_sreg64(&k, CUTE_SREG_TID_X);
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_LT, t, kt_i64(&k, 16)));
    KT_AT(&k.b); int line = __LINE__;
    kt_barrier(&k);
    cute_ir_end(&k.b);
    cute_module *m = kt_compile(be, &k);
    const cute_interp_report *r =
        expect(m, 1, 48, NULL, 0, CUTE_CHECK_DIVERGENT_BARRIER, line, "divergent barrier");
    if (r) CHECK(strstr(r->msg, "16 of the block's 48") && strstr(r->msg, "(16,0,0)"), "%s", r->msg);
    be.vt->module_free(be.self, m);

    /* threads that returned do not count: return if t >= 16, then a barrier is fine */
    kt_begin(&k, "after_return");
    t = kt_sreg64(&k, CUTE_SREG_TID_X);
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_GE, t, kt_i64(&k, 16)));
    cute_ir_op_void(&k.b, CUTE_OP_RETURN, cute_type_of(CUTE_VOID), 0, 0, 0, 0);
    cute_ir_end(&k.b);
    kt_barrier(&k);
    m = kt_compile(be, &k);
    CHECK(kt_launch(be, m, 1, 48, 0, NULL, 0) == CUTE_OK, "barrier after returns: %s", be.vt->error(be.self));
    be.vt->module_free(be.self, m);
}

/* --- a 16-byte load one element off its alignment ------------------------------------------- */
static void misaligned(void)
{
    fresh();
    kt k;
    kt_begin(&k, "misaligned");
    cute_vreg A = kt_param_ptr(&k, CUTE_F32, "A"), C = kt_param_ptr(&k, CUTE_F32, "C");
    cute_vreg t = kt_sreg64(&k, CUTE_SREG_TID_X);
    cute_vreg p = kt_ptr_add(&k, A, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, 4)), kt_i64(&k, 1)));
    KT_AT(&k.b); int line = __LINE__;
    cute_vreg v = kt_load_t(&k, p, cute_type_vec(CUTE_F32, 4), 16);
    kt_store(&k, kt_ptr_add(&k, C, t), cute_ir_op(&k.b, CUTE_OP_EXTRACT, cute_type_of(CUTE_F32), v, 0, 0));
    cute_module *m = kt_compile(be, &k);
    cute_buffer a = kt_buf(be, NULL, 64 * 4), c = kt_buf(be, NULL, 64 * 4);
    cute_launch_arg args[2] = {kt_arg_buf(&a, CUTE_F32), kt_arg_buf(&c, CUTE_F32)};
    const cute_interp_report *r =
        expect(m, 1, 8, args, 2, CUTE_CHECK_MISALIGNED, line, "misaligned 16-byte load");
    if (r) CHECK(r->thread.x == 0 && r->offset == 4 && r->bytes == 16, "thread %u offset %lld",
                 r->thread.x, (long long)r->offset);
    be.vt->module_free(be.self, m);
}

/* --- an endless loop ------------------------------------------------------------------------ */
static void endless(void)
{
    opts.step_budget = 100000;
    fresh();
    opts.step_budget = 0;
    kt k;
    kt_begin(&k, "endless");
    cute_vreg x = kt_var(&k, kt_i64(&k, 0));
    KT_AT(&k.b); int line = __LINE__;
    cute_ir_while(&k.b);
    cute_vreg c = kt_cmp(&k, CUTE_OP_GE, x, kt_i64(&k, 0));
    cute_ir_while_body(&k.b, c);
    cute_ir_mov(&k.b, x, kt_bin(&k, CUTE_OP_ADD, x, kt_i64(&k, 0)));
    cute_ir_end(&k.b);
    cute_module *m = kt_compile(be, &k);
    const cute_interp_report *r =
        expect(m, 2, 64, NULL, 0, CUTE_CHECK_STEP_BUDGET, line, "endless loop");
    cute_interp_stats st; /* stopped after the budget: a few dispatches per iteration */
    CHECK(cute_interp_last_stats(be, &st) && st.dispatched > 100000 && st.dispatched < 2 * 5 * 100000,
          "stopped after the budget: %llu dispatched", (unsigned long long)st.dispatched);
    if (r) CHECK(r->block.x == 0 && strstr(r->msg, "100000"), "%s", r->msg);
    be.vt->module_free(be.self, m);
}

/* --- integer division by zero, shuffle from an inactive lane --------------------------------- */
static void div_zero_and_shfl(void)
{
    fresh();
    kt k;
    kt_begin(&k, "div0");
    cute_vreg out = kt_param_ptr(&k, CUTE_I32, "out");
    cute_vreg t = cute_ir_sreg(&k.b, CUTE_SREG_TID_X);
    cute_vreg t64 = kt_cvt(&k, t, CUTE_I64);
    KT_AT(&k.b); int line = __LINE__;
    cute_vreg q = kt_bin(&k, CUTE_OP_DIV, kt_i32(&k, 100), kt_bin(&k, CUTE_OP_SUB, t, kt_i32(&k, 3)));
    kt_store(&k, kt_ptr_add(&k, out, t64), q);
    cute_module *m = kt_compile(be, &k);
    cute_buffer o = kt_buf(be, NULL, 64 * 4);
    cute_launch_arg arg = kt_arg_buf(&o, CUTE_I32);
    const cute_interp_report *r = expect(m, 1, 8, &arg, 1, CUTE_CHECK_DIV_ZERO, line, "division by zero");
    if (r) CHECK(r->thread.x == 3, "thread %u", r->thread.x);
    be.vt->module_free(be.self, m);

    kt_begin(&k, "shfl_inactive");
    out = kt_param_ptr(&k, CUTE_I32, "out");
    t = cute_ir_sreg(&k.b, CUTE_SREG_TID_X);
    t64 = kt_cvt(&k, t, CUTE_I64);
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_LT, t, kt_i32(&k, 8)));
    KT_AT(&k.b); line = __LINE__;
    cute_vreg v = cute_ir_op(&k.b, CUTE_OP_SHFL, cute_type_of(CUTE_I32), t, kt_i32(&k, 4), 0);
    k.b.last->imm = CUTE_SHFL_DOWN;
    kt_store(&k, kt_ptr_add(&k, out, t64), v);
    cute_ir_end(&k.b);
    m = kt_compile(be, &k);
    r = expect(m, 1, 32, &arg, 1, CUTE_CHECK_WARP_INACTIVE, line, "shuffle from an inactive lane");
    if (r) CHECK(r->thread.x == 4 && strstr(r->msg, "lane 8"), "%s", r->msg);
    be.vt->module_free(be.self, m);
}

/* --- keep going: collect several reports (the same ones with 1 or 4 workers) ---------- */
static void keep_going(void)
{
    char first[6][320];
    for (int workers = 1; workers <= 4; workers += 3)
        for (int rep = 0; rep < (workers == 1 ? 1 : 20); rep++) {
            opts.max_reports = 10;
            opts.threads = workers;
            fresh();
            opts.max_reports = 0;
            opts.threads = 1;
            kt k;
            kt_begin(&k, "several");
            k.f->smem_bytes = 64;
            cute_vreg A = kt_param_ptr(&k, CUTE_F32, "A");
            cute_vreg t = kt_sreg64(&k, CUTE_SREG_TID_X);
            KT_AT(&k.b); int l1 = __LINE__;
            cute_vreg a = kt_load(&k, kt_ptr_add(&k, A, kt_bin(&k, CUTE_OP_ADD, t, kt_i64(&k, 30))));
            KT_AT(&k.b); int l2 = __LINE__;
            cute_vreg s = kt_load(&k, kt_ptr_add(&k, kt_smem(&k, CUTE_F32, 0), t));
            kt_store(&k, kt_ptr_add(&k, A, t), kt_bin(&k, CUTE_OP_ADD, a, s));
            cute_module *m = kt_compile(be, &k);
            cute_buffer bA = kt_buf(be, NULL, 32 * 4);
            cute_launch_arg arg = kt_arg_buf(&bA, CUTE_F32);
            CHECK(kt_launch(be, m, 3, 16, 0, &arg, 1) == CUTE_ERR_CHECK, "several: CUTE_ERR_CHECK");
            int n;
            const cute_interp_report *r = cute_interp_reports(be, &n);
            if (workers == 1) printf("  %s\n", be.vt->error(be.self));
            /* per block: the out-of-bounds load (threads 2..15) and the uninitialized read; the
             * read of A[t+30] and the store of A[t] by another thread are 30 apart: no race */
            CHECK(n == 6, "%d workers: 6 reports (2 per block), got %d", workers, n);
            for (int i = 0; i < n && i < 6; i++) {
                CHECK(r[i].block.x == (uint32_t)i / 2, "report %d in block %u", i, r[i].block.x);
                CHECK(r[i].line == (i % 2 ? l2 : l1), "report %d at line %d", i, r[i].line);
                if (workers == 1) snprintf(first[i], sizeof first[i], "%s", r[i].msg);
                else CHECK_STR(r[i].msg, first[i]);
            }
            if (n >= 1) CHECK(r[0].thread.x == 2 && r[0].more == 13, "thread %u more %u", r[0].thread.x, r[0].more);
            be.vt->module_free(be.self, m);
        }
    /* a limit of 3: the first three in block order, whatever the workers */
    for (int workers = 1; workers <= 4; workers += 3) {
        opts.max_reports = 3;
        opts.threads = workers;
        fresh();
        opts.max_reports = 0;
        opts.threads = 1;
        kt k;
        kt_begin(&k, "limit");
        cute_vreg A = kt_param_ptr(&k, CUTE_F32, "A");
        cute_vreg t = kt_gtid(&k);
        kt_store(&k, kt_ptr_add(&k, A, t), cute_ir_const_float(&k.b, CUTE_F32, 1));
        cute_module *m = kt_compile(be, &k);
        cute_buffer bA = kt_buf(be, NULL, 4);
        cute_launch_arg arg = kt_arg_buf(&bA, CUTE_F32);
        CHECK(kt_launch(be, m, 16, 4, 0, &arg, 1) == CUTE_ERR_CHECK, "limit: CUTE_ERR_CHECK");
        int n;
        const cute_interp_report *r = cute_interp_reports(be, &n);
        CHECK(n == 3 && r[0].block.x == 0 && r[1].block.x == 1 && r[2].block.x == 2,
              "%d workers: 3 reports from blocks 0, 1, 2 (got %d)", workers, n);
        be.vt->module_free(be.self, m);
    }
}

/* --- inline PTX the interpreter does not know: a compile error naming it --------------------- */
static void unknown_asm(void)
{
    fresh();
    kt k;
    kt_begin(&k, "asm");
    cute_vreg x = cute_ir_new_vreg(k.f, cute_type_of(CUTE_U32), "x", false);
    KT_AT(&k.b);
    cute_ir_varop(&k.b, CUTE_OP_ASM, "mov.u32 %0, %globaltimer_lo;", &x, 1, 1);
    cute_ir_inst copy = *k.b.last;
    CHECK(!be.vt->supports_op(be.self, &copy), "supports_op says no");
    cute_module *m = NULL;
    const char *log = NULL;
    cute_status s = be.vt->compile(be.self, &k.f, 1, &m, &log);
    CHECK(s == CUTE_ERR_UNSUPPORTED && m == NULL, "compile fails: %d", (int)s);
    CHECK(log && strstr(log, "not supported in the interpreter: inline PTX `mov.u32 %0, %globaltimer_lo;`"),
          "log: %s", log ? log : "(none)");
    printf("  %s\n", log ? log : "");
    cute_ir_func_free(k.f);
}

/* --- bad launches are errors, not crashes ------------------------------------------------------ */
static void bad_launch(void)
{
    fresh();
    kt k;
    kt_begin(&k, "args");
    kt_param_ptr(&k, CUTE_F32, "A");
    kt_param(&k, CUTE_I32, "n");
    cute_module *m = kt_compile(be, &k);
    cute_buffer a = kt_buf(be, NULL, 16);
    cute_launch_arg args[2] = {kt_arg_buf(&a, CUTE_F32), kt_arg_int(CUTE_I64, 3)};
    CHECK(kt_launch(be, m, 1, 1, 0, args, 2) == CUTE_ERR_INVALID, "wrong argument type");
    CHECK(strstr(be.vt->error(be.self), "argument 2 (n) is i64"), "%s", be.vt->error(be.self));
    args[1] = kt_arg_int(CUTE_I32, 3);
    CHECK(kt_launch(be, m, 1, 1, 0, args, 1) == CUTE_ERR_INVALID, "too few arguments");
    CHECK(kt_launch(be, m, 1, 2048, 0, args, 2) == CUTE_ERR_INVALID, "2048 threads");
    CHECK(kt_launch(be, m, 0, 32, 0, args, 2) == CUTE_ERR_INVALID, "no blocks");
    cute_buffer fake = a;
    fake.ptr = (char *)a.ptr + 8;
    args[0] = kt_arg_buf(&fake, CUTE_F32);
    CHECK(kt_launch(be, m, 1, 1, 0, args, 2) == CUTE_ERR_INVALID, "not a buffer");
    CHECK(be.vt->upload(be.self, &a, 8, &a, 16) == CUTE_ERR_INVALID, "upload past the end");
    args[0] = kt_arg_buf(&a, CUTE_F32);
    CHECK(kt_launch(be, m, 1, 1, 0, args, 2) == CUTE_OK, "then a good launch");
    be.vt->module_free(be.self, m);
}

int main(void)
{
    opts.threads = 1;
    oob_global();
    oob_shared();
    uninit_shared();
    shared_race();
    global_race();
    global_named_barrier();
    divergent_barrier();
    misaligned();
    endless();
    div_zero_and_shfl();
    keep_going();
    unknown_asm();
    bad_launch();
    be.vt->destroy(be.self);
    return CHECK_DONE("interp checks");
}
