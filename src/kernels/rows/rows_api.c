/* The public entry points of the row-reduction kernels: each fills the op's slots from
 * its arguments and takes rows_run. */
#include "kernels/rows/rows_lib.h"

cute_status cutec_softmax(cutec_rows *lib, const cute_call_arg *y, const cute_call_arg *x, bool log,
                          void *stream, char *err, size_t n)
{
    row_call rc = {&row_softmax_fwd, log, {x, y}, 0, {0, 0}};
    return rows_run(lib, &rc, stream, err, n);
}

cute_status cutec_softmax_backward(cutec_rows *lib, const cute_call_arg *dx, const cute_call_arg *dy,
                                   const cute_call_arg *y, bool log, void *stream, char *err, size_t n)
{
    row_call rc = {&row_softmax_bwd, log, {dy, y, dx}, 0, {0, 0}};
    return rows_run(lib, &rc, stream, err, n);
}
