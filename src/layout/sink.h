/* Internal: appending text to a caller's buffer, snprintf-style (the full length is
 * counted even when the buffer is too small, and the buffer stays NUL-terminated). */
#ifndef CUTEC_SINK_H
#define CUTEC_SINK_H

#include <stddef.h>

typedef struct sink {
    char *buf;
    size_t n, len;
} sink;

static inline void put(sink *s, const char *str)
{
    for (; *str; str++, s->len++)
        if (s->len + 1 < s->n) s->buf[s->len] = *str;
    if (s->n) s->buf[s->len < s->n ? s->len : s->n - 1] = 0;
}

#endif
