/* The FFMA bank counter (ffma_banks.c) on a cubin made here from instruction words that
 * cuobjdump -sass printed for an sm_90a kernel (the pipelined SGEMM), with its reading of
 * each as the reference: which registers, which reused, which branch target. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "cubin_make.h"
#include "jit_internal.h"

/* cuobjdump's text of each and whether it conflicts (mod 4, mod 2) */
static const word ffma_words[] = {
    {0x000000242c367223, 0x090fe20000000036}, /* FFMA R54, R44, R36.reuse, R54: mod 2 */
    {0x0000002431417223, 0x0c0fe20000000041}, /* FFMA R65, R49.reuse, R36.reuse, R65: none */
    {0x000000262e587223, 0x080fe20000000011}, /* FFMA R88, R46, R38.reuse, R17: none */
    {0x00000026324d7223, 0x000fe2000000004d}, /* FFMA R77, R50, R38, R77: both */
    {0x0000002a2d057223, 0x080fe20000000005}, /* FFMA R5, R45, R42.reuse, R5: both */
    {0x0000002b2e6a7223, 0x000fe20000000061}, /* FFMA R106, R46, R43, R97: mod 2 */
};
static const word nop = {0x0000000000007918, 0x000fc00000000000}; /* NOP */

static void each_ffma(void)
{
    static const int want4[] = {0, 0, 0, 1, 1, 0}, want2[] = {1, 0, 0, 1, 1, 1};
    unsigned char b[1024];
    char err[256];
    for (int i = 0; i < 6; i++) {
        cute_ffma_bank_report r;
        size_t len = make_cubin(b, &ffma_words[i], 1);
        CHECK(cute__ffma_banks(b, len, &r, err, sizeof err), "%s", err);
        CHECK(r.kernels == 1 && r.kernel.ffma == 1 && r.kernel.conflicts4 == want4[i] &&
                  r.kernel.conflicts2 == want2[i] && r.loop.ffma == 0,
              "word %d: %ld ffma, %ld / %ld conflicts, want %d / %d", i, r.kernel.ffma, r.kernel.conflicts4,
              r.kernel.conflicts2, want4[i], want2[i]);
    }
}

/* a loop: the backward BRA cuobjdump read as "@!P2 BRA 0xcf0" at 0x56e0 (to 1,183
 * instructions before it), with the six FFMAs inside, four before and two after it */
static void loop_bounds(void)
{
    static word w[1200];
    size_t n = 0;
    for (; n < 4; n++) w[n] = ffma_words[3];
    size_t start = n;
    for (int i = 0; i < 6; i++) w[n++] = ffma_words[i];
    while (n < start + 1183) w[n++] = nop;
    w[n++] = (word){0xffffffb40080a947, 0x003fec000383ffff}; /* 0x56e0 -> 0xcf0 */
    w[n++] = ffma_words[4], w[n++] = ffma_words[4];
    static unsigned char b[16 * 1200 + 512];
    char err[256];
    cute_ffma_bank_report r;
    CHECK(cute__ffma_banks(b, make_cubin(b, w, n), &r, err, sizeof err), "%s", err);
    CHECK(r.loop.ffma == 6 && r.loop.conflicts4 == 2 && r.loop.conflicts2 == 4, "loop: %ld ffma, %ld / %ld",
          r.loop.ffma, r.loop.conflicts4, r.loop.conflicts2);
    CHECK(r.kernel.ffma == 12 && r.kernel.conflicts4 == 8, "kernel: %ld ffma, %ld", r.kernel.ffma,
          r.kernel.conflicts4);
}

static void refused(void)
{
    unsigned char b[1024];
    char err[256] = "";
    cute_ffma_bank_report r;
    CHECK(!cute__ffma_banks("not an ELF", 10, &r, err, sizeof err) && strstr(err, "ELF"), "%s", err);
    size_t len = make_cubin(b, ffma_words, 1);
    put(b + 0x3c, 4000, 2); /* more sections than the file holds */
    CHECK(!cute__ffma_banks(b, len, &r, err, sizeof err) && strstr(err, "section"), "%s", err);
}

int main(void)
{
    each_ffma();
    loop_bounds();
    refused();
    return CHECK_DONE("ffma_banks_test");
}
