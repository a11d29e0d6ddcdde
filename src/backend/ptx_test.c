/* The PTX backend without a GPU (the interpreter cannot run PTX): its module for each of the
 * library's kernels (elementwise, the step-5 GEMM of every tensor-core dtype, the Hopper
 * GEMM, rows, attention's forward) assembled by the toolkit's ptxas for sm_90a and sm_80:
 * no errors, no spills beyond the CUDA C path's, and ptxas's registers and SASS
 * instructions printed beside the CUDA C path's (NVRTC); every conversion pair and every
 * arithmetic op of every dtype assembled too (ptxas refuses a malformed cvt or a wrong
 * operand type).  Skipped visibly without ptxas (and the CUDA C side without NVRTC).  The
 * GPU side (each kernel through the driver's JIT against float64) is scripts/device-ptx3.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli/rows_problem.h"
#include "cutec/attention.h"
#include "cutec/kernels.h"
#include "cutec/ptx.h"
#include "jit/jit_internal.h"
#include "kernels/rows/rows_lib.h"

static bool have_ptxas = true, have_nvrtc = true;

/* the SASS instructions of a cubin: its .text.<kernel> sections' bytes / 16 (no cuobjdump
 * or nvdisasm needed); -1 for what is not a 64-bit ELF */
static long sass_count(const unsigned char *p, size_t len)
{
    if (len < 64 || memcmp(p, "\x7f" "ELF", 4) || p[4] != 2) return -1;
    uint64_t shoff;
    uint16_t shentsize, shnum, shstrndx;
    memcpy(&shoff, p + 40, 8), memcpy(&shentsize, p + 58, 2), memcpy(&shnum, p + 60, 2), memcpy(&shstrndx, p + 62, 2);
    if (shoff + (uint64_t)shnum * shentsize > len || shstrndx >= shnum) return -1;
    const unsigned char *strh = p + shoff + (uint64_t)shstrndx * shentsize;
    uint64_t stroff;
    memcpy(&stroff, strh + 24, 8);
    long n = 0;
    for (int i = 0; i < shnum; i++) {
        const unsigned char *h = p + shoff + (uint64_t)i * shentsize;
        uint32_t name;
        uint64_t size;
        memcpy(&name, h, 4), memcpy(&size, h + 32, 8);
        if (stroff + name < len && !strncmp((const char *)p + stroff + name, ".text.", 6)) n += (long)(size / 16);
    }
    return n;
}

static long number_after(const char *text, const char *key)
{
    const char *p = text ? strstr(text, key) : NULL;
    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static long last_regs, last_cregs; /* compare's last registers: the PTX backend's, the CUDA C path's */

/* f's kernels through both paths for arch; may_fall_back: the PTX backend may decline
 * (a math function it leaves to CUDA C), which is printed with its reason; spill_gap: the
 * bytes it may spill past the CUDA C path's, a known gap (printed) */
static void compare(const char *label, const cute_fn *f, const char *arch, bool may_fall_back, long spill_gap)
{
    if (!f) return;
    int nk = cute_fn_kernel_count(f);
    const cute_ir_func *k[16];
    for (int i = 0; i < nk && i < 16; i++) k[i] = cute_fn_kernel(f, i);
    char err[4096], *ptx = NULL;
    cute_ptx_opts o = {.arch = arch};
    cute_status s = cute_ptx_emit(k, nk, &o, &ptx, err, sizeof err);
    if (s == CUTE_ERR_UNSUPPORTED && may_fall_back) {
        printf("  %-28s %-7s CUDA C instead: %s\n", label, arch, err);
        return;
    }
    CHECK(s == CUTE_OK, "%s %s: %s", label, arch, err);
    if (s != CUTE_OK || !have_ptxas) {
        free(ptx);
        return;
    }
    void *cubin = NULL;
    size_t len = 0;
    char *log = NULL;
    double ms = 0;
    s = cute_ptx_assemble_kernels(k, nk, &o, &ptx, 3, &cubin, &len, &log, &ms, err, sizeof err);
    if (s == CUTE_ERR_NO_DRIVER) {
        have_ptxas = false;
        SKIP("no ptxas: the PTX is not assembled");
        free(ptx);
        return;
    }
    CHECK(s == CUTE_OK, "%s %s: ptxas: %s", label, arch, err);
    long regs = number_after(log, "Used "), spills = cute_ptx_spilled(log);
    long sass = s == CUTE_OK ? sass_count(cubin, len) : -1;
    /* the CUDA C path: NVRTC's cubin and ptxas's report */
    long cregs = -1, cspills = -1, csass = -1;
    char *src = NULL;
    if (have_nvrtc && cute__fn_cuda_source(f, arch, &src, err, sizeof err) == CUTE_OK) {
        cute_nvrtc_output no;
        cute_status ns = cute__nvrtc_of(src, arch, true, &no, err, sizeof err);
        if (ns == CUTE_OK) {
            cregs = number_after(no.log, "Used ");
            cspills = cute_ptx_spilled(no.log);
            csass = sass_count(no.cubin, no.cubin_size);
            cute_nvrtc_output_free(&no);
        } else if (ns == CUTE_ERR_NO_NVRTC) {
            have_nvrtc = false;
            SKIP("no NVRTC: the CUDA C side is not compared");
        }
    }
    free(src);
    printf("  %-28s %-7s ptx: %3ld registers, %5ld SASS, %ld bytes spilled (ptxas %4.0f ms) | cuda c: %3ld, %5ld, %ld\n",
           label, arch, regs, sass, spills, ms, cregs, csass, cspills);
    last_regs = regs, last_cregs = cregs;
    CHECK(regs > 0 && sass > 0, "%s %s: an unreadable report or cubin:\n%s", label, arch, log ? log : "");
    CHECK(cspills < 0 || spills <= cspills + spill_gap, "%s %s: %ld bytes spilled, CUDA C's path %ld", label, arch,
          spills, cspills);
    if (cspills >= 0 && spills > cspills) printf("  %-28s %-7s a known gap: %ld bytes spilled past CUDA C's\n", label, arch, spills - cspills);
    free(cubin), free(log), free(ptx);
}

static cute_runtime *runtime(const char *arch)
{
    char err[512];
    cute_runtime *rt = NULL;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) return NULL;
    cute_runtime_set_target_arch(rt, arch);
    return rt;
}

static void elementwise(const char *arch)
{
    static const struct { cute_ew_op op; cute_dtype in, out; } cases[] = {
        {CUTE_EW_ADD, CUTE_BF16, CUTE_BF16}, {CUTE_EW_DIV, CUTE_F32, CUTE_F32}, {CUTE_EW_MAX, CUTE_F16, CUTE_F16},
        {CUTE_EW_RELU, CUTE_BF16, CUTE_BF16}, {CUTE_EW_CAST, CUTE_F32, CUTE_BF16}, {CUTE_EW_GELU, CUTE_BF16, CUTE_BF16},
    };
    cute_runtime *rt = runtime(arch);
    for (size_t i = 0; rt && i < sizeof cases / sizeof *cases; i++) {
        int64_t shape[2] = {8192, 8192}, stride[2] = {8192, 1};
        cute_buffer fake = {(void *)(uintptr_t)4096, (size_t)1 << 40, 0, 0};
        cute_buffer fake_out = {(void *)((uintptr_t)1 << 41), (size_t)1 << 40, 0, 1};
        cute_call_arg a = cute_call_tensor(&fake, 0, cases[i].in, 2, shape, stride);
        cute_call_arg c = cute_call_tensor(&fake_out, 0, cases[i].out, 2, shape, stride);
        cute_call_arg in[2] = {a, a};
        char err[1024], label[64];
        const cute_fn *f = cute_ew_compile(rt, "ew", cute_ew_op_expr, (void *)(intptr_t)cases[i].op,
                                           cute_ew_op_arity(cases[i].op), in, &c, NULL, err, sizeof err);
        CHECK(f != NULL, "elementwise: %s", err);
        snprintf(label, sizeof label, "elementwise %s %s", cute_ew_op_name(cases[i].op), cute_dtype_name(cases[i].in));
        compare(label, f, arch, cases[i].op == CUTE_EW_GELU, 0); /* erff: CUDA C's */
        cute_fn_free(f);
    }
    cute_runtime_free(rt);
}

static void gemm(cute_gemm_variant v, cute_dtype d, cute_dtype c, const char *arch)
{
    cute_runtime *rt = runtime(arch);
    if (!rt) return;
    cute_gemm_config cfg = {.variant = v, .dtype = d, .c_dtype = c, .major = {1, 1, 0}, .align_bytes = 16,
                            .index_bound = CUTE_GEMM_INDEX_BOUND};
    char err[2048], label[64];
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(f != NULL, "gemm %s %s: %s", cute_dtype_name(d), arch, err);
    snprintf(label, sizeof label, "gemm %s %s", cute_gemm_variant_name(v), cute_dtype_name(d));
    compare(label, f, arch, false, 0);
    cute_fn_free(f);
    cute_runtime_free(rt);
}

/* a row kernel of op at m x n (backward or not): its PTX assembled beside the CUDA C path's */
static void rows_at(rp_op op, bool backward, int64_t m, int64_t n, const char *arch, bool may_fall_back, long spill_gap)
{
    cute_runtime *rt = runtime(arch);
    if (!rt) return;
    cutec_rows *lib = cutec_rows_new(rt);
    rows_problem p;
    rp_init(&p, op, backward, CUTE_BF16, m, n, cute_runtime_backend(rt), lib);
    rows_lib_dry_run(lib, true);
    bool ok = rp_setup(&p, true) && rp_call(&p) == CUTE_OK;
    CHECK(ok, "rows %s: %s", rp_op_name(op), p.err);
    char label[96];
    snprintf(label, sizeof label, "rows %s%s bf16 %lldx%lld", rp_op_name(op), backward ? " backward" : "", (long long)m,
             (long long)n);
    if (ok) compare(label, rows_lib_last(lib), arch, may_fall_back, spill_gap);
    rp_free(&p);
    cutec_rows_free(lib);
    cute_runtime_free(rt);
}

static void rows(rp_op op, const char *arch, bool may_fall_back) { rows_at(op, false, 4096, 4096, arch, may_fall_back, 0); }

static void attention(const char *arch)
{
    cute_runtime *rt = runtime(arch);
    if (!rt) return;
    cute_attention_config cfg = {.dtype = CUTE_BF16, .head_dim = 128};
    char err[2048];
    const cute_fn *f = cute_attention_compile(rt, &cfg, err, sizeof err);
    CHECK(f != NULL, "attention: %s", err);
    compare("attention fwd bf16 d128", f, arch, true, 0); /* log2f: CUDA C's */
    cute_fn_free(f);
    cute_runtime_free(rt);
}

/* --- every conversion and arithmetic op, one small kernel each ----------------------- */

static const cute_dtype numbers[] = {CUTE_I1,  CUTE_I8,  CUTE_I16, CUTE_I32,  CUTE_I64, CUTE_U8,  CUTE_U16,
                                     CUTE_U32, CUTE_U64, CUTE_F16, CUTE_BF16, CUTE_F32, CUTE_F64, CUTE_TF32};

/* y[0] = op(x[0], x[1], x[2]) for dtype s (CVT: to t), lanes wide */
static cute_ir_func *one_op(cute_op op, cute_dtype s, cute_dtype t, int lanes)
{
    cute_ir_func *f = cute_ir_func_new("k");
    if (!f) return NULL;
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    cute_vreg x = cute_ir_add_param(f, cute_type_ptr(s, CUTE_GMEM), "x");
    bool cmp = op >= CUTE_OP_EQ && op <= CUTE_OP_GE;
    cute_dtype rd = op == CUTE_OP_CVT ? t : cmp ? CUTE_I1 : s;
    cute_vreg y = cute_ir_add_param(f, cute_type_ptr(rd, CUTE_GMEM), "y");
    cute_type st = lanes > 1 ? cute_type_vec(s, lanes) : cute_type_of(s);
    cute_type rt = lanes > 1 ? cute_type_vec(rd, lanes) : cute_type_of(rd);
    cute_vreg v[3];
    for (int k = 0; k < 3; k++) {
        cute_vreg at = cute_ir_op(&b, CUTE_OP_PTR_ADD, cute_ir_type(f, x), x, cute_ir_const_int(&b, CUTE_I32, k * lanes), 0);
        v[k] = cute_ir_op(&b, CUTE_OP_LOAD, st, at, 0, 0);
        b.last->imm = cute_dtype_bytes(s);
    }
    int n = cute_op_nargs(op);
    cute_vreg r;
    if (op == CUTE_OP_CVT || op == CUTE_OP_BITCAST)
        r = cute_ir_op(&b, op, rt, v[0], 0, 0);
    else
        r = cute_ir_op(&b, op, rt, v[0], n > 1 ? v[1] : 0, n > 2 ? v[2] : 0);
    cute_ir_op_void(&b, CUTE_OP_STORE, rt, y, r, 0, cute_dtype_bytes(rd));
    return f;
}

/* the op assembles (or the generator declines it with a reason, counted).  Under the
 * sanitizers every op is said (the generator is the host code they check) and the first
 * assembled (check_sweep_runs): ptxas, a program of its own, reads the same PTX in the
 * plain build's run */
static int assembled;
static int assembles(cute_ir_func *f, const char *what, int *declined)
{
    char err[4096], *ptx = NULL;
    if (cute_ir_verify(f, err, sizeof err) != 0) return cute_ir_func_free(f), 0; /* not the IR's */
    const cute_ir_func *k[1] = {f};
    cute_ptx_opts o = {.arch = "sm_90a"};
    cute_status s = cute_ptx_emit(k, 1, &o, &ptx, err, sizeof err);
    cute_ir_func_free(f);
    if (s == CUTE_ERR_UNSUPPORTED) return (*declined)++, 0;
    CHECK(s == CUTE_OK, "%s: %s", what, err);
    if (s == CUTE_OK && have_ptxas && check_sweep_runs(assembled++)) {
        char *log = NULL;
        s = cute_ptx_assemble(ptx, "sm_90a", 3, NULL, NULL, &log, NULL, err, sizeof err);
        if (s == CUTE_ERR_NO_DRIVER) have_ptxas = false;
        CHECK(s == CUTE_OK || s == CUTE_ERR_NO_DRIVER, "%s: %s\n%s", what, err, ptx);
        free(log);
    }
    free(ptx);
    return 1;
}

static void every_op(void)
{
    int said = 0, declined = 0;
    size_t nn = sizeof numbers / sizeof *numbers;
    for (size_t i = 0; i < nn; i++)
        for (size_t j = 0; j < nn; j++) {
            char what[64];
            snprintf(what, sizeof what, "cvt %s -> %s", cute_dtype_name(numbers[i]), cute_dtype_name(numbers[j]));
            said += assembles(one_op(CUTE_OP_CVT, numbers[i], numbers[j], 1), what, &declined);
        }
    for (int op = CUTE_OP_ADD; op <= CUTE_OP_POW; op++) {
        if (op == CUTE_OP_CVT || op == CUTE_OP_BITCAST || op == CUTE_OP_SELECT) continue;
        for (size_t i = 0; i < nn; i++)
            for (int lanes = 1; lanes <= 4; lanes += 3) {
                char what[64];
                snprintf(what, sizeof what, "%s %s x%d", cute_op_name((cute_op)op), cute_dtype_name(numbers[i]), lanes);
                said += assembles(one_op((cute_op)op, numbers[i], numbers[i], lanes), what, &declined);
            }
    }
    printf("  every op: %d kernels said (%s assembled), %d left to CUDA C (math without one PTX instruction, "
           "narrow floats)\n", said, check_sweep_runs(1) ? "all" : "the first", declined);
    CHECK(said > 300, "only %d", said);
}

/* ptx_divide.c's sequences, step by step in C, against C's / and % (the PTX is the same
 * arithmetic: mul.hi.u32, shifts, abs, a select) */
static uint32_t udiv_seq(uint32_t n, uint32_t d)
{
    int l = 0;
    while (((uint64_t)1 << l) < d) l++;
    if (((uint64_t)1 << l) == d) return n >> l;
    uint32_t m = (uint32_t)((((uint64_t)1 << l) - d) * ((uint64_t)1 << 32) / d + 1);
    uint32_t t = (uint32_t)(((uint64_t)m * n) >> 32);
    return (t + ((n - t) >> 1)) >> (l - 1);
}

static int32_t sdiv_seq(int32_t n, uint32_t d)
{
    int l = 0;
    while (((uint64_t)1 << l) < d) l++;
    if (((uint64_t)1 << l) == d) {
        uint32_t bias = (uint32_t)(n >> 31) >> (32 - l);
        return (int32_t)((uint32_t)n + bias) >> l;
    }
    uint32_t q = udiv_seq(n < 0 ? 0u - (uint32_t)n : (uint32_t)n, d);
    return n < 0 ? (int32_t)(0u - q) : (int32_t)q;
}

static void division(void)
{
    static const uint32_t ds[] = {2, 3, 5, 6, 7, 10, 64, 100, 128, 641, 1000, 65535, 65536, 1u << 30, 0x7fffffff,
                                  0x80000000u, 0xfffffffeu, 0xffffffffu};
    uint64_t x = 12345;
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t n = (uint32_t)(x >> 32);
        if (i < 64) n = i < 32 ? (uint32_t)i : 0xffffffffu - (uint32_t)(i - 32); /* the edges */
        if (i == 64) n = 0x80000000u;
        for (size_t k = 0; k < sizeof ds / sizeof *ds; k++) {
            uint32_t d = ds[k];
            bad += udiv_seq(n, d) != n / d;
            if (d <= 0x7fffffff) bad += sdiv_seq((int32_t)n, d) != (int32_t)((int64_t)(int32_t)n / (int64_t)d);
        }
    }
    CHECK(bad == 0, "%d quotients differ from C's", bad);
}

/* a kernel k(int *x, int *y) being built by b, with the generator's variable form=1 */
static cute_ir_func *xy_kernel(cute_ir_builder *b, cute_vreg *x, cute_vreg *y, const char *form)
{
    setenv(form, "1", 1);
    cute_ir_func *f = cute_ir_func_new("k");
    cute_ir_builder_init(b, f);
    *x = cute_ir_add_param(f, cute_type_ptr(CUTE_I32, CUTE_GMEM), "x");
    *y = cute_ir_add_param(f, cute_type_ptr(CUTE_I32, CUTE_GMEM), "y");
    return f;
}

/* *p as t, align bytes aligned */
static cute_vreg load(cute_ir_builder *b, cute_type t, cute_vreg p, int align)
{
    cute_vreg v = cute_ir_op(b, CUTE_OP_LOAD, t, p, 0, 0);
    b->last->imm = align;
    return v;
}

/* f verified and said for sm_90a (f freed): its PTX (malloc'd), or NULL after a failed check */
static char *said(cute_ir_func *f, const char *what)
{
    char err[512], *ptx = NULL;
    CHECK(cute_ir_verify(f, err, sizeof err) == 0, "%s: %s", what, err);
    const cute_ir_func *k[1] = {f};
    CHECK(cute_ptx_emit(k, 1, &(cute_ptx_opts){.arch = "sm_90a"}, &ptx, err, sizeof err) == CUTE_OK, "%s: %s", what, err);
    cute_ir_func_free(f);
    return ptx;
}

/* ptx_late.c: a deferred move is written before anything assigns what it reads.  z = m is
 * deferred; m = c assigns m, so z = m comes first (else z would read c) */
static void late_order(void)
{
    cute_ir_builder b;
    cute_vreg x, y;
    cute_ir_func *f = xy_kernel(&b, &x, &y, "CUTEC_PTX_LATE");
    cute_type i32 = cute_type_of(CUTE_I32);
    cute_vreg a = load(&b, i32, x, 4);
    cute_vreg m = cute_ir_new_vreg(f, i32, "m", true), z = cute_ir_new_vreg(f, i32, "z", true);
    cute_ir_mov(&b, m, a);
    cute_ir_mov(&b, z, m);
    cute_vreg x1 = cute_ir_op(&b, CUTE_OP_PTR_ADD, cute_ir_type(f, x), x, cute_ir_const_int(&b, CUTE_I32, 1), 0);
    cute_vreg c = load(&b, i32, x1, 4);
    cute_ir_mov(&b, m, c);
    cute_ir_op_void(&b, CUTE_OP_STORE, i32, y, z, 0, 4);
    cute_vreg y1 = cute_ir_op(&b, CUTE_OP_PTR_ADD, cute_ir_type(f, y), y, cute_ir_const_int(&b, CUTE_I32, 1), 0);
    cute_ir_op_void(&b, CUTE_OP_STORE, i32, y1, m, 0, 4);
    char *ptx = said(f, "late_order"), zm[64], mc[64];
    snprintf(zm, sizeof zm, "mov.b32 %%r%u, %%r%u;", z, m);
    snprintf(mc, sizeof mc, "mov.b32 %%r%u, %%r%u;", m, c);
    const char *p1 = ptx ? strstr(ptx, zm) : NULL, *p2 = ptx ? strstr(ptx, mc) : NULL;
    CHECK(p1 && p2 && p1 < p2, "late_order: `%s` must come before `%s`:\n%s", zm, mc, ptx ? ptx : "");
    free(ptx);
    unsetenv("CUTEC_PTX_LATE");
}

/* ptx_else.c: `if (p) r = *x; else r = 0` is the zero, then the load under the branch; where
 * the then branch reads what the else branch writes (q = r + 1 reading r = 5), two branches */
static cute_ir_func *guarded(bool then_reads)
{
    cute_ir_builder b;
    cute_vreg x, y;
    cute_ir_func *f = xy_kernel(&b, &x, &y, "CUTEC_PTX_ELSE");
    cute_type i32 = cute_type_of(CUTE_I32);
    cute_vreg t = cute_ir_sreg(&b, CUTE_SREG_TID_X);
    cute_vreg p = cute_ir_op(&b, CUTE_OP_LT, cute_type_of(CUTE_I1), t, cute_ir_const_int(&b, CUTE_I32, 7), 0);
    cute_vreg r = cute_ir_new_vreg(f, i32, "r", true), q = cute_ir_new_vreg(f, i32, "q", true);
    cute_ir_mov(&b, r, cute_ir_const_int(&b, CUTE_I32, 1));
    cute_ir_mov(&b, q, r);
    cute_ir_if(&b, p);
    if (then_reads) cute_ir_mov(&b, q, cute_ir_op(&b, CUTE_OP_ADD, i32, r, cute_ir_const_int(&b, CUTE_I32, 1), 0));
    cute_vreg v = load(&b, i32, x, 4);
    cute_ir_mov(&b, r, v);
    cute_ir_else(&b);
    cute_ir_mov(&b, r, cute_ir_const_int(&b, CUTE_I32, 5));
    cute_ir_end(&b);
    cute_ir_op_void(&b, CUTE_OP_STORE, i32, y, cute_ir_op(&b, CUTE_OP_ADD, i32, r, q, 0), 0, 4);
    return f;
}

static void else_first(void)
{
    for (int then_reads = 0; then_reads < 2; then_reads++) {
        char *ptx = said(guarded(then_reads), "else_first");
        const char *five = ptx ? strstr(ptx, ", 0x5;") : NULL, *bra = ptx ? strstr(ptx, " bra ") : NULL;
        bool first = five && bra && five < bra;
        CHECK(first == !then_reads, "else_first (the then branch %s): the else branch %s:\n%s",
              then_reads ? "reads r" : "does not read r", first ? "first" : "after", ptx ? ptx : "");
        free(ptx);
    }
    unsetenv("CUTEC_PTX_ELSE");
}

/* ptx_else.c's load into its register: `if (p) r = *x (4 lanes) else r = z` loads r's own
 * registers (no moves after the load for ptxas to predicate) */
static void load_into(void)
{
    cute_ir_builder b;
    cute_vreg x, y;
    cute_ir_func *f = xy_kernel(&b, &x, &y, "CUTEC_PTX_ELSE");
    cute_type v4 = cute_type_vec(CUTE_I32, 4);
    cute_vreg z = load(&b, v4, y, 16);
    cute_vreg p = cute_ir_op(&b, CUTE_OP_LT, cute_type_of(CUTE_I1), cute_ir_sreg(&b, CUTE_SREG_TID_X),
                             cute_ir_const_int(&b, CUTE_I32, 7), 0);
    cute_vreg r = cute_ir_new_vreg(f, v4, "r", true);
    cute_ir_mov(&b, r, z);
    cute_ir_if(&b, p);
    cute_vreg v = load(&b, v4, x, 16);
    cute_ir_mov(&b, r, v);
    cute_ir_else(&b);
    cute_ir_mov(&b, r, z);
    cute_ir_end(&b);
    cute_ir_op_void(&b, CUTE_OP_STORE, v4, y, r, 0, 16);
    char *ptx = said(f, "load_into"), want[64];
    snprintf(want, sizeof want, "{%%r%u_0, %%r%u_1, %%r%u_2, %%r%u_3}, [%%rd%u]", r, r, r, r, x);
    CHECK(ptx && strstr(ptx, want), "load_into: no load of `%s`:\n%s", want, ptx ? ptx : "");
    free(ptx);
    unsetenv("CUTEC_PTX_ELSE");
}

/* ptx_counter.c: in `for (k = 0; k < n; k++) y[k] = (k + 2) % 3` the remainder starts at 2
 * before the loop and steps at the end of each trip, back to 0 at 3 (no rem in the loop) */
static void counters(void)
{
    cute_ir_builder b;
    cute_vreg x, y, k;
    cute_ir_func *f = xy_kernel(&b, &x, &y, "CUTEC_PTX_SUMS");
    cute_type i32 = cute_type_of(CUTE_I32);
    k = cute_ir_new_vreg(f, i32, "k", true);
    cute_ir_for(&b, k, cute_ir_const_int(&b, CUTE_I32, 0), load(&b, i32, x, 4), 1, 0);
    cute_vreg r = cute_ir_op(&b, CUTE_OP_REM, i32, cute_ir_op(&b, CUTE_OP_ADD, i32, k, cute_ir_const_int(&b, CUTE_I32, 2), 0),
                             cute_ir_const_int(&b, CUTE_I32, 3), 0);
    cute_ir_op_void(&b, CUTE_OP_STORE, i32, cute_ir_op(&b, CUTE_OP_PTR_ADD, cute_ir_type(f, y), y, k, 0), r, 0, 4);
    cute_ir_end(&b);
    char *ptx = said(f, "counters"), first[64], wrap[64];
    snprintf(first, sizeof first, "mov.b32 %%r%u, 2;", r);
    snprintf(wrap, sizeof wrap, "selp.b32 %%r%u, 0, %%r%u,", r, r);
    CHECK(ptx && strstr(ptx, first) && strstr(ptx, wrap) && !strstr(ptx, "rem.") && !strstr(ptx, "mul.hi"),
          "counters: want `%s`, `%s` and no division:\n%s", first, wrap, ptx ? ptx : "");
    free(ptx);
    unsetenv("CUTEC_PTX_SUMS");
}

/* the opt-in forms (CUTEC_PTX_LATE, CUTEC_PTX_SUMS) on the timed kernels: they assemble, and
 * RMSNorm's weights stay packed (its registers at most the CUDA C path's) */
static void opt_in_forms(void)
{
    setenv("CUTEC_PTX_LATE", "1", 1);
    setenv("CUTEC_PTX_SUMS", "1", 1);
    setenv("CUTEC_PTX_ELSE", "1", 1);
    printf("with CUTEC_PTX_LATE=1 CUTEC_PTX_SUMS=1 CUTEC_PTX_ELSE=1:\n");
    gemm(CUTE_GEMM_TENSOROP_SMEM, CUTE_BF16, CUTE_BF16, "sm_90a");
    gemm(CUTE_GEMM_TENSOROP_SMEM, CUTE_E4M3, CUTE_F32, "sm_90a"); /* spills with SUMS: said again without */
    gemm(CUTE_GEMM_HOPPER, CUTE_BF16, CUTE_BF16, "sm_90a");
    last_regs = last_cregs = -1;
    rows(RP_RMSNORM, "sm_90a", false);
    CHECK(!have_ptxas || last_cregs < 0 || last_regs <= last_cregs, "RMSNorm with CUTEC_PTX_LATE: %ld registers, CUDA C %ld",
          last_regs, last_cregs);
    unsetenv("CUTEC_PTX_LATE");
    unsetenv("CUTEC_PTX_SUMS");
    unsetenv("CUTEC_PTX_ELSE");
}

/* what it refuses, and says why */
static void refusals(void)
{
    char err[512], *ptx = (char *)1;
    cute_ir_func *f = one_op(CUTE_OP_ADD, CUTE_F32, CUTE_F32, 1);
    const cute_ir_func *k[1] = {f};
    CHECK(cute_ptx_emit(k, 1, &(cute_ptx_opts){.arch = "sm_70"}, &ptx, err, sizeof err) == CUTE_ERR_UNSUPPORTED &&
              !ptx && strstr(err, "sm_XX"), "sm_70: %s", err);
    CHECK(cute_ptx_emit(k, 1, &(cute_ptx_opts){.arch = "compute_90"}, &ptx, err, sizeof err) == CUTE_ERR_INVALID,
          "compute_90: %s", err);
    CHECK(cute_ptx_emit(k, 0, &(cute_ptx_opts){.arch = "sm_90a"}, &ptx, err, sizeof err) == CUTE_ERR_INVALID, "none");
    CHECK(cute_ptx_emit(k, 1, NULL, &ptx, err, sizeof err) == CUTE_ERR_INVALID, "no options");
    cute_ir_func_free(f);
    /* printf is CUDA C's: the reason names the op and the call site */
    f = cute_ir_func_new("p");
    cute_ir_builder b;
    cute_ir_builder_init(&b, f);
    b.file = "here.c", b.line = 7;
    cute_vreg x = cute_ir_const_int(&b, CUTE_I32, 1);
    cute_ir_varop(&b, CUTE_OP_PRINTF, "%d\n", &x, 1, 0);
    k[0] = f;
    CHECK(cute_ptx_emit(k, 1, &(cute_ptx_opts){.arch = "sm_90a"}, &ptx, err, sizeof err) == CUTE_ERR_UNSUPPORTED &&
              strstr(err, "printf") && strstr(err, "here.c:7"), "%s", err);
    cute_ir_func_free(f);
}

int main(void)
{
    division();
    refusals();
    char err[256];
    if (cute_ptx_assemble("", "sm_90a", 3, NULL, NULL, NULL, NULL, err, sizeof err) == CUTE_ERR_NO_DRIVER) {
        have_ptxas = false;
        SKIP("no ptxas: the PTX is generated, not assembled");
    }
    every_op();
    printf("the library's kernels: the PTX backend's | the CUDA C path's (registers, SASS instructions, spills)\n");
    elementwise("sm_90a");
    static const cute_dtype tc[][2] = {{CUTE_BF16, CUTE_BF16}, {CUTE_F16, CUTE_F16}, {CUTE_TF32, CUTE_F32},
                                       {CUTE_I8, CUTE_I32}, {CUTE_E4M3, CUTE_F32}};
    for (size_t i = 0; i < sizeof tc / sizeof *tc; i++) gemm(CUTE_GEMM_TENSOROP_SMEM, tc[i][0], tc[i][1], "sm_90a");
    for (size_t i = 0; i < 4; i++) gemm(CUTE_GEMM_TENSOROP_SMEM, tc[i][0], tc[i][1], "sm_80");
    gemm(CUTE_GEMM_HOPPER, CUTE_BF16, CUTE_BF16, "sm_90a");
    rows(RP_SOFTMAX, "sm_90a", false);
    rows(RP_RMSNORM, "sm_90a", false);
    rows(RP_LAYERNORM, "sm_90a", false);
    rows(RP_SUM, "sm_90a", false);
    rows(RP_XENT, "sm_90a", true);
    rows(RP_SOFTMAX, "sm_80", false);
    /* a row split over a cluster whose blocks walk rows with the pipelined exchange (st.async:
     * PTX ISA 8.1; the module once said 8.0 and ptxas refused it) */
    rows_at(RP_LAYERNORM, true, 37, 262136, "sm_90a", false, 8); /* 8 bytes spilled, CUDA C's none */
    rows_at(RP_RMSNORM, true, 37, 262144, "sm_90a", false, 0);
    attention("sm_90a");
    late_order();
    else_first();
    load_into();
    counters();
    opt_in_forms();
    return CHECK_DONE("backend/ptx");
}
