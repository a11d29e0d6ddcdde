/* The block-scaled tcgen05.mma kinds under the interpreter:
 *   D(m, n) = sum_k A(m, k) SFA(m, k / V) B(n, k) SFB(n, k / V)  (+ D)
 *   mxf4nvf4 .scale_vec::4X (NVFP4): e2m1, K 64, V 16, ue4m3 scales (ue8m0 not emulated)
 *   mxf4     .scale_vec::2X (MXFP4): e2m1, K 64, V 32, ue8m0 scales
 *   mxf8f6f4 .scale_vec::1X (MXFP8, MXFP6, MXFP4 unpacked): e4m3 / e5m2, e2m3 / e3m2, e2m1 (the
 *            6- and 4-bit ones unpacked in shared memory, K-major, as kind::f8f6f4's), K 32, V 32,
 *            ue8m0 scales
 * The instruction descriptor is CUTLASS's UMMA::InstrDescriptorBlockScaled: bits 0-2 sparse
 * (refused), 4-5 B's scale-factor id, 7-9 / 10-12 A's / B's format (E2M1 = 1 for the 4-bit
 * kinds; E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5 for mxf8f6f4), 13 / 14 negations, 15 / 16 majors (4-bit operands are
 * K-major only), 17-22 N >> 3, 23 the scales' format (0 ue4m3, 1 ue8m0), 24-28 M >> 4 (128
 * only, so far), 29-30 A's scale-factor id, 31 the 4-bit kinds' K (0: 64; 96 not emulated).
 * e2m1 operands are two a byte (element 0 in the low nibble), 32 bytes a row in the K-major
 * canonical layouts of their sm_100 descriptors; 8-bit ones are read as kind::f8f6f4's
 * (inst_tcgen05.c).
 * The scales of row r (of A, or of B's N) are the 4 bytes of tensor-memory column sf + r / 32
 * at lane r % 32 of every 32-lane quarter (the PTX ISA: duplicated to all four; the four are
 * checked to agree); an instruction reads X = K / V of them, bytes id .. id + X - 1, where id is
 * the scale-factor id (0 for 4X; 0 or 2 for 2X; 0..3 for 1X), so one SfKMajorAtom word serves
 * 4 / X instructions.  They must have been written (by the issuing thread's tcgen05.cp, which
 * the tcgen05 pipeline orders before the MMA).
 * The CTA pair's rows (cta_group::2, M 256): A's rows 0..127 and B's first N / 2 rows from the
 * even block's shared memory, the rest from the odd block's, at the same descriptor offsets (as
 * the dense pair MMA, inst_tcgen05.c); each block's tensor memory holds, at sfa and sfb, the
 * scales of its own 128 rows of A and of all N rows of B, and receives its 128 rows of D.
 * Arithmetic: the products and their sums exact in float64, rounded once into D's f32 — an
 * assumption: no Blackwell result has been recorded (docs/blackwell.md). */
#include <stdio.h>
#include <string.h>

#include "cutec/numeric.h"
#include "interp/tmem.h"

enum { SC_M = 128, SC_PAIR_M = 256, SC_N_MAX = 256, SC_K_MAX = 64 };

typedef struct sc_kind {
    const char *name;
    int k, x;      /* K of an instruction; scales a row it reads */
    bool fp4, ue8; /* e2m1 operands (else 8-bit); ue8m0 scales (else ue4m3) */
} sc_kind;

static const sc_kind *kind_of(const dinst *d)
{
    static const sc_kind nvf4 = {"mxf4nvf4", 64, 4, true, false}, mxf4 = {"mxf4", 64, 2, true, true},
                         mxf8 = {"mxf8f6f4", 32, 1, false, true};
    return d->row->num == TC_KIND_MXF4 ? &mxf4 : d->row->num == TC_KIND_MXF8F6F4 ? &mxf8 : &nvf4;
}

typedef struct sc_mma {
    const sc_kind *kind;
    int m, n, ta, tb, sfa_id, sfb_id; /* ta, tb: mxf8f6f4's E_* */
    bool neg_a, neg_b, mn_a, mn_b;
    double a[SC_PAIR_M][SC_K_MAX], b[SC_N_MAX][SC_K_MAX];
    double bs[SC_N_MAX][SC_K_MAX];           /* B times one block's scales */
    double t8[SC_N_MAX][INTERP_DESC_K_MAX]; /* an mxf8f6f4 operand as interp_smem_desc_read gives it */
} sc_mma;

static bool refuse(ictx *X, const dinst *d, uint32_t t, cute_interp_check kind, const char *what, uint32_t v)
{
    return interp_report(X, d, t, kind, 0, 0, 0, "tcgen05.mma.kind::%s (warp %u): %s (idesc 0x%x)", kind_of(d)->name,
                         t / 32, what, v);
}

static bool decode_formats(ictx *X, const dinst *d, uint32_t t, uint32_t idesc, sc_mma *O)
{
    uint32_t fa = idesc >> 7 & 7, fb = idesc >> 10 & 7;
    if (O->kind->fp4) {
        if (fa != 1 || fb != 1)
            return refuse(X, d, t, CUTE_CHECK_TMEM, "A's and B's formats (bits 7-9, 10-12) must be E2M1 (1)", idesc);
        if (O->mn_a || O->mn_b)
            return refuse(X, d, t, CUTE_CHECK_TMEM, "4-bit operands are K-major only (bits 15, 16)", idesc);
        return true;
    }
    O->ta = interp_tcgen05_f8f6f4_format(fa), O->tb = interp_tcgen05_f8f6f4_format(fb);
    if (!O->ta || !O->tb)
        return refuse(X, d, t, CUTE_CHECK_TMEM, "A's and B's formats (bits 7-9, 10-12) must be E4M3 0, E5M2 1, "
                      "E2M3 3, E3M2 4 or E2M1 5", idesc);
    return interp_tcgen05_unpacked_mn(X, d, t, O->ta, O->mn_a, 'A') &&
           interp_tcgen05_unpacked_mn(X, d, t, O->tb, O->mn_b, 'B');
}

/* the scales' format and ids: ue8m0 for the MX kinds, ue4m3 for 4X; ids within the word */
static bool decode_scales(ictx *X, const dinst *d, uint32_t t, uint32_t idesc, sc_mma *O)
{
    const sc_kind *K = O->kind;
    O->sfa_id = (int)(idesc >> 29 & 3), O->sfb_id = (int)(idesc >> 4 & 3);
    if ((idesc >> 23 & 1) != K->ue8)
        return refuse(X, d, t, K->ue8 ? CUTE_CHECK_TMEM : CUTE_CHECK_UNSUPPORTED,
                      K->ue8 ? "this kind's scales are ue8m0: set bit 23" : "ue8m0 scales with scale_vec::4X are not "
                      "emulated (bit 23)", idesc);
    if (O->sfa_id % K->x || O->sfb_id % K->x)
        return refuse(X, d, t, CUTE_CHECK_TMEM, K->x == 4 ? "scale_vec::4X reads the whole word: scale-factor ids "
                      "(bits 29-30, 4-5) must be 0" : "scale_vec::2X reads a half word: scale-factor ids (bits 29-30, "
                      "4-5) must be 0 or 2", idesc);
    if (idesc >> 31)
        return refuse(X, d, t, K->fp4 ? CUTE_CHECK_UNSUPPORTED : CUTE_CHECK_TMEM, K->fp4 ? "K 96 (bit 31) is not "
                      "emulated" : "bit 31 is reserved for this kind", idesc);
    return true;
}

static bool decode(ictx *X, const dinst *d, uint32_t t, uint32_t idesc, sc_mma *O)
{
    O->kind = kind_of(d);
    O->m = (int)(idesc >> 24 & 31) << 4, O->n = (int)(idesc >> 17 & 63) << 3;
    O->neg_a = idesc >> 13 & 1, O->neg_b = idesc >> 14 & 1, O->mn_a = idesc >> 15 & 1, O->mn_b = idesc >> 16 & 1;
    if (idesc & 7) return refuse(X, d, t, CUTE_CHECK_UNSUPPORTED, "a sparse MMA is not emulated", idesc);
    if (!decode_formats(X, d, t, idesc, O) || !decode_scales(X, d, t, idesc, O)) return false;
    if (O->m != (d->row->flag == 2 ? SC_PAIR_M : SC_M))
        return refuse(X, d, t, CUTE_CHECK_UNSUPPORTED, d->row->flag == 2 ? "the CTA pair's M other than 256 is not "
                      "emulated" : "M other than 128 is not emulated", idesc);
    if (O->n < 16 || O->n > SC_N_MAX || O->n % 16)
        return refuse(X, d, t, CUTE_CHECK_TMEM, "N must be a multiple of 16 in 16..256", idesc);
    return true;
}

/* rows x 64 e2m1 values of a K-major operand in Y's shared memory (X's, or the pair's peer's) */
static bool read_fp4(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint64_t desc, int rows, double (*M)[SC_K_MAX])
{
    interp_smem_desc D;
    if (!interp_tcgen05_sdesc(X, d, t, desc, &D)) return false;
    for (int r = 0; r < rows; r++)
        for (int k = 0; k < SC_K_MAX / 2; k++) {
            uint64_t off = interp_smem_desc_offset(&D, false, r, k, 1);
            if (!interp_desc_access(X, Y, d, t, off, 1, 1)) return false;
            uint8_t v = Y->smem[off];
            M[r][2 * k] = cute_e2m1_to_f32(v & 15), M[r][2 * k + 1] = cute_e2m1_to_f32(v >> 4);
        }
    return true;
}

/* `rows` rows of A or B (with its negation), e2m1 or kind::f8f6f4's, from Y's shared memory into M */
static bool read_operand(ictx *X, ictx *Y, const dinst *d, uint32_t t, sc_mma *O, char which, int rows,
                         double (*M)[SC_K_MAX])
{
    uint64_t desc = REG(X, d->var[which == 'A' ? 1 : 2])[t].u64;
    int K = O->kind->k;
    bool neg = which == 'A' ? O->neg_a : O->neg_b;
    if (O->kind->fp4) {
        if (!read_fp4(X, Y, d, t, desc, rows, M)) return false;
    } else {
        interp_smem_desc D;
        if (!interp_tcgen05_sdesc(X, d, t, desc, &D) ||
            !interp_smem_desc_read(X, Y, d, t, &D, which == 'A' ? O->mn_a : O->mn_b, which == 'A' ? O->ta : O->tb,
                                   rows, K, O->t8))
            return false;
        for (int r = 0; r < rows; r++) memcpy(M[r], O->t8[r], (size_t)K * sizeof(double));
    }
    for (int r = 0; r < rows && neg; r++)
        for (int k = 0; k < K; k++) M[r][k] = -M[r][k];
    return true;
}

/* the columns of Y's scales: a live allocation (the pair's, for a pair row) */
static bool scale_columns(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint32_t col, uint32_t n)
{
    return d->row->flag == 2 ? interp_tmem_pair_columns(X, Y, d, t, col, n) : interp_tmem_columns(X, d, t, col, n);
}

/* the scales of rows x K values at Y's tensor memory sf, multiplied into M: bytes id .. id + X - 1
 * of each row's word */
static bool scale(ictx *X, ictx *Y, const dinst *d, uint32_t t, const sc_mma *O, uint32_t sf, int rows,
                  double (*M)[SC_K_MAX], char which)
{
    itmem *T = interp_tmem(Y);
    uint32_t col0 = TMEM_COL(sf);
    char of[24] = "";
    if (d->row->flag == 2) snprintf(of, sizeof of, " of block %u", Y->rank);
    if (TMEM_LANE(sf) != 0)
        return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, 0, 0, "tcgen05.mma (warp %u): SF%c's address names lane "
                             "%u: scale factors start at lane 0", t / 32, which, TMEM_LANE(sf));
    if (!T || !scale_columns(X, Y, d, t, col0, (uint32_t)(rows + 31) / 32)) return false;
    for (int r = 0; r < rows; r++) {
        uint32_t col = col0 + (uint32_t)r / 32, word = 0;
        for (uint32_t q = 0; q < 4; q++) {
            size_t at = TMEM_AT(32 * q + (uint32_t)r % 32, col);
            if (!T->who[at] || (q && T->cell[at] != word))
                return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, col, 4, "tcgen05.mma (warp %u): SF%c of row %d%s "
                                     "(lane %u column %u) %s", t / 32, which, r, of, 32 * q + (uint32_t)r % 32, col,
                                     !T->who[at] ? "was never written (tcgen05.cp the scales first)"
                                                 : "differs between lane quarters (the scales must be duplicated "
                                                   "to all four: tcgen05.cp .warpx4)");
            word = T->cell[at];
        }
        const sc_kind *K = O->kind;
        int id = which == 'A' ? O->sfa_id : O->sfb_id, v = K->k / K->x;
        for (int k = 0; k < K->k; k++) {
            uint8_t code = (uint8_t)(word >> (8 * (id + k / v)));
            M[r][k] *= K->ue8 ? cute_ue8m0_to_f32(code) : cute_ue4m3_to_f32(code);
        }
    }
    return true;
}

/* 128 rows of D = A B^T (+ D) into columns col.. of Y's lanes 0..127 (X's, or the pair's peer's),
 * as one async write of thread t of X */
static void store_d(ictx *X, ictx *Y, const dinst *d, uint32_t t, const sc_mma *O, double (*a)[SC_K_MAX],
                    uint32_t col, bool keep)
{
    itmem *T = interp_tmem(Y);
    uint32_t rec = T ? interp_tmem_record_in(X, Y, d, t) : 0;
    for (int m = 0; m < SC_M && rec; m++)
        for (int n = 0; n < O->n; n++) {
            size_t at = TMEM_AT(m, col + (uint32_t)n);
            if (keep && !T->who[at]) {
                interp_report(X, d, t, CUTE_CHECK_TMEM, 0, col + n, 4, "tcgen05.mma (warp %u) accumulates into "
                              "lane %d column %u, never written (enable_input_d set on the first MMA?)", t / 32, m,
                              col + (uint32_t)n);
                return;
            }
            double sum = 0;
            float c = 0;
            if (keep) memcpy(&c, &T->cell[at], 4);
            for (int k = 0; k < O->kind->k; k++) sum += a[m][k] * O->bs[n][k];
            float out = (float)(c + sum);
            memcpy(&T->cell[at], &out, 4);
            T->who[at] = rec;
        }
}

/* Y's 128 rows of D (rows a of A): A's scales and B's from Y's tensor memory, then the product */
static bool one_half(ictx *X, ictx *Y, const dinst *d, uint32_t t, sc_mma *O, double (*a)[SC_K_MAX])
{
    uint32_t col = TMEM_COL(interp_get32(X, d, 0, t));
    memcpy(O->bs, O->b, sizeof O->bs);
    if (!scale(X, Y, d, t, O, interp_get32(X, d, 4, t), SC_M, a, 'A') ||
        !scale(X, Y, d, t, O, interp_get32(X, d, 5, t), O->n, O->bs, 'B'))
        return false;
    store_d(X, Y, d, t, O, a, col, interp_get32(X, d, 6, t) != 0);
    return !X->stop;
}

static void one_mma(ictx *X, const dinst *d, uint32_t t, void *scratch)
{
    sc_mma *O = scratch;
    uint32_t taddr = interp_get32(X, d, 0, t);
    if (!decode(X, d, t, interp_get32(X, d, 3, t), O)) return;
    if (!interp_tmem_mma_d(X, d, t, taddr, 128, (uint32_t)O->n) || !read_operand(X, X, d, t, O, 'A', O->m, O->a) ||
        !read_operand(X, X, d, t, O, 'B', O->n, O->b))
        return;
    one_half(X, X, d, t, O, O->a);
}

/* the CTA pair's (cta_group::2), by thread t of either block: EF[0] the even block, [1] the odd */
static void one_mma_pair(ictx *X, const dinst *d, uint32_t t, void *scratch)
{
    sc_mma *O = scratch;
    ictx *EF[2];
    if (!decode(X, d, t, interp_get32(X, d, 3, t), O) || !interp_tcgen05_pair_d(X, d, t, (uint32_t)O->n, EF)) return;
    int h = O->n / 2;
    if (!read_operand(X, EF[0], d, t, O, 'A', SC_M, O->a) || !read_operand(X, EF[1], d, t, O, 'A', SC_M, O->a + SC_M) ||
        !read_operand(X, EF[0], d, t, O, 'B', h, O->b) || !read_operand(X, EF[1], d, t, O, 'B', h, O->b + h))
        return;
    if (one_half(X, EF[0], d, t, O, O->a)) one_half(X, EF[1], d, t, O, O->a + SC_M);
}

void inst_tcgen05_mma_scaled(ictx *X, const dinst *d, const imask *m)
{
    interp_tcgen05_each(X, d, m, sizeof(sc_mma), d->row->flag == 2 ? one_mma_pair : one_mma);
}
