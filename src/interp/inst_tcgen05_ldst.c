/* tcgen05.ld / st (T2R, R2T) under the interpreter: a warp moves tensor-memory cells to or from
 * its registers in one of the PTX ISA's data-movement shapes ("Matrix fragments for tcgen05"):
 *   32x32b    lane l of the warp: tensor-memory lane taddr's + l, one column a register
 *   16x64b    16 lanes x 2 columns: lane l holds (l / 4 + 8 (l % 2), l / 2 % 2)
 *   16x128b   16 lanes x 4 columns, 2 registers: register r (l / 4 + 8 r, l % 4)
 *   16x256b   16 lanes x 8 columns, 4 registers: register r (l / 4 + 8 (r / 2), 2 (l % 4) + r % 2)
 *   16x32bx2  lanes 0..15 of the warp: lane l at taddr's column; lanes 16..31: lane l - 16 at
 *             taddr's column + the immediate half_split
 * (lane, column) counted from taddr's; .xN repeats the fragment N times along the columns, the
 * registers of repetition j following those of j - 1.  .pack::16b (ld): a fragment column is two
 * tensor-memory columns, the register's low half the low 16 bits of the first, its high half
 * those of the second; .unpack::16b (st) writes them back, the cells' high halves 0 (an
 * assumption: the PTX ISA leaves them unsaid).  A warp reaches its lane quarter only: warp w
 * lanes 32 (w % 4) .. + 31, a 16-lane shape starting at the quarter's lane 0 or 16.  Each cell
 * read is checked as written and visible to the reading thread (tmem.c). */
#include "interp/tmem.h"

/* a shape's registers a lane and columns (unpacked) in one repetition */
static const struct {
    uint32_t regs, cols, lanes;
    const char *name;
} shapes[] = {
    [TC_LDST_32x32b] = {1, 1, 32, "32x32b"},   [TC_LDST_16x64b] = {1, 2, 16, "16x64b"},
    [TC_LDST_16x128b] = {2, 4, 16, "16x128b"}, [TC_LDST_16x256b] = {4, 8, 16, "16x256b"},
    [TC_LDST_16x32bx2] = {1, 1, 16, "16x32bx2"},
};

typedef struct tc_cell {
    uint32_t lane, col; /* from taddr's: the lane, the first tensor-memory column */
} tc_cell;

/* register r (within one repetition) of warp lane l: its lane and fragment column */
static tc_cell fragment(int shape, uint32_t l, uint32_t r)
{
    switch (shape) {
    case TC_LDST_32x32b: return (tc_cell){l, 0};
    case TC_LDST_16x64b: return (tc_cell){l / 4 + 8 * (l % 2), l / 2 % 2};
    case TC_LDST_16x128b: return (tc_cell){l / 4 + 8 * r, l % 4};
    case TC_LDST_16x256b: return (tc_cell){l / 4 + 8 * (r / 2), 2 * (l % 4) + r % 2};
    default: return (tc_cell){l % 16, 0}; /* 16x32bx2; the caller adds the half's offset */
    }
}

/* register i of warp lane l: its cell (a packed register's first of two adjacent columns) */
static tc_cell cell_of(const irow *R, uint32_t split, uint32_t l, uint32_t i)
{
    uint32_t regs = shapes[R->m].regs, rep = i / regs;
    tc_cell c = fragment(R->m, l, i % regs);
    c.col = (c.col + rep * shapes[R->m].cols) << (R->k ? 1 : 0);
    if (R->m == TC_LDST_16x32bx2 && l >= 16) c.col += split;
    return c;
}

/* warp w0's taddr lies in its lane quarter (at lane 0, or 16 for a 16-lane shape) */
static bool own_lanes(ictx *X, const dinst *d, uint32_t w0, uint32_t lane)
{
    uint32_t base = 32 * (w0 / 32 % 4);
    const char *shape = shapes[d->row->m].name;
    if (lane == base || (shapes[d->row->m].lanes == 16 && lane == base + 16) || !checking(X, CUTE_CHECK_TMEM))
        return true;
    if (lane < base || lane > base + 31)
        return interp_report(X, d, w0, CUTE_CHECK_TMEM, 0, 0, 0, "warp %u (%u mod 4) may access tensor-memory lanes "
                             "%u..%u only; taddr names lane %u (shape %s)", w0 / 32, w0 / 32 % 4, base, base + 31,
                             lane, shape);
    return interp_report(X, d, w0, CUTE_CHECK_TMEM, 0, 0, 0, "warp %u's tcgen05 %s starts at lane %u of its quarter "
                         "%u..%u: shape %s starts at lane %u%s", w0 / 32, d->row->flag ? "st" : "ld", lane, base,
                         base + 31, shape, base, shapes[d->row->m].lanes == 16 ? " or + 16" : "");
}

/* the columns the warp touches lie in a live allocation: one span, or 16x32bx2's two halves */
static bool own_columns(ictx *X, const dinst *d, uint32_t w0, uint32_t col, uint32_t split)
{
    const irow *R = d->row;
    uint32_t width = (uint32_t)R->num * shapes[R->m].cols << (R->k ? 1 : 0);
    if (!interp_tmem_columns(X, d, w0, col, width)) return false;
    return R->m != TC_LDST_16x32bx2 || interp_tmem_columns(X, d, w0, col + split, width);
}

/* tcgen05.ld: register i of lane w0 + l from its cell(s); false after a report */
static bool load(ictx *X, const dinst *d, uint32_t w0, uint32_t l, uint32_t i, uint32_t lane, uint32_t col)
{
    itmem *T = X->tmem;
    uint32_t t = w0 + l;
    if (!interp_tmem_readable(X, d, t, lane, col)) return false;
    uint32_t v = T->cell[TMEM_AT(lane, col)];
    if (d->row->k) {
        if (!interp_tmem_readable(X, d, t, lane, col + 1)) return false;
        v = (v & 0xffffu) | T->cell[TMEM_AT(lane, col + 1)] << 16;
    }
    interp_put32(X, d, i, t, v);
    return true;
}

/* tcgen05.st: register i of lane w0 + l into its cell(s), as write `rec` */
static void store(ictx *X, const dinst *d, uint32_t w0, uint32_t l, uint32_t i, uint32_t lane, uint32_t col,
                  uint32_t rec)
{
    itmem *T = X->tmem;
    uint32_t v = interp_get32(X, d, 1 + i, w0 + l);
    if (d->row->k) { /* .unpack::16b */
        T->cell[TMEM_AT(lane, col + 1)] = v >> 16, T->who[TMEM_AT(lane, col + 1)] = rec;
        v &= 0xffffu;
    }
    T->cell[TMEM_AT(lane, col)] = v, T->who[TMEM_AT(lane, col)] = rec;
}

/* warp w0's tcgen05.ld (T2R) or st (R2T) */
static void ldst_warp(ictx *X, const dinst *d, uint32_t w0)
{
    const irow *R = d->row;
    bool st = R->flag;
    uint32_t nregs = (uint32_t)R->num * shapes[R->m].regs, split = (uint32_t)d->imm;
    uint32_t taddr = interp_get32(X, d, st ? 0 : nregs, w0), lane0 = TMEM_LANE(taddr), col0 = TMEM_COL(taddr);
    if (!own_lanes(X, d, w0, lane0) || !own_columns(X, d, w0, col0, split)) return;
    uint32_t rec = st ? interp_tmem_record(X, d, w0, false) : 0;
    if (st && !rec) return;
    for (uint32_t l = 0; l < 32; l++)
        for (uint32_t i = 0; i < nregs; i++) {
            tc_cell c = cell_of(R, split, l, i);
            if (st) store(X, d, w0, l, i, lane0 + c.lane, col0 + c.col, rec);
            else if (!load(X, d, w0, l, i, lane0 + c.lane, col0 + c.col)) return;
        }
}

void inst_tcgen05_ldst(ictx *X, const dinst *d, const imask *m)
{
    if (!interp_tmem(X)) return;
    for (uint32_t w0 = m->lo - m->lo % 32; w0 < m->hi && !X->stop; w0 += 32)
        if (interp_whole_warp(X, d, m, w0)) ldst_warp(X, d, w0);
}
