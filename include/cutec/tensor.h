/* cutec/tensor.h — tensors (an iterator and a layout) and TensorSSA values.
 *
 * A tensor is where data lives and how coordinates map to it:
 *   gmem / smem : a pointer (an IR value) + an element offset (an index integer, kept
 *                 symbolic so slicing costs nothing until an access) + the layout
 *   rmem        : registers, one per element of a static layout (always statically indexed)
 *   coord       : an identity (coordinate) tensor: a base coordinate + a basis-stride layout
 * TensorSSA (cute_ssa) is a statically shaped value: one register per element, the result of
 * cute_tensor_load and the operand of elementwise arithmetic, reductions and stores.
 */
#ifndef CUTEC_TENSOR_H
#define CUTEC_TENSOR_H

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
    cute_vreg *regs;  /* rmem: the registers, indexed by layout offsets */
    cute_layout layout;
} cute_tensor;

typedef struct cute_ssa {
    uint8_t dtype;
    int n;            /* elements: size(shape) */
    cute_vreg *v;     /* n registers, colexicographic order of shape */
    cute_tuple shape; /* static */
} cute_ssa;

/* --- making tensors ------------------------------------------------------------------ */
cute_tensor cute_make_tensor(cute_ctx *c, cute_val ptr, cute_layout layout, int align_bytes);
cute_tensor cute_make_identity_tensor(cute_ctx *c, cute_tuple shape);
/* registers for a static layout (compact: cosize registers) */
cute_tensor cute_make_rmem_tensor(cute_ctx *c, cute_dtype d, cute_layout layout);
/* registers shaped like t (compact, same shape) */
cute_tensor cute_make_fragment_like(cute_ctx *c, cute_tensor t);

/* --- the algebra on tensors: the layout changes, the iterator stays (or moves) -------- */
cute_tensor cute_tensor_slice(cute_ctx *c, cute_tensor t, cute_tuple crd);
cute_tensor cute_tensor_compose(cute_ctx *c, cute_tensor t, const cute_tiler *T);
cute_tensor cute_tensor_zipped_divide(cute_ctx *c, cute_tensor t, const cute_tiler *T);
cute_tensor cute_tensor_logical_divide(cute_ctx *c, cute_tensor t, const cute_tiler *T);
cute_tensor cute_tensor_local_tile(cute_ctx *c, cute_tensor t, cute_tuple tile, cute_tuple coord,
                                   const cute_tuple *proj);
cute_tensor cute_tensor_local_partition(cute_ctx *c, cute_tensor t, cute_layout thr, cute_int idx);
cute_tensor cute_tensor_group_modes(cute_ctx *c, cute_tensor t, int begin, int end);
/* "tensor<ptr<f32,gmem,align<16>> o (128,8,?):(1,?,?)>" as CuTe DSL prints */
int cute_tensor_str(cute_ctx *c, cute_tensor t, char *buf, size_t n);

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
cute_ssa cute_ssa_cmp(cute_ctx *c, cute_op op, cute_ssa a, cute_ssa b);
cute_ssa cute_ssa_select(cute_ctx *c, cute_ssa p, cute_ssa a, cute_ssa b);
cute_ssa cute_ssa_cvt(cute_ctx *c, cute_ssa a, cute_dtype d);
cute_ssa cute_ssa_fill(cute_ctx *c, cute_dtype d, cute_tuple shape, double v);
cute_ssa cute_ssa_scalar(cute_ctx *c, cute_val v, cute_tuple shape); /* broadcast */
/* op over all elements: ADD, MUL, MIN, MAX; returns one value */
cute_val cute_ssa_reduce(cute_ctx *c, cute_op op, cute_ssa a);
cute_val cute_ssa_get(cute_ctx *c, cute_ssa a, int i);


/* call-site capture, as in trace.h */
#ifndef CUTEC_NO_SITE_MACROS
#define cute_make_tensor(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_make_tensor((c), __VA_ARGS__))
#define cute_make_identity_tensor(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_make_identity_tensor((c), __VA_ARGS__))
#define cute_make_rmem_tensor(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_make_rmem_tensor((c), __VA_ARGS__))
#define cute_make_fragment_like(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_make_fragment_like((c), __VA_ARGS__))
#define cute_tensor_slice(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_tensor_slice((c), __VA_ARGS__))
#define cute_tensor_compose(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_tensor_compose((c), __VA_ARGS__))
#define cute_tensor_zipped_divide(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_tensor_zipped_divide((c), __VA_ARGS__))
#define cute_tensor_logical_divide(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_tensor_logical_divide((c), __VA_ARGS__))
#define cute_tensor_local_tile(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_tensor_local_tile((c), __VA_ARGS__))
#define cute_tensor_local_partition(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_tensor_local_partition((c), __VA_ARGS__))
#define cute_tensor_group_modes(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_tensor_group_modes((c), __VA_ARGS__))
#define cute_tensor_load(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_tensor_load((c), __VA_ARGS__))
#define cute_tensor_store(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_tensor_store((c), __VA_ARGS__))
#define cute_tensor_load_if(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_tensor_load_if((c), __VA_ARGS__))
#define cute_tensor_store_if(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_tensor_store_if((c), __VA_ARGS__))
#define cute_tensor_ptr(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_tensor_ptr((c), __VA_ARGS__))
#define cute_elem_less(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_elem_less((c), __VA_ARGS__))
#define cute_ssa_binop(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_ssa_binop((c), __VA_ARGS__))
#define cute_ssa_unop(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_ssa_unop((c), __VA_ARGS__))
#define cute_ssa_cmp(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_ssa_cmp((c), __VA_ARGS__))
#define cute_ssa_select(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_ssa_select((c), __VA_ARGS__))
#define cute_ssa_cvt(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_ssa_cvt((c), __VA_ARGS__))
#define cute_ssa_fill(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_ssa_fill((c), __VA_ARGS__))
#define cute_ssa_scalar(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_ssa_scalar((c), __VA_ARGS__))
#define cute_ssa_reduce(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_ssa_reduce((c), __VA_ARGS__))
#define cute_ssa_get(c, ...) (cute_ctx_site((c), __FILE__, __LINE__), cute_ssa_get((c), __VA_ARGS__))
#endif

#endif
