/* wgmma descriptors from layouts against descriptors worked out by hand from the PTX ISA's
 * canonical layouts (the LBO/SBO of each case is written out below from the atom's geometry,
 * not computed by the code under test): CuTe's GMMA atoms tiled over operand tiles, K- and
 * MN-major, every swizzle, 16-bit, tf32 and 8-bit types; the descriptor's bits; and layouts
 * that are not canonical refused with the layout named. */
#include <string.h>

#include "check.h"
#include "cutec/gmma_desc.h"
#include "cutec/notation.h"
#include "cutec/smem_atoms.h"

/* the first (rows, K) block of atom `name` of d tiled over (rows, cols) */
static bool first_block(cute_alg *c, const char *name, cute_dtype d, const char *tile, const char *block,
                        cute_composed *out)
{
    cute_composed atom;
    if (!cute_smem_atom_gmma(c, name, d, &atom)) return false;
    cute_tuple shape = cute_tuple_parse(c, tile);
    cute_composed staged = cute_smem_layout_staged(c, &atom, &shape);
    cute_tiler t = cute_tiler_parse(c, block);
    *out = cute_composed_composition(c, &staged, &t);
    return !c->failed;
}

static void known(cute_alg *c)
{
    /* lbo / sbo in bytes, by hand: a K-major row of an SW<n> atom is n bytes, 8 rows an atom,
     * atoms stacked down M first (tile_to_shape's column-major order); an INTER core matrix
     * is 8 rows of 16 bytes; an MN-major atom row is n bytes of MN, 8 K rows */
    static const struct {
        const char *atom;
        cute_dtype d;
        const char *tile, *block;
        cute_major major;
        int type;
        int64_t lbo, sbo;
        int align;
    } k[] = {
        {"Layout_K_SW128_Atom", CUTE_BF16, "(64,64)", "(64,16)", CUTE_MAJOR_K, 1, 16, 8 * 128, 1024},
        {"Layout_K_SW64_Atom", CUTE_F16, "(64,32)", "(64,16)", CUTE_MAJOR_K, 2, 16, 8 * 64, 512},
        {"Layout_K_SW32_Atom", CUTE_BF16, "(128,16)", "(128,16)", CUTE_MAJOR_K, 3, 16, 8 * 32, 256},
        /* core matrices (128 bytes) down M, then the second K chunk 8 matrices on */
        {"Layout_K_INTER_Atom", CUTE_F16, "(64,16)", "(64,16)", CUTE_MAJOR_K, 0, 8 * 128, 128, 16},
        /* N = 128: two 64-wide atoms along N (LBO 1024), then the next 8 K (SBO 2048) */
        {"Layout_MN_SW128_Atom", CUTE_BF16, "(128,16)", "(128,16)", CUTE_MAJOR_MN, 1, 1024, 2048, 1024},
        {"Layout_MN_SW64_Atom", CUTE_F16, "(64,16)", "(64,16)", CUTE_MAJOR_MN, 2, 512, 1024, 512},
        /* two 16-wide atoms (256 bytes each) along MN, then the next 8 K two atoms on */
        {"Layout_MN_SW32_Atom", CUTE_F16, "(32,16)", "(32,16)", CUTE_MAJOR_MN, 3, 256, 512, 256},
        /* 8 MN-chunks of 8 elements (128 bytes each) down MN, then the next 8 K */
        {"Layout_MN_INTER_Atom", CUTE_BF16, "(64,16)", "(64,16)", CUTE_MAJOR_MN, 0, 8 * 128, 128, 16},
        {"Layout_K_SW128_Atom", CUTE_F32, "(64,32)", "(64,8)", CUTE_MAJOR_K, 1, 16, 1024, 1024},   /* tf32 */
        {"Layout_K_SW128_Atom", CUTE_E4M3, "(64,128)", "(64,32)", CUTE_MAJOR_K, 1, 16, 1024, 1024},
        {"Layout_K_SW64_Atom", CUTE_I8, "(256,64)", "(256,32)", CUTE_MAJOR_K, 2, 16, 512, 512},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        cute_composed L;
        cute_gmma_desc g;
        bool ok = first_block(c, k[i].atom, k[i].d, k[i].tile, k[i].block, &L) &&
                  cute_gmma_desc_make(c, k[i].d, L.sw, &L.layout, &g);
        CHECK(ok, "%s of %s: %s", k[i].atom, cute_dtype_name(k[i].d), c->error);
        if (!ok) {
            cute_alg_clear(c);
            continue;
        }
        CHECK(g.major == k[i].major && g.layout_type == k[i].type && g.lbo == k[i].lbo && g.sbo == k[i].sbo &&
                  g.align == k[i].align && g.base_offset == 0 && g.start == 0,
              "%s %s %s: major %d type %d lbo %lld sbo %lld align %d", k[i].atom, cute_dtype_name(k[i].d),
              k[i].block, g.major, g.layout_type, (long long)g.lbo, (long long)g.sbo, g.align);
        uint64_t want = (uint64_t)k[i].type << 62 | (uint64_t)(k[i].sbo / 16) << 32 | (uint64_t)(k[i].lbo / 16) << 16 |
                        (0x1420u >> 4);
        CHECK(cute_gmma_desc_bits(&g, 0x1420) == want, "%s: bits %llx, want %llx", k[i].atom,
              (unsigned long long)cute_gmma_desc_bits(&g, 0x1420), (unsigned long long)want);
    }
}

static void refused(cute_alg *c)
{
    static const struct {
        cute_dtype d;
        const char *layout, *why;
    } k[] = {
        /* a plain row-major tile: rows 32 bytes apart, not one 16-byte core-matrix row */
        {CUTE_BF16, "(64,16):(16,1)", "element (1,0) is at 16, the K-major form puts it at 8"},
        /* the SM80 swizzle of 16-bit elements over 32 elements is Sw<2,3,3>: rows 64 bytes,
         * a GMMA SW64 layout only if rows are 64 bytes apart, here 128 */
        {CUTE_F16, "Sw<2,3,3> o 0 o (64,16):(64,1)", "element (1,0) is at 64, the K-major form puts it at 32"},
        {CUTE_F16, "Sw<3,2,3> o 0 o (64,16):(64,1)", "its swizzle is none of GMMA's"},
        {CUTE_BF16, "(64,16):(32,2)", "neither K nor MN is contiguous"},
        {CUTE_BF16, "(60,16):(16,1)", "rows must be a multiple of 8"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        cute_composed L = strchr(k[i].layout, 'o') ? cute_composed_parse(c, k[i].layout)
                                                   : (cute_composed){{0, 0, 0}, cute_i(0), cute_layout_parse(c, k[i].layout)};
        cute_gmma_desc g;
        CHECK(!cute_gmma_desc_make(c, k[i].d, L.sw, &L.layout, &g), "%s accepted", k[i].layout);
        CHECK(strstr(c->error, "not a canonical GMMA layout") && strstr(c->error, k[i].why), "%s: %s", k[i].layout,
              c->error);
        cute_alg_clear(c);
    }
}

int main(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL);
    known(&c);
    refused(&c);
    return CHECK_DONE("atom gmma_desc");
}
