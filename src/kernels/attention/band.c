/* Which keys a query sees, as a band of S: col - row within [lo, hi] (causal: hi = 0; a
 * sliding window (left, right): lo = -left, hi = right, causal's 0 if smaller), and from it
 * the key tiles a Q tile visits and the tiles that need the mask. */
#include "kernels/attention/attention_internal.h"

attn_band attn_cfg_band(const cute_attention_config *cfg)
{
    attn_band b = {.has_lo = cfg->window, .has_hi = cfg->causal || cfg->window, .lo = -cfg->window_left};
    b.hi = !cfg->window ? 0 : cfg->causal && cfg->window_right > 0 ? 0 : cfg->window_right;
    return b;
}

attn_band attn_band_transposed(attn_band b)
{
    attn_band t = {.has_lo = b.has_hi, .has_hi = b.has_lo, .lo = -b.hi, .hi = -b.lo};
    return t;
}

/* rows m bm .. m bm + bm - 1 see columns from (row0 + lo) to (row1 + hi), inside [0, sk) */
void attn_band_range(cute_ctx *c, attn_band band, int64_t bm, int64_t bn, cute_int sk, cute_int m_block,
                     cute_int *begin, cute_int *end)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int all = cute_ceil_div(a, sk, cute_i(bn)), row0 = cute_mul(a, m_block, cute_i(bm));
    *begin = cute_i(0), *end = all;
    if (band.has_lo)
        *begin = cute_min(a, all, cute_div(a, cute_max(a, cute_i(0), cute_add(a, row0, cute_i(band.lo))), cute_i(bn)));
    if (band.has_hi) {
        cute_int past = cute_add(a, row0, cute_i(bm + band.hi)); /* the last row's last column, plus one */
        *end = cute_min(a, all, cute_ceil_div(a, cute_max(a, cute_i(0), past), cute_i(bn)));
    }
}

cute_val attn_band_needs_mask(cute_ctx *c, attn_band band, int64_t bm, int64_t bn, cute_int sk, cute_int m_block,
                              cute_int n)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int c0 = cute_mul(a, n, cute_i(bn)), r0 = cute_mul(a, m_block, cute_i(bm));
    cute_val need = cute_int_lt(c, sk, cute_add(a, c0, cute_i(bn)));
    if (band.has_hi) /* the tile's last column past the first row's band: c0 + bn - 1 - r0 > hi */
        need = cute_val_binop(c, CUTE_OP_OR, need, cute_int_lt(c, cute_add(a, r0, cute_i(band.hi - bn + 1)), c0));
    if (band.has_lo) /* its first column before the last row's band: c0 - (r0 + bm - 1) < lo */
        need = cute_val_binop(c, CUTE_OP_OR, need, cute_int_lt(c, c0, cute_add(a, r0, cute_i(band.lo + bm - 1))));
    return need;
}

/* tile n needs the mask (attn_band_needs_mask, its sk and hi parts) where its last column
 * c0 + bn - 1 passes min(sk - 1, r0 + hi), that is where n >= min(sk, r0 + hi + 1) / bn
 * (rounded down; every tile where that is negative) */
cute_int attn_band_hi_masked(cute_ctx *c, attn_band band, int64_t bm, int64_t bn, cute_int sk, cute_int m_block)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int lim = sk;
    if (band.has_hi) lim = cute_min(a, sk, cute_add(a, cute_mul(a, m_block, cute_i(bm)), cute_i(band.hi + 1)));
    return cute_div(a, cute_max(a, cute_i(0), lim), cute_i(bn));
}

void attn_key_range(cute_ctx *c, const attn_plan *p, cute_int sk, cute_int m_block, cute_int *begin, cute_int *end)
{
    attn_band_range(c, attn_cfg_band(&p->cfg), p->bm, p->bn, sk, m_block, begin, end);
}

cute_val attn_tile_needs_mask(cute_ctx *c, const attn_plan *p, cute_int sk, cute_int m_block, cute_int n)
{
    return attn_band_needs_mask(c, attn_cfg_band(&p->cfg), p->bm, p->bn, sk, m_block, n);
}
