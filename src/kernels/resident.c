/* The resident clusters of a persistent kernel (kernels/resident.h), asked of
 * cuOccupancyMaxActiveClusters.  The question is asked of a probe kernel, which the driver
 * JIT-compiles from PTX, not of the kernel itself (whose grid is part of its trace, so it is
 * not compiled yet): the probe takes the shared memory that lets exactly `per_sm` blocks share
 * an SM, so the driver places clusters as it would place the kernel's. */
#include "kernels/resident.h"

#include "cutec/cuda_driver.h"

static const char probe_ptx[] = ".version 7.8\n.target sm_90\n.address_size 64\n"
                                ".visible .entry cutec_resident_probe()\n{\n    ret;\n}\n";

/* the shared memory a block that lets `per_sm` blocks an SM, and not one more, share it
 * (the driver reserves 1 KB of each block's) */
static int probe_smem(const cute_device_info *d, int per_sm)
{
    int smem = per_sm > 1 ? d->smem_per_sm / per_sm - 1024 : d->smem_per_block_optin;
    return smem < d->smem_per_block_optin ? smem : d->smem_per_block_optin;
}

int kernels_resident_clusters(cute_runtime *rt, int size, int threads, int per_sm)
{
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(rt));
    const cute_device_info *d = cu ? cute_cuda_device(cu) : NULL;
    void *mod = NULL, *fn = NULL;
    int n = 0, smem = d ? probe_smem(d, per_sm) : 0;
    if (!d || d->sm_count <= 0 || cute_cuda_module_load(cu, probe_ptx, &mod) != CUTE_OK) return 0;
    /* clusters over 8 blocks need the non-portable opt-in, as the kernels that use them get */
    if (cute_cuda_module_function(cu, mod, "cutec_resident_probe", &fn) != CUTE_OK ||
        cute_cuda_func_max_dynamic_smem(cu, fn, smem) != CUTE_OK ||
        (size > 8 && cute_cuda_func_allow_large_clusters(cu, fn) != CUTE_OK) ||
        cute_cuda_max_active_clusters(cu, fn, (cute_dim3){(uint32_t)(size * d->sm_count), 1, 1},
                                      (cute_dim3){(uint32_t)threads, 1, 1}, (cute_dim3){(uint32_t)size, 1, 1},
                                      (uint32_t)smem, &n) != CUTE_OK)
        n = 0;
    cute_cuda_module_unload(cu, mod);
    return n;
}
