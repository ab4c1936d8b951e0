/* grow.c: see grow.h. */
#include "grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int ltap_grow(void *pp, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t c = *cap ? *cap : first;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (c > SIZE_MAX / size)
		return -ENOMEM;
	memcpy(&p, pp, sizeof p);
	if (!(p = realloc(p, c * size)))
		return -ENOMEM;
	memcpy(pp, &p, sizeof p);
	*cap = c;
	return 0;
}
