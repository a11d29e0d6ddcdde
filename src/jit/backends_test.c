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

int main(void)
{
    rows_are_complete();
    runtime_takes_the_row();
    return CHECK_DONE("backends_test");
}
