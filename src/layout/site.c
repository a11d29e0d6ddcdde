/* Call sites for diagnostics: the site macros enter and leave each call (see int.h). */
#include "cutec/int.h"

cute_site_scope cute__site_enter(cute_alg *a, const char *file, int line)
{
    cute_site_scope s = {a, {NULL, 0}};
    if (!a) return s;
    s.prev = a->site;
    a->site = (cute_site){file, line};
    a->site_depth++;
    return s;
}

void cute__site_leave(cute_site_scope *s)
{
    cute_alg *a = s->a;
    if (!a || a->site_depth <= 0) return;
    /* back to the enclosing call's site, whose remaining work (the call itself, once its
     * arguments are evaluated) is reported there */
    if (--a->site_depth > 0) a->site = s->prev;
}

void cute_alg_site(cute_alg *a, const char *file, int line)
{
    if (a) a->site = (cute_site){file, line};
}
