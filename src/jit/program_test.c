/* The launch program (program.c): recipes compiled from symbolic forms, run on values.
 *  - on random values of the host unknowns, each compiled recipe gives what the trace-time
 *    symbolic engine's own evaluator gives (the reference), for sums, products, exact
 *    divisions by a symbol's divisor, ceil_div, min, max, % of several unknowns;
 *  - an atom shared by recipes is computed once (the program is shorter than its parts);
 *  - a value that overflows names the recipe and its launch line. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "jit_internal.h"

enum { NSYM = 3, NRECIPES = 6 };

static uint64_t rng = 0x9e3779b97f4a7c15u;
static int64_t next(int64_t lo, int64_t hi)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return lo + (int64_t)(rng % (uint64_t)(hi - lo + 1));
}

/* M (a multiple of 8), N and K: host unknowns in slots 0..2 */
static void recipes(cute_ctx *c, cute_int s[NSYM], cute_int out[NRECIPES])
{
    cute_alg *a = &c->alg;
    cute_int M = s[0], N = s[1], K = s[2];
    cute_int tiles = cute_ceil_div(a, M, cute_i(64));
    out[0] = cute_mul(a, tiles, cute_ceil_div(a, N, cute_i(32)));
    out[1] = cute_div(a, M, cute_i(8));
    out[2] = cute_add(a, cute_mul(a, M, N), cute_mul(a, cute_i(3), K));
    out[3] = cute_min(a, tiles, cute_max(a, K, cute_i(4)));
    out[4] = cute_mod(a, cute_add(a, N, K), cute_i(7));
    out[5] = cute_mul(a, tiles, cute_i(256));
}

static void compare_with_symbolic(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_fn f;
    memset(&f, 0, sizeof f);
    host_sym hs[NSYM];
    cute_int s[NSYM], r[NRECIPES];
    const char *names[NSYM] = {"M", "N", "K"};
    for (int i = 0; i < NSYM; i++) {
        s[i] = cute_symbolic_symbol(c->sym, names[i], i == 0 ? 8 : 1, 1);
        hs[i] = (host_sym){cute_symbolic_symbol_index(c->sym, s[i]), 0, i, SRC_SHAPE, 1, 1};
    }
    f.hsyms = hs, f.nhsyms = NSYM;
    recipes(c, s, r);
    launch_prog p;
    memset(&p, 0, sizeof p);
    int step[NRECIPES], alone = 0;
    for (int i = 0; i < NRECIPES; i++) {
        launch_prog q; /* each recipe on its own, to count what sharing saves */
        memset(&q, 0, sizeof q);
        int unused;
        CHECK(lp_compile_int(&q, c, &f, r[i], &unused), "recipe %d alone: %s", i, cute_ctx_error(c));
        alone += q.nsteps;
        lp_free(&q);
        CHECK(lp_compile_int(&p, c, &f, r[i], &step[i]) && lp_close_root(&p, "a recipe", 10 + i),
              "recipe %d: %s", i, cute_ctx_error(c));
    }
    lp_done_compiling(&p);
    CHECK(p.nsteps < alone, "shared atoms computed once: %d steps, %d apart", p.nsteps, alone);
    int bad = 0;
    for (int trial = 0; trial < 500; trial++) {
        int64_t v[NSYM] = {8 * next(1, 5000), next(1, 100000), next(1, 3000)}, all[64] = {0};
        for (int i = 0; i < NSYM; i++) all[hs[i].sym] = v[i];
        int64_t R[LP_MAX_STEPS];
        const char *why = NULL;
        bad += lp_run(&p, v, R, &why) != -1;
        for (int i = 0; i < NRECIPES; i++) {
            int64_t want;
            cute_symbolic_eval(c->sym, r[i], all, &want);
            bad += R[step[i]] != want;
        }
    }
    CHECK(bad == 0, "%d values differ from the symbolic engine's", bad);
    /* M = N = 2^40: recipe 0 (2^34 tiles * 2^35) overflows; the message names it and its line */
    int64_t huge[NSYM] = {(int64_t)1 << 40, (int64_t)1 << 40, 1}, R[LP_MAX_STEPS];
    const char *why = NULL;
    int failed = lp_run(&p, huge, R, &why);
    char msg[256] = "";
    if (failed >= 0) lp_describe_failure(&p, failed, why, msg, sizeof msg);
    CHECK(failed >= 0 && strstr(msg, "launch at line 10: a recipe") && strstr(msg, "overflows"),
          "overflow: %s", msg);
    lp_free(&p);
    cute_ctx_free(c);
}

int main(void)
{
    compare_with_symbolic();
    return CHECK_DONE("program_test");
}
