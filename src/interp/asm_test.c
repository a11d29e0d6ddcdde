/* Inline PTX under the interpreter: every case of hw_mma_cases.h (mma.sync, ldmatrix, cvt
 * packs run on an H200 by src/interp/gpu/hw_mma.cu, each lane's registers in and out)
 * replayed through ASM ops, bit for bit; cp.async; a warp-collective op with lanes
 * missing is a check; unknown PTX is refused by supports_op and compile. */
#include "interp/interp_testkit.h"
#include "interp/hw_mma_cases.h"

static cute_backend be;

/* a kernel running `ptx` with each lane's nin input registers from IN and nout results to
 * OUT (u32 each); with an image, shared memory holds it first (loaded, then a barrier) */
static cute_module *case_kernel(const hw_case *c)
{
    kt k;
    kt_begin(&k, c->name);
    cute_vreg IN = kt_param_ptr(&k, CUTE_U32, "in"), OUT = kt_param_ptr(&k, CUTE_U32, "out");
    cute_vreg IMG = kt_param_ptr(&k, CUTE_U32, "img");
    cute_vreg t = kt_sreg64(&k, CUTE_SREG_TID_X);
    if (c->img) {
        k.f->smem_bytes = 1024;
        cute_vreg s = kt_smem(&k, CUTE_U32, 0);
        for (int r = 0; r < 8; r++) {
            cute_vreg i = kt_bin(&k, CUTE_OP_ADD, t, kt_i64(&k, 32 * r));
            kt_store(&k, kt_ptr_add(&k, s, i), kt_load(&k, kt_ptr_add(&k, IMG, i)));
        }
        kt_barrier(&k);
    }
    cute_vreg regs[16];
    for (int q = 0; q < c->nout; q++) regs[q] = cute_ir_new_vreg(k.f, cute_type_of(CUTE_U32), "d", false);
    for (int q = 0; q < c->nin; q++) {
        cute_vreg i = kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, 12)), kt_i64(&k, q));
        cute_vreg v = kt_load(&k, kt_ptr_add(&k, IN, i));
        /* f32 inputs as f32 registers, as the atoms would have them */
        bool f = strstr(c->ptx, "cvt") || (strstr(c->ptx, ".f32 {") && q >= c->nin - 4);
        regs[c->nout + q] = f ? kt_op(&k, CUTE_OP_BITCAST, cute_type_of(CUTE_F32), v, 0, 0) : v;
    }
    cute_ir_varop(&k.b, CUTE_OP_ASM, c->ptx, regs, c->nout + c->nin, c->nout);
    for (int q = 0; q < c->nout; q++) {
        cute_vreg i = kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, 4)), kt_i64(&k, q));
        kt_store(&k, kt_ptr_add(&k, OUT, i), regs[q]);
    }
    return kt_compile(be, &k);
}

static void replay(void)
{
    for (size_t q = 0; q < sizeof hw_cases / sizeof hw_cases[0]; q++) {
        const hw_case *c = &hw_cases[q];
        cute_ir_inst probe = {0};
        probe.op = CUTE_OP_ASM;
        probe.str = c->ptx;
        CHECK(be.vt->supports_op(be.self, &probe), "%s: supports_op", c->name);
        cute_module *m = case_kernel(c);
        CHECK(m != NULL, "%s compiles", c->name);
        if (!m) continue;
        uint32_t out[32][4];
        cute_buffer bi = kt_buf(be, c->in, sizeof c->in), bo = kt_buf(be, NULL, sizeof out);
        cute_buffer bm = kt_buf(be, hw_img, sizeof hw_img);
        cute_launch_arg args[3] = {kt_arg_buf(&bi, CUTE_U32), kt_arg_buf(&bo, CUTE_U32), kt_arg_buf(&bm, CUTE_U32)};
        cute_status s = kt_launch(be, m, 1, 32, 0, args, 3);
        CHECK(s == CUTE_OK, "%s runs: %s", c->name, be.vt->error(be.self));
        be.vt->download(be.self, out, &bo, 0, sizeof out);
        int bad = 0, close = 0, worst = 0;
        /* random inputs of similar scale in f16: the model of the tensor cores' addition is
         * exact; for bf16, tf32 and f16 of widely spread scales it is off by a few ulp
         * in some results (4 at most in these samples) */
        bool random = strstr(c->name, "random") != NULL;
        bool exact = !random || !strcmp(c->name, "mma f16 k16 random") || !strcmp(c->name, "mma f16 k8 random") ||
                     strstr(c->name, "accumulate");
        for (int l = 0; l < 32; l++)
            for (int r = 0; r < c->nout; r++) {
                uint32_t got = out[l][r], want = c->out[l][r];
                if (got == want) continue;
                int ulp = abs((int32_t)got - (int32_t)want);
                if (!exact && ulp <= 4) {
                    worst = ulp > worst ? ulp : worst;
                    close++;
                    continue;
                }
                if (bad++ < 3)
                    fprintf(stderr, "%s: lane %d register %d: got %08x, the H200 gave %08x\n", c->name, l, r, got, want);
            }
        CHECK(bad == 0, "%s: %d registers differ from the hardware's", c->name, bad);
        if (random)
            printf("%s: %d of %d results differ from the H200's, by at most %d ulp\n", c->name, close,
                   32 * c->nout, worst);
        be.vt->module_free(be.self, m);
        be.vt->free(be.self, &bi), be.vt->free(be.self, &bo), be.vt->free(be.self, &bm);
    }
}

/* cp.async: 16 bytes per thread, then one with src-size 4 (the rest zero-filled) */
static void cp_async(void)
{
    kt k;
    kt_begin(&k, "cp_async");
    k.f->smem_bytes = 32 * 16;
    cute_vreg G = kt_param_ptr(&k, CUTE_U32, "g"), O = kt_param_ptr(&k, CUTE_U32, "o");
    cute_vreg t = kt_sreg64(&k, CUTE_SREG_TID_X);
    cute_vreg src = kt_ptr_add(&k, G, kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, 4)));
    cute_vreg dst = kt_cvt(&k, kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, 16)), CUTE_U32);
    cute_vreg four = cute_ir_const_int(&k.b, CUTE_U32, 4);
    const char *ptx[4] = {"cp.async.cg.shared.global.L2::128B [%0], [%1], 16;", "cp.async.commit_group;",
                          "cp.async.wait_group 0;", "cp.async.ca.shared.global [%0+16], [%1], 8, %2;"};
    for (int q = 0; q < 4; q++) {
        if (q == 3) { /* thread 31 would write past the end: threads < 31 only */
            kt_barrier(&k);
            cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_LT, t, kt_i64(&k, 31)));
        }
        cute_ir_varop(&k.b, CUTE_OP_ASM, ptx[q], (cute_vreg[]){dst, src, four}, q == 0 ? 2 : q == 3 ? 3 : 0, 0);
        if (q == 3) cute_ir_end(&k.b);
    }
    kt_barrier(&k);
    cute_vreg s = kt_smem(&k, CUTE_U32, 0);
    for (int r = 0; r < 4; r++) {
        cute_vreg i = kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, 4)), kt_i64(&k, r));
        kt_store(&k, kt_ptr_add(&k, O, i), kt_load(&k, kt_ptr_add(&k, s, i)));
    }
    cute_module *m = kt_compile(be, &k);
    uint32_t g[128], o[128];
    for (int i = 0; i < 128; i++) g[i] = 1000u + (uint32_t)i;
    cute_buffer bg = kt_buf(be, g, sizeof g), bo = kt_buf(be, NULL, sizeof o);
    cute_launch_arg args[2] = {kt_arg_buf(&bg, CUTE_U32), kt_arg_buf(&bo, CUTE_U32)};
    CHECK(m && kt_launch(be, m, 1, 32, 0, args, 2) == CUTE_OK, "cp.async runs: %s", be.vt->error(be.self));
    be.vt->download(be.self, o, &bo, 0, sizeof o);
    /* thread t copied g[4t..4t+4) to its 16 bytes, then thread t < 31 overwrote the next
     * thread's first 8 bytes with g[4t] and a zero */
    int bad = 0;
    for (int t = 0; t < 32; t++)
        for (int r = 0; r < 4; r++) {
            uint32_t want = 1000u + (uint32_t)(4 * t + r);
            if (t > 0 && r == 0) want = 1000u + (uint32_t)(4 * (t - 1));
            if (t > 0 && r == 1) want = 0;
            bad += o[4 * t + r] != want;
        }
    CHECK(bad == 0, "cp.async copies: %d words wrong", bad);
    be.vt->module_free(be.self, m);
}

/* an mma with half of the warp diverged away */
static void divergent_mma(void)
{
    const hw_case *c = &hw_cases[0];
    kt k;
    kt_begin(&k, "divergent_mma");
    cute_vreg t = cute_ir_sreg(&k.b, CUTE_SREG_TID_X);
    cute_vreg regs[14];
    for (int q = 0; q < 14; q++)
        regs[q] = q < 4 ? cute_ir_new_vreg(k.f, cute_type_of(CUTE_U32), "d", false) : cute_ir_const_int(&k.b, CUTE_U32, 0);
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_LT, t, kt_i32(&k, 16)));
    KT_AT(&k.b); int line = __LINE__;
    cute_ir_varop(&k.b, CUTE_OP_ASM, c->ptx, regs, 14, 4);
    cute_ir_end(&k.b);
    cute_module *m = kt_compile(be, &k);
    CHECK(m && kt_launch(be, m, 1, 32, 0, NULL, 0) == CUTE_ERR_CHECK, "a check");
    const cute_interp_report *r = kt_report(be, 0);
    CHECK(r && r->kind == CUTE_CHECK_WARP_INACTIVE && r->line == line && strstr(r->msg, "16 of 32"),
          "%s", r ? r->msg : "no report");
    be.vt->module_free(be.self, m);
}

static void unsupported(void)
{
    const char *no[] = {"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0}, %1, %2;",
                        "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0}, {%1}, {%2}, {%3};",
                        "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%0}, [%1];", "bar.sync 1, 64;",
                        "{ .reg .pred p; setp.ne.b32 p, %1, 0; selp.u32 %0, 1, 0, p; }"};
    for (int i = 0; i < 5; i++) CHECK(!cute_interp_supports_asm(no[i]), "refuses %s", no[i]);
    CHECK(cute_interp_supports_asm("cp.async.wait_all;"), "wait_all");
    CHECK(cute_interp_supports_asm("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];"),
          "CUTLASS's qualifier order");
}

int main(void)
{
    cute_interp_opts o = {.threads = 1};
    be = kt_backend(&o);
    replay();
    cp_async();
    divergent_mma();
    unsupported();
    be.vt->destroy(be.self);
    return CHECK_DONE("interp asm");
}
