/* dynamic_example.c — the algebra on dynamic integers, with the symbolic backend.
 *
 * M and N stand for values known only at launch (M a multiple of 8).  Each result is
 * printed twice: in notation (what the algebra knows: `?{div=8}` is a dynamic int known to
 * be a multiple of 8) and with the backend's readable forms.  At the end the symbols are
 * given values and the result is compared with the all-static algebra.
 *
 *   cc -std=c11 -Iinclude docs/examples/dynamic_example.c build/libcutec.a -lm -o dynamic_example
 */
#include <stdio.h>

#include "cutec/notation.h"
#include "cutec/symbolic.h"

static cute_symbolic *S;
static cute_alg C;

static unsigned seen; /* C.undecided already reported */

/* the result in notation, then readable; how many decisions the op could not prove */
static void show(const char *what, const cute_layout *L)
{
    char a[512], b[512];
    if (C.failed) {
        printf("%-22s error: %s\n", what, C.error);
        cute_alg_clear(&C);
        return;
    }
    cute_layout_str(L, a, sizeof a);
    cute_symbolic_layout_str(S, L, b, sizeof b);
    printf("%-22s %s\n%-22s = %s   (%u undecided)\n", what, a, "", b, C.undecided - seen);
    seen = C.undecided;
}

int main(void)
{
    S = cute_symbolic_new();
    if (!S) return 1;
    cute_symbolic_bind(S, &C); /* cute_alg_init with the symbolic backend */
    cute_int M = cute_symbolic_symbol(S, "M", 8, 1); /* a multiple of 8, >= 1 */
    cute_int N = cute_symbolic_symbol(S, "N", 1, 1);
    cute_int K = cute_symbolic_symbol(S, "K", 1, 1);

    /* an M x N column-major matrix */
    cute_layout A = cute_layout_fmt(&C, "(%I,%I):(1,%I)", M, N, M);
    show("A", &A);


    /* proven: M*1 == M, so the modes merge.  Undecided: is N 1?  (then it would be
     * dropped; it is kept, which gives the same function) */
    cute_layout Ac = cute_coalesce(&C, &A);
    show("coalesce(A)", &Ac);

    /* not provable: M*1 == K?  The modes stay apart; the function is the same either way */
    cute_layout G = cute_layout_fmt(&C, "(%I,%I):(1,%I)", M, N, K);
    seen = C.undecided;
    cute_layout Gc = cute_coalesce(&C, &G);
    show("coalesce((M,N):(1,K))", &Gc);

    /* 8 divides M (proven from its divisor): M/8 tiles; 4 into N is ceil_div */
    cute_tiler T = cute_tiler_parse(&C, "(8,4)");
    cute_layout D = cute_zipped_divide(&C, &A, &T);
    show("zipped_divide(A,(8,4))", &D);

    /* right_inverse must sort the strides: 1 vs K cannot be ordered at trace time */
    cute_layout R = cute_layout_fmt(&C, "(4,%I):(%I,1)", N, K);
    show("R", &R);
    cute_layout Ri = cute_right_inverse(&C, &R);
    show("right_inverse(R)", &Ri);

    /* substitute M = 16, N = 12 (K unused) and compare with the all-static algebra */
    int64_t values[3] = {16, 12, 1};
    cute_layout Ds = cute_symbolic_substitute(&C, S, &D, values);
    cute_alg sc;
    cute_alg_init(&sc, NULL);
    cute_layout As = cute_layout_parse(&sc, "(16,12):(1,16)");
    cute_tiler Ts = cute_tiler_parse(&sc, "(8,4)");
    cute_layout Dst = cute_zipped_divide(&sc, &As, &Ts);
    char a[256], b[256];
    cute_layout_str(&Ds, a, sizeof a);
    cute_layout_str(&Dst, b, sizeof b);
    printf("%-22s %s\n%-22s %s (%s)\n", "M=16,N=12 substituted", a, "all static", b,
           cute_layout_equal(&C, &Ds, &Dst) ? "equal" : "DIFFERENT");

    cute_symbolic_free(S);
    return 0;
}
