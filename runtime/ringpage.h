/* ringpage.h: walks one sub-buffer of the kernel's ring buffer (the pages
 * trace_pipe_raw hands out), in place.
 *
 * This is what libtraceevent's kbuffer does, cut to the live case: same
 * byte order as the kernel, no old-format pages. kbuffer costs ~40 ns per
 * event through its indirect readers; this walk is a few ns, and the hot path
 * has a budget of 150 ns in all (bench/README.md). The layout is the kernel's
 * (kernel/trace/ring_buffer.c): a header {u64 time stamp; long commit;} and
 * events of a 4-byte header {type_len:5, time_delta:27} plus data. */
#ifndef LTAP_RINGPAGE_H
#define LTAP_RINGPAGE_H

#include <stdint.h>
#include <string.h>

enum {
	RP_TYPE_PADDING = 29,
	RP_TYPE_TIME_EXTEND = 30,
	RP_TYPE_TIME_STAMP = 31,
};

#define RP_TS_SHIFT 27
#define RP_TS_MSB (0xf8ull << 56)
#define RP_COMMIT_MASK ((1u << 27) - 1)
#define RP_MISSED_EVENTS (1ull << 31)
#define RP_MISSED_STORED (1ull << 30)

struct ringpage {
	const char *data; /* first event */
	unsigned size;    /* bytes of events */
	unsigned next;    /* offset of the next event header */
	uint64_t ts;      /* time of the last event read */
	long missed;      /* events lost before this page, -1 if unknown */
};

static inline uint32_t rp_read4(const char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* long_size is the kernel's sizeof(long) (the commit field's width): 4 or
 * 8. page_size: the bytes read; fewer than a header give an empty page. */
static inline void ringpage_load(struct ringpage *rp, const char *page, int long_size,
				 unsigned page_size)
{
	uint64_t flags = 0;
	unsigned start = 8 + (unsigned)long_size;

	if (page_size < start) {
		memset(rp, 0, sizeof *rp);
		rp->data = page;
		return;
	}
	memcpy(&rp->ts, page, 8);
	memcpy(&flags, page + 8, (size_t)long_size);
	rp->data = page + start;
	rp->size = (unsigned)flags & RP_COMMIT_MASK;
	if (rp->size > page_size - start)
		rp->size = page_size - start; /* a corrupt page: read no further */
	rp->next = 0;
	rp->missed = 0;
	if (flags & RP_MISSED_EVENTS) {
		rp->missed = -1;
		if ((flags & RP_MISSED_STORED) && start + rp->size + (unsigned)long_size <= page_size) {
			uint64_t n = 0;
			memcpy(&n, rp->data + rp->size, (size_t)long_size);
			rp->missed = (long)n;
		}
	}
}

/* The next data event: its bytes and size, with rp->ts its time. NULL at the
 * end of the page, or at the first length that does not fit in it (a damaged
 * page: the rest of it is not read). Lengths are checked against the bytes
 * left, never added first: a length from the page cannot wrap the offset. */
static inline const void *ringpage_next(struct ringpage *rp, int *size)
{
	while (rp->next + 4 <= rp->size) {
		const char *p = rp->data + rp->next;
		unsigned left = rp->size - rp->next; /* from this header on */
		uint32_t h = rp_read4(p);
		unsigned type_len = h & 31, len;
		uint64_t delta = h >> 5;

		switch (type_len) {
		case RP_TYPE_PADDING:
			/* array[0]: the bytes after the header */
			if (left < 8 || rp_read4(p + 4) > left - 4)
				return NULL;
			rp->ts += delta;
			rp->next += 4 + rp_read4(p + 4);
			if (delta == 0)
				return NULL; /* the rest of the page is unused */
			continue;
		case RP_TYPE_TIME_EXTEND:
		case RP_TYPE_TIME_STAMP:
			if (left < 8)
				return NULL;
			delta |= (uint64_t)rp_read4(p + 4) << RP_TS_SHIFT;
			if (type_len == RP_TYPE_TIME_STAMP)
				rp->ts = delta | (rp->ts & RP_TS_MSB);
			else
				rp->ts += delta;
			rp->next += 8;
			continue;
		case 0:
			/* array[0] counts itself and the data: 4 or less, no data,
			 * which no event has (its common fields are 8 bytes) */
			if (left < 8)
				return NULL;
			len = rp_read4(p + 4);
			if (len <= 4 || len - 4 > left - 8)
				return NULL;
			len = (len - 4 + 3) & ~3u;
			if (len > left - 8)
				return NULL;
			p += 8;
			rp->next += 8 + len;
			break;
		default:
			len = type_len * 4;
			if (len > left - 4)
				return NULL;
			p += 4;
			rp->next += 4 + len;
			break;
		}
		rp->ts += delta;
		*size = (int)len;
		return p;
	}
	return NULL;
}

#endif
