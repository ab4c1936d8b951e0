/* src_sampler.c: perf_event_open per CPU (and per target thread), every event
 * of a CPU sent into one mmap ring (PERF_EVENT_IOC_SET_OUTPUT). Timestamps
 * are CLOCK_MONOTONIC (use_clockid), the clock of the ftrace rings after
 * ltap's offset, so the loop merges both kinds of streams.
 *
 * A tracepoint sample's raw data is the ftrace record itself (it starts with
 * common_type), so the dispatch and the event object are those of the ftrace
 * path. A profile sample has no raw data: its stream writes a synthetic
 * 8-byte common header (common_type = the profile's record id, common_pid =
 * tid) so it dispatches the same way. */
#include "src_sampler.h"

#include "catalog.h"
#include "filter.h"
#include "log.h"
#include "source.h"
#include "notself.h"
#include "ring.h"
#include "symbols.h"
#include "proc.h"
#include "tasks.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		     PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)

/* one perf event of the run, as sampler_open takes it */
struct ltap_sampler_event {
	const char *name;   /* for messages: "kmem:mm_page_alloc", "profile 99hz" */
	int tp_id;          /* tracepoint id, or -1 for a cpu-clock profile */
	uint64_t freq;      /* profile: samples per second */
	int rec_id;         /* profile: the common_type its records carry */
	const char *filter; /* tracepoint filter (ftrace syntax), or NULL */
	const struct ltap_source_event *src; /* what the run declared (a refused filter's parts) */
};

struct prof_id {
	uint64_t id;
	int rec_id;
};

struct cpu_stream {
	struct ltap_stream s; /* first: the loop sees a struct ltap_stream */
	struct ltap_ring ring;
	struct ltap_sampler *owner;
	unsigned char hdr[8]; /* synthetic common header of a profile sample */
	const struct perf_event_header *side; /* cur, when cur.side */
};

/* sample_id_all's trailer of a non-sample record, for SAMPLE_TYPE: pid and
 * tid, time, cpu, identifier */
#define SIDE_TRAILER 32
#define SIDE_TIME_FROM_END 24

struct ltap_sampler {
	struct ltap_source src; /* first: the run sees a struct ltap_source */
	struct cpu_stream *cpus;
	struct ltap_stream **streams;
	int nr;
	int *fds;
	int nfds;
	struct prof_id *ids;
	int nids;
	struct ltap_symbols *syms;
	struct ltap_proc *proc; /* fed by COMM and FORK records when task_changed is set */
	struct ltap_proc *follow; /* per-task events: the tasks they follow, marked there */
	void (*task_changed)(void *ud, int tid, int exec);
	void *task_ud;
	struct ltap_catalog *cat; /* the formats: a refused filter's reason */
	int on_exec; /* enabled by the kernel at the target's exec */
	int switch_id; /* the record id of switches in (context_switch), or -1 */
	uint32_t self; /* the ltap command's pid: its own samples are left out */
	int notself;   /* the BPF filter that drops them in the kernel, or -errno */
};

/* A COMM or FORK record names tasks where no tracefs task event does. It
 * is applied in its place in time among every CPU's records (the loop's
 * merge, cur.side): a shell's fork on one CPU stays before its child's exec
 * on another. */
static void sampler_task(struct ltap_sampler *s, const struct perf_event_header *h)
{
	int exec, tid;

	if (!s->task_changed)
		return;
	tid = ltap_task_perf_apply(s->proc, h->type, h->misc, h + 1, h->size - sizeof *h, &exec);
	if (tid >= 0)
		s->task_changed(s->task_ud, tid, exec);
}

static void sampler_side(struct cpu_stream *c, const struct perf_event_header *h)
{
	struct ltap_symbols *syms = c->owner->syms;
	const char *p = (const char *)(h + 1);

	switch (h->type) {
	case PERF_RECORD_LOST: {
		uint64_t v[2];
		memcpy(v, p, sizeof v);
		c->s.lost += v[1];
		break;
	}
	case PERF_RECORD_MMAP2: {
		struct { uint32_t pid, tid; uint64_t addr, len, pgoff; } m;
		memcpy(&m, p, sizeof m);
		/* then maj, min, ino, ino_generation (or a build id), prot, flags */
		ltap_symbols_mmap(syms, (int)m.pid, m.addr, m.len, m.pgoff, p + sizeof m + 24 + 8);
		break;
	}
	case PERF_RECORD_FORK: {
		uint32_t v[4]; /* pid, ppid, tid, ptid */
		memcpy(v, p, sizeof v);
		if (v[0] == v[2] && v[0] != v[1])
			ltap_symbols_fork(syms, (int)v[1], (int)v[0]);
		if (c->owner->follow) /* the child inherits the events */
			ltap_proc_follow(c->owner->follow, (int)v[2], 1);
		sampler_task(c->owner, h);
		break;
	}
	case PERF_RECORD_EXIT: {
		uint32_t v[4]; /* pid, ppid, tid, ptid: its events end here */
		memcpy(v, p, sizeof v);
		if (c->owner->follow)
			ltap_proc_follow(c->owner->follow, (int)v[2], 0);
		break;
	}
	case PERF_RECORD_COMM:
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
			uint32_t pid;
			memcpy(&pid, p, sizeof pid);
			ltap_symbols_exec(syms, (int)pid);
		}
		sampler_task(c->owner, h);
		break;
	}
}

static int sampler_prof_id(struct ltap_sampler *s, uint64_t id)
{
	for (int i = 0; i < s->nids; i++)
		if (s->ids[i].id == id)
			return s->ids[i].rec_id;
	return -1;
}

/* A task switched in (PERF_RECORD_SWITCH of a per-task event, or
 * PERF_RECORD_SWITCH_CPU_WIDE of a CPU's, whose next_prev_pid and tid come
 * first; both end with the sample_id trailer: pid, tid, time, cpu,
 * identifier, written in the switched-in task's own context) as a record
 * of the switches' id: the common header only, common_pid the task; an
 * empty call chain marks it the perf ring's. 1 when cur holds it. */
static int sampler_switch_in(struct cpu_stream *c, const struct perf_event_header *h)
{
	static const uint64_t no_chain[1];
	const char *t = (const char *)h + h->size - SIDE_TRAILER;
	uint16_t type = (uint16_t)c->owner->switch_id;
	uint32_t ids[2], cpu;

	if (h->size < sizeof *h + SIDE_TRAILER)
		return 0;
	memcpy(ids, t, sizeof ids);
	memcpy(&c->s.cur.ts, t + 8, sizeof c->s.cur.ts);
	memcpy(&cpu, t + 16, sizeof cpu);
	memset(c->hdr, 0, sizeof c->hdr);
	memcpy(c->hdr, &type, sizeof type);
	memcpy(c->hdr + 4, &ids[1], sizeof ids[1]);
	c->s.cur.side = 0;
	c->s.cur.cpu = (int)cpu;
	c->s.cur.pid = (int)ids[0];
	c->s.cur.data = c->hdr;
	c->s.cur.size = (int)sizeof c->hdr;
	c->s.cur.callchain = no_chain;
	c->s.cur.nr_callchain = 0;
	c->s.has = 1;
	return 1;
}

static void stream_advance(struct ltap_stream *st)
{
	struct cpu_stream *c = (struct cpu_stream *)st;
	const struct perf_event_header *h;

	while ((h = ltap_ring_next(&c->ring)) != NULL) {
		const uint64_t *v = (const uint64_t *)(h + 1);
		const char *raw;
		uint32_t rawsize;
		uint64_t nr;

		if (h->type == PERF_RECORD_MMAP2 || h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_COMM ||
		    (h->type == PERF_RECORD_EXIT && c->owner->follow)) {
			/* in time order with the samples (stream_apply), not as read:
			 * each CPU's ring is read in turn */
			if (h->size < sizeof *h + SIDE_TRAILER) {
				sampler_side(c, h);
				continue;
			}
			memcpy(&c->s.cur.ts, (const char *)h + h->size - SIDE_TIME_FROM_END, sizeof c->s.cur.ts);
			c->s.cur.side = 1;
			c->s.cur.cpu = c->s.cpu;
			c->s.cur.pid = 0;
			c->s.cur.data = NULL;
			c->s.cur.size = 0;
			c->s.cur.callchain = NULL;
			c->s.cur.nr_callchain = 0;
			c->side = h;
			c->s.has = 1;
			return;
		}
		if ((h->type == PERF_RECORD_SWITCH || h->type == PERF_RECORD_SWITCH_CPU_WIDE) &&
		    c->owner->switch_id >= 0) {
			if (!(h->misc & PERF_RECORD_MISC_SWITCH_OUT) && sampler_switch_in(c, h))
				return;
			continue;
		}
		if (h->type != PERF_RECORD_SAMPLE) {
			sampler_side(c, h);
			continue;
		}
		/* id, ip, pid|tid, time, cpu|res, nr, ips[nr], raw size, raw */
		nr = v[5];
		if (48 + nr * 8 + 4 > (uint64_t)h->size - sizeof *h)
			continue;
		raw = (const char *)(v + 6 + nr);
		memcpy(&rawsize, raw, sizeof rawsize);
		/* ltap reading its rings, symbolizing, running the script: a profile
		 * of the system is not about that, where BPF did not drop them. A
		 * tracepoint's are the kernel filter's to keep or drop: an event of
		 * ltap's may be about another task (source.c) */
		if (rawsize < 8 && (uint32_t)v[2] == c->owner->self)
			continue;
		c->s.cur.side = 0;
		c->s.cur.ts = v[3];
		c->s.cur.cpu = (int)(uint32_t)v[4];
		c->s.cur.pid = (int)(uint32_t)v[2];
		c->s.cur.callchain = v + 6;
		c->s.cur.nr_callchain = (int)nr;
		if (rawsize >= 8 && 48 + nr * 8 + 4 + rawsize <= (uint64_t)h->size - sizeof *h) {
			c->s.cur.data = raw + 4;
			c->s.cur.size = (int)rawsize;
		} else {
			int rec_id = sampler_prof_id(c->owner, v[0]);
			uint16_t type = (uint16_t)rec_id;
			int32_t tid = (int32_t)(v[2] >> 32);
			if (rec_id < 0)
				continue;
			memset(c->hdr, 0, sizeof c->hdr);
			memcpy(c->hdr, &type, sizeof type);
			memcpy(c->hdr + 4, &tid, sizeof tid);
			c->s.cur.data = c->hdr;
			c->s.cur.size = (int)sizeof c->hdr;
		}
		c->s.has = 1;
		return;
	}
	c->s.has = 0;
}

static int stream_fill(struct ltap_stream *st)
{
	struct cpu_stream *c = (struct cpu_stream *)st;
	ltap_ring_refresh(&c->ring);
	if (!c->s.has)
		stream_advance(st);
	return 0;
}

static void stream_apply(struct ltap_stream *st)
{
	struct cpu_stream *c = (struct cpu_stream *)st;
	sampler_side(c, c->side);
}

static const struct ltap_stream_ops sampler_ops = {
	.fill = stream_fill,
	.advance = stream_advance,
	.apply = stream_apply,
};

static void sampler_attr(struct perf_event_attr *a, const struct ltap_sampler_event *e, int track,
			 size_t ring_bytes, int inherit, int on_exec, int switches)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	if (e->tp_id >= 0) {
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = (uint64_t)e->tp_id;
		a->sample_period = 1;
	} else {
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_CPU_CLOCK;
		a->freq = 1;
		a->sample_freq = e->freq;
	}
	a->sample_type = SAMPLE_TYPE;
	a->disabled = 1;
	a->enable_on_exec = (unsigned)on_exec;
	a->inherit = (unsigned)inherit;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->sample_id_all = 1;
	/* wake per batch, never per event */
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(ring_bytes / 4);
	if (track) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->context_switch = (unsigned)switches;
	}
}

static int sampler_add_fd(struct ltap_sampler *s, int fd)
{
	int *n = realloc(s->fds, (size_t)(s->nfds + 1) * sizeof *n);
	if (!n)
		return -ENOMEM;
	s->fds = n;
	s->fds[s->nfds++] = fd;
	return 0;
}

static size_t sampler_pages(size_t ring_kb)
{
	size_t page = (size_t)getpagesize(), want = ring_kb * 1024 / page, n = 1;
	while (n * 2 <= want)
		n *= 2;
	return n < 8 ? 8 : n;
}

/* The kernel refused e's filter (the union of its probes' filters, and
 * what source.c adds): names the probe whose own filter the kernel refuses,
 * with the reason ltap's filter parser (filter.c, the kernel's grammar)
 * gives, since the ioctl says only EINVAL. */
static void sampler_filter_error(struct ltap_sampler *s, const struct ltap_sampler_event *e, int fd)
{
	const struct ltap_source_event *ev = e->src;
	struct tep_event *fmt = ltap_catalog_event(s->cat, e->name);

	for (int i = 0; ev && i < ev->nparts; i++) {
		const struct ltap_source_filter *p = &ev->parts[i];
		char why[1024];
		struct ltap_filter *f;

		if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, p->text) == 0)
			continue;
		f = fmt ? ltap_filter_new(fmt, p->text, NULL, NULL, why, sizeof why) : NULL;
		if (f || !fmt) {
			ltap_filter_free(f);
			snprintf(why, sizeof why, "the kernel refuses it (%s)", strerror(EINVAL));
		}
		ltap_err("%sprobe %s: bad filter '%s': %s", p->where, e->name, p->text, why);
		return;
	}
	ltap_err("probe %s: bad filter: the kernel refuses '%s' (%s)", e->name, e->filter, strerror(EINVAL));
}

/* One event on one CPU for one target: fd into s->fds, output into c's ring. */
static int sampler_open_one(struct ltap_sampler *s, struct cpu_stream *c, const struct ltap_sampler_event *e,
			    pid_t pid, int cpu, int track, size_t pages)
{
	struct perf_event_attr a;
	size_t bytes = pages * (size_t)getpagesize();
	int fd, err;

	sampler_attr(&a, e, track, bytes, pid != -1, s->on_exec, s->switch_id >= 0);
	fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -ENODEV)
			return 1; /* offline CPU */
		ltap_err("sampler: cannot open %s on cpu %d: %s", e->name, cpu, strerror(-err));
		return err;
	}
	if (sampler_add_fd(s, fd)) {
		close(fd);
		return -ENOMEM;
	}
	if (c->s.fd < 0) {
		if ((err = ltap_ring_map(&c->ring, fd, pages)) != 0) {
			ltap_err("sampler: cannot map the ring of cpu %d: %s", cpu, strerror(-err));
			return err;
		}
		c->s.fd = fd;
	} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, c->s.fd) < 0) {
		err = -errno;
		ltap_err("sampler: cannot share the ring of cpu %d: %s", cpu, strerror(-err));
		return err;
	}
	/* system-wide profiles: ltap's samples stop in the kernel when BPF
	 * allows (stream_advance drops them otherwise) */
	if (e->tp_id < 0 && pid == -1 && s->notself >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_BPF, s->notself) < 0) {
		ltap_debug("sampler: ltap's own samples are left out in user space (BPF filter: %s)", strerror(errno));
		close(s->notself);
		s->notself = -errno;
	}
	if (e->filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, e->filter) < 0) {
		sampler_filter_error(s, e, fd);
		return -EINVAL;
	}
	if (e->tp_id < 0) {
		uint64_t id;
		struct prof_id *ni = realloc(s->ids, (size_t)(s->nids + 1) * sizeof *ni);
		if (!ni)
			return -ENOMEM;
		s->ids = ni;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
			ltap_err("sampler: cannot get the id of %s: %s", e->name, strerror(errno));
			return -EIO;
		}
		s->ids[s->nids++] = (struct prof_id){id, e->rec_id};
	}
	return 0;
}

/* Opens every event on every CPU, for pids (their future children too), or
 * system-wide when npids is 0. Disabled until enabled, or with on_exec
 * until the pids exec (a command held at its start gate, counted from its
 * exec as perf record does). The ring of a CPU holds ring_kb of data;
 * MMAP2/COMM/FORK records feed s->syms. 0, or -1 with a logged reason. */
static int sampler_open(struct ltap_sampler *s, const struct ltap_sampler_event *evs, int nev,
			const pid_t *pids, int npids, int on_exec, size_t ring_kb, pid_t self)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	size_t pages = sampler_pages(ring_kb);
	pid_t all = -1;

	s->on_exec = on_exec && npids > 0;
	s->self = self ? (uint32_t)self : UINT32_MAX; /* no pid is 2^32-1: nobody is left out */
	for (int i = 0; i < nev && npids == 0 && self; i++)
		if (evs[i].tp_id < 0) {
			if ((s->notself = ltap_notself_open()) < 0)
				ltap_debug("sampler: ltap's own samples are left out in user space (BPF: %s)",
					  strerror(-s->notself));
			break;
		}
	s->cpus = calloc((size_t)ncpu, sizeof *s->cpus);
	s->streams = calloc((size_t)ncpu, sizeof *s->streams);
	if (!s->cpus || !s->streams)
		return -1;
	if (npids == 0) {
		pids = &all;
		npids = 1;
	}
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct cpu_stream *c = &s->cpus[s->nr];
		int offline = 0;

		c->s.ops = &sampler_ops;
		c->s.fd = -1;
		c->s.cpu = cpu;
		c->owner = s;
		for (int t = 0; t < npids && !offline; t++) {
			for (int i = 0; i < nev; i++) {
				/* one event per target and CPU reports mappings and tasks */
				int e = sampler_open_one(s, c, &evs[i], pids[t], cpu, i == 0, pages);
				if (e < 0)
					return -1;
				if (e > 0) {
					offline = 1;
					break;
				}
			}
		}
		if (c->s.fd >= 0)
			s->streams[s->nr++] = &c->s;
	}
	return 0;
}

static void sampler_close(struct ltap_source *src)
{
	struct ltap_sampler *s = (struct ltap_sampler *)src;

	if (!s)
		return;
	for (int i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	if (s->notself >= 0)
		close(s->notself);
	if (s->cpus) {
		int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
		for (int i = 0; i < ncpu; i++)
			ltap_ring_unmap(&s->cpus[i].ring);
	}
	free(s->cpus);
	free(s->streams);
	free(s->fds);
	free(s->ids);
	free(s);
}

static int sampler_enable(struct ltap_source *src, int on, uint64_t now)
{
	struct ltap_sampler *s = (struct ltap_sampler *)src;

	(void)now;
	if (on && s->on_exec)
		return 0; /* the kernel enables them at the exec, in perf_event_exec() */
	for (int i = 0; i < s->nfds; i++)
		if (ioctl(s->fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0) {
			if (on)
				ltap_err("sampler: cannot enable the perf events: %s", strerror(errno));
			return -errno;
		}
	return 0;
}

static int sampler_streams(struct ltap_source *src, struct ltap_stream ***streams)
{
	struct ltap_sampler *s = (struct ltap_sampler *)src;
	*streams = s->streams;
	return s->nr;
}

/* PERF_RECORD_LOST, counted as the stream reads them */
static void sampler_counts(struct ltap_source *src, int i, struct ltap_source_counts *c)
{
	c->lost = ((struct ltap_sampler *)src)->streams[i]->lost;
}

/* The perf events of what env declares: probes with stacks (their kernel
 * filters by PERF_EVENT_IOC_SET_FILTER) and profiles. */
static int sampler_attach(struct ltap_source *src, struct ltap_source_env *env)
{
	struct ltap_sampler *s = (struct ltap_sampler *)src;
	struct ltap_sampler_event *evs;
	char (*names)[128], **filters;
	int n = 0, rc = 0;

	for (int i = 0; i < env->nevents; i++) {
		n += env->events[i].perf && !env->events[i].switches;
		if (env->events[i].switches)
			s->switch_id = env->events[i].id; /* records of the per-task events, none of its own */
	}
	if (!n)
		return 0;
	s->cat = env->cat;
	if (env->task_changed) {
		s->proc = env->proc;
		s->task_changed = env->task_changed;
		s->task_ud = env->task_ud;
		/* names of the tasks already running; the records keep them right */
		ltap_proc_seed(env->proc);
	}
	evs = calloc((size_t)n, sizeof *evs);
	names = calloc((size_t)n, sizeof *names);
	filters = calloc((size_t)n, sizeof *filters);
	if (!evs || !names || !filters)
		rc = -1;
	n = 0;
	for (int i = 0; i < env->nevents && !rc; i++) {
		struct ltap_source_event *ev = &env->events[i];
		struct ltap_sampler_event *e = &evs[n];
		if (!ev->perf || ev->switches)
			continue;
		e->name = names[n];
		e->src = ev;
		if (ev->sys) {
			snprintf(names[n], sizeof *names, "%s:%s", ev->sys, ev->name);
			e->tp_id = ev->id;
			/* ftrace's own events take no filter (tracefs source) */
			if (strcmp(ev->sys, "ftrace") != 0) {
				e->filter = filters[n] = ltap_source_kernel_filter(ev, env, &rc);
				ev->in_kernel = ev->filter != NULL;
			}
		} else {
			snprintf(names[n], sizeof *names, "profile %lluhz", (unsigned long long)ev->freq);
			e->tp_id = -1;
			e->freq = ev->freq;
			e->rec_id = ev->id;
		}
		n++;
	}
	if (!rc && env->npids) { /* what the per-task events follow, from now on */
		s->follow = env->proc;
		for (int i = 0; i < env->npids; i++)
			ltap_proc_follow(s->follow, env->pids[i], 1);
	}
	if (!rc)
		rc = sampler_open(s, evs, n, env->pids, env->npids, env->command != 0, env->buffer_kb / 8, env->self);
	for (int i = 0; filters && i < n; i++)
		free(filters[i]);
	free(filters);
	free(evs);
	free(names);
	return rc;
}

static const struct ltap_source_ops sampler_ops_src = {
	.name = "perf",
	.loss_note = "perf ring",
	.caps = LTAP_SOURCE_LIVE,
	.attach = sampler_attach,
	.streams = sampler_streams,
	.enable = sampler_enable,
	.counts = sampler_counts,
	.close = sampler_close,
};

struct ltap_source *ltap_sampler_new(struct ltap_symbols *syms)
{
	struct ltap_sampler *s = calloc(1, sizeof *s);

	if (!s)
		return NULL;
	s->src.ops = &sampler_ops_src;
	s->syms = syms;
	s->notself = -ENOENT; /* a run without perf events opens none, and closes none (not fd 0) */
	s->switch_id = -1;
	return &s->src;
}
