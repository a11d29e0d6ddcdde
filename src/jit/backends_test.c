/* The backend registry: every row opens what its name says, the runtime picks a backend by
 * its row (not by name compares of its own), and a name no row has is refused with the
 * names there are. */
#include <string.h>

#include "check.h"
#include "cutec/jit.h"

static void rows_are_complete(void)
{
    CHECK(cute_backend_count() >= 2, "%d backends", cute_backend_count());
    for (int i = 0; i < cute_backend_count(); i++) {
        const cute_backend_info *b = cute_backend_at(i);
        CHECK(b && b->name && b->what && b->open, "row %d complete", i);
        CHECK(b && cute_backend_find(b->name) == b, "row %d found by its name", i);
        CHECK(b && b->gpu != b->interprets, "%s: on the GPU or interpreted", b ? b->name : "?");
    }
    CHECK(cute_backend_at(cute_backend_count()) == NULL && cute_backend_at(-1) == NULL, "range");
    CHECK(cute_backend_find("nope") == NULL && cute_backend_find(NULL) == NULL, "no such row");
}

static void runtime_takes_the_row(void)
{
    char err[256];
    cute_runtime *rt = NULL;
    CHECK(cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK, "%s", err);
    if (rt) {
        CHECK(cute_runtime_interprets(rt) && !cute_runtime_on_gpu(rt), "interp's flags");
        CHECK(!strcmp(cute_runtime_backend_name(rt), "interp"), "%s", cute_runtime_backend_name(rt));
        cute_runtime_free(rt);
    }
    rt = NULL;
    cute_status s = cute_runtime_new("vulkan", &rt, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID && !rt, "an unknown backend: %s", cute_status_name(s));
    CHECK(strstr(err, "vulkan") && strstr(err, "cuda, interp"), "names them: %s", err);
    CHECK(!cute_runtime_on_gpu(NULL) && !cute_runtime_interprets(NULL), "NULL runtime");
}

/* "cuda:N" opens the GPU of ordinal N; a malformed one is an unknown backend, and a device
 * that is not there is the driver's error naming it */
static void cuda_by_ordinal(void)
{
    const char *bad[] = {"cuda:", "cuda:x", "cuda:-1", "cuda: 1", "cuda:1x", "cuda1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[256] = "";
        cute_runtime *rt = NULL;
        cute_status s = cute_runtime_new(bad[i], &rt, err, sizeof err);
        CHECK(s == CUTE_ERR_INVALID && !rt && strstr(err, bad[i]), "%s: %s (%s)", bad[i],
              cute_status_name(s), err);
    }
    char err[256] = "";
    cute_runtime *rt = NULL;
    cute_status s = cute_runtime_new("cuda:4096", &rt, err, sizeof err);
    CHECK(s == CUTE_ERR_NO_DRIVER && !rt, "no device 4096: %s (%s)", cute_status_name(s), err);
    CHECK(strstr(err, "4096") || strstr(err, "libcuda"), "says which: %s", err);
}

int main(void)
{
    rows_are_complete();
    runtime_takes_the_row();
    cuda_by_ordinal();
    return CHECK_DONE("backends_test");
}
