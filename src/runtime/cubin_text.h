/* The kernels' code in a cubin: each ".text.<kernel>" section of the ELF, 16-byte sm_90
 * instructions (jit/ffma_banks.c reads them, runtime/ffma_rewrite.c and ffma_yield.c rewrite
 * some: backend/nvrtc.c's cubin passes). */
#ifndef CUTEC_CUBIN_TEXT_H
#define CUTEC_CUBIN_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* each(text, bytes, user) for every .text.* section of the cubin (writable: a caller that
 * only reads passes a cast const), once the whole section table is checked (a module without
 * kernels has none: no call); false, with err and no call, when the bytes are not a 64-bit
 * little-endian ELF whose section table, names and sections (but those with no bytes in the
 * file) lie inside them, or a .text section is not whole 16-byte instructions */
bool cubin_text_sections(unsigned char *cubin, size_t len, void (*each)(unsigned char *text, size_t bytes, void *user),
                         void *user, char *err, size_t n);

/* instruction i of a section: its low (high = 0) or high 64-bit word */
uint64_t cubin_word(const unsigned char *text, size_t i, int high);

/* whether arch's cubins are of the sm_90 instruction words the passes know (sm_90, sm_90a) */
bool cubin_arch_sm90(const char *arch);

/* an FFMA with four register operands (bits 0-11 of the low word, the opcode) */
static inline bool sass_is_ffma(uint64_t lo) { return (lo & 0xfff) == 0x223; }

/* whether a section's `bytes` of code hold a QGMMA (an fp8 wgmma from shared-memory
 * descriptors, as in QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR20]): the kernels whose FFMA
 * runs are the block-scaled GEMM's promotions, the only ones the FFMA passes rewrite */
bool sass_has_qgmma(const unsigned char *text, size_t bytes);

/* each(text, from, len, user) for every run of at least `min` consecutive FFMAs (instructions
 * from .. from + len - 1) of a section's `bytes` of code */
void sass_ffma_runs(unsigned char *text, size_t bytes, size_t min,
                    void (*each)(unsigned char *text, size_t from, size_t len, void *user), void *user);

#endif
