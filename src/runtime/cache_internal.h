/* cache_internal.h — the cache's files: names, the entry format, atomic writes.
 * cache.c holds the handle and the memory map; cache_file.c the disk. */
#ifndef CUTEC_RUNTIME_CACHE_INTERNAL_H
#define CUTEC_RUNTIME_CACHE_INTERNAL_H

#include <sys/stat.h>

#include "cutec/cache.h"

/* Entry file: every integer little-endian.
 *   0  magic "CUTECJIT"        8 bytes
 *   8  format version          u32  (CACHE_FORMAT; a change makes old entries misses)
 *  12  header size             u32  (CACHE_HEADER_BYTES)
 *  16  key                     32 bytes
 *  48  payload length          u64
 *  56  SHA-256 of the payload  32 bytes
 *  88  payload */
#define CACHE_MAGIC "CUTECJIT"
#define CACHE_FORMAT 1u
#define CACHE_HEADER_BYTES 88u
#define CACHE_ENTRY_EXT ".cutec"
#define CACHE_TEMP_PREFIX ".cutec-tmp."
#define CACHE_MEMO_NAME "nvrtc-id" /* the compiler's identity (cuda_backend.c) */
/* no entry is larger: a cubin and its PTX are a few MB; a file claiming more is not ours */
#define CACHE_MAX_PAYLOAD ((uint64_t)64 << 20)

typedef enum {
    CACHE_FILE_OTHER,    /* not cutec's: never touched */
    CACHE_FILE_ENTRY,    /* <64 hex>.cutec */
    CACHE_FILE_ARTIFACT, /* <64 hex>.{cu,ptx,cubin,sass}: CUTEC_KEEP's */
    CACHE_FILE_TEMP,     /* .cutec-tmp.*: a write in progress, or a crashed writer's debris */
    CACHE_FILE_MEMO,     /* nvrtc-id (and nvrtc-id.<pid>.tmp, older versions' debris) */
} cache_file_kind;

/* what a directory entry's name says it is; the key of entries and artifacts into *key */
cache_file_kind cache_file_classify(const char *name, cute_cache_key *key);
/* the first 64 characters of hex (checked by the caller to be hex digits) -> key */
void cache_key_from_hex(const char *hex, cute_cache_key *k);

/* mkdir -p, new directories 0700 (they hold code the GPU will run) */
bool cache_mkdirs(const char *dir, char *err, size_t n);
/* Is dir a directory that only this user can write (owned by the user, no write bit for
 * group or others)?  Only then can nobody else plant an entry in it.  False with why and
 * what to do in err. */
bool cache_dir_trusted(const char *dir, char *err, size_t n);

/* Open path for reading only if it is what cutec writes: a regular file owned by this user
 * of at most max bytes.  Never follows a symbolic link, never waits on a FIFO.  -1 with
 * *why NULL when it cannot be opened (errno says why: ENOENT for a missing file), or -1 with
 * *why saying what it is instead. */
int cache_open_regular(const char *path, uint64_t max, struct stat *st, const char **why);
/* Remove an untrusted path of ours (a FIFO, a symbolic link, another's file; a directory
 * only when empty); false when it is still there. */
bool cache_discard(const char *path);

/* Write head then body to dir/name through a temporary file (named with `unique`),
 * fsync, rename.  False with the reason in err. */
bool cache_write_atomic(const char *dir, const char *name, uint64_t unique, const void *head,
                        size_t nhead, const void *body, size_t nbody, char *err, size_t n);

typedef enum {
    CACHE_READ_OK,
    CACHE_READ_MISSING,
    CACHE_READ_CORRUPT, /* deleted (when still the same file); err says what was wrong */
    CACHE_READ_IOERR,
} cache_read_result;

bool cache_entry_write(const char *dir, const cute_cache_key *k, uint64_t unique, const void *bytes,
                       size_t len, char *err, size_t n);
cache_read_result cache_entry_read(const char *dir, const cute_cache_key *k, void **bytes,
                                   size_t *len, char *err, size_t n);
void cache_entry_unlink(const char *dir, const cute_cache_key *k);
/* the header of path agrees with key and the file's size (the payload is not hashed) */
bool cache_entry_header_ok(const char *path, const cute_cache_key *k);

/* the compiler memo (CACHE_MEMO_NAME in the cache directory): a line of text */
bool cache_memo_read(cute_cache *c, char *buf, size_t n);
bool cache_memo_write(cute_cache *c, const char *text);

/* drop the memory map (cute_cache_clear) */
void cache_forget_memory(cute_cache *c);

/* cute_keep_parse, and the first word of the list it does not know into unknown ("" if none) */
unsigned cache_keep_parse_checked(const char *list, char *unknown, size_t n);

#endif
