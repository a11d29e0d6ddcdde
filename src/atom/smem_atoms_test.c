/* The swizzled shared-memory atoms against CuTe: the SM80 atoms CuTe DSL's
 * ampere/tensorop_gemm.py builds, the GMMA atoms of CuTe's mma_traits_sm90_gmma.hpp (in
 * elements), their stages, the alignment a swizzle needs, and the property they exist for:
 * the eight 16-byte rows an ldmatrix reads down one column of an atom land in eight
 * different 16-byte bank groups. */
#include <string.h>

#include "check.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "cutec/smem_atoms.h"

static char buf[1024];

static const char *comp(cute_alg *c, cute_composed L)
{
    if (c->failed) return c->error;
    cute_composed_str(&L, buf, sizeof buf);
    return buf;
}

static void sm80(cute_alg *c)
{
    CHECK_STR(comp(c, cute_smem_atom_sm80(c, CUTE_F16, CUTE_MAJOR_K, 64, 128)), "Sw<3,3,3> o 0 o (8,64):(64,1)");
    CHECK_STR(comp(c, cute_smem_atom_sm80(c, CUTE_BF16, CUTE_MAJOR_MN, 128, 128)), "Sw<3,3,3> o 0 o (64,8):(1,64)");
    CHECK_STR(comp(c, cute_smem_atom_sm80(c, CUTE_F16, CUTE_MAJOR_K, 32, 128)), "Sw<2,3,3> o 0 o (8,32):(32,1)");
    CHECK_STR(comp(c, cute_smem_atom_sm80(c, CUTE_I8, CUTE_MAJOR_K, 128, 128)), "Sw<3,4,3> o 0 o (8,128):(128,1)");
    CHECK_STR(comp(c, cute_smem_atom_sm80(c, CUTE_F32, CUTE_MAJOR_K, 32, 128)), "Sw<3,2,3> o 0 o (8,32):(32,1)");
    cute_smem_atom_sm80(c, CUTE_F16, CUTE_MAJOR_K, 48, 128);
    CHECK(c->failed && strstr(c->error, "48 f16 elements"), "48 wide: %s", c->error);
    cute_alg_clear(c);
}

static void gmma(cute_alg *c)
{
    static const struct {
        const char *name;
        cute_dtype d;
        const char *want;
    } k[] = {
        {"Layout_K_SW128_Atom", CUTE_F16, "Sw<3,3,3> o 0 o (8,64):(64,1)"},
        {"Layout_K_SW64_Atom", CUTE_BF16, "Sw<2,3,3> o 0 o (8,32):(32,1)"},
        {"Layout_K_SW32_Atom", CUTE_F32, "Sw<1,2,3> o 0 o (8,8):(8,1)"},
        {"Layout_K_INTER_Atom", CUTE_F16, "Sw<0,3,3> o 0 o (8,8):(8,1)"},
        {"Layout_MN_SW128_Atom", CUTE_F16, "Sw<3,3,3> o 0 o (64,8):(1,64)"},
        {"Layout_MN_SW128_Atom", CUTE_U8, "Sw<3,4,3> o 0 o (128,8):(1,128)"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        cute_composed a;
        CHECK(cute_smem_atom_gmma(c, k[i].name, k[i].d, &a), "%s: %s", k[i].name, c->error);
        CHECK_STR(comp(c, a), k[i].want);
    }
    cute_composed a;
    CHECK(!cute_smem_atom_gmma(c, "Layout_K_SW256_Atom", CUTE_F16, &a) && strstr(c->error, "no such GMMA atom"),
          "%s", c->error);
    cute_alg_clear(c);
}

/* a 3-stage 128x32 K-major tile of f16, as tensorop_gemm.py stages A */
static void staged(cute_alg *c)
{
    cute_composed atom = cute_smem_atom_sm80(c, CUTE_F16, CUTE_MAJOR_K, 32, 128);
    cute_tuple shape = cute_tuple_parse(c, "(128,32,3)");
    cute_composed s = cute_smem_layout_staged(c, &atom, &shape);
    CHECK_STR(comp(c, s), "Sw<2,3,3> o 0 o (128,32,3):(32,1,4096)");
    CHECK(cute_swizzle_align_bytes((cute_swizzle){3, 3, 3}, CUTE_F16) == 1024, "Sw<3,3,3> f16 needs 1024");
    CHECK(cute_swizzle_align_bytes((cute_swizzle){2, 3, 3}, CUTE_F16) == 512, "Sw<2,3,3> f16 needs 512");
    CHECK(cute_swizzle_align_bytes(CUTE_SW_NONE, CUTE_F32) == 4, "none: the element");
}

/* ldmatrix's view of a K-major atom: matrix j's rows are rows 0..7 at column chunk j; each
 * row a 16-byte chunk.  Swizzled, the 8 chunks of one read fall in 8 bank groups (the 128
 * bytes of 32 banks hold 8 chunks); unswizzled they all fall in the same one. */
static int bank_groups(cute_alg *c, const cute_composed *atom, int esize, int col)
{
    unsigned seen = 0;
    for (int r = 0; r < 8; r++) {
        int64_t off = cute_composed_eval(c, atom, cute_i(r + 8 * col)).v; /* (r, col) */
        seen |= 1u << ((off * esize / 16) % 8);
    }
    return __builtin_popcount(seen);
}

static void conflict_free(cute_alg *c)
{
    cute_composed sw = cute_smem_atom_sm80(c, CUTE_F16, CUTE_MAJOR_K, 64, 128);
    cute_layout plain = cute_layout_parse(c, "(8,64):(64,1)");
    cute_composed none = cute_make_composed(c, CUTE_SW_NONE, cute_i(0), &plain);
    CHECK(bank_groups(c, &sw, 2, 8) == 8, "swizzled: 8 bank groups");
    CHECK(bank_groups(c, &none, 2, 8) == 1, "unswizzled: one bank group, 8-way conflict");
}

int main(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    sm80(&c);
    gmma(&c);
    staged(&c);
    conflict_free(&c);
    CHECK(!c.failed, "%s", c.error);
    return CHECK_DONE("smem_atoms_test");
}
