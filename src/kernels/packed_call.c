/* cutec_call_packed: a library call from one struct (cutec/packed_call.h). */
#include <stdio.h>

#include "cutec/kernels.h"
#include "cutec/packed_call.h"

static cute_status refuse(cutec_packed_call *call, const char *what)
{
    snprintf(call->err, sizeof call->err, "packed call: %s", what);
    return CUTE_ERR_INVALID;
}

static cute_status gemm(cutec_packed_call *c)
{
    if (c->ntensors != 3) return refuse(c, "a GEMM takes 3 tensors (A, B, C)");
    return cutec_gemm(c->lib, (cute_gemm_variant)c->which, &c->arg[0], &c->arg[1], &c->arg[2],
                      c->alpha, c->beta, c->stream, c->err, sizeof c->err);
}

static cute_status elementwise(cutec_packed_call *c)
{
    if (c->ntensors != 2 && c->ntensors != 3)
        return refuse(c, "an elementwise op takes 2 or 3 tensors (inputs, then out)");
    const cute_call_arg *second = c->ntensors == 3 ? &c->arg[1] : NULL;
    return cute_ew(c->lib, (cute_ew_op)c->which, &c->arg[c->ntensors - 1], &c->arg[0], second,
                   c->stream, c->err, sizeof c->err);
}

cute_status cutec_call_packed(cutec_packed_call *call)
{
    if (!call) return CUTE_ERR_INVALID;
    if (call->size != sizeof *call) {
        char why[128];
        snprintf(why, sizeof why, "a struct of %u bytes, but this library's is %zu (rebuild the "
                 "binding)", (unsigned)call->size, sizeof *call);
        return refuse(call, why);
    }
    call->err[0] = 0;
    if (call->ntensors < 0 || call->ntensors > CUTEC_PACKED_TENSORS)
        return refuse(call, "more tensors than CUTEC_PACKED_TENSORS");
    for (int i = 0; i < call->ntensors; i++) {
        call->buf[i].ptr = call->data[i];
        call->arg[i].buf = &call->buf[i];
    }
    switch (call->kernel) {
    case CUTEC_PACKED_GEMM: return gemm(call);
    case CUTEC_PACKED_EW: return elementwise(call);
    }
    char why[64];
    snprintf(why, sizeof why, "unknown kernel %d", (int)call->kernel);
    return refuse(call, why);
}
