/* feed.h: aggregates fed in C (feed.c): s:by(KEYS, [VALUE]) given to
 * probe() in place of a handler. */
#ifndef LTAP_FEED_H
#define LTAP_FEED_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>

struct feed;
struct ltap_ctx;
struct ltap_evdesc;
struct ltap_probe;
struct ltap_rec;
struct stats;

/* A key made of the task only (comm, pid, tid, name, an event's own
 * syscall): its slot kept by tid, so a run of one task's events reads no
 * name and hashes no key. Valid while the task table's and the aggregate's
 * generations are as they were (the aggregate's also changes when its
 * slots move, so count stays where the slot's count is). */
#define LTAP_FEED_CACHE 256
struct ltap_feed_cached {
	int tid;
	unsigned pgen, agen;
	long slot;      /* -1: none */
	int64_t *count; /* a count's: the slot's (ltap_agg_count_ref), or NULL */
};

/* What a fed probe's every event reads first (p->cdata begins with it):
 * a count keyed by the task, for the fed dispatch to add in line. */
struct ltap_feed_fast {
	int count_by_task;          /* the key the task's alone, the value 1 */
	const unsigned *pgen, *agen; /* the task table's and the aggregate's generations */
	struct ltap_feed_cached cache[LTAP_FEED_CACHE];
};

/* Whether c still holds tid's slot: the task table and the aggregate's
 * keys as they were when it was kept. */
static inline int ltap_feed_cache_valid(const struct ltap_feed_fast *f, const struct ltap_feed_cached *c, int tid)
{
	return c->tid == tid && c->pgen == *f->pgen && c->agen == *f->agen;
}

/* 1 when the event of tid was counted here (its task's count kept),
 * else 0 and nothing done: p's cfn does the rest. */
static inline int ltap_feed_counted(struct ltap_feed_fast *f, int tid)
{
	struct ltap_feed_cached *c = &f->cache[(unsigned)tid % LTAP_FEED_CACHE];

	if (!f->count_by_task || !ltap_feed_cache_valid(f, c, tid) || !c->count)
		return 0;
	++*c->count;
	return 1;
}

/* the cfn of a fed probe: what ltap_feed_counted did not do */
int ltap_feed_event(struct ltap_ctx *ctx, struct ltap_probe *p, struct ltap_evdesc *d, const struct ltap_rec *r);

/* the feed at idx, or NULL */
struct feed *ltap_feed_test(lua_State *L, int idx);
/* p (a probe of its descriptor's event) adds to f's aggregate in C from
 * now on: the names resolved for the event. 0, or -1 with why ("kmalloc
 * has no field 'bytes'"). */
int ltap_feed_bind(struct ltap_ctx *ctx, struct ltap_probe *p, const struct feed *f, char *why, size_t len);
/* The same as ltap_feed_bind for s:by(KEYS, VALUE) on s, without the
 * feed object (lower.c: a handler that does what a feed does); value NULL
 * for a count. */
int ltap_feed_bind_names(struct ltap_ctx *ctx, struct ltap_probe *p, struct stats *s, const char *const *keys,
			 int nkeys, const char *value, char *why, size_t len);
/* the ltap.feed type, and s:by(KEYS, [VALUE]) added to ltap.stats (after
 * stats.c made its metatable) */
void ltap_open_feed(lua_State *L, struct ltap_ctx *ctx);

#endif
