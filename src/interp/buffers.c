/* The backend's state that the layers below the vtable read: its buffer table (which
 * buffer holds an address, for launches and for the bounds check's messages) and its error
 * text.  Below backend.c, launch.c and memory.c, so none of them calls up. */
#include <stdarg.h>
#include <stdlib.h>

#include "interp/interp_internal.h"

void interp_set_error(struct interp *B, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    if (!s) return;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    free(B->err);
    B->err = s;
}

const ibuffer *interp_backend_buffer(const struct interp *B, const void *ptr)
{
    for (int i = 0; i < B->nbufs; i++)
        if (B->bufs[i].ptr == ptr) return &B->bufs[i];
    return NULL;
}

uint64_t interp_backend_buffer_at(const struct interp *B, uint64_t addr)
{
    for (int i = 0; i < B->nbufs; i++) {
        uint64_t base = (uint64_t)(uintptr_t)B->bufs[i].ptr;
        if (addr >= base && addr - base < B->bufs[i].bytes) return B->bufs[i].id;
    }
    return 0;
}
