/* cutec/inst.h — hardware instructions as table rows (CuTe's `arch/` layer).
 *
 * Every row of ir_insts.def is one PTX instruction: its mnemonic, minimum architecture,
 * flags, operand signature and meaning.  One IR op, INST, names a row (imm2) and carries the
 * row's registers (var) and immediate (imm): the verifier checks the registers against the
 * signature, the CUDA C backend renders the PTX from the row (constraints from the register
 * types, clobbers from the flags), the interpreter runs the row's emulation.  Nobody formats
 * PTX text that someone else parses back; raw PTX is the ASM op's business (the escape hatch).
 *
 * How an emitter passes operands (cute_ir_inst_op below; docs/instructions.md has the table):
 *   out[]  the registers of the row's OUT and INOUT groups, in row order, each group's
 *          registers in order (mma: d0..d3).  OUT registers are new (or mutable) registers
 *          the op defines; INOUT ones (wgmma's accumulators) mutable and defined before.
 *   in[]   the registers of every other group that takes registers, in row order: IN
 *          groups, predicates, shared addresses, global addresses.  K, IMM and IMM_BIT /
 *          IMM_SIGN groups take none.
 *   imm    the row's IMM group, when it has one (cp.async.wait_group's N), or the bits its
 *          IMM_BIT / IMM_SIGN groups read (wgmma: CUTE_WGMMA_* below); else 0.
 * Register classes:
 *   B32   any 32-bit register: u32, i32, f32, or a 32-bit vector (f16x2, bf16x2, i16x2,
 *         u16x2, i8x4, u8x4, e4m3x4, e5m2x4).  A vector's lane 0 is the low half/byte, as PTX packs them.
 *   F32, F64   exactly f32 / f64.
 *   I32   i32 or u32.
 *   U64   u64 or i64 (a wgmma shared-memory descriptor).
 *   SADDR a `ptr<T, smem>` register (any T): the 32-bit shared-window address (the same in
 *         every backend; cute_smem_addr gives it as a u32 value).
 *   GADDR a `ptr<T, gmem>` register (any T): the generic 64-bit address.
 *   TMAP  a tensor map: a `tmap` parameter (by value, its address) or a `ptr<T, gmem>` to
 *         the 128 bytes of one (grouped GEMM's maps updated in global memory).
 *   B16   a 16-bit integer register (u16, i16).
 *   CADDR a u32 register holding a shared::cluster address (MAPA's result; a shared-window
 *         address of the block's own shared memory is one too).
 * Example, mma m16n8k16 f32 += f16 x f16: out = 4 x f32 (d), in = 4 x B32 (a, f16x2 each),
 * 2 x B32 (b), 4 x f32 (c); ldmatrix x4: out = 4 x B32, in = one ptr<T,smem>;
 * cp.async.cg 16 with zero fill: out = none, in = ptr<T,smem>, ptr<T,gmem>, I32 src-size.
 */
#ifndef CUTEC_INST_H
#define CUTEC_INST_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdint.h>

#include "cutec/ir.h"

typedef enum {
#define X(id, mnemonic, tmpl, arch, flags, emu, meaning, ...) CUTE_INST_##id,
#include "cutec/ir_insts.def"
#undef X
    CUTE_INST_COUNT
} cute_inst;

/* What an instruction does besides computing its outputs: the CUDA C backend derives the
 * asm clobbers from these, the interpreter its scheduling, the verifier its checks. */
enum {
    CUTE_INST_WARP = 1u << 0,        /* warp-collective: all 32 lanes, converged (.sync.aligned) */
    CUTE_INST_WARPGROUP = 1u << 1,   /* warpgroup-collective: 4 consecutive warps (wgmma) */
    CUTE_INST_BLOCKING = 1u << 2,    /* the thread may wait here for others or for memory */
    CUTE_INST_ASYNC_SREAD = 1u << 3, /* reads shared memory asynchronously (after it returns) */
    CUTE_INST_ASYNC_SWRITE = 1u << 4,/* writes shared memory asynchronously (lands at a wait) */
    CUTE_INST_MEM_READ = 1u << 5,    /* reads memory (an address operand) before it returns */
    CUTE_INST_MEM_WRITE = 1u << 6,   /* writes memory before it returns */
    CUTE_INST_FENCE = 1u << 7,       /* orders memory operations (fence, membar) */
    CUTE_INST_BARRIER = 1u << 8,     /* synchronizes threads (bar.sync, named barriers) */
    CUTE_INST_ASYNC_COMMIT = 1u << 9,/* closes the thread's group of pending async copies */
    CUTE_INST_ASYNC_WAIT = 1u << 10, /* waits for async-copy groups (all but imm newest) */
    CUTE_INST_MBAR_ARRIVE = 1u << 11,/* arrives on an mbarrier */
    CUTE_INST_MBAR_WAIT = 1u << 12,  /* waits on (tests) an mbarrier phase */
    CUTE_INST_TX_COUNT = 1u << 13,   /* moves an mbarrier's transaction count (TMA, expect_tx) */
};
/* flags whose instruction must be ordered against C's memory accesses ("memory" clobber);
 * mma.sync, cvt and the like are pure register operations and get none */
#define CUTE_INST_MEMORY_EFFECTS                                                              \
    (CUTE_INST_ASYNC_SREAD | CUTE_INST_ASYNC_SWRITE | CUTE_INST_MEM_READ | CUTE_INST_MEM_WRITE | \
     CUTE_INST_FENCE | CUTE_INST_BARRIER | CUTE_INST_ASYNC_COMMIT | CUTE_INST_ASYNC_WAIT |       \
     CUTE_INST_MBAR_ARRIVE | CUTE_INST_MBAR_WAIT | CUTE_INST_TX_COUNT)

/* the role of an operand group */
typedef enum {
    CUTE_IG_OUT,   /* registers the instruction writes (out[]) */
    CUTE_IG_IN,    /* registers it reads (in[]) */
    CUTE_IG_SADDR, /* a shared-memory address: one ptr<T,smem> register (in[]), "[%n]" */
    CUTE_IG_GADDR, /* a global address: one ptr<T,gmem> register (in[]), "[%n]" */
    CUTE_IG_CADDR, /* a shared::cluster address: one u32 register (in[], from mapa), "[%n]" */
    CUTE_IG_K,     /* a constant of the row (value), printed as is; no register */
    CUTE_IG_IMM,   /* the op's immediate (inst.imm), printed as is; no register */
    CUTE_IG_TMAP,  /* a tensor map: a tmap parameter or a ptr<T,gmem> to its 128 bytes (in[]),
                      "%n" (its generic address; the row's template places it) */
    CUTE_IG_INOUT, /* registers it reads and writes (out[]; mutable, defined before): "+" */
    CUTE_IG_PRED,  /* one i32 register (in[]) the PTX takes as a predicate: nonzero is true */
    CUTE_IG_IMM_BIT,  /* bit `value` of the immediate, printed 0 or 1; no register */
    CUTE_IG_IMM_SIGN, /* bit `value` of the immediate, printed 1 (clear) or -1 (set) */
} cute_inst_role;

/* the class of a register group's registers */
typedef enum {
    CUTE_RC_NONE, /* address, K and IMM groups */
    CUTE_RC_B32,
    CUTE_RC_F32,
    CUTE_RC_I32,
    CUTE_RC_F64,
    CUTE_RC_U64, /* a 64-bit integer: u64 or i64 (wgmma's shared-memory descriptors) */
    CUTE_RC_B16, /* any 16-bit scalar: u16, i16 (a TMA multicast mask) */
} cute_inst_class;

typedef struct cute_inst_group {
    uint8_t role;     /* cute_inst_role */
    uint8_t count;    /* registers (1 for addresses; 0 for K and IMM) */
    uint8_t cls;      /* cute_inst_class */
    uint8_t braced;   /* PTX writes the group as a vector {%a, %b, ...} */
    int32_t value;    /* CUTE_IG_K: the constant; CUTE_IG_IMM_BIT/SIGN: the bit */
    const char *name; /* "d", "a", "src" (for messages and docs) */
} cute_inst_group;

#define CUTE_INST_MAX_GROUPS 8
typedef struct cute_inst_info {
    const char *id;       /* "MMA_M16N8K16_F32_F16" (the enum's suffix) */
    const char *mnemonic; /* "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" */
    const char *tmpl;     /* the operand text with $k for group k; NULL: the groups in order */
    int arch;             /* minimum SM: 80, 89, 90, 100 */
    unsigned flags;       /* CUTE_INST_* */
    const char *meaning;
    int ngroups;
    cute_inst_group groups[CUTE_INST_MAX_GROUPS];
    int nout, nin; /* registers in out[] and in[] */
    int has_imm;   /* the row has an IMM group */
    int imm_bits;  /* the bits of the immediate its IMM_BIT / IMM_SIGN groups read */
} cute_inst_info;

/* the immediate of a wgmma.mma_async row: which operands are MN-major (transposed, 16-bit
 * types only) and which are negated (floating-point types only) */
enum {
    CUTE_WGMMA_TNSP_A = 1 << 0,
    CUTE_WGMMA_TNSP_B = 1 << 1,
    CUTE_WGMMA_NEG_A = 1 << 2,
    CUTE_WGMMA_NEG_B = 1 << 3,
};

/* the row (NULL for a value out of range) */
const cute_inst_info *cute_inst_info_of(cute_inst row);
/* the row whose id ("LDSM_X4_T") or mnemonic ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16")
 * is name; CUTE_INST_COUNT when none */
cute_inst cute_inst_lookup(const char *name);
/* whether register type t may stand in a group of class cls */
bool cute_inst_class_accepts(cute_inst_class cls, cute_type t);
const char *cute_inst_class_name(cute_inst_class cls); /* "b32" */

/* Append one INST op: row `row` with out[nout] (the registers it defines) and in[nin] (the
 * registers it reads) as described above, and the row's immediate.  Counts and classes are
 * the verifier's to check (it names the row, the group and the register). */
void cute_ir_inst_op(cute_ir_builder *b, cute_inst row, const cute_vreg *out, int nout,
                     const cute_vreg *in, int nin, int64_t imm);

CUTE_API_END
#endif
