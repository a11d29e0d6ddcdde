/* tcgen05.mma and tcgen05.cp under the interpreter (tcgen05.ld / st: inst_tcgen05_ldst.c; sm_100; the rules of
 * tensor memory: tmem.c).
 *
 * tcgen05.mma is one thread's: each active thread issues its own.  Its instruction
 * descriptor gives D's format (f32 only, so far), A's and B's formats (kind::f8f6f4's 6- and
 * 4-bit ones unpacked in shared memory, K-major: interp_smem_desc_read), their negations and
 * majors, N (bits 17-22, N >> 3) and M (bits 24-28, M >> 4; 128, or 64: d_lane); A (M x K) and
 * B (N x K) come through sm_100 shared-memory descriptors: wgmma's fields (start, LBO, SBO in
 * 16-byte units) plus version 1 in bits 46-47, a base offset in 49-51 (0 here), and the
 * swizzle in 61-63 (0 none, 2 128-byte, 4 64-byte, 6 32-byte); the canonical layouts are
 * wgmma's.  D row m lies in lane m, column n at d's column + n.  The arithmetic is the
 * tensor cores' k-step model of inst_mma.c (fitted to mma.sync on sm_80/sm_90): assumed, not
 * recorded on a Blackwell.  It is done when issued; tmem.c makes the result visible only
 * through the thread's next tcgen05.commit.  The shared bytes it read are not held until
 * that commit (a write to them before it is not reported, unlike wgmma's). */
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "interp/tmem.h"

enum { MMA_M = 128, MMA_N_MAX = 256, PAIR_M = 256 };

typedef struct tc_mma {
    int m, n, k, ta, tb; /* shape; A's and B's element types (E_*) */
    bool neg_a, neg_b, mn_a, mn_b;
    double a[PAIR_M][INTERP_DESC_K_MAX], b[MMA_N_MAX][INTERP_DESC_K_MAX];
} tc_mma;

static bool unsupported(ictx *X, const dinst *d, uint32_t t, const char *what, uint32_t v)
{
    return interp_report(X, d, t, CUTE_CHECK_UNSUPPORTED, 0, 0, 0, "%s %u (warp %u)", what, v, t / 32);
}

/* an operand format of the row's kind as E_*, or 0 */
static int format(int kind, uint32_t f)
{
    if (kind == TC_KIND_F16) return f == 0 ? E_F16 : f == 1 ? E_BF16 : 0;
    if (kind == TC_KIND_TF32) return f == 2 ? E_TF32 : 0;
    return interp_tcgen05_f8f6f4_format(f);
}

int interp_tcgen05_f8f6f4_format(uint32_t f)
{
    static const int of[8] = {E_E4M3, E_E5M2, 0, E_E2M3, E_E3M2, E_E2M1, 0, 0};
    return of[f & 7];
}

bool interp_tcgen05_unpacked_mn(ictx *X, const dinst *d, uint32_t t, int type, bool mn_major, char which)
{
    if (type < E_E2M3 || !mn_major) return true;
    return interp_report(X, d, t, CUTE_CHECK_UNSUPPORTED, 0, 0, 0, "tcgen05.mma (warp %u): an MN-major 6- or 4-bit "
                         "%c (idesc bit %d) is not emulated: K-major only", t / 32, which, which == 'A' ? 15 : 16);
}

/* the instruction descriptor into O (M: the row's, 128 for one block, 256 for the CTA pair);
 * false after a report */
static bool decode_idesc(ictx *X, const dinst *d, uint32_t t, uint32_t idesc, tc_mma *O)
{
    int want = d->row->flag == 2 ? PAIR_M : MMA_M;
    O->m = (int)(idesc >> 24 & 31) << 4, O->n = (int)(idesc >> 17 & 63) << 3, O->k = d->row->k;
    O->ta = format(d->row->num, idesc >> 7 & 7), O->tb = format(d->row->num, idesc >> 10 & 7);
    O->neg_a = idesc >> 13 & 1, O->neg_b = idesc >> 14 & 1, O->mn_a = idesc >> 15 & 1, O->mn_b = idesc >> 16 & 1;
    if (idesc & 7) return unsupported(X, d, t, "a sparse tcgen05.mma is not emulated: idesc bits 0-2 =", idesc & 7);
    if ((idesc >> 4 & 3) != 1) return unsupported(X, d, t, "tcgen05.mma with D format (idesc bits 4-5, 1 = f32)", idesc >> 4 & 3);
    if (!O->ta || !O->tb || (d->row->num == TC_KIND_F16 && O->ta != O->tb))
        return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, 0, 0, "tcgen05.mma (warp %u): A's and B's formats (idesc "
                             "0x%x, bits 7-9, 10-12) are not this kind's: f16 0 / bf16 1 (both alike); tf32 2; "
                             "f8f6f4 e4m3 0, e5m2 1, e2m3 3, e3m2 4, e2m1 5", t / 32, idesc);
    if (!interp_tcgen05_unpacked_mn(X, d, t, O->ta, O->mn_a, 'A') || !interp_tcgen05_unpacked_mn(X, d, t, O->tb, O->mn_b, 'B'))
        return false;
    if (O->m != want && !(want == MMA_M && O->m == 64) && !(want == PAIR_M && O->m == MMA_M && d->row->fn == inst_tcgen05_mma_pair))
        return unsupported(X, d, t, want == MMA_M ? "tcgen05.mma.cta_group::1 is emulated with M = 128 and 64; idesc's M is"
                                                  : "tcgen05.mma.cta_group::2 is emulated with M = 256 and 128; idesc's M is",
                           (uint32_t)O->m);
    int step = O->m == 64 ? 8 : 16;
    if (O->n < step || O->n > MMA_N_MAX || O->n % step)
        return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, 0, 0, "tcgen05.mma with M = %d needs N a "
                             "multiple of %d in %d..256; idesc (0x%x) says %d", O->m, step, step, idesc, O->n);
    return true;
}

bool interp_tcgen05_sdesc(ictx *X, const dinst *d, uint32_t t, uint64_t desc, interp_smem_desc *D)
{
    static const int width[8] = {1, 0, 8, 0, 4, 0, 2, 0};
    if ((desc >> 46 & 3) != 1)
        return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, 0, 0, "warp %u's shared-memory descriptor "
                             "0x%llx has version %u in bits 46-47: sm_100 needs 1 (a Hopper descriptor?)",
                             t / 32, (unsigned long long)desc, (unsigned)(desc >> 46 & 3));
    if (desc >> 49 & 0xf) return unsupported(X, d, t, "a descriptor's base offset / LBO mode (bits 49-52)", (uint32_t)(desc >> 49 & 0xf));
    if (!width[desc >> 61]) return unsupported(X, d, t, "a descriptor's swizzle mode (bits 61-63)", (uint32_t)(desc >> 61));
    *D = (interp_smem_desc){(desc & 0x3fff) << 4, (desc >> 16 & 0x3fff) << 4, (desc >> 32 & 0x3fff) << 4,
                            width[desc >> 61]};
    return true;
}

/* rows x K of an operand from Y's shared memory (X's, or the CTA pair's peer's) into M */
static bool read_operand(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint64_t desc, bool mn, bool neg, int type,
                         int rows, int K, double (*M)[INTERP_DESC_K_MAX])
{
    interp_smem_desc D;
    if (!interp_tcgen05_sdesc(X, d, t, desc, &D) || !interp_smem_desc_read(X, Y, d, t, &D, mn, type, rows, K, M))
        return false;
    for (int r = 0; r < rows && neg; r++)
        for (int k = 0; k < K; k++) M[r][k] = -M[r][k];
    return true;
}

/* the lane of D's row m (of an MMA of M rows a block) from d's lane0: row m in lane m (M 128), or
 * for M 64 the first half of each warp's lane quarter, 16 rows a quarter (the PTX ISA's M = 64
 * data-path layout; d's lane 0, or 16 for the other half) */
static uint32_t d_lane(int rows, uint32_t lane0, int m)
{
    return rows == 64 ? lane0 + 32 * (uint32_t)(m / 16) + (uint32_t)(m % 16) : (uint32_t)m;
}

/* rows m0 .. m0 + rows - 1 of D = A B (+ D) into Y's tensor memory at lane0, col (X's, or the
 * CTA pair's peer's), as one write of thread t of X: 128 rows, row m in lane m; 64 (M = 64, one
 * block) as d_lane lays them; or the CTA pair's M = 128, 64 rows a block in CuTe's "2x2" layout
 * (tmem_frg_2sm): row m's first N / 2 columns in lane m, the others in lane 64 + m, each from col */
static void accumulate(ictx *X, ictx *Y, const dinst *d, uint32_t t, const tc_mma *O, int m0, int rows,
                       uint32_t lane0, uint32_t col, bool keep)
{
    itmem *T = Y->tmem;
    bool two_by_two = O->m == MMA_M && rows == 64;
    uint32_t half = (uint32_t)O->n / 2;
    uint32_t rec = interp_tmem_record_in(X, Y, d, t);
    if (!rec) return;
    for (int m = 0; m < rows; m++)
        for (int n = 0; n < O->n; n++) {
            uint32_t lane = two_by_two ? (uint32_t)m + 64 * ((uint32_t)n / half) : d_lane(rows, lane0, m);
            uint32_t column = col + (two_by_two ? (uint32_t)n % half : (uint32_t)n);
            size_t at = TMEM_AT(lane, column);
            if (keep && !T->who[at] && checking(X, CUTE_CHECK_TMEM)) {
                interp_report(X, d, t, CUTE_CHECK_TMEM, 0, column, 4, "tcgen05.mma (warp %u) "
                              "accumulates into lane %u column %u, never written (enable_input_d "
                              "set on the first MMA?)", t / 32, lane, column);
                return;
            }
            float c = 0;
            if (keep) memcpy(&c, &T->cell[at], 4);
            T->cell[at] = interp_mma_dot_bits(c, O->a[m0 + m], O->b[n], O->k, O->ta, O->tb, E_F32);
            T->who[at] = rec;
        }
}

/* the _TS form's A: rows x K from tensor memory at ta, row r in lane r (M 64: D's M = 64 lanes,
 * d_lane, from ta's lane 0 or 16), element k in the cell at column ta's + k / per, bits (k % per)
 * 32 / per up (per: 2 for f16 / bf16, 1 for tf32) */
static bool read_tmem_a(ictx *X, const dinst *d, uint32_t t, uint32_t ta, tc_mma *O)
{
    int bits = interp_mma_elem_bits(O->ta), per = 32 / bits;
    uint32_t col = TMEM_COL(ta), lane0 = TMEM_LANE(ta), mask = bits == 32 ? ~0u : (1u << bits) - 1;
    if (O->mn_a)
        return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, 0, 0, "tcgen05.mma (warp %u) with A in tensor memory: A is "
                             "K-major there (idesc bit 15 must be clear)", t / 32);
    if (O->m == 64 ? lane0 % 16 || lane0 > 16 : lane0 != 0)
        return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, 0, 0, "tcgen05.mma (warp %u) with A in tensor memory: a_tmem "
                             "names lane %u; %s", t / 32, lane0, O->m == 64 ? "M = 64 takes lane 0 or 16 (A's rows lie "
                             "as D's M = 64 rows do)" : "it must be lane 0 (A's row m lies in lane m)");
    if (!interp_tmem_columns(X, d, t, col, (uint32_t)(O->k / per))) return false;
    for (int r = 0; r < O->m; r++)
        for (int k = 0; k < O->k; k++) {
            uint32_t c = col + (uint32_t)(k / per), lane = d_lane(O->m == 64 ? 64 : MMA_M, lane0, r);
            if (k % per == 0 && !interp_tmem_mma_readable(X, d, t, lane, c)) return false;
            uint32_t v = X->tmem->cell[TMEM_AT(lane, c)] >> (bits * (k % per)) & mask;
            O->a[r][k] = O->neg_a ? -interp_mma_elem(O->ta, v) : interp_mma_elem(O->ta, v);
        }
    return true;
}

/* A from shared memory (the _SS form) or tensor memory (_TS: the row's emulation says) */
static bool read_a(ictx *X, const dinst *d, uint32_t t, tc_mma *O)
{
    if (d->row->fn == inst_tcgen05_mma_ts) return read_tmem_a(X, d, t, interp_get32(X, d, 1, t), O);
    return read_operand(X, X, d, t, REG(X, d->var[1])[t].u64, O->mn_a, O->neg_a, O->ta, O->m, O->k, O->a);
}

static void one_mma(ictx *X, const dinst *d, uint32_t t, void *scratch)
{
    tc_mma *O = scratch;
    uint32_t taddr = interp_get32(X, d, 0, t);
    if (!decode_idesc(X, d, t, interp_get32(X, d, 3, t), O)) return;
    if (!interp_tmem_mma_d(X, d, t, taddr, (uint32_t)O->m, (uint32_t)O->n)) return;
    if (!read_a(X, d, t, O) ||
        !read_operand(X, X, d, t, REG(X, d->var[2])[t].u64, O->mn_b, O->neg_b, O->tb, O->n, O->k, O->b))
        return;
    accumulate(X, X, d, t, O, 0, O->m == 64 ? 64 : MMA_M, TMEM_LANE(taddr), TMEM_COL(taddr), interp_get32(X, d, 4, t) != 0);
}

void inst_tcgen05_mma_ts(ictx *X, const dinst *d, const imask *m)
{
    interp_tcgen05_each(X, d, m, sizeof(tc_mma), one_mma);
}

bool interp_tcgen05_pair_d(ictx *X, const dinst *d, uint32_t t, uint32_t n, ictx *EF[2])
{
    ictx *P = interp_tmem_pair_peer(X, d, t);
    uint32_t taddr = interp_get32(X, d, 0, t), col = TMEM_COL(taddr);
    if (!P) return false;
    EF[0] = X->rank & 1 ? P : X, EF[1] = X->rank & 1 ? X : P;
    if (TMEM_LANE(taddr) != 0)
        return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, 0, 0, "the CTA pair's tcgen05.mma writes lanes 0..127 of "
                             "each block: d must name lane 0, not %u", TMEM_LANE(taddr));
    return interp_tmem_pair_columns(X, EF[0], d, t, col, n) && interp_tmem_pair_columns(X, EF[1], d, t, col, n);
}

/* the CTA pair's MMA (cta_group::2), issued by thread t of either block: the even block E holds
 * A's rows 0..M/2-1, B's rows 0..N/2-1 and D's rows 0..M/2-1, the odd block F the rest, at the
 * same shared offsets and tensor-memory address (M 256: 128 rows a block, row m in lane m; M 128:
 * 64 a block, in accumulate's "2x2" layout, N / 2 columns) */
static void one_mma_pair(ictx *X, const dinst *d, uint32_t t, void *scratch)
{
    tc_mma *O = scratch;
    ictx *EF[2];
    uint32_t col = TMEM_COL(interp_get32(X, d, 0, t));
    uint64_t a = REG(X, d->var[1])[t].u64, b = REG(X, d->var[2])[t].u64;
    if (!decode_idesc(X, d, t, interp_get32(X, d, 3, t), O)) return;
    int rows = O->m / 2, h = O->n / 2;
    if (!interp_tcgen05_pair_d(X, d, t, (uint32_t)(rows == 64 ? h : O->n), EF)) return;
    ictx *E = EF[0], *F = EF[1];
    if (!read_operand(X, E, d, t, a, O->mn_a, O->neg_a, O->ta, rows, O->k, O->a) ||
        !read_operand(X, F, d, t, a, O->mn_a, O->neg_a, O->ta, rows, O->k, O->a + rows) ||
        !read_operand(X, E, d, t, b, O->mn_b, O->neg_b, O->tb, h, O->k, O->b) ||
        !read_operand(X, F, d, t, b, O->mn_b, O->neg_b, O->tb, h, O->k, O->b + h))
        return;
    bool keep = interp_get32(X, d, 4, t) != 0;
    accumulate(X, E, d, t, O, 0, rows, 0, col, keep);
    accumulate(X, F, d, t, O, rows, rows, 0, col, keep);
}

void inst_tcgen05_mma_pair(ictx *X, const dinst *d, const imask *m)
{
    interp_tcgen05_each(X, d, m, sizeof(tc_mma), one_mma_pair);
}

void interp_tcgen05_each(ictx *X, const dinst *d, const imask *m, size_t scratch,
                         void (*one)(ictx *X, const dinst *d, uint32_t t, void *scratch))
{
    void *O = interp_tmem(X) ? malloc(scratch) : NULL;
    if (!O) {
        X->oom = X->stop = true;
        return;
    }
    EACH(X, m, t, {
        if (X->stop) break;
        one(X, d, t, O);
    });
    free(O);
}

void inst_tcgen05_mma(ictx *X, const dinst *d, const imask *m)
{
    interp_tcgen05_each(X, d, m, sizeof(tc_mma), one_mma);
}

/* the lane that copy q of row r of tcgen05.cp row R lands in, lane0 taddr's (TC_CP_*) */
static uint32_t cp_lane(const irow *R, uint32_t lane0, uint32_t r, uint32_t q)
{
    if (R->k == TC_CP_QUARTERS) return lane0 + 32 * r;
    if (R->k == TC_CP_PAIRED) return r % 32 + 64 * (r / 32) + 32 * q;
    return r + q * (128 / (uint32_t)R->num);
}

/* rows x cols 32-bit words of the descriptor's K-major matrix in Y's shared memory (X's, or the
 * CTA pair's peer's) into Y's lanes (cp_lane: each row once, or in 2 or 4 lane quarters for
 * .warpx2 / .warpx4), columns from col, as an async write of thread t of X */
static bool cp_into(ictx *X, ictx *Y, const dinst *d, uint32_t t, const interp_smem_desc *D, uint32_t lane0,
                    uint32_t col)
{
    const irow *R = d->row;
    itmem *T = interp_tmem(Y);
    uint32_t rec = T ? interp_tmem_record_in(X, Y, d, t) : 0;
    for (int r = 0; r < R->m && rec; r++)
        for (int c = 0; c < R->n; c++) {
            uint64_t off = interp_smem_desc_offset(D, false, r, c, 4);
            if (!interp_desc_access(X, Y, d, t, off, 4, 4)) return false;
            uint32_t word;
            memcpy(&word, Y->smem + off, 4);
            for (int q = 0; q < R->num; q++) {
                size_t at = TMEM_AT(cp_lane(R, lane0, (uint32_t)r, (uint32_t)q), col + (uint32_t)c);
                T->cell[at] = word;
                T->who[at] = rec;
            }
        }
    return rec != 0;
}

/* taddr's lane: 0, or for 4x256b (a row a lane quarter) any lane of the first quarter */
static bool cp_lane_ok(ictx *X, const dinst *d, uint32_t t, uint32_t lane)
{
    bool quarters = d->row->k == TC_CP_QUARTERS;
    if (lane == 0 || (quarters && lane < 32)) return true;
    return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, 0, 0, "tcgen05.cp (warp %u) writes from %s: taddr names "
                         "lane %u", t / 32, quarters ? "a lane of 0..31 (4x256b: row i into that lane + 32 i)" : "lane 0",
                         lane);
}

/* thread t's tcgen05.cp; the CTA pair's (cta_group::2) copies in each block of the pair, from its
 * own shared memory into its own tensor memory, at the same offsets (an assumption: what CUTLASS's
 * 2-CTA kernels lay out for it) */
static void one_cp(ictx *X, const dinst *d, uint32_t t)
{
    const irow *R = d->row;
    uint32_t taddr = interp_get32(X, d, 0, t), lane0 = TMEM_LANE(taddr), col = TMEM_COL(taddr);
    interp_smem_desc D;
    if (!cp_lane_ok(X, d, t, lane0) || !interp_tcgen05_sdesc(X, d, t, REG(X, d->var[1])[t].u64, &D)) return;
    if (R->flag != 2) {
        if (interp_tmem_columns(X, d, t, col, (uint32_t)R->n)) cp_into(X, X, d, t, &D, lane0, col);
        return;
    }
    ictx *P = interp_tmem_pair_peer(X, d, t);
    for (int i = 0; i < 2 && P; i++) {
        ictx *Y = i ? P : X;
        if (!interp_tmem_pair_columns(X, Y, d, t, col, (uint32_t)R->n) || !cp_into(X, Y, d, t, &D, lane0, col)) return;
    }
}

void inst_tcgen05_cp(ictx *X, const dinst *d, const imask *m)
{
    if (!interp_tmem(X)) return;
    EACH(X, m, t, {
        if (X->stop) break;
        one_cp(X, d, t);
    });
}
