/* The narrow floats' CVT on every backend, bit for bit against include/cutec/numeric.h:
 *  - narrow_round: f32, f64, f16 and bf16 values to tf32, e4m3, e5m2, e2m1, ue8m0, ue4m3 over
 *    a sweep of f32 inputs: every code's value, the midpoints between neighbours and one f32
 *    ulp either side, tf32 ties, powers of two, infinities, NaN, signed zeros, subnormals,
 *    overflow, random values; the f64 inputs one f64 ulp off them (rounding once);
 *  - narrow_widen: every code (all 256 bytes; tf32 patterns) to f32, f16, bf16 and f64; an
 *    e2m1 byte's two nibbles each (an f64 NaN may have any payload: f32 -> f64 decides it).
 * The interpreter always runs it; NVRTC compiles it for sm_80, sm_89, sm_90a and sm_100a
 * (the PTX holds cvt.*.e4m3x2 from sm_89, e2m1x2 and ue8m0x2 on sm_100a only, the software
 * elsewhere); a GPU runs it when there is one (else a visible skip). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/interp.h"
#include "cutec/jit.h"
#include "cutec/nvrtc.h"

#define NT 6 /* narrow types */
#define NS 4 /* sources (narrow_round) and targets (narrow_widen) */
static const cute_dtype narrow[NT] = {CUTE_TF32, CUTE_E4M3, CUTE_E5M2, CUTE_E2M1, CUTE_UE8M0, CUTE_UE4M3};
static const cute_dtype wide[NS] = {CUTE_F32, CUTE_F64, CUTE_F16, CUTE_BF16};

static cute_vreg op(cute_ir_builder *b, cute_op o, cute_type t, cute_vreg a, int64_t imm)
{
    cute_vreg r = cute_ir_op(b, o, t, a, 0, 0);
    b->last->imm = imm;
    return r;
}
static cute_vreg cvt(cute_ir_builder *b, cute_vreg v, cute_dtype d) { return op(b, CUTE_OP_CVT, cute_type_of(d), v, 0); }
static cute_vreg bits(cute_ir_builder *b, cute_vreg v, cute_dtype d) { return op(b, CUTE_OP_BITCAST, cute_type_of(d), v, 0); }

/* p[k * n + i] */
static cute_vreg elem(cute_ir_builder *b, cute_vreg p, int k, cute_vreg n, cute_vreg i)
{
    cute_type i32 = cute_type_of(CUTE_I32);
    cute_vreg at = cute_ir_op(b, CUTE_OP_FMA, i32, cute_ir_const_int(b, CUTE_I32, k), n, i);
    return cute_ir_op(b, CUTE_OP_PTR_ADD, cute_ir_type(b->f, p), p, at, 0);
}

static void store(cute_ir_builder *b, cute_vreg p, cute_vreg v, int align)
{
    cute_ir_op_void(b, CUTE_OP_STORE, cute_ir_type(b->f, v), p, v, 0, align);
}

/* a kernel of params (named), opened at `if (i < n)`; *i the thread's index */
static cute_ir_func *begin(const char *name, cute_ir_builder *b, const cute_type *pt, const char **pn,
                           int np, cute_vreg *param, cute_vreg *i)
{
    cute_ir_func *f = cute_ir_func_new(name);
    cute_ir_builder_init(b, f);
    b->file = "narrow_cvt_test.c", b->line = 1;
    for (int k = 0; k < np; k++) param[k] = cute_ir_add_param(f, pt[k], pn[k]);
    cute_type i32 = cute_type_of(CUTE_I32);
    *i = cute_ir_op(b, CUTE_OP_FMA, i32, cute_ir_sreg(b, CUTE_SREG_CTAID_X), cute_ir_sreg(b, CUTE_SREG_NTID_X),
                    cute_ir_sreg(b, CUTE_SREG_TID_X));
    cute_ir_if(b, cute_ir_op(b, CUTE_OP_LT, cute_type_of(CUTE_I1), *i, param[np - 1], 0));
    return f;
}

/* a narrow value's code as a u32: tf32 its bits, an e2m1 in both nibbles of a byte */
static cute_vreg code_of(cute_ir_builder *b, cute_vreg v, cute_dtype d)
{
    if (d == CUTE_TF32) return bits(b, v, CUTE_U32);
    if (d == CUTE_E2M1) {
        cute_type two = cute_type_vec(CUTE_E2M1, 2);
        cute_vreg p = cute_ir_op(b, CUTE_OP_CONST, two, 0, 0, 0);
        for (int l = 0; l < 2; l++) p = cute_ir_op(b, CUTE_OP_INSERT, two, p, v, 0), b->last->imm = l;
        v = op(b, CUTE_OP_BITCAST, cute_type_of(CUTE_U8), p, 0);
    } else {
        v = bits(b, v, CUTE_U8);
    }
    return cvt(b, v, CUTE_U32);
}

/* out[(s * NT + t) * n + i] = code of CVT(source s of x[i]) to narrow type t */
static cute_ir_func *round_kernel(void)
{
    cute_ir_builder b;
    cute_vreg p[4], i;
    cute_type pt[4] = {cute_type_ptr(CUTE_F32, CUTE_GMEM), cute_type_ptr(CUTE_F64, CUTE_GMEM),
                       cute_type_ptr(CUTE_U32, CUTE_GMEM), cute_type_of(CUTE_I32)};
    const char *pn[4] = {"x", "xd", "out", "n"};
    cute_ir_func *f = begin("narrow_round", &b, pt, pn, 4, p, &i);
    cute_vreg x = op(&b, CUTE_OP_LOAD, cute_type_of(CUTE_F32), elem(&b, p[0], 0, p[3], i), 4);
    cute_vreg src[NS] = {x, op(&b, CUTE_OP_LOAD, cute_type_of(CUTE_F64), elem(&b, p[1], 0, p[3], i), 8),
                         cvt(&b, x, CUTE_F16), cvt(&b, x, CUTE_BF16)};
    for (int s = 0; s < NS; s++)
        for (int t = 0; t < NT; t++)
            store(&b, elem(&b, p[2], s * NT + t, p[3], i), code_of(&b, cvt(&b, src[s], narrow[t]), narrow[t]), 4);
    cute_ir_end(&b);
    return f;
}

/* out[(t * NS + w) * n + i] = CVT(code c[i] as narrow type t) to wide type w, as a u64 of
 * its bits; t == NT: the high nibble of an e2m1 byte */
static cute_ir_func *widen_kernel(void)
{
    cute_ir_builder b;
    cute_vreg p[3], i;
    cute_type pt[3] = {cute_type_ptr(CUTE_U32, CUTE_GMEM), cute_type_ptr(CUTE_U64, CUTE_GMEM), cute_type_of(CUTE_I32)};
    const char *pn[3] = {"codes", "out", "n"};
    cute_ir_func *f = begin("narrow_widen", &b, pt, pn, 3, p, &i);
    cute_vreg c = op(&b, CUTE_OP_LOAD, cute_type_of(CUTE_U32), elem(&b, p[0], 0, p[2], i), 4);
    cute_vreg byte = cvt(&b, c, CUTE_U8);
    cute_vreg nib = op(&b, CUTE_OP_BITCAST, cute_type_vec(CUTE_E2M1, 2), byte, 0);
    for (int t = 0; t <= NT; t++) {
        cute_dtype d = narrow[t < NT ? t : 3];
        cute_vreg v = d == CUTE_TF32   ? bits(&b, c, d)
                      : d == CUTE_E2M1 ? op(&b, CUTE_OP_EXTRACT, cute_type_of(d), nib, t == NT)
                                       : bits(&b, byte, d);
        for (int w = 0; w < NS; w++) {
            cute_vreg r = cvt(&b, v, wide[w]);
            int nb = cute_dtype_bits(wide[w]);
            r = bits(&b, r, nb == 64 ? CUTE_U64 : nb == 32 ? CUTE_U32 : CUTE_U16);
            store(&b, elem(&b, p[1], t * NS + w, p[2], i), nb == 64 ? r : cvt(&b, r, CUTE_U64), 8);
        }
    }
    cute_ir_end(&b);
    return f;
}

/* --- inputs and the reference ------------------------------------------------------------- */

typedef struct sweep {
    float *x;
    double *xd;
    int n, cap;
} sweep;

static void add(sweep *s, float v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->x = realloc(s->x, (size_t)s->cap * sizeof *s->x);
    }
    s->x[s->n++] = v;
}

/* a value, its negation, and their neighbours */
static void add4(sweep *s, float v)
{
    add(s, v), add(s, -v), add(s, nextafterf(v, INFINITY)), add(s, nextafterf(v, -INFINITY));
}

static float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static sweep make_sweep(void)
{
    sweep s = {0};
    for (int t = 1; t < NT; t++) /* each code, each midpoint to the next code */
        for (uint32_t c = 0; c < (narrow[t] == CUTE_E2M1 ? 8u : 255u); c++) {
            float a = cute_narrow_decode(narrow[t], c), b = cute_narrow_decode(narrow[t], c + 1);
            add4(&s, a);
            if (isfinite(a) && isfinite(b)) add4(&s, (a + b) / 2);
        }
    static const float special[] = {0, INFINITY, NAN, FLT_MAX, FLT_MIN, 0x1p-149f, 1e-30f, 449, 464,
                                    480, 57344, 61440, 65536, 6, 7, 0x1p127f, 0x1p-127f, 0x1p-126f};
    for (size_t k = 0; k < sizeof special / sizeof *special; k++) add4(&s, special[k]);
    uint32_t r = 2024;
    for (int k = 0; k < 2048; k++) {
        r = r * 1664525u + 1013904223u;
        add(&s, u2f(r));                          /* anything */
        add(&s, u2f((r & ~0x1fffu) | 0x1000u));    /* a tf32 tie */
        add(&s, u2f((r & 0x807fffffu) | (uint32_t)(110 + k % 40) << 23)); /* in range */
    }
    s.xd = malloc((size_t)s.n * sizeof *s.xd);
    for (int k = 0; k < s.n; k++) /* exact, or one f64 ulp off (a tie then rounds as it should) */
        s.xd[k] = k % 3 == 0 ? s.x[k] : nextafter(s.x[k], k % 3 == 1 ? INFINITY : -INFINITY);
    return s;
}

static uint32_t want_code(cute_dtype t, double v)
{
    uint32_t c = cute_narrow_encode(t, v);
    return t == CUTE_E2M1 ? c | c << 4 : c;
}

/* the value of source s of input k */
static double source(const sweep *s, int src, int k)
{
    float x = s->x[k];
    switch (wide[src]) {
    case CUTE_F64: return s->xd[k];
    case CUTE_F16: return cute_f16_to_f32(cute_f32_to_f16(x));
    case CUTE_BF16: return cute_bf16_to_f32(cute_f32_to_bf16(x));
    default: return x;
    }
}

static uint64_t want_wide(cute_dtype w, float f)
{
    uint64_t u = 0;
    double d = f;
    uint32_t b;
    memcpy(&b, &f, 4);
    switch (w) {
    case CUTE_F64: memcpy(&u, &d, 8); return u;
    case CUTE_F16: return cute_f32_to_f16(f);
    case CUTE_BF16: return cute_f32_to_bf16(f);
    default: return b;
    }
}

/* --- running ------------------------------------------------------------------------------- */

typedef struct run {
    cute_backend *be;
    cute_module *m;
    const char *name;
} run;

static cute_buffer buffer(run *r, const void *data, size_t bytes)
{
    cute_buffer b = {0};
    CHECK(r->be->vt->alloc(r->be->self, bytes, &b) == CUTE_OK, "%s: alloc", r->name);
    if (data) r->be->vt->upload(r->be->self, &b, 0, data, bytes);
    else {
        void *poison = malloc(bytes);
        memset(poison, 0xa5, bytes);
        r->be->vt->upload(r->be->self, &b, 0, poison, bytes);
        free(poison);
    }
    return b;
}

static cute_launch_arg ptr_arg(const cute_buffer *b, cute_dtype d)
{
    cute_launch_arg a;
    memset(&a, 0, sizeof a);
    a.type = cute_type_ptr(d, CUTE_GMEM);
    a.buf = b;
    return a;
}

static bool launch(run *r, int kernel, const cute_launch_arg *args, int nargs, int n)
{
    cute_launch cfg = {.grid = {(uint32_t)(n + 127) / 128, 1, 1}, .block = {128, 1, 1}};
    cute_status st = r->be->vt->launch(r->be->self, r->m, kernel, &cfg, args, nargs);
    CHECK(st == CUTE_OK, "%s: launch %d: %s", r->name, kernel, r->be->vt->error(r->be->self));
    return st == CUTE_OK;
}

/* A tf32 NaN's payload is the hardware's: cvt.rna.tf32.f32 keeps the input's upper payload
 * bits (H200, 2026-11-26: 0x7fffffff -> 0x7fffe000, 0x7fc00000 -> 0x7fc00000), so the
 * payload of a NaN the backend produced from a wider NaN depends on how that wider NaN
 * reached f32; cutec's host conversion gives the sign and 0x7fffe000.  A NaN of the same
 * sign is the right answer. */
static bool same_tf32_nan(cute_dtype t, uint32_t got, uint32_t want)
{
    bool gn = (got & 0x7fffffffu) > 0x7f800000u, wn = (want & 0x7fffffffu) > 0x7f800000u;
    return t == CUTE_TF32 && gn && wn && (got >> 31) == (want >> 31);
}

static void check_round(run *r, const sweep *s)
{
    int n = s->n;
    size_t nout = (size_t)NS * NT * n;
    cute_buffer bx = buffer(r, s->x, (size_t)n * 4), bd = buffer(r, s->xd, (size_t)n * 8), bo = buffer(r, NULL, nout * 4);
    cute_launch_arg a[4] = {ptr_arg(&bx, CUTE_F32), ptr_arg(&bd, CUTE_F64), ptr_arg(&bo, CUTE_U32)};
    a[3].type = cute_type_of(CUTE_I32), a[3].v.i = n;
    uint32_t *got = malloc(nout * 4);
    if (launch(r, 0, a, 4, n)) {
        r->be->vt->download(r->be->self, got, &bo, 0, nout * 4);
        for (int src = 0; src < NS; src++)
            for (int t = 0; t < NT; t++) {
                int bad = 0;
                for (int k = 0; k < n; k++) {
                    uint32_t w = want_code(narrow[t], source(s, src, k)), g = got[(size_t)(src * NT + t) * n + k];
                    if (g != w && !same_tf32_nan(narrow[t], g, w) && bad++ < 3)
                        fprintf(stderr, "  %s: %s %a -> %s: %x, want %x\n", r->name, cute_dtype_name(wide[src]),
                                source(s, src, k), cute_dtype_name(narrow[t]), g, w);
                }
                CHECK(bad == 0, "%s: %s -> %s: %d of %d wrong", r->name, cute_dtype_name(wide[src]),
                      cute_dtype_name(narrow[t]), bad, n);
            }
    }
    free(got);
    r->be->vt->free(r->be->self, &bx), r->be->vt->free(r->be->self, &bd), r->be->vt->free(r->be->self, &bo);
}

static void check_widen(run *r)
{
    enum { N = 1024 };
    uint32_t codes[N], x = 7;
    for (uint32_t k = 0; k < N; k++) { /* every byte, then tf32 patterns */
        x = x * 1664525u + 1013904223u;
        codes[k] = k < 256 ? k : k < 264 ? 0x7f800000u + (k - 256) * 0x2000u : x & ~0x1fffu;
    }
    size_t nout = (size_t)(NT + 1) * NS * N;
    cute_buffer bc = buffer(r, codes, sizeof codes), bo = buffer(r, NULL, nout * 8);
    cute_launch_arg a[3] = {ptr_arg(&bc, CUTE_U32), ptr_arg(&bo, CUTE_U64)};
    a[2].type = cute_type_of(CUTE_I32), a[2].v.i = N;
    uint64_t *got = malloc(nout * 8);
    if (launch(r, 1, a, 3, N)) {
        r->be->vt->download(r->be->self, got, &bo, 0, nout * 8);
        for (int t = 0; t <= NT; t++) {
            cute_dtype d = narrow[t < NT ? t : 3];
            int bad = 0;
            for (int w = 0; w < NS; w++)
                for (uint32_t k = 0; k < (d == CUTE_TF32 ? N : 256u); k++) {
                    uint32_t code = d == CUTE_TF32 ? codes[k] : t == NT ? k >> 4 : d == CUTE_E2M1 ? k & 15 : k;
                    uint64_t want = want_wide(wide[w], cute_narrow_decode(d, code));
                    uint64_t g = got[(size_t)(t * NS + w) * N + k];
                    double gd, wd;
                    memcpy(&gd, &g, 8), memcpy(&wd, &want, 8);
                    /* an f64 NaN's payload is f32 -> f64's business, which cutec leaves open */
                    if (wide[w] == CUTE_F64 && gd != gd && wd != wd) continue;
                    if (g != want && bad++ < 3)
                        fprintf(stderr, "  %s: %s %x -> %s: %llx, want %llx\n", r->name, cute_dtype_name(d), code,
                                cute_dtype_name(wide[w]), (unsigned long long)g, (unsigned long long)want);
                }
            CHECK(bad == 0, "%s: %s%s widened: %d wrong", r->name, cute_dtype_name(d), t == NT ? " (high nibble)" : "",
                  bad);
        }
    }
    free(got);
    r->be->vt->free(r->be->self, &bc), r->be->vt->free(r->be->self, &bo);
}

static void on_backend(cute_backend *be, const char *name, cute_ir_func *const *k, const sweep *s)
{
    run r = {be, NULL, name};
    const char *log = NULL;
    cute_status st = be->vt->compile(be->self, k, 2, &r.m, &log);
    CHECK(st == CUTE_OK, "%s: compile: %s", name, log ? log : "?");
    if (st != CUTE_OK) return;
    check_round(&r, s);
    check_widen(&r);
    be->vt->module_free(be->self, r.m);
}

/* the generated source compiles for each arch, with PTX's cvt where the arch has it */
static void compile_only(cute_ir_func *const *k)
{
    char err[512], why[600];
    cute_nvrtc *nv = NULL;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        snprintf(why, sizeof why, "no NVRTC: %s", err);
        SKIP(why);
        return;
    }
    static const struct { const char *arch; bool fp8, fp4; } archs[] = {
        {"sm_80", false, false}, {"sm_89", true, false}, {"sm_90a", true, false}, {"sm_100a", true, true}};
    for (int a = 0; a < 4; a++) {
        char *src = NULL;
        cute_cuda_c_opts eo = {.arch = archs[a].arch};
        cute_status st = cute_cuda_c_emit((const cute_ir_func *const *)k, 2, &eo, &src, err, sizeof err);
        CHECK(st == CUTE_OK, "emit for %s: %s", archs[a].arch, err);
        cute_nvrtc_output o = {0};
        if (st == CUTE_OK) st = cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = archs[a].arch}, &o);
        CHECK(st == CUTE_OK, "%s: %s", archs[a].arch, o.log ? o.log : "?");
        if (st == CUTE_OK) {
            const char *p = o.ptx;
            CHECK(strstr(p, "cvt.rna.tf32.f32"), "%s: cvt.rna.tf32.f32 in the PTX", archs[a].arch);
            CHECK(!strstr(p, "cvt.rn.satfinite.e4m3x2.f32") == !archs[a].fp8, "%s: e4m3x2 cvt %s", archs[a].arch,
                  archs[a].fp8 ? "expected" : "not expected");
            CHECK(!strstr(p, "cvt.rn.satfinite.relu.e4m3x2.f32") == !archs[a].fp8, "%s: ue4m3 cvt", archs[a].arch);
            CHECK(!strstr(p, "e2m1x2") == !archs[a].fp4 && !strstr(p, "ue8m0x2") == !archs[a].fp4,
                  "%s: e2m1x2/ue8m0x2 cvt %s", archs[a].arch, archs[a].fp4 ? "expected" : "not expected");
        }
        cute_nvrtc_output_free(&o);
        free(src);
    }
    cute_nvrtc_close(nv);
}

int main(void)
{
    cute_ir_func *k[2] = {round_kernel(), widen_kernel()};
    char err[512], why[600];
    for (int i = 0; i < 2; i++) CHECK(cute_ir_verify(k[i], err, sizeof err) == 0, "%s", err);
    sweep s = make_sweep();
    cute_backend interp;
    cute_interp_opts io = {.threads = 2};
    CHECK(cute_interp_new(&io, &interp) == CUTE_OK, "interpreter");
    on_backend(&interp, "interp", k, &s);
    interp.vt->destroy(interp.self);
    compile_only(k);
    cute_runtime *rt = NULL;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        snprintf(why, sizeof why, "no GPU: %s", err);
        SKIP(why);
    } else {
        on_backend(cute_runtime_backend(rt), "cuda", k, &s);
        cute_runtime_free(rt);
    }
    for (int i = 0; i < 2; i++) cute_ir_func_free(k[i]);
    free(s.x), free(s.xd);
    return CHECK_DONE("backend narrow_cvt");
}
