/* dispatch_fed.c: the per-event path of a run whose every probe is fed in
 * C (s:by, feed.c): the loop's event hook in place of dispatch.c's when
 * ltap_dispatch_fed_all says so. No event object, no Lua, no user-space
 * filter, no call chains, no command gate: the descriptor, the task table
 * kept right (a task event's kind observes it), each probe's count and
 * its feed. The records come in the merge's order, as to dispatch.c's
 * (docs/design.md, "The fed path"). */
#include "dispatch.h"

#include "ctx.h"
#include "evdesc.h"
#include "feed.h"
#include "stream.h"

#include <string.h>

/* whether every probe of d is fed in C and nothing else is asked of it */
static int fed_desc(const struct ltap_evdesc *d)
{
	if (d->copies)
		return 0;
	for (const struct ltap_probe *p = d->probes; p; p = p->next_same)
		if (!p->cfn || p->ufilter || p->stack || p->freq || p->count)
			return 0;
	return 1;
}

int ltap_dispatch_fed_all(struct ltap_ctx *ctx)
{
	if (ctx->gate.active)
		return 0;
	for (int id = 0; id < ctx->nids; id++)
		if (ctx->by_id[id] && !fed_desc(ctx->by_id[id]))
			return 0;
	for (int id = 0; id < ctx->nids; id++) {
		struct ltap_evdesc *d = ctx->by_id[id];
		struct ltap_probe *p = d ? d->probes : NULL;
		if (p && !p->next_same && !d->ops->observe && p->cfn == ltap_feed_event &&
		    ((struct ltap_feed_fast *)p->cdata)->count_by_task)
			d->fed_count = p->cdata;
	}
	return 1;
}

/* every probe of d, the task table first */
static __attribute__((noinline)) int fed_probes(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	if (d->ops->observe)
		d->ops->observe(ctx, d, r);
	ctx->trace_now = r->ts;
	for (struct ltap_probe *p = d->probes; p; p = p->next_same) {
		p->hits++;
		if (p->cfn(ctx, p, d, r) != 0)
			return ltap_run_halting(ctx);
	}
	return 0;
}

/* The common case in a frame of its own, with no call (so no registers
 * saved): an event of a plain tracepoint with one probe, a count by the
 * task whose count is kept (feed.h). */
int ltap_dispatch_fed(void *ud, const struct ltap_rec *r)
{
	struct ltap_ctx *ctx = ud;
	struct ltap_evdesc *d;
	uint16_t id;

	/* (a perf ring's record, with a call chain, is a stack probe's: as
	 * dispatch.c, a probe without one takes none, nor is it observed) */
	memcpy(&id, r->data, sizeof id);
	if (id >= ctx->nids || !(d = ctx->by_id[id]) || r->callchain)
		return 0;
	if (d->fed_count && ltap_feed_counted(d->fed_count, ltap_rec_tid(d, r))) {
		d->probes->hits++;
		ctx->trace_now = r->ts;
		return 0;
	}
	return fed_probes(ctx, d, r);
}
