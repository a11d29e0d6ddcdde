/* Trace-time proofs on atoms: a copy atom wider than the tensor's proven alignment, a
 * TiledCopy or TiledMMA of another thread count than the launch's static block, and an atom
 * above the compile target's architecture are refused while tracing, at the user's line. */
#include <stdlib.h>

#include "check.h"
#include "cutec/copy.h"
#include "cutec/jit.h"
#include "cutec/notation.h"

static bool has(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

/* copy 4 f32 from a tensor proven `align` bytes aligned, moved by `shift` elements, with
 * one 128-bit access; the error ("" when accepted) */
static const char *copy_128(cute_ctx *c, int align, int shift)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_kernel_begin(c, "k");
    cute_val p = cute_param_ptr(c, "p", CUTE_F32);
    cute_tensor g = cute_make_tensor(c, p, cute_layout_parse(a, "8:1"), align);
    g = cute_tensor_domain_offset(c, g, cute_tuple_int(cute_i(shift)));
    g.layout = cute_layout_parse(a, "4:1");
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "4:1"));
    cute_copy_atom u128 = cute_copy_atom_universal(a, CUTE_F32, 128);
    cute_copy(c, &u128, g, r);
    cute_ir_func_free(cute_kernel_end(c));
    return cute_ctx_error(c);
}

static void copy_wider_than_alignment(void)
{
    cute_ctx *c = cute_ctx_new();
    const char *e = copy_128(c, 16, 4);
    CHECK(e[0] == 0, "16-byte aligned, moved by 4 elements: accepted (%s)", e);
    cute_ctx_free(c);
    c = cute_ctx_new();
    e = copy_128(c, 4, 0);
    CHECK(has(e, "16-byte access") && has(e, "aligned to 4 bytes") && has(e, "atom_checks_test.c:"),
          "a 4-byte aligned tensor: %s", e);
    cute_ctx_free(c);
    c = cute_ctx_new();
    e = copy_128(c, 16, 2); /* the base is 16-byte aligned, element 2 only 8 */
    CHECK(has(e, "aligned to 8 bytes"), "moved by 2 elements: %s", e);
    cute_ctx_free(c);
}

/* --- thread counts against the launch's block, through the JIT ---------------------- */
typedef struct tc_case {
    int copy_threads; /* 0: a TiledMMA instead */
    int block;
} tc_case;

static void copy_kernel(cute_ctx *c, cute_tensor g)
{
    const tc_case *k = cute_ctx_user(c);
    cute_alg *a = cute_ctx_alg(c);
    cute_int tid = cute_thread_idx(c, 0);
    if (k->copy_threads) {
        cute_copy_atom u32 = cute_copy_atom_universal(a, CUTE_F32, 32);
        cute_layout thr = cute_layout_fmt(a, "%d:1", k->copy_threads), val = cute_layout_parse(a, "1:0");
        cute_tiled_copy tc = cute_make_tiled_copy_tv(a, &u32, &thr, &val);
        cute_thr_copy t = cute_tiled_copy_slice(&tc, tid);
        cute_tensor tg = cute_partition_D(c, t, g);
        cute_tensor r = cute_make_fragment_like(c, tg);
        cute_fill(c, r, 1.0);
        cute_copy(c, &u32, r, tg);
    } else {
        cute_mma_atom fma = cute_mma_atom_universal(a, CUTE_F32);
        cute_layout atoms = cute_layout_parse(a, "(16,16,1):(1,16,0)"); /* 256 threads */
        cute_tiled_mma mma = cute_make_tiled_mma(a, &fma, &atoms, NULL, NULL, NULL);
        cute_thr_mma t = cute_tiled_mma_slice(&mma, tid);
        cute_tensor tC = cute_partition_C(c, t, g);
        (void)tC;
    }
}

static void copy_host(cute_ctx *c, const cute_arg *args)
{
    const tc_case *k = cute_ctx_user(c);
    CUTE_LAUNCH(c, copy_kernel, ((cute_launch_cfg){.grid = {cute_i(1)}, .block = {cute_i(k->block)}}),
                args[0].tensor);
}

static const char *compile_case(cute_runtime *rt, tc_case k, const char *layout, char *err, size_t n)
{
    cute_arg_spec spec = cute_spec_tensor(CUTE_F32, layout, 16);
    const cute_fn *f = cute_compile(rt, "tc", copy_host, &k, 1, &spec, err, n);
    cute_fn_free(f);
    return f ? "" : err;
}

static void thread_counts(void)
{
    cute_runtime *rt = NULL;
    char err[1024];
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no interpreter runtime");
        return;
    }
    const char *e = compile_case(rt, (tc_case){256, 256}, "256:1", err, sizeof err);
    CHECK(e[0] == 0, "a 256-thread TiledCopy in 256-thread blocks: %s", e);
    e = compile_case(rt, (tc_case){256, 128}, "256:1", err, sizeof err);
    CHECK(has(e, "TiledCopy is made for 256 threads") && has(e, "128 threads per block") &&
              has(e, "cute_partition_D") && has(e, "atom_checks_test.c:"),
          "a 256-thread TiledCopy launched with 128 threads: %s", e);
    e = compile_case(rt, (tc_case){64, 128}, "64:1", err, sizeof err);
    CHECK(has(e, "made for 64 threads"), "a 64-thread TiledCopy in 128-thread blocks: %s", e);
    e = compile_case(rt, (tc_case){0, 256}, "(16,16):(1,16)", err, sizeof err);
    CHECK(e[0] == 0, "a 256-thread TiledMMA in 256-thread blocks: %s", e);
    e = compile_case(rt, (tc_case){0, 128}, "(16,16):(1,16)", err, sizeof err);
    CHECK(has(e, "TiledMMA is made for 256 threads") && has(e, "cute_partition_C"),
          "a 256-thread TiledMMA launched with 128 threads: %s", e);
    cute_runtime_free(rt);
}

/* --- an atom's minimum architecture against the target ------------------------------ */
static const char *use_atom(int target, int min_arch)
{
    static char err[1024];
    cute_ctx *c = cute_ctx_new();
    cute_alg *a = cute_ctx_alg(c);
    cute_ctx_target_arch(c, target);
    cute_kernel_begin(c, "k");
    cute_val p = cute_param_ptr(c, "p", CUTE_F32);
    cute_tensor g = cute_make_tensor(c, p, cute_layout_parse(a, "4:1"), 16);
    cute_tensor r = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "4:1"));
    cute_copy_atom atom = cute_copy_atom_universal(a, CUTE_F32, 128);
    atom.min_arch = min_arch; /* an atom is a table row: a newer instruction's row says so */
    cute_copy(c, &atom, g, r);
    cute_mma_atom fma = cute_mma_atom_universal(a, CUTE_F32);
    fma.min_arch = min_arch;
    cute_layout one = cute_layout_parse(a, "(1,1,1):(0,0,0)");
    cute_tiled_mma mma = cute_make_tiled_mma(a, &fma, &one, NULL, NULL, NULL);
    cute_tensor acc = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "(1,1,1):(0,0,0)"));
    cute_tensor in = cute_make_rmem_tensor(c, CUTE_F32, cute_layout_parse(a, "(1,1,1):(0,0,0)"));
    cute_fill(c, acc, 0.0);
    cute_fill(c, in, 1.0);
    cute_gemm(c, &mma, acc, in, in, acc);
    cute_ir_func_free(cute_kernel_end(c));
    snprintf(err, sizeof err, "%s", cute_ctx_error(c));
    cute_ctx_free(c);
    return err;
}

static void minimum_architecture(void)
{
    CHECK(use_atom(80, 80)[0] == 0, "an sm_80 atom on sm_80: %s", use_atom(80, 80));
    CHECK(use_atom(0, 90)[0] == 0, "no target known: nothing refused (%s)", use_atom(0, 90));
    const char *e = use_atom(80, 90);
    CHECK(has(e, "needs sm_90") && has(e, "targets sm_80") && has(e, "cute_copy"), "%s", e);
    e = use_atom(90, 100);
    CHECK(has(e, "needs sm_100") && has(e, "targets sm_90"), "%s", e);
}

/* CUTEC_ARCH reaches a compile on the interpreter */
static void arch_from_environment(void)
{
    setenv("CUTEC_ARCH", "sm_80", 1);
    cute_runtime *rt = NULL;
    char err[256];
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no interpreter runtime");
        return;
    }
    unsetenv("CUTEC_ARCH");
    cute_runtime *plain = NULL;
    cute_runtime_new("interp", &plain, err, sizeof err);
    CHECK(cute_runtime_target_arch(rt) == 80 && cute_runtime_target_arch(plain) == 0,
          "CUTEC_ARCH=sm_80: %d; unset: %d", cute_runtime_target_arch(rt),
          plain ? cute_runtime_target_arch(plain) : -1);
    cute_runtime_set_target_arch(plain, "sm_90a"); /* cutec compile --arch sm_90a */
    CHECK(cute_runtime_target_arch(plain) == 90, "--arch sm_90a: %d", cute_runtime_target_arch(plain));
    cute_runtime_free(rt);
    cute_runtime_free(plain);
}

int main(void)
{
    copy_wider_than_alignment();
    thread_counts();
    minimum_architecture();
    arch_from_environment();
    return CHECK_DONE("atom/atom_checks_test");
}
