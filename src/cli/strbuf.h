/* strbuf.h — a growable string, for results whose length we cannot bound (eval values).
 * Allocation failure ends the program: the CLI has nothing useful to do without memory. */
#ifndef CUTEC_CLI_STRBUF_H
#define CUTEC_CLI_STRBUF_H

#include <stddef.h>

typedef struct strbuf {
    char *p; /* NUL-terminated when cap > 0 */
    size_t len, cap;
} strbuf;

static inline void sb_init(strbuf *b)
{
    *b = (strbuf){0};
}
void sb_free(strbuf *b);
static inline void sb_clear(strbuf *b)
{
    b->len = 0;
    if (b->p) b->p[0] = 0;
}
/* the text so far ("" when empty) */
static inline const char *sb_str(const strbuf *b)
{
    return b->p ? b->p : "";
}
void sb_put(strbuf *b, const char *s);
void sb_putn(strbuf *b, const char *s, size_t n);
void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* make room for n more characters (plus the NUL) */
void sb_reserve(strbuf *b, size_t n);

#endif
