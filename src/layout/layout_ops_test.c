/* The ops the oracle does not cover, checked against CuTe's answers for the same calls
 * (worked out from CuTe's definitions; the DSL examples they come from are named), and the
 * bad-input contract: every misuse is an error message naming the op, never a crash. */
#include <stdlib.h>

#include "check.h"
#include "cutec/notation.h"

static char buf[4096];

static const char *lay(cute_alg *c, cute_layout L)
{
    if (c->failed) return c->error;
    cute_layout_str(&L, buf, sizeof buf);
    return buf;
}

static const char *tup(cute_alg *c, cute_tuple t)
{
    if (c->failed) return c->error;
    cute_tuple_str(&t, buf, sizeof buf);
    return buf;
}

#define CTX(c)                                                                           \
    cute_alg c;                                                                          \
    cute_alg_init(&c, NULL)
#define L(s) cute_layout_or_shape_parse(&c, s)
#define T(s) cute_tuple_parse(&c, s)

static void construction(void)
{
    CTX(c);
    cute_layout like = L("(4,(2,3)):(6,(1,24))");
    CHECK_STR(lay(&c, cute_make_layout(&c, T("(4,1,3)"))), "(4,1,3):(1,0,4)");
    CHECK_STR(lay(&c, cute_make_layout_row_major(&c, T("(4,(2,3))"))), "(4,(2,3)):(6,(3,1))");
    CHECK_STR(lay(&c, cute_make_ordered_layout(&c, T("(4,8,2)"), T("(1,0,2)"))),
              "(4,8,2):(8,1,32)");
    CHECK_STR(lay(&c, cute_make_layout_like(&c, &like)),
              "(4,(2,3)):(2,(1,8))");
    CHECK_STR(lay(&c, cute_make_identity_layout(&c, T("(4,8)"))), "(4,8):(1@0,1@1)");
    cute_layout id = cute_make_identity_layout(&c, T("((2,3),4)"));
    CHECK_STR(lay(&c, id), "((2,3),4):((1@0@0,1@1@0),1@1)");
    /* the identity layout maps an index to its own coordinate */
    CHECK_STR(tup(&c, cute_layout_eval_basis(&c, &id, cute_i(11))), "((1,2),1)");
    cute_layout id2 = cute_make_identity_layout(&c, T("(4,8)"));
    CHECK_STR(tup(&c, cute_layout_eval_basis(&c, &id2, cute_i(13))), "(1,3)");
    cute_layout modes[2] = {L("4:1"), L("(2,2):(8,4)")};
    CHECK_STR(lay(&c, cute_make_layout_modes(&c, 2, modes)), "(4,(2,2)):(1,(8,4))");
    CHECK_STR(lay(&c, cute_make_layout_modes(&c, 1, modes)), "(4):(1)");
    CHECK_STR(lay(&c, cute_layout_fmt(&c, "(%d,%lld):(1,%I)", 4, 8LL, cute_i(4))), "(4,8):(1,4)");
    CHECK(!c.failed, "%s", c.error);
}

static void modes(void)
{
    CTX(c);
    cute_layout A = L("((2,3),4,(5,6)):((1,2),6,(24,120))");
    CHECK_STR(lay(&c, cute_get(&c, &A, 2)), "(5,6):(24,120)");
    CHECK_STR(lay(&c, cute_select(&c, &A, 2, (int[]){2, 0})), "((5,6),(2,3)):((24,120),(1,2))");
    CHECK_STR(lay(&c, cute_group_modes(&c, &A, 1, 3)), "((2,3),(4,(5,6))):((1,2),(6,(24,120)))");
    CHECK_STR(lay(&c, cute_flatten(&c, &A)), "(2,3,4,5,6):(1,2,6,24,120)");
    cute_layout F = cute_flatten(&c, &A);
    cute_tuple prof = A.shape;
    CHECK_STR(lay(&c, cute_unflatten(&c, &F, &prof)), "((2,3),4,(5,6)):((1,2),6,(24,120))");
    cute_layout x = L("7:0");
    CHECK_STR(lay(&c, cute_append(&c, &A, &x)), "((2,3),4,(5,6),7):((1,2),6,(24,120),0)");
    CHECK_STR(lay(&c, cute_prepend(&c, &A, &x)), "(7,(2,3),4,(5,6)):(0,(1,2),6,(24,120))");
    CHECK_STR(lay(&c, cute_replace(&c, &A, 1, &x)), "((2,3),7,(5,6)):((1,2),0,(24,120))");
    cute_layout s = L("4:1");
    CHECK_STR(lay(&c, cute_append(&c, &s, &x)), "(4,7):(1,0)");
    CHECK_STR(lay(&c, cute_append_to_rank(&c, &s, 3)), "(4,1,1):(1,0,0)");
    /* 100 = (0,2) in (2,3), 0 in 4, ... : colexicographic with the last mode absorbing */
    cute_tuple crd = cute_idx2crd(&c, cute_i(100), &A.shape);
    CHECK_STR(tup(&c, crd), "((0,2),0,(4,0))");
    CHECK(cute_layout_eval(&c, &A, cute_i(100)).v == 2 * 2 + 24 * 4, "eval 100");
    CHECK(!c.failed, "%s", c.error);
}

static void hardware_layouts(void)
{
    CTX(c);
    /* CuTe DSL elementwise_add: thr (4,32) row-major, val (4,4) row-major */
    cute_layout thr = L("(4,32):(32,1)"), val = L("(4,4):(4,1)");
    cute_tuple tiler;
    cute_layout tv = cute_make_layout_tv(&c, &thr, &val, &tiler);
    CHECK_STR(lay(&c, tv), "((32,4),(4,4)):((64,4),(16,1))");
    CHECK_STR(tup(&c, tiler), "(16,128)");
    /* a swizzle atom replicated to a tile (seed 000: tile_to_shape(atom, (BM,BK,STAGES))) */
    cute_layout atom = L("(8,64):(64,1)");
    cute_tuple s2 = T("(128,64)"), s3 = T("(128,64,3)");
    CHECK_STR(lay(&c, cute_tile_to_shape(&c, &atom, &s2, NULL)), "(128,64):(64,1)");
    CHECK_STR(lay(&c, cute_tile_to_shape(&c, &atom, &s3, NULL)), "(128,64,3):(64,1,8192)");
    cute_layout a88 = L("(8,8):(1,8)"), t88 = L("(8,8):(8,1)"), p = L("(4,(2,8)):(2,(1,8))");
    CHECK(cute_max_common_vector(&c, &a88, &a88).v == 64, "identical layouts: all 64");
    CHECK(cute_max_common_vector(&c, &a88, &t88).v == 1, "transposes share no vector");
    CHECK(cute_max_common_vector(&c, &p, &a88).v == 1, "stride-2 first mode");
    CHECK_STR(lay(&c, cute_max_common_layout(&c, &a88, &a88)), "64:1");
    cute_layout v = L("(16,8):(1,16)"), w = L("(16,8):(1,32)");
    CHECK(cute_max_common_vector(&c, &v, &w).v == 16, "contiguous columns of 16");
    /* recast: f16 -> 32-bit words halves the contiguous mode */
    cute_layout h = L("(8,32):(32,1)");
    CHECK_STR(lay(&c, cute_recast(&c, &h, 16, 32)), "(8,16):(16,1)");
    CHECK_STR(lay(&c, cute_recast(&c, &h, 16, 8)), "(8,64):(64,1)");
    CHECK_STR(lay(&c, cute_upcast(&c, &h, 8)), "(8,4):(4,1)");
    CHECK_STR(lay(&c, cute_downcast(&c, &h, 2)), "(8,64):(64,1)");
    CHECK(!c.failed, "%s", c.error);
}

static void tiling(void)
{
    CTX(c);
    /* seed 002: gA = local_tile(mA, (128,128,8), (bidx,bidy,_), proj=(1,_,1)) */
    cute_layout mA = L("(512,64):(1,512)");
    cute_tuple off;
    cute_tuple tile = T("(128,128,8)"), crd = T("(2,1,_)"), proj = T("(1,_,1)");
    CHECK_STR(lay(&c, cute_local_tile(&c, &mA, &tile, &crd, &proj, &off)), "(128,8,8):(1,512,4096)");
    CHECK(off.leaf[0].v == 256, "offset %lld", (long long)off.leaf[0].v);
    /* thread 9 of (32,8):(8,1) owns a (4,1) piece of a (128,8) tile */
    cute_layout tileC = L("(128,8):(1,128)"), thr = L("(32,8):(8,1)");
    CHECK_STR(lay(&c, cute_local_partition(&c, &tileC, &thr, cute_i(9), &off)), "(4,1):(32,0)");
    CHECK(off.leaf[0].v == 1 + 128, "offset %lld", (long long)off.leaf[0].v);
    CHECK_STR(tup(&c, cute_layout_coord_of(&c, &thr, cute_i(9))), "(1,1)");
    /* every element of the tile is owned by exactly one (thread, value) */
    int owner[1024];
    memset(owner, 0, sizeof owner);
    for (int t = 0; t < 256; t++) {
        cute_layout part = cute_local_partition(&c, &tileC, &thr, cute_i(t), &off);
        for (int v = 0; v < 4; v++) owner[off.leaf[0].v + cute_layout_eval(&c, &part, cute_i(v)).v]++;
    }
    int ok = 1;
    for (int i = 0; i < 1024; i++) ok &= owner[i] == 1;
    CHECK(ok, "local_partition covers the tile exactly once");
    /* swizzled composed layouts: offset moves with slicing */
    cute_layout inner = L("(8,8):(8,1)");
    cute_composed sw = cute_make_composed(&c, (cute_swizzle){3, 0, 3}, cute_i(0), &inner);
    CHECK(cute_composed_eval(&c, &sw, cute_i(9)).v == ((1 * 8 + 1) ^ 1), "Sw<3,0,3> at (1,1)");
    cute_tuple row = T("(3,_)");
    cute_composed r3 = cute_composed_slice(&c, &row, &sw);
    CHECK(r3.offset.v == 24 && cute_composed_eval(&c, &r3, cute_i(2)).v == ((24 + 2) ^ 3),
          "sliced swizzle keeps its offset");
    CHECK(!c.failed, "%s", c.error);
}

/* Each bad input: an error mentioning `needle`, the context marked failed, no crash. */
static void expect_error(const char *what, cute_alg *c, const char *needle)
{
    CHECK(c->failed && strstr(c->error, needle), "%s: want an error containing '%s', got '%s'",
          what, needle, c->failed ? c->error : "(no error)");
}

static void bad_input(void)
{
    const char *bad_text[] = {"(4,2", "(4,2):(1)", "4:", ":1", "(4,,2):(1,2)", "((4):(1)",
                              "99999999999999999999:1", "4:1 junk", "(4@1):(1)", "?{div=0}:1",
                              "(a,b):(1,2)", ""};
    for (size_t i = 0; i < sizeof bad_text / sizeof *bad_text; i++) {
        CTX(c);
        cute_layout_parse(&c, bad_text[i]);
        expect_error(bad_text[i], &c, "layout");
    }
    {
        CTX(c);
        cute_layout A = L("(8,8):(8,1)");
        cute_tiler B = cute_tiler_parse(&c, "4:3");
        cute_composition(&c, &A, &B);
        expect_error("composition shape divisibility", &c, "Shape Divisibility");
    }
    {
        CTX(c);
        cute_layout A = L("(4,2):(1,2)");
        cute_complement_default(&c, &A);
        expect_error("complement non-injective", &c, "Non-injective");
    }
    {
        CTX(c);
        cute_layout A = L("(4,6):(1,4)");
        cute_tiler B = cute_tiler_parse(&c, "(2,3,4)");
        cute_logical_divide(&c, &A, &B);
        expect_error("tiler rank", &c, "rank 2");
    }
    {
        CTX(c);
        cute_layout A = L("(65536,65536,65536,65536):(1,65536,4294967296,281474976710656)");
        cute_size(&c, &A);
        expect_error("64-bit overflow", &c, "overflows 64 bits");
    }
    {
        CTX(c);
        cute_layout A = L("(4,?):(1,4)");
        expect_error("dynamic without a backend", &c, "no arithmetic backend");
        (void)A;
    }
    {
        CTX(c);
        cute_layout A = L("(6,4):(1,6)");
        cute_tuple shape = T("(4,4)");
        cute_tile_to_shape(&c, &A, &shape, NULL);
        expect_error("tile_to_shape divisibility", &c, "does not divide");
    }
    {
        CTX(c);
        cute_layout A = L("(4,2):(1,4)");
        cute_tuple crd = T("(1,2,_)");
        cute_slice(&c, &crd, &A);
        expect_error("slice rank", &c, "does not match");
    }
    {
        CTX(c);
        cute_layout A = L("(2,3):(1,2)");
        cute_layout B = L("(2,3):(3,1)");
        cute_get(&c, &A, 5);
        expect_error("get out of range", &c, "out of range");
        /* after an error, later calls return poison and keep the first message */
        cute_layout R = cute_compose(&c, &A, &B);
        CHECK(cute_layout_is_poison(&R) && strstr(c.error, "get"), "poison propagates");
    }
    {
        CTX(c);
        cute_layout A = L("(4,4):(1,4)");
        cute_make_composed(&c, (cute_swizzle){3, 0, 2}, cute_i(0), &A);
        expect_error("invalid swizzle", &c, "|S| >= B");
    }
}

int main(void)
{
    construction();
    modes();
    hardware_layouts();
    tiling();
    bad_input();
    return CHECK_DONE("layout_ops_test");
}
