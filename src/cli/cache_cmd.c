/* cache_cmd.c — `cutec cache list|size|clear|path`: the JIT cache's directory
 * (cutec/cache.h), found the way compiles find it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cutec/cache.h"

static void usage(FILE *f)
{
    fputs("usage: cutec cache <list|size|clear|path>\n"
          "  list   the entries, newest first: key prefix, size, age\n"
          "  size   the bytes and files of cutec's in the directory\n"
          "  clear  delete cutec's files there (entries, CUTEC_KEEP artifacts, debris)\n"
          "  path   the directory: $CUTEC_CACHE_DIR, else $XDG_CACHE_HOME/cutec,\n"
          "         else $HOME/.cache/cutec\n",
          f);
}

static void human(uint64_t bytes, char *buf, size_t n)
{
    static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) v /= 1024, u++;
    if (u == 0)
        snprintf(buf, n, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, n, "%.1f %s", v, units[u]);
}

static void age(int64_t seconds, char *buf, size_t n)
{
    if (seconds < 0) seconds = 0;
    if (seconds < 120)
        snprintf(buf, n, "%llds", (long long)seconds);
    else if (seconds < 7200)
        snprintf(buf, n, "%lldm", (long long)(seconds / 60));
    else if (seconds < 172800)
        snprintf(buf, n, "%lldh", (long long)(seconds / 3600));
    else
        snprintf(buf, n, "%lldd", (long long)(seconds / 86400));
}

typedef struct entries {
    cute_cache_entry *e;
    size_t n, cap;
    bool oom;
} entries;

static int collect(const cute_cache_entry *e, void *user)
{
    entries *es = user;
    if (es->n == es->cap) {
        size_t cap = es->cap ? es->cap * 2 : 64;
        cute_cache_entry *p = realloc(es->e, cap * sizeof *p);
        if (!p) return es->oom = true, 1;
        es->e = p, es->cap = cap;
    }
    es->e[es->n++] = *e;
    return 0;
}

static int newest_first(const void *a, const void *b)
{
    int64_t x = ((const cute_cache_entry *)a)->mtime, y = ((const cute_cache_entry *)b)->mtime;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int list(cute_cache *c)
{
    entries es = {0};
    if (!cute_cache_list(c, collect, &es) || es.oom) {
        fprintf(stderr, "cutec cache: cannot read %s\n", cute_cache_dir(c));
        free(es.e);
        return CLI_FAIL;
    }
    qsort(es.e, es.n, sizeof *es.e, newest_first);
    time_t now = time(NULL);
    uint64_t total = 0;
    if (es.n) printf("%-16s  %10s  %5s\n", "KEY", "SIZE", "AGE");
    for (size_t i = 0; i < es.n; i++) {
        char size[32], ago[32];
        human(es.e[i].bytes, size, sizeof size);
        age((int64_t)now - es.e[i].mtime, ago, sizeof ago);
        printf("%.16s  %10s  %5s%s\n", es.e[i].name, size, ago,
               es.e[i].header_ok ? "" : "  (damaged: rebuilt on next use)");
        total += es.e[i].bytes;
    }
    char t[32];
    human(total, t, sizeof t);
    printf("%zu entr%s, %s in %s\n", es.n, es.n == 1 ? "y" : "ies", t, cute_cache_dir(c));
    free(es.e);
    return CLI_OK;
}

static int run(cute_cache *c, const char *what)
{
    if (strcmp(what, "path") == 0) return puts(cute_cache_dir(c)), CLI_OK;
    if (strcmp(what, "list") == 0) return list(c);
    if (strcmp(what, "size") == 0) {
        uint64_t bytes, files;
        char h[32];
        if (!cute_cache_size(c, &bytes, &files)) {
            fprintf(stderr, "cutec cache: cannot read %s\n", cute_cache_dir(c));
            return CLI_FAIL;
        }
        human(bytes, h, sizeof h);
        printf("%llu bytes (%s) in %llu file%s, %s\n", (unsigned long long)bytes, h,
               (unsigned long long)files, files == 1 ? "" : "s", cute_cache_dir(c));
        return CLI_OK;
    }
    uint64_t removed;
    if (!cute_cache_clear(c, &removed)) {
        fprintf(stderr, "cutec cache: cannot read %s\n", cute_cache_dir(c));
        return CLI_FAIL;
    }
    printf("removed %llu file%s from %s\n", (unsigned long long)removed, removed == 1 ? "" : "s",
           cute_cache_dir(c));
    return CLI_OK;
}

int cmd_cache(int argc, char **argv)
{
    if (argc < 2) return usage(stderr), CLI_USAGE; /* `cutec cache` alone asks nothing */
    const char *what = argv[1];
    if (argc > 2 || (strcmp(what, "list") && strcmp(what, "size") && strcmp(what, "clear") &&
                     strcmp(what, "path"))) {
        bool help = cli_is_help(what);
        usage(help && argc <= 2 ? stdout : stderr);
        return help && argc <= 2 ? CLI_OK : CLI_USAGE;
    }
    if (cli_parse_only()) return CLI_OK;
    /* the directory as compiles see it; CUTEC_NO_CACHE does not hide it from this command */
    cute_cache_opts o;
    cute_cache_opts_from_env(&o);
    o.disabled = false;
    o.no_memory = true;
    cute_cache *c = cute_cache_open(&o);
    if (!c) {
        fprintf(stderr, "cutec cache: out of memory\n");
        return CLI_FAIL;
    }
    int rc;
    if (!cute_cache_dir(c)) {
        fprintf(stderr, "cutec cache: %s\n", cute_cache_message(c));
        rc = CLI_FAIL;
    } else {
        rc = run(c, what);
    }
    cute_cache_close(c);
    return rc;
}
