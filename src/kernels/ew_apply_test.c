/* CuTe DSL's elementwise_apply configuration (examples/python/CuTeDSL/ampere/
 * elementwise_apply.py), written with cutec's DSL: f16, threads (4,64):(64,1), each with
 * (16,8):(8,1) values (16 vectors of 16 bytes), tile (64,512), 2-D tensors with run-time
 * extents and row strides (multiples of 8: rows start 16-byte aligned), every copy
 * predicated by a coordinate tensor.
 *
 * Compile-only (NVRTC, no GPU): the code stays lean (issue 12 item 8).  Before the lowering
 * memo, the hoisted chunk pointers, the word-joined fallback and the st.global.v4 stores it
 * was 17,213 lines of CUDA C, 2.4 s of NVRTC, 255 registers with 120 bytes of stack and 232
 * bytes of spill stores, and its stores reached the PTX as u16/v2.u16 pieces.  Now: at most
 * a third of the lines, no spills, one st.global.v4 per 16 bytes stored.  Then the kernel
 * runs on the interpreter (and the GPU where there is one) on tails in both modes against
 * a CPU reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/copy.h"
#include "cutec/cuda_c.h"
#include "cutec/jit.h"
#include "cutec/notation.h"
#include "cutec/nvrtc.h"
#include "kernels/ew_ref.h"

#define LINES_BEFORE 17213
#define VECTORS 16 /* 16-byte vectors per thread */

typedef struct apply_plan {
    cute_tiled_copy tc;
} apply_plan;

static void apply_kernel(cute_ctx *c, cute_tensor gA, cute_tensor gB, cute_tensor gC, cute_tensor cC,
                         cute_int m, cute_int n)
{
    const apply_plan *p = cute_ctx_user(c);
    cute_int tid = cute_thread_idx(c, 0), bid = cute_block_idx(c, 0);
    cute_tuple blk = CUTE_CRD(CUTE_CRD(CUTE_ALL, CUTE_ALL), bid);
    cute_thr_copy thr = cute_tiled_copy_slice(&p->tc, tid);
    cute_tensor tA = cute_partition_S(c, thr, cute_tensor_slice(c, gA, blk));
    cute_tensor tB = cute_partition_S(c, thr, cute_tensor_slice(c, gB, blk));
    cute_tensor tC = cute_partition_D(c, thr, cute_tensor_slice(c, gC, blk));
    cute_tensor tK = cute_partition_S(c, thr, cute_tensor_slice(c, cC, blk));
    cute_ssa pred = cute_elem_less(c, tK, CUTE_CRD(m, n));
    cute_tensor rA = cute_make_fragment_like(c, tA), rB = cute_make_fragment_like(c, tB);
    cute_tensor rC = cute_make_fragment_like(c, tC);
    cute_copy_if(c, &p->tc.atom, pred, tA, rA);
    cute_copy_if(c, &p->tc.atom, pred, tB, rB);
    cute_ssa a = cute_ssa_cvt(c, cute_tensor_load(c, rA), CUTE_F32);
    cute_ssa b = cute_ssa_cvt(c, cute_tensor_load(c, rB), CUTE_F32);
    cute_tensor_store(c, rC, cute_ssa_cvt(c, cute_ssa_binop(c, CUTE_OP_ADD, a, b), CUTE_F16));
    cute_copy_if(c, &p->tc.atom, pred, rC, tC);
}

static void apply_host(cute_ctx *c, const cute_arg *args)
{
    apply_plan *p = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_layout thr = cute_layout_parse(a, "(4,64):(64,1)");
    cute_layout val = cute_layout_parse(a, "(16,8):(8,1)");
    cute_copy_atom atom = cute_copy_atom_universal(a, CUTE_F16, 128);
    p->tc = cute_make_tiled_copy_tv(a, &atom, &thr, &val);
    cute_tensor g[3], mC = args[2].tensor;
    for (int i = 0; i < 3; i++) g[i] = cute_tensor_zipped_divide(c, args[i].tensor, &p->tc.tiler);
    cute_tensor cC = cute_tensor_zipped_divide(c, cute_make_identity_tensor(c, mC.layout.shape), &p->tc.tiler);
    cute_layout rest = cute_get(a, &g[2].layout, 1), m0 = cute_get(a, &mC.layout, 0),
                m1 = cute_get(a, &mC.layout, 1);
    cute_launch_cfg cfg = {.grid = {cute_size(a, &rest)}, .block = {cute_i(256)}};
    CUTE_LAUNCH(c, apply_kernel, cfg, g[0], g[1], g[2], cC, cute_size(a, &m0), cute_size(a, &m1));
}

static const cute_fn *compile_apply(cute_runtime *rt, apply_plan *p)
{
    cute_arg_spec s[3];
    for (int i = 0; i < 3; i++) s[i] = cute_spec_tensor(CUTE_F16, "(?,?):(?{div=8},1)", 16);
    char err[2048];
    const cute_fn *f = cute_compile(rt, "apply", apply_host, p, 3, s, err, sizeof err);
    CHECK(f != NULL, "%s", err);
    return f;
}

static int count(const char *text, const char *needle)
{
    int k = 0;
    for (const char *q = text; (q = strstr(q, needle)) != NULL; q += strlen(needle)) k++;
    return k;
}

/* the CUDA C and what NVRTC and ptxas make of it */
static void lean(const cute_fn *f)
{
    char err[1024];
    const cute_ir_func *k = cute_fn_kernel(f, 0);
    char *src = NULL;
    if (cute_cuda_c_emit(&k, 1, NULL, &src, err, sizeof err) != CUTE_OK) {
        CHECK(false, "%s", err);
        return;
    }
    int lines = count(src, "\n");
    CHECK(lines * 3 <= LINES_BEFORE, "%d lines of CUDA C (at most a third of %d)", lines, LINES_BEFORE);
    printf("ew_apply_test: %d lines of CUDA C (%d before)\n", lines, LINES_BEFORE);
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("no NVRTC: the PTX and the registers of elementwise_apply not inspected");
        free(src);
        return;
    }
    static const char *const verbose[] = {"-Xptxas", "-v"};
    for (int sm90 = 0; sm90 < 2; sm90++) {
        cute_nvrtc_opts o = {.arch = sm90 ? "sm_90a" : "sm_80", .extra = verbose, .nextra = 2};
        cute_nvrtc_output out;
        cute_status s = cute_nvrtc_compile(nv, src, &o, &out);
        CHECK(s == CUTE_OK, "%s: %s", o.arch, out.log);
        if (s == CUTE_OK) {
            /* ptxas -v through NVRTC: "0 bytes spill stores, 0 bytes spill loads" */
            CHECK(strstr(out.log, " 0 bytes spill stores") && strstr(out.log, "0 bytes stack frame"),
                  "%s: spills:\n%s", o.arch, out.log);
            CHECK(count(out.ptx, "st.global.v4.b32") == VECTORS, "%s: %d st.global.v4 (want one per "
                  "16-byte vector, %d)", o.arch, count(out.ptx, "st.global.v4.b32"), VECTORS);
            CHECK(count(out.ptx, "st.global.v2") == 0, "%s: a vector store split in halves", o.arch);
            CHECK(count(out.ptx, "ld.global.nc.v4") + count(out.ptx, "ld.global.v4") == 2 * VECTORS,
                  "%s: one 16-byte load per vector of A and B", o.arch);
            const char *regs = strstr(out.log, "Used ");
            printf("ew_apply_test: %s: %.*s\n", o.arch, regs ? (int)strcspn(regs, ",\n") : 0, regs ? regs : "");
        }
        cute_nvrtc_output_free(&out);
    }
    cute_nvrtc_close(nv);
    free(src);
}

typedef struct matrix {
    cute_buffer buf;
    uint16_t *host;
    int64_t ld, elems;
} matrix;

static bool make(cute_backend *b, matrix *x, int64_t m, int64_t n, int64_t pad, uint64_t *seed, bool poison)
{
    x->ld = n + pad;
    x->elems = m * x->ld;
    x->host = malloc((size_t)x->elems * 2);
    if (!x->host || b->vt->alloc(b->self, (size_t)x->elems * 2, &x->buf) != CUTE_OK) return false;
    for (int64_t i = 0; i < x->elems; i++) ew_set(CUTE_F16, x->host, i, poison ? NAN : ew_random(seed));
    return b->vt->upload(b->self, &x->buf, 0, x->host, (size_t)x->elems * 2) == CUTE_OK;
}

/* C = A + B on an m x n problem whose rows are padded by pad elements (to a multiple of 8:
 * every row starts 16-byte aligned, as the spec says) */
static void run(cute_runtime *rt, int64_t m, int64_t n, int64_t pad, uint64_t *seed)
{
    apply_plan p;
    const cute_fn *f = compile_apply(rt, &p);
    cute_backend *b = cute_runtime_backend(rt);
    matrix A, B, C;
    bool ok = f && make(b, &A, m, n, pad, seed, false) && make(b, &B, m, n, pad, seed, false) &&
              make(b, &C, m, n, pad, seed, true);
    CHECK(ok, "allocation");
    if (!ok) return;
    int64_t shape[2] = {m, n};
    cute_call_arg args[3] = {cute_call_tensor(&A.buf, 0, CUTE_F16, 2, shape, (int64_t[]){A.ld, 1}),
                             cute_call_tensor(&B.buf, 0, CUTE_F16, 2, shape, (int64_t[]){B.ld, 1}),
                             cute_call_tensor(&C.buf, 0, CUTE_F16, 2, shape, (int64_t[]){C.ld, 1})};
    char err[1024] = "";
    cute_status s = cute_call(f, NULL, 3, args, err, sizeof err);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s %lldx%lld: %s", cute_runtime_backend_name(rt), (long long)m, (long long)n,
          err);
    b->vt->download(b->self, C.host, &C.buf, 0, (size_t)C.elems * 2);
    int64_t bad = 0, written_pad = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < C.ld; j++) {
            double got = ew_get(CUTE_F16, C.host, i * C.ld + j);
            if (j >= n) {
                written_pad += !isnan(got);
                continue;
            }
            uint16_t want = 0;
            ew_set(CUTE_F16, &want, 0, (float)ew_get(CUTE_F16, A.host, i * A.ld + j) +
                                           (float)ew_get(CUTE_F16, B.host, i * B.ld + j));
            bad += got != ew_get(CUTE_F16, &want, 0);
        }
    CHECK(bad == 0 && written_pad == 0, "%s %lldx%lld pad %lld: %lld wrong, %lld padding writes",
          cute_runtime_backend_name(rt), (long long)m, (long long)n, (long long)pad, (long long)bad,
          (long long)written_pad);
    b->vt->free(b->self, &A.buf), b->vt->free(b->self, &B.buf), b->vt->free(b->self, &C.buf);
    free(A.host), free(B.host), free(C.host);
    cute_fn_free(f);
}

int main(void)
{
    uint64_t seed = (uint64_t)time(NULL) | 1;
    if (getenv("CUTEC_SEED")) seed = strtoull(getenv("CUTEC_SEED"), NULL, 10) | 1;
    printf("ew_apply_test: CUTEC_SEED=%llu\n", (unsigned long long)seed);
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        CHECK(false, "interpreter: %s", err);
        return CHECK_DONE("ew_apply_test");
    }
    apply_plan p;
    const cute_fn *f = compile_apply(rt, &p);
    if (f) lean(f);
    cute_fn_free(f);
    /* tails in both modes (70 = 64 + 6 rows, 517 = 512 + 5 columns: a vector straddles the
     * edge), and a whole tile */
    run(rt, 70, 517, 3, &seed);
    run(rt, 64, 512, 8, &seed);
    cute_runtime_free(rt);
    if (cute_runtime_new("cuda", &rt, err, sizeof err) == CUTE_OK) {
        run(rt, 4099, 4103, 1, &seed);
        run(rt, 4096, 4096, 0, &seed);
        cute_runtime_free(rt);
    } else {
        SKIP("no GPU: elementwise_apply ran on the interpreter only");
    }
    return CHECK_DONE("ew_apply_test");
}
