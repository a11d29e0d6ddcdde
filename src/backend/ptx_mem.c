/* Memory, warp collectives, atomics, inline PTX and instruction rows as PTX.  A pointer's
 * state space is its type's: ld/st.shared on the 32-bit window address, ld/st.global on
 * the 64-bit one (generic where the kernel turns a shared pointer into a global one).
 * Vectors of 4, 8 or 16 bytes move as one access, as the CUDA C backend's structs do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "ptx_internal.h"

#define FULL "0xffffffff"

/* --- packing lanes into 32-bit words -------------------------------------------------- */

static int lane_bytes(cute_type t) { return cute_dtype_bytes((cute_dtype)t.dtype); }

bool px_pack32(px_fn *e, cute_vreg r, char words[][PX_NAME], int *n)
{
    cute_type t = cute_ir_type(e->f, r);
    int eb = lane_bytes(t), lanes = t.lanes > 1 ? t.lanes : 1, bytes = eb * lanes;
    px_class c = px_class_of(t);
    char x[4][PX_NAME];
    if (c == PX_PRED || bytes % 4 || bytes / 4 > 64)
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "packs %d bytes into 32-bit words", bytes);
    *n = bytes / 4;
    for (int w = 0; w < *n; w++) px_temp(e, PX_B32, words[w]);
    for (int w = 0; w < *n; w++) {
        if (eb == 4) {
            px_line(e, "mov.b32 %s, %s;", words[w], px_reg(e, r, lanes > 1 ? w : -1, x[0]));
        } else if (eb == 8) {
            if (w % 2) continue;
            px_line(e, "mov.b64 {%s, %s}, %s;", words[w], words[w + 1], px_reg(e, r, lanes > 1 ? w / 2 : -1, x[0]));
        } else if (eb == 2) {
            px_line(e, "mov.b32 %s, {%s, %s};", words[w], px_reg(e, r, 2 * w, x[0]), px_reg(e, r, 2 * w + 1, x[1]));
        } else { /* bytes, each in a 16-bit register */
            char b[4][PX_NAME];
            for (int k = 0; k < 4; k++) {
                px_temp(e, PX_B32, b[k]);
                px_line(e, "cvt.u32.u16 %s, %s;", b[k], px_reg(e, r, 4 * w + k, x[0]));
            }
            px_line(e, "prmt.b32 %s, %s, %s, 0x0040;", b[0], b[0], b[1]);
            px_line(e, "prmt.b32 %s, %s, %s, 0x0040;", b[2], b[2], b[3]);
            px_line(e, "prmt.b32 %s, %s, %s, 0x5410;", words[w], b[0], b[2]);
        }
    }
    return true;
}

bool px_unpack32(px_fn *e, cute_vreg r, char words[][PX_NAME], int n)
{
    cute_type t = cute_ir_type(e->f, r);
    int eb = lane_bytes(t), lanes = t.lanes > 1 ? t.lanes : 1;
    char x[2][PX_NAME], b[PX_NAME];
    if (px_class_of(t) == PX_PRED || eb * lanes != 4 * n)
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "unpacks %d words into %d bytes", n, eb * lanes);
    for (int w = 0; w < n; w++) {
        if (eb == 4) {
            px_line(e, "mov.b32 %s, %s;", px_reg(e, r, lanes > 1 ? w : -1, x[0]), words[w]);
        } else if (eb == 8) {
            if (w % 2 == 0)
                px_line(e, "mov.b64 %s, {%s, %s};", px_reg(e, r, lanes > 1 ? w / 2 : -1, x[0]), words[w], words[w + 1]);
        } else if (eb == 2) {
            px_line(e, "mov.b32 {%s, %s}, %s;", px_reg(e, r, 2 * w, x[0]), px_reg(e, r, 2 * w + 1, x[1]), words[w]);
        } else {
            bool sgn = cute_dtype_is_signed((cute_dtype)t.dtype);
            for (int k = 0; k < 4; k++) {
                px_temp(e, PX_B32, b);
                px_line(e, "bfe.%s32 %s, %s, %d, 8;", sgn ? "s" : "u", b, words[w], 8 * k);
                px_line(e, "cvt.u16.u32 %s, %s;", px_reg(e, r, 4 * w + k, x[0]), b);
            }
        }
    }
    return true;
}

/* --- loads and stores ----------------------------------------------------------------- */

static const char *space(px_fn *e, cute_type ptr)
{
    if (px_is_smem_ptr(ptr)) return ".shared";
    return e->generic_global ? "" : ".global";
}

/* the type of a one-lane access: "s8" into a 16-bit register, "b32", "f32" */
static const char *lane_access(cute_type t)
{
    cute_dtype d = (cute_dtype)t.dtype;
    int b = cute_dtype_bits(d);
    if (d == CUTE_I1) return "u8";
    if (b <= 8) return cute_dtype_is_signed(d) ? "s8" : "u8";
    if (d == CUTE_F32) return "f32";
    if (d == CUTE_F64) return "f64";
    return b == 16 ? "b16" : b == 32 ? "b32" : "b64";
}

/* a vector of pow2 bytes, 4 to 16, moves as one access of lanes or of words */
static bool whole(cute_type t)
{
    int bytes = lane_bytes(t) * t.lanes;
    return t.lanes == 1 || (cc_pow2(bytes) && bytes <= 16 && bytes >= 2);
}

/* "{%a, %b}" of n names */
static void brace(char *out, size_t cap, char names[][PX_NAME], int n)
{
    size_t k = (size_t)snprintf(out, cap, "{");
    for (int i = 0; i < n; i++) k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? ", " : "", names[i]);
    snprintf(out + k, cap - k, "}");
}

static bool access(px_fn *e, const cute_ir_inst *in, bool is_load)
{
    cute_vreg ptr = in->a[0], v = is_load ? in->dst : in->a[1];
    cute_type t = cute_ir_type(e->f, v);
    const char *sp = space(e, cute_ir_type(e->f, ptr));
    if (is_load && e->readonly && e->readonly[ptr] && !e->generic_global) sp = ".global.nc";
    char a[PX_NAME], x[PX_NAME], tmp[PX_NAME], list[64 * PX_NAME];
    char names[64][PX_NAME];
    px_reg(e, ptr, -1, a);
    int eb = lane_bytes(t), lanes = t.lanes > 1 ? t.lanes : 1, bytes = eb * lanes;
    if (t.dtype == CUTE_I1 && lanes == 1) { /* a bool is a byte */
        px_temp(e, PX_B16, tmp);
        if (is_load) {
            px_line(e, "ld%s.u8 %s, [%s];", sp, tmp, a);
            px_line(e, "setp.ne.u16 %s, %s, 0;", px_reg(e, v, -1, x), tmp);
        } else {
            px_line(e, "selp.u16 %s, 1, 0, %s;", tmp, px_reg(e, v, -1, x));
            px_line(e, "st%s.u8 [%s], %s;", sp, a, tmp);
        }
        return true;
    }
    if (t.dtype == CUTE_I1 || t.dtype == CUTE_E2M1 || t.dtype == CUTE_TMAP)
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "memory access of %s", cute_dtype_name((cute_dtype)t.dtype));
    if (lanes == 1) {
        if (is_load)
            px_line(e, "ld%s.%s %s, [%s];", sp, lane_access(t), px_reg(e, v, -1, x), a);
        else
            px_line(e, "st%s.%s [%s], %s;", sp, lane_access(t), a, px_reg(e, v, -1, x));
        return true;
    }
    if (!whole(t)) { /* lane by lane */
        for (int l = 0; l < lanes; l++) {
            if (is_load)
                px_line(e, "ld%s.%s %s, [%s+%d];", sp, lane_access(t), px_reg(e, v, l, x), a, l * eb);
            else
                px_line(e, "st%s.%s [%s+%d], %s;", sp, lane_access(t), a, l * eb, px_reg(e, v, l, x));
        }
        return true;
    }
    if (eb >= 4 || (eb == 2 && bytes <= 8)) { /* the lanes themselves: ld.v2.f32, ld.v4.b16 */
        for (int l = 0; l < lanes; l++) px_reg(e, v, l, names[l]);
        brace(list, sizeof list, names, lanes);
        if (is_load)
            px_line(e, "ld%s.v%d.%s %s, [%s];", sp, lanes, lane_access(t), list, a);
        else
            px_line(e, "st%s.v%d.%s [%s], %s;", sp, lanes, lane_access(t), a, list);
        return true;
    }
    if (bytes == 2) { /* two bytes: one 16-bit access */
        char w[1][PX_NAME], h[PX_NAME];
        px_temp(e, PX_B16, h);
        if (is_load) {
            px_line(e, "ld%s.b16 %s, [%s];", sp, h, a);
            for (int k = 0; k < 2; k++) {
                px_line(e, "%s %s, %s, %d;", k ? "shr.u16" : "mov.b16", px_reg(e, v, k, x), h, k ? 8 : 0);
                px_line(e, cute_dtype_is_signed((cute_dtype)t.dtype) ? "cvt.s16.s8 %s, %s;" : "and.b16 %s, %s, 0xFF;", x, x);
            }
        } else {
            char lo[PX_NAME], hi[PX_NAME];
            px_temp(e, PX_B16, lo), px_temp(e, PX_B16, hi);
            px_line(e, "and.b16 %s, %s, 0xFF;", lo, px_reg(e, v, 0, x));
            px_line(e, "shl.b16 %s, %s, 8;", hi, px_reg(e, v, 1, x));
            px_line(e, "or.b16 %s, %s, %s;", h, lo, hi);
            px_line(e, "st%s.b16 [%s], %s;", sp, a, h);
        }
        (void)w;
        return true;
    }
    /* words: ld.v4.b32 then the lanes out of them */
    int n = bytes / 4;
    if (is_load) {
        for (int w = 0; w < n; w++) px_temp(e, PX_B32, names[w]);
        brace(list, sizeof list, names, n);
        if (n == 1)
            px_line(e, "ld%s.b32 %s, [%s];", sp, names[0], a);
        else
            px_line(e, "ld%s.v%d.b32 %s, [%s];", sp, n, list, a);
        return px_unpack32(e, v, names, n);
    }
    if (!px_pack32(e, v, names, &n)) return false;
    brace(list, sizeof list, names, n);
    if (n == 1)
        px_line(e, "st%s.b32 [%s], %s;", sp, a, names[0]);
    else
        px_line(e, "st%s.v%d.b32 [%s], %s;", sp, n, a, list);
    return true;
}

/* offsets count elements; a global pointer moves by 64-bit bytes, a shared one by 32-bit */
static bool ptr_add(px_fn *e, const cute_ir_inst *in)
{
    char d[PX_NAME], a[PX_NAME], b[PX_NAME], t[PX_NAME];
    cute_type pt = in->type, ot = cute_ir_type(e->f, in->a[1]);
    cute_dtype od = (cute_dtype)ot.dtype;
    if (ot.lanes != 1 || !cute_dtype_is_int(od))
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "a pointer offset of %s", cute_dtype_name(od));
    int size = pt.pointee == CUTE_VOID ? 1 : cute_dtype_bytes((cute_dtype)pt.pointee);
    px_reg(e, in->dst, -1, d), px_reg(e, in->a[0], -1, a), px_reg(e, in->a[1], -1, b);
    int ob = cute_dtype_bits(od);
    const char *ot_name = px_arith_type(od);
    const cute_ir_inst *c = px_const(e, in->a[1]);
    if (c) { /* a constant offset: ptxas folds it into the access ([r+imm]) */
        int64_t x = c->imm;
        if (ob == 8) x = cute_dtype_is_signed(od) ? (int64_t)(int8_t)x : (int64_t)(uint8_t)x;
        if (ob == 16) x = cute_dtype_is_signed(od) ? (int64_t)(int16_t)x : (int64_t)(uint16_t)x;
        if (ob == 32) x = cute_dtype_is_signed(od) ? (int64_t)(int32_t)x : (int64_t)(uint32_t)x;
        if (px_is_smem_ptr(pt))
            px_line(e, "add.u32 %s, %s, %u;", d, a, (unsigned)((uint64_t)x * (uint64_t)size));
        else
            px_line(e, "add.s64 %s, %s, %lld;", d, a, (long long)((uint64_t)x * (uint64_t)size));
        return true;
    }
    if (px_is_smem_ptr(pt)) { /* (u32)offset * size + base */
        const char *o32 = b;
        if (ob != 32) {
            px_line(e, "cvt.u32.%s %s, %s;", ot_name, px_temp(e, PX_B32, t), b);
            o32 = t;
        }
        px_line(e, "mad.lo.u32 %s, %s, %d, %s;", d, o32, size, a);
        return true;
    }
    px_temp(e, PX_B64, t);
    if (ob == 32)
        px_line(e, "mul.wide.%s %s, %s, %d;", ot_name, t, b, size);
    else {
        if (ob == 64)
            px_line(e, "mov.b64 %s, %s;", t, b);
        else
            px_line(e, "cvt.%s64.%s %s, %s;", cute_dtype_is_signed(od) ? "s" : "u", ot_name, t, b);
        if (size != 1) px_line(e, "mul.lo.s64 %s, %s, %d;", t, t, size);
    }
    px_line(e, "add.s64 %s, %s, %s;", d, a, t);
    return true;
}

/* --- warps ---------------------------------------------------------------------------- */

static bool shfl(px_fn *e, const cute_ir_inst *in)
{
    static const char *const mode[] = {"idx", "up", "down", "bfly"};
    static const char *const clamp[] = {"31", "0", "31", "31"};
    if (in->imm < 0 || in->imm > 3) return px_fail(e, CUTE_ERR_INVALID, "no shuffle mode %lld", (long long)in->imm);
    cute_type t = in->type;
    int bits = t.dtype == CUTE_PTR ? (px_is_smem_ptr(t) ? 32 : 64) : cute_dtype_bits((cute_dtype)t.dtype);
    if (t.lanes != 1 || (bits != 32 && bits != 64) || px_is_16f((cute_dtype)t.dtype))
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "shuffles 32- or 64-bit scalars");
    char d[PX_NAME], a[PX_NAME], l[PX_NAME];
    px_reg(e, in->dst, -1, d), px_reg(e, in->a[0], -1, a), px_reg(e, in->a[1], -1, l);
    const char *m = mode[in->imm], *c = clamp[in->imm];
    if (bits == 32) {
        px_line(e, "shfl.sync.%s.b32 %s, %s, %s, %s, " FULL ";", m, d, a, l, c);
        return true;
    }
    char lo[PX_NAME], hi[PX_NAME];
    px_temp(e, PX_B32, lo), px_temp(e, PX_B32, hi);
    px_line(e, "mov.b64 {%s, %s}, %s;", lo, hi, a);
    px_line(e, "shfl.sync.%s.b32 %s, %s, %s, %s, " FULL ";", m, lo, lo, l, c);
    px_line(e, "shfl.sync.%s.b32 %s, %s, %s, %s, " FULL ";", m, hi, hi, l, c);
    px_line(e, "mov.b64 %s, {%s, %s};", d, lo, hi);
    return true;
}

static bool vote(px_fn *e, const cute_ir_inst *in)
{
    char d[PX_NAME], a[PX_NAME];
    px_reg(e, in->dst, -1, d), px_reg(e, in->a[0], -1, a);
    switch (in->imm) {
    case CUTE_VOTE_ANY:
        return px_line(e, "vote.sync.any.pred %s, %s, " FULL ";", d, a), true;
    case CUTE_VOTE_ALL:
        return px_line(e, "vote.sync.all.pred %s, %s, " FULL ";", d, a), true;
    case CUTE_VOTE_BALLOT:
        return px_line(e, "vote.sync.ballot.b32 %s, %s, " FULL ";", d, a), true;
    default:
        return px_fail(e, CUTE_ERR_INVALID, "no vote mode %lld", (long long)in->imm);
    }
}

/* --- atomics -------------------------------------------------------------------------- */

/* the atom's operation and type for mode on d, or NULL (CAS loops stay CUDA C's) */
static const char *atom_kind(px_fn *e, cute_atomic mode, cute_dtype d)
{
    bool i32 = d == CUTE_I32 || d == CUTE_U32;
    switch (mode) {
    case CUTE_ATOMIC_ADD:
        if (i32) return "add.u32";
        if (d == CUTE_U64 || d == CUTE_I64) return "add.u64";
        if (d == CUTE_F32) return "add.f32";
        if (d == CUTE_F64) return "add.f64";
        if (d == CUTE_F16) return "add.noftz.f16";
        if (d == CUTE_BF16 && e->sm >= 90) return "add.noftz.bf16";
        return NULL;
    case CUTE_ATOMIC_MIN:
    case CUTE_ATOMIC_MAX: {
        const char *op = mode == CUTE_ATOMIC_MIN ? "min" : "max";
        static char buf[16];
        if (!i32 && d != CUTE_U64 && d != CUTE_I64) return NULL;
        snprintf(buf, sizeof buf, "%s.%s", op, px_arith_type(d));
        return buf;
    }
    default:
        if (i32 || d == CUTE_F32) return "exch.b32";
        if (cute_dtype_bits(d) == 64 && d != CUTE_PTR) return "exch.b64";
        return NULL;
    }
}

static bool atomic(px_fn *e, const cute_ir_inst *in)
{
    cute_dtype d = (cute_dtype)in->type.dtype;
    if (in->imm < 0 || in->imm > 3) return px_fail(e, CUTE_ERR_INVALID, "no atomic mode %lld", (long long)in->imm);
    if (in->type.lanes != 1) return px_fail(e, CUTE_ERR_UNSUPPORTED, "atomics on vectors");
    const char *k = atom_kind(e, (cute_atomic)in->imm, d);
    if (!k) return px_fail(e, CUTE_ERR_UNSUPPORTED, "an atomic on %s that needs a CAS loop", cute_dtype_name(d));
    char r[PX_NAME], p[PX_NAME], v[PX_NAME];
    px_line(e, "atom%s.%s %s, [%s], %s;", space(e, cute_ir_type(e->f, in->a[0])), k, px_reg(e, in->dst, -1, r),
            px_reg(e, in->a[0], -1, p), px_reg(e, in->a[1], -1, v));
    return true;
}

static bool atomic_cas(px_fn *e, const cute_ir_inst *in)
{
    cute_dtype d = (cute_dtype)in->type.dtype;
    int bits = cute_dtype_bits(d);
    if (in->type.lanes != 1 || d == CUTE_I1 || d == CUTE_PTR || (bits != 16 && bits != 32 && bits != 64))
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "no atomics on %s (16, 32 or 64-bit numbers)", cute_dtype_name(d));
    char r[PX_NAME], p[PX_NAME], c[PX_NAME], v[PX_NAME];
    px_line(e, "atom%s.cas.b%d %s, [%s], %s, %s;", space(e, cute_ir_type(e->f, in->a[0])), bits,
            px_reg(e, in->dst, -1, r), px_reg(e, in->a[0], -1, p), px_reg(e, in->a[1], -1, c),
            px_reg(e, in->a[2], -1, v));
    return true;
}

/* --- inline PTX: ASM ops and INST rows ------------------------------------------------ */

typedef enum { PX_OUT, PX_INOUT, PX_IN } px_dir;

/* how one operand of an asm statement travels: the register the text names (the IR
 * register itself, or a temporary of the width the CUDA C backend's constraint gives: "r"
 * for an i1 or a 32-bit vector, "l" for a 64-bit one, an f32 as its bits where raw), and
 * what moves it back after the statement */
typedef enum { BACK_NONE, BACK_PRED, BACK_BITS, BACK_WORDS } px_back;
typedef struct px_operand {
    char name[PX_NAME];
    px_back back;
    char words[2][PX_NAME]; /* BACK_WORDS: the vector's 32-bit words */
    int nwords;
} px_operand;

static bool operand(px_fn *e, cute_vreg r, px_dir dir, bool raw, px_operand *o)
{
    cute_type t = cute_ir_type(e->f, r);
    int lanes = t.lanes > 1 ? t.lanes : 1;
    int total = t.dtype == CUTE_PTR ? (px_is_smem_ptr(t) ? 32 : 64) : cute_dtype_bits((cute_dtype)t.dtype) * lanes;
    char x[PX_NAME];
    o->back = BACK_NONE;
    if (t.dtype == CUTE_TMAP && dir != PX_IN) return px_fail(e, CUTE_ERR_UNSUPPORTED, "a tensor map cannot be an asm output");
    if (t.dtype == CUTE_I1) { /* a u32 0 or 1 */
        px_temp(e, PX_B32, o->name);
        if (dir != PX_OUT) px_line(e, "selp.u32 %s, 1, 0, %s;", o->name, px_reg(e, r, -1, x));
        o->back = BACK_PRED;
        return true;
    }
    if (lanes == 1 && !(raw && (t.dtype == CUTE_F32 || t.dtype == CUTE_F64))) {
        px_reg(e, r, -1, o->name);
        return true;
    }
    if (lanes == 1) { /* an f32/f64 that travels as its bits */
        px_class c = t.dtype == CUTE_F32 ? PX_B32 : PX_B64;
        px_temp(e, c, o->name);
        if (dir != PX_OUT) px_line(e, "mov.%s %s, %s;", px_bits_type(c), o->name, px_reg(e, r, -1, x));
        o->back = BACK_BITS;
        return true;
    }
    if (total != 32 && total != 64)
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "an asm operand of %d bits (32 or 64 for vectors)", total);
    o->nwords = total / 32;
    if (dir != PX_OUT) {
        if (!px_pack32(e, r, o->words, &o->nwords)) return false;
    } else {
        for (int w = 0; w < o->nwords; w++) px_temp(e, PX_B32, o->words[w]);
    }
    if (o->nwords == 1) {
        snprintf(o->name, PX_NAME, "%s", o->words[0]);
    } else {
        px_temp(e, PX_B64, o->name);
        if (dir != PX_OUT) px_line(e, "mov.b64 %s, {%s, %s};", o->name, o->words[0], o->words[1]);
    }
    o->back = BACK_WORDS;
    return true;
}

/* after the statement: an output's temporary back into its register */
static bool write_back(px_fn *e, cute_vreg r, px_operand *o)
{
    char x[PX_NAME];
    cute_type t = cute_ir_type(e->f, r);
    switch (o->back) {
    case BACK_NONE:
        return true;
    case BACK_PRED:
        px_line(e, "setp.ne.u32 %s, %s, 0;", px_reg(e, r, -1, x), o->name);
        return true;
    case BACK_BITS:
        px_line(e, "mov.%s %s, %s;", t.dtype == CUTE_F32 ? "b32" : "b64", px_reg(e, r, -1, x), o->name);
        return true;
    default:
        if (o->nwords == 2) px_line(e, "mov.b64 {%s, %s}, %s;", o->words[0], o->words[1], o->name);
        return px_unpack32(e, r, o->words, o->nwords);
    }
}

/* text with %k replaced by names[k] and %% by %, in braces of its own */
static bool substitute(px_fn *e, const char *text, char (*names)[PX_NAME], int n)
{
    cc_buf o = {0};
    cc_puts(&o, "{\n\t");
    for (const char *p = text; *p; p++) {
        if (p[0] == '%' && p[1] == '%') {
            cc_puts(&o, "%");
            p++;
        } else if (p[0] == '%' && p[1] >= '0' && p[1] <= '9') {
            char *end;
            long k = strtol(p + 1, &end, 10);
            if (k >= n) {
                free(o.p);
                return px_fail(e, CUTE_ERR_INVALID, "asm text names operand %ld of %d", k, n);
            }
            cc_puts(&o, names[k]);
            p = end - 1;
        } else {
            char c[2] = {*p, 0};
            cc_puts(&o, c);
        }
    }
    cc_puts(&o, "\n\t}\n");
    if (o.oom) return px_fail(e, CUTE_ERR_OOM, "out of memory");
    cc_puts(e->out, "\t");
    cc_puts(e->out, o.p);
    free(o.p);
    return true;
}

static bool asm_statement(px_fn *e, const char *text, const cute_vreg *var, const px_dir *dir, const bool *raw, int n)
{
    px_operand *ops = calloc((size_t)(n ? n : 1), sizeof *ops);
    char (*names)[PX_NAME] = calloc((size_t)(n ? n : 1), PX_NAME);
    bool ok = ops && names;
    if (!ok) px_fail(e, CUTE_ERR_OOM, "out of memory");
    for (int k = 0; ok && k < n; k++) {
        ok = operand(e, var[k], dir[k], raw && raw[k], &ops[k]);
        if (ok) snprintf(names[k], PX_NAME, "%s", ops[k].name);
    }
    if (ok) ok = substitute(e, text, names, n);
    for (int k = 0; ok && k < n; k++)
        if (dir[k] != PX_IN) ok = write_back(e, var[k], &ops[k]);
    free(ops), free(names);
    return ok;
}

static bool inline_asm(px_fn *e, const cute_ir_inst *in)
{
    int n = (int)in->nvar;
    px_dir *dir = malloc((size_t)(n ? n : 1) * sizeof *dir);
    if (!dir) return px_fail(e, CUTE_ERR_OOM, "out of memory");
    for (int k = 0; k < n; k++) dir[k] = k < in->imm2 ? PX_INOUT : k < in->imm ? PX_OUT : PX_IN;
    bool ok = asm_statement(e, in->str ? in->str : "", in->var, dir, NULL, n);
    free(dir);
    return ok;
}

bool px_inst(px_fn *e, const cute_ir_inst *in)
{
    const cute_inst_info *I;
    char text[PX_TEXT];
    if (!cc_inst_text(in, &I, text, sizeof text)) {
        if (!I) return px_fail(e, CUTE_ERR_INVALID, "no instruction row %lld", (long long)in->imm2);
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "%s: PTX text too long", I->id);
    }
    if (e->sm < I->arch)
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "%s (%s) needs sm_%d; this module is for %s", I->id,
                       I->mnemonic, I->arch, e->o->arch);
    int n = (int)in->nvar;
    px_dir *dir = malloc((size_t)(n ? n : 1) * sizeof *dir);
    bool *raw = malloc((size_t)(n ? n : 1) * sizeof *raw), ok = dir && raw;
    if (!ok) px_fail(e, CUTE_ERR_OOM, "out of memory");
    uint32_t o = 0, i = in->flags;
    for (int g = 0; ok && g < I->ngroups; g++) {
        const cute_inst_group *G = &I->groups[g];
        bool out = G->role == CUTE_IG_OUT || G->role == CUTE_IG_INOUT;
        for (int k = 0; k < G->count; k++) {
            uint32_t at = out ? o++ : i++;
            if (at >= (uint32_t)n) {
                ok = px_fail(e, CUTE_ERR_INVALID, "%s: fewer registers than its groups", I->id);
                break;
            }
            dir[at] = G->role == CUTE_IG_OUT ? PX_OUT : G->role == CUTE_IG_INOUT ? PX_INOUT : PX_IN;
            raw[at] = G->cls == CUTE_RC_B32;
        }
    }
    if (ok) ok = asm_statement(e, text, in->var, dir, raw, n);
    free(dir), free(raw);
    return ok;
}

bool px_mem(px_fn *e, const cute_ir_inst *in)
{
    char d[PX_NAME];
    switch ((cute_op)in->op) {
    case CUTE_OP_PTR_ADD:
        return ptr_add(e, in);
    case CUTE_OP_LOAD:
        return access(e, in, true);
    case CUTE_OP_STORE:
        return access(e, in, false);
    case CUTE_OP_SMEM_PTR:
        e->uses_smem = true;
        px_line(e, "mov.u32 %s, cute_smem;", px_reg(e, in->dst, -1, d));
        if (in->imm) px_line(e, "add.u32 %s, %s, %lld;", d, d, (long long)in->imm);
        return true;
    case CUTE_OP_BARRIER:
        px_line(e, "bar.sync 0;");
        return true;
    case CUTE_OP_SHFL:
        return shfl(e, in);
    case CUTE_OP_VOTE:
        return vote(e, in);
    case CUTE_OP_ATOMIC:
        return atomic(e, in);
    case CUTE_OP_ATOMIC_CAS:
        return atomic_cas(e, in);
    case CUTE_OP_ASM:
        return inline_asm(e, in);
    case CUTE_OP_PRINTF:
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "printf (vprintf's calling convention is CUDA C's)");
    default:
        return px_fail(e, CUTE_ERR_UNSUPPORTED, "no PTX for this op");
    }
}
