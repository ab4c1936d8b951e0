/* perfmap.c: /tmp/perf-PID.map, read as untrusted input: checked before it
 * is read, bounded while it is read, each line parsed on its own. */
#include "perfmap.h"
#include "grow.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* a longer line is skipped: perf's own JIT writers stay far below */
#define PERFMAP_LINE_MAX 4096

struct perfmap_entry {
	uint64_t start, end;
	size_t name; /* offset in names */
	size_t line; /* later lines win where a JIT reused an address */
};

struct ltap_perfmap {
	int pid;
	char path[48];
	struct perfmap_entry *ents;
	size_t n;
	char *names;
	/* what was read, so a miss reads again only a file that changed */
	int read, refused;
	int warned_long; /* long lines are told once per map, not per re-read */
	struct timespec mtime;
	off_t size;
	double checked; /* CLOCK_MONOTONIC seconds of the last look at the file */
};

struct ltap_perfmap *ltap_perfmap_new(int pid)
{
	struct ltap_perfmap *pm = calloc(1, sizeof *pm);

	if (!pm)
		return NULL;
	pm->pid = pid;
	snprintf(pm->path, sizeof pm->path, "/tmp/perf-%d.map", pid);
	return pm;
}

void ltap_perfmap_free(struct ltap_perfmap *pm)
{
	if (!pm)
		return;
	free(pm->ents);
	free(pm->names);
	free(pm);
}

const char *ltap_perfmap_path(const struct ltap_perfmap *pm)
{
	return pm->path;
}

/* Why the file may not be used, or NULL. The process's user is the owner
 * of /proc/PID; a process that is gone leaves only root to trust. */
static const char *perfmap_untrusted(const struct ltap_perfmap *pm, const struct stat *st, char *buf, size_t len)
{
	char proc[32];
	struct stat ps;

	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_nlink != 1)
		return "a hard link to another file";
	if (st->st_uid == 0)
		return NULL;
	snprintf(proc, sizeof proc, "/proc/%d", pm->pid);
	if (stat(proc, &ps) != 0) {
		snprintf(buf, len, "owned by uid %u and process %d is gone", (unsigned)st->st_uid, pm->pid);
		return buf;
	}
	if (st->st_uid != ps.st_uid) {
		snprintf(buf, len, "owned by uid %u, not by the process's user (uid %u) or root",
			 (unsigned)st->st_uid, (unsigned)ps.st_uid);
		return buf;
	}
	return NULL;
}

static void perfmap_refuse(struct ltap_perfmap *pm, const char *why)
{
	if (!pm->refused)
		ltap_warn("symbols: ignoring %s: %s", pm->path, why);
	pm->refused = 1;
}

static int perfmap_cmp(const void *a, const void *b)
{
	const struct perfmap_entry *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The table being read: entries, and their names in one block. */
struct perfmap_build {
	struct perfmap_entry *ents;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
};

/* Appends the entry of one line "START SIZE NAME" (hexadecimal, 0x allowed);
 * a line that does not parse is skipped. */
static int perfmap_add(struct perfmap_build *b, const char *line, size_t len, size_t lineno)
{
	char buf[PERFMAP_LINE_MAX + 1], *end;
	unsigned long long start, size;
	const char *name;
	size_t namelen;

	memcpy(buf, line, len);
	buf[len] = 0;
	errno = 0;
	start = strtoull(buf, &end, 16);
	if (end == buf || *end != ' ' || errno)
		return 0;
	size = strtoull(end + 1, &end, 16);
	if (*end != ' ' || errno || size == 0 || start + size < start)
		return 0;
	name = end + 1;
	namelen = strlen(name);
	if (!namelen)
		return 0;
	if (ltap_grow(&b->ents, &b->cap, b->n + 1, sizeof *b->ents, 256) ||
	    ltap_grow(&b->names, &b->ncap, b->nlen + namelen + 1, 1, 4096))
		return -ENOMEM;
	memcpy(b->names + b->nlen, name, namelen + 1);
	b->ents[b->n++] = (struct perfmap_entry){start, start + size, b->nlen, lineno};
	b->nlen += namelen + 1;
	return 0;
}

static ssize_t perfmap_read(int fd, char *p, size_t want)
{
	ssize_t r;

	do
		r = read(fd, p, want);
	while (r < 0 && errno == EINTR);
	return r;
}

/* Reads at most LTAP_PERFMAP_MAX bytes of fd, a line at a time, through one
 * fixed buffer. */
static int perfmap_parse(struct ltap_perfmap *pm, int fd)
{
	char buf[65536];
	struct perfmap_build b = {0};
	size_t pos = 0, have = 0, total = 0, lineno = 0, skipped = 0, k = 0;
	int rc = 0, eof = 0, skipping = 0;

	for (;;) {
		char *nl = memchr(buf + pos, '\n', have - pos);
		size_t len;
		if (!nl && !eof) {
			size_t want;
			ssize_t r;
			if (pos == 0 && have == sizeof buf) {
				/* a line longer than the buffer: dropped up to its end */
				lineno += !skipping;
				skipped += !skipping;
				skipping = 1;
				have = 0;
			}
			memmove(buf, buf + pos, have - pos);
			have -= pos;
			pos = 0;
			want = sizeof buf - have;
			if (want > LTAP_PERFMAP_MAX - total)
				want = LTAP_PERFMAP_MAX - total;
			r = want ? perfmap_read(fd, buf + have, want) : 0;
			if (r < 0) {
				rc = -errno;
				break;
			}
			eof = r == 0;
			have += (size_t)r;
			total += (size_t)r;
			continue;
		}
		if (!nl && pos == have)
			break;
		len = nl ? (size_t)(nl - (buf + pos)) : have - pos;
		if (skipping) {
			skipping = 0;
		} else if (++lineno, len > PERFMAP_LINE_MAX) {
			skipped++;
		} else if ((rc = perfmap_add(&b, buf + pos, len, lineno)) != 0) {
			break;
		}
		pos += len + (nl != NULL);
	}
	if (rc) {
		free(b.ents);
		free(b.names);
		return rc;
	}
	if (skipped && !pm->warned_long++)
		ltap_warn("symbols: %s: %zu lines longer than %d bytes skipped", pm->path, skipped, PERFMAP_LINE_MAX);
	if (total >= LTAP_PERFMAP_MAX)
		ltap_warn("symbols: %s: read only its first %u MiB", pm->path, LTAP_PERFMAP_MAX >> 20);
	if (b.n)
		qsort(b.ents, b.n, sizeof *b.ents, perfmap_cmp);
	/* of entries starting at one address, the last written stands */
	for (size_t i = 0; i < b.n; i++) {
		if (k && b.ents[k - 1].start == b.ents[i].start)
			k--;
		b.ents[k++] = b.ents[i];
	}
	free(pm->ents);
	free(pm->names);
	pm->ents = b.ents;
	pm->n = k;
	pm->names = b.names;
	return 0;
}

static double perfmap_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* (Re)reads the file if it is trustworthy and changed since the last read. */
static void perfmap_load(struct ltap_perfmap *pm)
{
	char why[128];
	const char *bad;
	struct stat st;
	int fd;

	pm->checked = perfmap_now();
	/* O_NOFOLLOW: never through a link; O_NONBLOCK: a FIFO cannot stall the open */
	fd = open(pm->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			perfmap_refuse(pm, "a symbolic link");
		else if (errno != ENOENT)
			perfmap_refuse(pm, strerror(errno));
		return;
	}
	if (fstat(fd, &st) != 0) {
		perfmap_refuse(pm, strerror(errno));
	} else if ((bad = perfmap_untrusted(pm, &st, why, sizeof why)) != NULL) {
		perfmap_refuse(pm, bad);
	} else if (!pm->read || st.st_size != pm->size || st.st_mtim.tv_sec != pm->mtime.tv_sec ||
		   st.st_mtim.tv_nsec != pm->mtime.tv_nsec) {
		int rc = perfmap_parse(pm, fd);
		if (rc)
			perfmap_refuse(pm, strerror(-rc));
		pm->read = 1;
		pm->size = st.st_size;
		pm->mtime = st.st_mtim;
	}
	close(fd);
}

int ltap_perfmap_lookup(struct ltap_perfmap *pm, uint64_t addr, const char **name, uint64_t *off)
{
	size_t lo = 0, hi;

	if (!pm->checked)
		perfmap_load(pm);
	for (int pass = 0; pass < 2; pass++) {
		/* the entry starting nearest below addr */
		lo = 0;
		hi = pm->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (pm->ents[mid].start <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && addr < pm->ents[lo - 1].end) {
			*name = pm->names + pm->ents[lo - 1].name;
			*off = addr - pm->ents[lo - 1].start;
			return 0;
		}
		if (pass || pm->refused || perfmap_now() - pm->checked < 1.0)
			break;
		perfmap_load(pm);
	}
	return -ENOENT;
}
