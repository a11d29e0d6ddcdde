/* sha256.h — SHA-256 (FIPS 180-4), for the JIT cache's keys and entry checksums.
 * Internal to the runtime: nothing outside src/runtime includes it. */
#ifndef CUTEC_RUNTIME_SHA256_H
#define CUTEC_RUNTIME_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct cute_sha256_ctx {
    uint32_t h[8];
    uint64_t bytes;  /* message length so far */
    uint8_t buf[64]; /* the partial block */
    size_t nbuf;
} cute_sha256_ctx;

void cute_sha256_init(cute_sha256_ctx *s);
void cute_sha256_update(cute_sha256_ctx *s, const void *data, size_t n);
void cute_sha256_final(cute_sha256_ctx *s, uint8_t out[32]);
/* the digest of one buffer */
void cute_sha256(const void *data, size_t n, uint8_t out[32]);

#endif
