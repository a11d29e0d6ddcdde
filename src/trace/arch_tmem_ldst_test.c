/* cutec/tcgen05.h's tcgen05.ld / st calls (cute_tmem_load / cute_tmem_store, every shape, packed
 * or not) and the tcgen05.cp shapes: the rows they trace, in CUDA C that NVRTC compiles for
 * sm_100a where it is installed, and the refusals at the user's call site (a shape / num the
 * table has not, a half_split for the wrong shape, a 16-bit register).  Their semantics on the
 * interpreter: src/interp/tcgen05_ldst_test.c. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/nvrtc.h"
#include "cutec/smem.h"
#include "cutec/tcgen05.h"
#include "trace/tcgen05_testkit.h"

static cute_val u32(cute_ctx *c, int64_t v) { return cute_val_int(c, CUTE_U32, v); }

/* a load of every shape (16x32bx2 packed, half_split 8) stored back unpacked, and the new copies */
static cute_ir_func *ldst_kernel(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_ctx_target_arch(c, 100);
    cute_kernel_begin(c, "ldst");
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val tile = cute_smem_alloc_array(c, &A, CUTE_U32, 512, 128), taddr = u32(c, 0), v[128];
    for (int s = CUTE_TMEM_32x32b; s <= CUTE_TMEM_16x32bx2; s++) {
        bool x2 = s == CUTE_TMEM_16x32bx2;
        cute_tmem_load(c, (cute_tmem_shape)s, 2, x2, taddr, x2 ? 8 : 0, v);
        cute_tcgen05_wait_ld(c);
        cute_tmem_store(c, (cute_tmem_shape)s, 2, !x2, taddr, x2 ? 8 : 0, v);
    }
    cute_tcgen05_wait_st(c);
    cute_val desc = cute_tcgen05_smem_desc(c, tile, 128, 256, 0);
    for (int s = CUTE_TCGEN05_CP_128x128b; s <= CUTE_TCGEN05_CP_64x128b_WARPX2_01_23; s++)
        cute_tcgen05_cp(c, (cute_tcgen05_cp_shape)s, taddr, desc);
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "the kernel traces: %s", cute_ctx_error(c));
    cute_ctx_free(c);
    return f;
}

static void rows_emitted(void)
{
    const char *want[] = {"tcgen05.ld.sync.aligned.32x32b.x2.b32", "tcgen05.st.sync.aligned.16x64b.x2.unpack::16b.b32",
                          "tcgen05.ld.sync.aligned.16x128b.x2.b32", "tcgen05.st.sync.aligned.16x256b.x2.unpack::16b.b32",
                          "tcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32", "], 8;", "tcgen05.wait::st",
                          "tcgen05.cp.cta_group::1.128x128b", "tcgen05.cp.cta_group::1.4x256b",
                          "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13", "tcgen05.cp.cta_group::1.64x128b.warpx2::01_23"};
    cute_ir_func *f = ldst_kernel();
    char err[512], *src = NULL;
    if (!f) return;
    cute_status s = cute_cuda_c_emit((const cute_ir_func *const *)&f, 1, &(cute_cuda_c_opts){.arch = "sm_100a"}, &src,
                                     err, sizeof err);
    CHECK(s == CUTE_OK, "emit for sm_100a: %s", err);
    for (size_t i = 0; s == CUTE_OK && i < sizeof want / sizeof *want; i++)
        CHECK(strstr(src, want[i]), "the CUDA C holds %s", want[i]);
    if (s == CUTE_OK) tc05_compiles_sm100a(src);
    free(src);
    cute_ir_func_free(f);
}

/* a kernel whose first trouble is `bad`: the error names `words` at the line of the call */
static void refused(void (*bad)(cute_ctx *c, int *line), const char *words) { tc05_refused("arch_tmem_ldst_test.c", bad, words); }

static void x64_of_16x256b(cute_ctx *c, int *line)
{
    cute_val v[128];
    *line = __LINE__ + 1;
    cute_tmem_load(c, CUTE_TMEM_16x256b, 64, false, u32(c, 0), 0, v);
}
static void split_of_32x32b(cute_ctx *c, int *line)
{
    cute_val v[1];
    *line = __LINE__ + 1;
    cute_tmem_load(c, CUTE_TMEM_32x32b, 1, false, u32(c, 0), 4, v);
}
static void no_split_16x32bx2(cute_ctx *c, int *line)
{
    cute_val v[1] = {u32(c, 1)};
    *line = __LINE__ + 1;
    cute_tmem_store(c, CUTE_TMEM_16x32bx2, 1, false, u32(c, 0), 0, v);
}
static void half_register(cute_ctx *c, int *line)
{
    cute_val v[1] = {cute_val_int(c, CUTE_U16, 1)};
    *line = __LINE__ + 1;
    cute_tmem_store(c, CUTE_TMEM_16x64b, 1, false, u32(c, 0), 0, v);
}
static void cp_shape_nine(cute_ctx *c, int *line)
{
    *line = __LINE__ + 1;
    cute_tcgen05_cp(c, (cute_tcgen05_cp_shape)9, u32(c, 0), cute_val_int(c, CUTE_U64, 0));
}

int main(void)
{
    rows_emitted();
    CHECK(cute_tmem_regs(CUTE_TMEM_16x256b, 32) == 128 && cute_tmem_regs(CUTE_TMEM_16x128b, 128) == 0 &&
              cute_tmem_regs(CUTE_TMEM_16x64b, 3) == 0,
          "cute_tmem_regs: 16x256b.x32 128 registers; 16x128b.x128 and .x3 none");
    refused(x64_of_16x256b, "_16x256b (x1 .. x32)");
    refused(split_of_32x32b, "half_split 4");
    refused(no_split_16x32bx2, "half_split 0");
    refused(half_register, "value 0 is u16");
    refused(cp_shape_nine, "shape 9");
    return CHECK_DONE("trace/arch_tmem_ldst");
}
