/* dispatch_fed.c: the loop's event hook when some event of the run is
 * counted in C alone (ltap_dispatch_fed_plan): an event whose one probe
 * is a count keyed by the task (s:by, feed.c) adds to the count kept for
 * its thread, in line, with no call (ltap_feed_counted, feed.h); every
 * other record, and that one when its thread's count is not known yet,
 * goes the whole way (dispatch.c). The records come in the merge's order,
 * as to dispatch.c (docs/design.md, "The fed path"). */
#include "dispatch.h"

#include "ctx.h"
#include "evdesc.h"
#include "feed.h"
#include "lower.h"
#include "stream.h"

#include <string.h>

/* d's fed count: its one probe an s:by count by the task, with nothing
 * else asked of the event (no user-space filter, no call chain, no task
 * event to observe, no copies for stack probes); a handler run in C as
 * such a count too, whose increment waits while it is not armed (lower.h) */
static struct ltap_feed_fast *fed_count(const struct ltap_evdesc *d)
{
	const struct ltap_probe *p = d->probes;

	if (!p || p->next_same || d->copies || d->ops->observe || p->cfn != ltap_feed_event || p->ufilter ||
	    p->stack || p->freq || p->count)
		return NULL;
	if (p->lower)
		return p->lower->count_by_task ? p->cdata : NULL;
	return ((struct ltap_feed_fast *)p->cdata)->count_by_task ? p->cdata : NULL;
}

int ltap_dispatch_fed_plan(struct ltap_ctx *ctx)
{
	int n = 0;

	/* a command held at its gate: its events are checked one by one */
	if (ctx->gate.active)
		return 0;
	for (int id = 0; id < ctx->nids; id++)
		if (ctx->by_id[id] && (ctx->by_id[id]->fed_count = fed_count(ctx->by_id[id])) != NULL)
			n++;
	return n;
}

/* In a frame of its own with no call on the common path (so no registers
 * saved): the descriptor, the thread's count, one increment. */
int ltap_dispatch_fed(void *ud, const struct ltap_rec *r)
{
	struct ltap_ctx *ctx = ud;
	struct ltap_evdesc *d;
	uint16_t id;

	memcpy(&id, r->data, sizeof id);
	/* (a perf ring's record, with a call chain, is a stack probe's) */
	if (id < ctx->nids && (d = ctx->by_id[id]) != NULL && d->fed_count && !r->callchain && !ctx->gate.active &&
	    ltap_feed_counted(d->fed_count, ltap_rec_tid(d, r))) {
		d->probes->hits++;
		ctx->trace_now = r->ts;
		return 0;
	}
	return ltap_dispatch_event(ud, r);
}
