/* tcgen05.ld / st in every data-movement shape (32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2; .xN,
 * .pack::16b / .unpack::16b) and the tcgen05.cp shapes (128x128b, 4x256b, 64x128b.warpx2::02_13
 * and ::01_23) on the interpreter, each against a table of which thread's register (or which
 * shared row) meets which tensor-memory (lane, column): the fragments of the PTX ISA's figures
 * ("Matrix fragments for tcgen05"), as CUTLASS's Copy_Traits (copy_traits_sm100.hpp: DstLayout
 * over ValID) state them, written out below by hand, not from the emulation.  Each new check has
 * a broken kernel the interpreter reports with its warp and site; the kernels compile for
 * sm_100a with NVRTC (ptxas accepts every row).  Verified by emulation only: no Blackwell. */
#include <string.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "interp/gpu_testkit.h"
#include "interp/tcgen05_testkit.h"

typedef struct lc {
    int lane, col;
} lc;

/* .x1: thread t's register r at (lane, column) from taddr's.  16x32bx2 is drawn with half_split 1:
 * column 1 stands for half_split.  .xN repeats them `period` columns on; .pack::16b doubles the
 * column (two columns a register, the first in the low half). */
static const lc F16x64b[32][1] = {
    {{0, 0}}, {{8, 0}}, {{0, 1}}, {{8, 1}}, {{1, 0}}, {{9, 0}}, {{1, 1}}, {{9, 1}},
    {{2, 0}}, {{10, 0}}, {{2, 1}}, {{10, 1}}, {{3, 0}}, {{11, 0}}, {{3, 1}}, {{11, 1}},
    {{4, 0}}, {{12, 0}}, {{4, 1}}, {{12, 1}}, {{5, 0}}, {{13, 0}}, {{5, 1}}, {{13, 1}},
    {{6, 0}}, {{14, 0}}, {{6, 1}}, {{14, 1}}, {{7, 0}}, {{15, 0}}, {{7, 1}}, {{15, 1}},
};
static const lc F16x128b[32][2] = {
    {{0, 0}, {8, 0}}, {{0, 1}, {8, 1}}, {{0, 2}, {8, 2}}, {{0, 3}, {8, 3}},
    {{1, 0}, {9, 0}}, {{1, 1}, {9, 1}}, {{1, 2}, {9, 2}}, {{1, 3}, {9, 3}},
    {{2, 0}, {10, 0}}, {{2, 1}, {10, 1}}, {{2, 2}, {10, 2}}, {{2, 3}, {10, 3}},
    {{3, 0}, {11, 0}}, {{3, 1}, {11, 1}}, {{3, 2}, {11, 2}}, {{3, 3}, {11, 3}},
    {{4, 0}, {12, 0}}, {{4, 1}, {12, 1}}, {{4, 2}, {12, 2}}, {{4, 3}, {12, 3}},
    {{5, 0}, {13, 0}}, {{5, 1}, {13, 1}}, {{5, 2}, {13, 2}}, {{5, 3}, {13, 3}},
    {{6, 0}, {14, 0}}, {{6, 1}, {14, 1}}, {{6, 2}, {14, 2}}, {{6, 3}, {14, 3}},
    {{7, 0}, {15, 0}}, {{7, 1}, {15, 1}}, {{7, 2}, {15, 2}}, {{7, 3}, {15, 3}},
};
static const lc F16x256b[32][4] = {
    {{0, 0}, {0, 1}, {8, 0}, {8, 1}}, {{0, 2}, {0, 3}, {8, 2}, {8, 3}},
    {{0, 4}, {0, 5}, {8, 4}, {8, 5}}, {{0, 6}, {0, 7}, {8, 6}, {8, 7}},
    {{1, 0}, {1, 1}, {9, 0}, {9, 1}}, {{1, 2}, {1, 3}, {9, 2}, {9, 3}},
    {{1, 4}, {1, 5}, {9, 4}, {9, 5}}, {{1, 6}, {1, 7}, {9, 6}, {9, 7}},
    {{2, 0}, {2, 1}, {10, 0}, {10, 1}}, {{2, 2}, {2, 3}, {10, 2}, {10, 3}},
    {{2, 4}, {2, 5}, {10, 4}, {10, 5}}, {{2, 6}, {2, 7}, {10, 6}, {10, 7}},
    {{3, 0}, {3, 1}, {11, 0}, {11, 1}}, {{3, 2}, {3, 3}, {11, 2}, {11, 3}},
    {{3, 4}, {3, 5}, {11, 4}, {11, 5}}, {{3, 6}, {3, 7}, {11, 6}, {11, 7}},
    {{4, 0}, {4, 1}, {12, 0}, {12, 1}}, {{4, 2}, {4, 3}, {12, 2}, {12, 3}},
    {{4, 4}, {4, 5}, {12, 4}, {12, 5}}, {{4, 6}, {4, 7}, {12, 6}, {12, 7}},
    {{5, 0}, {5, 1}, {13, 0}, {13, 1}}, {{5, 2}, {5, 3}, {13, 2}, {13, 3}},
    {{5, 4}, {5, 5}, {13, 4}, {13, 5}}, {{5, 6}, {5, 7}, {13, 6}, {13, 7}},
    {{6, 0}, {6, 1}, {14, 0}, {14, 1}}, {{6, 2}, {6, 3}, {14, 2}, {14, 3}},
    {{6, 4}, {6, 5}, {14, 4}, {14, 5}}, {{6, 6}, {6, 7}, {14, 6}, {14, 7}},
    {{7, 0}, {7, 1}, {15, 0}, {15, 1}}, {{7, 2}, {7, 3}, {15, 2}, {15, 3}},
    {{7, 4}, {7, 5}, {15, 4}, {15, 5}}, {{7, 6}, {7, 7}, {15, 6}, {15, 7}},
};
static const lc F16x32bx2[32][1] = {
    {{0, 0}}, {{1, 0}}, {{2, 0}}, {{3, 0}}, {{4, 0}}, {{5, 0}}, {{6, 0}}, {{7, 0}},
    {{8, 0}}, {{9, 0}}, {{10, 0}}, {{11, 0}}, {{12, 0}}, {{13, 0}}, {{14, 0}}, {{15, 0}},
    {{0, 1}}, {{1, 1}}, {{2, 1}}, {{3, 1}}, {{4, 1}}, {{5, 1}}, {{6, 1}}, {{7, 1}},
    {{8, 1}}, {{9, 1}}, {{10, 1}}, {{11, 1}}, {{12, 1}}, {{13, 1}}, {{14, 1}}, {{15, 1}},
};

enum { COLS = 128, COL0 = 8, LANES = 128, IMG = LANES * COLS, SLOT = 0, SMEM = 16 };

typedef struct shape_case {
    const char *name;
    int regs, period, lanes; /* registers a lane and columns in .x1; lanes the shape spans */
    const lc *table;         /* [32][regs]; NULL: 32x32b, lane l at (l, 0) */
} shape_case;

static const shape_case SHAPES[] = {
    {"32x32b", 1, 1, 32, NULL},
    {"16x64b", 1, 2, 16, &F16x64b[0][0]},
    {"16x128b", 2, 4, 16, &F16x128b[0][0]},
    {"16x256b", 4, 8, 16, &F16x256b[0][0]},
    {"16x32bx2", 1, 1, 16, &F16x32bx2[0][0]},
};

typedef struct ldst_case {
    const shape_case *sc;
    int num, split, lane_off; /* lane_off: added to taddr's lane (a broken kernel's) */
    bool pack, store;
} ldst_case;

/* thread l's register i: (lane, column) from taddr's, by the table */
static lc expect_cell(const ldst_case *c, int l, int i)
{
    const shape_case *sc = c->sc;
    int rep = i / sc->regs, r = i % sc->regs;
    lc x = sc->table ? sc->table[l * sc->regs + r] : (lc){l, 0};
    bool half = sc->table == &F16x32bx2[0][0] && x.col; /* the second half: half_split columns on */
    int fc = (half ? 0 : x.col) + rep * sc->period;
    return (lc){x.lane, (c->pack ? 2 * fc : fc) + (half ? c->split : 0)};
}

static cute_inst row_of(const shape_case *sc, int num, bool pack, bool store)
{
    char m[96];
    snprintf(m, sizeof m, "tcgen05.%s.sync.aligned.%s.x%d%s.b32", store ? "st" : "ld", sc->name, num,
             !pack ? "" : store ? ".unpack::16b" : ".pack::16b");
    cute_inst row = cute_inst_lookup(m);
    CHECK(row != CUTE_INST_COUNT, "the table has %s", m);
    return row;
}

static void new_regs(kt *k, cute_vreg *r, int n)
{
    for (int i = 0; i < n; i++) r[i] = cute_ir_new_vreg(k->f, cute_type_of(CUTE_U32), "r", false);
}

/* n words of p from word `at` (a u32 value) on */
static void load_words(kt *k, cute_vreg p, cute_vreg at, int n, cute_vreg *v)
{
    cute_vreg base = kt_cvt(k, at, CUTE_I64);
    for (int j = 0; j < n; j++) v[j] = kt_load(k, kt_ptr_add(k, p, kt_bin(k, CUTE_OP_ADD, base, kt_i64(k, j))));
}

static void store_words(kt *k, cute_vreg p, cute_vreg at, int n, const cute_vreg *v)
{
    cute_vreg base = kt_cvt(k, at, CUTE_I64);
    for (int j = 0; j < n; j++) kt_store(k, kt_ptr_add(k, p, kt_bin(k, CUTE_OP_ADD, base, kt_i64(k, j))), v[j]);
}

/* warp 0 allocates COLS columns; everyone gets their address */
static cute_vreg alloc_cols(kt *k, cute_vreg tid)
{
    sk_if(k, CUTE_OP_LT, tid, sk_u32(k, 32));
    SK_DO(k, CUTE_INST_TCGEN05_ALLOC, kt_smem(k, CUTE_U32, SLOT), sk_u32(k, COLS));
    cute_ir_end(&k->b);
    SK_DO(k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
    kt_barrier(k);
    SK_DO(k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    return kt_load(k, kt_smem(k, CUTE_U32, SLOT));
}

static void free_cols(kt *k, cute_vreg tid, cute_vreg taddr)
{
    SK_DO(k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
    kt_barrier(k);
    sk_if(k, CUTE_OP_LT, tid, sk_u32(k, 32));
    SK_DO(k, CUTE_INST_TCGEN05_DEALLOC, taddr, sk_u32(k, COLS));
    cute_ir_end(&k->b);
}

/* warp w's 32 lanes x COLS columns of tensor memory (at qa) from, or into, `p` from word
 * tid * COLS (lane-major: thread tid holds lane tid) */
static void quarter_io(kt *k, cute_vreg p, cute_vreg tid, cute_vreg qa, bool store)
{
    cute_vreg v[1 + COLS], at = kt_bin(k, CUTE_OP_MUL, tid, sk_u32(k, COLS));
    if (store) {
        load_words(k, p, at, COLS, v + 1);
        v[0] = qa;
        cute_ir_inst_op(&k->b, CUTE_INST_TCGEN05_ST_32x32b_X128, NULL, 0, v, 1 + COLS, 0);
        SK_DO(k, CUTE_INST_TCGEN05_WAIT_ST);
        return;
    }
    new_regs(k, v, COLS);
    cute_ir_inst_op(&k->b, CUTE_INST_TCGEN05_LD_32x32b_X128, v, COLS, &qa, 1, 0);
    SK_DO(k, CUTE_INST_TCGEN05_WAIT_LD);
    store_words(k, p, at, COLS, v);
}

/* the shape under test: a load into out (thread tid's registers from word tid * n), or a store
 * of src's words IMG + tid * n .. then the quarter read back into out; *line: its line */
static void under_test(kt *k, const ldst_case *c, cute_vreg src, cute_vreg out, cute_vreg tid, cute_vreg addr,
                       int *line)
{
    int n = c->num * c->sc->regs;
    cute_vreg v[1 + 128], at = kt_bin(k, CUTE_OP_MUL, tid, sk_u32(k, (uint32_t)n));
    cute_inst row = row_of(c->sc, c->num, c->pack, c->store);
    if (c->store) {
        load_words(k, src, kt_bin(k, CUTE_OP_ADD, at, sk_u32(k, IMG)), n, v + 1);
        v[0] = addr;
        KT_AT(&k->b), *line = __LINE__;
        cute_ir_inst_op(&k->b, row, NULL, 0, v, 1 + n, c->split);
        SK_DO(k, CUTE_INST_TCGEN05_WAIT_ST);
        return;
    }
    new_regs(k, v, n);
    KT_AT(&k->b), *line = __LINE__;
    cute_ir_inst_op(&k->b, row, v, n, &addr, 1, c->split);
    SK_DO(k, CUTE_INST_TCGEN05_WAIT_LD);
    store_words(k, out, at, n, v);
}

/* every warp fills its lane quarter from src, then loads (or stores) case c at its quarter's
 * lane 0 (even warps) or 16 (odd warps, 16-lane shapes), column COL0 */
static cute_ir_func *ldst_kernel(const ldst_case *c, int *line)
{
    kt k;
    cute_vreg src, out = sk_begin(&k, "tmem_ldst", SMEM, &src), tid = sk_tid(&k);
    cute_vreg taddr = alloc_cols(&k, tid), warp = kt_bin(&k, CUTE_OP_SHR, tid, sk_u32(&k, 5));
    cute_vreg qa = kt_bin(&k, CUTE_OP_ADD, taddr, kt_bin(&k, CUTE_OP_SHL, warp, sk_u32(&k, 21)));
    quarter_io(&k, src, tid, qa, true);
    cute_vreg half = c->sc->lanes == 16 ? kt_bin(&k, CUTE_OP_SHL, kt_bin(&k, CUTE_OP_AND, warp, sk_u32(&k, 1)), sk_u32(&k, 20))
                                        : sk_u32(&k, 0);
    cute_vreg addr = kt_bin(&k, CUTE_OP_ADD, kt_bin(&k, CUTE_OP_ADD, qa, half), sk_u32(&k, COL0 + (c->lane_off << 16)));
    under_test(&k, c, src, out, tid, addr, line);
    if (c->store) quarter_io(&k, out, tid, qa, false);
    free_cols(&k, tid, taddr);
    return k.f;
}

static uint32_t rand32(void) { return (uint32_t)rand() << 16 ^ (uint32_t)rand(); }

/* the cell that thread t's register i names: its lane and column in the whole tensor memory */
static size_t cell_at(const ldst_case *c, int t, int i)
{
    int base = 32 * (t / 32) + (c->sc->lanes == 16 ? 16 * (t / 32 % 2) : 0);
    lc x = expect_cell(c, t % 32, i);
    return (size_t)(base + x.lane) * COLS + (size_t)(COL0 + x.col);
}

/* what the kernel should write: the loaded registers, or the tensor memory after the store */
static void expected(const ldst_case *c, const uint32_t *src, uint32_t *want)
{
    int n = c->num * c->sc->regs;
    if (c->store) memcpy(want, src, IMG * 4);
    for (int t = 0; t < LANES; t++)
        for (int i = 0; i < n; i++) {
            size_t at = cell_at(c, t, i);
            uint32_t v = src[IMG + t * n + i];
            if (!c->store)
                want[t * n + i] = c->pack ? (src[at] & 0xffffu) | src[at + 1] << 16 : src[at];
            else if (c->pack)
                want[at] = v & 0xffffu, want[at + 1] = v >> 16;
            else
                want[at] = v;
        }
}

static void one_case(cute_backend be, const ldst_case *c)
{
    static uint32_t src[2 * IMG], out[IMG], want[IMG];
    int line, n = c->store ? IMG : LANES * c->num * c->sc->regs;
    for (size_t i = 0; i < 2 * IMG; i++) src[i] = rand32();
    expected(c, src, want);
    cute_status s = tc_run(be, ldst_kernel(c, &line), 1, 1, src, sizeof src, out, (size_t)n);
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++)
        if (out[i] != want[i]) bad++, first = first < 0 ? i : first;
    CHECK(s == CUTE_OK && bad == 0, "tcgen05.%s %s.x%d%s: %d of %d words differ from the PTX ISA's fragment (word %d: "
          "%#x, want %#x) %s", c->store ? "st" : "ld", c->sc->name, c->num, c->pack ? " packed" : "", bad, n, first,
          first < 0 ? 0 : out[first], first < 0 ? 0 : want[first], s == CUTE_OK ? "" : be.vt->error(be.self));
}

/* every shape at two repetitions, packed or not, loaded and stored */
static void each_shape(cute_backend be)
{
    for (size_t s = 0; s < sizeof SHAPES / sizeof *SHAPES; s++)
        for (int num = 1; num <= 4; num *= 4)
            for (int mode = 0; mode < 4; mode++) {
                bool pack = mode & 1, x2 = SHAPES[s].table == &F16x32bx2[0][0];
                int width = num << pack; /* 16x32bx2: a half's columns; its second half 3 columns past it */
                one_case(be, &(ldst_case){&SHAPES[s], num, x2 ? width + 3 : 0, 0, pack, mode >> 1});
            }
}

/* broken kernels: each reported at the shape's load with the warp */
static void broken_loads(cute_backend be)
{
    static uint32_t src[2 * IMG], out[IMG];
    const struct {
        ldst_case c;
        const char *words;
    } cases[] = {
        {{&SHAPES[1], 1, 0, 8, false, false}, "starts at lane"},                      /* lane 8 of a quarter */
        {{&SHAPES[2], 1, 0, 32, false, false}, "may access tensor-memory lanes 0..31"}, /* the next quarter */
        {{&SHAPES[4], 2, 200, 0, true, false}, "outside every live allocation"},      /* half 2 past the columns */
        {{&SHAPES[3], 1, 0, 4, false, true}, "starts at lane"},                       /* a store at lane 4 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int line;
        cute_status s = tc_run(be, ldst_kernel(&cases[i].c, &line), 1, 1, src, sizeof src, out, 64);
        const cute_interp_report *r = kt_report(be, 0);
        CHECK(s != CUTE_OK && r && r->kind == CUTE_CHECK_TMEM && strstr(r->msg, cases[i].words) &&
                  strstr(r->msg, "warp 0") && r->line == line,
              "broken %s load %zu reported at line %d: %s", cases[i].c.sc->name, i, line, r ? r->msg : "nothing");
    }
}

/* --- tcgen05.cp: each shape's rows land in the lanes the PTX ISA names -------------------- */
typedef struct cp_case {
    cute_inst row;
    const char *name;
    int rows, words, lane0;
    int quarters[2][4]; /* rows 0..31 (and 32..63) land in these lane quarters (-1: none) */
} cp_case;

enum { CP_SMEM = 4096, CP_BAR = CP_SMEM + 16, CP_SLOT = CP_SMEM + 24, CP_SMEM_ALL = CP_SMEM + 32, CP_OUT = LANES * 8 };

/* the lane (or -1) that copy q of row r lands in */
static int cp_lane(const cp_case *c, int r, int q)
{
    if (c->rows == 4) return q ? -1 : c->lane0 + 32 * r; /* 4x256b: a row a quarter */
    if (c->rows == 128) return q ? -1 : r;
    int quarter = c->quarters[r / 32][q];
    return quarter < 0 ? -1 : 32 * quarter + r % 32;
}

/* the descriptor of the K-major matrix at shared offset 0: 16-byte chunks, 8-row groups */
static cute_vreg cp_desc(kt *k, int words)
{
    uint64_t lbo = 128, sbo = (uint64_t)words / 4 * 128;
    return cute_ir_const_int(&k->b, CUTE_U64, (int64_t)(lbo >> 4 << 16 | sbo >> 4 << 32 | 1ull << 46));
}

static uint32_t cp_offset(int r, int c, int words) { return (uint32_t)(r / 8 * words / 4 * 128 + c / 4 * 128 + r % 8 * 16 + c % 4 * 4); }

/* the shared matrix from src, every lane's 8 columns marked (src word CP_SMEM / 4), thread 0's
 * copy at taddr + lane0, committed and waited, then every warp's quarter into out */
static cute_ir_func *cp_kernel(const cp_case *c, int *line)
{
    kt k;
    cute_vreg src, out = sk_begin(&k, "tmem_cp", CP_SMEM_ALL, &src), tid = sk_tid(&k);
    cute_vreg bar = kt_smem(&k, CUTE_U64, CP_BAR), v[9];
    tc_copy_words(&k, src, tid, CP_SMEM / 4);
    v[1] = kt_load(&k, kt_ptr_add(&k, src, kt_i64(&k, CP_SMEM / 4)));
    cute_vreg taddr = tc_prologue(&k, tid, bar, CP_SLOT, COLS);
    cute_vreg qa = kt_bin(&k, CUTE_OP_ADD, taddr, kt_bin(&k, CUTE_OP_SHL, kt_bin(&k, CUTE_OP_SHR, tid, sk_u32(&k, 5)),
                                                          sk_u32(&k, 21)));
    v[0] = qa;
    for (int j = 2; j < 9; j++) v[j] = v[1];
    cute_ir_inst_op(&k.b, CUTE_INST_TCGEN05_ST_32x32b_X8, NULL, 0, v, 9, 0);
    SK_DO(&k, CUTE_INST_TCGEN05_WAIT_ST);
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_BEFORE_THREAD_SYNC);
    kt_barrier(&k);
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    sk_if(&k, CUTE_OP_EQ, tid, sk_u32(&k, 0));
    KT_AT(&k.b), *line = __LINE__;
    SK_DO(&k, c->row, kt_bin(&k, CUTE_OP_ADD, taddr, sk_u32(&k, (uint32_t)c->lane0 << 16)), cp_desc(&k, c->words));
    SK_DO(&k, CUTE_INST_TCGEN05_COMMIT, bar);
    cute_ir_end(&k.b);
    sk_wait(&k, bar, sk_u32(&k, 0));
    SK_DO(&k, CUTE_INST_TCGEN05_FENCE_AFTER_THREAD_SYNC);
    new_regs(&k, v, 8);
    cute_ir_inst_op(&k.b, CUTE_INST_TCGEN05_LD_32x32b_X8, v, 8, &qa, 1, 0);
    SK_DO(&k, CUTE_INST_TCGEN05_WAIT_LD);
    store_words(&k, out, kt_bin(&k, CUTE_OP_MUL, tid, sk_u32(&k, 8)), 8, v);
    free_cols(&k, tid, taddr);
    return k.f;
}

static const cp_case CP_CASES[] = {
    {CUTE_INST_TCGEN05_CP_128x128b, "128x128b", 128, 4, 0, {{0}}},
    {CUTE_INST_TCGEN05_CP_4x256b, "4x256b", 4, 8, 5, {{0}}},
    {CUTE_INST_TCGEN05_CP_64x128b_WARPX2_02_13, "64x128b.warpx2::02_13", 64, 4, 0, {{0, 2, -1, -1}, {1, 3, -1, -1}}},
    {CUTE_INST_TCGEN05_CP_64x128b_WARPX2_01_23, "64x128b.warpx2::01_23", 64, 4, 0, {{0, 1, -1, -1}, {2, 3, -1, -1}}},
    {CUTE_INST_TCGEN05_CP_32x128b_WARPX4, "32x128b.warpx4", 32, 4, 0, {{0, 1, 2, 3}}},
};

static void cp_shapes(cute_backend be)
{
    static uint32_t src[CP_SMEM / 4 + 1], out[CP_OUT], want[CP_OUT];
    for (size_t i = 0; i < sizeof CP_CASES / sizeof *CP_CASES; i++) {
        const cp_case *c = &CP_CASES[i];
        int line;
        for (size_t j = 0; j <= CP_SMEM / 4; j++) src[j] = rand32();
        for (int j = 0; j < CP_OUT; j++) want[j] = src[CP_SMEM / 4];
        for (int r = 0; r < c->rows; r++)
            for (int q = 0; q < 4; q++)
                for (int w = 0; w < c->words && cp_lane(c, r, q) >= 0; w++)
                    want[cp_lane(c, r, q) * 8 + w] = src[cp_offset(r, w, c->words) / 4];
        cute_status s = tc_run(be, cp_kernel(c, &line), 1, 1, src, sizeof src, out, CP_OUT);
        CHECK(s == CUTE_OK && !memcmp(out, want, sizeof out), "tcgen05.cp .%s: its rows in the lanes the PTX ISA "
              "names %s", c->name, s == CUTE_OK ? "" : be.vt->error(be.self));
    }
    int line;
    cp_case bad = CP_CASES[1];
    bad.lane0 = 40; /* 4x256b from lane 40: row 3 would fall past lane 127 */
    cute_status s = tc_run(be, cp_kernel(&bad, &line), 1, 1, src, sizeof src, out, CP_OUT);
    const cute_interp_report *r = kt_report(be, 0);
    CHECK(s != CUTE_OK && r && strstr(r->msg, "lane 40") && strstr(r->msg, "warp 0") && r->line == line,
          "4x256b from lane 40 reported at line %d: %s", line, r ? r->msg : "nothing");
}

/* --- ptxas: one kernel issuing every tcgen05.ld / st row and the one-block tcgen05.cp rows,
 * one issuing the CTA pair's tcgen05.cp rows ------------------------------------------------ */
static cute_ir_func *all_rows_kernel(bool pair)
{
    kt k;
    cute_vreg out = sk_begin(&k, pair ? "tmem_rows_pair" : "tmem_rows", SMEM, NULL), tid = sk_tid(&k);
    cute_vreg taddr = kt_load(&k, kt_smem(&k, CUTE_U32, SLOT)), v[129], sum = kt_var(&k, sk_u32(&k, 0));
    for (int row = 0; row < CUTE_INST_COUNT; row++) {
        const cute_inst_info *I = cute_inst_info_of((cute_inst)row);
        bool cp = !strncmp(I->id, "TCGEN05_CP_", 11), ld = !strncmp(I->id, "TCGEN05_LD_", 11);
        if (cp && pair == (strstr(I->id, "_2SM") != NULL))
            SK_DO(&k, (cute_inst)row, taddr, cute_ir_const_int(&k.b, CUTE_U64, 1ll << 46));
        if (pair || (!ld && strncmp(I->id, "TCGEN05_ST_", 11))) continue;
        new_regs(&k, v, I->nout);
        for (int j = 1; j < I->nin; j++) v[I->nout + j] = tid;
        v[I->nout] = taddr;
        cute_ir_inst_op(&k.b, (cute_inst)row, v, I->nout, v + I->nout, I->nin, 4);
        for (int j = 0; j < I->nout; j++) cute_ir_mov(&k.b, sum, kt_bin(&k, CUTE_OP_XOR, sum, v[j]));
    }
    kt_store(&k, kt_ptr_add(&k, out, kt_cvt(&k, tid, CUTE_I64)), sum);
    return k.f;
}

int main(void)
{
    srand(100);
    cute_interp_opts o = {0};
    cute_backend be = kt_backend(&o);
    each_shape(be);
    broken_loads(be);
    cp_shapes(be);
    be.vt->destroy(be.self);
    kt_compiles_for((cute_ir_func *[]){all_rows_kernel(false)}, 1, "sm_100a", "tcgen05.ld.sync.aligned.16x32bx2.x128.pack::16b.b32");
    kt_compiles_for((cute_ir_func *[]){all_rows_kernel(true)}, 1, "sm_100a", "tcgen05.cp.cta_group::2.64x128b.warpx2::01_23");
    return CHECK_DONE("interp/tcgen05_ldst");
}
