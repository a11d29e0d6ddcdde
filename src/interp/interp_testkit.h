/* Helpers for the interpreter's tests: build IR by hand, run it, look at the reports.
 * (Static functions in a header: each test is one program of its own.) */
#ifndef CUTEC_INTERP_TESTKIT_H
#define CUTEC_INTERP_TESTKIT_H

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "cutec/interp.h"
#include "cutec/ir.h"

/* sanitizer builds are several times slower (CHECK_SANITIZED, check.h): tests scale their big
 * sizes down */
static inline int kt_small(void) { return CHECK_SANITIZED || getenv("CUTEC_TEST_SMALL") != NULL; }

/* record the current source line as the call site of what is built next */
#define KT_AT(b) ((b)->file = __FILE__, (b)->line = __LINE__)

typedef struct kt {
    cute_ir_func *f;
    cute_ir_builder b;
} kt;

static inline void kt_begin(kt *k, const char *name)
{
    k->f = cute_ir_func_new(name);
    cute_ir_builder_init(&k->b, k->f);
}

static inline cute_vreg kt_param_ptr(kt *k, cute_dtype pointee, const char *name)
{
    return cute_ir_add_param(k->f, cute_type_ptr(pointee, CUTE_GMEM), name);
}
static inline cute_vreg kt_param(kt *k, cute_dtype d, const char *name)
{
    return cute_ir_add_param(k->f, cute_type_of(d), name);
}

static inline cute_vreg kt_op(kt *k, cute_op op, cute_type t, cute_vreg a, cute_vreg b, cute_vreg c)
{
    return cute_ir_op(&k->b, op, t, a, b, c);
}
static inline cute_vreg kt_bin(kt *k, cute_op op, cute_vreg a, cute_vreg b)
{
    return cute_ir_op(&k->b, op, cute_ir_type(k->f, a), a, b, 0);
}
static inline cute_vreg kt_cmp(kt *k, cute_op op, cute_vreg a, cute_vreg b)
{
    return cute_ir_op(&k->b, op, cute_type_of(CUTE_I1), a, b, 0);
}
static inline cute_vreg kt_i64(kt *k, int64_t v) { return cute_ir_const_int(&k->b, CUTE_I64, v); }
static inline cute_vreg kt_i32(kt *k, int64_t v) { return cute_ir_const_int(&k->b, CUTE_I32, v); }
static inline cute_vreg kt_cvt(kt *k, cute_vreg a, cute_dtype d)
{
    cute_type t = cute_ir_type(k->f, a);
    return cute_ir_op(&k->b, CUTE_OP_CVT, cute_type_vec(d, t.lanes), a, 0, 0);
}
static inline cute_vreg kt_sreg64(kt *k, cute_sreg s) { return kt_cvt(k, cute_ir_sreg(&k->b, s), CUTE_I64); }

/* blockIdx.x * blockDim.x + threadIdx.x, as i64 */
static inline cute_vreg kt_gtid(kt *k)
{
    cute_vreg bid = kt_sreg64(k, CUTE_SREG_CTAID_X), nt = kt_sreg64(k, CUTE_SREG_NTID_X);
    return kt_bin(k, CUTE_OP_ADD, kt_bin(k, CUTE_OP_MUL, bid, nt), kt_sreg64(k, CUTE_SREG_TID_X));
}

static inline cute_vreg kt_ptr_add(kt *k, cute_vreg p, cute_vreg i)
{
    return cute_ir_op(&k->b, CUTE_OP_PTR_ADD, cute_ir_type(k->f, p), p, i, 0);
}
/* a load of type t (lanes too) through p, at alignment = its size */
static inline cute_vreg kt_load_t(kt *k, cute_vreg p, cute_type t, int align)
{
    cute_vreg r = cute_ir_op(&k->b, CUTE_OP_LOAD, t, p, 0, 0);
    k->b.last->imm = align ? align : cute_dtype_bytes((cute_dtype)t.dtype) * t.lanes;
    return r;
}
static inline cute_vreg kt_load(kt *k, cute_vreg p)
{
    return kt_load_t(k, p, cute_type_of((cute_dtype)cute_ir_type(k->f, p).pointee), 0);
}
static inline void kt_store_a(kt *k, cute_vreg p, cute_vreg v, int align)
{
    cute_type t = cute_ir_type(k->f, v);
    cute_ir_op_void(&k->b, CUTE_OP_STORE, t, p, v, 0,
                    align ? align : cute_dtype_bytes((cute_dtype)t.dtype) * t.lanes);
}
static inline void kt_store(kt *k, cute_vreg p, cute_vreg v) { kt_store_a(k, p, v, 0); }
static inline cute_vreg kt_smem(kt *k, cute_dtype pointee, int64_t off)
{
    cute_vreg r = cute_ir_op(&k->b, CUTE_OP_SMEM_PTR, cute_type_ptr(pointee, CUTE_SMEM), 0, 0, 0);
    k->b.last->imm = off;
    return r;
}
static inline void kt_barrier(kt *k) { cute_ir_op_void(&k->b, CUTE_OP_BARRIER, cute_type_of(CUTE_VOID), 0, 0, 0, 0); }
static inline cute_vreg kt_var(kt *k, cute_vreg init)
{
    cute_vreg r = cute_ir_new_vreg(k->f, cute_ir_type(k->f, init), "v", true);
    cute_ir_mov(&k->b, r, init);
    return r;
}
/* a FOR over a fresh i64 variable; returns it (close with cute_ir_end) */
static inline cute_vreg kt_for(kt *k, cute_vreg lo, cute_vreg hi, int64_t step)
{
    cute_vreg i = cute_ir_new_vreg(k->f, cute_type_of(CUTE_I64), "i", false);
    cute_ir_for(&k->b, i, lo, hi, step, 0);
    return i;
}
static inline void kt_printf(kt *k, const char *fmt, int n, const cute_vreg *args)
{
    cute_ir_inst *in = cute_ir_append(&k->b, CUTE_OP_PRINTF);
    in->str = cute_ir_strdup(k->f, fmt);
    in->nvar = (uint32_t)n;
    in->var = cute_ir_alloc(k->f, (size_t)(n ? n : 1) * sizeof(cute_vreg));
    for (int i = 0; i < n; i++) in->var[i] = args[i];
}

/* --- running -------------------------------------------------------------------------- */

static inline cute_backend kt_backend(const cute_interp_opts *o)
{
    cute_backend be;
    cute_status s = cute_interp_new(o, &be);
    if (s != CUTE_OK) {
        fprintf(stderr, "cute_interp_new failed\n");
        exit(1);
    }
    return be;
}

/* compile k's function (freed after); NULL with the log printed when it fails */
static inline cute_module *kt_compile(cute_backend be, kt *k)
{
    cute_module *m = NULL;
    const char *log = NULL;
    cute_status s = be.vt->compile(be.self, &k->f, 1, &m, &log);
    if (s != CUTE_OK) fprintf(stderr, "compile %s: %s\n", k->f->name, log ? log : "?");
    cute_ir_func_free(k->f);
    k->f = NULL;
    return m;
}

static inline cute_buffer kt_buf(cute_backend be, const void *data, size_t bytes)
{
    cute_buffer b;
    if (be.vt->alloc(be.self, bytes, &b) != CUTE_OK) {
        fprintf(stderr, "alloc failed\n");
        exit(1);
    }
    if (data) be.vt->upload(be.self, &b, 0, data, bytes);
    return b;
}

static inline cute_launch_arg kt_arg_buf(const cute_buffer *b, cute_dtype pointee)
{
    cute_launch_arg a;
    memset(&a, 0, sizeof a);
    a.type = cute_type_ptr(pointee, CUTE_GMEM);
    a.buf = b;
    return a;
}
static inline cute_launch_arg kt_arg_int(cute_dtype d, int64_t v)
{
    cute_launch_arg a;
    memset(&a, 0, sizeof a);
    a.type = cute_type_of(d);
    a.v.i = v;
    return a;
}

static inline cute_status kt_launch(cute_backend be, cute_module *m, uint32_t grid, uint32_t block,
                             uint32_t smem, const cute_launch_arg *args, int n)
{
    cute_launch cfg = {.grid = {grid, 1, 1}, .block = {block, 1, 1}, .smem_bytes = smem};
    return be.vt->launch(be.self, m, 0, &cfg, args, n);
}

static inline const cute_interp_report *kt_report(cute_backend be, int i)
{
    int n;
    const cute_interp_report *r = cute_interp_reports(be, &n);
    return i < n ? &r[i] : NULL;
}

#endif
