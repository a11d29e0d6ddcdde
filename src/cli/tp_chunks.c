/* The row schedule's chunks of C (tp.h): their rows as `--chunk-rows` writes them
 * ("2048x2,1024x2,512x4": 2048 rows twice, then 1024 twice, then 512 four times), checked
 * against M and the pieces' tile (every chunk whole rows of cluster tiles, so that no chunk's
 * last round on the card is more ragged than the whole GEMM's), the default halving ones,
 * and where each starts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp.h"

bool tp_chunks_parse(const char *text, int64_t rows[TP_MAX_CHUNKS], int *count, char *why, size_t n)
{
    *count = 0;
    const char *p = text;
    while (*p) {
        char *end;
        long long r = strtoll(p, &end, 10), times = 1;
        if (end == p || r < 1 || r > 1 << 24) /* (rows of any C the commands take) */
            return snprintf(why, n, "--chunk-rows %s: \"%s\" is not a number of rows", text, p), false;
        p = end;
        if (*p == 'x') {
            times = strtoll(p + 1, &end, 10);
            if (end == p + 1 || times < 1) return snprintf(why, n, "--chunk-rows %s: a count after 'x'", text), false;
            p = end;
        }
        if (*p && *p != ',') return snprintf(why, n, "--chunk-rows %s: ROWS[xCOUNT],... expected", text), false;
        p += *p == ',';
        for (long long i = 0; i < times; i++) {
            if (*count == TP_MAX_CHUNKS)
                return snprintf(why, n, "--chunk-rows %s: more than %d chunks", text, TP_MAX_CHUNKS), false;
            rows[(*count)++] = r;
        }
    }
    if (*count < 2 || *count % 2) return snprintf(why, n, "--chunk-rows %s: an even number of chunks", text), false;
    return true;
}

int64_t tp_tile_rows(const cute_gemm_tiling *t, bool swap)
{
    /* the Hopper plan's tile and cluster for t (its defaults where t leaves a field 0); C's
     * rows are the kernel's N where it runs C^T = B A^T */
    cute_gemm_config cfg = {.tiling = *t};
    int64_t tile[2];
    int cluster[2];
    cute_gemm_hopper_tile(&cfg, tile, cluster);
    return swap ? tile[1] * cluster[1] : tile[0] * cluster[0];
}

bool tp_chunks_check(const int64_t *rows, int count, int64_t m, int64_t unit, char *why, size_t n)
{
    int64_t sum = 0;
    for (int j = 0; j < count; j++) {
        if (rows[j] % unit)
            return snprintf(why, n, "chunk %d's %lld rows are not whole %lld-row tiles of the pieces' tiling", j,
                            (long long)rows[j], (long long)unit), false;
        sum += rows[j];
    }
    if (sum != m) return snprintf(why, n, "the chunks hold %lld rows, C %lld", (long long)sum, (long long)m), false;
    return true;
}

bool tp_chunks_halving(int64_t m, int64_t unit, int64_t rows[TP_MAX_CHUNKS], int *count)
{
    /* M/4 twice, M/8 twice, M/16 four times: 2048x2,1024x2,512x4 at 8192, where the last
     * copy is 8 MiB and each chunk whole rounds of the library's 2x1 clusters (132 SMs) */
    static const int sixteenths[] = {4, 4, 2, 2, 1, 1, 1, 1};
    if (m % 16 || (m / 16) % unit) return false;
    *count = 8;
    for (int j = 0; j < 8; j++) rows[j] = m / 16 * sixteenths[j];
    return true;
}

void tp_chunks_equal(int64_t m, int count, int64_t rows[TP_MAX_CHUNKS])
{
    for (int j = 0; j < count; j++) rows[j] = m / count;
}

int64_t tp_chunk_start(const int64_t *rows, int j)
{
    int64_t at = 0;
    for (int i = 0; i < j; i++) at += rows[i];
    return at;
}

void tp_chunks_text(const int64_t *rows, int count, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    for (int j = 0; j < count && at < n;) {
        int same = 1;
        while (j + same < count && rows[j + same] == rows[j]) same++;
        at += (size_t)snprintf(buf + at, n - at, "%s%lldx%d", j ? "," : "", (long long)rows[j], same);
        j += same;
    }
}
