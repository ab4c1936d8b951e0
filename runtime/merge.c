/* merge.c: the tail sorted with qsort, copied out, then merged from the
 * back, so the head moves only into room already merged. */
#include "merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t ltap_sorted_head(const void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	const char *b = base;
	size_t i = 1;

	while (i < n && cmp(b + (i - 1) * size, b + i * size) <= 0)
		i++;
	return n ? i : 0;
}

int ltap_merge_tail(void *base, size_t head, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *b = base, *tail;
	size_t a = head, t = n - head, o = n;

	if (head >= n)
		return 0;
	qsort(b + head * size, n - head, size, cmp);
	if (!head || cmp(b + (head - 1) * size, b + head * size) <= 0)
		return 0;
	if (!(tail = malloc(t * size)))
		return -ENOMEM;
	memcpy(tail, b + head * size, t * size);
	while (t > 0) {
		o--;
		/* on a tie the tail's element goes last: it came later */
		if (a > 0 && cmp(b + (a - 1) * size, tail + (t - 1) * size) > 0)
			memcpy(b + o * size, b + --a * size, size);
		else
			memcpy(b + o * size, tail + --t * size, size);
	}
	free(tail);
	return 0;
}
