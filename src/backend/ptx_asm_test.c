/* The ways a PTX module is assembled without a GPU (ptx_ptxas.c, ptx_nvjitlink.c): the ptxas
 * binary started by fork or by posix_spawn (CUTEC_PTXAS_SPAWN) gives the same cubin and
 * report; libnvJitLink in the process (CUTEC_PTX_ASM=nvjitlink) gives a cubin (an ELF) and
 * ptxas's report (where the library does not load, the binary's way).  Each says in words
 * what is wrong with bad PTX, a binary that fails or is missing.  CUTEC_PTXAS_THP adds
 * glibc.malloc.hugetlb=1 to the binary's GLIBC_TUNABLES, keeping what was there.  The PTX: a small kernel, and the library's Hopper GEMM (its first tier: ptxas -O1 without spills; nvJitLink compiles it as a
 * relocatable unit, which ignores setmaxnreg: it spills, and the test says how much).
 * Without ptxas (or the library) those parts skip visibly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/ptx_internal.h"
#include "check.h"
#include "cutec/kernels.h"
#include "cutec/ptx.h"

/* a small kernel: one store */
static const char small[] = ".version 8.1\n.target sm_90a\n.address_size 64\n"
                            ".visible .entry k(.param .u64 p) { .reg .b64 %rd<2>; .reg .b32 %r<2>;\n"
                            "ld.param.u64 %rd1, [p]; mov.u32 %r1, %tid.x; st.global.u32 [%rd1], %r1; ret; }\n";

/* the PTX backend's module of the library's Hopper GEMM (bf16, sm_90a), or NULL */
static char *hopper_ptx(void)
{
    char err[1024], *ptx = NULL;
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) return NULL;
    cute_runtime_set_target_arch(rt, "sm_90a");
    cute_gemm_config cfg = {.variant = CUTE_GEMM_HOPPER, .dtype = CUTE_BF16, .major = {1, 1, 0}, .align_bytes = 16,
                            .index_bound = CUTE_GEMM_INDEX_BOUND};
    const cute_fn *f = cute_gemm_compile(rt, &cfg, err, sizeof err);
    const cute_ir_func *k[16];
    int nk = f ? cute_fn_kernel_count(f) : 0;
    for (int i = 0; i < nk && i < 16; i++) k[i] = cute_fn_kernel(f, i);
    if (f && cute_ptx_emit(k, nk < 16 ? nk : 16, &(cute_ptx_opts){.arch = "sm_90a"}, &ptx, err, sizeof err) != CUTE_OK)
        free(ptx), ptx = NULL;
    CHECK(ptx, "the PTX backend says the Hopper GEMM: %s", err);
    cute_fn_free(f);
    cute_runtime_free(rt);
    return ptx;
}

typedef struct assembled {
    cute_status s;
    void *cubin;
    size_t len;
    char *log, err[1024];
} assembled;

static assembled assemble(const char *ptx, int opt)
{
    assembled a = {0};
    a.s = cute_ptx_assemble(ptx, "sm_90a", opt, &a.cubin, &a.len, &a.log, NULL, a.err, sizeof a.err);
    return a;
}

static void drop(assembled *a) { free(a->cubin), free(a->log), a->cubin = NULL, a->log = NULL; }

static bool is_elf(const assembled *a) { return a->s == CUTE_OK && a->len > 4 && !memcmp(a->cubin, "\177ELF", 4); }

/* fork and posix_spawn start the same binary (on huge pages or not): the same bytes and
 * report; failures in words */
static void spawn_and_fork(const char *hopper)
{
    const char *ptx[2] = {small, hopper};
    for (int k = 0; k < 2; k++) {
        if (!ptx[k]) continue;
        setenv("CUTEC_PTXAS_SPAWN", "0", 1);
        assembled f = assemble(ptx[k], 1);
        setenv("CUTEC_PTXAS_SPAWN", "1", 1);
        assembled s = assemble(ptx[k], 1);
        setenv("CUTEC_PTXAS_THP", "1", 1);
        assembled h = assemble(ptx[k], 1);
        unsetenv("CUTEC_PTXAS_THP");
        CHECK(is_elf(&f) && is_elf(&s), "%s: fork %d, spawn %d: %s %s", k ? "hopper" : "small", f.s, s.s, f.err, s.err);
        CHECK(f.len == s.len && f.len && !memcmp(f.cubin, s.cubin, f.len), "the same cubin started either way");
        CHECK(h.len == s.len && h.len && !memcmp(h.cubin, s.cubin, h.len), "the same cubin on huge pages");
        drop(&h);
        CHECK(f.log && s.log && strstr(s.log, "Used ") && cute_ptx_spilled(s.log) == 0 &&
                  cute_ptx_spilled(f.log) == 0,
              "ptxas's report either way, no spills (-O1): %s", s.log ? s.log : "(none)");
        drop(&f), drop(&s);
    }
    for (int spawn = 0; spawn < 2; spawn++) {
        setenv("CUTEC_PTXAS_SPAWN", spawn ? "1" : "0", 1);
        assembled a = assemble(".version 8.1\n.target sm_90a\n.address_size 64\n.entry k() { bogus; }\n", 1);
        CHECK(a.s == CUTE_ERR_COMPILE && strstr(a.err, "ptxas refused") && a.log && strstr(a.log, "bogus"),
              "spawn %d: bad PTX refused in ptxas's words: %s", spawn, a.err);
        drop(&a);
        setenv("CUTEC_PTXAS", "/bin/false", 1);
        a = assemble(small, 1);
        CHECK(a.s == CUTE_ERR_COMPILE && !a.cubin, "spawn %d: a ptxas that fails: %d %s", spawn, a.s, a.err);
        drop(&a);
        setenv("CUTEC_PTXAS", "/no/such/ptxas", 1);
        a = assemble(small, 1);
        CHECK(a.s == CUTE_ERR_NO_DRIVER && strstr(a.err, "no ptxas"), "spawn %d: no binary: %s", spawn, a.err);
        drop(&a);
        unsetenv("CUTEC_PTXAS");
    }
    unsetenv("CUTEC_PTXAS_SPAWN");
}

/* CUTEC_PTXAS_THP: the binary's environment has glibc.malloc.hugetlb=1 added to whatever
 * GLIBC_TUNABLES said (a stand-in ptxas that prints it), started either way; off, untouched */
static void huge_pages(void)
{
    char tool[] = "/tmp/cutec-ptxas-env-XXXXXX";
    int fd = mkstemp(tool);
    const char script[] = "#!/bin/sh\necho \"tunables=[$GLIBC_TUNABLES]\"\nexit 1\n";
    bool made = fd >= 0 && write(fd, script, sizeof script - 1) == (ssize_t)(sizeof script - 1);
    if (fd >= 0) close(fd);
    if (!made || chmod(tool, 0700) != 0) {
        SKIP("no stand-in ptxas: CUTEC_PTXAS_THP untried");
        unlink(tool);
        return;
    }
    setenv("CUTEC_PTXAS", tool, 1);
    static const struct {
        const char *thp, *before, *want;
    } cases[] = {
        {"1", NULL, "tunables=[glibc.malloc.hugetlb=1]"},
        {"1", "glibc.malloc.arena_max=2", "tunables=[glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1]"},
        {"0", "glibc.malloc.arena_max=2", "tunables=[glibc.malloc.arena_max=2]"},
        {"0", NULL, "tunables=[]"},
    };
    for (int spawn = 0; spawn < 2; spawn++)
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            setenv("CUTEC_PTXAS_SPAWN", spawn ? "1" : "0", 1);
            setenv("CUTEC_PTXAS_THP", cases[i].thp, 1);
            if (cases[i].before) setenv("GLIBC_TUNABLES", cases[i].before, 1);
            else unsetenv("GLIBC_TUNABLES");
            assembled a = assemble(small, 1);
            CHECK(a.s == CUTE_ERR_COMPILE && a.log && strstr(a.log, cases[i].want), "spawn %d, THP %s, before %s: %s",
                  spawn, cases[i].thp, cases[i].before ? cases[i].before : "(unset)", a.log ? a.log : a.err);
            drop(&a);
        }
    unsetenv("GLIBC_TUNABLES"), unsetenv("CUTEC_PTXAS_THP"), unsetenv("CUTEC_PTXAS_SPAWN"), unsetenv("CUTEC_PTXAS");
    unlink(tool);
}

/* the file a library of this name was mapped from (/proc/self/maps), or "(not mapped)" */
static void loaded_from(const char *name, char *out, size_t n)
{
    snprintf(out, n, "(not mapped)");
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        char *p = strchr(line, '/');
        if (p && strstr(p, name)) {
            p[strcspn(p, "\n")] = 0;
            snprintf(out, n, "%s", p);
            break;
        }
    }
    if (f) fclose(f);
}

/* libnvJitLink: a cubin and ptxas's report, every time (-no-cache: a cubin from the driver's
 * compute cache came without one, ptx_nvjitlink.c); its refusals and its absence in words.  A
 * failure names the library and shows the log's start. */
static void nvjitlink(const char *hopper)
{
    if (!px_nvjitlink_found(NULL, 0)) {
        SKIP("no libnvJitLink: CUTEC_PTX_ASM=nvjitlink not tried (it gives the binary's work)");
        return;
    }
    setenv("CUTEC_PTX_ASM", "nvjitlink", 1);
    char id[256] = "";
    CHECK(cute_ptx_ptxas_found(id, sizeof id) && strstr(id, "nvJitLink"), "the cache key names the library: %s", id);
    char where[512];
    loaded_from("libnvJitLink", where, sizeof where);
    for (int twice = 0; twice < 2; twice++) { /* the second the same PTX again: a report still */
        assembled a = assemble(small, 1);
        CHECK(is_elf(&a) && a.log && strstr(a.log, "Used "), "%s (%s): a cubin and a report, try %d: %d %s; log: %.300s",
              id, where, twice + 1, a.s, a.err, a.log ? a.log : "(none)");
        drop(&a);
    }
    assembled a;
    if (hopper) {
        a = assemble(hopper, 1);
        long spilled = a.s == CUTE_OK ? cute_ptx_spilled(a.log) : -1;
        CHECK(is_elf(&a) && spilled >= 0 && a.log && strstr(a.log, "Used "), "%s on the Hopper GEMM: %d %s; log: %.300s",
              where, a.s, a.err, a.log ? a.log : "(none)");
        printf("nvJitLink, the Hopper GEMM at -O1: %ld bytes spilled (a relocatable unit: setmaxnreg ignored)\n",
               spilled);
        drop(&a);
    }
    a = assemble(".version 8.1\n.target sm_90a\n.address_size 64\n.entry k() { bogus; }\n", 1);
    CHECK(a.s == CUTE_ERR_COMPILE && strstr(a.err, "nvJitLink refused"), "nvJitLink: bad PTX in words: %s", a.err);
    drop(&a);
    unsetenv("CUTEC_PTX_ASM");
}

int main(void)
{
    char err[256];
    char *hopper = hopper_ptx();
    if (cute_ptx_assemble("", "sm_90a", 1, NULL, NULL, NULL, NULL, err, sizeof err) == CUTE_ERR_NO_DRIVER)
        SKIP("no ptxas: the binary's ways not tried");
    else
        spawn_and_fork(hopper);
    huge_pages();
    nvjitlink(hopper);
    free(hopper);
    return CHECK_DONE("ptx_asm_test");
}
