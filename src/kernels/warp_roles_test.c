/* kernels/warp_roles.h's named barriers: ids are handed out lowest free first around the ones
 * held, and a clash or a seventeenth barrier fails the trace naming both purposes. */
#include "check.h"
#include "kernels/warp_roles.h"

static void handed_out(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "bars");
    kernel_bars b = kernel_bars_new();
    CHECK(kernel_bars_hold(c, &b, 1, 3, "ring"), "%s", cute_ctx_error(c));
    CHECK(kernel_bar_take(c, &b, "a") == 4 && kernel_bar_take(c, &b, "b") == 5, "the lowest free ids after 0-3");
    CHECK(kernel_bars_hold(c, &b, 8, 2, "fixed") && kernel_bar_take(c, &b, "c") == 6 &&
              kernel_bar_take(c, &b, "d") == 7 && kernel_bar_take(c, &b, "e") == 10,
          "takes go around held ids");
    CHECK(!cute_ctx_failed(c) && strcmp(b.purpose[0], "__syncthreads") == 0 && strcmp(b.purpose[9], "fixed") == 0,
          "%s", cute_ctx_error(c));
    cute_ctx_free(c);
}

static void refused(void)
{
    cute_ctx *c = cute_ctx_new();
    cute_kernel_begin(c, "clash");
    kernel_bars b = kernel_bars_new();
    kernel_bar_take(c, &b, "the writer's turn");
    CHECK(!kernel_bars_hold(c, &b, 1, 2, "the ping-pong ring") && cute_ctx_failed(c) &&
              strstr(cute_ctx_error(c), "named barrier 1 for the ping-pong ring: already the writer's turn's"),
          "a clash names both purposes: %s", cute_ctx_error(c));
    cute_ctx_free(c);

    c = cute_ctx_new();
    cute_kernel_begin(c, "many");
    b = kernel_bars_new();
    CHECK(!kernel_bars_hold(c, &b, 14, 3, "three") && strstr(cute_ctx_error(c), "the hardware has ids 0..15"),
          "past 15: %s", cute_ctx_error(c));
    cute_ctx_free(c);

    c = cute_ctx_new();
    cute_kernel_begin(c, "full");
    b = kernel_bars_new();
    int last = 0;
    for (int i = 0; i < 15; i++) last = kernel_bar_take(c, &b, "a role");
    CHECK(last == 15 && !cute_ctx_failed(c), "15 ids besides 0: %d", last);
    CHECK(kernel_bar_take(c, &b, "one more") == -1 && strstr(cute_ctx_error(c), "no named barrier left for one more"),
          "a seventeenth: %s", cute_ctx_error(c));
    cute_ctx_free(c);
}

int main(void)
{
    handed_out();
    refused();
    return CHECK_DONE("warp_roles_test");
}
