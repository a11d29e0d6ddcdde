/* An autovectorizing load runs along the source's unit-stride mode wherever it lies: a
 * (4,8):(8,1) tile (K contiguous in mode 1, as an MMA fragment's values lie over a K-major
 * shared tile) is read into registers with 16-byte loads, element (i,j) of the source still
 * landing in element (i,j) of the registers; a (4,8):(1,4) tile (unit stride first) as
 * before.  Checked on the interpreter: every value, and the width of the IR's loads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ir_loads.h"
#include "cutec/atom_table.h"
#include "cutec/jit.h"
#include "cutec/notation.h"

/* thread 0 loads X into a compact (4,8) register fragment and stores it to Y (4,8):(1,4) */
static void body(cute_ctx *c, cute_tensor gX, cute_tensor gY)
{
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_make_layout(cute_ctx_alg(c), gY.layout.shape));
    CUTE_IF(c, cute_int_eq(c, cute_thread_idx(c, 0), cute_i(0)))
    {
        cute_autovec_copy(c, gX, r);
        cute_autovec_copy(c, r, gY);
    }
}

static void host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(32)}};
    CUTE_LAUNCH(c, body, cfg, arg[0].tensor, arg[1].tensor);
}

/* X in the given layout (strides s0, s1), Y = X element by element */
static void run(cute_runtime *rt, const char *layout, int64_t s0, int64_t s1, int want_width)
{
    char err[2048];
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F32, layout, 16), cute_spec_tensor(CUTE_F32, "(4,8):(1,4)", 16)};
    const cute_fn *f = cute_compile(rt, "autovec_order", host, NULL, 2, specs, err, sizeof err);
    CHECK(f != NULL, "%s: %s", layout, err);
    if (!f) return;
    int w = ir_widest_load(cute_fn_kernel(f, 0));
    CHECK(w == want_width, "%s: widest load %d elements, want %d", layout, w, want_width);
    float x[64], y[32];
    for (int i = 0; i < 64; i++) x[i] = 1.0f + (float)i * 0.25f;
    for (int i = 0; i < 32; i++) y[i] = NAN; /* poison */
    cute_backend *b = cute_runtime_backend(rt);
    cute_buffer dx, dy;
    b->vt->alloc(b->self, sizeof x, &dx), b->vt->alloc(b->self, sizeof y, &dy);
    b->vt->upload(b->self, &dx, 0, x, sizeof x), b->vt->upload(b->self, &dy, 0, y, sizeof y);
    int64_t shape[2] = {4, 8}, sx[2] = {s0, s1}, sy[2] = {1, 4};
    cute_call_arg args[2] = {cute_call_tensor(&dx, 0, CUTE_F32, 2, shape, sx), cute_call_tensor(&dy, 0, CUTE_F32, 2, shape, sy)};
    char cerr[1024] = "";
    cute_status s = cute_call(f, NULL, 2, args, cerr, sizeof cerr);
    if (s == CUTE_OK) s = b->vt->sync(b->self, NULL);
    CHECK(s == CUTE_OK, "%s: %s", layout, cerr);
    b->vt->download(b->self, y, &dy, 0, sizeof y);
    int bad = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) bad += !(y[i + 4 * j] == x[i * s0 + j * s1]);
    CHECK(bad == 0, "%s: %d of 32 values misplaced", layout, bad);
    b->vt->free(b->self, &dx), b->vt->free(b->self, &dy);
    cute_fn_free(f);
}

int main(void)
{
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        CHECK(false, "interpreter: %s", err);
        return CHECK_DONE("autovec_order_test");
    }
    run(rt, "(4,8):(8,1)", 8, 1, 4); /* unit stride second: 16-byte loads along it */
    run(rt, "(4,8):(1,4)", 1, 4, 4); /* unit stride first */
    run(rt, "(4,8):(16,2)", 16, 2, 1); /* no unit stride: one element at a time */
    cute_runtime_free(rt);
    return CHECK_DONE("autovec_order_test");
}
