/* The tensormap proxy under the interpreter (PTX ISA, "tensormap proxy"): TMA reads a tensor
 * map through a proxy of its own, so a map that tensormap.replace changed in global memory
 * becomes TMA's to use only after the writer's fence.proxy.tensormap::generic.release and
 * then the using thread's fence.proxy.tensormap::generic.acquire on the map's address.  A
 * TMA through a map changed and not so fenced may read the old fields on a GPU (the
 * descriptor cache): here it is reported, naming the writer.
 *
 * The state is the launch's (a map may be written in one block and used in another), one
 * entry per map address that a tensormap.replace wrote, under the launch's lock.  Maps
 * that only plain stores wrote (a copy of a parameter) are not tracked. */
#include <string.h>

#include "cutec/inst.h"
#include "cutec/tma.h"
#include "interp/interp_internal.h"

typedef struct itmap {
    uint64_t map;              /* the map's global address */
    uint64_t wblock, ablock;   /* the writer's and the acquirer's linear block */
    uint32_t wthread, athread;
    bool released, acquired;
} itmap;

static itmap *find(ilaunch *L, uint64_t map)
{
    for (int i = 0; i < L->ntmaps; i++)
        if (L->tmaps[i].map == map) return &L->tmaps[i];
    return NULL;
}

static itmap *find_or_add(ilaunch *L, uint64_t map)
{
    itmap *e = find(L, map);
    if (e || L->ntmaps == L->ctmaps) {
        if (e) return e;
        int nc = L->ctmaps ? 2 * L->ctmaps : 16;
        itmap *p = realloc(L->tmaps, (size_t)nc * sizeof *p);
        if (!p) return NULL;
        L->tmaps = p, L->ctmaps = nc;
    }
    e = &L->tmaps[L->ntmaps++];
    memset(e, 0, sizeof *e);
    e->map = map;
    return e;
}

void interp_tmap_written(ictx *X, uint32_t t, uint64_t map)
{
    ilaunch *L = X->L;
    pthread_mutex_lock(&L->lock);
    itmap *e = find_or_add(L, map);
    if (e) *e = (itmap){map, X->blin, 0, t, 0, false, false};
    pthread_mutex_unlock(&L->lock);
}

/* release (flag 0): the maps this thread wrote; acquire (flag 1): the map at operand 0 */
void inst_tmap_fence(ictx *X, const dinst *d, const imask *m)
{
    ilaunch *L = X->L;
    bool acquire = d->row->flag;
    pthread_mutex_lock(&L->lock);
    EACH(X, m, t, {
        if (!acquire) {
            for (int i = 0; i < L->ntmaps; i++)
                if (L->tmaps[i].wblock == X->blin && L->tmaps[i].wthread == t) L->tmaps[i].released = true;
            continue;
        }
        itmap *e = find(L, interp_addr(X, d, 0, t));
        if (e && e->released) e->acquired = true, e->ablock = X->blin, e->athread = t;
    });
    pthread_mutex_unlock(&L->lock);
}

/* whether thread t may use the map at `map` (a global address) for TMA; false after a report */
bool interp_tmap_fenced(ictx *X, const dinst *d, uint32_t t, uint64_t map)
{
    ilaunch *L = X->L;
    pthread_mutex_lock(&L->lock);
    itmap *e = find(L, map), w = e ? *e : (itmap){0};
    pthread_mutex_unlock(&L->lock);
    if (!e || (w.released && w.acquired && w.ablock == X->blin && w.athread == t)) return true;
    const char *miss = !w.released ? "the writer's fence.proxy.tensormap::generic.release"
                                   : "this thread's fence.proxy.tensormap::generic.acquire";
    return interp_report(X, d, t, CUTE_CHECK_TMA, 0, 0, 0,
                         "map changed by tensormap.replace (block %llu, thread %u), used without %s",
                         (unsigned long long)w.wblock, w.wthread, miss);
}

/* two 8-byte words of a map (a parameter, or one in global memory) from byte imm */
void inst_tmap_words(ictx *X, const dinst *d, const imask *m)
{
    EACH(X, m, t, {
        uint64_t a = interp_addr(X, d, 2, t);
        if (d->vtype[2].dtype != CUTE_TMAP && !interp_gcheck(X, d, t, a + (uint64_t)d->imm, 16, 16, 0)) continue;
        if (d->imm < 0 || d->imm > CUTE_TMA_MAP_BYTES - 16 || d->imm % 16) {
            interp_report(X, d, t, CUTE_CHECK_TMA, 0, 0, 0, "%s: byte %lld of a 128-byte tensor map "
                          "(a multiple of 16 up to 112)", interp_op_name(d), (long long)d->imm);
            continue;
        }
        const uint8_t *p = (const uint8_t *)(uintptr_t)a + d->imm;
        memcpy(&REG(X, d->var[0])[t].u64, p, 8);
        memcpy(&REG(X, d->var[1])[t].u64, p + 8, 8);
    });
}
