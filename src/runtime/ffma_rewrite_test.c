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

/* the words after rewrite r: the long runs' FFMA i as want(i), the rest unchanged */
static void check_rewrite(ffma_rewrite r, word (*want)(int i), const char *what)
{
    static unsigned char b[16 * N + 512];
    size_t len = made(b);
    long changed = ffma_rewrite_cubin(b, len, r, NULL, 0);
    CHECK(changed == 21 + 16, "%s: %ld FFMAs changed, want 37", what, changed);
    for (int i = 0; i < N; i++) {
        uint64_t lo = le_get64(b + 64 + 16 * i), hi = le_get64(b + 64 + 16 * i + 8);
        word was = i == N - 1 ? qgmma : i == SHORT - 1 || i == LONG2 - 1 ? nop : ffma;
        word w = in_long_run(i) ? want(i) : was;
        CHECK(lo == w.lo && hi == w.hi, "%s, word %d: %#llx %#llx, want %#llx %#llx", what, i, (unsigned long long)lo,
              (unsigned long long)hi, (unsigned long long)w.lo, (unsigned long long)w.hi);
    }
}

/* nop: the opcode NOP's, the FFMA's control bits (41-57) kept, its operands gone */
static word as_nop(int i) { return (void)i, (word){nop.lo, ffma.hi & 0x1ffffull << 41}; }

/* reuse: every FFMA of a run reads R36 as Rb, so each keeps it for the next (Rb's flag, bit
 * 59) but the run's last; none yields (bit 45 set); Ra's flag as ptxas wrote it */
static word reused(int i)
{
    bool last = i == SHORT - 2 || i == N - 2;
    uint64_t hi = (ffma.hi | 1ull << 45) & ~(1ull << 59);
    return (word){ffma.lo, last ? hi : hi | 1ull << 59};
}

static void rewrites(void)
{
    check_rewrite(FFMA_NOP, as_nop, "nop");
    check_rewrite(FFMA_REUSE, reused, "reuse");
    unsigned char b[16 * N + 512];
    size_t len = made(b);
    CHECK(ffma_rewrite_cubin(b, len, FFMA_KEEP, NULL, 0) == 0, "keep: nothing changed");
    len = made_with(b, false);
    CHECK(ffma_rewrite_cubin(b, len, FFMA_REUSE, NULL, 0) == 0, "no QGMMA in the kernel: nothing changed");
    char err[160] = "";
    CHECK(ffma_rewrite_cubin("not an ELF", 10, FFMA_NOP, err, sizeof err) == -1 && strstr(err, "not a 64-bit"),
          "not a cubin: -1, said: %s", err);
}

/* reuse between two FFMAs of different Rb: not set (a yielding FFMA of ptxas's made to stay) */
static void reuse_only_same_rb(void)
{
    word w[FFMA_RUN_MIN + 1];
    for (int i = 0; i < FFMA_RUN_MIN; i++) w[i] = i % 2 ? ffma : (word){0x0000002631417223, 0x080fc00000000041};
    w[FFMA_RUN_MIN] = qgmma;
    unsigned char b[16 * (FFMA_RUN_MIN + 1) + 512];
    size_t len = make_cubin(b, w, FFMA_RUN_MIN + 1);
    CHECK(ffma_rewrite_cubin(b, len, FFMA_REUSE, NULL, 0) == FFMA_RUN_MIN, "a run of R38 and R36 alternating");
    for (int i = 0; i < FFMA_RUN_MIN; i++) {
        uint64_t hi = le_get64(b + 64 + 16 * i + 8);
        CHECK(!(hi >> 59 & 1) && (hi >> 45 & 1), "word %d: %#llx (no reuse of another Rb; no yield)", i,
              (unsigned long long)hi);
    }
}

static void environment(void)
{
    /* empty is the default; a word not of the set warns (src/env/env_readers_test.c checks
     * the message) and gives the default too */
    static const struct { const char *v; ffma_rewrite r; } cases[] = {
        {"reuse", FFMA_REUSE}, {"keep", FFMA_KEEP}, {"nop", FFMA_NOP}, {"yield", FFMA_REUSE}, {"", FFMA_REUSE}, {"Reuse", FFMA_REUSE}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        setenv("CUTEC_SASS_FFMA", cases[i].v, 1);
        CHECK(ffma_rewrite_from_env() == cases[i].r, "\"%s\": %d", cases[i].v, (int)ffma_rewrite_from_env());
    }
    unsetenv("CUTEC_SASS_FFMA");
    CHECK(ffma_rewrite_from_env() == FFMA_REUSE, "unset: reuse (the default)");
}

int main(void)
{
    rewrites();
    reuse_only_same_rb();
    environment();
    return CHECK_DONE("ffma_rewrite_test");
}
