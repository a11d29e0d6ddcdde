/* Tensor maps on the host: each of the driver's rules refused with the field and the rule
 * named, a valid map accepted; the interpreter's packing round-trips every field and refuses
 * bytes that hold no map; encoding picks the backend's form (packed fields for the
 * interpreter, refused for a backend without TMA); on a GPU (else skipped) the driver's
 * encoding, its process-wide cache (a hit for the same tensor, a miss for another pointer,
 * correct from several threads at once), and a driver without cuTensorMapEncodeTiled. */
#include <pthread.h>
#include <string.h>

#include "check.h"
#include "cutec/interp.h"
#include "cutec/jit.h"
#include "cutec/runtime.h"
#include "cutec/tma.h"

/* a valid map: 100 x 37 bf16, rows of 128 bytes, 64 x 8 boxes swizzled 128B */
static cute_tma_desc valid(void)
{
    cute_tma_desc d = {.dtype = CUTE_BF16, .rank = 2, .address = 0x10000, .swizzle = CUTE_TMA_SWIZZLE_128B};
    d.dims[0] = 37, d.dims[1] = 100, d.strides[1] = 128, d.box[0] = 64, d.box[1] = 8;
    return d;
}

static void rule(const char *what, cute_tma_desc d, const char *want)
{
    char err[256] = "";
    cute_status s = cute_tma_desc_check(&d, err, sizeof err);
    CHECK(s == CUTE_ERR_INVALID && strstr(err, want), "%s: want \"%s\", got %s: %s", what, want,
          cute_status_name(s), err);
}

static void rules(void)
{
    char err[256];
    cute_tma_desc d = valid();
    CHECK(cute_tma_desc_check(&d, err, sizeof err) == CUTE_OK, "valid: %s", err);
    d = valid(), d.dtype = CUTE_E2M1, rule("dtype", d, "TMA moves 1-, 2-, 4- and 8-byte elements");
    d = valid(), d.rank = 6, rule("rank", d, "rank 6: a tensor map has 1 to 5 dimensions");
    d = valid(), d.address += 8, rule("address", d, "must be 16-byte aligned");
    d = valid(), d.dims[1] = 0, rule("extent", d, "dims[1] = 0");
    d = valid(), d.dims[0] = (1ull << 32) + 1, rule("extent", d, "dims[0] = 4294967297: an extent is 1 to 2^32");
    d = valid(), d.strides[1] = 120, rule("stride", d, "strides[1] = 120 bytes: a stride is a nonzero multiple of 16");
    d = valid(), d.strides[1] = 1ull << 40, rule("stride", d, "below 2^40");
    d = valid(), d.box[1] = 257, rule("box", d, "box[1] = 257: a box extent is 1 to 256");
    d = valid(), d.box[0] = 12, rule("box bytes", d, "box[0] * 2 bytes = 24 is not a multiple of 16 bytes");
    d = valid(), d.box[0] = 72, rule("swizzle span", d, "144 is more than the 128B swizzle's span");
    d = valid(), d.swizzle = CUTE_TMA_SWIZZLE_32B, rule("swizzle span", d, "128 is more than the 32B swizzle's span");
    d = valid(), d.elem_strides[1] = 9, rule("element stride", d, "elem_strides[1] = 9: 1 to 8");
    d = valid(), d.elem_strides[0] = 2, rule("element stride", d, "TMA has no stride in dimension 0");
    d = valid(), d.oob = CUTE_TMA_OOB_NAN, d.dtype = CUTE_U16, rule("NaN fill", d, "a NaN fill needs a floating-point dtype, not u16");
    d = valid(), d.swizzle = (cute_tma_swizzle)4, rule("swizzle", d, "swizzle 4");
    d = valid(), d.l2 = (cute_tma_l2)7, rule("l2", d, "l2 7");
    d = valid(), d.swizzle = CUTE_TMA_SWIZZLE_NONE, d.box[0] = 256, d.box[1] = 2;
    CHECK(cute_tma_desc_check(&d, err, sizeof err) == CUTE_OK, "unswizzled 512-byte rows: %s", err);
    CHECK(cute_tma_box_bytes(&d) == 1024 && cute_tma_box_elems(&d) == 512, "box bytes");
    d = valid(), d.elem_strides[1] = 3; /* ceil(8 / 3) rows */
    CHECK(cute_tma_box_elems(&d) == 64 * 3, "traversal strides: %llu", (unsigned long long)cute_tma_box_elems(&d));
    CHECK(cute_tma_data_type(CUTE_BF16) == 9 && cute_tma_data_type(CUTE_F32) == 7 &&
              cute_tma_data_type(CUTE_E4M3) == 0 && cute_tma_data_type(CUTE_TF32) == 11,
          "cuda.h's data types");
}

static void packing(void)
{
    _Alignas(64) unsigned char map[CUTE_TMA_MAP_BYTES];
    cute_tma_desc d = {.dtype = CUTE_F64, .rank = 5, .address = 0x7f00aa000010ull, .swizzle = CUTE_TMA_SWIZZLE_64B,
                       .l2 = CUTE_TMA_L2_256B, .oob = CUTE_TMA_OOB_NAN};
    for (int i = 0; i < 5; i++) {
        d.dims[i] = 3 + 1000003ull * (uint64_t)i, d.box[i] = (uint32_t)(1 + 50 * i), d.elem_strides[i] = (uint32_t)(1 + i);
        if (i) d.strides[i] = 16ull << (7 * i);
    }
    cute_tma_pack(&d, map);
    cute_tma_desc e;
    CHECK(cute_tma_unpack(map, &e), "unpacks");
    bool same = e.dtype == d.dtype && e.rank == d.rank && e.address == d.address && e.swizzle == d.swizzle &&
                e.l2 == d.l2 && e.oob == d.oob && e.strides[0] == 8;
    for (int i = 0; i < 5; i++)
        same &= e.dims[i] == d.dims[i] && e.box[i] == d.box[i] && e.elem_strides[i] == d.elem_strides[i] &&
                (!i || e.strides[i] == d.strides[i]);
    CHECK(same, "every field round-trips");
    memset(map, 0, sizeof map);
    CHECK(!cute_tma_unpack(map, &e), "zeros hold no map");
}

/* a backend that is neither CUDA nor the interpreter */
static const cute_backend_vtable other_vt = {.version = CUTE_BACKEND_VERSION, .name = "other"};

static void encoding(void)
{
    _Alignas(64) unsigned char map[CUTE_TMA_MAP_BYTES + 64];
    char err[256];
    cute_backend be;
    CHECK(cute_interp_new(NULL, &be) == CUTE_OK, "interpreter");
    cute_tma_desc d = valid(), e;
    CHECK(cute_tma_encode(&be, &d, map, err, sizeof err) == CUTE_OK && cute_tma_unpack(map, &e) &&
              e.box[0] == 64 && e.dims[1] == 100 && e.strides[1] == 128,
          "the interpreter's map holds the fields: %s", err);
    d.strides[1] = 100;
    CHECK(cute_tma_encode(&be, &d, map, err, sizeof err) == CUTE_ERR_INVALID && strstr(err, "strides[1] = 100"),
          "checked before encoding: %s", err);
    d = valid();
    CHECK(cute_tma_encode(&be, &d, map + 16, err, sizeof err) == CUTE_ERR_INVALID && strstr(err, "64-byte aligned"),
          "a misaligned map: %s", err);
    be.vt->destroy(be.self);
    cute_backend other = {&other_vt, NULL};
    CHECK(cute_tma_encode(&other, &d, map, err, sizeof err) == CUTE_ERR_UNSUPPORTED && strstr(err, "other backend"),
          "a backend without TMA: %s", err);
}

/* --- on a GPU -------------------------------------------------------------------------------- */

typedef struct worker {
    cute_backend *be;
    uint64_t address;
    unsigned char map[CUTE_TMA_MAP_BYTES] __attribute__((aligned(64)));
    cute_status s;
} worker;

static void *encode_many(void *p)
{
    worker *w = p;
    char err[256];
    for (int i = 0; i < 200 && w->s == CUTE_OK; i++) {
        cute_tma_desc d = valid();
        d.address = w->address + 256 * (uint64_t)(i % 4);
        w->s = cute_tma_encode(w->be, &d, w->map, err, sizeof err);
    }
    return NULL;
}

static void driver_cache(cute_runtime *rt, uint64_t base)
{
    cute_backend *be = cute_runtime_backend(rt);
    _Alignas(64) unsigned char a[CUTE_TMA_MAP_BYTES], b[CUTE_TMA_MAP_BYTES], c2[CUTE_TMA_MAP_BYTES];
    char err[256];
    uint64_t h0, m0, h1, m1;
    cute_tma_desc d = valid();
    d.address = base;
    cute_tma_cache_counts(&h0, &m0);
    CHECK(cute_tma_encode(be, &d, a, err, sizeof err) == CUTE_OK, "driver encode: %s", err);
    CHECK(cute_tma_encode(be, &d, b, err, sizeof err) == CUTE_OK && !memcmp(a, b, sizeof a), "again: the same bytes");
    d.address += 256;
    CHECK(cute_tma_encode(be, &d, c2, err, sizeof err) == CUTE_OK && memcmp(a, c2, sizeof a), "another pointer, other bytes");
    cute_tma_cache_counts(&h1, &m1);
    CHECK(h1 - h0 == 1 && m1 - m0 == 2, "one hit, two misses: %llu, %llu", (unsigned long long)(h1 - h0),
          (unsigned long long)(m1 - m0));
    worker w[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) w[i] = (worker){be, base + 4096 * (uint64_t)(i % 2), {0}, CUTE_OK};
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, encode_many, &w[i]);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    CHECK(w[0].s == CUTE_OK && w[1].s == CUTE_OK && !memcmp(w[0].map, w[2].map, sizeof a) &&
              !memcmp(w[1].map, w[3].map, sizeof a),
          "threads encoding the same maps get the same bytes");
}

static void gpu(void)
{
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("cuda", &rt, err, sizeof err) != CUTE_OK) {
        SKIP("no GPU: the driver's encoding and its cache were not tried");
        return;
    }
    cute_backend *be = cute_runtime_backend(rt);
    cute_buffer buf;
    if (be->vt->alloc(be->self, 1 << 16, &buf) == CUTE_OK) {
        driver_cache(rt, (uint64_t)(uintptr_t)buf.ptr);
        be->vt->free(be->self, &buf);
    }
    cute_runtime_free(rt);
    cute_cuda *cu;
    if (cute_cuda_open(&(cute_cuda_opts){.hide = "cuTensorMapEncodeTiled"}, &cu, err, sizeof err) != CUTE_OK) return;
    _Alignas(64) unsigned char map[CUTE_TMA_MAP_BYTES];
    cute_tensor_map_desc t = {.rank = 1};
    CHECK(cute_cuda_tensor_map_encode_tiled(cu, &t, map) == CUTE_ERR_UNSUPPORTED &&
              strstr(cute_cuda_error(cu), "cuTensorMapEncodeTiled"),
          "a driver without it names it: %s", cute_cuda_error(cu));
    cute_cuda_close(cu);
}

int main(void)
{
    rules();
    packing();
    encoding();
    gpu();
    return CHECK_DONE("runtime/tma_desc");
}
