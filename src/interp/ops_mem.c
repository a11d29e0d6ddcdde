/* LOAD, STORE, ATOMIC, ATOMIC_CAS.  Every access is checked first (memory.c); one that
 * fails is skipped (a load of it gives 0).  Atomics run one thread after another in thread
 * order; across blocks on several workers they hold the launch's lock. */
#include <string.h>

#include "interp/interp_internal.h"

/* the host address of an access, or NULL when it must not happen */
static uint8_t *address(ictx *X, const dinst *d, uint32_t t, uint64_t p, uint32_t bytes,
                        uint32_t align, int how)
{
    if (d->space == CUTE_SMEM)
        return interp_scheck(X, d, t, p, bytes, align, how) ? X->smem + p : NULL;
    return interp_gcheck(X, d, t, p, bytes, align, how) ? (uint8_t *)(uintptr_t)p : NULL;
}

static void load(ictx *X, const dinst *d, const imask *m)
{
    const islot *P = REG(X, d->a[0]);
    uint32_t es = (uint32_t)d->esize, bytes = es * d->lanes;
    if (X->banks && d->space == CUTE_SMEM) interp_banks_access(X, d, m, P, bytes);
    EACH(X, m, t, {
        const uint8_t *src = address(X, d, t, P[t].u64, bytes, (uint32_t)d->imm, 0);
        for (uint32_t l = 0; l < d->lanes; l++) {
            islot v = {0};
            if (src) memcpy(&v, src + l * es, es);
            if (d->dt == CUTE_I1) v.u8 = v.u8 != 0;
            REG(X, d->d + l)[t] = v;
        }
    });
}

/* the common case: a 4-byte scalar from global memory */
static void load_g4(ictx *X, const dinst *d, const imask *m)
{
    const islot *P = REG(X, d->a[0]);
    islot *D = REG(X, d->d);
    EACH(X, m, t, {
        const uint8_t *src = address(X, d, t, P[t].u64, 4, (uint32_t)d->imm, 0);
        D[t].u64 = 0;
        if (src) memcpy(&D[t].u32, src, 4);
    });
}

static void store(ictx *X, const dinst *d, const imask *m)
{
    const islot *P = REG(X, d->a[0]);
    uint32_t es = (uint32_t)d->esize, bytes = es * d->lanes;
    if (X->banks && d->space == CUTE_SMEM) interp_banks_access(X, d, m, P, bytes);
    EACH(X, m, t, {
        uint8_t *dst = address(X, d, t, P[t].u64, bytes, (uint32_t)d->imm, 1);
        if (!dst) continue;
        for (uint32_t l = 0; l < d->lanes; l++) memcpy(dst + l * es, &REG(X, d->a[1] + l)[t], es);
    });
}

/* --- atomics ------------------------------------------------------------------------------ */

/* old (op) v for a float type */
static islot atomic_floating(int op, int dt, islot old, islot v)
{
    islot r = old;
    if (op == CUTE_ATOMIC_EXCH) return v;
    if (dt == CUTE_F32) {
        float a = old.f32, b = v.f32;
        r.f32 = op == CUTE_ATOMIC_ADD ? a + b : op == CUTE_ATOMIC_MIN ? (float)interp_fmin(a, b)
                                                                       : (float)interp_fmax(a, b);
    } else if (dt == CUTE_F64) {
        double a = old.f64, b = v.f64;
        r.f64 = op == CUTE_ATOMIC_ADD ? a + b : op == CUTE_ATOMIC_MIN ? interp_fmin(a, b) : interp_fmax(a, b);
    } else {
        float a = interp_slot_f64(old, dt), b = interp_slot_f64(v, dt);
        float c = op == CUTE_ATOMIC_ADD ? a + b : op == CUTE_ATOMIC_MIN ? (float)interp_fmin(a, b)
                                                                       : (float)interp_fmax(a, b);
        r.u16 = dt == CUTE_F16 ? cute_f32_to_f16(c) : cute_f32_to_bf16(c);
    }
    return r;
}

/* old (op) v for an integer type, at its width (the caller stores only the low bytes) */
static islot atomic_integer(int op, int dt, islot old, islot v, int bytes)
{
    if (op == CUTE_ATOMIC_EXCH) return v;
    bool sgn = cute_dtype_is_signed((cute_dtype)dt);
    int sh = 64 - 8 * bytes;
    /* widen: sign or zero extension of the low `bytes` */
    int64_t a = sgn ? (int64_t)(old.u64 << sh) >> sh : (int64_t)((old.u64 << sh) >> sh);
    int64_t b = sgn ? (int64_t)(v.u64 << sh) >> sh : (int64_t)((v.u64 << sh) >> sh);
    islot r;
    if (op == CUTE_ATOMIC_ADD)
        r.u64 = (uint64_t)a + (uint64_t)b;
    else if (sgn)
        r.i64 = op == CUTE_ATOMIC_MIN ? (a < b ? a : b) : (a > b ? a : b);
    else
        r.u64 = op == CUTE_ATOMIC_MIN ? ((uint64_t)a < (uint64_t)b ? (uint64_t)a : (uint64_t)b)
                                      : ((uint64_t)a > (uint64_t)b ? (uint64_t)a : (uint64_t)b);
    return r;
}

static void atomic_(ictx *X, const dinst *d, const imask *m)
{
    const islot *P = REG(X, d->a[0]), *V = REG(X, d->a[1]);
    islot *D = d->d ? REG(X, d->d) : NULL;
    uint32_t es = (uint32_t)d->esize;
    bool lock = d->space == CUTE_GMEM && X->L->workers > 1;
    bool is_float = cute_dtype_is_float((cute_dtype)d->dt);
    EACH(X, m, t, {
        uint8_t *p = address(X, d, t, P[t].u64, es, es, 2);
        islot old = {0};
        if (p) {
            if (lock) pthread_mutex_lock(&X->L->lock);
            memcpy(&old, p, es);
            islot r = is_float ? atomic_floating((int)d->imm, d->dt, old, V[t])
                               : atomic_integer((int)d->imm, d->dt, old, V[t], (int)es);
            memcpy(p, &r, es);
            if (lock) pthread_mutex_unlock(&X->L->lock);
        }
        if (D) D[t] = old;
    });
}

static void atomic_cas(ictx *X, const dinst *d, const imask *m)
{
    const islot *P = REG(X, d->a[0]), *C = REG(X, d->a[1]), *V = REG(X, d->a[2]);
    islot *D = d->d ? REG(X, d->d) : NULL;
    uint32_t es = (uint32_t)d->esize;
    bool lock = d->space == CUTE_GMEM && X->L->workers > 1;
    EACH(X, m, t, {
        uint8_t *p = address(X, d, t, P[t].u64, es, es, 2);
        islot old = {0};
        if (p) {
            if (lock) pthread_mutex_lock(&X->L->lock);
            memcpy(&old, p, es);
            if (memcmp(&old, &C[t], es) == 0) memcpy(p, &V[t], es);
            if (lock) pthread_mutex_unlock(&X->L->lock);
        }
        if (D) D[t] = old;
    });
}

iop_fn interp_pick_mem(const dinst *d, const char **why)
{
    switch (d->op) {
    case CUTE_OP_LOAD:
        if (d->space == CUTE_GMEM && d->lanes == 1 && d->esize == 4) return load_g4;
        return load;
    case CUTE_OP_STORE: return store;
    case CUTE_OP_ATOMIC:
    case CUTE_OP_ATOMIC_CAS:
        if (d->lanes != 1 || d->dt == CUTE_I1 || d->dt == CUTE_PTR) {
            *why = "atomics on vectors, i1 or pointers";
            return NULL;
        }
        if (d->op == CUTE_OP_ATOMIC && (d->imm < 0 || d->imm > CUTE_ATOMIC_EXCH)) {
            *why = "this atomic operation";
            return NULL;
        }
        return d->op == CUTE_OP_ATOMIC ? atomic_ : atomic_cas;
    default: *why = "this op"; return NULL;
    }
}
