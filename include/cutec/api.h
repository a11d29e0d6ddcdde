/* cutec/api.h — what every public header shares: the library's version and which names the
 * shared library exports.
 *
 * The library is built with -fvisibility=hidden: a function is exported from libcutec.so
 * only when it is declared between CUTE_API_BEGIN and CUTE_API_END, which every public
 * header puts around its declarations.  Functions declared in src/ (internal headers) stay
 * inside the library, so `nm -D libcutec.so` lists only the cute_/cutec_ API.
 */
#ifndef CUTEC_API_H
#define CUTEC_API_H

/* the shared library is libcutec.so.MAJOR (its soname), libcutec.so.MAJOR.MINOR.PATCH */
#define CUTEC_VERSION_MAJOR 0
#define CUTEC_VERSION_MINOR 1
#define CUTEC_VERSION_PATCH 0

#if defined(__GNUC__) || defined(__clang__)
#define CUTE_API_BEGIN _Pragma("GCC visibility push(default)")
#define CUTE_API_END _Pragma("GCC visibility pop")
#else
#define CUTE_API_BEGIN
#define CUTE_API_END
#endif

#endif
