/* A warp-collective atom inside a branch that splits a warp is refused at trace time, naming
 * the branch; a branch the same for whole warps, or one that cannot be decided while tracing
 * (it depends on a parameter), is let through (the interpreter checks those at run time). */
#include <string.h>

#include "check.h"
#include "cutec/atom_table.h"
#include "cutec/notation.h"

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

int main(void)
{
    char buf[1400];
    const char *e = traced(SPLIT, buf, sizeof buf);
    CHECK(strstr(e, "warp-collective") && strstr(e, "divergence_test.c:") && strstr(e, "warp 0"), "split: %s", e);
    CHECK(!*traced(WHOLE_WARPS, buf, sizeof buf), "tid < 64 keeps warps whole: %s", buf);
    CHECK(!*traced(UNKNOWN, buf, sizeof buf), "tid < n is not decided at trace time: %s", buf);
    return CHECK_DONE("divergence_test");
}
