/* The JIT cache (cutec/cache.h), no GPU: SHA-256 against FIPS 180-4's vectors; keys change
 * with every input; entries round-trip; every kind of damage is detected, removed and read
 * as a miss; debris and others' files are left alone; two processes writing one key at once
 * both succeed; the environment is honoured. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cutec/cache.h"
#include "runtime/cache_internal.h"
#include "runtime/sha256.h"

static char root[200]; /* the test's temporary directory */

/* rm -r path (files and directories we made) */
static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char sub[2048];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        remove_tree(sub);
    }
    closedir(d);
    rmdir(path);
}

static void hex(const uint8_t *b, int n, char *out)
{
    for (int i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

static void test_sha256(void)
{
    static const struct {
        const char *msg, *digest;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t d[32];
        char h[65];
        cute_sha256(v[i].msg, strlen(v[i].msg), d);
        hex(d, 32, h);
        CHECK_STR(h, v[i].digest);
    }
    /* a million 'a', fed in uneven pieces: the block buffering at every offset */
    cute_sha256_ctx s;
    cute_sha256_init(&s);
    char a[1000];
    memset(a, 'a', sizeof a);
    size_t fed = 0;
    for (size_t step = 1; fed < 1000000; step = step % 997 + 1) {
        size_t n = 1000000 - fed < step ? 1000000 - fed : step;
        cute_sha256_update(&s, a, n);
        fed += n;
    }
    uint8_t d[32];
    char h[65];
    cute_sha256_final(&s, d);
    hex(d, 32, h);
    CHECK_STR(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static cute_cache_key key_of(const char *src, const char *arch, const char *comp, const char *opts,
                             const char *ver)
{
    cute_cache_key k;
    cute_cache_key_compute(
        &(cute_cache_key_input){
            .source = src, .arch = arch, .compiler = comp, .options = opts, .version = ver},
        &k);
    return k;
}

static bool key_eq(cute_cache_key a, cute_cache_key b)
{
    return !memcmp(a.b, b.b, 32);
}

static void test_keys(void)
{
    cute_cache_key base = key_of("src", "sm_90a", "nvrtc 12.8", "-lineinfo", "1");
    CHECK(key_eq(base, key_of("src", "sm_90a", "nvrtc 12.8", "-lineinfo", "1")), "deterministic");
    CHECK(!key_eq(base, key_of("src2", "sm_90a", "nvrtc 12.8", "-lineinfo", "1")), "source");
    CHECK(!key_eq(base, key_of("src", "sm_80", "nvrtc 12.8", "-lineinfo", "1")), "arch");
    CHECK(!key_eq(base, key_of("src", "sm_90a", "nvrtc 12.9", "-lineinfo", "1")), "compiler");
    CHECK(!key_eq(base, key_of("src", "sm_90a", "nvrtc 12.8", "", "1")), "options");
    CHECK(!key_eq(base, key_of("src", "sm_90a", "nvrtc 12.8", "-lineinfo", "2")), "version");
    /* framing: the same bytes split differently between fields are different inputs */
    CHECK(!key_eq(key_of("ab", "c", "", "", ""), key_of("a", "bc", "", "", "")), "framing");
    CHECK(!key_eq(key_of("", "", "", "", NULL), key_of("", "", "", "", "")),
          "NULL version is CUTEC_VERSION, not empty");
    char h[65];
    cute_cache_key back;
    cute_cache_key_hex(&base, h);
    CHECK(strlen(h) == 64 && cute_cache_key_parse(h, &back) && key_eq(back, base), "hex %s", h);
    CHECK(!cute_cache_key_parse("abc", &back), "short hex");
    h[10] = 'g';
    CHECK(!cute_cache_key_parse(h, &back), "non-hex digit");
    CHECK(cute_keep_parse("src,ptx") == (CUTE_KEEP_SRC | CUTE_KEEP_PTX), "keep src,ptx");
    CHECK(cute_keep_parse("sass, cubin,bogus") == (CUTE_KEEP_SASS | CUTE_KEEP_CUBIN), "keep");
    CHECK(cute_keep_parse("all") == 15u && cute_keep_parse(NULL) == 0u, "keep all / none");
}

/* a disk-only cache on dir: every get reads the file */
static cute_cache *open_disk(const char *dir)
{
    cute_cache_opts o = {.dir = dir, .no_memory = true};
    return cute_cache_open(&o);
}

static void entry_path(const char *dir, const cute_cache_key *k, char *buf, size_t n)
{
    char h[65];
    cute_cache_key_hex(k, h);
    snprintf(buf, n, "%s/%s.cutec", dir, h);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static bool get_equals(cute_cache *c, const cute_cache_key *k, const void *want, size_t n)
{
    void *p;
    size_t len;
    if (!cute_cache_get(c, k, &p, &len)) return false;
    bool eq = len == n && memcmp(p, want, n) == 0;
    free(p);
    return eq;
}

static void test_round_trip(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/rt/nested", root); /* made on open, parents too */
    cute_cache *c = open_disk(dir);
    CHECK(c && cute_cache_dir(c) && !strcmp(cute_cache_dir(c), dir), "open makes %s", dir);
    cute_cache_key k = key_of("kernel", "sm_90a", "x", "", NULL);
    cute_cache_key other = key_of("other", "sm_90a", "x", "", NULL);
    const char payload[] = "not really a cubin \0 with a NUL inside";
    void *p;
    size_t len;
    CHECK(!cute_cache_get(c, &k, &p, &len) && p == NULL, "miss before put");
    CHECK(cute_cache_put(c, &k, payload, sizeof payload), "put: %s", cute_cache_message(c));
    CHECK(get_equals(c, &k, payload, sizeof payload), "disk round trip");
    CHECK(!cute_cache_get(c, &other, &p, &len), "another key misses");
    CHECK(cute_cache_put(c, &other, "", 0) && get_equals(c, &other, "", 0), "empty payload");
    char path[2048];
    entry_path(dir, &k, path, sizeof path);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == (off_t)(CACHE_HEADER_BYTES + sizeof payload),
          "the entry is header + payload");
    cute_cache_stats s;
    cute_cache_stats_get(c, &s);
    CHECK(s.disk_hits == 2 && s.misses == 2 && s.memory_hits == 0 && s.corrupt == 0,
          "stats %llu %llu", (unsigned long long)s.disk_hits, (unsigned long long)s.misses);
    cute_cache_close(c);

    /* a cache with memory answers the second get from memory, even with the file gone */
    cute_cache_opts o = {.dir = dir};
    c = cute_cache_open(&o);
    CHECK(get_equals(c, &k, payload, sizeof payload), "disk hit into memory");
    unlink(path);
    CHECK(get_equals(c, &k, payload, sizeof payload), "memory hit");
    cute_cache_stats_get(c, &s);
    CHECK(s.disk_hits == 1 && s.memory_hits == 1, "memory stats");
    cute_cache_remove(c, &k);
    CHECK(!cute_cache_get(c, &k, &p, &len), "removed");
    cute_cache_close(c);

    /* memory only */
    cute_cache_opts mo = {.no_disk = true};
    c = cute_cache_open(&mo);
    CHECK(c && !cute_cache_dir(c), "no disk");
    CHECK(cute_cache_put(c, &k, payload, 4) && get_equals(c, &k, payload, 4), "memory only");
    for (int i = 0; i < 200; i++) { /* growth and rehash keep every entry */
        char src[32];
        snprintf(src, sizeof src, "k%d", i);
        cute_cache_key ki = key_of(src, "", "", "", NULL);
        cute_cache_put(c, &ki, src, strlen(src));
    }
    bool all = true;
    for (int i = 0; i < 200; i++) {
        char src[32];
        snprintf(src, sizeof src, "k%d", i);
        cute_cache_key ki = key_of(src, "", "", "", NULL);
        all = all && get_equals(c, &ki, src, strlen(src));
    }
    CHECK(all, "200 entries in memory");
    cute_cache_close(c);
}

/* set byte `at` of path (at < 0: from the end) to value */
static void poke(const char *path, long at, unsigned char value)
{
    int fd = open(path, O_RDWR);
    struct stat st;
    fstat(fd, &st);
    off_t off = at < 0 ? st.st_size + at : at;
    if (pwrite(fd, &value, 1, off) != 1) perror("pwrite");
    close(fd);
}

static unsigned char peek(const char *path, long at)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    fstat(fd, &st);
    unsigned char v = 0;
    if (pread(fd, &v, 1, at < 0 ? st.st_size + at : at) != 1) v = 0;
    close(fd);
    return v;
}

/* put a fresh entry, damage it with `damage`, and check a disk-only get misses, counts
 * it corrupt, removes the file, and that a new put then serves again */
static void damaged(const char *what, void (*damage)(const char *path))
{
    char dir[512], path[1024];
    snprintf(dir, sizeof dir, "%s/damage", root);
    cute_cache *c = open_disk(dir);
    cute_cache_key k = key_of(what, "sm_80", "", "", NULL);
    char payload[4096];
    for (size_t i = 0; i < sizeof payload; i++) payload[i] = (char)(i * 7 + 3);
    cute_cache_put(c, &k, payload, sizeof payload);
    entry_path(dir, &k, path, sizeof path);
    damage(path);
    void *p;
    size_t len;
    CHECK(!cute_cache_get(c, &k, &p, &len), "%s: a miss", what);
    cute_cache_stats s;
    cute_cache_stats_get(c, &s);
    CHECK(s.corrupt == 1, "%s: counted corrupt (%llu)", what, (unsigned long long)s.corrupt);
    CHECK(strstr(cute_cache_message(c), "corrupt") != NULL, "%s: message \"%s\"", what,
          cute_cache_message(c));
    CHECK(!exists(path), "%s: the damaged entry is removed", what);
    CHECK(cute_cache_put(c, &k, payload, sizeof payload) &&
              get_equals(c, &k, payload, sizeof payload),
          "%s: rebuilt", what);
    cute_cache_close(c);
}

static void flip_payload(const char *path)
{
    poke(path, -100, (unsigned char)(peek(path, -100) ^ 1));
}
static void flip_checksum(const char *path)
{
    poke(path, 60, (unsigned char)(peek(path, 60) ^ 0x80));
}
static void flip_key(const char *path)
{
    poke(path, 20, (unsigned char)(peek(path, 20) ^ 1));
}
static void bad_magic(const char *path)
{
    poke(path, 0, 'X');
}
static void bad_version(const char *path)
{
    poke(path, 8, (unsigned char)(CACHE_FORMAT + 1));
}
static void bad_length(const char *path)
{
    poke(path, 48, (unsigned char)(peek(path, 48) + 1));
}
static void cut(const char *path, off_t size)
{
    if (truncate(path, size) != 0) perror("truncate");
}
static void truncate_payload(const char *path)
{
    cut(path, CACHE_HEADER_BYTES + 100);
}
static void truncate_header(const char *path)
{
    cut(path, 40);
}
static void empty_file(const char *path)
{
    cut(path, 0);
}
static void appended(const char *path)
{
    int fd = open(path, O_WRONLY | O_APPEND);
    if (write(fd, "x", 1) != 1) perror("write");
    close(fd);
}

static void test_damage(void)
{
    damaged("a flipped payload byte", flip_payload);
    damaged("a flipped checksum byte", flip_checksum);
    damaged("another key in the header", flip_key);
    damaged("wrong magic", bad_magic);
    damaged("another format version", bad_version);
    damaged("a wrong length", bad_length);
    damaged("a truncated payload", truncate_payload);
    damaged("a truncated header", truncate_header);
    damaged("an empty file", empty_file);
    damaged("a byte appended", appended);
}

static void write_file(const char *path, const void *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        if (write(fd, data, n) != (ssize_t)n) fprintf(stderr, "short write to %s\n", path);
        close(fd);
    }
}

static int count_entry(const cute_cache_entry *e, void *user)
{
    (void)e;
    ++*(int *)user;
    return 0;
}

static void test_debris_and_clear(void)
{
    char dir[512], path[1024], h[65];
    snprintf(dir, sizeof dir, "%s/debris", root);
    cute_cache *c = open_disk(dir);
    cute_cache_key k = key_of("debris", "", "", "", NULL), k2 = key_of("second", "", "", "", NULL);
    cute_cache_key_hex(&k, h);
    /* a crashed writer's half entry, under the temporary name it would have used */
    snprintf(path, sizeof path, "%s/" CACHE_TEMP_PREFIX "%.16s.999.0123456789abcdef.0", dir, h);
    write_file(path, "CUTECJIT\1\0\0\0", 12);
    void *p;
    size_t len;
    CHECK(!cute_cache_get(c, &k, &p, &len), "debris is not an entry");
    int n = 0;
    cute_cache_list(c, count_entry, &n);
    CHECK(n == 0, "debris is not listed (%d)", n);
    CHECK(cute_cache_put(c, &k, "abc", 3) && get_equals(c, &k, "abc", 3), "put beside debris");
    cute_cache_put(c, &k2, "def", 3);
    CHECK(cute_cache_write_artifact(c, &k, "ptx", "// ptx", 6, NULL, 0), "artifact");
    /* others' files: must survive clear */
    char others[5][2048];
    snprintf(others[0], sizeof others[0], "%s/notes.txt", dir);
    snprintf(others[1], sizeof others[1], "%s/abc.cutec", dir);
    snprintf(others[2], sizeof others[2], "%s/%s.txt", dir, h);
    snprintf(others[3], sizeof others[3], "%s/%s.cutec.bak", dir, h);
    snprintf(others[4], sizeof others[4], "%s/cutec-tmp.not-ours", dir);
    for (int i = 0; i < 5; i++) write_file(others[i], "mine", 4);
    char sub[2048];
    snprintf(sub, sizeof sub, "%s/%s.cutec", dir,
             "0000000000000000000000000000000000000000000000000000000000000000");
    mkdir(sub, 0700); /* a directory with an entry's name: not a file, not touched */

    n = 0;
    cute_cache_list(c, count_entry, &n);
    CHECK(n == 2, "two entries listed (%d)", n);
    uint64_t bytes, files;
    CHECK(cute_cache_size(c, &bytes, &files) && files == 4,
          "size counts 2 entries, 1 "
          "artifact, 1 temp: %llu files",
          (unsigned long long)files);
    CHECK(bytes == 2 * (CACHE_HEADER_BYTES + 3) + 6 + 12, "size bytes %llu",
          (unsigned long long)bytes);
    uint64_t removed;
    CHECK(cute_cache_clear(c, &removed) && removed == 4, "clear removed %llu",
          (unsigned long long)removed);
    for (int i = 0; i < 5; i++) CHECK(exists(others[i]), "%s survives clear", others[i]);
    CHECK(exists(sub), "a directory survives clear");
    CHECK(!cute_cache_get(c, &k, &p, &len), "cleared");
    CHECK(cute_cache_size(c, &bytes, &files) && files == 0 && bytes == 0, "empty after clear");
    cute_cache_close(c);
}

/* two processes put and get one key 50 times each; each get must see the whole payload */
static void test_concurrent(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/race", root);
    cute_cache *c0 = open_disk(dir); /* makes the directory before the fork */
    cute_cache_close(c0);
    cute_cache_key k = key_of("raced", "sm_90a", "", "", NULL);
    size_t n = 1 << 20; /* large enough that a torn write would be seen */
    unsigned char *payload = malloc(n);
    for (size_t i = 0; i < n; i++) payload[i] = (unsigned char)(i * 2654435761u >> 13);
    pid_t pid = fork();
    if (pid < 0) {
        SKIP("fork failed");
        free(payload);
        return;
    }
    int bad = 0;
    for (int i = 0; i < 50; i++) {
        cute_cache *c = open_disk(dir); /* a fresh handle: nothing from memory */
        if (!c || !cute_cache_put(c, &k, payload, n)) bad++;
        if (!c || !get_equals(c, &k, payload, n)) bad++;
        cute_cache_stats s;
        if (c) cute_cache_stats_get(c, &s);
        if (c && s.corrupt) bad++;
        cute_cache_close(c);
    }
    if (pid == 0) _exit(bad ? 1 : 0);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(bad == 0, "parent: %d bad puts/gets", bad);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: bad puts/gets");
    cute_cache *c = open_disk(dir);
    CHECK(get_equals(c, &k, payload, n), "the entry is valid after the race");
    uint64_t files;
    cute_cache_size(c, NULL, &files);
    CHECK(files == 1, "no temporary files left behind (%llu files)", (unsigned long long)files);
    cute_cache_close(c);
    free(payload);
}

static void test_env(void)
{
    char dir[1024], xdg[512], home[512], buf[1024];
    snprintf(dir, sizeof dir, "%s/env", root);
    snprintf(xdg, sizeof xdg, "%s/xdg", root);
    snprintf(home, sizeof home, "%s/home", root);
    setenv("CUTEC_CACHE_DIR", dir, 1);
    setenv("XDG_CACHE_HOME", xdg, 1);
    setenv("HOME", home, 1);
    CHECK(cute_cache_default_dir(buf, sizeof buf) && !strcmp(buf, dir), "CUTEC_CACHE_DIR %s", buf);
    unsetenv("CUTEC_CACHE_DIR");
    snprintf(dir, sizeof dir, "%s/cutec", xdg);
    CHECK(cute_cache_default_dir(buf, sizeof buf) && !strcmp(buf, dir), "XDG %s", buf);
    setenv("XDG_CACHE_HOME", "", 1); /* empty counts as unset */
    snprintf(dir, sizeof dir, "%s/.cache/cutec", home);
    CHECK(cute_cache_default_dir(buf, sizeof buf) && !strcmp(buf, dir), "HOME %s", buf);
    unsetenv("HOME");
    unsetenv("XDG_CACHE_HOME");
    CHECK(!cute_cache_default_dir(buf, sizeof buf) && !buf[0], "no directory at all");
    cute_cache_opts o;
    cute_cache_opts_from_env(&o);
    cute_cache *c = cute_cache_open(&o);
    CHECK(c && !cute_cache_dir(c) && strstr(cute_cache_message(c), "memory only"),
          "memory only without a directory: %s", c ? cute_cache_message(c) : "");
    cute_cache_close(c);

    snprintf(dir, sizeof dir, "%s/env", root);
    setenv("CUTEC_CACHE_DIR", dir, 1);
    setenv("CUTEC_NO_CACHE", "1", 1);
    setenv("CUTEC_KEEP", "src,sass", 1);
    setenv("CUTEC_DUMP_DIR", root, 1);
    setenv("CUTEC_LINEINFO", "1", 1);
    cute_cache_opts_from_env(&o);
    CHECK(o.disabled && o.keep == (CUTE_KEEP_SRC | CUTE_KEEP_SASS) && o.lineinfo &&
              !strcmp(o.dump_dir, root) && !strcmp(o.dir, dir),
          "options from the environment");
    c = cute_cache_open(&o);
    cute_cache_key k = key_of("env", "", "", "", NULL);
    void *p;
    size_t len;
    CHECK(!cute_cache_enabled(c) && !cute_cache_put(c, &k, "x", 1) &&
              !cute_cache_get(c, &k, &p, &len),
          "CUTEC_NO_CACHE: nothing stored, nothing found");
    char path[2048];
    entry_path(dir, &k, path, sizeof path);
    CHECK(!exists(path), "CUTEC_NO_CACHE: no file written");
    CHECK(cute_cache_keep(c) == (CUTE_KEEP_SRC | CUTE_KEEP_SASS) && cute_cache_lineinfo(c) &&
              !strcmp(cute_cache_dump_dir(c), root),
          "keep, lineinfo and dump dir reach the handle");
    cute_cache_close(c);
    setenv("CUTEC_NO_CACHE", "0", 1);
    cute_cache_opts_from_env(&o);
    CHECK(!o.disabled, "CUTEC_NO_CACHE=0 is off");
    c = cute_cache_open(&o);
    CHECK(cute_cache_put(c, &k, "x", 1) && exists(path), "cache on again");
    cute_cache_close(c);
    unsetenv("CUTEC_NO_CACHE");
    unsetenv("CUTEC_KEEP");
    unsetenv("CUTEC_DUMP_DIR");
    unsetenv("CUTEC_LINEINFO");
}

static void test_unusable_dir(void)
{
    char file[512], dir[600];
    snprintf(file, sizeof file, "%s/a-file", root);
    write_file(file, "x", 1);
    snprintf(dir, sizeof dir, "%s/sub", file); /* a directory under a file cannot exist */
    cute_cache_opts o = {.dir = dir};
    cute_cache *c = cute_cache_open(&o);
    CHECK(c && !cute_cache_dir(c) && strstr(cute_cache_message(c), "memory only"),
          "unusable directory: %s", c ? cute_cache_message(c) : "");
    cute_cache_key k = key_of("u", "", "", "", NULL);
    CHECK(cute_cache_put(c, &k, "y", 1) && get_equals(c, &k, "y", 1), "memory still works");
    cute_cache_close(c);
}

static void test_artifact(void)
{
    char dump[512], path[1024];
    snprintf(dump, sizeof dump, "%s/dump/deeper", root);
    cute_cache_opts o = {.no_disk = true, .dump_dir = dump};
    cute_cache *c = cute_cache_open(&o);
    cute_cache_key k = key_of("art", "", "", "", NULL);
    CHECK(cute_cache_write_artifact(c, &k, "cu", "int x;", 6, path, sizeof path), "artifact: %s",
          cute_cache_message(c));
    FILE *f = fopen(path, "r");
    char buf[16] = "";
    if (f) {
        if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
        fclose(f);
    }
    CHECK_STR(buf, "int x;");
    CHECK(strstr(path, dump) == path && strstr(path, ".cu"), "artifact path %s", path);
    cute_cache_close(c);
    cute_cache_opts none = {.no_disk = true};
    c = cute_cache_open(&none);
    CHECK(!cute_cache_write_artifact(c, &k, "cu", "x", 1, NULL, 0) &&
              strstr(cute_cache_message(c), "CUTEC_DUMP_DIR"),
          "no directory for artifacts: %s", cute_cache_message(c));
    cute_cache_close(c);
}

int main(void)
{
    snprintf(root, sizeof root, "%s/cutec-cache-test-XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    test_sha256();
    test_keys();
    test_round_trip();
    test_damage();
    test_debris_and_clear();
    test_concurrent();
    test_unusable_dir();
    test_artifact();
    test_env();
    remove_tree(root);
    return CHECK_DONE("cache_test");
}
