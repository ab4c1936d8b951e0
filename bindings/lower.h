/* lower.h: handlers that do what s:by does, run in C (lower.c). */
#ifndef LTAP_B_LOWER_H
#define LTAP_B_LOWER_H

struct ltap_ctx;
struct ltap_probe;

/* A probe whose handler was lowered: its feed (p->cfn, p->cdata) stands
 * for the handler as long as the handler's aggregate and method are the
 * ones it had. Lua code may change either (s = stats(), s.inc = f,
 * debug.setupvalue), but only while Lua runs: after any Lua has run the
 * probe is checked again before its next event (armed again), and when
 * they changed, the handler runs from then on. */
struct ltap_lower {
	struct ltap_probe *p;
	const void *object, *method; /* the handler's upvalue and its method, when lowered */
	const char *method_name;     /* "inc" or "add" */
	int ref;                     /* registry: {object, method, its name}: kept so their addresses stay theirs */
	int armed;                   /* checked since Lua last ran: on ctx->lower_armed */
	int count_by_task;           /* the feed's, which is 0 while not armed (feed.h) */
	struct ltap_lower *next_armed;
	char by[4 * 70];             /* what it runs as: "\"comm\"", "{\"comm\", \"pid\"}, \"bytes\"" */
};

/* At p's declaration: when its handler is exactly
 *     function(e) s:inc(e.K1[, e.K2[, e.K3]]) end
 *     function(e) s:add(e.K1[, e.K2[, e.K3]], e.V) end
 * with s an upvalue holding a stats() object whose method is its own, and
 * every name one s:by reads as the event object has it, p is fed as by
 * s:by({K...}, V) (feed.c). 0 (lowered or not), -1 out of memory. */
int ltap_lower_try(struct ltap_ctx *ctx, struct ltap_probe *p);
/* Before a lowered probe's event (in the dispatch: the run's fixed slots),
 * when not armed: 0 when its handler still has its aggregate and method
 * (armed now), else -1 and the probe runs its handler from now on. */
int ltap_lower_arm(struct ltap_ctx *ctx, struct ltap_probe *p);
/* Lua ran (a handler, a timer, a hook, the host's own code between
 * steps): every armed probe is checked before its next event. */
void ltap_lower_disarm(struct ltap_ctx *ctx);
/* -v: each probe whose handler runs in C, as what (at start: a module's
 * declarations log nowhere) */
void ltap_lower_report(struct ltap_ctx *ctx);
/* p's lowering freed with p (ltap_descs_free) */
void ltap_lower_free(struct ltap_probe *p);

#endif
