/* cutec/cuda_driver.h — the CUDA driver, opened at run time with dlopen, and the CUDA backend
 * built on it (IR -> CUDA C -> NVRTC -> JIT cache -> module -> launch).
 *
 * No CUDA header and no link-time dependency: where libcuda.so.1 or a device is missing,
 * cute_cuda_open returns CUTE_ERR_NO_DRIVER with the reason, and the rest of cutec (the
 * algebra, the tracer, the interpreter) works as before.
 *
 * A cute_cuda is one device's state: the library handle, its entry points and the device's
 * primary context.  The caller owns it (no globals); each call makes the context current on
 * the calling thread first, so a handle may be used from any thread.  Every call returns a
 * status; the driver's words for the last failure are cute_cuda_error().
 *
 *   char err[256];
 *   cute_cuda *cu;
 *   if (cute_cuda_open(NULL, &cu, err, sizeof err) != CUTE_OK) { puts(err); ... }
 *   const cute_device_info *d = cute_cuda_device(cu);   // d->name, d->arch, d->sm_count
 *   cute_devptr p;
 *   cute_cuda_alloc(cu, n, &p); cute_cuda_copy_htod(cu, p, host, n); ...
 *   cute_cuda_close(cu);
 */
#ifndef CUTEC_CUDA_DRIVER_H
#define CUTEC_CUDA_DRIVER_H

#include "cutec/api.h"
#include "cutec/cuda_arch.h" /* the targets by name, and their shared memory */
CUTE_API_BEGIN

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cutec/backend.h"
#include "cutec/cache.h"
#include "cutec/ir.h"
#include "cutec/nvrtc.h"

typedef struct cute_cuda cute_cuda;
typedef uint64_t cute_devptr; /* a device address (CUdeviceptr) */

typedef struct cute_cuda_opts {
    const char *libcuda; /* the library to dlopen; NULL: "libcuda.so.1" */
    int device;          /* the device's ordinal */
    const char *hide;    /* optional entry points to treat as absent, comma-separated (to see
                            what an older driver does: "cuLaunchKernelEx,cuTensorMapEncodeTiled") */
} cute_cuda_opts;

/* What the device says about itself, queried once at open.  Kernels and benchmarks read
 * these instead of assuming a chip. */
typedef struct cute_device_info {
    char name[256];
    int ordinal;
    int cc_major, cc_minor; /* compute capability */
    char arch[16];          /* NVRTC's target: "sm_90a" on 9.0 (wgmma, TMA), else "sm_XY" */
    int sm_count;
    int max_threads_per_block, max_threads_per_sm, warp_size;
    int smem_per_block;       /* bytes a kernel gets without opting in (48 KB) */
    int smem_per_block_optin; /* the most a kernel may ask for (227 KB on H100/H200) */
    int smem_per_sm;
    int regs_per_block, regs_per_sm;
    int l2_bytes;
    int clock_khz;     /* peak SM clock; 0 where the driver no longer says */
    int mem_clock_khz; /* peak memory clock; 0 likewise */
    int mem_bus_bits;
    size_t total_mem;   /* bytes of device memory */
    int driver_version; /* 12080 is CUDA 12.8 */
    char pci_bus_id[32]; /* "0000:1B:00.0" (NVML finds the device by it); "" where the driver does not say */
} cute_device_info;

/* Open the driver and retain device o->device's primary context (o NULL: defaults).
 * CUTE_ERR_NO_DRIVER when libcuda cannot be loaded, lacks an entry point, or finds no
 * such device; CUTE_ERR_OOM.  err gets the reason either way. */
cute_status cute_cuda_open(const cute_cuda_opts *o, cute_cuda **out, char *err, size_t n);
void cute_cuda_close(cute_cuda *cu);
const cute_device_info *cute_cuda_device(const cute_cuda *cu);
/* the calling thread's last failure: "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"
 * (threads that share cu each keep their own) */
const char *cute_cuda_error(const cute_cuda *cu);
/* was the last failure a kernel's fault that leaves the context unusable (sticky)? */
bool cute_cuda_error_sticky(const cute_cuda *cu);
/* the number of devices libcuda sees (0 when none, or no driver) */
int cute_cuda_device_count(const cute_cuda *cu);

/* --- memory (copies without a stream are synchronous) ------------------------------- */
cute_status cute_cuda_alloc(cute_cuda *cu, size_t bytes, cute_devptr *out);
cute_status cute_cuda_free(cute_cuda *cu, cute_devptr p);
cute_status cute_cuda_copy_htod(cute_cuda *cu, cute_devptr dst, const void *src, size_t n);
cute_status cute_cuda_copy_dtoh(cute_cuda *cu, void *dst, cute_devptr src, size_t n);
cute_status cute_cuda_copy_dtod(cute_cuda *cu, cute_devptr dst, cute_devptr src, size_t n);
cute_status cute_cuda_copy_htod_async(cute_cuda *cu, cute_devptr dst, const void *src, size_t n,
                                      void *stream);
cute_status cute_cuda_copy_dtoh_async(cute_cuda *cu, void *dst, cute_devptr src, size_t n,
                                      void *stream);
cute_status cute_cuda_copy_dtod_async(cute_cuda *cu, cute_devptr dst, cute_devptr src, size_t n,
                                      void *stream);
cute_status cute_cuda_memset8(cute_cuda *cu, cute_devptr dst, uint8_t value, size_t n);
/* free and total device memory now */
cute_status cute_cuda_mem_info(cute_cuda *cu, size_t *free_bytes, size_t *total_bytes);

/* --- peer memory: `bytes` (rounded up to the driver's granularity, *mapped) of cu's device
 * memory through the virtual-memory API (cuMemCreate, cuMemMap), read-write for every device
 * of devs[0..ndevs) (ordinals; cu's own among them).  One process has one address space, so
 * the address is the same on every device: a kernel on any of them loads and stores it over
 * NVLink or PCIe, and copies to it from another device are peer copies (cutec/peer.h). */
cute_status cute_cuda_alloc_peer(cute_cuda *cu, size_t bytes, const int *devs, int ndevs,
                                 cute_devptr *out, size_t *mapped);
cute_status cute_cuda_free_peer(cute_cuda *cu, cute_devptr p, size_t mapped);

/* --- streams, events, synchronization ------------------------------------------------ */
cute_status cute_cuda_stream_new(cute_cuda *cu, void **stream); /* non-blocking */
cute_status cute_cuda_stream_free(cute_cuda *cu, void *stream);
cute_status cute_cuda_stream_sync(cute_cuda *cu, void *stream); /* NULL: the whole context */
cute_status cute_cuda_sync(cute_cuda *cu);
cute_status cute_cuda_event_new(cute_cuda *cu, void **event);
/* an event that orders streams only (no timing: cuStreamWaitEvent on it is cheapest, across
 * devices too) */
cute_status cute_cuda_event_new_untimed(cute_cuda *cu, void **event);
cute_status cute_cuda_event_free(cute_cuda *cu, void *event);
cute_status cute_cuda_event_record(cute_cuda *cu, void *event, void *stream);
cute_status cute_cuda_event_sync(cute_cuda *cu, void *event);
/* work enqueued on stream after this waits for event (recorded on any device's stream) */
cute_status cute_cuda_stream_wait_event(cute_cuda *cu, void *stream, void *event);
/* a 4-byte store of value at dst (any device's memory this one maps) in stream order, after
 * a fence that makes the stream's earlier work (its copies) visible first, no SM taken
 * (cuStreamWriteValue32): a flag a kernel of another GPU may be spinning on */
cute_status cute_cuda_stream_write_u32(cute_cuda *cu, void *stream, cute_devptr dst, uint32_t value);
/* milliseconds from a to b, both recorded and complete */
cute_status cute_cuda_event_elapsed(cute_cuda *cu, void *a, void *b, float *ms);

/* --- modules and launches ------------------------------------------------------------ */
/* image: a cubin, or NUL-terminated PTX (the driver JIT-compiles PTX) */
cute_status cute_cuda_module_load(cute_cuda *cu, const void *image, void **module);
/* PTX to a cubin through the driver's JIT linker (cuLinkCreate/AddData/Complete: the
 * driver's ptxas, -O opt_level 0-4) for the context's device.  *cubin is malloc'd;
 * log (logn bytes, may be 0) gets its info report (registers, spills).  CUTE_ERR_NO_DRIVER
 * when the driver has no linker; ptxas's errors in cute_cuda_error. */
cute_status cute_cuda_link_ptx(cute_cuda *cu, const char *ptx, int opt_level, void **cubin,
                               size_t *cubin_len, char *log, size_t logn);
/* PTX loaded as a module by the driver's JIT compiler (cuModuleLoadDataEx: the whole
 * module at once, not a relocatable unit as the linker compiles it; -O opt_level 0-4); log
 * as cute_cuda_link_ptx's.  CUTE_ERR_NO_DRIVER when the driver lacks it. */
cute_status cute_cuda_module_load_ptx(cute_cuda *cu, const char *ptx, int opt_level, void **module, char *log,
                                      size_t logn);
cute_status cute_cuda_module_unload(cute_cuda *cu, void *module);
cute_status cute_cuda_module_function(cute_cuda *cu, void *module, const char *name, void **func);
/* allow func up to bytes of dynamic shared memory (needed above 48 KB) */
cute_status cute_cuda_func_max_dynamic_smem(cute_cuda *cu, void *func, int bytes);
/* allow func clusters of more than the 8 portable blocks (up to 16 on sm_90) */
cute_status cute_cuda_func_allow_large_clusters(cute_cuda *cu, void *func);
/* the registers per thread and static shared memory the compiled kernel uses */
cute_status cute_cuda_func_usage(cute_cuda *cu, void *func, int *regs, int *static_smem);
/* params: one pointer per kernel parameter, to its value (cuLaunchKernel's kernelParams) */
cute_status cute_cuda_launch(cute_cuda *cu, void *func, cute_dim3 grid, cute_dim3 block,
                             uint32_t smem_bytes, void *stream, void **params);

/* --- entry points older drivers lack (CUDA 12.0+): cuLaunchKernelEx,
 * cuTensorMapEncodeTiled, cuOccupancyMaxActiveClusters.  cute_cuda_open does not need them;
 * without one, what needs it is CUTE_ERR_UNSUPPORTED and cute_cuda_error names the entry
 * point, and everything else works. */
bool cute_cuda_has(const cute_cuda *cu, const char *entry); /* "cuLaunchKernelEx" */
/* a launch in clusters of cluster.x*y*z blocks (each dividing the grid's extent) */
cute_status cute_cuda_launch_cluster(cute_cuda *cu, void *func, cute_dim3 grid, cute_dim3 block,
                                     cute_dim3 cluster, uint32_t smem_bytes, void *stream,
                                     void **params);
/* cuLaunchKernelEx with the attributes asked: clusters of cluster.x*y*z blocks (all 0: none)
 * and, where pdl, programmatic stream serialization (the grid may start while the stream's
 * previous kernel drains: it must griddepcontrol.wait before touching what that one writes;
 * without cuLaunchKernelEx and clusters, a plain launch: the wait then returns at once) */
cute_status cute_cuda_launch_ex(cute_cuda *cu, void *func, cute_dim3 grid, cute_dim3 block, cute_dim3 cluster,
                                bool pdl, uint32_t smem_bytes, void *stream, void **params);
/* how many such clusters can be resident at once */
cute_status cute_cuda_max_active_clusters(cute_cuda *cu, void *func, cute_dim3 grid,
                                          cute_dim3 block, cute_dim3 cluster, uint32_t smem_bytes,
                                          int *out);
/* cuTensorMapEncodeTiled's arguments; the enums are cuda.h's CUtensorMap* values */
typedef struct cute_tensor_map_desc {
    int data_type; /* CUtensorMapDataType: 7 FLOAT32, 6 FLOAT16, ... */
    unsigned rank; /* 1 to 5 */
    void *address; /* device address, 16-byte aligned */
    const uint64_t *dims, *strides_bytes; /* rank extents; rank-1 strides (dim 0 is unit) */
    const unsigned *box, *element_strides; /* rank each */
    int interleave, swizzle, l2_promotion, oob_fill;
} cute_tensor_map_desc;
/* write the 128-byte CUtensorMap to map (64-byte aligned) */
cute_status cute_cuda_tensor_map_encode_tiled(cute_cuda *cu, const cute_tensor_map_desc *d,
                                              void *map);

/* --- the CUDA backend (cutec/backend.h) ---------------------------------------------- */

/* IR -> CUDA C: one translation unit that defines kernels[i] as
 * extern "C" __global__ void <kernels[i]->name>(...), parameters in the IR's order (the
 * contract of cutec/cuda_c.h; cute_cuda_c_emit with opts {arch, line_directives = lineinfo}
 * is the code generator).  *source is malloc'd (the backend frees it); err says why not. */
typedef cute_status (*cute_cuda_emit_fn)(void *user, cute_ir_func *const *kernels, int n,
                                         const char *arch, bool lineinfo, char **source, char *err,
                                         size_t errn);

typedef struct cute_cuda_backend_opts {
    cute_cuda *cuda;        /* borrowed; NULL: open device `device` and own it */
    cute_nvrtc *nvrtc;      /* borrowed; NULL: open NVRTC at the first compile and own it */
    cute_cache *cache;      /* borrowed; NULL: open one from the environment and own it */
    cute_cuda_emit_fn emit; /* the code generator */
    void *emit_user;
    const char *arch;                 /* NULL: the device's (cute_device_info.arch) */
    const char *const *extra_options; /* more NVRTC options; part of the cache key */
    int nextra_options;
    int device; /* the ordinal of the device to open when cuda is NULL (0: the first) */
    /* Tiers (docs/compile_time.md): a cold miss returns the PTX backend's module (cutec/ptx.h)
     * and NVRTC's replaces it when a background compile is done; the cache keeps NVRTC's.
     * Only for an emit that writes the kernels' IR as cutec's own CUDA C does (the library's
     * backend sets it); CUTEC_TIER=0 turns it off. */
    bool tiered;
} cute_cuda_backend_opts;

/* A backend on the CUDA driver.  CUTE_ERR_NO_DRIVER (with err) when no device is there. */
cute_status cute_cuda_backend_new(const cute_cuda_backend_opts *o, cute_backend *out, char *err,
                                  size_t n);
/* the driver a CUDA backend runs on (its self) */
cute_cuda *cute_cuda_backend_driver(const cute_backend *b);
/* Wait until the backend's background compiles (tiers) are done and their modules swapped
 * in: what a benchmark does before timing.  The first failure not yet handed out (its
 * message in err; the module keeps running the PTX backend's code), else CUTE_OK; a
 * backend that is not CUDA's has none. */
cute_status cute_cuda_backend_wait(const cute_backend *b, char *err, size_t n);
/* whether a cold miss of a tiered backend is tiered now: CUTEC_TIER (0 off, else on), or
 * unset the library's default, and no generator chosen by CUTEC_CODEGEN */
bool cute_cuda_tiers_on(void);
/* ptxas's -O level for the first tier: CUTEC_TIER_OPT (0-4), else the library's default */
int cute_cuda_tier_opt_level(void);
/* the backend's background compiles not yet done (0: every module runs its final code, or
 * its final compile failed) */
int cute_cuda_backend_pending(const cute_backend *b);

CUTE_API_END
#endif
