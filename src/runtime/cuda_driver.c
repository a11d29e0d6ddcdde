/* The CUDA driver through dlopen: the entry points and enums we use are declared here (no
 * CUDA header), resolved by name from libcuda.so.1 (runtime/dynlib.c), and wrapped so that every failure is a
 * cute_status plus the driver's own words. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/cuda_driver.h"
#include "runtime/dynlib.h"

/* --- from cuda.h: the types, and the enum values we pass ----------------------------- */
typedef int CUresult; /* 0 is CUDA_SUCCESS */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

enum {
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_HANDLE = 400,
};

enum { /* CUdevice_attribute */
       ATTR_MAX_THREADS_PER_BLOCK = 1,
       ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,
       ATTR_WARP_SIZE = 10,
       ATTR_MAX_REGISTERS_PER_BLOCK = 12,
       ATTR_CLOCK_RATE = 13,
       ATTR_MULTIPROCESSOR_COUNT = 16,
       ATTR_MEMORY_CLOCK_RATE = 36,
       ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,
       ATTR_L2_CACHE_SIZE = 38,
       ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
       ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
       ATTR_COMPUTE_CAPABILITY_MINOR = 76,
       ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
       ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
       ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

enum { /* CUfunction_attribute */
       FUNC_ATTR_SHARED_SIZE_BYTES = 1,
       FUNC_ATTR_NUM_REGS = 4,
       FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
       FUNC_ATTR_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
};

enum { CU_STREAM_NON_BLOCKING = 1, CU_EVENT_DEFAULT = 0, CU_EVENT_DISABLE_TIMING = 2 };

/* cuLaunchKernelEx's configuration (CUDA 12.0); the cluster and PDL attributes are used */
enum { CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6 };
typedef struct CUlaunchAttribute {
    int id;
    char pad[8 - sizeof(int)];
    union {
        char pad[64];
        struct {
            unsigned x, y, z;
        } clusterDim;
        int programmaticStreamSerializationAllowed;
    } value;
} CUlaunchAttribute;
typedef struct CUlaunchConfig {
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute *attrs;
    unsigned numAttrs;
} CUlaunchConfig;

/* the virtual-memory API's allocation properties and access descriptors (cuda.h's v1) */
enum { CU_MEM_ALLOCATION_TYPE_PINNED = 1, CU_MEM_LOCATION_TYPE_DEVICE = 1,
       CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 1 };
typedef struct CUmemLocation {
    int type, id;
} CUmemLocation;
typedef struct CUmemAllocationProp {
    int type, requestedHandleTypes;
    CUmemLocation location;
    void *win32HandleMetaData;
    struct {
        unsigned char compressionType, gpuDirectRDMACapable;
        unsigned short usage;
        unsigned char reserved[4];
    } allocFlags;
} CUmemAllocationProp;
typedef struct CUmemAccessDesc {
    CUmemLocation location;
    int flags;
} CUmemAccessDesc;

struct cute_cuda {
    void *lib;
    bool initialized; /* cuInit succeeded: libcuda stays loaded (see cute_cuda_close) */
    CUdevice dev;
    CUcontext ctx;
    int ndevices;
    cute_device_info info;

    CUresult (*Init)(unsigned);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetPCIBusId)(char *, int, CUdevice);
    CUresult (*DeviceTotalMem)(size_t *, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxGetCurrent)(CUcontext *);
    CUresult (*CtxSynchronize)(void);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemGetInfo)(size_t *, size_t *);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*FuncSetAttribute)(CUfunction, int, int);
    CUresult (*FuncGetAttribute)(int *, int, CUfunction);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void **, void **);
    CUresult (*StreamCreate)(CUstream *, unsigned);
    CUresult (*StreamDestroy)(CUstream);
    CUresult (*StreamSynchronize)(CUstream);
    CUresult (*EventCreate)(CUevent *, unsigned);
    CUresult (*EventRecord)(CUevent, CUstream);
    CUresult (*EventSynchronize)(CUevent);
    CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
    CUresult (*EventDestroy)(CUevent);
    CUresult (*GetErrorString)(CUresult, const char **);
    CUresult (*GetErrorName)(CUresult, const char **);
    /* optional (CUDA 12.0 and later): NULL on an older driver */
    CUresult (*LaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);
    CUresult (*TensorMapEncodeTiled)(void *, int, unsigned, void *, const uint64_t *,
                                     const uint64_t *, const unsigned *, const unsigned *, int,
                                     int, int, int);
    CUresult (*OccupancyMaxActiveClusters)(int *, CUfunction, const CUlaunchConfig *);
    /* peer memory (cuda_peer_mem.c): the virtual-memory API and cross-device stream order */
    CUresult (*MemGetAllocationGranularity)(size_t *, const CUmemAllocationProp *, int);
    CUresult (*MemCreate)(unsigned long long *, size_t, const CUmemAllocationProp *,
                          unsigned long long);
    CUresult (*MemRelease)(unsigned long long);
    CUresult (*MemAddressReserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*MemAddressFree)(CUdeviceptr, size_t);
    CUresult (*MemMap)(CUdeviceptr, size_t, size_t, unsigned long long, unsigned long long);
    CUresult (*MemUnmap)(CUdeviceptr, size_t);
    CUresult (*MemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
    CUresult (*StreamWaitEvent)(CUstream, CUevent, unsigned);
    CUresult (*StreamWriteValue32)(CUstream, CUdeviceptr, uint32_t, unsigned);
    /* the driver's JIT linker (cute_cuda_link_ptx): its ptxas, for the PTX backend */
    CUresult (*LinkCreate)(unsigned, int *, void **, void **);
    CUresult (*LinkAddData)(void *, int, void *, size_t, const char *, unsigned, int *, void **);
    CUresult (*LinkComplete)(void *, void **, size_t *);
    CUresult (*LinkDestroy)(void *);
};

/* Each entry point by its exported name (runtime/dynlib.c); the _v2 names are the 64-bit-size
 * ABI that cuda.h maps the plain names to.  `alt` is tried when `name` is absent. */
#define SYM(f, name, alt) DYNLIB_ALT(struct cute_cuda, f, name, alt)
/* an entry point that older drivers lack: absent, only what needs it fails (with words) */
#define OPTIONAL(f, name) DYNLIB_OPTIONAL(struct cute_cuda, f, name)
static const dynlib_sym syms[] = {
    SYM(Init, "cuInit", NULL),
    SYM(DriverGetVersion, "cuDriverGetVersion", NULL),
    SYM(DeviceGetCount, "cuDeviceGetCount", NULL),
    SYM(DeviceGet, "cuDeviceGet", NULL),
    SYM(DeviceGetAttribute, "cuDeviceGetAttribute", NULL),
    SYM(DeviceGetName, "cuDeviceGetName", NULL),
    SYM(DeviceTotalMem, "cuDeviceTotalMem_v2", NULL),
    SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL),
    SYM(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
    SYM(CtxSetCurrent, "cuCtxSetCurrent", NULL),
    SYM(CtxGetCurrent, "cuCtxGetCurrent", NULL),
    SYM(CtxSynchronize, "cuCtxSynchronize", NULL),
    SYM(MemAlloc, "cuMemAlloc_v2", NULL),
    SYM(MemFree, "cuMemFree_v2", NULL),
    SYM(MemGetInfo, "cuMemGetInfo_v2", NULL),
    SYM(MemcpyHtoD, "cuMemcpyHtoD_v2", NULL),
    SYM(MemcpyDtoH, "cuMemcpyDtoH_v2", NULL),
    SYM(MemcpyDtoD, "cuMemcpyDtoD_v2", NULL),
    SYM(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL),
    SYM(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL),
    SYM(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", NULL),
    SYM(MemsetD8, "cuMemsetD8_v2", NULL),
    SYM(ModuleLoadData, "cuModuleLoadData", NULL),
    SYM(ModuleGetFunction, "cuModuleGetFunction", NULL),
    SYM(ModuleUnload, "cuModuleUnload", NULL),
    SYM(FuncSetAttribute, "cuFuncSetAttribute", NULL),
    SYM(FuncGetAttribute, "cuFuncGetAttribute", NULL),
    SYM(LaunchKernel, "cuLaunchKernel", NULL),
    SYM(StreamCreate, "cuStreamCreate", NULL),
    SYM(StreamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy"),
    SYM(StreamSynchronize, "cuStreamSynchronize", NULL),
    SYM(EventCreate, "cuEventCreate", NULL),
    SYM(EventRecord, "cuEventRecord", NULL),
    SYM(EventSynchronize, "cuEventSynchronize", NULL),
    SYM(EventElapsedTime, "cuEventElapsedTime", "cuEventElapsedTime_v2"),
    SYM(EventDestroy, "cuEventDestroy_v2", "cuEventDestroy"),
    SYM(GetErrorString, "cuGetErrorString", NULL),
    SYM(GetErrorName, "cuGetErrorName", NULL),
    OPTIONAL(LaunchKernelEx, "cuLaunchKernelEx"),
    OPTIONAL(DeviceGetPCIBusId, "cuDeviceGetPCIBusId"),
    OPTIONAL(TensorMapEncodeTiled, "cuTensorMapEncodeTiled"),
    OPTIONAL(OccupancyMaxActiveClusters, "cuOccupancyMaxActiveClusters"),
    OPTIONAL(MemGetAllocationGranularity, "cuMemGetAllocationGranularity"),
    OPTIONAL(MemCreate, "cuMemCreate"),
    OPTIONAL(MemRelease, "cuMemRelease"),
    OPTIONAL(MemAddressReserve, "cuMemAddressReserve"),
    OPTIONAL(MemAddressFree, "cuMemAddressFree"),
    OPTIONAL(MemMap, "cuMemMap"),
    OPTIONAL(MemUnmap, "cuMemUnmap"),
    OPTIONAL(MemSetAccess, "cuMemSetAccess"),
    OPTIONAL(StreamWaitEvent, "cuStreamWaitEvent"),
    OPTIONAL(StreamWriteValue32, "cuStreamWriteValue32_v2"),
    OPTIONAL(ModuleLoadDataEx, "cuModuleLoadDataEx"),
    OPTIONAL(LinkCreate, "cuLinkCreate_v2"),
    OPTIONAL(LinkAddData, "cuLinkAddData_v2"),
    OPTIONAL(LinkComplete, "cuLinkComplete"),
    OPTIONAL(LinkDestroy, "cuLinkDestroy"),
};
#undef SYM
#undef OPTIONAL

static const dynlib_spec libcuda = {
    .what = "CUDA driver",
    .names = (const char *const[]){"libcuda.so.1", NULL},
    .syms = syms,
    .nsyms = sizeof syms / sizeof syms[0],
    .hint = "no NVIDIA driver here; CPU paths still work (CUTEC_BACKEND=interp)",
    .too_old = "a driver older than CUDA 11?",
};

/* The last failure's words, per thread: threads that share a handle fail independently. */
static _Thread_local char last_error[512];
#define ERR last_error, sizeof last_error
static _Thread_local int last_result; /* the CUresult of this thread's last failure */

static void say(char *err, size_t n, const char *fmt, ...)
{
    if (!err || !n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static cute_status status_of(CUresult r)
{
    switch (r) {
    case 0:
        return CUTE_OK;
    case CUDA_ERROR_OUT_OF_MEMORY:
        return CUTE_ERR_OOM;
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_STUB_LIBRARY:
    case CUDA_ERROR_INSUFFICIENT_DRIVER:
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
        return CUTE_ERR_NO_DRIVER;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_HANDLE:
        return CUTE_ERR_INVALID;
    default:
        return CUTE_ERR_LAUNCH; /* the driver refused, or a kernel faulted earlier */
    }
}

/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" into buf */
static void describe(const cute_cuda *cu, CUresult r, char *buf, size_t n)
{
    const char *name = NULL, *text = NULL;
    if (cu->GetErrorName) cu->GetErrorName(r, &name);
    if (cu->GetErrorString) cu->GetErrorString(r, &text);
    if (name)
        snprintf(buf, n, "%s (%s)", name, text ? text : "no description");
    else
        snprintf(buf, n, "CUresult %d", r);
}

static cute_status check(cute_cuda *cu, CUresult r, const char *what)
{
    if (r == 0) return CUTE_OK;
    char why[256];
    describe(cu, r, why, sizeof why);
    say(ERR, "%s: %s", what, why);
    last_result = (int)r;
    return status_of(r);
}

bool cute_cuda_error_sticky(const cute_cuda *cu)
{
    /* a kernel faulted (illegal address or instruction, misaligned address, bad PC, stack
     * error, device assert, launch failure): the context is unusable from here on */
    (void)cu;
    switch (last_result) {
    case 700: case 710: case 714: case 715: case 716: case 717: case 718: case 719:
        return true;
    default:
        return false;
    }
}

/* The handle's context must be current on the calling thread; a TLS read when it is. */
static cute_status bind(cute_cuda *cu)
{
    CUcontext cur = NULL;
    if (cu->CtxGetCurrent(&cur) == 0 && cur == cu->ctx) return CUTE_OK;
    return check(cu, cu->CtxSetCurrent(cu->ctx), "cuCtxSetCurrent");
}

/* is name in the comma-separated list (cute_cuda_opts.hide)? */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = list; s && *s; s += strcspn(s, ",") + (s[strcspn(s, ",")] == ','))
        if (strncmp(s, name, n) == 0 && (s[n] == ',' || s[n] == 0)) return true;
    return false;
}

/* the optional entry points named in hide (cute_cuda_opts.hide) as if absent */
static void hide_listed(cute_cuda *cu, const char *hide)
{
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
        if (syms[i].optional && listed(hide, syms[i].name)) memset((char *)cu + syms[i].at, 0, sizeof(void *));
}

static int attr(cute_cuda *cu, int which)
{
    int v = 0;
    if (cu->DeviceGetAttribute(&v, which, cu->dev) != 0) v = 0;
    return v;
}

static cute_status query_device(cute_cuda *cu, int ordinal)
{
    cute_device_info *d = &cu->info;
    d->ordinal = ordinal;
    cute_status s =
        check(cu, cu->DeviceGetName(d->name, (int)sizeof d->name, cu->dev), "cuDeviceGetName");
    if (s != CUTE_OK) return s;
    d->cc_major = attr(cu, ATTR_COMPUTE_CAPABILITY_MAJOR);
    d->cc_minor = attr(cu, ATTR_COMPUTE_CAPABILITY_MINOR);
    cute_cuda_arch_name(d->cc_major, d->cc_minor, d->arch, sizeof d->arch);
    d->sm_count = attr(cu, ATTR_MULTIPROCESSOR_COUNT);
    d->max_threads_per_block = attr(cu, ATTR_MAX_THREADS_PER_BLOCK);
    d->max_threads_per_sm = attr(cu, ATTR_MAX_THREADS_PER_MULTIPROCESSOR);
    d->warp_size = attr(cu, ATTR_WARP_SIZE);
    d->smem_per_block = attr(cu, ATTR_MAX_SHARED_MEMORY_PER_BLOCK);
    d->smem_per_block_optin = attr(cu, ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    d->smem_per_sm = attr(cu, ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    d->regs_per_block = attr(cu, ATTR_MAX_REGISTERS_PER_BLOCK);
    d->regs_per_sm = attr(cu, ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR);
    d->l2_bytes = attr(cu, ATTR_L2_CACHE_SIZE);
    d->clock_khz = attr(cu, ATTR_CLOCK_RATE);
    d->mem_clock_khz = attr(cu, ATTR_MEMORY_CLOCK_RATE);
    d->mem_bus_bits = attr(cu, ATTR_GLOBAL_MEMORY_BUS_WIDTH);
    if (cu->DeviceTotalMem(&d->total_mem, cu->dev) != 0) d->total_mem = 0;
    if (cu->DriverGetVersion(&d->driver_version) != 0) d->driver_version = 0;
    if (!cu->DeviceGetPCIBusId || cu->DeviceGetPCIBusId(d->pci_bus_id, (int)sizeof d->pci_bus_id, cu->dev) != 0)
        d->pci_bus_id[0] = 0;
    if (d->cc_major <= 0 || d->sm_count <= 0) {
        say(ERR, "device %d reports no compute capability or SMs", ordinal);
        return CUTE_ERR_NO_DRIVER;
    }
    return CUTE_OK;
}

/* everything after dlopen; a failure leaves the reason in last_error */
static cute_status init(cute_cuda *cu, int ordinal)
{
    CUresult r = cu->Init(0);
    if (r != 0) {
        char why[256];
        describe(cu, r, why, sizeof why);
        say(ERR, "cuInit: %s: no usable NVIDIA GPU", why);
        return CUTE_ERR_NO_DRIVER;
    }
    cu->initialized = true;
    cute_status s = check(cu, cu->DeviceGetCount(&cu->ndevices), "cuDeviceGetCount");
    if (s != CUTE_OK) return s;
    if (ordinal < 0 || ordinal >= cu->ndevices) {
        say(ERR, "no CUDA device %d (there %s %d)", ordinal,
            cu->ndevices == 1 ? "is" : "are", cu->ndevices);
        return CUTE_ERR_NO_DRIVER;
    }
    if ((s = check(cu, cu->DeviceGet(&cu->dev, ordinal), "cuDeviceGet")) != CUTE_OK) return s;
    if ((s = query_device(cu, ordinal)) != CUTE_OK) return s;
    s = check(cu, cu->DevicePrimaryCtxRetain(&cu->ctx, cu->dev), "cuDevicePrimaryCtxRetain");
    if (s != CUTE_OK) return s;
    return bind(cu);
}

cute_status cute_cuda_open(const cute_cuda_opts *o, cute_cuda **out, char *err, size_t n)
{
    cute_cuda_opts def = {.libcuda = NULL};
    if (!o) o = &def;
    *out = NULL;
    cute_cuda *cu = calloc(1, sizeof *cu);
    if (!cu) {
        say(err, n, "out of memory");
        return CUTE_ERR_OOM;
    }
    dynlib dl;
    if (!dynlib_open(&libcuda, o->libcuda, &dl, cu, ERR)) {
        say(err, n, "%s", last_error);
        free(cu);
        return CUTE_ERR_NO_DRIVER;
    }
    cu->lib = dl.so;
    hide_listed(cu, o->hide);
    cute_status s = init(cu, o->device);
    if (s != CUTE_OK) {
        say(err, n, "%s", last_error);
        cute_cuda_close(cu);
        return s;
    }
    *out = cu;
    return CUTE_OK;
}

void cute_cuda_close(cute_cuda *cu)
{
    if (!cu) return;
    if (cu->ctx) cu->DevicePrimaryCtxRelease(cu->dev);
    /* An initialized libcuda has threads and exit handlers of its own; unloading it under
     * them is a known way to crash at exit.  It stays mapped (one reference), as the CUDA
     * runtime itself does. */
    if (!cu->initialized) dlclose(cu->lib);
    free(cu);
}

const cute_device_info *cute_cuda_device(const cute_cuda *cu)
{
    return &cu->info;
}
const char *cute_cuda_error(const cute_cuda *cu)
{
    (void)cu;
    return last_error;
}
int cute_cuda_device_count(const cute_cuda *cu)
{
    return cu ? cu->ndevices : 0;
}

/* --- the wrappers: bind, call, check -------------------------------------------------- */
#define CALL(cu, expr, what)                                                                       \
    do {                                                                                           \
        cute_status s_ = bind(cu);                                                                 \
        if (s_ != CUTE_OK) return s_;                                                              \
        return check(cu, (expr), what);                                                            \
    } while (0)

cute_status cute_cuda_alloc(cute_cuda *cu, size_t bytes, cute_devptr *out)
{
    CUdeviceptr p = 0;
    cute_status s = bind(cu);
    if (s == CUTE_OK) s = check(cu, cu->MemAlloc(&p, bytes), "cuMemAlloc");
    *out = s == CUTE_OK ? (cute_devptr)p : 0;
    return s;
}

cute_status cute_cuda_free(cute_cuda *cu, cute_devptr p)
{
    CALL(cu, cu->MemFree((CUdeviceptr)p), "cuMemFree");
}

cute_status cute_cuda_copy_htod(cute_cuda *cu, cute_devptr dst, const void *src, size_t n)
{
    CALL(cu, cu->MemcpyHtoD((CUdeviceptr)dst, src, n), "cuMemcpyHtoD");
}

cute_status cute_cuda_copy_dtoh(cute_cuda *cu, void *dst, cute_devptr src, size_t n)
{
    CALL(cu, cu->MemcpyDtoH(dst, (CUdeviceptr)src, n), "cuMemcpyDtoH");
}

cute_status cute_cuda_copy_dtod(cute_cuda *cu, cute_devptr dst, cute_devptr src, size_t n)
{
    CALL(cu, cu->MemcpyDtoD((CUdeviceptr)dst, (CUdeviceptr)src, n), "cuMemcpyDtoD");
}

cute_status cute_cuda_copy_htod_async(cute_cuda *cu, cute_devptr dst, const void *src, size_t n,
                                      void *stream)
{
    CALL(cu, cu->MemcpyHtoDAsync((CUdeviceptr)dst, src, n, stream), "cuMemcpyHtoDAsync");
}

cute_status cute_cuda_copy_dtoh_async(cute_cuda *cu, void *dst, cute_devptr src, size_t n,
                                      void *stream)
{
    CALL(cu, cu->MemcpyDtoHAsync(dst, (CUdeviceptr)src, n, stream), "cuMemcpyDtoHAsync");
}

cute_status cute_cuda_copy_dtod_async(cute_cuda *cu, cute_devptr dst, cute_devptr src, size_t n,
                                      void *stream)
{
    CALL(cu, cu->MemcpyDtoDAsync((CUdeviceptr)dst, (CUdeviceptr)src, n, stream),
         "cuMemcpyDtoDAsync");
}

cute_status cute_cuda_memset8(cute_cuda *cu, cute_devptr dst, uint8_t value, size_t n)
{
    CALL(cu, cu->MemsetD8((CUdeviceptr)dst, value, n), "cuMemsetD8");
}

cute_status cute_cuda_mem_info(cute_cuda *cu, size_t *free_bytes, size_t *total_bytes)
{
    CALL(cu, cu->MemGetInfo(free_bytes, total_bytes), "cuMemGetInfo");
}

cute_status cute_cuda_stream_new(cute_cuda *cu, void **stream)
{
    CUstream s = NULL;
    cute_status st = bind(cu);
    if (st == CUTE_OK)
        st = check(cu, cu->StreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    *stream = s;
    return st;
}

cute_status cute_cuda_stream_free(cute_cuda *cu, void *stream)
{
    CALL(cu, cu->StreamDestroy(stream), "cuStreamDestroy");
}

cute_status cute_cuda_stream_sync(cute_cuda *cu, void *stream)
{
    if (!stream) return cute_cuda_sync(cu);
    CALL(cu, cu->StreamSynchronize(stream), "cuStreamSynchronize");
}

cute_status cute_cuda_sync(cute_cuda *cu)
{
    CALL(cu, cu->CtxSynchronize(), "cuCtxSynchronize");
}

static cute_status event_new(cute_cuda *cu, void **event, unsigned flags)
{
    CUevent e = NULL;
    cute_status st = bind(cu);
    if (st == CUTE_OK) st = check(cu, cu->EventCreate(&e, flags), "cuEventCreate");
    *event = e;
    return st;
}

cute_status cute_cuda_event_new(cute_cuda *cu, void **event) { return event_new(cu, event, CU_EVENT_DEFAULT); }

cute_status cute_cuda_event_new_untimed(cute_cuda *cu, void **event)
{
    return event_new(cu, event, CU_EVENT_DISABLE_TIMING);
}

cute_status cute_cuda_event_free(cute_cuda *cu, void *event)
{
    CALL(cu, cu->EventDestroy(event), "cuEventDestroy");
}

cute_status cute_cuda_event_record(cute_cuda *cu, void *event, void *stream)
{
    CALL(cu, cu->EventRecord(event, stream), "cuEventRecord");
}

cute_status cute_cuda_event_sync(cute_cuda *cu, void *event)
{
    CALL(cu, cu->EventSynchronize(event), "cuEventSynchronize");
}

cute_status cute_cuda_event_elapsed(cute_cuda *cu, void *a, void *b, float *ms)
{
    CALL(cu, cu->EventElapsedTime(ms, a, b), "cuEventElapsedTime");
}

cute_status cute_cuda_module_load(cute_cuda *cu, const void *image, void **module)
{
    CUmodule m = NULL;
    cute_status s = bind(cu);
    if (s == CUTE_OK) s = check(cu, cu->ModuleLoadData(&m, image), "cuModuleLoadData");
    *module = m;
    return s;
}

/* cuLinkCreate's options (cuda.h's CUjit_option) and input type */
enum { JIT_INFO_LOG = 3, JIT_INFO_LOG_SIZE = 4, JIT_ERROR_LOG = 5, JIT_ERROR_LOG_SIZE = 6,
       JIT_OPTIMIZATION_LEVEL = 7, JIT_LOG_VERBOSE = 12, JIT_INPUT_PTX = 1 };

/* ptxas's words after the error already in last_error, as much as fits */
static void append_jit_log(const char *elog)
{
    size_t at = strlen(last_error);
    if (elog[0] && at + 3 < sizeof last_error) {
        memcpy(last_error + at, ": ", 2);
        size_t room = sizeof last_error - at - 3, n = strnlen(elog, room);
        memcpy(last_error + at + 2, elog, n);
        last_error[at + 2 + n] = '\0';
    }
}

cute_status cute_cuda_module_load_ptx(cute_cuda *cu, const char *ptx, int opt_level, void **module, char *log,
                                      size_t logn)
{
    *module = NULL;
    if (logn) log[0] = 0;
    if (!cu->ModuleLoadDataEx) {
        say(ERR, "this driver has no cuModuleLoadDataEx");
        return CUTE_ERR_NO_DRIVER;
    }
    static _Thread_local char elog[4096];
    elog[0] = 0;
    int opts[] = {JIT_ERROR_LOG, JIT_ERROR_LOG_SIZE, JIT_OPTIMIZATION_LEVEL, JIT_INFO_LOG, JIT_INFO_LOG_SIZE,
                  JIT_LOG_VERBOSE};
    void *vals[] = {elog, (void *)(uintptr_t)sizeof elog, (void *)(uintptr_t)(unsigned)opt_level, log,
                    (void *)(uintptr_t)logn, (void *)(uintptr_t)1};
    CUmodule m = NULL;
    cute_status s = bind(cu);
    if (s == CUTE_OK)
        s = check(cu, cu->ModuleLoadDataEx(&m, ptx, logn ? 6u : 3u, opts, vals), "cuModuleLoadDataEx (PTX)");
    if (s != CUTE_OK) append_jit_log(elog);
    *module = s == CUTE_OK ? m : NULL;
    return s;
}

cute_status cute_cuda_link_ptx(cute_cuda *cu, const char *ptx, int opt_level, void **cubin,
                               size_t *cubin_len, char *log, size_t logn)
{
    *cubin = NULL, *cubin_len = 0;
    if (logn) log[0] = 0;
    if (!cu->LinkCreate || !cu->LinkAddData || !cu->LinkComplete || !cu->LinkDestroy) {
        say(ERR, "this driver has no cuLinkCreate_v2 (the JIT linker)");
        return CUTE_ERR_NO_DRIVER;
    }
    static _Thread_local char elog[4096];
    elog[0] = 0;
    int opts[] = {JIT_INFO_LOG, JIT_INFO_LOG_SIZE, JIT_ERROR_LOG, JIT_ERROR_LOG_SIZE,
                  JIT_OPTIMIZATION_LEVEL, JIT_LOG_VERBOSE};
    void *vals[] = {log, (void *)(uintptr_t)logn, elog, (void *)(uintptr_t)sizeof elog,
                    (void *)(uintptr_t)(unsigned)opt_level, (void *)(uintptr_t)1};
    int nopts = logn ? 6 : 4;
    void *st = NULL;
    cute_status s = bind(cu);
    if (s == CUTE_OK)
        s = check(cu, cu->LinkCreate((unsigned)nopts, logn ? opts : opts + 2, logn ? vals : vals + 2, &st),
                  "cuLinkCreate");
    if (s == CUTE_OK)
        s = check(cu, cu->LinkAddData(st, JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, "cutec.ptx", 0, NULL, NULL),
                  "cuLinkAddData (PTX)");
    void *image = NULL;
    size_t len = 0;
    if (s == CUTE_OK) s = check(cu, cu->LinkComplete(st, &image, &len), "cuLinkComplete");
    if (s != CUTE_OK) append_jit_log(elog); /* ptxas's words */
    if (s == CUTE_OK && !(*cubin = malloc(len))) s = CUTE_ERR_OOM;
    if (s == CUTE_OK) memcpy(*cubin, image, len), *cubin_len = len;
    if (st) cu->LinkDestroy(st);
    return s;
}

cute_status cute_cuda_module_unload(cute_cuda *cu, void *module)
{
    CALL(cu, cu->ModuleUnload(module), "cuModuleUnload");
}

cute_status cute_cuda_module_function(cute_cuda *cu, void *module, const char *name, void **func)
{
    CUfunction f = NULL;
    cute_status s = bind(cu);
    if (s == CUTE_OK) s = check(cu, cu->ModuleGetFunction(&f, module, name), "cuModuleGetFunction");
    if (s != CUTE_OK) {
        size_t len = strlen(last_error);
        say(last_error + len, sizeof last_error - len, " for kernel \"%s\"", name);
    }
    *func = f;
    return s;
}

cute_status cute_cuda_func_max_dynamic_smem(cute_cuda *cu, void *func, int bytes)
{
    CALL(cu, cu->FuncSetAttribute(func, FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
         "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
}

cute_status cute_cuda_func_allow_large_clusters(cute_cuda *cu, void *func)
{
    CALL(cu, cu->FuncSetAttribute(func, FUNC_ATTR_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
         "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)");
}

cute_status cute_cuda_func_usage(cute_cuda *cu, void *func, int *regs, int *static_smem)
{
    cute_status s = bind(cu);
    if (s == CUTE_OK && regs)
        s = check(cu, cu->FuncGetAttribute(regs, FUNC_ATTR_NUM_REGS, func), "cuFuncGetAttribute");
    if (s == CUTE_OK && static_smem)
        s = check(cu, cu->FuncGetAttribute(static_smem, FUNC_ATTR_SHARED_SIZE_BYTES, func),
                  "cuFuncGetAttribute");
    return s;
}

cute_status cute_cuda_launch(cute_cuda *cu, void *func, cute_dim3 grid, cute_dim3 block,
                             uint32_t smem_bytes, void *stream, void **params)
{
    CALL(cu,
         cu->LaunchKernel(func, grid.x, grid.y, grid.z, block.x, block.y, block.z, smem_bytes,
                          stream, params, NULL),
         "cuLaunchKernel");
}

/* --- entry points an older driver may lack ----------------------------------------------- */

static cute_status missing(const char *entry, const char *what)
{
    say(ERR, "%s needs %s, which this driver lacks (CUDA 12.0 or later)", what, entry);
    return CUTE_ERR_UNSUPPORTED;
}

static CUlaunchConfig launch_config(cute_dim3 grid, cute_dim3 block, uint32_t smem, void *stream,
                                    CUlaunchAttribute *attrs, unsigned n)
{
    return (CUlaunchConfig){grid.x, grid.y, grid.z, block.x, block.y, block.z, smem, stream, attrs, n};
}

static CUlaunchAttribute cluster_attr(cute_dim3 c)
{
    CUlaunchAttribute a;
    memset(&a, 0, sizeof a);
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim.x = c.x, a.value.clusterDim.y = c.y, a.value.clusterDim.z = c.z;
    return a;
}

cute_status cute_cuda_launch_ex(cute_cuda *cu, void *func, cute_dim3 grid, cute_dim3 block, cute_dim3 cluster,
                                bool pdl, uint32_t smem_bytes, void *stream, void **params)
{
    bool clustered = cluster.x || cluster.y || cluster.z;
    if (!cu->LaunchKernelEx && !clustered) /* PDL only overlaps: the kernel's wait returns at once */
        return cute_cuda_launch(cu, func, grid, block, smem_bytes, stream, params);
    if (!cu->LaunchKernelEx) return missing("cuLaunchKernelEx", "a launch in thread-block clusters");
    CUlaunchAttribute a[2];
    unsigned n = 0;
    if (clustered) a[n++] = cluster_attr(cluster);
    if (pdl) {
        memset(&a[n], 0, sizeof a[n]);
        a[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        a[n++].value.programmaticStreamSerializationAllowed = 1;
    }
    CUlaunchConfig c = launch_config(grid, block, smem_bytes, stream, a, n);
    CALL(cu, cu->LaunchKernelEx(&c, func, params, NULL), "cuLaunchKernelEx");
}

cute_status cute_cuda_launch_cluster(cute_cuda *cu, void *func, cute_dim3 grid, cute_dim3 block,
                                     cute_dim3 cluster, uint32_t smem_bytes, void *stream,
                                     void **params)
{
    return cute_cuda_launch_ex(cu, func, grid, block, cluster, false, smem_bytes, stream, params);
}

cute_status cute_cuda_max_active_clusters(cute_cuda *cu, void *func, cute_dim3 grid,
                                          cute_dim3 block, cute_dim3 cluster, uint32_t smem_bytes,
                                          int *out)
{
    *out = 0;
    if (!cu->OccupancyMaxActiveClusters)
        return missing("cuOccupancyMaxActiveClusters", "the cluster occupancy query");
    CUlaunchAttribute a = cluster_attr(cluster);
    CUlaunchConfig c = launch_config(grid, block, smem_bytes, NULL, &a, 1);
    CALL(cu, cu->OccupancyMaxActiveClusters(out, func, &c), "cuOccupancyMaxActiveClusters");
}

cute_status cute_cuda_tensor_map_encode_tiled(cute_cuda *cu, const cute_tensor_map_desc *d,
                                              void *map)
{
    if (!cu->TensorMapEncodeTiled)
        return missing("cuTensorMapEncodeTiled", "a tensor map (TMA)");
    if ((uintptr_t)map % 64)
        return say(ERR, "a tensor map must be 64-byte aligned"),
               CUTE_ERR_INVALID;
    CALL(cu,
         cu->TensorMapEncodeTiled(map, d->data_type, d->rank, d->address, d->dims,
                                  d->strides_bytes, d->box, d->element_strides, d->interleave,
                                  d->swizzle, d->l2_promotion, d->oob_fill),
         "cuTensorMapEncodeTiled");
}

bool cute_cuda_has(const cute_cuda *cu, const char *entry)
{
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
        if (strcmp(syms[i].name, entry) == 0) {
            void *p;
            memcpy(&p, (const char *)cu + syms[i].at, sizeof p);
            return p != NULL;
        }
    return false;
}

/* --- peer memory: one device's memory that the devices of a group all reach ------------- */

static CUmemAllocationProp pinned_on(int ordinal)
{
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location = (CUmemLocation){CU_MEM_LOCATION_TYPE_DEVICE, ordinal};
    return p;
}

/* reserve, map and open the range to every device; on failure undo what was done */
static cute_status map_for(cute_cuda *cu, unsigned long long h, size_t bytes, size_t gran,
                           const int *devs, int ndevs, CUdeviceptr *p)
{
    cute_status s = check(cu, cu->MemAddressReserve(p, bytes, gran, 0, 0), "cuMemAddressReserve");
    if (s != CUTE_OK) return s;
    s = check(cu, cu->MemMap(*p, bytes, 0, h, 0), "cuMemMap");
    if (s != CUTE_OK) return cu->MemAddressFree(*p, bytes), s;
    CUmemAccessDesc d[32];
    for (int i = 0; i < ndevs; i++)
        d[i] = (CUmemAccessDesc){{CU_MEM_LOCATION_TYPE_DEVICE, devs[i]}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    s = check(cu, cu->MemSetAccess(*p, bytes, d, (size_t)ndevs), "cuMemSetAccess");
    if (s != CUTE_OK) cu->MemUnmap(*p, bytes), cu->MemAddressFree(*p, bytes);
    return s;
}

cute_status cute_cuda_alloc_peer(cute_cuda *cu, size_t bytes, const int *devs, int ndevs,
                                 cute_devptr *out, size_t *mapped)
{
    *out = 0, *mapped = 0;
    if (!cu->MemCreate || !cu->MemMap || !cu->MemSetAccess || !cu->MemAddressReserve)
        return missing("cuMemCreate", "memory that other GPUs reach (the virtual-memory API)");
    if (ndevs < 1 || ndevs > 32)
        return say(ERR, "cute_cuda_alloc_peer: %d devices (1 to 32)", ndevs), CUTE_ERR_INVALID;
    cute_status s = bind(cu);
    CUmemAllocationProp prop = pinned_on(cu->info.ordinal);
    size_t gran = 0;
    if (s == CUTE_OK)
        s = check(cu, cu->MemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
                  "cuMemGetAllocationGranularity");
    if (s != CUTE_OK) return s;
    size_t size = (bytes + gran - 1) / gran * gran;
    unsigned long long h = 0;
    if ((s = check(cu, cu->MemCreate(&h, size, &prop, 0), "cuMemCreate")) != CUTE_OK) return s;
    CUdeviceptr p = 0;
    s = map_for(cu, h, size, gran, devs, ndevs, &p);
    cu->MemRelease(h); /* the mapping keeps the memory until it is unmapped */
    if (s == CUTE_OK) *out = (cute_devptr)p, *mapped = size;
    return s;
}

cute_status cute_cuda_free_peer(cute_cuda *cu, cute_devptr p, size_t mapped)
{
    if (!p) return CUTE_OK;
    cute_status s = bind(cu);
    if (s == CUTE_OK) s = check(cu, cu->MemUnmap((CUdeviceptr)p, mapped), "cuMemUnmap");
    if (s == CUTE_OK) s = check(cu, cu->MemAddressFree((CUdeviceptr)p, mapped), "cuMemAddressFree");
    return s;
}

cute_status cute_cuda_stream_wait_event(cute_cuda *cu, void *stream, void *event)
{
    if (!cu->StreamWaitEvent) return missing("cuStreamWaitEvent", "ordering streams by events");
    CALL(cu, cu->StreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

cute_status cute_cuda_stream_write_u32(cute_cuda *cu, void *stream, cute_devptr dst, uint32_t value)
{
    if (!cu->StreamWriteValue32) return missing("cuStreamWriteValue32_v2", "flags written by a stream");
    CALL(cu, cu->StreamWriteValue32(stream, (CUdeviceptr)dst, value, 0), "cuStreamWriteValue32");
}
