/* `cutec bench gemm` without --variants times every kernel the card runs, and no other:
 * on sm_90 no Blackwell row ("unsupported"), on sm_100 no Hopper row; what --variants names
 * is run whatever the card. */
#include <string.h>

#include "check.h"
#include "gemm_cli.h"

static gemm_opts every_variant(void)
{
    gemm_opts o;
    memset(&o, 0, sizeof o);
    for (int v = CUTE_GEMM_AUTO + 1; v < CUTE_GEMM_VARIANT_COUNT; v++) o.variants[o.nvariants++] = (cute_gemm_variant)v;
    return o;
}

static bool has(const gemm_opts *o, cute_gemm_variant v)
{
    for (int i = 0; i < o->nvariants; i++)
        if (o->variants[i] == v) return true;
    return false;
}

static void card(int arch, bool hopper, bool blackwell, const char *skipped_want)
{
    gemm_opts o = every_variant();
    char skipped[256];
    cli_gemm_card_variants(&o, arch, skipped, sizeof skipped);
    CHECK(has(&o, CUTE_GEMM_HOPPER) == hopper && has(&o, CUTE_GEMM_BLACKWELL) == blackwell,
          "sm_%d: hopper %s, blackwell %s in the default list", arch, has(&o, CUTE_GEMM_HOPPER) ? "in" : "out",
          has(&o, CUTE_GEMM_BLACKWELL) ? "in" : "out");
    CHECK(has(&o, CUTE_GEMM_TENSOROP_SMEM) && has(&o, CUTE_GEMM_REGISTERS) && o.nvariants == CUTE_GEMM_VARIANT_COUNT - 1 - (!hopper + !blackwell),
          "sm_%d: %d variants kept", arch, o.nvariants);
    CHECK(!strcmp(skipped, skipped_want), "sm_%d: skipped \"%s\", not \"%s\"", arch, skipped, skipped_want);
}

int main(void)
{
    card(90, true, false, "blackwell");
    card(100, false, true, "hopper");
    card(80, false, false, "hopper, blackwell");
    gemm_opts o = every_variant();
    o.variants_given = true; /* --variants: the user's list stands */
    char skipped[256];
    cli_gemm_card_variants(&o, 90, skipped, sizeof skipped);
    CHECK(has(&o, CUTE_GEMM_BLACKWELL) && !skipped[0], "--variants blackwell on sm_90 was dropped");
    return CHECK_DONE("gemm_variants_test");
}
