/* test_loop.c: the event loop (runtime/loop.c) over fake streams and a fake
 * clock, no kernel: merge order, timers among the events, the ordering slack,
 * --unordered, the end of a run, and the rule that makes a replay print what
 * the live run printed.
 *
 * The rule for the end of a run: every event the rings still hold is
 * dispatched (the final drain), and a timer runs if it is due at or before
 * the end `until` or before the last event dispatched, in its place among
 * the events. A live run and the replay of its recording hold the same
 * events and the same `until` (the recording's end mark), so they run the
 * same timers: the replay cannot know the end mark before it reads it, which
 * is after every event of the run, so "no timer after until" could not be
 * kept by a replay. */
#include "loop.h"

#include "check.h"

#include <stdlib.h>
#include <string.h>

#define CHECK_LOG(w, want)                                                           \
	do {                                                                         \
		checks++;                                                            \
		if (strcmp((w)->log, (want)) != 0) {                                 \
			failures++;                                                  \
			fprintf(stderr, "%s:%d: dispatched\n  '%s'\nexpected\n  '%s'\n", \
				__FILE__, __LINE__, (w)->log, (want));               \
		}                                                                    \
	} while (0)

#define MS 1000000ull
/* fake times start at 1 s: the loop arms its timerfd at fake absolute times,
 * which are then in the past and expire at once, so every batch runs */
#define BASE (1000 * MS)
#define AT(ms) (BASE + (uint64_t)(ms) * MS)
#define MAXREC 64
#define MAXSTREAMS 4

/* A ring: record i has time ts[i] and is readable from time seen[i] on (the
 * kernel commits it a little after it took the time stamp). */
struct fake {
	struct ltap_stream s;
	uint64_t ts[MAXREC], seen[MAXREC];
	int n, next, readable;
	int pause_at;      /* pauses once before record pause_at (0: never) */
	struct world *w;
};

struct world {
	struct fake f[MAXSTREAMS];
	int nf;
	uint64_t now;      /* the fake clock */
	int all_readable;  /* tracing is off: the final drain reads everything */
	const uint64_t *steps; /* the clock at each batch after the first */
	int nsteps, step;
	uint64_t stop;     /* live: ltap_loop_stop once the clock reaches it */
	int halt_after;    /* return non-zero from the nth hook call (1-based) */
	int walks;         /* the streams walk their runs (ops->walk) */
	uint64_t wake_on;  /* ltap_loop_wake on the event at this time (a signal) */
	int calls;
	struct {           /* a one-shot timer a handler adds on an event */
		uint64_t on, delay;
		int id;
	} add;
	struct ltap_loop *loop;
	char log[8192];
};

static void world_log(struct world *w, const char *text)
{
	size_t used = strlen(w->log);
	snprintf(w->log + used, sizeof w->log - used, "%s", text);
}

static unsigned long long ms_of(uint64_t ts)
{
	return (unsigned long long)((ts - BASE) / MS);
}

static void fake_set(struct fake *f)
{
	f->s.has = f->next < f->readable;
	if (f->s.has)
		f->s.cur.ts = f->ts[f->next];
}

static int fake_fill(struct ltap_stream *s)
{
	struct fake *f = (struct fake *)s;
	f->s.paused = 0; /* the front end had its turn */
	/* a ring is first in, first out: a record waits for the ones before it */
	while (f->readable < f->n && (f->w->all_readable || f->seen[f->readable] <= f->w->now))
		f->readable++;
	if (!f->s.has)
		fake_set(f);
	return 0;
}

static void fake_advance(struct ltap_stream *s)
{
	struct fake *f = (struct fake *)s;
	f->next++;
	if (f->next == f->pause_at) {
		/* as a text trace's name to declare: no record until the front end's turn */
		f->pause_at = 0;
		f->s.has = 0;
		f->s.paused = 1;
		return;
	}
	fake_set(f);
}

static const struct ltap_stream_ops fake_ops = {
	.fill = fake_fill,
	.advance = fake_advance,
};

/* a run of the merge walked as src_tracepoint.c's ring_walk does */
static int fake_walk(struct ltap_stream *s, uint64_t last, const volatile int *hold,
		     int (*fn)(void *ud, const struct ltap_rec *r), void *ud)
{
	int e;

	for (;;) {
		if (!s->has)
			fake_fill(s);
		if (!s->has || s->cur.ts > last || *hold)
			return 0;
		if ((e = fn(ud, &s->cur)) != 0)
			return e;
		fake_advance(s);
	}
}

static const struct ltap_stream_ops fake_walk_ops = {
	.fill = fake_fill,
	.advance = fake_advance,
	.walk = fake_walk,
};

static int hook_event(void *ud, const struct ltap_rec *r)
{
	struct world *w = ud;
	char text[32];

	snprintf(text, sizeof text, "%c%llu ", 'a' + r->cpu, ms_of(r->ts));
	world_log(w, text);
	if (w->add.id && r->ts == w->add.on)
		ltap_loop_timer(w->loop, w->add.id, r->ts + w->add.delay, 0);
	if (w->wake_on && r->ts == w->wake_on)
		ltap_loop_wake(w->loop);
	return ++w->calls == w->halt_after;
}

static int hook_timer(void *ud, int id, uint64_t at)
{
	struct world *w = ud;
	char text[32];

	snprintf(text, sizeof text, "T%d@%llu ", id, ms_of(at));
	world_log(w, text);
	if (id < 0)
		return 1; /* the run's end (-d): nothing after it, as bindings/timer.c */
	return ++w->calls == w->halt_after;
}

static void hook_batch(void *ud)
{
	struct world *w = ud;
	world_log(w, "| ");
	if (w->step < w->nsteps)
		w->now = w->steps[w->step++];
	else
		w->now += 10 * MS;
	if (w->now >= w->stop)
		ltap_loop_stop(w->loop);
}

static uint64_t fake_clock(void *ud)
{
	return ((struct world *)ud)->now;
}

/* stream i gets records at the given ms, each readable `lag` ms later */
static void world_stream(struct world *w, const int *ms, int n, int lag)
{
	struct fake *f = &w->f[w->nf];
	f->w = w;
	f->s.ops = w->walks ? &fake_walk_ops : &fake_ops;
	f->s.fd = -1;
	f->s.cpu = w->nf;
	f->s.cur.cpu = w->nf;
	for (int i = 0; i < n; i++) {
		f->ts[i] = AT(ms[i]);
		f->seen[i] = AT(ms[i] + lag);
	}
	f->n = n;
	w->nf++;
}

static void world_start(struct world *w, int ordered)
{
	struct ltap_loop_hooks h = {
		.ud = w, .event = hook_event, .timer = hook_timer, .batch = hook_batch,
	};
	w->loop = ltap_loop_new(&h);
	if (!w->loop) {
		fprintf(stderr, "test_loop: cannot create a loop\n");
		exit(1);
	}
	ltap_loop_set_ordered(w->loop, ordered);
	ltap_loop_set_clock(w->loop, fake_clock, w);
	for (int i = 0; i < w->nf; i++)
		ltap_loop_add_stream(w->loop, &w->f[i].s);
}

/* as bindings/ctx.c runs a live run: the loop until stopped, then tracing
 * off and the final drain up to the time the loop stopped */
static void world_live(struct world *w, uint64_t first)
{
	uint64_t until;
	w->now = first;
	CHECK(ltap_loop_run(w->loop) == 0);
	until = w->now;
	w->all_readable = 1;
	world_log(w, "end ");
	ltap_loop_finish(w->loop, until);
}

/* as bindings/ctx.c runs a replay of a recording that ends at `end` */
static void world_replay(struct world *w, uint64_t end)
{
	w->all_readable = 1;
	for (int i = 0; i < w->nf; i++)
		w->f[i].s.ops->fill(&w->f[i].s);
	ltap_loop_replay(w->loop);
	world_log(w, "end ");
	ltap_loop_finish(w->loop, end);
}

static void world_free(struct world *w)
{
	ltap_loop_free(w->loop);
	memset(w, 0, sizeof *w);
}

/* Merge order: by time across streams; on a tie, the lower stream first. */
static void test_merge(void)
{
	static struct world w;
	world_stream(&w, (int[]){1, 4, 7}, 3, 0);
	world_stream(&w, (int[]){2, 4, 8}, 3, 0);
	world_stream(&w, (int[]){3}, 1, 0);
	world_start(&w, 1);
	world_replay(&w, 0);
	CHECK_LOG(&w, "a1 b2 c3 a4 b4 a7 b8 end ");
	world_free(&w);
}

/* A timer at T runs after every event before T and before every event at T
 * or after: an interval report counts each event once, in one interval. A
 * timer a handler adds runs in its place too. */
static void test_timer_atomic(void)
{
	static struct world w;
	world_stream(&w, (int[]){5, 10, 20, 30}, 4, 0);
	world_stream(&w, (int[]){15, 20, 21}, 3, 0);
	world_start(&w, 1);
	CHECK(ltap_loop_timer(w.loop, 1, AT(10), 10 * MS) == 0);
	CHECK(ltap_loop_timer(w.loop, 2, AT(21), 0) == 0);
	w.add.on = AT(15), w.add.delay = 2 * MS, w.add.id = 3;
	world_replay(&w, AT(40));
	CHECK_LOG(&w, "a5 T1@10 a10 b15 T3@17 T1@20 a20 b20 T2@21 b21 T1@30 a30 end T1@40 ");
	world_free(&w);

	/* the same, live, with drains that cut the run anywhere */
	world_stream(&w, (int[]){5, 10, 20, 30}, 4, 0);
	world_stream(&w, (int[]){15, 20, 21}, 3, 0);
	w.steps = (const uint64_t[]){AT(21), AT(27), AT(30), AT(31), AT(60)};
	w.nsteps = 5;
	w.stop = AT(40);
	world_start(&w, 1);
	ltap_loop_timer(w.loop, 1, AT(10), 10 * MS);
	ltap_loop_timer(w.loop, 2, AT(21), 0);
	w.add.on = AT(15), w.add.delay = 2 * MS, w.add.id = 3;
	ltap_loop_timer_cancel(w.loop, 1);
	ltap_loop_timer(w.loop, 1, AT(10), 10 * MS); /* a reused slot */
	world_live(&w, AT(12));
	CHECK_LOG(&w, "| "                   /* drain at 12: up to 2 */
		      "a5 T1@10 a10 | "      /* at 21: up to 11 */
		      "b15 T3@17 | "         /* at 27: up to 17 */
		      "T1@20 a20 b20 | "     /* at 30: up to 20 */
		      "T2@21 b21 | "         /* at 31: up to 21; stopped at 60 */
		      "end T1@30 a30 T1@40 T1@50 T1@60 ");
	world_free(&w);
}

/* Drains at 110, 120 and 140 over two streams: b's event at 105 is
 * committed late, at 112; a timer is due at 107. */
static void slack_run(struct world *w, int ordered)
{
	world_stream(w, (int[]){100, 108, 130}, 3, 0);
	world_stream(w, (int[]){105}, 1, 7);
	w->steps = (const uint64_t[]){AT(120), AT(140)};
	w->nsteps = 2;
	w->stop = AT(150);
	world_start(w, ordered);
	ltap_loop_timer(w->loop, 1, AT(107), 0);
	world_live(w, AT(110));
}

/* The ordering slack. A drain at clock N reads every ring, but an event
 * stamped just before N may still be in the kernel's hands (stamped, not yet
 * committed) and so missing from this read: had the drain dispatched up to
 * N, that event would come next drain, after newer ones. So a drain
 * dispatches only up to N - slack, and newer events wait; the kernel commits
 * an event within microseconds, far below the 10 ms slack. Here a's 108
 * waits for b's 105, committed after the drain at 110. */
static void test_slack(void)
{
	static struct world w;
	slack_run(&w, 1);
	/* at 110: up to 100; at 120: up to 110; at 140: up to 130 */
	CHECK(LTAP_LOOP_ORDER_SLACK == 10 * MS);
	CHECK_LOG(&w, "a100 | b105 T1@107 a108 | a130 | end ");
	world_free(&w);
}

/* --unordered: each drain dispatches every event it read, stream by stream,
 * without the merge or the slack; timers still wait for the slack. */
static void test_unordered(void)
{
	static struct world w;
	slack_run(&w, 0);
	CHECK_LOG(&w, "a100 a108 | b105 T1@107 | a130 | end ");
	world_free(&w);
}

/* The end of a live run: the final drain dispatches what the rings still
 * hold, newer than the slack or after the stop; a timer runs if due by the
 * stop (35, here exactly: timer 2) or before the last event (40 < 45). */
static void test_end(void)
{
	static struct world w;
	world_stream(&w, (int[]){10, 20, 30, 45}, 4, 0);
	w.steps = (const uint64_t[]){AT(25), AT(35)};
	w.nsteps = 2;
	w.stop = AT(35);
	world_start(&w, 1);
	ltap_loop_timer(w.loop, 1, AT(10), 10 * MS);
	ltap_loop_timer(w.loop, 2, AT(35), 0);
	ltap_loop_timer(w.loop, 3, AT(36), 0);
	world_live(&w, AT(15));
	CHECK_LOG(&w, "| T1@10 a10 | end T1@20 a20 T1@30 a30 T2@35 T3@36 T1@40 a45 ");
	world_free(&w);

	/* a handler that halts (exit(), an error): nothing after it, not even
	 * in the final drain */
	world_stream(&w, (int[]){10, 20, 30, 45}, 4, 0);
	w.steps = (const uint64_t[]){AT(25), AT(35)};
	w.nsteps = 2;
	w.stop = AT(35);
	w.halt_after = 4;
	world_start(&w, 1);
	ltap_loop_timer(w.loop, 1, AT(10), 10 * MS);
	world_live(&w, AT(15));
	CHECK_LOG(&w, "| T1@10 a10 | end T1@20 a20 ");
	world_free(&w);
}

/* A live run whose loop fell far behind the clock (a slow handler, a
 * loaded machine): a periodic timer runs once, at the last tick due, for the
 * ticks it missed, which are counted; but never past the run's end (-d,
 * ltap_loop_end_at), so the tick due before the end still runs before it,
 * as when the loop keeps up (ltap stat -I's last interval;
 * tests/live/ticks.py counts on it). */
static void test_behind(void)
{
	static struct world w;

	world_stream(&w, (int[]){10, 20}, 2, 0);
	w.steps = (const uint64_t[]){AT(1000)};
	w.nsteps = 1;
	w.stop = AT(1000);
	world_start(&w, 1);
	ltap_loop_set_realtime(w.loop, 1000 * MS);
	ltap_loop_timer(w.loop, 1, AT(100), 100 * MS);
	ltap_loop_end_at(w.loop, -1, AT(350));
	/* as bindings/host.c runs -d: the final drain up to the end's time */
	w.now = AT(15);
	CHECK(ltap_loop_run(w.loop) == 0);
	w.all_readable = 1;
	world_log(&w, "end ");
	ltap_loop_finish(w.loop, AT(350));
	CHECK_LOG(&w, "| end a10 a20 T1@300 T-1@350 ");
	CHECK(ltap_loop_timer_missed(w.loop, 1) == 2);
	world_free(&w);
}

/* A replay runs the timers of its recording up to the recorded end: the
 * ones between the last event and the end too, one due exactly at the end
 * too, none after it. Without an end mark (a text trace) the end is the
 * last event. */
static void test_replay_end(void)
{
	static struct world w;
	world_stream(&w, (int[]){10, 20}, 2, 0);
	world_start(&w, 1);
	ltap_loop_timer(w.loop, 1, AT(10), 10 * MS);
	world_replay(&w, AT(40));
	CHECK_LOG(&w, "T1@10 a10 T1@20 a20 end T1@30 T1@40 ");
	world_free(&w);

	world_stream(&w, (int[]){10, 20, 25}, 3, 0);
	world_start(&w, 1);
	ltap_loop_timer(w.loop, 1, AT(10), 10 * MS);
	world_replay(&w, AT(25));
	CHECK_LOG(&w, "T1@10 a10 T1@20 a20 a25 end ");
	world_free(&w);
}

static uint64_t rnd_state;

static int rnd(int n)
{
	rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
	return (int)((rnd_state >> 33) % (uint64_t)n);
}

struct plan {
	int ns, n[MAXSTREAMS], ms[MAXSTREAMS][MAXREC], lag[MAXSTREAMS][MAXREC];
	int nt, first[3], period[3];
	int stop, halt_after;
	uint64_t steps[64];
	int nsteps;
};

static void log_strip(char *log, const char *mark)
{
	size_t n = strlen(mark);
	for (char *c; (c = strstr(log, mark));)
		memmove(c, c + n, strlen(c + n) + 1);
}

/* A random plan from seed: streams of records (with runs: most records
 * a few ms apart, some at the same time), each committed under the slack
 * after its time stamp, timers, a stop, a handler that may halt, the
 * clock's steps. Returns the start (ms). */
static uint64_t plan_random(struct plan *p, uint64_t seed, int runs)
{
	uint64_t start, clock;

	memset(p, 0, sizeof *p);
	rnd_state = seed;
	p->ns = 1 + rnd(3);
	for (int i = 0; i < p->ns; i++) {
		int t = rnd(20);
		p->n[i] = rnd(runs ? 30 : 12);
		for (int k = 0; k < p->n[i]; k++) {
			t += !runs ? rnd(40) : rnd(3) ? rnd(4) : rnd(40);
			p->ms[i][k] = t;
			p->lag[i][k] = rnd((int)(LTAP_LOOP_ORDER_SLACK / MS));
		}
	}
	p->nt = rnd(4);
	for (int t = 0; t < p->nt; t++) {
		p->first[t] = rnd(120);
		p->period[t] = rnd(3) ? 5 + rnd(60) : 0;
	}
	p->stop = rnd(400);
	p->halt_after = rnd(4) ? 0 : 1 + rnd(30);
	start = clock = (uint64_t)rnd(30);
	for (p->nsteps = 0; p->nsteps < 64; p->nsteps++) {
		clock += 1 + (uint64_t)rnd(70);
		p->steps[p->nsteps] = AT(clock);
	}
	return start;
}

static void plan_world(struct world *w, const struct plan *p)
{
	for (int i = 0; i < p->ns; i++) {
		world_stream(w, p->ms[i], p->n[i], 0);
		for (int k = 0; k < p->n[i]; k++)
			w->f[i].seen[k] = AT(p->ms[i][k] + p->lag[i][k]);
	}
	w->halt_after = p->halt_after;
	world_start(w, 1);
	for (int t = 0; t < p->nt; t++)
		ltap_loop_timer(w->loop, t + 1, AT(p->first[t]), (uint64_t)p->period[t] * MS);
}

/* A live run and the replay of its recording dispatch the same sequence,
 * whatever the drains, the stop, the lags under the slack, the ties and a
 * handler that halts: the replay reads the same events and ends at the
 * live run's `until`. */
static void test_live_is_replay(void)
{
	static struct world live, replay;
	static struct plan p;
	int differ = 0;

	for (int seed = 1; seed <= 2000; seed++) {
		uint64_t until, start;
		start = plan_random(&p, (uint64_t)seed, 0);
		plan_world(&live, &p);
		live.steps = p.steps;
		live.nsteps = p.nsteps;
		live.stop = AT(p.stop);
		world_live(&live, AT(start));
		until = live.now;

		plan_world(&replay, &p);
		world_replay(&replay, until);

		/* the drain and end marks aside, the two sequences are the same */
		log_strip(live.log, "| ");
		log_strip(live.log, "end ");
		log_strip(replay.log, "end ");
		if (strcmp(live.log, replay.log) != 0 && differ++ < 3)
			fprintf(stderr, "seed %d: until %llu\n  live   %s\n  replay %s\n", seed,
				ms_of(until), live.log, replay.log);
		world_free(&live);
		world_free(&replay);
	}
	CHECK(differ == 0);
}

/* A run walked in place (ops->walk: one stream's records up to the next
 * stream's, the watermark, the next timer) is the merge: the same
 * sequence, drains and stop marks included, whatever the plan; a timer a
 * handler adds ends the run, and runs in its place. */
static void test_walk_is_merge(void)
{
	static struct world merge, walk;
	static struct plan p;
	int differ = 0;

	for (int seed = 1; seed <= 2000; seed++) {
		int add;

		plan_random(&p, (uint64_t)seed * 7919u, 1);
		add = rnd(2);
		walk.walks = 1;
		for (struct world *w = &merge; w; w = w == &merge ? &walk : NULL) {
			plan_world(w, &p);
			w->steps = p.steps;
			w->nsteps = p.nsteps;
			w->stop = AT(p.stop);
			if (add) { /* a handler's one-shot timer, due inside a run */
				w->add.on = AT(p.n[0] ? p.ms[0][0] : 0);
				w->add.delay = 1 * MS;
				w->add.id = 9;
			}
			world_live(w, p.steps[0] - MS);
		}
		if (strcmp(merge.log, walk.log) != 0 && differ++ < 3)
			fprintf(stderr, "seed %d:\n  merge %s\n  walk  %s\n", seed, merge.log, walk.log);
		world_free(&merge);
		world_free(&walk);
	}
	CHECK(differ == 0);
}

/* A replay yields to the front end between batches: at a stream that
 * paused (a text trace's new event name, a signal in a read) and when a
 * signal woke the loop, before the next item; timers past the pause wait,
 * and the next call goes on where it stopped. A stop in the front end's
 * turn ends the replay there. */
static void test_replay_pause(void)
{
	static struct world w;
	static const int a[] = {0, 10, 20, 30};
	static const int b[] = {5, 40};

	world_stream(&w, a, 4, 0);
	world_stream(&w, b, 2, 0);
	w.f[0].pause_at = 2;
	w.all_readable = 1;
	world_start(&w, 1);
	ltap_loop_timer(w.loop, 1, AT(25), 0);
	CHECK(ltap_loop_replay(w.loop) == 1);
	CHECK_LOG(&w, "a0 b5 a10 ");
	world_log(&w, "| ");
	CHECK(ltap_loop_replay(w.loop) == 0);
	CHECK_LOG(&w, "a0 b5 a10 | a20 T1@25 a30 b40 ");
	world_free(&w);

	world_stream(&w, a, 4, 0);
	w.all_readable = 1;
	w.wake_on = AT(10);
	world_start(&w, 1);
	CHECK(ltap_loop_replay(w.loop) == 1);
	CHECK_LOG(&w, "a0 a10 ");
	ltap_loop_stop(w.loop);
	CHECK(ltap_loop_replay(w.loop) == 0);
	world_log(&w, "end ");
	ltap_loop_finish(w.loop, AT(100));
	CHECK_LOG(&w, "a0 a10 end ");
	world_free(&w);
}

int main(void)
{
	test_merge();
	test_timer_atomic();
	test_slack();
	test_unordered();
	test_end();
	test_behind();
	test_replay_end();
	test_live_is_replay();
	test_walk_is_merge();
	test_replay_pause();
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
