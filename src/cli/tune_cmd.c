/* `cutec tune gemm|elementwise`: the autotuner's command (docs/tune.md).  The options, the
 * progress bar (a bar on a terminal, a line a candidate otherwise), the table of candidates
 * and the tuning file's update; the kernels' tuners are tune_gemm.c and tune_ew.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli/gemm_cli.h"
#include "cli/tune_cli.h"

double tune_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

cute_status tune_spill_bytes(const cute_fn *f, const char *arch, double *bytes, char *why, size_t n)
{
    char *text = NULL;
    cute_status s = cute_fn_code(f, "usage", arch, &text, why, n);
    *bytes = 0;
    for (const char *p = text; s == CUTE_OK && (p = strstr(p, "bytes spill stores")); p++) {
        const char *q = p; /* back over " 144 " to the number */
        while (q > text && q[-1] == ' ') q--;
        while (q > text && q[-1] >= '0' && q[-1] <= '9') q--;
        *bytes += atof(q);
    }
    free(text);
    return s;
}

void tune_progress(void *user, const cute_tune_progress *p)
{
    const tune_ui *ui = user;
    char text[256] = "";
    const cute_tune_result *r = p->last;
    if (r) cute_tune_point_text(ui->space, r->point, text, sizeof text);
    double s = (tune_now_ms() - ui->t0) / 1e3;
    if (!ui->tty) { /* a log: one line a candidate */
        if (r) fprintf(stderr, "tune: %s %d/%d %6.1f s  %-60s %s%s%s\n", p->phase, p->done, p->total, s, text,
                       cute_tune_state_name(r->state), r->why[0] && r->state < CUTE_TUNE_CHECKED ? ": " : "",
                       r->state < CUTE_TUNE_CHECKED ? r->why : "");
        return;
    }
    int width = 30, fill = p->total ? width * p->done / p->total : width;
    char bar[32];
    for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
    bar[width] = 0;
    fprintf(stderr, "\r\033[K%-5s [%s] %d/%d %5.1f s  %.60s", p->phase, bar, p->done, p->total, s, text);
    if (p->done == p->total) fputs("\r\033[K", stderr);
    fflush(stderr);
}

/* one row of the table */
static void print_result(const cute_tuner *t, const cute_tune_result *r, double (*rate)(void *, double),
                         const char *unit, double base_ms, bool best)
{
    char text[256], ms[16] = "-", rt[16] = "-", vs[16] = "-", stat[16] = "-";
    cute_tune_point_text(t->space, r->point, text, sizeof text);
    if (r->state == CUTE_TUNE_TIMED) {
        snprintf(ms, sizeof ms, "%.4f", r->ms);
        snprintf(rt, sizeof rt, "%.1f", rate(t->user, r->ms));
        if (base_ms > 0) snprintf(vs, sizeof vs, "%.1f%%", 100 * base_ms / r->ms);
    }
    if (r->stat >= 0) snprintf(stat, sizeof stat, "%.0f", r->stat);
    printf("%s %-62s %-8s %7.2f %9s %9s %8s %6s  %s\n", best ? "*" : " ", text, cute_tune_state_name(r->state),
           r->build_ms / 1e3, ms, rt, vs, stat, r->state < CUTE_TUNE_CHECKED || r->state == CUTE_TUNE_UNTIMED ? r->why : "");
    (void)unit;
}

static void print_table(const cute_tuner *t, const cute_tune_result *r, int count, int best,
                        double (*rate)(void *, double), const char *unit)
{
    double base = r[0].index == 0 && r[0].state == CUTE_TUNE_TIMED ? r[0].ms : 0; /* point 0: the default */
    int skipped = 0;
    printf("  %-62s %-8s %7s %9s %9s %8s %6s  %s\n", "candidate (first: the library's default)", "state", "build s",
           "ms", unit, "of dflt", "spill", "why");
    for (int i = 0; i < count; i++) {
        if (r[i].state == CUTE_TUNE_SKIPPED) { skipped++; continue; }
        print_result(t, &r[i], rate, unit, base, i == best);
    }
    if (skipped) printf("  (%d points of the space skipped: the plan refuses them, e.g. %s)\n", skipped,
                        r[count - 1].state == CUTE_TUNE_SKIPPED ? r[count - 1].why : "");
}

int tune_shape(const tune_opts *o, const cute_tuner *t, double (*rate)(void *user, double ms), const char *unit,
               int *point, double *ms)
{
    cute_tune_result *r;
    int count, best, right = 0;
    char err[1024];
    tune_ui *ui = t->user;
    ui->tty = isatty(STDERR_FILENO), ui->t0 = tune_now_ms(), ui->space = t->space;
    cute_tune_opts to = {.jobs = o->jobs, .budget = o->budget};
    if (cute_tune_run(t, &to, &r, &count, &best, err, sizeof err) != CUTE_OK)
        return fprintf(stderr, "cutec tune %s: %s\n", o->kernel, err), CLI_FAIL;
    double wall = (tune_now_ms() - ui->t0) / 1e3;
    print_table(t, r, count, best, rate, unit);
    for (int i = 0; i < count; i++) right += r[i].state >= CUTE_TUNE_CHECKED;
    int tried = 0;
    for (int i = 0; i < count; i++) tried += r[i].state != CUTE_TUNE_SKIPPED;
    printf("# %d candidates built and checked (%d right) on %d threads%s: %.1f s in all\n", tried, right, o->jobs,
           t->time ? ", the right ones then timed" : "", wall);
    *ms = 0;
    if (best >= 0) memcpy(point, r[best].point, sizeof r[best].point), *ms = r[best].ms;
    free(r);
    return right ? CLI_OK : CLI_FAIL;
}

int tune_store(const tune_opts *o, const cute_tune_entry *e, int count)
{
    char path[4096], err[1024];
    if (o->file) snprintf(path, sizeof path, "%s", o->file);
    else if (!cute_tune_db_path(path, sizeof path))
        return fprintf(stderr, "cutec tune: no tuning file: set CUTEC_TUNE_FILE, CUTEC_CACHE_DIR or HOME\n"), CLI_FAIL;
    if (cute_tune_db_store(path, e, count, err, sizeof err) != CUTE_OK)
        return fprintf(stderr, "cutec tune: %s\n", err), CLI_FAIL;
    printf("# %d entr%s written to %s\n", count, count == 1 ? "y" : "ies", path);
    return CLI_OK;
}

static int usage(void)
{
    fputs("usage: cutec tune gemm --shapes S1,S2,... [--dtype D] [--out-dtype D] [--layout XYZ]\n"
          "                  [--budget N] [--jobs J] [--iters I] [--interp [--arch sm_90a|sm_80]] [--file PATH]\n"
          "       cutec tune elementwise [--op add] [--dtype D] --shapes N1,N2,... [same options]\n"
          "       cutec tune show [--file PATH]     the tuning file's entries\n"
          "  searches the configurations of the kernel family the library picks on this card (gemm on\n"
          "  sm_90: tile, cluster, stages, schedule, raster; else the SM80 tensor-core kernel's tile,\n"
          "  warps, stages, raster; elementwise: threads per block, 16-byte vectors per thread):\n"
          "  compiles the candidates on J threads (--jobs, default 4), checks each result against\n"
          "  float64 (a wrong one is reported and never chosen), times the right ones one by one\n"
          "  (median of --iters CUDA-event timings), prints the table and writes the fastest of each\n"
          "  shape to the tuning file ($CUTEC_TUNE_FILE, else tune.txt in the JIT cache's directory),\n"
          "  which cutec_gemm then takes for that exact shape (CUTEC_NO_TUNE=1: not).\n"
          "  --shapes: gemm: S (S x S x S) or MxNxK; elementwise: elements (N or RxC)\n"
          "  --budget N: at most N candidates, those nearest the default first (default 32; 0: all)\n"
          "  --interp: no GPU needed: compile for --arch through NVRTC (ptxas's spills in the table)\n"
          "            and check on the interpreter at a small size; nothing is timed or written\n", stderr);
    return CLI_USAGE;
}

/* --shapes: each S, MxNxK (gemm) or N, RxC (elementwise: their product) */
static bool parse_shapes(const char *v, tune_opts *o, char *why, size_t n)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", v);
    o->nshapes = 0;
    bool gemm = !strcmp(o->kernel, "gemm");
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int64_t d[3];
        int k = 0;
        if (o->nshapes == TUNE_MAX_SHAPES) return snprintf(why, n, "at most %d shapes", TUNE_MAX_SHAPES), false;
        if (!cli_dims(w, gemm ? 3 : 2, (int64_t)1 << 40, d, &k, why, n)) return false;
        if (gemm && k == 2) return snprintf(why, n, "\"%s\": S or MxNxK", w), false;
        for (int i = 0; i < k; i++)
            if (d[i] < 1) return snprintf(why, n, "\"%s\": extents from 1", w), false;
        int64_t *s = o->shapes[o->nshapes++];
        s[0] = d[0], s[1] = k == 3 ? d[1] : gemm ? d[0] : 1, s[2] = k == 3 ? d[2] : gemm ? d[0] : 1;
        if (!gemm && k == 2) s[0] = d[0] * d[1];
    }
    return o->nshapes ? true : (snprintf(why, n, "no shapes"), false);
}

static bool parse_int_opt(const char *v, int64_t lo, int64_t hi, int *out, char *why, size_t n)
{
    int64_t x;
    if (!cli_int(v, lo, hi, &x, why, n)) return false;
    *out = (int)x;
    return true;
}

/* option k with value v into o; false with why */
static bool tune_option(const char *k, const char *v, tune_opts *o, char *why, size_t n)
{
    if (!strcmp(k, "--shapes")) return parse_shapes(v, o, why, n);
    if (!strcmp(k, "--budget")) return parse_int_opt(v, 0, 100000, &o->budget, why, n);
    if (!strcmp(k, "--jobs")) return parse_int_opt(v, 1, 256, &o->jobs, why, n);
    if (!strcmp(k, "--iters")) return parse_int_opt(v, 1, 1000, &o->iters, why, n);
    if (!strcmp(k, "--arch")) return o->arch = v, cli_arch(v, why, n);
    if (!strcmp(k, "--file")) return o->file = v, true;
    if (!strcmp(k, "--layout"))
        return cli_gemm_parse_layout(v, o->layout) || (snprintf(why, n, "two or three of n, t"), false);
    if (!strcmp(k, "--dtype") || !strcmp(k, "--out-dtype"))
        return cli_gemm_dtype_parse(v, !strcmp(k, "--dtype") ? &o->in : &o->out) ||
               (snprintf(why, n, "not a dtype"), false);
    if (!strcmp(k, "--op"))
        return cute_ew_op_parse(v, &o->op) || (snprintf(why, n, "not an elementwise op"), false);
    return snprintf(why, n, "unknown option"), false;
}

/* `cutec tune show [--file PATH]`: the tuning file's entries, or what is wrong with it */
static int show(int argc, char **argv)
{
    char path[4096], err[1024];
    if (argc == 4 && !strcmp(argv[2], "--file")) snprintf(path, sizeof path, "%s", argv[3]);
    else if (argc != 2) return usage();
    else if (!cute_tune_db_path(path, sizeof path))
        return fprintf(stderr, "cutec tune show: no tuning file (no CUTEC_TUNE_FILE, cache directory or HOME)\n"), CLI_FAIL;
    cute_tune_db *db;
    if (cli_parse_only()) return CLI_OK;
    if (cute_tune_db_load(path, &db, err, sizeof err) != CUTE_OK) return printf("cutec tune: %s\n", err), CLI_FAIL;
    printf("%d entr%s in %s\n", cute_tune_db_count(db), cute_tune_db_count(db) == 1 ? "y" : "ies", path);
    for (int i = 0; i < cute_tune_db_count(db); i++) {
        const cute_tune_entry *e = cute_tune_db_at(db, i);
        printf("%s (%d SMs)  %s  %.4f ms\n  %s\n", e->card, e->sms, e->key, e->ms, e->config);
    }
    cute_tune_db_free(db);
    return CLI_OK;
}

int cmd_tune(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "show")) return show(argc, argv);
    tune_opts o = {.kernel = argc > 1 ? argv[1] : "", .in = CUTE_VOID, .out = CUTE_VOID, .layout = "tnn",
                   .op = CUTE_EW_ADD, .budget = 32, .jobs = 4, .iters = 10, .seed = 1};
    bool gemm = !strcmp(o.kernel, "gemm"), ew = !strcmp(o.kernel, "elementwise");
    if (!gemm && !ew) return usage();
    for (int i = 2; i < argc; i++) {
        char why[256];
        const char *k = argv[i];
        if (!strcmp(k, "help") || !strcmp(k, "--help")) return usage();
        if (!strcmp(k, "--interp")) { o.interp = true; continue; }
        if (i + 1 >= argc) return fprintf(stderr, "cutec tune: %s needs a value\n", k), usage();
        if (!tune_option(k, argv[++i], &o, why, sizeof why))
            return fprintf(stderr, "cutec tune %s: %s %s: %s\n", o.kernel, k, argv[i], why), usage();
    }
    if (!o.nshapes) return fprintf(stderr, "cutec tune %s: --shapes is needed\n", o.kernel), usage();
    if (o.in == CUTE_VOID) o.in = gemm ? CUTE_BF16 : CUTE_F32;
    if (cli_parse_only()) return CLI_OK;
    return gemm ? tune_gemm(&o) : tune_elementwise(&o);
}
