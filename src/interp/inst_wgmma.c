/* wgmma under the interpreter: a warpgroup (128 consecutive threads, all active) computes
 * D = A B + D with M = 64.  A and B are read from shared memory through their descriptors
 * (the PTX ISA's matrix descriptor: start address, leading and stride byte offsets, swizzle
 * mode; K-major, or MN-major where the row's transpose bit says so), A of an RS row from
 * registers.  Each warp computes its own part (so it runs alone under the warp scheduler
 * too).  The fragments are mma.sync's, warp w of the group holding rows 16w..16w+15:
 *   A (RS): register r, element h: row 16w + g + 8 (r%2), column e q + h + 4 e (r/2)
 *           (e elements per register: 2 for 16-bit types, 4 for 8-bit, 1 for tf32)
 *   D: value v = i + 4 j: row 16w + g + 8 (i/2), column 8 j + 2 q + i%2 (f16: two a register)
 * with g = lane/4, q = lane%4: CuTe's ALayout_64xK and CLayout_64xN.  Arithmetic is
 * mma.sync's k-step model (inst_mma.c) over the whole K: integers exactly, the rest as the
 * tensor cores add; not yet fitted to wgmma's own results (no recordings of them).
 *
 * The arithmetic is done when the instruction is issued, but the shared bytes it read stay
 * read (async_read.c) in the warp's open group until a wgmma.wait_group covers that group
 * (commit_group closes it; wait_group N ends all but the N newest): a write to them before,
 * by any thread, is reported with both sites.  The operands are read through the async
 * proxy: a byte stored through the generic proxy whose writer ran no fence.proxy.async since
 * is reported (proxy.c).  The accumulators' window is the IR verifier's (docs/interpreter.md). */
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "cutec/numeric.h"
#include "interp/interp_internal.h"

enum { WG_THREADS = 128, WG_K_MAX = INTERP_DESC_K_MAX, WG_N_MAX = 256 };

typedef interp_smem_desc wg_desc;

/* the PTX ISA's shared-memory matrix descriptor: start address, LBO and SBO in 16-byte
 * units in bits 0-13, 16-29 and 32-45; the swizzle in bits 62-63 (0 none, 1 128-byte,
 * 2 64-byte, 3 32-byte) */
static wg_desc decode(uint64_t desc)
{
    static const int width[4] = {1, 8, 4, 2};
    wg_desc D = {(desc & 0x3fff) << 4, (desc >> 16 & 0x3fff) << 4, (desc >> 32 & 0x3fff) << 4,
                 width[desc >> 62]};
    return D;
}

/* the shared offset of element (r, k) of an operand with rows along M or N */
uint64_t interp_smem_desc_offset(const wg_desc *D, bool mn_major, int r, int k, int bytes)
{
    int T = 16 / bytes, W = D->width;
    uint64_t off;
    if (!mn_major) { /* 8-row core matrices, K in 16-byte chunks */
        int j = k / T, e = k % T;
        off = W == 1 ? D->start + (uint64_t)(r / 8) * D->sbo + (uint64_t)j * D->lbo + (uint64_t)(r % 8) * 16
                     : D->start + (uint64_t)(r / 8) * D->sbo + (uint64_t)(r % 8) * 16 * (uint64_t)W + (uint64_t)j * 16;
        off += (uint64_t)e * (uint64_t)bytes;
    } else { /* 16-byte chunks of rows, 8 K each */
        int c = r / T, e = r % T;
        off = W == 1 ? D->start + (uint64_t)c * D->sbo + (uint64_t)(k / 8) * D->lbo + (uint64_t)(k % 8) * 16
                     : D->start + (uint64_t)(c / W) * D->lbo + (uint64_t)(k / 8) * D->sbo +
                           (uint64_t)(k % 8) * 16 * (uint64_t)W + (uint64_t)(c % W) * 16;
        off += (uint64_t)e * (uint64_t)bytes;
    }
    /* CuTe's Swizzle<log2 W, 4, 3> on the byte address */
    return off ^ ((off >> 7) & (uint64_t)(W - 1)) << 4;
}

/* the bits of an unpacked 6- or 4-bit element (0 for the others): the 16-byte chunk of its
 * byte slot holds 16 of them packed from bit 0, element i at bits w i .. w i + w - 1 (TMA's
 * 16U6 / 16U4 ALIGN16B images; the order within the chunk is an assumption of this emulation) */
static int unpacked_width(int type)
{
    return type == E_E2M1 ? 4 : type == E_E2M3 || type == E_E3M2 ? 6 : 0;
}

bool interp_desc_access(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes, uint32_t align)
{
    if (Y != X) return interp_remote_access(X, Y, d, t, off, bytes, align, 0);
    if (!interp_scheck(X, d, t, off, bytes, align, 0)) return false;
    return !checking(X, CUTE_CHECK_SHARED_RACE) || interp_proxy_fenced(X, d, t, off, bytes);
}

/* the offset of element (r, k), given the one of element (r, k - 1) (k = 0: none): K-major,
 * the elements of a 16-byte chunk lie at its offset plus `bytes` apiece (the chunk's offset
 * is a multiple of 16 and the swizzle moves whole chunks), so only a chunk's first element
 * needs the descriptor's arithmetic; MN-major, each k is another chunk */
static bool chunk_first(bool mn_major, int k, int bytes) { return mn_major || k % (16 / bytes) == 0; }

static uint64_t next_offset(const interp_smem_desc *D, bool mn_major, int r, int k, int bytes, uint64_t prev)
{
    if (chunk_first(mn_major, k, bytes)) return interp_smem_desc_offset(D, mn_major, r, k, bytes);
    return prev + (uint64_t)bytes;
}

/* the code of the element at `off` (of an unpacked type: the w bits of slot off), its bytes
 * checked, then read */
static bool desc_element(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint64_t off, int bytes, int w, uint32_t *v)
{
    if (w) { /* the one or two bytes of the chunk that hold element i's bits */
        uint64_t bit = (off & 15) * (uint64_t)w;
        off = (off & ~(uint64_t)15) + bit / 8;
        bytes = (int)((bit % 8 + (uint64_t)w + 7) / 8);
        if (!interp_desc_access(X, Y, d, t, off, (uint32_t)bytes, 1)) return false;
        uint32_t word = 0;
        memcpy(&word, Y->smem + off, (size_t)bytes);
        *v = word >> bit % 8 & ((1u << w) - 1);
        return true;
    }
    if (!interp_desc_access(X, Y, d, t, off, (uint32_t)bytes, (uint32_t)bytes)) return false;
    *v = 0;
    memcpy(v, Y->smem + off, (size_t)bytes);
    return true;
}

bool interp_smem_desc_read(ictx *X, ictx *Y, const dinst *d, uint32_t t, const interp_smem_desc *D,
                           bool mn_major, int type, int rows, int K, double (*M)[INTERP_DESC_K_MAX])
{
    int bytes = interp_mma_elem_bits(type) / 8, w = unpacked_width(type);
    uint64_t off = 0;
    for (int r = 0; r < rows; r++)
        for (int k = 0; k < K; k++) {
            uint32_t v;
            off = next_offset(D, mn_major, r, k, bytes, off);
            if (!desc_element(X, Y, d, t, off, bytes, w, &v)) return false;
            M[r][k] = interp_mma_elem(type, v);
        }
    return true;
}

/* an operand of rows x K elements of `type` from shared memory into M[row][k] */
static bool read_shared(ictx *X, const dinst *d, uint32_t t, uint64_t desc, bool mn_major,
                        int type, int rows, int K, double (*M)[WG_K_MAX])
{
    wg_desc D = decode(desc);
    return interp_smem_desc_read(X, X, d, t, &D, mn_major, type, rows, K, M);
}

typedef struct wg_op {
    const irow *R;
    int nd;             /* D registers a thread holds */
    double a[64][WG_K_MAX], b[WG_N_MAX][WG_K_MAX];
    interp_tc_vec va[64], vb[WG_N_MAX]; /* the rows of a and b as the sums take them */
    uint64_t chunk[WG_N_MAX * WG_K_MAX]; /* hold_reads' chunks of an operand */
} wg_op;

static int by_offset(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* the 16-byte chunks an operand read (elements never straddle one, the swizzle moves whole
 * chunks) held read by thread t's open wgmma group, as runs of adjacent chunks */
static bool hold_reads(ictx *X, const dinst *d, uint32_t t, wg_op *O, uint64_t desc, bool mn_major, int type, int rows,
                       int K)
{
    if (!checking(X, CUTE_CHECK_ASYNC_COPY)) return true;
    uint64_t *chunk = O->chunk;
    wg_desc D = decode(desc);
    int bytes = interp_mma_elem_bits(type) / 8, n = 0;
    for (int r = 0; r < rows; r++)
        for (int k = 0; k < K; k++) {
            if (!chunk_first(mn_major, k, bytes)) continue; /* the chunk of k - 1 */
            uint64_t c = interp_smem_desc_offset(&D, mn_major, r, k, bytes) & ~(uint64_t)15;
            if (n == 0 || chunk[n - 1] != c) chunk[n++] = c;
        }
    qsort(chunk, (size_t)n, sizeof *chunk, by_offset);
    uint32_t group = X->wgmma_groups[t];
    for (int i = 0, j; i < n; i = j) {
        uint64_t end = chunk[i] + 16;
        for (j = i + 1; j < n && chunk[j] <= end; j++) end = chunk[j] + 16;
        if (!interp_async_read_begin(X, d, t, chunk[i], (uint32_t)(end - chunk[i]), AREAD_WGMMA, group)) return false;
    }
    return true;
}

/* A of an RS row, warp q's rows (16q .. 16q + 15): its mma.sync A fragment */
static void read_regs_a(ictx *X, const dinst *d, uint32_t w0, int q, uint32_t k0, int type,
                        double (*A)[WG_K_MAX])
{
    int bits = interp_mma_elem_bits(type), e = 32 / bits;
    for (uint32_t l = 0; l < 32; l++) {
        int g = (int)l / 4, c = (int)l % 4;
        for (int r = 0; r < 4; r++) {
            uint32_t v = interp_get32(X, d, k0 + (uint32_t)r, w0 + l);
            for (int h = 0; h < e; h++)
                A[16 * q + g + 8 * (r % 2)][e * c + h + 4 * e * (r / 2)] =
                    interp_mma_elem(type, bits == 32 ? v : v >> (bits * h));
        }
    }
}

/* lane l of warp q's D value v: its row and column */
static void d_pos(int q, uint32_t l, int v, int *row, int *col)
{
    int g = (int)l / 4, c = (int)l % 4, i = v % 4, j = v / 4;
    *row = 16 * q + g + 8 * (i / 2), *col = 8 * j + 2 * c + i % 2;
}

/* D value v of thread t as it is held (f32, s32, or half of an f16x2) */
static double d_get(ictx *X, const dinst *d, const irow *R, uint32_t t, int v)
{
    if (R->types[0] == E_F16)
        return interp_mma_elem(E_F16, interp_get32(X, d, (uint32_t)v / 2, t) >> (16 * (v % 2)));
    uint32_t u = interp_get32(X, d, (uint32_t)v, t);
    return R->types[0] == E_S32 ? (double)(int32_t)u : interp_mma_elem(E_F32, u);
}

/* fp8 inputs into f32: the fp8 datapath's sum (wgmma_fp8_sum.c) */
static bool fp8_sum(const irow *R)
{
    return (R->types[1] == E_E4M3 || R->types[1] == E_E5M2) && R->types[0] == E_F32;
}

/* warp q's rows of A (16q .. 16q + 15) and B's rows (D's columns) as the sums' vectors */
static void prepare(wg_op *O, int q)
{
    const irow *R = O->R;
    int K = R->k, out = R->types[0];
    if (out == E_S32) return;
    int ea = fp8_sum(R) ? interp_wgmma_fp8_emin(R->types[1]) : interp_mma_emin(R->types[1], out);
    int eb = fp8_sum(R) ? interp_wgmma_fp8_emin(R->types[2]) : interp_mma_emin(R->types[2], out);
    for (int r = 16 * q; r < 16 * q + 16; r++) interp_tc_vec_set(&O->va[r], O->a[r], K, ea);
    for (int n = 0; n < R->n; n++) interp_tc_vec_set(&O->vb[n], O->b[n], K, eb);
}

/* D[row][col] = c + sum_k a b, as the hardware rounds it, as D's bits */
static uint32_t result(const wg_op *O, double c, int row, int col)
{
    int K = O->R->k;
    if (O->R->types[0] == E_S32) {
        int64_t s = (int64_t)c;
        for (int k = 0; k < K; k++) s += (int64_t)O->a[row][k] * (int64_t)O->b[col][k];
        return (uint32_t)s;
    }
    float f;
    if (fp8_sum(O->R) && interp_wgmma_fp8_sum(c, &O->va[row], &O->vb[col], K, &f)) {
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    return interp_tc_dot_bits(c, &O->va[row], &O->vb[col], K, O->R->types[0]);
}

/* warp q's D, lanes w0 .. w0 + 31 */
static void write_d(ictx *X, const dinst *d, const wg_op *O, uint32_t w0, int q, bool keep_d)
{
    int row, col, nv = O->R->types[0] == E_F16 ? 2 * O->nd : O->nd;
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t lo = 0, t = w0 + l;
        for (int v = 0; v < nv; v++) {
            d_pos(q, l, v, &row, &col);
            uint32_t bits = result(O, keep_d ? d_get(X, d, O->R, t, v) : 0, row, col);
            if (O->R->types[0] != E_F16) interp_put32(X, d, (uint32_t)v, t, bits);
            else if (v % 2 == 0) lo = bits;
            else interp_put32(X, d, (uint32_t)v / 2, t, lo | bits << 16);
        }
    }
}

static void negate(double (*M)[WG_K_MAX], int rows, int K)
{
    for (int r = 0; r < rows; r++)
        for (int k = 0; k < K; k++) M[r][k] = -M[r][k];
}

/* warp w0's part of the warpgroup's instruction (warp q of its group: D rows 16q .. 16q +
 * 15, which need only its own A registers, or the shared A and B); operands: d (in-out),
 * then a_desc or a[4], b_desc, scale_d */
static void one_warp(ictx *X, const dinst *d, wg_op *O, uint32_t w0)
{
    const irow *R = O->R;
    uint32_t k = (uint32_t)O->nd, imm = (uint32_t)d->imm;
    int q = (int)(w0 / 32 % 4);
    bool ok = true;
    if (R->flag) {
        read_regs_a(X, d, w0, q, k, R->types[1], O->a);
        k += 4;
    } else {
        uint64_t a = REG(X, d->var[k])[w0].u64;
        ok = read_shared(X, d, w0, a, imm & CUTE_WGMMA_TNSP_A, R->types[1], 64, R->k, O->a) &&
             hold_reads(X, d, w0, O, a, imm & CUTE_WGMMA_TNSP_A, R->types[1], 64, R->k);
        k++;
    }
    uint64_t b = REG(X, d->var[k])[w0].u64;
    ok = ok && read_shared(X, d, w0, b, imm & CUTE_WGMMA_TNSP_B, R->types[2], R->n, R->k, O->b) &&
         hold_reads(X, d, w0, O, b, imm & CUTE_WGMMA_TNSP_B, R->types[2], R->n, R->k);
    if (!ok) return;
    if (imm & CUTE_WGMMA_NEG_A) negate(O->a, 64, R->k);
    if (imm & CUTE_WGMMA_NEG_B) negate(O->b, R->n, R->k);
    prepare(O, q);
    write_d(X, d, O, w0, q, interp_get32(X, d, k + 1, w0) != 0);
}

/* the warps of m that take part: whole warps; in lockstep (no warp scheduler) whole
 * warpgroups, checked once each (under the scheduler a warp runs alone, its own part) */
static bool warp_takes_part(ictx *X, const dinst *d, const imask *m, uint32_t w0, int *group_ok)
{
    if (X->warps) return interp_whole_warp(X, d, m, w0);
    if (w0 % WG_THREADS == 0 || *group_ok < 0) /* a new group, or the mask's first */
        *group_ok = interp_whole_lanes(X, d, m, w0 - w0 % WG_THREADS, WG_THREADS);
    return *group_ok;
}

static bool whole_groups(ictx *X, const dinst *d)
{
    if (X->nthr % WG_THREADS == 0) return true;
    if (checking(X, CUTE_CHECK_WARP_INACTIVE))
        interp_report(X, d, X->nthr - X->nthr % WG_THREADS, CUTE_CHECK_WARP_INACTIVE, 0, 0, 0,
                      "%s is warpgroup-collective: the block's last %u threads make no whole "
                      "warpgroup of 128", cute_inst_info_of((cute_inst)d->imm2)->mnemonic,
                      X->nthr % WG_THREADS);
    return false;
}

/* per thread: its wgmma groups committed so far (the open group's number) */
static uint32_t *wgmma_groups(ictx *X)
{
    if (!X->wgmma_groups && !(X->wgmma_groups = calloc(X->nthr, sizeof *X->wgmma_groups))) X->oom = X->stop = true;
    return X->wgmma_groups;
}

void inst_wgmma(ictx *X, const dinst *d, const imask *m)
{
    if (!whole_groups(X, d) || !wgmma_groups(X)) return;
    wg_op *O = malloc(sizeof *O);
    if (!O) {
        X->oom = X->stop = true;
        return;
    }
    O->R = d->row, O->nd = cute_inst_info_of((cute_inst)d->imm2)->nout;
    int group_ok = -1;
    for (uint32_t w0 = m->lo - m->lo % 32; w0 < m->hi && !X->stop; w0 += 32) /* the mask's warps */
        if (warp_takes_part(X, d, m, w0, &group_ok)) one_warp(X, d, O, w0);
    free(O);
}

/* commit_group: each thread's open group closes; wait_group N: the reads of all but its N
 * newest committed groups end (the open group's go on) */
static void close_or_wait(ictx *X, const dinst *d, uint32_t w0)
{
    uint32_t *groups = wgmma_groups(X);
    if (!groups) return;
    for (uint32_t t = w0; t < w0 + 32 && t < X->nthr; t++)
        if (d->imm2 == CUTE_INST_WGMMA_COMMIT_GROUP) groups[t]++;
        else if (d->imm2 == CUTE_INST_WGMMA_WAIT_GROUP)
            interp_async_read_end(X, t, AREAD_WGMMA, (int64_t)groups[t] > d->imm ? groups[t] - (uint32_t)d->imm : 0);
}

/* wgmma.fence / commit_group / wait_group, by whole warps (of whole warpgroups in lockstep) */
void inst_wgmma_sync(ictx *X, const dinst *d, const imask *m)
{
    int group_ok = -1;
    if (whole_groups(X, d))
        for (uint32_t w0 = m->lo - m->lo % 32; w0 < m->hi && !X->stop; w0 += 32)
            if (warp_takes_part(X, d, m, w0, &group_ok)) close_or_wait(X, d, w0);
}
