/* Atoms misused are refused at trace time, at the user's line, saying what is wrong:
 *  - a warp-collective atom inside a branch that splits a warp (naming the branch); a branch
 *    the same for whole warps, or one that cannot be decided while tracing (it depends on a
 *    parameter), is let through (the interpreter checks those at run time);
 *  - ldmatrix whose lane row is not proven 16 contiguous, 16-byte aligned bytes;
 *  - ldmatrix under a predicate (cute_copy_if). */
#include <string.h>

#include "check.h"
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/smem.h"

enum { SPLIT, WHOLE_WARPS, UNKNOWN };

/* an mma.sync under CUTE_IF(cond): the error, or "" */
static const char *traced(int which, char *buf, size_t n)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    int64_t grid[3] = {1, 1, 1}, block[3] = {128, 1, 1};
    cute_kernel_launch_extents(c, grid, block);
    cute_mma_atom m;
    cute_mma_atom_named(cute_ctx_alg(c), "SM80_16x8x16_F32F16F16F32_TN", &m);
    cute_tensor a = cute_make_rmem_tensor(c, CUTE_F16, cute_layout_parse(cute_ctx_alg(c), "8:1"));
    cute_tensor b = cute_make_rmem_tensor(c, CUTE_F16, cute_layout_parse(cute_ctx_alg(c), "4:1"));
    cute_tensor d = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(cute_ctx_alg(c), "4:1"));
    cute_clear(c, a), cute_clear(c, b), cute_clear(c, d);
    cute_int tid = cute_thread_idx(c, 0), count = cute_param_int(c, "n", 1, 0);
    cute_val cond = which == SPLIT         ? cute_int_lt(c, tid, cute_i(16))
                    : which == WHOLE_WARPS ? cute_int_lt(c, tid, cute_i(64))
                                           : cute_int_lt(c, tid, count);
    CUTE_IF(c, cond) { m.emit(c, &m, d, a, b, d); }
    cute_ir_func *f = cute_kernel_end(c);
    snprintf(buf, n, "%s", f ? "" : cute_ctx_error(c));
    if (f) cute_ir_func_free(f);
    cute_ctx_free(c);
    return buf;
}

enum { STRIDED, MISALIGNED, PREDICATED, FINE };

/* a thread's ldmatrix row in shared memory, made wrong as asked: the error, or "" */
static const char *ldsm(int how, char *buf, size_t n)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "k");
    cute_alg *a = cute_ctx_alg(c);
    cute_copy_atom ld;
    cute_copy_atom_named(a, "SM75_U32x1_LDSM_N", CUTE_F16, &ld);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_tensor s = cute_smem_alloc_tensor(c, &A, CUTE_F16, cute_layout_parse(a, "(32,16):(16,1)"), 16);
    cute_tensor row = CUTE_SLICE(c, s, cute_thread_idx(c, 0), CUTE_ALL); /* 16 elements */
    row.layout = cute_layout_parse(a, how == STRIDED ? "8:2" : "8:1");
    if (how == MISALIGNED) row = CUTE_SLICE(c, s, CUTE_ALL, 0), row.layout = cute_layout_parse(a, "8:1"), row.offset = cute_i(4);
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F16, cute_layout_parse(a, "2:1")); /* x1: one register */
    if (how == PREDICATED)
        cute_copy_if(c, &ld, cute_ssa_fill(c, CUTE_I1, cute_tuple_parse(a, "(8)"), 1), row, r);
    else
        cute_copy(c, &ld, row, r);
    cute_ir_func *f = cute_kernel_end(c);
    snprintf(buf, n, "%s", f ? "" : cute_ctx_error(c));
    if (f) cute_ir_func_free(f);
    cute_ctx_free(c);
    return buf;
}

int main(void)
{
    char buf[1400];
    const char *l = ldsm(STRIDED, buf, sizeof buf);
    CHECK(strstr(l, "SM75_U32x1_LDSM_N") && strstr(l, "(8):(2)") && strstr(l, "8 contiguous elements aligned to 16 bytes") &&
              strstr(l, "atom_misuse_test.c:"),
          "strided: %s", l);
    l = ldsm(MISALIGNED, buf, sizeof buf);
    CHECK(strstr(l, "aligned to 16 bytes"), "misaligned: %s", l);
    l = ldsm(PREDICATED, buf, sizeof buf);
    CHECK(strstr(l, "cannot be predicated"), "predicated: %s", l);
    CHECK(!*ldsm(FINE, buf, sizeof buf), "a contiguous aligned row: %s", buf);
    const char *e = traced(SPLIT, buf, sizeof buf);
    CHECK(strstr(e, "warp-collective") && strstr(e, "atom_misuse_test.c:") && strstr(e, "warp 0"), "split: %s", e);
    CHECK(!*traced(WHOLE_WARPS, buf, sizeof buf), "tid < 64 keeps warps whole: %s", buf);
    CHECK(!*traced(UNKNOWN, buf, sizeof buf), "tid < n is not decided at trace time: %s", buf);
    return CHECK_DONE("atom_misuse_test");
}
