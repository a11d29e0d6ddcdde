/* cutec/comm.h — collectives across the GPUs of one host, through NCCL (docs/comm.md).
 *
 * One process drives every GPU of the group: each GPU is a cutec runtime of its own
 * (cute_runtime_new("cuda:N")), rank i is the i-th runtime given to cute_comm_open, and a
 * collective takes one tensor per rank (a cute_call_arg on that rank's runtime, as
 * cute_call_tensor or cute_call_dlpack make them) and one stream per rank.  The collectives
 * are enqueued on the streams and return at once, as NCCL's do; cute_comm_sync waits.
 *
 * NCCL is opened with dlopen at the first use: $CUTEC_NCCL names the library, else
 * "libnccl.so.2" from the loader's path (the system's, or the one the NVIDIA NCCL package or
 * PyTorch installs, when its folder is on LD_LIBRARY_PATH).  Where it is missing every call
 * is CUTE_ERR_UNSUPPORTED with a message that says so.
 */
#ifndef CUTEC_COMM_H
#define CUTEC_COMM_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include "cutec/jit.h"

typedef struct cute_comm cute_comm;

typedef enum {
    CUTE_COMM_SUM,
    CUTE_COMM_PROD,
    CUTE_COMM_MAX,
    CUTE_COMM_MIN,
    CUTE_COMM_AVG, /* the sum divided by the number of ranks */
} cute_comm_op;

/* NCCL's version code (22809 is 2.28.9), or 0 with err saying why it cannot be loaded */
int cute_nccl_version(char *err, size_t n);

/* A communicator over the GPUs of rts[0..nranks) (CUDA runtimes, each on a device of its own;
 * at least one).  CUTE_ERR_INVALID (a runtime that is not a GPU's, a device twice),
 * CUTE_ERR_UNSUPPORTED (no NCCL), CUTE_ERR_LAUNCH (NCCL refused), with err. */
cute_status cute_comm_open(int nranks, cute_runtime *const *rts, cute_comm **out, char *err,
                           size_t n);
void cute_comm_free(cute_comm *c);
int cute_comm_size(const cute_comm *c);

/* recv[i] = op over ranks r of send[r], for each rank i.  Every tensor is dense (its
 * elements fill one run of memory, in any order of modes) and all have the same dtype, shape
 * and strides; send and recv may be the same tensor (in place).  streams: one per rank, or
 * NULL for each device's default stream. */
cute_status cute_comm_all_reduce(cute_comm *c, const cute_call_arg *send, const cute_call_arg *recv,
                                 cute_comm_op op, void *const *streams, char *err, size_t n);
/* rank i's recv = the i-th of nranks equal runs of (op over ranks of send): send holds
 * nranks * count elements, recv count */
cute_status cute_comm_reduce_scatter(cute_comm *c, const cute_call_arg *send,
                                     const cute_call_arg *recv, cute_comm_op op,
                                     void *const *streams, char *err, size_t n);
/* every rank's recv = the ranks' send runs one after another: send holds count elements,
 * recv nranks * count */
cute_status cute_comm_all_gather(cute_comm *c, const cute_call_arg *send, const cute_call_arg *recv,
                                 void *const *streams, char *err, size_t n);
/* wait for every rank's stream (NULL: each device's default stream); an error NCCL found
 * while the collectives ran is reported here */
cute_status cute_comm_sync(cute_comm *c, void *const *streams, char *err, size_t n);

CUTE_API_END
#endif
