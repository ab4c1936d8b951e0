/* alloc.h: the allocator runtime objects that hold a script's data take, so
 * that data counts against the script's memory limit (bindings/memory.c). */
#ifndef LTAP_ALLOC_H
#define LTAP_ALLOC_H

#include <stddef.h>

/* realloc(ptr, nsize) that knows the old size (osize, 0 for ptr NULL);
 * nsize 0 frees. NULL when refused. lua_Alloc's contract. */
typedef void *(*ltap_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

#endif
