/* merge.h: sorting an array whose head is sorted already (kallsyms: the
 * kernel's symbols, then the modules'; a symbol table, then its PLT
 * entries): the tail alone is sorted, then merged in, O(n) instead of a
 * sort of the whole. */
#ifndef LTAP_MERGE_H
#define LTAP_MERGE_H

#include <stddef.h>

/* Sorts base[0..n) (elements of size bytes) by cmp, given that base[0..head)
 * is sorted; of elements that compare equal, those of the head come first.
 * 0, or -ENOMEM with only the tail sorted. */
int ltap_merge_tail(void *base, size_t head, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* How many elements from the start are in order (never less than 1 when n). */
size_t ltap_sorted_head(const void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
