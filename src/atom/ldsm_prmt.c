/* ldmatrix followed by a byte permutation (the LDSM_PRMT rows of atom_rows.c): the row's
 * DstLayout says where each byte a thread ends up with sits in the atom's tile; the
 * instruction's own DstLayout (raw_dst) says which of its registers' bytes holds that
 * position.  Matching the two gives, for every output byte, a byte of the instruction's
 * registers — the same for every lane, or the row is wrong — and each output register is
 * one prmt of at most two of them. */
#define CUTEC_NO_SITE_MACROS
#include "atom/atom_internal.h"
#include "atom/atom_rows.h"
#include "cutec/notation.h"
#include "trace/ctx_internal.h"

enum { LANES = 32, BYTES = 16 };

/* from[v]: the byte of the instruction's registers (4 w + b) that becomes output byte v */
static bool byte_sources(cute_ctx *c, const atom_row *r, int from[BYTES])
{
    cute_alg *a = &c->alg;
    cute_layout raw = cute_layout_parse(a, r->raw_dst), dst = cute_layout_parse(a, r->info.field[2]);
    int64_t lane_of[LANES * 8 * BYTES]; /* position in the atom's tile (bits / 8) -> lane * BYTES + byte */
    for (int i = 0; i < LANES * 8 * BYTES; i++) lane_of[i] = -1;
    for (int l = 0; l < LANES && !a->failed; l++)
        for (int u = 0; u < BYTES; u++) {
            int64_t pos = cute_layout_eval(a, &raw, cute_i(l + LANES * 8 * u)).v / 8;
            if (pos >= 0 && pos < LANES * BYTES) lane_of[pos] = l * BYTES + u;
        }
    for (int l = 0; l < LANES && !a->failed; l++)
        for (int v = 0; v < BYTES; v++) {
            int64_t pos = cute_layout_eval(a, &dst, cute_i(l + LANES * 8 * v)).v / 8;
            int64_t at = pos >= 0 && pos < LANES * BYTES ? lane_of[pos] : -1;
            if (at < 0 || at / BYTES != l || (l && from[v] != at % BYTES))
                return cute_ctx_fail(c, "%s: lane %d's byte %d is not a byte the instruction gives that lane "
                                        "at the same place in every lane",
                                     r->info.name, l, v);
            from[v] = (int)(at % BYTES);
        }
    return !a->failed;
}

/* words[] (the instruction's registers, of type t) rearranged in place into the row's order */
bool ldsm_prmt_apply(cute_ctx *c, const atom_row *r, cute_type t, cute_vreg words[4])
{
    int from[BYTES];
    if (!byte_sources(c, r, from)) return false;
    cute_vreg out[4];
    for (int q = 0; q < 4; q++) {
        int w0 = from[4 * q] / 4, w1 = w0;
        int64_t sel = 0;
        for (int b = 0; b < 4; b++) {
            int w = from[4 * q + b] / 4;
            if (w != w0 && w1 == w0) w1 = w;
            if (w != w0 && w != w1)
                return cute_ctx_fail(c, "%s: output register %d takes bytes of more than two registers",
                                     r->info.name, q);
            sel |= (int64_t)((w == w0 ? 0 : 4) + from[4 * q + b] % 4) << (4 * b);
        }
        atom_new_regs(c, t, 1, &out[q]);
        cute_vreg in[2] = {words[w0], words[w1]};
        cute_ir_inst_op(&c->b, CUTE_INST_PRMT_B32, &out[q], 1, in, 2, sel);
    }
    for (int q = 0; q < 4; q++) words[q] = out[q];
    return true;
}
