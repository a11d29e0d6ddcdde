/* The atom table against CuTe and against itself: every MMA row's A, B and C layouts cover
 * their operand exactly once per element; every copy row moves the same bits on both sides
 * and its register side covers them once; key rows print exactly as CuTe's traits; copy
 * atoms upcast to elements as Copy_Atom<Traits, T> does; bad names and types are refused
 * with what was wrong.  (The layouts against the hardware: atom_lane_test.) */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/atom_table.h"
#include "cutec/notation.h"
#include "cutec/umma.h"

static char buf[4096];

static const char *lay(cute_alg *c, cute_layout L)
{
    if (c->failed) return c->error;
    cute_layout_str(&L, buf, sizeof buf);
    return buf;
}

/* how often L hits each of 0..n-1 (NULL: something outside); the caller frees */
static int *hits(cute_alg *c, const cute_layout *L, int64_t n)
{
    int *h = calloc((size_t)n, sizeof *h);
    int64_t size = cute_size(c, L).v;
    for (int64_t i = 0; i < size; i++) {
        int64_t x = cute_layout_eval(c, L, cute_i(i)).v;
        if (x < 0 || x >= n) return free(h), NULL;
        h[x]++;
    }
    return h;
}

/* every element hit exactly once */
static bool bijective(cute_alg *c, const cute_layout *L, int64_t n)
{
    int *h = hits(c, L, n);
    bool ok = h != NULL && cute_size(c, L).v == n;
    for (int64_t i = 0; ok && i < n; i++) ok = h[i] == 1;
    free(h);
    return ok;
}

static void check_mma_row(cute_alg *c, const cute_atom_info *r)
{
    cute_tuple mnk = cute_tuple_parse(c, r->field[0]);
    int64_t m = mnk.leaf[0].v, n = mnk.leaf[1].v, k = mnk.leaf[2].v;
    int64_t extent[3] = {m * k, n * k, m * n};
    for (int op = 0; op < 3; op++) {
        cute_layout L = cute_layout_parse(c, r->field[2 + op]);
        cute_layout thr = cute_get(c, &L, 0), val = cute_get(c, &L, 1);
        /* a wgmma operand read from shared memory: every thread sees the whole tile
         * (CuTe's ABLayout, thread stride 0), its values once each */
        bool shared = !c->failed && cute_size(c, &thr).v == 128 && cute_layout_eval(c, &thr, cute_i(127)).v == 0;
        CHECK(!c->failed && (shared ? bijective(c, &val, extent[op]) : bijective(c, &L, extent[op])),
              "%s %s: not one (thread, value) per element", r->name, r->field_name[2 + op]);
    }
}

/* an S2T row: memory on both sides, each thread of the CTA group (ThrID) doing the whole copy:
 * DstLayout's values are distinct logical bits of ValID's (4dp256bit's 1024 of 128 x 256: CuTe's
 * "refresh"), SrcLayout's lie among them (its stride 0: the broadcast into further lane quarters) */
static void check_utccp_row(cute_alg *c, const cute_atom_info *r)
{
    cute_layout S = cute_layout_parse(c, r->field[1]), D = cute_layout_parse(c, r->field[2]);
    cute_layout V = cute_layout_parse(c, r->field[4]), sv = cute_get(c, &S, 1), dv = cute_get(c, &D, 1);
    int64_t n = cute_size(c, &V).v;
    int *h = hits(c, &dv, n), *hs = hits(c, &sv, n);
    bool once = h != NULL;
    for (int64_t i = 0; once && i < n; i++) once = h[i] <= 1;
    CHECK(!c->failed && once, "%s: DstLayout's values are not distinct bits of ValID's", r->name);
    CHECK(hs != NULL, "%s: SrcLayout's values lie outside ValID's bits", r->name);
    free(h), free(hs);
}

static void check_copy_row(cute_alg *c, const cute_atom_info *r)
{
    if (strstr(r->name, "_UTCCP_")) return check_utccp_row(c, r);
    cute_layout S = cute_layout_parse(c, r->field[1]), D = cute_layout_parse(c, r->field[2]);
    bool ldsm = strstr(r->name, "LDSM") || strstr(r->name, "TMEM_LOAD"); /* registers at the destination */
    const cute_layout *regs = ldsm ? &D : &S, *mem = ldsm ? &S : &D;
    int64_t n = cute_size(c, regs).v;
    /* the tensor-memory copies past 8 registers a thread: their fragments repeated, which would
     * take seconds here; atom_tmem_lane_test moves data through every one */
    if (strstr(r->name, "_TMEM_") && n > 32 * 256) return;
    CHECK(!c->failed && bijective(c, regs, n), "%s: the register side does not hold every bit once", r->name);
    int *h = hits(c, mem, n);
    bool ok = h != NULL;
    for (int64_t i = 0; ok && i < n; i++) ok = h[i] > 0;
    CHECK(ok, "%s: the memory side does not cover the register side's bits", r->name);
    free(h);
}

static void check_rows(cute_alg *c)
{
    for (int i = 0; i < cute_atom_count(); i++) {
        cute_atom_info r = cute_atom_info_at(i);
        if (r.mma)
            check_mma_row(c, &r);
        else
            check_copy_row(c, &r);
        CHECK(!c->failed, "%s: %s", r.name, c->error);
        cute_alg_clear(c);
    }
}

/* the rows the GEMM stands on print exactly as CuTe's traits */
static void check_cute_text(cute_alg *c)
{
    cute_mma_atom a;
    CHECK(cute_mma_atom_named(c, "SM80_16x8x16_F32BF16BF16F32_TN", &a), "%s", c->error);
    CHECK_STR(lay(c, a.a_tv), "((4,8),(2,2,2)):((32,1),(16,8,128))");
    CHECK_STR(lay(c, a.b_tv), "((4,8),(2,2)):((16,1),(8,64))");
    CHECK_STR(lay(c, a.c_tv), "((4,8),(2,2)):((32,1),(16,8))");
    CHECK(a.a_type == CUTE_BF16 && a.c_type == CUTE_F32 && a.min_arch == 80 &&
              a.traits.scope == CUTE_SCOPE_WARP && a.traits.pred == CUTE_PRED_NONE,
          "types and traits");
    cute_copy_atom ld;
    CHECK(cute_copy_atom_named(c, "SM75_U32x4_LDSM_N", CUTE_BF16, &ld), "%s", c->error);
    /* Copy_Atom<SM75_U32x4_LDSM_N, bfloat16_t>: (32,128):(128,1) and
     * (32,(32,4)):(32,(1,1024)) in bits, upcast by 16 */
    CHECK_STR(lay(c, ld.src_tv), "(32,8):(8,1)");
    CHECK_STR(lay(c, ld.dst_tv), "(32,(2,4)):(2,(1,64))");
    CHECK(ld.bits == 128 && ld.traits.scope == CUTE_SCOPE_WARP, "LDSM x4 bits and scope");
    CHECK(cute_copy_atom_named(c, "SM75_U16x8_LDSM_T", CUTE_F16, &ld), "%s", c->error);
    CHECK_STR(lay(c, ld.dst_tv), "((4,8),(1,2,4)):((16,1),(1,8,64))");
    CHECK(cute_copy_atom_named(c, "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", CUTE_F16, &ld), "%s", c->error);
    CHECK_STR(lay(c, ld.src_tv), "(1,8):(0,1)");
    CHECK(ld.traits.async && ld.traits.pred == CUTE_PRED_ZFILL && ld.min_arch == 80, "cp.async traits");
    /* mma_traits_sm90_gmma.hpp: SM90_64x128x16_F32BF16BF16_SS, _RS, and a k32 _TN atom */
    CHECK(cute_mma_atom_named(c, "SM90_64x128x16_F32BF16BF16_SS", &a), "%s", c->error);
    CHECK_STR(lay(c, a.thr_id), "128:1");
    CHECK_STR(lay(c, a.a_tv), "(128,(64,16)):(0,(1,64))");
    CHECK_STR(lay(c, a.b_tv), "(128,(128,16)):(0,(1,128))");
    CHECK_STR(lay(c, a.c_tv), "((4,8,4),(2,2,16)):((128,1,16),(64,8,512))");
    CHECK(a.m == 64 && a.n == 128 && a.k == 16 && a.traits.scope == CUTE_SCOPE_WARPGROUP && a.traits.async &&
              a.min_arch == 90,
          "wgmma shape and traits");
    CHECK(cute_mma_atom_named(c, "SM90_64x8x16_F16F16F16_RS", &a), "%s", c->error);
    CHECK_STR(lay(c, a.a_tv), "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))");
    CHECK_STR(lay(c, a.c_tv), "((4,8,4),(2,2)):((128,1,16),(64,8))");
    CHECK(cute_mma_atom_named(c, "SM90_64x256x8_F32TF32TF32_RS_TN", &a), "%s", c->error);
    CHECK_STR(lay(c, a.a_tv), "((4,8,4),(2,2)):((64,1,16),(8,256))");
    CHECK(cute_mma_atom_named(c, "SM90_64x48x32_S32S8U8_SS_TN", &a) && a.b_type == CUTE_U8 && a.k == 32,
          "%s", c->error);
    CHECK(!cute_mma_atom_named(c, "SM90_64x40x32_S32S8S8_SS_TN", &a) && strstr(c->error, "SM90_64x"),
          "no integer wgmma of N 40 (ptxas refuses it): %s", c->error);
    cute_alg_clear(c);
}

static void check_refusals(cute_alg *c)
{
    cute_copy_atom ld;
    cute_mma_atom m;
    CHECK(!cute_copy_atom_named(c, "SM75_U16x8_LDSM_T", CUTE_F32, &ld) &&
              strstr(c->error, "narrower than one 32-bit element"),
          "f32 through a 16-bit transpose: %s", c->error);
    cute_alg_clear(c);
    CHECK(!cute_copy_atom_named(c, "SM80_CP_ASYNC_CACHEGLOBAL<uint32>", CUTE_F32, &ld) &&
              strstr(c->error, "SM80_CP_ASYNC_CACHEGLOBAL<uint128>"),
          "cp.async.cg of 4 bytes: %s", c->error);
    cute_alg_clear(c);
    CHECK(!cute_copy_atom_named(c, "SM80_CP_ASYNC_CACHEALWAYS<uint32>", CUTE_F64, &ld) &&
              strstr(c->error, "not a multiple of one f64"),
          "f64 by 4 bytes: %s", c->error);
    cute_alg_clear(c);
    CHECK(!cute_mma_atom_named(c, "SM75_U32x4_LDSM_N", &m) && strstr(c->error, "is a copy atom, not an MMA atom"),
          "a copy atom is no MMA atom: %s", c->error);
    cute_alg_clear(c);
}

/* the sm_100 rows print as CuTe's traits (mma_traits_sm100.hpp, copy_traits_sm100.hpp);
 * cute_umma_atom makes an atom of any M and N the instruction has, and refuses the rest */
static void check_sm100(cute_alg *c)
{
    cute_atom_info r;
    CHECK(cute_atom_info_find("SM100_MMA_F16BF16_2x1SM_SS", &r) && r.mma && r.min_arch == 100, "2x1SM row");
    CHECK_STR(r.field[1], "2:1");
    CHECK_STR(r.field[2], "(2,(128,16)):(128,(1,256))"); /* (_2,(M/2,K)):(M/2,(_1,M)) at M = N = 256 */
    CHECK_STR(r.field[4], "(2,(128,256)):(128,(1,256))");
    CHECK(cute_atom_info_find("SM100_MMA_MXF4NVF4_SS", &r) && r.field[5], "NVF4 row");
    CHECK_STR(r.field[5], "((32,4),(16,4)):((16,4),(0,1))"); /* Sm1xxBlockScaledBasicChunk<16>::SfKMajorAtom */
    CHECK_STR(r.field[0], "(128,256,64)");
    CHECK(cute_atom_info_find("SM100_TMEM_LOAD_32dp32b2x", &r) && !r.mma, "T2R row");
    CHECK_STR(r.field[1], "(32,2048):(0,1)");
    CHECK_STR(r.field[2], "(32,64):(64,1)");
    cute_mma_atom a;
    CHECK(cute_umma_atom(c, "SM100_MMA_F16BF16_SS", CUTE_F16, 64, 40, &a) && a.k == 16 && a.a_type == CUTE_F16, "%s",
          c->error);
    CHECK_STR(lay(c, a.a_tv), "(1,(64,16)):(0,(1,64))");
    CHECK_STR(lay(c, a.c_tv), "(1,(64,40)):(0,(1,64))");
    CHECK(cute_umma_atom(c, "SM100_MMA_TF32_SS", CUTE_TF32, 128, 256, &a) && a.k == 8, "%s", c->error);
    /* the CTA pair's: CuTe's 2x1SM layouts, M 256 over two blocks */
    CHECK(cute_umma_atom(c, "SM100_MMA_F16BF16_2x1SM_SS", CUTE_BF16, 256, 192, &a) && a.m == 256 && a.k == 16, "%s",
          c->error);
    CHECK_STR(lay(c, a.thr_id), "2:1");
    CHECK_STR(lay(c, a.a_tv), "(2,(128,16)):(128,(1,256))");
    CHECK_STR(lay(c, a.b_tv), "(2,(96,16)):(96,(1,192))");
    CHECK_STR(lay(c, a.c_tv), "(2,(128,192)):(128,(1,256))");
    /* and its block-scaled ones */
    CHECK(cute_umma_atom(c, "SM100_MMA_MXF4NVF4_2x1SM_SS", CUTE_E2M1, 256, 128, &a) && a.m == 256 && a.k == 64, "%s",
          c->error);
    CHECK_STR(lay(c, a.b_tv), "(2,(64,64)):(64,(1,128))");
    CHECK(cute_atom_info_find("SM100_UTCCP_4x32dp128bit_2cta", &r) && !r.mma, "the pair's S2T row");
    static const struct {
        const char *name;
        cute_dtype d;
        int m, n;
        const char *want;
    } bad[] = {{"SM100_MMA_F16BF16_SS", CUTE_F32, 128, 64, "does not take f32"},
               {"SM100_MMA_F16BF16_SS", CUTE_BF16, 128, 72, "128 x 72"},
               {"SM100_MMA_F16BF16_2x1SM_SS", CUTE_BF16, 128, 64, "M 256 over the pair"},
               {"SM100_MMA_F16BF16_2x1SM_TS", CUTE_BF16, 256, 64, "not an SM100_MMA atom cutec issues"},
               {"SM90_64x64x16_F32BF16BF16_SS", CUTE_BF16, 128, 64, "not an SM100_MMA atom cutec issues"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cute_alg_clear(c);
        CHECK(!cute_umma_atom(c, bad[i].name, bad[i].d, bad[i].m, bad[i].n, &a) && strstr(c->error, bad[i].want),
              "cute_umma_atom %s: %s", bad[i].name, c->error);
    }
    cute_alg_clear(c);
}

int main(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    check_rows(&c);
    check_cute_text(&c);
    cute_alg_clear(&c);
    check_refusals(&c);
    check_sm100(&c);
    cute_atom_info info;
    CHECK(cute_atom_info_find("SM75_U32x4_LDSM_N", &info) && !info.mma && info.min_arch == 75, "find");
    CHECK(cute_atom_info_find("SM80_CP_ASYNC_CACHEGLOBAL_ZFILL<uint128_t>", &info) &&
              !strcmp(info.name, "SM80_CP_ASYNC_CACHEGLOBAL<uint128>"),
          "CuTe's _ZFILL names are the cp.async rows");
    return CHECK_DONE("atom_table_test");
}
