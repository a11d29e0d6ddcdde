/* CUDA targets by name and the per-architecture facts (cutec/cuda_arch.h): pure functions,
 * no driver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/cuda_arch.h"

void cute_cuda_arch_name(int cc_major, int cc_minor, char *buf, size_t n)
{
    /* 9.0 and later get their arch-specific target: wgmma and setmaxnreg exist only in
     * sm_90a, tcgen05 only in sm_100a (ptxas refuses tcgen05.alloc for plain sm_100), the
     * e2m1 conversions in sm_100a and sm_120a.  A cubin for an 'a' target runs on that
     * exact capability alone, which is what a JIT wants (docs/cards.md). */
    snprintf(buf, n, "sm_%d%d%s", cc_major, cc_minor, cc_major >= 9 ? "a" : "");
}

/* The CUDA programming guide's table of shared memory an architecture's SM has and a block may
 * opt in to (KB): 10.x is sm_100 and sm_103 (and sm_101, CUDA 12's name for sm_110), 12.x
 * sm_120 and sm_121.  The difference is the 1 KB a block the hardware keeps (none on sm_7x). */
static const struct {
    int sm, block_kb, sm_kb;
} smem_table[] = {{70, 96, 96},    {72, 96, 96},    {75, 64, 64},    {80, 163, 164},  {86, 99, 100},
                  {87, 163, 164},  {89, 99, 100},   {90, 227, 228},  {100, 227, 228}, {101, 227, 228},
                  {103, 227, 228}, {110, 227, 228}, {120, 99, 100},  {121, 99, 100}};

static int smem_row(int sm)
{
    for (int i = 0; i < (int)(sizeof smem_table / sizeof smem_table[0]); i++)
        if (smem_table[i].sm == sm) return i;
    return -1;
}

int cute_cuda_arch_smem_per_block(int sm)
{
    int i = smem_row(sm);
    return i < 0 ? 0 : smem_table[i].block_kb * 1024;
}

int cute_cuda_arch_smem_per_sm(int sm)
{
    int i = smem_row(sm);
    return i < 0 ? 0 : smem_table[i].sm_kb * 1024;
}

int cute_cuda_arch_sm(const char *name, char *why, size_t n)
{
    char *end = "";
    long sm = name && !strncmp(name, "sm_", 3) && name[3] >= '1' && name[3] <= '9' ? strtol(name + 3, &end, 10) : 0;
    if (n) why[0] = 0;
    if (sm < 70 || sm > 9999 || (*end && (end[1] || (*end != 'a' && *end != 'f'))))
        return snprintf(why, n, "\"%s\" is not a target like sm_80, sm_90a or sm_100a (sm_70 or newer)", name ? name : ""),
               0;
    /* the arch-specific targets ('a': the card's own instructions) from sm_90 on, the family
     * ones ('f') from sm_100 on; NVRTC and ptxas know no others (the words fit a CLI's 160) */
    if (*end == 'a' && sm < 90)
        return snprintf(why, n, "\"%s\" is not a target: sm_%ld names the card ('a' targets: sm_90a, sm_100a, "
                        "sm_103a, sm_110a, sm_120a, sm_121a)", name, sm), 0;
    if (*end == 'f' && sm < 100)
        return snprintf(why, n, "\"%s\" is not a target: sm_%ld%s names the card ('f' targets: sm_100f, sm_103f, "
                        "sm_110f, sm_120f, sm_121f)", name, sm, sm >= 90 ? "a" : ""), 0;
    if (!*end && sm >= 90) /* a name NVRTC takes, but not for the library's kernels there */
        snprintf(why, n, "\"%s\" is the portable target: sm_%lda names the card (ptxas refuses wgmma, tcgen05 and "
                 "e2m1 cvt for the portable ones; docs/cards.md)", name, sm);
    return (int)sm;
}
