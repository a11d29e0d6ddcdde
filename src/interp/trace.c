/* The trace: each instruction one thread executes, with its result and operand values,
 *   trace b(0,0,0) t(5,0,0) add.c:12: %7 = ADD %5, %6 -> 3.5  (%5 = 1.5, %6 = 2)
 * and control flow (loop iterations, the branch an IF takes, barriers). */
#include <inttypes.h>
#include <string.h>

#include "cutec/inst.h"
#include "interp/interp_internal.h"

int interp_format_slot(char *buf, size_t n, islot s, int dt)
{
    switch (dt) {
    case CUTE_I1: return snprintf(buf, n, "%s", s.u8 ? "true" : "false");
    case CUTE_I8: return snprintf(buf, n, "%d", s.i8);
    case CUTE_I16: return snprintf(buf, n, "%d", s.i16);
    case CUTE_I32: return snprintf(buf, n, "%" PRId32, s.i32);
    case CUTE_I64: return snprintf(buf, n, "%" PRId64, s.i64);
    case CUTE_U8: return snprintf(buf, n, "%u", s.u8);
    case CUTE_U16: return snprintf(buf, n, "%u", s.u16);
    case CUTE_U32: return snprintf(buf, n, "%" PRIu32, s.u32);
    case CUTE_U64: return snprintf(buf, n, "%" PRIu64, s.u64);
    case CUTE_F16: return snprintf(buf, n, "%.5g", cute_f16_to_f32(s.u16));
    case CUTE_BF16: return snprintf(buf, n, "%.4g", cute_bf16_to_f32(s.u16));
    case CUTE_F32: return snprintf(buf, n, "%.9g", s.f32);
    case CUTE_F64: return snprintf(buf, n, "%.17g", s.f64);
    case CUTE_PTR: return snprintf(buf, n, "0x%" PRIx64, s.u64);
    default: return snprintf(buf, n, "%.9g", interp_slot_f64(s, dt)); /* the narrow floats */
    }
}

/* a register's value in thread t: lanes in braces, pointers relative to their buffer */
static void value(const ictx *X, char *buf, size_t n, uint32_t slot, cute_type ty, uint32_t t)
{
    size_t k = 0;
    uint32_t lanes = ty.lanes ? ty.lanes : 1;
    if (ty.dtype == CUTE_PTR) {
        uint64_t p = REG(X, slot)[t].u64;
        if (ty.space == CUTE_SMEM) {
            snprintf(buf, n, "smem+%" PRIu64, p);
            return;
        }
        for (int i = 0; i < X->L->nbufs; i++) {
            const ibuf *b = &X->L->bufs[i];
            if (p >= b->base && p - b->base <= b->bytes) {
                snprintf(buf, n, "buffer %" PRIu64 "+%" PRIu64, b->id, p - b->base);
                return;
            }
        }
        snprintf(buf, n, "0x%" PRIx64, p);
        return;
    }
    if (lanes > 1 && k < n) buf[k++] = '{';
    for (uint32_t l = 0; l < lanes && k < n; l++) {
        if (l && k + 2 < n) buf[k++] = ',', buf[k++] = ' ';
        int w = interp_format_slot(buf + k, n - k, REG(X, slot + l)[t], ty.dtype);
        k += w > 0 ? (size_t)w : 0;
    }
    if (lanes > 1 && k + 1 < n) buf[k++] = '}';
    buf[k < n ? k : n - 1] = 0;
}

static void head(const ictx *X, const dinst *d)
{
    cute_dim3 tt;
    char site[160];
    interp_thread_dim3(X, (uint32_t)X->trace_t, &tt);
    fprintf(X->L->trace, "trace b(%u,%u,%u) t(%u,%u,%u) %s: ", X->ctaid[0], X->ctaid[1],
            X->ctaid[2], tt.x, tt.y, tt.z, interp_site(d, site, sizeof site));
}

void interp_trace_op(ictx *X, const dinst *d)
{
    FILE *o = X->L->trace;
    uint32_t t = (uint32_t)X->trace_t;
    const iprog *P = X->P;
    char v[256];
    head(X, d);
    if (d->vd) fprintf(o, "%%%u = ", d->vd);
    if (d->op == CUTE_OP_INST)
        fprintf(o, "INST %s", cute_inst_info_of((cute_inst)d->imm2)->id);
    else
        fputs(cute_op_name((cute_op)d->op), o);
    int nargs = cute_op_nargs((cute_op)d->op);
    uint32_t nops = nargs < 0 ? d->nvar : (uint32_t)nargs;
    for (uint32_t k = 0; k < nops; k++) {
        cute_vreg r = nargs < 0 ? d->vvar[k] : d->va[k];
        fprintf(o, "%s%%%u", k ? ", " : " ", r);
    }
    if (d->vd) {
        value(X, v, sizeof v, d->d, P->vtype[d->vd], t);
        fprintf(o, " -> %s", v);
    }
    for (uint32_t k = 0; d->op == CUTE_OP_INST && k < d->flags; k++) { /* its outputs */
        value(X, v, sizeof v, d->var[k], d->vtype[k], t);
        fprintf(o, "%s%s", k ? ", " : " -> ", v);
    }
    bool open = false;
    for (uint32_t k = 0; k < nops; k++) {
        cute_vreg r = nargs < 0 ? d->vvar[k] : d->va[k];
        if (!r || (d->op == CUTE_OP_INST && k < d->flags)) continue;
        value(X, v, sizeof v, P->slot_of[r], P->vtype[r], t);
        fprintf(o, "%s%%%u = %s", open ? ", " : "  (", r, v);
        open = true;
    }
    fputs(open ? ")\n" : "\n", o);
}

void interp_trace_ctl(ictx *X, const dinst *d, const char *what)
{
    FILE *o = X->L->trace;
    char v[128];
    head(X, d);
    fputs(cute_op_name((cute_op)d->op), o);
    if (d->kind == K_FOR) {
        value(X, v, sizeof v, d->a[0], X->P->vtype[d->va[0]], (uint32_t)X->trace_t);
        fprintf(o, " %s (%%%u = %s)", what, d->va[0], v);
    } else if (*what) {
        fprintf(o, " %s", what);
    }
    fputc('\n', o);
}
