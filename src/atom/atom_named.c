/* Atoms by CuTe's names: a row of the table (atom_rows.c) made into a cute_mma_atom or,
 * for a value type, a cute_copy_atom (its bit layouts upcast to elements). */
#include <stdio.h>
#include <string.h>

#define CUTEC_NO_SITE_MACROS /* internal calls keep the user's call site */
#include "atom/atom_rows.h"
#include "cutec/notation.h"

/* the rows whose CuTe DSL spelling is name with its arguments ("tcgen05.Ld32x32bOp" for
 * "tcgen05.Ld32x32bOp(Repetition.x4, Pack.NONE)"), into buf; false when there are none */
static bool dsl_family(const char *name, char *buf, size_t n)
{
    size_t used = 0, len = strlen(name);
    buf[0] = 0;
    for (int i = 0; i < atom_row_count() && len; i++) {
        const cute_atom_info *r = &atom_row_at(i)->info;
        if (strncmp(r->dsl, name, len) || r->dsl[len] != '(' || used + strlen(r->name) + 3 >= n) continue;
        used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", r->name);
    }
    return used > 0;
}

/* the rows whose names share the longest prefix with name, for "did you mean" */
static void nearest(const char *name, char *buf, size_t n)
{
    size_t best = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t used = 0;
        buf[0] = 0;
        for (int i = 0; i < atom_row_count(); i++) {
            const char *r = atom_row_at(i)->info.name;
            size_t k = 0;
            while (r[k] && r[k] == name[k]) k++;
            if (pass == 0 && k > best) best = k;
            if (pass == 1 && k == best && used + strlen(r) + 3 < n)
                used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", r);
        }
    }
}

static bool unknown(cute_alg *c, const char *name, bool mma)
{
    const atom_row *r = name ? atom_row_find(name) : NULL;
    if (r)
        return cute_alg_fail(c, "%s is %s atom, not %s atom", name,
                             r->info.mma ? "an MMA" : "a copy", mma ? "an MMA" : "a copy");
    char near[2048];
    if (name && dsl_family(name, near, sizeof near))
        return cute_alg_fail(c, "\"%s\" is CuTe DSL's op of the atoms %s: name one (or the op with its arguments, "
                             "as `cutec show atom NAME` prints it)", name, near);
    nearest(name ? name : "", near, sizeof near);
    return cute_alg_fail(c,
                         "no atom is called \"%s\" (nearest: %s; `cutec show atom list` lists "
                         "them all)",
                         name ? name : "(null)", near);
}

/* "f32,bf16,bf16,f32" -> D, A, B, C; a type cutec does not have yet is named */
static bool row_types(cute_alg *c, const atom_row *r, cute_dtype t[4])
{
    static const char *const which[4] = {"D", "A", "B", "C"};
    const char *p = r->info.types;
    for (int i = 0; i < 4; i++) {
        char one[16];
        size_t k = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)k, p);
        if (!cute_dtype_parse(one, &t[i]))
            return cute_alg_fail(c, "MMA atom %s: its %s type %s is not a cutec dtype yet",
                                 r->info.name, which[i], one);
        p += k + (p[k] == ',');
    }
    return true;
}

bool cute_mma_atom_named(cute_alg *c, const char *name, cute_mma_atom *out)
{
    memset(out, 0, sizeof *out);
    const atom_row *r = name ? atom_row_find(name) : NULL;
    if (!r || !r->info.mma) return unknown(c, name, true);
    cute_dtype t[4];
    if (!row_types(c, r, t)) return false;
    if (r->kind == ROW_UNIVERSAL_FMA) {
        *out = cute_mma_atom_universal_mixed(c, t[1], t[0]);
        return !c->failed;
    }
    out->name = r->info.name;
    out->a_type = (uint8_t)t[1], out->b_type = (uint8_t)t[2], out->c_type = (uint8_t)t[3];
    out->m = r->mnk[0], out->n = r->mnk[1], out->k = r->mnk[2];
    out->thr_id = cute_layout_parse(c, r->info.field[1]);
    out->a_tv = cute_layout_parse(c, r->info.field[2]);
    out->b_tv = cute_layout_parse(c, r->info.field[3]);
    out->c_tv = cute_layout_parse(c, r->info.field[4]);
    out->min_arch = r->info.min_arch;
    out->traits = r->info.traits;
    bool wg = r->kind == ROW_WGMMA_SS || r->kind == ROW_WGMMA_RS;
    bool umma = r->kind == ROW_UMMA_SS || r->kind == ROW_UMMA_TS; /* cute_umma_gemm issues these */
    out->emit = umma ? umma_refuse_emit : wg ? wgmma_emit : mma_sync_emit;
    return !c->failed;
}

/* a bit layout as elements of ebits bits; false when a thread's value bits do not make
 * whole elements (the type is wider than the pieces the instruction hands out) */
static bool to_elements(cute_alg *c, const atom_row *r, int field, int ebits, cute_layout *out)
{
    cute_layout bits = cute_layout_parse(c, r->info.field[field]);
    cute_layout vb = cute_get(c, &bits, 1);
    int64_t nbits = cute_size(c, &vb).v;
    *out = cute_upcast(c, &bits, ebits);
    if (c->failed) return false;
    /* an S2T atom's values are no thread's registers: 4dp256bit's rows of 256 bits lie 128
     * apart in its logical bits, which CuTe upcasts as they are */
    if (r->kind == ROW_UTCCP) return true;
    cute_layout ve = cute_get(c, out, 1);
    if (cute_size(c, &ve).v * ebits != nbits)
        return cute_alg_fail(c,
                             "copy atom %s: a thread's %s bits come in pieces narrower than "
                             "one %d-bit element",
                             r->info.name, r->info.field_name[field], ebits);
    return true;
}

static cute_copy_emit_fn copy_emitter(const atom_row *r)
{
    if (r->kind == ROW_TMEM_LOAD || r->kind == ROW_TMEM_STORE || r->kind == ROW_UTCCP) return tmem_copy_refuse_emit;
    return r->kind == ROW_LDSM ? ldsm_emit : r->kind == ROW_STSM ? stsm_emit : cp_async_emit;
}

bool cute_copy_atom_named(cute_alg *c, const char *name, cute_dtype d, cute_copy_atom *out)
{
    memset(out, 0, sizeof *out);
    const atom_row *r = name ? atom_row_find(name) : NULL;
    if (!r || r->info.mma) return unknown(c, name, false);
    if (r->kind == ROW_UNIVERSAL_COPY) {
        *out = cute_copy_atom_universal(c, d, r->bits);
        return !c->failed;
    }
    int ebits = 8 * cute_dtype_bytes(d);
    if (r->raw_dst && ebits != 8)
        return cute_alg_fail(c, "copy atom %s: permutes bytes, for 8-bit types only (not %s)", r->info.name,
                             cute_dtype_name(d));
    if (ebits <= 0 || ebits > r->bits || r->bits % ebits)
        return cute_alg_fail(c, "copy atom %s: moves %d bits per thread, not a multiple of one %s",
                             r->info.name, r->bits, cute_dtype_name(d));
    out->name = r->info.name;
    out->dtype = (uint8_t)d;
    out->bits = r->bits;
    out->thr_id = cute_layout_parse(c, r->info.field[0]);
    if (!to_elements(c, r, 1, ebits, &out->src_tv) || !to_elements(c, r, 2, ebits, &out->dst_tv) ||
        !to_elements(c, r, 3, ebits, &out->ref_tv))
        return false;
    out->min_arch = r->info.min_arch;
    out->traits = r->info.traits;
    out->emit = copy_emitter(r);
    return true;
}
