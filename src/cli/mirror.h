/* A buffer the run commands keep twice: on the host (filled, checked) and on the device (the
 * kernel's); attention_cmd.c, attention_decode_cmd.c and hstu_cmd.c make their problems of
 * them.  Each call is false when the allocation or the copy fails. */
#ifndef CUTEC_CLI_MIRROR_H
#define CUTEC_CLI_MIRROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cutec/backend.h"
#include "cutec/jit.h"

typedef struct cli_mirror {
    cute_buffer dev;
    void *host; /* NULL: not allocated (then dev is not either) */
    size_t bytes;
} cli_mirror;

/* bytes on the host and on the device (neither, when one fails) */
bool cli_mirror_alloc(cute_backend *b, cli_mirror *m, size_t bytes);
/* gaussian values of dtype d (gemm_ref_fill_pooled) on the host, uploaded */
bool cli_mirror_gaussian(cute_backend *b, cli_mirror *m, cute_dtype d, uint64_t *seed);
/* an output poisoned: all ones bits (NaN in every float type) on the host and the device */
bool cli_mirror_poison(cute_backend *b, cli_mirror *m);
/* the device's bytes to the host */
bool cli_mirror_download(cute_backend *b, cli_mirror *m);
/* the n mirrors freed (those not allocated skipped) */
void cli_mirrors_free(cute_backend *b, cli_mirror *m, int n);

/* a compact (B,S,H,D) tensor of dtype d on buf: attention's Q, K, V, O and HSTU's */
cute_call_arg cli_bshd_tensor(const cute_buffer *buf, cute_dtype d, int64_t B, int64_t S, int64_t H, int64_t D);

#endif
