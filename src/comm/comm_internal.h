/* What the collectives share: which one is called, and the check of its tensors (comm_args.c),
 * which needs no GPU and no NCCL. */
#ifndef CUTEC_COMM_INTERNAL_H
#define CUTEC_COMM_INTERNAL_H

#include "cutec/comm.h"

typedef enum { COMM_ALL_REDUCE, COMM_REDUCE_SCATTER, COMM_ALL_GATHER } comm_collective;

/* "cute_comm_all_reduce", ... */
const char *comm_name(comm_collective k);
/* the first byte of a checked (dense) tensor */
char *comm_start(const cute_call_arg *x);
/* The collective k's tensors over nranks ranks, for an NCCL of version nccl_version: NCCL's
 * element count (recv's for reduce-scatter, send's otherwise) and its type code.
 * CUTE_ERR_INVALID or CUTE_ERR_UNSUPPORTED with err naming the rank and the tensor. */
cute_status comm_check_call(int nranks, int nccl_version, comm_collective k,
                            const cute_call_arg *send, const cute_call_arg *recv, int op,
                            size_t *count, int *type, char *err, size_t n);

#endif
