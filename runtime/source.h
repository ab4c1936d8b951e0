/* source.h: where a run's events come from, one ops struct per source as
 * ply's struct provider: the tracefs instance's rings (src_tracepoint.c),
 * the perf rings (src_sampler.c), a trace.dat (src_replay.c) and the text
 * of trace / trace_pipe (src_text.c). A run holds a list of sources and
 * does the same to each, in this order: attach (to what the script
 * declared), streams (for the loop), enable, then after the final drain
 * enable off, finish, close; between batches the sources that paused a
 * stream get their turn. Counts (events read, lost) are read through one
 * function, whoever asks: ltap.lost(), the end-of-run report, --serve.
 *
 * Why this set of ops, and no more: each is something a run does to every
 * source at the same moment. What only a constructor knows (a file to
 * replay, the formats it brings, a text trace's name table) stays in the
 * source's own header; the optional ops are the few things only one source
 * has (markers, a recording's gate marks, a recorded start and end, a pause
 * for the front end). */
#ifndef LTAP_SOURCE_H
#define LTAP_SOURCE_H

#include "stream.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ltap_catalog;
struct ltap_proc;
struct ltap_source;

/* One probe's own filter of an event, to name it when the kernel refuses
 * the union. */
struct ltap_source_filter {
	const char *text;
	const char *where; /* "file:line:" of the probe */
};

/* One event the script's probes want, as the descriptors say it. */
struct ltap_source_event {
	int id;                /* the common_type its records carry */
	const char *sys, *name; /* NULL for a profile */
	const char *filter;    /* the union of its probes' filters, or NULL (some probe takes all) */
	const struct ltap_source_filter *parts; /* each distinct filter of the union */
	int nparts;
	int perf;              /* served by the perf rings (call chains) */
	int task_only;         /* followed for ltap's task names, no probe of the script's */
	uint64_t freq;         /* a cpu-clock profile: samples per second per CPU */
	/* the switches in of the -p / -c targets as perf's context-switch
	 * records give them (each in the task's own context, whoever ran
	 * before): records of this id, common_pid the task, no data */
	int switches;
	int in_kernel;         /* set by attach: the kernel applies `filter` */
};

/* Whether r's source began a held command's records at its exec itself
 * (gate.h), so no start gate applies to it in user space: the perf rings'
 * records do (enable_on_exec), and they alone carry a call chain
 * (stream.h). */
static inline int ltap_rec_gated(const struct ltap_rec *r)
{
	return r->callchain != NULL;
}

/* What a run gives its sources at attach. */
struct ltap_source_env {
	struct ltap_source_event *events;
	int nevents;
	const pid_t *pids;     /* the -p threads, or the -c command; none: system-wide */
	int npids;
	pid_t command;         /* a -c command held at its start gate (its events count from its exec), or 0 */
	size_t buffer_kb;      /* per-CPU ring size */
	int buffer_exact;      /* buffer_kb is the user's (-b), not a least size ltap chose */
	int serial;            /* the host's number in its process (owner.h) */
	pid_t self;            /* the process whose own events are left out (the
				* ltap command's, for its ring reads), or 0 */
	const char *record;    /* --record FILE, or NULL */
	int verbose;
	struct ltap_catalog *cat;
	struct ltap_proc *proc;
	/* Set when no tracefs task event follows the tasks (a live run of
	 * profiles only): the perf rings' COMM and FORK records keep proc's
	 * names, and each tid whose name changed is told here (exec: by an
	 * exec). */
	void (*task_changed)(void *ud, int tid, int exec);
	void *task_ud;
};

/* What a stream has read and lost so far (ltap_source_counts). */
struct ltap_source_counts {
	uint64_t read;         /* events read, by the kernel's count */
	int counts_read;       /* the source counts reads */
	uint64_t lost;         /* dropped by the kernel (full ring), or skipped at the end */
};

/* What a source is (struct ltap_source_ops caps): a run asks these of its
 * sources, never which source it holds. */
enum {
	/* It reads this machine's kernel as it runs: the trace clock is now
	 * (timers keep real time, the loop paces itself to it, the end is now),
	 * the kernel's state is changed (stale leftovers are reaped first, the
	 * probes' costs are told), and -p, -c and counters apply. Without it
	 * the events are a saved trace's: its own clock, nothing to change. */
	LTAP_SOURCE_LIVE = 1 << 0,
};

struct ltap_source_ops {
	const char *name;      /* "tracefs", "perf", "trace.dat", "text" */
	unsigned caps;         /* LTAP_SOURCE_* */
	/* after a CPU's count in the loss message ("cpu0 5 (perf ring)"), or NULL */
	const char *loss_note;
	/* Turns what env declares into kernel (or file) state and opens the
	 * streams; a source none of the events is for does nothing. Not yet
	 * enabled. 0, or -1 with a logged reason. */
	int (*attach)(struct ltap_source *s, struct ltap_source_env *env);
	/* Its streams, from attach on. */
	int (*streams)(struct ltap_source *s, struct ltap_stream ***out);
	/* Starts (on) or stops the flow of events; now is the run's start or
	 * end on the trace clock. 0 or -errno. NULL: nothing to switch. */
	int (*enable)(struct ltap_source *s, int on, uint64_t now);
	/* Stream i's counts, without the events the final drain skipped (the
	 * caller adds them). NULL: nothing read or lost but what the loop saw. */
	void (*counts)(struct ltap_source *s, int i, struct ltap_source_counts *c);
	/* After the final drain: what is left to write (a recording) or to tell
	 * (a read error, lines that were no events). 0, or -1 when the run
	 * failed for it (logged). NULL: nothing. */
	int (*finish)(struct ltap_source *s);
	/* Frees everything; NULL-safe. Kernel state is gone after it. */
	void (*close)(struct ltap_source *s);

	/* optional: */
	/* Between batches (the front end's turn, outside any handler): does
	 * what a paused stream waits for. */
	void (*between)(struct ltap_source *s);
	/* Writes text into the trace, in order with the events (ltap.mark).
	 * 0 or -errno. */
	int (*mark)(struct ltap_source *s, const char *text);
	/* A command pid waits at a start gate from now on (ltap.measure): a
	 * recording notes it, so its replay counts what the live run counted. */
	void (*hold)(struct ltap_source *s, int pid);
	/* The recorded run's start and end on the trace clock (0: not known;
	 * a live run's are the clock's). */
	void (*span)(struct ltap_source *s, uint64_t *start, uint64_t *end);
	/* How far a replay's input has been read: done of total, in the unit
	 * returned (progress.h: bytes or ns of trace; total 0: not known), or
	 * -1 when it cannot tell. For a progress line, between batches. */
	int (*progress)(struct ltap_source *s, uint64_t *done, uint64_t *total);
};

/* Every source starts with this. */
struct ltap_source {
	const struct ltap_source_ops *ops;
};

/* Calls fn with the counts of every stream of every source, the events the
 * final drain skipped included in lost: the one reader of losses
 * (ltap.lost(), the end-of-run report, --serve). */
typedef void (*ltap_source_count_fn)(void *ud, const struct ltap_source *s, const struct ltap_stream *st,
				     const struct ltap_source_counts *c);
void ltap_sources_counts(struct ltap_source *const *s, int n, ltap_source_count_fn fn, void *ud);
/* The filter the kernel applies to ev (ev->filter, and ltap left out when
 * the run is system-wide), or NULL for none; caller frees. *err is -ENOMEM
 * when it could not be made. */
char *ltap_source_kernel_filter(const struct ltap_source_event *ev, const struct ltap_source_env *env, int *err);
#endif
