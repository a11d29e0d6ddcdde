/* cutec/tcgen05.h's CTA group: a kernel traced with cute_tcgen05_cta_group(c, 2) gets the pair's
 * rows (cta_group::2 alloc, MMA of M = 256, commits through a shared::cluster address and
 * multicast, dealloc) in its CUDA C, which NVRTC compiles for sm_100a where NVRTC is installed;
 * misuse is refused at the call site (a group changed after tcgen05 calls, M 256 for one block,
 * M 128 / 64 idesc with the pair is allowed, a multicast commit for one block, group 3).  The
 * pair's semantics on the interpreter: src/interp/tcgen05_pair_test.c. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/nvrtc.h"
#include "cutec/smem.h"
#include "cutec/sync.h"
#include "cutec/tcgen05.h"

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

static void pair_rows(void)
{
    cute_ir_func *f = pair_kernel();
    if (!f) return;
    char err[512], *src = NULL;
    cute_status s = cute_cuda_c_emit((const cute_ir_func *const *)&f, 1, &(cute_cuda_c_opts){.arch = "sm_100a"}, &src,
                                     err, sizeof err);
    CHECK(s == CUTE_OK, "emit for sm_100a: %s", err);
    const char *want[] = {"tcgen05.alloc.cta_group::2", "tcgen05.mma.cta_group::2.kind::f16",
                          "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64",
                          "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [",
                          "tcgen05.relinquish_alloc_permit.cta_group::2", "tcgen05.dealloc.cta_group::2"};
    for (size_t i = 0; s == CUTE_OK && i < sizeof want / sizeof *want; i++)
        CHECK(strstr(src, want[i]), "the CUDA C holds %s", want[i]);
    CHECK(s != CUTE_OK || !strstr(src, "cta_group::1"), "no cta_group::1 row in the pair's kernel");
    cute_nvrtc *nv;
    if (s == CUTE_OK && cute_nvrtc_open(&nv, NULL, err, sizeof err) == CUTE_OK) {
        cute_nvrtc_output o = {0};
        CHECK(cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = "sm_100a"}, &o) == CUTE_OK, "ptxas, sm_100a: %s",
              o.log);
        cute_nvrtc_output_free(&o);
        cute_nvrtc_close(nv);
    } else if (s == CUTE_OK) {
        SKIP("NVRTC not installed: the sm_100a compile");
    }
    free(src);
    cute_ir_func_free(f);
}

/* a kernel whose first trouble is `bad`: the error names `words` at the line of the call */
static void refused(void (*bad)(cute_ctx *c, int *line), const char *words)
{
    cute_ctx *c = cute_ctx_new();
    cute_ctx_target_arch(c, 100);
    cute_kernel_begin(c, "bad");
    int line = 0;
    bad(c, &line);
    char at[64];
    snprintf(at, sizeof at, "arch_tcgen05_test.c:%d:", line);
    CHECK(strstr(cute_ctx_error(c), words) && strstr(cute_ctx_error(c), at), "refused at line %d with \"%s\": %s", line,
          words, cute_ctx_error(c));
    cute_ctx_free(c);
}

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

int main(void)
{
    pair_rows();
    refused(group_after_use, "a kernel uses one cta_group for all its tcgen05 instructions");
    refused(group_three, "group 3 (1: one block, 2: the CTA pair)");
    refused(m256_one_block, "idesc's M 256 with cta_group::1");
    refused(multicast_one_block, "the CTA pair's commit (cute_tcgen05_cta_group(c, 2) first)");
    refused(pair_commit_of_pointer, "shared::cluster address");
    return CHECK_DONE("trace/arch_tcgen05");
}
