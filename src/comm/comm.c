/* Collectives across the GPUs of one host (cutec/comm.h): one NCCL communicator per rank,
 * made together by ncclCommInitAll, and each collective enqueued for every rank inside one
 * NCCL group (one thread drives every GPU, so the per-rank calls must not wait for each
 * other). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/comm.h"
#include "cutec/cuda_driver.h"
#include "comm_internal.h"
#include "nccl_lib.h"

struct cute_comm {
    int n;
    const nccl_lib *nccl;
    void **comms;   /* NCCL's, by rank */
    cute_cuda **cu; /* each rank's driver (borrowed from its runtime) */
};


int cute_nccl_version(char *err, size_t n)
{
    const nccl_lib *l = nccl_lib_get(err, n);
    return l ? l->version : 0;
}

/* rank i's device ordinal, or -1 (err) when rts[i] is not a GPU's runtime or repeats one */
static int device_of(cute_runtime *const *rts, int i, cute_cuda **cu, char *err, size_t n)
{
    *cu = rts[i] ? cute_cuda_backend_driver(cute_runtime_backend(rts[i])) : NULL;
    if (!*cu) {
        snprintf(err, n, "cute_comm_open: rank %d's runtime is %s, not a GPU's (cute_runtime_new"
                 "(\"cuda:N\"))", i, rts[i] ? cute_runtime_backend_name(rts[i]) : "NULL");
        return -1;
    }
    int dev = cute_cuda_device(*cu)->ordinal;
    for (int j = 0; j < i; j++)
        if (cute_cuda_device(cute_cuda_backend_driver(cute_runtime_backend(rts[j])))->ordinal == dev) {
            snprintf(err, n, "cute_comm_open: ranks %d and %d are both device %d (one GPU a rank)",
                     j, i, dev);
            return -1;
        }
    return dev;
}

cute_status cute_comm_open(int nranks, cute_runtime *const *rts, cute_comm **out, char *err,
                           size_t n)
{
    *out = NULL;
    if (nranks < 1 || !rts)
        return snprintf(err, n, "cute_comm_open: %d ranks%s", nranks, rts ? "" : ", no runtimes"),
               CUTE_ERR_INVALID;
    cute_comm *c = calloc(1, sizeof *c);
    int *devs = calloc((size_t)nranks, sizeof *devs);
    if (c) c->comms = calloc((size_t)nranks, sizeof *c->comms), c->cu = calloc((size_t)nranks, sizeof *c->cu);
    if (!c || !devs || !c->comms || !c->cu) {
        free(devs), cute_comm_free(c);
        return snprintf(err, n, "cute_comm_open: out of memory"), CUTE_ERR_OOM;
    }
    for (int i = 0; i < nranks; i++)
        if ((devs[i] = device_of(rts, i, &c->cu[i], err, n)) < 0) {
            free(devs), cute_comm_free(c);
            return CUTE_ERR_INVALID;
        }
    const nccl_lib *l = c->nccl = nccl_lib_get(err, n);
    if (!l) {
        free(devs), cute_comm_free(c);
        return CUTE_ERR_UNSUPPORTED;
    }
    int r = l->CommInitAll(c->comms, nranks, devs);
    free(devs);
    if (r != NCCL_SUCCESS) {
        nccl_say(l, r, "cute_comm_open: ncclCommInitAll", NULL, err, n);
        cute_comm_free(c);
        return CUTE_ERR_LAUNCH;
    }
    c->n = nranks;
    *out = c;
    return CUTE_OK;
}

void cute_comm_free(cute_comm *c)
{
    if (!c) return;
    for (int i = 0; c->comms && i < c->n; i++)
        if (c->comms[i]) c->nccl->CommDestroy(c->comms[i]);
    free(c->comms), free(c->cu), free(c);
}

int cute_comm_size(const cute_comm *c) { return c ? c->n : 0; }

/* one NCCL call a rank, in one group; over a single rank, a copy: NCCL 2.28.3's average over
 * one rank left the last 8 of 61448 f32 elements unwritten (comm_test on one H200,
 * 2026-11-27), and the identity needs no library */
static cute_status run(cute_comm *c, comm_collective k, const cute_call_arg *send,
                       const cute_call_arg *recv, int op, void *const *streams, char *err, size_t n)
{
    size_t count = 0;
    int type = 0;
    if (!c) return snprintf(err, n, "%s: the communicator is NULL", comm_name(k)), CUTE_ERR_INVALID;
    cute_status s = comm_check_call(c->n, c->nccl->version, k, send, recv, op, &count, &type, err, n);
    if (s != CUTE_OK) return s;
    if (c->n == 1) { /* every collective over one rank is its input: a copy, or nothing in place */
        void *st = streams ? streams[0] : NULL;
        char *from = comm_start(&send[0]), *to = comm_start(&recv[0]);
        size_t bytes = count * (size_t)cute_dtype_bytes((cute_dtype)send[0].dtype);
        if (from == to || !bytes) return CUTE_OK;
        s = cute_cuda_copy_dtod_async(c->cu[0], (cute_devptr)(uintptr_t)to, (cute_devptr)(uintptr_t)from, bytes, st);
        if (s != CUTE_OK) snprintf(err, n, "%s over one rank: %s", comm_name(k), cute_cuda_error(c->cu[0]));
        return s;
    }
    const nccl_lib *l = c->nccl;
    int r = l->GroupStart(), rank = 0;
    for (; r == NCCL_SUCCESS && rank < c->n; rank++) {
        void *st = streams ? streams[rank] : NULL, *cm = c->comms[rank];
        r = k == COMM_ALL_REDUCE ? l->AllReduce(comm_start(&send[rank]), comm_start(&recv[rank]), count, type, op, cm, st)
          : k == COMM_REDUCE_SCATTER ? l->ReduceScatter(comm_start(&send[rank]), comm_start(&recv[rank]), count, type, op, cm, st)
                                : l->AllGather(comm_start(&send[rank]), comm_start(&recv[rank]), count, type, cm, st);
    }
    int e = l->GroupEnd();
    if (r != NCCL_SUCCESS || e != NCCL_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "%s: rank %d", comm_name(k), r != NCCL_SUCCESS ? rank - 1 : 0);
        nccl_say(l, r != NCCL_SUCCESS ? r : e, what, c->comms[0], err, n);
        return CUTE_ERR_LAUNCH;
    }
    return CUTE_OK;
}

cute_status cute_comm_all_reduce(cute_comm *c, const cute_call_arg *send, const cute_call_arg *recv,
                                 cute_comm_op op, void *const *streams, char *err, size_t n)
{
    return run(c, COMM_ALL_REDUCE, send, recv, (int)op, streams, err, n);
}

cute_status cute_comm_reduce_scatter(cute_comm *c, const cute_call_arg *send,
                                     const cute_call_arg *recv, cute_comm_op op,
                                     void *const *streams, char *err, size_t n)
{
    return run(c, COMM_REDUCE_SCATTER, send, recv, (int)op, streams, err, n);
}

cute_status cute_comm_all_gather(cute_comm *c, const cute_call_arg *send, const cute_call_arg *recv,
                                 void *const *streams, char *err, size_t n)
{
    return run(c, COMM_ALL_GATHER, send, recv, CUTE_COMM_SUM, streams, err, n);
}

cute_status cute_comm_sync(cute_comm *c, void *const *streams, char *err, size_t n)
{
    if (!c) return snprintf(err, n, "cute_comm_sync: the communicator is NULL"), CUTE_ERR_INVALID;
    for (int i = 0; i < c->n; i++) {
        cute_status s = cute_cuda_stream_sync(c->cu[i], streams ? streams[i] : NULL);
        if (s != CUTE_OK)
            return snprintf(err, n, "cute_comm_sync: rank %d: %s", i, cute_cuda_error(c->cu[i])), s;
        int async = NCCL_SUCCESS;
        c->nccl->CommGetAsyncError(c->comms[i], &async);
        if (async != NCCL_SUCCESS && async != NCCL_IN_PROGRESS) {
            nccl_say(c->nccl, async, "cute_comm_sync: NCCL", c->comms[i], err, n);
            return CUTE_ERR_LAUNCH;
        }
    }
    return CUTE_OK;
}
