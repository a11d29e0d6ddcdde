/* cutec/jit.h — compile a host function once, call it many times (CuTe DSL's cute.compile,
 * @cute.jit, .launch).
 *
 *   static void add_host(cute_ctx *c, const cute_arg *a)     // runs at trace time
 *   {
 *       cute_tensor mA = a[0].tensor, ...;                     // dynamic leaves are unknowns
 *       ... layouts, tilers ...
 *       CUTE_LAUNCH(c, add_kernel, ((cute_launch_cfg){.grid = {n}, .block = {cute_i(128)}}),
 *                   gA, gB, gC);                               // traces add_kernel
 *   }
 *   cute_arg_spec specs[3] = {cute_spec_tensor(CUTE_F16, "(?,?):(?{div=8},1)", 16), ...};
 *   const cute_fn *f = cute_compile(rt, "add", add_host, NULL, 3, specs, err, sizeof err);
 *   cute_call(f, stream, 3, args, err, sizeof err);            // checks args, launches
 *
 * A spec says which leaves are static (a number) and which are dynamic ('?', '?{div=N}':
 * a launch-time unknown known to be a multiple of N), and the pointer's assumed alignment
 * (CuTe DSL's mark_layout_dynamic / assumed_align).  CUTE_LAUNCH records, for each kernel,
 * its grid/block/shared-memory as expressions of the arguments and which argument values
 * become which kernel parameters; each cute_call evaluates them for its arguments.  Arguments that contradict the
 * spec (another static extent, a stride not divisible as promised, a misaligned pointer, a
 * dtype or rank mismatch) are an error, never a wrong run.
 */
#ifndef CUTEC_JIT_H
#define CUTEC_JIT_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/backend.h"
#include "cutec/tensor.h"
#include "cutec/tma.h"
#include "cutec/trace.h"

/* --- the backends cutec has: a registry, in the order the automatic choice tries them ---- */
typedef struct cute_backend_info {
    const char *name; /* "cuda", "interp" */
    const char *what; /* one line, for listings */
    bool gpu;         /* runs kernels on a GPU (buffers are device memory) */
    bool interprets;  /* runs them on the CPU with the interpreter's checks */
    cute_status (*open)(cute_backend *out, char *err, size_t n);
} cute_backend_info;
int cute_backend_count(void);
const cute_backend_info *cute_backend_at(int i);        /* NULL out of range */
const cute_backend_info *cute_backend_find(const char *name); /* NULL: no such backend */

/* --- the runtime: one backend, chosen at creation ------------------------------------ */
typedef struct cute_runtime cute_runtime;
/* backend: a registry name ("cuda", "interp"), or NULL for $CUTEC_BACKEND, else the first
 * of the registry that opens: cuda when a GPU is present, else the interpreter.  err gets
 * why a requested backend is unavailable. */
cute_status cute_runtime_new(const char *backend, cute_runtime **out, char *err, size_t n);
void cute_runtime_free(cute_runtime *rt);
cute_backend *cute_runtime_backend(cute_runtime *rt);
const char *cute_runtime_backend_name(const cute_runtime *rt);
bool cute_runtime_on_gpu(const cute_runtime *rt);     /* its backend's cute_backend_info.gpu */
bool cute_runtime_interprets(const cute_runtime *rt); /* ... and .interprets */
/* register a backend-specific runtime: for tests and for the CUDA/interp constructors */
cute_runtime *cute_runtime_wrap(cute_backend b);
/* the SM version compiles on rt target (80, 90; 0: not known, e.g. the interpreter without
 * CUTEC_ARCH): atoms that need a newer one are refused while tracing */
int cute_runtime_target_arch(const cute_runtime *rt);
/* compile for arch ("sm_80", "sm_90a") instead: what `cutec compile --arch` traces for */
void cute_runtime_set_target_arch(cute_runtime *rt, const char *arch);

/* --- arguments ------------------------------------------------------------------------ */
typedef enum { CUTE_ARG_TENSOR, CUTE_ARG_INT, CUTE_ARG_FLOAT } cute_arg_kind;

typedef struct cute_arg_spec {
    uint8_t kind;    /* cute_arg_kind */
    uint8_t dtype;   /* tensor elements / scalar type */
    int align;       /* tensors: assumed byte alignment of the data pointer */
    char layout[256];/* tensors: "(?,?):(?{div=8},1)"; INT: "?" or "?{div=N}" or a number */
    uint8_t compact; /* tensors: 0 layout text; 1 the text is a shape, compact column-major
                        (strides follow from the extents, as mark_compact_shape_dynamic);
                        2 likewise row-major */
    uint8_t may_alias; /* tensors: 1 when this tensor may share memory with another argument
                          (an in-place call).  Where no spec says so, the kernels' pointers
                          are __restrict__ and cute_call refuses a call in which a tensor
                          the kernels write overlaps another argument. */
    uint8_t strides_of; /* tensors: 1 + the index of an earlier tensor argument whose strides
                           this one's must equal (where its extent is above 1): the kernels
                           address both with one set of offsets, as the attention kernels do K
                           and V.  cute_call and the exported launcher refuse a call whose
                           strides differ.  0: none. */
} cute_arg_spec;

cute_arg_spec cute_spec_tensor(cute_dtype d, const char *layout, int align_bytes);
/* compact tensors: only the shape is given ("(?,?{div=8})"); row_major picks the order */
cute_arg_spec cute_spec_tensor_compact(cute_dtype d, const char *shape, bool row_major,
                                       int align_bytes);
cute_arg_spec cute_spec_int(const char *value);   /* "?", "?{div=16}" */
cute_arg_spec cute_spec_float(cute_dtype d);      /* a dynamic float scalar */

/* A host scalar float argument (becomes a kernel parameter when passed to CUTE_LAUNCH). */
typedef struct cute_host_scalar {
    int arg;
    uint8_t dtype;
} cute_host_scalar;

/* What the host function receives for each spec. */
typedef struct cute_arg {
    uint8_t kind;
    cute_tensor tensor;  /* CUTE_ARG_TENSOR */
    cute_int i;          /* CUTE_ARG_INT */
    cute_host_scalar f;  /* CUTE_ARG_FLOAT */
} cute_arg;

typedef void (*cute_host_fn)(cute_ctx *c, const cute_arg *args);

/* --- launches (inside a host function) ------------------------------------------------ */
typedef struct cute_launch_cfg {
    cute_int grid[3], block[3]; /* a zero (unset) entry counts as 1 */
    cute_int smem_bytes;
    cute_int cluster[3]; /* thread blocks per cluster (sm_90), each dividing the grid's extent
                            (CuTe DSL's launch(cluster=)); all unset: no cluster, else an unset
                            entry counts as 1.  Static: compiled into the kernel
                            (__cluster_dims__); dynamic: given at each launch. */
    bool pdl;            /* programmatic dependent launch (sm_90): the grid may start while the
                            stream's previous kernel drains.  The kernel must then execute
                            cute_griddepcontrol_wait before it reads what an earlier kernel
                            writes and before its own first global write (cutec/sync.h). */
} cute_launch_cfg;

/* A by-value opaque kernel parameter built at each call: today a TMA descriptor (CUTE_TMAP,
 * a CUtensorMap of 128 bytes, passed as a __grid_constant__ parameter).  At each call, after
 * the arguments are checked and before any launch (the call's prepare step, on the calling
 * thread), build() writes the 128 bytes into out (64-byte aligned) from the call's arguments,
 * e.g. with cute_cuda_tensor_map_encode_tiled (cutec/cuda_driver.h).  A failure fails the call
 * with build's message. */
struct cute_call_arg; /* below */
typedef cute_status (*cute_opaque_build)(void *user, cute_runtime *rt,
                                         const struct cute_call_arg *args, int nargs, void *out,
                                         char *err, size_t n);
typedef struct cute_host_opaque {
    int index; /* the compile's opaque parameter */
} cute_host_opaque;
/* in a host function: a tensor-map parameter that build makes at each call (at most 8 per
 * function); passed to CUTE_LAUNCH, the kernel receives a cute_val of type tmap, whose
 * address asm operands take (cp.async.bulk.tensor, prefetch.tensormap) */
cute_host_opaque cute_host_tensor_map(cute_ctx *c, cute_opaque_build build, void *user);

/* A tensor map of a tensor argument, made at each call by the library (docs/tma.md): TMA
 * dimension j is the argument's mode mode[j] (mode[0] must have stride 1: the contiguous
 * one), box[j] elements of it per copy.  The argument's other modes must have extent 1.
 * Checked when the host function runs (the box against the driver's rules, a static stride
 * of mode[0] other than 1) and at each call (the extents and strides the call passes). */
typedef struct cute_tma_map_spec {
    int arg;                         /* the host function's tensor argument */
    int rank;                        /* 1 to 5 */
    int mode[CUTE_TMA_MAX_RANK];
    uint32_t box[CUTE_TMA_MAX_RANK];
    cute_tma_swizzle swizzle;
    cute_tma_l2 l2;
    cute_tma_oob oob;
} cute_tma_map_spec;
cute_host_opaque cute_host_tma_map(cute_ctx *c, const cute_tma_map_spec *s);

bool cute__launch_begin(cute_ctx *c, const char *kernel, cute_launch_cfg cfg, const char *file,
                        int line);
void cute__launch_end(cute_ctx *c);
cute_tensor cute__karg_tensor(cute_ctx *c, cute_tensor t);
cute_int cute__karg_int(cute_ctx *c, cute_int x);
cute_layout cute__karg_layout(cute_ctx *c, cute_layout L);
cute_val cute__karg_scalar(cute_ctx *c, cute_host_scalar s);
cute_val cute__karg_opaque(cute_ctx *c, cute_host_opaque h);

#define CUTE__KARG(c, x)                                                                    \
    _Generic((x), cute_tensor: cute__karg_tensor, cute_int: cute__karg_int,                 \
             cute_layout: cute__karg_layout, cute_host_scalar: cute__karg_scalar,           \
             cute_host_opaque: cute__karg_opaque)((c), (x))
#define CUTE__K1(c, a) CUTE__KARG(c, a)
#define CUTE__K2(c, a, ...) CUTE__KARG(c, a), CUTE__K1(c, __VA_ARGS__)
#define CUTE__K3(c, a, ...) CUTE__KARG(c, a), CUTE__K2(c, __VA_ARGS__)
#define CUTE__K4(c, a, ...) CUTE__KARG(c, a), CUTE__K3(c, __VA_ARGS__)
#define CUTE__K5(c, a, ...) CUTE__KARG(c, a), CUTE__K4(c, __VA_ARGS__)
#define CUTE__K6(c, a, ...) CUTE__KARG(c, a), CUTE__K5(c, __VA_ARGS__)
#define CUTE__K7(c, a, ...) CUTE__KARG(c, a), CUTE__K6(c, __VA_ARGS__)
#define CUTE__K8(c, a, ...) CUTE__KARG(c, a), CUTE__K7(c, __VA_ARGS__)
#define CUTE__K9(c, a, ...) CUTE__KARG(c, a), CUTE__K8(c, __VA_ARGS__)
#define CUTE__K10(c, a, ...) CUTE__KARG(c, a), CUTE__K9(c, __VA_ARGS__)
#define CUTE__K11(c, a, ...) CUTE__KARG(c, a), CUTE__K10(c, __VA_ARGS__)
#define CUTE__K12(c, a, ...) CUTE__KARG(c, a), CUTE__K11(c, __VA_ARGS__)
#define CUTE__K13(c, a, ...) CUTE__KARG(c, a), CUTE__K12(c, __VA_ARGS__)
#define CUTE__K14(c, a, ...) CUTE__KARG(c, a), CUTE__K13(c, __VA_ARGS__)
#define CUTE__K15(c, a, ...) CUTE__KARG(c, a), CUTE__K14(c, __VA_ARGS__)
#define CUTE__K16(c, a, ...) CUTE__KARG(c, a), CUTE__K15(c, __VA_ARGS__)
#define CUTE__K17(c, a, ...) CUTE__KARG(c, a), CUTE__K16(c, __VA_ARGS__)
#define CUTE__K18(c, a, ...) CUTE__KARG(c, a), CUTE__K17(c, __VA_ARGS__)
#define CUTE__K19(c, a, ...) CUTE__KARG(c, a), CUTE__K18(c, __VA_ARGS__)
#define CUTE__K20(c, a, ...) CUTE__KARG(c, a), CUTE__K19(c, __VA_ARGS__)
#define CUTE__K21(c, a, ...) CUTE__KARG(c, a), CUTE__K20(c, __VA_ARGS__)
#define CUTE__K22(c, a, ...) CUTE__KARG(c, a), CUTE__K21(c, __VA_ARGS__)
#define CUTE__K23(c, a, ...) CUTE__KARG(c, a), CUTE__K22(c, __VA_ARGS__)
#define CUTE__K24(c, a, ...) CUTE__KARG(c, a), CUTE__K23(c, __VA_ARGS__)
#define CUTE__NTH(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, \
                  _22, _23, _24, N, ...)                                                     \
    N
#define CUTE__KARGS(c, ...)                                                                  \
    CUTE__NTH(__VA_ARGS__, CUTE__K24, CUTE__K23, CUTE__K22, CUTE__K21, CUTE__K20, CUTE__K19, CUTE__K18, CUTE__K17, CUTE__K16, CUTE__K15, \
              CUTE__K14, CUTE__K13, CUTE__K12, CUTE__K11, CUTE__K10, CUTE__K9, CUTE__K8,     \
              CUTE__K7, CUTE__K6, CUTE__K5, CUTE__K4, CUTE__K3, CUTE__K2, CUTE__K1, )(c, __VA_ARGS__)

/* CUTE_LAUNCH(c, kernel, cfg, args...): trace `kernel(c, args...)` as a kernel of this
 * compile, with each argument turned into its kernel-side value (dynamic leaves become
 * kernel parameters), and record the launch.  Up to 24 arguments: tensors, index ints,
 * layouts, host scalars. */
#define CUTE_LAUNCH(c, kernel, cfg, ...)                                                     \
    do {                                                                                     \
        if (cute__launch_begin((c), #kernel, (cfg), __FILE__, __LINE__)) {                   \
            kernel((c), CUTE__KARGS((c), __VA_ARGS__));                                      \
            cute__launch_end(c);                                                             \
        }                                                                                    \
    } while (0)

/* --- compiling and calling -----------------------------------------------------------
 * A compiled function is immutable: cute_compile traces the host function, compiles its
 * kernels and its launch recipes (a small program over the arguments' values), frees the
 * tracer and returns a const handle that no call writes to.  Each call keeps what it
 * computes (the argument values, the launch configurations, its error) in a frame of its
 * own, on the caller's stack.  So one cute_fn may be called from any number of threads at
 * once, on one runtime or several (both backends serialize what they share). */
typedef struct cute_fn cute_fn;

/* user: given back by cute_ctx_user(c) while the host function and its kernels trace */
const cute_fn *cute_compile(cute_runtime *rt, const char *name, cute_host_fn host, void *user,
                            int nargs, const cute_arg_spec *specs, char *err, size_t n);
/* no call of f may be running, or start after */
void cute_fn_free(const cute_fn *f);
/* the traced kernels (for --emit ir and tests) */
int cute_fn_kernel_count(const cute_fn *f);
const cute_ir_func *cute_fn_kernel(const cute_fn *f, int i);

/* The code of f's kernels, whatever the backend that runs them: what = "cuda" (the CUDA C
 * cutec generates, one translation unit), "ptx" (NVRTC's, for arch; NULL: $CUTEC_ARCH, else
 * sm_90a), "sass" (cuobjdump of NVRTC's cubin) or "usage" (ptxas's report of each kernel's
 * registers, spills and stack for arch, from NVRTC's log).  *out malloc'd; an error (no NVRTC, no
 * cuobjdump) with why in err.  CUTEC_KEEP=src,ptx,cubin,sass writes the same as files at
 * each compile, on the interpreter as on the GPU (docs/dsl.md). */
cute_status cute_fn_code(const cute_fn *f, const char *what, const char *arch, char **out,
                         char *err, size_t n);

/* A call's argument: a tensor in a buffer (element shape and strides), or a scalar. */
typedef struct cute_call_arg {
    uint8_t kind;
    uint8_t dtype;
    const cute_buffer *buf;
    size_t offset; /* bytes into buf */
    int ndim;
    int64_t shape[8], stride[8]; /* in elements */
    int64_t i;
    double f;
} cute_call_arg;

cute_call_arg cute_call_tensor(const cute_buffer *buf, size_t offset, cute_dtype d, int ndim,
                               const int64_t *shape, const int64_t *stride);
/* DLPack's DLTensor (dlpack.h, ABI version 0.8+), declared here so that no header is
 * needed: any framework's tensor can be handed in.  buf is the buffer the data lives in
 * (its extent is checked); data + byte_offset must lie inside it. */
typedef struct cute_dlpack_tensor {
    void *data;
    struct { int32_t device_type, device_id; } device;
    int32_t ndim;
    struct { uint8_t code, bits; uint16_t lanes; } dtype;
    int64_t *shape;
    int64_t *strides; /* NULL: compact row-major */
    uint64_t byte_offset;
} cute_dlpack_tensor;
/* a call argument from a DLTensor; false (and why, in err) for a dtype or rank cutec does
 * not take, or data outside buf */
bool cute_call_dlpack(const cute_dlpack_tensor *t, const cute_buffer *buf, cute_call_arg *out,
                      char *err, size_t n);
/* do two tensor arguments reach a common byte of one buffer (their extents, from the lowest
 * to the highest element, overlap)? */
bool cute_call_args_overlap(const cute_call_arg *a, const cute_call_arg *b);
/* is this tensor argument compact row-major (size-1 modes may have any stride)? */
bool cute_call_arg_row_major(const cute_call_arg *x);
/* the largest power of two up to `most` that the argument's data address is a multiple of */
int cute_call_arg_alignment(const cute_call_arg *x, int most);
cute_call_arg cute_call_int(int64_t v);
cute_call_arg cute_call_float(double v);

/* Check args against the specs, evaluate each launch's recipe, launch.  On a mismatch:
 * CUTE_ERR_INVALID and a message in err (n bytes; err may be NULL) naming the argument and
 * the leaf.  Thread-safe: see cute_compile. */
cute_status cute_call(const cute_fn *f, void *stream, int nargs, const cute_call_arg *args,
                      char *err, size_t n);

/* A call in two steps, to launch one prepared call again and again (a benchmark measuring
 * what the checks cost, a loop over the same arguments): prepare checks the arguments and
 * computes every launch into the frame; launch runs them.  A frame is one caller's (about
 * 20 KB, so it comes from cute_call_frame_new rather than the stack). */
typedef struct cute_call_frame cute_call_frame;
cute_call_frame *cute_call_frame_new(void); /* NULL when out of memory */
void cute_call_frame_free(cute_call_frame *fr);
cute_status cute_call_prepare(const cute_fn *f, cute_call_frame *fr, int nargs,
                              const cute_call_arg *args, char *err, size_t n);
cute_status cute_call_launch(const cute_fn *f, cute_call_frame *fr, void *stream, char *err,
                             size_t n);
/* the runtime a function was compiled for */
cute_runtime *cute_fn_runtime(const cute_fn *f);

/* sizeof a structure bindings copy ("cute_call_arg", "cute_buffer", "cute_dlpack_tensor",
 * "cute_backend_vtable");
 * 0 for another name.  python/ checks its ctypes mirrors with it. */
size_t cute_abi_sizeof(const char *type);

CUTE_API_END
#endif
