/* The interpreter's insides: decoded programs, the register file, masks, a worker's state.
 *
 * compile (decode.c) turns a kernel's IR into a flat array of decoded instructions, each
 * with the function that executes it for every active thread of a block (ops_*.c) and its
 * operands resolved to register slots; structured control flow becomes nested index
 * ranges.  A worker (exec.c) runs one block at a time: register slot s of thread t is
 * regs[s * nthr + t], so an instruction is one tight loop over the threads.
 */
#ifndef CUTEC_INTERP_INTERNAL_H
#define CUTEC_INTERP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cutec/interp.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the interpreter assumes a little-endian host, as the GPU is"
#endif

/* One scalar of one thread.  Each dtype lives in its own member: i1 in u8 (0 or 1), f16
 * and bf16 as raw bits in u16, pointers in u64 (a host address for global memory, a byte
 * offset for shared memory). */
typedef union islot {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f32;
    double f64;
} islot;

/* the active threads of a block: on[t] is 0 or 1 for t in [lo, hi) (the block, or one warp
 * under the warp scheduler: nothing outside the range is read or written); n counts the ones */
typedef struct imask {
    uint8_t *on;
    uint32_t n;
    uint32_t lo, hi;
} imask;

typedef struct ictx ictx;
typedef struct dinst dinst;
typedef void (*iop_fn)(ictx *X, const dinst *d, const imask *m);

enum { K_OP, K_FOR, K_IF, K_WHILE, K_BREAK, K_RETURN, K_BARRIER };

/* element types of the instruction table's emulations (inst_*.c); E_E2M3, E_E3M2, E_E2M1:
 * tcgen05 kind::f8f6f4's 6- and 4-bit operands in shared memory, "unpacked" (each 16 of them
 * packed into the low 12 or 8 bytes of a 16-byte chunk: a byte slot an element on average) */
enum { E_F16 = 1, E_BF16, E_TF32, E_F32, E_F64, E_S8, E_U8, E_S32, E_E4M3, E_E5M2, E_E2M3, E_E3M2, E_E2M1 };

/* how the interpreter runs a row of the instruction table (inst.c) */
typedef struct irow {
    iop_fn fn;
    int m, n, k;      /* mma: the shape */
    uint8_t types[4]; /* mma: D, A, B, C (E_*); CVT_PACK: the packed type */
    int num;          /* ldmatrix/stmatrix: matrices; cp.async: bytes; TMA: the rank */
    int flag;         /* mma: fp8 as f16 steps into C (_VIA_F16); ldmatrix/stmatrix: transposed;
                         cp.async: zero fill (a src-size);
                         TMA loads: multicast; stores: reduce-add; tensormap.replace: the
                         field (0 address, 1 extent, 2 stride) */
} irow;

/* A decoded instruction. */
struct dinst {
    iop_fn fn;        /* K_OP: runs it for the active threads */
    uint8_t kind;     /* K_* */
    uint8_t op;       /* cute_op */
    uint8_t dt;       /* result dtype (STORE: the stored one; CMP: the operands') */
    uint8_t lanes;    /* result lanes */
    uint8_t sdt;      /* operand 0's dtype (CVT, BITCAST, EXTRACT, ...) */
    uint8_t slanes;   /* operand 0's lanes */
    uint8_t space;    /* memory ops: cute_space */
    uint8_t depth;    /* control-flow nesting: which mask buffers a FOR/IF/WHILE uses */
    uint16_t flags;
    uint32_t d, a[3]; /* register slots of the result and operands */
    cute_vreg vd, va[3]; /* the IR's register numbers (for the trace) */
    int64_t imm, imm2;
    uint32_t mid, end; /* FOR body [i+1,end); IF then [i+1,mid), else [mid,end);
                          WHILE condition [i+1,mid), body [mid,end) */
    uint32_t nvar;
    uint32_t *var;      /* PRINTF/ASM operands: slots */
    cute_type *vtype;   /* and their types */
    cute_vreg *vvar;
    const char *str;    /* PRINTF format (the module's copy) */
    const char *file;   /* call site (the module's copy) */
    int line;
    int esize;          /* memory ops and PTR_ADD: bytes of one pointee element */
    const irow *row;    /* INST: its emulation (imm2: the row, flags: the outputs) */
};

/* bank counts of one instruction (banks.c) */
typedef struct ibank {
    uint64_t requests, wavefronts, ideal;
} ibank;

typedef struct iconst {
    uint32_t slot, lanes;
    islot v;
} iconst;

/* One compiled kernel. */
typedef struct iprog {
    char *name;
    dinst *code;
    uint32_t ncode, cap;
    uint32_t nslots;
    uint32_t nvregs;
    uint32_t *slot_of;  /* per IR register */
    cute_type *vtype;   /* per IR register */
    char **vname;       /* per IR register (may be NULL) */
    uint32_t nparams;
    cute_vreg *params;
    iconst *consts; /* constants: filled once per launch, not executed */
    uint32_t nconsts, cconsts;
    int maxdepth;   /* deepest control-flow nesting + 1 */
    int64_t smem_bytes;
    bool reaches_buffers; /* every live buffer is the launch's (cute_kernel_reaches_buffers) */
    bool has_printf;
    bool needs_warps; /* a wait on other warps (mbarrier, named barriers, a while loop): the
                         block runs under the warp scheduler (sched.c) */
    void **owned; /* every allocation the program owns (strings, operand lists) */
    uint32_t nowned, cowned;
} iprog;

struct cute_module {
    iprog **k;
    int n;
};

/* a buffer as a launch sees it */
typedef struct ibuf {
    uint64_t base, bytes, id;
    const char *param; /* the (first) parameter pointing into it */
} ibuf;

/* a global access remembered until the next barrier, for the race check */
typedef struct gacc {
    uint64_t off; /* into the buffer */
    uint64_t seq; /* order of execution */
    uint32_t stamp; /* the thread's warp's interval (interp_hb_now): a sync of the warp between
                       two of its threads' accesses orders them */
    uint32_t inst;
    uint16_t tid;
    uint8_t bytes, write;
} gacc;

typedef struct glog {
    gacc *r, *w;
    uint32_t nr, nw, cr, cw;
    bool full; /* too many accesses this epoch: stopped recording */
} glog;

/* the shadow of one byte of shared memory */
typedef struct sshadow {
    uint32_t w_epoch, r_epoch; /* the barrier interval of the last write / reads */
    uint16_t writer, reader;   /* thread of the last write / of the reads (SH_MANY: several) */
    uint32_t w_inst, r_inst;
    uint32_t w_fences;         /* the writer's fence.proxy.async count at the write (proxy.c) */
} sshadow;
#define SH_MANY 0xffffu   /* several threads read it this interval */
#define SH_ATOMIC 0xfffeu /* written by atomics this interval */
/* a thread of another block of the cluster (distributed shared memory): its rank there and
 * its thread id (or that block's HB_PROXY), the stamp being that block's */
#define SH_PEER(rank, tid) ((uint16_t)(0x8000u | (rank) << 11 | (tid)))
#define SH_IS_PEER(who) ((who) >= 0x8000u && (who) < 0xfc01u)
#define SH_PEER_RANK(who) (((who) >> 11) & 0xfu)
#define SH_PEER_TID(who) ((who) & 0x7ffu)

/* a buffer of the backend: host memory between guard gaps */
typedef struct ibuffer {
    uint64_t id;
    void *raw;    /* what was allocated */
    uint8_t *ptr; /* what the user sees */
    size_t bytes;
} ibuffer;
#define INTERP_GUARD 256 /* bytes before and after each buffer, and its alignment */

/* The backend. */
/* One interpreter may be shared by threads: `lock` guards everything below it (the buffer
 * table, the message, the reports); launches run one at a time under it. */
struct interp {
    pthread_mutex_t lock;
    int threads;
    int64_t budget;
    int max_reports;
    unsigned disable;
    FILE *printf_out, *trace_out;
    cute_dim3 trace_block, trace_thread;
    ibuffer *bufs;
    int nbufs, cbufs;
    uint64_t next_id;
    char *err; /* the last error in words */
    cute_interp_report *reps; /* of the last launch */
    int nreps;
    cute_interp_stats stats;  /* of the last launch */
    bool try_wait_false;          /* cute_interp_opts: try_wait may answer false */
    uint64_t try_wait_seed;
    bool banks;                   /* count bank conflicts */
    FILE *banks_out;              /* and print them here after each launch (NULL: don't) */
    cute_interp_bank_site *bank_sites; /* of the last launch */
    int nbank_sites;
    char log[1024];
};

/* A launch: what every worker shares. */
typedef struct ilaunch {
    struct interp *B;
    const iprog *P;
    cute_dim3 grid, block;
    uint32_t nthr;
    uint64_t nblocks;
    uint64_t smem; /* the shared-memory window in bytes */
    cute_dim3 cluster; /* blocks per cluster (1,1,1 without clusters) */
    ibuf *bufs;    /* sorted by base */
    int nbufs;
    islot *params; /* per parameter */
    int64_t budget;
    int max_reports;
    unsigned disable;
    bool try_wait_false; /* try_wait may answer false (cute_interp_opts) */
    uint64_t try_wait_seed;
    uint32_t *tid[3]; /* per thread of a block: threadIdx */
    int workers;
    atomic_uint_least64_t next;    /* the next block to run */
    atomic_uint_least64_t stop_at; /* the lowest block whose check stopped the launch */
    pthread_mutex_t lock;          /* reports, printf output, atomics */
    cute_interp_report *reps;
    ibank *banks; /* per instruction, when counting */
    uint64_t *rep_block;
    int nreps, creps;
    bool oom;
    cute_interp_stats stats; /* summed over the blocks (under lock) */
    /* PRINTF output, written in block order */
    FILE *pout;
    char **out;
    size_t *outn;
    uint64_t flushed;
    FILE *trace;
    uint64_t trace_block;
    uint32_t trace_thread;
    /* tensor maps in global memory changed by tensormap.replace (tmap_fence.c) */
    struct itmap *tmaps;
    int ntmaps, ctmaps;
    /* what the workers did that a spin in another's block may see (progress.c) */
    atomic_uint_least64_t progress; /* bumped at each such event */
    atomic_int stalled;             /* workers whose cluster has nothing to run, as of */
    uint64_t stalled_at;            /* this progress (under lock) */
    atomic_uint_least64_t started;  /* clusters a worker started */
    int active;                     /* workers still taking clusters (under lock) */
    pthread_cond_t moved;           /* progress, or a worker stalled or left (with lock) */
} ilaunch;

/* --- progress.c: progress across a launch's workers ------------------------------------
 * With several workers, a block may spin on global memory that a block of another worker
 * writes.  A worker counts what another's spin may see (memory written, a block retired);
 * a cluster with nothing to run waits for that, and the launch is stuck only when every
 * worker still running waits too.  With one worker each does nothing (now: 0, await: false). */
void interp_progress_init(ilaunch *L);
void interp_progress_free(ilaunch *L);
uint64_t interp_progress_now(const ilaunch *L);
/* something another worker's spin may see happened */
void interp_progress_bump(ilaunch *L);
/* (a cluster with nothing to run) wait until progress moves past `seen`: true; false when
 * every worker still running waits too, so that nothing can move any more */
bool interp_progress_await(ilaunch *L, uint64_t seen);
/* a worker takes no more clusters */
void interp_progress_leave(ilaunch *L);
/* blocks of the launch no worker has started yet */
uint64_t interp_progress_unstarted(const ilaunch *L);

/* a cp.async copy in flight (inst_async.c) */
typedef struct icopy {
    uint64_t dst;        /* shared offset */
    uint32_t tid, group; /* the issuing thread; the group it belongs to (its commit count then) */
    uint32_t bytes;
    const dinst *site;
    uint8_t data[16];
} icopy;

/* The blocks of one thread-block cluster, which run together (co-scheduled, as the
 * hardware guarantees): a worker runs one cluster at a time, a launch without clusters
 * being clusters of one block. */
typedef struct icluster {
    ictx *blk;             /* by cluster rank */
    uint32_t n;
    struct isched *sched;  /* the warp scheduler all its blocks' warps share (sched.c) */
    uint32_t bar_arrived;  /* barrier.cluster: threads arrived in the current phase */
    uint32_t bar_gen;      /* and the phases completed (barrier.c) */
    uint64_t published;    /* its memory writes last counted as the launch's progress */
} icluster;

/* One worker's block (one of its cluster's). */
struct ictx {
    ilaunch *L;
    icluster *cl; /* its cluster, and its rank there */
    uint32_t rank;
    struct igroup *group; /* several emulated devices running together (peers.c), or NULL */
    uint32_t grank;       /* its device's rank there */
    uint32_t gwarp0;      /* the group's index of its warp 0 (ranks, then blocks, then warps) */
    const iprog *P;
    uint32_t nthr;
    islot *regs;
    uint8_t *top;  /* the block's mask */
    uint8_t *mbuf; /* 2 masks per nesting depth */
    uint8_t *returned;
    uint32_t nreturned;
    uint32_t ctaid[3];
    uint64_t blin;
    uint8_t *smem;
    sshadow *shadow;
    uint32_t epoch, block_epoch;
    glog *glogs; /* per launch buffer */
    uint64_t seq;
    int64_t steps;
    bool halted; /* stopped because another block of its cluster did (its own checks passed) */
    uint64_t dispatched, thread_ops; /* this block's counts (cute_interp_stats) */
    bool stop;
    cute_interp_report *reps; /* this block's */
    const dinst **rep_inst;
    int nreps, creps;
    bool oom;
    uint16_t *bufcache; /* per instruction: the buffer it hit last */
    ibank *banks;       /* per instruction: this block's bank counts (NULL: not counting) */
    char *out;          /* PRINTF output of this block */
    size_t outn, outc;
    int64_t trace_t; /* the traced thread in this block, or -1 */
    /* asynchronous copies issued and not landed (inst_async.c) */
    struct icopy *copies;
    uint32_t ncopies, ccopies;
    uint32_t *groups;  /* per thread: the cp.async groups it committed */
    uint8_t *pending;  /* per shared byte: copies in flight that write it */
    /* the warp scheduler (sched.c): NULL warps when the block runs in lockstep */
    struct iwarp *warps;
    uint32_t nwarps, ndone; /* the block's warps, and those that ended (all: it exited) */
    uint64_t writes;   /* memory writes so far (a spin that sees none spins for ever) */
    uint64_t accesses; /* memory accesses so far (a loop that makes none waits for nobody) */
    uint32_t fell_off; /* threads whose warp ended without a RETURN */
    struct ibarrier *bars; /* named barriers 0..15 (0 is also the block barrier) */
    /* shared memory asynchronous operations still read (async_read.c) */
    struct iaread *areads;
    uint32_t nareads, careads;
    uint32_t *bulk_groups; /* per thread: its committed bulk groups (inst_sync.c) */
    uint32_t *wgmma_groups; /* per thread: its committed wgmma groups (inst_wgmma.c) */
    struct itmem *tmem;     /* tensor memory (tmem.c), from the block's first tcgen05 */
    uint32_t *proxy_fences; /* per thread: its fence.proxy.async count (proxy.c) */
    /* mbarriers initialized in this block (mbarrier.c) */
    struct imbar *mbars;
    uint32_t nmbars, cmbars;
    uint64_t rng; /* the block's draws for try_wait (try_wait_seed) */
};

/* --- sched.c: warps as cooperative units ---------------------------------------------
 * Under the scheduler each warp runs on a thread of its own, one warp of the cluster at a
 * time: a warp runs (its threads in lockstep) until it waits; then the next warp of the
 * cluster that may go on runs, in round-robin order.  When none may, the cluster is
 * deadlocked and each waiting warp is reported with its site and what it waits for. */
/* whether the warp of m (blocked at d) may go on; may complete what it waits for */
typedef bool (*iready_fn)(ictx *X, const dinst *d, const imask *m);
/* what the warp of m waits for at d, in words (the deadlock report) */
typedef void (*idescribe_fn)(ictx *X, const dinst *d, const imask *m, char *buf, size_t n);

typedef struct iwarp {
    uint32_t lo, hi; /* its threads */
    uint8_t state;   /* W_READY, W_BLOCKED, W_SPIN, W_DONE */
    const dinst *site;
    const imask *mask;
    iready_fn ready;
    idescribe_fn describe;
    uint64_t spin_writes, spin_hash, spin_accesses; /* at its last loop iteration */
    uint64_t spin_start; /* the launch's progress when that iteration began (progress.c) */
    bool idle;                       /* that iteration repeated the one before, unchanged */
    uint32_t wait_gen;               /* a barrier's phase it waits to see completed */
    uint32_t cluster_gen;            /* the cluster barrier's phase it arrived in */
    bool cluster_arrived;            /* arrived on the cluster barrier, not waited yet */
    const dinst *false_at;           /* the try_wait that last answered false (try_wait_false) */
    uint32_t clock; /* happens-before: its current interval (a stamp, unique in the block) */
    uint32_t *vc;   /* per warp of each block of the cluster (and each block's async proxy):
                       the newest interval of it that this warp has seen (interp_hb_slot); in a
                       group of devices, then the newest group interval of every warp of the
                       group (from interp_hb_group_at) */
    uint32_t gclock; /* in a group: its current group interval */
    uint64_t flag;   /* the flag it last read with an acquire (a spin's, for the report) */
} iwarp;
enum { W_READY, W_BLOCKED, W_SPIN, W_DONE };

/* run the warps of the cluster's blocks to their end (or to a deadlock, reported), each
 * running body over its threads (m: the warp's mask, left with the threads that fell off
 * the end) */
typedef void (*iwarp_body)(ictx *X, imask *m);
void interp_sched_run(icluster *C, iwarp_body body);
/* the warp of m waits at d until ready() holds: true then, false when the block stopped */
bool interp_wait(ictx *X, const dinst *d, const imask *m, iready_fn ready, idescribe_fn describe);
/* a while loop's iteration ended: let the other warps run; false when the block stopped */
bool interp_sched_spin(ictx *X, const dinst *d, const imask *m);
/* __syncthreads under the scheduler */
void interp_sched_block_barrier(ictx *X, const dinst *d, const imask *m);
/* the live threads of m's warp (not returned) */
uint32_t interp_sched_live(ictx *X, const imask *m);
void interp_sched_free(ictx *X);
void interp_sched_cluster_free(icluster *C);
/* every warp of block X ended: it exited, and its shared memory with it */
bool interp_sched_exited(const ictx *X);
/* barrier.c: the block barrier and named barriers under the scheduler */
void interp_sched_barriers_reset(ictx *X);
void interp_sched_barriers_free(ictx *X);

/* --- hb.c: happens-before between warps ----------------------------------------------
 * Lockstep: an access is stamped with the block's barrier interval (X->epoch) and two
 * accesses race when they share it.  Under the scheduler each warp has a clock that moves
 * at each of its synchronizations and a vector of the other warps' clocks it has acquired
 * (through a barrier or an mbarrier phase); the async proxy (bulk copies, TMA) is one more
 * "warp", thread X->nthr, whose writes are acquired through the mbarrier they complete on. */
#define HB_PROXY(X) ((X)->nthr) /* the thread id of the async proxy's writes */
uint32_t interp_hb_now(const ictx *X, uint32_t t);
/* (owner: the block whose shadow names `other`, X itself or another block of its cluster
 * whose shared memory thread t of X accesses) */
bool interp_hb_concurrent_slow(const ictx *X, const ictx *owner, uint32_t stamp, uint32_t other, uint32_t t);
static inline bool interp_hb_concurrent(const ictx *X, uint32_t stamp, uint32_t other, uint32_t t)
{
    return X->warps ? interp_hb_concurrent_slow(X, X, stamp, other, t) : stamp == X->epoch;
}
/* the clock slot of thread t of X (its warp's; HB_PROXY: the block's async proxy's) in the
 * cluster's vectors: each block of the cluster has nwarps + 1 slots, in rank order */
uint32_t interp_hb_slot(const ictx *X, uint32_t t);
/* the clocks a synchronization object carries: (nwarps + 1) entries for each block of the
 * cluster (vector clocks span the cluster, so that distributed shared memory is checked) */
uint32_t *interp_hb_new_vc(ictx *X);
/* into = the join of into and from (vectors of X's cluster; either NULL: nothing) */
void interp_hb_join(const ictx *X, uint32_t *into, const uint32_t *from);
/* entries of a vector clock: the cluster's blocks' warps and async proxies, then a group's
 * warps (from interp_hb_group_at) */
uint32_t interp_hb_len(const ictx *X);
uint32_t interp_hb_group_at(const ictx *X);
/* the warp of thread t releases into vc (joins its view and its clock), then moves on */
void interp_hb_release(ictx *X, uint32_t t, uint32_t *vc);
/* the warp of thread t acquires vc */
void interp_hb_acquire(ictx *X, uint32_t t, const uint32_t *vc);
/* a new stamp for writes of the async proxy */
uint32_t interp_hb_async_stamp(ictx *X);

/* --- async_read.c: shared bytes an asynchronous operation (bulk store, wgmma) reads until
 * its wait: a write to them before it is reported ------------------------------------- */
/* whose groups a read belongs to: a bulk store's (cp.async.bulk.commit_group / wait_group.read)
 * or a wgmma's (wgmma.commit_group / wait_group), each counted per thread */
typedef enum { AREAD_BULK, AREAD_WGMMA } interp_areader;
/* thread t's operation d reads [off, off+bytes) in its group `group` of who's groups */
bool interp_async_read_begin(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes,
                             interp_areader who, uint32_t group);
/* thread t's reads of who's groups below `below` are done */
void interp_async_read_end(ictx *X, uint32_t t, interp_areader who, uint32_t below);
/* a write of [off, off+bytes) by d, thread t: true when no pending read covers it (else reported) */
bool interp_async_read_conflict(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes);
/* the reads still pending when the block ends, reported; forgotten */
void interp_async_read_block_end(ictx *X);

/* --- proxy.c: generic-proxy shared stores the async proxy reads need a fence.proxy.async -- */
/* the active threads of m ran fence.proxy.async */
void interp_proxy_fence(ictx *X, const imask *m);
/* thread t's fence.proxy.async count */
uint32_t interp_proxy_fences(const ictx *X, uint32_t t);
/* the async proxy reads [off, off+bytes) for d, thread t: true when every generic store to
 * them was fenced by its thread (else reported) */
bool interp_proxy_fenced(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes);
void interp_proxy_block_end(ictx *X);

/* --- mbarrier.c and inst_sync.c: the sm_90 synchronization rows ----------------------- */
void interp_mbarrier_block_end(ictx *X);
void inst_mbarrier(ictx *X, const dinst *d, const imask *m);
void inst_sync(ictx *X, const dinst *d, const imask *m);
void inst_named_barrier(ictx *X, const dinst *d, const imask *m);
void inst_sreg90(ictx *X, const dinst *d, const imask *m);
void inst_dsmem(ictx *X, const dinst *d, const imask *m);
/* peers.c: st.release.sys / ld.acquire.sys of a flag, and the race check across devices */
void inst_peer_flag(ictx *X, const dinst *d, const imask *m);
/* thread t's global access of [addr, addr+bytes) in a group (how: 0 read, 1 write): a read
 * of bytes another device wrote with no release/acquire between is CUTE_CHECK_PEER_RACE */
void interp_peer_access(ictx *X, const dinst *d, uint32_t t, uint64_t addr, uint32_t bytes, int how);
/* the warps of all blocks of all devices of group G; a new group interval */
uint32_t interp_group_warps(const struct igroup *G);
uint32_t interp_group_tick(struct igroup *G);
/* the warp of thread t releases its group view into gvc (the group part of a clock) and
 * starts a new group interval */
void interp_group_release(ictx *X, uint32_t t, uint32_t *gvc);
/* the group's flag at addr in words, for a deadlock report ("" when there is none) */
void interp_peer_flag_text(const ictx *X, uint64_t addr, char *buf, size_t n);
void inst_cluster_barrier(ictx *X, const dinst *d, const imask *m);
void inst_bulk_g2s(ictx *X, const dinst *d, const imask *m);
void inst_l2_prefetch(ictx *X, const dinst *d, const imask *m);
void inst_bulk_s2g(ictx *X, const dinst *d, const imask *m);
void inst_bulk_commit(ictx *X, const dinst *d, const imask *m);
void inst_bulk_wait_read(ictx *X, const dinst *d, const imask *m);
/* per thread: the bulk groups it committed (bulk stores, TMA stores and reduce-adds read
 * their shared source until a wait_group.read covers their group); NULL when out of memory */
uint32_t *interp_bulk_groups(ictx *X);
/* cluster.c: the block's place in its cluster; a shared::cluster address of thread t as the
 * block of the cluster it names (*Y: X itself for its own) and the offset into its shared
 * memory (false after a report: a rank outside the cluster, a block that exited) */
#define INTERP_CLUSTER_RANK_SHIFT 24
#define INTERP_CLUSTER_OFFSET_MASK ((1u << INTERP_CLUSTER_RANK_SHIFT) - 1)
uint32_t interp_cluster_dim(const ictx *X, int k);
uint32_t interp_cluster_rank(const ictx *X);
uint32_t interp_cluster_size(const ictx *X);
bool interp_cluster_target(ictx *X, const dinst *d, uint32_t t, uint32_t caddr, ictx **Y, uint64_t *off);
/* block `rank` of the cluster, checked as an access's target (false after a report naming
 * `what`: not in the cluster, or exited) */
bool interp_cluster_block(ictx *X, const dinst *d, uint32_t t, uint32_t rank, const char *what, ictx **Y);
/* the linear index of the block of rank `rank` in cluster `cid` (clusters in linear order) */
uint64_t interp_cluster_block_index(const ilaunch *L, uint64_t cid, uint32_t rank);
enum { MB_INIT, MB_ARRIVE, MB_ARRIVE_TX, MB_EXPECT_TX, MB_TRY_WAIT, MB_TEST_WAIT };
enum { SY_FENCE_ASYNC, SY_FENCE_MBAR_INIT, SY_ELECT, SY_SETMAXNREG, SY_MAPA, SY_NOTHING };
enum { SR_CLUSTERID, SR_NCLUSTERID, SR_CLUSTER_CTAID, SR_CLUSTER_NCTAID, SR_CLUSTER_CTARANK,
       SR_CLUSTER_NCTARANK };

#define REG(X, s) ((X)->regs + (size_t)(s) * (X)->nthr)
#define MBUF(X, depth, k) ((X)->mbuf + ((size_t)(depth) * 2 + (k)) * (X)->nthr)

/* the braced block after t for every active thread t; `continue` skips to the next one */
#define EACH(X, m, t, ...)                                                               \
    do {                                                                                 \
        (void)(X);                                                                       \
        const uint32_t lo_ = (m)->lo, hi_ = (m)->hi;                                     \
        if ((m)->n == hi_ - lo_) {                                                       \
            for (uint32_t t = lo_; t < hi_; t++) __VA_ARGS__                             \
        } else {                                                                         \
            const uint8_t *on_ = (m)->on;                                                \
            for (uint32_t t = lo_; t < hi_; t++)                                         \
                if (on_[t]) __VA_ARGS__                                                  \
        }                                                                                \
    } while (0)

/* IEEE minNum/maxNum, as PTX min/max: a NaN operand yields the other; -0 < +0 */
static inline double interp_fmin(double a, double b)
{
    if (a != a) return b;
    if (b != b) return a;
    if (a == b) return __builtin_signbit(a) ? a : b;
    return a < b ? a : b;
}
static inline double interp_fmax(double a, double b)
{
    if (a != a) return b;
    if (b != b) return a;
    if (a == b) return __builtin_signbit(a) ? b : a;
    return a > b ? a : b;
}

/* room for one more element in the array *arr of n, capacity *cap (doubling from first);
 * false, the block stopped, when out of memory */
static inline bool interp_grow(ictx *X, void **arr, uint32_t n, uint32_t *cap, size_t elem, uint32_t first)
{
    if (n < *cap) return true;
    uint32_t nc = *cap ? *cap * 2 : first;
    void *p = realloc(*arr, nc * elem);
    if (!p) return X->oom = X->stop = true, false;
    *arr = p;
    *cap = nc;
    return true;
}

static inline bool checking(const ictx *X, cute_interp_check k)
{
    return !(X->L->disable & (1u << k));
}

/* --- decode.c ---------------------------------------------------------------------- */
cute_status interp_compile_one(const cute_ir_func *f, iprog **out, char *log, size_t n);
void interp_prog_free(iprog *p);

/* --- ops_*.c: the function running an op, or NULL (then *why says what is missing) ---- */
iop_fn interp_pick_arith(const dinst *d, const char **why);
iop_fn interp_pick_convert(const dinst *d, const char **why);
iop_fn interp_pick_mem(const dinst *d, const char **why);
iop_fn interp_pick_warp(const dinst *d, const char **why);
iop_fn interp_pick_misc(const dinst *d, const char **why);
void interp_store_const(islot *s, int dtype, int64_t imm);

/* --- inst*.c: the instruction table's emulations ------------------------------------ */
const irow *interp_inst_row(int64_t row); /* NULL: no emulation */
/* operand k's 32 bits for thread t (a scalar, or a packed vector with lane 0 lowest) */
uint32_t interp_get32(ictx *X, const dinst *d, uint32_t k, uint32_t t);
void interp_put32(ictx *X, const dinst *d, uint32_t k, uint32_t t, uint32_t v);
uint64_t interp_addr(ictx *X, const dinst *d, uint32_t k, uint32_t t);
/* the warp of threads [w0, w0+32) is whole and all active; else false (after a report) */
bool interp_whole_warp(ictx *X, const dinst *d, const imask *m, uint32_t w0);
/* threads w0 .. w0+n-1 all active (n = 128: a warpgroup); a check names the first missing */
bool interp_whole_lanes(ictx *X, const dinst *d, const imask *m, uint32_t w0, uint32_t n);
/* the tensor cores' arithmetic, shared by mma.sync and wgmma (inst_mma.c): an element of
 * type E_* from the low bits of v, its width, and c + a.b as the bits of out (E_F32, E_F16) */
double interp_mma_elem(int type, uint32_t v);
int interp_mma_elem_bits(int type);
uint32_t interp_mma_dot_bits(double c, const double *a, const double *b, int n, int ta, int tb, int out);
/* The tensor-core sums' exponent arithmetic, read from a double's bits (frexp and ldexp took
 * a third of a kernel test's time on the interpreter).  Every term they meet is a normal
 * double: elements of types no wider than f32 and their products (>= 2^-298), scaled by
 * powers of two no further than 2^+-300.  interp_exponent: e with |x| in [2^e, 2^(e+1)), x
 * finite and nonzero; interp_pow2: 2^e exactly, e in [-1022, 1023]. */
static inline int interp_exponent(double x)
{
    union { double d; uint64_t u; } v = {x};
    return (int)((v.u >> 52) & 0x7ff) - 1023;
}
static inline double interp_pow2(int e)
{
    union { uint64_t u; double d; } v = {(uint64_t)(e + 1023) << 52};
    return v.d;
}
/* The exponent by which the tensor cores align an element's products (x finite, nonzero): its
 * own, no lower than emin, the least normal exponent of the type the datapath sees it in (a
 * subnormal counts as that; each sum says which) */
static inline int interp_align_exp(double x, int emin)
{
    int e = interp_exponent(x);
    return e < emin ? emin : e;
}
/* A tensor-core operand's k-vector (a row of A, a column of B), prepared once per instruction
 * for the sums that use it N or M times (inst_mma.c): its elements, each one's alignment
 * exponent (interp_align_exp by the emin its sum names; INTERP_TC_ZERO for a zero, so that
 * its products never count), and whether every element is finite. */
enum { INTERP_TC_K_MAX = 32, INTERP_TC_ZERO = -(1 << 20) };
typedef struct interp_tc_vec {
    double x[INTERP_TC_K_MAX];
    int e[INTERP_TC_K_MAX];
    bool finite;
} interp_tc_vec;
void interp_tc_vec_set(interp_tc_vec *V, const double *x, int n, int emin);
/* the emin of mma.sync's sums (and wgmma's but fp8 into f32): an element of `type` into `out` */
int interp_mma_emin(int type, int out);
/* c + a.b as S 2^e0, each term truncated toward zero at 2^(emax - keep) (inst_mma.c says how);
 * false when no term is nonzero or one is not finite (the IEEE sum's cases) */
bool interp_tc_sum(double c, const interp_tc_vec *a, const interp_tc_vec *b, int n, int keep, int64_t *S, int *e0);
/* interp_mma_dot_bits of prepared vectors */
uint32_t interp_tc_dot_bits(double c, const interp_tc_vec *a, const interp_tc_vec *b, int n, int out);
/* c + a.b of an fp8 wgmma into f32, as the hardware sums it (wgmma_fp8_sum.c), of vectors
 * prepared with interp_wgmma_fp8_emin; false for the sums its rule does not cover (non-finite
 * terms, all zero: interp_tc_dot_bits's IEEE sum, whatever the vectors' emin) */
int interp_wgmma_fp8_emin(int type);
bool interp_wgmma_fp8_sum(double c, const interp_tc_vec *a, const interp_tc_vec *b, int n, float *out);
void inst_wgmma(ictx *X, const dinst *d, const imask *m);
/* a shared-memory matrix descriptor (wgmma's and tcgen05's: start address, leading and stride
 * byte offsets, swizzle), decoded; the byte offset of element (r, k) of an operand with rows
 * along M or N, K-major or MN-major, of `bytes`-byte elements (inst_wgmma.c) */
typedef struct interp_smem_desc {
    uint64_t start, lbo, sbo; /* bytes */
    int width;                /* 16-byte chunks a swizzled row holds: 1 (none), 2, 4, 8 */
} interp_smem_desc;
uint64_t interp_smem_desc_offset(const interp_smem_desc *D, bool mn_major, int r, int k, int bytes);
/* an operand of rows x K elements of type E_* through D into M[row][k], each element checked
 * as thread t's shared read through the async proxy (bounds, written, fence.proxy.async) */
enum { INTERP_DESC_K_MAX = 32 };
/* thread t's async-proxy read of [off, off + bytes) of Y's shared memory (X's: bounds, written,
 * fence.proxy.async; or the CTA pair's peer's: distributed shared memory); false after a report */
bool interp_desc_access(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes, uint32_t align);
bool interp_smem_desc_read(ictx *X, ictx *Y, const dinst *d, uint32_t t, const interp_smem_desc *D,
                           bool mn_major, int type, int rows, int K, double (*M)[INTERP_DESC_K_MAX]);
/* sm_100 tcgen05 (tmem.c, inst_tcgen05.c): irow.num of a TC05 row says which */
enum { TC_ALLOC, TC_DEALLOC, TC_RELINQUISH, TC_COMMIT, TC_COMMIT_MULTICAST, TC_NOTHING };
enum { TC_KIND_F16, TC_KIND_TF32, TC_KIND_F8F6F4, TC_KIND_MXF4NVF4, TC_KIND_MXF8F6F4, TC_KIND_MXF4 };
void inst_tcgen05(ictx *X, const dinst *d, const imask *m);      /* alloc, dealloc, commit ... */
void inst_tcgen05_mma(ictx *X, const dinst *d, const imask *m);
void inst_tcgen05_mma_pair(ictx *X, const dinst *d, const imask *m); /* cta_group::2 */
void inst_tcgen05_mma_ts(ictx *X, const dinst *d, const imask *m);   /* A from tensor memory */
void inst_tcgen05_mma_scaled(ictx *X, const dinst *d, const imask *m); /* inst_tcgen05_scaled.c */
/* kind::f8f6f4's (and mxf8f6f4's) operand format code f as E_*, or 0 (reserved); an MN-major
 * 6- or 4-bit operand refused as not emulated (false after the report) */
int interp_tcgen05_f8f6f4_format(uint32_t f);
bool interp_tcgen05_unpacked_mn(ictx *X, const dinst *d, uint32_t t, int type, bool mn_major, char which);
/* tcgen05.ld / st shapes (irow.m) */
enum { TC_LDST_32x32b, TC_LDST_16x64b, TC_LDST_16x128b, TC_LDST_16x256b, TC_LDST_16x32bx2 };
/* which lanes tcgen05.cp's row r, copy q lands in (irow.k; R rows, C copies): SPREAD r + q 128 / C
 * (128x256b, 128x128b, 32x128b.warpx4, 64x128b.warpx2::02_13), PAIRED r % 32 + 64 (r / 32) + 32 q
 * (64x128b.warpx2::01_23), QUARTERS taddr's lane + 32 r (4x256b) */
enum { TC_CP_SPREAD, TC_CP_PAIRED, TC_CP_QUARTERS };
void inst_tcgen05_ldst(ictx *X, const dinst *d, const imask *m);
void inst_tcgen05_cp(ictx *X, const dinst *d, const imask *m);
/* at the end of a block: allocations never freed and operations never committed, reported;
 * the tensor memory forgotten (free: released) */
void interp_tmem_block_end(ictx *X);
void interp_tmem_free(ictx *X);
void inst_wgmma_sync(ictx *X, const dinst *d, const imask *m); /* fence, commit, wait */
void inst_mma(ictx *X, const dinst *d, const imask *m);
/* the paired 16-bit rows (inst_half2.c): irow.num says which, types[0] the lane type */
enum { HALF2_FMA = 1, HALF2_MIN, HALF2_MAX, HALF2_NEG };
void inst_half2(ictx *X, const dinst *d, const imask *m);
void inst_ldmatrix(ictx *X, const dinst *d, const imask *m);
void inst_stmatrix(ictx *X, const dinst *d, const imask *m);
void inst_cp_async(ictx *X, const dinst *d, const imask *m);
void inst_cp_commit(ictx *X, const dinst *d, const imask *m);
void inst_cp_wait(ictx *X, const dinst *d, const imask *m);
void inst_cp_wait_all(ictx *X, const dinst *d, const imask *m);
void inst_tma_load(ictx *X, const dinst *d, const imask *m);   /* inst_tma.c */
void inst_tma_store(ictx *X, const dinst *d, const imask *m);
void inst_tma_prefetch(ictx *X, const dinst *d, const imask *m);
void inst_tmap_prefetch(ictx *X, const dinst *d, const imask *m);
void inst_tmap_replace(ictx *X, const dinst *d, const imask *m);
/* tmap_fence.c: the tensormap proxy.  A map that tensormap.replace changed is TMA's to use
 * only after its writer's release fence and the using thread's acquire fence; the words of
 * a map parameter, read to copy it */
void interp_tmap_written(ictx *X, uint32_t t, uint64_t map);
bool interp_tmap_fenced(ictx *X, const dinst *d, uint32_t t, uint64_t map);
void inst_tmap_fence(ictx *X, const dinst *d, const imask *m);
void inst_tmap_words(ictx *X, const dinst *d, const imask *m);
/* at the end of a block: report the copies still pending, forget them */
void interp_async_block_end(ictx *X);

/* --- numeric.c -------------------------------------------------------------------- */
/* the value of a slot as a double (math on f16/bf16, printf, the trace) */
double interp_slot_f64(islot s, int dtype);
uint16_t interp_small_from_int(int small, int64_t v, bool is_unsigned); /* small: 0 f16, 1 bf16 */
uint16_t interp_small_fma(int small, float a, float b, float c);

/* --- exec.c ------------------------------------------------------------------------ */
void interp_exec(ictx *X, uint32_t lo, uint32_t hi, imask *m);
/* run cluster cid (its blocks together) on C's blocks */
void interp_run_cluster(icluster *C, uint64_t cid);
/* launch.c: the kernel P on nranks emulated devices at once, rank r with args[r * nargs ..) */
cute_status interp_launch_group(struct interp *B, const iprog *P, const cute_launch *cfg, int nranks,
                                const cute_launch_arg *args, int nargs);
/* run every block of every device of a group (C->blk: rank by rank, nblocks each) together
 * under one warp scheduler, as emulated devices that wait for each other (peers.c) */
void interp_run_group(icluster *C, uint64_t nblocks);

/* --- memory.c ---------------------------------------------------------------------- */
/* a global access of `bytes` at addr by thread t: the buffer it lies in, or NULL after a
 * report */
/* (how: 0 read, 1 write, 2 atomic or a flag's release, 3 a flag's acquire; align: the address
 * must be a multiple of it) */
const ibuf *interp_gcheck(ictx *X, const dinst *d, uint32_t t, uint64_t addr, uint32_t bytes,
                          uint32_t align, int how);
/* a shared access at byte offset off: true when it may go ahead (bounds, alignment, races,
 * uninitialized bytes, copies not yet landed) */
bool interp_scheck(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes,
                   uint32_t align, int how);
/* bounds and alignment only (what an asynchronous copy checks when it is issued) */
bool interp_sbounds(ictx *X, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes,
                    uint32_t align, int how);
void interp_race_epoch_end(ictx *X); /* at a barrier and at the block's end */
/* thread t of X accesses [off, off+bytes) of another block Y of its cluster (distributed
 * shared memory): bounds and alignment, reads of bytes Y never wrote, and races with Y's
 * threads and other blocks' (the shadow names them SH_PEER).  False after a report. */
bool interp_remote_access(ictx *X, ictx *Y, const dinst *d, uint32_t t, uint64_t off, uint32_t bytes,
                          uint32_t align, int how);

/* bank conflicts (banks.c): one warp-level request of n addresses of `bytes` each; a
 * load/store's request per warp; a block's counts into the launch; the launch's into B */
void interp_banks_request(ictx *X, const dinst *d, const uint64_t *addr, uint32_t n, uint32_t bytes);
void interp_banks_access(ictx *X, const dinst *d, const imask *m, const islot *P, uint32_t bytes);
void interp_banks_operand(ictx *X, const dinst *d, const imask *m, uint32_t k, uint32_t bytes);
void interp_banks_publish(ictx *X);
bool interp_banks_gather(struct interp *B, const ilaunch *L);

/* --- backend.c -------------------------------------------------------------------- */
/* the id of the live buffer holding addr, or 0 */
uint64_t interp_backend_buffer_at(const struct interp *B, uint64_t addr);
/* [addr, addr+bytes) lies inside one live buffer of the backend */
bool interp_backend_holds(const struct interp *B, uint64_t addr, uint64_t bytes);

/* --- launch.c --------------------------------------------------------------------- */
cute_status interp_launch(struct interp *B, const iprog *P, const cute_launch *cfg,
                          const cute_launch_arg *args, int nargs);
/* set the backend's error text (printf-like) */
void interp_set_error(struct interp *B, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const ibuffer *interp_backend_buffer(const struct interp *B, const void *ptr);

/* --- report.c ---------------------------------------------------------------------- */
/* record a failed check at d for thread t (t = UINT32_MAX: none); returns false */
bool interp_report(ictx *X, const dinst *d, uint32_t t, cute_interp_check kind,
                   uint64_t buffer, int64_t offset, uint32_t bytes, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
void interp_thread_dim3(const ictx *X, uint32_t t, cute_dim3 *out);
/* d's op: "LOAD", or an INST's mnemonic */
const char *interp_op_name(const dinst *d);
/* the site of d as "file:line" (or "?") into buf */
const char *interp_site(const dinst *d, char *buf, size_t n);

/* --- trace.c ----------------------------------------------------------------------- */
void interp_trace_op(ictx *X, const dinst *d);
void interp_trace_ctl(ictx *X, const dinst *d, const char *what);
int interp_format_slot(char *buf, size_t n, islot s, int dtype);

/* --- printf.c ---------------------------------------------------------------------- */
void interp_printf_thread(ictx *X, const dinst *d, uint32_t t);
void interp_out_append(ictx *X, const char *s, size_t n);

#endif
