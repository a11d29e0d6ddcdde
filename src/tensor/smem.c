/* Shared memory: a bump allocator over the block's dynamic shared memory, and structs
 * laid out at trace time.  Every allocation is a static byte offset; the kernel's IR
 * function keeps the running total in smem_bytes, so allocators of one kernel never
 * overlap and the launch knows the size without asking the user. */
#include <stdio.h>
#include <string.h>

#include "cutec/notation.h"
#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "cutec/smem.h"
#include "trace/ctx_internal.h"

static cute_tensor bad_tensor(void)
{
    cute_tensor t;
    memset(&t, 0, sizeof t);
    t.layout = cute_layout_poison();
    t.host_arg = -1;
    return t;
}

static cute_val no_val(void) { return (cute_val){0, cute_type_of(CUTE_VOID), 0}; }

static bool pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }
static int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/* the alignment a byte offset from the base has, as far as accesses use it: its lowest
 * set bit, at most CUTE_SMEM_ACCESS_ALIGN (the base itself is aligned further) */
static int guaranteed_align(int64_t off)
{
    int64_t low = off & -off;
    return off == 0 || low >= CUTE_SMEM_ACCESS_ALIGN ? CUTE_SMEM_ACCESS_ALIGN : (int)low;
}

int cute_swizzle_align_bytes(cute_swizzle sw, cute_dtype d)
{
    int bytes = cute_dtype_bytes(d), shift = sw.S > 0 ? sw.S : -sw.S;
    if (sw.B <= 0 || bytes <= 0) return bytes > 0 ? bytes : 1;
    int64_t need = (int64_t)bytes << (sw.B + sw.M + shift);
    return need < CUTE_SMEM_BASE_ALIGN ? (int)need : CUTE_SMEM_BASE_ALIGN;
}

cute_smem_allocator cute_smem_allocator_new(cute_ctx *c)
{
    cute_smem_allocator a = {NULL, -1, 0, -1};
    if (!ctx_ok(c)) return a;
    a.kernel = c->fn;
    return a;
}

cute_smem_allocator cute_smem_allocator_overlay(cute_ctx *c, const cute_smem_allocator *a)
{
    cute_smem_allocator o = cute_smem_allocator_new(c);
    if (!ctx_ok(c)) return o;
    if (!a || a->kernel != c->fn || a->first < 0) {
        cute_ctx_fail(c, "cute_smem_allocator_overlay: the allocator laid over must have allocated "
                         "in this kernel");
        return o;
    }
    o.cursor = a->first;
    return o;
}

/* reserve `bytes` at an `align`-aligned offset; -1 after an error */
static int64_t take(cute_ctx *c, cute_smem_allocator *a, int64_t bytes, int64_t align,
                    const char *what)
{
    if (!ctx_ok(c)) return -1;
    if (!a || a->kernel != c->fn) {
        cute_ctx_fail(c, "%s: the allocator was not made in this kernel (cute_smem_allocator_new "
                         "inside the kernel)", what);
        return -1;
    }
    if (c->depth != 0) {
        cute_ctx_fail(c, "%s: allocate shared memory at the kernel's top level, not inside a "
                         "dynamic loop or if", what);
        return -1;
    }
    if (!pow2(align) || align > CUTE_SMEM_MAX_BYTES) {
        cute_ctx_fail(c, "%s: alignment %lld is not a power of two (1 .. %d)", what,
                      (long long)align, CUTE_SMEM_MAX_BYTES);
        return -1;
    }
    int64_t off = align_up(a->cursor >= 0 ? a->cursor : c->fn->smem_bytes, align);
    if (bytes < 0 || bytes > CUTE_SMEM_MAX_BYTES || off + bytes > CUTE_SMEM_MAX_BYTES) {
        cute_ctx_fail(c, "%s: %lld bytes at offset %lld: the kernel would use more shared memory "
                         "than any GPU gives a block (%d bytes)", what, (long long)bytes,
                      (long long)off, CUTE_SMEM_MAX_BYTES);
        return -1;
    }
    if (align > c->fn->smem_align) c->fn->smem_align = (int)align; /* what the base must be */
    if (a->first < 0) a->first = off;
    if (a->cursor >= 0) /* an overlay: the pool grows only past its end */
        a->cursor = off + bytes;
    if (off + bytes > c->fn->smem_bytes) c->fn->smem_bytes = off + bytes;
    a->bytes = (a->cursor >= 0 ? a->cursor : c->fn->smem_bytes) - a->first;
    return off;
}

static cute_val smem_ptr(cute_ctx *c, cute_dtype d, int64_t off)
{
    cute_vreg r = cute_ir_op(&c->b, CUTE_OP_SMEM_PTR, cute_type_ptr(d, CUTE_SMEM), 0, 0, 0);
    c->b.last->imm = off;
    return ctx_val(c, r);
}

cute_val cute_smem_alloc_array(cute_ctx *c, cute_smem_allocator *a, cute_dtype d, int64_t n,
                               int align)
{
    int esize = cute_dtype_bytes(d);
    if (!ctx_ok(c)) return no_val();
    if (d == CUTE_VOID || d == CUTE_I1 || d == CUTE_PTR || n < 0)
        return cute_ctx_fail(c, "cute_smem_alloc_array: %lld elements of %s", (long long)n,
                             cute_dtype_name(d)),
               no_val();
    int64_t bytes = n * esize;
    if (n > CUTE_SMEM_MAX_BYTES) bytes = (int64_t)CUTE_SMEM_MAX_BYTES + 1; /* refused below */
    int64_t off = take(c, a, bytes, align ? align : esize, "cute_smem_alloc_array");
    return off < 0 ? no_val() : smem_ptr(c, d, off);
}

cute_val cute_smem_alloc_bytes(cute_ctx *c, cute_smem_allocator *a, int64_t bytes, int align)
{
    if (!ctx_ok(c)) return no_val();
    int64_t off = take(c, a, bytes, align, "cute_smem_alloc_bytes");
    return off < 0 ? no_val() : smem_ptr(c, CUTE_U8, off);
}

/* The elements a (swizzled) static layout may reach: [0, span), span = 1 + the largest
 * sw(x) for x < cosize (the swizzle can move an offset up; a layout too large for any
 * shared memory is returned as is, to be refused by the allocation). */
static int64_t layout_span(cute_ctx *c, cute_layout L, cute_swizzle sw, const char *what)
{
    if (cute_layout_is_poison(&L))
        return cute_ctx_fail(c, "%s: the layout is poison (an earlier error)", what), -1;
    if (!cute_tuple_is_static(&L.shape) || !cute_tuple_is_static(&L.stride) || cute_layout_has_basis(&L)) {
        char buf[512];
        cute_layout_str(&L, buf, sizeof buf);
        return cute_ctx_fail(c, "%s: shared memory needs a static layout with integer strides, "
                                "not %s", what, buf), -1;
    }
    for (int i = 0; i < L.stride.nleaves; i++)
        if (L.stride.leaf[i].v < 0)
            return cute_ctx_fail(c, "%s: shared memory needs non-negative strides", what), -1;
    if (!cute_swizzle_valid(sw))
        return cute_ctx_fail(c, "%s: swizzle Sw<%d,%d,%d> is not valid (B, M >= 0, |S| >= B)", what,
                             sw.B, sw.M, sw.S), -1;
    cute_int cos = cute_cosize(&c->alg, &L);
    if (c->alg.failed) return -1;
    int64_t n = cos.v;
    if (sw.B > 0 && n <= CUTE_SMEM_MAX_BYTES)
        for (int64_t x = 0, last = n; x < last; x++) {
            int64_t y = cute_swizzle_apply(sw, x);
            if (y >= n) n = y + 1;
        }
    return n;
}

static cute_tensor smem_tensor(cute_ctx *c, cute_dtype d, int64_t off, cute_layout L, cute_swizzle sw)
{
    cute_tensor t = bad_tensor();
    t.kind = CUTE_TENSOR_SMEM;
    t.dtype = (uint8_t)d;
    t.align = guaranteed_align(off);
    t.base = smem_ptr(c, d, off);
    t.offset = cute_i(0);
    t.layout = L;
    t.sw = sw.B > 0 ? sw : CUTE_SW_NONE;
    if (t.align < cute_dtype_bytes(d)) t.align = cute_dtype_bytes(d); /* off is a multiple */
    return c->alg.failed ? bad_tensor() : t;
}

/* the bytes n elements of d take (e2m1: two a byte) */
static int64_t elems_bytes(cute_dtype d, int64_t n)
{
    return cute_dtype_is_packed(d) ? (n * cute_dtype_bits(d) + 7) / 8 : n * cute_dtype_bytes(d);
}

static bool element_ok(cute_ctx *c, cute_dtype d, const char *what)
{
    if (d > CUTE_I1 && d < CUTE_PTR) return true;
    return cute_ctx_fail(c, "%s: no shared tensor of %s", what, cute_dtype_name(d));
}

cute_tensor cute_smem_alloc_tensor_swizzled(cute_ctx *c, cute_smem_allocator *a, cute_dtype d,
                                            cute_swizzle sw, cute_layout layout, int align_bytes)
{
    const char *what = "cute_smem_alloc_tensor";
    if (!ctx_ok(c) || !element_ok(c, d, what)) return bad_tensor();
    int esize = cute_dtype_bytes(d);
    if (!pow2(align_bytes) || align_bytes < esize) {
        cute_ctx_fail(c, "%s: alignment %d must be a power of two >= the %d-byte element", what,
                      align_bytes, esize);
        return bad_tensor();
    }
    int64_t span = layout_span(c, layout, sw, what);
    if (span < 0) return bad_tensor();
    if (align_bytes < cute_swizzle_align_bytes(sw, d)) align_bytes = cute_swizzle_align_bytes(sw, d);
    int64_t off = take(c, a, span > CUTE_SMEM_MAX_BYTES ? span : elems_bytes(d, span), align_bytes, what);
    return off < 0 ? bad_tensor() : smem_tensor(c, d, off, layout, sw);
}

cute_tensor cute_smem_alloc_tensor(cute_ctx *c, cute_smem_allocator *a, cute_dtype d,
                                   cute_layout layout, int align_bytes)
{
    return cute_smem_alloc_tensor_swizzled(c, a, d, CUTE_SW_NONE, layout, align_bytes);
}

cute_tensor cute_smem_alloc_tensor_composed(cute_ctx *c, cute_smem_allocator *a, cute_dtype d,
                                            cute_composed t, int align_bytes)
{
    return cute_smem_alloc_tensor_swizzled(c, a, d, t.sw, t.layout, align_bytes);
}

/* --- structs ---------------------------------------------------------------------------- */

void cute_smem_struct_init(cute_smem_struct *s, const char *name)
{
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name ? name : "");
    s->align = 1;
}

/* append a field of `bytes` bytes aligned to `align`: C's rule (offset = the end so far
 * rounded up to the field's alignment; sizeof = the end rounded up to the largest) */
static int add_field(cute_ctx *c, cute_smem_struct *s, cute_smem_field f, const char *what)
{
    if (c->alg.failed) return -1;
    if (!s) return cute_ctx_fail(c, "%s: no struct", what), -1;
    if (s->nfields == CUTE_SMEM_MAX_FIELDS)
        return cute_ctx_fail(c, "%s: struct %s has %d fields already (the most)", what, s->name,
                             CUTE_SMEM_MAX_FIELDS), -1;
    if (!pow2(f.align) || f.align > CUTE_SMEM_MAX_BYTES)
        return cute_ctx_fail(c, "%s: field %s: alignment %d is not a power of two", what, f.name,
                             f.align), -1;
    if (cute_smem_struct_find(s, f.name) >= 0)
        return cute_ctx_fail(c, "%s: struct %s has a field %s already", what, s->name, f.name), -1;
    int64_t end = 0;
    if (s->nfields) end = s->field[s->nfields - 1].offset + s->field[s->nfields - 1].bytes;
    f.offset = align_up(end, f.align);
    if (f.bytes < 0 || f.bytes > CUTE_SMEM_MAX_BYTES || f.offset + f.bytes > CUTE_SMEM_MAX_BYTES)
        return cute_ctx_fail(c, "%s: field %s makes struct %s larger than any GPU's shared memory "
                                "(%d bytes)", what, f.name, s->name, CUTE_SMEM_MAX_BYTES), -1;
    if (f.align > s->align) s->align = f.align;
    s->size = align_up(f.offset + f.bytes, s->align);
    s->field[s->nfields] = f;
    return s->nfields++;
}

static cute_smem_field new_field(const char *name, cute_smem_field_kind k, cute_dtype d,
                                 int64_t count, int align)
{
    cute_smem_field f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "%s", name ? name : "");
    f.kind = (uint8_t)k;
    f.dtype = (uint8_t)d;
    f.count = count;
    f.align = align;
    f.bytes = count > CUTE_SMEM_MAX_BYTES ? -1 : elems_bytes(d, count);
    f.layout = cute_layout_poison();
    return f;
}

int cute_smem_struct_scalar(cute_ctx *c, cute_smem_struct *s, const char *name, cute_dtype d)
{
    if (!c->alg.failed && !element_ok(c, d, "cute_smem_struct_scalar")) return -1;
    return add_field(c, s, new_field(name, CUTE_SMEM_SCALAR, d, 1, cute_dtype_bytes(d)),
                     "cute_smem_struct_scalar");
}

int cute_smem_struct_array(cute_ctx *c, cute_smem_struct *s, const char *name, cute_dtype d,
                           int64_t count, int align)
{
    const char *what = "cute_smem_struct_array";
    if (!c->alg.failed && !element_ok(c, d, what)) return -1;
    if (!c->alg.failed && count < 0) return cute_ctx_fail(c, "%s: %lld elements", what, (long long)count), -1;
    int esize = cute_dtype_bytes(d);
    if (!c->alg.failed && align && align < esize)
        return cute_ctx_fail(c, "%s: field %s: alignment %d is less than the %d-byte element",
                             what, name, align, esize), -1;
    return add_field(c, s, new_field(name, CUTE_SMEM_ARRAY, d, count, align ? align : esize), what);
}

int cute_smem_struct_barriers(cute_ctx *c, cute_smem_struct *s, const char *name, int count)
{
    if (!c->alg.failed && count < 1)
        return cute_ctx_fail(c, "cute_smem_struct_barriers: %d barriers", count), -1;
    return add_field(c, s, new_field(name, CUTE_SMEM_BARRIERS, CUTE_U64, count, 8),
                     "cute_smem_struct_barriers");
}

int cute_smem_struct_tensor(cute_ctx *c, cute_smem_struct *s, const char *name, cute_dtype d,
                            cute_layout layout, int align, cute_swizzle sw)
{
    const char *what = "cute_smem_struct_tensor";
    if (c->alg.failed || !element_ok(c, d, what)) return -1;
    int esize = cute_dtype_bytes(d);
    if (!pow2(align) || align < esize)
        return cute_ctx_fail(c, "%s: field %s: alignment %d must be a power of two >= the %d-byte "
                                "element", what, name, align, esize), -1;
    int64_t span = layout_span(c, layout, sw, what);
    if (span < 0) return -1;
    cute_smem_field f = new_field(name, CUTE_SMEM_TENSOR, d, span, align);
    f.layout = layout;
    f.sw = sw.B > 0 ? sw : CUTE_SW_NONE;
    return add_field(c, s, f, what);
}

int cute_smem_struct_find(const cute_smem_struct *s, const char *name)
{
    for (int i = 0; s && name && i < s->nfields; i++)
        if (strcmp(s->field[i].name, name) == 0) return i;
    return -1;
}

cute_smem_storage cute_smem_struct_alloc(cute_ctx *c, cute_smem_allocator *a, const cute_smem_struct *s)
{
    cute_smem_storage st = {NULL, 0};
    if (!ctx_ok(c)) return st;
    if (!s) return cute_ctx_fail(c, "cute_smem_struct_alloc: no struct"), st;
    int64_t off = take(c, a, s->size, s->align, "cute_smem_struct_alloc");
    if (off < 0) return st;
    cute_smem_struct *copy = cute_ir_alloc(c->fn, sizeof *copy);
    if (!copy) return cute_ctx_fail(c, "out of memory"), st;
    memcpy(copy, s, sizeof *copy);
    st.desc = copy;
    st.offset = off;
    return st;
}

static const cute_smem_field *field_of(cute_ctx *c, cute_smem_storage st, int i, const char *what)
{
    if (!ctx_ok(c)) return NULL;
    if (!st.desc) return cute_ctx_fail(c, "%s: the struct was not allocated (an earlier error)", what), NULL;
    if (i < 0 || i >= st.desc->nfields)
        return cute_ctx_fail(c, "%s: struct %s has no field %d", what, st.desc->name, i), NULL;
    return &st.desc->field[i];
}

cute_tensor cute_smem_field_tensor(cute_ctx *c, cute_smem_storage st, int i)
{
    const cute_smem_field *f = field_of(c, st, i, "cute_smem_field_tensor");
    if (!f) return bad_tensor();
    cute_layout L = f->layout;
    if (f->kind != CUTE_SMEM_TENSOR)
        L = cute_make_layout(&c->alg, cute_tuple_int(cute_i(f->count)));
    return smem_tensor(c, (cute_dtype)f->dtype, st.offset + f->offset, L, f->sw);
}

cute_val cute_smem_field_ptr(cute_ctx *c, cute_smem_storage st, int i)
{
    const cute_smem_field *f = field_of(c, st, i, "cute_smem_field_ptr");
    if (!f) return no_val();
    return smem_ptr(c, (cute_dtype)f->dtype, st.offset + f->offset);
}
