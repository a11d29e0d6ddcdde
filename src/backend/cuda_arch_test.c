/* cutec/cuda_arch.h: a target's name read by the one rule (valid, portable with a note, not a
 * target with words naming the valid ones), the name of a compute capability read back to
 * its number, and the per-architecture shared memory.  Pure functions: no driver, no GPU. */
#include <stdbool.h>

#include "check.h"
#include "cutec/cuda_arch.h"

/* every kind of name: the card's own ('a', 'f'), plain below sm_90, portable from sm_90 on,
 * and the malformed */
static void names(void)
{
    static const struct {
        const char *name;
        int sm;        /* 0: not a target */
        bool note;     /* a target, with words of why (the portable ones) */
        const char *words; /* in why, where not NULL */
    } t[] = {
        {"sm_70", 70, false, NULL},
        {"sm_80", 80, false, NULL},
        {"sm_86", 86, false, NULL},
        {"sm_90a", 90, false, NULL},
        {"sm_100a", 100, false, NULL},
        {"sm_100f", 100, false, NULL},
        {"sm_110a", 110, false, NULL},
        {"sm_121f", 121, false, NULL},
        {"sm_90", 90, true, "sm_90a names the card"},
        {"sm_103", 103, true, "sm_103a names the card"},
        {"sm_80a", 0, false, "sm_80 names the card"},
        {"sm_89f", 0, false, "sm_89 names the card"},
        {"sm_90af", 0, false, "not a target like"},
        {"sm_090a", 0, false, "not a target like"},
        {"sm_69", 0, false, "sm_70 or newer"},
        {"sm_", 0, false, "not a target like"},
        {"sm_x", 0, false, "not a target like"},
        {"sm_99999999999", 0, false, "not a target like"},
        {"compute_90", 0, false, "not a target like"},
        {"", 0, false, "not a target like"},
        {"gfx90a", 0, false, "\"gfx90a\""},
    };
    char why[640];
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        int sm = cute_cuda_arch_sm(t[i].name, why, sizeof why);
        CHECK(sm == t[i].sm && (why[0] != 0) == (t[i].note || !sm) && (!t[i].words || strstr(why, t[i].words)),
              "%s: %d (want %d), \"%s\"", t[i].name, sm, t[i].sm, why);
    }
    CHECK(!cute_cuda_arch_sm(NULL, why, sizeof why) && strstr(why, "not a target"), "NULL: \"%s\"", why);
    /* why is cut to its size, never overrun; with no room it is not written */
    char small[8] = "xxxxxxx";
    CHECK(!cute_cuda_arch_sm("sm_80a", small, sizeof small) && strlen(small) == sizeof small - 1, "cut: \"%s\"", small);
    char untouched = 'x';
    CHECK(cute_cuda_arch_sm("sm_90", &untouched, 0) == 90 && untouched == 'x', "n = 0 wrote '%c'", untouched);
}

/* cute_cuda_arch_name's names are targets, read back to their capability with no note */
static void round_trip(void)
{
    static const int cc[][2] = {{7, 0}, {7, 5}, {8, 0}, {8, 6}, {8, 9}, {9, 0}, {10, 0}, {10, 3}, {11, 0}, {12, 0}, {12, 1}};
    for (size_t i = 0; i < sizeof cc / sizeof *cc; i++) {
        char name[16], why[640];
        cute_cuda_arch_name(cc[i][0], cc[i][1], name, sizeof name);
        int sm = cute_cuda_arch_sm(name, why, sizeof why);
        CHECK(sm == cc[i][0] * 10 + cc[i][1] && !why[0] && (name[strlen(name) - 1] == 'a') == (cc[i][0] >= 9),
              "%d.%d: %s read as %d, \"%s\"", cc[i][0], cc[i][1], name, sm, why);
    }
}

/* the programming guide's table: a block's opt-in is the SM's less the 1 KB the hardware keeps
 * a block from sm_80 on; unknown architectures have none */
static void shared_memory(void)
{
    CHECK(cute_cuda_arch_smem_per_block(90) == 227 * 1024 && cute_cuda_arch_smem_per_sm(90) == 228 * 1024,
          "sm_90: %d / %d", cute_cuda_arch_smem_per_block(90), cute_cuda_arch_smem_per_sm(90));
    CHECK(cute_cuda_arch_smem_per_block(80) == 163 * 1024 && cute_cuda_arch_smem_per_block(86) == 99 * 1024,
          "sm_80 / sm_86: %d / %d", cute_cuda_arch_smem_per_block(80), cute_cuda_arch_smem_per_block(86));
    static const int known[] = {80, 86, 87, 89, 90, 100, 101, 103, 110, 120, 121};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        CHECK(cute_cuda_arch_smem_per_sm(known[i]) - cute_cuda_arch_smem_per_block(known[i]) == 1024,
              "sm_%d: %d a block, %d an SM", known[i], cute_cuda_arch_smem_per_block(known[i]),
              cute_cuda_arch_smem_per_sm(known[i]));
    static const int unknown[] = {0, 60, 85, 95, 130, -90};
    for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++)
        CHECK(!cute_cuda_arch_smem_per_block(unknown[i]) && !cute_cuda_arch_smem_per_sm(unknown[i]), "sm_%d has a row",
              unknown[i]);
}

int main(void)
{
    names();
    round_trip();
    shared_memory();
    return CHECK_DONE("cuda_arch_test");
}
