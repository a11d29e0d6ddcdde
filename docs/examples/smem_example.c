/* Shared memory with the DSL: a struct laid out at trace time, and a swizzled tile that 32
 * threads fill from global memory and one thread prints, through the swizzle and as the
 * bytes lie.  Runs on the interpreter, which checks every shared access. */
#include <stdio.h>

#include "cutec/jit.h"
#include "cutec/notation.h"
#include "cutec/smem.h"

static void tile_kernel(cute_ctx *c, cute_tensor gX)
{
    cute_alg *a = cute_ctx_alg(c);
    cute_int t = cute_thread_idx(c, 0);
    cute_smem_allocator A = cute_smem_allocator_new(c);
    /* element (r,c) of a row-major 4x8 tile lives at Sw<2,0,3>(8r + c): columns XOR rows */
    cute_tensor sX = cute_smem_alloc_tensor_swizzled(c, &A, CUTE_F32, (cute_swizzle){2, 0, 3},
                                                     cute_layout_parse(a, "(4,8):(8,1)"), 16);
    cute_tensor raw = cute_make_tensor(c, sX.base, sX.layout, sX.align); /* no swizzle */
    cute_tuple mine = CUTE_CRD(cute_div(a, t, cute_i(8)), cute_mod(a, t, cute_i(8)));
    cute_tensor_store(c, cute_tensor_slice(c, sX, mine), cute_tensor_load(c, cute_tensor_slice(c, gX, mine)));
    cute_barrier(c);
    CUTE_IF(c, cute_int_eq(c, t, cute_i(0)))
    {
        cute_print_tensor(c, sX);
        cute_print_tensor(c, raw);
    }
}

static void tile_host(cute_ctx *c, const cute_arg *arg)
{
    cute_launch_cfg cfg = {.grid = {cute_i(1)}, .block = {cute_i(32)}}; /* shared memory: the kernel's */
    CUTE_LAUNCH(c, tile_kernel, cfg, arg[0].tensor);
}

int main(void)
{
    /* a struct: offsets by C's rules, with the declared alignments */
    cute_ctx *c = cute_ctx_new();
    cute_smem_struct S;
    cute_smem_struct_init(&S, "Storage");
    cute_smem_struct_barriers(c, &S, "full", 2);
    cute_smem_struct_scalar(c, &S, "flag", CUTE_I32);
    cute_smem_struct_tensor(c, &S, "sA", CUTE_F16, cute_layout_parse(cute_ctx_alg(c), "(64,32):(32,1)"), 128,
                            (cute_swizzle){3, 3, 3});
    for (int i = 0; i < S.nfields; i++)
        printf("%-5s offset %4lld, %4lld bytes, align %d\n", S.field[i].name, (long long)S.field[i].offset,
               (long long)S.field[i].bytes, S.field[i].align);
    printf("sizeof(Storage) = %lld, align %d\n", (long long)S.size, S.align);
    cute_ctx_free(c);

    char err[2048];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        printf("no runtime: %s\n", err);
        return 1;
    }
    cute_arg_spec spec = cute_spec_tensor(CUTE_F32, "(4,8):(8,1)", 16);
    const cute_fn *f = cute_compile(rt, "tile", tile_host, NULL, 1, &spec, err, sizeof err);
    if (!f) {
        printf("compile: %s\n", err);
        return 1;
    }
    printf("the kernel uses %lld bytes of shared memory\n", (long long)cute_fn_kernel(f, 0)->smem_bytes);
    fflush(stdout);
    cute_backend *be = cute_runtime_backend(rt);
    float x[32];
    for (int i = 0; i < 32; i++) x[i] = (float)i;
    cute_buffer X;
    be->vt->alloc(be->self, sizeof x, &X);
    be->vt->upload(be->self, &X, 0, x, sizeof x);
    int64_t shape[2] = {4, 8}, stride[2] = {8, 1};
    cute_call_arg arg = cute_call_tensor(&X, 0, CUTE_F32, 2, shape, stride);
    char cerr[1024];
    cute_status s = cute_call(f, NULL, 1, &arg, cerr, sizeof cerr);
    be->vt->sync(be->self, NULL);
    if (s != CUTE_OK) printf("call: %s\n", cerr);
    be->vt->free(be->self, &X);
    cute_fn_free(f);
    cute_runtime_free(rt);
    return s == CUTE_OK ? 0 : 1;
}
