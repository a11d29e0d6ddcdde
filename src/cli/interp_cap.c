/* The interpreter runs a kernel thread by thread on this CPU: a size a GPU takes in a
 * millisecond takes it hours.  A run on it estimates its time from the work and the
 * interpreter's rate for that kind of kernel (measured on a 2-core build machine, checks
 * included) and refuses past a few minutes, saying so, rather than appear to hang. */
#include <stdio.h>

#include "cli.h"
#include "cutec/jit.h"

enum { INTERP_MOST_S = 300 }; /* the longest run it starts */

/* the interpreter's rate for each kind of kernel, checks on (hostile35's runs on a 2-core
 * build machine, 2026-11-27) */
static const struct {
    double per_second;
    const char *unit;
} rates[] = {
    [CLI_INTERP_ATTENTION] = {1e8, "multiply-adds"}, [CLI_INTERP_DECODE] = {1e7, "multiply-adds"},
    [CLI_INTERP_GEMM] = {4e7, "multiply-adds"},      [CLI_INTERP_GEMV] = {5e6, "multiply-adds"},
    [CLI_INTERP_ROWS] = {5e6, "elements"},           [CLI_INTERP_ELEMENTWISE] = {8e5, "elements"},
};

bool cli_interp_fits(const char *cmd, const cute_runtime *rt, double work, cli_interp_kind kind)
{
    double per_second = rates[kind].per_second;
    const char *unit = rates[kind].unit;
    double s = work / per_second;
    if (cute_runtime_on_gpu(rt) || s <= INTERP_MOST_S) return true;
    fprintf(stderr,
            "cutec %s: the interpreter would take about %.0f minutes for this size (%.3g %s at about %.0e a "
            "second; it starts nothing past %d minutes): take a smaller size, or a GPU (--backend cuda)\n",
            cmd, s / 60, work, unit, per_second, INTERP_MOST_S / 60);
    return false;
}
