/* stream.h: one time-ordered stream of raw event records (a CPU's ring, a
 * saved trace). Every source gives the loop streams; the loop merges them by
 * timestamp, so live and replay runs are the same loop. */
#ifndef LTAP_STREAM_H
#define LTAP_STREAM_H

#include <stdint.h>

/* Every record's data starts as the kernel's common header does: the event
 * id (common_type, 16 bits) at 0, the thread id (common_pid, 32 bits) at 4.
 * Records ltap makes itself (a profile sample's, a text line's) keep that
 * layout, so the dispatch reads every kind alike. */
#define LTAP_REC_TID_OFFSET 4

struct ltap_rec {
	uint64_t ts;      /* ns on the trace clock (CLOCK_MONOTONIC live) */
	const void *data; /* the event's raw bytes, starting with common_type */
	int size;
	int cpu;
	/* perf ring records only (zero from the ftrace rings): the sampled
	 * process and its call chain, PERF_CONTEXT_* markers included */
	int pid;
	int nr_callchain;
	const uint64_t *callchain;
	/* not an event: the source's own record of the system (a perf ring's
	 * FORK, COMM, MMAP2), kept in time order with the events and given back
	 * to the source (ops->apply) when the merge reaches it */
	int side;
};

struct ltap_stream;

struct ltap_stream_ops {
	/* Reads what the kernel has into the stream's buffers: 0 or -errno. */
	int (*fill)(struct ltap_stream *s);
	/* Moves to the next record; sets s->has and s->cur. */
	void (*advance)(struct ltap_stream *s);
	/* Applies cur, a side record (cur.side), in its place in time: a fork
	 * seen on one CPU before an exec on another stays before it. Needed only
	 * by a source that sets cur.side. */
	void (*apply)(struct ltap_stream *s);
	/* Optional: a run of the merge walked in place (loop.c). Hands fn each
	 * record from cur on whose time is at most `last`, moving on (and
	 * reading more) after each, and stops at the first later record (kept
	 * in cur), before the next record once *hold is nonzero (a handler
	 * changed the timers, the loop is to stop), or at the end of what the
	 * kernel has. A record
	 * fn returns nonzero for stays in cur, and walk returns that value;
	 * else 0. What advance and fill do, without a call per record through
	 * the ops. Never for a stream with side records. */
	int (*walk)(struct ltap_stream *s, uint64_t last, const volatile int *hold,
		    int (*fn)(void *ud, const struct ltap_rec *r), void *ud);
};

struct ltap_stream {
	const struct ltap_stream_ops *ops;
	int fd;          /* for epoll; -1 when the stream is not pollable */
	int cpu;
	int has;         /* cur holds a record not dispatched yet */
	/* no record now, but not at its end: the front end has something to do
	 * first, between batches (a signal came during a read, an event name
	 * wants a descriptor); fill resumes it once that is done */
	int paused;
	struct ltap_rec cur;
	uint64_t lost;   /* events the kernel dropped before reaching us */
	uint64_t skipped; /* read but never dispatched: the final drain ran out of time */
};

#endif
