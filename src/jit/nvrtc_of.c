/* NVRTC's output for a compile that loads nothing (cute_fn_code, cute_fn_export, CUTEC_KEEP
 * without a GPU): the PTX, the cubin and the log of one source for one arch, through the JIT
 * cache like the CUDA backend's compiles, so that `cutec compile` of a kernel compiled
 * before, and every test that reads a kernel's PTX or ptxas report, skips NVRTC.  The entry
 * is keyed as the backend keys its own (source, arch, NVRTC's version, options, cutec's
 * version), its options naming this kind of entry ("compile-only"), so the two never meet.
 * Its payload: "CNVO" and three little-endian 64-bit lengths, then the PTX (with its NUL),
 * the cubin and the log (with its NUL).  A payload that does not parse is removed and
 * compiled again; only successful compiles are kept.  CUTEC_NO_CACHE turns it off. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/cache.h"
#include "jit_internal.h"
#include "runtime/ffma_yield.h"
#include "runtime/le_bytes.h"

enum { HEAD = 4 + 3 * 8 };

/* a copy of n bytes (NULL for none) */
static void *dup_bytes(const unsigned char *p, uint64_t n)
{
    if (!n) return NULL;
    void *d = malloc(n);
    if (d) memcpy(d, p, n);
    return d;
}

/* the payload as an output; false for one that does not parse (or no memory) */
static bool unpack(const unsigned char *b, size_t len, cute_nvrtc_output *out)
{
    if (len < HEAD || memcmp(b, "CNVO", 4)) return false;
    uint64_t np = le_get64(b + 4), nc = le_get64(b + 12), nl = le_get64(b + 20);
    if (np < 1 || nl < 1 || np > len - HEAD || nc > len - HEAD - np || nl != len - HEAD - np - nc) return false;
    const unsigned char *p = b + HEAD, *c = p + np, *l = c + nc;
    if (p[np - 1] || l[nl - 1]) return false; /* both texts end in their NUL */
    out->ptx = dup_bytes(p, np), out->ptx_size = (size_t)np;
    out->cubin = dup_bytes(c, nc), out->cubin_size = (size_t)nc;
    out->log = dup_bytes(l, nl);
    if (out->ptx && out->log && (out->cubin || !nc)) return true;
    cute_nvrtc_output_free(out);
    return false;
}

static unsigned char *pack(const cute_nvrtc_output *o, size_t *len)
{
    const char *log = o->log ? o->log : "";
    size_t np = o->ptx_size, nc = o->cubin_size, nl = strlen(log) + 1;
    unsigned char *b = malloc(HEAD + np + nc + nl);
    if (!b) return NULL;
    memcpy(b, "CNVO", 4);
    le_put64(b + 4, np), le_put64(b + 12, nc), le_put64(b + 20, nl);
    memcpy(b + HEAD, o->ptx, np);
    if (nc) memcpy(b + HEAD + np, o->cubin, nc);
    memcpy(b + HEAD + np + nc, log, nl);
    *len = HEAD + np + nc + nl;
    return b;
}

/* NVRTC's PTX and cubin of src; usage: with ptxas's resource report in out->log (NVRTC's
 * own cache off: a cached cubin comes back without that report, as a GPU machine's NVRTC
 * showed when the same kernel had been compiled before) */
cute_status cute__nvrtc_of(const char *src, const char *arch, bool usage, cute_nvrtc_output *out,
                           char *err, size_t n)
{
    cute_nvrtc *nv;
    memset(out, 0, sizeof *out);
    cute_status s = cute_nvrtc_open(&nv, NULL, err, n);
    if (s != CUTE_OK) return s;
    int major = 0, minor = 0;
    cute_nvrtc_version(nv, &major, &minor);
    char compiler[64], options[1024];
    const char *env = getenv("CUTEC_NVRTC_OPTIONS"); /* what cute_nvrtc_compile adds */
    snprintf(compiler, sizeof compiler, "nvrtc %d.%d", major, minor);
    int at = snprintf(options, sizeof options, "compile-only usage=%d\nenv %s", usage, env ? env : "");
    if (at > 0 && (size_t)at < sizeof options) /* the cubin's rewrites (as it does) */
        ffma_key_text(options + at, sizeof options - (size_t)at);
    cute_cache_key key;
    cute_cache_key_compute(&(cute_cache_key_input){.source = src, .arch = arch, .compiler = compiler,
                                                   .options = options},
                           &key);
    cute_cache_opts co;
    cute_cache_opts_from_env(&co);
    co.no_memory = true; /* each call opens its own handle: the disk is what outlives it */
    cute_cache *cache = cute_cache_open(&co);
    void *hit = NULL;
    size_t len = 0;
    if (cache && cute_cache_enabled(cache) && cute_cache_get(cache, &key, &hit, &len)) {
        bool ok = unpack(hit, len, out);
        free(hit);
        if (ok) {
            cute_cache_close(cache);
            cute_nvrtc_close(nv);
            return CUTE_OK;
        }
        cute_cache_remove(cache, &key);
    }
    static const char *const verbose[] = {"--ptxas-options=-v", "--no-cache"};
    s = cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = arch, .extra = verbose, .nextra = usage ? 2 : 0}, out);
    if (s != CUTE_OK) snprintf(err, n, "NVRTC: %s", out->log ? out->log : "");
    if (s == CUTE_OK && out->ptx && cache && cute_cache_enabled(cache)) {
        unsigned char *b = pack(out, &len);
        if (b) cute_cache_put(cache, &key, b, len); /* a failed put costs the next call a compile */
        free(b);
    }
    cute_cache_close(cache);
    cute_nvrtc_close(nv);
    return s;
}
