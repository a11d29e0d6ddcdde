/* NCCL through dlopen (nccl_lib.h): found once for the process (pthread_once). */
#include "nccl_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYM(field, name, optional) {name, offsetof(nccl_lib, field), optional}
static const struct {
    const char *name;
    size_t at;
    bool optional;
} syms[] = {
    SYM(GetVersion, "ncclGetVersion", false),
    SYM(CommInitAll, "ncclCommInitAll", false),
    SYM(CommDestroy, "ncclCommDestroy", false),
    SYM(CommGetAsyncError, "ncclCommGetAsyncError", false),
    SYM(AllReduce, "ncclAllReduce", false),
    SYM(ReduceScatter, "ncclReduceScatter", false),
    SYM(AllGather, "ncclAllGather", false),
    SYM(GroupStart, "ncclGroupStart", false),
    SYM(GroupEnd, "ncclGroupEnd", false),
    SYM(GetErrorString, "ncclGetErrorString", false),
    SYM(GetLastError, "ncclGetLastError", true),
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static nccl_lib lib;
static bool loaded;
static char why[512];

static void load(void)
{
    const char *path = getenv("CUTEC_NCCL");
    if (!path || !*path) path = "libnccl.so.2";
    if (!(lib.so = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "cannot load NCCL (%s): %s; install NCCL or name the library "
                 "in CUTEC_NCCL", path, e ? e : "not found");
        return;
    }
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
        void *p = dlsym(lib.so, syms[i].name);
        if (!p && !syms[i].optional) {
            snprintf(why, sizeof why, "%s has no %s: not an NCCL 2 library", path, syms[i].name);
            return;
        }
        memcpy((char *)&lib + syms[i].at, &p, sizeof p);
    }
    if (lib.GetVersion(&lib.version) != NCCL_SUCCESS || lib.version < 20000) {
        snprintf(why, sizeof why, "%s: NCCL version %d, cutec needs NCCL 2", path, lib.version);
        return;
    }
    loaded = true;
}

const nccl_lib *nccl_lib_get(char *err, size_t n)
{
    pthread_once(&once, load);
    if (!loaded && n) snprintf(err, n, "%s", why);
    return loaded ? &lib : NULL;
}

void nccl_say(const nccl_lib *l, int result, const char *what, void *comm, char *err, size_t n)
{
    const char *last = l->GetLastError && comm ? l->GetLastError(comm) : NULL;
    snprintf(err, n, "%s: %s%s%s%s", what, l->GetErrorString(result), last && *last ? " (" : "",
             last && *last ? last : "", last && *last ? ")" : "");
}
