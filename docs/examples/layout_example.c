/* layout_example.c — the layout algebra from C: parse, compose, divide, print, check errors.
 *
 *   cc -std=c11 -Iinclude docs/examples/layout_example.c build/libcutec.a -lm -o layout_example
 */
#include <stdio.h>

#include "cutec/notation.h"

static void show(const char *what, const cute_layout *L)
{
    char buf[256];
    cute_layout_str(L, buf, sizeof buf);
    printf("%-14s %s\n", what, buf);
}

int main(void)
{
    cute_alg c;
    cute_alg_init(&c, NULL); /* no arithmetic backend: every integer must be static */

    /* A o B: B picks which elements of A, in which order */
    cute_layout A = cute_layout_parse(&c, "(6,2):(8,2)");
    cute_layout B = cute_layout_parse(&c, "(4,3):(3,1)");
    cute_layout R = cute_compose(&c, &A, &B);
    if (c.failed) {
        fprintf(stderr, "error: %s\n", c.error);
        return 1;
    }
    show("A o B", &R);

    /* the defining property, R(i) == A(B(i)) for every i < size(B) */
    int64_t n = cute_size(&c, &B).v, bad = 0;
    for (int64_t i = 0; i < n; i++) {
        cute_int b = cute_layout_eval(&c, &B, cute_i(i));
        bad += cute_layout_eval(&c, &R, cute_i(i)).v != cute_layout_eval(&c, &A, b).v;
    }
    printf("%-14s R(i) == A(B(i)) for %lld of %lld indices\n", "check", (long long)(n - bad),
           (long long)n);

    /* a by-mode tiler: (2,4) tiles of a 6x8 row-major matrix */
    cute_layout M = cute_layout_parse(&c, "(6,8):(8,1)");
    cute_tiler T = cute_tiler_parse(&c, "(2,4)");
    cute_layout Z = cute_zipped_divide(&c, &M, &T);
    show("zipped_divide", &Z);

    /* tile (1,1): slice the rest mode; the offset says where the tile starts */
    cute_tuple crd = cute_tuple_parse(&c, "((_,_),(1,1))"), off;
    cute_layout tile = cute_slice_and_offset(&c, &crd, &Z, &off);
    char obuf[64];
    cute_tuple_str(&off, obuf, sizeof obuf);
    show("tile (1,1)", &tile);
    printf("%-14s %s\n", "offset", obuf);

    /* a broken precondition: the call returns poison and the context holds the message */
    cute_layout C8 = cute_layout_parse(&c, "(8,8):(8,1)");
    cute_layout B43 = cute_layout_parse(&c, "4:3");
    cute_layout E = cute_compose(&c, &C8, &B43);
    if (c.failed) printf("%-14s %s\n", "error", c.error);
    /* once failed, every call returns poison until the error is cleared */
    cute_layout P = cute_coalesce(&c, &A);
    show("after error", &P);
    cute_alg_clear(&c);
    P = cute_coalesce(&c, &A);
    show("after clear", &P);
    return cute_layout_is_poison(&E) ? 0 : 1;
}
