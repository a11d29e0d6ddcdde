/* A sealed cubin from the disk cache that loads but faults is not kept forever: its launch
 * leaves a sticky error, the backend removes the entry and says so, and the next process
 * compiles the kernel afresh and runs it.  Each step is its own process (a faulted CUDA
 * context is unusable), forked before any CUDA call.  Without a GPU it skips visibly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cutec/cuda_driver.h"

static const char *good = "extern \"C\" __global__ void cutec_k(int *out) { out[0] = 7; }\n";
/* same name and parameters, and a fault: what a stale or planted cubin may do */
static const char *bad = "extern \"C\" __global__ void cutec_k(int *out)\n"
                         "{ if (out[0] == 12345) out[1] = 1; asm volatile(\"trap;\"); }\n";
static char root[256];
enum { NO_GPU = 77 };

static cute_status emit(void *user, cute_ir_func *const *kernels, int n, const char *arch,
                        bool lineinfo, char **out, char *err, size_t errn)
{
    (void)kernels, (void)n, (void)arch, (void)lineinfo, (void)err, (void)errn;
    *out = strdup(user);
    return *out ? CUTE_OK : CUTE_ERR_OOM;
}

typedef struct gpu {
    cute_cache *cache;
    cute_backend b;
    cute_ir_func *k;
} gpu;

/* a backend whose code generator emits `text`, on the cache in root/sub */
static bool gpu_open(gpu *g, const char *sub, const char *text)
{
    char dir[400], err[512];
    snprintf(dir, sizeof dir, "%s/%s", root, sub);
    cute_cache_opts co = {.dir = dir};
    g->cache = cute_cache_open(&co);
    cute_cuda_backend_opts o = {.cache = g->cache, .emit = emit, .emit_user = (void *)text};
    if (cute_cuda_backend_new(&o, &g->b, err, sizeof err) != CUTE_OK) {
        cute_cache_close(g->cache);
        return false;
    }
    g->k = cute_ir_func_new("cutec_k");
    cute_ir_add_param(g->k, cute_type_ptr(CUTE_I32, CUTE_GMEM), NULL);
    return true;
}

static void gpu_close(gpu *g)
{
    g->b.vt->destroy(g->b.self);
    cute_ir_func_free(g->k);
    cute_cache_close(g->cache);
}

/* compile, launch one thread, sync; the status, the backend's message into err */
static cute_status compile_and_run(gpu *g, char *err, size_t n)
{
    cute_module *m = NULL;
    const char *log = "";
    cute_buffer buf = {0};
    cute_status s = g->b.vt->compile(g->b.self, &g->k, 1, &m, &log);
    if (s == CUTE_OK) s = g->b.vt->alloc(g->b.self, 64, &buf);
    cute_launch_arg a = {.type = cute_type_ptr(CUTE_I32, CUTE_GMEM), .buf = &buf};
    cute_launch cfg = {.grid = {1, 1, 1}, .block = {1, 1, 1}};
    if (s == CUTE_OK) s = g->b.vt->launch(g->b.self, m, 0, &cfg, &a, 1);
    if (s == CUTE_OK) s = g->b.vt->sync(g->b.self, NULL);
    snprintf(err, n, "%s%s", g->b.vt->error(g->b.self), log);
    return s;
}

static int first_key(const cute_cache_entry *e, void *user)
{
    *(cute_cache_key *)user = e->key;
    return 1;
}

/* step 1: the good kernel's entry, then the faulting kernel's cubin sealed under its key */
static int plant(void)
{
    gpu g, other;
    char err[2048];
    if (!gpu_open(&g, "cache", good)) return NO_GPU;
    CHECK(compile_and_run(&g, err, sizeof err) == CUTE_OK, "the good kernel: %s", err);
    if (!gpu_open(&other, "other", bad)) {
        CHECK(false, "a second backend");
        gpu_close(&g);
        return check_failed;
    }
    cute_module *m = NULL;
    const char *log = "";
    CHECK(other.b.vt->compile(other.b.self, &other.k, 1, &m, &log) == CUTE_OK, "bad: %s", log);
    other.b.vt->module_free(other.b.self, m);
    cute_cache_key kg, kb;
    void *payload = NULL;
    size_t len = 0;
    CHECK(cute_cache_list(g.cache, first_key, &kg) && cute_cache_list(other.cache, first_key, &kb) &&
              cute_cache_get(other.cache, &kb, &payload, &len) &&
              cute_cache_put(g.cache, &kg, payload, len),
          "the faulting cubin sealed under the good kernel's key");
    free(payload);
    gpu_close(&other);
    gpu_close(&g);
    return check_failed;
}

/* step 2: a fresh process loads the sealed cubin from disk; it faults; the entry goes */
static int fault(void)
{
    gpu g;
    char err[2048];
    if (!gpu_open(&g, "cache", good)) return NO_GPU;
    cute_status s = compile_and_run(&g, err, sizeof err);
    CHECK(s == CUTE_ERR_LAUNCH && strstr(err, "came from the JIT cache") && strstr(err, "removed"),
          "the fault names the cache entry and its removal: %d %s", s, err);
    gpu_close(&g);
    return check_failed;
}

static int count(const cute_cache_entry *e, void *user)
{
    (void)e;
    ++*(int *)user;
    return 0;
}

/* step 3: the next process finds no entry, compiles afresh and runs */
static int afresh(void)
{
    gpu g;
    char err[2048];
    if (!gpu_open(&g, "cache", good)) return NO_GPU;
    int n = 0;
    cute_cache_list(g.cache, count, &n);
    CHECK(n == 0, "the faulting entry is gone (%d entries)", n);
    CHECK(compile_and_run(&g, err, sizeof err) == CUTE_OK, "compiled afresh and run: %s", err);
    gpu_close(&g);
    return check_failed;
}

/* run step in a child; its exit status */
static int in_child(int (*step)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) exit(step());
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void)
{
    snprintf(root, sizeof root, "%s/cutec-fault-test-XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    int (*steps[])(void) = {plant, fault, afresh};
    const char *names[] = {"plant a faulting cubin", "the fault removes it", "compiled afresh"};
    for (int i = 0; i < 3; i++) {
        int rc = in_child(steps[i]);
        if (rc == NO_GPU) {
            SKIP("no GPU (or no NVRTC): a faulting cached cubin is not tried");
            break;
        }
        CHECK(rc == 0, "step %d (%s): exit %d", i + 1, names[i], rc);
        if (rc) break;
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return CHECK_DONE("cache_fault_gpu_test");
}
