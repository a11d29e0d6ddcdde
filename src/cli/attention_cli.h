/* Internal to the attention command: its options (attention_cmd.c parses them) and the
 * decode mode (attention_decode_cmd.c). */
#ifndef CUTEC_CLI_ATTENTION_CLI_H
#define CUTEC_CLI_ATTENTION_CLI_H

#include "cli.h"
#include "cutec/attention.h"
#include "cutec/numeric.h"

typedef struct attn_opts {
    cute_dtype dtype;
    int64_t B, H, G, S, D;
    bool causal, shape_given, bwd, decode;
    int64_t splits;    /* --splits: decode's (0: the library's choice) */
    double scale;
    cute_attention_variant variant; /* --variant: the kernels (forward and backward) */
    int64_t block_n;                /* --block-n: its keys a tile (0: its choice) */
    int64_t block_m;                /* --block-m: the Hopper forward's query rows a tile (0: its choice) */
    int64_t kv_stages;              /* --kv-stages: the SM80 forward's K and V stages (0: one) */
    int64_t persistent;             /* --persistent: 1 the persistent grid, 0 a block a tile, -1 (unset):
                                       the library's choice */
    const char *turns; /* --turns: run's forms timed in turns with the default (run_turns) */
    int64_t rounds;    /* --rounds: their rounds (0: two) */
    cli_kernel_opts k; /* --iters, --emit, --arch, --backend */
    bool arch_given;   /* --arch on the command line (not CUTEC_ARCH): the interpreter's target only */
} attn_opts;

/* `cutec run|bench attention --decode`: a checked run of one shape, or the benchmark table */
int attention_decode_cmd(const attn_opts *o, bool bench);

#endif
