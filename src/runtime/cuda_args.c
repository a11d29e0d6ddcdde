/* Packing launch arguments (cuda_args.h). */
#include <stdio.h>
#include <string.h>

#include "cuda_args.h"
#include "cutec/numeric.h"
#include "cutec/cuda_c.h" /* cute_f16_bits: the one rounding of a double to f16/bf16 */

/* i64, and u64 whose top half arrives as negative int64, take any value */
static bool int_fits(cute_dtype d, int64_t v)
{
    int64_t lo, hi;
    return !cute_dtype_int_range(d, &lo, &hi) || (v >= lo && v <= hi);
}

/* "argument i (type): why"; the type is formatted only here, off the hot path */
static bool refuse(char *err, size_t n, int i, cute_type t, const char *why)
{
    char ts[48];
    cute_type_str(t, ts, sizeof ts);
    snprintf(err, n, "argument %d (%s): %s", i, ts, why);
    return false;
}

/* one argument into *slot; false with err */
static bool pack_one(int i, cute_type t, const cute_launch_arg *a, uint64_t *slot, char *err,
                     size_t n)
{
    char why[160];
    *slot = 0;
    if (t.lanes != 1) return refuse(err, n, i, t, "a vector parameter cannot be passed");
    cute_dtype d = (cute_dtype)t.dtype;
    if (d == CUTE_PTR) {
        if (t.space != CUTE_GMEM)
            return refuse(err, n, i, t, "a shared-memory pointer cannot be passed");
        if (!a->buf) return refuse(err, n, i, t, "no buffer");
        if (a->offset > a->buf->bytes) {
            snprintf(why, sizeof why, "offset %zu past the end of buffer %llu (%zu bytes)",
                     a->offset, (unsigned long long)a->buf->id, a->buf->bytes);
            return refuse(err, n, i, t, why);
        }
        *slot = (uint64_t)(uintptr_t)a->buf->ptr + a->offset;
        return true;
    }
    if (cute_dtype_is_narrow_float(d)) { /* its code, in its width */
        uint32_t code = cute_narrow_encode(d, a->v.f);
        memcpy(slot, &code, (size_t)cute_dtype_bytes(d));
        return true;
    }
    if (cute_dtype_is_float(d)) {
        if (d == CUTE_F64) memcpy(slot, &a->v.f, sizeof(double));
        if (d == CUTE_F32) {
            float f = (float)a->v.f;
            memcpy(slot, &f, sizeof f);
        }
        if (d == CUTE_F16 || d == CUTE_BF16) {
            uint16_t h = d == CUTE_F16 ? cute_f16_bits(a->v.f) : cute_bf16_bits(a->v.f);
            memcpy(slot, &h, sizeof h);
        }
        return true;
    }
    if (d == CUTE_I1 || cute_dtype_is_int(d)) {
        if (!int_fits(d, a->v.i)) {
            snprintf(why, sizeof why, "%lld does not fit", (long long)a->v.i);
            return refuse(err, n, i, t, why);
        }
        /* the value in the parameter's width, host order (bool is one byte) */
        uint64_t u = (uint64_t)a->v.i;
        switch (d == CUTE_I1 ? 1 : cute_dtype_bytes(d)) {
        case 1: {
            uint8_t v = (uint8_t)u;
            memcpy(slot, &v, 1);
            break;
        }
        case 2: {
            uint16_t v = (uint16_t)u;
            memcpy(slot, &v, 2);
            break;
        }
        case 4: {
            uint32_t v = (uint32_t)u;
            memcpy(slot, &v, 4);
            break;
        }
        default:
            memcpy(slot, &u, 8);
            break;
        }
        return true;
    }
    return refuse(err, n, i, t, "cannot be a kernel parameter");
}

cute_status cuda_pack_args(const cute_type *params, int nparams, const cute_launch_arg *args,
                           int nargs, uint64_t *slots, void **ptrs, char *err, size_t n)
{
    if (nargs != nparams) {
        snprintf(err, n, "the kernel takes %d arguments, the launch gave %d", nparams, nargs);
        return CUTE_ERR_INVALID;
    }
    for (int i = 0; i < nargs; i++) {
        if (!cute_type_eq(args[i].type, params[i])) {
            char want[48], got[48];
            cute_type_str(params[i], want, sizeof want);
            cute_type_str(args[i].type, got, sizeof got);
            snprintf(err, n, "argument %d: the kernel takes %s, the launch gave %s", i, want, got);
            return CUTE_ERR_INVALID;
        }
        if (params[i].dtype == CUTE_TMAP) { /* by value: the driver copies its 128 bytes */
            if (!args[i].bytes || (uintptr_t)args[i].bytes % 64) {
                refuse(err, n, i, params[i], "a tensor map needs 128 bytes, 64-byte aligned");
                return CUTE_ERR_INVALID;
            }
            ptrs[i] = (void *)args[i].bytes;
            continue;
        }
        if (!pack_one(i, params[i], &args[i], &slots[i], err, n)) return CUTE_ERR_INVALID;
        ptrs[i] = &slots[i];
    }
    return CUTE_OK;
}
