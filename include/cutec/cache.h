/* cutec/cache.h — the JIT cache: compiled kernels (cubins) by content key, in memory and
 * on disk, so a kernel compiles once per machine, not once per process.
 *
 * Key.  SHA-256 over every input that can change the compiler's output: the generated
 * source, the target arch, the compiler's version, the compile options and cutec's
 * version, each framed by a tag and its length (so no two different inputs serialize to
 * the same bytes).  Two different inputs share a key only on a SHA-256 collision (2^-128
 * for a birthday pair; no collision is known), so a key names its cubin for good.
 *
 * Disk.  One file per entry, <dir>/<64 hex digits of the key>.cutec: a header (magic,
 * format version, the key again, payload length, SHA-256 of the payload) then the payload.
 * Entries are written to a temporary file in the same directory, fsynced and renamed into
 * place, so a reader sees a whole entry or none, and two processes writing one key at once
 * both succeed (the last rename wins; both wrote the same bytes).  A read checks magic,
 * version, key, length and checksum; an entry that fails is deleted and reported as a
 * miss, so the caller recompiles: a damaged cache never reaches the GPU.
 *
 * Trust (docs/cache.md).  The checksum guarantees integrity, not authenticity: the disk
 * cache is used only in a directory owned by the user and writable by nobody else, and in
 * it only regular files of the user's of at most CACHE_MAX_PAYLOAD bytes are read (opened
 * with O_NOFOLLOW|O_NONBLOCK); anything else under an entry's name is removed, not read.
 * Every file is written through O_CREAT|O_EXCL under a random name, mode 0600, then renamed.
 *
 * Memory.  A hash map in the handle, so a process asking twice reads no file.
 *
 * Environment (cute_cache_opts_from_env):
 *   CUTEC_CACHE_DIR   the directory; else $XDG_CACHE_HOME/cutec, else $HOME/.cache/cutec
 *   CUTEC_NO_CACHE    any value but "" and "0": no memory cache, no disk cache
 *   CUTEC_KEEP        comma list of src,ptx,cubin,sass: also write those artifacts, named by
 *                     key, into CUTEC_DUMP_DIR (else the cache directory)
 *   CUTEC_DUMP_DIR    where CUTEC_KEEP writes
 *   CUTEC_LINEINFO    compile with line info (a compile option, so it is part of the key)
 *
 * A handle may be used from several threads.  Functions return true on success (a hit, for
 * cute_cache_get); the reason for a failure is cute_cache_message().
 */
#ifndef CUTEC_CACHE_H
#define CUTEC_CACHE_H

#include "cutec/api.h"
CUTE_API_BEGIN

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* cutec's version: part of every key (see also the entry format version in cache.c) */
#ifndef CUTEC_VERSION
#define CUTEC_VERSION "0.1.0-dev"
#endif

#define CUTE_CACHE_KEY_BYTES 32

typedef struct cute_cache_key {
    uint8_t b[CUTE_CACHE_KEY_BYTES];
} cute_cache_key;

/* What a compile depends on.  NULL strings count as "". */
typedef struct cute_cache_key_input {
    const char *source;   /* the generated CUDA C */
    size_t source_len;    /* 0: strlen(source) */
    const char *arch;     /* "sm_90a" */
    const char *compiler; /* "nvrtc 12.8", whatever names the compiler's behaviour */
    const char *options;  /* the compile options, joined */
    const char *version;  /* NULL: CUTEC_VERSION */
} cute_cache_key_input;

void cute_cache_key_compute(const cute_cache_key_input *in, cute_cache_key *out);
/* 64 lower-case hex digits and a NUL */
void cute_cache_key_hex(const cute_cache_key *k, char out[2 * CUTE_CACHE_KEY_BYTES + 1]);
/* exactly 64 hex digits -> key */
bool cute_cache_key_parse(const char *hex, cute_cache_key *out);

/* CUTEC_KEEP's artifacts */
enum {
    CUTE_KEEP_SRC = 1u,   /* <key>.cu */
    CUTE_KEEP_PTX = 2u,   /* <key>.ptx */
    CUTE_KEEP_CUBIN = 4u, /* <key>.cubin */
    CUTE_KEEP_SASS = 8u,  /* <key>.sass, by cuobjdump when it is on PATH */
};
/* "src,ptx" -> CUTE_KEEP_SRC | CUTE_KEEP_PTX; unknown words are ignored ("all": all four;
 * $CUTEC_KEEP warns once about them) */
unsigned cute_keep_parse(const char *list);

typedef struct cute_cache_opts {
    const char *dir;      /* NULL: cute_cache_default_dir() */
    bool disabled;        /* CUTEC_NO_CACHE: every get misses, every put is dropped */
    bool no_memory;       /* disk only */
    bool no_disk;         /* memory only */
    unsigned keep;        /* CUTE_KEEP_* */
    const char *dump_dir; /* NULL: the cache directory */
    bool lineinfo;        /* CUTEC_LINEINFO; read by the backend, kept here with the rest */
    size_t memory_limit;  /* bytes of payload held in memory; 0: 256 MiB */
} cute_cache_opts;

/* Defaults, then the environment.  The strings point into the environment; open copies
 * them. */
void cute_cache_opts_from_env(cute_cache_opts *o);
/* The default directory into buf; false (and buf "") when neither CUTEC_CACHE_DIR,
 * XDG_CACHE_HOME nor HOME is set, or buf is too small. */
bool cute_cache_default_dir(char *buf, size_t n);

typedef struct cute_cache cute_cache;

/* NULL only when out of memory.  A directory that cannot be made, or that others could
 * write (see Trust), leaves a memory-only cache, with the reason and the remedy in
 * cute_cache_message(). */
cute_cache *cute_cache_open(const cute_cache_opts *o);
void cute_cache_close(cute_cache *c);

const char *cute_cache_dir(const cute_cache *c);      /* NULL: no disk */
const char *cute_cache_dump_dir(const cute_cache *c); /* NULL: no disk and no dump dir */
bool cute_cache_enabled(const cute_cache *c);         /* false under CUTEC_NO_CACHE */
unsigned cute_cache_keep(const cute_cache *c);
bool cute_cache_lineinfo(const cute_cache *c);
/* the last problem in words (an I/O error, a corrupt entry dropped); "" if none */
const char *cute_cache_message(const cute_cache *c);

/* A hit: true, *bytes a malloc'd copy of the payload (the caller frees), *len its size. */
bool cute_cache_get(cute_cache *c, const cute_cache_key *k, void **bytes, size_t *len);
/* Store in memory and on disk; false when neither took it (the message says why). */
bool cute_cache_put(cute_cache *c, const cute_cache_key *k, const void *bytes, size_t len);
/* Forget an entry (memory and disk): a payload the driver refused, say. */
void cute_cache_remove(cute_cache *c, const cute_cache_key *k);

/* Write one CUTEC_KEEP artifact, <dump dir>/<key hex>.<ext>, atomically; the path into
 * path when not NULL. */
bool cute_cache_write_artifact(cute_cache *c, const cute_cache_key *k, const char *ext,
                               const void *bytes, size_t len, char *path, size_t npath);

typedef struct cute_cache_stats {
    uint64_t memory_hits, disk_hits, misses;
    uint64_t corrupt; /* entries found damaged, deleted, counted as misses */
    uint64_t puts, put_failures;
} cute_cache_stats;
void cute_cache_stats_get(const cute_cache *c, cute_cache_stats *out);

/* --- the directory, for `cutec cache` ------------------------------------------------- */
typedef struct cute_cache_entry {
    char name[128];     /* the file's name */
    cute_cache_key key; /* from the name */
    uint64_t bytes;     /* the file's size */
    int64_t mtime;      /* seconds since the epoch */
    bool header_ok;     /* magic, version, key and length agree (payload not hashed) */
} cute_cache_entry;

/* Calls fn for each entry file (temporary files and others' files are skipped); fn
 * returning non-zero stops.  False when the directory cannot be read. */
bool cute_cache_list(cute_cache *c, int (*fn)(const cute_cache_entry *e, void *user), void *user);
/* Total bytes and count of cutec's files in the directory (entries, artifacts, debris). */
bool cute_cache_size(cute_cache *c, uint64_t *bytes, uint64_t *files);
/* Deletes cutec's files (entries, CUTEC_KEEP artifacts, temporary debris, the compiler
 * memo, and any FIFO or link bearing one of their names; never a directory) and nothing
 * else; the memory map too.  *removed counts the files deleted. */
bool cute_cache_clear(cute_cache *c, uint64_t *removed);

CUTE_API_END
#endif
