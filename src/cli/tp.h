/* Tensor-parallel GEMM on the GPUs of one host (tp_bench.c, tp_plans.c, tp_model.c):
 * `cutec bench tp-gemm` runs the overlapped schedules against GEMM-then-NCCL in the same
 * run; `cutec model tp-gemm` predicts both on more GPUs and hosts (docs/peer.md). */
#ifndef CUTEC_CLI_TP_H
#define CUTEC_CLI_TP_H

#include "cublas.h"
#include "cutec/comm.h"
#include "cutec/cuda_driver.h"
#include "cutec/kernels.h"
#include "cutec/peer.h"

enum { TP_MAX = 8, TP_MAX_CHUNKS = 64 };

typedef enum { TP_ROW, TP_COLUMN } tp_mode;

/* what one GPU holds.  Row parallel (K split): a (M, K/n), b (N, K/n), p the partial C of
 * the chunks other ranks own, cb the baseline's C.  Column parallel (A's rows gathered, B's
 * rows split): b (N/n, K), cb the baseline's C (M, N/n), ab the baseline's gathered A. */
typedef struct tp_rank {
    cute_runtime *rt;
    cute_cuda *cu;
    cute_gemm_lib *gemm;
    cute_gemm_lib *tiled; /* the overlapped schedule's GEMMs in g->tiling (NULL: none set) */
    cute_cublas *blas;
    void *s0, *s1; /* the GEMM stream, the copy stream */
    cute_buffer a, b, p, cb, ab;
    void *ev[3 * TP_MAX_CHUNKS + 8]; /* tp_plans.c's events, recorded on this GPU */
} tp_rank;

typedef struct tp_group {
    tp_mode mode;
    int n;                   /* ranks */
    int64_t m, nn, k;        /* the whole problem: C (m, nn) = A (m, k) B (nn, k)^T */
    cute_dtype in;           /* A's and B's dtype: bf16 or e4m3 (C is bf16) */
    int es;                  /* its bytes */
    int chunks;              /* row parallel: C's row chunks (a multiple of n) */
    int64_t rows[TP_MAX_CHUNKS]; /* row parallel: chunk j's rows of C (tp_chunks.c) */
    bool flags;              /* the overlapped schedule's pieces ordered by flags that the kernels
                                wait for and signal (cutec_gemm_peer), not by events */
    bool fused;              /* row: with flags, the whole all-reduce in the epilogues of two
                                GEMMs a GPU (the halves of C; tp_plans.c) */
    bool swap;               /* cutec's GEMMs as C^T = B A^T (C column-major to the kernel) */
    cute_gemm_variant variant; /* cutec's kernel: hopper on sm_90 (for fp8 too), else AUTO */
    cute_gemm_tiling tiling; /* the overlapped schedule's GEMMs' tiling (zero: the kernels' own
                                defaults, the flag kernels' plan: 128 x 256, 1x1, stores piece
                                by piece), in each rank's `tiled` library */
    bool tiled;              /* the overlapped GEMMs run in it now (else in `gemm`): the bench
                                times the schedule both ways in one process */
    uint32_t epoch;          /* the flags' value of the iteration (they count up) */
    cute_peer_buffers *flagbuf; /* row: a flag per 64 x 64 block of C, a chunk's after the
                                   other's; column: one per shard of A */
    tp_rank r[TP_MAX];
    cute_comm *comm;
    cute_peer_buffers *sym;  /* row: C (m, nn) a rank; column: the gathered A (m, k) a rank */
    char err[1024];
} tp_group;

/* one iteration of a schedule on every GPU, enqueued (tp_plans.c): the overlapped one
 * (ours: cutec's GEMM), or GEMM then NCCL (ours: cutec's GEMM, else cuBLAS) */
cute_status tp_overlapped(tp_group *g);
cute_status tp_sequential(tp_group *g, bool ours);
/* row parallel on 2 GPUs: the chunk rank r multiplies at step k of J (J even), and whether
 * it owns it: the other's chunks p0 p1, then own and other alternately o0 p2 o1 ... o(J/2-1),
 * so that an owned chunk's partial was pushed by the other rank two steps before */
int tp_row_chunk(int r, int k, int J, bool *own);
/* one part alone, to fit the model: every rank's local GEMM (cutec), the NCCL collective,
 * one push (rank 0 -> 1 of tp_push_bytes: a row chunk of C, or a shard of A), or every
 * rank's local GEMM by cuBLAS (what the GEMM alone would take at cuBLAS's rate), or nothing
 * (what an iteration's fork and join cost alone, in every schedule's time) */
typedef enum { TP_PART_GEMM, TP_PART_COLLECTIVE, TP_PART_PUSH, TP_PART_BLAS, TP_PART_NOTHING } tp_part_kind;
cute_status tp_part(tp_group *g, tp_part_kind k);
size_t tp_push_bytes(const tp_group *g);
/* the overlapped GEMMs' tiling (g->tiling): with `library` the library's pick for a rank's
 * whole local GEMM (the fused schedule's without its cluster), `given`'s set fields on top;
 * zero: the kernels' own defaults */
cute_gemm_tiling tp_pieces_tiling(const tp_group *g, bool library, const cute_gemm_tiling *given);
/* The row schedule's chunks (tp_chunks.c): `--chunk-rows` text ("2048x2,1024x2,512x4") into
 * rows (an even count, at most TP_MAX_CHUNKS), false with why; the rows of C a cluster of
 * tiles covers in tiling t (swap: the GEMMs run as C^T = B A^T); whether rows of count chunks
 * are whole such units summing to m; the default, halving toward the end (false where M/16
 * is not whole units); m in count equal chunks; where chunk j starts; rows as text (RxN runs) */
bool tp_chunks_parse(const char *text, int64_t rows[TP_MAX_CHUNKS], int *count, char *why, size_t n);
int64_t tp_tile_rows(const cute_gemm_tiling *t, bool swap);
bool tp_chunks_check(const int64_t *rows, int count, int64_t m, int64_t unit, char *why, size_t n);
bool tp_chunks_halving(int64_t m, int64_t unit, int64_t rows[TP_MAX_CHUNKS], int *count);
void tp_chunks_equal(int64_t m, int count, int64_t rows[TP_MAX_CHUNKS]);
int64_t tp_chunk_start(const int64_t *rows, int j);
void tp_chunks_text(const int64_t *rows, int count, char *buf, size_t n);
/* the bytes of flags a rank needs (g->flagbuf), whatever the chunking */
size_t tp_flag_bytes(const tp_group *g);
/* every GPU's streams wait for GPU 0's s0 (fork), and GPU 0's s0 for everything (join) */
cute_status tp_fork(tp_group *g);
cute_status tp_join(tp_group *g);

/* The scale model (tp_model.c): milliseconds of GEMM-then-collective and of the overlapped
 * schedule for a problem on `gpus` GPUs over `hosts` hosts; row parallel in `chunks` chunks
 * (0: the best power of two up to 64). */
typedef struct tp_machine {
    int gpus, hosts;       /* gpus in all, spread evenly over hosts */
    double tflops;         /* one GPU's GEMM rate at this shape (TFLOP/s) */
    double link_gbs, link_us;  /* NVLink: one GPU's bandwidth to its peers, and a transfer's latency */
    double net_gbs, net_us;    /* the network: one GPU's share (its NIC), and latency */
    double slowdown;       /* GEMM time under overlapped traffic / alone (1: none) */
} tp_machine;
typedef struct tp_prediction {
    double gemm_ms, comm_ms, sequential_ms, overlapped_ms;
    int chunks; /* the pieces the overlapped schedule pipelines (row: C's chunks; column: shards) */
} tp_prediction;
tp_prediction tp_predict(tp_mode mode, int64_t m, int64_t n, int64_t k, int chunks, const tp_machine *mc);
/* the row schedule's overlapped ms in chunks of the given rows (summing to m), unequal ones too:
 * the GEMMs back to back, each chunk reduced once its GEMM has ended and the one before it
 * is reduced; what is left after the last GEMM is the last chunk's collective */
double tp_predict_rows(int64_t m, int64_t n, int64_t k, int chunks, const int64_t *rows, const tp_machine *mc);
/* one row of the model's table (and its header) */
void tp_model_header(void);
void tp_model_print(tp_mode mode, int64_t m, int64_t n, int64_t k, int chunks, const tp_machine *mc);

#endif
