/* The toolkit's ptxas binary on a PTX module (or libnvJitLink's ptxas: ptx_nvjitlink.c):
 * the CUDA backend's PTX modules and first tiers, `cutec compile --codegen ptx --emit
 * usage|time`, and the tests that prove the PTX assembles.  (CUTEC_PTX_ASM=driver, or no
 * binary: the driver's JIT instead, cute_cuda_link_ptx.) */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cutec/ptx.h"
#include "env/env_choice.h"
#include "ptx_internal.h" /* px_sums_wanted */
#include "runtime/file_text.h"

extern char **environ;

/* How the binary starts: posix_spawn (CUTEC_PTXAS_SPAWN=1; glibc's is a vfork: the child
 * shares the caller's memory until its exec) or fork + exec (0).  fork copies the page tables
 * of the whole caller (a first tier compiles inside a process with a CUDA context, NVRTC
 * loaded and, early, NVRTC's final tier growing its heap beside it): on the development
 * machine a caller with 1 GB resident took 25-70 ms in fork() alone, posix_spawn 0.1 ms; on
 * the H200's host (cutec bench tiers) neither was sooner beyond the host's noise.  Unset:
 * ptxas_spawn_default (scripts/device-cold15.sh decides it). */
static const bool ptxas_spawn_default = false;

bool px_ptxas_spawned(void) { return cute_env_choice_warn("CUTEC_PTXAS_SPAWN", "0|1", ptxas_spawn_default) == 1; }

/* The binary's malloc on transparent huge pages (CUTEC_PTXAS_THP=1): glibc.malloc.hugetlb=1
 * added to GLIBC_TUNABLES in its environment (glibc 2.35 and later; an older glibc ignores
 * it, as does a kernel whose THP is "never").  ptxas touches about 45 MB of fresh memory on
 * the Hopper GEMM, 11,100 page faults (500-1,500 with it): on the development machine 291 ->
 * 269 ms of CPU at -O1, step 5 83 -> 74; on the H200's host (THP "madvise") ptxas alone was
 * slower on them, 509 against 392 ms and 534 against 393.  Unset: ptxas_thp_default
 * (device-cold15.sh). */
static const bool ptxas_thp_default = false;

bool px_ptxas_thp(void) { return cute_env_choice_warn("CUTEC_PTXAS_THP", "0|1", ptxas_thp_default) == 1; }

/* the binary's environment: environ, or (CUTEC_PTXAS_THP) a copy with GLIBC_TUNABLES asking
 * for huge pages, malloc'd with its one new string (*owned): both freed by the caller */
static char **ptxas_environ(char **owned)
{
    static const char prefix[] = "GLIBC_TUNABLES=", thp[] = "glibc.malloc.hugetlb=1";
    *owned = NULL;
    if (!px_ptxas_thp()) return environ;
    size_t n = 0;
    while (environ[n]) n++;
    const char *old = getenv("GLIBC_TUNABLES");
    size_t len = sizeof prefix + sizeof thp + (old ? strlen(old) + 1 : 0);
    char **env = malloc((n + 2) * sizeof *env), *t = malloc(len);
    if (!env || !t) return free(env), free(t), environ;
    snprintf(t, len, "%s%s%s%s", prefix, old && *old ? old : "", old && *old ? ":" : "", thp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], prefix, sizeof prefix - 1)) env[k++] = environ[i];
    env[k++] = t, env[k] = NULL;
    *owned = t;
    return env;
}

/* tool's argv (NULL-ended) with stdout and stderr into msg; its pid, or -1 */
static pid_t start_ptxas(const char *tool, char *const argv[], const char *msg)
{
    char *owned, **env = ptxas_environ(&owned); /* before fork: the child only execs */
    pid_t pid = -1;
    if (px_ptxas_spawned()) {
        posix_spawn_file_actions_t fa;
        if (posix_spawn_file_actions_init(&fa) == 0) {
            bool ok = posix_spawn_file_actions_addopen(&fa, 1, msg, O_WRONLY | O_CREAT | O_TRUNC, 0600) == 0 &&
                      posix_spawn_file_actions_adddup2(&fa, 1, 2) == 0 &&
                      posix_spawn(&pid, tool, &fa, NULL, argv, env) == 0;
            posix_spawn_file_actions_destroy(&fa);
            if (!ok) pid = -1;
        }
    } else if ((pid = fork()) == 0) {
        int fd = open(msg, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) dup2(fd, 1), dup2(fd, 2);
        execve(tool, argv, env);
        _exit(127);
    }
    if (env != environ) free(env), free(owned);
    return pid;
}

static bool executable(const char *path) { return access(path, X_OK) == 0; }

/* $CUTEC_PTXAS, ptxas on PATH, /usr/local/cuda/bin/ptxas */
static bool find_ptxas(char *out, size_t n)
{
    const char *env = getenv("CUTEC_PTXAS");
    if (env && *env) return snprintf(out, n, "%s", env), executable(out);
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t len = strcspn(p, ":");
        snprintf(out, n, "%.*s/ptxas", (int)len, p);
        if (len && executable(out)) return true;
        p += len + (p[len] == ':');
    }
    snprintf(out, n, "/usr/local/cuda/bin/ptxas");
    return executable(out);
}

/* The ptxas binary unless CUTEC_PTX_ASM says otherwise.  The mid pass of session 34 (H200,
 * driver 580.159, toolkit 13.0): the same PTX through the driver's JIT linker took 95
 * registers for RMSNorm (the binary's 76) and spilled 144 bytes in the Hopper GEMM (none):
 * Hopper 626 against 790 TFLOP/s, RMSNorm 73.6% of the copy against 91.8%; the binary's cold
 * compile of the step-5 GEMM 209 ms against the linker's 226 (CPU).  libnvJitLink, in the
 * process, compiles a relocatable unit as the linker does: the Hopper GEMM's first tier spills
 * 340 bytes (setmaxnreg ignored), in the binary's CPU time (docs/compile_time.md).  Where no
 * binary is found the CUDA backend uses the driver's JIT (cuda_backend.c).
 * scripts/device-cold15.sh times each way as a first tier. */
static const cute_ptx_asm ptx_asm_default = CUTE_PTX_ASM_PTXAS;

cute_ptx_asm cute_ptx_assembler(void)
{
    return (cute_ptx_asm)cute_env_choice_warn("CUTEC_PTX_ASM", "driver|ptxas|nvjitlink|loaddata", (int)ptx_asm_default);
}

/* the library in-process instead of the binary, where it loads (else the binary); the
 * driver's JITs are the CUDA backend's */
static bool by_nvjitlink(void) { return cute_ptx_assembler() == CUTE_PTX_ASM_NVJITLINK && px_nvjitlink_found(NULL, 0); }

bool cute_ptx_ptxas_found(char *id, size_t n)
{
    char tool[1024];
    struct stat st;
    if (by_nvjitlink()) return px_nvjitlink_found(id, n);
    if (!find_ptxas(tool, sizeof tool)) return false;
    if (id && n) { /* which binary: a newer toolkit's cubins are other cache entries */
        if (stat(tool, &st) == 0)
            snprintf(id, n, "%s %lld %lld", tool, (long long)st.st_mtime, (long long)st.st_size);
        else
            snprintf(id, n, "%s", tool);
    }
    return true;
}

static double child_cpu_ms(void)
{
    struct rusage u;
    getrusage(RUSAGE_CHILDREN, &u);
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

cute_status cute_ptx_assemble(const char *ptx, const char *arch, int opt, void **cubin, size_t *cubin_len,
                              char **log, double *cpu_ms, char *err, size_t errn)
{
    char tool[1024], dir[] = "/tmp/cutec-ptxas-XXXXXX", in[64], out[64], msg[64], a[48], o[8];
    if (cubin) *cubin = NULL, *cubin_len = 0;
    if (log) *log = NULL;
    if (cpu_ms) *cpu_ms = 0;
    if (by_nvjitlink()) return px_nvjitlink_assemble(ptx, arch, opt, cubin, cubin_len, log, cpu_ms, err, errn);
    if (!find_ptxas(tool, sizeof tool)) {
        snprintf(err, errn, "no ptxas (set CUTEC_PTXAS, or put the CUDA toolkit's bin on PATH)");
        return CUTE_ERR_NO_DRIVER;
    }
    if (!mkdtemp(dir)) return snprintf(err, errn, "ptxas: no temporary directory"), CUTE_ERR_INVALID;
    snprintf(in, sizeof in, "%s/k.ptx", dir);
    snprintf(out, sizeof out, "%s/k.cubin", dir);
    snprintf(msg, sizeof msg, "%s/log", dir);
    snprintf(a, sizeof a, "-arch=%s", arch);
    snprintf(o, sizeof o, "-O%d", opt);
    FILE *f = fopen(in, "w");
    bool wrote = f && fputs(ptx, f) >= 0;
    if (f && fclose(f) != 0) wrote = false;
    cute_status s = CUTE_OK;
    if (!wrote) s = CUTE_ERR_INVALID, snprintf(err, errn, "ptxas: cannot write %s", in);
    double t0 = child_cpu_ms();
    char *argv[] = {tool, a, o, "--verbose", "-o", out, in, NULL};
    if (opt < 0) memmove(argv + 2, argv + 3, 5 * sizeof *argv); /* ptxas's own level */
    pid_t pid = s == CUTE_OK ? start_ptxas(tool, argv, msg) : -1;
    int status = 0;
    if (s == CUTE_OK && (pid < 0 || waitpid(pid, &status, 0) != pid))
        s = CUTE_ERR_INVALID, snprintf(err, errn, "ptxas: could not run %s", tool);
    if (cpu_ms) *cpu_ms = child_cpu_ms() - t0;
    size_t n = 0;
    char *text = s == CUTE_OK ? file_text(msg, &n) : NULL;
    if (s == CUTE_OK && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        s = CUTE_ERR_COMPILE;
        snprintf(err, errn, "ptxas refused the PTX: %.*s", (int)(errn > 64 ? errn - 64 : 0), text ? text : "");
    }
    if (s == CUTE_OK && cubin && !(*cubin = file_text(out, cubin_len)))
        s = CUTE_ERR_INVALID, snprintf(err, errn, "ptxas: no cubin");
    if (log)
        *log = text;
    else
        free(text);
    unlink(in), unlink(out), unlink(msg), rmdir(dir);
    return s;
}

long cute_ptx_spilled(const char *log)
{
    long sum = 0;
    static const char *const what[] = {"bytes spill stores", "bytes spill loads"};
    for (int w = 0; w < 2; w++)
        for (const char *p = log ? strstr(log, what[w]) : NULL; p; p = strstr(p + 1, what[w])) {
            const char *q = p;
            while (q > log && q[-1] == ' ') q--;
            while (q > log && q[-1] >= '0' && q[-1] <= '9') q--;
            sum += strtol(q, NULL, 10);
        }
    return sum;
}

cute_status cute_ptx_assemble_kernels(const cute_ir_func *const *k, int n, const cute_ptx_opts *o, char **ptx, int opt,
                                      void **cubin, size_t *cubin_len, char **log, double *cpu_ms, char *err,
                                      size_t errn)
{
    char *first_log = NULL;
    cute_status s = cute_ptx_assemble(*ptx, o->arch, opt, cubin, cubin_len, &first_log, cpu_ms, err, errn);
    long spilled = s == CUTE_OK ? cute_ptx_spilled(first_log) : 0;
    char *again = NULL, *again_log = NULL, e2[256];
    cute_ptx_opts plain = *o;
    plain.no_sums = true;
    if (spilled > 0 && px_sums_wanted() && !o->no_sums &&
        cute_ptx_emit(k, n, &plain, &again, e2, sizeof e2) == CUTE_OK && strcmp(again, *ptx) != 0) {
        void *c2 = NULL;
        size_t l2 = 0;
        double ms2 = 0;
        if (cute_ptx_assemble(again, o->arch, opt, cubin ? &c2 : NULL, &l2, &again_log, &ms2, e2, sizeof e2) == CUTE_OK &&
            cute_ptx_spilled(again_log) < spilled) { /* the module without SUMS */
            free(*ptx), *ptx = again, again = NULL;
            if (cubin) free(*cubin), *cubin = c2, *cubin_len = l2, c2 = NULL;
            free(first_log), first_log = again_log, again_log = NULL;
        }
        if (cpu_ms) *cpu_ms += ms2;
        free(c2);
    }
    free(again), free(again_log);
    if (log)
        *log = first_log;
    else
        free(first_log);
    return s;
}
