/* record.c: a trace.dat v6 writer over the sub-buffers of a live run. */
#include "record.h"

#include "log.h"
#include "src_replay.h"
#include "tracefs_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OPTION_DONE 0
#define OPTION_TRACECLOCK 4
#define OPTION_OFFSET 7
#define TRACE_CLOCK "[local]" /* the instance's ring clock (instance.c) */

struct ltap_recorder {
	char *path;
	int ncpu;
	size_t page_size;
	int *fds;          /* per CPU: unlinked temp files of raw pages */
	uint64_t *sizes;
};

struct ltap_recorder *ltap_recorder_open(const char *path, int ncpu, size_t page_size)
{
	struct ltap_recorder *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	r->path = strdup(path);
	r->ncpu = ncpu;
	r->page_size = page_size;
	r->fds = calloc((size_t)ncpu, sizeof *r->fds);
	r->sizes = calloc((size_t)ncpu, sizeof *r->sizes);
	if (!r->path || !r->fds || !r->sizes) {
		ltap_recorder_abort(r);
		return NULL;
	}
	for (int i = 0; i < ncpu; i++)
		r->fds[i] = -1;
	for (int i = 0; i < ncpu; i++) {
		char tmp[4200];
		snprintf(tmp, sizeof tmp, "%s.cpu%d.XXXXXX", path, i);
		r->fds[i] = mkstemp(tmp);
		if (r->fds[i] < 0) {
			ltap_err("record: cannot create %s: %s", tmp, strerror(errno));
			ltap_recorder_abort(r);
			return NULL;
		}
		unlink(tmp);
	}
	return r;
}

void ltap_recorder_abort(struct ltap_recorder *r)
{
	if (!r)
		return;
	for (int i = 0; r->fds && i < r->ncpu; i++)
		if (r->fds[i] >= 0)
			close(r->fds[i]);
	free(r->fds);
	free(r->sizes);
	free(r->path);
	free(r);
}

int ltap_recorder_page(struct ltap_recorder *r, int cpu, const void *page)
{
	if (cpu < 0 || cpu >= r->ncpu)
		return -EINVAL;
	if (write(r->fds[cpu], page, r->page_size) != (ssize_t)r->page_size)
		return -errno;
	r->sizes[cpu] += r->page_size;
	return 0;
}

/* ------------------------------------------------------------ the header */

struct out {
	FILE *f;
	int err;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (!o->err && fwrite(p, 1, n, o->f) != n)
		o->err = errno ? errno : EIO;
}

static void put4(struct out *o, uint32_t v) { put(o, &v, 4); }
static void put8(struct out *o, uint64_t v) { put(o, &v, 8); }
static void put2(struct out *o, uint16_t v) { put(o, &v, 2); }

/* a tracefs file as an 8-byte size and its bytes */
static int put_file8(struct out *o, const char *rel)
{
	size_t len;
	char *s = ltap_tracefs_read(rel, &len);
	if (!s)
		return -1;
	put8(o, len);
	put(o, s, len);
	free(s);
	return 0;
}

static int event_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Systems and their event formats; the ftrace system goes in its own section. */
static int put_formats(struct out *o, const char *const *events, int n)
{
	const char **sorted = calloc((size_t)n + 1, sizeof *sorted);
	int nsys = 0, i, nftrace = 0;

	if (!sorted)
		return -1;
	for (i = 0; i < n; i++)
		sorted[i] = events[i];
	qsort(sorted, (size_t)n, sizeof *sorted, event_cmp);
	/* ftrace formats: print, for markers */
	for (i = 0; i < n; i++)
		nftrace += strncmp(sorted[i], "ftrace/", 7) == 0;
	put4(o, (uint32_t)nftrace);
	for (i = 0; i < n; i++) {
		char rel[300];
		if (strncmp(sorted[i], "ftrace/", 7) != 0)
			continue;
		snprintf(rel, sizeof rel, "events/%s/format", sorted[i]);
		if (put_file8(o, rel))
			goto fail;
	}
	for (i = 0; i < n; i++)
		if (strncmp(sorted[i], "ftrace/", 7) != 0 &&
		    (i == 0 || strcspn(sorted[i], "/") != strcspn(sorted[i - 1], "/") ||
		     strncmp(sorted[i], sorted[i - 1], strcspn(sorted[i], "/")) != 0))
			nsys++;
	put4(o, (uint32_t)nsys);
	for (i = 0; i < n;) {
		size_t sl = strcspn(sorted[i], "/");
		int j = i, count;
		if (strncmp(sorted[i], "ftrace/", 7) == 0) {
			i++;
			continue;
		}
		while (j < n && strcspn(sorted[j], "/") == sl && strncmp(sorted[j], sorted[i], sl) == 0)
			j++;
		count = j - i;
		put(o, sorted[i], sl);
		put(o, "", 1);
		put4(o, (uint32_t)count);
		for (int k = i; k < j; k++) {
			char rel[300];
			snprintf(rel, sizeof rel, "events/%s/format", sorted[k]);
			if (put_file8(o, rel))
				goto fail;
		}
		i = j;
	}
	free(sorted);
	return 0;
fail:
	free(sorted);
	return -1;
}

static int copy_cpu(struct out *o, int fd, uint64_t size)
{
	char buf[65536];
	uint64_t done = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	while (done < size) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n <= 0)
			return -1;
		put(o, buf, (size_t)n);
		done += (uint64_t)n;
	}
	return o->err ? -1 : 0;
}

int ltap_recorder_close(struct ltap_recorder *r, const char *const *events, int nevents,
			const char *cmdlines, int64_t ts_offset)
{
	struct out o = {0};
	char offset[32];
	long pos;
	uint64_t data_at;
	int rc = -1;

	o.f = fopen(r->path, "wb");
	if (!o.f) {
		ltap_err("record: cannot create %s: %s", r->path, strerror(errno));
		ltap_recorder_abort(r);
		return -1;
	}
	put(&o, LTAP_TRACEDAT_MAGIC, 10);
	put(&o, "6", 2);
	put(&o, "\0", 1);                 /* little endian */
	put(&o, &(char){(char)sizeof(long)}, 1);
	put4(&o, (uint32_t)r->page_size);
	put(&o, "header_page", 12);
	if (put_file8(&o, "events/header_page"))
		goto out;
	put(&o, "header_event", 13);
	if (put_file8(&o, "events/header_event"))
		goto out;
	if (put_formats(&o, events, nevents))
		goto out;
	put4(&o, 0); /* kallsyms */
	put4(&o, 0); /* printk formats */
	put8(&o, strlen(cmdlines));
	put(&o, cmdlines, strlen(cmdlines));
	put4(&o, (uint32_t)r->ncpu);
	put(&o, "options  ", 10);
	/* as trace-cmd writes it: no data; the clock's name follows the CPUs'
	 * data offsets (below) */
	put2(&o, OPTION_TRACECLOCK);
	put4(&o, 0);
	snprintf(offset, sizeof offset, "%lld", (long long)ts_offset);
	put2(&o, OPTION_OFFSET);
	put4(&o, (uint32_t)strlen(offset) + 1);
	put(&o, offset, strlen(offset) + 1);
	put2(&o, OPTION_DONE);
	put(&o, "flyrecord", 10);
	pos = ftell(o.f) + (long)r->ncpu * 16 + 8 + (long)strlen(TRACE_CLOCK);
	data_at = ((uint64_t)pos + r->page_size - 1) / r->page_size * r->page_size;
	for (int i = 0; i < r->ncpu; i++) {
		put8(&o, data_at);
		put8(&o, r->sizes[i]);
		data_at += r->sizes[i];
	}
	/* With the trace clock option a reader takes the 8 bytes after the
	 * offsets as the size of the clock's name (trace-cmd's save_clock):
	 * without them it read padding, or when the offsets ended within 8
	 * bytes of a page, the first page's timestamp as a size of petabytes
	 * (libtracecmd's malloc failed, and under ASan ended the reader). */
	put8(&o, strlen(TRACE_CLOCK));
	put(&o, TRACE_CLOCK, strlen(TRACE_CLOCK));
	while (!o.err && (uint64_t)ftell(o.f) % r->page_size)
		put(&o, "", 1);
	for (int i = 0; i < r->ncpu && !o.err; i++)
		if (copy_cpu(&o, r->fds[i], r->sizes[i]))
			goto out;
	rc = o.err ? -1 : 0;
out:
	if (fclose(o.f) != 0 && rc == 0)
		rc = -1;
	if (rc)
		ltap_err("record: cannot write %s: %s", r->path, strerror(o.err ? o.err : errno ? errno : EIO));
	ltap_recorder_abort(r);
	return rc;
}
