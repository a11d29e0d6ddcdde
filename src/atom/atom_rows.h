/* Internal: the atom table's rows (atom_rows.c) and the emitters they name. */
#ifndef CUTEC_ATOM_ROWS_H
#define CUTEC_ATOM_ROWS_H

#include "cutec/atom_table.h"
#include "cutec/smem_atoms.h" /* cute_major */

/* how a row is turned into a cute_mma_atom / cute_copy_atom */
typedef enum {
    ROW_UNIVERSAL_FMA,  /* cute_mma_atom_universal_mixed */
    ROW_UNIVERSAL_COPY, /* cute_copy_atom_universal */
    ROW_MMA_SYNC,       /* mma.sync: warp, registers in and out */
    ROW_LDSM,           /* ldmatrix: warp, shared -> registers */
    ROW_STSM,           /* stmatrix: warp, registers -> shared */
    ROW_CP_ASYNC,       /* cp.async: thread, global -> shared, asynchronous, zero-fill */
    ROW_WGMMA_SS,       /* wgmma: warpgroup, A and B from shared memory (descriptors) */
    ROW_WGMMA_RS,       /* wgmma: warpgroup, A from registers, B from shared memory */
    ROW_UMMA_SS,        /* tcgen05.mma: one thread, A and B from shared memory, D in tensor memory */
    ROW_UMMA_TS,        /* tcgen05.mma: A from tensor memory */
    ROW_TMEM_LOAD,      /* tcgen05.ld: warp, tensor memory -> registers (T2R) */
    ROW_TMEM_STORE,     /* tcgen05.st: warp, registers -> tensor memory (R2T) */
    ROW_UTCCP,          /* tcgen05.cp: thread, shared memory -> tensor memory (S2T) */
} row_kind;

typedef struct atom_row {
    cute_atom_info info;
    uint8_t kind; /* row_kind */
    int mnk[3];   /* MMA; a tensor-memory copy: its shape (cute_tmem_shape, T2R / R2T; cute_tcgen05_cp_shape,
                   * UTCCP), its .xN (UTCCP: the CTA group) and whether it packs (.pack / .unpack::16b) */
    int bits;     /* copy: bits one thread moves per atom; cp.async: its size */
    int matrices; /* ldmatrix / stmatrix: 1, 2 or 4 8x8 matrices */
    bool trans;   /* ldmatrix / stmatrix .trans */
    /* ldmatrix whose registers are then permuted byte by byte (prmt): the instruction's own
     * DstLayout (bits), of which the row's DstLayout is a rearrangement within each thread;
     * NULL for every other row */
    const char *raw_dst;
} atom_row;

extern const atom_row cute_atom_rows[];
extern const int cute_atom_nrows;

/* the row called name (also with a "_t" after a uintN type: "<uint128_t>"), or NULL */
const atom_row *atom_row_find(const char *name);
/* every row (the table's MMA rows, the generated wgmma rows, then the table's copy rows) */
int atom_row_count(void);
const atom_row *atom_row_at(int i);

/* the wgmma rows (atom_wgmma.c), generated once: one per family, N and SS/RS; and the id of
 * a row's instruction ("WGMMA_64x128x16_F32BF16BF16_SS"), NULL for another row */
const atom_row *atom_wgmma_rows(int *n);
const char *atom_wgmma_inst_id(const atom_row *r);
/* the sm_100 rows (atom_sm100.c): tcgen05.mma families, T2R / R2T, UTCCP */
const atom_row *atom_sm100_rows(int *n);

/* the emitters of the rows (atom_emit_*.c) */
void mma_sync_emit(cute_ctx *c, const cute_mma_atom *atom, cute_tensor D, cute_tensor A,
                   cute_tensor B, cute_tensor C);
void ldsm_emit(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst,
               cute_vreg pred);
/* an LDSM_PRMT row's registers (raw_dst's order) put in the row's order with prmt
 * (ldsm_prmt.c); false, the context failed, when the row's layouts do not allow it */
bool ldsm_prmt_apply(cute_ctx *c, const atom_row *r, cute_type t, cute_vreg words[4]);
void stsm_emit(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst,
               cute_vreg pred);
void cp_async_emit(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst,
                   cute_vreg pred);
/* the 64-bit wgmma descriptor (cutec/gmma_desc.h) of shared operand t (rows x K, K of 32
 * bytes) as a u64 value; major gets its major mode; 0 after a diagnostic naming `name` and
 * operand `which` (wgmma_emit.c) */
cute_vreg atom_smem_descriptor(cute_ctx *c, const char *name, cute_tensor t, char which, cute_major *major);
/* whether atom's emitter takes zero_d (wgmma: scale-d 0) */
bool atom_takes_zero_d(const cute_mma_atom *atom);
void wgmma_emit(cute_ctx *c, const cute_mma_atom *atom, cute_tensor D, cute_tensor A,
                cute_tensor B, cute_tensor C);

/* the sm_100 atoms through cute_gemm / cute_copy: a diagnostic naming what issues them
 * (cute_umma_gemm, cutec/tcgen05.h), umma.c */
void umma_refuse_emit(cute_ctx *c, const cute_mma_atom *atom, cute_tensor D, cute_tensor A, cute_tensor B,
                      cute_tensor C);
void tmem_copy_refuse_emit(cute_ctx *c, const cute_copy_atom *atom, cute_tensor src, cute_tensor dst,
                           cute_vreg pred);

#endif
