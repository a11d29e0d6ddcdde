/* The swizzled shared-memory layout atoms of SM80 and SM90 (see cutec/smem_atoms.h). */
#include <string.h>

#include "cutec/notation.h"
#include "cutec/smem_atoms.h"

static int log2i(int64_t x)
{
    int k = 0;
    while (((int64_t)1 << (k + 1)) <= x) k++;
    return k;
}

static bool pow2(int64_t x)
{
    return x > 0 && (x & (x - 1)) == 0;
}

/* (8, w):(w, 1) for K-major, (w, 8):(1, w) for MN-major */
static cute_layout rows_of(cute_alg *c, cute_major major, int64_t w)
{
    return major == CUTE_MAJOR_K
               ? cute_layout_fmt(c, "(8,%lld):(%lld,1)", (long long)w, (long long)w)
               : cute_layout_fmt(c, "(%lld,8):(1,%lld)", (long long)w, (long long)w);
}

static cute_composed bad_atom(cute_alg *c)
{
    cute_layout L = cute_layout_parse(c, "1:0");
    return cute_make_composed(c, (cute_swizzle){0, 0, 0}, cute_i(0), &L);
}

cute_composed cute_smem_atom_sm80(cute_alg *c, cute_dtype d, cute_major major, int64_t major_size,
                                  int copy_bits)
{
    int ebits = 8 * cute_dtype_bytes(d);
    if (ebits <= 0 || !pow2(copy_bits) || copy_bits < ebits || copy_bits > 128 ||
        !pow2(major_size) || major_size * ebits < copy_bits) {
        cute_alg_fail(
            c,
            "smem atom: a major mode of %lld %s elements filled by %d-bit copies (a power of "
            "two, at least one copy wide; copies of one element up to 128 bits)",
            (long long)major_size, cute_dtype_name(d), copy_bits);
        return bad_atom(c);
    }
    int64_t w = major_size < 1024 / ebits ? major_size : 1024 / ebits; /* at most 128 bytes */
    int bits = log2i(w * ebits / copy_bits);
    cute_swizzle sw = {bits < 3 ? bits : 3, log2i(copy_bits / ebits), 3};
    cute_layout L = rows_of(c, major, w);
    return cute_make_composed(c, sw, cute_i(0), &L);
}

const char *const cute_smem_atom_gmma_names[] = {
    "Layout_K_INTER_Atom", "Layout_K_SW32_Atom",   "Layout_K_SW64_Atom",
    "Layout_K_SW128_Atom", "Layout_MN_INTER_Atom", "Layout_MN_SW32_Atom",
    "Layout_MN_SW64_Atom", "Layout_MN_SW128_Atom", NULL,
};

bool cute_smem_atom_gmma(cute_alg *c, const char *name, cute_dtype d, cute_composed *out)
{
    int which = -1;
    for (int i = 0; name && cute_smem_atom_gmma_names[i]; i++)
        if (!strcmp(name, cute_smem_atom_gmma_names[i])) which = i;
    int bytes = cute_dtype_bytes(d);
    if (which < 0 || bytes <= 0 || bytes > 16) {
        *out = bad_atom(c);
        return cute_alg_fail(c,
                             "smem atom \"%s\" of %s: no such GMMA atom (Layout_{K,MN}_{INTER,SW32,"
                             "SW64,SW128}_Atom of a type up to 16 bytes)",
                             name ? name : "(null)", cute_dtype_name(d));
    }
    /* CuTe: Sw<b,4,3> on byte addresses over 8 rows of 16 * 2^b bytes */
    int b = which % 4;
    cute_swizzle sw = {b, 4 - log2i(bytes), 3};
    cute_layout L =
        rows_of(c, which < 4 ? CUTE_MAJOR_K : CUTE_MAJOR_MN, ((int64_t)16 << b) / bytes);
    *out = cute_make_composed(c, sw, cute_i(0), &L);
    return !c->failed;
}

cute_composed cute_smem_layout_staged(cute_alg *c, const cute_composed *atom,
                                      const cute_tuple *shape)
{
    return cute_composed_tile_to_shape(c, atom, shape, NULL);
}

cute_composed cute_smem_layout_gmma_tile(cute_alg *c, const char *name, cute_dtype d, int64_t rows,
                                         int64_t K)
{
    cute_composed atom;
    if (!cute_smem_atom_gmma(c, name, d, &atom)) return atom;
    cute_layout cols = cute_get(c, &atom.layout, 1);
    int64_t w = cute_size(c, &cols).v > K ? cute_size(c, &cols).v : K;
    cute_tuple shape = cute_tuple_fmt(c, "(%lld,%lld)", (long long)rows, (long long)w);
    return cute_smem_layout_staged(c, &atom, &shape);
}
