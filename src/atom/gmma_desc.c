/* wgmma's shared-memory descriptors from a tile's layout (see cutec/gmma_desc.h): the
 * swizzle gives the layout type; the canonical form's strides are read off the layout at a
 * few coordinates, then checked at every element of the tile. */
#include <stdio.h>

#include "cutec/gmma_desc.h"
#include "cutec/notation.h"

typedef struct canon {
    cute_major major;
    int T, W;        /* elements per 16-byte chunk; chunks per swizzled row (1: none) */
    int64_t lbo, sbo; /* 16-byte units */
} canon;

/* where the canonical form puts element (r, k), in elements from element (0, 0) */
static int64_t canonical(const canon *F, int r, int k)
{
    int64_t T = F->T, W = F->W;
    if (F->major == CUTE_MAJOR_K) {
        int64_t row = W == 1 ? r % 8 : (r % 8) * W, chunk = W == 1 ? (k / T) * F->lbo : k / T;
        return T * (row + (r / 8) * F->sbo + chunk) + k % T;
    }
    int64_t c = r / T, e = r % T;
    if (W == 1) return T * (c * F->sbo + (k / 8) * F->lbo + k % 8) + e;
    return T * ((c / W) * F->lbo + c % W + (k / 8) * F->sbo + (k % 8) * W) + e;
}

typedef struct tile {
    cute_alg *c;
    const cute_layout *L;
    int rows, K;
    int64_t origin; /* L(0, 0) */
} tile;

static int64_t at(const tile *t, int r, int k)
{
    return cute_layout_eval(t->c, t->L, cute_i(r + (int64_t)t->rows * k)).v - t->origin;
}

/* the strides of the canonical form of `major` read off the tile; false when one is not a
 * whole number of 16-byte chunks */
static bool read_strides(const tile *t, canon *F)
{
    int64_t l, s;
    if (F->major == CUTE_MAJOR_K) {
        s = t->rows > 8 ? at(t, 8, 0) : 0;
        l = F->W == 1 ? at(t, 0, F->T) : F->T;
    } else if (F->W == 1) {
        s = t->rows > F->T ? at(t, F->T, 0) : 0;
        l = t->K > 8 ? at(t, 0, 8) : 0;
    } else {
        l = t->rows > F->T * F->W ? at(t, F->T * F->W, 0) : 0;
        s = t->K > 8 ? at(t, 0, 8) : 0;
    }
    if (l % F->T || s % F->T || l < 0 || s < 0) return false;
    F->lbo = l / F->T, F->sbo = s / F->T;
    return F->lbo < (1 << 14) && F->sbo < (1 << 14);
}

/* the first element (in r, k order) where the tile differs from the form, or -1 */
static int64_t mismatch(const tile *t, const canon *F, int *rr, int *kk)
{
    for (int k = 0; k < t->K; k++)
        for (int r = 0; r < t->rows; r++)
            if (at(t, r, k) != canonical(F, r, k)) return *rr = r, *kk = k, at(t, r, k);
    return -1;
}

static bool refuse(cute_alg *c, const tile *t, cute_dtype d, cute_swizzle sw, const char *why)
{
    char lay[256];
    cute_layout_str(t->L, lay, sizeof lay);
    return cute_alg_fail(c,
                         "wgmma descriptor: the shared layout Sw<%d,%d,%d> o %s of the %d x %d "
                         "%s operand is not a canonical GMMA layout (a Layout_{K,MN}_{INTER,SW32,"
                         "SW64,SW128}_Atom tiled over it): %s",
                         sw.B, sw.M, sw.S, lay, t->rows, t->K, cute_dtype_name(d), why);
}

/* the swizzle as chunks a row: 1 (none), 2, 4, 8; 0 when it is not a GMMA swizzle */
static int swizzle_width(cute_swizzle sw, int bytes)
{
    if (sw.B == 0) return 1;
    int m = 0;
    while ((1 << m) * bytes < 16) m++;
    return sw.B <= 3 && sw.S == 3 && sw.M == m ? 1 << sw.B : 0;
}

static bool recognise(const tile *t, cute_dtype d, cute_swizzle sw, canon *F)
{
    char why[200];
    int r, k;
    F->major = at(t, 0, 1) == 1 ? CUTE_MAJOR_K : CUTE_MAJOR_MN;
    if (F->major == CUTE_MAJOR_MN && at(t, 1, 0) != 1)
        return refuse(t->c, t, d, sw, "neither K nor MN is contiguous");
    if (F->major == CUTE_MAJOR_MN && t->rows % (F->T * F->W))
        return refuse(t->c, t, d, sw, "MN-major rows come in whole swizzle rows");
    if (!read_strides(t, F))
        return refuse(t->c, t, d, sw, "its strides are not whole 16-byte chunks below 256 KiB");
    int64_t got = mismatch(t, F, &r, &k);
    if (got < 0) return true;
    snprintf(why, sizeof why, "element (%d,%d) is at %lld, the %s-major form puts it at %lld", r, k,
             (long long)got, F->major == CUTE_MAJOR_K ? "K" : "MN", (long long)canonical(F, r, k));
    return refuse(t->c, t, d, sw, why);
}

bool cute_gmma_desc_make(cute_alg *c, cute_dtype d, cute_swizzle sw, const cute_layout *L,
                         cute_gmma_desc *out)
{
    int bytes = cute_dtype_bytes(d);
    cute_int size = cute_size(c, L);
    cute_layout mn = cute_get(c, L, 0);
    cute_int rows = cute_size(c, &mn);
    if (c->failed) return false;
    tile t = {c, L, (int)rows.v, bytes > 0 ? 32 / bytes : 0, 0};
    if (bytes <= 0 || bytes > 4 || cute_rank(L) != 2 || !cute_is_static(size) || !cute_is_static(rows))
        return refuse(c, &t, d, sw, "it must be a static (rows, K) layout of 1-, 2- or 4-byte elements");
    if (rows.v % 8 || size.v != rows.v * t.K) return refuse(c, &t, d, sw, "rows must be a multiple of 8 and K 32 bytes");
    t.origin = cute_layout_eval(c, L, cute_i(0)).v;
    canon F = {CUTE_MAJOR_K, 16 / bytes, swizzle_width(sw, bytes), 0, 0};
    if (!F.W) return refuse(c, &t, d, sw, "its swizzle is none of GMMA's (Sw<1..3, 4 bytes, 3>)");
    if (!recognise(&t, d, sw, &F)) return false;
    static const uint8_t type_of[9] = {[1] = CUTE_GMMA_INTERLEAVE, [2] = CUTE_GMMA_SW32, [4] = CUTE_GMMA_SW64,
                                       [8] = CUTE_GMMA_SW128};
    cute_gmma_desc g = {F.major, type_of[F.W], 16 * F.lbo, 16 * F.sbo, 0, F.W == 1 ? 16 : 128 * F.W,
                        t.origin * bytes, 0};
    g.bits = (uint64_t)g.layout_type << 62 | (uint64_t)F.sbo << 32 | (uint64_t)F.lbo << 16;
    *out = g;
    return true;
}

uint64_t cute_gmma_desc_bits(const cute_gmma_desc *g, uint32_t addr)
{
    return g->bits | (uint64_t)(addr >> 4 & 0x3fff);
}

int cute_gmma_desc_str(const cute_gmma_desc *g, char *buf, size_t n)
{
    static const char *const type[4] = {"INTER", "SW128", "SW64", "SW32"};
    return snprintf(buf, n, "%s-major %s, LBO %lld, SBO %lld, base offset %d, base aligned to %d",
                    g->major == CUTE_MAJOR_K ? "K" : "MN", type[g->layout_type & 3], (long long)g->lbo,
                    (long long)g->sbo, g->base_offset, g->align);
}
