/* perfdata.c: a perf.data reader for sampled profiles.
 *
 * Layout (perf.data-file-format.txt): a header (magic "PERFILE2", its size,
 * the size of one attribute entry, and the attrs and data sections), the
 * attribute entries (a perf_event_attr, then the section of its sample
 * ids), and the data section: records of perf_event_header {type, misc,
 * size}. Samples are laid out by their attribute's sample_type; the other
 * kernel records end with the sample_id_all fields (pid/tid, time, ...).
 *
 * perf writes the records of each CPU's ring a round at a time, so a
 * mapping and the samples that need it are not in time order in the file:
 * the records are read into a compact list first and handed out sorted by
 * time (perf's ordered events do the same per round).
 *
 * Untrusted input: the header's sections must lie in the file, attribute
 * sizes within bounds, every record at least its header and within the
 * data section, every field read inside its record, strings terminated
 * inside it, counts (callchain, read values) checked against what is left.
 * Compressed (perf record -z) and pipe-mode files are refused by name. */
#include "perfdata.h"
#include "grow.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PERFDATA_MAGIC 0x32454c4946524550ull  /* "PERFILE2" read as a little-endian u64 */
#define PERFDATA_SWAPPED 0x50455246494c4532ull
#define MAX_ATTRS 256
#define MAX_IDS (1u << 20)
#define RECORD_COMPRESSED 81                  /* PERF_RECORD_COMPRESSED, perf's own */
#define CHUNK (1u << 20)

struct file_section {
	uint64_t offset, size;
};

struct attr {
	uint32_t type;
	uint64_t config, sample_type, read_format;
	int sample_id_all;
};

enum { ITEM_MMAP, ITEM_COMM, ITEM_FORK, ITEM_SAMPLE };

/* one record kept for the sort: a sample's figures, or a side-band
 * record's (its path or comm in the string pool) */
struct item {
	uint64_t time;
	uint64_t a, b, c;   /* sample: ip, period, -; mmap: start, len, pgoff */
	uint32_t seq;       /* file order, for equal times */
	int32_t pid, tid;
	uint32_t str;       /* offset in the pool */
	uint8_t kind, flag; /* sample: kernel; comm: exec */
};

struct reader {
	int fd;
	uint64_t file_size;
	struct attr attrs[MAX_ATTRS];
	int nattrs;
	uint64_t *ids;       /* sample id -> attr index, as pairs */
	size_t nids;
	int id_pos;          /* where a sample's id is: 0 none, 1 IDENTIFIER, 2 ID */
	struct item *items;
	size_t nitems, cap;
	char *pool;
	size_t pool_used, pool_cap;
	unsigned char *buf;  /* the data section, a chunk at a time */
	uint64_t buf_start;  /* file offset of buf[0] */
	size_t buf_len;
	char *err;
	size_t errlen;
	struct ltap_perfdata_info *info;
};

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int read_at(struct reader *r, uint64_t off, void *dst, size_t n)
{
	size_t done = 0;

	if (off > r->file_size || n > r->file_size - off)
		return -1;
	while (done < n) {
		ssize_t k = pread(r->fd, (char *)dst + done, n - done, (off_t)(off + done));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		done += (size_t)k;
	}
	return 0;
}

static int section_ok(const struct reader *r, const struct file_section *s)
{
	return s->offset <= r->file_size && s->size <= r->file_size - s->offset;
}

/* ---- attributes ---- */

static int read_attrs(struct reader *r, const struct file_section *attrs, uint64_t attr_size)
{
	unsigned char a[4096];

	if (attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct file_section) || attr_size > sizeof a)
		return fail(r, "damaged perf.data (an attribute of %llu bytes)", (unsigned long long)attr_size);
	if (attrs->size % attr_size || attrs->size / attr_size == 0 || attrs->size / attr_size > MAX_ATTRS)
		return fail(r, "damaged perf.data (an attribute section of %llu bytes)", (unsigned long long)attrs->size);
	r->nattrs = (int)(attrs->size / attr_size);
	for (int i = 0; i < r->nattrs; i++) {
		struct perf_event_attr pa;
		struct file_section ids;
		size_t have = attr_size - sizeof ids;
		if (read_at(r, attrs->offset + (uint64_t)i * attr_size, a, attr_size))
			return fail(r, "cannot read attribute %d", i);
		memset(&pa, 0, sizeof pa);
		memcpy(&pa, a, have < sizeof pa ? have : sizeof pa);
		memcpy(&ids, a + have, sizeof ids);
		r->attrs[i] = (struct attr){pa.type, pa.config, pa.sample_type, pa.read_format, (int)pa.sample_id_all};
		if (!section_ok(r, &ids) || ids.size % 8 || ids.size / 8 > MAX_IDS - r->nids)
			return fail(r, "damaged perf.data (the ids of attribute %d)", i);
		if (ids.size) {
			size_t k = ids.size / 8;
			uint64_t *more = realloc(r->ids, (r->nids + k) * 2 * sizeof *more);
			if (!more)
				return fail(r, "out of memory");
			r->ids = more;
			/* read in one go into the upper half of the new pairs, then spread */
			if (read_at(r, ids.offset, more + 2 * r->nids + k, (size_t)ids.size))
				return fail(r, "cannot read the ids of attribute %d", i);
			for (size_t j = 0; j < k; j++) {
				r->ids[2 * (r->nids + j)] = r->ids[2 * r->nids + k + j];
				r->ids[2 * (r->nids + j) + 1] = (uint64_t)i;
			}
			r->nids += k;
		}
	}
	if (r->nattrs > 1) {
		/* which attribute a sample is of: its id, at one place for all */
		uint64_t st = r->attrs[0].sample_type;
		for (int i = 1; i < r->nattrs; i++)
			if ((r->attrs[i].sample_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID)) !=
			    (st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID)))
				return fail(r, "events of different sample ids: not read");
		r->id_pos = st & PERF_SAMPLE_IDENTIFIER ? 1 : st & PERF_SAMPLE_ID ? 2 : 0;
		if (!r->id_pos)
			return fail(r, "several events without sample ids: not read");
		for (int i = 1; i < r->nattrs; i++)
			if (r->id_pos == 2 && r->attrs[i].sample_type != st)
				return fail(r, "several events of different sample layouts: not read");
	}
	return 0;
}

static int attr_of_id(const struct reader *r, uint64_t id)
{
	for (size_t i = 0; i < r->nids; i++)
		if (r->ids[2 * i] == id)
			return (int)r->ids[2 * i + 1];
	return -1;
}

static void event_name(const struct attr *a, char *out, size_t n)
{
	static const char *const sw[] = {"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults", "alignment-faults", "emulation-faults"};
	static const char *const hw[] = {"cycles", "instructions", "cache-references", "cache-misses",
		"branch-instructions", "branch-misses", "bus-cycles"};

	if (a->type == PERF_TYPE_SOFTWARE && a->config < sizeof sw / sizeof *sw)
		snprintf(out, n, "%s", sw[a->config]);
	else if (a->type == PERF_TYPE_HARDWARE && a->config < sizeof hw / sizeof *hw)
		snprintf(out, n, "%s", hw[a->config]);
	else if (a->type == PERF_TYPE_RAW)
		snprintf(out, n, "r%llx", (unsigned long long)a->config);
	else
		snprintf(out, n, "event %u:%llu", a->type, (unsigned long long)a->config);
}

/* ---- records ---- */

/* a cursor over one record's bytes */
struct cur {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t u64(struct cur *c)
{
	uint64_t v = 0;
	if (c->end - c->p < 8) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static uint32_t u32(struct cur *c)
{
	uint32_t v = 0;
	if (c->end - c->p < 4) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, 4);
	c->p += 4;
	return v;
}

static void skip(struct cur *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = 1;
		c->p = c->end;
	} else {
		c->p += n;
	}
}

/* a string inside the record; NULL when it is not terminated there */
static const char *str(struct cur *c)
{
	const unsigned char *z = c->p < c->end ? memchr(c->p, '\0', (size_t)(c->end - c->p)) : NULL;
	const char *s = (const char *)c->p;

	if (!z) {
		c->bad = 1;
		return NULL;
	}
	c->p = z + 1;
	return s;
}

static int keep_string(struct reader *r, const char *s, uint32_t *at)
{
	size_t n = strlen(s) + 1;

	/* offsets into the pool are 32-bit */
	if (r->pool_used + n > UINT32_MAX / 2 || ltap_grow(&r->pool, &r->pool_cap, r->pool_used + n, 1, 65536))
		return -1;
	memcpy(r->pool + r->pool_used, s, n);
	*at = (uint32_t)r->pool_used;
	r->pool_used += n;
	return 0;
}

static struct item *new_item(struct reader *r)
{
	if (r->nitems >= LTAP_PERFDATA_MAX_RECORDS || ltap_grow(&r->items, &r->cap, r->nitems + 1, sizeof *r->items, 4096))
		return NULL;
	memset(&r->items[r->nitems], 0, sizeof *r->items);
	r->items[r->nitems].seq = (uint32_t)r->nitems;
	return &r->items[r->nitems++];
}

/* The time of a side-band record: from its sample_id_all fields at its end. */
static uint64_t trailer_time(const struct reader *r, const unsigned char *body, size_t len)
{
	const struct attr *a = &r->attrs[0];
	uint64_t st = a->sample_type, after = 0, t = 0;

	if (!a->sample_id_all || !(st & PERF_SAMPLE_TIME))
		return 0;
	after += st & PERF_SAMPLE_ID ? 8 : 0;
	after += st & PERF_SAMPLE_STREAM_ID ? 8 : 0;
	after += st & PERF_SAMPLE_CPU ? 8 : 0;
	after += st & PERF_SAMPLE_IDENTIFIER ? 8 : 0;
	if (len < after + 8)
		return 0;
	memcpy(&t, body + len - after - 8, 8);
	return t;
}

/* the size of a PERF_SAMPLE_READ value by read_format */
static uint64_t read_size(struct cur *c, uint64_t rf)
{
	uint64_t per = 8 + (rf & PERF_FORMAT_ID ? 8 : 0) + (rf & PERF_FORMAT_LOST ? 8 : 0);
	uint64_t times = (rf & PERF_FORMAT_TOTAL_TIME_ENABLED ? 8 : 0) + (rf & PERF_FORMAT_TOTAL_TIME_RUNNING ? 8 : 0);

	if (rf & PERF_FORMAT_GROUP) {
		uint64_t nr = u64(c);
		if (nr > 4096)
			c->bad = 1;
		return times + nr * per;
	}
	return per + times;
}

static int sample_record(struct reader *r, const unsigned char *body, size_t len, uint16_t misc)
{
	struct cur c = {body, body + len, 0};
	const struct attr *a = &r->attrs[0];
	struct item *it;
	uint64_t st, ip = 0, period = 1, time = 0;
	uint32_t pid = 0, tid = 0;
	int ai = 0, have_ip;

	if (r->id_pos) {
		uint64_t id;
		if (r->id_pos == 1) {
			id = u64(&c);
		} else { /* ID after IP, TID, TIME, ADDR (one layout for all: checked) */
			struct cur k = c;
			st = a->sample_type;
			skip(&k, (st & PERF_SAMPLE_IP ? 8 : 0) + (st & PERF_SAMPLE_TID ? 8 : 0) +
				 (st & PERF_SAMPLE_TIME ? 8 : 0) + (st & PERF_SAMPLE_ADDR ? 8 : 0));
			id = u64(&k);
			if (k.bad)
				return fail(r, "damaged perf.data (a sample of %zu bytes)", len + 8);
		}
		ai = attr_of_id(r, id);
		if (ai < 0)
			return 0; /* an id no attribute lists: not one of ours */
		c = (struct cur){body, body + len, 0};
	}
	if (ai != 0) {
		r->info->other++;
		return 0;
	}
	a = &r->attrs[ai];
	st = a->sample_type;
	if (st & PERF_SAMPLE_IDENTIFIER)
		u64(&c);
	have_ip = !!(st & PERF_SAMPLE_IP);
	if (have_ip)
		ip = u64(&c);
	if (st & PERF_SAMPLE_TID) {
		pid = u32(&c);
		tid = u32(&c);
	}
	if (st & PERF_SAMPLE_TIME)
		time = u64(&c);
	if (st & PERF_SAMPLE_ADDR)
		u64(&c);
	if (st & PERF_SAMPLE_ID)
		u64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		u64(&c);
	if (st & PERF_SAMPLE_CPU)
		u64(&c);
	if (st & PERF_SAMPLE_PERIOD)
		period = u64(&c);
	if (st & PERF_SAMPLE_READ)
		skip(&c, read_size(&c, a->read_format));
	if (!have_ip && (st & PERF_SAMPLE_CALLCHAIN)) {
		uint64_t nr = u64(&c);
		if (nr > (uint64_t)(c.end - c.p) / 8)
			c.bad = 1;
		for (uint64_t i = 0; i < nr && !c.bad; i++) {
			uint64_t x = u64(&c);
			if (x < (uint64_t)PERF_CONTEXT_MAX) {
				ip = x;
				have_ip = 1;
				break;
			}
		}
	}
	if (c.bad)
		return fail(r, "damaged perf.data (a sample of %zu bytes too short for its fields)", len + 8);
	if (!have_ip)
		return 0;
	if (!(it = new_item(r)))
		return fail(r, "more than %u records: too large a perf.data", LTAP_PERFDATA_MAX_RECORDS);
	it->kind = ITEM_SAMPLE;
	it->time = time;
	it->a = ip;
	it->b = period ? period : 1;
	it->pid = (int32_t)pid;
	it->tid = (int32_t)tid;
	it->flag = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
		   (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_GUEST_KERNEL;
	r->info->samples++;
	return 0;
}

static int side_record(struct reader *r, uint32_t type, uint16_t misc, const unsigned char *body, size_t len)
{
	struct cur c = {body, body + len, 0};
	struct item *it;
	const char *s = NULL;
	uint64_t start = 0, mlen = 0, pgoff = 0;
	uint32_t pid, tid;

	pid = u32(&c);
	tid = u32(&c);
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		start = u64(&c);
		mlen = u64(&c);
		pgoff = u64(&c);
		if (type == PERF_RECORD_MMAP2)
			skip(&c, 24 + 8); /* dev/inode or build id, then prot and flags */
		s = str(&c);
		break;
	case PERF_RECORD_COMM:
		s = str(&c);
		break;
	case PERF_RECORD_FORK:
		break; /* pid, ppid: read as pid, tid above */
	}
	if (c.bad)
		return fail(r, "damaged perf.data (a record of type %u and %zu bytes too short for its fields)", type,
			    len + 8);
	if (!(it = new_item(r)))
		return fail(r, "more than %u records: too large a perf.data", LTAP_PERFDATA_MAX_RECORDS);
	it->time = trailer_time(r, body, len);
	it->pid = (int32_t)pid;
	it->tid = (int32_t)tid;
	if (s && keep_string(r, s, &it->str)) {
		r->nitems--;
		return fail(r, "out of memory");
	}
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		it->kind = ITEM_MMAP;
		it->a = start;
		it->b = mlen;
		it->c = pgoff;
		break;
	case PERF_RECORD_COMM:
		it->kind = ITEM_COMM;
		it->flag = !!(misc & PERF_RECORD_MISC_COMM_EXEC);
		break;
	default:
		it->kind = ITEM_FORK; /* pid: the child, tid: the parent (ppid) */
		break;
	}
	return 0;
}

/* The record at file offset off, whole, in buf (records are at most 64 KiB). */
static const unsigned char *record_at(struct reader *r, uint64_t off, size_t n)
{
	if (off < r->buf_start || off + n > r->buf_start + r->buf_len) {
		size_t want = CHUNK;
		if (off >= r->file_size)
			return NULL;
		if (want > r->file_size - off)
			want = (size_t)(r->file_size - off);
		if (want < n || read_at(r, off, r->buf, want))
			return NULL;
		r->buf_start = off;
		r->buf_len = want;
	}
	return r->buf + (off - r->buf_start);
}

static int read_data(struct reader *r, const struct file_section *data)
{
	uint64_t off = data->offset, end = data->offset + data->size;

	while (off < end) {
		struct perf_event_header h;
		const unsigned char *rec;
		if (end - off < sizeof h || !(rec = record_at(r, off, sizeof h)))
			return fail(r, "damaged perf.data (a record cut short at offset %llu)", (unsigned long long)off);
		memcpy(&h, rec, sizeof h);
		if (h.size < sizeof h || h.size > end - off)
			return fail(r, "damaged perf.data (a record of %u bytes at offset %llu)", h.size,
				    (unsigned long long)off);
		if (!(rec = record_at(r, off, h.size)))
			return fail(r, "cannot read the record at offset %llu", (unsigned long long)off);
		rec += sizeof h;
		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			if (sample_record(r, rec, h.size - sizeof h, h.misc))
				return -1;
			break;
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
		case PERF_RECORD_COMM:
		case PERF_RECORD_FORK:
			if (side_record(r, h.type, h.misc, rec, h.size - sizeof h))
				return -1;
			break;
		case RECORD_COMPRESSED:
			return fail(r, "compressed records (perf record -z) are not read: record without -z");
		default:
			break; /* exits, lost, throttling, perf's own records */
		}
		off += h.size;
	}
	return 0;
}

static int item_cmp(const void *x, const void *y)
{
	const struct item *a = x, *b = y;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void hand_out(struct reader *r, const struct ltap_perfdata_ops *ops)
{
	if (r->nitems) /* qsort may not be given NULL */
		qsort(r->items, r->nitems, sizeof *r->items, item_cmp);
	for (size_t i = 0; i < r->nitems; i++) {
		const struct item *it = &r->items[i];
		switch (it->kind) {
		case ITEM_SAMPLE: {
			struct ltap_perfdata_sample s = {it->time, it->a, it->b, it->pid, it->tid, it->flag};
			if (ops->sample)
				ops->sample(ops->ud, &s);
			break;
		}
		case ITEM_MMAP:
			if (ops->mmap)
				ops->mmap(ops->ud, it->pid, it->a, it->b, it->c, r->pool + it->str);
			break;
		case ITEM_COMM:
			if (ops->comm)
				ops->comm(ops->ud, it->pid, it->tid, r->pool + it->str, it->flag);
			break;
		case ITEM_FORK:
			if (ops->fork)
				ops->fork(ops->ud, it->tid, it->pid);
			break;
		}
	}
}

int ltap_perfdata_read(const char *path, const struct ltap_perfdata_ops *ops, struct ltap_perfdata_info *info,
		       char *err, size_t errlen)
{
	struct reader r = {.fd = -1, .err = err, .errlen = errlen, .info = info};
	struct {
		uint64_t magic, size, attr_size;
		struct file_section attrs, data, event_types;
	} h;
	struct stat st;
	int rc = -1;

	memset(info, 0, sizeof *info);
	r.fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (r.fd < 0)
		return fail(&r, "%s", strerror(errno));
	if (fstat(r.fd, &st) || !S_ISREG(st.st_mode)) {
		fail(&r, "not a regular file");
		goto out;
	}
	r.file_size = (uint64_t)st.st_size;
	if (read_at(&r, 0, &h, sizeof h) || (h.magic != PERFDATA_MAGIC && h.magic != PERFDATA_SWAPPED)) {
		fail(&r, "not a perf.data file");
		goto out;
	}
	if (h.magic == PERFDATA_SWAPPED) {
		fail(&r, "a perf.data of the other byte order: not read");
		goto out;
	}
	if (h.size == 16) {
		fail(&r, "a perf.data written to a pipe: not read (perf record -o FILE)");
		goto out;
	}
	if (h.size < sizeof h || !section_ok(&r, &h.attrs) || !section_ok(&r, &h.data)) {
		fail(&r, "damaged perf.data (its header)");
		goto out;
	}
	if (read_attrs(&r, &h.attrs, h.attr_size))
		goto out;
	event_name(&r.attrs[0], info->event, sizeof info->event);
	if (!(r.buf = malloc(CHUNK))) {
		fail(&r, "out of memory");
		goto out;
	}
	if (read_data(&r, &h.data))
		goto out;
	hand_out(&r, ops);
	rc = 0;
out:
	close(r.fd);
	free(r.buf);
	free(r.items);
	free(r.pool);
	free(r.ids);
	return rc;
}
