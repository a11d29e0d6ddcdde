/* DeepGEMM's yield interleave (ffma_yield.c): which FFMAs of a run change and which bits, on
 * words cuobjdump printed for sm_90a kernels and on cubins NVRTC makes here (the block-scaled
 * fp8 GEMM's: some change, nothing but their two bits; a kernel without FFMA runs: none);
 * the cubin parser's refusals, and malformed bytes (every truncation, garbled headers and
 * section tables) refused or read without a byte outside them (run it under ASan). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cubin_make.h"
#include "cutec/kernels.h"
#include "cutec/nvrtc.h"
#include "jit/jit_internal.h"
#include "runtime/cubin_text.h"
#include "runtime/ffma_yield.h"
#include "runtime/le_bytes.h"

static const uint64_t FLIP = 1ull << 59 | 1ull << 45;
/* FFMA R65, R49.reuse, R36.reuse, R65 (Rb R36 kept for the next FFMA, no yield) */
static const word r36 = {0x0000002431417223, 0x0c0fe20000000041};
/* FFMA R65, R49, R38, R65 yielding, and the same keeping R38 */
static const word r38 = {0x0000002631417223, 0x000fc20000000041};
static const word r38k = {0x0000002631417223, 0x080fe20000000041};
static const word nop = {0x0000000000007918, 0x000fc00000000000};
/* QGMMA.64x128x32.F32.E4M3.E4M3 R88, gdesc[UR20], RZ, !UPT: the kernel is one the pass takes */
static const word qgmma = {0x01e00000145879f3, 0x000fe2000c7008ff};

/* run A: 16 FFMAs keeping R36: 9 considered, the 1st, 3rd, ... flipped (each after one that
 * gave its flag up starts a chain again; each after a kept one of its Rb is flipped);
 * run B: 10 FFMAs (5 considered) R38, R38 kept, then R36 kept: the second R38 is no first
 * occurrence and follows a yielding one (kept); R36's first (flipped), second (kept), third
 * (flipped); run C: 7 FFMAs keeping R36, one short of a run; then a QGMMA (or, without, a NOP) */
enum { A = 0, B = 17, C = 28, N = 36 };
static bool flipped(int i) { return (i < 9 && i % 2 == 0) || i == B + 2 || i == B + 4; }

static size_t made_with(unsigned char *b, word *w, bool wgmma)
{
    for (int i = 0; i < N; i++) w[i] = r36;
    w[B - 1] = w[C - 1] = nop;
    w[B] = r38, w[B + 1] = r38k;
    w[N - 1] = wgmma ? qgmma : nop;
    return make_cubin(b, w, N);
}
static size_t made(unsigned char *b, word *w) { return made_with(b, w, true); }

static void rule(void)
{
    static unsigned char b[16 * N + 512];
    word w[N];
    size_t len = made(b, w);
    char err[160] = "";
    long changed = ffma_yield_cubin(b, len, err, sizeof err);
    CHECK(changed == 7, "7 FFMAs changed: %ld (%s)", changed, err);
    for (int i = 0; i < N; i++) {
        uint64_t lo = le_get64(b + 64 + 16 * i), hi = le_get64(b + 64 + 16 * i + 8);
        uint64_t want = flipped(i) ? w[i].hi ^ FLIP : w[i].hi;
        CHECK(lo == w[i].lo && hi == want, "word %d: %#llx %#llx, want %#llx", i, (unsigned long long)lo,
              (unsigned long long)hi, (unsigned long long)want);
    }
    /* the same runs in a kernel without a QGMMA (attention's, the SGEMM's): left alone */
    len = made_with(b, w, false);
    CHECK(ffma_yield_cubin(b, len, err, sizeof err) == 0, "no QGMMA in the kernel: nothing changed (%s)", err);
}

/* refused with err holding what; the bytes as they were */
static void refused_as(unsigned char *b, size_t len, const char *what)
{
    unsigned char *was = malloc(len + 1);
    char err[160] = "";
    memcpy(was, b, len);
    CHECK(ffma_yield_cubin(b, len, err, sizeof err) == -1 && strstr(err, what), "refused (%s): %s", what, err);
    CHECK(!memcmp(was, b, len), "refused (%s): nothing written", what);
    free(was);
}

static void refusals(void)
{
    static unsigned char b[16 * N + 512];
    word w[N];
    size_t len = made(b, w), shoff = len - 3 * 64;
    refused_as((unsigned char *)"not an ELF", 10, "not a 64-bit little-endian ELF");
    put(b + 0x3c, 4000, 2), refused_as(b, len, "section table is outside");
    len = made(b, w), put(b + shoff + 128, 999, 4), refused_as(b, len, "name is outside");
    len = made(b, w), put(b + shoff + 128 + 32, 16 * N + 8, 8), refused_as(b, len, "not whole 16-byte");
    len = made(b, w), put(b + shoff + 128 + 24, len, 8), refused_as(b, len, "outside the file");
    /* a module without kernels (its one .text named .shstrtab): read, nothing to change */
    len = made(b, w), put(b + shoff + 128, 1, 4);
    unsigned char *was = malloc(len);
    char err[160] = "";
    memcpy(was, b, len);
    CHECK(ffma_yield_cubin(b, len, err, sizeof err) == 0 && !memcmp(was, b, len), "no .text section: 0 changed (%s)", err);
    free(was);
}

/* every truncation refused; garbled bytes (each header and section-table byte inverted, and
 * one of a fixed sequence of values) refused or read, never past the buffer (ASan says) */
static void malformed(void)
{
    static unsigned char b[16 * N + 512];
    word w[N];
    size_t len = made(b, w), shoff = len - 3 * 64;
    char err[160];
    int bad = 0;
    for (size_t n = 0; n < len; n++) {
        unsigned char *cut = malloc(n ? n : 1); /* (exactly n bytes: ASan sees a read past them) */
        memcpy(cut, b, n);
        bad += ffma_yield_cubin(cut, n, err, sizeof err) != -1;
        free(cut);
    }
    CHECK(bad == 0, "every truncation refused: %d read", bad);
    uint32_t x = 12345;
    for (size_t i = 0; i < len; i++) {
        if (i >= 64 && i < shoff) continue; /* (instructions and names: any bytes are a cubin) */
        for (int k = 0; k < 2; k++) {
            unsigned char *g = malloc(len);
            memcpy(g, b, len);
            x = x * 1103515245 + 12345;
            g[i] = k ? (unsigned char)(x >> 16) : (unsigned char)~g[i];
            (void)ffma_yield_cubin(g, len, err, sizeof err);
            free(g);
        }
    }
}

/* what changed from was to now: only the two bits of FFMAs' high words in .text sections;
 * the FFMAs changed */
typedef struct diff { const unsigned char *was, *now, *base; long words, stray; } diff;
static void diff_section(unsigned char *text, size_t bytes, void *user)
{
    diff *d = user;
    size_t off = (size_t)(text - d->base);
    for (size_t j = 0; j < bytes / 16; j++) {
        const unsigned char *p = d->was + off + 16 * j, *q = d->now + off + 16 * j;
        if (!memcmp(p, q, 16)) continue;
        bool ok = sass_is_ffma(le_get64(p)) && !memcmp(p, q, 8) && (le_get64(p + 8) ^ le_get64(q + 8)) == FLIP;
        d->words += ok, d->stray += !ok;
    }
}

/* the pass on cubin (as NVRTC made it): its count, and nothing else changed */
static long pass_on(const cute_nvrtc_output *o, const char *what)
{
    unsigned char *now = malloc(o->cubin_size);
    char err[160] = "";
    memcpy(now, o->cubin, o->cubin_size);
    long changed = ffma_yield_cubin(now, o->cubin_size, err, sizeof err);
    diff d = {o->cubin, now, o->cubin, 0, 0};
    CHECK(changed >= 0 && cubin_text_sections(o->cubin, o->cubin_size, diff_section, &d, err, sizeof err), "%s: %s",
          what, err);
    /* two bytes a changed FFMA (bits 45 and 59 of its high word): no other byte differs */
    long bytes = 0;
    for (size_t i = 0; i < o->cubin_size; i++) bytes += now[i] != ((unsigned char *)o->cubin)[i];
    CHECK(d.stray == 0 && d.words == changed, "%s: %ld FFMAs changed as they should, %ld other words, count %ld", what,
          d.words, d.stray, changed);
    CHECK(bytes == 2 * changed, "%s: %ld bytes differ for %ld FFMAs", what, bytes, changed);
    free(now);
    return changed;
}

static const char *no_runs = "extern \"C\" __global__ void k(float *y, const float *x, float a, int n)\n"
                             "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n";

static bool compile(cute_nvrtc *nv, const char *src, cute_nvrtc_output *o)
{
    cute_nvrtc_opts opts = {.arch = "sm_90a"};
    cute_status s = cute_nvrtc_compile(nv, src, &opts, o);
    CHECK(s == CUTE_OK && o->cubin, "NVRTC: %s", o->log ? o->log : "");
    return s == CUTE_OK && o->cubin;
}

/* the block-scaled fp8 GEMM (e4m3 -> bf16, A and B K-major) as the library traces it */
static char *blockscaled_source(void)
{
    cute_runtime *rt = NULL;
    char err[1024] = "", *src = NULL;
    cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_E4M3, .c_dtype = CUTE_BF16,
                            .major = {1, 1, 1}, .align_bytes = 16, .index_bound = CUTE_GEMM_INDEX_BOUND,
                            .scale = CUTE_GEMM_SCALE_BLOCK};
    const cute_fn *f = NULL;
    if (cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK) f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    CHECK(f && cute__fn_cuda_source(f, "sm_90a", &src, err, sizeof err) == CUTE_OK, "the kernel: %s", err);
    cute_fn_free(f);
    if (rt) cute_runtime_free(rt);
    return src;
}

static void nvrtc_cubins(void)
{
    cute_nvrtc *nv;
    char err[512];
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("no NVRTC: the pass on NVRTC's cubins");
        return;
    }
    unsetenv("CUTEC_SASS_FFMA_YIELD");
    cute_nvrtc_output o = {0}, y = {0};
    char *src = blockscaled_source();
    if (src && compile(nv, src, &o))
        CHECK(pass_on(&o, "block-scaled GEMM") > 0, "the block-scaled GEMM: FFMAs changed");
    cute_nvrtc_output_free(&o);
    /* through cute_nvrtc_compile with the setting: NVRTC's cubin as the pass leaves it */
    if (compile(nv, no_runs, &o)) CHECK(pass_on(&o, "no FFMA runs") == 0, "a kernel without FFMA runs: none changed");
    setenv("CUTEC_SASS_FFMA_YIELD", "1", 1);
    if (compile(nv, no_runs, &y))
        CHECK(y.cubin_size == o.cubin_size && !memcmp(y.cubin, o.cubin, o.cubin_size) && strstr(y.log, "0 FFMAs yield"),
              "CUTEC_SASS_FFMA_YIELD=1 on a kernel without runs: the same cubin, said: %s", y.log);
    cute_nvrtc_output_free(&y);
    /* a module without kernels (no .text section): both passes find nothing, the compile works */
    if (compile(nv, "__device__ int f(int x) { return x + 1; }\n", &y))
        CHECK(strstr(y.log, "0 FFMAs yield"), "CUTEC_SASS_FFMA_YIELD=1 on a module without kernels: %s", y.log);
    unsetenv("CUTEC_SASS_FFMA_YIELD");
    cute_nvrtc_output_free(&o), cute_nvrtc_output_free(&y);
    free(src);
    cute_nvrtc_close(nv);
}

static void environment(void)
{
    static const struct { const char *v; bool on; } cases[] = {{"1", true}, {"0", false}, {"", false}, {"yes", false}};
    char key[64];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        setenv("CUTEC_SASS_FFMA_YIELD", cases[i].v, 1);
        CHECK(ffma_yield_from_env() == cases[i].on, "\"%s\"", cases[i].v);
        ffma_key_text(key, sizeof key);
        CHECK((strstr(key, "ffma-yield qgmma") != NULL) == cases[i].on, "\"%s\": the key's options \"%s\"",
              cases[i].v, key);
    }
    unsetenv("CUTEC_SASS_FFMA_YIELD");
    CHECK(cubin_arch_sm90("sm_90a") && cubin_arch_sm90("sm_90") && !cubin_arch_sm90("sm_100a") &&
              !cubin_arch_sm90(NULL),
          "sm_90 and sm_90a only");
}

int main(void)
{
    rule();
    refusals();
    malformed();
    environment();
    nvrtc_cubins();
    return CHECK_DONE("ffma_yield_test");
}
