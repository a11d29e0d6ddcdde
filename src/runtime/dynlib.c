/* Libraries opened with dlopen and their entry points by name (dynlib.h). */
#include "runtime/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* text appended to buf (of n), cut where it does not fit */
static void add(char *buf, size_t n, const char *text)
{
    size_t at = strlen(buf);
    if (at + 1 < n) snprintf(buf + at, n - at, "%s", text);
}

/* the loader's reason for the attempt that failed: the first, unless it only says the file
 * is not there and a later one says more (a file found but refused: wrong class, a missing
 * dependency) */
static void keep_reason(char *why, size_t n, const char *e)
{
    if (!e) return;
    if (!why[0] || (strstr(why, "No such file") && !strstr(e, "No such file"))) snprintf(why, n, "%s", e);
}

static void *try_one(const char *name, dynlib *out, char *why, size_t whyn)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (h)
        snprintf(out->path, sizeof out->path, "%s", name);
    else
        keep_reason(why, whyn, dlerror());
    return h;
}

/* the candidates: each name in the loader's path, then in each folder; `tried` lists them */
static void *search(const dynlib_spec *s, dynlib *out, char *tried, size_t triedn, char *why, size_t whyn)
{
    for (int i = 0; s->names[i]; i++) {
        add(tried, triedn, i ? ", " : "");
        add(tried, triedn, s->names[i]);
    }
    if (s->dirs && s->dirs[0]) add(tried, triedn, " in the loader's path");
    for (int d = 0; s->dirs && s->dirs[d]; d++) {
        add(tried, triedn, d ? ", " : " and in ");
        add(tried, triedn, s->dirs[d]);
    }
    for (int d = -1; d < 0 || (s->dirs && s->dirs[d]); d++)
        for (int i = 0; s->names[i]; i++) {
            char full[256];
            snprintf(full, sizeof full, "%s%s", d < 0 ? "" : s->dirs[d], s->names[i]);
            void *h = try_one(full, out, why, whyn);
            if (h) return h;
        }
    return NULL;
}

/* each entry point into table at its offset; false (err) where a required one is absent */
static bool resolve(const dynlib_spec *s, void *so, const char *path, void *table, char *err, size_t n)
{
    for (size_t i = 0; i < s->nsyms; i++) {
        const dynlib_sym *y = &s->syms[i];
        void *p = dlsym(so, y->name);
        if (!p && y->alt) p = dlsym(so, y->alt);
        if (!p && !y->optional) {
            snprintf(err, n, "%s has no %s (%s)", path, y->name, s->too_old ? s->too_old : "not the library expected");
            return false;
        }
        /* POSIX guarantees object and function pointers convert through void * */
        memcpy((char *)table + y->at, &p, sizeof p);
    }
    return true;
}

bool dynlib_open(const dynlib_spec *s, const char *file, dynlib *out, void *table, char *err, size_t n)
{
    char tried[512] = "", why[512] = "", scratch[8];
    if (!err || !n) err = scratch, n = sizeof scratch; /* (the caller wants no words) */
    memset(out, 0, sizeof *out);
    const char *env = s->env ? getenv(s->env) : NULL;
    if (!file && env && *env) file = env;
    if (file) {
        snprintf(tried, sizeof tried, "%s%s%s", file == env ? s->env : "", file == env ? "=" : "", file);
        out->so = try_one(file, out, why, sizeof why);
    } else {
        out->so = search(s, out, tried, sizeof tried, why, sizeof why);
    }
    if (!out->so) {
        snprintf(err, n, "%s not found (tried %s): %s%s%s", s->what, tried, why[0] ? why : "no reason given",
                 s->hint ? "; " : "", s->hint ? s->hint : "");
        return false;
    }
    if (!resolve(s, out->so, out->path, table, err, n)) {
        dlclose(out->so); /* (nothing of it has run) */
        out->so = NULL;
        return false;
    }
    if (s->check && !s->check(table, out->path, err, n)) return false; /* (kept: its code ran) */
    err[0] = 0;
    return true;
}

bool dynlib_open_once(dynlib_once *o, const dynlib_spec *s, void *table, char *err, size_t n)
{
    pthread_mutex_lock(&o->mu);
    if (o->state == 0) o->state = dynlib_open(s, NULL, &o->lib, table, o->err, sizeof o->err) ? 1 : -1;
    bool ok = o->state > 0;
    pthread_mutex_unlock(&o->mu);
    if (err && n) snprintf(err, n, "%s", ok ? "" : o->err);
    return ok;
}
