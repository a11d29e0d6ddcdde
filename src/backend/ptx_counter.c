/* Remainders of a loop's variable as counters that wrap.  The multistage GEMM's k-loop
 * takes its stage as `k % 3` and `(k + 2) % 3` each trip: signed, three IABS, IMAD.HI and
 * negation sequences a k-tile (NVVM's: unsigned, in uniform registers).  In a FOR counting up
 * by one from lo, where lo + c >= 0, r = (k + c) % d (d a constant > 1, c a constant >= 0,
 * i32) is (lo + c) % d before the loop and, at the end of each trip, r + 1, back to 0 at d:
 * the same values, since k + c never is negative.  The REM itself is then not written
 * (e->counter).  Part of CUTEC_PTX_SUMS (the k-loop's index arithmetic, opt-in). */
#include "ptx_internal.h"

/* r = (k + c) % d of `body`'s top level: c into *c, d into *d */
static bool counter_rem(const px_fn *e, const cute_ir_block *body, const cute_ir_inst *in, cute_vreg k,
                        int64_t *c, int64_t *d)
{
    if (in->op != CUTE_OP_REM || in->type.dtype != CUTE_I32 || in->type.lanes != 1 || !in->dst) return false;
    const cute_ir_inst *dv = px_const(e, in->a[1]);
    if (!dv || (int32_t)dv->imm <= 1) return false;
    *d = (int32_t)dv->imm, *c = 0;
    if (in->a[0] == k) return true;
    for (uint32_t i = 0; i < body->n; i++) { /* k + c, defined once at the top */
        const cute_ir_inst *s = &body->inst[i];
        if (s->dst != in->a[0]) continue;
        if (s->op != CUTE_OP_ADD || e->f->vregs[s->dst].mutable_) return false;
        cute_vreg other = s->a[0] == k ? s->a[1] : s->a[1] == k ? s->a[0] : 0;
        const cute_ir_inst *cc = other ? px_const(e, other) : NULL;
        if (!cc || (int32_t)cc->imm < 0) return false;
        *c = (int32_t)cc->imm;
        return true;
    }
    return false;
}

/* whether the block (at any depth) assigns r */
static bool assigns(const cute_ir_block *b, cute_vreg r)
{
    for (uint32_t i = 0; b && i < b->n; i++) {
        const cute_ir_inst *in = &b->inst[i];
        if (in->dst == r || (in->op == CUTE_OP_FOR && in->a[0] == r)) return true;
        if (in->op == CUTE_OP_ASM || in->op == CUTE_OP_INST)
            for (uint32_t k = 0; k < in->nvar; k++)
                if (in->var[k] == r) return true;
        if (assigns(in->body[0], r) || assigns(in->body[1], r)) return true;
    }
    return false;
}

int px_counters(px_fn *e, const cute_ir_inst *loop, const cute_ir_inst *lo, px_counter *out, int max)
{
    const cute_ir_block *body = loop->body[0];
    cute_vreg k = loop->a[0];
    if (!e->counter || !body || loop->imm2 != 1 || cute_ir_type(e->f, k).dtype != CUTE_I32) return 0;
    bool lo_nonneg = lo ? (int32_t)lo->imm >= 0 : e->nonneg && e->nonneg[loop->a[1]];
    if (!lo_nonneg || assigns(body, k)) return 0;
    int n = 0;
    for (uint32_t i = 0; i < body->n && n < max; i++) {
        const cute_ir_inst *in = &body->inst[i];
        int64_t c, d;
        if (!counter_rem(e, body, in, k, &c, &d)) continue;
        char r[PX_NAME], t[PX_NAME];
        px_reg(e, in->dst, -1, r);
        if (lo) {
            px_line(e, "mov.b32 %s, %lld;", r, (long long)(((int32_t)lo->imm + c) % d));
        } else {
            px_temp(e, PX_B32, t);
            px_line(e, "add.s32 %s, %s, %lld;", t, px_reg(e, loop->a[1], -1, r), (long long)c);
            px_line(e, "rem.u32 %s, %s, %lld;", px_reg(e, in->dst, -1, r), t, (long long)d);
        }
        e->counter[in->dst] = true;
        out[n].r = in->dst, out[n].d = d;
        n++;
    }
    return n;
}

void px_counters_step(px_fn *e, const px_counter *c, int n)
{
    for (int i = 0; i < n; i++) {
        char r[PX_NAME], p[PX_NAME];
        px_reg(e, c[i].r, -1, r);
        px_temp(e, PX_PRED, p);
        px_line(e, "add.s32 %s, %s, 1;", r, r);
        px_line(e, "setp.eq.s32 %s, %s, %lld;", p, r, (long long)c[i].d);
        px_line(e, "selp.b32 %s, 0, %s, %s;", r, r, p);
    }
}
