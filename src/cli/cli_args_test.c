/* The CLI refuses every size it cannot represent, with a message naming it: nothing is
 * wrapped, clamped or half-read (cli_int / cli_dims, and the commands that use them). */
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "cli/cli_torch.h"
#include "cli/gemm_cli.h"
#include "cutec/cuda_driver.h"
#include "cutec/jit.h"

/* what the process writes to fd 1 or 2 between capture_begin and capture_end, into a file */
typedef struct capture {
    char path[32];
    int fd, saved, which;
} capture;

static void capture_begin(capture *c, int which)
{
    snprintf(c->path, sizeof c->path, "/tmp/cutec-cli-test.XXXXXX");
    c->fd = mkstemp(c->path), c->saved = dup(which), c->which = which;
    fflush(which == 1 ? stdout : stderr);
    dup2(c->fd, which);
}

/* the text captured into out[n] */
static void capture_end(capture *c, char *out, size_t n)
{
    fflush(c->which == 1 ? stdout : stderr);
    dup2(c->saved, c->which);
    close(c->saved);
    ssize_t got = pread(c->fd, out, n - 1, 0);
    out[got > 0 ? got : 0] = 0;
    close(c->fd);
    unlink(c->path);
}

/* run a command with its stderr captured into err[n]; its exit code */
static int run_captured(cli_command_fn cmd, int argc, char **argv, char *err, size_t n)
{
    capture c;
    capture_begin(&c, 2);
    int rc = cmd(argc, argv);
    capture_end(&c, err, n);
    return rc;
}

static void refused(cli_command_fn cmd, const char *const *words, const char *needle)
{
    char *argv[16], err[2048];
    int argc = 0;
    for (; words[argc]; argc++) argv[argc] = (char *)words[argc];
    argv[argc] = NULL;
    int rc = run_captured(cmd, argc, argv, err, sizeof err);
    CHECK(rc == CLI_USAGE && strstr(err, needle), "%s %s %s %s: exit %d, stderr \"%s\" (want \"%s\")",
          words[0], words[1], argc > 2 ? words[2] : "", argc > 3 ? words[3] : "", rc, err, needle);
}

static void parser(void)
{
    char why[160];
    int64_t v = -1, dims[4];
    int n = 0;
    CHECK(cli_int("42", 0, 100, &v, why, sizeof why) && v == 42, "42");
    CHECK(cli_int("-7", -10, 10, &v, why, sizeof why) && v == -7, "-7");
    const char *bad[] = {"", "8x", " 7", "+7", "0x10", "7 ", "-", "99999999999999999999",
                         "-99999999999999999999", "101"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        v = 12345;
        CHECK(!cli_int(bad[i], 0, 100, &v, why, sizeof why) && v == 12345 && why[0],
              "\"%s\" refused, *out untouched (%s)", bad[i], why);
    }
    CHECK(cli_dims("64x128x2", 4, INT64_MAX, dims, &n, why, sizeof why) && n == 3 &&
              dims[0] == 64 && dims[1] == 128 && dims[2] == 2, "64x128x2: %s", why);
    const char *bad_dims[] = {"8x", "x8", "8xx8", "", "4294967296x4294967296", "1x2x3x4x5", "8x-1"};
    for (size_t i = 0; i < sizeof bad_dims / sizeof *bad_dims; i++)
        CHECK(!cli_dims(bad_dims[i], 4, INT64_MAX, dims, &n, why, sizeof why) && why[0],
              "\"%s\" refused (%s)", bad_dims[i], why);
}

static void commands(void)
{
    refused(cmd_run, (const char *const[]){"run", "elementwise", "--shape", "4294967296x4294967296", NULL},
            "more than");
    refused(cmd_run, (const char *const[]){"run", "elementwise", "--shape", "8x", NULL}, "not extents");
    refused(cmd_run, (const char *const[]){"run", "elementwise", "--iters", "99999999999", NULL},
            "out of range");
    refused(cmd_run, (const char *const[]){"run", "gemm", "--pad", "9223372036854775807", NULL},
            "more than 2^63 bytes");
    refused(cmd_run, (const char *const[]){"run", "gemm", "--m", "99999999999999999999", NULL},
            "out of range");
    refused(cmd_run, (const char *const[]){"run", "gemm", "--iters", "99999999999", NULL},
            "out of range");
    refused(cmd_run, (const char *const[]){"run", "gemm", "--k", "8x", NULL}, "not a decimal");
    refused(cmd_compile, (const char *const[]){"compile", "gemm", "--align", "4x", NULL},
            "not a decimal");
    /* the block-scaled kinds (Blackwell's): the layout, the target, the kernel each named */
    refused(cmd_run, (const char *const[]){"run", "gemm", "--dtype", "nvfp4", "--layout", "nnn", NULL},
            "nvfp4 takes K-major A and B");
    refused(cmd_run, (const char *const[]){"run", "gemm", "--dtype", "mxfp4", "--backend", "interp", "--arch", "sm_90a",
                                           NULL}, "--dtype mxfp4 is a Blackwell block-scaled kind");
    refused(cmd_compile, (const char *const[]){"compile", "gemm", "--dtype", "mxfp8", "--arch", "sm_90a", NULL},
            "it needs an sm_100 target");
    /* sm_120 (an RTX 50) has no tcgen05: the same words, not the library's plan */
    refused(cmd_compile, (const char *const[]){"compile", "gemm", "--dtype", "nvfp4", "--arch", "sm_120a", NULL},
            "it needs an sm_100 target (--arch sm_100a; the interpreter runs it), not sm_120");
    refused(cmd_compile, (const char *const[]){"compile", "gemm", "--dtype", "nvfp4", "--variant", "hopper", NULL},
            "runs on the blackwell kernel only");
    refused(cmd_run, (const char *const[]){"run", "gemm", "--dtype", "nvfp4", "--tile", "128x256x256", NULL},
            "of the tiling it takes --cluster 1x1 or 2x1");
    refused(cmd_bench, (const char *const[]){"bench", "gemm", "--dtype", "mxfp8", NULL}, "bench does not time");
    refused(cmd_run, (const char *const[]){"run", "gemm", "--groups", "2", "--cluster", "2x1", NULL},
            "the grouped kernel with its own tiling");
    refused(cmd_bench, (const char *const[]){"bench", "attention", "--rest", "-1", NULL}, "bad option --rest -1");
    refused(cmd_bench, (const char *const[]){"bench", "attention", "--decode", "--rest", "100", NULL},
            "--rest is not taken with --decode");
    refused(cmd_bench, (const char *const[]){"bench", "attention", "--rows", "some", NULL}, "noncausal, causal or both");
    refused(cmd_run, (const char *const[]){"run", "attention", "--rows", "causal", NULL}, "--rows chooses bench's rows");
    refused(cmd_bench, (const char *const[]){"bench", "gemv", "--dtype", "nvfp4", "--wide", "1", NULL}, "--wide is compile's");
    refused(cmd_cache, (const char *const[]){"cache", NULL}, "usage: cutec cache");
    refused(cmd_export, (const char *const[]){"export", "gemm", NULL}, "--out DIR is needed");
    refused(cmd_export, (const char *const[]){"export", "gemm", "--out", NULL}, "--out needs a value");
    refused(cmd_export, (const char *const[]){"export", "gemm", "--emit", "ptx", NULL}, "no --emit");
}

/* the interpreter runs a kernel thread by thread on this CPU: a size a GPU takes in a
 * millisecond would take it hours, so each run names the time and refuses, at once */
static void interp_sizes(void)
{
    refused(cmd_run, (const char *const[]){"run", "gemm", "--backend", "interp", "--m", "4096", "--n", "4096", "--k",
                                           "4096", NULL}, "the interpreter would take");
    refused(cmd_run, (const char *const[]){"run", "softmax", "--backend", "interp", "--shape", "2147483648x2", NULL},
            "the interpreter would take");
    refused(cmd_run, (const char *const[]){"run", "elementwise", "--backend", "interp", "--shape", "100000x10000", NULL},
            "the interpreter would take");
    refused(cmd_run, (const char *const[]){"run", "attention", "--backend", "interp", "--seqlen", "65536", "--headdim",
                                           "128", "--batch", "8", "--heads", "16", NULL}, "the interpreter would take");
    refused(cmd_run, (const char *const[]){"run", "attention", "--backend", "interp", "--turns", "BAD=1", NULL},
            "forms of CUTEC_NAME=VALUE settings");
    refused(cmd_run, (const char *const[]){"run", "attention", "--backend", "interp", "--turns", "CUTEC_ATTN_BWD_PDL", NULL},
            "forms of CUTEC_NAME=VALUE settings");
    refused(cmd_run, (const char *const[]){"run", "gemv", "--backend", "interp", "--shape", "100000x100000", NULL},
            "the interpreter would take");
    refused(cmd_run, (const char *const[]){"run", "gemm", "--backend", "interp", "--m", "4096", "--n", "4096", "--k",
                                           "4096", "--dtype", "nvfp4", "--arch", "sm_100a", NULL},
            "the interpreter would take");
    refused(cmd_run, (const char *const[]){"run", "gemm", "--backend", "interp", "--m", "4096", "--n", "4096", "--k",
                                           "4096", "--dtype", "f16", "--groups", "64", NULL},
            "the interpreter would take");
    refused(cmd_run, (const char *const[]){"run", "hstu", "--backend", "interp", "--seqlen", "65536", "--heads", "8",
                                           NULL}, "the interpreter would take");
    refused(cmd_run, (const char *const[]){"run", "attention", "--decode", "--backend", "interp", "--seqlen", "16777216",
                                           "--batch", "64", NULL}, "the interpreter would take");
    refused(cmd_bench, (const char *const[]){"bench", "attention", "--backend", "interp", NULL}, "the interpreter would take");
    refused(cmd_bench, (const char *const[]){"bench", "attention", "--decode", "--backend", "interp", NULL},
            "the interpreter would take");
    refused(cmd_bench, (const char *const[]){"bench", "hstu", "--backend", "interp", NULL}, "the interpreter would take");
}

/* a size that launches no kernel has none to show: said, not a crash */
static void nothing_compiled(void)
{
    refused(cmd_compile, (const char *const[]){"compile", "softmax", "--emit", "ptx", "--shape", "0x1", NULL},
            "launches no kernel");
    refused(cmd_compile, (const char *const[]){"compile", "rmsnorm", "--emit", "ir", "--shape", "0x64", NULL},
            "launches no kernel");
}

/* a value the command cannot use is refused, not ignored */
static void ignored_values(void)
{
    refused(cmd_run, (const char *const[]){"run", "gemm", "--backend", "interp", "--arch", "sm_1", NULL},
            "\"sm_1\" is not a target");
    refused(cmd_run, (const char *const[]){"run", "softmax", "--backend", "interp", "--arch", "sm_90x", NULL},
            "\"sm_90x\" is not a target");
    refused(cmd_run, (const char *const[]){"run", "elementwise", "--backend", "interp", "--arch", "90", NULL},
            "\"90\" is not a target");
    refused(cmd_run, (const char *const[]){"run", "gemv", "--backend", "interp", "--arch", "sm_", NULL},
            "\"sm_\" is not a target");
    /* a card's plain target from 9.0 on lacks what its kernels use (wgmma, tcgen05): the
     * arch-specific one, as the driver names the card, instead of ptxas's refusal */
    refused(cmd_compile, (const char *const[]){"compile", "gemm", "--dtype", "bf16", "--arch", "sm_90", NULL},
            "sm_90a names the card");
    refused(cmd_run, (const char *const[]){"run", "softmax", "--backend", "interp", "--shape", "4x64", "--arch", "sm_120",
                                           NULL},
            "sm_120a names the card");
    /* 'a' targets exist from sm_90 on, 'f' ones from sm_100 on (there is no sm_80a) */
    refused(cmd_compile, (const char *const[]){"compile", "gemm", "--dtype", "bf16", "--arch", "sm_80a", NULL},
            "sm_80 names the card ('a' targets: sm_90a, sm_100a, sm_103a, sm_110a, sm_120a, sm_121a)");
    refused(cmd_run, (const char *const[]){"run", "softmax", "--backend", "interp", "--arch", "sm_90f", NULL},
            "sm_90a names the card ('f' targets: sm_100f");
    refused(cmd_compile, (const char *const[]){"compile", "gemm", "--m", "8", "--n", "8", "--k", "8", "--card", "h200:-1",
                                               "--emit", "config", NULL}, "--card h200:-1");
    refused(cmd_compile, (const char *const[]){"compile", "gemm", "--m", "8", "--n", "8", "--k", "8", "--card", "h200:x",
                                               "--emit", "config", NULL}, "--card h200:x");
    refused(cmd_compile, (const char *const[]){"compile", "gemm", "--emit", "bogus", NULL}, "--emit bogus");
    refused(cmd_compile, (const char *const[]){"compile", "elementwise", "--emit", "bogus", NULL}, "--emit bogus");
    refused(cmd_compile, (const char *const[]){"compile", "softmax", "--emit", "bogus", NULL}, "--emit bogus");
    refused(cmd_run, (const char *const[]){"run", "gemm", "--m", "8", "--frobnicate", NULL}, "unknown option --frobnicate");
    refused(cmd_run, (const char *const[]){"run", "softmax", "--shape", NULL}, "--shape needs a value");
    char err[4096];
    CHECK(run_captured(cmd_run, 3, (char *[]){"run", "softmax", "help", NULL}, err, sizeof err) == CLI_OK &&
              strstr(err, "usage: cutec run softmax"), "cutec run softmax help: the usage, exit 0: %s", err);
    CHECK(run_captured(cmd_run, 2, (char *[]){"run", "help", NULL}, err, sizeof err) == CLI_OK &&
              strstr(err, "usage: cutec run"), "cutec run help (cutec help run): the usage, exit 0: %s", err);
    refused(cmd_run, (const char *const[]){"run", "nosuchkernel", NULL}, "unknown kernel \"nosuchkernel\"");
    refused(cmd_bench, (const char *const[]){"bench", "nosuchkernel", NULL}, "unknown kernel \"nosuchkernel\"");
    /* run's --arch is the interpreter's target for gemv, HSTU and the rows too (it was
     * compile's alone there): a T4's HSTU refused; an A10's GEMV ring of 8 stages (128 KB at 16
     * vectors, the library's or asked for) halved to fit its 99 KB */
    char *hstu[] = {"run", "hstu", "--backend", "interp", "--arch", "sm_75", "--batch", "1", "--heads", "1",
                    "--seqlen", "16", "--headdim", "64", NULL};
    CHECK(run_captured(cmd_run, 14, hstu, err, sizeof err) == CLI_FAIL && strstr(err, "needs sm_80"),
          "cutec run hstu --arch sm_75: %s", err);
    char *gemv[] = {"run", "gemv", "--backend", "interp", "--arch", "sm_86", "--dtype", "bf16", "--vectors", "16",
                    "--shape", "32x64", "--smem-stages", "8", NULL};
    CHECK(run_captured(cmd_run, 14, gemv, err, sizeof err) == CLI_OK, "cutec run gemv --arch sm_86 --smem-stages 8: %s",
          err);
    gemv[12] = NULL; /* the library's ring */
    CHECK(run_captured(cmd_run, 12, gemv, err, sizeof err) == CLI_OK, "cutec run gemv --arch sm_86: %s", err);
}

/* run --turns: a diagnostic form (a CUTEC_*_DIAG setting, wrong by design) is said so and
 * timed on, not a failure that ends the turns (the Hopper forward without its softmax past
 * the first key tile: d64's 128-key tiles, two of them at 200 keys) */
static void turns_diagnostic(void)
{
    char *argv[] = {"run", "attention", "--backend", "interp", "--variant", "hopper", "--arch", "sm_90a",
                    "--headdim", "64", "--batch", "1", "--heads", "1", "--seqlen", "200", "--rounds", "1",
                    "--turns", "CUTEC_ATTN_FWD_DIAG=nosoftmax", NULL};
    char out[4096], err[1024];
    capture c;
    capture_begin(&c, 1);
    int rc = run_captured(cmd_run, 20, argv, err, sizeof err);
    capture_end(&c, out, sizeof out);
    CHECK(rc == CLI_OK && strstr(out, "turn 1 default: attention bf16 B=1 H=1 G=1 S=200 D=64 hopper, verified") &&
              strstr(out, "turn 1 CUTEC_ATTN_FWD_DIAG=nosoftmax: attention bf16 B=1 H=1 G=1 S=200 D=64 hopper, "
                          "wrong by design (a diagnostic) (") && !strstr(out, "FAILED"),
          "run attention --turns CUTEC_ATTN_FWD_DIAG=nosoftmax: exit %d, \"%s\"", rc, out);
}

/* CUTEC_ARCH is read by the rule of --arch: the CLI refuses what --arch refuses, in the same
 * words (cli_env_arch, main's check); the library warns once (a name that is no target is no
 * target; a portable one stays, its kernels not compiling for it) */
static void env_arch(void)
{
    /* the names themselves: src/backend/cuda_arch_test.c */
    char why[640];
    setenv("CUTEC_ARCH", "sm_90", 1);
    CHECK(!cli_env_arch(why, sizeof why) && strstr(why, "CUTEC_ARCH=sm_90: ") && strstr(why, "wgmma") &&
              strstr(why, "sm_90a names the card"), "CUTEC_ARCH=sm_90: %s", why);
    setenv("CUTEC_ARCH", "sm_80a", 1);
    CHECK(!cli_env_arch(why, sizeof why) && strstr(why, "'a' targets: sm_90a"), "CUTEC_ARCH=sm_80a: %s", why);
    char err[1024];
    capture c;
    capture_begin(&c, 2);
    cute_runtime *rt = NULL;
    bool opened = cute_runtime_new("interp", &rt, err, sizeof err) == CUTE_OK;
    capture_end(&c, err, sizeof err);
    CHECK(opened && cute_runtime_target_arch(rt) == 0 && strstr(err, "CUTEC_ARCH=sm_80a") && strstr(err, "sm_80 names the card"),
          "the library's CUTEC_ARCH=sm_80a: target %d, \"%s\"", rt ? cute_runtime_target_arch(rt) : -1, err);
    cute_runtime_free(rt);
    setenv("CUTEC_ARCH", "sm_100a", 1);
    CHECK(cli_env_arch(why, sizeof why), "CUTEC_ARCH=sm_100a: %s", why);
    unsetenv("CUTEC_ARCH");
    CHECK(cli_env_arch(why, sizeof why), "CUTEC_ARCH unset: %s", why);
}

/* `cutec bench gemm`'s --ceiling, --epilogue-cost and --turns: refused where they mean nothing, taken
 * where they do (parse only); scripts/device-meas38.sh, their GPU pass, skips without a GPU */
static void bench_gemm_measures(void)
{
    refused(cmd_bench, (const char *const[]){"bench", "gemm", "--ceiling", "0", NULL}, "bad value for --ceiling: 0");
    refused(cmd_bench, (const char *const[]){"bench", "gemm", "--ceiling", "9x", NULL}, "auto or a rate");
    refused(cmd_bench, (const char *const[]){"bench", "gemm", "--ceiling", "auto", NULL}, "f32 runs on no tensor core");
    refused(cmd_bench, (const char *const[]){"bench", "gemm", "--dtype", "bf16", "--epilogue-cost", NULL}, "nothing to cost");
    refused(cmd_bench, (const char *const[]){"bench", "gemm", "--dtype", "bf16", "--beta", "1", "--epilogue-cost", "--groups",
                                             "4", NULL}, "not with --groups");
    refused(cmd_bench, (const char *const[]){"bench", "gemm", "--dtype", "e4m3", "--amax", "--epilogue-cost", NULL},
            "--amax and --out-scale go with --scale");
    refused(cmd_run, (const char *const[]){"run", "gemm", "--epilogue-cost", NULL}, "unknown option --epilogue-cost");
    refused(cmd_bench, (const char *const[]){"bench", "gemm", "--dtype", "bf16", "--turns", "--groups", "4", NULL},
            "--turns times each variant in turns with cuBLAS's one GEMM: not with --epilogue-cost, --groups");
    refused(cmd_bench, (const char *const[]){"bench", "gemm", "--dtype", "bf16", "--beta", "1", "--epilogue-cost", "--turns",
                                             NULL}, "not with --epilogue-cost");
    refused(cmd_run, (const char *const[]){"run", "gemm", "--turns", NULL}, "unknown option --turns");
    refused(cmd_bench, (const char *const[]){"bench", "gemm", "--fill", "fine", NULL}, "bad value for --fill: fine");
    refused(cmd_bench, (const char *const[]){"bench", "gemm", "--stages", "3,x", NULL}, "bad value for --stages");
    refused(cmd_run, (const char *const[]){"run", "gemm", "--fill", "coarse", NULL}, "unknown option --fill");
    char err[2048];
    cli_parse_only_set(true);
    const char *ok[][16] = {{"bench", "gemm", "--dtype", "bf16", "--ceiling", "auto", "--beta", "1", "--epilogue-cost", NULL},
                            {"bench", "gemm", "--dtype", "e4m3", "--scale", "tensor", "--amax", "--epilogue-cost", "--ceiling",
                             "1790.5", NULL},
                            {"bench", "gemm", "--dtype", "bf16", "--groups", "8", "--ceiling", "auto", NULL},
                            {"bench", "gemm", "--dtype", "bf16", "--turns", "--cluster", "1x1,2x1", "--iters", "30", NULL},
                            {"bench", "gemm", "--dtype", "f16", "--fill", "coarse", NULL},
                            {"bench", "gemm", "--dtype", "bf16", "--stages", "3,4,3,4", "--raster", "8,16", NULL}};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        int argc = 0;
        while (ok[i][argc]) argc++;
        CHECK(run_captured(cmd_bench, argc, (char **)ok[i], err, sizeof err) == CLI_OK, "%s %s %s: %s", ok[i][2], ok[i][3],
              ok[i][4], err);
    }
    cli_parse_only_set(false);
    FILE *gpu = popen("command -v nvidia-smi", "r");
    char line[512] = "";
    bool has_gpu = gpu && fgets(line, sizeof line, gpu);
    if (gpu) pclose(gpu);
    if (has_gpu) {
        SKIP("scripts/device-meas38.sh's skip: nvidia-smi here, the script would run");
        return;
    }
    FILE *f = popen("sh scripts/device-meas38.sh 2>&1", "r");
    line[0] = 0;
    bool got = f && fgets(line, sizeof line, f);
    int rc = f ? pclose(f) : -1;
    CHECK(got && rc == 0 && strstr(line, "skipped: no GPU here"), "scripts/device-meas38.sh without a GPU: exit %d, \"%s\"",
          rc, line);
}

/* cli_torch_lines with stdout captured into out[n] */
static cli_torch torch_captured(const char *args, char *out, size_t n)
{
    capture c;
    capture_begin(&c, 1);
    cli_torch t = cli_torch_lines("torch", "CUTEC_TORCH_ROWS", "bench/none.py", "torch ", args);
    capture_end(&c, out, n);
    return t;
}

/* the benches' torch column: a script's figure lines returned, its '#' lines printed, and a
 * script that gives nothing said the one way (a script of ours through $CUTEC_TORCH_ROWS) */
static void torch_lines(void)
{
    char script[] = "/tmp/cutec-torch-test.XXXXXX", out[1024];
    int fd = mkstemp(script);
    static const char text[] = "import sys\nprint('# torch 0.0 on nothing')\nprint('noise')\n"
                               "for a in sys.argv[1:]: print('torch', a, 1.5)\n";
    CHECK(fd >= 0 && write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1), "the script");
    close(fd);
    setenv("CUTEC_TORCH_ROWS", script, 1);
    cli_torch t = torch_captured("8x8 16x16", out, sizeof out);
    if (!t.n && strstr(out, "exit 127")) {
        SKIP("no python3: the torch column's lines");
    } else {
        CHECK(t.n == 2 && !strcmp(t.line[0], "torch 8x8 1.5") && !strcmp(t.line[1], "torch 16x16 1.5") &&
                  !strcmp(out, "# torch 0.0 on nothing\n"),
              "%d figure lines (%s), printed \"%s\"", t.n, t.n ? t.line[0] : "", out);
        cli_torch_free(&t);
        unlink(script);
        t = torch_captured("8x8", out, sizeof out); /* (the script gone: python3 says why, exit 2) */
        CHECK(!t.n && strstr(out, "# torch: skipped: no figure from /tmp/cutec-torch-test.") &&
                  strstr(out, "(exit 2; python3 or torch missing"),
              "a script that is not there: \"%s\"", out);
    }
    cli_torch_free(&t);
    unlink(script);
    unsetenv("CUTEC_TORCH_ROWS");
}

/* --fill coarse: f16 keeps its top 8 significant bits (the low 3 fraction bits cleared), f32 its
 * top 16 bits, in the host copy and on the device; bf16 as it was; C untouched */
static void coarse_fill(void)
{
    char err[512];
    cute_runtime *rt;
    if (cute_runtime_new("interp", &rt, err, sizeof err) != CUTE_OK) {
        CHECK(false, "the interpreter: %s", err);
        return;
    }
    cute_backend *b = cute_runtime_backend(rt);
    const cute_dtype ds[] = {CUTE_F16, CUTE_F32, CUTE_BF16};
    for (int i = 0; i < 3; i++) {
        gemm_problem p;
        bool made = gemm_problem_make(b, &p, ds[i], CUTE_F32, (int64_t[]){9, 7, 5, 1}, "tn", 0, 43);
        CHECK(made, "a %s problem", cli_gemm_dtype_name(ds[i]));
        if (!made) continue;
        size_t na = gemm_operand_bytes(&p.a), nc = gemm_operand_bytes(&p.c);
        unsigned char *a0 = malloc(na), *c0 = malloc(nc), *dev = malloc(na);
        memcpy(a0, p.a.host, na), memcpy(c0, p.c.host, nc);
        CHECK(gemm_problem_coarsen(b, &p), "%s coarsened", cli_gemm_dtype_name(ds[i]));
        b->vt->download(b->self, dev, &p.a.buf, 0, na);
        int changed = 0, bad = 0;
        for (int64_t j = 0; j < p.a.elems; j++) {
            uint32_t was = ds[i] == CUTE_F32 ? ((uint32_t *)(void *)a0)[j] : ((uint16_t *)(void *)a0)[j];
            uint32_t now = ds[i] == CUTE_F32 ? ((uint32_t *)p.a.host)[j] : ((uint16_t *)p.a.host)[j];
            uint32_t want = ds[i] == CUTE_F16 ? (was & 0xFFF8u) : ds[i] == CUTE_F32 ? (was & 0xFFFF0000u) : was;
            changed += now != was, bad += now != want;
        }
        CHECK(bad == 0 && (ds[i] == CUTE_BF16 ? changed == 0 : changed > 0), "%s: %d of %lld wrong, %d changed",
              cli_gemm_dtype_name(ds[i]), bad, (long long)p.a.elems, changed);
        CHECK(!memcmp(dev, p.a.host, na) && !memcmp(c0, p.c.host, nc), "%s: uploaded, C untouched",
              cli_gemm_dtype_name(ds[i]));
        free(a0), free(c0), free(dev);
        gemm_problem_drop(b, &p);
    }
    cute_runtime_free(rt);
}

int main(void)
{
    parser();
    commands();
    interp_sizes();
    nothing_compiled();
    ignored_values();
    turns_diagnostic();
    bench_gemm_measures();
    coarse_fill();
    env_arch();
    torch_lines();
    return CHECK_DONE("cli_args_test");
}
