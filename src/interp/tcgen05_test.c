/* The sm_100 tcgen05 rows on the interpreter: a 128 x 64 x 32 bf16 MMA into tensor memory,
 * committed to an mbarrier and read back by four warps (tcgen05_testkit.h), against a
 * float64 reference; each broken variant reported with its warp, site and state, none
 * hanging; the same kernel through the CUDA C backend and NVRTC for sm_100a (compile only:
 * no Blackwell here). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_c.h"
#include "cutec/numeric.h"
#include "interp/gpu_testkit.h"
#include "interp/tcgen05_testkit.h"

static uint16_t A[TC_M][TC_K], B[TC_N][TC_K];


/* variant v on one block of four warps: the status; out (128 x 64 words) poisoned first */
static cute_status run(cute_backend be, tc_variant v, tc_lines *L, uint32_t *out)
{
    static uint32_t img[TC_WORDS];
    tc_operands(img, A, B);
    return tc_run(be, tc_kernel(v, L), 1, 1, img, sizeof img, out, TC_M * TC_N);
}

static void good(cute_backend be)
{
    static uint32_t out[TC_M * TC_N];
    tc_lines L;
    CHECK(run(be, TC_GOOD, &L, out) == CUTE_OK, "the tcgen05 kernel runs: %s", be.vt->error(be.self));
    double worst = tc_worst_error(out, A, B);
    CHECK(worst < 1e-6, "D = A B (128x64x32 bf16, f32 in tensor memory) against float64: worst %.3g of sum |ab|", worst);
}

typedef struct broken {
    tc_variant v;
    cute_interp_check kind;
    const char *words; /* in the message */
    int line;          /* the site it names (0: any) */
} broken;

static void each_broken(cute_backend be)
{
    tc_lines L;
    static uint32_t out[TC_M * TC_N];
    cute_ir_func_free(tc_kernel(TC_GOOD, &L)); /* for its lines */
    const broken cases[] = {
        {TC_NO_WAIT, CUTE_CHECK_TMEM, "reads before waiting for the mbarrier", L.ld},
        {TC_NO_COMMIT, CUTE_CHECK_DEADLOCK, "0 of 1 arrivals", L.wait},
        {TC_NO_DEALLOC, CUTE_CHECK_TMEM, "never freed", L.alloc},
        {TC_FREE_TWICE, CUTE_CHECK_TMEM, "freed already", L.dealloc},
        {TC_WRONG_LANES, CUTE_CHECK_TMEM, "may access tensor-memory lanes", L.ld},
        {TC_TOO_MANY, CUTE_CHECK_TMEM, "64 of the 512 are allocated", L.alloc},
        {TC_HOPPER_DESC, CUTE_CHECK_TMEM, "version 0 in bits 46-47", L.mma},
        {TC_BARRIER_NOT_WAIT, CUTE_CHECK_TMEM, "reads before waiting for the mbarrier", L.ld},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const broken *c = &cases[i];
        cute_status s = run(be, c->v, &L, out);
        const cute_interp_report *r = kt_report(be, 0);
        CHECK(s != CUTE_OK && r && r->kind == c->kind && strstr(r->msg, c->words) && strstr(r->msg, "warp") &&
                  r->line == c->line,
              "variant %d: reported (%s), want kind %d at line %d with \"%s\"", (int)c->v, r ? r->msg : "none",
              (int)c->kind, c->line, c->words);
    }
}

/* the kernel as CUDA C, compiled by NVRTC for sm_100a (ptxas accepts every tcgen05 row it
 * uses); refused for sm_90a */
static void compiles_for_sm100a(void)
{
    tc_lines L;
    kt_compiles_for((cute_ir_func *[]){tc_kernel(TC_GOOD, &L)}, 1, "sm_100a", "tcgen05.ld.sync.aligned.32x32b.x64.b32");
    char err[512], *src = NULL;
    cute_ir_func *f = tc_kernel(TC_GOOD, &L);
    cute_status s = cute_cuda_c_emit((const cute_ir_func *const *)&f, 1, &(cute_cuda_c_opts){.arch = "sm_90a"}, &src,
                                     err, sizeof err);
    CHECK(s != CUTE_OK && strstr(err, "needs sm_100"), "refused for sm_90a: %s", err);
    free(src);
    cute_ir_func_free(f);
}

int main(void)
{
    srand(21);
    cute_interp_opts o = {0};
    cute_backend be = kt_backend(&o);
    good(be);
    each_broken(be);
    be.vt->destroy(be.self);
    compiles_for_sm100a();
    return CHECK_DONE("interp/tcgen05");
}
