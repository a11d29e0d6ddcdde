/* Shared-memory bank conflicts, counted per access site on request
 * (cute_interp_opts.bank_conflicts or $CUTEC_BANK_CONFLICTS=1).
 *
 * The model (the hardware's, as Nsight Compute counts it): shared memory is 32 banks of 4
 * bytes.  A warp's request is served in phases of at most 128 bytes: all 32 lanes for
 * accesses of up to 4 bytes, 16 lanes for 8 bytes, 8 lanes for 16 bytes (an ldmatrix
 * matrix is such a phase: 8 rows of 16 bytes).  A phase takes as many wavefronts as the
 * most distinct 4-byte words any one bank holds (lanes reading the same word share it).
 * The ideal is what the phase's distinct words need with no conflict: one wavefront per
 * 32 of them.  A conflict-free site has wavefronts == ideal. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/inst.h"
#include "interp/interp_internal.h"

/* wavefronts and ideal of one phase of n lanes, each `bytes` from addr[i] */
static void phase(const uint64_t *addr, uint32_t n, uint32_t bytes, uint64_t *waves,
                  uint64_t *ideal)
{
    uint64_t words[128];
    uint32_t nw = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint64_t w = addr[i] / 4; w <= (addr[i] + bytes - 1) / 4 && nw < 128; w++) {
            uint32_t k = 0;
            while (k < nw && words[k] != w) k++;
            if (k == nw) words[nw++] = w;
        }
    uint32_t per_bank[32] = {0}, most = 0;
    for (uint32_t k = 0; k < nw; k++)
        if (++per_bank[words[k] % 32] > most) most = per_bank[words[k] % 32];
    *waves += most;
    *ideal += nw ? (nw + 31) / 32 : 0;
}

void interp_banks_request(ictx *X, const dinst *d, const uint64_t *addr, uint32_t n, uint32_t bytes)
{
    if (!X->banks || !n) return;
    ibank *b = &X->banks[d - X->P->code];
    uint32_t per = bytes <= 4 ? 32 : bytes <= 8 ? 16 : 8;
    b->requests++;
    for (uint32_t i = 0; i < n; i += per)
        phase(addr + i, n - i < per ? n - i : per, bytes, &b->wavefronts, &b->ideal);
}

/* one request per warp of the active lanes' addresses: slot P (a load or store's
 * pointer), or else the instruction's operand k */
static void per_warp(ictx *X, const dinst *d, const imask *m, const islot *P, uint32_t k,
                     uint32_t bytes)
{
    for (uint32_t w = m->lo; w < m->hi; w += 32) {
        uint64_t a[32];
        uint32_t n = 0;
        for (uint32_t t = w; t < w + 32 && t < m->hi; t++)
            if (m->n == m->hi - m->lo || m->on[t]) a[n++] = P ? P[t].u64 : interp_addr(X, d, k, t);
        interp_banks_request(X, d, a, n, bytes);
    }
}

void interp_banks_access(ictx *X, const dinst *d, const imask *m, const islot *P, uint32_t bytes)
{
    per_warp(X, d, m, P, 0, bytes);
}

void interp_banks_operand(ictx *X, const dinst *d, const imask *m, uint32_t k, uint32_t bytes)
{
    per_warp(X, d, m, NULL, k, bytes);
}

/* a block's counts into the launch's (under the launch's lock) */
void interp_banks_publish(ictx *X)
{
    if (!X->banks || !X->L->banks) return;
    for (uint32_t i = 0; i < X->P->ncode; i++) {
        X->L->banks[i].requests += X->banks[i].requests;
        X->L->banks[i].wavefronts += X->banks[i].wavefronts;
        X->L->banks[i].ideal += X->banks[i].ideal;
    }
    memset(X->banks, 0, X->P->ncode * sizeof *X->banks);
}

/* the site already gathered for d's call site and op (an unrolled loop's copies of one
 * line are one site), or NULL */
static cute_interp_bank_site *same_site(struct interp *B, const dinst *d, const char *op)
{
    for (int i = 0; i < B->nbank_sites; i++) {
        cute_interp_bank_site *s = &B->bank_sites[i];
        if (s->line == d->line && s->op == op &&
            (s->file == d->file || (s->file && d->file && !strcmp(s->file, d->file))))
            return s;
    }
    return NULL;
}

/* the launch's sites into the backend, replacing the last launch's */
bool interp_banks_gather(struct interp *B, const ilaunch *L)
{
    B->nbank_sites = 0;
    if (!L->banks) return true;
    const iprog *P = L->P;
    free(B->bank_sites);
    B->bank_sites = calloc(P->ncode + 1, sizeof *B->bank_sites);
    if (!B->bank_sites) return false;
    for (uint32_t i = 0; i < P->ncode; i++) {
        const ibank *k = &L->banks[i];
        if (!k->requests) continue;
        const dinst *d = &P->code[i];
        const char *op = d->op == CUTE_OP_INST ? cute_inst_info_of((cute_inst)d->imm2)->mnemonic
                                               : cute_op_name((cute_op)d->op);
        cute_interp_bank_site *s = same_site(B, d, op);
        if (!s) {
            s = &B->bank_sites[B->nbank_sites++];
            *s = (cute_interp_bank_site){P->name, op, d->file, d->line, 0, 0, 0};
        }
        s->requests += k->requests, s->wavefronts += k->wavefronts, s->ideal += k->ideal;
    }
    if (B->banks_out) cute_interp_bank_print_sites(B->bank_sites, B->nbank_sites, B->banks_out);
    return true;
}

void cute_interp_bank_print_sites(const cute_interp_bank_site *s, int n, FILE *f)
{
    for (int i = 0; i < n; i++)
        fprintf(f,
                "bank conflicts: %s %s:%d %s: %" PRIu64 " requests, %" PRIu64
                " wavefronts, ideal %" PRIu64 " (%.2fx)%s\n",
                s[i].kernel, s[i].file ? s[i].file : "?", s[i].line, s[i].op, s[i].requests,
                s[i].wavefronts, s[i].ideal,
                s[i].ideal ? (double)s[i].wavefronts / (double)s[i].ideal : 1.0,
                s[i].wavefronts > s[i].ideal ? "  CONFLICTS" : "");
}
