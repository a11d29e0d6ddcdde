/* What a test reads off a compiled kernel's IR text: the widest global LOAD, in elements. */
#ifndef CUTEC_TESTS_IR_LOADS_H
#define CUTEC_TESTS_IR_LOADS_H

#include <stdlib.h>
#include <string.h>

#include "cutec/jit.h"

/* the widest LOAD of the kernel's IR ("%5:f32x4 = LOAD ...": the xN of the result type,
 * else 1); 0 when the IR has none or its text cannot be made */
static inline int ir_widest_load(const cute_ir_func *k)
{
    char *text = cute_ir_text(k);
    int widest = 0;
    for (const char *p = text; p && (p = strstr(p, " = LOAD")) != NULL; p++) {
        const char *q = p;
        while (q > text && q[-1] != ':') q--;
        int w = 1;
        for (const char *x = q; x < p; x++)
            if (*x == 'x') w = atoi(x + 1);
        if (w > widest) widest = w;
    }
    free(text);
    return widest;
}

#endif
