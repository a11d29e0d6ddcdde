/* A libFuzzer target for the cache's entry reader: the input is written as the file of an
 * entry (a fixed key) in a private directory, then read back through the cache.
 *
 * The first byte picks how: 0 as is; 1 with a well-formed header for the rest as payload
 * (so the reader gets past the header to the checksum); 2 the same with one payload bit
 * flipped after sealing.  Beyond "no crash, no UB, no leak": a hit returns exactly the
 * sealed payload (never bytes whose checksum does not match), a miss removes the file, and
 * list sees at most the one entry.  The input's tail is also classified as a file name. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cutec/cache.h"
#include "runtime/cache_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static char path[200];
static cute_cache_key key;

static void cleanup(void)
{
    unlink(path);
    rmdir(dir);
}

static bool setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/cutec-fuzz-cache-XXXXXX");
    if (!mkdtemp(dir)) return false;
    atexit(cleanup);
    cute_cache_key_compute(&(cute_cache_key_input){.source = "fuzz"}, &key);
    char hex[65];
    cute_cache_key_hex(&key, hex);
    snprintf(path, sizeof path, "%s/%s" CACHE_ENTRY_EXT, dir, hex);
    return true;
}

static void write_raw(const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (n && fwrite(p, 1, n, f) != n) abort();
    fclose(f);
}

static void flip_last_bit(void)
{
    FILE *f = fopen(path, "r+b");
    if (!f) abort();
    fseek(f, -1, SEEK_END);
    int c = fgetc(f);
    fseek(f, -1, SEEK_END);
    fputc(c ^ 1, f);
    fclose(f);
}

static int count(const cute_cache_entry *e, void *user)
{
    (void)e;
    ++*(int *)user;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready && !(ready = setup())) abort();
    if (size < 1 || size - 1 > CACHE_MAX_PAYLOAD) return 0;
    int mode = data[0] % 3;
    const uint8_t *body = data + 1;
    size_t n = size - 1;
    char err[512];
    if (mode == 0)
        write_raw(body, n);
    else if (!cache_entry_write(dir, &key, 1, body, n, err, sizeof err))
        abort();
    if (mode == 2 && n) flip_last_bit();
    cute_cache_opts o = {.dir = dir, .no_memory = true};
    cute_cache *c = cute_cache_open(&o);
    int listed = 0;
    cute_cache_list(c, count, &listed);
    void *got = NULL;
    size_t len = 0;
    bool hit = cute_cache_get(c, &key, &got, &len);
    if (listed > 1) abort();
    if (hit && mode == 2 && n) abort();                             /* a flipped bit was served */
    if (hit && mode == 1 && (len != n || memcmp(got, body, n))) abort(); /* not what was sealed */
    if (!hit && access(path, F_OK) == 0) abort();                   /* a refused file stays */
    free(got);
    cute_cache_close(c);
    unlink(path);
    char name[80];
    snprintf(name, sizeof name, "%.*s", (int)(n < 79 ? n : 79), (const char *)body);
    cache_file_classify(name, &key); /* any name: no crash (the key is rewritten: restore) */
    cute_cache_key_compute(&(cute_cache_key_input){.source = "fuzz"}, &key);
    return 0;
}
