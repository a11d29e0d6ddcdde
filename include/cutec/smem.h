/* cutec/smem.h — shared memory inside a kernel: an allocator and struct layouts
 * (CuTe DSL's cutlass.utils.SmemAllocator and @cute.struct).
 *
 *   cute_smem_allocator A = cute_smem_allocator_new(c);
 *   cute_tensor sA = cute_smem_alloc_tensor(c, &A, CUTE_F32, lay_A, 16);  // static layout
 *   cute_smem_struct S;                                   // a struct, laid out at trace time
 *   cute_smem_struct_init(&S, "Storage");
 *   int full = cute_smem_struct_barriers(c, &S, "full", 2);
 *   int sB   = cute_smem_struct_tensor(c, &S, "sB", CUTE_F16, lay_B, 128, CUTE_SW_NONE);
 *   cute_smem_storage st = cute_smem_struct_alloc(c, &A, &S);
 *   cute_tensor tB = cute_smem_field_tensor(c, st, sB);
 *
 * Every allocation is a static byte offset from the block's dynamic shared memory (the
 * IR's SMEM_PTR), so the kernel's total is known when tracing ends: it is the IR
 * function's smem_bytes, and a launch gets max(what the host's launch cfg asks, that).
 * Allocators of one kernel take from one pool and never overlap.  Allocate at the
 * kernel's top level (not inside a dynamic loop or if), as CuTe DSL does.
 *
 * Alignment: offsets are aligned as asked, relative to the dynamic shared memory's base,
 * which the backends align as the kernel's largest request, up to CUTE_SMEM_BASE_ALIGN (the
 * CUDA C backend declares it __align__(that), at least 16; the interpreter's base is 0).  A swizzled tensor
 * is placed at least as aligned as its swizzle needs (cute_swizzle_align_bytes), so the
 * swizzle's pattern lines up with the hardware's address bits and banks.  A tensor's
 * `align` is what its accesses may use: the offset's alignment, at most
 * CUTE_SMEM_ACCESS_ALIGN.
 */
#ifndef CUTEC_SMEM_H
#define CUTEC_SMEM_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/tensor.h"

#define CUTE_SMEM_BASE_ALIGN 1024
#define CUTE_SMEM_ACCESS_ALIGN 16
/* no GPU gives a block more than this; the device's own limit (227 KB on H100/H200) is
 * checked when the kernel is launched */
#define CUTE_SMEM_MAX_BYTES (256 * 1024)
#define CUTE_SMEM_MAX_FIELDS 16

/* The alignment, in bytes, the base of a shared tensor of d laid out with sw needs so that
 * the swizzle's pattern lines up with the address bits: 2^(B+M+|S|) elements (1024 bytes
 * for Sw<3,3,3> of a 16-bit type); the element's size when there is no swizzle. */
int cute_swizzle_align_bytes(cute_swizzle sw, cute_dtype d);

/* the identity swizzle Sw<0,0,0>: "no swizzle" wherever a swizzle is asked for */
#define CUTE_SW_NONE ((cute_swizzle){0, 0, 0})

typedef struct cute_smem_allocator {
    const void *kernel; /* the kernel it allocates in (an allocator does not outlive it) */
    int64_t first;      /* byte offset of its first allocation (-1: none yet) */
    int64_t bytes;      /* bytes it handed out, padding included */
    int64_t cursor;     /* an overlay's next offset (-1: the pool's end, the usual case) */
} cute_smem_allocator;

cute_smem_allocator cute_smem_allocator_new(cute_ctx *c);
/* An allocator whose allocations start where `a`'s first one did, over a's memory: for
 * memory used in phases, as CuTe DSL makes an epilogue's C tile over the main loop's A stage
 * (make_tensor(recast_ptr(sA.iterator, dtype), layout)).  The kernel's shared memory grows
 * only where the overlay outgrows what lies under it.  Separating the phases (a barrier after
 * the last read of the old contents) is the kernel's job; the interpreter reports a race. */
cute_smem_allocator cute_smem_allocator_overlay(cute_ctx *c, const cute_smem_allocator *a);
/* `bytes` bytes aligned to `align` (a power of two): a ptr<u8, smem> */
cute_val cute_smem_alloc_bytes(cute_ctx *c, cute_smem_allocator *a, int64_t bytes, int align);
/* `n` elements of d aligned to `align` (0: the element's size): a ptr<d, smem> */
cute_val cute_smem_alloc_array(cute_ctx *c, cute_smem_allocator *a, cute_dtype d, int64_t n,
                               int align);
/* a shared tensor of a static layout: cosize(layout) elements */
cute_tensor cute_smem_alloc_tensor(cute_ctx *c, cute_smem_allocator *a, cute_dtype d,
                                   cute_layout layout, int align_bytes);
/* the same with a swizzle: element i lives at sw(layout(i)) (CuTe's ComposedLayout
 * sw o 0 o layout); the span covers the swizzle's image */
cute_tensor cute_smem_alloc_tensor_swizzled(cute_ctx *c, cute_smem_allocator *a, cute_dtype d,
                                            cute_swizzle sw, cute_layout layout, int align_bytes);
/* the same for a composed layout (its swizzle and its layout), as plans hold them */
cute_tensor cute_smem_alloc_tensor_composed(cute_ctx *c, cute_smem_allocator *a, cute_dtype d,
                                            cute_composed t, int align_bytes);

/* --- structs: fields laid out by C's rules with the declared alignments ---------------- */
typedef enum {
    CUTE_SMEM_SCALAR,   /* one element */
    CUTE_SMEM_ARRAY,    /* count elements */
    CUTE_SMEM_BARRIERS, /* count 64-bit mbarriers, 8-byte aligned */
    CUTE_SMEM_TENSOR,   /* a tensor of a static layout (and a swizzle) */
} cute_smem_field_kind;

typedef struct cute_smem_field {
    char name[32];
    uint8_t kind;  /* cute_smem_field_kind */
    uint8_t dtype; /* barriers: u64 */
    int align;     /* bytes */
    int64_t count; /* elements (tensors: the span, in elements) */
    int64_t offset, bytes;
    cute_swizzle sw;    /* TENSOR */
    cute_layout layout; /* TENSOR */
} cute_smem_field;

typedef struct cute_smem_struct {
    char name[32];
    int nfields;
    int align;    /* the largest field alignment (1 when empty) */
    int64_t size; /* bytes, padded to a multiple of align (as sizeof) */
    cute_smem_field field[CUTE_SMEM_MAX_FIELDS];
} cute_smem_struct;

/* Building a struct needs no kernel (its layout can be computed on the host).  Each add
 * returns the field's index, or -1 after an error (the context is failed). */
void cute_smem_struct_init(cute_smem_struct *s, const char *name);
int cute_smem_struct_scalar(cute_ctx *c, cute_smem_struct *s, const char *name, cute_dtype d);
/* align 0: the element's size */
int cute_smem_struct_array(cute_ctx *c, cute_smem_struct *s, const char *name, cute_dtype d,
                           int64_t count, int align);
int cute_smem_struct_barriers(cute_ctx *c, cute_smem_struct *s, const char *name, int count);
/* sw: CUTE_SW_NONE or a swizzle, as cute_smem_alloc_tensor_swizzled */
int cute_smem_struct_tensor(cute_ctx *c, cute_smem_struct *s, const char *name, cute_dtype d,
                            cute_layout layout, int align, cute_swizzle sw);
/* the field named `name`, or -1 */
int cute_smem_struct_find(const cute_smem_struct *s, const char *name);

/* An allocated struct: where it lives.  desc is a copy owned by the kernel. */
typedef struct cute_smem_storage {
    const cute_smem_struct *desc; /* NULL after an error */
    int64_t offset;               /* bytes from the dynamic shared memory's base */
} cute_smem_storage;

cute_smem_storage cute_smem_struct_alloc(cute_ctx *c, cute_smem_allocator *a,
                                         const cute_smem_struct *s);
/* a field as a tensor: TENSOR fields with their layout and swizzle, scalars as 1:0,
 * arrays and barriers as count:1 */
cute_tensor cute_smem_field_tensor(cute_ctx *c, cute_smem_storage st, int field);
/* a typed pointer to a field's first element (barriers: ptr<u64, smem>) */
cute_val cute_smem_field_ptr(cute_ctx *c, cute_smem_storage st, int field);

/* call-site capture, as in trace.h */
#ifndef CUTEC_NO_SITE_MACROS
#define cute_smem_allocator_new(c) CUTE__CTX_AT((c), cute_smem_allocator_new(c))
#define cute_smem_allocator_overlay(c, ...) CUTE__CTX_AT((c), cute_smem_allocator_overlay((c), __VA_ARGS__))
#define cute_smem_alloc_bytes(c, ...) CUTE__CTX_AT((c), cute_smem_alloc_bytes((c), __VA_ARGS__))
#define cute_smem_alloc_array(c, ...) CUTE__CTX_AT((c), cute_smem_alloc_array((c), __VA_ARGS__))
#define cute_smem_alloc_tensor(c, ...) CUTE__CTX_AT((c), cute_smem_alloc_tensor((c), __VA_ARGS__))
#define cute_smem_alloc_tensor_swizzled(c, ...) CUTE__CTX_AT((c), cute_smem_alloc_tensor_swizzled((c), __VA_ARGS__))
#define cute_smem_alloc_tensor_composed(c, ...) CUTE__CTX_AT((c), cute_smem_alloc_tensor_composed((c), __VA_ARGS__))
#define cute_smem_struct_scalar(c, ...) CUTE__CTX_AT((c), cute_smem_struct_scalar((c), __VA_ARGS__))
#define cute_smem_struct_array(c, ...) CUTE__CTX_AT((c), cute_smem_struct_array((c), __VA_ARGS__))
#define cute_smem_struct_barriers(c, ...) CUTE__CTX_AT((c), cute_smem_struct_barriers((c), __VA_ARGS__))
#define cute_smem_struct_tensor(c, ...) CUTE__CTX_AT((c), cute_smem_struct_tensor((c), __VA_ARGS__))
#define cute_smem_struct_alloc(c, ...) CUTE__CTX_AT((c), cute_smem_struct_alloc((c), __VA_ARGS__))
#define cute_smem_field_tensor(c, ...) CUTE__CTX_AT((c), cute_smem_field_tensor((c), __VA_ARGS__))
#define cute_smem_field_ptr(c, ...) CUTE__CTX_AT((c), cute_smem_field_ptr((c), __VA_ARGS__))
#endif

CUTE_API_END
#endif
