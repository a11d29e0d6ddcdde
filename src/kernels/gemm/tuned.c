/* Tuned GEMM configurations (cutec/gemm_tune.h): the key of a call and a configuration's
 * text in the tuning file, and the lookup cutec_gemm makes (lib.c) and `cutec compile gemm`
 * shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/gemm_tune.h"
#include "env/env_choice.h"
#include "kernels/gemm/gemm_internal.h"

void cute_gemm_tune_key(cute_dtype in, cute_dtype out, const int major[3], int64_t m, int64_t n, int64_t k,
                        char *buf, size_t size)
{
    /* the inverse of the CLI's letters: A n = M-major, B n = K-major, C t = row-major */
    char layout[4] = {major[0] ? 't' : 'n', major[1] ? 'n' : 't', major[2] ? 't' : 'n', 0};
    snprintf(buf, size, "gemm %s>%s %s %lldx%lldx%lld", cute_dtype_name(in), cute_dtype_name(out), layout,
             (long long)m, (long long)n, (long long)k);
}

static const char *const schedule_names[] = {"auto", "coop", "pingpong"};
static const char *const store_names[] = {"auto", "tma", "st", "tile"};

void cute_gemm_tune_config_text(cute_gemm_variant v, const cute_gemm_tiling *t, char *buf, size_t n)
{
    snprintf(buf, n, "variant=%s tile=%dx%dx%d warps=%dx%d stages=%d raster=%d cluster=%dx%d schedule=%s store=%s "
             "read=%d", cute_gemm_variant_name(v), t->bm, t->bn, t->bk, t->warps_m, t->warps_n, t->stages, t->raster,
             t->cluster_m, t->cluster_n, schedule_names[t->schedule >= 0 && t->schedule <= 2 ? t->schedule : 0],
             store_names[t->c_store >= 0 && t->c_store <= CUTE_GEMM_STORE_TILE ? t->c_store : 0], t->read_bytes);
}

/* "AxB" or "AxBxC" of whole numbers 0..4096 into out[parts] */
static bool parse_dims(const char *s, int parts, int *out)
{
    for (int i = 0; i < parts; i++) {
        char *end;
        if (*s < '0' || *s > '9') return false;
        long v = strtol(s, &end, 10);
        if (v > 4096 || end - s > 4 || *end != (i + 1 < parts ? 'x' : 0)) return false;
        out[i] = (int)v, s = end + (i + 1 < parts);
    }
    return true;
}

static bool parse_name(const char *s, const char *const *names, int count, int *out)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(s, names[i])) return *out = i, true;
    return false;
}

/* one name=value of a configuration into v, t */
static bool parse_field(const char *name, const char *val, cute_gemm_variant *v, cute_gemm_tiling *t)
{
    if (!strcmp(name, "variant")) return cute_gemm_variant_parse(val, v) && *v != CUTE_GEMM_AUTO;
    if (!strcmp(name, "tile")) return parse_dims(val, 3, &t->bm);
    if (!strcmp(name, "warps")) return parse_dims(val, 2, &t->warps_m);
    if (!strcmp(name, "cluster")) return parse_dims(val, 2, &t->cluster_m);
    if (!strcmp(name, "stages")) return parse_dims(val, 1, &t->stages);
    if (!strcmp(name, "raster")) return parse_dims(val, 1, &t->raster);
    if (!strcmp(name, "read")) return parse_dims(val, 1, &t->read_bytes);
    if (!strcmp(name, "schedule")) return parse_name(val, schedule_names, 3, &t->schedule);
    if (!strcmp(name, "store")) return parse_name(val, store_names, CUTE_GEMM_STORE_TILE + 1, &t->c_store);
    return false;
}

bool cute_gemm_tune_config_parse(const char *text, cute_gemm_variant *v, cute_gemm_tiling *t, char *why, size_t n)
{
    char buf[512], *save = NULL;
    memset(t, 0, sizeof *t);
    *v = CUTE_GEMM_AUTO;
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf) return snprintf(why, n, "too long"), false;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(w, '=');
        if (eq) *eq = 0;
        if (!eq || !parse_field(w, eq + 1, v, t))
            return snprintf(why, n, "\"%.40s%s%.40s\" is not a GEMM configuration's name=value", w, eq ? "=" : "",
                            eq ? eq + 1 : ""), false;
    }
    if (*v == CUTE_GEMM_AUTO) return snprintf(why, n, "no variant=NAME"), false;
    return true;
}

void cute_gemm_tune_choice(const cute_tune_db *db, const char *file, const char *card, int sms, cute_dtype in,
                           cute_dtype out, const int major[3], int64_t m, int64_t n, int64_t k, cute_gemm_choice *c)
{
    char key[256], why[160];
    memset(c, 0, sizeof *c);
    c->variant = CUTE_GEMM_AUTO;
    cute_gemm_tune_key(in, out, major, m, n, k, key, sizeof key);
    int line = 0;
    const cute_tune_entry *e = cute_tune_db_find(db, card, sms, key, &line);
    if (!e) {
        snprintf(c->why, sizeof c->why, "default: no tuned entry for \"%s\" on %s (%d SMs) in %s", key, card, sms, file);
        return;
    }
    if (!cute_gemm_tune_config_parse(e->config, &c->variant, &c->tiling, why, sizeof why)) {
        c->variant = CUTE_GEMM_AUTO;
        snprintf(c->why, sizeof c->why, "default: %s:%d: %s", file, line, why);
        return;
    }
    c->tuned = true, c->ms = e->ms;
    snprintf(c->why, sizeof c->why, "tuned: %s:%d, %.4f ms on %s", file, line, e->ms, card);
}

void gemm_tuned_free(gemm_tuned *t)
{
    cute_tune_db_free(t->db);
    t->db = NULL, t->loaded = false;
}

/* the table, read once (a file that cannot be read: no table, and why in t->err) */
static void load_once(gemm_tuned *t, cute_runtime *rt)
{
    if (t->loaded) return;
    t->loaded = true;
    cute_tune_card(rt, t->card, sizeof t->card, &t->sms);
    t->env_off = cute_env_choice_warn("CUTEC_NO_TUNE", "0|1", 0) == 1;
    if (!cute_tune_db_path(t->file, sizeof t->file)) {
        snprintf(t->err, sizeof t->err, "default: no tuning file (no $CUTEC_TUNE_FILE, cache directory or HOME)");
        return;
    }
    if (cute_tune_db_load(t->file, &t->db, t->err, sizeof t->err) != CUTE_OK) {
        char e[sizeof t->err];
        snprintf(e, sizeof e, "%s", t->err);
        snprintf(t->err, sizeof t->err, "default: the tuning file is not used: %.700s", e);
    }
}

/* whether the table has any entry of the card */
static bool has_card(const cute_tune_db *db, const char *card, int sms)
{
    for (int i = 0; i < cute_tune_db_count(db); i++)
        if (cute_tune_db_at(db, i)->sms == sms && !strcmp(cute_tune_db_at(db, i)->card, card)) return true;
    return false;
}

void gemm_tuned_choice(gemm_tuned *t, cute_runtime *rt, cute_dtype in, cute_dtype out, const int major[3],
                       int64_t m, int64_t n, int64_t k, cute_gemm_choice *c)
{
    if (!t->loaded) load_once(t, rt), t->card_has_entries = t->db && has_card(t->db, t->card, t->sms);
    const int64_t now[7] = {in, out, major[0] + 2 * major[1] + 4 * major[2], m, n, k, t->want};
    if (t->last_choice.why[0] && !memcmp(now, t->last, sizeof now)) return (void)(*c = t->last_choice);
    memset(c, 0, sizeof *c);
    c->variant = CUTE_GEMM_AUTO;
    if (t->want == 2 || (t->want == 0 && t->env_off)) snprintf(c->why, sizeof c->why, "default: tuned entries are off (CUTEC_NO_TUNE or cute_gemm_lib_use_tuned)");
    else if (!t->db) snprintf(c->why, sizeof c->why, "%s", t->err);
    else cute_gemm_tune_choice(t->db, t->file, t->card, t->sms, in, out, major, m, n, k, c);
    memcpy(t->last, now, sizeof now), t->last_choice = *c;
}

bool gemm_tuned_maybe(gemm_tuned *t, cute_runtime *rt)
{
    if (!t->loaded) load_once(t, rt), t->card_has_entries = t->db && has_card(t->db, t->card, t->sms);
    return t->card_has_entries && !(t->want == 2 || (t->want == 0 && t->env_off));
}
