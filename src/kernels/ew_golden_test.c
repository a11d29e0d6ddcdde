/* Golden IR: the traced f32 add kernel, dumped, compared with the text kept beside this
 * test (src/kernels/testdata/ew_add_f32.ir).  A change in tracing, lowering or the
 * elementwise kernel shows up here as a diff; CUTEC_UPDATE_GOLDEN=1 rewrites the file after
 * the change has been read and found right. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/interp.h"
#include "cutec/kernels.h"

#define GOLDEN "src/kernels/testdata/ew_add_f32.ir"


int main(void)
{
    char err[1024];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        CHECK(false, "%s", err);
        return CHECK_DONE("ew_golden_test");
    }
    cute_buffer fake = {(void *)(uintptr_t)4096, (size_t)1 << 30, 0, 0};
    int64_t shape[1] = {1000}, stride[1] = {1};
    cute_call_arg a = cute_call_tensor(&fake, 0, CUTE_F32, 1, shape, stride);
    cute_call_arg in[2] = {a, a};
    const cute_fn *f = cute_ew_compile(rt, "ew", cute_ew_op_expr, (void *)(intptr_t)CUTE_EW_ADD, 2, in, &a,
                                 NULL, err, sizeof err);
    CHECK(f != NULL, "%s", err);
    if (f) {
        char *got = cute_ir_text(cute_fn_kernel(f, 0));
        CHECK(got != NULL, "the IR as text");
        if (!got) got = strdup("");
        if (getenv("CUTEC_UPDATE_GOLDEN")) {
            FILE *w = fopen(GOLDEN, "wb");
            if (w) fputs(got, w), fclose(w);
        }
        char *want = check_read_file(GOLDEN);
        CHECK(want && strcmp(got, want) == 0, "the IR differs from %s (CUTEC_UPDATE_GOLDEN=1 "
                                              "rewrites it):\n%s", GOLDEN, got);
        free(want);
        free(got);
        cute_fn_free(f);
    }
    cute_runtime_free(rt);
    return CHECK_DONE("ew_golden_test");
}
