/* src_tracepoint.c: reads the instance's trace_pipe_raw per CPU into a pool
 * of sub-buffers and walks them in place (ringpage.h), without copying events. */
#include "src_tracepoint.h"

#include "instance.h"
#include "log.h"
#include "record.h"
#include "ringpage.h"

#include <errno.h>
#include <event-parse.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

struct cpu_ring {
	struct ltap_stream s; /* first: the loop sees a struct ltap_stream */
	struct ringpage rp;
	int long_size;
	char **pages;  /* ring of pool pages: [head, head + count) hold data */
	char *pool;    /* the pages, one block: untouched (no page faults) until used */
	int head, count, cap;
	int loaded;    /* pages[head] is loaded in rp */
	int subbuf;
	int64_t clock_offset;
	char stats_path[256];
	struct ltap_recorder *rec;
};

struct ltap_tpsrc {
	int nr;
	struct cpu_ring *rings;
	struct ltap_stream **streams;
};

static void ring_advance(struct ltap_stream *s)
{
	struct cpu_ring *r = (struct cpu_ring *)s;
	const void *data;
	int size;

	if (r->loaded) {
		data = ringpage_next(&r->rp, &size);
		if (data)
			goto got;
		/* page consumed: give it back to the pool */
		r->loaded = 0;
		r->head = (r->head + 1) % r->cap;
		r->count--;
	}
	while (r->count > 0) {
		ringpage_load(&r->rp, r->pages[r->head], r->long_size, (unsigned)r->subbuf);
		if (r->rp.missed > 0)
			r->s.lost += (uint64_t)r->rp.missed;
		r->loaded = 1;
		data = ringpage_next(&r->rp, &size);
		if (data)
			goto got;
		r->loaded = 0;
		r->head = (r->head + 1) % r->cap;
		r->count--;
	}
	r->s.has = 0;
	return;
got:
	r->s.has = 1;
	r->s.cur.ts = r->rp.ts + (uint64_t)r->clock_offset;
	r->s.cur.data = data;
	r->s.cur.size = size;
}

static int ring_fill(struct ltap_stream *s)
{
	struct cpu_ring *r = (struct cpu_ring *)s;

	while (r->count < r->cap) {
		char *page = r->pages[(r->head + r->count) % r->cap];
		ssize_t n = read(r->s.fd, page, (size_t)r->subbuf);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			return -errno;
		}
		if (n == 0)
			break;
		if (r->rec)
			ltap_recorder_page(r->rec, r->s.cpu, page);
		r->count++;
	}
	if (!r->s.has)
		ring_advance(s);
	return 0;
}

static const struct ltap_stream_ops ring_ops = {
	.fill = ring_fill,
	.advance = ring_advance,
};

static int tpsrc_subbuf_size(struct ltap_instance *inst)
{
	char path[512];
	FILE *f;
	int kb = 0;

	/* kernels from 6.8 on may use sub-buffers larger than a page */
	if (ltap_instance_path(inst, "buffer_subbuf_size_kb", path, sizeof path) == 0 &&
	    (f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%d", &kb) != 1)
			kb = 0;
		fclose(f);
	}
	return kb > 0 ? kb * 1024 : getpagesize();
}

struct ltap_tpsrc *ltap_tpsrc_open(struct ltap_instance *inst, struct tep_handle *tep,
				   int pool_pages, int64_t clock_offset)
{
	struct ltap_tpsrc *src = calloc(1, sizeof *src);
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	int subbuf = tpsrc_subbuf_size(inst);

	if (!src)
		return NULL;
	src->rings = calloc((size_t)ncpu, sizeof *src->rings);
	src->streams = calloc((size_t)ncpu, sizeof *src->streams);
	if (!src->rings || !src->streams)
		goto fail;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct cpu_ring *r = &src->rings[src->nr];
		char file[64], path[512];
		int fd;

		snprintf(file, sizeof file, "per_cpu/cpu%d/trace_pipe_raw", cpu);
		if (ltap_instance_path(inst, file, path, sizeof path) != 0)
			goto fail;
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue; /* offline or absent CPU */
			ltap_err("tracepoint: cannot open %s: %s", path, strerror(errno));
			goto fail;
		}
		r->s.ops = &ring_ops;
		r->s.fd = fd;
		r->s.cpu = cpu;
		r->s.cur.cpu = cpu; /* every record of this ring: set once */
		r->subbuf = subbuf;
		r->clock_offset = clock_offset;
		r->cap = pool_pages;
		snprintf(file, sizeof file, "per_cpu/cpu%d/stats", cpu);
		ltap_instance_path(inst, file, r->stats_path, sizeof r->stats_path);
		r->long_size = tep_get_header_page_size(tep);
		if (r->long_size != 4 && r->long_size != 8)
			r->long_size = (int)sizeof(long);
		r->pages = calloc((size_t)r->cap, sizeof *r->pages);
		r->pool = malloc((size_t)r->cap * (size_t)subbuf);
		src->nr++;
		if (!r->pages || !r->pool)
			goto fail;
		for (int i = 0; i < r->cap; i++)
			r->pages[i] = r->pool + (size_t)i * (size_t)subbuf;
		src->streams[src->nr - 1] = &r->s;
	}
	return src;
fail:
	ltap_tpsrc_close(src);
	return NULL;
}

void ltap_tpsrc_close(struct ltap_tpsrc *src)
{
	if (!src)
		return;
	for (int i = 0; i < src->nr; i++) {
		struct cpu_ring *r = &src->rings[i];
		if (r->s.fd >= 0)
			close(r->s.fd);
		free(r->pool);
		free(r->pages);
	}
	free(src->rings);
	free(src->streams);
	free(src);
}

int ltap_tpsrc_streams(struct ltap_tpsrc *src, struct ltap_stream ***streams)
{
	*streams = src->streams;
	return src->nr;
}

/* the sum of the given counters of the ring's per_cpu stats file */
static uint64_t ring_stats(struct cpu_ring *r, const char *const *keys)
{
	unsigned long long sum = 0, v;
	char line[128];
	FILE *f = fopen(r->stats_path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		for (const char *const *k = keys; *k; k++)
			if (strcmp(line, *k) == 0 && sscanf(colon + 1, "%llu", &v) == 1)
				sum += v;
	}
	fclose(f);
	return sum;
}

uint64_t ltap_tpsrc_dropped(struct ltap_tpsrc *src, int idx)
{
	static const char *const keys[] = {"dropped events", "overrun", NULL};
	struct cpu_ring *r = &src->rings[idx];
	uint64_t dropped = ring_stats(r, keys);
	return dropped > r->s.lost ? dropped : r->s.lost;
}

uint64_t ltap_tpsrc_read_events(struct ltap_tpsrc *src, int idx)
{
	static const char *const keys[] = {"read events", NULL};
	return ring_stats(&src->rings[idx], keys);
}

void ltap_tpsrc_record(struct ltap_tpsrc *src, struct ltap_recorder *rec)
{
	for (int i = 0; i < src->nr; i++)
		src->rings[i].rec = rec;
}

size_t ltap_tpsrc_subbuf_size(struct ltap_tpsrc *src)
{
	return src->nr ? (size_t)src->rings[0].subbuf : (size_t)getpagesize();
}
