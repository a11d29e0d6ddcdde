/* The verifier's wgmma rules (the PTX ISA's): a wgmma.fence between a register write and a
 * wgmma that reads the register (also before the first wgmma), and a wgmma.wait_group
 * covering a wgmma's group before anything else touches its accumulators.  Well-ordered
 * kernels pass (straight, in a loop with wait_group 1, two groups); each way of breaking a
 * rule is refused as a misuse (CUTE_IR_VERIFY_MISUSE) naming both sites; the operand checks
 * of the rows themselves (in-out accumulators mutable, the immediate's bits). */
#include <string.h>

#include "check.h"
#include "cutec/inst.h"
#include "cutec/ir.h"

enum { ACC = 4 }; /* m64n8k16 f32: 4 accumulators a thread */

typedef struct wk {
    cute_ir_func *f;
    cute_ir_builder b;
    cute_vreg acc[ACC], acc2[ACC], desc, one, g;
    char err[600];
} wk;

static void at(wk *k, int line)
{
    k->b.line = line;
}

static void begin(wk *k)
{
    k->f = cute_ir_func_new("k");
    cute_ir_builder_init(&k->b, k->f);
    k->b.file = "wgmma_verify_test.c";
    at(k, 1);
    k->g = cute_ir_add_param(k->f, cute_type_ptr(CUTE_F32, CUTE_GMEM), "g");
    cute_vreg zero = cute_ir_const_float(&k->b, CUTE_F32, 0);
    for (int i = 0; i < ACC; i++) {
        k->acc[i] = cute_ir_new_vreg(k->f, cute_type_of(CUTE_F32), "acc", true);
        k->acc2[i] = cute_ir_new_vreg(k->f, cute_type_of(CUTE_F32), "acc2", true);
        cute_ir_mov(&k->b, k->acc[i], zero);
        cute_ir_mov(&k->b, k->acc2[i], zero);
    }
    k->desc = cute_ir_const_int(&k->b, CUTE_U64, (int64_t)1 << 62);
    k->one = cute_ir_const_int(&k->b, CUTE_I32, 1);
}

static void fence(wk *k, int line)
{
    at(k, line);
    cute_ir_inst_op(&k->b, CUTE_INST_WGMMA_FENCE, NULL, 0, NULL, 0, 0);
}
static void commit(wk *k) { cute_ir_inst_op(&k->b, CUTE_INST_WGMMA_COMMIT_GROUP, NULL, 0, NULL, 0, 0); }
static void wait_(wk *k, int n) { cute_ir_inst_op(&k->b, CUTE_INST_WGMMA_WAIT_GROUP, NULL, 0, NULL, 0, n); }

static void mma(wk *k, const cute_vreg *acc, int line)
{
    at(k, line);
    cute_vreg in[3] = {k->desc, k->desc, k->one};
    cute_ir_inst_op(&k->b, CUTE_INST_WGMMA_64x8x16_F32BF16BF16_SS, acc, ACC, in, 3, 0);
}

static void use(wk *k, cute_vreg r, int line)
{
    at(k, line);
    cute_ir_op_void(&k->b, CUTE_OP_STORE, cute_type_of(CUTE_F32), k->g, r, 0, 4);
}

/* the verifier's answer: 0 or the message (k freed) */
static int verdict(wk *k)
{
    int rc = cute_ir_verify(k->f, k->err, sizeof k->err);
    cute_ir_func_free(k->f);
    return rc;
}

static void well_ordered(void)
{
    wk k;
    begin(&k), fence(&k, 2), mma(&k, k.acc, 3), commit(&k), wait_(&k, 0), use(&k, k.acc[0], 5);
    CHECK(verdict(&k) == 0, "fence, wgmma, commit, wait 0, read: %s", k.err);
    /* two groups, wait 1: the older one's accumulators may be read */
    begin(&k), fence(&k, 2), mma(&k, k.acc, 3), commit(&k), mma(&k, k.acc2, 4), commit(&k), wait_(&k, 1);
    use(&k, k.acc[1], 6);
    CHECK(verdict(&k) == 0, "the older group after wait 1: %s", k.err);
    /* the peak kernel's loop: fence, wgmma x2, commit, wait 1 in the loop; wait 0 after */
    begin(&k);
    cute_vreg i = cute_ir_new_vreg(k.f, cute_type_of(CUTE_I32), "i", false);
    cute_ir_for(&k.b, i, cute_ir_const_int(&k.b, CUTE_I32, 0), cute_ir_const_int(&k.b, CUTE_I32, 9), 1, 0);
    fence(&k, 2), mma(&k, k.acc, 3), mma(&k, k.acc, 4), commit(&k), wait_(&k, 1);
    cute_ir_end(&k.b);
    wait_(&k, 0), use(&k, k.acc[3], 8);
    CHECK(verdict(&k) == 0, "the loop: %s", k.err);
}

static void refused(void)
{
    wk k;
    begin(&k), mma(&k, k.acc, 3);
    CHECK(verdict(&k) == CUTE_IR_VERIFY_MISUSE &&
              strstr(k.err, "wgmma_verify_test.c:3: INST: WGMMA_64x8x16_F32BF16BF16_SS reads %") &&
              strstr(k.err, "written at wgmma_verify_test.c:1 (MOV) since the last wgmma.fence: "
                            "cute_warpgroup_arrive must come between them"),
          "no fence before the first wgmma: %s", k.err);
    begin(&k), fence(&k, 2), mma(&k, k.acc, 3), commit(&k), use(&k, k.acc[2], 7);
    CHECK(verdict(&k) == CUTE_IR_VERIFY_MISUSE &&
              strstr(k.err, "wgmma_verify_test.c:7: STORE: reads %") &&
              strstr(k.err, "an accumulator of the wgmma at wgmma_verify_test.c:3 (INST) that is still in flight"),
          "read before the wait: %s", k.err);
    begin(&k), fence(&k, 2), mma(&k, k.acc, 3), commit(&k), mma(&k, k.acc2, 4), commit(&k), wait_(&k, 1);
    use(&k, k.acc2[0], 6);
    CHECK(verdict(&k) == CUTE_IR_VERIFY_MISUSE && strstr(k.err, "wgmma at wgmma_verify_test.c:4"),
          "wait 1 leaves the newest group in flight: %s", k.err);
    begin(&k), fence(&k, 2), mma(&k, k.acc, 3), wait_(&k, 0), use(&k, k.acc[0], 6);
    CHECK(verdict(&k) == CUTE_IR_VERIFY_MISUSE, "an uncommitted wgmma is not waited for: %s", k.err);
    /* the loop writes an accumulator after its wait: the next iteration's wgmma needs a fence */
    begin(&k), fence(&k, 2);
    cute_vreg i = cute_ir_new_vreg(k.f, cute_type_of(CUTE_I32), "i", false);
    cute_ir_for(&k.b, i, cute_ir_const_int(&k.b, CUTE_I32, 0), cute_ir_const_int(&k.b, CUTE_I32, 9), 1, 0);
    mma(&k, k.acc, 4), commit(&k), wait_(&k, 0);
    at(&k, 6);
    cute_ir_mov(&k.b, k.acc[1], cute_ir_const_float(&k.b, CUTE_F32, 2));
    cute_ir_end(&k.b);
    CHECK(verdict(&k) == CUTE_IR_VERIFY_MISUSE && strstr(k.err, "written at wgmma_verify_test.c:6 (MOV)"),
          "a write in the loop, fenced only before it: %s", k.err);
    /* issued in one branch, read after the join without a wait */
    begin(&k), fence(&k, 2);
    cute_ir_if(&k.b, cute_ir_const_int(&k.b, CUTE_I1, 1));
    mma(&k, k.acc, 4), commit(&k);
    cute_ir_end(&k.b);
    use(&k, k.acc[0], 7);
    CHECK(verdict(&k) == CUTE_IR_VERIFY_MISUSE && strstr(k.err, ":7: STORE"), "after a branch: %s", k.err);
}

/* the rows' own operand rules: accumulators mutable; only the immediate's flag bits */
static void operands(void)
{
    wk k;
    begin(&k), fence(&k, 2);
    cute_vreg fixed[ACC];
    for (int i = 0; i < ACC; i++) fixed[i] = cute_ir_const_float(&k.b, CUTE_F32, 1);
    mma(&k, fixed, 3);
    CHECK(verdict(&k) == -1 && strstr(k.err, "d[0] (%") && strstr(k.err, "is read and written: it must be mutable"),
          "in-out accumulators: %s", k.err);
    begin(&k), fence(&k, 2);
    cute_vreg in[3] = {k.desc, k.desc, k.one};
    cute_ir_inst_op(&k.b, CUTE_INST_WGMMA_64x8x16_F32BF16BF16_SS, k.acc, ACC, in, 3, 16);
    CHECK(verdict(&k) == -1 && strstr(k.err, "takes no immediate but its flag bits (got 16)"), "imm: %s", k.err);
    begin(&k), fence(&k, 2);
    cute_ir_inst_op(&k.b, CUTE_INST_WGMMA_64x8x16_F32BF16BF16_SS, k.acc, ACC, in, 3,
                    CUTE_WGMMA_TNSP_A | CUTE_WGMMA_TNSP_B | CUTE_WGMMA_NEG_A | CUTE_WGMMA_NEG_B);
    commit(&k), wait_(&k, 0);
    CHECK(verdict(&k) == 0, "every flag bit: %s", k.err);
}

int main(void)
{
    well_ordered();
    refused();
    operands();
    return CHECK_DONE("ir wgmma_verify");
}
