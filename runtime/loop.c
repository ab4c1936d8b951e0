/* loop.c: epoll over ring fds, a timerfd, a wake eventfd and the command's
 * pidfd. The epoll fd is the loop's one fd (ltap_loop_fd): a host that owns
 * its own loop polls it and calls ltap_loop_step when it is readable.
 *
 * Ordering: a drain notes the clock T0, then reads every ring. An event with a
 * timestamp before T0 can still be unread only if it was being written during
 * the read, which takes far less than ORDER_SLACK; so events up to
 * T0 - ORDER_SLACK are dispatched in merged order and newer ones wait for the
 * next drain. Timers are items of the same merge: a timer at T runs after every
 * event before T and before every event after it, so an interval report never
 * counts an event twice or not at all. */
#include "loop.h"

#include "log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define ORDER_SLACK LTAP_LOOP_ORDER_SLACK
#define DRAIN_TICK 100000000ull   /* 100 ms: latency bound when rings fill slowly */
#define MAX_TIMERS 256
#define MAX_WATCHES 4
#define REPLAY_SLICE 20000000ull  /* 20 ms: a replay's step yields to its host's loop */

/* an fd of the front end: its callback runs between batches */
struct loop_watch {
	int fd;               /* -1: free */
	ltap_watch_fn fn;
	void *ud;
	uint64_t due;         /* 0: none */
	int ready;
};

struct loop_timer {
	int id;
	int active;
	int end;         /* the run's end (ltap_loop_end_at) */
	uint64_t due, period;
	uint64_t missed; /* ticks skipped because the loop was behind the clock */
};

struct ltap_loop {
	struct ltap_loop_hooks hooks;
	int epfd, timerfd, wakefd, childfd; /* childfd: the command's pidfd, or -1 */
	struct ltap_stream **streams;
	int nstreams;
	struct loop_timer timers[MAX_TIMERS];
	int ntimers;
	struct loop_timer *next;  /* the next timer due, when !timers_changed */
	int timers_changed;       /* a timer was added, cancelled, fired or moved */
	/* a run walked in place (ops->walk) stops before its next record: a
	 * handler added or cancelled a timer, the loop is to stop, halt or
	 * yield (ltap_loop_wake) */
	volatile int hold;
	struct loop_watch watches[MAX_WATCHES];
	int ordered;
	uint64_t (*now)(void *ud);
	void *now_ud;
	int realtime;       /* timers on the real clock: missed ticks are skipped */
	uint64_t max_drain; /* ns the final drain may take */
	int draining;       /* in ltap_loop_finish or ltap_loop_drain */
	int every_tick;     /* no tick skipped when behind (ltap_loop_set_every_tick) */
	int replay;         /* ltap_loop_run runs ltap_loop_replay */
	int replaying;      /* in ltap_loop_replay: a wake-up yields */
	uint64_t slice_end; /* a replay step's end (0: none): dispatching yields then */
	unsigned slice_items;
	volatile int stopping;
	volatile int woken; /* ltap_loop_wake since the replay's last turn */
	int halted;
	uint64_t last_drain;  /* when the rings were last read */
};

uint64_t ltap_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t loop_clock(void *ud)
{
	(void)ud;
	return ltap_now();
}

static int loop_watch(struct ltap_loop *loop, int fd, void *ptr)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = ptr};
	return epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

struct ltap_loop *ltap_loop_new(const struct ltap_loop_hooks *hooks)
{
	struct ltap_loop *loop = calloc(1, sizeof *loop);

	if (!loop)
		return NULL;
	loop->hooks = *hooks;
	loop->ordered = 1;
	loop->now = loop_clock;
	loop->max_drain = UINT64_MAX;
	for (int i = 0; i < MAX_WATCHES; i++)
		loop->watches[i].fd = -1;
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	loop->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	loop->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	loop->childfd = -1;
	if (loop->epfd < 0 || loop->timerfd < 0 || loop->wakefd < 0 ||
	    loop_watch(loop, loop->timerfd, &loop->timerfd) || loop_watch(loop, loop->wakefd, &loop->wakefd)) {
		ltap_err("loop: cannot set up epoll: %s", strerror(errno));
		ltap_loop_free(loop);
		return NULL;
	}
	return loop;
}

void ltap_loop_set_hooks(struct ltap_loop *loop, const struct ltap_loop_hooks *hooks)
{
	loop->hooks = *hooks;
}

void ltap_loop_free(struct ltap_loop *loop)
{
	if (!loop)
		return;
	if (loop->epfd >= 0)
		close(loop->epfd);
	if (loop->timerfd >= 0)
		close(loop->timerfd);
	if (loop->wakefd >= 0)
		close(loop->wakefd);
	if (loop->childfd >= 0)
		close(loop->childfd);
	free(loop->streams);
	free(loop);
}

int ltap_loop_fd(const struct ltap_loop *loop)
{
	return loop->epfd;
}

/* A pidfd, not SIGCHLD: a library cannot block or catch a signal of the
 * process that hosts it, and a pidfd says which child ended. */
int ltap_loop_child(struct ltap_loop *loop, pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), e;

	if (fd < 0)
		return -errno;
	if ((e = loop_watch(loop, fd, &loop->childfd))) {
		close(fd);
		return e;
	}
	if (loop->childfd >= 0)
		close(loop->childfd); /* (closing removes it from the epoll set) */
	loop->childfd = fd;
	return 0;
}

int ltap_loop_add_stream(struct ltap_loop *loop, struct ltap_stream *s)
{
	struct ltap_stream **ns = realloc(loop->streams, (size_t)(loop->nstreams + 1) * sizeof *ns);
	if (!ns)
		return -ENOMEM;
	loop->streams = ns;
	ns[loop->nstreams++] = s;
	return s->fd >= 0 ? loop_watch(loop, s->fd, s) : 0;
}

int ltap_loop_timer(struct ltap_loop *loop, int id, uint64_t first, uint64_t period)
{
	loop->timers_changed = 1;
	loop->hold = 1;
	for (int i = 0; i < loop->ntimers; i++) {
		if (!loop->timers[i].active) {
			loop->timers[i] = (struct loop_timer){.id = id, .active = 1, .due = first, .period = period};
			return 0;
		}
	}
	if (loop->ntimers == MAX_TIMERS)
		return -ENOSPC;
	loop->timers[loop->ntimers++] = (struct loop_timer){.id = id, .active = 1, .due = first, .period = period};
	return 0;
}

void ltap_loop_timer_cancel(struct ltap_loop *loop, int id)
{
	loop->timers_changed = 1;
	loop->hold = 1;
	for (int i = 0; i < loop->ntimers; i++)
		if (loop->timers[i].id == id)
			loop->timers[i].active = 0;
}

int ltap_loop_end_at(struct ltap_loop *loop, int id, uint64_t at)
{
	int e = ltap_loop_timer(loop, id, at, 0);

	for (int i = 0; !e && i < loop->ntimers; i++)
		if (loop->timers[i].id == id && loop->timers[i].active)
			loop->timers[i].end = 1;
	return e;
}

uint64_t ltap_loop_timer_missed(struct ltap_loop *loop, int id)
{
	for (int i = 0; i < loop->ntimers; i++)
		if (loop->timers[i].id == id)
			return loop->timers[i].missed;
	return 0;
}

int ltap_loop_watch(struct ltap_loop *loop, int fd, ltap_watch_fn fn, void *ud)
{
	for (int i = 0; i < MAX_WATCHES; i++) {
		struct loop_watch *w = &loop->watches[i];
		int e;
		if (w->fd >= 0)
			continue;
		if ((e = loop_watch(loop, fd, w)))
			return e;
		*w = (struct loop_watch){.fd = fd, .fn = fn, .ud = ud};
		return i;
	}
	return -ENOSPC;
}

void ltap_loop_watch_due(struct ltap_loop *loop, int id, uint64_t at)
{
	loop->watches[id].due = at;
}

void ltap_loop_unwatch(struct ltap_loop *loop, int id)
{
	struct loop_watch *w = &loop->watches[id];
	if (w->fd < 0)
		return;
	epoll_ctl(loop->epfd, EPOLL_CTL_DEL, w->fd, NULL);
	w->fd = -1;
}

/* The watches whose fd was readable or whose time came, after a batch. */
static void loop_run_watches(struct ltap_loop *loop, uint64_t now)
{
	for (int i = 0; i < MAX_WATCHES; i++) {
		struct loop_watch *w = &loop->watches[i];
		if (w->fd < 0 || !(w->ready || (w->due && w->due <= now)))
			continue;
		w->ready = 0;
		w->due = 0;
		w->fn(w->ud);
	}
}

void ltap_loop_set_ordered(struct ltap_loop *loop, int ordered)
{
	loop->ordered = ordered;
}

void ltap_loop_set_realtime(struct ltap_loop *loop, uint64_t max_drain)
{
	loop->realtime = 1;
	loop->max_drain = max_drain;
}

void ltap_loop_set_every_tick(struct ltap_loop *loop)
{
	loop->every_tick = 1;
}

void ltap_loop_set_replay(struct ltap_loop *loop)
{
	loop->replay = 1;
}

void ltap_loop_set_clock(struct ltap_loop *loop, uint64_t (*now)(void *ud), void *ud)
{
	loop->now = now ? now : loop_clock;
	loop->now_ud = ud;
}

void ltap_loop_wake(struct ltap_loop *loop)
{
	uint64_t one = 1;
	loop->woken = 1;
	loop->hold = 1;
	if (write(loop->wakefd, &one, sizeof one) < 0) {
		/* the eventfd is only a wake-up: the caller's flag says it all */
	}
}

void ltap_loop_stop(struct ltap_loop *loop)
{
	loop->stopping = 1;
	ltap_loop_wake(loop);
}

void ltap_loop_halt(struct ltap_loop *loop)
{
	loop->halted = 1;
	ltap_loop_stop(loop);
}

static struct loop_timer *loop_find_next_timer(struct ltap_loop *loop)
{
	struct loop_timer *best = NULL;
	for (int i = 0; i < loop->ntimers; i++) {
		struct loop_timer *t = &loop->timers[i];
		if (t->active && (!best || t->due < best->due || (t->due == best->due && best->id < 0 && t->id >= 0)))
			best = t;
	}
	return best;
}

/* the next timer due, found again only after a timer changed: not a scan
 * of the timers per event */
static struct loop_timer *loop_next_timer(struct ltap_loop *loop)
{
	if (!loop->timers_changed)
		return loop->next;
	loop->timers_changed = 0;
	return loop->next = loop_find_next_timer(loop);
}

static int loop_fire(struct ltap_loop *loop, struct loop_timer *t)
{
	uint64_t at = t->due;
	int id = t->id;

	if (t->period)
		t->due += t->period;
	else
		t->active = 0;
	loop->timers_changed = 1;
	return loop->hooks.timer(loop->hooks.ud, id, at);
}

static int loop_fill_all(struct ltap_loop *loop)
{
	int err = 0;
	for (int i = 0; i < loop->nstreams; i++) {
		int e = loop->streams[i]->ops->fill(loop->streams[i]);
		if (e && !err) {
			ltap_err("loop: cannot read cpu %d ring: %s", loop->streams[i]->cpu, strerror(-e));
			err = e;
		}
	}
	return err;
}

/* The time of the last record of best's run: what the merge would hand
 * out from best before anything else. Up to the next stream's record (on
 * a tie the stream first in the list goes first, as in the scan), the
 * events' watermark, and before the next timer that runs (t: due by tm_wm,
 * and so before any event at or after its time). One stream's run is then
 * walked in place (ops->walk), a comparison per record: one CPU's ring
 * busy while the others idle is one long run. */
static uint64_t loop_run_last(const struct ltap_loop *loop, const struct ltap_stream *next, int next_first,
			      uint64_t ev_wm, const struct loop_timer *t, uint64_t tm_wm)
{
	uint64_t last = UINT64_MAX;

	if (loop->ordered) {
		last = ev_wm;
		/* (next_first: next's time is after best's, so not 0) */
		if (next && next->cur.ts - (uint64_t)next_first < last)
			last = next->cur.ts - (uint64_t)next_first;
	}
	/* (best's first record is before t: t->due is not 0) */
	if (t && t->due <= tm_wm && t->due - 1 < last)
		last = t->due - 1;
	return last;
}

/* Dispatches events up to ev_wm and timers up to tm_wm, in time order (with
 * tm_wm UINT64_MAX, the timers before the last event held), until the clock
 * passes deadline. Returns 1 when it stopped for the deadline. */
static int loop_dispatch(struct ltap_loop *loop, uint64_t ev_wm, uint64_t tm_wm, uint64_t deadline)
{
	struct ltap_stream **ss = loop->streams;
	int n = loop->nstreams;

	while (!loop->halted) {
		struct ltap_stream *best = NULL, *next = NULL; /* the earliest record, and the one after */
		int next_first = 0; /* next is before best in the list */
		struct loop_timer *t;
		uint64_t ts;

		if (deadline != UINT64_MAX && ltap_now() > deadline)
			return 1;
		/* a live run that ends leaves the rest of the batch to the
		 * final drain, which has a time bound */
		if (loop->stopping && loop->realtime && !loop->draining)
			return 0;
		/* a replay reads on without batches: a signal (or the script's
		 * SIGINT handler waiting) gets its turn before the next item */
		if (loop->replaying && (loop->stopping || loop->woken))
			return 0;
		/* a replay step's slice is over: its host's loop gets a turn
		 * (the clock read every 256 items, not per event) */
		if (loop->slice_end && !(++loop->slice_items & 255) && ltap_now() >= loop->slice_end) {
			loop->woken = 1;
			return 0;
		}
		if (loop->ordered) {
			for (int i = 0; i < n; i++)
				if (ss[i]->has && (!best || ss[i]->cur.ts < best->cur.ts)) {
					next = best;
					next_first = next != NULL;
					best = ss[i];
				} else if (ss[i]->has && (!next || ss[i]->cur.ts < next->cur.ts)) {
					next = ss[i];
					next_first = 0;
				}
		} else {
			for (int i = 0; i < n && !best; i++)
				if (ss[i]->has)
					best = ss[i];
		}
		ts = best && (best->cur.ts <= ev_wm || !loop->ordered) ? best->cur.ts : UINT64_MAX;
		if (ts == UINT64_MAX && tm_wm == UINT64_MAX)
			break; /* replay: no event left, and timers wait for the end time */
		t = loop_next_timer(loop);
		if (t && t->due <= tm_wm && t->due <= ts) {
			uint64_t bound = tm_wm != UINT64_MAX ? tm_wm : ts;
			if (loop->realtime && !loop->every_tick && t->period && t->due + t->period <= bound) {
				/* more than a period behind the clock (a slow handler,
				 * a tiny interval): only the last tick due runs, after
				 * the events before it, as a timerfd counts overruns */
				uint64_t k = (bound - t->due) / t->period;
				t->due += k * t->period;
				loop->timers_changed = 1;
				t->missed += k;
				continue;
			}
			if (loop_fire(loop, t))
				loop->halted = 1;
			continue;
		}
		if (ts == UINT64_MAX)
			break;
		/* (a drain with a time bound goes record by record, checking it) */
		if (best->ops->walk && !loop->slice_end && deadline == UINT64_MAX) {
			loop->hold = 0;
			if (best->ops->walk(best, loop_run_last(loop, next, next_first, ev_wm, t, tm_wm), &loop->hold,
					    loop->hooks.event, loop->hooks.ud)) {
				loop->halted = 1;
				break;
			}
			continue;
		}
		if (best->cur.side)
			best->ops->apply(best);
		else if (loop->hooks.event(loop->hooks.ud, &best->cur)) {
			/* no advance: reading on from a pipe could block */
			loop->halted = 1;
			break;
		}
		best->ops->advance(best);
		/* a stream whose pool was full still has older events in the kernel */
		if (!best->has && !best->paused)
			best->ops->fill(best);
		/* nothing goes past a paused stream: its next record may be older */
		if (best->paused)
			return 0;
	}
	return 0;
}

/* The run's end (ltap_loop_end_at), when it is due by now. */
static struct loop_timer *loop_end_due(struct ltap_loop *loop, uint64_t now)
{
	for (int i = 0; i < loop->ntimers; i++)
		if (loop->timers[i].active && loop->timers[i].end && loop->timers[i].due <= now)
			return &loop->timers[i];
	return NULL;
}

static void loop_arm(struct ltap_loop *loop, uint64_t now)
{
	struct loop_timer *t = loop_next_timer(loop);
	uint64_t at = loop->last_drain + DRAIN_TICK; /* not pushed back by watch wake-ups */
	struct itimerspec its = {0};

	/* a timer runs once the events before it can no longer be unread
	 * (ORDER_SLACK after it), but for the run's end: it stops tracing at
	 * once, and the final drain then reads every event before it */
	if (t && t->due + (t->end ? 0 : ORDER_SLACK) < at)
		at = t->due + (t->end ? 0 : ORDER_SLACK);
	for (int i = 0; i < MAX_WATCHES; i++)
		if (loop->watches[i].fd >= 0 && loop->watches[i].due && loop->watches[i].due < at)
			at = loop->watches[i].due;
	if (at <= now)
		at = now + 1;
	its.it_value.tv_sec = (time_t)(at / 1000000000ull);
	its.it_value.tv_nsec = (long)(at % 1000000000ull);
	timerfd_settime(loop->timerfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* One replay slice: what ltap_loop_replay does, for at most REPLAY_SLICE,
 * the batch hook in each pause; the wake-up eventfd stays set while there
 * is more, so a host polling the loop's fd comes back at once. */
static int loop_replay_step(struct ltap_loop *loop)
{
	uint64_t until = ltap_now() + REPLAY_SLICE;

	loop->slice_end = until;
	while (ltap_loop_replay(loop)) {
		if (loop->hooks.batch)
			loop->hooks.batch(loop->hooks.ud);
		if (loop->stopping || loop->halted || ltap_now() >= until) {
			loop->slice_end = 0;
			if (!loop->stopping && !loop->halted)
				ltap_loop_wake(loop);
			return !loop->halted;
		}
	}
	loop->slice_end = 0;
	return 0;
}

int ltap_loop_step(struct ltap_loop *loop, int timeout_ms)
{
	struct epoll_event evs[64];
	struct loop_timer *end;
	uint64_t t0, v;
	int n, drain = 0;

	if (loop->replay) {
		/* the wake-up that kept the fd readable is spent now */
		if (read(loop->wakefd, &v, sizeof v) < 0) {
			/* EAGAIN: none was pending */
		}
		return loop_replay_step(loop);
	}
	if (loop->stopping || loop->halted)
		return 0;
	loop_arm(loop, loop->now(loop->now_ud));
	n = epoll_wait(loop->epfd, evs, 64, timeout_ms);
	if (n < 0) {
		if (errno == EINTR)
			return 1;
		ltap_err("loop: epoll_wait: %s", strerror(errno));
		return -errno;
	}
	for (int i = 0; i < n; i++) {
		void *p = evs[i].data.ptr;
		int watch = p >= (void *)loop->watches && p < (void *)(loop->watches + MAX_WATCHES);
		drain |= !watch;
		if (p == &loop->timerfd || p == &loop->wakefd) {
			if (read(*(int *)p, &v, sizeof v) < 0) {
				/* EAGAIN: already consumed */
			}
		} else if (p == &loop->childfd) {
			/* readable for good once the child ended: stop polling it */
			epoll_ctl(loop->epfd, EPOLL_CTL_DEL, loop->childfd, NULL);
			if (loop->hooks.child)
				loop->hooks.child(loop->hooks.ud);
		} else if (watch) {
			((struct loop_watch *)p)->ready = 1;
		} else if (evs[i].events & (EPOLLHUP | EPOLLERR)) {
			/* a perf event whose task exited stays readable-hung-up:
			 * stop polling it (the drain tick still reads it) */
			epoll_ctl(loop->epfd, EPOLL_CTL_DEL, ((struct ltap_stream *)p)->fd, NULL);
		}
	}
	/* a wake-up for a watch alone (a scrape) reads no ring: the batch
	 * size stays what the rings' watermark and the tick make it, and
	 * the watch sees the state after the last batch; the tick comes
	 * DRAIN_TICK after the last drain whatever woke the loop since */
	t0 = loop->now(loop->now_ud);
	if (loop->realtime && (end = loop_end_due(loop, t0)) != NULL) {
		/* the run's end came: its hook stops the run now, and the timer
		 * stays, to run again in its place among the final drain's
		 * events (what comes after it is not dispatched) */
		loop->hooks.timer(loop->hooks.ud, end->id, end->due);
		return 0;
	}
	if (drain) {
		loop->last_drain = t0;
		if (loop_fill_all(loop))
			return -EIO;
		loop_dispatch(loop, t0 - ORDER_SLACK, t0 - ORDER_SLACK, UINT64_MAX);
		if (loop->hooks.batch)
			loop->hooks.batch(loop->hooks.ud);
	}
	if (!loop->halted)
		loop_run_watches(loop, loop->now(loop->now_ud));
	if (loop->stopping || loop->halted)
		return 0;
	/* a host polling the fd must see it readable when the next timer,
	 * watch or drain tick comes due */
	loop_arm(loop, loop->now(loop->now_ud));
	return 1;
}

int ltap_loop_run(struct ltap_loop *loop)
{
	int r;

	while ((r = ltap_loop_step(loop, -1)) > 0)
		;
	return r < 0 ? r : 0;
}

/* What the rings still hold once the drain ran out of time: read to the end
 * (tracing is off, so it ends) and counted, not dispatched. */
static uint64_t loop_skip_rest(struct ltap_loop *loop)
{
	uint64_t total = 0;

	for (int i = 0; i < loop->nstreams && !loop->halted; i++) {
		struct ltap_stream *s = loop->streams[i];
		s->ops->fill(s);
		while (s->has && !loop->halted) {
			if (s->cur.side) {
				s->ops->apply(s);
			} else if (!loop->hooks.skip || loop->hooks.skip(loop->hooks.ud, &s->cur)) {
				s->skipped++;
				total++;
			}
			s->ops->advance(s);
			if (!s->has)
				s->ops->fill(s);
		}
	}
	return total;
}

/* Dispatches what the rings hold, and the timers up to until; 1 when it
 * stopped at the deadline. */
static int loop_drain(struct ltap_loop *loop, uint64_t until, uint64_t deadline)
{
	int cut = 0;

	loop->draining = 1;
	for (int round = 0; round < 1000000 && !loop->halted && !cut; round++) {
		int any = 0;
		loop_fill_all(loop);
		for (int i = 0; i < loop->nstreams; i++)
			any |= loop->streams[i]->has;
		if (!any)
			break;
		cut = loop_dispatch(loop, UINT64_MAX, UINT64_MAX, deadline);
	}
	if (!cut)
		cut = loop_dispatch(loop, UINT64_MAX, until, deadline);
	loop->draining = 0;
	return cut;
}

/* The end of a run. Every event the rings still hold is dispatched, and a
 * timer runs if it is due by `until` or before the last event, in its place
 * among the events. A replay has no other choice: it learns the recorded end
 * from a mark written after the run's last event, so it cannot hold back a
 * timer that falls before an event; the live run follows the same rule, and
 * so a replay prints what the live run printed (tests/unit/test_loop.c). */
uint64_t ltap_loop_finish(struct ltap_loop *loop, uint64_t until)
{
	uint64_t deadline = loop->max_drain == UINT64_MAX ? UINT64_MAX : ltap_now() + loop->max_drain;

	/* tracing is off: the rings only shrink, so this ends */
	if (loop->max_drain == 0 || loop_drain(loop, until, deadline))
		return loop_skip_rest(loop);
	return 0;
}

void ltap_loop_drain(struct ltap_loop *loop, uint64_t until)
{
	loop_drain(loop, until, UINT64_MAX);
}

int ltap_loop_replay(struct ltap_loop *loop)
{
	int paused = 0;

	/* stopped during the front end's turn: a replay ends where it is */
	if (loop->stopping)
		loop->halted = 1;
	if (loop->halted)
		return 0;
	loop->woken = 0;
	loop_fill_all(loop); /* resumes the streams paused for the last turn */
	for (int i = 0; i < loop->nstreams; i++)
		paused |= loop->streams[i]->paused;
	if (!paused) {
		loop->replaying = 1;
		loop_dispatch(loop, UINT64_MAX, UINT64_MAX, UINT64_MAX);
		loop->replaying = 0;
		for (int i = 0; i < loop->nstreams; i++)
			paused |= loop->streams[i]->paused;
	}
	return !loop->halted && (paused || loop->stopping || loop->woken);
}
