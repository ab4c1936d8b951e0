/* ring.h: a perf_event mmap ring buffer, read in place. A record that wraps
 * around the end of the ring is copied into one scratch buffer. */
#ifndef LTAP_RING_H
#define LTAP_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct ltap_ring {
	struct perf_event_mmap_page *meta;
	char *data;
	size_t size, map_size; /* data area (a power of two), whole mapping */
	uint64_t head, tail;   /* head as last read; tail: end of the records handed out */
	char *scratch;
	size_t scratch_cap;
};

/* Maps data_pages (a power of two) pages of data after the control page. */
int ltap_ring_map(struct ltap_ring *r, int fd, size_t data_pages);
void ltap_ring_unmap(struct ltap_ring *r);
/* Reads the kernel's head (acquire): records written up to now become visible. */
void ltap_ring_refresh(struct ltap_ring *r);
/* The next record, valid until the following call, or NULL when none is
 * left before head. Hands the previous record back to the kernel (release). */
const struct perf_event_header *ltap_ring_next(struct ltap_ring *r);

#endif
