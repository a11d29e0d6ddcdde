/* cutec/tensor.h — tensors (an iterator and a layout) and TensorSSA values.
 *
 * A tensor is where data lives and how coordinates map to it:
 *   gmem / smem : a pointer (an IR value) + an element offset (an index integer, kept
 *                 symbolic so slicing costs nothing until an access) + the layout
 *   rmem        : registers, one per element of a static layout (always statically indexed),
 *                 or 16- and 8-bit elements packed into 32-bit words (the MMA fragments)
 *   coord       : an identity (coordinate) tensor: a base coordinate + a basis-stride layout
 * TensorSSA (cute_ssa) is a statically shaped value: one register per element, the result of
 * cute_tensor_load and the operand of elementwise arithmetic, reductions and stores.
 */
#ifndef CUTEC_TENSOR_H
#define CUTEC_TENSOR_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/layout.h"
#include "cutec/trace.h"

typedef enum { CUTE_TENSOR_GMEM, CUTE_TENSOR_SMEM, CUTE_TENSOR_RMEM, CUTE_TENSOR_COORD } cute_tensor_kind;

typedef struct cute_tensor {
    uint8_t kind;     /* cute_tensor_kind */
    uint8_t dtype;    /* the element type (i64 for coordinates) */
    int align;        /* gmem/smem: proven alignment of the base pointer, in bytes */
    cute_val base;    /* gmem/smem: the pointer */
    int host_arg;     /* in a host function: the argument whose pointer this is (else -1) */
    cute_int offset;  /* gmem/smem/rmem: elements from base (rmem: static) */
    cute_tuple coord; /* coord: the base coordinate */
    cute_vreg *regs;  /* rmem: the registers, indexed by layout offsets (packed: offset / pack) */
    uint8_t pack;     /* rmem: elements per register: 1, or 2 / 4 for 16- / 8-bit elements
                       * packed into 32-bit words as the tensor cores hold them (CuTe's
                       * recast<uint32_t> of a fragment; offset o is lane o % pack) */
    uint32_t kernel;  /* rmem: the serial of the kernel whose registers they are (cute_val) */
    cute_layout layout;
    /* gmem/smem: element i lives at base + sw(offset + layout(i)) (CuTe's ComposedLayout
     * sw o offset o layout: the swizzle applies to the whole offset, so slicing, which
     * moves `offset`, keeps it right).  Sw<0,M,S> (all zero) is no swizzle. */
    cute_swizzle sw;
} cute_tensor;

typedef struct cute_ssa {
    uint8_t dtype;
    int n;            /* elements: size(shape) */
    cute_vreg *v;     /* n registers, colexicographic order of shape */
    cute_tuple shape; /* static */
    uint32_t kernel;  /* the serial of the kernel that made it (as cute_val's) */
    /* f16/bf16 held in 32-bit words (cute_ssa_from_words, and the results of the paired
     * arithmetic): for each pair i, pairs[3i] is the u32 word whose low half is element 2i
     * and high half element 2i+1, and pairs[3i+1], pairs[3i+2] are the registers v held for
     * them when the word was made (a word stands for its pair only while v still holds
     * those).  The paired instructions read the words themselves instead of packing the
     * halves again.  NULL: no words. */
    cute_vreg *pairs;
} cute_ssa;

/* --- making tensors ------------------------------------------------------------------ */
cute_tensor cute_make_tensor(cute_ctx *c, cute_val ptr, cute_layout layout, int align_bytes);
cute_tensor cute_make_identity_tensor(cute_ctx *c, cute_tuple shape);
/* registers for a static layout (compact: cosize registers) */
cute_tensor cute_make_rmem_tensor(cute_ctx *c, cute_dtype d, cute_layout layout);
/* registers shaped like t (compact, same shape) */
cute_tensor cute_make_fragment_like(cute_ctx *c, cute_tensor t);
/* registers shaped like t, of dtype d (CUTE_VOID: t's): CuTe DSL's make_rmem_tensor_like.
 * The dtype is optional through the macro: cute_make_rmem_tensor_like(c, t) or
 * cute_make_rmem_tensor_like(c, t, CUTE_F16). */
cute_tensor cute_make_rmem_tensor_like(cute_ctx *c, cute_tensor t, cute_dtype d);

/* --- the algebra on tensors: the layout changes, the iterator stays (or moves) -------- */
cute_tensor cute_tensor_slice(cute_ctx *c, cute_tensor t, cute_tuple crd);
cute_tensor cute_tensor_compose(cute_ctx *c, cute_tensor t, const cute_tiler *T);
cute_tensor cute_tensor_zipped_divide(cute_ctx *c, cute_tensor t, const cute_tiler *T);
cute_tensor cute_tensor_logical_divide(cute_ctx *c, cute_tensor t, const cute_tiler *T);
cute_tensor cute_tensor_local_tile(cute_ctx *c, cute_tensor t, cute_tuple tile, cute_tuple coord,
                                   const cute_tuple *proj);
cute_tensor cute_tensor_local_partition(cute_ctx *c, cute_tensor t, cute_layout thr, cute_int idx);
cute_tensor cute_tensor_group_modes(cute_ctx *c, cute_tensor t, int begin, int end);
/* CuTe's domain_offset: the iterator moved to coordinate crd (t(crd) becomes element 0),
 * the layout unchanged; a coordinate tensor's base coordinate moves by crd */
cute_tensor cute_tensor_domain_offset(cute_ctx *c, cute_tensor t, cute_tuple crd);
/* CuTe's recast: the same memory as elements of dtype d.  Global and shared tensors: the
 * layout recast (cute_recast; the offset and a swizzle's M scale likewise), the pointer
 * retyped; the alignment must cover d.  Registers: only between types of one width
 * (f32 <-> i32, f16 <-> bf16), the same registers reinterpreted (reads and writes alias). */
cute_tensor cute_tensor_recast(cute_ctx *c, cute_tensor t, cute_dtype d);
/* the type as CuTe DSL prints it: "tensor<ptr<f32, gmem, align<16>> o (128,8,?):(1,?,?)>",
 * "tensor<ptr<f16, smem, align<16>> o S<3,3,3> o 0 o (8,64):(64,1)>" (a swizzle),
 * "tensor<ptr<f32, rmem, align<4>> o (4,2):(1,4)>", "tensor<(0,0) o (4,8):(1@0,1@1)>" */
int cute_tensor_str(cute_ctx *c, cute_tensor t, char *buf, size_t n);
/* Print t's values from each thread that runs it (guard it with CUTE_IF for one thread),
 * as CuTe DSL's print_tensor does: the type, then the values torch-style, one row per
 * line (rank 1: one element per line; rank 2: rows are mode 0; rank 3: blocks of mode 2;
 * higher modes are folded into the last).  Statically sized tensors of up to 4096. */
void cute_print_tensor(cute_ctx *c, cute_tensor t);

/* --- coordinates and slicing: CUTE_SLICE(c, gA, CUTE_ALL, CUTE_ALL, kt) ---------------- */
/* CUTE_ALL is '_' (CuTe's Underscore, CuTe DSL's None): "all of this mode". */
typedef struct cute_all_t {
    char all_;
} cute_all_t;
#define CUTE_ALL ((cute_all_t){0})
/* CUTE_CRD(x, y, ...) builds a coordinate from up to 12 elements, each CUTE_ALL, a cute_int,
 * a C integer, or a cute_tuple (so CUTE_CRD(CUTE_CRD(CUTE_ALL, CUTE_ALL), bid) nests); any
 * other type does not compile.  One element is that element: CUTE_CRD(i) == i.  A leading
 * context is allowed and ignored (CUTE_CRD(c, CUTE_ALL, kt)): the builder needs none.  More
 * leaves than a tuple holds give the poison tuple, which the next operation reports. */
#define CUTE_CRD(...)                                                                        \
    cute_crd_of(CUTE__CNTH(__VA_ARGS__, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),        \
                (cute_crd_elem[]){CUTE__CNTH(__VA_ARGS__, CUTE__C13, CUTE__C12, CUTE__C11,  \
                                             CUTE__C10, CUTE__C9, CUTE__C8, CUTE__C7,       \
                                             CUTE__C6, CUTE__C5, CUTE__C4, CUTE__C3,        \
                                             CUTE__C2, CUTE__C1, )(__VA_ARGS__)})
/* t sliced at a coordinate given element by element: CuTe DSL's t[None, None, kt] */
#define CUTE_SLICE(c, t, ...) cute_tensor_slice((c), (t), CUTE_CRD(__VA_ARGS__))

typedef struct cute_crd_elem {
    bool skip; /* a context passed first */
    cute_tuple t;
} cute_crd_elem;
cute_tuple cute_crd_of(int n, const cute_crd_elem *e);
cute_crd_elem cute__crd_all(cute_all_t x);
cute_crd_elem cute__crd_int(cute_int x);
cute_crd_elem cute__crd_ll(long long x);
cute_crd_elem cute__crd_ull(unsigned long long x);
cute_crd_elem cute__crd_tuple(cute_tuple x);
cute_crd_elem cute__crd_ctx(const cute_ctx *c);
#define CUTE__CRD_ELEM(x)                                                                    \
    _Generic((x), cute_all_t: cute__crd_all, cute_int: cute__crd_int, cute_tuple: cute__crd_tuple, \
             cute_ctx *: cute__crd_ctx, const cute_ctx *: cute__crd_ctx, short: cute__crd_ll,   \
             int: cute__crd_ll, long: cute__crd_ll, long long: cute__crd_ll,                 \
             unsigned short: cute__crd_ull, unsigned: cute__crd_ull, unsigned long: cute__crd_ull, \
             unsigned long long: cute__crd_ull)(x)
#define CUTE__CNTH(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, N, ...) N
#define CUTE__C1(a) CUTE__CRD_ELEM(a)
#define CUTE__C2(a, ...) CUTE__CRD_ELEM(a), CUTE__C1(__VA_ARGS__)
#define CUTE__C3(a, ...) CUTE__CRD_ELEM(a), CUTE__C2(__VA_ARGS__)
#define CUTE__C4(a, ...) CUTE__CRD_ELEM(a), CUTE__C3(__VA_ARGS__)
#define CUTE__C5(a, ...) CUTE__CRD_ELEM(a), CUTE__C4(__VA_ARGS__)
#define CUTE__C6(a, ...) CUTE__CRD_ELEM(a), CUTE__C5(__VA_ARGS__)
#define CUTE__C7(a, ...) CUTE__CRD_ELEM(a), CUTE__C6(__VA_ARGS__)
#define CUTE__C8(a, ...) CUTE__CRD_ELEM(a), CUTE__C7(__VA_ARGS__)
#define CUTE__C9(a, ...) CUTE__CRD_ELEM(a), CUTE__C8(__VA_ARGS__)
#define CUTE__C10(a, ...) CUTE__CRD_ELEM(a), CUTE__C9(__VA_ARGS__)
#define CUTE__C11(a, ...) CUTE__CRD_ELEM(a), CUTE__C10(__VA_ARGS__)
#define CUTE__C12(a, ...) CUTE__CRD_ELEM(a), CUTE__C11(__VA_ARGS__)
#define CUTE__C13(a, ...) CUTE__CRD_ELEM(a), CUTE__C12(__VA_ARGS__)

/* --- moving data ---------------------------------------------------------------------- */
/* All elements of t (static size) as a TensorSSA.  Global and shared tensors are read with
 * the widest accesses (up to 16 bytes) that the layout and the proven alignment allow
 * (CuTe's autovec_copy: max_common_vector decides). */
cute_ssa cute_tensor_load(cute_ctx *c, cute_tensor t);
void cute_tensor_store(cute_ctx *c, cute_tensor t, cute_ssa v);
/* predicated: elements where pred (an i1 TensorSSA of the same shape) is false are not
 * accessed; loads give `fill` there */
cute_ssa cute_tensor_load_if(cute_ctx *c, cute_tensor t, cute_ssa pred, double fill);
void cute_tensor_store_if(cute_ctx *c, cute_tensor t, cute_ssa v, cute_ssa pred);
/* the address of element `i` (a 1-D index) of a global or shared tensor, for atomics */
cute_val cute_tensor_ptr(cute_ctx *c, cute_tensor t, cute_int i);
/* coordinate tensor < shape, elementwise over every mode: the bounds predicate */
cute_ssa cute_elem_less(cute_ctx *c, cute_tensor coords, cute_tuple shape);

/* --- TensorSSA arithmetic ------------------------------------------------------------- */
cute_ssa cute_ssa_binop(cute_ctx *c, cute_op op, cute_ssa a, cute_ssa b);
cute_ssa cute_ssa_unop(cute_ctx *c, cute_op op, cute_ssa a);
/* a math function (EXP..ERF) elementwise in its fast, approximate form (cute_val_fast) */
cute_ssa cute_ssa_fast(cute_ctx *c, cute_op op, cute_ssa a);
/* a b + d elementwise (one dtype).  On f16 and bf16, add, sub, mul, min, max, neg and fma
 * run two elements to a paired instruction (fma.rn/min/max/neg .f16x2 / .bf16x2, sm_80 on),
 * fma rounded once; the interpreter computes the same bits */
cute_ssa cute_ssa_fma(cute_ctx *c, cute_ssa a, cute_ssa b, cute_ssa d);
cute_ssa cute_ssa_cmp(cute_ctx *c, cute_op op, cute_ssa a, cute_ssa b);
cute_ssa cute_ssa_select(cute_ctx *c, cute_ssa p, cute_ssa a, cute_ssa b);
cute_ssa cute_ssa_cvt(cute_ctx *c, cute_ssa a, cute_dtype d);
cute_ssa cute_ssa_fill(cute_ctx *c, cute_dtype d, cute_tuple shape, double v);
cute_ssa cute_ssa_scalar(cute_ctx *c, cute_val v, cute_tuple shape); /* broadcast */
/* op over all elements: ADD, MUL, MIN, MAX; returns one value */
cute_val cute_ssa_reduce(cute_ctx *c, cute_op op, cute_ssa a);
cute_val cute_ssa_get(cute_ctx *c, cute_ssa a, int i);
/* A paired value: the n u32 words of `words` as 2n elements of d (f16 or bf16), element 2i
 * the low half of word i and 2i+1 its high half (PTX's order), shape (2n).  Its paired
 * arithmetic (cute_ssa_binop, cute_ssa_fma, cute_ssa_unop above: fma.rn.f16x2 and friends)
 * takes the words as they are, and gives paired values too: a chain of HFMA2 on decoded
 * words moves no halves. */
cute_ssa cute_ssa_from_words(cute_ctx *c, cute_ssa words, cute_dtype d);
/* the n/2 u32 words of f16 or bf16 a (n even): a paired value's own words, else its halves
 * packed (element 2i in the low half) */
cute_ssa cute_ssa_words(cute_ctx *c, cute_ssa a);
/* The 8n e2m1 of n u32 words (two to a byte, element 0 in the low nibble) as a paired f16
 * value of 8n elements in the same order, shape (8n), by PTX's cvt.rn.f16x2.e2m1x2 (one a
 * byte, exact); sm_100a on (a clear error for an older target) */
cute_ssa cute_ssa_e2m1_words(cute_ctx *c, cute_ssa words);


/* call-site capture, as in trace.h */
#ifndef CUTEC_NO_SITE_MACROS
#define cute_make_tensor(c, ...) CUTE__CTX_AT((c), cute_make_tensor((c), __VA_ARGS__))
#define cute_make_identity_tensor(c, ...) CUTE__CTX_AT((c), cute_make_identity_tensor((c), __VA_ARGS__))
#define cute_make_rmem_tensor(c, ...) CUTE__CTX_AT((c), cute_make_rmem_tensor((c), __VA_ARGS__))
#define cute_make_fragment_like(c, ...) CUTE__CTX_AT((c), cute_make_fragment_like((c), __VA_ARGS__))
#define cute_make_rmem_tensor_like(c, ...) CUTE__CTX_AT((c), cute_make_rmem_tensor_like((c), CUTE__T_AND_D(__VA_ARGS__, CUTE_VOID, )))
#define CUTE__T_AND_D(t, d, ...) t, d
#define cute_tensor_domain_offset(c, ...) CUTE__CTX_AT((c), cute_tensor_domain_offset((c), __VA_ARGS__))
#define cute_tensor_recast(c, ...) CUTE__CTX_AT((c), cute_tensor_recast((c), __VA_ARGS__))
#define cute_print_tensor(c, ...) CUTE__CTX_AT((c), cute_print_tensor((c), __VA_ARGS__))
#define cute_tensor_slice(c, ...) CUTE__CTX_AT((c), cute_tensor_slice((c), __VA_ARGS__))
#define cute_tensor_compose(c, ...) CUTE__CTX_AT((c), cute_tensor_compose((c), __VA_ARGS__))
#define cute_tensor_zipped_divide(c, ...) CUTE__CTX_AT((c), cute_tensor_zipped_divide((c), __VA_ARGS__))
#define cute_tensor_logical_divide(c, ...) CUTE__CTX_AT((c), cute_tensor_logical_divide((c), __VA_ARGS__))
#define cute_tensor_local_tile(c, ...) CUTE__CTX_AT((c), cute_tensor_local_tile((c), __VA_ARGS__))
#define cute_tensor_local_partition(c, ...) CUTE__CTX_AT((c), cute_tensor_local_partition((c), __VA_ARGS__))
#define cute_tensor_group_modes(c, ...) CUTE__CTX_AT((c), cute_tensor_group_modes((c), __VA_ARGS__))
#define cute_tensor_load(c, ...) CUTE__CTX_AT((c), cute_tensor_load((c), __VA_ARGS__))
#define cute_tensor_store(c, ...) CUTE__CTX_AT((c), cute_tensor_store((c), __VA_ARGS__))
#define cute_tensor_load_if(c, ...) CUTE__CTX_AT((c), cute_tensor_load_if((c), __VA_ARGS__))
#define cute_tensor_store_if(c, ...) CUTE__CTX_AT((c), cute_tensor_store_if((c), __VA_ARGS__))
#define cute_tensor_ptr(c, ...) CUTE__CTX_AT((c), cute_tensor_ptr((c), __VA_ARGS__))
#define cute_elem_less(c, ...) CUTE__CTX_AT((c), cute_elem_less((c), __VA_ARGS__))
#define cute_ssa_binop(c, ...) CUTE__CTX_AT((c), cute_ssa_binop((c), __VA_ARGS__))
#define cute_ssa_unop(c, ...) CUTE__CTX_AT((c), cute_ssa_unop((c), __VA_ARGS__))
#define cute_ssa_fast(c, ...) CUTE__CTX_AT((c), cute_ssa_fast((c), __VA_ARGS__))
#define cute_ssa_fma(c, ...) CUTE__CTX_AT((c), cute_ssa_fma((c), __VA_ARGS__))
#define cute_ssa_cmp(c, ...) CUTE__CTX_AT((c), cute_ssa_cmp((c), __VA_ARGS__))
#define cute_ssa_select(c, ...) CUTE__CTX_AT((c), cute_ssa_select((c), __VA_ARGS__))
#define cute_ssa_cvt(c, ...) CUTE__CTX_AT((c), cute_ssa_cvt((c), __VA_ARGS__))
#define cute_ssa_fill(c, ...) CUTE__CTX_AT((c), cute_ssa_fill((c), __VA_ARGS__))
#define cute_ssa_scalar(c, ...) CUTE__CTX_AT((c), cute_ssa_scalar((c), __VA_ARGS__))
#define cute_ssa_reduce(c, ...) CUTE__CTX_AT((c), cute_ssa_reduce((c), __VA_ARGS__))
#define cute_ssa_get(c, ...) CUTE__CTX_AT((c), cute_ssa_get((c), __VA_ARGS__))
#define cute_ssa_from_words(c, ...) CUTE__CTX_AT((c), cute_ssa_from_words((c), __VA_ARGS__))
#define cute_ssa_words(c, ...) CUTE__CTX_AT((c), cute_ssa_words((c), __VA_ARGS__))
#define cute_ssa_e2m1_words(c, ...) CUTE__CTX_AT((c), cute_ssa_e2m1_words((c), __VA_ARGS__))
#endif

CUTE_API_END
#endif
