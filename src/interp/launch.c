/* A launch: check the configuration and arguments, give each worker a cluster of blocks
 * (each its register file and shadows; one block without clusters), run the clusters (in
 * increasing order, on `threads` workers, each cluster's blocks together), then gather the
 * reports and the printf output in block order, so that neither depends on the number of
 * workers. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/interp_internal.h"
#include "interp/peers.h"

/* --- arguments ---------------------------------------------------------------------------- */

static int by_base(const void *a, const void *b)
{
    const ibuf *x = a, *y = b;
    return x->base < y->base ? -1 : x->base > y->base;
}

static cute_status arg_value(struct interp *B, ilaunch *L, uint32_t i, const cute_launch_arg *a,
                             islot *v)
{
    const iprog *P = L->P;
    cute_vreg r = P->params[i];
    cute_type t = P->vtype[r];
    const char *name = P->vname[r] ? P->vname[r] : "?";
    char want[64], got[64];
    cute_type_str(t, want, sizeof want);
    cute_type_str(a->type, got, sizeof got);
    if (!cute_type_eq(t, a->type)) {
        interp_set_error(B, "launch of %s: argument %u (%s) is %s, the kernel takes %s", P->name,
                         i + 1, name, got, want);
        return CUTE_ERR_INVALID;
    }
    memset(v, 0, sizeof *v);
    if (t.dtype == CUTE_TMAP) { /* the register holds its address (valid during the launch) */
        if (!a->bytes || (uintptr_t)a->bytes % 64) {
            interp_set_error(B, "launch of %s: argument %u (%s): a tensor map needs its 128 "
                             "bytes at a 64-byte aligned address", P->name, i + 1, name);
            return CUTE_ERR_INVALID;
        }
        v->u64 = (uint64_t)(uintptr_t)a->bytes;
        return CUTE_OK;
    }
    if (t.dtype != CUTE_PTR) {
        if (cute_dtype_is_narrow_float((cute_dtype)t.dtype)) {
            interp_store_const(v, t.dtype, cute_narrow_encode((cute_dtype)t.dtype, a->v.f));
        } else if (cute_dtype_is_float((cute_dtype)t.dtype)) {
            int64_t bits;
            memcpy(&bits, &a->v.f, sizeof bits);
            interp_store_const(v, t.dtype, bits);
        } else {
            interp_store_const(v, t.dtype, a->v.i);
        }
        return CUTE_OK;
    }
    if (t.space != CUTE_GMEM) {
        interp_set_error(B, "launch of %s: parameter %s points to shared memory", P->name, name);
        return CUTE_ERR_INVALID;
    }
    if (!a->buf) return CUTE_OK; /* a null pointer: any access through it is reported */
    const ibuffer *b = interp_backend_buffer(B, a->buf->ptr);
    if (!b || a->offset > b->bytes) {
        interp_set_error(B, "launch of %s: argument %u (%s) is %s", P->name, i + 1, name,
                         b ? "past the end of its buffer" : "not a buffer of this interpreter");
        return CUTE_ERR_INVALID;
    }
    v->u64 = (uint64_t)(uintptr_t)(b->ptr + a->offset);
    for (int k = 0; k < L->nbufs; k++)
        if (L->bufs[k].id == b->id) return CUTE_OK;
    L->bufs[L->nbufs++] = (ibuf){(uint64_t)(uintptr_t)b->ptr, b->bytes, b->id, P->vname[r]};
    return CUTE_OK;
}

/* a kernel that reads pointers from memory may reach any live buffer (the arguments' first;
 * the launch holds B's lock) */
static cute_status every_buffer(struct interp *B, ilaunch *L)
{
    ibuf *all = realloc(L->bufs, ((size_t)L->nbufs + (size_t)B->nbufs + 1) * sizeof *all);
    if (all) L->bufs = all;
    for (int i = 0; all && i < B->nbufs; i++) {
        const ibuffer *b = &B->bufs[i];
        bool known = false;
        for (int k = 0; k < L->nbufs && !known; k++) known = L->bufs[k].id == b->id;
        if (!known) L->bufs[L->nbufs++] = (ibuf){(uint64_t)(uintptr_t)b->ptr, b->bytes, b->id, "a buffer"};
    }
    return all ? CUTE_OK : CUTE_ERR_OOM;
}

static cute_status setup(struct interp *B, ilaunch *L, const cute_launch *cfg,
                         const cute_launch_arg *args, int nargs)
{
    const iprog *P = L->P;
    cute_dim3 g = cfg->grid, k = cfg->block;
    uint64_t nthr = (uint64_t)k.x * k.y * k.z;
    if (!g.x || !g.y || !g.z || !nthr || nthr > 1024) {
        interp_set_error(B, "launch of %s: grid (%u,%u,%u) of blocks (%u,%u,%u): a block has 1 "
                         "to 1024 threads, a grid at least one block", P->name, g.x, g.y, g.z,
                         k.x, k.y, k.z);
        return CUTE_ERR_INVALID;
    }
    cute_dim3 c = cfg->cluster; /* checked like the driver; a cluster's blocks run together */
    if ((c.x || c.y || c.z) && (!c.x || !c.y || !c.z || g.x % c.x || g.y % c.y || g.z % c.z)) {
        interp_set_error(B, "launch of %s: clusters of (%u,%u,%u) blocks do not tile the grid "
                         "(%u,%u,%u)", P->name, c.x, c.y, c.z, g.x, g.y, g.z);
        return CUTE_ERR_INVALID;
    }
    if ((uint64_t)c.x * c.y * c.z > 16) { /* 8 portable, 16 with the non-portable opt-in */
        interp_set_error(B, "launch of %s: clusters of (%u,%u,%u) blocks: a cluster has at most "
                         "16 blocks", P->name, c.x, c.y, c.z);
        return CUTE_ERR_INVALID;
    }
    if (nargs != (int)P->nparams || (nargs && !args)) {
        interp_set_error(B, "launch of %s: %d arguments for %u parameters", P->name, nargs,
                         P->nparams);
        return CUTE_ERR_INVALID;
    }
    if (P->smem_bytes && cfg->smem_bytes && cfg->smem_bytes < P->smem_bytes) {
        interp_set_error(B, "launch of %s: %u bytes of shared memory, the kernel uses %" PRId64,
                         P->name, cfg->smem_bytes, P->smem_bytes);
        return CUTE_ERR_INVALID;
    }
    L->grid = g;
    L->block = k;
    L->nthr = (uint32_t)nthr;
    L->nblocks = (uint64_t)g.x * g.y * g.z;
    L->smem = P->smem_bytes ? (uint64_t)P->smem_bytes : cfg->smem_bytes;
    L->cluster = cfg->cluster.x || cfg->cluster.y || cfg->cluster.z ? cfg->cluster
                                                                      : (cute_dim3){1, 1, 1};
    L->params = calloc(P->nparams + 1, sizeof *L->params);
    L->bufs = calloc(P->nparams + 1, sizeof *L->bufs);
    for (int d = 0; d < 3; d++) L->tid[d] = malloc(nthr * sizeof *L->tid[d]);
    if (!L->params || !L->bufs || !L->tid[0] || !L->tid[1] || !L->tid[2]) return CUTE_ERR_OOM;
    for (uint32_t i = 0; i < P->nparams; i++) {
        cute_status s = arg_value(B, L, i, &args[i], &L->params[i]);
        if (s != CUTE_OK) return s;
    }
    if (P->reaches_buffers && every_buffer(B, L) != CUTE_OK) return CUTE_ERR_OOM;
    qsort(L->bufs, (size_t)L->nbufs, sizeof *L->bufs, by_base);
    for (uint32_t t = 0; t < nthr; t++) {
        L->tid[0][t] = t % k.x;
        L->tid[1][t] = t / k.x % k.y;
        L->tid[2][t] = t / k.x / k.y;
    }
    return CUTE_OK;
}

/* --- workers ------------------------------------------------------------------------------ */

static bool worker_init(ictx *X, ilaunch *L)
{
    const iprog *P = L->P;
    uint32_t n = L->nthr;
    memset(X, 0, sizeof *X);
    X->L = L;
    X->P = P;
    X->nthr = n;
    X->regs = calloc((size_t)P->nslots * n, sizeof *X->regs);
    X->top = malloc(n);
    X->mbuf = malloc((size_t)(P->maxdepth + 1) * 2 * n);
    X->returned = calloc(n, 1);
    X->bufcache = calloc(P->ncode + 1, sizeof *X->bufcache);
    if (L->banks && !(X->banks = calloc(P->ncode + 1, sizeof *X->banks))) return false;
    if (L->smem) {
        X->smem = calloc(L->smem, 1);
        X->shadow = calloc(L->smem, sizeof *X->shadow);
        X->pending = calloc(L->smem, 1);
        X->groups = calloc(n, sizeof *X->groups);
    }
    if (L->nbufs && !(L->disable & (1u << CUTE_CHECK_GLOBAL_RACE)))
        X->glogs = calloc((size_t)L->nbufs, sizeof *X->glogs);
    if (!X->regs || !X->top || !X->mbuf || !X->returned || !X->bufcache ||
        (L->smem && (!X->smem || !X->shadow || !X->pending || !X->groups)) || (L->nbufs && !X->glogs &&
                                                 !(L->disable & (1u << CUTE_CHECK_GLOBAL_RACE))))
        return false;
    /* parameters and constants: the same in every thread, never assigned */
    for (uint32_t i = 0; i < P->nparams; i++) {
        islot *r = REG(X, P->slot_of[P->params[i]]);
        for (uint32_t t = 0; t < n; t++) r[t] = L->params[i];
    }
    for (uint32_t i = 0; i < P->nconsts; i++)
        for (uint32_t l = 0; l < P->consts[i].lanes; l++) {
            islot *r = REG(X, P->consts[i].slot + l);
            for (uint32_t t = 0; t < n; t++) r[t] = P->consts[i].v;
        }
    return true;
}

static void worker_free(ictx *X)
{
    if (X->glogs)
        for (int i = 0; i < X->L->nbufs; i++) free(X->glogs[i].r), free(X->glogs[i].w);
    free(X->glogs);
    free(X->regs);
    free(X->top);
    free(X->mbuf);
    free(X->returned);
    free(X->bufcache);
    free(X->banks);
    free(X->smem);
    free(X->shadow);
    free(X->pending);
    free(X->groups);
    free(X->copies);
    interp_sched_free(X);
    interp_sched_barriers_free(X);
    interp_mbarrier_block_end(X);
    free(X->mbars);
    free(X->areads);
    free(X->bulk_groups);
    free(X->wgmma_groups);
    interp_tmem_free(X);
    free(X->proxy_fences);
    free(X->reps);
    free(X->rep_inst);
    free(X->out);
}

static void flush_output(ilaunch *L, bool all)
{
    uint64_t stop = atomic_load(&L->stop_at);
    while (L->flushed < L->nblocks && L->flushed <= stop && (all || L->outn[L->flushed] != SIZE_MAX)) {
        uint64_t b = L->flushed++;
        if (L->out[b] && L->outn[b] != SIZE_MAX) fwrite(L->out[b], 1, L->outn[b], L->pout);
        free(L->out[b]);
        L->out[b] = NULL;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* the k-th smallest (1-based) of v[0..n) */
static uint64_t nth_block(const uint64_t *v, int n, int k)
{
    uint64_t *c = malloc((size_t)n * sizeof *c), r;
    if (!c) return 0; /* out of memory: stop everything after block 0 */
    memcpy(c, v, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, cmp_u64);
    r = c[k - 1];
    free(c);
    return r;
}

/* a block is done: hand its reports and output to the launch */
static void publish(ictx *X)
{
    ilaunch *L = X->L;
    int limit = L->max_reports > 1 ? L->max_reports : 1;
    pthread_mutex_lock(&L->lock);
    for (int i = 0; i < X->nreps; i++) {
        cute_interp_report *r = &X->reps[i];
        size_t len = strlen(r->msg);
        if (r->more)
            snprintf(r->msg + len, sizeof r->msg - len, " (and %u more thread%s of this block)",
                     r->more, r->more > 1 ? "s" : "");
        if (L->nreps == L->creps) {
            int nc = L->creps ? L->creps * 2 : 8;
            cute_interp_report *p = realloc(L->reps, (size_t)nc * sizeof *p);
            uint64_t *q = p ? realloc(L->rep_block, (size_t)nc * sizeof *q) : NULL;
            if (p) L->reps = p;
            if (!q) {
                L->oom = true;
                break;
            }
            L->rep_block = q;
            L->creps = nc;
        }
        L->reps[L->nreps] = *r;
        L->rep_block[L->nreps++] = X->blin;
    }
    if (X->oom) L->oom = true;
    L->stats.blocks++;
    L->stats.dispatched += X->dispatched, L->stats.thread_ops += X->thread_ops;
    X->dispatched = X->thread_ops = 0;
    interp_banks_publish(X);
    /* a block that stopped ends the launch after it; `limit` reports in all end it after
     * the block holding the limit-th (in block order: lower blocks may still add some) */
    uint64_t cut = (X->stop && !X->halted) || X->oom ? X->blin : UINT64_MAX;
    if (L->nreps >= limit) {
        uint64_t kth = nth_block(L->rep_block, L->nreps, limit);
        if (kth < cut) cut = kth;
    }
    if (cut < atomic_load(&L->stop_at)) atomic_store(&L->stop_at, cut);
    if (L->out) {
        L->out[X->blin] = X->out;
        L->outn[X->blin] = X->outn;
        X->out = NULL;
        X->outc = 0;
        flush_output(L, false);
    } else if (X->outn) {
        fwrite(X->out, 1, X->outn, L->pout);
    }
    X->outn = 0;
    pthread_mutex_unlock(&L->lock);
}

static uint32_t cluster_blocks(const ilaunch *L) { return L->cluster.x * L->cluster.y * L->cluster.z; }

/* a worker: clusters (their blocks together) until none is left or a check stopped the
 * launch before the next */
static void *work(void *arg)
{
    icluster *C = arg;
    ilaunch *L = C->blk[0].L;
    for (;;) {
        uint64_t c = atomic_fetch_add(&L->next, 1);
        if (c >= L->nblocks / C->n || interp_cluster_block_index(L, c, 0) > atomic_load(&L->stop_at)) break;
        atomic_fetch_add(&L->started, 1);
        interp_run_cluster(C, c);
        for (uint32_t r = 0; r < C->n; r++) publish(&C->blk[r]);
        interp_progress_bump(L); /* its blocks retired */
    }
    interp_progress_leave(L);
    return NULL;
}

/* worker w's cluster of blocks (each its register file and shadows); false: out of memory */
static bool cluster_init(icluster *C, ilaunch *L)
{
    memset(C, 0, sizeof *C);
    C->n = cluster_blocks(L);
    if (!(C->blk = calloc(C->n, sizeof *C->blk))) return false;
    for (uint32_t r = 0; r < C->n; r++) {
        if (!worker_init(&C->blk[r], L)) return false;
        C->blk[r].cl = C, C->blk[r].rank = r;
    }
    return true;
}

static void cluster_free(icluster *C)
{
    for (uint32_t r = 0; C->blk && r < C->n; r++)
        if (C->blk[r].L) worker_free(&C->blk[r]);
    free(C->blk);
    interp_sched_cluster_free(C);
}

/* --- the launch ---------------------------------------------------------------------------- */

static int by_block(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b; /* (block, index) pairs */
    if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* keep the reports of blocks up to the one that stopped, in block order, at most `limit`
 * (and the rest of a deadlock's) */
static cute_status gather(struct interp *B, ilaunch *L)
{
    int limit = L->max_reports > 1 ? L->max_reports : 1, n = 0;
    uint64_t stop = atomic_load(&L->stop_at);
    uint64_t (*order)[2] = malloc((size_t)(L->nreps + 1) * sizeof *order);
    cute_interp_report *out = malloc((size_t)(L->nreps + 1) * sizeof *out);
    if (!order || !out) {
        free(order), free(out);
        return CUTE_ERR_OOM;
    }
    for (int i = 0; i < L->nreps; i++) order[i][0] = L->rep_block[i], order[i][1] = (uint64_t)i;
    qsort(order, (size_t)L->nreps, sizeof *order, by_block);
    for (int i = 0; i < L->nreps; i++) { /* a deadlock's waiting warps all come (report.c) */
        const cute_interp_report *r = &L->reps[order[i][1]];
        if (order[i][0] <= stop && (n < limit || (r->kind == CUTE_CHECK_DEADLOCK && n && out[n - 1].kind == r->kind)))
            out[n++] = *r;
    }
    free(order);
    free(B->reps);
    B->reps = out;
    B->nreps = n;
    if (L->oom) {
        interp_set_error(B, "launch of %s: out of memory in the interpreter", L->P->name);
        return CUTE_ERR_OOM;
    }
    if (!n) return CUTE_OK;
    size_t len = 0;
    for (int i = 0; i < n; i++) len += strlen(out[i].msg) + 1;
    char *s = malloc(len + 128);
    if (!s) return CUTE_ERR_OOM;
    int k = sprintf(s, "kernel %s: %d failed check%s", L->P->name, n, n > 1 ? "s" : "");
    for (int i = 0; i < n; i++) k += sprintf(s + k, "\n%s", out[i].msg);
    free(B->err);
    B->err = s;
    return CUTE_ERR_CHECK;
}

static void launch_free(ilaunch *L)
{
    free(L->params);
    free(L->bufs);
    for (int d = 0; d < 3; d++) free(L->tid[d]);
    free(L->reps);
    free(L->banks);
    free(L->rep_block);
    if (L->out)
        for (uint64_t b = 0; b < L->nblocks; b++) free(L->out[b]);
    free(L->out);
    free(L->outn);
    free(L->tmaps);
    interp_progress_free(L);
    pthread_mutex_destroy(&L->lock);
}

static void run_workers(ilaunch *L, icluster *X, int nw)
{
    pthread_t th[256];
    int started = 0;
    for (int w = 1; w < nw; w++)
        if (pthread_create(&th[w], NULL, work, &X[w]) == 0) started = w;
        else break;
    for (int w = started + 1; w < nw; w++) interp_progress_leave(L); /* never started */
    work(&X[0]);
    for (int w = 1; w <= started; w++) pthread_join(th[w], NULL);
}

/* the interpreter's options into L, nothing set up yet */
static void launch_begin(struct interp *B, const iprog *P, ilaunch *L)
{
    memset(L, 0, sizeof *L);
    L->B = B;
    L->P = P;
    L->budget = B->budget;
    L->max_reports = B->max_reports;
    L->disable = B->disable;
    L->try_wait_false = B->try_wait_false;
    L->try_wait_seed = B->try_wait_seed;
    L->pout = B->printf_out ? B->printf_out : stdout;
    atomic_init(&L->next, 0);
    atomic_init(&L->stop_at, UINT64_MAX);
    pthread_mutex_init(&L->lock, NULL);
    interp_progress_init(L);
    B->nreps = 0;
    memset(&B->stats, 0, sizeof B->stats);
}

cute_status interp_launch(struct interp *B, const iprog *P, const cute_launch *cfg,
                          const cute_launch_arg *args, int nargs)
{
    ilaunch L;
    launch_begin(B, P, &L);
    cute_status s = setup(B, &L, cfg, args, nargs);
    if (s != CUTE_OK) {
        if (s == CUTE_ERR_OOM) interp_set_error(B, "launch of %s: out of memory", P->name);
        launch_free(&L);
        return s;
    }
    if (B->trace_out) {
        cute_dim3 tb = B->trace_block, tt = B->trace_thread;
        L.trace = B->trace_out;
        L.trace_block = tb.x + (uint64_t)L.grid.x * (tb.y + (uint64_t)L.grid.y * tb.z);
        L.trace_thread = tt.x + L.block.x * (tt.y + L.block.y * tt.z);
    }
    if (B->banks && !(L.banks = calloc(P->ncode + 1, sizeof *L.banks))) {
        launch_free(&L);
        return CUTE_ERR_OOM;
    }
    int nw = B->threads < 1 ? 1 : B->threads;
    if ((uint64_t)nw > L.nblocks / cluster_blocks(&L)) nw = (int)(L.nblocks / cluster_blocks(&L));
    L.workers = L.active = nw;
    if (P->has_printf && nw > 1) {
        L.out = calloc(L.nblocks, sizeof *L.out);
        L.outn = malloc(L.nblocks * sizeof *L.outn);
        if (!L.out || !L.outn) {
            launch_free(&L);
            return CUTE_ERR_OOM;
        }
        for (uint64_t b = 0; b < L.nblocks; b++) L.outn[b] = SIZE_MAX;
    }
    icluster *X = calloc((size_t)nw, sizeof *X);
    bool ok = X != NULL;
    for (int w = 0; ok && w < nw; w++) ok = cluster_init(&X[w], &L);
    if (ok) run_workers(&L, X, nw);
    if (L.out) flush_output(&L, true);
    fflush(L.pout);
    for (int w = 0; X && w < nw; w++) cluster_free(&X[w]);
    free(X);
    if (!ok) {
        interp_set_error(B, "launch of %s: out of memory for %u threads of %u registers", P->name,
                         L.nthr, P->nslots);
        launch_free(&L);
        return CUTE_ERR_OOM;
    }
    B->stats = L.stats;
    B->stats.decoded = P->ncode;
    s = gather(B, &L);
    if (!interp_banks_gather(B, &L) && s == CUTE_OK) s = CUTE_ERR_OOM;
    launch_free(&L);
    return s;
}

/* --- several emulated devices at once (cutec/peer.h's cute_call_peers) ----------------- */

enum { GROUP_WARPS = 1024 }; /* warps a group runs together at most (a host thread each) */

/* each rank's launch set up, or the first failure (B's error says which rank) */
static cute_status group_setup(struct interp *B, const iprog *P, const cute_launch *cfg, int nranks,
                               const cute_launch_arg *args, int nargs, ilaunch *L)
{
    for (int r = 0; r < nranks; r++) {
        launch_begin(B, P, &L[r]);
        cute_status s = setup(B, &L[r], cfg, args + (size_t)r * (size_t)nargs, nargs);
        if (s == CUTE_ERR_OOM) interp_set_error(B, "launch of %s: out of memory", P->name);
        if (s != CUTE_OK) return s;
    }
    uint64_t warps = L[0].nblocks * ((L[0].nthr + 31) / 32) * (uint64_t)nranks;
    if (cluster_blocks(&L[0]) != 1 || warps > GROUP_WARPS) {
        interp_set_error(B, "launch of %s on %d emulated devices: %s", P->name, nranks,
                         warps > GROUP_WARPS ? "more than 1024 warps in all (the interpreter runs every "
                                               "block of every device together)"
                                             : "clusters are not emulated across devices");
        return CUTE_ERR_UNSUPPORTED;
    }
    return CUTE_OK;
}

/* every block of every rank in one cluster under one scheduler */
static bool group_run(ilaunch *L, int nranks, ilaunch **Lp)
{
    uint32_t nwarps = (L[0].nthr + 31) / 32;
    uint64_t nb = L[0].nblocks;
    igroup *G = interp_group_new(nranks, Lp, nwarps);
    icluster C;
    memset(&C, 0, sizeof C);
    C.n = (uint32_t)(nb * (uint64_t)nranks);
    bool ok = G && (C.blk = calloc(C.n, sizeof *C.blk)) != NULL;
    for (uint32_t i = 0; ok && i < C.n; i++) {
        ictx *X = &C.blk[i];
        ok = worker_init(X, &L[i / nb]);
        /* each block is a cluster of one (rank 0 in it); the group's index says which */
        X->cl = &C, X->rank = 0, X->group = G, X->grank = (uint32_t)(i / nb), X->gwarp0 = i * nwarps;
    }
    if (ok) interp_run_group(&C, nb);
    for (uint32_t i = 0; ok && i < C.n; i++) publish(&C.blk[i]);
    cluster_free(&C);
    interp_group_free(G);
    return ok;
}

/* every rank's reports, rank by rank (each names its rank), and the first failing rank's
 * message */
static cute_status group_gather(struct interp *B, ilaunch *L, int nranks)
{
    cute_status worst = CUTE_OK;
    char *msg = NULL;
    cute_interp_report *all = NULL;
    int n = 0;
    for (int r = 0; r < nranks; r++) {
        cute_status s = gather(B, &L[r]);
        if (s != CUTE_OK && worst == CUTE_OK) worst = s, msg = B->err, B->err = NULL;
        if (!B->nreps) continue;
        cute_interp_report *p = realloc(all, (size_t)(n + B->nreps) * sizeof *all);
        if (!p) {
            worst = CUTE_ERR_OOM;
            break;
        }
        all = p;
        memcpy(all + n, B->reps, (size_t)B->nreps * sizeof *all);
        n += B->nreps;
    }
    free(B->reps), B->reps = all, B->nreps = n;
    if (msg) free(B->err), B->err = msg;
    return worst;
}

cute_status interp_launch_group(struct interp *B, const iprog *P, const cute_launch *cfg, int nranks,
                                const cute_launch_arg *args, int nargs)
{
    ilaunch *L = calloc((size_t)nranks, sizeof *L);
    ilaunch **Lp = calloc((size_t)nranks, sizeof *Lp);
    if (!L || !Lp) return free(L), free(Lp), CUTE_ERR_OOM;
    for (int r = 0; r < nranks; r++) Lp[r] = &L[r];
    cute_status s = group_setup(B, P, cfg, nranks, args, nargs, L);
    if (s == CUTE_OK && !group_run(L, nranks, Lp)) {
        interp_set_error(B, "launch of %s on %d emulated devices: out of memory", P->name, nranks);
        s = CUTE_ERR_OOM;
    }
    if (s == CUTE_OK) s = group_gather(B, L, nranks);
    for (int r = 0; r < nranks; r++)
        if (L[r].B) launch_free(&L[r]);
    free(L), free(Lp);
    return s;
}
