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
    bool kv_bhsd;      /* --kv-layout bhsd: decode's K and V (B,S,G,D) with each head's keys
                          contiguous (SDPA's layout); bshd (false) the rows of every head together */
    double scale;
    cute_attention_variant variant; /* --variant: the kernels (forward and backward) */
    int64_t block_n;                /* --block-n: its keys a tile (0: its choice) */
    int64_t block_m;                /* --block-m: the Hopper forward's query rows a tile (0: its choice) */
    int64_t kv_stages;              /* --kv-stages: the SM80 forward's K and V stages (0: one) */
    int64_t persistent;             /* --persistent: 1 the persistent grid, 0 a block a tile, -1 (unset):
                                       the library's choice */
    const char *turns; /* --turns: run's forms timed in turns with the default (run_turns) */
    int64_t rounds;    /* --rounds: their rounds (0: two) */
    int rows;          /* --rows: bench's rows, 1 non-causal, 2 causal, 3 both (0: both) */
    int64_t rest_ms;   /* --rest: idle ms before each timing (0: none); bench's SDPA timed before
                          and after ours, each of its timings after the same rest */
    cli_kernel_opts k; /* --iters, --emit, --arch, --backend */
    bool arch_given;   /* --arch on the command line (not CUTEC_ARCH): the interpreter's target only */
} attn_opts;

/* --turns: a form, the CUTEC_* settings its library is compiled and called under (text:
 * "NAME=VALUE,..."; none: the default; attention_turns.c) */
enum { TURN_FORMS = 8, TURN_SETTINGS = 8 };
typedef struct turn_form {
    char text[256];
    char *name[TURN_SETTINGS], *value[TURN_SETTINGS], *old[TURN_SETTINGS];
    int n;
    cute_attention_lib *lib;
} turn_form;

/* --turns' text into forms[1..] (forms[0]: the default); false where it is not forms of
 * CUTEC_NAME=VALUE settings */
bool turns_parse(const char *text, turn_form forms[TURN_FORMS], int *nf);

/* what a run's turns call: a form's library made (under its settings), its first call
 * checked against float64 (outputs poisoned before), a timed call (each the ms: < 0 not
 * timed, -2 failed); the figure printed is per_ms / ms, in unit; cu: the GPU whose clock and
 * power a timed call's line reports (NULL: none); rest: what precedes a timed call before its
 * clock and power are sampled (NULL: nothing; false: the turn failed) */
struct cute_cuda;
typedef struct turn_ops {
    struct cute_cuda *cu;
    void *user;
    cute_attention_lib *(*lib_new)(void *user);
    double (*checked)(void *user, cute_attention_lib *lib, int64_t *bad, int64_t *rows);
    double (*timed)(void *user, cute_attention_lib *lib);
    double per_ms;
    const char *unit;
    bool (*rest)(void *user);
} turn_ops;
/* the default and each form of the --turns text in turns, `rounds` rounds (0: two), every
 * second backwards, a line each ("turn R LABEL: attention WHAT, ..."): CLI_OK, CLI_FAIL where
 * a check or a call failed, CLI_USAGE where the text is not forms */
int turns_run(const char *text, int rounds, const char *what, const turn_ops *ops);

/* `cutec run|bench attention --decode`: a checked run of one shape, or the benchmark table
 * (run --turns: the default and each form in turns on one set of inputs) */
int attention_decode_cmd(const attn_opts *o, bool bench);

#endif
