/* The public entry points as a hostile caller uses them: NULL tensors and libraries, ranks
 * out of range, shapes, dtypes and strides that do not match, negative extents and strides,
 * offsets past the buffer, an output that is also an input.  Each is an error that says what
 * was wrong, on the interpreter: never a crash, a hang or a run on memory it was not given. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/attention.h"
#include "cutec/gemv.h"
#include "cutec/kernels.h"
#include "cutec/row_kernels.h"

static cute_backend *be;

/* a rank-2 (rows, cols) tensor, row-major, in a fresh zeroed buffer */
static cute_call_arg mat(cute_buffer *buf, cute_dtype d, int64_t rows, int64_t cols)
{
    size_t bytes = (size_t)(rows * cols) * (size_t)cute_dtype_bytes(d);
    be->vt->alloc(be->self, bytes ? bytes : 1, buf);
    void *zero = calloc(1, bytes ? bytes : 1);
    be->vt->upload(be->self, buf, 0, zero, bytes ? bytes : 1);
    free(zero);
    int64_t shape[2] = {rows, cols}, stride[2] = {cols, 1};
    return cute_call_tensor(buf, 0, d, 2, shape, stride);
}

/* a rank-4 (B,S,H,D) tensor, contiguous */
static cute_call_arg bshd(cute_buffer *buf, cute_dtype d, int64_t B, int64_t S, int64_t H, int64_t D)
{
    size_t bytes = (size_t)(B * S * H * D) * (size_t)cute_dtype_bytes(d);
    be->vt->alloc(be->self, bytes, buf);
    void *zero = calloc(1, bytes);
    be->vt->upload(be->self, buf, 0, zero, bytes);
    free(zero);
    int64_t shape[4] = {B, S, H, D}, stride[4] = {S * H * D, H * D, D, 1};
    return cute_call_tensor(buf, 0, d, 4, shape, stride);
}

static char err[1024];

/* the status of a call made in a child process, its message in err: a crash is a status of
 * -1000 - signal, so one crash is one failed check and the others still run */
#define IN_CHILD(call) in_child_end(in_child_begin() ? (_exit(in_child_report(call)), 0) : 0)
static int pipe_fd[2];
static pid_t child;
static bool in_child_begin(void)
{
    err[0] = 0;
    fflush(stdout), fflush(stderr);
    if (pipe(pipe_fd)) return false;
    child = fork();
    return child == 0;
}
static int in_child_report(int s)
{
    if (write(pipe_fd[1], &s, sizeof s) != sizeof s || write(pipe_fd[1], err, sizeof err) != sizeof err) return 1;
    return 0;
}
static int in_child_end(int unused)
{
    (void)unused;
    int s = -999;
    close(pipe_fd[1]);
    int status = 0;
    bool got = read(pipe_fd[0], &s, sizeof s) == sizeof s && read(pipe_fd[0], err, sizeof err) == sizeof err;
    close(pipe_fd[0]);
    waitpid(child, &status, 0);
    if (WIFSIGNALED(status)) return snprintf(err, sizeof err, "crashed: signal %d", WTERMSIG(status)), -1000 - WTERMSIG(status);
    return got ? s : -999;
}

/* s must be an error with a message containing want (NULL: any message) */
static void refused(int s, const char *want, const char *what)
{
    CHECK(s != (int)CUTE_OK && s > -999 && err[0] && (!want || strstr(err, want)), "%s: want an error%s%s, got %d: \"%s\"",
          what, want ? " with " : "", want ? want : "", s, err);
    if (getenv("HOSTILE_SHOW")) printf("%-32s %s\n", what, err); /* to read the messages */
    err[0] = 0;
}

static void gemm(cute_runtime *rt)
{
    cute_gemm_lib *lib = cute_gemm_lib_new(rt);
    cute_buffer ba, bb, bc, bd;
    cute_call_arg A = mat(&ba, CUTE_F32, 8, 4), B = mat(&bb, CUTE_F32, 8, 4), C = mat(&bc, CUTE_F32, 8, 8);
    cute_call_arg H = mat(&bd, CUTE_F16, 8, 4);
    CHECK(cutec_gemm(lib, CUTE_GEMM_AUTO, &A, &B, &C, 1, 0, NULL, err, sizeof err) == CUTE_OK, "a good call: %s", err);
    refused(IN_CHILD(cutec_gemm(NULL, CUTE_GEMM_AUTO, &A, &B, &C, 1, 0, NULL, err, sizeof err)), NULL, "gemm: no library");
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, NULL, &B, &C, 1, 0, NULL, err, sizeof err)), NULL, "gemm: A NULL");
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, &A, &B, NULL, 1, 0, NULL, err, sizeof err)), NULL, "gemm: C NULL");
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, &A, &H, &C, 1, 0, NULL, err, sizeof err)), NULL, "gemm: dtypes differ");
    cute_call_arg x = A;
    x.shape[1] = 5;
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, NULL, err, sizeof err)), NULL, "gemm: K differs");
    x = A, x.ndim = 9;
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, NULL, err, sizeof err)), NULL, "gemm: rank 9");
    x = A, x.ndim = -1;
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, NULL, err, sizeof err)), NULL, "gemm: rank -1");
    x = A, x.buf = NULL;
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, NULL, err, sizeof err)), NULL, "gemm: no buffer");
    x = C, x.shape[0] = -8;
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, &A, &B, &x, 1, 0, NULL, err, sizeof err)), NULL, "gemm: M negative");
    x = A, x.stride[0] = -4;
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, NULL, err, sizeof err)), NULL, "gemm: negative stride");
    x = C, x.stride[0] = 0; /* every row of C one row: the threads race on it */
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, &A, &B, &x, 1, 0, NULL, err, sizeof err)), NULL, "gemm: C rows overlap");
    x = A, x.offset = ba.bytes;
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, NULL, err, sizeof err)), "gemm", "gemm: A past its buffer");
    x = A, x.shape[0] = 1 << 20, x.stride[0] = 4;
    cute_call_arg c2 = C;
    c2.shape[0] = 1 << 20;
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, &x, &B, &c2, 1, 0, NULL, err, sizeof err)), "gemm",
            "gemm: A and C larger than their buffers");
    /* C (8,8) as A and B too: the output is an input */
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, &C, &C, &C, 1, 0, NULL, err, sizeof err)), "gemm", "gemm: C is A");
    refused(IN_CHILD(cutec_gemm(lib, CUTE_GEMM_AUTO, &A, &B, &C, NAN, 0, NULL, err, sizeof err)), NULL, "gemm: alpha NaN");
    refused(IN_CHILD(cutec_gemm(lib, (cute_gemm_variant)999, &A, &B, &C, 1, 0, NULL, err, sizeof err)), NULL, "gemm: variant 999");
    CHECK(cutec_gemm(lib, CUTE_GEMM_AUTO, &A, &B, &C, 1, 0, NULL, NULL, 0) == CUTE_OK, "a good call, err NULL");
    x = A, x.ndim = 9;
    CHECK(cutec_gemm(lib, CUTE_GEMM_AUTO, &x, &B, &C, 1, 0, NULL, NULL, 0) != CUTE_OK, "gemm: rank 9, err NULL");
    be->vt->free(be->self, &ba), be->vt->free(be->self, &bb), be->vt->free(be->self, &bc), be->vt->free(be->self, &bd);
    cute_gemm_lib_free(lib);
}

static void attention(cute_runtime *rt)
{
    cute_attention_lib *lib = cute_attention_lib_new(rt);
    cute_buffer bq, bk, bv, bo, bl;
    cute_call_arg Q = bshd(&bq, CUTE_BF16, 1, 4, 2, 64), K = bshd(&bk, CUTE_BF16, 1, 4, 2, 64);
    cute_call_arg V = bshd(&bv, CUTE_BF16, 1, 4, 2, 64), O = bshd(&bo, CUTE_BF16, 1, 4, 2, 64);
    cute_call_arg L = mat(&bl, CUTE_F32, 2, 4);
    CHECK(cutec_attention_fwd(lib, &Q, &K, &V, &O, NULL, 0, false, NULL, err, sizeof err) == CUTE_OK, "good: %s", err);
    refused(IN_CHILD(cutec_attention_fwd(NULL, &Q, &K, &V, &O, NULL, 0, false, NULL, err, sizeof err)), NULL, "attn: no library");
    refused(IN_CHILD(cutec_attention_fwd(lib, NULL, &K, &V, &O, NULL, 0, false, NULL, err, sizeof err)), NULL, "attn: Q NULL");
    refused(IN_CHILD(cutec_attention_fwd(lib, &Q, &K, &V, NULL, NULL, 0, false, NULL, err, sizeof err)), NULL, "attn: O NULL");
    cute_call_arg x = Q;
    x.shape[3] = 7;
    refused(IN_CHILD(cutec_attention_fwd(lib, &x, &K, &V, &O, NULL, 0, false, NULL, err, sizeof err)), NULL, "attn: D 7");
    x = K, x.shape[2] = 3;
    refused(IN_CHILD(cutec_attention_fwd(lib, &Q, &x, &V, &O, NULL, 0, false, NULL, err, sizeof err)), NULL, "attn: G 3");
    x = Q, x.ndim = 9;
    refused(IN_CHILD(cutec_attention_fwd(lib, &x, &K, &V, &O, NULL, 0, false, NULL, err, sizeof err)), NULL, "attn: rank 9");
    x = Q, x.dtype = CUTE_F32;
    refused(IN_CHILD(cutec_attention_fwd(lib, &x, &K, &V, &O, NULL, 0, false, NULL, err, sizeof err)), NULL, "attn: Q f32");
    x = O, x.stride[1] = 0;
    refused(IN_CHILD(cutec_attention_fwd(lib, &Q, &K, &V, &x, NULL, 0, false, NULL, err, sizeof err)), NULL, "attn: O rows overlap");
    x = L; /* lse (B,H,Sq) is rank 3 */
    refused(IN_CHILD(cutec_attention_fwd(lib, &Q, &K, &V, &O, &x, 0, false, NULL, err, sizeof err)), NULL, "attn: lse rank 2");
    refused(IN_CHILD(cutec_attention_fwd(lib, &Q, &K, &V, &O, NULL, NAN, false, NULL, err, sizeof err)), NULL, "attn: scale NaN");
    refused(IN_CHILD(cutec_attention_fwd(lib, &Q, &K, &V, &Q, NULL, 0, false, NULL, err, sizeof err)), NULL, "attn: O is Q");
    x = Q, x.offset = bq.bytes;
    refused(IN_CHILD(cutec_attention_fwd(lib, &x, &K, &V, &O, NULL, 0, false, NULL, err, sizeof err)), NULL, "attn: Q past buffer");
    refused(IN_CHILD(cutec_attention_bwd(lib, &Q, &K, &V, &O, NULL, NULL, NULL, NULL, NULL, NULL, 0, false, NULL, err, sizeof err)),
            NULL, "attn bwd: NULLs");
    refused(IN_CHILD(cutec_attention_decode(lib, &Q, &K, &V, &O, NULL, 0, NULL, err, sizeof err)), NULL, "decode: Sq 4");
    cute_buffer *all[] = {&bq, &bk, &bv, &bo, &bl};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) be->vt->free(be->self, all[i]);
    cute_attention_lib_free(lib);
}

static void gemv_rows_ew(cute_runtime *rt)
{
    cute_gemv_lib *g = cute_gemv_lib_new(rt);
    cute_buffer ba, bx, by;
    cute_call_arg A = mat(&ba, CUTE_BF16, 8, 16), x = mat(&bx, CUTE_BF16, 16, 1), y = mat(&by, CUTE_BF16, 8, 1);
    x.ndim = 1, x.stride[0] = 1, y.ndim = 1, y.stride[0] = 1;
    CHECK(cutec_gemv(g, &A, &x, &y, 1, 0, NULL, err, sizeof err) == CUTE_OK, "gemv good: %s", err);
    refused(IN_CHILD(cutec_gemv(NULL, &A, &x, &y, 1, 0, NULL, err, sizeof err)), NULL, "gemv: no library");
    refused(IN_CHILD(cutec_gemv(g, &A, NULL, &y, 1, 0, NULL, err, sizeof err)), NULL, "gemv: x NULL");
    cute_call_arg t = x;
    t.shape[0] = 15;
    refused(IN_CHILD(cutec_gemv(g, &A, &t, &y, 1, 0, NULL, err, sizeof err)), NULL, "gemv: K differs");
    t = A, t.ndim = 9;
    refused(IN_CHILD(cutec_gemv(g, &t, &x, &y, 1, 0, NULL, err, sizeof err)), NULL, "gemv: rank 9");
    t = y, t.stride[0] = 0;
    refused(IN_CHILD(cutec_gemv(g, &A, &x, &t, 1, 0, NULL, err, sizeof err)), NULL, "gemv: y elements overlap");
    t = A, t.offset = ba.bytes;
    refused(IN_CHILD(cutec_gemv(g, &t, &x, &y, 1, 0, NULL, err, sizeof err)), NULL, "gemv: A past its buffer");
    cute_gemv_lib_free(g);

    cutec_rows *r = cutec_rows_new(rt);
    refused(IN_CHILD(cutec_softmax(NULL, &A, &A, false, NULL, err, sizeof err)), NULL, "softmax: no library");
    refused(IN_CHILD(cutec_softmax(r, NULL, &A, false, NULL, err, sizeof err)), NULL, "softmax: y NULL");
    refused(IN_CHILD(cutec_softmax(r, &A, NULL, false, NULL, err, sizeof err)), NULL, "softmax: x NULL");
    t = A, t.ndim = 9;
    refused(IN_CHILD(cutec_softmax(r, &A, &t, false, NULL, err, sizeof err)), NULL, "softmax: rank 9");
    t = A, t.stride[0] = 0;
    refused(IN_CHILD(cutec_softmax(r, &t, &A, false, NULL, err, sizeof err)), "softmax: ", "softmax: y rows overlap");
    t = A, t.offset = ba.bytes;
    refused(IN_CHILD(cutec_softmax(r, &A, &t, false, NULL, err, sizeof err)), "softmax: ", "softmax: x past its buffer");
    refused(IN_CHILD(cutec_rmsnorm(r, NULL, NULL, err, sizeof err)), NULL, "rmsnorm: no args");
    cutec_rows_free(r);

    cute_ew_lib *e = cute_ew_lib_new(rt);
    refused(IN_CHILD(cute_ew(e, CUTE_EW_ADD, &A, &A, NULL, NULL, err, sizeof err)), NULL, "ew add: b NULL");
    refused(IN_CHILD(cute_ew(e, CUTE_EW_ADD, NULL, &A, &A, NULL, err, sizeof err)), NULL, "ew: out NULL");
    refused(IN_CHILD(cute_ew(NULL, CUTE_EW_ADD, &A, &A, &A, NULL, err, sizeof err)), NULL, "ew: no library");
    refused(IN_CHILD(cute_ew(e, (cute_ew_op)999, &A, &A, &A, NULL, err, sizeof err)), NULL, "ew: op 999");
    t = A, t.ndim = 9;
    refused(IN_CHILD(cute_ew(e, CUTE_EW_ADD, &A, &t, &A, NULL, err, sizeof err)), NULL, "ew: rank 9");
    t = A, t.offset = ba.bytes;
    refused(IN_CHILD(cute_ew(e, CUTE_EW_ADD, &A, &t, &A, NULL, err, sizeof err)), "elementwise add: ", "ew: past buffer");
    t = A, t.shape[0] = 9;
    refused(IN_CHILD(cute_ew(e, CUTE_EW_ADD, &A, &t, &A, NULL, err, sizeof err)), NULL, "ew: shapes differ");
    cute_ew_lib_free(e);
    be->vt->free(be->self, &ba), be->vt->free(be->self, &bx), be->vt->free(be->self, &by);
}

/* the entry points beyond the plain calls: NULLs, counts, options */
static void others(cute_runtime *rt)
{
    cute_gemm_lib *g = cute_gemm_lib_new(rt);
    cute_attention_lib *a = cute_attention_lib_new(rt);
    cute_gemv_lib *v = cute_gemv_lib_new(rt);
    cutec_rows *r = cutec_rows_new(rt);
    cute_buffer bm, bq, bc, bs;
    cute_call_arg M = mat(&bm, CUTE_BF16, 8, 16), Q = bshd(&bq, CUTE_BF16, 1, 4, 2, 64), C8 = mat(&bc, CUTE_BF16, 8, 8);
    cute_call_arg sums = mat(&bs, CUTE_F32, 16, 1);
    sums.ndim = 1, sums.stride[0] = 1;
    refused(IN_CHILD(cutec_gemm_grouped(g, NULL, 2, 1, 0, NULL, err, sizeof err)), "groups is NULL", "grouped: NULL groups");
    refused(IN_CHILD(cutec_gemm_grouped(g, (cute_gemm_group[]){{M, M, M}}, -1, 1, 0, NULL, err, sizeof err)), NULL,
            "grouped: -1 groups");
    refused(IN_CHILD(cutec_gemm_grouped(NULL, (cute_gemm_group[]){{M, M, M}}, 1, 1, 0, NULL, err, sizeof err)), "no library",
            "grouped: no library");
    cute_gemm_group bad = {M, M, C8};
    bad.B.dtype = CUTE_F32;
    refused(IN_CHILD(cutec_gemm_grouped(g, &bad, 1, 1, 0, NULL, err, sizeof err)), NULL, "grouped: B f32");
    refused(IN_CHILD(cutec_gemm_nvfp4(g, NULL, NULL, NULL, NULL, NULL, 1, 0, NULL, err, sizeof err)), NULL, "nvfp4: NULLs");
    refused(IN_CHILD(cutec_gemm_mxfp8(NULL, &M, &M, &M, &M, &M, 1, 0, NULL, err, sizeof err)), NULL, "mxfp8: no library");
    refused(IN_CHILD(cutec_gemm_swiglu(g, &M, NULL, &M, &M, 1, 0, NULL, err, sizeof err)), NULL, "swiglu: B0 NULL");
    refused(IN_CHILD(cutec_gemm_swiglu(NULL, &M, &M, &M, &M, 1, 0, NULL, err, sizeof err)), NULL, "swiglu: no library");
    cute_gemm_scales sc = {0};
    sc.kind = (cute_gemm_scale_kind)99;
    refused(IN_CHILD(cutec_gemm_scaled(g, CUTE_GEMM_AUTO, &M, &M, &C8, 1, 0, &sc, NULL, NULL, NULL, err, sizeof err)),
            NULL, "scaled: kind 99");
    cute_gemm_epilogue ep = {0};
    ep.act = (cute_gemm_act)99;
    refused(IN_CHILD(cutec_gemm_ex(g, CUTE_GEMM_AUTO, &M, &M, &C8, 1, 0, &ep, NULL, NULL, err, sizeof err)), NULL,
            "epilogue: act 99");
    refused(IN_CHILD(cutec_attention_fwd_options(a, &Q, &Q, &Q, &Q, NULL, NULL, NULL, err, sizeof err)), NULL,
            "attn options: NULL options");
    cute_attention_options o = {.window = true, .window_left = -5};
    cute_buffer bo;
    cute_call_arg O = bshd(&bo, CUTE_BF16, 1, 4, 2, 64);
    refused(IN_CHILD(cutec_attention_fwd_options(a, &Q, &Q, &Q, &O, NULL, &o, NULL, err, sizeof err)), NULL,
            "attn options: window -5");
    o = (cute_attention_options){.cu_seqlens_q = &M, .cu_seqlens_k = &M, .max_seqlen_q = -1};
    refused(IN_CHILD(cutec_attention_fwd_options(a, &Q, &Q, &Q, &O, NULL, &o, NULL, err, sizeof err)), NULL,
            "attn options: bf16 cu_seqlens");
    refused(IN_CHILD(cutec_attention_bwd(NULL, &Q, &Q, &Q, &O, &O, NULL, &O, &O, &O, NULL, 0, false, NULL, err,
                                         sizeof err)), NULL, "attn bwd: no library");
    refused(IN_CHILD(cutec_attention_decode(NULL, &Q, &Q, &Q, &O, NULL, 0, NULL, err, sizeof err)), NULL,
            "decode: no library");
    refused(IN_CHILD(cutec_attention_decode(a, NULL, &Q, &Q, &O, NULL, 0, NULL, err, sizeof err)), NULL, "decode: Q NULL");
    refused(IN_CHILD(cutec_gemv_vectors(v, &M, NULL, &M, 1, 0, NULL, err, sizeof err)), NULL, "gemv vectors: X NULL");
    refused(IN_CHILD(cutec_gemv_vectors(NULL, &M, &M, &M, 1, 0, NULL, err, sizeof err)), NULL, "gemv vectors: no lib");
    refused(IN_CHILD(cutec_gemv_nvfp4(v, NULL, NULL, NULL, NULL, NULL, 1, 0, NULL, err, sizeof err)), NULL,
            "gemv nvfp4: NULLs");
    refused(IN_CHILD(cutec_gemm_skinny(NULL, &M, &M, &M, 1, 0, NULL, err, sizeof err)), NULL, "skinny: no library");
    refused(IN_CHILD(cutec_gemm_skinny(v, NULL, &M, &M, 1, 0, NULL, err, sizeof err)), "A is NULL", "skinny: A NULL");
    refused(IN_CHILD(cutec_reduce_rows(r, NULL, &M, CUTEC_REDUCE_SUM, NULL, err, sizeof err)), NULL, "reduce: out NULL");
    refused(IN_CHILD(cutec_reduce_cols(r, &M, &M, (cutec_reduce_op)99, NULL, err, sizeof err)), NULL, "reduce: op 99");
    refused(IN_CHILD(cutec_reduce_cols(NULL, &sums, &M, CUTEC_REDUCE_SUM, NULL, err, sizeof err)), NULL, "reduce: no lib");
    refused(IN_CHILD(cutec_reduce_rows(NULL, &sums, &M, CUTEC_REDUCE_SUM, NULL, err, sizeof err)), NULL, "reduce rows: no lib");
    refused(IN_CHILD(cutec_softmax_backward(r, NULL, &M, &M, false, NULL, err, sizeof err)), NULL, "softmax bwd: NULL");
    refused(IN_CHILD(cutec_cross_entropy(r, NULL, NULL, err, sizeof err)), NULL, "xent: NULL args");
    refused(IN_CHILD(cutec_layernorm_backward(r, NULL, NULL, err, sizeof err)), NULL, "layernorm bwd: NULL args");
    cute_buffer *all[] = {&bm, &bq, &bo, &bc, &bs};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) be->vt->free(be->self, all[i]);
    cutec_rows_free(r), cute_gemv_lib_free(v), cute_attention_lib_free(a), cute_gemm_lib_free(g);
}

int main(void)
{
    cute_runtime *rt;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "interp: %s", err);
    be = cute_runtime_backend(rt);
    gemm(rt);
    attention(rt);
    gemv_rows_ew(rt);
    others(rt);
    cute_runtime_free(rt);
    return CHECK_DONE("hostile_test");
}
