/* How many blocks of a persistent kernel (one block an SM) the device holds at once: one a
 * SM, or, in clusters, as many whole clusters as the driver places together.  That is not
 * always the SMs' count over the cluster's size (the blocks of a cluster must share a GPC):
 * a grid of more clusters than that runs the rest in a second wave, which halves a
 * persistent GEMM's rate.  cuOccupancyMaxActiveClusters answers it for a kernel; it is asked
 * of a probe kernel that takes a whole SM's shared memory, which the driver JIT-compiles
 * from PTX, before the GEMM itself is compiled (the grid is part of its trace). */
#include "cutec/cuda_driver.h"
#include "kernels/gemm/gemm_internal.h"

static const char probe_ptx[] = ".version 7.8\n.target sm_90\n.address_size 64\n"
                                ".visible .entry cutec_resident_probe()\n{\n    ret;\n}\n";

/* the clusters of `size` blocks of `threads` threads, each taking an SM's shared memory,
 * resident at once; 0 where the driver cannot say */
static int resident_clusters(cute_cuda *cu, const cute_device_info *d, int size, int threads)
{
    void *mod = NULL, *fn = NULL;
    int n = 0, smem = d->smem_per_block_optin;
    if (cute_cuda_module_load(cu, probe_ptx, &mod) != CUTE_OK) return 0;
    if (cute_cuda_module_function(cu, mod, "cutec_resident_probe", &fn) != CUTE_OK ||
        cute_cuda_func_max_dynamic_smem(cu, fn, smem) != CUTE_OK ||
        cute_cuda_max_active_clusters(cu, fn, (cute_dim3){(uint32_t)(size * d->sm_count), 1, 1},
                                      (cute_dim3){(uint32_t)threads, 1, 1}, (cute_dim3){(uint32_t)size, 1, 1},
                                      (uint32_t)smem, &n) != CUTE_OK)
        n = 0;
    cute_cuda_module_unload(cu, mod);
    return n;
}

int gemm_resident_blocks(cute_runtime *rt, int cluster_size, int threads)
{
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(rt));
    const cute_device_info *d = cu ? cute_cuda_device(cu) : NULL;
    if (!d || d->sm_count <= 0) return 2 * cluster_size; /* the interpreter: blocks walk several tiles */
    int whole = d->sm_count / cluster_size * cluster_size;
    if (cluster_size == 1) return d->sm_count;
    int clusters = resident_clusters(cu, d, cluster_size, threads);
    return clusters > 0 && clusters * cluster_size < whole ? clusters * cluster_size : whole;
}
