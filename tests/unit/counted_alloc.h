/* counted_alloc.h: an allocator with lua_Alloc's contract that counts the
 * bytes held (back to zero after a test frees everything) and refuses any
 * growth past a limit the test sets, as a script's memory limit would. */
#ifndef LTAP_TEST_COUNTED_ALLOC_H
#define LTAP_TEST_COUNTED_ALLOC_H

#include <stddef.h>
#include <stdlib.h>

static size_t used;
static size_t limit = (size_t)-1;

static void *counted_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	(void)ud;
	if (!ptr)
		osize = 0;
	if (nsize == 0) {
		free(ptr);
		used -= osize;
		return NULL;
	}
	if (nsize > osize && used + (nsize - osize) > limit)
		return NULL;
	ptr = realloc(ptr, nsize);
	if (ptr)
		used = used - osize + nsize;
	return ptr;
}

#endif
