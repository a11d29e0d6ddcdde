/* cutec/interp.h — the interpreter backend: runs kernel IR on the CPU, checking every access.
 *
 * A cute_backend like the CUDA one (cutec/backend.h): buffers are host memory, compile
 * verifies the IR and decodes it, launch runs the grid.  Each block's threads run in
 * lockstep (one instruction for all active threads, then the next) through structured
 * control flow with active masks; blocks may run on a pool of worker threads.
 *
 * What a GPU run cannot tell you, a launch here reports (cute_interp_report): accesses
 * outside the launch's buffers or the kernel's shared memory, reads of shared memory never
 * written, races between threads of a block, barriers reached by part of a block,
 * misaligned accesses, integer division by zero, loops past a step budget.  A failed check
 * stops the launch with CUTE_ERR_CHECK and the reports in words in error().
 *
 * docs/interpreter.md gives the semantics op by op.
 */
#ifndef CUTEC_INTERP_H
#define CUTEC_INTERP_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cutec/backend.h"
#include "cutec/numeric.h" /* the f16/bf16 conversions were declared here */

/* What a check found.  (1u << kind) in cute_interp_opts.disable turns a check off. */
typedef enum {
    CUTE_CHECK_GLOBAL_BOUNDS,     /* global access outside every buffer of the launch */
    CUTE_CHECK_SHARED_BOUNDS,     /* shared access outside the kernel's shared memory */
    CUTE_CHECK_UNINIT_SHARED,     /* read of shared bytes this block never wrote */
    CUTE_CHECK_SHARED_RACE,       /* two threads, same shared bytes, no barrier between */
    CUTE_CHECK_GLOBAL_RACE,       /* the same within one block, in global memory */
    CUTE_CHECK_DIVERGENT_BARRIER, /* a barrier reached by part of the block's live threads */
    CUTE_CHECK_MISALIGNED,        /* address not a multiple of the access's alignment */
    CUTE_CHECK_STEP_BUDGET,       /* a block ran more loop iterations than the budget */
    CUTE_CHECK_DIV_ZERO,          /* integer division or remainder by zero */
    CUTE_CHECK_WARP_INACTIVE,     /* a shuffle read an inactive lane; mma/ldmatrix without
                                     the whole warp */
    CUTE_CHECK_UNSUPPORTED,       /* an operation the interpreter cannot emulate */
    CUTE_CHECK_ASYNC_COPY,        /* shared bytes of a cp.async used before its wait, or a copy
                                     still pending when the kernel ends */
    CUTE_CHECK_TMA,               /* a TMA operand the hardware would refuse or misread: not a
                                     tensor map, a map breaking the driver's rules, a shared
                                     destination or barrier misaligned (docs/tma.md) */
    CUTE_CHECK_DEADLOCK,          /* every warp of a block waits for another (each reported
                                     with its site and what it waits for) */
    CUTE_CHECK_SYNC_MISUSE,       /* an mbarrier, named barrier or cluster instruction used
                                     against its rules (uninitialized, counts out of range) */
    CUTE_CHECK_TMEM,              /* tensor memory (sm_100 tcgen05) used against its rules: read
                                     before written or before the MMA's commit was waited for,
                                     outside the allocation or the warp's lanes, an allocation
                                     never freed or freed twice, more columns than exist */
    CUTE_CHECK_PEER_RACE,         /* emulated devices (cute_call_peers): a load of bytes another
                                     device stored, with no release / acquire of a flag
                                     ordering the store before it */
    CUTE_CHECK_COUNT
} cute_interp_check;

const char *cute_interp_check_name(cute_interp_check k); /* "out-of-bounds global access" */

typedef struct cute_interp_report {
    cute_interp_check kind;
    cute_dim3 block, thread; /* where it happened */
    const char *op;          /* "LOAD", "BARRIER", ... */
    const char *file;        /* the instruction's trace call site (may be NULL) */
    int line;
    uint64_t buffer;         /* the buffer's id (global accesses; 0: none, or shared) */
    int64_t offset;          /* byte offset into that buffer, or into shared memory */
    uint32_t bytes;          /* size of the access */
    uint32_t more;           /* further threads of the block that failed the same way at the
                                same instruction (not reported separately) */
    char msg[320];           /* the whole report in words (one line) */
} cute_interp_report;

typedef struct cute_interp_opts {
    int threads;         /* worker threads running blocks; 0: $CUTEC_INTERP_THREADS, else 1 */
    int64_t step_budget; /* loop iterations one block may run; 0: $CUTEC_INTERP_STEPS, else
                            1e8.  A loop iteration counts once however many threads run it */
    int max_reports;     /* <= 1: the first failed check stops the launch; N > 1: keep going
                            (a bad access is skipped, a load of it gives 0) and collect up to
                            N reports */
    unsigned disable;    /* (1u << cute_interp_check) bits: checks not to make */
    FILE *printf_out;    /* where PRINTF writes; NULL: stdout */
    /* the trace: every instruction one thread executes, with its values, written to
     * trace_out (NULL: none; $CUTEC_INTERP_TRACE="bx,by,bz:tx,ty,tz" traces to stderr) */
    FILE *trace_out;
    cute_dim3 trace_block, trace_thread;
    /* count shared-memory bank conflicts per access site (cute_interp_bank_sites);
     * $CUTEC_BANK_CONFLICTS=1 turns it on and prints each launch's sites to stderr */
    bool bank_conflicts;
    /* mbarrier.try_wait on a phase that has not completed.  Both off (the default): the
     * warp waits until the phase completes, and try_wait answers true.  The GPU may answer
     * false first (after a time limit), so a kernel's not-ready path (a try_wait token, a
     * try_wait loop) must be right too: try_wait_false answers false, and the warp's next
     * try_wait at the same site waits as above (so a deadlock is still reported with the
     * barrier's state); try_wait_seed != 0 answers false or waits by a pseudo-random draw
     * from the seed instead (never false twice running at one site), to explore schedules;
     * each block draws from the seed and its index, so a run repeats exactly whatever the
     * number of workers.  $CUTEC_INTERP_TRY_WAIT: "false", or a seed */
    bool try_wait_false;
    uint64_t try_wait_seed;
} cute_interp_opts;

/* A new interpreter backend (opts may be NULL: defaults and environment).  Free it with
 * out->vt->destroy(out->self). */
cute_status cute_interp_new(const cute_interp_opts *opts, cute_backend *out);
/* Launch kernel `kernel` of m on nranks emulated devices at once (cutec/peer.h's
 * cute_call_peers): rank r's arguments are args[r * nargs .. + nargs), the grid and block
 * the same for every rank.  Every block of every rank runs together under one warp
 * scheduler (at most 1024 warps in all; no clusters), so one rank may wait for another's
 * flag; the reports of every rank come back together, each naming its rank.
 * CUTE_ERR_INVALID when b is not an interpreter. */
cute_status cute_interp_launch_peers(cute_backend b, cute_module *m, int kernel, const cute_launch *cfg,
                                     int nranks, const cute_launch_arg *args, int nargs);
/* the reports of its last launch (NULL, *n = 0 when none or when b is not an interpreter);
 * valid until its next launch */
const cute_interp_report *cute_interp_reports(cute_backend b, int *n);
/* What the last launch did, in counts: the interpreter's cost model, which tests assert
 * (never times, which depend on the machine's load).  An instruction is dispatched once
 * per block and runs for all the block's active threads in one loop. */
typedef struct cute_interp_stats {
    uint64_t blocks;     /* blocks run */
    uint64_t dispatched; /* decoded instructions dispatched, summed over the blocks */
    uint64_t thread_ops; /* operations times the threads active at each (what the CPU does) */
    uint32_t decoded;    /* the kernel's decoded instructions */
} cute_interp_stats;
/* false (and zeros) when b is not an interpreter */
bool cute_interp_last_stats(cute_backend b, cute_interp_stats *out);

/* One shared-memory access site of the last launch: its warp-level requests, the
 * wavefronts they took and the wavefronts they would take with no bank conflict (32 banks
 * of 4 bytes; phases of 128 bytes: 32 lanes of up to 4 bytes, 16 of 8, 8 of 16, an
 * ldmatrix matrix).  wavefronts == ideal: conflict-free. */
typedef struct cute_interp_bank_site {
    const char *kernel, *op; /* "LOAD", "STORE", or an instruction's mnemonic (ldmatrix...) */
    const char *file;        /* the trace call site (may be NULL) */
    int line;
    uint64_t requests, wavefronts, ideal;
} cute_interp_bank_site;
/* the sites of the last launch with bank counting on (NULL, *n = 0 otherwise); valid
 * until the next launch */
const cute_interp_bank_site *cute_interp_bank_sites(cute_backend b, int *n);
/* one line per site: "bank conflicts: KERNEL FILE:LINE OP: R requests, W wavefronts,
 * ideal I (W/I x)", with "CONFLICTS" where W > I */
void cute_interp_bank_print_sites(const cute_interp_bank_site *s, int n, FILE *f);


CUTE_API_END
#endif
