/* instance.h: the tracefs instance ltap owns for one run ("ltap-<pid>").
 * Events, filters, pids and options are set only inside it; the top-level
 * buffer and its switches are never touched. */
#ifndef LTAP_INSTANCE_H
#define LTAP_INSTANCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ltap_instance;

/* Removes ltap instances whose owning process no longer runs. Returns the
 * number removed. */
int ltap_instance_reap_stale(void);
/* Turns tracing and events off in instance `name` and removes it; what the
 * guardian and the stale reaper do. 0 or -errno (-EBUSY: a file is open). */
int ltap_instance_remove(const char *name);
/* Creates the instance of host serial (owner.h's name) with tracing off, no
 * overwrite, and buffer_kb per CPU (0: keep the kernel's default): exactly
 * that when exact (the user's -b), else at least that, keeping a larger
 * ring the kernel made the instance with (a resize waits for RCU: 20-30
 * ms here, half of a short run's whole time). NULL with a logged reason. */
struct ltap_instance *ltap_instance_open(int serial, size_t buffer_kb, int exact, int wake_percent);
/* Disables everything and removes the instance; NULL-safe, idempotent.
 * Every fd on the instance's files must be closed before. */
void ltap_instance_close(struct ltap_instance *inst);

const char *ltap_instance_name(struct ltap_instance *inst);
/* Path of a file inside the instance, e.g. "per_cpu/cpu0/trace_pipe_raw". */
int ltap_instance_path(struct ltap_instance *inst, const char *file, char *out, size_t len);

/* Writes a kernel filter; on -EINVAL, reason holds the kernel's explanation. */
int ltap_instance_filter(struct ltap_instance *inst, const char *sys, const char *event,
			 const char *filter, char *reason, size_t reasonlen);
int ltap_instance_enable(struct ltap_instance *inst, const char *sys, const char *event);
/* Restricts events to these pids and, through event-fork, their children. */
int ltap_instance_set_pids(struct ltap_instance *inst, const pid_t *pids, int n);
int ltap_instance_tracing(struct ltap_instance *inst, int on);
/* Writes text into the instance's trace_marker (an ftrace:print event). */
int ltap_instance_marker(struct ltap_instance *inst, const char *text);
/* Copies what programs write to the top-level trace_marker into this
 * instance too (kernels from 6.17 on: options/copy_trace_marker). */
int ltap_instance_copy_markers(struct ltap_instance *inst);
/* What the start's trace_marker writes tell of the ring's clock. */
struct ltap_clock_sync {
	int64_t offset;  /* CLOCK_MONOTONIC - the ring's clock, the middle of what the marks allow */
	int64_t lo, hi;  /* the true offset lies in [offset + lo, offset + hi] */
	uint64_t ts;     /* the ring's time of the last mark */
	int marks;       /* marks read back */
};
/* Measures it with trace_marker writes (needs the catalog's ftrace:print).
 * Call once, before any event is enabled: the marks are read out of the
 * rings again. 0 or -errno (logged). */
struct tep_handle;
int ltap_instance_clock_sync(struct ltap_instance *inst, struct tep_handle *tep, struct ltap_clock_sync *out);
/* Writes text into trace_marker between two CLOCK_MONOTONIC reads (its fd
 * is opened once, at the first mark, and kept). 0 or -errno. */
int ltap_instance_clock_mark(struct ltap_instance *inst, const char *text, uint64_t *before, uint64_t *after);

#endif
