/* ring.c: reads a perf mmap ring: acquire on data_head, release on data_tail
 * only once the record handed out before has been used. */
#include "ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int ltap_ring_map(struct ltap_ring *r, int fd, size_t data_pages)
{
	size_t page = (size_t)getpagesize();
	void *m;

	memset(r, 0, sizeof *r);
	r->map_size = (data_pages + 1) * page;
	m = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		r->map_size = 0;
		return -errno;
	}
	r->meta = m;
	r->data = (char *)m + page;
	r->size = data_pages * page;
	r->head = r->tail = __atomic_load_n(&r->meta->data_tail, __ATOMIC_ACQUIRE);
	return 0;
}

void ltap_ring_unmap(struct ltap_ring *r)
{
	if (r->map_size)
		munmap(r->meta, r->map_size);
	free(r->scratch);
	memset(r, 0, sizeof *r);
}

void ltap_ring_refresh(struct ltap_ring *r)
{
	if (r->map_size)
		r->head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
}

const struct perf_event_header *ltap_ring_next(struct ltap_ring *r)
{
	const struct perf_event_header *h;
	size_t off, size;

	if (!r->map_size)
		return NULL;
	__atomic_store_n(&r->meta->data_tail, r->tail, __ATOMIC_RELEASE);
	if (r->head - r->tail < sizeof *h)
		return NULL;
	off = (size_t)(r->tail & (r->size - 1));
	h = (const void *)(r->data + off);
	size = h->size;
	if (size < sizeof *h || size > r->head - r->tail)
		return NULL; /* cannot happen with a sane kernel: stop rather than loop */
	if (off + size > r->size) {
		size_t first = r->size - off;
		if (size > r->scratch_cap) {
			char *n = realloc(r->scratch, size);
			if (!n)
				return NULL;
			r->scratch = n;
			r->scratch_cap = size;
		}
		memcpy(r->scratch, r->data + off, first);
		memcpy(r->scratch + first, r->data, size - first);
		h = (const void *)r->scratch;
	}
	r->tail += size;
	return h;
}
