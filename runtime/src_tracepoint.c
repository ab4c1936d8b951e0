/* src_tracepoint.c: the tracefs source. Its attach creates ltap's instance,
 * relates its clock to CLOCK_MONOTONIC, scopes it to the targets, writes the
 * events' filters and enables them; its streams read trace_pipe_raw per CPU
 * into a pool of sub-buffers walked in place (ringpage.h), without copying
 * events. --record is a tee here: every sub-buffer read is also given to the
 * recorder, and the run's start and end are marked in the trace. */
#include "src_tracepoint.h"

#include "catalog.h"
#include "instance.h"
#include "log.h"
#include "proc.h"
#include "record.h"
#include "ringclock.h"
#include "ringpage.h"

#include <errno.h>
#include <event-parse.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RING_WAKE_PERCENT 10 /* wake per batch: a tenth of a ring */
#define POOL_PAGES 1024      /* sub-buffers held per CPU in user space */
#define TASK_RING_KB 1024    /* the instance's ring when it has task events only */
#define RING_PAGE_SLACK 256  /* bytes free in a page the writer has left */
/* The clock's marks (ringclock.h): a burst of CLOCK_BURST writes (their
 * bounds together are a sample), 0.1 s after the start, then at doubling
 * intervals up to one a second; a segment reaches the fitted line by the
 * next burst. */
#define CLOCK_BURST 3
#define CLOCK_FIRST_NS 100000000ull
#define CLOCK_EVERY_NS 1000000000ull
/* a segment starts this far ahead of the clock: after any event read yet */
#define CLOCK_AHEAD_NS 1000000ull

struct cpu_ring {
	struct ltap_stream s; /* first: the loop sees a struct ltap_stream */
	struct ringpage rp;
	int long_size;
	char **pages;  /* ring of pool pages: [head, head + count) hold data */
	char **spare;  /* the pool's other pages, a stack: the last walked on top */
	int nspare;
	char *pool;    /* the pages, one block: untouched (no page faults) until used */
	int head, count, cap;
	int loaded;    /* pages[head] is loaded in rp */
	int subbuf;
	struct ltap_tpsrc *t;
	char stats_path[256];
	struct ltap_recorder *rec;
};

/* The clock marks of one burst: written between these reads, read back at
 * these times (c, ringclock.h). */
struct clock_burst {
	unsigned seq;
	uint64_t before[CLOCK_BURST], after[CLOCK_BURST], c[CLOCK_BURST];
	int written, got;
};

struct ltap_tpsrc {
	struct ltap_source src; /* first: the run sees a struct ltap_source */
	struct ltap_instance *inst;
	int nr;
	struct cpu_ring *rings;
	struct ltap_stream **streams;
	int64_t offset;       /* CLOCK_MONOTONIC - the ring's clock, at the start */
	struct ltap_clock_sync sync;
	struct ltap_ringclock clock; /* and since: c = ts + offset, followed */
	int print_id, print_buf;     /* ftrace:print: its id, where its text is */
	int self;                    /* the thread writing the clock marks: their common_pid */
	int tracing;
	uint64_t next_sync, sync_every; /* CLOCK_MONOTONIC */
	struct clock_burst burst;
	/* --record */
	struct ltap_recorder *rec;
	const char *record;
	char **recorded;      /* "sys/name" of the events whose formats go into the file */
	int nrecorded;
	struct ltap_proc *proc;
	pid_t command;
	int verbose;
};

static struct ltap_tpsrc *tpsrc_of(struct ltap_source *s)
{
	return (struct ltap_tpsrc *)s;
}

static int clock_mark(struct ltap_tpsrc *t, const char *data, int size, uint64_t c);

/* The loaded page is walked: back to the pool, on top of the spares, so
 * the next read goes into the page last walked, still in the cache: the
 * pages touched are as many as are ever held at once, not the pool. */
static void ring_page_done(struct cpu_ring *r)
{
	r->spare[r->nspare++] = r->pages[r->head];
	r->loaded = 0;
	r->head = (r->head + 1) % r->cap;
	r->count--;
}

/* The next record of the page rp walks that is not one of ltap's clock
 * marks (used here, not dispatched), or NULL at the page's end. print_id
 * and offset are t's, given so that ring_walk's loop keeps them in
 * registers across its handler's calls. */
static inline __attribute__((always_inline)) const void *ring_page_next(struct ltap_tpsrc *t, struct ringpage *rp,
									int *size, int print_id, uint64_t offset)
{
	const void *data;

	while ((data = ringpage_next(rp, size)) != NULL && *(const uint16_t *)data == print_id &&
	       clock_mark(t, data, *size, rp->ts + offset))
		;
	return data;
}

/* The next record of the loaded page, or the next page's first: a page
 * walked to its end goes back to the pool. (Inlined in ring_walk's loop.) */
static inline __attribute__((always_inline)) void ring_next(struct ltap_stream *s)
{
	struct cpu_ring *r = (struct cpu_ring *)s;
	const void *data;
	int size;

	for (;;) {
		if (r->loaded) {
			data = ring_page_next(r->t, &r->rp, &size, r->t->print_id, (uint64_t)r->t->offset);
			if (data)
				break;
			ring_page_done(r);
		}
		if (r->count == 0) {
			r->s.has = 0;
			return;
		}
		ringpage_load(&r->rp, r->pages[r->head], r->long_size, (unsigned)r->subbuf);
		if (r->rp.missed > 0)
			r->s.lost += (uint64_t)r->rp.missed;
		r->loaded = 1;
	}
	r->s.has = 1;
	r->s.cur.ts = ltap_ringclock_mono(&r->t->clock, r->rp.ts + (uint64_t)r->t->offset);
	r->s.cur.data = data;
	r->s.cur.size = size;
}

static uint64_t mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The burst's marks that came back, as one sample (each bounds the
 * correction, CLOCK_MONOTONIC - c, to [before - c, after - c]); then the
 * next segment, chosen from all samples so far and announced by one more
 * mark, which a replay reads: it starts a millisecond ahead of now, so
 * after every event read yet, and the mark is in the trace before it. */
static void clock_steer(struct ltap_tpsrc *t)
{
	struct clock_burst *b = &t->burst;
	struct ltap_ringclock_seg seg;
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	uint64_t c = 0, now, c_now, before, after;
	char text[128];

	for (int k = 0; k < b->written; k++) {
		if (!(b->got & 1 << k))
			continue;
		if ((int64_t)(b->before[k] - b->c[k]) > lo)
			lo = (int64_t)(b->before[k] - b->c[k]);
		if ((int64_t)(b->after[k] - b->c[k]) < hi)
			hi = (int64_t)(b->after[k] - b->c[k]);
		c = b->c[k];
	}
	b->written = b->got = 0;
	if (!c)
		return;
	ltap_ringclock_sample(&t->clock, c, lo, hi);
	/* c now, by the current segment (twice: the correction at c) */
	now = mono_now();
	c_now = now - (uint64_t)t->clock.cur.shift;
	c_now = now - (uint64_t)ltap_ringclock_corr(&t->clock.cur, c_now);
	seg = ltap_ringclock_steer(&t->clock, c_now + CLOCK_AHEAD_NS, t->sync_every);
	ltap_ringclock_format(text, sizeof text, b->seq, CLOCK_BURST, &seg);
	ltap_instance_clock_mark(t->inst, text, &before, &after);
}

/* One of ltap's clock marks (its own print records, "ltap-clock "): its
 * time read back into the burst it belongs to; the last one back steers. */
static int clock_mark(struct ltap_tpsrc *t, const char *data, int size, uint64_t c)
{
	struct ltap_ringclock_seg seg;
	unsigned seq, k;
	int32_t pid;
	int has;

	memcpy(&pid, data + LTAP_REC_TID_OFFSET, sizeof pid);
	if (pid != t->self || size <= t->print_buf ||
	    !ltap_ringclock_parse(data + t->print_buf, (size_t)(size - t->print_buf), &seq, &k, &seg, &has))
		return 0;
	if (seq == t->burst.seq && k < (unsigned)t->burst.written && !(t->burst.got & 1 << k)) {
		t->burst.c[k] = c;
		t->burst.got |= 1 << k;
		if (t->burst.got == (1 << t->burst.written) - 1)
			clock_steer(t);
	}
	return 1;
}

/* Once it is time (a drain a second, at first sooner): a burst of marks
 * that measure, read back with the events (clock_mark). A burst that did
 * not all come back (a full ring dropped a mark) steers with what did. */
static void clock_tick(struct ltap_tpsrc *t)
{
	uint64_t now = mono_now();
	char text[64];

	if (!t->tracing || now < t->next_sync)
		return;
	if (t->burst.written)
		clock_steer(t);
	/* (a host of libltap may run the loop on any thread) */
	t->self = (int)gettid();
	t->burst.seq++;
	for (int k = 0; k < CLOCK_BURST; k++) {
		ltap_ringclock_format(text, sizeof text, t->burst.seq, (unsigned)k, NULL);
		if (ltap_instance_clock_mark(t->inst, text, &t->burst.before[k], &t->burst.after[k]))
			break;
		t->burst.written++;
	}
	t->next_sync = now + t->sync_every;
	if (t->sync_every < CLOCK_EVERY_NS)
		t->sync_every = t->sync_every * 2 < CLOCK_EVERY_NS ? t->sync_every * 2 : CLOCK_EVERY_NS;
}

/* Whether the kernel's writer was still on the page read: room for more
 * events in it (a finished page has less than the largest common event
 * left). Reading on would only chase the writer, a few events a read. */
static int ring_page_open(const struct cpu_ring *r, const char *page)
{
	uint64_t flags = 0;
	unsigned room = (unsigned)r->subbuf - 8 - (unsigned)r->long_size;

	memcpy(&flags, page + 8, (size_t)r->long_size);
	return ((unsigned)flags & RP_COMMIT_MASK) + RING_PAGE_SLACK < room;
}

/* Reads up to `pages` sub-buffers into the pool: 0 or -errno. While
 * tracing, it stops at the page the kernel was still writing: the rest
 * of it comes with the next wake-up, a full page later, rather than
 * in reads of a few events each (each a syscall and a copy of the page
 * with interrupts off), as long as the writer goes on. */
static int ring_read(struct cpu_ring *r, int pages)
{
	while (r->count < r->cap && pages-- > 0) {
		char *page = r->spare[r->nspare - 1];
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
		r->pages[(r->head + r->count) % r->cap] = page;
		r->count++;
		r->nspare--;
		if (r->t->tracing && ring_page_open(r, page))
			break;
	}
	return 0;
}

static int ring_fill(struct ltap_stream *s)
{
	struct cpu_ring *r = (struct cpu_ring *)s;
	int e;

	if (r == &r->t->rings[0])
		clock_tick(r->t);
	if ((e = ring_read(r, r->cap)) != 0)
		return e;
	if (!r->s.has)
		ring_next(s);
	return 0;
}

static void ring_advance(struct ltap_stream *s)
{
	ring_next(s);
}

/* A run of the merge: the records handed to fn where they lie in the
 * page. The rest of a loaded page is walked from a copy of its state (in
 * registers across fn's calls, written back when the walk stops there);
 * ring_next moves to the next page. Once the pool is walked, a page at a
 * time is read into the page just walked, as a bare reader would (the
 * drain's fill read the rest the kernel had then, so its ring is below
 * its wake-up mark). */
static int ring_walk(struct ltap_stream *s, uint64_t last, const volatile int *hold,
		     int (*fn)(void *ud, const struct ltap_rec *r), void *ud)
{
	struct cpu_ring *r = (struct cpu_ring *)s;
	struct ltap_tpsrc *t = r->t;
	const int print_id = t->print_id;
	const uint64_t offset = (uint64_t)t->offset;
	int e;

	for (;;) {
		struct ringpage rp;
		struct ltap_rec rec;
		const void *data;
		int size;

		if (!r->s.has) {
			if (ring_read(r, 1) != 0)
				return 0; /* the next fill says why */
			ring_next(s);
			if (!r->s.has)
				return 0;
		}
		if (r->s.cur.ts > last || *hold)
			return 0;
		if ((e = fn(ud, &r->s.cur)) != 0)
			return e;
		rp = r->rp;
		rec = r->s.cur;
		while ((data = ring_page_next(t, &rp, &size, print_id, offset)) != NULL) {
			rec.ts = ltap_ringclock_mono(&t->clock, rp.ts + offset);
			rec.data = data;
			rec.size = size;
			e = 0;
			if (rec.ts > last || *hold || (e = fn(ud, &rec)) != 0) {
				r->rp = rp;
				r->s.cur = rec; /* kept: not dispatched, or the one that halted */
				return e;
			}
		}
		r->rp = rp;
		ring_next(s); /* the page is done: the next one's first record */
	}
}

static const struct ltap_stream_ops ring_ops = {
	.fill = ring_fill,
	.advance = ring_advance,
	.walk = ring_walk,
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

/* Opens per_cpu/cpuN/trace_pipe_raw of every CPU; the pool bounds the
 * sub-buffers held per CPU, the kernel drops (and counts) the rest. */
static int tpsrc_open_rings(struct ltap_tpsrc *t, struct tep_handle *tep)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	int subbuf = tpsrc_subbuf_size(t->inst);

	t->rings = calloc((size_t)ncpu, sizeof *t->rings);
	t->streams = calloc((size_t)ncpu, sizeof *t->streams);
	if (!t->rings || !t->streams)
		return -1;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct cpu_ring *r = &t->rings[t->nr];
		char file[64], path[512];
		int fd;

		snprintf(file, sizeof file, "per_cpu/cpu%d/trace_pipe_raw", cpu);
		if (ltap_instance_path(t->inst, file, path, sizeof path) != 0)
			return -1;
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue; /* offline or absent CPU */
			ltap_err("tracepoint: cannot open %s: %s", path, strerror(errno));
			return -1;
		}
		r->s.ops = &ring_ops;
		r->s.fd = fd;
		r->s.cpu = cpu;
		r->s.cur.cpu = cpu; /* every record of this ring: set once */
		r->subbuf = subbuf;
		r->t = t;
		r->cap = POOL_PAGES;
		snprintf(file, sizeof file, "per_cpu/cpu%d/stats", cpu);
		ltap_instance_path(t->inst, file, r->stats_path, sizeof r->stats_path);
		r->long_size = tep_get_header_page_size(tep);
		if (r->long_size != 4 && r->long_size != 8)
			r->long_size = (int)sizeof(long);
		r->pages = calloc((size_t)r->cap, sizeof *r->pages);
		r->spare = calloc((size_t)r->cap, sizeof *r->spare);
		r->pool = malloc((size_t)r->cap * (size_t)subbuf);
		t->nr++;
		if (!r->pages || !r->spare || !r->pool)
			return -1;
		for (int i = 0; i < r->cap; i++)
			r->spare[r->nspare++] = r->pool + (size_t)(r->cap - 1 - i) * (size_t)subbuf;
		t->streams[t->nr - 1] = &r->s;
	}
	return 0;
}

static int tpsrc_is_ftrace(const struct ltap_source_event *ev)
{
	return strcmp(ev->sys, "ftrace") == 0;
}

/* Writes ev's kernel filter; a refused union is tried filter by filter,
 * so the message names the probe whose filter the kernel refuses. */
static int tpsrc_filter(struct ltap_tpsrc *t, struct ltap_source_event *ev, const struct ltap_source_env *env)
{
	char reason[512];
	int e;
	char *kf = ltap_source_kernel_filter(ev, env, &e);

	if (e)
		return -1;
	if (!kf)
		return 0;
	e = ltap_instance_filter(t->inst, ev->sys, ev->name, kf, reason, sizeof reason);
	free(kf);
	if (!e) {
		ev->in_kernel = ev->filter != NULL;
		return 0;
	}
	for (int i = 0; i < ev->nparts; i++) {
		char one[512];
		const struct ltap_source_filter *p = &ev->parts[i];
		if (ltap_instance_filter(t->inst, ev->sys, ev->name, p->text, one, sizeof one)) {
			ltap_err("%sprobe %s:%s: bad filter '%s': %s", p->where, ev->sys, ev->name, p->text, one);
			return -1;
		}
	}
	ltap_err("probe %s:%s: bad filter: %s", ev->sys, ev->name, reason);
	return -1;
}

/* The formats a recording carries: every event of the run but ftrace's own,
 * and ftrace:print for the marks. */
static int tpsrc_record_open(struct ltap_tpsrc *t, const struct ltap_source_env *env)
{
	int ncpu = 0;

	t->recorded = calloc((size_t)env->nevents + 1, sizeof *t->recorded);
	if (!t->recorded)
		return -1;
	for (int i = 0; i < env->nevents; i++) {
		const struct ltap_source_event *ev = &env->events[i];
		if (ev->sys && !ev->perf && !tpsrc_is_ftrace(ev) &&
		    asprintf(&t->recorded[t->nrecorded++], "%s/%s", ev->sys, ev->name) < 0) {
			t->recorded[--t->nrecorded] = NULL;
			return -1;
		}
	}
	if (!(t->recorded[t->nrecorded++] = strdup("ftrace/print")))
		return -1;
	for (int i = 0; i < t->nr; i++)
		if (t->streams[i]->cpu + 1 > ncpu)
			ncpu = t->streams[i]->cpu + 1;
	t->rec = ltap_recorder_open(env->record, ncpu, t->nr ? (size_t)t->rings[0].subbuf : (size_t)getpagesize());
	if (!t->rec)
		return -1;
	for (int i = 0; i < t->nr; i++)
		t->rings[i].rec = t->rec;
	t->record = env->record;
	t->proc = env->proc;
	t->command = env->command;
	t->verbose = env->verbose;
	return ltap_catalog_event(env->cat, "ftrace:print") ? 0 : -1;
}

/* When every event is read from a perf ring (profiles, stacks) or followed
 * for ltap's own task names only, the instance carries task events alone:
 * a small ring, as allocating and freeing 8 MB a CPU costs more CPU than a
 * short profile. */
static size_t tpsrc_buffer_kb(const struct ltap_source_env *env)
{
	for (int i = 0; i < env->nevents; i++)
		if (!env->events[i].perf && !env->events[i].task_only)
			return env->buffer_kb;
	return env->buffer_kb > TASK_RING_KB ? TASK_RING_KB : env->buffer_kb;
}

/* whether any event of env is read from the instance */
static int tpsrc_has_events(const struct ltap_source_env *env)
{
	for (int i = 0; i < env->nevents; i++)
		if (!env->events[i].perf)
			return 1;
	return 0;
}

/* The ring's clock against CLOCK_MONOTONIC at the start (instance.c), and
 * what the run needs to follow it (ringclock.h). */
static int tpsrc_clock_start(struct ltap_tpsrc *t, const struct ltap_source_env *env)
{
	struct tep_event *print = ltap_catalog_event(env->cat, "ftrace:print");
	struct tep_format_field *buf = print ? tep_find_field(print, "buf") : NULL;

	if (!buf || ltap_instance_clock_sync(t->inst, ltap_catalog_tep(env->cat), &t->sync))
		return -1;
	t->offset = t->sync.offset;
	t->print_id = print->id;
	t->print_buf = buf->offset;
	ltap_ringclock_init(&t->clock);
	ltap_ringclock_sample(&t->clock, t->sync.ts + (uint64_t)t->offset, t->sync.lo, t->sync.hi);
	ltap_debug("clock: the ring's clock is CLOCK_MONOTONIC %+lld ns, within +-%lld ns (%d marks)",
		   (long long)-t->offset, (long long)((t->sync.hi - t->sync.lo + 1) / 2), t->sync.marks);
	return 0;
}

static int tpsrc_attach(struct ltap_source *s, struct ltap_source_env *env)
{
	struct ltap_tpsrc *t = tpsrc_of(s);
	struct tep_handle *tep = ltap_catalog_tep(env->cat);

	/* a script of timers and hooks only needs no kernel tracing at all */
	if (!env->nevents && env->record) {
		ltap_err("record: the script declares no probes: nothing to record");
		return -1;
	}
	/* nor one of profiles only: the perf rings name their tasks */
	if (!tpsrc_has_events(env))
		return 0;
	t->inst = ltap_instance_open(env->serial, tpsrc_buffer_kb(env),
				     env->buffer_exact && tpsrc_buffer_kb(env) == env->buffer_kb, RING_WAKE_PERCENT);
	if (!t->inst || tpsrc_clock_start(t, env))
		return -1;
	if (env->npids && ltap_instance_set_pids(t->inst, env->pids, env->npids))
		return -1;
	for (int i = 0; i < env->nevents; i++) {
		struct ltap_source_event *ev = &env->events[i];
		/* ftrace's own events have no filter file: theirs apply in user space */
		if (ev->sys && !ev->perf && !tpsrc_is_ftrace(ev) && tpsrc_filter(t, ev, env))
			return -1;
	}
	for (int i = 0; i < env->nevents; i++) {
		const struct ltap_source_event *ev = &env->events[i];
		if (!ev->sys || ev->perf)
			continue;
		/* a probe on ftrace:print sees the markers programs write too */
		if (tpsrc_is_ftrace(ev) && strcmp(ev->name, "print") == 0 && ltap_instance_copy_markers(t->inst))
			ltap_warn("probe ftrace:print: this kernel cannot copy trace_marker writes into ltap's "
				  "instance (no options/copy_trace_marker): only ltap.mark() reaches it");
		/* ftrace's own events (print, for markers) are always on: no enable file */
		if (!tpsrc_is_ftrace(ev) && ltap_instance_enable(t->inst, ev->sys, ev->name) != 0)
			return -1;
	}
	/* names of the tasks already running; the task events keep them right */
	ltap_proc_seed(env->proc);
	if (tpsrc_open_rings(t, tep))
		return -1;
	return env->record ? tpsrc_record_open(t, env) : 0;
}

static int tpsrc_streams(struct ltap_source *s, struct ltap_stream ***out)
{
	struct ltap_tpsrc *t = tpsrc_of(s);
	*out = t->streams;
	return t->nr;
}

/* "ltap-record start=NS [command=PID]", "end=NS", "measure=PID": a
 * recording's marks, so a replay runs from the live run's start to its end
 * and counts a held command from its exec (gate.h) as the live run did. */
static void tpsrc_record_mark(struct ltap_tpsrc *t, const char *what, uint64_t v)
{
	char text[96];
	int n;

	if (!t->rec)
		return;
	n = snprintf(text, sizeof text, "ltap-record %s=%llu", what, (unsigned long long)v);
	if (strcmp(what, "start") == 0 && t->command)
		snprintf(text + n, sizeof text - (size_t)n, " command=%d", (int)t->command);
	if (ltap_instance_marker(t->inst, text))
		ltap_warn("record: cannot mark the %s of the run in the trace", what);
}

static int tpsrc_enable(struct ltap_source *s, int on, uint64_t now)
{
	struct ltap_tpsrc *t = tpsrc_of(s);
	int e;

	if (!t->inst)
		return 0;
	if (!on) {
		tpsrc_record_mark(t, "end", now);
		t->tracing = 0;
	}
	e = ltap_instance_tracing(t->inst, on);
	if (e && on)
		ltap_err("instance: cannot turn tracing on in %s: %s", ltap_instance_name(t->inst), strerror(-e));
	if (on && !e) {
		tpsrc_record_mark(t, "start", now);
		t->tracing = 1;
		t->sync_every = CLOCK_FIRST_NS;
		t->next_sync = mono_now() + CLOCK_FIRST_NS;
	}
	return e;
}

static void tpsrc_hold(struct ltap_source *s, int pid)
{
	tpsrc_record_mark(tpsrc_of(s), "measure", (uint64_t)pid);
}

static int tpsrc_mark(struct ltap_source *s, const char *text)
{
	struct ltap_tpsrc *t = tpsrc_of(s);
	return t->inst ? ltap_instance_marker(t->inst, text) : -ENODEV;
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

/* Lost: the kernel's dropped and overrun counts, or the sub-buffers'
 * missed-events counts where those say more; read: the kernel's count. */
static void tpsrc_counts(struct ltap_source *s, int i, struct ltap_source_counts *c)
{
	static const char *const lost_keys[] = {"dropped events", "overrun", NULL};
	static const char *const read_keys[] = {"read events", NULL};
	struct cpu_ring *r = &tpsrc_of(s)->rings[i];
	uint64_t dropped = ring_stats(r, lost_keys);

	c->lost = dropped > r->s.lost ? dropped : r->s.lost;
	c->read = ring_stats(r, read_keys);
	c->counts_read = 1;
}

/* Writes the recording: the formats, ltap's task names as saved cmdlines,
 * the clock offset. */
static int tpsrc_finish(struct ltap_source *s)
{
	struct ltap_tpsrc *t = tpsrc_of(s);
	char *cmdlines;
	int rc;

	if (!t->rec)
		return 0;
	for (int i = 0; i < t->nr; i++)
		t->rings[i].rec = NULL;
	cmdlines = ltap_proc_cmdlines(t->proc);
	if (!cmdlines) {
		ltap_recorder_abort(t->rec);
		t->rec = NULL;
		return -1;
	}
	rc = ltap_recorder_close(t->rec, (const char *const *)t->recorded, t->nrecorded, cmdlines, t->offset);
	t->rec = NULL;
	if (rc == 0 && t->verbose)
		ltap_info("recorded the run in %s", t->record);
	free(cmdlines);
	return rc;
}

/* -v: how far the clocks drifted apart, and the largest error bound seen */
static void tpsrc_clock_report(struct ltap_tpsrc *t)
{
	const struct ltap_ringclock *k = &t->clock;
	const struct ltap_ringclock_sample *s;
	double secs;
	int64_t moved;

	if (k->count < 2)
		return;
	s = &k->samples[(k->next + LTAP_RINGCLOCK_FIT - 1) % LTAP_RINGCLOCK_FIT];
	secs = (double)(s->c - k->first_c) / 1e9;
	moved = s->lo + (s->hi - s->lo) / 2 - k->first_mid;
	ltap_debug("clock: followed over %.1f s (%llu samples): CLOCK_MONOTONIC - the ring's clock moved %+lld ns "
		   "(%+.3f ppm); every event within +-%lld ns of CLOCK_MONOTONIC at the samples",
		   secs, (unsigned long long)k->count, (long long)moved, secs > 0 ? (double)moved / secs / 1e3 : 0.0,
		   (long long)k->worst);
}

static void tpsrc_close(struct ltap_source *s)
{
	struct ltap_tpsrc *t = tpsrc_of(s);

	if (!t)
		return;
	if (t->inst)
		tpsrc_clock_report(t);
	if (t->rec)
		ltap_recorder_abort(t->rec);
	/* every fd on the instance's files first, then the instance */
	for (int i = 0; i < t->nr; i++) {
		struct cpu_ring *r = &t->rings[i];
		if (r->s.fd >= 0)
			close(r->s.fd);
		free(r->pool);
		free(r->pages);
		free(r->spare);
	}
	ltap_instance_close(t->inst);
	for (int i = 0; i < t->nrecorded; i++)
		free(t->recorded[i]);
	free(t->recorded);
	free(t->rings);
	free(t->streams);
	free(t);
}

static const struct ltap_source_ops tpsrc_ops = {
	.name = "tracefs",
	.caps = LTAP_SOURCE_LIVE,
	.attach = tpsrc_attach,
	.streams = tpsrc_streams,
	.enable = tpsrc_enable,
	.counts = tpsrc_counts,
	.finish = tpsrc_finish,
	.close = tpsrc_close,
	.mark = tpsrc_mark,
	.hold = tpsrc_hold,
};

struct ltap_source *ltap_tpsrc_new(void)
{
	struct ltap_tpsrc *t = calloc(1, sizeof *t);

	if (!t)
		return NULL;
	t->src.ops = &tpsrc_ops;
	return &t->src;
}
