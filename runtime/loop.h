/* loop.h: the event loop. Merges the streams of every source by timestamp,
 * interleaves timers on the same clock, and wakes per batch, not per event. */
#ifndef LTAP_LOOP_H
#define LTAP_LOOP_H

#include "stream.h"

#include <stdint.h>
#include <sys/types.h>

struct ltap_loop;

struct ltap_loop_hooks {
	void *ud;
	/* One record, in timestamp order. Non-zero halts dispatching. */
	int (*event)(void *ud, const struct ltap_rec *r);
	/* Timer id came due at trace time `at`. Non-zero halts dispatching. */
	int (*timer)(void *ud, int id, uint64_t at);
	/* The child of ltap_loop_child ended (its pidfd became readable). */
	void (*child)(void *ud);
	/* After each batch of ltap_loop_run (optional). */
	void (*batch)(void *ud);
	/* An event the final drain had no time for: non-zero when a handler
	 * would have taken it, so it counts as lost (optional: all count). */
	int (*skip)(void *ud, const struct ltap_rec *r);
};

/* An event newer than a drain's clock minus this waits for the next drain
 * (loop.c says why). */
#define LTAP_LOOP_ORDER_SLACK 10000000ull /* 10 ms */

/* CLOCK_MONOTONIC in ns: the live trace clock. */
uint64_t ltap_now(void);

struct ltap_loop *ltap_loop_new(const struct ltap_loop_hooks *hooks);
/* The hooks from now on (a host makes its loop before it knows them). */
void ltap_loop_set_hooks(struct ltap_loop *loop, const struct ltap_loop_hooks *hooks);
void ltap_loop_free(struct ltap_loop *loop);

int ltap_loop_add_stream(struct ltap_loop *loop, struct ltap_stream *s);
/* A timer first due at trace time `first`, then every `period` ns (0: once).
 * A negative id is the run's own (its end, -d; a check of its own): it runs
 * after every other timer due at the same time, so an interval ending with
 * the run reports. */
int ltap_loop_timer(struct ltap_loop *loop, int id, uint64_t first, uint64_t period);
/* The run's end as timer id at `at`: as a timer, and on a live run its hook
 * is also called as soon as it is due, to stop the run at once
 * (ltap_loop_step returns 0: no ORDER_SLACK waited, the final drain reads
 * every event before it), and again in its place in the final drain. */
int ltap_loop_end_at(struct ltap_loop *loop, int id, uint64_t at);
void ltap_loop_timer_cancel(struct ltap_loop *loop, int id);
/* Ticks of timer id skipped so far (see ltap_loop_set_realtime). */
uint64_t ltap_loop_timer_missed(struct ltap_loop *loop, int id);
/* Dispatch per CPU as read, without the merge (faster, out of order). */
void ltap_loop_set_ordered(struct ltap_loop *loop, int ordered);
/* The clock a live run's drains read (ltap_now unless set): the unit tests
 * run the loop on a fake one. Read once per batch, never per event. */
void ltap_loop_set_clock(struct ltap_loop *loop, uint64_t (*now)(void *ud), void *ud);
/* A live run: the trace clock is the real one. A periodic timer more than
 * a period behind it runs once for the ticks it missed (counted, as timerfd
 * overruns), so a slow handler or a tiny interval never piles up runs; the
 * final drain stops after max_drain ns (0: no drain) and counts the rest in
 * each stream's `skipped`. */
void ltap_loop_set_realtime(struct ltap_loop *loop, uint64_t max_drain);
/* A live run being recorded: every tick runs, late when the loop is behind,
 * as the replay of the recording will run them (it cannot know which ticks
 * a live loop fell behind on). */
void ltap_loop_set_every_tick(struct ltap_loop *loop);

/* A replay: the streams hold all their data (a file), read as they are
 * dispatched; ltap_loop_run runs ltap_loop_replay to their end, the batch
 * hook in each of its pauses. */
void ltap_loop_set_replay(struct ltap_loop *loop);

/* The loop's one fd (its epoll set: rings, timers, wake-ups, watches, the
 * child): readable when ltap_loop_step has work. */
int ltap_loop_fd(const struct ltap_loop *loop);
/* One turn: waits up to timeout_ms (-1: no limit, 0: none) for work, does
 * what is ready (a batch of events with the timers among them, watches),
 * and arms the timer so that the fd becomes readable when the next timer
 * or drain tick comes due. A replay does at most REPLAY_SLICE of work per
 * turn and keeps the fd readable while there is more. Returns 1 while the
 * loop runs, 0 once stopped or halted, -errno on a loop failure. */
int ltap_loop_step(struct ltap_loop *loop, int timeout_ms);
/* ltap_loop_step until the loop stops. Returns 0, or -errno on a failure. */
int ltap_loop_run(struct ltap_loop *loop);
/* Watches child pid through a pidfd: the child hook runs when it ends. 0 or -errno. */
int ltap_loop_child(struct ltap_loop *loop, pid_t pid);
/* Replay: dispatches every event of streams that hold all their data, with
 * the timers that fall before the last one; ltap_loop_finish(end) then runs
 * the timers up to the recorded end. Returns 1 when the front end gets a
 * turn first (a stream paused, a signal woke the loop) and then calls it
 * again, 0 at the end of the streams or when halted. A replay stopped
 * (ltap_loop_stop) ends where it is, without a final drain. */
int ltap_loop_replay(struct ltap_loop *loop);
/* Async-signal-safe and thread-safe: asks the loop to stop after the current batch. */
void ltap_loop_stop(struct ltap_loop *loop);
/* Async-signal-safe and thread-safe: wakes the loop for a batch, without stopping it. */
void ltap_loop_wake(struct ltap_loop *loop);
/* A file the front end watches besides the rings (the metrics server's).
 * fn runs between batches, as timers do, never inside a handler: after the
 * batch in which fd became readable, and after the batch in which the time
 * set by ltap_loop_watch_due came (CLOCK_MONOTONIC ns; 0: none). */
typedef void (*ltap_watch_fn)(void *ud);
/* Returns the watch's id (>= 0), or -errno. */
int ltap_loop_watch(struct ltap_loop *loop, int fd, ltap_watch_fn fn, void *ud);
void ltap_loop_watch_due(struct ltap_loop *loop, int id, uint64_t at);
void ltap_loop_unwatch(struct ltap_loop *loop, int id);
/* Stops dispatching at once (exit(), a script error). */
void ltap_loop_halt(struct ltap_loop *loop);
/* The final drain: reads what the rings still hold and dispatches all of it
 * with the timers that fall before its last event, then the timers due up to
 * `until`: the rule a replay keeps too. Tracing must already be off. Returns
 * how many events it skipped for want of time (ltap_loop_set_realtime). */
uint64_t ltap_loop_finish(struct ltap_loop *loop, uint64_t until);
/* Dispatches now what the rings hold, tracing on, with no time bound
 * (ltap.drain() between the runs of a begin hook). */
void ltap_loop_drain(struct ltap_loop *loop, uint64_t until);

#endif
