/* CUTEC_KEEP's artifacts (cuda_keep.h). */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cuda_keep.h"

extern char **environ;

/* `tool -sass cubin > sass` */
static bool run_cuobjdump(const char *tool, const char *cubin, const char *sass)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) return false;
    posix_spawn_file_actions_addopen(&fa, 1, sass, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {"cuobjdump", "-sass", (char *)cubin, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, tool, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return false;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool cuda_keep_disassemble(const char *cubin, const char *sass)
{
    return run_cuobjdump("cuobjdump", cubin, sass) ||
           run_cuobjdump("/usr/local/cuda/bin/cuobjdump", cubin, sass);
}

void cuda_keep_artifacts(cute_cache *c, const cute_cache_key *k, unsigned keep, const char *source,
                         const char *ptx, const void *cubin, size_t cubin_len)
{
    if ((keep & CUTE_KEEP_SRC) && source)
        cute_cache_write_artifact(c, k, "cu", source, strlen(source), NULL, 0);
    if ((keep & CUTE_KEEP_PTX) && ptx)
        cute_cache_write_artifact(c, k, "ptx", ptx, strlen(ptx), NULL, 0);
    char cubin_path[4096], sass_path[4096];
    if (!(keep & (CUTE_KEEP_CUBIN | CUTE_KEEP_SASS)) || !cubin ||
        !cute_cache_write_artifact(c, k, "cubin", cubin, cubin_len, cubin_path, sizeof cubin_path))
        return;
    if (!(keep & CUTE_KEEP_SASS)) return;
    snprintf(sass_path, sizeof sass_path, "%.*s.sass", (int)(strlen(cubin_path) - 6), cubin_path);
    if (cuda_keep_disassemble(cubin_path, sass_path)) return;
    char note[4200];
    int n =
        snprintf(note, sizeof note,
                 "no SASS: `cuobjdump -sass %s` failed or cuobjdump is not on PATH\n", cubin_path);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof note ? (size_t)n : sizeof note - 1;
    cute_cache_write_artifact(c, k, "sass", note, len, NULL, 0);
}
