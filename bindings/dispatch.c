/* dispatch.c: the per-event path. An event's id indexes the descriptors;
 * its kind sees it first (task names), the event object takes its common
 * fields, and each probe's handler runs through ltap_call, after the
 * probe's user-space filter where the kernel applies another. No
 * allocation, no lookup by name. */
#include "dispatch.h"

#include "call.h"
#include "ctx.h"
#include "evdesc.h"
#include "event.h"
#include "eventud.h"
#include "filter.h"
#include "loop.h"
#include "lower.h"
#include "lstackcount.h"
#include "proc.h"
#include "source.h"
#include "tasks.h"

#include <string.h>

/* The fixed slots the per-event path reaches without lookups, pushed on an
 * empty stack (the main one, or a thread for a nested drain). */
void ltap_dispatch_slots(lua_State *L, struct ltap_ctx *ctx)
{
	ctx->msgh_slot = ltap_push_msghandler(L);
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.handlers");
	ctx->handlers_slot = lua_gettop(L);
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.timers");
	ctx->timers_slot = lua_gettop(L);
	ltap_event_push_slots(L, ctx);
}

void ltap_dispatch_gate_order(struct ltap_ctx *ctx)
{
	if (ctx->loop)
		ltap_loop_set_ordered(ctx->loop, ctx->gate.nwait ? 1 : ctx->opt.ordered);
}

/* Whether the event is a command's own before its exec (gate.h): that is
 * ltap's work. A record whose source began the command's records at its
 * exec itself (source.h: ltap_rec_gated) needs no gate here. */
static int dispatch_gated(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	int drop = ltap_task_gated(&ctx->gate, d->task, r->data, d->tid_off);

	if (d->task && d->task->kind == LTAP_TASK_RENAME)
		ltap_dispatch_gate_order(ctx);
	return drop;
}

/* The descriptor of r, or NULL when no probe wants it (or its command has
 * not reached its exec): what the dispatch and the skip both begin with. */
static inline struct ltap_evdesc *dispatch_desc(struct ltap_ctx *ctx, const struct ltap_rec *r)
{
	struct ltap_evdesc *d;
	uint16_t id;

	memcpy(&id, r->data, sizeof id);
	if (id >= ctx->nids || !(d = ctx->by_id[id]))
		return NULL;
	if (ctx->gate.active && !ltap_rec_gated(r) && dispatch_gated(ctx, d, r))
		return NULL;
	return d;
}

/* Which rings serve which probes of an event (desc.c): the perf rings
 * (records with a call chain) its stack probes and profiles, the instance
 * the others. Under -p / -c the instance also gives a stack probe the
 * switches and wake-ups of a target that another task makes: those the
 * perf rings do not have, as the running task is not one they follow
 * (copies; the rest are dropped here), with an empty call chain (the
 * running task's is not collected). A replay's records serve every
 * probe. */
enum { SERVE_NONE, SERVE_PLAIN, SERVE_ALL };

static int dispatch_serves(struct ltap_ctx *ctx, const struct ltap_rec *r,
			   const struct ltap_probe *p, int copy)
{
	int chains = p->stack || p->freq;

	if (r->callchain)
		return chains;
	if (!chains || !ltap_ctx_live(ctx))
		return 1;
	return copy == SERVE_ALL;
}

/* For an instance record of an event with copies: SERVE_ALL when the perf
 * rings do not follow its running task (the record is a copy the stack
 * probes take), else SERVE_PLAIN. */
static int dispatch_copy(struct ltap_ctx *ctx, const struct ltap_evdesc *d, const struct ltap_rec *r)
{
	if (!d->copies || r->callchain)
		return SERVE_NONE;
	return ltap_proc_followed(ctx->proc, ltap_rec_tid(d, r)) ? SERVE_PLAIN : SERVE_ALL;
}

int ltap_dispatch_event(void *ud, const struct ltap_rec *r)
{
	static const uint64_t no_chain[1];
	struct ltap_ctx *ctx = ud;
	lua_State *L = ctx->L;
	struct ltap_evdesc *d = dispatch_desc(ctx, r);
	struct ltap_probe *p;
	struct ltap_rec copy;
	int filled = 0; /* the event table, filled before the first Lua handler */
	int copies;

	if (!d)
		return 0;
	if (d->ops->observe && !r->callchain)
		d->ops->observe(ctx, d, r);
	ctx->trace_now = r->ts;
	if ((copies = dispatch_copy(ctx, d, r)) == SERVE_ALL) {
		copy = *r;
		copy.callchain = no_chain;
		copy.nr_callchain = 0;
	}
	for (p = d->probes; p; p = p->next_same) {
		const struct ltap_rec *pr = r;
		if (!dispatch_serves(ctx, r, p, copies))
			continue;
		if (copies == SERVE_ALL && p->stack)
			pr = &copy;
		if (p->ufilter) {
			const struct ltap_rec *fr = d->ops->record(ctx, d, r);
			if (!ltap_filter_match(p->ufilter, fr->data, (int)fr->size, r->cpu))
				continue;
		}
		p->hits++;
		if (p->count) { /* counted in C: no event table, no Lua call */
			if (ltap_stackcount_sample(ctx, p->count, pr, ltap_rec_tid(d, r)) != 0)
				break;
			continue;
		}
		/* a lowered handler's feed, while the handler has what it had */
		if (p->cfn && (!p->lower || p->lower->armed || ltap_lower_arm(ctx, p) == 0)) {
			if (p->cfn(ctx, p, d, pr) != 0)
				break;
			continue;
		}
		if (!filled++)
			ltap_event_fill(ctx, d, pr);
		ctx->event->rec = pr;
		lua_rawgeti(L, ctx->handlers_slot, p->handler);
		lua_pushvalue(L, ctx->event_slot);
		if (ltap_call(ctx, 1, 0) != 0 || ltap_run_halting(ctx))
			break;
	}
	ctx->event->rec = NULL;
	return ltap_run_halting(ctx);
}

int ltap_skip_event(void *ud, const struct ltap_rec *r)
{
	struct ltap_ctx *ctx = ud;
	struct ltap_evdesc *d = dispatch_desc(ctx, r);
	int copies;

	if (!d)
		return 0;
	copies = dispatch_copy(ctx, d, r);
	for (struct ltap_probe *p = d->probes; p; p = p->next_same) {
		const struct ltap_rec *fr;
		if (!dispatch_serves(ctx, r, p, copies))
			continue;
		if (!p->ufilter)
			return 1;
		fr = d->ops->record(ctx, d, r);
		if (ltap_filter_match(p->ufilter, fr->data, (int)fr->size, r->cpu))
			return 1;
	}
	return 0;
}
