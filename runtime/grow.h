/* grow.h: room in a growing array (as Lua's luaM_growvector): the one
 * doubling rule for every array and byte buffer the runtime grows. */
#ifndef LTAP_GROW_H
#define LTAP_GROW_H

#include <stddef.h>

/* Makes *(T **)pp, an array of *cap elements of size bytes, hold at least
 * need: its capacity doubled from first (or from *cap) until it does.
 * 0, or -ENOMEM with the array and *cap unchanged. */
int ltap_grow(void *pp, size_t *cap, size_t need, size_t size, size_t first);

#endif
