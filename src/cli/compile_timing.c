/* `cutec compile ... --emit time`: where a kernel's cold compile goes, phase by phase
 * (docs/compile_time.md).  Tracing and the verifier are timed by the command around its
 * compile (cli_trace_time); here the CUDA C emission, then NVRTC twice: once to PTX only
 * (compute_XX: front end and NVVM), once to a cubin (sm_XX: the same and ptxas), so that
 * ptxas's share is a difference of two CPU times; NVRTC's own --time report of the second
 * compile splits it again (wall clock, as NVRTC measures).  CPU times are the process's:
 * on a busy machine they move less than wall time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cutec/cuda_c.h"
#include "cutec/cuda_driver.h"
#include "cutec/jit.h"
#include "cutec/nvrtc.h"
#include "cutec/ptx.h"

cli_clock cli_clock_now(void)
{
    struct timespec c, w;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
    clock_gettime(CLOCK_MONOTONIC, &w);
    return (cli_clock){c.tv_sec * 1e3 + c.tv_nsec / 1e6, w.tv_sec * 1e3 + w.tv_nsec / 1e6};
}

cli_clock cli_clock_since(cli_clock t0)
{
    cli_clock t = cli_clock_now();
    return (cli_clock){t.cpu_ms - t0.cpu_ms, t.wall_ms - t0.wall_ms};
}

static void row(const char *phase, cli_clock t, const char *note)
{
    printf("%-34s %9.1f %9.1f%s%s\n", phase, t.cpu_ms, t.wall_ms, *note ? "  " : "", note);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; s && *s; s++) n += *s == '\n';
    return n;
}

/* NVRTC's --time report: the last value of each phase it names, in ms (-1: absent) */
static void nvrtc_phases(const char *path, double ms[3])
{
    static const char *names[3] = {"CUDA C++ Frontend", "NVVM Optimizer", "PTX Translation"};
    ms[0] = ms[1] = ms[2] = -1;
    FILE *f = fopen(path, "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        for (int k = 0; k < 3; k++) {
            const char *at = strstr(line, names[k]);
            if (at) ms[k] = atof(at + strlen(names[k]) + 1);
        }
    if (f) fclose(f);
}

/* one NVRTC compile of src for arch, timed; extra: one more option or NULL.  NVRTC's own
 * cache is off: with it, the cubin run after the PTX run of the same source came back on a
 * GPU machine in 40 ms with "ptxas 0" (bench/RESULTS.md, session 24) */
static bool nvrtc_timed(cute_nvrtc *nv, const char *src, const char *arch, const char *extra,
                        cli_clock *t, size_t *ptx_lines)
{
    cute_nvrtc_output o;
    const char *opts[2] = {"--no-cache", extra};
    cli_clock t0 = cli_clock_now();
    cute_status s = cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = arch, .extra = opts, .nextra = extra != NULL ? 2 : 1}, &o);
    *t = cli_clock_since(t0);
    if (s != CUTE_OK) fprintf(stderr, "cutec compile: NVRTC (%s): %s\n", arch, o.log ? o.log : "");
    else if (ptx_lines) *ptx_lines = (size_t)count_lines(o.ptx);
    cute_nvrtc_output_free(&o);
    return s == CUTE_OK;
}

static int timing_of(const char *src, const char *arch, cute_nvrtc *nv)
{
    char virt[32], tfile[] = "/tmp/cutec-time-XXXXXX", topt[64];
    snprintf(virt, sizeof virt, "compute_%s", strncmp(arch, "sm_", 3) ? arch : arch + 3);
    int fd = mkstemp(tfile);
    if (fd < 0) return fprintf(stderr, "cutec compile: no temporary file for NVRTC's times\n"), CLI_FAIL;
    close(fd);
    snprintf(topt, sizeof topt, "--time=%s", tfile);
    cli_clock to_ptx, to_cubin;
    size_t ptx_lines = 0;
    bool ok = nvrtc_timed(nv, src, virt, NULL, &to_ptx, &ptx_lines) &&
              nvrtc_timed(nv, src, arch, topt, &to_cubin, NULL);
    double ms[3];
    nvrtc_phases(tfile, ms);
    unlink(tfile);
    if (!ok) return CLI_FAIL;
    char note[96];
    snprintf(note, sizeof note, "%zu lines of PTX", ptx_lines);
    row("NVRTC to PTX (front end + NVVM)", to_ptx, note);
    row("ptxas (PTX to cubin, difference)", (cli_clock){to_cubin.cpu_ms - to_ptx.cpu_ms, to_cubin.wall_ms - to_ptx.wall_ms}, "");
    row("NVRTC to cubin (all of it)", to_cubin, "");
    printf("  NVRTC's own split of that, wall ms: front end %.0f, NVVM %.0f, ptxas %.0f\n", ms[0], ms[1], ms[2]);
    return CLI_OK;
}

/* ptxas's "Used N registers" of the first kernel in its report, or -1 */
static int registers_of(const char *log)
{
    const char *at = log ? strstr(log, "Used ") : NULL;
    return at ? atoi(at + 5) : -1;
}

/* tiers (docs/compile_time.md, "Tiers"; off with CUTEC_TIER=0): the PTX backend's rows,
 * then CUDA C's emission (the cache key needs it before the first module), then NVRTC's
 * rows, which run in the background, and the first module's sum */
static bool tiers_timed(void) { return cute_cuda_tiers_on(); }

/* CUTEC_CODEGEN=ptx: the PTX backend's emission, then ptxas (the toolkit's binary: its CPU
 * time is the child's), and where a GPU is, the driver's JIT on the same PTX.  false (with
 * the reason printed) where the PTX backend does not say this kernel: CUDA C's rows follow */
static bool ptx_timing(const struct cute_fn *f, const char *arch, cli_clock *total)
{
    char err[4096], *ptx = NULL, *log = NULL, note[512];
    int nk = cute_fn_kernel_count(f);
    const cute_ir_func **k = calloc((size_t)(nk > 0 ? nk : 1), sizeof *k);
    for (int i = 0; k && i < nk; i++) k[i] = cute_fn_kernel(f, i);
    cli_clock t0 = cli_clock_now();
    cute_ptx_opts o = {.arch = arch};
    cute_status s = k ? cute_ptx_emit(k, nk, &o, &ptx, err, sizeof err) : CUTE_ERR_OOM;
    free(k);
    cli_clock emit = cli_clock_since(t0);
    if (s != CUTE_OK) {
        printf("PTX backend: %s; CUDA C and NVRTC instead\n", err);
        return false;
    }
    snprintf(note, sizeof note, "%d lines, %zu bytes of PTX", count_lines(ptx), strlen(ptx));
    row("emit PTX", emit, note);
    double child = 0;
    t0 = cli_clock_now();
    int level = tiers_timed() ? cute_cuda_tier_opt_level() : 3; /* the first tier's ptxas level */
    s = cute_ptx_assemble(ptx, arch, level, NULL, NULL, &log, &child, err, sizeof err);
    cli_clock as = cli_clock_since(t0);
    if (s == CUTE_OK) {
        snprintf(note, sizeof note, "%d registers, %ld bytes spilled (ptxas -O%d, %s)", registers_of(log),
                 cute_ptx_spilled(log), level,
                 cute_ptx_assembler() == CUTE_PTX_ASM_NVJITLINK
                     ? "libnvJitLink in this process; CPU: this thread's"
                     : "the toolkit's binary; CPU: the child's");
        row("ptxas (PTX to cubin)", (cli_clock){child, as.wall_ms}, note);
        *total = (cli_clock){emit.cpu_ms + child, emit.wall_ms + as.wall_ms};
        row("PTX backend to cubin (all of it)", *total, "");
    } else {
        printf("ptxas: %s\n", err);
    }
    free(log);
    cute_cuda *cu = NULL;
    if (cute_cuda_open(&(cute_cuda_opts){0}, &cu, err, sizeof err) == CUTE_OK) {
        void *cubin = NULL;
        size_t len = 0;
        char info[4096];
        t0 = cli_clock_now();
        s = cute_cuda_link_ptx(cu, ptx, 3, &cubin, &len, info, sizeof info);
        cli_clock jit = cli_clock_since(t0);
        if (s == CUTE_OK) {
            snprintf(note, sizeof note, "%d registers (cuLinkComplete, -O3, on %s)", registers_of(info), cute_cuda_device(cu)->name);
            row("driver JIT (PTX to cubin)", jit, note);
            row("PTX backend to cubin, driver JIT", (cli_clock){emit.cpu_ms + jit.cpu_ms, emit.wall_ms + jit.wall_ms}, "");
            /* what the driver's ptxas warns of (wgmma serialized, spills) */
            for (const char *l = info; *l;) {
                char line[sizeof info];
                size_t n = strcspn(l, "\n");
                snprintf(line, sizeof line, "%.*s", (int)n, l);
                if (strstr(line, "arning") || strstr(line, "spill")) printf("driver JIT: %s\n", line);
                l += n + (l[n] == '\n');
            }
        } else {
            printf("driver JIT: %s\n", cute_cuda_error(cu));
        }
        free(cubin);
        void *mod = NULL; /* the driver's JIT compiler on the PTX as a module (CUTEC_PTX_ASM=loaddata) */
        t0 = cli_clock_now();
        s = cute_cuda_module_load_ptx(cu, ptx, level, &mod, info, sizeof info);
        jit = cli_clock_since(t0);
        if (s == CUTE_OK) {
            snprintf(note, sizeof note, "%d registers, %ld bytes spilled (cuModuleLoadDataEx, -O%d)", registers_of(info),
                     cute_ptx_spilled(info), level);
            row("driver JIT, PTX loaded as a module", jit, note);
            cute_cuda_module_unload(cu, mod);
        } else {
            printf("driver JIT, PTX loaded as a module: %s\n", cute_cuda_error(cu));
        }
        cute_cuda_close(cu);
    }
    free(ptx);
    return s == CUTE_OK;
}

int cli_compile_timing(const struct cute_fn *f, const char *arch, cli_clock trace, cli_clock verify)
{
    char err[4096], *src = NULL;
    bool tiers = tiers_timed(), ptx = cute_ptx_wanted() || tiers, first_ok = false;
    cli_clock first = {0, 0};
    if (ptx) {
        printf("%-34s %9s %9s\n", "phase", "cpu ms", "wall ms");
        row("trace (with lowering)", trace, "");
        row("verify the IR", verify, "");
        first_ok = ptx_timing(f, arch, &first);
        if (first_ok && !tiers) return CLI_OK;
    }
    cli_clock t0 = cli_clock_now();
    if (cute_fn_code(f, "cuda", arch, &src, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec compile: %s\n", err);
        return CLI_FAIL;
    }
    cli_clock emit = cli_clock_since(t0);
    if (first_ok) {
        first = (cli_clock){trace.cpu_ms + verify.cpu_ms + emit.cpu_ms + first.cpu_ms,
                            trace.wall_ms + verify.wall_ms + emit.wall_ms + first.wall_ms};
        row("tiers: the first module", first, "trace + verify + emit CUDA C (below) + PTX backend to cubin");
        printf("tiers: NVRTC's rows below run on a background thread\n");
    }
    if (!ptx) {
        printf("%-34s %9s %9s\n", "phase", "cpu ms", "wall ms");
        row("trace (with lowering)", trace, "");
        row("verify the IR", verify, "");
    }
    char note[96];
    snprintf(note, sizeof note, "%d lines, %zu bytes of CUDA C", count_lines(src), strlen(src));
    row("emit CUDA C", emit, note);
    cute_nvrtc *nv = NULL;
    int rc = cute_nvrtc_open(&nv, NULL, err, sizeof err) == CUTE_OK ? timing_of(src, arch, nv) : CLI_FAIL;
    if (!nv) fprintf(stderr, "cutec compile: %s\n", err);
    cute_nvrtc_close(nv);
    free(src);
    return rc;
}
