/* The instruction table (ir_insts.def) as data, lookup, register classes, the builder call. */
#include <pthread.h>
#include <string.h>

#include "cutec/inst.h"

/* the .def's short names */
#define WARP CUTE_INST_WARP
#define WARPGROUP CUTE_INST_WARPGROUP
#define BLOCKING CUTE_INST_BLOCKING
#define ASYNC_SREAD CUTE_INST_ASYNC_SREAD
#define ASYNC_SWRITE CUTE_INST_ASYNC_SWRITE
#define MEM_READ CUTE_INST_MEM_READ
#define MEM_WRITE CUTE_INST_MEM_WRITE
#define FENCE CUTE_INST_FENCE
#define BARRIER CUTE_INST_BARRIER
#define ASYNC_COMMIT CUTE_INST_ASYNC_COMMIT
#define ASYNC_WAIT CUTE_INST_ASYNC_WAIT
#define MBAR_ARRIVE CUTE_INST_MBAR_ARRIVE
#define MBAR_WAIT CUTE_INST_MBAR_WAIT
#define TX_COUNT CUTE_INST_TX_COUNT
#define V(nm, role, n, cls) {CUTE_IG_##role, n, CUTE_RC_##cls, 1, 0, #nm}
#define R(nm, role, cls) {CUTE_IG_##role, 1, CUTE_RC_##cls, 0, 0, #nm}
#define SADDR(nm) {CUTE_IG_SADDR, 1, CUTE_RC_NONE, 0, 0, #nm}
#define GADDR(nm) {CUTE_IG_GADDR, 1, CUTE_RC_NONE, 0, 0, #nm}
#define CADDR(nm) {CUTE_IG_CADDR, 1, CUTE_RC_I32, 0, 0, #nm}
#define K(nm, v) {CUTE_IG_K, 0, CUTE_RC_NONE, 0, v, #nm}
#define IMM(nm) {CUTE_IG_IMM, 0, CUTE_RC_NONE, 0, 0, #nm}
#define TMAP(nm) {CUTE_IG_TMAP, 1, CUTE_RC_NONE, 0, 0, #nm}
#define PRED(nm) {CUTE_IG_PRED, 1, CUTE_RC_I32, 0, 0, #nm}
#define IMM_BIT(nm, bit) {CUTE_IG_IMM_BIT, 0, CUTE_RC_NONE, 0, bit, #nm}
#define IMM_SIGN(nm, bit) {CUTE_IG_IMM_SIGN, 0, CUTE_RC_NONE, 0, bit, #nm}
#define GROUPS(...) sizeof((cute_inst_group[]){{0}, ##__VA_ARGS__}) / sizeof(cute_inst_group) - 1

static cute_inst_info rows[CUTE_INST_COUNT] = {
#define X(id_, mn, tm, ar, fl, emu, mean, ...)                                                     \
    [CUTE_INST_##id_] = {.id = #id_, .mnemonic = mn, .tmpl = tm, .arch = ar, .flags = fl,          \
                         .meaning = mean, .ngroups = GROUPS(__VA_ARGS__), .groups = {__VA_ARGS__}},
#include "cutec/ir_insts.def"
#undef X
};

/* the register counts follow from the groups: counted once */
static void count_registers(void)
{
    for (int r = 0; r < CUTE_INST_COUNT; r++) {
        cute_inst_info *I = &rows[r];
        for (int g = 0; g < I->ngroups; g++) {
            const cute_inst_group *G = &I->groups[g];
            if (G->role == CUTE_IG_OUT || G->role == CUTE_IG_INOUT) I->nout += G->count;
            else if (G->role == CUTE_IG_IMM) I->has_imm = 1;
            else if (G->role == CUTE_IG_IMM_BIT || G->role == CUTE_IG_IMM_SIGN) I->imm_bits |= 1 << G->value;
            else I->nin += G->count;
        }
    }
}

static pthread_once_t counted = PTHREAD_ONCE_INIT;

const cute_inst_info *cute_inst_info_of(cute_inst row)
{
    if ((unsigned)row >= CUTE_INST_COUNT) return NULL;
    pthread_once(&counted, count_registers);
    return &rows[row];
}

cute_inst cute_inst_lookup(const char *name)
{
    for (int r = 0; name && r < CUTE_INST_COUNT; r++)
        if (!strcmp(rows[r].id, name) || !strcmp(rows[r].mnemonic, name)) return (cute_inst)r;
    return CUTE_INST_COUNT;
}

bool cute_inst_class_accepts(cute_inst_class cls, cute_type t)
{
    cute_dtype d = (cute_dtype)t.dtype;
    if (d == CUTE_PTR || d == CUTE_VOID || d == CUTE_I1) return false;
    switch (cls) {
    case CUTE_RC_B32: return cute_dtype_bits(d) * t.lanes == 32;
    case CUTE_RC_F32: return d == CUTE_F32 && t.lanes == 1;
    case CUTE_RC_I32: return (d == CUTE_I32 || d == CUTE_U32) && t.lanes == 1;
    case CUTE_RC_F64: return d == CUTE_F64 && t.lanes == 1;
    case CUTE_RC_U64: return (d == CUTE_U64 || d == CUTE_I64) && t.lanes == 1;
    case CUTE_RC_B16: return (d == CUTE_U16 || d == CUTE_I16) && t.lanes == 1;
    default: return false;
    }
}

const char *cute_inst_class_name(cute_inst_class cls)
{
    static const char *names[] = {"none", "b32", "f32", "i32/u32", "f64", "u64/i64", "u16/i16"};
    return (unsigned)cls < sizeof names / sizeof names[0] ? names[cls] : "?";
}

void cute_ir_inst_op(cute_ir_builder *b, cute_inst row, const cute_vreg *out, int nout,
                     const cute_vreg *in, int nin, int64_t imm)
{
    int n = (nout > 0 ? nout : 0) + (nin > 0 ? nin : 0);
    cute_vreg *var = n ? cute_ir_alloc(b->f, (size_t)n * sizeof *var) : NULL;
    if (n && !var) b->oom = true;
    cute_ir_inst *op = cute_ir_append(b, CUTE_OP_INST);
    if (var) {
        if (nout > 0) memcpy(var, out, (size_t)nout * sizeof *var);
        if (nin > 0) memcpy(var + (nout > 0 ? nout : 0), in, (size_t)nin * sizeof *var);
    }
    op->var = var;
    op->nvar = var ? (uint32_t)n : 0;
    op->imm = imm;
    op->imm2 = row;
    op->flags = (uint16_t)(nout > 0 ? nout : 0); /* where the inputs begin */
}
