/* How many blocks of a persistent kernel (one block an SM) the device holds at once: one a
 * SM, or, in clusters, as many whole clusters as the driver places together
 * (kernels/resident.h: not always the SMs' count over the cluster's size). */
#include "cutec/cuda_driver.h"
#include "kernels/gemm/gemm_internal.h"
#include "kernels/resident.h"

int gemm_resident_blocks(cute_runtime *rt, int cluster_size, int threads)
{
    if (cluster_size < 1) cluster_size = 1; /* a plan without clusters (the SM80 kernels') says 0 */
    cute_cuda *cu = cute_cuda_backend_driver(cute_runtime_backend(rt));
    const cute_device_info *d = cu ? cute_cuda_device(cu) : NULL;
    if (!d || d->sm_count <= 0) return 2 * cluster_size; /* the interpreter: blocks walk several tiles */
    int whole = d->sm_count / cluster_size * cluster_size;
    if (cluster_size == 1) return d->sm_count;
    int clusters = kernels_resident_clusters(rt, cluster_size, threads, 1);
    return clusters > 0 && clusters * cluster_size < whole ? clusters * cluster_size : whole;
}
