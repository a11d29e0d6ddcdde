/* fp8 (e4m3, e5m2) products through cublasLtMatmul, libcublasLt opened with dlopen on the
 * first fp8 call ($CUTEC_CUBLASLT, else libcublasLt.so[.13|.12|.11]).  cuBLASLt's fp8 kernels
 * take only "TN": A transposed, B not, i.e. both K-major in cutec's terms; the compute type
 * is f32, the per-tensor scales of A and B are left unset, which cuBLASLt reads as 1 (callers
 * fold scales into alpha, as cutec_gemm's contract says), C has the result's dtype.  Setting
 * them to device floats of 1 made every cublasLtMatmul answer NOT_SUPPORTED after a heuristic
 * that had found a kernel (seen on the H100 and H200, cuBLASLt 13.1). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cublas_internal.h"
#include "cli/gemm_cli.h"

typedef struct lt_desc_ *lt_desc;     /* cublasLtMatmulDesc_t */
typedef struct lt_layout_ *lt_layout; /* cublasLtMatrixLayout_t */
typedef struct lt_pref_ *lt_pref;     /* cublasLtMatmulPreference_t */
typedef struct lt_algo {              /* cublasLtMatmulAlgo_t */
    uint64_t data[8];
} lt_algo;
typedef struct lt_heuristic { /* cublasLtMatmulHeuristicResult_t */
    lt_algo algo;
    size_t workspace_bytes;
    cublas_status state;
    float waves;
    int reserved[4];
} lt_heuristic;

enum { /* cublasLtMatmulDescAttributes_t, cublasLtMatrixLayoutAttribute_t, preferences */
    DESC_TRANSA = 3, DESC_TRANSB = 4,
    LAYOUT_BATCH_COUNT = 5, LAYOUT_STRIDED_BATCH_OFFSET = 6, PREF_MAX_WORKSPACE_BYTES = 1,
};
enum { WORKSPACE_BYTES = 32 << 20 };

struct cublaslt {
    dynlib lib;
    cublaslt_handle handle;
    cute_devptr workspace; /* WORKSPACE_BYTES */
    cublas_status (*Create)(cublaslt_handle *);
    cublas_status (*Destroy)(cublaslt_handle);
    cublas_status (*DescCreate)(lt_desc *, int, int);
    cublas_status (*DescDestroy)(lt_desc);
    cublas_status (*DescSet)(lt_desc, int, const void *, size_t);
    cublas_status (*LayoutCreate)(lt_layout *, int, uint64_t, uint64_t, int64_t);
    cublas_status (*LayoutDestroy)(lt_layout);
    cublas_status (*LayoutSet)(lt_layout, int, const void *, size_t);
    cublas_status (*PrefCreate)(lt_pref *);
    cublas_status (*PrefDestroy)(lt_pref);
    cublas_status (*PrefSet)(lt_pref, int, const void *, size_t);
    cublas_status (*Heuristic)(cublaslt_handle, lt_desc, lt_layout, lt_layout, lt_layout, lt_layout,
                               lt_pref, int, lt_heuristic *, int *);
    cublas_status (*Matmul)(cublaslt_handle, lt_desc, const void *, const void *, lt_layout,
                            const void *, lt_layout, const void *, const void *, lt_layout, void *,
                            lt_layout, const lt_algo *, void *, size_t, void *);
};

#define SYM(f, name) DYNLIB_SYM(struct cublaslt, f, name)
static const dynlib_sym syms[] = {
    SYM(Create, "cublasLtCreate"), SYM(Destroy, "cublasLtDestroy"),
    SYM(DescCreate, "cublasLtMatmulDescCreate"), SYM(DescDestroy, "cublasLtMatmulDescDestroy"),
    SYM(DescSet, "cublasLtMatmulDescSetAttribute"), SYM(LayoutCreate, "cublasLtMatrixLayoutCreate"),
    SYM(LayoutDestroy, "cublasLtMatrixLayoutDestroy"), SYM(LayoutSet, "cublasLtMatrixLayoutSetAttribute"),
    SYM(PrefCreate, "cublasLtMatmulPreferenceCreate"), SYM(PrefDestroy, "cublasLtMatmulPreferenceDestroy"),
    SYM(PrefSet, "cublasLtMatmulPreferenceSetAttribute"), SYM(Heuristic, "cublasLtMatmulAlgoGetHeuristic"),
    SYM(Matmul, "cublasLtMatmul"),
};
#undef SYM

static const dynlib_spec cublaslt_lib = {
    .what = "cuBLASLt",
    .env = "CUTEC_CUBLASLT",
    .names = (const char *const[]){"libcublasLt.so", "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11",
                                   NULL},
    .dirs = cublas_dirs,
    .syms = syms,
    .nsyms = sizeof syms / sizeof syms[0],
    .hint = "install the CUDA toolkit's cuBLAS (it ships cuBLASLt) or set CUTEC_CUBLASLT to its path",
    .too_old = "not a cuBLASLt of 11 or later?",
};

static bool lt_load(cute_cublas *h, cublaslt *lt)
{
    if (!dynlib_open(&cublaslt_lib, NULL, &lt->lib, lt, h->err, sizeof h->err)) return false;
    if (cute_cuda_alloc(h->cu, WORKSPACE_BYTES, &lt->workspace) != CUTE_OK) {
        cublas_say(h->err, sizeof h->err, "cuBLASLt: %s", cute_cuda_error(h->cu));
        return false;
    }
    return !cublas_failed(h, lt->Create(&lt->handle), "cublasLtCreate");
}

/* the handle's cuBLASLt, loaded on first use; NULL (and h->err) if it cannot be */
static cublaslt *lt_of(cute_cublas *h)
{
    if (h->lt) return h->lt;
    cublaslt *lt = calloc(1, sizeof *lt);
    if (!lt) return cublas_say(h->err, sizeof h->err, "out of memory"), NULL;
    h->lt = lt;
    if (lt_load(h, lt)) return lt;
    char why[512];
    snprintf(why, sizeof why, "%s", h->err);
    cublaslt_close(h);
    snprintf(h->err, sizeof h->err, "%s", why);
    return NULL;
}

void cublaslt_close(cute_cublas *h)
{
    cublaslt *lt = h->lt;
    if (!lt) return;
    if (lt->handle) lt->Destroy(lt->handle);
    if (lt->workspace) cute_cuda_free(h->cu, lt->workspace);
    /* no dlclose, as for cuBLAS */
    free(lt);
    h->lt = NULL;
}

static int lt_type(cute_dtype d)
{
    switch (d) {
    case CUTE_F32: return CUDA_R_32F;
    case CUTE_F16: return CUDA_R_16F;
    case CUTE_BF16: return CUDA_R_16BF;
    case CUTE_E4M3: return CUDA_R_8F_E4M3;
    case CUTE_E5M2: return CUDA_R_8F_E5M2;
    default: return -1;
    }
}

/* a stored rows x cols matrix of L batches */
static cublas_status lt_layout_make(cublaslt *lt, lt_layout *out, int type, int64_t rows, int64_t cols,
                                    int64_t ld, int64_t l, int64_t lstride)
{
    cublas_status s = lt->LayoutCreate(out, type, (uint64_t)rows, (uint64_t)cols, ld);
    int32_t count = (int32_t)l;
    if (s == 0 && l > 1) s = lt->LayoutSet(*out, LAYOUT_BATCH_COUNT, &count, sizeof count);
    if (s == 0 && l > 1) s = lt->LayoutSet(*out, LAYOUT_STRIDED_BATCH_OFFSET, &lstride, sizeof lstride);
    return s;
}

typedef struct lt_call {
    lt_desc desc;
    lt_layout a, b, c;
    lt_pref pref;
} lt_call;

static cublas_status lt_describe(cublaslt *lt, const cm_gemm *g, int tin, lt_call *x)
{
    int32_t ta = OP_T, tb = OP_N;
    uint64_t ws = WORKSPACE_BYTES;
    cublas_status s = lt->DescCreate(&x->desc, COMPUTE_32F, CUDA_R_32F);
    if (s == 0) s = lt->DescSet(x->desc, DESC_TRANSA, &ta, sizeof ta);
    if (s == 0) s = lt->DescSet(x->desc, DESC_TRANSB, &tb, sizeof tb);
    if (s == 0) s = lt_layout_make(lt, &x->a, tin, g->k, g->m, g->a.ld, g->l, g->a.lstride);
    if (s == 0) s = lt_layout_make(lt, &x->b, tin, g->k, g->n, g->b.ld, g->l, g->b.lstride);
    if (s == 0) s = lt_layout_make(lt, &x->c, lt_type(g->out), g->m, g->n, g->c.ld, g->l, g->c.lstride);
    if (s == 0) s = lt->PrefCreate(&x->pref);
    if (s == 0) s = lt->PrefSet(x->pref, PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    return s;
}

static void lt_release(cublaslt *lt, lt_call *x)
{
    if (x->pref) lt->PrefDestroy(x->pref);
    if (x->c) lt->LayoutDestroy(x->c);
    if (x->b) lt->LayoutDestroy(x->b);
    if (x->a) lt->LayoutDestroy(x->a);
    if (x->desc) lt->DescDestroy(x->desc);
}

cute_status cublaslt_gemm(cute_cublas *h, const cm_gemm *g, double alpha, double beta, void *stream)
{
    /* fp8 needs "TN": a stored k x m (op T), b stored k x n (op N) */
    if (g->a.major != 1 || g->b.major != 1) {
        cublas_say(h->err, sizeof h->err, "cuBLAS reference: cuBLASLt's fp8 kernels take only K-major A "
                   "and B (layout tn)");
        return CUTE_ERR_INVALID;
    }
    cublaslt *lt = lt_of(h);
    if (!lt) return CUTE_ERR_NO_DRIVER;
    int tin = lt_type(g->in);
    lt_call x = {0};
    lt_heuristic best;
    int found = 0;
    cublas_status s = lt_describe(lt, g, tin, &x);
    if (s == 0) s = lt->Heuristic(lt->handle, x.desc, x.a, x.b, x.c, x.c, x.pref, 1, &best, &found);
    if (s == 0 && found == 0) s = CUBLAS_NOT_SUPPORTED;
    float fa = (float)alpha, fb = (float)beta;
    if (s == 0)
        s = lt->Matmul(lt->handle, x.desc, &fa, g->a.ptr, x.a, g->b.ptr, x.b, &fb, g->c.ptr, x.c,
                       (void *)g->c.ptr, x.c, &best.algo, (void *)(uintptr_t)lt->workspace,
                       WORKSPACE_BYTES, stream);
    lt_release(lt, &x);
    if (s == CUBLAS_NOT_SUPPORTED) {
        cublas_say(h->err, sizeof h->err, "cuBLASLt has no kernel for %s x %s -> %s (it pairs e5m2 only "
                   "with e4m3)", cli_gemm_dtype_name(g->in), cli_gemm_dtype_name(g->in), cli_gemm_dtype_name(g->out));
        return CUTE_ERR_INVALID;
    }
    return cublas_failed(h, s, "cublasLtMatmul") ? CUTE_ERR_LAUNCH : CUTE_OK;
}
