/* Little-endian fields of the JIT cache's files and payloads (cache_file.c's entries, the CUDA
 * backend's images, jit/nvrtc_of.c's compile-only outputs): the same bytes on every host. */
#ifndef CUTEC_LE_BYTES_H
#define CUTEC_LE_BYTES_H

#include <stdint.h>

static inline void le_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> 8 * i);
}
static inline void le_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> 8 * i);
}
static inline uint32_t le_get32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << 8 * i;
    return v;
}
static inline uint64_t le_get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << 8 * i;
    return v;
}

#endif
