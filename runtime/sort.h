/* sort.h: ordering an array by a "comes before" function: a full sort in
 * place (introsort: no allocation, O(n log n) at worst), and the first n of
 * a stream kept in a bounded heap (O(m log n) for m elements) for top-N
 * reports, which then never hold or sort what they do not show. */
#ifndef LTAP_SORT_H
#define LTAP_SORT_H

#include <stddef.h>

/* non-zero when x comes before y; a strict order (never both ways) */
typedef int (*ltap_before_fn)(const void *x, const void *y, void *ctx);

/* n elements of size bytes (at most 64) at base, in order */
void ltap_sort(void *base, size_t n, size_t size, ltap_before_fn before, void *ctx);

/* The first cap elements of a stream: heap holds room for cap elements, *n
 * of them used (0 at the start). Offers elem: kept (copied in) when fewer
 * than cap are held or when it comes before the last one held. */
void ltap_topn_offer(void *heap, size_t *n, size_t cap, size_t size, const void *elem, ltap_before_fn before,
		     void *ctx);
/* The elements held, in order, after the last offer. */
void ltap_topn_finish(void *heap, size_t n, size_t size, ltap_before_fn before, void *ctx);

#endif
