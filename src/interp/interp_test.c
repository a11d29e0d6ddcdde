/* The interpreter's semantics: integer ops of every width against a C reference, float
 * plumbing, control flow with divergent bounds (FOR, WHILE, BREAK, RETURN, nested IF),
 * printf order, atomics, shuffles and votes, vectors and conversions, the trace, and
 * results independent of the number of worker threads. */
#include <inttypes.h>

#include "interp/interp_testkit.h"

static cute_backend be;

static void use_backend(const cute_interp_opts *o)
{
    if (be.vt) be.vt->destroy(be.self);
    be = kt_backend(o);
}

/* run m once over grid x block with args; true when it ran clean */
static bool run(cute_module *m, uint32_t grid, uint32_t block, const cute_launch_arg *args, int n)
{
    if (!m) return false;
    cute_status s = kt_launch(be, m, grid, block, 0, args, n);
    CHECK(s == CUTE_OK, "launch: %s", be.vt->error(be.self));
    return s == CUTE_OK;
}

/* --- integers ------------------------------------------------------------------------------ */

enum { NI = 256 };
static const cute_op bin_ops[] = {CUTE_OP_ADD, CUTE_OP_SUB, CUTE_OP_MUL, CUTE_OP_DIV, CUTE_OP_REM,
                                  CUTE_OP_MIN, CUTE_OP_MAX, CUTE_OP_AND, CUTE_OP_OR,  CUTE_OP_XOR};
static const cute_op un_ops[] = {CUTE_OP_NEG, CUTE_OP_NOT, CUTE_OP_ABS};
static const cute_op cmp_ops[] = {CUTE_OP_EQ, CUTE_OP_NE, CUTE_OP_LT, CUTE_OP_LE, CUTE_OP_GT, CUTE_OP_GE};
#define NBIN 10
#define NUN 3
#define NCMP 6
#define NOUT (NBIN + 2 + NUN + 1) /* + SHL, SHR, + FMA */

/* out[k * n + i] = op_k(x[i], y[i]) (shifts by s[i]); ob[k * n + i] = cmp_k(x[i], y[i]) */
static cute_module *int_kernel(cute_dtype d)
{
    kt k;
    kt_begin(&k, "int_ops");
    cute_vreg X = kt_param_ptr(&k, d, "x"), Y = kt_param_ptr(&k, d, "y"), S = kt_param_ptr(&k, d, "s");
    cute_vreg O = kt_param_ptr(&k, d, "out"), OB = kt_param_ptr(&k, CUTE_I1, "ob");
    cute_vreg n = kt_param(&k, CUTE_I64, "n");
    cute_vreg i = kt_gtid(&k);
    cute_vreg x = kt_load(&k, kt_ptr_add(&k, X, i)), y = kt_load(&k, kt_ptr_add(&k, Y, i));
    cute_vreg s = kt_load(&k, kt_ptr_add(&k, S, i));
    cute_vreg r[NOUT];
    int j = 0;
    for (int q = 0; q < NBIN; q++) r[j++] = kt_bin(&k, bin_ops[q], x, y);
    r[j++] = kt_bin(&k, CUTE_OP_SHL, x, s);
    r[j++] = kt_bin(&k, CUTE_OP_SHR, x, s);
    for (int q = 0; q < NUN; q++) r[j++] = kt_op(&k, un_ops[q], cute_type_of(d), x, 0, 0);
    r[j++] = kt_op(&k, CUTE_OP_FMA, cute_type_of(d), x, y, x);
    for (int q = 0; q < NOUT; q++)
        kt_store(&k, kt_ptr_add(&k, O, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, kt_i64(&k, q), n), i)), r[q]);
    for (int q = 0; q < NCMP; q++)
        kt_store(&k, kt_ptr_add(&k, OB, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, kt_i64(&k, q), n), i)),
                 kt_cmp(&k, cmp_ops[q], x, y));
    return kt_compile(be, &k);
}

/* the reference: values widened to 64 bits, results wrapped back to the width */
static int64_t wrapv(uint64_t v, cute_dtype d)
{
    int bits = cute_dtype_bits(d);
    if (bits < 64) {
        v &= (1ull << bits) - 1;
        if (cute_dtype_is_signed(d) && (v >> (bits - 1))) v |= ~0ull << bits;
    }
    return (int64_t)v;
}

static int64_t ref_op(int q, int64_t a, int64_t b, int64_t s, cute_dtype d)
{
    bool sg = cute_dtype_is_signed(d);
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    uint64_t bits = (uint64_t)cute_dtype_bits(d);
    switch (q) {
    case 0: return wrapv(ua + ub, d);
    case 1: return wrapv(ua - ub, d);
    case 2: return wrapv(ua * ub, d);
    case 3: return sg ? (b == -1 ? wrapv(0 - ua, d) : a / b) : (int64_t)(ua / ub);
    case 4: return sg ? (b == -1 ? 0 : a % b) : (int64_t)(ua % ub);
    case 5: return sg ? (a < b ? a : b) : (int64_t)(ua < ub ? ua : ub);
    case 6: return sg ? (a > b ? a : b) : (int64_t)(ua > ub ? ua : ub);
    case 7: return wrapv(ua & ub, d);
    case 8: return wrapv(ua | ub, d);
    case 9: return wrapv(ua ^ ub, d);
    case 10: return (uint64_t)s >= bits ? 0 : wrapv(ua << s, d);
    case 11:
        if ((uint64_t)s >= bits) return sg ? (a < 0 ? -1 : 0) : 0;
        return sg ? a >> s : (int64_t)(ua >> s);
    case 12: return wrapv(0 - ua, d);
    case 13: return wrapv(~ua, d);
    case 14: return sg && a < 0 ? wrapv(0 - ua, d) : a;
    default: return wrapv(ua * ub + ua, d);
    }
}

static bool ref_cmp(int q, int64_t a, int64_t b, cute_dtype d)
{
    if (!cute_dtype_is_signed(d)) {
        uint64_t x = (uint64_t)a, y = (uint64_t)b;
        bool r[6] = {x == y, x != y, x < y, x <= y, x > y, x >= y};
        return r[q];
    }
    bool r[6] = {a == b, a != b, a < b, a <= b, a > b, a >= b};
    return r[q];
}

static int64_t get(const uint8_t *p, int i, int bytes, cute_dtype d)
{
    uint64_t v = 0;
    memcpy(&v, p + (size_t)i * bytes, (size_t)bytes);
    return wrapv(v, d);
}

static void test_ints(void)
{
    static const cute_dtype types[] = {CUTE_I8, CUTE_I16, CUTE_I32, CUTE_I64,
                                       CUTE_U8, CUTE_U16, CUTE_U32, CUTE_U64};
    srand(3);
    for (int ti = 0; ti < 8; ti++) {
        cute_dtype d = types[ti];
        int bytes = cute_dtype_bytes(d), bits = cute_dtype_bits(d);
        bool sg = cute_dtype_is_signed(d);
        uint64_t mn = sg ? 1ull << (bits - 1) : 0, mx = sg ? mn - 1 : (bits == 64 ? ~0ull : (1ull << bits) - 1);
        uint64_t edge[13] = {0, 1, ~0ull, 2, mn, mx, mn + 1, mx - 1, 7, (uint64_t)-7, (uint64_t)bits - 1, (uint64_t)bits, 100};
        uint8_t x[NI * 8], y[NI * 8], s[NI * 8], out[NOUT * NI * 8], ob[NCMP * NI];
        for (int i = 0; i < NI; i++) {
            uint64_t a = i < 169 ? edge[i / 13] : ((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 11) ^ (uint64_t)rand();
            uint64_t b = i < 169 ? edge[i % 13] : ((uint64_t)rand() << 35) ^ (uint64_t)rand();
            if (wrapv(b, d) == 0) b = 3; /* division by zero is a check, tested elsewhere */
            uint64_t sh = (uint64_t)(i % (2 * bits + 4)) - 2;
            memcpy(x + i * bytes, &a, (size_t)bytes);
            memcpy(y + i * bytes, &b, (size_t)bytes);
            memcpy(s + i * bytes, &sh, (size_t)bytes);
        }
        cute_module *m = int_kernel(d);
        cute_buffer bx = kt_buf(be, x, NI * bytes), by = kt_buf(be, y, NI * bytes);
        cute_buffer bs = kt_buf(be, s, NI * bytes), bo = kt_buf(be, NULL, NOUT * NI * bytes);
        cute_buffer bb = kt_buf(be, NULL, NCMP * NI);
        cute_launch_arg args[6] = {kt_arg_buf(&bx, d), kt_arg_buf(&by, d), kt_arg_buf(&bs, d),
                                   kt_arg_buf(&bo, d), kt_arg_buf(&bb, CUTE_I1), kt_arg_int(CUTE_I64, NI)};
        if (run(m, NI / 64, 64, args, 6)) {
            be.vt->download(be.self, out, &bo, 0, NOUT * NI * bytes);
            be.vt->download(be.self, ob, &bb, 0, NCMP * NI);
            int bad = 0;
            for (int q = 0; q < NOUT; q++)
                for (int i = 0; i < NI; i++) {
                    int64_t a = get(x, i, bytes, d), b = get(y, i, bytes, d), sh = get(s, i, bytes, d);
                    int64_t want = ref_op(q, a, b, sh, d), got = get(out, q * NI + i, bytes, d);
                    if (want != got && bad++ < 5)
                        fprintf(stderr, "%s op %d (%" PRId64 ", %" PRId64 ", s %" PRId64 "): got %" PRId64 " want %" PRId64 "\n",
                                cute_dtype_name(d), q, a, b, sh, got, want);
                }
            for (int q = 0; q < NCMP; q++)
                for (int i = 0; i < NI; i++)
                    bad += ob[q * NI + i] != ref_cmp(q, get(x, i, bytes, d), get(y, i, bytes, d), d);
            CHECK(bad == 0, "%s: %d results differ from C", cute_dtype_name(d), bad);
        }
        be.vt->module_free(be.self, m);
        be.vt->free(be.self, &bx), be.vt->free(be.self, &by), be.vt->free(be.self, &bs);
        be.vt->free(be.self, &bo), be.vt->free(be.self, &bb);
    }
}

/* --- floats: the basic ops against C (NaN results canonical) ------------------------------- */

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static float canon(float f) { return f != f ? u2f(0x7fffffffu) : f; }
static float ref_min(float a, float b) { return a != a ? b : b != b ? a : a == b ? (signbit(a) ? a : b) : a < b ? a : b; }
static float ref_max(float a, float b) { return a != a ? b : b != b ? a : a == b ? (signbit(a) ? b : a) : a > b ? a : b; }

static void test_floats(void)
{
    enum { N = 512, NOPS = 7 };
    const cute_op ops[NOPS] = {CUTE_OP_ADD, CUTE_OP_SUB, CUTE_OP_MUL, CUTE_OP_DIV, CUTE_OP_MIN, CUTE_OP_MAX, CUTE_OP_FMA};
    kt k;
    kt_begin(&k, "float_ops");
    cute_vreg X = kt_param_ptr(&k, CUTE_F32, "x"), Y = kt_param_ptr(&k, CUTE_F32, "y");
    cute_vreg O = kt_param_ptr(&k, CUTE_F32, "out");
    cute_vreg i = kt_gtid(&k);
    cute_vreg x = kt_load(&k, kt_ptr_add(&k, X, i)), y = kt_load(&k, kt_ptr_add(&k, Y, i));
    for (int q = 0; q < NOPS; q++) {
        cute_vreg r = kt_op(&k, ops[q], cute_type_of(CUTE_F32), x, y, q == 6 ? x : 0);
        kt_store(&k, kt_ptr_add(&k, O, kt_bin(&k, CUTE_OP_ADD, kt_i64(&k, q * N), i)), r);
    }
    cute_module *m = kt_compile(be, &k);
    float xs[N], ys[N], out[NOPS * N];
    const float sp[12] = {0.0f, -0.0f, 1.0f, -1.5f, INFINITY, -INFINITY, NAN, 1e-45f, 3e-39f, 3.4e38f, 1e-20f, 7.0f};
    srand(4);
    for (int j = 0; j < N; j++) {
        xs[j] = j < 144 ? sp[j / 12] : u2f((uint32_t)rand() * 2654435761u);
        ys[j] = j < 144 ? sp[j % 12] : u2f((uint32_t)rand() * 40503u ^ (uint32_t)rand());
    }
    xs[200] = u2f(0xffc00001u); /* a NaN with a payload and the sign set */
    cute_buffer bx = kt_buf(be, xs, sizeof xs), by = kt_buf(be, ys, sizeof ys), bo = kt_buf(be, NULL, sizeof out);
    cute_launch_arg args[3] = {kt_arg_buf(&bx, CUTE_F32), kt_arg_buf(&by, CUTE_F32), kt_arg_buf(&bo, CUTE_F32)};
    if (run(m, N / 128, 128, args, 3)) {
        be.vt->download(be.self, out, &bo, 0, sizeof out);
        int bad = 0;
        for (int j = 0; j < N; j++) {
            float a = xs[j], b = ys[j];
            float want[NOPS] = {canon(a + b), canon(a - b), canon(a * b), canon(a / b),
                                canon(ref_min(a, b)), canon(ref_max(a, b)), canon(fmaf(a, b, a))};
            for (int q = 0; q < NOPS; q++)
                if (f2u(out[q * N + j]) != f2u(want[q]) && bad++ < 5)
                    fprintf(stderr, "f32 op %d (%a, %a): got %08x want %08x\n", q, a, b,
                            f2u(out[q * N + j]), f2u(want[q]));
        }
        CHECK(bad == 0, "f32: %d results differ", bad);
    }
    be.vt->module_free(be.self, m);
}

/* --- control flow --------------------------------------------------------------------------- */

/* out[t] = sum of j over a loop whose bounds depend on t; a countdown with a negative step;
 * a Collatz WHILE with a BREAK; RETURN for every third thread halfway */
static void test_control(void)
{
    kt k;
    kt_begin(&k, "control");
    cute_vreg O = kt_param_ptr(&k, CUTE_I64, "out");
    cute_vreg t = kt_sreg64(&k, CUTE_SREG_TID_X);
    cute_vreg zero = kt_i64(&k, 0), one = kt_i64(&k, 1);
    /* 1: sum_{j in [t/2, t)} j, step 1 */
    cute_vreg sum = kt_var(&k, zero);
    cute_vreg j = kt_for(&k, kt_bin(&k, CUTE_OP_DIV, t, kt_i64(&k, 2)), t, 1);
    cute_ir_mov(&k.b, sum, kt_bin(&k, CUTE_OP_ADD, sum, j));
    cute_ir_end(&k.b);
    kt_store(&k, kt_ptr_add(&k, O, kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, 4))), sum);
    /* 2: count j = t, t-3, ... > 0, and break when j == 7 */
    cute_vreg cnt = kt_var(&k, zero);
    j = kt_for(&k, t, zero, -3);
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_EQ, j, kt_i64(&k, 7)));
    cute_ir_op_void(&k.b, CUTE_OP_BREAK, cute_type_of(CUTE_VOID), 0, 0, 0, 0);
    cute_ir_end(&k.b);
    cute_ir_mov(&k.b, cnt, kt_bin(&k, CUTE_OP_ADD, cnt, one));
    cute_ir_end(&k.b);
    kt_store(&k, kt_ptr_add(&k, O, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, 4)), one)), cnt);
    /* 3: Collatz steps of t + 1, at most 40 */
    cute_vreg x = kt_var(&k, kt_bin(&k, CUTE_OP_ADD, t, one)), steps = kt_var(&k, zero);
    cute_ir_while(&k.b);
    cute_vreg c = kt_cmp(&k, CUTE_OP_NE, x, one);
    cute_ir_while_body(&k.b, c);
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_EQ, kt_bin(&k, CUTE_OP_AND, x, one), one));
    cute_ir_mov(&k.b, x, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, x, kt_i64(&k, 3)), one));
    cute_ir_else(&k.b);
    cute_ir_mov(&k.b, x, kt_bin(&k, CUTE_OP_DIV, x, kt_i64(&k, 2)));
    cute_ir_end(&k.b);
    cute_ir_mov(&k.b, steps, kt_bin(&k, CUTE_OP_ADD, steps, one));
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_GE, steps, kt_i64(&k, 40)));
    cute_ir_op_void(&k.b, CUTE_OP_BREAK, cute_type_of(CUTE_VOID), 0, 0, 0, 0);
    cute_ir_end(&k.b);
    cute_ir_end(&k.b);
    kt_store(&k, kt_ptr_add(&k, O, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, 4)), kt_i64(&k, 2))), steps);
    /* 4: every third thread returns inside a loop; the others write 1000 + t after it */
    cute_vreg p3 = kt_ptr_add(&k, O, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, 4)), kt_i64(&k, 3)));
    j = kt_for(&k, zero, kt_i64(&k, 5), 1);
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_EQ, kt_bin(&k, CUTE_OP_REM, t, kt_i64(&k, 3)), zero));
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_EQ, j, kt_i64(&k, 2)));
    kt_store(&k, p3, kt_i64(&k, -1));
    cute_ir_op_void(&k.b, CUTE_OP_RETURN, cute_type_of(CUTE_VOID), 0, 0, 0, 0);
    cute_ir_end(&k.b);
    cute_ir_end(&k.b);
    cute_ir_end(&k.b);
    kt_store(&k, p3, kt_bin(&k, CUTE_OP_ADD, t, kt_i64(&k, 1000)));
    cute_module *m = kt_compile(be, &k);
    enum { NT = 70 };
    int64_t out[NT * 4];
    cute_buffer bo = kt_buf(be, NULL, sizeof out);
    cute_launch_arg arg = kt_arg_buf(&bo, CUTE_I64);
    if (run(m, 1, NT, &arg, 1)) {
        be.vt->download(be.self, out, &bo, 0, sizeof out);
        int bad = 0;
        for (int64_t tt = 0; tt < NT; tt++) {
            int64_t s1 = 0, c2 = 0, x3 = tt + 1, n3 = 0;
            for (int64_t q = tt / 2; q < tt; q++) s1 += q;
            for (int64_t q = tt; q > 0; q -= 3) {
                if (q == 7) break;
                c2++;
            }
            while (x3 != 1) {
                x3 = x3 & 1 ? 3 * x3 + 1 : x3 / 2;
                if (++n3 >= 40) break;
            }
            int64_t w4 = tt % 3 == 0 ? -1 : 1000 + tt;
            int64_t *o = &out[tt * 4];
            if (o[0] != s1 || o[1] != c2 || o[2] != n3 || o[3] != w4) {
                if (bad++ < 5)
                    fprintf(stderr, "thread %" PRId64 ": %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
                            ", want %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
                            tt, o[0], o[1], o[2], o[3], s1, c2, n3, w4);
            }
        }
        CHECK(bad == 0, "control flow: %d threads differ", bad);
    }
    be.vt->module_free(be.self, m);
}

/* --- printf ---------------------------------------------------------------------------------- */

static cute_module *printf_kernel(void)
{
    kt k;
    kt_begin(&k, "hello");
    cute_vreg b = cute_ir_sreg(&k.b, CUTE_SREG_CTAID_X), t = cute_ir_sreg(&k.b, CUTE_SREG_TID_X);
    cute_vreg h = kt_cvt(&k, t, CUTE_F16);
    cute_vreg neg = kt_bin(&k, CUTE_OP_SUB, kt_i32(&k, 0), t);
    cute_vreg args[4] = {b, t, h, neg};
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_EQ, kt_bin(&k, CUTE_OP_AND, t, kt_i32(&k, 1)), kt_i32(&k, 1)));
    kt_printf(&k, "odd b%d t%d %.1f %x 100%%\n", 4, args);
    cute_ir_else(&k.b);
    kt_printf(&k, "even b%d t%d\n", 2, args);
    cute_ir_end(&k.b);
    return kt_compile(be, &k);
}

static void test_printf(void)
{
    const char *want =
        "odd b0 t1 1.0 ffffffff 100%\nodd b0 t3 3.0 fffffffd 100%\neven b0 t0\neven b0 t2\n"
        "odd b1 t1 1.0 ffffffff 100%\nodd b1 t3 3.0 fffffffd 100%\neven b1 t0\neven b1 t2\n"
        "odd b2 t1 1.0 ffffffff 100%\nodd b2 t3 3.0 fffffffd 100%\neven b2 t0\neven b2 t2\n";
    for (int w = 1; w <= 3; w += 2) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        cute_interp_opts o = {.threads = w, .printf_out = f};
        use_backend(&o);
        cute_module *m = printf_kernel();
        run(m, 3, 4, NULL, 0);
        fclose(f);
        CHECK_STR(text ? text : "", want);
        free(text);
        be.vt->module_free(be.self, m);
    }
    use_backend(NULL);
}

/* --- atomics --------------------------------------------------------------------------------- */

static void test_atomics(int workers)
{
    cute_interp_opts o = {.threads = workers};
    use_backend(&o);
    kt k;
    kt_begin(&k, "atomics");
    k.f->smem_bytes = 8 * 4;
    cute_vreg CNT = kt_param_ptr(&k, CUTE_I32, "cnt"), OLD = kt_param_ptr(&k, CUTE_I32, "old");
    cute_vreg FS = kt_param_ptr(&k, CUTE_F32, "fsum"), H = kt_param_ptr(&k, CUTE_U32, "hist");
    cute_vreg t = cute_ir_sreg(&k.b, CUTE_SREG_TID_X), t64 = kt_cvt(&k, t, CUTE_I64);
    cute_vreg gi = kt_gtid(&k);
    cute_vreg old = kt_op(&k, CUTE_OP_ATOMIC, cute_type_of(CUTE_I32), CNT, kt_i32(&k, 1), 0);
    k.b.last->imm = CUTE_ATOMIC_ADD;
    kt_store(&k, kt_ptr_add(&k, OLD, gi), old);
    kt_op(&k, CUTE_OP_ATOMIC, cute_type_of(CUTE_F32), FS, cute_ir_const_float(&k.b, CUTE_F32, 0.5), 0);
    k.b.last->imm = CUTE_ATOMIC_ADD;
    kt_op(&k, CUTE_OP_ATOMIC, cute_type_of(CUTE_I32), kt_ptr_add(&k, CNT, kt_i64(&k, 1)), t, 0);
    k.b.last->imm = CUTE_ATOMIC_MAX;
    kt_op(&k, CUTE_OP_ATOMIC, cute_type_of(CUTE_I32), kt_ptr_add(&k, CNT, kt_i64(&k, 2)), t, 0);
    k.b.last->imm = CUTE_ATOMIC_MIN;
    /* a CAS loop: cnt[3] += 2 */
    cute_vreg P3 = kt_ptr_add(&k, CNT, kt_i64(&k, 3));
    cute_vreg done = kt_var(&k, cute_ir_const_int(&k.b, CUTE_I1, 0));
    cute_ir_while(&k.b);
    cute_vreg go = kt_op(&k, CUTE_OP_NOT, cute_type_of(CUTE_I1), done, 0, 0);
    cute_ir_while_body(&k.b, go);
    cute_vreg cur = kt_load(&k, P3);
    cute_vreg got = kt_op(&k, CUTE_OP_ATOMIC_CAS, cute_type_of(CUTE_I32), P3, cur, kt_bin(&k, CUTE_OP_ADD, cur, kt_i32(&k, 2)));
    cute_ir_mov(&k.b, done, kt_cmp(&k, CUTE_OP_EQ, got, cur));
    cute_ir_end(&k.b);
    /* a shared histogram of t % 8 */
    cute_vreg s = kt_smem(&k, CUTE_U32, 0);
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_LT, t, kt_i32(&k, 8)));
    kt_store(&k, kt_ptr_add(&k, s, t64), cute_ir_const_int(&k.b, CUTE_U32, 0));
    cute_ir_end(&k.b);
    kt_barrier(&k);
    kt_op(&k, CUTE_OP_ATOMIC, cute_type_of(CUTE_U32), kt_ptr_add(&k, s, kt_bin(&k, CUTE_OP_REM, t64, kt_i64(&k, 8))),
          cute_ir_const_int(&k.b, CUTE_U32, 1), 0);
    k.b.last->imm = CUTE_ATOMIC_ADD;
    kt_barrier(&k);
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_LT, t, kt_i32(&k, 8)));
    cute_vreg hv = kt_load(&k, kt_ptr_add(&k, s, t64));
    kt_op(&k, CUTE_OP_ATOMIC, cute_type_of(CUTE_U32), kt_ptr_add(&k, H, t64), hv, 0);
    k.b.last->imm = CUTE_ATOMIC_ADD;
    cute_ir_end(&k.b);
    cute_module *m = kt_compile(be, &k);
    int32_t cnt[4] = {0, -1, 1 << 30, 0}, olds[512];
    float fs = 0;
    uint32_t hist[8] = {0};
    cute_buffer bc = kt_buf(be, cnt, sizeof cnt), bo = kt_buf(be, NULL, sizeof olds);
    cute_buffer bf = kt_buf(be, &fs, 4), bh = kt_buf(be, hist, sizeof hist);
    cute_launch_arg args[4] = {kt_arg_buf(&bc, CUTE_I32), kt_arg_buf(&bo, CUTE_I32), kt_arg_buf(&bf, CUTE_F32),
                               kt_arg_buf(&bh, CUTE_U32)};
    if (run(m, 8, 64, args, 4)) {
        be.vt->download(be.self, cnt, &bc, 0, sizeof cnt);
        be.vt->download(be.self, olds, &bo, 0, sizeof olds);
        be.vt->download(be.self, &fs, &bf, 0, 4);
        be.vt->download(be.self, hist, &bh, 0, sizeof hist);
        CHECK(cnt[0] == 512 && cnt[1] == 63 && cnt[2] == 0 && cnt[3] == 1024,
              "%d workers: counters %d %d %d %d", workers, cnt[0], cnt[1], cnt[2], cnt[3]);
        CHECK(fs == 256.0f, "float sum %g", fs);
        uint8_t seen[512] = {0};
        int bad = 0;
        for (int i = 0; i < 512; i++) {
            if (olds[i] < 0 || olds[i] >= 512 || seen[olds[i]]++) bad++;
            if (workers == 1 && olds[i] != i) bad++; /* one worker: block order, thread order */
        }
        CHECK(bad == 0, "old values: %d wrong", bad);
        for (int i = 0; i < 8; i++) CHECK(hist[i] == 64, "hist[%d] = %u", i, hist[i]);
    }
    be.vt->module_free(be.self, m);
}

/* --- shuffles and votes ------------------------------------------------------------------------ */

static cute_vreg shfl(kt *k, cute_vreg v, cute_vreg lane, int mode)
{
    cute_vreg r = kt_op(k, CUTE_OP_SHFL, cute_ir_type(k->f, v), v, lane, 0);
    k->b.last->imm = mode;
    return r;
}

static void test_warps(void)
{
    kt k;
    kt_begin(&k, "warps");
    cute_vreg O = kt_param_ptr(&k, CUTE_U32, "out");
    cute_vreg t = cute_ir_sreg(&k.b, CUTE_SREG_TID_X), lane = cute_ir_sreg(&k.b, CUTE_SREG_LANEID);
    cute_vreg t64 = kt_cvt(&k, t, CUTE_I64);
    cute_vreg v = kt_cvt(&k, lane, CUTE_U32);
    /* down-reduction: lane 0 gets the warp's sum */
    cute_vreg sum = kt_var(&k, v);
    for (int off = 16; off; off /= 2)
        cute_ir_mov(&k.b, sum, kt_bin(&k, CUTE_OP_ADD, sum, shfl(&k, sum, kt_i32(&k, off), CUTE_SHFL_DOWN)));
    /* xor butterfly: every lane gets the max */
    cute_vreg mx = kt_var(&k, kt_bin(&k, CUTE_OP_MUL, v, v));
    for (int off = 1; off < 32; off *= 2)
        cute_ir_mov(&k.b, mx, kt_bin(&k, CUTE_OP_MAX, mx, shfl(&k, mx, kt_i32(&k, off), CUTE_SHFL_XOR)));
    /* inclusive scan with up */
    cute_vreg scan = kt_var(&k, v);
    for (int off = 1; off < 32; off *= 2) {
        cute_vreg u = shfl(&k, scan, kt_i32(&k, off), CUTE_SHFL_UP);
        cute_vreg keep = kt_cmp(&k, CUTE_OP_GE, lane, kt_i32(&k, off));
        cute_ir_mov(&k.b, scan, kt_op(&k, CUTE_OP_SELECT, cute_type_of(CUTE_U32), keep, kt_bin(&k, CUTE_OP_ADD, scan, u), scan));
    }
    cute_vreg bc = shfl(&k, kt_bin(&k, CUTE_OP_ADD, v, cute_ir_const_int(&k.b, CUTE_U32, 100)), kt_i32(&k, 5), CUTE_SHFL_IDX);
    cute_vreg odd = kt_cmp(&k, CUTE_OP_EQ, kt_bin(&k, CUTE_OP_AND, lane, kt_i32(&k, 1)), kt_i32(&k, 1));
    cute_vreg ballot = kt_op(&k, CUTE_OP_VOTE, cute_type_of(CUTE_U32), odd, 0, 0);
    k.b.last->imm = CUTE_VOTE_BALLOT;
    cute_vreg any = kt_op(&k, CUTE_OP_VOTE, cute_type_of(CUTE_I1), kt_cmp(&k, CUTE_OP_EQ, lane, kt_i32(&k, 7)), 0, 0);
    k.b.last->imm = CUTE_VOTE_ANY;
    cute_vreg all = kt_op(&k, CUTE_OP_VOTE, cute_type_of(CUTE_I1), kt_cmp(&k, CUTE_OP_LT, lane, kt_i32(&k, 31)), 0, 0);
    k.b.last->imm = CUTE_VOTE_ALL;
    cute_vreg flags = kt_bin(&k, CUTE_OP_OR, kt_cvt(&k, any, CUTE_U32),
                             kt_bin(&k, CUTE_OP_SHL, kt_cvt(&k, all, CUTE_U32), cute_ir_const_int(&k.b, CUTE_U32, 1)));
    /* a ballot in divergent code: only the active lanes (lane < 8) count */
    cute_vreg part = kt_var(&k, cute_ir_const_int(&k.b, CUTE_U32, 0));
    cute_ir_if(&k.b, kt_cmp(&k, CUTE_OP_LT, lane, kt_i32(&k, 8)));
    cute_vreg pb = kt_op(&k, CUTE_OP_VOTE, cute_type_of(CUTE_U32), odd, 0, 0);
    k.b.last->imm = CUTE_VOTE_BALLOT;
    cute_ir_mov(&k.b, part, pb);
    cute_ir_end(&k.b);
    cute_vreg res[7] = {sum, mx, scan, bc, ballot, flags, part};
    for (int q = 0; q < 7; q++)
        kt_store(&k, kt_ptr_add(&k, O, kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_MUL, t64, kt_i64(&k, 7)), kt_i64(&k, q))), res[q]);
    cute_module *m = kt_compile(be, &k);
    uint32_t out[64 * 7];
    cute_buffer bo = kt_buf(be, NULL, sizeof out);
    cute_launch_arg arg = kt_arg_buf(&bo, CUTE_U32);
    if (run(m, 1, 64, &arg, 1)) {
        be.vt->download(be.self, out, &bo, 0, sizeof out);
        int bad = 0;
        for (uint32_t tt = 0; tt < 64; tt++) {
            uint32_t l = tt % 32, *o = &out[tt * 7];
            /* down: lane l sums lanes l.. of a tree; only lane 0's is the whole sum */
            if (l == 0 && o[0] != 496) bad++;
            if (o[1] != 31 * 31) bad++;
            if (o[2] != l * (l + 1) / 2) bad++;
            if (o[3] != 105) bad++;
            if (o[4] != 0xaaaaaaaau) bad++;
            if (o[5] != 1) bad++; /* any lane == 7: yes; all lanes < 31: no */
            if (o[6] != (l < 8 ? 0xaau : 0)) bad++;
        }
        CHECK(bad == 0, "warp results: %d wrong", bad);
    }
    be.vt->module_free(be.self, m);
}

/* --- vectors, conversions, bitcasts ------------------------------------------------------------ */

static void test_vectors(void)
{
    kt k;
    kt_begin(&k, "vectors");
    cute_vreg A = kt_param_ptr(&k, CUTE_F32, "a"), O = kt_param_ptr(&k, CUTE_F32, "o");
    cute_vreg I = kt_param_ptr(&k, CUTE_I32, "ints"), U8 = kt_param_ptr(&k, CUTE_U8, "bytes");
    cute_vreg H = kt_param_ptr(&k, CUTE_U32, "halves");
    cute_vreg t = kt_sreg64(&k, CUTE_SREG_TID_X);
    cute_type f4 = cute_type_vec(CUTE_F32, 4);
    cute_vreg v = kt_load_t(&k, kt_ptr_add(&k, A, kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, 4))), f4, 16);
    cute_vreg w = kt_bin(&k, CUTE_OP_ADD, v, v);
    cute_vreg e2 = kt_op(&k, CUTE_OP_EXTRACT, cute_type_of(CUTE_F32), w, 0, 0);
    k.b.last->imm = 2;
    cute_vreg x = kt_op(&k, CUTE_OP_INSERT, f4, w, kt_bin(&k, CUTE_OP_MUL, e2, e2), 0);
    k.b.last->imm = 0;
    kt_store_a(&k, kt_ptr_add(&k, O, kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, 4))), x, 16);
    /* f32 -> i32 and u8 saturate; NaN -> 0 */
    cute_vreg e1 = kt_op(&k, CUTE_OP_EXTRACT, cute_type_of(CUTE_F32), v, 0, 0);
    k.b.last->imm = 1;
    kt_store(&k, kt_ptr_add(&k, I, t), kt_cvt(&k, e1, CUTE_I32));
    kt_store(&k, kt_ptr_add(&k, U8, t), kt_cvt(&k, e1, CUTE_U8));
    /* two f32 -> f16x2 -> its bits as a u32 */
    cute_vreg e3 = kt_op(&k, CUTE_OP_EXTRACT, cute_type_of(CUTE_F32), v, 0, 0);
    k.b.last->imm = 3;
    cute_vreg pair = kt_op(&k, CUTE_OP_INSERT, cute_type_vec(CUTE_F32, 2),
                           kt_op(&k, CUTE_OP_INSERT, cute_type_vec(CUTE_F32, 2),
                                 kt_load_t(&k, kt_ptr_add(&k, A, kt_bin(&k, CUTE_OP_MUL, t, kt_i64(&k, 4))), cute_type_vec(CUTE_F32, 2), 8),
                                 e1, 0),
                           e3, 0);
    k.b.last->imm = 1;
    cute_vreg h2 = kt_cvt(&k, pair, CUTE_F16);
    kt_store(&k, kt_ptr_add(&k, H, t), kt_op(&k, CUTE_OP_BITCAST, cute_type_of(CUTE_U32), h2, 0, 0));
    cute_module *m = kt_compile(be, &k);
    float a[16] = {1, 2.5f, 3, 0.5f, 5, 1e10f, 7, -2, 9, -1e10f, 11, 65504, 13, NAN, 15, 1e-8f};
    float o[16];
    int32_t ints[4];
    uint8_t bytes[4];
    uint32_t halves[4];
    cute_buffer ba = kt_buf(be, a, sizeof a), bo = kt_buf(be, NULL, sizeof o), bi = kt_buf(be, NULL, sizeof ints);
    cute_buffer bb = kt_buf(be, NULL, sizeof bytes), bh = kt_buf(be, NULL, sizeof halves);
    cute_launch_arg args[5] = {kt_arg_buf(&ba, CUTE_F32), kt_arg_buf(&bo, CUTE_F32), kt_arg_buf(&bi, CUTE_I32),
                               kt_arg_buf(&bb, CUTE_U8), kt_arg_buf(&bh, CUTE_U32)};
    if (run(m, 1, 4, args, 5)) {
        be.vt->download(be.self, o, &bo, 0, sizeof o);
        be.vt->download(be.self, ints, &bi, 0, sizeof ints);
        be.vt->download(be.self, bytes, &bb, 0, sizeof bytes);
        be.vt->download(be.self, halves, &bh, 0, sizeof halves);
        int bad = 0;
        for (int tt = 0; tt < 4; tt++)
            for (int l = 0; l < 4; l++) {
                float w2 = 2 * a[tt * 4 + l], want = l == 0 ? (2 * a[tt * 4 + 2]) * (2 * a[tt * 4 + 2]) : w2;
                bad += memcmp(&o[tt * 4 + l], &(float){canon(want)}, 4) != 0;
            }
        CHECK(bad == 0, "vector add/extract/insert: %d wrong", bad);
        CHECK(ints[0] == 2 && ints[1] == INT32_MAX && ints[2] == INT32_MIN && ints[3] == 0,
              "f32 -> i32: %d %d %d %d", ints[0], ints[1], ints[2], ints[3]);
        CHECK(bytes[0] == 2 && bytes[1] == 255 && bytes[2] == 0 && bytes[3] == 0,
              "f32 -> u8: %u %u %u %u", bytes[0], bytes[1], bytes[2], bytes[3]);
        /* lane 0 = e1 (low half), lane 1 = e3 (high half) */
        uint32_t want[4] = {0x38004100u, 0xc0007c00u, 0x7bfffc00u, 0};
        want[3] = (uint32_t)cute_f32_to_f16(1e-8f) << 16 | 0x7fffu;
        for (int tt = 0; tt < 4; tt++)
            CHECK(halves[tt] == want[tt], "f16x2 bits of thread %d: %08x want %08x", tt, halves[tt], want[tt]);
    }
    be.vt->module_free(be.self, m);
}

/* --- the trace --------------------------------------------------------------------------------- */

static void test_trace(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cute_interp_opts o = {.threads = 1, .trace_out = f, .trace_block = {1, 0, 0}, .trace_thread = {2, 0, 0}};
    use_backend(&o);
    kt k;
    kt_begin(&k, "traced");
    cute_vreg O = kt_param_ptr(&k, CUTE_F32, "o");
    KT_AT(&k.b); int line = __LINE__;
    cute_vreg i = kt_gtid(&k);
    cute_vreg x = kt_cvt(&k, i, CUTE_F32);
    cute_vreg y = kt_bin(&k, CUTE_OP_MUL, x, cute_ir_const_float(&k.b, CUTE_F32, 0.5));
    kt_store(&k, kt_ptr_add(&k, O, i), y);
    cute_module *m = kt_compile(be, &k);
    cute_buffer bo = kt_buf(be, NULL, 16 * 4);
    cute_launch_arg arg = kt_arg_buf(&bo, CUTE_F32);
    run(m, 2, 8, &arg, 1);
    fclose(f);
    char site[64];
    snprintf(site, sizeof site, "trace b(1,0,0) t(2,0,0) %s:%d: ", __FILE__, line);
    CHECK(text && strstr(text, site), "the trace names block, thread and site:\n%s", text ? text : "");
    CHECK(text && strstr(text, "= MUL") && strstr(text, "-> 5  (") && strstr(text, "-> 10"),
          "the trace shows values:\n%s", text ? text : "");
    CHECK(text && strstr(text, "STORE") && strstr(text, "buffer "), "stores with buffer offsets:\n%s", text ? text : "");
    CHECK(text && !strstr(text, "t(3,0,0)") && !strstr(text, "b(0,0,0)"), "one thread only");
    free(text);
    be.vt->module_free(be.self, m);
    use_backend(NULL);
}

/* --- 3-D blocks and grids, special registers; two kernels in one module; shared memory
 * sized by the launch; a BREAK in a WHILE -------------------------------------------------- */
static void test_dims(void)
{
    kt k[2];
    kt_begin(&k[0], "first");
    kt_param_ptr(&k[0], CUTE_I32, "unused");
    kt_begin(&k[1], "dims");
    kt *q = &k[1];
    cute_vreg O = kt_param_ptr(q, CUTE_I32, "out");
    cute_vreg v[CUTE_SREG_COUNT];
    for (int s = 0; s < CUTE_SREG_COUNT; s++) v[s] = cute_ir_sreg(&q->b, (cute_sreg)s);
    /* linear block and thread, the CUDA way */
    cute_vreg bl = kt_bin(q, CUTE_OP_ADD, v[CUTE_SREG_CTAID_X], kt_bin(q, CUTE_OP_MUL, v[CUTE_SREG_NCTAID_X],
                   kt_bin(q, CUTE_OP_ADD, v[CUTE_SREG_CTAID_Y], kt_bin(q, CUTE_OP_MUL, v[CUTE_SREG_NCTAID_Y], v[CUTE_SREG_CTAID_Z]))));
    cute_vreg tl = kt_bin(q, CUTE_OP_ADD, v[CUTE_SREG_TID_X], kt_bin(q, CUTE_OP_MUL, v[CUTE_SREG_NTID_X],
                   kt_bin(q, CUTE_OP_ADD, v[CUTE_SREG_TID_Y], kt_bin(q, CUTE_OP_MUL, v[CUTE_SREG_NTID_Y], v[CUTE_SREG_TID_Z]))));
    cute_vreg nt = kt_bin(q, CUTE_OP_MUL, v[CUTE_SREG_NTID_X], kt_bin(q, CUTE_OP_MUL, v[CUTE_SREG_NTID_Y], v[CUTE_SREG_NTID_Z]));
    cute_vreg g = kt_cvt(q, kt_bin(q, CUTE_OP_ADD, kt_bin(q, CUTE_OP_MUL, bl, nt), tl), CUTE_I64);
    /* shared memory from the launch: each thread round-trips its lane id through it */
    cute_vreg sp = kt_ptr_add(q, kt_smem(q, CUTE_I32, 0), kt_cvt(q, tl, CUTE_I64));
    kt_store(q, sp, v[CUTE_SREG_LANEID]);
    /* while (cnt < 3) { if lane is odd break; cnt++ }: odd lanes count nothing */
    cute_vreg cnt = kt_var(q, kt_i32(q, 0));
    cute_ir_while(&q->b);
    cute_vreg c = kt_cmp(q, CUTE_OP_LT, cnt, kt_i32(q, 3));
    cute_ir_while_body(&q->b, c);
    cute_ir_if(&q->b, kt_cmp(q, CUTE_OP_EQ, kt_bin(q, CUTE_OP_AND, v[CUTE_SREG_LANEID], kt_i32(q, 1)), kt_i32(q, 1)));
    cute_ir_op_void(&q->b, CUTE_OP_BREAK, cute_type_of(CUTE_VOID), 0, 0, 0, 0);
    cute_ir_end(&q->b);
    cute_ir_mov(&q->b, cnt, kt_bin(q, CUTE_OP_ADD, cnt, kt_i32(q, 1)));
    cute_ir_end(&q->b);
    cute_vreg packed = kt_bin(q, CUTE_OP_ADD, kt_bin(q, CUTE_OP_MUL, kt_load(q, sp), kt_i32(q, 1000)),
                              kt_bin(q, CUTE_OP_ADD, kt_bin(q, CUTE_OP_MUL, v[CUTE_SREG_WARPID], kt_i32(q, 10)), cnt));
    kt_store(q, kt_ptr_add(q, O, g), packed);
    cute_ir_func *fs[2] = {k[0].f, k[1].f};
    cute_module *m = NULL;
    const char *log;
    CHECK(be.vt->compile(be.self, fs, 2, &m, &log) == CUTE_OK, "two kernels: %s", log);
    cute_ir_func_free(fs[0]), cute_ir_func_free(fs[1]);
    enum { BX = 8, BY = 4, BZ = 2, GX = 2, GY = 3, GZ = 2, NT = BX * BY * BZ, N = NT * GX * GY * GZ };
    int32_t out[N];
    cute_buffer bo = kt_buf(be, NULL, sizeof out);
    cute_launch_arg arg = kt_arg_buf(&bo, CUTE_I32);
    cute_launch cfg = {.grid = {GX, GY, GZ}, .block = {BX, BY, BZ}, .smem_bytes = NT * 4};
    cute_status st = m ? be.vt->launch(be.self, m, 1, &cfg, &arg, 1) : CUTE_ERR_INVALID;
    CHECK(st == CUTE_OK, "dims: %s", be.vt->error(be.self));
    be.vt->download(be.self, out, &bo, 0, sizeof out);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        int t = i % NT, lane = t % 32;
        bad += out[i] != lane * 1000 + (t / 32) * 10 + (lane & 1 ? 0 : 3);
    }
    CHECK(bad == 0, "special registers over a 3-D grid: %d wrong", bad);
    cfg.smem_bytes = 0;
    CHECK(m && be.vt->launch(be.self, m, 1, &cfg, &arg, 1) == CUTE_ERR_CHECK, "no shared memory: a check");
    be.vt->module_free(be.self, m);
}

int main(void)
{
    cute_interp_opts o = {.threads = 1};
    use_backend(&o);
    test_ints();
    test_floats();
    test_control();
    test_printf();
    test_atomics(1);
    test_atomics(4);
    use_backend(&o);
    test_warps();
    test_vectors();
    test_trace();
    use_backend(&o);
    test_dims();
    be.vt->destroy(be.self);
    return CHECK_DONE("interp semantics");
}
