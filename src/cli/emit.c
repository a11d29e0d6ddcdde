/* What `cutec compile ... --emit` prints for a traced kernel: its IR, or the CUDA C, PTX or
 * SASS of it (cute_fn_code: the library's own path, which any program can call for its own
 * kernels).  No GPU is needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cutec/jit.h"

int cli_emit_kernel(const cute_fn *f, const char *emit, const char *arch)
{
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
