/* The tuning file (cutec/tune.h): entries round-trip through the text and the file; every
 * kind of corrupt or foreign file is refused naming the file, the line and what is wrong,
 * and is never overwritten; concurrent writers (threads and processes) all keep their
 * entries; a symbolic link is not followed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cutec/tune.h"

static char dir[64];

static cute_tune_entry entry(const char *card, int sms, const char *key, const char *config, double ms)
{
    cute_tune_entry e;
    memset(&e, 0, sizeof e);
    snprintf(e.card, sizeof e.card, "%s", card);
    snprintf(e.key, sizeof e.key, "%s", key);
    snprintf(e.config, sizeof e.config, "%s", config);
    e.sms = sms, e.ms = ms;
    return e;
}

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (f) fwrite(text, 1, len, f), fclose(f);
}

static void test_round_trip(void)
{
    cute_tune_db *db = cute_tune_db_new();
    char err[512], path[128];
    cute_tune_entry e[3] = {entry("NVIDIA H200", 132, "gemm bf16>bf16 tnn 4096x4096x4096", "variant=hopper tile=128x256x0", 0.205123),
                            entry("NVIDIA H100 80GB HBM3", 132, "gemm bf16>bf16 tnn 4096x4096x4096", "variant=hopper", 0.25),
                            entry("interp sm_90", 0, "elementwise add f32 4099", "threads=128 vectors=2", 3.5e-4)};
    for (int i = 0; i < 3; i++) CHECK(cute_tune_db_put(db, &e[i], err, sizeof err) == CUTE_OK, "%s", err);
    cute_tune_entry newer = e[0];
    newer.ms = 0.2;
    CHECK(cute_tune_db_put(db, &newer, err, sizeof err) == CUTE_OK && cute_tune_db_count(db) == 3, "a key's entry is replaced");
    char *text = cute_tune_db_text(db);
    cute_tune_db *back = NULL;
    CHECK(cute_tune_db_parse(text, strlen(text), "t", &back, err, sizeof err) == CUTE_OK, "%s", err);
    CHECK(cute_tune_db_count(back) == 3, "%d entries", cute_tune_db_count(back));
    int line = 0;
    const cute_tune_entry *f = cute_tune_db_find(back, "NVIDIA H200", 132, e[0].key, &line);
    CHECK(f && f->ms == 0.2 && !strcmp(f->config, e[0].config) && line == 3, "found at line %d", line);
    CHECK(!cute_tune_db_find(back, "NVIDIA H200", 114, e[0].key, NULL), "another SM count is another card");
    CHECK(cute_tune_db_find(back, "interp sm_90", 0, e[2].key, NULL)->ms == 3.5e-4, "ms kept");
    snprintf(path, sizeof path, "%s/sub/tune.txt", dir);
    CHECK(cute_tune_db_store(path, e, 3, err, sizeof err) == CUTE_OK, "%s", err);
    cute_tune_db *disk = NULL;
    CHECK(cute_tune_db_load(path, &disk, err, sizeof err) == CUTE_OK && cute_tune_db_count(disk) == 3, "%s", err);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 077) == 0, "mode %o", st.st_mode & 0777);
    cute_tune_db *none = NULL;
    snprintf(path, sizeof path, "%s/missing.txt", dir);
    CHECK(cute_tune_db_load(path, &none, err, sizeof err) == CUTE_OK && cute_tune_db_count(none) == 0, "missing: empty");
    cute_tune_entry bad = entry("a\tb", 1, "k", "c", 1);
    CHECK(cute_tune_db_put(db, &bad, err, sizeof err) == CUTE_ERR_INVALID && strstr(err, "card"), "%s", err);
    bad = entry("a", 1, "k", "c", 0);
    CHECK(cute_tune_db_put(db, &bad, err, sizeof err) == CUTE_ERR_INVALID && strstr(err, "time"), "%s", err);
    free(text);
    cute_tune_db_free(db), cute_tune_db_free(back), cute_tune_db_free(disk), cute_tune_db_free(none);
}

/* each corrupt or foreign file: refused with "path:line: what", and left as it was by a
 * store (which must not lose what it could not read) */
static void test_corrupt(void)
{
    static char long_line[1200];
    memset(long_line, 'x', sizeof long_line - 1);
    memcpy(long_line, "cutec-tune 1\n", 13);
    static const struct { const char *text; size_t len; const char *want; } cases[] = {
        {"", 0, "empty"},
        {"{\"cutec-tune\": 1}\n", 18, ":1: not a cutec tuning file"},
        {"cutec-tune 2\n", 13, ":1: a tuning file of version \"2\""},
        {"cutec-tune 1\nA\t1\tk\tc\n", 21, ":2: 4 tab-separated fields"},
        {"cutec-tune 1\n#\nA\t1\tk\tc\t1\tx\n", 27, ":3: more than five"},
        {"cutec-tune 1\nA\t-1\tk\tc\t1\n", 24, ":2: the SM count \"-1\""},
        {"cutec-tune 1\nA\t1e3\tk\tc\t1\n", 25, ":2: the SM count"},
        {"cutec-tune 1\nA\t1\tk\tc\t0\n", 23, ":2: the time \"0\""},
        {"cutec-tune 1\nA\t1\tk\tc\tnan\n", 25, ":2: the time"},
        {"cutec-tune 1\nA\t1\tk\tc\t1ms\n", 25, ":2: the time"},
        {"cutec-tune 1\nA\t1\tk\tc\t1e400\n", 27, ":2: the time"},
        {"cutec-tune 1\n\t1\tk\tc\t1\n", 22, ":2: the card is empty"},
        {"cutec-tune 1\nA\t1\tk\tc\t1\0\n", 24, ":2: a NUL byte"},
        {long_line, sizeof long_line - 1, ":2: a line of more than"},
    };
    char path[128], err[512];
    snprintf(path, sizeof path, "%s/corrupt.txt", dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_text(path, cases[i].text, cases[i].len);
        cute_tune_db *db = NULL;
        cute_status s = cute_tune_db_load(path, &db, err, sizeof err);
        CHECK(s == CUTE_ERR_INVALID && !db && !strncmp(err, path, strlen(path)) && strstr(err, cases[i].want),
              "case %zu: %s", i, err);
        cute_tune_entry e = entry("A", 1, "k2", "c", 1);
        CHECK(cute_tune_db_store(path, &e, 1, err, sizeof err) == CUTE_ERR_INVALID, "case %zu: stored over it", i);
        char *now = check_read_file(path);
        CHECK(now && !memcmp(now, cases[i].text, cases[i].len), "case %zu: the file changed", i);
        free(now);
    }
    char link[160];
    snprintf(link, sizeof link, "%s/link.txt", dir);
    write_text(path, "cutec-tune 1\n", 13);
    CHECK(symlink(path, link) == 0, "symlink");
    cute_tune_db *db = NULL;
    CHECK(cute_tune_db_load(link, &db, err, sizeof err) == CUTE_ERR_INVALID && strstr(err, "symbolic link"), "%s", err);
}

enum { WRITERS = 4, EACH = 10 };
static char shared_path[128];

/* writer w's EACH entries, one store each (a read-modify-write every time) */
static int write_many(int w)
{
    char err[512];
    for (int i = 0; i < EACH; i++) {
        char key[64];
        snprintf(key, sizeof key, "gemm writer %d entry %d", w, i);
        cute_tune_entry e = entry("card", 7, key, "variant=hopper", 1 + i);
        if (cute_tune_db_store(shared_path, &e, 1, err, sizeof err) != CUTE_OK) return fprintf(stderr, "%s\n", err), 1;
    }
    return 0;
}

static void *writer_thread(void *arg)
{
    return (void *)(intptr_t)write_many((int)(intptr_t)arg);
}

static void test_concurrent_writers(void)
{
    snprintf(shared_path, sizeof shared_path, "%s/shared.txt", dir);
    pid_t kids[WRITERS];
    for (int w = 0; w < WRITERS; w++)
        if ((kids[w] = fork()) == 0) _exit(write_many(w));
    pthread_t th[WRITERS];
    for (int w = 0; w < WRITERS; w++) pthread_create(&th[w], NULL, writer_thread, (void *)(intptr_t)(WRITERS + w));
    int failures = 0;
    for (int w = 0; w < WRITERS; w++) {
        void *rc;
        int status = 0;
        pthread_join(th[w], &rc);
        failures += rc != NULL;
        failures += waitpid(kids[w], &status, 0) != kids[w] || !WIFEXITED(status) || WEXITSTATUS(status);
    }
    CHECK(failures == 0, "%d writers failed", failures);
    cute_tune_db *db = NULL;
    char err[512];
    CHECK(cute_tune_db_load(shared_path, &db, err, sizeof err) == CUTE_OK, "%s", err);
    CHECK(cute_tune_db_count(db) == 2 * WRITERS * EACH, "%d entries of %d: a writer's entries were lost",
          cute_tune_db_count(db), 2 * WRITERS * EACH);
    cute_tune_db_free(db);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/cutec-tune-db-XXXXXX");
    if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
    test_round_trip();
    test_corrupt();
    test_concurrent_writers();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {}
    return CHECK_DONE("tune/db_test");
}
