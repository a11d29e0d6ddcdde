/* DeepGEMM's yield interleave of a cubin's FFMA runs (ffma_yield.c; $CUTEC_SASS_FFMA_YIELD=1,
 * opt-in, applied after $CUTEC_SASS_FFMA's rewrite, part of the JIT cache's key). */
#ifndef CUTEC_FFMA_YIELD_H
#define CUTEC_FFMA_YIELD_H

#include <stdbool.h>
#include <stddef.h>

/* $CUTEC_SASS_FFMA_YIELD is 1 (0, unset or empty: off; another value warns once, then off) */
bool ffma_yield_from_env(void);

/* The pass on every .text section of an sm_90 cubin with a QGMMA (an fp8 wgmma: the kernels
 * ffma_rewrite_cubin rewrites): in each run of at least
 * FFMA_YIELD_RUN_MIN consecutive FFMAs (R, R, R, R), the first 9/16 of it (the run's
 * instructions x 9 / 8, halved, rounded down) are considered, and an FFMA there whose Rb
 * reuse flag is set has that flag and its yield bit flipped where it is the first FFMA of
 * the run reading that Rb, or where the FFMA before it read the same Rb and kept its reuse
 * flag.  The FFMAs changed, or -1 with err when the bytes are not a well-formed cubin (then
 * nothing is changed). */
enum { FFMA_YIELD_RUN_MIN = 8 };
long ffma_yield_cubin(void *cubin, size_t len, char *err, size_t n);

/* the settings of both FFMA rewrites (ffma_rewrite.h's and this one) as a line each for a
 * cache key's options, into s (n bytes, at least 48); its length */
size_t ffma_key_text(char *s, size_t n);

#endif
