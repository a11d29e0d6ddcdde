/* A libFuzzer target for the tuning file's parser (cutec/tune.h): the input is parsed as a
 * tuning file.  Beyond "no crash, no UB, no leak": a refusal names the file and a line; an
 * accepted table prints back to text that parses to the same entries (the writer's output
 * is always readable), and a GEMM configuration in it either parses or is refused. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cutec/gemm_tune.h"
#include "cutec/tune.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_tables(const cute_tune_db *a, const cute_tune_db *b)
{
    if (cute_tune_db_count(a) != cute_tune_db_count(b)) abort();
    for (int i = 0; i < cute_tune_db_count(a); i++) {
        const cute_tune_entry *x = cute_tune_db_at(a, i), *y = cute_tune_db_at(b, i);
        if (strcmp(x->card, y->card) || strcmp(x->key, y->key) || strcmp(x->config, y->config) || x->sms != y->sms ||
            x->ms != y->ms)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cute_tune_db *db = NULL, *again = NULL;
    char err[512];
    if (cute_tune_db_parse((const char *)data, size, "fuzz.txt", &db, err, sizeof err) != CUTE_OK) {
        if (strncmp(err, "fuzz.txt:", 9) || db) abort(); /* the file named, with its line */
        return 0;
    }
    char *text = cute_tune_db_text(db);
    if (!text || cute_tune_db_parse(text, strlen(text), "again", &again, err, sizeof err) != CUTE_OK) abort();
    same_tables(db, again);
    for (int i = 0; i < cute_tune_db_count(db); i++) {
        cute_gemm_variant v;
        cute_gemm_tiling t;
        char why[160];
        if (cute_gemm_tune_config_parse(cute_tune_db_at(db, i)->config, &v, &t, why, sizeof why)) {
            char back[512];
            cute_gemm_tune_config_text(v, &t, back, sizeof back);
            cute_gemm_variant v2;
            cute_gemm_tiling t2;
            if (!cute_gemm_tune_config_parse(back, &v2, &t2, why, sizeof why) || v2 != v || memcmp(&t, &t2, sizeof t))
                abort();
        }
    }
    free(text);
    cute_tune_db_free(again);
    cute_tune_db_free(db);
    return 0;
}
