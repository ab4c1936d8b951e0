/* sort.c: see sort.h. The heap is kept with the element that comes last at
 * its root, so a top-N offer is one comparison for most elements. */
#include "sort.h"

#include <string.h>

#define SORT_MAX_SIZE 64
#define SORT_SMALL 16 /* runs this short are sorted by insertion */

#define AT(i) (base + (i) * size)

static void swap(char *x, char *y, size_t size)
{
	char t[SORT_MAX_SIZE];

	memcpy(t, x, size);
	memcpy(x, y, size);
	memcpy(y, t, size);
}

/* restores the heap below i: no element comes after its parent */
static void sift_down(char *base, size_t i, size_t n, size_t size, ltap_before_fn before, void *ctx)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			return;
		if (c + 1 < n && before(AT(c), AT(c + 1), ctx))
			c++;
		if (!before(AT(i), AT(c), ctx))
			return;
		swap(AT(i), AT(c), size);
		i = c;
	}
}

/* a heap in order: its root (the last) to the end, again and again */
static void heap_unwind(char *base, size_t n, size_t size, ltap_before_fn before, void *ctx)
{
	while (n > 1) {
		n--;
		swap(base, AT(n), size);
		sift_down(base, 0, n, size, before, ctx);
	}
}

static void heap_sort(char *base, size_t n, size_t size, ltap_before_fn before, void *ctx)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(base, i, n, size, before, ctx);
	heap_unwind(base, n, size, before, ctx);
}

static void insertion_sort(char *base, size_t n, size_t size, ltap_before_fn before, void *ctx)
{
	char t[SORT_MAX_SIZE];

	for (size_t i = 1; i < n; i++) {
		size_t j = i;
		if (!before(AT(i), AT(i - 1), ctx))
			continue;
		memcpy(t, AT(i), size);
		do {
			memcpy(AT(j), AT(j - 1), size);
			j--;
		} while (j > 0 && before(t, AT(j - 1), ctx));
		memcpy(AT(j), t, size);
	}
}

/* Quicksort on the median of three (the first and last then bound both
 * scans), the smaller side first; a heap sort past depth levels. */
static void intro_sort(char *base, size_t n, size_t size, ltap_before_fn before, void *ctx, int depth)
{
	while (n > SORT_SMALL) {
		size_t mid = n / 2, i = 0, j = n - 2;
		char *pivot;

		if (depth-- == 0) {
			heap_sort(base, n, size, before, ctx);
			return;
		}
		if (before(AT(mid), AT(0), ctx))
			swap(AT(mid), AT(0), size);
		if (before(AT(n - 1), AT(mid), ctx)) {
			swap(AT(n - 1), AT(mid), size);
			if (before(AT(mid), AT(0), ctx))
				swap(AT(mid), AT(0), size);
		}
		swap(AT(mid), AT(n - 2), size);
		pivot = AT(n - 2);
		for (;;) {
			while (before(AT(++i), pivot, ctx))
				;
			while (before(pivot, AT(--j), ctx))
				;
			if (i >= j)
				break;
			swap(AT(i), AT(j), size);
		}
		swap(AT(i), pivot, size);
		/* [0, i) before the pivot, now at i, then (i, n) */
		if (i < n - i - 1) {
			intro_sort(base, i, size, before, ctx, depth);
			base = AT(i + 1);
			n = n - i - 1;
		} else {
			intro_sort(AT(i + 1), n - i - 1, size, before, ctx, depth);
			n = i;
		}
	}
	insertion_sort(base, n, size, before, ctx);
}

void ltap_sort(void *base, size_t n, size_t size, ltap_before_fn before, void *ctx)
{
	int depth = 0;

	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	intro_sort(base, n, size, before, ctx, depth);
}

void ltap_topn_offer(void *heap, size_t *n, size_t cap, size_t size, const void *elem, ltap_before_fn before,
		     void *ctx)
{
	char *base = heap;
	size_t i = *n;

	if (i < cap) {
		memcpy(AT(i), elem, size);
		while (i > 0 && before(AT((i - 1) / 2), AT(i), ctx)) {
			swap(AT((i - 1) / 2), AT(i), size);
			i = (i - 1) / 2;
		}
		(*n)++;
	} else if (cap && before(elem, base, ctx)) {
		memcpy(base, elem, size);
		sift_down(base, 0, cap, size, before, ctx);
	}
}

void ltap_topn_finish(void *heap, size_t n, size_t size, ltap_before_fn before, void *ctx)
{
	heap_unwind(heap, n, size, before, ctx);
}
