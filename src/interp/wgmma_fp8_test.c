/* The fp8 wgmma's arithmetic (wgmma_fp8_sum.c) against the hardware: every result of every
 * case of hw_wgmma_cases.h (an H200's fp8 wgmma m64nNk32, each thread's accumulators in and
 * out) recomputed from the case's A, B and C images, bit for bit; and the mma.sync rule
 * (26 bits), which the interpreter used before, is shown to miss some of them (the cases
 * tell the two apart). */
#include <string.h>

#include "check.h"
#include "cutec/numeric.h"
#include "interp/hw_wgmma_cases.h"
#include "interp/interp_internal.h"

/* byte (r, k) of a K-major operand image: 8x16-byte core matrices, LBO 128, SBO 256 */
static int at(int r, int k) { return (r / 8) * 256 + (k / 16) * 128 + (r % 8) * 16 + k % 16; }

static double fp8(int type, uint8_t v) { return type == E_E4M3 ? cute_e4m3_to_f32(v) : cute_e5m2_to_f32(v); }

/* the types of A and B from the row's name, ..._F32E4M3E5M2_SS */
static void types_of(const char *row, int *ta, int *tb)
{
    const char *p = strstr(row, "_F32") + 4;
    *ta = strncmp(p, "E4M3", 4) ? E_E5M2 : E_E4M3;
    *tb = strncmp(p + 4, "E4M3", 4) ? E_E5M2 : E_E4M3;
}

/* the results of case h the rule gets wrong (fp8_rule) or mma.sync's rule does (else) */
static int misses(const hw_wgmma_case *h, bool fp8_rule, int *total)
{
    int ta, tb, per = h->n / 2, bad = 0;
    types_of(h->row, &ta, &tb);
    for (int t = 0; t < 128; t++)
        for (int i = 0; i < per; i++) {
            int r = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * (t % 4) + i % 2;
            double a[32], b[32], c = interp_mma_elem(E_F32, h->c[t][i]);
            for (int k = 0; k < 32; k++) a[k] = fp8(ta, h->a[at(r, k)]), b[k] = fp8(tb, h->b[at(col, k)]);
            float f = 0;
            uint32_t got = interp_mma_dot_bits(c, a, b, 32, ta, tb, E_F32);
            if (fp8_rule && interp_wgmma_fp8_sum(c, a, b, 32, ta, tb, &f)) memcpy(&got, &f, 4);
            if (got != h->d[t][i] && bad++ < 2 && fp8_rule)
                printf("%s: thread %d register %d (D[%d][%d]): 0x%08x, the H200 0x%08x\n", h->name, t, i, r, col, got,
                       h->d[t][i]);
            (*total)++;
        }
    return bad;
}

int main(void)
{
    int n = sizeof hw_wgmma_cases / sizeof hw_wgmma_cases[0], old_misses = 0, old_total = 0;
    for (int i = 0; i < n; i++) {
        int total = 0, bad = misses(&hw_wgmma_cases[i], true, &total);
        CHECK(bad == 0 && total == 64 * hw_wgmma_cases[i].n, "%s: %d of %d results differ from the H200's", hw_wgmma_cases[i].name,
              bad, total);
        old_misses += misses(&hw_wgmma_cases[i], false, &old_total);
    }
    printf("mma.sync's 26-bit rule would miss %d of %d recorded results\n", old_misses, old_total);
    CHECK(old_misses > 0, "the cases do not tell the fp8 rule from mma.sync's");
    return CHECK_DONE("interp/wgmma_fp8");
}
