/* NCCL through dlopen (nccl_lib.h): found once for the process (runtime/dynlib.c). */
#include "nccl_lib.h"

#include <stdio.h>

#include "runtime/dynlib.h"

#define SYM(field, name) DYNLIB_SYM(nccl_lib, field, name)
static const dynlib_sym syms[] = {
    SYM(GetVersion, "ncclGetVersion"),
    SYM(CommInitAll, "ncclCommInitAll"),
    SYM(CommDestroy, "ncclCommDestroy"),
    SYM(CommGetAsyncError, "ncclCommGetAsyncError"),
    SYM(AllReduce, "ncclAllReduce"),
    SYM(ReduceScatter, "ncclReduceScatter"),
    SYM(AllGather, "ncclAllGather"),
    SYM(GroupStart, "ncclGroupStart"),
    SYM(GroupEnd, "ncclGroupEnd"),
    SYM(GetErrorString, "ncclGetErrorString"),
    DYNLIB_OPTIONAL(nccl_lib, GetLastError, "ncclGetLastError"),
};
#undef SYM

static bool version(void *table, const char *path, char *err, size_t n)
{
    nccl_lib *l = table;
    if (l->GetVersion(&l->version) == NCCL_SUCCESS && l->version >= 20000) return true;
    snprintf(err, n, "%s: NCCL version %d, cutec needs NCCL 2", path, l->version);
    return false;
}

static const dynlib_spec nccl = {
    .what = "NCCL",
    .env = "CUTEC_NCCL",
    .names = (const char *const[]){"libnccl.so.2", NULL},
    .syms = syms,
    .nsyms = sizeof syms / sizeof *syms,
    .hint = "install NCCL or name the library in CUTEC_NCCL",
    .too_old = "not an NCCL 2 library",
    .check = version,
};

static dynlib_once once = DYNLIB_ONCE_INIT;
static nccl_lib lib;

const nccl_lib *nccl_lib_get(char *err, size_t n)
{
    return dynlib_open_once(&once, &nccl, &lib, err, n) ? &lib : NULL;
}

void nccl_say(const nccl_lib *l, int result, const char *what, void *comm, char *err, size_t n)
{
    const char *last = l->GetLastError && comm ? l->GetLastError(comm) : NULL;
    snprintf(err, n, "%s: %s%s%s%s", what, l->GetErrorString(result), last && *last ? " (" : "",
             last && *last ? last : "", last && *last ? ")" : "");
}
