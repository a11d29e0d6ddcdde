/* The sm_100 tensor-memory copy atoms by CuTe's names, lane by lane on the interpreter: each
 * T2R / R2T atom (SM100_TMEM_LOAD_* / SM100_TMEM_STORE_*, every family, packed or not) and each
 * one-block S2T atom (SM100_UTCCP_*_1cta) issued through cute_tmem_copy / cute_utccp_copy with
 * random data, every register and tensor-memory cell compared with what the atom's own layouts
 * (`cutec show atom NAME`: the register side and ValID, in bits) say: register bit (t, i) is
 * logical bit L = R(t, i), at tensor-memory bit address ValID(L) (lane = address >> 21); a UTCCP
 * value v lands at ValID(v) and holds the shared matrix's bit that lands at ValID(Src(v)), the
 * matrix's rows filling those lanes in order.  So the layouts (checked equal to CuTe's when
 * written) and the interpreter's fragments (tcgen05_ldst_test: against the PTX ISA's figures)
 * agree.  Every T2R / R2T atom (148) and every S2T atom, the _2cta ones on a CTA pair (one
 * thread's copy into both blocks, each from its own shared memory); their layouts are the _1cta
 * ones' over two threads, and a _2cta atom outside a pair kernel (and a _1cta one inside) is
 * refused.  Verified by emulation only: no Blackwell. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/numeric.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "cutec/smem_atoms.h"
#include "cutec/sync.h"
#include "cutec/umma.h"
#include "interp/gpu_testkit.h"

enum { LANE_BITS = 21, MAX_COLS = 512, SRC_WORDS = 32 * MAX_COLS + 32 * 128 };

static cute_backend be;
static uint32_t src[SRC_WORDS], out[128 * MAX_COLS], want[128 * MAX_COLS], mask[128 * MAX_COLS];

static cute_val u32(cute_ctx *c, int64_t v) { return cute_val_int(c, CUTE_U32, v); }
static uint32_t rand32(void) { return (uint32_t)rand() << 16 ^ (uint32_t)rand(); }

/* a layout field of the atom's row */
static cute_layout field(cute_alg *a, const cute_atom_info *r, const char *name)
{
    for (int i = 0; i < 6 && r->field_name[i]; i++)
        if (!strcmp(r->field_name[i], name)) return cute_layout_parse(a, r->field[i]);
    CHECK(false, "%s has a %s", r->name, name);
    return cute_layout_parse(a, "1:0");
}

static int64_t eval(cute_alg *a, const cute_layout *L, int64_t i) { return cute_layout_eval(a, L, cute_i(i)).v; }

/* the columns ValID reaches (its largest column + 1) */
static int span_of(cute_alg *a, const cute_layout *val_id)
{
    int64_t top = 0, n = cute_size(a, val_id).v;
    for (int64_t i = 0; i < n; i += 16) {
        int64_t x = eval(a, val_id, i) & ((1 << LANE_BITS) - 1);
        top = x > top ? x : top;
    }
    return (int)(top / 32 + 1);
}

/* word w of thread t's row of a (32 or 128, n) u32 tensor */
static cute_tensor word(cute_ctx *c, cute_tensor g, cute_int t, int w) { return CUTE_SLICE(c, g, t, cute_i(w)); }
static cute_val get(cute_ctx *c, cute_tensor g, cute_int t, int w)
{
    return cute_ssa_get(c, cute_tensor_load(c, word(c, g, t, w)), 0);
}
static void put(cute_ctx *c, cute_tensor g, cute_int t, int w, cute_val v)
{
    cute_tensor o = word(c, g, t, w);
    cute_tensor_store(c, o, cute_ssa_scalar(c, v, o.layout.shape));
}

/* this warp's lanes (quarter) x cols columns from taddr, to or from g's row t (words 0 ..) */
static void quarter(cute_ctx *c, cute_tensor g, cute_int t, cute_val qa, int cols, bool store)
{
    cute_val v[128];
    for (int j0 = 0; j0 < cols; j0 += 128) {
        int n = cols - j0 < 128 ? cols - j0 : 128;
        cute_val at = cute_val_binop(c, CUTE_OP_ADD, qa, u32(c, j0));
        if (store) {
            for (int j = 0; j < n; j++) v[j] = get(c, g, t, j0 + j);
            cute_tmem_store(c, CUTE_TMEM_32x32b, n, false, at, 0, v);
            cute_tcgen05_wait_st(c);
        } else {
            cute_tmem_load(c, CUTE_TMEM_32x32b, n, false, at, 0, v);
            cute_tcgen05_wait_ld(c);
            for (int j = 0; j < n; j++) put(c, g, t, j0 + j, v[j]);
        }
    }
}

/* the block's threads meet, a fence either side for tcgen05 (a CTA pair's kernel: the cluster's) */
static void meet(cute_ctx *c, bool pair)
{
    cute_tcgen05_fence_before_thread_sync(c);
    if (pair) cute_cluster_arrive(c), cute_cluster_wait(c);
    else cute_barrier(c);
    cute_tcgen05_fence_after_thread_sync(c);
}

/* warp 0 allocates cols (>= 32) columns (the pair's, in a pair's kernel); every thread gets their address */
static cute_val alloc(cute_ctx *c, cute_smem_allocator *S, cute_int t, int cols, bool pair)
{
    cute_tensor slot = cute_make_tensor(c, cute_smem_alloc_array(c, S, CUTE_U32, 1, 4), cute_layout_parse(cute_ctx_alg(c), "1:0"), 4);
    CUTE_IF(c, cute_int_lt(c, t, cute_i(32))) { cute_tmem_alloc(c, cute_tensor_ptr(c, slot, cute_i(0)), cols); }
    meet(c, pair);
    return cute_ssa_get(c, cute_tensor_load(c, slot), 0);
}

/* after the shared stores: the mbarrier bar (one arrival), the fences for the async proxy, then
 * the columns: their address, and in *qa this warp's lane quarter of them */
static cute_val tmem_start(cute_ctx *c, cute_smem_allocator *S, cute_int t, int cols, bool pair, cute_val bar,
                           cute_val *qa)
{
    CUTE_IF(c, cute_int_eq(c, t, cute_i(0))) { cute_mbarrier_init(c, bar, u32(c, 1)); }
    cute_mbarrier_init_fence(c);
    cute_fence_proxy_async_shared_cta(c);
    cute_val taddr = alloc(c, S, t, cols, pair);
    cute_val warp = cute_val_binop(c, CUTE_OP_SHR, cute_int_value(c, t, CUTE_U32), u32(c, 5));
    *qa = cute_val_binop(c, CUTE_OP_ADD, taddr, cute_val_binop(c, CUTE_OP_SHL, warp, u32(c, 16 + 5)));
    return taddr;
}

static void dealloc(cute_ctx *c, cute_int t, cute_val taddr, int cols, bool pair)
{
    meet(c, pair);
    CUTE_IF(c, cute_int_lt(c, t, cute_i(32))) { cute_tmem_dealloc(c, taddr, cols); }
}

static int pow2_cols(int span)
{
    int cols = 32;
    while (cols < span) cols *= 2;
    return cols;
}

/* --- T2R / R2T: one warp ----------------------------------------------------------------
 * src: lane t's span words (the tensor memory before), then thread t's n registers (R2T);
 * out: thread t's n registers (T2R) or lane t's span words after (R2T) */
static cute_ir_func *ldst_kernel(const cute_copy_atom *atom, bool store, int span, int n)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "tmem_atom");
    cute_ctx_target_arch(c, 100);
    cute_alg *a = cute_ctx_alg(c);
    cute_val p = cute_param_ptr(c, "src", CUTE_U32);
    cute_tensor flat = cute_make_tensor(c, p, cute_layout_fmt(a, "%d:1", SRC_WORDS), 4);
    cute_tensor before = cute_make_tensor(c, p, cute_layout_fmt(a, "(32,%d):(%d,1)", span, span), 4);
    cute_tensor regs_in = cute_make_tensor(c, cute_tensor_ptr(c, flat, cute_i(32 * span)),
                                           cute_layout_fmt(a, "(32,%d):(%d,1)", n, n), 4);
    cute_tensor outp = cute_make_tensor(c, cute_param_ptr(c, "out", CUTE_U32), cute_layout_fmt(a, "(32,%d):(%d,1)", store ? span : n, store ? span : n), 4);
    cute_smem_allocator S = cute_smem_allocator_new(c);
    cute_int t = cute_thread_idx(c, 0);
    int cols = pow2_cols(span);
    cute_val taddr = alloc(c, &S, t, cols, false), r[128];
    quarter(c, before, t, taddr, span, true);
    if (store) {
        for (int i = 0; i < n; i++) r[i] = get(c, regs_in, t, i);
        cute_tmem_copy(c, atom, taddr, r);
        cute_tcgen05_wait_st(c);
        quarter(c, outp, t, taddr, span, false);
    } else {
        cute_tmem_copy(c, atom, taddr, r);
        cute_tcgen05_wait_ld(c);
        for (int i = 0; i < n; i++) put(c, outp, t, i, r[i]);
    }
    dealloc(c, t, taddr, cols, false);
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "%s traces: %s", atom->name, cute_ctx_error(c));
    cute_ctx_free(c);
    return f;
}

static cute_status run(cute_ir_func *f, uint32_t threads, uint32_t blocks, size_t out_words)
{
    for (size_t i = 0; i < out_words; i++) out[i] = 0xdeadbeef;
    kt k = {f, {0}};
    cute_module *m = f ? kt_compile(be, &k) : NULL;
    if (!m) return CUTE_ERR_COMPILE;
    cute_buffer bs = kt_buf(be, src, sizeof src), bo = kt_buf(be, out, out_words * 4);
    cute_launch_arg args[2] = {kt_arg_buf(&bs, CUTE_U32), kt_arg_buf(&bo, CUTE_U32)};
    cute_launch cfg = {.grid = {blocks, 1, 1}, .block = {threads, 1, 1}, .cluster = {blocks, 1, 1}};
    cute_status s = be.vt->launch(be.self, m, 0, &cfg, args, 2);
    be.vt->download(be.self, out, &bo, 0, out_words * 4);
    be.vt->module_free(be.self, m);
    be.vt->free(be.self, &bs), be.vt->free(be.self, &bo);
    return s;
}

/* atom `name` moved through the interpreter against the prediction of the layouts of atom
 * `layouts` (name itself, or another to see a wrong layout caught): the words that differ */
static int ldst_atom(const char *name, const char *layouts)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    cute_atom_info r, lr;
    cute_copy_atom atom;
    CHECK(cute_atom_info_find(name, &r) && cute_copy_atom_named(&a, name, CUTE_U32, &atom) &&
              cute_atom_info_find(layouts, &lr), "%s is an atom", name);
    bool store = strstr(name, "_STORE_") != NULL;
    cute_layout R = field(&a, &lr, store ? "SrcLayout" : "DstLayout"), V = field(&a, &lr, "ValID");
    int span = span_of(&a, &V), bits = (int)(cute_size(&a, &R).v / 32), n = bits / 32;
    for (size_t i = 0; i < SRC_WORDS; i++) src[i] = rand32();
    size_t words = (size_t)32 * (store ? span : n);
    memset(want, 0, words * 4), memset(mask, 0, words * 4);
    if (store) memcpy(want, src, words * 4), memset(mask, 0xff, words * 4); /* cells no register names: unchanged */
    for (int t = 0; t < 32; t++)
        for (int i = 0; i < bits; i += 16) {
            int64_t at = eval(&a, &V, eval(&a, &R, t + 32 * i));
            int lane = (int)(at >> LANE_BITS), cb = (int)(at & ((1 << LANE_BITS) - 1)), sh = cb % 32;
            size_t cell = (size_t)lane * span + (size_t)cb / 32, reg = (size_t)t * n + (size_t)i / 32;
            uint32_t piece = 0xffffu << sh;
            if (store) {
                uint32_t v = (src[32 * span + reg] >> i % 32 & 0xffffu) << sh;
                want[cell] = (want[cell] & ~piece) | v;
                if (strstr(r.inst, "unpack")) mask[cell] &= piece; /* the cell's other half: the layouts say nothing */
            } else {
                want[reg] |= (src[cell] >> sh & 0xffffu) << i % 32, mask[reg] |= 0xffffu << i % 32;
            }
        }
    cute_status s = run(ldst_kernel(&atom, store, span, n), 32, 1, words);
    int bad = 0, first = -1;
    for (size_t i = 0; i < words; i++)
        if ((out[i] ^ want[i]) & mask[i]) bad++, first = first < 0 ? (int)i : first;
    CHECK(s == CUTE_OK && (bad == 0 || name != layouts), "%s: %d of %zu words differ from its layouts' prediction "
          "(word %d: %#x, want %#x) %s", name, bad, words, first, first < 0 ? 0 : out[first],
          first < 0 ? 0 : want[first], s == CUTE_OK ? "" : be.vt->error(be.self));
    return bad;
}

static void ldst_atoms(void)
{
    static const struct {
        const char *dp;
        int max;
    } fams[] = {{"32dp32b", 128}, {"16dp32b", 128}, {"16dp64b", 128}, {"16dp128b", 64}, {"16dp256b", 32}};
    for (size_t f = 0; f < sizeof fams / sizeof *fams; f++)
        for (int dir = 0; dir < 2; dir++)
            for (int pack = 0; pack < 2; pack++)
                for (int n = 1; n <= fams[f].max; n *= 2) {
                    char name[64];
                    snprintf(name, sizeof name, "SM100_TMEM_%s_%s%dx%s", dir ? "STORE" : "LOAD", fams[f].dp, n,
                             pack ? "_16b" : "");
                    ldst_atom(name, name);
                }
    /* the same register and tensor-memory bits, another fragment: 16dp32b's lane t % 16 against
     * 16dp64b's lane t / 4 + 8 (t % 2) */
    CHECK(ldst_atom("SM100_TMEM_LOAD_16dp64b1x", "SM100_TMEM_LOAD_16dp32b1x") > 0,
          "16dp64b's load predicted by 16dp32b's layouts is caught");
}

/* --- UTCCP: four warps a block; thread 0 (of the pair's even block) copies a shared matrix ----
 * block b's src: its matrix's rows (row_words words each) from word CP_MAT b, the tensor memory
 * before (lane l's 8 words) from CP_BEFORE + CP_LANES b + 8 l; out: lane l's 8 columns after, from
 * CP_LANES b + 8 l.  A _2cta atom runs on a CTA pair: one thread's copy in both blocks, each from
 * its own shared memory */
enum { CP_COLS = 8, CP_MAT = 2048, CP_BEFORE = 2 * CP_MAT, CP_LANES = 128 * CP_COLS };

static cute_ir_func *cp_kernel(const cute_copy_atom *atom, int rows, int row_words, bool pair)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, pair ? "utccp_atom_pair" : "utccp_atom");
    cute_ctx_target_arch(c, 100);
    if (pair) cute_tcgen05_cta_group(c, 2);
    cute_alg *a = cute_ctx_alg(c);
    cute_int b = pair ? cute_int_from_val(c, cute_val_cvt(c, cute_block_idx_in_cluster(c), CUTE_U32), 0) : cute_i(0);
    cute_tensor g = cute_make_tensor(c, cute_param_ptr(c, "src", CUTE_U32), cute_layout_fmt(a, "%d:1", SRC_WORDS), 4);
    cute_layout lanes = cute_layout_fmt(a, "(128,%d):(%d,1)", CP_COLS, CP_COLS);
    cute_tensor before = cute_make_tensor(c, cute_tensor_ptr(c, g, cute_add(a, cute_i(CP_BEFORE), cute_mul(a, b, cute_i(CP_LANES)))),
                                          lanes, 4);
    cute_tensor o = cute_make_tensor(c, cute_param_ptr(c, "out", CUTE_U32), cute_layout_fmt(a, "%d:1", 2 * CP_LANES), 4);
    cute_tensor outp = cute_make_tensor(c, cute_tensor_ptr(c, o, cute_mul(a, b, cute_i(CP_LANES))), lanes, 4);
    cute_smem_allocator S = cute_smem_allocator_new(c);
    /* the K-major canonical matrix: 16-byte chunks of 8-row groups, chunks 128 bytes apart (LBO),
     * groups 128 * chunks apart (SBO); smem word (r / 8, chunk, r % 8, w % 4) <- row r's word w */
    int chunks = row_words / 4, smem_words = (rows + 7) / 8 * 8 * row_words;
    cute_layout place = cute_layout_fmt(a, "((8,%d),(4,%d)):((4,%d),(1,32))", (rows + 7) / 8, chunks, 32 * chunks);
    cute_tensor m = cute_make_tensor(c, cute_smem_alloc_array(c, &S, CUTE_U32, smem_words, 128), place, 128);
    cute_tensor gm = cute_make_tensor(c, cute_tensor_ptr(c, g, cute_mul(a, b, cute_i(CP_MAT))),
                                      cute_layout_fmt(a, "(%d,%d):(%d,1)", rows, row_words, row_words), 4);
    cute_val bar = cute_smem_alloc_array(c, &S, CUTE_U64, 1, 8);
    cute_int t = cute_thread_idx(c, 0);
    CUTE_IF(c, cute_int_lt(c, t, cute_i(rows))) {
        for (int w = 0; w < row_words; w++) put(c, m, t, w, get(c, gm, t, w));
    }
    cute_val qa, taddr = tmem_start(c, &S, t, 32, pair, bar, &qa);
    quarter(c, before, t, qa, CP_COLS, true);
    meet(c, pair); /* both blocks' matrices and tensor memory written before the copy */
    CUTE_IF(c, cute_val_binop(c, CUTE_OP_AND, cute_int_eq(c, t, cute_i(0)), cute_int_eq(c, b, cute_i(0)))) {
        cute_val desc = cute_tcgen05_smem_desc(c, cute_tensor_ptr(c, m, cute_i(0)), 128, 128 * chunks, 0);
        cute_utccp_copy(c, atom, taddr, desc);
        if (pair) cute_tcgen05_commit_multicast(c, bar, u32(c, 3));
        else cute_tcgen05_commit(c, bar);
    }
    cute_mbarrier_wait(c, bar, u32(c, 0));
    cute_tcgen05_fence_after_thread_sync(c);
    quarter(c, outp, t, qa, CP_COLS, false);
    dealloc(c, t, taddr, 32, pair);
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "%s traces: %s", atom->name, cute_ctx_error(c));
    cute_ctx_free(c);
    return f;
}

static void cp_atom(const char *name, bool pair)
{
    cute_alg a;
    cute_alg_init(&a, NULL);
    cute_atom_info r;
    cute_copy_atom atom;
    CHECK(cute_atom_info_find(name, &r) && cute_copy_atom_named(&a, name, CUTE_U32, &atom), "%s is an atom", name);
    cute_layout S2 = field(&a, &r, "SrcLayout"), D2 = field(&a, &r, "DstLayout"), V = field(&a, &r, "ValID");
    cute_layout Sl = cute_get(&a, &S2, 1), Dl = cute_get(&a, &D2, 1); /* a thread's (each of the pair's) values */
    int64_t nv = cute_size(&a, &Dl).v;
    /* the lanes the matrix's own rows land in (ValID over Src's image): row i is the i-th of them */
    int row_of[128], rows = 0, row_bits = 0;
    bool base[128] = {false};
    for (int64_t v = 0; v < nv; v++) {
        int64_t at = eval(&a, &V, eval(&a, &Sl, v)), cb = at & ((1 << LANE_BITS) - 1);
        base[at >> LANE_BITS] = true, row_bits = cb + 1 > row_bits ? (int)cb + 1 : row_bits;
    }
    for (int l = 0; l < 128; l++) row_of[l] = base[l] ? rows++ : -1;
    int row_words = row_bits / 32;
    int blocks = pair ? 2 : 1;
    for (size_t i = 0; i < SRC_WORDS; i++) src[i] = rand32();
    memcpy(want, src + CP_BEFORE, (size_t)blocks * CP_LANES * 4);
    for (int blk = 0; blk < blocks; blk++)
        for (int64_t v = 0; v < nv; v++) { /* bit by bit; each block from its own matrix */
            int64_t to = eval(&a, &V, eval(&a, &Dl, v)), from = eval(&a, &V, eval(&a, &Sl, v));
            int row = row_of[from >> LANE_BITS], bt = (int)(from & ((1 << LANE_BITS) - 1));
            int tb = (int)(to & ((1 << LANE_BITS) - 1));
            uint32_t *w = &want[blk * CP_LANES + (to >> LANE_BITS) * CP_COLS + tb / 32];
            uint32_t bit = src[blk * CP_MAT + row * row_words + bt / 32] >> bt % 32 & 1;
            *w = (*w & ~(1u << tb % 32)) | bit << tb % 32;
        }
    cute_status s = run(cp_kernel(&atom, rows, row_words, pair), 128, (uint32_t)blocks, (size_t)blocks * CP_LANES);
    int bad = 0, first = -1;
    for (int i = 0; i < blocks * CP_LANES; i++)
        if (out[i] != want[i]) bad++, first = first < 0 ? i : first;
    CHECK(s == CUTE_OK && bad == 0, "%s (%d rows of %d bits): %d words differ from its layouts' prediction (block %d "
          "lane %d column %d: %#x, want %#x) %s", name, rows, row_bits, bad, first / CP_LANES, first % CP_LANES / CP_COLS,
          first % CP_COLS, first < 0 ? 0 : out[first], first < 0 ? 0 : want[first],
          s == CUTE_OK ? "" : be.vt->error(be.self));
}

static const char *const CP_SHAPES[] = {"128dp256bit", "128dp128bit", "4dp256bit", "4x32dp128bit", "2x64dp128bitlw0213",
                                        "2x64dp128bitlw0123"};

/* each _2cta atom is its _1cta atom over the pair's two threads; a group that differs from
 * the kernel's is refused at the call */
static void pair_atoms(void)
{
    for (size_t i = 0; i < sizeof CP_SHAPES / sizeof *CP_SHAPES; i++) {
        char one[64], two[64];
        snprintf(one, sizeof one, "SM100_UTCCP_%s_1cta", CP_SHAPES[i]);
        snprintf(two, sizeof two, "SM100_UTCCP_%s_2cta", CP_SHAPES[i]);
        cute_atom_info r1, r2;
        CHECK(cute_atom_info_find(one, &r1) && cute_atom_info_find(two, &r2), "%s and %s", one, two);
        bool same = !strcmp(r1.field[4], r2.field[4]) && !strcmp(r2.field[0], "2:1");
        for (int f = 1; f <= 3; f++) same = same && r1.field[f][1] == '1' && r2.field[f][1] == '2' && !strcmp(r1.field[f] + 2, r2.field[f] + 2);
        CHECK(same, "%s is %s over two threads", two, one);
    }
    for (int pair = 0; pair < 2; pair++) {
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "utccp_group");
        cute_ctx_target_arch(c, 100);
        if (pair) cute_tcgen05_cta_group(c, 2);
        cute_copy_atom atom;
        const char *name = pair ? "SM100_UTCCP_128dp256bit_1cta" : "SM100_UTCCP_4x32dp128bit_2cta";
        CHECK(cute_copy_atom_named(cute_ctx_alg(c), name, CUTE_U32, &atom), "%s", name);
        cute_utccp_copy(c, &atom, u32(c, 0), cute_val_int(c, CUTE_U64, 1ll << 46));
        const char *e = cute_ctx_error(c);
        CHECK(e && strstr(e, "cute_utccp_copy") && strstr(e, name) && strstr(e, "atom_tmem_lane_test.c"),
              "%s in a kernel of cta_group::%d: %s", name, pair + 1, e ? e : "accepted");
        cute_ir_func_free(cute_kernel_end(c));
        cute_ctx_free(c);
    }
    { /* an S2T atom where a T2R one goes */
        cute_ctx *c = cute_ctx_new();
        cute_kernel_begin(c, "tmem_kind");
        cute_ctx_target_arch(c, 100);
        cute_copy_atom atom;
        cute_val r[4];
        const char *name = "SM100_UTCCP_4x32dp128bit_1cta";
        CHECK(cute_copy_atom_named(cute_ctx_alg(c), name, CUTE_U32, &atom), "%s", name);
        cute_tmem_copy(c, &atom, u32(c, 0), r);
        const char *e = cute_ctx_error(c);
        CHECK(e && strstr(e, "cute_tmem_copy") && strstr(e, "not a T2R / R2T atom") && strstr(e, "atom_tmem_lane_test.c"),
              "%s through cute_tmem_copy: %s", name, e ? e : "accepted");
        cute_ir_func_free(cute_kernel_end(c));
        cute_ctx_free(c);
    }
}

/* --- the _TS MMA atom fed by an R2T atom and drained by a T2R one --------------------------
 * A (128 x 64 bf16, random) stored by each lane into tensor memory with SM100_TMEM_STORE_32dp32b32x
 * (two bf16 a column), B (64 x 64) a shared tile, SM100_MMA_F16BF16_TS through cute_umma_gemm_ts (M
 * 128, or two tiles of M 64 at lanes 0 and 16: then D's lane L is again A's lane L times B), D
 * read back by SM100_TMEM_LOAD_32dp32b64x; against float64 */
enum { TS_K = 64, TS_N = 64, TS_A_COL = 64, TS_A_WORDS = 128 * TS_K / 2, TS_B = TS_N * TS_K };

static cute_ir_func *ts_kernel(bool m64)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, m64 ? "umma_ts_m64" : "umma_ts");
    cute_ctx_target_arch(c, 100);
    cute_alg *a = cute_ctx_alg(c);
    cute_val p = cute_param_ptr(c, "src", CUTE_U32);
    cute_tensor gA = cute_make_tensor(c, p, cute_layout_fmt(a, "(128,%d):(%d,1)", TS_K / 2, TS_K / 2), 4);
    cute_tensor flat = cute_make_tensor(c, p, cute_layout_fmt(a, "%d:1", SRC_WORDS), 4);
    cute_tensor gB = cute_make_tensor(c, cute_tensor_ptr(c, cute_tensor_recast(c, flat, CUTE_BF16), cute_i(2 * TS_A_WORDS)),
                                      cute_layout_fmt(a, "(%d,%d):(%d,1)", TS_N, TS_K, TS_K), 16);
    cute_tensor outp = cute_make_tensor(c, cute_param_ptr(c, "out", CUTE_U32), cute_layout_fmt(a, "(128,%d):(%d,1)", TS_N, TS_N), 4);
    cute_smem_allocator S = cute_smem_allocator_new(c);
    cute_tensor sB = cute_smem_alloc_tensor_composed(c, &S, CUTE_BF16, cute_smem_layout_gmma_tile(a, "Layout_K_SW128_Atom", CUTE_BF16, TS_N, TS_K), 1024);
    cute_val bar = cute_smem_alloc_array(c, &S, CUTE_U64, 1, 8);
    cute_int t = cute_thread_idx(c, 0);
    CUTE_IF(c, cute_int_lt(c, t, cute_i(TS_N))) {
        CUTE_FOR(c, k, cute_i(0), cute_i(TS_K)) { cute_tensor_store(c, CUTE_SLICE(c, sB, t, k), cute_tensor_load(c, CUTE_SLICE(c, gB, t, k))); }
    }
    cute_val qa, taddr = tmem_start(c, &S, t, 128, false, bar, &qa);
    cute_copy_atom st, ld;
    cute_mma_atom mma;
    CHECK(cute_copy_atom_named(a, "SM100_TMEM_STORE_32dp32b32x", CUTE_U32, &st) &&
              cute_copy_atom_named(a, "SM100_TMEM_LOAD_32dp32b64x", CUTE_U32, &ld) &&
              cute_umma_atom(a, "SM100_MMA_F16BF16_TS", CUTE_BF16, m64 ? 64 : 128, TS_N, &mma), "the atoms: %s", a->error);
    cute_val r[TS_N];
    for (int j = 0; j < TS_K / 2; j++) r[j] = get(c, gA, t, j);
    cute_tmem_copy(c, &st, cute_val_binop(c, CUTE_OP_ADD, qa, u32(c, TS_A_COL)), r);
    cute_tcgen05_wait_st(c);
    meet(c, false); /* every lane's A stored before the MMAs */
    CUTE_IF(c, cute_int_eq(c, t, cute_i(0))) {
        for (int tile = 0; tile < (m64 ? 2 : 1); tile++) {
            cute_val at = cute_val_binop(c, CUTE_OP_ADD, taddr, u32(c, (int64_t)(16 * tile) << 16));
            cute_umma_gemm_ts(c, &mma, at, cute_val_binop(c, CUTE_OP_ADD, at, u32(c, TS_A_COL)), sB, u32(c, 0));
        }
        cute_tcgen05_commit(c, bar);
    }
    cute_mbarrier_wait(c, bar, u32(c, 0));
    cute_tcgen05_fence_after_thread_sync(c);
    cute_tmem_copy(c, &ld, qa, r);
    cute_tcgen05_wait_ld(c);
    for (int j = 0; j < TS_N; j++) put(c, outp, t, j, r[j]);
    dealloc(c, t, taddr, 128, false);
    cute_ir_func *f = cute_kernel_end(c);
    CHECK(f, "the _TS kernel traces: %s", cute_ctx_error(c));
    cute_ctx_free(c);
    return f;
}

static void ts_mma(void)
{
    static double A[128][TS_K], B[TS_N][TS_K];
    for (int m64 = 0; m64 < 2; m64++) {
        uint16_t *b = (uint16_t *)(src + TS_A_WORDS);
        for (int i = 0; i < 128; i++)
            for (int k = 0; k < TS_K; k += 2) {
                uint16_t lo = cute_f32_to_bf16((float)(rand() % 2001 - 1000) / 256.0f);
                uint16_t hi = cute_f32_to_bf16((float)(rand() % 2001 - 1000) / 256.0f);
                src[i * TS_K / 2 + k / 2] = lo | (uint32_t)hi << 16;
                A[i][k] = cute_bf16_to_f32(lo), A[i][k + 1] = cute_bf16_to_f32(hi);
            }
        for (int n = 0; n < TS_N; n++)
            for (int k = 0; k < TS_K; k++) {
                b[n * TS_K + k] = cute_f32_to_bf16((float)(rand() % 2001 - 1000) / 300.0f);
                B[n][k] = cute_bf16_to_f32(b[n * TS_K + k]);
            }
        cute_status s = run(ts_kernel(m64), 128, 1, 128 * TS_N);
        double worst = 0;
        for (int m = 0; m < 128; m++)
            for (int n = 0; n < TS_N; n++) {
                double want = 0, mag = 0;
                for (int k = 0; k < TS_K; k++) want += A[m][k] * B[n][k], mag += fabs(A[m][k] * B[n][k]);
                float got;
                memcpy(&got, &out[m * TS_N + n], 4);
                double err = fabs(got - want) / (mag + 1e-30);
                worst = err != err ? INFINITY : err > worst ? err : worst;
            }
        CHECK(s == CUTE_OK && worst < 1e-6, "SM100_MMA_F16BF16_TS (%s, A stored by SM100_TMEM_STORE_32dp32b32x): D "
              "against float64: worst %.3g of sum |ab| %s", m64 ? "two M = 64 tiles" : "M = 128", worst,
              s == CUTE_OK ? "" : be.vt->error(be.self));
    }
}

/* CuTe DSL's spellings: an op with its arguments names its atom; the bare op lists its atoms */
static void dsl_names(void)
{
    cute_atom_info r;
    CHECK(cute_atom_info_find("tcgen05.Ld16x256bOp(Repetition.x4, Pack.NONE)", &r) &&
              !strcmp(r.name, "SM100_TMEM_LOAD_16dp256b4x"), "tcgen05.Ld16x256bOp(Repetition.x4, Pack.NONE)");
    CHECK(cute_atom_info_find("tcgen05.Cp2x64x128b0123Op(CtaGroup.TWO)", &r) &&
              !strcmp(r.name, "SM100_UTCCP_2x64dp128bitlw0123_2cta"), "tcgen05.Cp2x64x128b0123Op(CtaGroup.TWO)");
    cute_alg a;
    cute_alg_init(&a, NULL);
    cute_copy_atom atom;
    CHECK(!cute_copy_atom_named(&a, "tcgen05.St16x32bx2Op", CUTE_U32, &atom) && strstr(a.error, "CuTe DSL's op") &&
              strstr(a.error, "SM100_TMEM_STORE_16dp32b128x_16b"), "a bare CuTe DSL op: %s", a.error);
}

int main(void)
{
    srand(2111);
    if (cute_interp_new(&(cute_interp_opts){0}, &be) != CUTE_OK) return 1;
    ldst_atoms();
    for (size_t i = 0; i < sizeof CP_SHAPES / sizeof *CP_SHAPES; i++)
        for (int pair = 0; pair < 2; pair++) {
            char name[64];
            snprintf(name, sizeof name, "SM100_UTCCP_%s_%dcta", CP_SHAPES[i], 1 + pair);
            cp_atom(name, pair);
        }
    pair_atoms();
    ts_mma();
    dsl_names();
    be.vt->destroy(be.self);
    return CHECK_DONE("atom/atom_tmem_lane");
}
