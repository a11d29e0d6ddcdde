/* Internal: the parts of cute_export (export.c writes the files, export_tables.c the
 * tables of the launcher). */
#ifndef CUTEC_JIT_EXPORT_INTERNAL_H
#define CUTEC_JIT_EXPORT_INTERNAL_H

#include <stdio.h>

#include "jit_internal.h"

#define EXPORT_MAX_KERNELS 8 /* the kernels of one launcher (its module's CUfunctions) */

/* the tables of f's launcher named `name`, after nimages images named name_images */
bool export_tables(FILE *o, const cute_fn *f, const char *name, int nimages, char *err, size_t n);

#endif
