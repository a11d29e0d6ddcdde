/* The CUDA driver wrapper (cutec/cuda_driver.h).  Everywhere: a missing libcuda is
 * CUTE_ERR_NO_DRIVER with a message, never a crash, and compute capabilities name the right
 * arch.  With a GPU: the device describes itself sensibly, and memory round-trips through
 * every copy (sync and async), memset and events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cutec/cuda_driver.h"
#include "cutec/nvrtc.h"

static void test_no_driver(void)
{
    cute_cuda *cu = (cute_cuda *)1;
    char err[512] = "";
    cute_cuda_opts o = {.libcuda = "libcutec-no-such-driver.so.1"};
    cute_status s = cute_cuda_open(&o, &cu, err, sizeof err);
    CHECK(s == CUTE_ERR_NO_DRIVER, "status %d", s);
    CHECK(cu == NULL, "no handle on failure");
    CHECK(strstr(err, "libcutec-no-such-driver.so.1") && strstr(err, "no NVIDIA driver"),
          "the message names the library and the cause: %s", err);
    CHECK(cute_cuda_device_count(NULL) == 0, "no devices without a handle");
}

static void test_arch_names(void)
{
    static const struct {
        int major, minor;
        const char *arch;
    } v[] = {{9, 0, "sm_90a"},   {8, 0, "sm_80"},    {8, 6, "sm_86"},    {8, 9, "sm_89"},
             {7, 5, "sm_75"},    {7, 0, "sm_70"},    {10, 0, "sm_100a"}, {10, 3, "sm_103a"},
             {12, 0, "sm_120a"}, {12, 1, "sm_121a"}};
    /* 9.0 on: the arch-specific target, whose instructions (wgmma, tcgen05, the e2m1
     * conversions) the plain one refuses: ptxas takes tcgen05.alloc for sm_100a, not sm_100 */
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char buf[16];
        cute_cuda_arch_name(v[i].major, v[i].minor, buf, sizeof buf);
        CHECK_STR(buf, v[i].arch);
    }
}

/* A target NVRTC does not know (sm_70 from CUDA 13 on, a V100's) is refused in words that
 * name it and the targets there are; one NVRTC does know compiles */
static void test_nvrtc_targets(void)
{
    cute_nvrtc *nv = NULL;
    char err[256];
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("no NVRTC");
        return;
    }
    static const char src[] = "extern \"C\" __global__ void k(int *p) { *p = 1; }\n";
    const char *archs[] = {"sm_70", "sm_9"};
    for (int i = 0; i < 2; i++) {
        cute_nvrtc_output o;
        cute_status s = cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = archs[i]}, &o);
        CHECK(s == CUTE_OK || (s == CUTE_ERR_UNSUPPORTED && strstr(o.log, archs[i]) && strstr(o.log, "targets are sm_")),
              "%s: %s", archs[i], o.log ? o.log : "");
        CHECK(i == 0 || s == CUTE_ERR_UNSUPPORTED, "sm_9 is no target: %s", o.log ? o.log : "");
        cute_nvrtc_output_free(&o);
    }
    cute_nvrtc_close(nv);
}

/* A failed compile's log starts with its error, however many warnings came first (ptxas's
 * refusal of an instruction the target lacks follows all of NVRTC's warnings; a caller's
 * message keeps only the head of the log) */
static void test_nvrtc_error_first(void)
{
    cute_nvrtc *nv = NULL;
    char err[256], src[8192];
    if (cute_nvrtc_open(&nv, NULL, err, sizeof err) != CUTE_OK) {
        SKIP("no NVRTC");
        return;
    }
    int len = snprintf(src, sizeof src, "extern \"C\" __global__ void k(int *p) {\n");
    for (int i = 0; i < 40; i++) len += snprintf(src + len, sizeof src - (size_t)len, "    int unused%d = %d;\n", i, i);
    snprintf(src + len, sizeof src - (size_t)len, "    asm volatile(\"setmaxnreg.inc.sync.aligned.u32 240;\");\n    *p = 1;\n}\n");
    cute_nvrtc_output o;
    cute_status s = cute_nvrtc_compile(nv, src, &(cute_nvrtc_opts){.arch = "sm_80"}, &o);
    char first[256] = "";
    if (o.log) snprintf(first, sizeof first, "%.*s", (int)strcspn(o.log, "\n"), o.log);
    CHECK(s == CUTE_ERR_COMPILE && strstr(first, "error") && strstr(first, "setmaxnreg"), "the error first: %.300s",
          o.log ? o.log : "");
    cute_nvrtc_output_free(&o);
    cute_nvrtc_close(nv);
}

static void test_info(cute_cuda *cu)
{
    const cute_device_info *d = cute_cuda_device(cu);
    printf("device %d: %s, sm_%d%d (%s), %d SMs, %d KB smem/block opt-in, %d KB smem/SM, "
           "%d MB L2, %d MHz, %.1f GB, driver %d\n",
           d->ordinal, d->name, d->cc_major, d->cc_minor, d->arch, d->sm_count,
           d->smem_per_block_optin / 1024, d->smem_per_sm / 1024, d->l2_bytes >> 20,
           d->clock_khz / 1000, (double)d->total_mem / 1e9, d->driver_version);
    char arch[16];
    cute_cuda_arch_name(d->cc_major, d->cc_minor, arch, sizeof arch);
    CHECK(d->name[0], "a name");
    CHECK_STR(d->arch, arch);
    CHECK(d->sm_count > 0 && d->warp_size == 32, "%d SMs, warp %d", d->sm_count, d->warp_size);
    CHECK(d->max_threads_per_block >= 512, "threads/block %d", d->max_threads_per_block);
    CHECK(d->smem_per_block == 48 * 1024, "48 KB without opt-in: %d", d->smem_per_block);
    CHECK(d->smem_per_block_optin >= d->smem_per_block && d->smem_per_sm >= d->smem_per_block_optin,
          "opt-in %d, per SM %d", d->smem_per_block_optin, d->smem_per_sm);
    CHECK(d->l2_bytes > 0 && d->total_mem > 0 && d->regs_per_block > 0, "L2, memory, registers");
    CHECK(d->driver_version >= 11000, "driver %d", d->driver_version);
    CHECK(cute_cuda_device_count(cu) >= 1, "device count");
    if (d->cc_major == 9 && d->cc_minor == 0) CHECK_STR(d->arch, "sm_90a");
}

static void fill_random(unsigned char *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (unsigned char)(seed >> 56);
    }
}

static void test_memory(cute_cuda *cu)
{
    size_t n = 16u << 20;
    unsigned char *src = malloc(n), *dst = malloc(n);
    cute_devptr a = 0, b = 0;
    fill_random(src, n, 42);
    CHECK(cute_cuda_alloc(cu, n, &a) == CUTE_OK && a, "alloc: %s", cute_cuda_error(cu));
    CHECK(cute_cuda_alloc(cu, n, &b) == CUTE_OK && b, "alloc: %s", cute_cuda_error(cu));
    CHECK(cute_cuda_copy_htod(cu, a, src, n) == CUTE_OK, "htod: %s", cute_cuda_error(cu));
    memset(dst, 0, n);
    CHECK(cute_cuda_copy_dtoh(cu, dst, a, n) == CUTE_OK && !memcmp(src, dst, n),
          "16 MB of random bytes round-trip");
    /* a sub-range at an odd offset */
    memset(dst, 0, n);
    CHECK(cute_cuda_copy_dtoh(cu, dst, a + 12345, 1001) == CUTE_OK &&
              !memcmp(dst, src + 12345, 1001),
          "a sub-range");
    CHECK(cute_cuda_copy_dtod(cu, b, a, n) == CUTE_OK, "dtod: %s", cute_cuda_error(cu));
    memset(dst, 0, n);
    CHECK(cute_cuda_copy_dtoh(cu, dst, b, n) == CUTE_OK && !memcmp(src, dst, n), "dtod copy");
    CHECK(cute_cuda_memset8(cu, b + 100, 0x5a, 1000) == CUTE_OK, "memset");
    cute_cuda_copy_dtoh(cu, dst, b, 2000);
    bool ok = true;
    for (size_t i = 0; i < 2000; i++) ok = ok && dst[i] == (i >= 100 && i < 1100 ? 0x5a : src[i]);
    CHECK(ok, "memset wrote exactly [100, 1100)");

    /* async copies on a stream, timed by events */
    void *stream = NULL, *e0 = NULL, *e1 = NULL;
    CHECK(cute_cuda_stream_new(cu, &stream) == CUTE_OK && stream, "stream");
    CHECK(cute_cuda_event_new(cu, &e0) == CUTE_OK && cute_cuda_event_new(cu, &e1) == CUTE_OK,
          "events: %s", cute_cuda_error(cu));
    fill_random(src, n, 7);
    memset(dst, 0, n);
    cute_status s = cute_cuda_event_record(cu, e0, stream);
    if (s == CUTE_OK) s = cute_cuda_copy_htod_async(cu, a, src, n, stream);
    if (s == CUTE_OK) s = cute_cuda_copy_dtod_async(cu, b, a, n, stream);
    if (s == CUTE_OK) s = cute_cuda_copy_dtoh_async(cu, dst, b, n, stream);
    if (s == CUTE_OK) s = cute_cuda_event_record(cu, e1, stream);
    if (s == CUTE_OK) s = cute_cuda_stream_sync(cu, stream);
    CHECK(s == CUTE_OK && !memcmp(src, dst, n), "async round trip: %s", cute_cuda_error(cu));
    float ms = -1;
    CHECK(cute_cuda_event_sync(cu, e1) == CUTE_OK &&
              cute_cuda_event_elapsed(cu, e0, e1, &ms) == CUTE_OK && ms > 0 && ms < 10000,
          "elapsed %g ms: %s", ms, cute_cuda_error(cu));
    printf("async 16 MB htod + dtod + dtoh (pageable host memory): %.3f ms\n", ms);
    /* an untimed event orders a stream after another (the default stream's memset, then the
     * stream's copy back) and has no timing to give */
    void *order = NULL;
    CHECK(cute_cuda_event_new_untimed(cu, &order) == CUTE_OK && order, "untimed event: %s", cute_cuda_error(cu));
    s = cute_cuda_memset8(cu, b, 0x3c, n);
    if (s == CUTE_OK) s = cute_cuda_event_record(cu, order, NULL);
    if (s == CUTE_OK) s = cute_cuda_stream_wait_event(cu, stream, order);
    if (s == CUTE_OK) s = cute_cuda_copy_dtoh_async(cu, dst, b, n, stream);
    if (s == CUTE_OK) s = cute_cuda_stream_sync(cu, stream);
    CHECK(s == CUTE_OK && dst[0] == 0x3c && dst[n - 1] == 0x3c, "ordered by the untimed event: %s", cute_cuda_error(cu));
    CHECK(cute_cuda_event_elapsed(cu, order, order, &ms) != CUTE_OK, "an untimed event gave a time");
    cute_cuda_event_free(cu, order);

    /* device-to-device bandwidth, timed on the default stream */
    size_t big = 256u << 20;
    cute_devptr x = 0, y = 0;
    if (cute_cuda_alloc(cu, big, &x) == CUTE_OK && cute_cuda_alloc(cu, big, &y) == CUTE_OK) {
        cute_cuda_copy_dtod_async(cu, y, x, big, NULL); /* warm-up */
        cute_cuda_event_record(cu, e0, NULL);
        for (int i = 0; i < 10; i++) cute_cuda_copy_dtod_async(cu, y, x, big, NULL);
        cute_cuda_event_record(cu, e1, NULL);
        cute_cuda_event_sync(cu, e1);
        cute_cuda_event_elapsed(cu, e0, e1, &ms);
        printf("dtod 256 MB x10: %.3f ms, %.0f GB/s (read + write)\n", ms,
               2.0 * 10 * (double)big / (ms * 1e6));
        CHECK(ms > 0, "timed copies");
    }
    if (x) cute_cuda_free(cu, x);
    if (y) cute_cuda_free(cu, y);

    CHECK(cute_cuda_event_free(cu, e0) == CUTE_OK && cute_cuda_event_free(cu, e1) == CUTE_OK,
          "event free");
    CHECK(cute_cuda_stream_free(cu, stream) == CUTE_OK, "stream free");
    size_t fr = 0, total = 0;
    CHECK(cute_cuda_mem_info(cu, &fr, &total) == CUTE_OK && fr > 0 && fr <= total,
          "mem info %zu / %zu", fr, total);
    CHECK(cute_cuda_free(cu, a) == CUTE_OK && cute_cuda_free(cu, b) == CUTE_OK, "free");
    CHECK(cute_cuda_sync(cu) == CUTE_OK, "sync");

    /* failures are statuses with the driver's words */
    cute_devptr huge = 0;
    s = cute_cuda_alloc(cu, (size_t)1 << 50, &huge);
    CHECK(s == CUTE_ERR_OOM && huge == 0 && strstr(cute_cuda_error(cu), "cuMemAlloc") &&
              strstr(cute_cuda_error(cu), "OUT_OF_MEMORY"),
          "1 PB: %d %s", s, cute_cuda_error(cu));
    void *mod = NULL;
    s = cute_cuda_module_load(cu, "this is not a module", &mod);
    CHECK(s != CUTE_OK && mod == NULL && strstr(cute_cuda_error(cu), "cuModuleLoadData"),
          "a bad image: %s", cute_cuda_error(cu));
    CHECK(cute_cuda_sync(cu) == CUTE_OK, "the context survives those: %s", cute_cuda_error(cu));
    free(src);
    free(dst);
}

int main(void)
{
    test_no_driver();
    test_arch_names();
    test_nvrtc_targets();
    test_nvrtc_error_first();
    cute_cuda *cu = NULL;
    char err[512];
    cute_status s = cute_cuda_open(NULL, &cu, err, sizeof err);
    if (s == CUTE_ERR_NO_DRIVER) {
        char why[600];
        snprintf(why, sizeof why, "no GPU (%s)", err);
        SKIP(why);
        return CHECK_DONE("driver_test");
    }
    CHECK(s == CUTE_OK && cu, "open: %s", err);
    if (!cu) return CHECK_DONE("driver_test");
    cute_cuda *other = NULL;
    cute_cuda_opts bad = {.device = cute_cuda_device_count(cu)};
    CHECK(cute_cuda_open(&bad, &other, err, sizeof err) == CUTE_ERR_NO_DRIVER && !other &&
              strstr(err, "no CUDA device"),
          "a device that is not there: %s", err);
    test_info(cu);
    test_memory(cu);
    /* two handles on one device share its primary context */
    CHECK(cute_cuda_open(NULL, &other, err, sizeof err) == CUTE_OK, "second handle: %s", err);
    cute_devptr p = 0;
    CHECK(other && cute_cuda_alloc(other, 256, &p) == CUTE_OK && cute_cuda_free(cu, p) == CUTE_OK,
          "memory of one handle freed through the other");
    cute_cuda_close(other);
    CHECK(cute_cuda_sync(cu) == CUTE_OK, "first handle still works");
    cute_cuda_close(cu);
    return CHECK_DONE("driver_test");
}
