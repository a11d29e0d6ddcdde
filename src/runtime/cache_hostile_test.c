/* A cache that trusts nothing it did not write (docs/cache.md): in a cache directory that
 * others could write, or under an entry's name, whatever cutec did not write is refused,
 * never read, waited on or followed: a FIFO (it hung every compile), a directory (it made
 * every put fail), a link to a well-formed entry elsewhere or another user's entry (they
 * were loaded and run), a payload claiming 1 GiB (read whole), a planted link at the
 * compiler memo's name (cutec wrote through it), a shared directory (used as is). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cutec/cache.h"
#include "runtime/cache_internal.h"

static char root[200];

static cute_cache_key key_named(const char *what)
{
    cute_cache_key k;
    cute_cache_key_compute(&(cute_cache_key_input){.source = what, .arch = "sm_90a"}, &k);
    return k;
}

/* a disk-only cache on root/sub (made fresh) */
static cute_cache *fresh(const char *sub, char *dir, size_t n)
{
    snprintf(dir, n, "%s/%s", root, sub);
    cute_cache_opts o = {.dir = dir, .no_memory = true};
    return cute_cache_open(&o);
}

static void path_of(const char *dir, const cute_cache_key *k, char *buf, size_t n)
{
    char h[65];
    cute_cache_key_hex(k, h);
    snprintf(buf, n, "%s/%s" CACHE_ENTRY_EXT, dir, h);
}

static bool present(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* a get that must miss, with `word` in the message and the path gone */
static void refused(cute_cache *c, const cute_cache_key *k, const char *path, const char *what,
                    const char *word)
{
    void *p = NULL;
    size_t len;
    alarm(20); /* a hang (a FIFO read) fails here instead of stalling the suite */
    bool hit = cute_cache_get(c, k, &p, &len);
    alarm(0);
    free(p);
    CHECK(!hit, "%s: not read", what);
    CHECK(strstr(cute_cache_message(c), word), "%s: message \"%s\" lacks \"%s\"", what,
          cute_cache_message(c), word);
    CHECK(!present(path), "%s: removed", what);
}

static void hung(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL cache_hostile_test: a cache operation hung (a FIFO read?)\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(2);
    _exit(1);
}

static void not_files(void)
{
    char dir[512], path[1024];
    cute_cache *c = fresh("kinds", dir, sizeof dir);
    cute_cache_key k = key_named("fifo");
    path_of(dir, &k, path, sizeof path);
    CHECK(mkfifo(path, 0600) == 0, "mkfifo: %s", strerror(errno));
    refused(c, &k, path, "a FIFO named like an entry", "not a regular file");
    CHECK(cute_cache_put(c, &k, "ok", 2), "a put after the FIFO: %s", cute_cache_message(c));

    k = key_named("empty dir");
    path_of(dir, &k, path, sizeof path);
    mkdir(path, 0700);
    CHECK(cute_cache_put(c, &k, "abc", 3), "a put over an empty directory: %s", cute_cache_message(c));
    k = key_named("full dir");
    path_of(dir, &k, path, sizeof path);
    mkdir(path, 0700);
    char inner[1100];
    snprintf(inner, sizeof inner, "%s/keep", path);
    close(open(inner, O_WRONLY | O_CREAT, 0600));
    CHECK(!cute_cache_put(c, &k, "abc", 3) && strstr(cute_cache_message(c), "a directory has its name"),
          "a put over a directory with files says why: %s", cute_cache_message(c));
    unlink(inner);
    rmdir(path);
    cute_cache_close(c);
}

static void planted(void)
{
    char dir[512], elsewhere[512], path[1024], target[1024];
    cute_cache *c = fresh("planted", dir, sizeof dir), *o = fresh("elsewhere", elsewhere, sizeof elsewhere);
    cute_cache_key k = key_named("planted");
    /* a well-formed entry outside, linked in under the entry's name */
    CHECK(cute_cache_put(o, &k, "evil", 4), "the entry elsewhere");
    path_of(elsewhere, &k, target, sizeof target);
    path_of(dir, &k, path, sizeof path);
    CHECK(symlink(target, path) == 0, "symlink: %s", strerror(errno));
    refused(c, &k, path, "a link to a well-formed entry", "symbolic link");
    CHECK(present(target), "the link's target is left alone");
    /* a well-formed entry of another user's, in our directory */
    char err[256];
    CHECK(cache_entry_write(dir, &k, 7, "evil", 4, err, sizeof err), "%s", err);
    if (geteuid() == 0 && chown(path, 65534, 65534) == 0)
        refused(c, &k, path, "another user's entry", "owned by another user");
    else
        SKIP("not root: cannot make a file of another user's");
    cute_cache_close(o);
    cute_cache_close(c);
}

static void huge_payload(void)
{
    char dir[512], path[1024];
    cute_cache *c = fresh("huge", dir, sizeof dir);
    cute_cache_key k = key_named("huge");
    CHECK(cute_cache_put(c, &k, "small", 5), "put");
    path_of(dir, &k, path, sizeof path);
    /* the header now claims 1 GiB and the (sparse) file has it: a well-formed size */
    uint64_t claim = (uint64_t)1 << 30;
    uint8_t len[8];
    for (int i = 0; i < 8; i++) len[i] = (uint8_t)(claim >> 8 * i);
    int fd = open(path, O_WRONLY);
    bool made = fd >= 0 && pwrite(fd, len, 8, 48) == 8 && ftruncate(fd, (off_t)(CACHE_HEADER_BYTES + claim)) == 0;
    if (fd >= 0) close(fd);
    CHECK(made, "the 1 GiB entry: %s", strerror(errno));
    refused(c, &k, path, "a 1 GiB payload", "larger than");
    cute_cache_close(c);
}

static void shared_dirs(void)
{
    static const struct { const char *sub; mode_t mode; const char *word; } cases[] = {
        {"world", 0777, "writable by others"}, {"group", 0770, "writable by its group"},
        {"sticky", 01777, "writable by others"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s", root, cases[i].sub);
        mkdir(dir, 0700);
        chmod(dir, cases[i].mode);
        cute_cache_opts o = {.dir = dir};
        cute_cache *c = cute_cache_open(&o);
        CHECK(c && !cute_cache_dir(c) && strstr(cute_cache_message(c), cases[i].word) &&
                  strstr(cute_cache_message(c), "chmod 700"),
              "a %03o directory is refused: %s", (unsigned)cases[i].mode, c ? cute_cache_message(c) : "");
        cute_cache_key k = key_named("mem");
        CHECK(c && cute_cache_put(c, &k, "m", 1), "the memory cache still works");
        cute_cache_close(c);
    }
    char dir[512];
    snprintf(dir, sizeof dir, "%s/theirs", root);
    mkdir(dir, 0700);
    if (geteuid() == 0 && chown(dir, 65534, 65534) == 0) {
        cute_cache_opts o = {.dir = dir};
        cute_cache *c = cute_cache_open(&o);
        CHECK(c && !cute_cache_dir(c) && strstr(cute_cache_message(c), "not to you"),
              "another user's directory is refused: %s", c ? cute_cache_message(c) : "");
        cute_cache_close(c);
    } else {
        SKIP("not root: cannot make a directory of another user's");
    }
}

/* the compiler memo: written through a fresh O_EXCL name and a rename, so a link planted at
 * the old predictable name (nvrtc-id.<pid>.tmp) or at the memo's own is never written through */
static void memo(void)
{
    char dir[512], victim[600], link1[700], link2[700], buf[256];
    cute_cache *c = fresh("memo", dir, sizeof dir);
    snprintf(victim, sizeof victim, "%s/victim", root);
    FILE *f = fopen(victim, "w");
    if (f) fputs("precious\n", f), fclose(f);
    snprintf(link1, sizeof link1, "%s/" CACHE_MEMO_NAME ".%ld.tmp", dir, (long)getpid());
    snprintf(link2, sizeof link2, "%s/" CACHE_MEMO_NAME, dir);
    CHECK(symlink(victim, link1) == 0 && symlink(victim, link2) == 0, "links: %s", strerror(errno));
    CHECK(!cache_memo_read(c, buf, sizeof buf), "a link at the memo's name is not read");
    CHECK(!present(link2), "and is removed");
    CHECK(symlink(victim, link2) == 0, "the link again");
    CHECK(cache_memo_write(c, "12.8 1 2 /lib/libnvrtc.so\n"), "memo written");
    CHECK(cache_memo_read(c, buf, sizeof buf) && !strcmp(buf, "12.8 1 2 /lib/libnvrtc.so\n"),
          "memo read back: %s", buf);
    char *v = check_read_file(victim);
    CHECK(v && !strcmp(v, "precious\n"), "the victim is untouched: %s", v ? v : "(gone)");
    free(v);
    struct stat st;
    CHECK(lstat(link2, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
          "the memo is a 0600 file of its own (mode %03o)", (unsigned)(st.st_mode & 0777));
    cute_cache_close(c);
}

static int count(const cute_cache_entry *e, void *user)
{
    (void)e;
    ++*(int *)user;
    return 0;
}

/* clear removes whatever bears an entry's name and is not a directory; list shows it */
static void clear_sees_all(void)
{
    char dir[512], fifo[1024], link[1024], sub[1024];
    cute_cache *c = fresh("clear", dir, sizeof dir);
    cute_cache_key a = key_named("a"), b = key_named("b"), d = key_named("d");
    path_of(dir, &a, fifo, sizeof fifo), path_of(dir, &b, link, sizeof link), path_of(dir, &d, sub, sizeof sub);
    mkfifo(fifo, 0600);
    CHECK(symlink("/etc/passwd", link) == 0, "symlink");
    mkdir(sub, 0700);
    cache_memo_write(c, "12.8 1 2 x\n");
    int n = 0;
    alarm(20);
    cute_cache_list(c, count, &n);
    alarm(0);
    CHECK(n == 2, "list shows the FIFO and the link (%d)", n);
    uint64_t removed = 0;
    CHECK(cute_cache_clear(c, &removed) && removed == 3, "clear removed %llu (FIFO, link, memo)",
          (unsigned long long)removed);
    CHECK(!present(fifo) && !present(link) && present(sub), "the FIFO and the link are gone, the directory stays");
    CHECK(present("/etc/passwd"), "the link's target is left alone");
    rmdir(sub);
    cute_cache_close(c);
}

static void entries_are_private(void)
{
    char dir[512], path[1024];
    mode_t old = umask(0);
    cute_cache *c = fresh("private", dir, sizeof dir);
    cute_cache_key k = key_named("private");
    cute_cache_put(c, &k, "x", 1);
    path_of(dir, &k, path, sizeof path);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "an entry is 0600 (%03o)",
          (unsigned)(st.st_mode & 0777));
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700, "a new directory is 0700 (%03o)",
          (unsigned)(st.st_mode & 0777));
    umask(old);
    cute_cache_close(c);
}

static void remove_tree(const char *path)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", path);
}

int main(void)
{
    snprintf(root, sizeof root, "%s/cutec-hostile-XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root)) return fprintf(stderr, "mkdtemp: %s\n", strerror(errno)), 1;
    signal(SIGALRM, hung);
    not_files();
    planted();
    huge_payload();
    shared_dirs();
    memo();
    clear_sees_all();
    entries_are_private();
    remove_tree(root);
    return CHECK_DONE("cache_hostile_test");
}
