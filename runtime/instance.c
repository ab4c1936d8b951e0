/* instance.c: life cycle of the ltap-owned tracefs instance. */
#include "instance.h"

#include "guardian.h"
#include "log.h"
#include "owner.h"
#include "ringclock.h"
#include "ringpage.h"
#include "tracefs_dir.h"

#include <ctype.h>
#include <dirent.h>
#include <event-parse.h>
#include <fcntl.h>
#include <time.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>


struct ltap_instance {
	struct tracefs_instance *ti;
	char name[32];
	int marker_fd; /* trace_marker, opened at the first mark */
};

int ltap_instance_remove(const char *name)
{
	char rel[300], path[4200];
	const char *dir = ltap_tracefs_dir();

	if (!dir)
		return -ENOENT;
	/* rmdir alone clears the events too; tracing off first stops the cost at once */
	snprintf(rel, sizeof rel, "instances/%s/tracing_on", name);
	ltap_tracefs_write(rel, "0", 0);
	snprintf(rel, sizeof rel, "instances/%s/events/enable", name);
	ltap_tracefs_write(rel, "0", 0);
	snprintf(path, sizeof path, "%s/instances/%s", dir, name);
	return rmdir(path) < 0 ? -errno : 0;
}

/* Walks instances/ itself: tracefs_instances() of libtracefs 1.6 leaks its regex. */
static int instance_exists(const char *dir, const char *name)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/instances/%s", dir, name);
	return access(path, F_OK) == 0;
}

int ltap_instance_reap_stale(void)
{
	char path[4200];
	const char *dir = ltap_tracefs_dir();
	struct dirent *de;
	DIR *d;
	int removed = 0, e;

	if (!dir)
		return 0;
	snprintf(path, sizeof path, "%s/instances", dir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		pid_t pid;

		if (!ltap_owner_parse(de->d_name, '-', &pid) || pid == getpid() || ltap_owner_alive(pid))
			continue;
		e = ltap_instance_remove(de->d_name);
		if (e == 0) {
			ltap_info("instance: removed stale instance %s (its ltap is gone)", de->d_name);
			removed++;
		} else if (e != -ENOENT && instance_exists(dir, de->d_name)) {
			/* (one gone meanwhile was removed by its ltap or its guardian) */
			ltap_warn("instance: cannot remove stale instance %s: %s", de->d_name, strerror(-e));
		}
	}
	closedir(d);
	return removed;
}

static int instance_write(struct ltap_instance *inst, const char *file, const char *val)
{
	if (tracefs_instance_file_write(inst->ti, file, val) < 0) {
		ltap_err("instance: cannot write '%s' to %s/%s: %s", val, inst->name, file,
			 strerror(errno));
		return -1;
	}
	return 0;
}

struct ltap_instance *ltap_instance_open(int serial, size_t buffer_kb, int exact, int wake_percent)
{
	struct ltap_instance *inst;
	char val[32];
	int e;

	if (!ltap_tracefs_dir())
		return NULL;
	inst = calloc(1, sizeof *inst);
	if (!inst)
		return NULL;
	inst->marker_fd = -1;
	ltap_owner_name(inst->name, sizeof inst->name, '-', serial);
	/* listed before it exists: a SIGKILL right after the mkdir still undoes it */
	if ((e = ltap_guardian_add(LTAP_GUARD_INSTANCE, inst->name)) != 0) {
		free(inst);
		errno = -e;
		return NULL;
	}
	errno = 0;
	inst->ti = tracefs_instance_create(inst->name);
	if (!inst->ti) {
		e = errno ? errno : EPERM;
		ltap_err("instance: cannot create tracefs instance %s: %s%s", inst->name, strerror(e),
			 e == EACCES || e == EPERM ? " (run ltap as root)" : "");
		ltap_guardian_forget(LTAP_GUARD_INSTANCE, inst->name);
		free(inst);
		errno = e;
		return NULL;
	}
	if (tracefs_trace_off(inst->ti) < 0)
		goto fail;
	/* a full ring drops new events (counted) instead of overwriting old ones */
	tracefs_option_disable(inst->ti, TRACEFS_OPTION_OVERWRITE);
	/* comm comes from ltap's own cache; saved_cmdlines bookkeeping costs every switch */
	tracefs_option_disable(inst->ti, TRACEFS_OPTION_RECORD_CMD);
	if (buffer_kb && !exact) {
		ssize_t made = tracefs_instance_get_buffer_size(inst->ti, 0);
		if (made >= (ssize_t)buffer_kb)
			buffer_kb = 0;
	}
	if (buffer_kb && tracefs_instance_set_buffer_size(inst->ti, buffer_kb, -1) < 0) {
		ltap_err("instance: cannot set buffer size %zu KiB: %s", buffer_kb, strerror(errno));
		goto fail;
	}
	snprintf(val, sizeof val, "%d", wake_percent);
	if (instance_write(inst, "buffer_percent", val))
		goto fail;
	return inst;
fail:
	ltap_instance_close(inst);
	return NULL;
}

void ltap_instance_close(struct ltap_instance *inst)
{
	if (!inst)
		return;
	if (inst->marker_fd >= 0)
		close(inst->marker_fd);
	if (inst->ti) {
		/* tracing stops now; the removal itself (tracefs's teardown, tens
		 * of ms) is the guardian's, beside ltap's end, when there is one */
		tracefs_trace_off(inst->ti);
		tracefs_event_disable(inst->ti, NULL, NULL);
		if (ltap_guardian_undo(LTAP_GUARD_INSTANCE, inst->name) == 0)
			;
		else if (tracefs_instance_destroy(inst->ti) < 0)
			ltap_err("instance: cannot remove %s: %s", inst->name, strerror(errno));
		else
			ltap_guardian_forget(LTAP_GUARD_INSTANCE, inst->name);
		tracefs_instance_free(inst->ti);
	}
	free(inst);
}

const char *ltap_instance_name(struct ltap_instance *inst)
{
	return inst->name;
}

int ltap_instance_path(struct ltap_instance *inst, const char *file, char *out, size_t len)
{
	char *p = tracefs_instance_get_file(inst->ti, file);
	if (!p)
		return -ENOMEM;
	snprintf(out, len, "%s", p);
	tracefs_put_tracing_file(p);
	return 0;
}

int ltap_instance_filter(struct ltap_instance *inst, const char *sys, const char *event,
			 const char *filter, char *reason, size_t reasonlen)
{
	int e;

	reason[0] = 0;
	if (tracefs_event_file_write(inst->ti, sys, event, "filter", filter) >= 0)
		return 0;
	e = errno;
	/* the kernel explains a rejected filter in the event's filter file */
	char *why = tracefs_event_file_read(inst->ti, sys, event, "filter", NULL);
	if (why) {
		char *p = why, *line;
		size_t used = 0;
		while ((line = strsep(&p, "\n")) != NULL) {
			while (isspace((unsigned char)*line) || *line == '#')
				line++;
			/* the file echoes the filter and a caret line; the error line is the reason */
			if (!strstr(line, "error"))
				continue;
			snprintf(reason + used, reasonlen - used, "%s%s", used ? "; " : "", line);
			used = strlen(reason);
		}
		free(why);
	}
	if (!reason[0])
		snprintf(reason, reasonlen, "%s", strerror(e));
	return -e;
}

int ltap_instance_enable(struct ltap_instance *inst, const char *sys, const char *event)
{
	char file[600];

	/* a direct write: tracefs_event_enable scans every event directory */
	snprintf(file, sizeof file, "events/%s/%s/enable", sys, event);
	if (tracefs_instance_file_write(inst->ti, file, "1") < 0) {
		int e = errno ? errno : EINVAL;
		ltap_err("instance: cannot enable %s:%s: %s", sys, event, strerror(e));
		return -e;
	}
	return 0;
}

int ltap_instance_set_pids(struct ltap_instance *inst, const pid_t *pids, int n)
{
	char buf[32];

	if (tracefs_option_enable(inst->ti, TRACEFS_OPTION_EVENT_FORK) < 0) {
		ltap_err("instance: cannot enable option event-fork: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		snprintf(buf, sizeof buf, "%d ", (int)pids[i]);
		if (tracefs_instance_file_append(inst->ti, "set_event_pid", buf) < 0) {
			ltap_err("instance: cannot add pid %d to set_event_pid: %s", (int)pids[i],
				 strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* The instance's trace_marker, opened once and kept: an open inside the
 * clock's measuring window made the first sync microseconds off. */
static int instance_marker_fd(struct ltap_instance *inst)
{
	char path[512];

	if (inst->marker_fd >= 0)
		return inst->marker_fd;
	if (ltap_instance_path(inst, "trace_marker", path, sizeof path))
		return -ENOMEM;
	inst->marker_fd = open(path, O_WRONLY | O_CLOEXEC);
	return inst->marker_fd >= 0 ? inst->marker_fd : -errno;
}

static uint64_t mono_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

int ltap_instance_clock_mark(struct ltap_instance *inst, const char *text, uint64_t *before, uint64_t *after)
{
	int fd = instance_marker_fd(inst);
	size_t len = strlen(text);
	ssize_t w;

	if (fd < 0)
		return fd;
	*before = mono_now();
	w = write(fd, text, len);
	*after = mono_now();
	/* (the kernel cuts a text longer than its marker's limit: written) */
	return w < 0 ? -errno : 0;
}

#define SYNC_MARKS 16
#define SYNC_ROUNDS 4
#define SYNC_WIDE_NS 1000 /* another round while what the marks allow is wider */

/* The start's marks read back from every CPU's ring: ts[i] of mark 0.i. */
static int sync_read(struct ltap_instance *inst, struct tep_handle *tep, char *page, uint64_t *ts)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), found = 0;
	int long_size = tep_get_header_page_size(tep);
	struct tep_event *print = tep_find_event_by_name(tep, "ftrace", "print");
	struct tep_format_field *buf = print ? tep_find_field(print, "buf") : NULL;

	if (!buf)
		return 0;
	if (long_size != 4 && long_size != 8)
		long_size = (int)sizeof(long);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		char file[64], path[512];
		struct ringpage rp;
		const char *d;
		ssize_t n;
		int fd, size;

		snprintf(file, sizeof file, "per_cpu/cpu%d/trace_pipe_raw", cpu);
		if (ltap_instance_path(inst, file, path, sizeof path))
			continue;
		if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
			continue;
		while ((n = read(fd, page, 1 << 20)) > 0) {
			ringpage_load(&rp, page, long_size, (unsigned)n);
			while ((d = ringpage_next(&rp, &size))) {
				struct ltap_ringclock_seg s;
				unsigned short type;
				unsigned seq, i;
				int has;

				memcpy(&type, d, sizeof type);
				if (type != print->id || size <= buf->offset)
					continue;
				if (ltap_ringclock_parse(d + buf->offset, (size_t)(size - buf->offset), &seq, &i, &s,
							 &has) &&
				    seq == 0 && i < SYNC_MARKS && !ts[i]) {
					ts[i] = rp.ts;
					found++;
				}
			}
		}
		close(fd);
	}
	return found;
}

/* Changing trace_clock to mono would cost a ~30 ms RCU grace period at every
 * start. Instead the ring keeps the cheap local clock and trace_marker
 * writes, the only events in the still-empty ring, tell its offset from
 * CLOCK_MONOTONIC: each write's timestamp lies between the CLOCK_MONOTONIC
 * reads around it, so offset >= before - ts and offset <= after - ts for
 * every write, and what all of them allow together is narrower than any
 * one write (250 ns here, where one write takes 400). */
int ltap_instance_clock_sync(struct ltap_instance *inst, struct tep_handle *tep, struct ltap_clock_sync *out)
{
	int e = 0, found = 0;
	uint64_t before[SYNC_MARKS], after[SYNC_MARKS], ts[SYNC_MARKS];
	char *page = malloc(1 << 20);
	int64_t lo = INT64_MIN, hi = INT64_MAX;

	if (!page) {
		e = -ENOMEM;
		goto out;
	}
	for (int round = 0; round < SYNC_ROUNDS && !e && (!found || hi - lo > SYNC_WIDE_NS); round++) {
		int got;

		if (tracefs_trace_on(inst->ti) < 0) {
			e = -errno;
			break;
		}
		for (int i = 0; i < SYNC_MARKS && !e; i++) {
			char text[32];
			ltap_ringclock_format(text, sizeof text, 0, (unsigned)i, NULL);
			e = ltap_instance_clock_mark(inst, text, &before[i], &after[i]);
		}
		tracefs_trace_off(inst->ti);
		memset(ts, 0, sizeof ts);
		if (e || !(got = sync_read(inst, tep, page, ts)))
			break;
		found += got;
		for (int i = 0; i < SYNC_MARKS; i++) {
			if (!ts[i])
				continue;
			if ((int64_t)(before[i] - ts[i]) > lo)
				lo = (int64_t)(before[i] - ts[i]);
			if ((int64_t)(after[i] - ts[i]) < hi)
				hi = (int64_t)(after[i] - ts[i]);
			out->ts = ts[i];
		}
	}
	if (!e && !found)
		e = -ENOENT;
	if (e)
		goto out;
	/* a clock read out of step with the ring (lo > hi) cannot be: the
	 * reads would have to run backwards; the middle is kept anyway */
	out->offset = lo + (hi - lo) / 2;
	out->lo = lo - out->offset;
	out->hi = hi - out->offset;
	out->marks = found;
out:
	if (e)
		ltap_err("instance: cannot relate the trace clock to CLOCK_MONOTONIC: %s", strerror(-e));
	free(page);
	return e;
}

int ltap_instance_tracing(struct ltap_instance *inst, int on)
{
	return (on ? tracefs_trace_on(inst->ti) : tracefs_trace_off(inst->ti)) < 0 ? -errno : 0;
}

int ltap_instance_marker(struct ltap_instance *inst, const char *text)
{
	uint64_t a, b;
	return ltap_instance_clock_mark(inst, text, &a, &b);
}

int ltap_instance_copy_markers(struct ltap_instance *inst)
{
	return tracefs_instance_file_write(inst->ti, "options/copy_trace_marker", "1") < 0 ? -errno : 0;
}
