/* The IR on its own: the instruction table is consistent; the verifier accepts a well-formed
 * INST op and rejects, with a message naming the row, the group and the register, each way
 * an INST op can be ill formed; other ill-formed IR is rejected too; the dump names rows. */
#include "check.h"
#include "cutec/inst.h"
#include "cutec/ir.h"

/* the table: ids unique, lookup finds each row, groups and counts coherent */
static void table(void)
{
    int mma = 0;
    for (int r = 0; r < CUTE_INST_COUNT; r++) {
        const cute_inst_info *I = cute_inst_info_of((cute_inst)r);
        CHECK(cute_inst_lookup(I->id) == (cute_inst)r, "lookup %s", I->id);
        CHECK(I->arch >= 80 && I->ngroups <= CUTE_INST_MAX_GROUPS && I->meaning[0], "%s", I->id);
        int regs = 0;
        for (int g = 0; g < I->ngroups; g++) {
            const cute_inst_group *G = &I->groups[g];
            bool reg = G->role == CUTE_IG_OUT || G->role == CUTE_IG_IN || G->role == CUTE_IG_INOUT ||
                       G->role == CUTE_IG_PRED || G->role == CUTE_IG_CADDR;
            CHECK(reg == (G->cls != CUTE_RC_NONE), "%s group %s: class", I->id, G->name);
            regs += G->count;
        }
        CHECK(regs == I->nout + I->nin, "%s: %d registers, %d + %d", I->id, regs, I->nout, I->nin);
        mma += (I->flags & CUTE_INST_WARP) && !strncmp(I->mnemonic, "mma", 3);
        /* mma.sync neither reads nor writes memory: no "memory" clobber */
        if (!strncmp(I->mnemonic, "mma", 3))
            CHECK(!(I->flags & CUTE_INST_MEMORY_EFFECTS), "%s has memory effects", I->id);
    }
    CHECK(mma == 26, "%d mma rows", mma);
    CHECK(cute_inst_info_of(CUTE_INST_COUNT) == NULL, "out of range");
    CHECK(cute_inst_lookup("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") == CUTE_INST_LDMATRIX_X4_TRANS,
          "lookup by mnemonic");
    CHECK(cute_inst_lookup("nope") == CUTE_INST_COUNT, "no such row");
    CHECK(cute_inst_class_accepts(CUTE_RC_B32, cute_type_vec(CUTE_BF16, 2)) &&
              cute_inst_class_accepts(CUTE_RC_B32, cute_type_vec(CUTE_I8, 4)) &&
              cute_inst_class_accepts(CUTE_RC_B32, cute_type_of(CUTE_F32)) &&
              !cute_inst_class_accepts(CUTE_RC_B32, cute_type_of(CUTE_F64)) &&
              !cute_inst_class_accepts(CUTE_RC_B32, cute_type_ptr(CUTE_U32, CUTE_SMEM)) &&
              !cute_inst_class_accepts(CUTE_RC_F32, cute_type_of(CUTE_U32)) &&
              cute_inst_class_accepts(CUTE_RC_I32, cute_type_of(CUTE_U32)),
          "register classes");
}

typedef struct fn {
    cute_ir_func *f;
    cute_ir_builder b;
    cute_vreg sp, gp; /* ptr<u32,smem>, ptr<f16,gmem> */
} fn;

static void begin(fn *k)
{
    k->f = cute_ir_func_new("k");
    cute_ir_builder_init(&k->b, k->f);
    k->b.file = "ir_test.c", k->b.line = 7;
    k->gp = cute_ir_add_param(k->f, cute_type_ptr(CUTE_F16, CUTE_GMEM), "g");
    k->sp = cute_ir_op(&k->b, CUTE_OP_SMEM_PTR, cute_type_ptr(CUTE_U32, CUTE_SMEM), 0, 0, 0);
}

static cute_vreg reg(fn *k, cute_type t) { return cute_ir_new_vreg(k->f, t, NULL, false); }
static cute_vreg val(fn *k, cute_type t)
{
    cute_vreg u = cute_ir_const_int(&k->b, CUTE_U32, 0x3c003c00);
    return cute_type_eq(t, cute_type_of(CUTE_U32)) ? u : cute_ir_op(&k->b, CUTE_OP_BITCAST, t, u, 0, 0);
}

/* verify; "" when well formed, else the message */
static const char *verify(fn *k, char *err, size_t n)
{
    if (cute_ir_verify(k->f, err, n) == 0) err[0] = 0;
    cute_ir_func_free(k->f);
    return err;
}

/* an ldmatrix x4 with outputs out[4] from address addr; imm */
static const char *ldmatrix(int nout, cute_type dt, bool gmem_addr, int64_t imm, char *err, size_t n)
{
    fn k;
    begin(&k);
    cute_vreg out[5] = {reg(&k, dt), reg(&k, cute_type_of(CUTE_U32)), reg(&k, cute_type_of(CUTE_U32)),
                        reg(&k, cute_type_of(CUTE_U32)), reg(&k, cute_type_of(CUTE_U32))};
    cute_vreg addr = gmem_addr ? k.gp : k.sp;
    cute_ir_inst_op(&k.b, CUTE_INST_LDMATRIX_X4, out, nout, &addr, 1, imm);
    return verify(&k, err, n);
}

static void verifier_inst(void)
{
    char err[512];
    CHECK(!*ldmatrix(4, cute_type_vec(CUTE_F16, 2), false, 0, err, sizeof err), "well formed: %s", err);
    CHECK(strstr(ldmatrix(3, cute_type_of(CUTE_U32), false, 0, err, sizeof err),
                 "ir_test.c:7: INST: LDMATRIX_X4 (ldmatrix.sync.aligned.m8n8.x4.shared.b16) takes 4 "
                 "outputs and 1 inputs, got 3 and 1"),
          "count: %s", err);
    CHECK(strstr(ldmatrix(5, cute_type_of(CUTE_U32), false, 0, err, sizeof err), "got 5 and 1"), "%s", err);
    CHECK(strstr(ldmatrix(4, cute_type_of(CUTE_F64), false, 0, err, sizeof err),
                 "LDMATRIX_X4: operand d[0] (%3) is f64, the row takes b32"),
          "class: %s", err);
    CHECK(strstr(ldmatrix(4, cute_type_vec(CUTE_F16, 4), false, 0, err, sizeof err), "is f16x4"), "%s", err);
    CHECK(strstr(ldmatrix(4, cute_type_of(CUTE_U32), true, 0, err, sizeof err),
                 "operand src[0] (%1) is ptr<f16,gmem>, the row takes a shared-memory pointer"),
          "space: %s", err);
    CHECK(strstr(ldmatrix(4, cute_type_of(CUTE_U32), false, 3, err, sizeof err), "takes no immediate"), "%s", err);

    /* mma: an f16x2 where the row takes f32 accumulators; an input used before defined */
    fn k;
    begin(&k);
    cute_vreg d[4], in[10];
    for (int i = 0; i < 4; i++) d[i] = reg(&k, cute_type_of(CUTE_F32));
    for (int i = 0; i < 6; i++) in[i] = val(&k, cute_type_vec(CUTE_F16, 2));
    for (int i = 6; i < 10; i++) in[i] = val(&k, cute_type_of(CUTE_F32));
    in[8] = val(&k, cute_type_vec(CUTE_F16, 2));
    cute_ir_inst_op(&k.b, CUTE_INST_MMA_16x8x16_F32F16F16F32, d, 4, in, 10, 0);
    CHECK(strstr(verify(&k, err, sizeof err), "operand c[2] (%"), "mma class: %s", err);
    begin(&k);
    for (int i = 0; i < 4; i++) d[i] = reg(&k, cute_type_of(CUTE_F32));
    for (int i = 0; i < 6; i++) in[i] = val(&k, cute_type_vec(CUTE_BF16, 2));
    for (int i = 6; i < 10; i++) in[i] = val(&k, cute_type_of(CUTE_F32));
    in[1] = reg(&k, cute_type_of(CUTE_U32));
    cute_ir_inst_op(&k.b, CUTE_INST_MMA_16x8x16_F32BF16BF16F32, d, 4, in, 10, 0);
    CHECK(strstr(verify(&k, err, sizeof err), "used before it is defined"), "%s", err);
    /* an output defined twice; a row that does not exist; wait_group with its immediate */
    begin(&k);
    cute_vreg o = reg(&k, cute_type_of(CUTE_U32));
    cute_ir_inst_op(&k.b, CUTE_INST_LDMATRIX_X1, &o, 1, &k.sp, 1, 0);
    cute_ir_inst_op(&k.b, CUTE_INST_LDMATRIX_X1, &o, 1, &k.sp, 1, 0);
    CHECK(strstr(verify(&k, err, sizeof err), "defined twice"), "%s", err);
    begin(&k);
    cute_ir_inst_op(&k.b, CUTE_INST_COUNT, NULL, 0, NULL, 0, 0);
    CHECK(strstr(verify(&k, err, sizeof err), "no instruction row"), "%s", err);
    begin(&k);
    cute_ir_inst_op(&k.b, CUTE_INST_CP_ASYNC_WAIT_GROUP, NULL, 0, NULL, 0, 2);
    cute_ir_inst_op(&k.b, CUTE_INST_CP_ASYNC_WAIT_GROUP, NULL, 0, NULL, 0, -1);
    CHECK(strstr(verify(&k, err, sizeof err), "immediate -1 out of range"), "%s", err);
}

/* ill-formed IR beyond INST: each rejected with its reason */
static void verifier_other(void)
{
    char err[512];
    fn k;
    begin(&k);
    cute_vreg a = cute_ir_const_int(&k.b, CUTE_I32, 1), x = cute_ir_const_float(&k.b, CUTE_F32, 1);
    cute_ir_op(&k.b, CUTE_OP_ADD, cute_type_of(CUTE_I32), a, x, 0);
    CHECK(strstr(verify(&k, err, sizeof err), "has type f32, expected i32"), "%s", err);
    begin(&k);
    cute_ir_op_void(&k.b, CUTE_OP_BREAK, cute_type_of(CUTE_VOID), 0, 0, 0, 0);
    CHECK(strstr(verify(&k, err, sizeof err), "outside a loop"), "%s", err);
    begin(&k);
    cute_ir_op(&k.b, CUTE_OP_LOAD, cute_type_of(CUTE_F32), k.gp, 0, 0);
    k.b.last->imm = 4;
    CHECK(strstr(verify(&k, err, sizeof err), "accesses f32 through a pointer to f16"), "%s", err);
    begin(&k);
    a = cute_ir_const_int(&k.b, CUTE_I32, 1);
    cute_ir_mov(&k.b, a, a);
    CHECK(strstr(verify(&k, err, sizeof err), "which is not mutable"), "%s", err);
    begin(&k);
    cute_ir_op(&k.b, CUTE_OP_BITCAST, cute_type_of(CUTE_F64), cute_ir_const_int(&k.b, CUTE_U32, 1), 0, 0);
    CHECK(strstr(verify(&k, err, sizeof err), "different sizes"), "%s", err);
    begin(&k); /* pointers compare (the GPU test's shared pointers do) */
    cute_ir_op(&k.b, CUTE_OP_LT, cute_type_of(CUTE_I1), k.sp, k.sp, 0);
    CHECK(!*verify(&k, err, sizeof err), "pointer comparison: %s", err);
}

static void dump(void)
{
    fn k;
    begin(&k);
    cute_vreg o = reg(&k, cute_type_vec(CUTE_F16, 2));
    cute_ir_inst_op(&k.b, CUTE_INST_LDMATRIX_X1_TRANS, &o, 1, &k.sp, 1, 0);
    cute_ir_inst_op(&k.b, CUTE_INST_CP_ASYNC_WAIT_GROUP, NULL, 0, NULL, 0, 3);
    char *text = cute_ir_text(k.f);
    CHECK(text && strstr(text, "INST LDMATRIX_X1_TRANS %3 <- %2") &&
              strstr(text, "INST CP_ASYNC_WAIT_GROUP imm 3"),
          "%s", text);
    free(text);
    cute_ir_func_free(k.f);
}

/* every op has a group, the families backends route by */
static void groups(void)
{
    for (int op = 0; op < CUTE_OP_COUNT; op++)
        CHECK(cute_op_group_of((cute_op)op) < CUTE_GROUP_COUNT, "%s has no group", cute_op_name((cute_op)op));
    CHECK(cute_op_group_of(CUTE_OP_INST) == CUTE_GROUP_INST && cute_op_group_of(CUTE_OP_ASM) == CUTE_GROUP_ASM &&
              cute_op_group_of(CUTE_OP_LOAD) == CUTE_GROUP_MEMORY && cute_op_group_of(CUTE_OP_FMA) == CUTE_GROUP_VALUE &&
              cute_op_group_of(CUTE_OP_WHILE) == CUTE_GROUP_CONTROL && cute_op_group_of(CUTE_OP_COUNT) == CUTE_GROUP_COUNT,
          "groups");
}

/* the name docs/instructions.md gives row `id`: a generated wgmma or tcgen05.ld / st row is
 * listed once for every N ("WGMMA_64x128x16_F32BF16BF16_SS" as "WGMMA_64xNx16_F32BF16BF16_SS",
 * "TCGEN05_LD_16x64b_X64_PACK" as "TCGEN05_LD_16x64b_XN_PACK") */
static void doc_name(const char *id, char *out, size_t n)
{
    const char *x = !strncmp(id, "WGMMA_64x", 9) ? strchr(id + 9, 'x') : NULL;
    const char *tc = !strncmp(id, "TCGEN05_LD_", 11) || !strncmp(id, "TCGEN05_ST_", 11) ? strstr(id, "_X") : NULL;
    if (x) snprintf(out, n, "| `WGMMA_64xN%s` |", x);
    else if (tc) snprintf(out, n, "| `%.*s_XN%s` |", (int)(tc - id), id, tc + 2 + strspn(tc + 2, "0123456789"));
    else snprintf(out, n, "| `%s` |", id);
}

/* docs/instructions.md lists every row */
static void documented(void)
{
    char *doc = check_read_file("docs/instructions.md");
    if (!doc) {
        SKIP("docs/instructions.md not found (run from the repository root)");
        return;
    }
    for (int r = 0; r < CUTE_INST_COUNT; r++) {
        char want[96];
        doc_name(cute_inst_info_of((cute_inst)r)->id, want, sizeof want);
        CHECK(strstr(doc, want), "docs/instructions.md lacks %s", want);
    }
    free(doc);
}

int main(void)
{
    table();
    groups();
    documented();
    verifier_inst();
    verifier_other();
    dump();
    return CHECK_DONE("ir");
}
