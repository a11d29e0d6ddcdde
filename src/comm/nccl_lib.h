/* NCCL through dlopen: the entry points cutec uses, declared here (no nccl.h needed).  The
 * enums are NCCL's values (nccl.h, 2.x). */
#ifndef CUTEC_COMM_NCCL_LIB_H
#define CUTEC_COMM_NCCL_LIB_H

#include <stddef.h>

enum { NCCL_SUCCESS = 0, NCCL_IN_PROGRESS = 7 };
/* ncclDataType_t; the float8 types came with NCCL 2.24 */
enum {
    NCCL_INT8 = 0, NCCL_UINT8, NCCL_INT32, NCCL_UINT32, NCCL_INT64, NCCL_UINT64, NCCL_FLOAT16,
    NCCL_FLOAT32, NCCL_FLOAT64, NCCL_BFLOAT16, NCCL_FLOAT8E4M3, NCCL_FLOAT8E5M2
};
enum { NCCL_FP8_SINCE = 22400 };

typedef struct nccl_lib {
    int version; /* 22809: 2.28.9 */
    int (*GetVersion)(int *version);
    int (*CommInitAll)(void **comms, int ndev, const int *devlist);
    int (*CommDestroy)(void *comm);
    int (*CommGetAsyncError)(void *comm, int *result);
    int (*AllReduce)(const void *send, void *recv, size_t count, int dtype, int op, void *comm,
                     void *stream);
    int (*ReduceScatter)(const void *send, void *recv, size_t recvcount, int dtype, int op,
                         void *comm, void *stream);
    int (*AllGather)(const void *send, void *recv, size_t sendcount, int dtype, void *comm,
                     void *stream);
    int (*GroupStart)(void);
    int (*GroupEnd)(void);
    const char *(*GetErrorString)(int result);
    const char *(*GetLastError)(void *comm); /* optional: NCCL 2.13+ */
} nccl_lib;

/* the library, loaded once for the process; NULL (err says why) where it cannot be */
const nccl_lib *nccl_lib_get(char *err, size_t n);
/* "ncclAllReduce: invalid argument (the last NCCL message)" into err */
void nccl_say(const nccl_lib *l, int result, const char *what, void *comm, char *err, size_t n);

#endif
