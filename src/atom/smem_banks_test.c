/* A swizzled shared-memory atom is conflict-free, measured: the interpreter counts bank
 * conflicts per access site (CUTEC_BANK_CONFLICTS=1).  One warp reads an (8,64) f16 tile the
 * way ldmatrix x4 reads a K-major A tile: lane t gives row t % 8 of 16-byte column t / 8,
 * each phase of 8 lanes (one 8x8 matrix) eight rows of one column.  Unswizzled, those eight
 * rows are 128 bytes apart: one bank group, 8 wavefronts a phase.  With CuTe's
 * Sw<3,3,3> o (8,64):(64,1) they fall in eight groups: 1 wavefront a phase, the ideal.
 * The same tile is also read by SM75_U32x4_LDSM_N itself. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/atom_table.h"
#include "cutec/interp.h"
#include "cutec/jit.h"
#include "cutec/notation.h"
#include "cutec/smem.h"
#include "cutec/smem_atoms.h"

static bool swizzled, use_ldsm;
static int read_line; /* the line of the read under test */

static void kernel(cute_ctx *c, cute_tensor gIn, cute_tensor gOut)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    cute_composed atom = cute_smem_atom_sm80(a, CUTE_F16, CUTE_MAJOR_K, 64, 128);
    cute_swizzle sw = swizzled ? atom.sw : CUTE_SW_NONE;
    cute_tensor s = cute_smem_alloc_tensor_swizzled(c, &A, CUTE_F16, sw, atom.layout, 16);
    cute_int tid = cute_thread_idx(c, 0);
    /* fill: lane t writes its 16 elements (row t / 4, columns 16 (t % 4) ...) */
    cute_tensor fill = s;
    fill.layout = cute_layout_parse(a, "((4,8),16):((16,64),1)");
    cute_autovec_copy(c, CUTE_SLICE(c, gIn, tid, CUTE_ALL), CUTE_SLICE(c, fill, tid, CUTE_ALL));
    cute_barrier(c);
    /* ldmatrix's rows: lane t = 8 j + r reads row r, elements 8 j .. 8 j + 7 */
    cute_tensor rows = s;
    rows.layout = cute_layout_parse(a, "((8,4),8):((64,8),1)");
    cute_tensor mine = CUTE_SLICE(c, rows, tid, CUTE_ALL);
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F16, cute_layout_parse(a, "8:1"));
    if (use_ldsm) {
        cute_copy_atom ld;
        cute_copy_atom_named(a, "SM75_U32x4_LDSM_N", CUTE_F16, &ld);
        read_line = __LINE__ + 1;
        cute_copy(c, &ld, mine, r);
    } else {
        read_line = __LINE__ + 1;
        cute_autovec_copy(c, mine, r);
    }
    cute_autovec_copy(c, r, CUTE_SLICE(c, gOut, tid, CUTE_ALL));
}

static void host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(32)}};
    CUTE_LAUNCH(c, kernel, cfg, arg[0].tensor, arg[1].tensor);
}

/* the read's site: wavefronts and ideal (false: not run) */
static bool measure(cute_runtime *rt, uint64_t *waves, uint64_t *ideal, const char *what)
{
    char err[2048];
    cute_arg_spec specs[2] = {cute_spec_tensor(CUTE_F16, "(32,16):(16,1)", 16),
                              cute_spec_tensor(CUTE_F16, "(32,8):(8,1)", 16)};
    const cute_fn *f = cute_compile(rt, "banks", host, NULL, 2, specs, err, sizeof err);
    CHECK(f != NULL, "%s: %s", what, err);
    if (!f) return false;
    cute_backend *be = cute_runtime_backend(rt);
    uint16_t in[512], out[256];
    for (int i = 0; i < 512; i++) in[i] = (uint16_t)(0x3c00 + i);
    cute_buffer bi, bo;
    be->vt->alloc(be->self, sizeof in, &bi), be->vt->alloc(be->self, sizeof out, &bo);
    be->vt->upload(be->self, &bi, 0, in, sizeof in);
    int64_t si[2] = {32, 16}, ti[2] = {16, 1}, so[2] = {32, 8}, to[2] = {8, 1};
    cute_call_arg args[2] = {cute_call_tensor(&bi, 0, CUTE_F16, 2, si, ti), cute_call_tensor(&bo, 0, CUTE_F16, 2, so, to)};
    char cerr[1024] = "";
    cute_status s = cute_call(f, NULL, 2, args, cerr, sizeof cerr);
    CHECK(s == CUTE_OK, "%s: %s", what, cerr);
    int n;
    const cute_interp_bank_site *site = cute_interp_bank_sites(*be, &n);
    bool found = false;
    for (int i = 0; i < n; i++)
        if (site[i].line == read_line && strstr(site[i].file, "smem_banks_test.c"))
            *waves = site[i].wavefronts, *ideal = site[i].ideal, found = true;
    CHECK(found, "%s: no bank counts for line %d", what, read_line);
    be->vt->free(be->self, &bi), be->vt->free(be->self, &bo);
    cute_fn_free(f);
    return found;
}

int main(void)
{
    setenv("CUTEC_BANK_CONFLICTS", "1", 1);
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        CHECK(false, "interpreter: %s", err);
        return CHECK_DONE("smem_banks_test");
    }
    for (int ldsm = 0; ldsm < 2; ldsm++)
        for (int sw = 0; sw < 2; sw++) {
            uint64_t waves = 0, ideal = 0;
            swizzled = sw, use_ldsm = ldsm;
            const char *what = sw ? "swizzled" : "unswizzled";
            if (!measure(rt, &waves, &ideal, what)) continue;
            /* one request of 4 phases (matrices), ideally one wavefront each */
            CHECK(ideal == 4, "%s: ideal %llu wavefronts, want 4", what, (unsigned long long)ideal);
            if (sw)
                CHECK(waves == ideal, "swizzled: %llu wavefronts, want the ideal %llu", (unsigned long long)waves,
                      (unsigned long long)ideal);
            else
                CHECK(waves == 32, "unswizzled: %llu wavefronts, want 32 (8-way conflicts)", (unsigned long long)waves);
        }
    cute_runtime_free(rt);
    return CHECK_DONE("smem_banks_test");
}
