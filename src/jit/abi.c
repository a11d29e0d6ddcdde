/* The sizes of the structures bindings mirror (python/cutec/_lib.py checks its ctypes
 * copies against them at import, so that a layout change fails loudly, not silently). */
#include <string.h>

#include "cutec/jit.h"

size_t cute_abi_sizeof(const char *type)
{
    static const struct { const char *name; size_t size; } sizes[] = {
        {"cute_call_arg", sizeof(cute_call_arg)},
        {"cute_buffer", sizeof(cute_buffer)},
        {"cute_dlpack_tensor", sizeof(cute_dlpack_tensor)},
        {"cute_backend_vtable", sizeof(cute_backend_vtable)},
    };
    for (size_t i = 0; type && i < sizeof sizes / sizeof *sizes; i++)
        if (!strcmp(sizes[i].name, type)) return sizes[i].size;
    return 0;
}
