/* INST in the CUDA C backend: every row of the instruction table, its registers of every
 * type its classes allow (u32, i32, f32, f16x2, bf16x2, i8x4, u8x4, e4m3x4), renders to an asm
 * statement that NVRTC compiles for sm_80 (the rows of sm_80), sm_89 and sm_90a; the PTX
 * holds the row's instruction; "memory" clobbers exactly on rows that touch memory; a row
 * newer than the module's arch is refused by name.  Without NVRTC the compiles are skipped. */
#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/inst.h"
#include "cutec/nvrtc.h"

static const cute_type b32_types[] = {
    {CUTE_U32, 1, 0, 0}, {CUTE_F16, 2, 0, 0}, {CUTE_BF16, 2, 0, 0}, {CUTE_I8, 4, 0, 0},
    {CUTE_F32, 1, 0, 0}, {CUTE_I32, 1, 0, 0}, {CUTE_U8, 4, 0, 0}, {CUTE_E4M3, 4, 0, 0},
};

/* a register type the group's class accepts; n-th of the choices */
static cute_type type_for(const cute_inst_group *G, int n)
{
    switch (G->cls) {
    case CUTE_RC_F32: return cute_type_of(CUTE_F32);
    case CUTE_RC_F64: return cute_type_of(CUTE_F64);
    case CUTE_RC_I32: return cute_type_of(n % 2 ? CUTE_I32 : CUTE_U32);
    case CUTE_RC_B16: return cute_type_of(n % 2 ? CUTE_I16 : CUTE_U16);
    case CUTE_RC_U64: return cute_type_of(CUTE_U64);
    default: return b32_types[n % (sizeof b32_types / sizeof b32_types[0])];
    }
}

/* an input of a 16-bit integer class: loaded from gd's bits and converted */
static cute_vreg int_input(cute_ir_builder *b, cute_vreg gd, cute_type t)
{
    cute_vreg v = cute_ir_op(b, CUTE_OP_LOAD, cute_type_of(CUTE_F64), gd, 0, 0);
    b->last->imm = 8;
    v = cute_ir_op(b, CUTE_OP_BITCAST, cute_type_of(CUTE_U64), v, 0, 0);
    return cute_type_eq(t, cute_type_of(CUTE_U64)) ? v : cute_ir_op(b, CUTE_OP_CVT, t, v, 0, 0);
}

/* a kernel running row r once: inputs loaded from g (32-bit) or gd (f64, and the 16- and
 * 64-bit integers), outputs stored; a tensor-map operand is the tmap parameter (even
 * groups) or the global pointer g (odd: a map in global memory) */
static cute_ir_func *row_kernel(cute_inst r)
{
    const cute_inst_info *I = cute_inst_info_of(r);
    char name[64];
    snprintf(name, sizeof name, "k_%s", I->id);
    cute_ir_func *f = cute_ir_func_new(name);
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    cute_vreg g = cute_ir_add_param(f, cute_type_ptr(CUTE_U32, CUTE_GMEM), "g");
    cute_vreg gd = cute_ir_add_param(f, cute_type_ptr(CUTE_F64, CUTE_GMEM), "gd");
    cute_vreg tm = cute_ir_add_param(f, cute_type_of(CUTE_TMAP), "tm");
    f->smem_bytes = 1024;
    cute_vreg s = cute_ir_op(&b, CUTE_OP_SMEM_PTR, cute_type_ptr(CUTE_U32, CUTE_SMEM), 0, 0, 0);
    cute_vreg out[160], in[160]; /* tcgen05.ld/st x128: 128 registers a side */
    int no = 0, ni = 0, n = 0;
    for (int q = 0; q < I->ngroups; q++) {
        const cute_inst_group *G = &I->groups[q];
        for (int k = 0; k < G->count; k++, n++) {
            if (G->role == CUTE_IG_SADDR) in[ni++] = s;
            else if (G->role == CUTE_IG_GADDR) in[ni++] = g;
            else if (G->role == CUTE_IG_TMAP) in[ni++] = r % 2 ? g : tm;
            else if (G->cls == CUTE_RC_B16) in[ni++] = int_input(&b, gd, type_for(G, n));
            else if (G->role == CUTE_IG_OUT) out[no++] = cute_ir_new_vreg(f, type_for(G, n), "d", false);
            else if (G->role == CUTE_IG_INOUT) { /* an accumulator: mutable, loaded first */
                out[no] = cute_ir_new_vreg(f, type_for(G, n), "d", true);
                cute_vreg v = cute_ir_op(&b, CUTE_OP_LOAD, cute_type_of(CUTE_U32), g, 0, 0);
                b.last->imm = 4;
                cute_type t = type_for(G, n);
                cute_ir_mov(&b, out[no++], cute_type_eq(t, cute_type_of(CUTE_U32)) ? v : cute_ir_op(&b, CUTE_OP_BITCAST, t, v, 0, 0));
            } else if (G->cls == CUTE_RC_U64) { /* a descriptor */
                cute_vreg v = cute_ir_op(&b, CUTE_OP_LOAD, cute_type_of(CUTE_U32), g, 0, 0);
                b.last->imm = 4;
                in[ni++] = cute_ir_op(&b, CUTE_OP_CVT, cute_type_of(CUTE_U64), v, 0, 0);
            } else if (G->cls == CUTE_RC_F64) {
                cute_vreg v = cute_ir_op(&b, CUTE_OP_LOAD, cute_type_of(CUTE_F64), gd, 0, 0);
                b.last->imm = 8;
                in[ni++] = v;
            } else {
                cute_vreg v = cute_ir_op(&b, CUTE_OP_LOAD, cute_type_of(CUTE_U32), g, 0, 0);
                b.last->imm = 4;
                cute_type t = type_for(G, n);
                in[ni++] = cute_type_eq(t, cute_type_of(CUTE_U32)) ? v : cute_ir_op(&b, CUTE_OP_BITCAST, t, v, 0, 0);
            }
        }
    }
    int64_t imm = !I->has_imm                       ? I->imm_bits /* one the row takes */
                  : strstr(I->id, "SETMAXNREG")      ? 240
                  : strstr(I->id, "TMAP_LOAD_WORDS") ? 16 /* a byte offset: whole 16 bytes */
                                                     : 1;
    bool wgmma = (I->flags & CUTE_INST_WARPGROUP) && I->nout; /* ordered as the PTX ISA asks */
    if (wgmma) cute_ir_inst_op(&b, CUTE_INST_WGMMA_FENCE, NULL, 0, NULL, 0, 0);
    cute_ir_inst_op(&b, r, out, no, in, ni, imm);
    if (wgmma) {
        cute_ir_inst_op(&b, CUTE_INST_WGMMA_COMMIT_GROUP, NULL, 0, NULL, 0, 0);
        cute_ir_inst_op(&b, CUTE_INST_WGMMA_WAIT_GROUP, NULL, 0, NULL, 0, 0);
    }
    for (int k = 0; k < no; k++) {
        cute_type t = f->vregs[out[k]].type;
        bool wide = t.dtype == CUTE_F64 || t.dtype == CUTE_U64; /* stored through gd as f64 */
        cute_type st = wide ? cute_type_of(CUTE_F64) : cute_type_of(CUTE_U32);
        cute_vreg v = cute_type_eq(t, st) ? out[k] : cute_ir_op(&b, CUTE_OP_BITCAST, st, out[k], 0, 0);
        cute_ir_op_void(&b, CUTE_OP_STORE, st, wide ? gd : g, v, 0, wide ? 8 : 4);
    }
    return f;
}

/* the rows a module holds: every row up to max_arch (for sm_100a: the sm_100 rows alone, as
 * wgmma is sm_90a's only), but of the 656 generated wgmma rows (one per N) only N = 8, 24,
 * 144 and 256 of each family, which keeps the compile short */
static bool in_module(const cute_inst_info *I, int max_arch)
{
    if (I->arch > max_arch || (max_arch == 100 && I->arch < 100)) return false;
    if (strncmp(I->id, "WGMMA_64x", 9) != 0) return true;
    int N = atoi(I->id + 9);
    return N == 8 || N == 24 || N == 144 || N == 256;
}

static char *emit_rows(int max_arch, const char *arch, char *err, size_t n)
{
    cute_ir_func *k[CUTE_INST_COUNT];
    int nk = 0;
    for (int r = 0; r < CUTE_INST_COUNT; r++)
        if (in_module(cute_inst_info_of((cute_inst)r), max_arch)) {
            k[nk] = row_kernel((cute_inst)r);
            CHECK(cute_ir_verify(k[nk], err, n) == 0, "%s", err);
            nk++;
        }
    char *src = NULL;
    cute_status s = cute_cuda_c_emit((const cute_ir_func *const *)k, nk, &(cute_cuda_c_opts){.arch = arch},
                                     &src, err, n);
    if (max_arch <= 100) CHECK(s == CUTE_OK, "emit for %s: %s", arch, err);
    for (int i = 0; i < nk; i++) cute_ir_func_free(k[i]);
    return src;
}

/* the asm statement of row ID in kernel k_ID of src: from its "asm volatile(" to the end of
 * line (a wgmma row's kernel has the fence, commit and wait around it: the statement that
 * holds the row's mnemonic) */
static const char *statement_of(const char *src, const char *id, char *buf, size_t n)
{
    char head[96];
    snprintf(head, sizeof head, "k_%s(", id);
    const char *mn = cute_inst_info_of(cute_inst_lookup(id))->mnemonic, *p = strstr(src, head), *e = NULL;
    const char *end = p ? strstr(p + 1, "\n}") : NULL;
    for (p = p ? strstr(p, "asm volatile(") : NULL; p && (!end || p < end); p = strstr(p + 1, "asm volatile(")) {
        e = strchr(p, '\n');
        snprintf(buf, n, "%.*s", e ? (int)(e - p) : 0, p);
        if (strstr(buf, mn)) return buf;
    }
    snprintf(buf, n, "%s", "");
    return buf;
}

static void text(void)
{
    char err[512], st[16384];
    char *src = emit_rows(90, "sm_90a", err, sizeof err);
    if (!src) return;
    for (int r = 0; r < CUTE_INST_COUNT; r++) {
        const cute_inst_info *I = cute_inst_info_of((cute_inst)r);
        if (!in_module(I, 90)) continue;
        statement_of(src, I->id, st, sizeof st);
        CHECK(strstr(st, I->mnemonic), "%s: %s", I->id, st);
        bool memory = strstr(st, "\"memory\"") != NULL;
        CHECK(memory == ((I->flags & CUTE_INST_MEMORY_EFFECTS) != 0), "%s clobbers: %s", I->id, st);
    }
    CHECK(strstr(statement_of(src, "MMA_16x8x16_F32F16F16F32", st, sizeof st),
                 "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%10, %11, %12, %13};\""),
          "%s", st);
    CHECK(strstr(statement_of(src, "CP_ASYNC_CG_16_ZFILL", st, sizeof st),
                 "\"cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\" : : \"r\"("),
          "the shared address is the u32 window address: %s", st);
    CHECK(strstr(statement_of(src, "CP_ASYNC_WAIT_GROUP", st, sizeof st), "\"cp.async.wait_group 1;\""), "%s", st);
    /* accumulators in-out, descriptors 64-bit, scale-d a predicate, negations and transposes
     * from the immediate's bits (all set here) */
    CHECK(strstr(statement_of(src, "WGMMA_64x8x16_F32BF16BF16_SS", st, sizeof st),
                 "\"{ .reg .pred p; setp.ne.b32 p, %6, 0; wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3}, %4, %5, p, -1, -1, 1, 1; }\" : \"+f\"("),
          "%s", st);
    CHECK(strstr(st, "\"l\"(") && strstr(st, ": \"memory\");"), "descriptors and clobber: %s", st);
    CHECK(strstr(statement_of(src, "LDMATRIX_X4", st, sizeof st), "[%4];\" : \"=r\"("), "%s", st);
    /* $g[i]: one register of a group (A is group 1 from %4, B group 2 from %8) */
    statement_of(src, "MMA_16x8x32_F32E4M3E4M3F32_VIA_F16", st, sizeof st);
    CHECK(strstr(st, "mov.b32 {l0, h0}, %4; mov.b32 {l1, h1}, %5;") && strstr(st, "mov.b32 {l5, h5}, %9;") &&
              strstr(st, "cvt.rn.f16x2.e4m3x2 x0, l0;") &&
              strstr(st, "f32.f16.f16.f32 {%0, %1, %2, %3}, {x0, x1, x2, x3}, {x8, x9}, {%10, %11, %12, %13}; "),
          "%s", st);
    free(src);
    src = emit_rows(1000, "sm_80", err, sizeof err);
    CHECK(!src && strstr(err, "MMA_16x8x4_F64F64F64F64 (mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64) "
                              "needs sm_90; this module is for sm_80"),
          "%s", err);
    free(src);
}

static void compile(cute_nvrtc *nv)
{
    static const struct { int max; const char *arch; } mods[] = {{80, "sm_80"}, {89, "sm_89"}, {90, "sm_90a"},
                                                                 {100, "sm_100a"}};
    for (int m = 0; m < 4; m++) {
        char err[512];
        char *src = emit_rows(mods[m].max, mods[m].arch, err, sizeof err);
        if (!src) continue;
        cute_nvrtc_output o;
        cute_status s = cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = mods[m].arch}, &o);
        CHECK(s == CUTE_OK && o.cubin_size, "%s: %s", mods[m].arch, o.log);
        if ((s != CUTE_OK || m == 2) && getenv("CUTEC_TEST_VERBOSE")) fputs(src, stderr);
        for (int r = 0; s == CUTE_OK && r < CUTE_INST_COUNT; r++) {
            const cute_inst_info *I = cute_inst_info_of((cute_inst)r);
            if (in_module(I, mods[m].max)) CHECK(strstr(o.ptx, I->mnemonic), "%s: no %s in the PTX", mods[m].arch, I->id);
        }
        cute_nvrtc_output_free(&o);
        free(src);
    }
}

int main(void)
{
    text();
    char err[512];
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        char why[600];
        snprintf(why, sizeof why, "no NVRTC, instruction rows not compiled: %s", err);
        SKIP(why);
    } else {
        compile(nv);
        cute_nvrtc_close(nv);
    }
    return CHECK_DONE("backend/cuda_c_inst");
}
