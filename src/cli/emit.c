/* What `cutec compile ... --emit` prints for a traced kernel: its IR, the CUDA C the
 * backend generates, the PTX NVRTC makes of it, or the SASS (cuobjdump of the cubin).
 * No GPU is needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cutec/cuda_c.h"
#include "cutec/jit.h"
#include "cutec/nvrtc.h"

static int sass_of(const cute_nvrtc_output *out)
{
    char path[] = "/tmp/cutec-XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (fp) fwrite(out->cubin, 1, out->cubin_size, fp), fclose(fp);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "(command -v cuobjdump >/dev/null && cuobjdump -sass %s) || "
             "/usr/local/cuda/bin/cuobjdump -sass %s", path, path);
    int rc = fp && system(cmd) == 0 ? CLI_OK : CLI_FAIL;
    if (rc != CLI_OK) fprintf(stderr, "cutec compile: cuobjdump is not available\n");
    remove(path);
    return rc;
}

int cli_emit_kernel(const cute_fn *f, const char *emit, const char *arch)
{
    char err[4096];
    const cute_ir_func *k = cute_fn_kernel(f, 0);
    if (!strcmp(emit, "ir")) {
        cute_ir_dump(stdout, k);
        return CLI_OK;
    }
    char *src = NULL;
    cute_cuda_c_opts co = {0};
    co.arch = arch;
    if (cute_cuda_c_emit(&k, 1, &co, &src, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec compile: %s\n", err);
        return CLI_FAIL;
    }
    int rc = CLI_OK;
    if (!strcmp(emit, "cuda")) {
        fputs(src, stdout);
        free(src);
        return rc;
    }
    cute_nvrtc *nv;
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        fprintf(stderr, "cutec compile: %s\n", err);
        free(src);
        return CLI_FAIL;
    }
    cute_nvrtc_output out;
    memset(&out, 0, sizeof out);
    cute_nvrtc_opts no = {0};
    no.arch = arch ? arch : "sm_90a";
    if (cute_nvrtc_compile(nv, src, &no, &out) != CUTE_OK) {
        fprintf(stderr, "cutec compile: NVRTC: %s\n", out.log ? out.log : "");
        rc = CLI_FAIL;
    } else if (!strcmp(emit, "ptx")) {
        fputs(out.ptx, stdout);
    } else {
        rc = sass_of(&out);
    }
    cute_nvrtc_output_free(&out);
    cute_nvrtc_close(nv);
    free(src);
    return rc;
}
