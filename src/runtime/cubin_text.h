/* The kernels' code in a cubin: each ".text.<kernel>" section of the ELF, 16-byte sm_90
 * instructions (jit/ffma_banks.c reads them, runtime/ffma_rewrite.c and ffma_yield.c rewrite
 * some). */
#ifndef CUTEC_CUBIN_TEXT_H
#define CUTEC_CUBIN_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* each(text, bytes, user) for every .text.* section of the cubin (writable: a caller that
 * only reads passes a cast const), once the whole section table is checked; false, with err
 * and no call, when the bytes are not a 64-bit little-endian ELF whose section table, names
 * and sections (but those with no bytes in the file) lie inside them, a .text section is not
 * whole 16-byte instructions, or there is none */
bool cubin_text_sections(unsigned char *cubin, size_t len, void (*each)(unsigned char *text, size_t bytes, void *user),
                         void *user, char *err, size_t n);

/* instruction i of a section: its low (high = 0) or high 64-bit word */
uint64_t cubin_word(const unsigned char *text, size_t i, int high);

/* an FFMA with four register operands (bits 0-11 of the low word, the opcode) */
static inline bool sass_is_ffma(uint64_t lo) { return (lo & 0xfff) == 0x223; }

/* each(text, from, len, user) for every run of at least `min` consecutive FFMAs (instructions
 * from .. from + len - 1) of a section's `bytes` of code */
void sass_ffma_runs(unsigned char *text, size_t bytes, size_t min,
                    void (*each)(unsigned char *text, size_t from, size_t len, void *user), void *user);

#endif
