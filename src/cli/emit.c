/* What `cutec compile ... --emit` prints for a traced kernel: its IR, or the CUDA C, PTX or
 * SASS of it (cute_fn_code: the library's own path, which any program can call for its own
 * kernels), or the time each phase of its cold compile takes.  No GPU is needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cutec/jit.h"

const char *cli_emit_form(const char *emit)
{
    static const char *const forms[] = {"ir", "cuda", "ptx", "sass", "usage", "banks", "time", "export"};
    if (!emit) return "cuda";
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
        if (!strcmp(emit, forms[i])) return emit;
    fprintf(stderr, "cutec: --emit %s: one of", emit);
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) fprintf(stderr, "%s %s", i ? "," : "", forms[i]);
    fputc('\n', stderr);
    return NULL;
}

/* the verifier over every kernel of f, timed (it ran once already, in the compile) */
static cli_clock verify_time(const cute_fn *f)
{
    char err[1024];
    cli_clock t0 = cli_clock_now();
    for (int i = 0; i < cute_fn_kernel_count(f); i++) cute_ir_verify(cute_fn_kernel(f, i), err, sizeof err);
    return cli_clock_since(t0);
}

int cli_emit_kernel(const cute_fn *f, const char *emit, const char *arch, cli_clock trace)
{
    if (!strcmp(emit, "time")) {
        /* (the callers pass --arch or CUTEC_ARCH, each refused already where it is no target) */
        const char *a = arch && *arch ? arch : "sm_90a";
        cli_clock v = verify_time(f);
        trace.cpu_ms -= v.cpu_ms, trace.wall_ms -= v.wall_ms;
        return cli_compile_timing(f, a, trace, v);
    }
    if (!strcmp(emit, "export")) return cli_export_kernel(f);
    if (!strcmp(emit, "ir")) {
        cute_ir_dump(stdout, cute_fn_kernel(f, 0));
        return CLI_OK;
    }
    char err[4096], *text = NULL;
    if (cute_fn_code(f, emit, arch, &text, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec compile: %s\n", err);
        return CLI_FAIL;
    }
    fputs(text, stdout);
    if (*text && text[strlen(text) - 1] != '\n') putchar('\n'); /* ptxas's report ends without one */
    free(text);
    return CLI_OK;
}

int cli_emit_compiled(const char *kernel, cli_compile_fn compile, const void *cfg, const char *emit,
                      const char *arch)
{
    char err[4096];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec compile %s: %s\n", kernel, err);
        return CLI_FAIL;
    }
    cute_runtime_set_target_arch(rt, arch);
    cli_clock t0 = cli_clock_now();
    const cute_fn *f = compile(rt, cfg, err, sizeof err);
    int rc = f ? cli_emit_kernel(f, emit, arch, cli_clock_since(t0)) : CLI_FAIL;
    if (!f) fprintf(stderr, "cutec compile %s: %s\n", kernel, err);
    cute_fn_free(f);
    cute_runtime_free(rt);
    return rc;
}
