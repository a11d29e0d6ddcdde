/* Rewrites of the FFMA runs of a cubin (ffma_rewrite.c; $CUTEC_SASS_FFMA, opt-in). */
#ifndef CUTEC_FFMA_REWRITE_H
#define CUTEC_FFMA_REWRITE_H

#include <stddef.h>

typedef enum ffma_rewrite {
    FFMA_KEEP,  /* as ptxas wrote them */
    FFMA_REUSE, /* "reuse": no FFMA of a run yields, each keeps its scale (Rb) for the next one */
    FFMA_NOP    /* "nop": every FFMA of a run a NOP -- a timing diagnostic, the results are wrong */
} ffma_rewrite;

/* $CUTEC_SASS_FFMA read (unset or empty: FFMA_REUSE; another word warns once, then FFMA_REUSE) */
ffma_rewrite ffma_rewrite_from_env(void);

/* The rewrite applied to each run of at least FFMA_RUN_MIN consecutive FFMAs in every
 * kernel of an sm_90 cubin that has an fp8 wgmma (QGMMA) (the promotions of the block-scaled
 * GEMM: 51-62 a run at 128 x 128); the FFMAs changed, or -1 with err when the bytes are not a
 * well-formed cubin (then nothing is changed) */
enum { FFMA_RUN_MIN = 16 };
long ffma_rewrite_cubin(void *cubin, size_t len, ffma_rewrite r, char *err, size_t n);

#endif
