/* ldmatrix and stmatrix under the interpreter: 8x8 matrices of 16-bit elements between
 * shared memory and a warp.  Lane 8j + r gives the shared address of row r of matrix j (its
 * 16 bytes); register j of lane l holds elements (l/4, 2(l%4)) and (l/4, 2(l%4)+1) of matrix
 * j, the first in the low half; .trans exchanges rows and columns on the way. */
#include <string.h>

#include "interp/interp_internal.h"

/* the element of a register fragment held by lane l in half h: (row, col) */
static int frag_row(int l) { return l / 4; }
static int frag_col(int l, int h) { return 2 * (l % 4) + h; }

void inst_ldmatrix(ictx *X, const dinst *d, const imask *m)
{
    int num = d->row->num;
    bool trans = d->row->flag;
    for (uint32_t w0 = m->lo; w0 < m->hi; w0 += 32) {
        if (!interp_whole_warp(X, d, m, w0)) continue;
        uint16_t mat[4][8][8] = {{{0}}};
        uint64_t rows[32];
        for (int j = 0; j < num; j++)
            for (int r = 0; r < 8; r++) {
                uint32_t t = w0 + (uint32_t)(j * 8 + r); /* the lane giving row r of matrix j */
                uint64_t p = rows[j * 8 + r] = interp_addr(X, d, (uint32_t)num, t);
                if (interp_scheck(X, d, t, p, 16, 16, 0)) memcpy(mat[j][r], X->smem + p, 16);
            }
        if (X->banks) interp_banks_request(X, d, rows, (uint32_t)(8 * num), 16);
        for (int l = 0; l < 32; l++)
            for (int j = 0; j < num; j++) {
                uint32_t v = 0;
                for (int h = 0; h < 2; h++) {
                    int r = frag_row(l), c = frag_col(l, h);
                    v |= (uint32_t)(trans ? mat[j][c][r] : mat[j][r][c]) << (16 * h);
                }
                interp_put32(X, d, (uint32_t)j, w0 + (uint32_t)l, v);
            }
    }
}

void inst_stmatrix(ictx *X, const dinst *d, const imask *m)
{
    int num = d->row->num;
    bool trans = d->row->flag;
    for (uint32_t w0 = m->lo; w0 < m->hi; w0 += 32) {
        if (!interp_whole_warp(X, d, m, w0)) continue;
        uint16_t mat[4][8][8];
        for (int l = 0; l < 32; l++)
            for (int j = 0; j < num; j++) {
                uint32_t v = interp_get32(X, d, (uint32_t)(1 + j), w0 + (uint32_t)l);
                for (int h = 0; h < 2; h++) {
                    int r = frag_row(l), c = frag_col(l, h);
                    uint16_t x = (uint16_t)(v >> (16 * h));
                    if (trans) mat[j][c][r] = x;
                    else mat[j][r][c] = x;
                }
            }
        uint64_t rows[32];
        for (int j = 0; j < num; j++)
            for (int r = 0; r < 8; r++) {
                uint32_t t = w0 + (uint32_t)(j * 8 + r);
                uint64_t p = rows[j * 8 + r] = interp_addr(X, d, 0, t);
                if (interp_scheck(X, d, t, p, 16, 16, 1)) memcpy(X->smem + p, mat[j][r], 16);
            }
        if (X->banks) interp_banks_request(X, d, rows, (uint32_t)(8 * num), 16);
    }
}
