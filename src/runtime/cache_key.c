/* Cache keys: SHA-256 over the framed inputs of a compile (cutec/cache.h says why this is
 * enough), and their hex form, which names the files. */
#include <stdio.h>
#include <string.h>

#include "cache_internal.h"
#include "sha256.h"

/* tag, length, bytes: "ab"+"c" and "a"+"bc" must not hash alike */
static void field(cute_sha256_ctx *s, char tag, const char *p, size_t n)
{
    uint8_t frame[9] = {(uint8_t)tag};
    for (int i = 0; i < 8; i++) frame[1 + i] = (uint8_t)((uint64_t)n >> 8 * i);
    cute_sha256_update(s, frame, sizeof frame);
    cute_sha256_update(s, p, n);
}

static void str_field(cute_sha256_ctx *s, char tag, const char *p)
{
    field(s, tag, p ? p : "", p ? strlen(p) : 0);
}

void cute_cache_key_compute(const cute_cache_key_input *in, cute_cache_key *out)
{
    cute_sha256_ctx s;
    cute_sha256_init(&s);
    cute_sha256_update(&s, "cutec-jit-key/1", 15); /* what this hash is of, and its layout */
    const char *src = in->source ? in->source : "";
    field(&s, 'S', src, in->source_len ? in->source_len : strlen(src));
    str_field(&s, 'A', in->arch);
    str_field(&s, 'C', in->compiler);
    str_field(&s, 'O', in->options);
    str_field(&s, 'V', in->version ? in->version : CUTEC_VERSION);
    cute_sha256_final(&s, out->b);
}

void cute_cache_key_hex(const cute_cache_key *k, char out[2 * CUTE_CACHE_KEY_BYTES + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < CUTE_CACHE_KEY_BYTES; i++) {
        out[2 * i] = digits[k->b[i] >> 4];
        out[2 * i + 1] = digits[k->b[i] & 15];
    }
    out[2 * CUTE_CACHE_KEY_BYTES] = '\0';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void cache_key_from_hex(const char *hex, cute_cache_key *k)
{
    for (int i = 0; i < CUTE_CACHE_KEY_BYTES; i++)
        k->b[i] = (uint8_t)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
}

bool cute_cache_key_parse(const char *hex, cute_cache_key *out)
{
    if (!hex || strlen(hex) != 2 * CUTE_CACHE_KEY_BYTES) return false;
    for (int i = 0; i < 2 * CUTE_CACHE_KEY_BYTES; i++)
        if (hexval(hex[i]) < 0) return false;
    cache_key_from_hex(hex, out);
    return true;
}

unsigned cute_keep_parse(const char *list) { return cache_keep_parse_checked(list, NULL, 0); }

unsigned cache_keep_parse_checked(const char *list, char *unknown, size_t n)
{
    static const struct {
        const char *word;
        unsigned bit;
    } words[] = {{"src", CUTE_KEEP_SRC},
                 {"cu", CUTE_KEEP_SRC},
                 {"ptx", CUTE_KEEP_PTX},
                 {"cubin", CUTE_KEEP_CUBIN},
                 {"sass", CUTE_KEEP_SASS},
                 {"all", CUTE_KEEP_SRC | CUTE_KEEP_PTX | CUTE_KEEP_CUBIN | CUTE_KEEP_SASS}};
    unsigned bits = 0;
    if (n) unknown[0] = 0;
    for (const char *p = list ? list : ""; *p;) {
        size_t len = strcspn(p, ", ");
        bool known = false;
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (strlen(words[i].word) == len && strncmp(p, words[i].word, len) == 0)
                bits |= words[i].bit, known = true;
        if (!known && n && !unknown[0]) snprintf(unknown, n, "%.*s", (int)len, p);
        p += len;
        p += strspn(p, ", ");
    }
    return bits;
}
