/* Internal: the row-reduction kernels (softmax, RMSNorm, LayerNorm, cross-entropy) share one
 * traced kernel, rows_kernel.c; each op is a table row (its tensors) and the math of its
 * reduction stages and its outputs.
 *
 * A kernel works on the rows of (M,N) matrices whose columns are unit-stride (any row
 * stride).  A block holds R rows, `tpr` threads per row; a thread holds K accesses of V
 * elements of each row input (a TiledCopy of tpr threads by V values), so a row tile is
 * T = tpr K V columns.  Rows up to T stay in registers: read once, reduced, written once.
 * Longer rows are walked in chunks of T: each reduction stage reads the row again (the
 * second read mostly from L2), then the write pass. */
#ifndef CUTEC_ROWS_INTERNAL_H
#define CUTEC_ROWS_INTERNAL_H

#include "cutec/copy.h"
#include "cutec/pipeline.h"
#include "cutec/reduce.h"
#include "cutec/row_kernels.h"

#define ROW_SLOTS 8
#define ROW_CLUSTER_MAX 16 /* blocks a row is split over at most */
#define ROW_STAGES 2
#define ROW_IGNORE_BIAS (1ll << 32)

typedef enum {
    ROW_IN,      /* (M,N) input, read */
    ROW_OUT,     /* (M,N) output */
    COL_IN,      /* (N) input: weight, bias */
    ROWVAL_IN,   /* (M) input: a value per row (saved statistics, labels) */
    ROWVAL_OUT,  /* (M) output: f32 statistics, losses */
    COL_PARTIAL, /* (P,N) f32: the block's column sums (dw, db), summed by a second pass */
} row_role;

typedef struct row_slot {
    const char *name;
    uint8_t role;  /* row_role */
    bool optional;
    double fill;   /* ROW_IN: the value of elements past the row's end */
} row_slot;

/* What the op's math sees of one row (one chunk of it in the looped form): f32 values. */
typedef struct row_io {
    const bool *has;         /* the slots given */
    cute_ssa t[ROW_SLOTS];   /* ROW_IN / COL_IN: this thread's (V,K) values; ROW_OUT and
                                COL_PARTIAL: set by finish */
    cute_val v[ROW_SLOTS];   /* ROWVAL_IN: the row's value; ROWVAL_OUT: set by row_values */
    cute_val d[4];           /* per-row values row_values derives for finish (rstd, ...) */
    cute_ssa inside;         /* i1 (V,K): the element lies in the matrix (the V of one
                                access together: V divides the row length) */
    int vec;                 /* V */
    cute_tensor crd;         /* (V,K) coordinates (row, column) of the values */
    cute_tensor tile_crd;    /* ... and in the block's (R,T) tile: static bounds (32-bit) */
    cute_int col0;           /* the tile's first column */
    int64_t tile[2];         /* the tile's shape (R,T) */
    cute_int m, n;           /* the matrix's rows and row length */
    cute_int row;            /* this thread's row */
    cute_tensor whole;       /* slot 0's (M,N) tensor, for a gather at a column of the row's
                                choosing (cross-entropy's logit at the label) */
    cute_val gathered;       /* what partial gathered, for row_values */
    cute_int ignore;         /* an integer parameter (cross-entropy's ignore index plus
                                ROW_IGNORE_BIAS: integer arguments are not negative) */
    cute_val p[2];           /* float parameters (eps; smoothing, gradient scale) */
    int variant;             /* the op's variant (log-softmax, ...) */
    bool resident;           /* the row is whole in the registers: what partial keeps
                                below is there for finish (in chunks it is not) */
    cute_val first[ROW_SLOTS]; /* ROW_IN: the row's first element, for an op with
                                  row_op.shifted (loaded before the row) */
    bool walk_first;         /* partial's call is for the first chunk a block walks of the
                                row (stage_walk), not a later one */
    cute_ssa keep;           /* partial's per-element values finish may reuse */
    cute_val keep_v;         /* ... and a per-thread value */
} row_io;

typedef struct row_op {
    const char *name;
    int nslots;
    row_slot slot[ROW_SLOTS];
    int stages;                                       /* reductions, one after the other */
    cute_reducer (*reducer)(int stage);
    /* this thread's contribution to a stage, from its values and earlier stages' results */
    void (*partial)(cute_ctx *c, row_io *io, int stage, const cute_val stats[][4], cute_val *out);
    /* the per-row outputs (io->v) and what finish needs of the row (io->d), from the
     * stages' results and the per-row inputs: once per row */
    void (*row_values)(cute_ctx *c, row_io *io, const cute_val stats[][4]);
    /* the row and column outputs (io->t) of the values at hand (a chunk of a long row) */
    void (*finish)(cute_ctx *c, row_io *io, const cute_val stats[][4]);
    /* the column inputs (weight, bias) are used by finish only: loaded after the
     * reductions, they take no registers while the row's loads are in flight (the plan
     * sizes the row's tile by the row inputs alone) */
    bool columns_late;
    /* the blocks an SM its plans that hold a row in registers (of 64 threads or more) ask
     * for (0: as ptxas allocates): cross-entropy's backward took 106 registers, two blocks of
     * 256 threads an SM, 32 KB of loads in flight (59.9% of the copy at 16384x4096, softmax
     * 97.7% at 57 registers, four); asked for three it takes 80, no spill */
    int resident_blocks;
    /* the op for plans that hold the row (in a cluster: the block's part of it) in registers
     * or staged in shared memory, where a second look at it costs no pass over HBM (NULL:
     * this one): the same slots, more reductions (in a cluster, more exchanges) of simpler
     * values (LayerNorm: two sums about a shift, not Chan's merge of (count, mean, squares)) */
    const struct row_op *held_form;
    /* the row's first element of each row input is loaded for partial (io->first), before the
     * row itself (LayerNorm's shifted sums) */
    bool shifted;
    /* the op for plans that split the row over a cluster (NULL: this one), where its row
     * values wait for the cluster exchange (cross-entropy: the label's logit gathered at the
     * block's first chunk, not after the exchange; rows_compile.c's row_plan_forms) */
    const struct row_op *cluster_form;
} row_op;

typedef struct row_plan {
    const row_op *op;
    int arch;              /* the target SM (90 for sm_90a; 0: not known, the interpreter) */
    bool has[ROW_SLOTS];
    int variant;
    cute_dtype dtype[ROW_SLOTS];
    int vec, tpr, k, rows; /* V, threads per row, accesses per thread, rows per block */
    bool looped;           /* rows longer than one tile: walked in chunks */
    int stage_chunks;      /* > 0: the row inputs are staged in shared memory, that many
                              tiles of each (rows_stage.c); the chunks are read from there
                              (in a cluster: each block that many tiles of its part) */
    int stage_bufs;        /* staging buffers: 2 or more where a block walks several rows
                              (the next rows' copies in flight while it works on this one) */
    bool stage_cols;       /* the column inputs (weight) of the block's part staged once in
                              shared memory and read from there by every row (a staged tile
                              with column sums, where room is left: no load from L2 on each
                              row's critical path) */
    bool pipelined;        /* a cluster's row exchange overlaps the previous row's write
                              pass (rows_kernel.c's row_pipelined; one stage, three buffers
                              or more) */
    bool in_place;         /* an output overlaps an input: no __restrict__ pointers */
    bool words;            /* bf16 inputs read as 32-bit words (rows_kernel.c's load_f32) */
    bool pairs;            /* a staged row's chunks written two at a time (write_pass; one
                              block's row, not a cluster's part) */
    bool partials_plain;   /* the column partials (dw, db) are 0 wherever the row inputs read
                              their fill (the norms' backward: dy reads 0): summed without a
                              select an element (rows_kernel.c's store_chunk; the lean forms) */
    bool staged_plain;     /* the staged row inputs read without a predicate: the buffers
                              zeroed once (past the row's end no copy writes them), rows past
                              the matrix written by no write pass (lnb's "nopred",
                              row_plan_forms: a 1024-thread part with the lean forms) */
    bool cols_f32;         /* stage_cols of 16-bit columns (the weight) widened once into an
                              f32 copy in shared memory, which every row reads (lnb's
                              "wf32", row_plan_forms: no widening a pass) */
    int64_t index_bound;   /* > 0: every extent and stride of the call is at most this
                              (cute_index_bound: the index arithmetic in 32 bits; lnb's
                              "idx32", rows_call.c's index_bound_of) */
    bool cols_ahead;       /* a cluster's staged part with late column inputs (LayerNorm's
                              weight and bias): each write chunk's column loads issued a chunk
                              ahead, the first chunk's before the row's staged wait
                              (rows_kernel.c's columns_ahead; CUTEC_ROWS_TRIAL=1, opt-in) */
    bool cols_chain;       /* a cluster's staged part with one column input (RMSNorm's
                              weight) written chunk after chunk, unrolled, each chunk's
                              column loads issued a chunk ahead (rows_kernel.c's
                              write_chain; CUTEC_ROWS_TRIAL=wchain1: a row one
                              block stages too) */
    bool stage_split;      /* a cluster's staged part (one row a block) copied chunk by chunk,
                              each on a barrier of its own, the stage walk starting on the first
                              while the rest arrive (late column inputs: LayerNorm's
                              forward; CUTEC_ROWS_SPLIT=0: not) */
    bool tail_global;      /* a split part of 128 threads (hex's: LayerNorm's forward) with
                              its last chunk not staged but read from global memory in both
                              passes, so that the part's shared memory is a chunk smaller and
                              seven blocks an SM fit where six took 228 KB (ln41's "tail7",
                              the default: rows_compile.c's row_plan_forms) */
    int diag_cols;         /* CUTEC_ROWS_DIAG, a diagnostic, wrong by design, of late column
                              inputs (LayerNorm's forward's weight and bias; rows_kernel.c's
                              columns_issue): 0 none; 1 nocols: taken as 1, never loaded; 2
                              nobias: the bias so, the weight loaded; 3 cols0: every chunk's
                              loaded from the row's first chunk's columns (L1's), so that a
                              bench times what their loads from L2 cost */
    bool column_grid;      /* blocks tile the columns too (grid.y), each its chunk: an op
                              without row reductions over rows longer than a tile, or a
                              cluster's blocks */
    bool slots_slim;       /* the cluster exchange's slots sized to the op's stages and values
                              (rows40's "slim", the default: rows_cluster.c), not 4 values of 2
                              stages (CUTEC_ROWS_TRIAL=no-slim) */
    bool sums_pdl;         /* column sums (dw, db) whose second pass (columns.c's rows_colsum)
                              is launched as this kernel's dependent, let in at its start
                              (nb41's "sumpdl", the default: rows_compile.c;
                              CUTEC_ROWS_TRIAL=no-sumpdl off) */
    bool row_pdl;          /* the row kernel with column sums launched as a dependent of the
                              stream's kernel before it (PDL), waiting for that kernel's end
                              before its first global access (nb41's "rowpdl", the
                              default; CUTEC_ROWS_TRIAL=no-rowpdl off) */
    int cluster;           /* > 1: a row is split over a cluster of that many blocks (grid.y,
                              each a tile of it in registers), their partial reductions
                              exchanged through distributed shared memory (rows_cluster.c) */
    cute_tiled_copy tc;    /* tpr threads x V values (set while tracing) */
} row_plan;

/* the tile's columns: tpr K V */
static inline int64_t row_plan_tile(const row_plan *p) { return (int64_t)p->tpr * p->k * p->vec; }
/* the columns a block covers: a tile, or in a cluster whose blocks stage their parts of the
 * row, that many tiles */
static inline int64_t row_plan_block_cols(const row_plan *p)
{
    return row_plan_tile(p) * (p->cluster > 1 && p->stage_chunks ? p->stage_chunks : 1);
}
/* the tiles of a block's part with column sums of their own, written one after the other
 * (unrolled): 1, or a cluster part's stage_chunks where the plan keeps column sums (its
 * 1024-thread part walked as two or four 512-thread tiles: rows_compile.c's cluster_stage) */
#define ROW_SUM_TILES 4
int row_plan_sum_tiles(const row_plan *p);
/* the slots of a role (row_role) the plan's call gives */
int row_plan_slots(const row_plan *p, int role);
/* a block walks several rows (rows_call.c's grid): the plan keeps column sums, or stages the
 * next rows while it works on this one (two buffers or more) */
bool row_plan_persistent(const row_plan *p);
/* Choose V, tpr, K, R for rows of n elements and this op; `vec` the widest access every
 * row tensor allows (elements) */
void row_plan_choose(row_plan *p, int64_t n, int vec);
/* then the forms that depend on the row's length (bf16 words, paired writes, the held form) */
void row_plan_forms(row_plan *p, int64_t n);
/* CUTEC_ROWS_TRIAL=1 (every trial) or a list naming it ("hex,ahead"; "ahead": row_plan_forms):
 * the candidate forms under trial, opt-in until a GPU has timed them (rows_env.c) */
bool rows_trial(const char *name);
/* the row kernels' closed-set settings (rows_env.c: their values, the default first) */
typedef enum {
    ROWS_ENV_WORDS,       /* CUTEC_ROWS_WORDS=0: no bf16 words (1: as planned) */
    ROWS_ENV_PAIRS,       /* CUTEC_ROWS_PAIRS=0: no paired writes */
    ROWS_ENV_HEX,         /* CUTEC_ROWS_HEX=0: no hex parts */
    ROWS_ENV_SPLIT,       /* CUTEC_ROWS_SPLIT=0: no split parts */
    ROWS_ENV_EARLY,       /* CUTEC_ROWS_EARLY=0: no early gather (the op's cluster form) */
    ROWS_ENV_COLS_UNROLL, /* CUTEC_COLS_UNROLL: 8 (as planned) or 4 (columns.c) */
    ROWS_ENV_DIAG,        /* CUTEC_ROWS_DIAG: none, nocols, nobias or cols0 (a diagnostic:
                             row_plan's diag_cols) */
    ROWS_ENV_COUNT
} rows_env_setting;
/* the index of the setting's value, 0 (the default) where unset or refused */
int rows_env(rows_env_setting s);
/* CUTE_OK, or CUTE_ERR_INVALID and "rows: CUTEC_X=value: not one of ..." in err where a
 * setting (or a name of CUTEC_ROWS_TRIAL's) is none of its values: the library's calls ask
 * first */
cute_status rows_env_check(char *err, size_t n);
/* a default form of lnb's for the norms' backward (idx32, wf32: docs/reductions.md) unless
 * CUTEC_ROWS_TRIAL names no-NAME (this one left out, so that one run can time both) */
bool row_lnb_form(const char *name);

/* the blocks an SM a cluster plan's kernel asks room for (0: no request): 1024 threads
 * (64 registers a thread, what the plan's sizing allows for), so that some load while
 * others reduce and wait at the cluster barrier; 768 where column sums are kept in
 * registers too (80 registers: at 64 they spill) */
int row_plan_blocks_per_sm(const row_plan *p);

/* rows_kernel.c's host function (its user pointer: a row_plan) */
cute_host_fn row_host_fn(void);
/* the compiled function of a plan: arguments are the given slots in order, then the
 * iteration count (row blocks per block), the integer and the two float parameters */
const cute_fn *row_compile(cute_runtime *rt, const row_plan *p, char *err, size_t n);

/* A row staged in shared memory: each row input's (1,T) tiles there, stage_chunks of them a
 * buffer, buffer after buffer, zipped as the inputs are; a PipelineTmaAsync over the buffers */
typedef struct row_stage {
    bool on;
    int stages;                    /* buffers */
    int buf_chunks;                /* the tiles a buffer holds: stage_chunks, or 1 (stage_split:
                                      a buffer a chunk, the part's chunks in order) */
    cute_tensor s[ROW_SLOTS];
    cute_pipeline pipe;
    cute_pipeline_state fill, use, done; /* thread 0's next buffer to fill; the next to wait
                                            for; the oldest not released (a pipelined walk
                                            holds two rows' buffers) */
    bool cols_on;                  /* the plan's stage_cols: */
    cute_tensor cols[ROW_SLOTS];   /* each column input's part, (1,T) tiles as s */
    cute_pipeline cols_pipe;       /* ... filled once */
    cute_tensor cols32[ROW_SLOTS]; /* the plan's cols_f32: each widened to f32 (rows_kernel.c's
                                      columns_widen) */
} row_stage;
/* the staging buffers of a plan with stage_chunks (none without); the pipeline created */
row_stage row_stage_alloc(cute_ctx *c, cute_smem_allocator *A, const row_plan *p);
/* copy row block rb's row of each row input (g: the zipped inputs), from tile `first` on
 * (what a buffer holds of what is left of the row), into the next free buffer: thread 0
 * waits until it is free and issues the copies.  Every thread calls it, in row order. */
void row_stage_fill(cute_ctx *c, row_stage *st, const row_plan *p, const cute_tensor *g, cute_int rb, cute_int first,
                    cute_int n);
/* the column inputs' part from tile `first` on (g: the zipped inputs), once: thread 0
 * issues the copies; every thread waits for them before its first read */
void row_stage_columns(cute_ctx *c, row_stage *st, const row_plan *p, const cute_tensor *g, cute_int first, cute_int n);
void row_stage_columns_wait(cute_ctx *c, const row_stage *st);
/* the first tile of the buffer the next wait is for (in every thread) */
cute_int row_stage_buffer(cute_ctx *c, const row_stage *st, const row_plan *p);
/* wait until that buffer holds its row (the next wait is for the next buffer) */
void row_stage_wait(cute_ctx *c, row_stage *st);
/* the first tile of the oldest buffer waited for and not released */
cute_int row_stage_oldest(cute_ctx *c, const row_stage *st, const row_plan *p);
/* after a block barrier that follows the last read of the oldest buffer: free it for a fill */
void row_stage_release(cute_ctx *c, row_stage *st);

/* The cluster exchange of a plan with `cluster`: each stage's partials of every block of
 * the cluster, twice (by the row iteration's parity: a block may write the next row's while
 * a peer still reads this one's) */
typedef struct row_cluster {
    bool on;
    int n;             /* blocks in the cluster */
    int stages;        /* the slot sets a row parity: the op's stages (without the plan's
                          slots_slim: ROW_STAGES) */
    cute_tensor slots; /* f32 (cluster, values, 2 stages): (rank, value, parity and stage);
                          the op's reducers' most values (without slots_slim: 4) */
    cute_tensor bars;  /* u64 (2 stages): the mbarrier of each slot set (st.async's
                          stores complete on it: rows_cluster.c) */
} row_cluster;
row_cluster row_cluster_alloc(cute_ctx *c, cute_smem_allocator *A, const row_plan *p);
/* v: this block's all-reduced values of stage st (every thread the same); made the
 * cluster's, combined in rank order (the same bits in every block).  Every thread of every
 * block of the cluster calls it; `it`: the block's row iteration. */
void row_cluster_allreduce(cute_ctx *c, const row_cluster *cl, const cute_reducer *r, cute_val *v, int st,
                           cute_int it);
/* the same in two halves, so that other work overlaps the exchange's round trip: post
 * writes v into every block's slots; collect waits for the peers' and combines (every
 * thread of every block calls both, post before collect, row after row) */
void row_cluster_post(cute_ctx *c, const row_cluster *cl, const cute_reducer *r, const cute_val *v, int st, cute_int it);
void row_cluster_collect(cute_ctx *c, const row_cluster *cl, const cute_reducer *r, cute_val *v, int st, cute_int it);

/* the ops */
extern const row_op row_softmax_fwd, row_softmax_bwd;
extern const row_op row_rmsnorm_fwd, row_rmsnorm_bwd;
extern const row_op row_layernorm_fwd, row_layernorm_bwd;
/* the norms' backward by fewer instructions an element (the default: layernorm.c) */
extern const row_op row_layernorm_bwd_lean, row_rmsnorm_bwd_lean, row_layernorm_bwd_xfma;
extern const row_op row_cross_entropy;
/* the plain reductions (reduce.c): sum (variant 1: mean), max, min, product */
extern const row_op row_reduce_sum, row_reduce_max, row_reduce_min, row_reduce_prod;
/* the norms' dw (and db) alone, for rows longer than a tile: no row reduction, the grid
 * tiles the columns; the backward's dx pass then runs without them */
extern const row_op row_norm_dweight;

/* shared math: e^x (as 2^(x log2 e)) of every element, and a TensorSSA op with a scalar */
cute_ssa row_exp(cute_ctx *c, cute_ssa x);
cute_ssa row_scalar_op(cute_ctx *c, cute_op op, cute_ssa x, cute_val s);
/* the sum of x's elements where io->inside holds */
cute_val row_sum_inside(cute_ctx *c, const row_io *io, cute_ssa x);
/* the same, a select a vector (V elements) instead of one an element */
cute_val row_sum_inside_vectors(cute_ctx *c, const row_io *io, cute_ssa x);
cute_val row_f32(cute_ctx *c, double v);
/* softmax's exp(x - max) / sum of the values at hand (reusing partial's exponentials,
 * io->keep and io->keep_v from cute_online_softmax_of, in a whole row) */
cute_ssa row_probabilities(cute_ctx *c, const row_io *io, cute_ssa x, cute_val max, cute_val inv_sum);
/* the row length as an f32 value */
cute_val row_n(cute_ctx *c, const row_io *io);
/* elementwise sums of `arity` values (1 to 4) */
cute_reducer row_reducer_sums(int arity);

#endif
