/* TMA tensor maps as fields: the driver's rules and the interpreter's packing.  The rules
 * are cuTensorMapEncodeTiled's (cuda.h, interleave none), checked here so that a mistake is
 * named by field and rule instead of the driver's bare CUDA_ERROR_INVALID_VALUE, and so that
 * the interpreter accepts exactly what a GPU would. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cutec/tma.h"

int cute_tma_data_type(cute_dtype d)
{
    switch (d) {
    case CUTE_U8: case CUTE_I8: case CUTE_E4M3: case CUTE_E5M2: case CUTE_UE8M0: return 0;
    case CUTE_U16: case CUTE_I16: return 1;
    case CUTE_U32: return 2;
    case CUTE_I32: return 3;
    case CUTE_U64: return 4;
    case CUTE_I64: return 5;
    case CUTE_F16: return 6;
    case CUTE_F32: return 7;
    case CUTE_F64: return 8;
    case CUTE_BF16: return 9;
    case CUTE_TF32: return 11;
    default: return -1;
    }
}

int cute_tma_swizzle_bytes(cute_tma_swizzle s)
{
    return s == CUTE_TMA_SWIZZLE_32B ? 32 : s == CUTE_TMA_SWIZZLE_64B ? 64
         : s == CUTE_TMA_SWIZZLE_128B ? 128 : 0;
}

static cute_status bad(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static cute_status bad(char *err, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && n) vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return CUTE_ERR_INVALID;
}

static bool is_float(cute_dtype d)
{
    return d == CUTE_F16 || d == CUTE_BF16 || d == CUTE_F32 || d == CUTE_F64 || d == CUTE_TF32;
}

/* the whole-map fields: dtype, rank, address, enums */
static cute_status check_map(const cute_tma_desc *d, char *err, size_t n)
{
    if (cute_tma_data_type(d->dtype) < 0)
        return bad(err, n, "dtype %s: TMA moves 1-, 2-, 4- and 8-byte elements (u8/i8/fp8, "
                   "u16/i16/f16/bf16, u32/i32/f32/tf32, u64/i64/f64)", cute_dtype_name(d->dtype));
    if (d->rank < 1 || d->rank > CUTE_TMA_MAX_RANK)
        return bad(err, n, "rank %d: a tensor map has 1 to 5 dimensions", d->rank);
    if (d->address % 16)
        return bad(err, n, "address 0x%llx: the tensor's address must be 16-byte aligned",
                   (unsigned long long)d->address);
    if ((unsigned)d->swizzle > CUTE_TMA_SWIZZLE_128B)
        return bad(err, n, "swizzle %d: none, 32B, 64B or 128B", (int)d->swizzle);
    if ((unsigned)d->l2 > CUTE_TMA_L2_256B)
        return bad(err, n, "l2 %d: none, 64B, 128B or 256B", (int)d->l2);
    if ((unsigned)d->oob > CUTE_TMA_OOB_NAN)
        return bad(err, n, "oob %d: zero or NaN", (int)d->oob);
    if (d->oob == CUTE_TMA_OOB_NAN && !is_float(d->dtype))
        return bad(err, n, "oob NaN: a NaN fill needs a floating-point dtype, not %s",
                   cute_dtype_name(d->dtype));
    return CUTE_OK;
}

/* dimension i's extent, stride, box and element stride */
static cute_status check_dim(const cute_tma_desc *d, int i, char *err, size_t n)
{
    if (d->dims[i] < 1 || d->dims[i] > (1ull << 32))
        return bad(err, n, "dims[%d] = %llu: an extent is 1 to 2^32", i, (unsigned long long)d->dims[i]);
    if (i > 0 && (d->strides[i] % 16 || d->strides[i] == 0 || d->strides[i] >= (1ull << 40)))
        return bad(err, n, "strides[%d] = %llu bytes: a stride is a nonzero multiple of 16 "
                   "bytes below 2^40", i, (unsigned long long)d->strides[i]);
    if (d->box[i] < 1 || d->box[i] > 256)
        return bad(err, n, "box[%d] = %u: a box extent is 1 to 256", i, d->box[i]);
    uint32_t es = d->elem_strides[i] ? d->elem_strides[i] : 1;
    if (es > 8) return bad(err, n, "elem_strides[%d] = %u: 1 to 8", i, es);
    if (i == 0 && es != 1)
        return bad(err, n, "elem_strides[0] = %u: TMA has no stride in dimension 0", es);
    return CUTE_OK;
}

cute_status cute_tma_desc_check(const cute_tma_desc *d, char *err, size_t n)
{
    if (!d) return bad(err, n, "no tensor-map description");
    cute_status s = check_map(d, err, n);
    for (int i = 0; s == CUTE_OK && i < d->rank; i++) s = check_dim(d, i, err, n);
    if (s != CUTE_OK) return s;
    uint64_t inner = (uint64_t)d->box[0] * (uint64_t)cute_dtype_bytes(d->dtype);
    if (inner % 16)
        return bad(err, n, "box[0] = %u: box[0] * %d bytes = %llu is not a multiple of 16 bytes",
                   d->box[0], cute_dtype_bytes(d->dtype), (unsigned long long)inner);
    int span = cute_tma_swizzle_bytes(d->swizzle);
    if (span && inner > (uint64_t)span)
        return bad(err, n, "box[0] = %u: box[0] * %d bytes = %llu is more than the %dB "
                   "swizzle's span", d->box[0], cute_dtype_bytes(d->dtype),
                   (unsigned long long)inner, span);
    return CUTE_OK;
}

uint64_t cute_tma_box_elems(const cute_tma_desc *d)
{
    uint64_t e = 1;
    for (int i = 0; i < d->rank; i++) {
        uint32_t es = d->elem_strides[i] ? d->elem_strides[i] : 1;
        e *= (d->box[i] + es - 1) / es;
    }
    return e;
}

uint64_t cute_tma_box_bytes(const cute_tma_desc *d)
{
    return cute_tma_box_elems(d) * (uint64_t)cute_dtype_bytes(d->dtype);
}

/* --- the interpreter's 128 bytes ---------------------------------------------------------- */

/* the packed form: a tag, then the fields (a fixed little-endian layout, 112 bytes) */
typedef struct packed_map {
    char tag[8];                      /* "cuteTMA1" */
    uint64_t address;
    uint64_t dims[CUTE_TMA_MAX_RANK];
    uint64_t strides[CUTE_TMA_MAX_RANK - 1]; /* dims 1..4 */
    uint16_t box[CUTE_TMA_MAX_RANK];
    uint8_t elem_strides[CUTE_TMA_MAX_RANK];
    uint8_t dtype, rank, swizzle, l2, oob;
} packed_map;
_Static_assert(sizeof(packed_map) <= CUTE_TMA_MAP_BYTES, "a packed map fits a CUtensorMap");
static const char TAG[8] = {'c', 'u', 't', 'e', 'T', 'M', 'A', '1'};

void cute_tma_pack(const cute_tma_desc *d, void *map)
{
    packed_map p;
    memset(&p, 0, sizeof p);
    memcpy(p.tag, TAG, sizeof TAG);
    p.address = d->address;
    for (int i = 0; i < CUTE_TMA_MAX_RANK; i++) {
        p.dims[i] = d->dims[i];
        if (i) p.strides[i - 1] = d->strides[i];
        p.box[i] = (uint16_t)d->box[i];
        p.elem_strides[i] = (uint8_t)(d->elem_strides[i] ? d->elem_strides[i] : 1);
    }
    p.dtype = (uint8_t)d->dtype, p.rank = (uint8_t)d->rank, p.swizzle = (uint8_t)d->swizzle;
    p.l2 = (uint8_t)d->l2, p.oob = (uint8_t)d->oob;
    memset(map, 0, CUTE_TMA_MAP_BYTES);
    memcpy(map, &p, sizeof p);
}

bool cute_tma_unpack(const void *map, cute_tma_desc *out)
{
    packed_map p;
    memcpy(&p, map, sizeof p);
    if (memcmp(p.tag, TAG, sizeof TAG)) return false;
    memset(out, 0, sizeof *out);
    out->address = p.address;
    for (int i = 0; i < CUTE_TMA_MAX_RANK; i++) {
        out->dims[i] = p.dims[i];
        out->strides[i] = i ? p.strides[i - 1] : 0;
        out->box[i] = p.box[i];
        out->elem_strides[i] = p.elem_strides[i];
    }
    out->dtype = (cute_dtype)p.dtype, out->rank = p.rank;
    out->swizzle = (cute_tma_swizzle)p.swizzle, out->l2 = (cute_tma_l2)p.l2;
    out->oob = (cute_tma_oob)p.oob;
    out->strides[0] = (uint64_t)cute_dtype_bytes(out->dtype);
    return true;
}
