/* cutec/tcgen05.h's CTA group: a kernel traced with cute_tcgen05_cta_group(c, 2) gets the pair's
 * rows (cta_group::2 alloc, MMA of M = 256, commits through a shared::cluster address and
 * multicast, dealloc) in its CUDA C, which NVRTC compiles for sm_100a where NVRTC is installed;
 * misuse is refused at the call site (a group changed after tcgen05 calls, M 256 for one block,
 * M 128 / 64 idesc with the pair is allowed, a multicast commit for one block, group 3).  The
 * pair's semantics on the interpreter: src/interp/tcgen05_pair_test.c.  Also the 6- and 4-bit
 * formats of kind::f8f6f4 / mxf8f6f4 in the descriptors (cute_tcgen05_idesc_formats) and their
 * refusals; their emulation: src/interp/tcgen05_f6f4_test.c. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/nvrtc.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "cutec/tcgen05.h"
#include "trace/tcgen05_testkit.h"

static cute_val u32(cute_ctx *c, int64_t v) { return cute_val_int(c, CUTE_U32, v); }

/* the pair's allocation, one M = 256 MMA, both commits, the deallocation */
static cute_ir_func *pair_kernel(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_ctx_target_arch(c, 100);
    cute_kernel_begin(c, "pair");
    cute_tcgen05_cta_group(c, 2);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val tile = cute_smem_alloc_array(c, &A, CUTE_BF16, 128 * 16, 128);
    cute_val bar = cute_smem_alloc_array(c, &A, CUTE_U64, 1, 8), slot = cute_smem_alloc_array(c, &A, CUTE_U32, 1, 4);
    cute_tmem_alloc(c, slot, 128);
    cute_val desc = cute_tcgen05_smem_desc(c, tile, 128, 256, 0);
    uint32_t idesc = cute_tcgen05_idesc(c, CUTE_BF16, CUTE_BF16, 256, 128, false, false);
    cute_val taddr = cute_val_int(c, CUTE_U32, 0);
    cute_tcgen05_mma(c, CUTE_BF16, taddr, desc, desc, idesc, u32(c, 0));
    cute_tcgen05_commit_multicast(c, bar, u32(c, 3));
    cute_tcgen05_commit(c, cute_mapa(c, bar, u32(c, 0)));
    cute_tmem_relinquish_alloc_permit(c);
    cute_tmem_dealloc(c, taddr, 128);
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "the pair kernel traces: %s", cute_ctx_error(c));
    cute_ctx_free(c);
    return f;
}

/* f's CUDA C for sm_100a holds each of want and no cta_group::1 row; ptxas accepts it */
static void pair_emits(cute_ir_func *f, const char *const *want, size_t n)
{
    if (!f) return;
    char err[512], *src = NULL;
    cute_status s = cute_cuda_c_emit((const cute_ir_func *const *)&f, 1, &(cute_cuda_c_opts){.arch = "sm_100a"}, &src,
                                     err, sizeof err);
    CHECK(s == CUTE_OK, "emit for sm_100a: %s", err);
    for (size_t i = 0; s == CUTE_OK && i < n; i++) CHECK(strstr(src, want[i]), "the CUDA C holds %s", want[i]);
    CHECK(s != CUTE_OK || !strstr(src, "cta_group::1"), "no cta_group::1 row in the pair's kernel");
    if (s == CUTE_OK) tc05_compiles_sm100a(src);
    free(src);
    cute_ir_func_free(f);
}

static void pair_rows(void)
{
    const char *want[] = {"tcgen05.alloc.cta_group::2", "tcgen05.mma.cta_group::2.kind::f16",
                          "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64",
                          "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [",
                          "tcgen05.relinquish_alloc_permit.cta_group::2", "tcgen05.dealloc.cta_group::2"};
    pair_emits(pair_kernel(), want, sizeof want / sizeof *want);
}

/* the pair's block-scaled MMA (NVFP4, M 256) and its scales' copy into both blocks */
static void pair_scaled_rows(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_ctx_target_arch(c, 100);
    cute_kernel_begin(c, "pair_scaled");
    cute_tcgen05_cta_group(c, 2);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val tile = cute_smem_alloc_array(c, &A, CUTE_U8, 128 * 32, 128), sf = cute_smem_alloc_array(c, &A, CUTE_U8, 512, 128);
    cute_val bar = cute_smem_alloc_array(c, &A, CUTE_U64, 1, 8), taddr = u32(c, 0);
    cute_tcgen05_cp(c, CUTE_TCGEN05_CP_32x128b_WARPX4, u32(c, 256), cute_tcgen05_smem_desc(c, sf, 0, 128, 0));
    cute_val desc = cute_tcgen05_smem_desc(c, tile, 128, 256, 0);
    uint32_t idesc = cute_tcgen05_idesc_scaled(c, CUTE_TCGEN05_MXF4NVF4, CUTE_E2M1, CUTE_E2M1, 256, 128, false, false, 0, 0);
    cute_tcgen05_mma_scaled(c, CUTE_TCGEN05_MXF4NVF4, taddr, desc, desc, idesc, u32(c, 256), u32(c, 260), u32(c, 0));
    cute_tcgen05_commit_multicast(c, bar, u32(c, 3));
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "the pair's scaled kernel traces: %s", cute_ctx_error(c));
    cute_ctx_free(c);
    const char *want[] = {"tcgen05.cp.cta_group::2.32x128b.warpx4",
                          "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.scale_vec::4X"};
    pair_emits(f, want, sizeof want / sizeof *want);
}

/* a kernel whose first trouble is `bad`: the error names `words` at the line of the call */
static void refused(void (*bad)(cute_ctx *c, int *line), const char *words) { tc05_refused("arch_tcgen05_test.c", bad, words); }

static void group_after_use(cute_ctx *c, int *line)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_tmem_alloc(c, cute_smem_alloc_array(c, &A, CUTE_U32, 1, 4), 32);
    *line = __LINE__ + 1;
    cute_tcgen05_cta_group(c, 2);
}
static void group_three(cute_ctx *c, int *line)
{
    *line = __LINE__ + 1;
    cute_tcgen05_cta_group(c, 3);
}
static void m256_one_block(cute_ctx *c, int *line)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val desc = cute_tcgen05_smem_desc(c, cute_smem_alloc_array(c, &A, CUTE_BF16, 2048, 128), 128, 256, 0);
    uint32_t idesc = cute_tcgen05_idesc(c, CUTE_BF16, CUTE_BF16, 256, 64, false, false);
    *line = __LINE__ + 1;
    cute_tcgen05_mma(c, CUTE_BF16, u32(c, 0), desc, desc, idesc, u32(c, 0));
}
static void multicast_one_block(cute_ctx *c, int *line)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val bar = cute_smem_alloc_array(c, &A, CUTE_U64, 1, 8);
    *line = __LINE__ + 1;
    cute_tcgen05_commit_multicast(c, bar, u32(c, 3));
}
static void pair_commit_of_pointer(cute_ctx *c, int *line)
{
    cute_tcgen05_cta_group(c, 2);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val bar = cute_smem_alloc_array(c, &A, CUTE_U64, 1, 8);
    *line = __LINE__ + 1;
    cute_tcgen05_commit(c, bar);
}
static void scaled_m256_one_block(cute_ctx *c, int *line)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val desc = cute_tcgen05_smem_desc(c, cute_smem_alloc_array(c, &A, CUTE_U8, 4096, 128), 128, 256, 0);
    uint32_t idesc = cute_tcgen05_idesc_scaled(c, CUTE_TCGEN05_MXF4, CUTE_E2M1, CUTE_E2M1, 256, 64, false, false, 0, 0);
    *line = __LINE__ + 1;
    cute_tcgen05_mma_scaled(c, CUTE_TCGEN05_MXF4, u32(c, 0), desc, desc, idesc, u32(c, 64), u32(c, 68), u32(c, 0));
}
static void ts_mn_major(cute_ctx *c, int *line)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val desc = cute_tcgen05_smem_desc(c, cute_smem_alloc_array(c, &A, CUTE_BF16, 2048, 128), 128, 256, 0);
    uint32_t idesc = cute_tcgen05_idesc(c, CUTE_BF16, CUTE_BF16, 128, 64, true, false);
    *line = __LINE__ + 1;
    cute_tcgen05_mma_ts(c, CUTE_BF16, u32(c, 0), u32(c, 64), desc, idesc, u32(c, 0));
}
static void ts_of_e4m3(cute_ctx *c, int *line)
{
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val desc = cute_tcgen05_smem_desc(c, cute_smem_alloc_array(c, &A, CUTE_U8, 4096, 128), 128, 256, 0);
    uint32_t idesc = cute_tcgen05_idesc(c, CUTE_E4M3, CUTE_E4M3, 128, 64, false, false);
    *line = __LINE__ + 1;
    cute_tcgen05_mma_ts(c, CUTE_E4M3, u32(c, 0), u32(c, 64), desc, idesc, u32(c, 0));
}
static void formats_of_tf32(cute_ctx *c, int *line)
{
    uint32_t idesc = cute_tcgen05_idesc(c, CUTE_TF32, CUTE_TF32, 128, 64, false, false);
    *line = __LINE__ + 1;
    cute_tcgen05_idesc_formats(c, idesc, CUTE_TCGEN05_E2M3, CUTE_TCGEN05_E2M1);
}
static void reserved_format(cute_ctx *c, int *line)
{
    uint32_t idesc = cute_tcgen05_idesc(c, CUTE_E4M3, CUTE_E4M3, 128, 64, false, false);
    *line = __LINE__ + 1;
    cute_tcgen05_idesc_formats(c, idesc, CUTE_TCGEN05_E3M2, (cute_tcgen05_format)2);
}

/* the 6- and 4-bit formats: the descriptor's bits 7-12 replaced, the rest kept; an e2m1 MMA is
 * kind::f8f6f4's */
static void f6f4_formats(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_ctx_target_arch(c, 100);
    cute_kernel_begin(c, "f6f4");
    uint32_t dense = cute_tcgen05_idesc(c, CUTE_E5M2, CUTE_E4M3, 128, 64, false, false);
    uint32_t scaled = cute_tcgen05_idesc_scaled(c, CUTE_TCGEN05_MXF8F6F4, CUTE_E4M3, CUTE_E4M3, 128, 64, false, false,
                                                2, 1);
    uint32_t d = cute_tcgen05_idesc_formats(c, dense, CUTE_TCGEN05_E2M3, CUTE_TCGEN05_E2M1);
    uint32_t s = cute_tcgen05_idesc_formats(c, scaled, CUTE_TCGEN05_E3M2, CUTE_TCGEN05_E5M2);
    CHECK(d == (1u << 4 | 3u << 7 | 5u << 10 | 8u << 17 | 8u << 24), "kind::f8f6f4, e2m3 x e2m1: 0x%x", d);
    CHECK(s == (1u << 4 | 4u << 7 | 1u << 10 | 8u << 17 | 1u << 23 | 8u << 24 | 2u << 29), "mxf8f6f4, e3m2 x e5m2, "
          "scale ids 2 and 1: 0x%x", s);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val desc = cute_tcgen05_smem_desc(c, cute_smem_alloc_array(c, &A, CUTE_U8, 4096, 128), 128, 512, 0);
    cute_tcgen05_mma(c, CUTE_E2M1, u32(c, 0), desc, desc, d, u32(c, 0));
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "traces: %s", cute_ctx_error(c));
    char err[512], *src = NULL;
    if (f && cute_cuda_c_emit((const cute_ir_func *const *)&f, 1, &(cute_cuda_c_opts){.arch = "sm_100a"}, &src, err,
                              sizeof err) == CUTE_OK)
        CHECK(strstr(src, "tcgen05.mma.cta_group::1.kind::f8f6f4"), "an e2m1 MMA is kind::f8f6f4's");
    else
        CHECK(false, "emit for sm_100a: %s", err);
    free(src);
    cute_ir_func_free(f);
    cute_ctx_free(c);
}

/* the _TS form emits A's tensor-memory address in brackets */
static void ts_row(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_ctx_target_arch(c, 100);
    cute_kernel_begin(c, "ts");
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_val desc = cute_tcgen05_smem_desc(c, cute_smem_alloc_array(c, &A, CUTE_BF16, 2048, 128), 128, 256, 0);
    uint32_t idesc = cute_tcgen05_idesc(c, CUTE_BF16, CUTE_BF16, 128, 64, false, false);
    cute_tcgen05_mma_ts(c, CUTE_BF16, u32(c, 0), u32(c, 64), desc, idesc, u32(c, 0));
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "the _TS kernel traces: %s", cute_ctx_error(c));
    char err[512], *src = NULL;
    if (f && cute_cuda_c_emit((const cute_ir_func *const *)&f, 1, &(cute_cuda_c_opts){.arch = "sm_100a"}, &src, err,
                              sizeof err) == CUTE_OK)
        CHECK(strstr(src, "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2"), "A's address in brackets: %s", src);
    else
        CHECK(false, "emit for sm_100a: %s", err);
    free(src);
    cute_ir_func_free(f);
    cute_ctx_free(c);
}

int main(void)
{
    ts_row();
    pair_rows();
    pair_scaled_rows();
    f6f4_formats();
    refused(scaled_m256_one_block, "idesc's M 256 with cta_group::1");
    refused(ts_mn_major, "the _TS form takes a K-major f16, bf16 or tf32 A");
    refused(ts_of_e4m3, ": the _TS form takes a K-major f16, bf16 or tf32 A of one block");
    refused(formats_of_tf32, "is not kind::f8f6f4's or mxf8f6f4's");
    refused(reserved_format, "formats 4 (A), 2 (B)");
    refused(group_after_use, "a kernel uses one cta_group for all its tcgen05 instructions");
    refused(group_three, "group 3 (1: one block, 2: the CTA pair)");
    refused(m256_one_block, "idesc's M 256 with cta_group::1");
    refused(multicast_one_block, "the CTA pair's commit (cute_tcgen05_cta_group(c, 2) first)");
    refused(pair_commit_of_pointer, "shared::cluster address");
    return CHECK_DONE("trace/arch_tcgen05");
}
