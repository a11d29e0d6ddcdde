/* cutec/reduce.h — reductions: across the lanes of a warp (butterfly shuffles), across a
 * group of threads of a block (a warp, or warps through shared memory and one barrier), and
 * over the modes of a TensorSSA (CuTe DSL's TensorSSA.reduce).
 *
 * What is combined is a reducer: an associative operation on tuples of 1 to 4 values (one
 * value for ADD/MUL/MIN/MAX; the pair (max, sum of exp(x - max)) of online softmax).  The
 * reductions across threads apply it in an order fixed by the lane numbers, the same in
 * every lane, so an all-reduce leaves the same bits in every thread of the group.
 *
 *   cute_reducer r = cute_reducer_op(CUTE_OP_ADD);
 *   cute_val s = cute_ssa_reduce(c, CUTE_OP_ADD, x);          // this thread's elements
 *   cute_warp_allreduce(c, &r, &s, 32);                       // the warp's, in every lane
 *
 *   cute_reduce_scratch sc = cute_reduce_scratch_alloc(c, &A, &r, CUTE_F32, 256);
 *   cute_group_allreduce(c, &r, &s, tid, 128, &sc);           // each 128 threads' sum
 *
 * Rows longer than one block holds are split over a thread-block cluster by the row kernels
 * (src/kernels/rows/rows_cluster.c: each block's all-reduced values through distributed
 * shared memory and a cluster barrier; docs/reductions.md).
 */
#ifndef CUTEC_REDUCE_H
#define CUTEC_REDUCE_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/smem.h"
#include "cutec/tensor.h"

#define CUTE_REDUCER_MAX_ARITY 4

/* out = a (+) b, elementwise over `arity` values; a, b and out may alias */
typedef void (*cute_combine_fn)(cute_ctx *c, const cute_val *a, const cute_val *b, cute_val *out,
                                const void *user);

typedef struct cute_reducer {
    int arity;               /* values per element: 1 to CUTE_REDUCER_MAX_ARITY */
    cute_op op;              /* combine == NULL: the binary op (arity 1) */
    cute_combine_fn combine; /* else this */
    const void *user;
    const char *name;        /* for messages */
} cute_reducer;

/* ADD, MUL, MIN or MAX of one value */
cute_reducer cute_reducer_op(cute_op op);
/* online softmax: (m, s) pairs, s a sum of exp(x - m); (m1,s1) (+) (m2,s2) =
 * (max, s1 exp(m1 - max) + s2 exp(m2 - max)); the identity is (-inf, 0) and combining two
 * identities gives it back (no NaN from -inf - -inf).  f32 values. */
cute_reducer cute_reducer_online_softmax(void);
/* one thread's (m, s) of a TensorSSA of f32 values (m = max, s = sum exp(x - m)); exps (may
 * be NULL) gets exp(x - m) of each element, for a softmax that scales them afterwards by
 * exp(m - row max) / row sum instead of taking each exponential again.  The exponentials
 * here and in the online combine are the fast ex2 (ex2.approx on the GPU; the interpreter
 * computes exp2 exactly). */
void cute_online_softmax_of(cute_ctx *c, cute_ssa x, cute_val out[2], cute_ssa *exps);
/* apply a reducer: out = a (+) b */
void cute_reducer_apply(cute_ctx *c, const cute_reducer *r, const cute_val *a, const cute_val *b,
                        cute_val *out);

/* All-reduce v[0..arity) over each aligned group of `width` lanes (1, 2, 4, 8, 16 or 32) by
 * xor butterflies: log2(width) shuffles per value; every lane gets its group's result.
 * The whole warp must run it (the shuffles read every lane). */
void cute_warp_allreduce(cute_ctx *c, const cute_reducer *r, cute_val *v, int width);
/* The same by shuffles down: only each group's first lane holds the result (the others a
 * partial one); what a reduction to one writer needs. */
void cute_warp_reduce(cute_ctx *c, const cute_reducer *r, cute_val *v, int width);

/* Shared memory for one group reduction across warps: a value per warp of the block and per
 * reducer value.  Allocate it at the kernel's top level (as every shared allocation);
 * block_threads: the launch's threads per block (a multiple of 32). */
typedef struct cute_reduce_scratch {
    cute_tensor s; /* (warps, arity) of dtype */
    int warps, arity;
} cute_reduce_scratch;
cute_reduce_scratch cute_reduce_scratch_alloc(cute_ctx *c, cute_smem_allocator *A, const cute_reducer *r,
                                              cute_dtype d, int block_threads);

/* All-reduce v over each group of `group` consecutive threads of the block (tid: the
 * thread's linear index in the block; group a power of two up to 1024).  Up to 32 it is
 * cute_warp_allreduce; beyond, each warp all-reduces, its lane 0 writes the warp's value to
 * the scratch, one barrier, and every warp reads its group's warps' values back (lane l
 * the value of warp l mod warps) and all-reduces them by a butterfly of log2(warps) steps.
 * Every thread of the block must reach it (the barrier).  A scratch serves one
 * reduction: a second one through the same scratch needs a barrier before it (its writes
 * would race with the first one's reads), or a scratch of its own. */
void cute_group_allreduce(cute_ctx *c, const cute_reducer *r, cute_val *v, cute_int tid, int group,
                          const cute_reduce_scratch *s);

/* CuTe DSL's TensorSSA.reduce(op, init, reduction_profile): profile has one entry per top
 * mode of a's shape, CUTE_ALL to keep the mode, 1 to reduce it.  The result's shape is the
 * kept modes (one mode: that mode; none: 1); each element is init op (the reduced elements,
 * combined as a balanced tree).  E.g. rows of a (4,8) tile: profile CUTE_CRD(CUTE_ALL, 1)
 * gives a TensorSSA of shape 4. */
cute_ssa cute_ssa_reduce_modes(cute_ctx *c, cute_op op, cute_ssa a, double init, cute_tuple profile);

#ifndef CUTEC_NO_SITE_MACROS
#define cute_online_softmax_of(c, ...) CUTE__CTX_AT((c), cute_online_softmax_of((c), __VA_ARGS__))
#define cute_reducer_apply(c, ...) CUTE__CTX_AT((c), cute_reducer_apply((c), __VA_ARGS__))
#define cute_warp_allreduce(c, ...) CUTE__CTX_AT((c), cute_warp_allreduce((c), __VA_ARGS__))
#define cute_warp_reduce(c, ...) CUTE__CTX_AT((c), cute_warp_reduce((c), __VA_ARGS__))
#define cute_reduce_scratch_alloc(c, ...) CUTE__CTX_AT((c), cute_reduce_scratch_alloc((c), __VA_ARGS__))
#define cute_group_allreduce(c, ...) CUTE__CTX_AT((c), cute_group_allreduce((c), __VA_ARGS__))
#define cute_ssa_reduce_modes(c, ...) CUTE__CTX_AT((c), cute_ssa_reduce_modes((c), __VA_ARGS__))
#endif

CUTE_API_END
#endif
