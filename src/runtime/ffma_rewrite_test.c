/* The FFMA-run rewrites (ffma_rewrite.c) on a cubin made of instruction words that cuobjdump
 * -sass printed for an sm_90a kernel: which FFMAs change, which bits, and the environment's
 * names. */
#include <stdbool.h>
#include <stdlib.h>

#include "check.h"
#include "cubin_make.h"
#include "runtime/ffma_rewrite.h"
#include "runtime/le_bytes.h"

static const word ffma = {0x0000002431417223, 0x0c0fe20000000041}; /* FFMA R65, R49.reuse, R36.reuse, R65 */
static const word nop = {0x0000000000007918, 0x000fc00000000000};  /* NOP */
/* QGMMA.64x128x32.F32.E4M3.E4M3 R88, gdesc[UR20], RZ, !UPT (nvdisasm's reading) */
static const word qgmma = {0x01e00000145879f3, 0x000fe2000c7008ff};

enum { LONG1 = 0, SHORT = 21 + 1, LONG2 = 21 + 1 + 15 + 1, N = LONG2 + 16 + 1 };

/* a run of 21 FFMAs, a NOP, a run of 15 (one short of FFMA_RUN_MIN), a NOP, a run of 16,
 * a QGMMA (or, without, a NOP) */
static size_t made_with(unsigned char *b, bool wgmma)
{
    word w[N];
    for (int i = 0; i < N; i++) w[i] = ffma;
    w[SHORT - 1] = w[LONG2 - 1] = nop;
    w[N - 1] = wgmma ? qgmma : nop;
    return make_cubin(b, w, N);
}
static size_t made(unsigned char *b) { return made_with(b, true); }

static bool in_long_run(int i) { return (i >= LONG1 && i < SHORT - 1) || (i >= LONG2 && i < N - 1); }

/* each word after rewrite r against want(i) for the long runs, unchanged elsewhere */
static void check_rewrite(ffma_rewrite r, uint64_t want_lo, uint64_t want_hi, const char *what)
{
    static unsigned char b[16 * N + 512];
    size_t len = made(b);
    long changed = ffma_rewrite_cubin(b, len, r);
    CHECK(changed == 21 + 16, "%s: %ld FFMAs changed, want 37", what, changed);
    for (int i = 0; i < N; i++) {
        uint64_t lo = le_get64(b + 64 + 16 * i), hi = le_get64(b + 64 + 16 * i + 8);
        word was = i == N - 1 ? qgmma : i == SHORT - 1 || i == LONG2 - 1 ? nop : ffma;
        uint64_t elo = in_long_run(i) ? want_lo : was.lo, ehi = in_long_run(i) ? want_hi : was.hi;
        CHECK(lo == elo && hi == ehi, "%s, word %d: %#llx %#llx, want %#llx %#llx", what, i, (unsigned long long)lo,
              (unsigned long long)hi, (unsigned long long)elo, (unsigned long long)ehi);
    }
}

static void rewrites(void)
{
    uint64_t no_reuse = ffma.hi & ~(0xfull << 58);
    check_rewrite((ffma_rewrite){FFMA_YIELD, 0}, ffma.lo, no_reuse & ~(1ull << 45), "yield");
    check_rewrite((ffma_rewrite){FFMA_STALL, 3}, ffma.lo, (no_reuse & ~(0xfull << 41)) | 3ull << 41, "stall3");
    check_rewrite((ffma_rewrite){FFMA_NOP, 0}, nop.lo, ffma.hi & 0x1ffffull << 41, "nop");
    unsigned char b[16 * N + 512];
    size_t len = made(b);
    CHECK(ffma_rewrite_cubin(b, len, (ffma_rewrite){FFMA_KEEP, 0}) == 0, "keep: nothing changed");
    len = made_with(b, false);
    CHECK(ffma_rewrite_cubin(b, len, (ffma_rewrite){FFMA_YIELD, 0}) == 0, "no QGMMA in the kernel: nothing changed");
    CHECK(ffma_rewrite_cubin("not an ELF", 10, (ffma_rewrite){FFMA_NOP, 0}) == -1, "not a cubin: -1");
}

static void environment(void)
{
    static const struct { const char *v; ffma_rewrite_kind kind; int stall; } cases[] = {
        {"yield", FFMA_YIELD, 0}, {"nop", FFMA_NOP, 0},   {"stall2", FFMA_STALL, 2}, {"stall15", FFMA_STALL, 15},
        {"stall0", FFMA_KEEP, 0}, {"stall16", FFMA_KEEP, 0}, {"stall", FFMA_KEEP, 0},   {"stall2x", FFMA_KEEP, 0},
        {"", FFMA_KEEP, 0},       {"Yield", FFMA_KEEP, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        setenv("CUTEC_SASS_FFMA", cases[i].v, 1);
        ffma_rewrite r = ffma_rewrite_from_env();
        CHECK(r.kind == cases[i].kind && r.stall == cases[i].stall, "\"%s\": kind %d stall %d", cases[i].v,
              (int)r.kind, r.stall);
    }
    unsetenv("CUTEC_SASS_FFMA");
    CHECK(ffma_rewrite_from_env().kind == FFMA_KEEP, "unset: keep");
}

int main(void)
{
    rewrites();
    environment();
    return CHECK_DONE("ffma_rewrite_test");
}
