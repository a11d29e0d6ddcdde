/* The row-reduction kernels on the GPU at the benchmark sizes (bf16 16384x4096, 4096x32768,
 * 1024x262144; each op forward and backward), sampled rows against float64; and, with no
 * GPU, their CUDA C compiled by NVRTC for sm_80, sm_90a and sm_100a, the bf16 kernels
 * checked for 16-byte loads and stores, rows of 262144 for their cluster exchange, rows of
 * 32768 and 262144 for ptxas's spills, the planned occupancy.  Skipped visibly where there
 * is neither.  Arguments: the row lengths whose shapes the GPU part runs (all without). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli/rows_problem.h"
#include "cutec/runtime.h"
#include "kernels/resident.h"
#include "kernels/rows/rows_lib.h"

static const int64_t shapes[3][2] = {{16384, 4096}, {4096, 32768}, {1024, 262144}};

/* a persistent grid of clusters (a backward's column sums over the rows) fits the device at
 * once: no cluster walks its rows in a second wave.  Prints
 * what the driver said. */
static void grid_resident(cute_runtime *rt, cutec_rows *lib, const rows_problem *p)
{
    rows_launch l = rows_lib_last_launch(lib);
    if (l.cluster < 2 || l.iters < 2) return;
    int resident = kernels_resident_clusters(rt, l.cluster, l.threads, l.per_sm);
    const char *dir = p->backward ? "bwd" : "fwd";
    printf("# %s %s %lldx%lld: %lld clusters of %d blocks of %d threads (%d an SM), %lld rows each; %d resident\n",
           rp_op_name(p->op), dir, (long long)p->m, (long long)p->n, (long long)l.blocks, l.cluster, l.threads, l.per_sm,
           (long long)l.iters, resident);
    CHECK(resident > 0 && l.blocks <= resident, "%s %s %lldx%lld: %lld clusters, %d resident", rp_op_name(p->op), dir,
          (long long)p->m, (long long)p->n, (long long)l.blocks, resident);
}

/* the GPU part runs the shapes whose row lengths the arguments name (all without any), so
 * that a device script can run a subset within its time */
static bool shape_asked(int argc, char **argv, int64_t n)
{
    for (int i = 1; i < argc; i++)
        if (strtoll(argv[i], NULL, 10) == n) return true;
    return argc < 2;
}

static void on_gpu(cute_runtime *rt, int argc, char **argv)
{
    cutec_rows *lib = cutec_rows_new(rt);
    for (int op = 0; op < RP_COUNT; op++)
        for (int bwd = 0; bwd < 2; bwd++)
            for (int s = 0; s < 3; s++) {
                if (!shape_asked(argc, argv, shapes[s][1]) || (bwd && rp_op_reduce((rp_op)op))) continue;
                rows_problem p;
                rp_init(&p, (rp_op)op, bwd, CUTE_BF16, shapes[s][0], shapes[s][1], cute_runtime_backend(rt), lib);
                char first[256] = "";
                cute_status st = rp_setup(&p, false) ? rp_call(&p) : CUTE_ERR_OOM;
                if (st == CUTE_OK) st = p.be->vt->sync(p.be->self, NULL);
                CHECK(st == CUTE_OK, "%s %s %lldx%lld: %s", rp_op_name(p.op), bwd ? "bwd" : "fwd", (long long)p.m,
                      (long long)p.n, p.err);
                if (st == CUTE_OK) grid_resident(rt, lib, &p);
                int64_t bad = st == CUTE_OK ? rp_check(&p, false, first, sizeof first) : 0;
                CHECK(bad == 0, "%s %s %lldx%lld: %lld wrong (%s)", rp_op_name(p.op), bwd ? "bwd" : "fwd",
                      (long long)p.m, (long long)p.n, (long long)bad, first);
                /* one line a case, at once: a time limit that stops the test shows how far it got */
                printf("# %s %s %lldx%lld: %s\n", rp_op_name(p.op), bwd ? "bwd" : "fwd", (long long)p.m, (long long)p.n,
                       st == CUTE_OK && bad == 0 ? "checked" : "FAILED");
                fflush(stdout);
                rp_free(&p);
            }
    cutec_rows_free(lib);
}

/* the op writes no (M,N) matrix: cross-entropy's forward, the plain reductions */
static bool no_matrix_out(rp_op op, bool bwd) { return (op == RP_XENT && !bwd) || rp_op_reduce(op); }

/* PTX of op for arch through NVRTC; false (and a skip) without NVRTC */
static bool ptx_of(cutec_rows *lib, cute_runtime *rt, rp_op op, bool bwd, const char *arch, int64_t n, char **ptx)
{
    rows_problem p;
    rp_init(&p, op, bwd, CUTE_BF16, 16, n, cute_runtime_backend(rt), lib);
    char err[2048];
    cute_runtime_set_target_arch(rt, arch);
    CHECK(rp_setup(&p, true) && rp_call(&p) == CUTE_OK, "%s %s: %s", rp_op_name(op), arch, p.err);
    cute_status s = cute_fn_code(rows_lib_last(lib), "ptx", arch, ptx, err, sizeof err);
    if (s == CUTE_ERR_NO_NVRTC) return false;
    CHECK(s == CUTE_OK, "%s %s for %s: %s", rp_op_name(op), bwd ? "bwd" : "fwd", arch, err);
    return s == CUTE_OK;
}

static void compiled_only(cute_runtime *rt)
{
    const char *archs[] = {"sm_80", "sm_90a", "sm_100a"};
    for (int a = 0; a < 3; a++)
        for (int op = 0; op < RP_COUNT; op++)
            for (int bwd = 0; bwd < 2; bwd++) {
                if (a != 1 && (op != RP_SOFTMAX || bwd)) continue; /* every op for sm_90a, softmax for the others */
                if (bwd && rp_op_reduce((rp_op)op)) continue;      /* the plain reductions have no backward */
                cutec_rows *lib = cutec_rows_new(rt);
                rows_lib_dry_run(lib, true);
                char *ptx = NULL;
                if (!ptx_of(lib, rt, (rp_op)op, bwd, archs[a], 4096, &ptx)) {
                    SKIP("no NVRTC: the row kernels' CUDA C was not compiled");
                    cutec_rows_free(lib);
                    return;
                }
                /* rows of 4096 bf16: every row tensor moves 16 bytes an access (the norms'
                 * backward on sm_90a stages its rows and weight by bulk copies, read 16 bytes
                 * at a time from shared memory) */
                bool staged = ptx && strstr(ptx, "cp.async.bulk.shared::cluster.global") && strstr(ptx, "ld.shared.v4");
                bool load16 = ptx && (strstr(ptx, "ld.global.nc.v4") || strstr(ptx, "ld.global.v4") || staged);
                bool store16 = ptx && strstr(ptx, "st.global.v4"); /* no (M,N) output: nothing to store */
                CHECK(load16 && (store16 || no_matrix_out((rp_op)op, bwd)),
                      "%s %s for %s: no 16-byte accesses", rp_op_name((rp_op)op), bwd ? "bwd" : "fwd", archs[a]);
                free(ptx);
                cutec_rows_free(lib);
            }
}

/* rows of 262144 bf16 on sm_90a and sm_100a: split over a cluster whose blocks exchange
 * their partials through distributed shared memory, 16 bytes an access (each block's part
 * of the row staged by a bulk copy, then read from shared memory 16 bytes at a time) */
static void cluster_compiled(cute_runtime *rt)
{
    const char *archs[] = {"sm_90a", "sm_100a"};
    for (int a = 0; a < 2; a++)
        for (int op = 0; op < RP_COUNT; op++)
            for (int bwd = 0; bwd < 2; bwd++) {
                if (bwd && rp_op_reduce((rp_op)op)) continue;
                cutec_rows *lib = cutec_rows_new(rt);
                rows_lib_dry_run(lib, true);
                char *ptx = NULL;
                bool ok = ptx_of(lib, rt, (rp_op)op, bwd, archs[a], 262144, &ptx);
                cutec_rows_free(lib);
                if (!ok) return; /* no NVRTC: compiled_only said so */
                /* an op with no (M,N) output (cross-entropy's forward, the plain reductions)
                 * streams its row once in chunks instead (the norms' backward keeps dw and db
                 * in its cluster's registers) */
                bool want = !no_matrix_out((rp_op)op, bwd);
                bool cluster = ptx && strstr(ptx, "mapa.shared::cluster") && strstr(ptx, "barrier.cluster.wait");
                bool staged = ptx && strstr(ptx, "cp.async.bulk.shared::cluster.global") && strstr(ptx, "ld.shared.v4");
                bool load16 = ptx && (strstr(ptx, "ld.global.nc.v4") || strstr(ptx, "ld.global.v4") || staged);
                CHECK(cluster == want && load16, "%s %s 1024x262144 for %s: %s", rp_op_name((rp_op)op), bwd ? "bwd" : "fwd",
                      archs[a], !load16 ? "no 16-byte loads" : want ? "not split over a cluster" : "split over a cluster");
                free(ptx);
            }
}

/* the first nonzero "N bytes spill stores" of ptxas's report (0: none) */
static long spilled(const char *log)
{
    long most = 0;
    for (const char *at = log; (at = strstr(at, " bytes spill stores")) != NULL; at++) {
        const char *num = at;
        while (num > log && num[-1] >= '0' && num[-1] <= '9') num--;
        long v = strtol(num, NULL, 10);
        most = v > most ? v : most;
    }
    return most;
}

/* rows of 32768 and 262144 bf16 for sm_90a: ptxas reports no spill (the cluster kernels that
 * held their tiles in registers spilled up to 224 bytes; RMSNorm's backward at 262144, 512
 * threads at 128 registers, 36 while a block's one tile was walked by loops that never ran
 * more than once) */
static void no_spills(cute_runtime *rt)
{
    for (int op = 0; op < RP_COUNT; op++)
        for (int bwd = 0; bwd < 2; bwd++)
            for (int s = 1; s < 3; s++) {
                rows_problem p;
                cutec_rows *lib = cutec_rows_new(rt);
                rows_lib_dry_run(lib, true);
                rp_init(&p, (rp_op)op, bwd, CUTE_BF16, 16, shapes[s][1], cute_runtime_backend(rt), lib);
                cute_runtime_set_target_arch(rt, "sm_90a");
                char err[2048], *log = NULL;
                CHECK(rp_setup(&p, true) && rp_call(&p) == CUTE_OK, "%s: %s", rp_op_name((rp_op)op), p.err);
                cute_status st = cute_fn_code(rows_lib_last(lib), "usage", "sm_90a", &log, err, sizeof err);
                cutec_rows_free(lib);
                if (st == CUTE_ERR_NO_NVRTC) return;
                CHECK(st == CUTE_OK && spilled(log) == 0,
                      "%s %s 16x%lld for sm_90a: %s", rp_op_name((rp_op)op),
                      bwd ? "bwd" : "fwd", (long long)shapes[s][1], st ? err : "spills registers");
                free(log);
            }
}

/* the launch op would get for 16 rows of n bf16 on sm_90a (a dry run), and ptxas's register
 * count of its kernel (0 without NVRTC) */
static rows_launch planned(cute_runtime *rt, rp_op op, bool bwd, int64_t n, long *registers)
{
    rows_problem p;
    cutec_rows *lib = cutec_rows_new(rt);
    rows_lib_dry_run(lib, true);
    rp_init(&p, op, bwd, CUTE_BF16, 16, n, cute_runtime_backend(rt), lib);
    cute_runtime_set_target_arch(rt, "sm_90a");
    char err[2048], *log = NULL, *at;
    CHECK(rp_setup(&p, true) && rp_call(&p) == CUTE_OK, "%s: %s", rp_op_name(op), p.err);
    rows_launch l = rows_lib_last_launch(lib);
    *registers = 0;
    if (cute_fn_code(rows_lib_last(lib), "usage", "sm_90a", &log, err, sizeof err) == CUTE_OK) {
        if ((at = strstr(log, "Used ")) != NULL) *registers = strtol(at + 5, NULL, 10);
        CHECK(spilled(log) == 0, "%s %s 16x%lld for sm_90a: spills registers", rp_op_name(op), bwd ? "bwd" : "fwd",
              (long long)n);
    }
    free(log);
    cutec_rows_free(lib);
    return l;
}

/* The forwards at 262144 split the row over clusters of 16 blocks of 128 threads staging 32 KB
 * each, six blocks an SM (lnf's hex parts; LayerNorm's seven, ln41's tail); RMSNorm, whose weight is loaded with the row, and
 * every forward under CUTEC_ROWS_HEX=0, over clusters of 8 blocks staging 64 KB, three an SM
 * (rows6's 16 blocks of 32 KB of 256 threads, 96 KB an SM in flight, measured slower and
 * deleted); the norms' forward and cross-entropy at 4096 run three blocks an SM (cross-entropy's
 * backward took 106 registers: two) */
static void occupancy(cute_runtime *rt)
{
    const rp_op fwd[] = {RP_SOFTMAX, RP_RMSNORM, RP_LAYERNORM};
    long regs;
    for (int i = 0; i < 3; i++) {
        rows_launch l = planned(rt, fwd[i], false, 262144, &regs);
        bool hex = fwd[i] != RP_RMSNORM;
        int per_sm = fwd[i] == RP_LAYERNORM ? 7 : hex ? 6 : 3;
        CHECK(l.cluster == (hex ? 16 : 8) && l.per_sm == per_sm && l.threads == (hex ? 128 : 256),
              "%s fwd 16x262144: clusters of %d, %d blocks of %d threads an SM", rp_op_name(fwd[i]), l.cluster, l.per_sm,
              l.threads);
        setenv("CUTEC_ROWS_HEX", "0", 1);
        l = planned(rt, fwd[i], false, 262144, &regs);
        unsetenv("CUTEC_ROWS_HEX");
        CHECK(l.cluster == 8 && l.per_sm == 3, "%s fwd 16x262144, CUTEC_ROWS_HEX=0: clusters of %d, %d blocks an SM (want 8, 3)",
              rp_op_name(fwd[i]), l.cluster, l.per_sm);
    }
    /* LayerNorm's forward at 32768 over clusters of two such blocks, seven an SM (ln39's hexrow,
     * ln41's tail), one block
     * of 256 threads staging the row under CUTEC_ROWS_HEX=0 */
    rows_launch l = planned(rt, RP_LAYERNORM, false, 32768, &regs);
    CHECK(l.cluster == 2 && l.per_sm == 7 && l.threads == 128, "layernorm fwd 16x32768: clusters of %d, %d blocks of %d threads an SM",
          l.cluster, l.per_sm, l.threads);
    setenv("CUTEC_ROWS_HEX", "0", 1);
    l = planned(rt, RP_LAYERNORM, false, 32768, &regs);
    unsetenv("CUTEC_ROWS_HEX");
    CHECK(l.cluster == 0 && l.threads == 256, "layernorm fwd 16x32768, CUTEC_ROWS_HEX=0: clusters of %d, blocks of %d threads",
          l.cluster, l.threads);
    l = planned(rt, RP_XENT, true, 4096, &regs);
    CHECK(l.per_sm == 3 && regs <= 65536 / (3 * 256), "cross-entropy bwd 16x4096: %d blocks an SM asked, %ld registers",
          l.per_sm, regs);
}

int main(int argc, char **argv)
{
    cute_runtime *rt;
    char err[512];
    if (cute_runtime_new("cuda", &rt, err, sizeof err) == CUTE_OK) {
        on_gpu(rt, argc, argv);
        cute_runtime_free(rt);
    } else {
        SKIP("no GPU: the row kernels were compiled, not run");
        if (cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK)
            compiled_only(rt), cluster_compiled(rt), no_spills(rt), occupancy(rt), cute_runtime_free(rt);
    }
    return CHECK_DONE("rows_gpu_test");
}
