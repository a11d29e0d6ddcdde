/* Replays fuzz inputs through LLVMFuzzerTestOneInput without libFuzzer (gcc builds, CI).
 * Built once per target T (fuzz/fuzz_T.c, -DFUZZ_TARGET="T") as replay_T:
 *
 *   replay_T [FILE|DIR]...      default: fuzz/corpus/T (run from the repository root)
 *
 * Each file runs in a child process, so a crash, a sanitizer report or a leak fails that
 * file alone and is reported by name.  Prints "replay_T: N passed, N failed, N skipped",
 * one case per file, like every test program.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TIME_LIMIT 60 /* seconds per input */

static int passed, failed;

static void run_child(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    alarm(TIME_LIMIT); /* a hang fails this file, by name, instead of the whole run */
    LLVMFuzzerTestOneInput(buf, n);
    exit(0); /* exit, not _exit: LeakSanitizer checks at exit */
}

static void replay_file(const char *path)
{
    fflush(NULL); /* the child must not print our buffered output again */
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        failed++;
        return;
    }
    if (pid == 0) run_child(path);
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        failed++;
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
            fprintf(stderr, "FAIL %s: still running after %ds\n", path, TIME_LIMIT);
        else if (WIFSIGNALED(status))
            fprintf(stderr, "FAIL %s: killed by signal %d\n", path, WTERMSIG(status));
        else
            fprintf(stderr, "FAIL %s: exit status %d\n", path, WEXITSTATUS(status));
        return;
    }
    passed++;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the regular files of dir, in name order (so failures read the same on every machine) */
static void replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        replay_file(dir); /* not a directory: a file */
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        if (n == cap && !(names = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names)))
            abort();
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len))) abort();
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        replay_file(names[i]);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    if (argc < 2) replay_dir("fuzz/corpus/" FUZZ_TARGET);
    for (int i = 1; i < argc; i++) replay_dir(argv[i]);
    if (passed + failed == 0) {
        fprintf(stderr, "replay_" FUZZ_TARGET ": no inputs found\n");
        failed++;
    }
    printf("replay_" FUZZ_TARGET ": %d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
