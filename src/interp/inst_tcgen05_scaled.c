/* tcgen05.mma .kind::mxf4nvf4 .block_scale .scale_vec::4X (NVFP4) under the interpreter:
 *   D(m, n) = sum_k A(m, k) SFA(m, k / 16) B(n, k) SFB(n, k / 16)  (+ D), K = 64.
 * The instruction descriptor is CUTLASS's UMMA::InstrDescriptorBlockScaled: bits 0-2 sparse
 * (refused), 4-5 B's scale-factor id, 7-9 / 10-12 A's / B's format (E2M1 = 1 for this kind),
 * 13 / 14 negations, 15 / 16 majors (4-bit operands are K-major only), 17-22 N >> 3, 23 the
 * scales' format (0 ue4m3), 24-28 M >> 4 (128 only, so far), 29-30 A's scale-factor id, 31
 * the K size (0: 64).  A and B are e2m1, two a byte (element 0 in the low nibble), 32 bytes
 * a row in the K-major canonical layouts of their sm_100 descriptors (inst_tcgen05.c).
 * The scales of row r (of A, or of B's N) are the 4 bytes of tensor-memory column sf + r / 32
 * at lane r % 32 of every 32-lane quarter (the PTX ISA: duplicated to all four; the four are
 * checked to agree), byte j for k in [16 j, 16 j + 16): what tcgen05.cp .32x128b.warpx4 puts
 * there from CuTe's SfKMajorAtom.  They must have been written (by the issuing thread's
 * tcgen05.cp, which the tcgen05 pipeline orders before the MMA).
 * Arithmetic: the products and their sums exact in float64, rounded once into D's f32 — an
 * assumption: no Blackwell result has been recorded (docs/blackwell.md). */
#include <stdlib.h>
#include <string.h>

#include "cutec/numeric.h"
#include "interp/tmem.h"

enum { SC_M = 128, SC_N_MAX = 256, SC_K = 64 };

typedef struct sc_mma {
    int m, n;
    double a[SC_M][SC_K], b[SC_N_MAX][SC_K];
} sc_mma;

static bool refuse(ictx *X, const dinst *d, uint32_t t, cute_interp_check kind, const char *what, uint32_t v)
{
    return interp_report(X, d, t, kind, 0, 0, 0, "tcgen05.mma.kind::mxf4nvf4 (warp %u): %s (idesc 0x%x)", t / 32, what,
                         v);
}

static bool decode(ictx *X, const dinst *d, uint32_t t, uint32_t idesc, sc_mma *O)
{
    O->m = (int)(idesc >> 24 & 31) << 4, O->n = (int)(idesc >> 17 & 63) << 3;
    if (idesc & 7) return refuse(X, d, t, CUTE_CHECK_UNSUPPORTED, "a sparse MMA is not emulated", idesc);
    if ((idesc >> 7 & 7) != 1 || (idesc >> 10 & 7) != 1)
        return refuse(X, d, t, CUTE_CHECK_TMEM, "A's and B's formats (bits 7-9, 10-12) must be E2M1 (1)", idesc);
    if (idesc >> 15 & 3)
        return refuse(X, d, t, CUTE_CHECK_TMEM, "4-bit operands are K-major only (bits 15, 16)", idesc);
    if ((idesc >> 4 & 3) || (idesc >> 29 & 3) || (idesc >> 13 & 3) || (idesc >> 23 & 1) || (idesc >> 31))
        return refuse(X, d, t, CUTE_CHECK_UNSUPPORTED, "scale-factor ids, negation, ue8m0 scales and K 96 are not "
                      "emulated", idesc);
    if (O->m != SC_M) return refuse(X, d, t, CUTE_CHECK_UNSUPPORTED, "M other than 128 is not emulated", idesc);
    if (O->n < 16 || O->n > SC_N_MAX || O->n % 16)
        return refuse(X, d, t, CUTE_CHECK_TMEM, "N must be a multiple of 16 in 16..256", idesc);
    return true;
}

/* rows x 64 e2m1 values of a K-major operand */
static bool read_fp4(ictx *X, const dinst *d, uint32_t t, uint64_t desc, int rows, double (*M)[SC_K])
{
    interp_smem_desc D;
    if (!interp_tcgen05_sdesc(X, d, t, desc, &D)) return false;
    for (int r = 0; r < rows; r++)
        for (int k = 0; k < SC_K / 2; k++) {
            uint64_t off = interp_smem_desc_offset(&D, false, r, k, 1);
            if (!interp_scheck(X, d, t, off, 1, 1, 0)) return false;
            if (checking(X, CUTE_CHECK_SHARED_RACE) && !interp_proxy_fenced(X, d, t, off, 1)) return false;
            uint8_t v = X->smem[off];
            M[r][2 * k] = cute_e2m1_to_f32(v & 15), M[r][2 * k + 1] = cute_e2m1_to_f32(v >> 4);
        }
    return true;
}

/* the scales of rows x 64 values at tensor memory sf, multiplied into M */
static bool scale(ictx *X, const dinst *d, uint32_t t, uint32_t sf, int rows, double (*M)[SC_K], char which)
{
    itmem *T = X->tmem;
    uint32_t col0 = TMEM_COL(sf);
    if (TMEM_LANE(sf) != 0)
        return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, 0, 0, "tcgen05.mma (warp %u): SF%c's address names lane "
                             "%u: scale factors start at lane 0", t / 32, which, TMEM_LANE(sf));
    if (!interp_tmem_columns(X, d, t, col0, (uint32_t)(rows + 31) / 32)) return false;
    for (int r = 0; r < rows; r++) {
        uint32_t col = col0 + (uint32_t)r / 32, word = 0;
        for (uint32_t q = 0; q < 4; q++) {
            size_t at = TMEM_AT(32 * q + (uint32_t)r % 32, col);
            if (!T->who[at] || (q && T->cell[at] != word))
                return interp_report(X, d, t, CUTE_CHECK_TMEM, 0, col, 4, "tcgen05.mma (warp %u): SF%c of row %d "
                                     "(lane %u column %u) %s", t / 32, which, r, 32 * q + (uint32_t)r % 32, col,
                                     !T->who[at] ? "was never written (tcgen05.cp the scales first)"
                                                 : "differs between lane quarters (the scales must be duplicated "
                                                   "to all four: tcgen05.cp .warpx4)");
            word = T->cell[at];
        }
        for (int k = 0; k < SC_K; k++) M[r][k] *= cute_ue4m3_to_f32((uint8_t)(word >> (8 * (k / 16))));
    }
    return true;
}

/* D = A B^T (+ D) into columns col.. of lanes 0..127, as one write of thread t */
static void store_d(ictx *X, const dinst *d, uint32_t t, const sc_mma *O, uint32_t col, bool keep)
{
    itmem *T = X->tmem;
    uint32_t rec = interp_tmem_record(X, d, t, true);
    for (int m = 0; m < O->m && rec; m++)
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
            for (int k = 0; k < SC_K; k++) sum += O->a[m][k] * O->b[n][k];
            float out = (float)(c + sum);
            memcpy(&T->cell[at], &out, 4);
            T->who[at] = rec;
        }
}

static void one_mma(ictx *X, const dinst *d, uint32_t t, sc_mma *O)
{
    uint32_t taddr = interp_get32(X, d, 0, t);
    if (!decode(X, d, t, interp_get32(X, d, 3, t), O)) return;
    if (!interp_tmem_mma_d(X, d, t, taddr, (uint32_t)O->n) ||
        !read_fp4(X, d, t, REG(X, d->var[1])[t].u64, O->m, O->a) ||
        !read_fp4(X, d, t, REG(X, d->var[2])[t].u64, O->n, O->b) ||
        !scale(X, d, t, interp_get32(X, d, 4, t), O->m, O->a, 'A') ||
        !scale(X, d, t, interp_get32(X, d, 5, t), O->n, O->b, 'B'))
        return;
    store_d(X, d, t, O, TMEM_COL(taddr), interp_get32(X, d, 6, t) != 0);
}

void inst_tcgen05_mma_scaled(ictx *X, const dinst *d, const imask *m)
{
    sc_mma *O = interp_tmem(X) ? malloc(sizeof *O) : NULL;
    if (!O) {
        X->oom = X->stop = true;
        return;
    }
    EACH(X, m, t, {
        if (X->stop) break;
        one_mma(X, d, t, O);
    });
    free(O);
}
