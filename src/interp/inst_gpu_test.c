/* Every row of the instruction table on the GPU (through the CUDA C backend's rendering of
 * INST) against the interpreter's emulation of it, on the same fresh random inputs per lane:
 * mma, ldmatrix, stmatrix and cvt rows register by register (exact where the emulation
 * models the hardware exactly; a few ulp for bf16/tf32; fp8 and f64 loosely, their
 * differences printed), cp.async rows (every size, zero fill, then commit and wait_group or
 * wait_all) byte by byte.  This checks the rendering (operand order, constraints, shared
 * addresses as the 32-bit window) and the emulations together.  Without a GPU it skips
 * visibly. */
#include "cutec/cuda_c.h"
#include "cutec/jit.h"
#include "cutec/nvrtc.h"
#include "interp/gpu_testkit.h"
#include "interp/inst_testkit.h"

static cute_backend gpu, cpu;

/* random input words for one lane of row I (mma: elements of the row's types) */
static void lane_words(const cute_inst_info *I, int lane, uint32_t *w)
{
    const struct mma_case *mc = mma_case_of(I->id);
    memset(w, 0, HW_NIN * 4);
    if (!mc) { /* ldmatrix/stmatrix: a distinct 16-byte row, then registers; cvt: f32s */
        w[0] = (uint32_t)((lane * 13 + 5) % 64) * 16;
        for (int k = 1; k < HW_NIN; k++) w[k] = (uint32_t)rand() ^ (uint32_t)rand() << 16;
        if (strstr(I->id, "CVT")) w[0] &= 0xc7ffffffu, w[1] &= 0xc7ffffffu;
        return;
    }
    const int types[3] = {mc->a, mc->b, mc->d == T_F16 ? T_F16 : mc->d};
    int at = 0;
    for (int g = 1; g <= 3; g++) { /* A, B, C */
        int t = types[g - 1], n = I->groups[g].count, per = bits_of(t) == 64 ? 1 : 32 / bits_of(t);
        for (int r = 0; r < n; r++)
            for (int h = 0; h < per; h++) {
                double v;
                pack(&w[at], t, r * per + h, random_value(t, &v));
            }
        at += n * (bits_of(t) == 64 ? 2 : 1);
    }
}

static void register_row(cute_inst row)
{
    const cute_inst_info *I = cute_inst_info_of(row);
    static uint32_t in[32][HW_NIN], got[32][HW_NOUT], want[32][HW_NOUT];
    for (int l = 0; l < 32; l++) lane_words(I, l, in[l]);
    if (!run_row(gpu, row, (const uint32_t(*)[HW_NIN])in, want, hw_img) ||
        !run_row(cpu, row, (const uint32_t(*)[HW_NIN])in, got, hw_img))
        return;
    const struct mma_case *mc = mma_case_of(I->id);
    bool wide = mc && mc->d == T_F64;
    int nregs = I->nout ? I->nout : 4, bad = 0;
    for (int l = 0; l < 32; l++)
        for (int r = 0; r < nregs; r++) {
            int64_t a = reg_bits(got[l], r, wide), b = reg_bits(want[l], r, wide);
            if (a != b && bad++ < 3)
                fprintf(stderr, "%s: lane %d register %d: interpreter %llx, GPU %llx\n", I->id, l, r,
                        (unsigned long long)a, (unsigned long long)b);
        }
    CHECK(bad == 0, "%s: %d registers differ between the GPU and the interpreter", I->id, bad);
}

/* cp.async row: each of 64 threads copies into its own slot (src_size = t % (bytes + 1) for
 * the zero-fill rows), commits, waits (wait_group 0, or wait_all), reads its slot back */
static cute_ir_func *copy_func(cute_inst row, bool all)
{
    const cute_inst_info *I = cute_inst_info_of(row);
    int bytes = I->groups[2].value;
    bool zfill = I->nin == 3;
    kt k;
    kt_begin(&k, I->id);
    cute_vreg g = kt_param_ptr(&k, CUTE_U8, "g"), o = kt_param_ptr(&k, CUTE_U8, "o");
    cute_vreg t = kt_sreg64(&k, CUTE_SREG_TID_X), off = kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, bytes));
    k.f->smem_bytes = 64 * 16;
    cute_vreg s = kt_smem(&k, CUTE_U8, 0);
    cute_vreg in[3] = {kt_ptr_add(&k, s, off), kt_ptr_add(&k, g, off),
                       kt_cvt(&k, kt_bin(&k, CUTE_OP_REM, t, kt_i64(&k, bytes + 1)), CUTE_U32)};
    cute_ir_inst_op(&k.b, row, NULL, 0, in, zfill ? 3 : 2, 0);
    if (all) {
        cute_ir_inst_op(&k.b, CUTE_INST_CP_ASYNC_WAIT_ALL, NULL, 0, NULL, 0, 0);
    } else {
        cute_ir_inst_op(&k.b, CUTE_INST_CP_ASYNC_COMMIT_GROUP, NULL, 0, NULL, 0, 0);
        cute_ir_inst_op(&k.b, CUTE_INST_CP_ASYNC_WAIT_GROUP, NULL, 0, NULL, 0, 0);
    }
    for (int b = 0; b < bytes; b++) {
        cute_vreg i = kt_bin(&k, CUTE_OP_ADD, off, kt_i64(&k, b));
        kt_store(&k, kt_ptr_add(&k, o, i), kt_load(&k, kt_ptr_add(&k, s, i)));
    }
    return k.f;
}

static cute_module *copy_kernel(cute_backend be, cute_inst row, bool all)
{
    kt k = {copy_func(row, all), {0}};
    return kt_compile(be, &k);
}

static bool run_copy(cute_backend be, cute_inst row, bool all, const uint8_t *src, uint8_t *dst)
{
    cute_module *m = copy_kernel(be, row, all);
    CHECK(m != NULL, "%s compiles", cute_inst_info_of(row)->id);
    if (!m) return false;
    memset(dst, 0xa5, 1024);
    cute_buffer bg = kt_buf(be, src, 1024), bo = kt_buf(be, dst, 1024);
    cute_launch_arg args[2] = {kt_arg_buf(&bg, CUTE_U8), kt_arg_buf(&bo, CUTE_U8)};
    cute_status s = kt_launch(be, m, 1, 64, 0, args, 2);
    CHECK(s == CUTE_OK, "%s runs: %s", cute_inst_info_of(row)->id, be.vt->error(be.self));
    be.vt->download(be.self, dst, &bo, 0, 1024);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bg), be.vt->free(be.self, &bo);
    return s == CUTE_OK;
}

static void copy_row(cute_inst row)
{
    uint8_t src[1024], a[1024], b[1024];
    for (int i = 0; i < 1024; i++) src[i] = (uint8_t)(rand() | 1);
    for (int all = 0; all < 2; all++) {
        if (!run_copy(gpu, row, all, src, b) || !run_copy(cpu, row, all, src, a)) return;
        int bad = 0;
        for (int i = 0; i < 64 * cute_inst_info_of(row)->groups[2].value; i++) bad += a[i] != b[i];
        CHECK(bad == 0, "%s (%s): %d bytes differ between the GPU and the interpreter",
              cute_inst_info_of(row)->id, all ? "wait_all" : "wait_group 0", bad);
    }
    printf("%-28s copies agree (wait_group 0, wait_all)\n", cute_inst_info_of(row)->id);
}

/* rows this harness cannot feed (a tensor map, a global address outside cp.async): TMA's,
 * tested against the interpreter by src/atom/tma_copy_test.c and src/interp/tma_test.c; and
 * the sm_100 rows (tensor memory; no GPU here runs them): src/interp/tcgen05_test.c */
static bool tested_elsewhere(const cute_inst_info *I)
{
    if (I->arch >= 100) return true;
    for (int g = 0; g < I->ngroups; g++)
        if (I->groups[g].role == CUTE_IG_TMAP ||
            (I->groups[g].role == CUTE_IG_GADDR && !(I->flags & CUTE_INST_ASYNC_SWRITE)))
            return true;
    return false;
}

/* without a GPU: every kernel of the test still goes through the CUDA C backend and NVRTC */
static void compile_only(void)
{
    cute_ir_func *k[2 * CUTE_INST_COUNT];
    int n = 0;
    for (int r = 0; r < CUTE_INST_COUNT; r++) {
        const cute_inst_info *I = cute_inst_info_of((cute_inst)r);
        if (I->flags & (CUTE_INST_ASYNC_COMMIT | CUTE_INST_ASYNC_WAIT | CUTE_INST_WARPGROUP) || sync_row(r) ||
            tested_elsewhere(I))
            continue;
        if (I->flags & CUTE_INST_ASYNC_SWRITE) k[n++] = copy_func((cute_inst)r, false), k[n++] = copy_func((cute_inst)r, true);
        else k[n++] = row_func((cute_inst)r);
    }
    for (int i = 0; i < n; i++) { /* two copy kernels of one row: names must differ */
        char name[64];
        snprintf(name, sizeof name, "k%d_%s", i, k[i]->name);
        k[i]->name = cute_ir_strdup(k[i], name);
    }
    kt_compiles_sm90a(k, n);
}

int main(void)
{
    char err[512];
    cute_runtime *rt = NULL;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        compile_only();
        char why[600];
        snprintf(why, sizeof why, "no GPU, rows compiled but not run: %s", err);
        SKIP(why);
        return CHECK_DONE("interp inst_gpu");
    }
    gpu = *cute_runtime_backend(rt);
    cpu = kt_backend(&(cute_interp_opts){.threads = 1});
    srand(17);
    for (int r = 0; r < CUTE_INST_COUNT; r++) {
        const cute_inst_info *I = cute_inst_info_of((cute_inst)r);
        if (I->flags & (CUTE_INST_ASYNC_COMMIT | CUTE_INST_ASYNC_WAIT)) continue; /* with the copies */
        if (tested_elsewhere(I)) continue;
        if (sync_row(r)) continue;                                                 /* sync_gpu_test.c */
        if (I->flags & CUTE_INST_WARPGROUP) continue; /* wgmma: atom/wgmma_test.c */
        if (I->flags & CUTE_INST_ASYNC_SWRITE) copy_row((cute_inst)r);
        else register_row((cute_inst)r);
    }
    cpu.vt->destroy(cpu.self);
    cute_runtime_free(rt);
    return CHECK_DONE("interp inst_gpu");
}
