/* desc.c: the registry of a run's declarations: event descriptors (by
 * event id, the per-event array), the probes on them and their handlers.
 * Every declaration goes through here, whatever names the event: probe()
 * and its globs, profile(), a text trace's names (text.c), the task events
 * ltap follows. At attach the registry says what the sources are to do
 * (ltap_desc_plan) and which filters are left to user space. */
#include "desc.h"

#include "call.h"
#include "catalog.h"
#include "ctx.h"
#include "evdesc.h"
#include "event.h"
#include "feed.h"
#include "filter.h"
#include "kinds.h"
#include "log.h"
#include "lower.h"
#include "proc.h"
#include "source.h"
#include "symfield.h"
#include "tasks.h"

#include <errno.h>
#include <event-parse.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

struct ltap_evdesc *ltap_desc_new(lua_State *L, struct ltap_ctx *ctx, int id, const struct ltap_desc_ops *ops)
{
	struct ltap_evdesc *d;

	if (id < 0 || id > 65535)
		luaL_error(L, "event id %d out of range", id);
	if (id >= ctx->nids) {
		int n = id + 64;
		struct ltap_evdesc **nb = realloc(ctx->by_id, (size_t)n * sizeof *nb);
		if (!nb)
			luaL_error(L, "out of memory");
		memset(nb + ctx->nids, 0, (size_t)(n - ctx->nids) * sizeof *nb);
		ctx->by_id = nb;
		ctx->nids = n;
	}
	d = calloc(1, sizeof *d);
	if (!d)
		luaL_error(L, "out of memory");
	d->id = id;
	d->ops = ops;
	d->tid_off = LTAP_REC_TID_OFFSET;
	ctx->by_id[id] = d;
	return d;
}

/* d's name table, field tables and name string: fields (nfields of them)
 * are d's own, name its e.name */
static void desc_names(lua_State *L, struct ltap_evdesc *d, const char *name)
{
	ltap_event_fields_tables(L, d);
	lua_pushstring(L, name);
	d->name_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

struct ltap_evdesc *ltap_desc_event(lua_State *L, struct ltap_ctx *ctx, int id, struct tep_event *ev,
				    const struct ltap_desc_ops *ops)
{
	struct ltap_evdesc *d = ltap_desc_new(L, ctx, id, ops);
	struct tep_format_field *f, *pid;
	char name[256];

	d->ev = ev;
	for (f = ev->format.fields; f; f = f->next)
		d->nfields++;
	d->fields = calloc((size_t)d->nfields + 1, sizeof *d->fields);
	if (!d->fields)
		luaL_error(L, "out of memory");
	d->nfields = 0;
	for (f = ev->format.fields; f; f = f->next)
		d->fields[d->nfields++] = f;
	if ((pid = tep_find_common_field(ev, "common_pid")) != NULL)
		d->tid_off = pid->offset;
	snprintf(name, sizeof name, "%s:%s", ev->system, ev->name);
	desc_names(L, d, name);
	return d;
}

struct ltap_evdesc *ltap_desc_synthetic(lua_State *L, struct ltap_ctx *ctx, int id, const char *name,
					const struct ltap_desc_ops *ops)
{
	struct ltap_evdesc *d = ltap_desc_new(L, ctx, id, ops);

	d->fields = calloc(1, sizeof *d->fields);
	if (!d->fields)
		luaL_error(L, "out of memory");
	desc_names(L, d, name);
	return d;
}

struct ltap_evdesc *ltap_desc_of(lua_State *L, struct ltap_ctx *ctx, struct tep_event *ev)
{
	if (ev->id < 0 || ev->id > 65535)
		luaL_error(L, "event %s:%s has a bad id %d", ev->system, ev->name, ev->id);
	if (ev->id < ctx->nids && ctx->by_id[ev->id])
		return ctx->by_id[ev->id];
	return ltap_desc_event(L, ctx, ev->id, ev, &ltap_kind_raw);
}

int ltap_handler_add(lua_State *L, struct ltap_ctx *ctx, int fn)
{
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.handlers");
	lua_pushvalue(L, fn);
	lua_rawseti(L, -2, ++ctx->nprobes);
	lua_pop(L, 1);
	return ctx->nprobes;
}

/* the feed that handler is, or NULL (a function) */
static const struct feed *desc_feed(struct ltap_ctx *ctx, int handler)
{
	const struct feed *f;

	lua_getfield(ctx->L, LUA_REGISTRYINDEX, "ltap.handlers");
	lua_rawgeti(ctx->L, -1, handler);
	f = ltap_feed_test(ctx->L, -1);
	lua_pop(ctx->L, 2);
	return f;
}

struct ltap_probe *ltap_probe_on(struct ltap_ctx *ctx, struct ltap_evdesc *d, int handler, const char *filter,
				 const char *where)
{
	struct ltap_probe *p = calloc(1, sizeof *p), **pp;
	const struct feed *f;

	ctx->why[0] = 0;
	if (!p)
		return NULL;
	p->desc = d;
	p->filter = filter && *filter ? strdup(filter) : NULL;
	snprintf(p->where, sizeof p->where, "%s", where);
	if (d->ev)
		snprintf(p->spec, sizeof p->spec, "%s:%s", d->ev->system, d->ev->name);
	else
		snprintf(p->spec, sizeof p->spec, "profile");
	p->handler = handler;
	if ((f = desc_feed(ctx, handler)) != NULL ? ltap_feed_bind(ctx, p, f, ctx->why, sizeof ctx->why)
						   : ltap_lower_try(ctx, p)) {
		free(p->filter);
		free(p);
		return NULL;
	}
	*ctx->probes_tail = p;
	ctx->probes_tail = &p->next;
	for (pp = &d->probes; *pp; pp = &(*pp)->next_same)
		;
	*pp = p;
	return p;
}

struct ltap_probe *ltap_probe_add(lua_State *L, struct ltap_ctx *ctx, struct ltap_evdesc *d, int fn,
				  const char *filter)
{
	struct ltap_probe *p;

	luaL_where(L, 1);
	p = ltap_probe_on(ctx, d, ltap_handler_add(L, ctx, fn), filter, lua_tostring(L, -1));
	lua_pop(L, 1);
	if (!p)
		ltap_probe_raise(L, ctx);
	return p;
}

int ltap_probe_raise(lua_State *L, struct ltap_ctx *ctx)
{
	return luaL_error(L, "%s", ctx->why[0] ? ctx->why : "out of memory");
}

/* the Lua work of ltap_desc_follow_tasks, under protection */
static int desc_follow_tasks(lua_State *L)
{
	struct ltap_ctx *ctx = lua_touserdata(L, 1);

	for (const struct ltap_task_spec *t = ltap_task_specs; t->event; t++) {
		struct tep_event *ev = ltap_catalog_event(ctx->cat, t->event);
		struct ltap_task_event te;
		struct ltap_evdesc *d;

		if (!ev || (t->gated && !ctx->gate.active) || ltap_task_event_init(&te, ev, t->kind))
			continue;
		d = ltap_desc_of(L, ctx, ev);
		if (!d->task && !(d->task = malloc(sizeof *d->task)))
			return luaL_error(L, "out of memory");
		*d->task = te;
		d->ops = &ltap_kind_task;
	}
	return 0;
}

int ltap_desc_follow_tasks(struct ltap_ctx *ctx)
{
	if (!ctx->nprobes)
		return 0;
	lua_pushcfunction(ctx->L, desc_follow_tasks);
	lua_pushlightuserdata(ctx->L, ctx);
	return ltap_call(ctx, 1, 0);
}

int ltap_desc_profiles_only(struct ltap_ctx *ctx)
{
	if (!ctx->nprobes || !ltap_ctx_live(ctx) || ctx->opt.record)
		return 0;
	for (int id = 0; id < ctx->nids; id++)
		if (ctx->by_id[id] && ctx->by_id[id]->ev)
			return 0;
	return 1;
}

/* Whether p is served by d's perf event (stack probes, profiles: call
 * chains) or by its instance event (the others; and the stack probes'
 * switches in and wake-ups of their targets, with copies). */
static int desc_serves(const struct ltap_evdesc *d, const struct ltap_probe *p, int perf)
{
	int chains = p->stack || p->freq;
	return perf ? chains : !chains || d->copies;
}

/* whether a probe of d, served by this event, before p has p's filter */
static int desc_filter_seen(struct ltap_evdesc *d, struct ltap_probe *p, int perf)
{
	for (struct ltap_probe *q = d->probes; q != p; q = q->next_same)
		if (desc_serves(d, q, perf) && strcmp(q->filter, p->filter) == 0)
			return 1;
	return 0;
}

/* The kernel's filter of d's event in one ring (perf: the perf rings, else
 * the instance): the union of its probes' filters there (each once, each
 * also in parts), or none when one of them takes every event, or ltap does
 * (the task events it follows names with). 0, or -ENOMEM. */
static int desc_kernel_filter(struct ltap_evdesc *d, struct ltap_source_event *ev, int perf)
{
	struct ltap_source_filter *parts;
	size_t len = 1;
	int n = 0;
	char *out;

	if ((d->task && !perf) || !d->probes)
		return 0;
	for (struct ltap_probe *p = d->probes; p; p = p->next_same)
		if (desc_serves(d, p, perf) && !p->filter)
			return 0;
	for (struct ltap_probe *p = d->probes; p; p = p->next_same) {
		if (!desc_serves(d, p, perf) || desc_filter_seen(d, p, perf))
			continue;
		len += strlen(p->filter) + 8;
		n++;
	}
	out = calloc(1, len);
	parts = calloc((size_t)n, sizeof *parts);
	if (!out || !parts) {
		free(out);
		free(parts);
		return -ENOMEM;
	}
	n = 0;
	for (struct ltap_probe *p = d->probes; p; p = p->next_same) {
		if (!desc_serves(d, p, perf) || desc_filter_seen(d, p, perf))
			continue;
		parts[n++] = (struct ltap_source_filter){p->filter, p->where};
	}
	for (int i = 0; i < n; i++) {
		if (n > 1)
			strcat(strcat(strcat(out, *out ? " || (" : "("), parts[i].text), ")");
		else
			strcat(out, parts[i].text);
	}
	ev->filter = out;
	ev->parts = parts;
	ev->nparts = n;
	return 0;
}

/* whether a probe of d is served by the perf (perf) or instance ring */
static int desc_has(const struct ltap_evdesc *d, int perf)
{
	for (const struct ltap_probe *p = d->probes; p; p = p->next_same)
		if (desc_serves(d, p, perf))
			return 1;
	return 0;
}

/* The events the kernel's pid filter (set_event_pid, under -p and -c)
 * selects by the task they are about as well as by the running one: a
 * switch by its next task too, a wake-up by the woken one
 * (kernel/trace/trace_events.c's sched_switch and sched_wakeup probes).
 * Per-task perf events see the running task's only: a target switching
 * back in after another task, or woken by one, is the instance's to see. */
static int desc_subject_event(const struct tep_event *ev)
{
	static const char *const names[] = {"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new", NULL};

	if (strcmp(ev->system, "sched") != 0)
		return 0;
	for (const char *const *n = names; *n; n++)
		if (strcmp(ev->name, *n) == 0)
			return 1;
	return 0;
}

/* --record saves what the instance's rings read; the perf rings' samples
 * are not in it, and a trace.dat carries no call chains (nor the mappings
 * that would name their user frames) that a replay could hand back: a
 * stack probe or a profile would replay to nothing. Refused by name, before
 * anything is attached; -1 when refused (logged). */
static int desc_record_check(struct ltap_ctx *ctx)
{
	if (!ctx->opt.record)
		return 0;
	for (struct ltap_probe *p = ctx->probes; p; p = p->next) {
		if (p->freq) {
			ltap_err("%srecord: profile() samples come from a perf ring, which --record does not save "
				 "(ltap profile --save keeps them as perf script text)", p->where);
			return -1;
		}
		if (p->stack) {
			ltap_err("%srecord: probe %s:%s has stack=true: its events come from a perf ring, which "
				 "--record does not save (a trace.dat holds no call chains to replay); record it without "
				 "stack=true", p->where, p->desc->ev ? p->desc->ev->system : "perf",
				 p->desc->ev ? p->desc->ev->name : "switch_in");
			return -1;
		}
	}
	return 0;
}

/* One ring's event of d (perf: the perf rings'); 0 or -ENOMEM. */
static int desc_plan_one(struct ltap_evdesc *d, struct ltap_source_event *ev, int perf)
{
	ev->id = d->id;
	ev->perf = perf;
	ev->task_only = d->task && !d->probes;
	ev->switches = d->switches;
	if (d->ev) {
		ev->sys = d->ev->system;
		ev->name = d->ev->name;
	} else if (d->probes) {
		ev->freq = d->probes->freq;
	}
	return desc_kernel_filter(d, ev, perf);
}

/* An event is read from the perf rings when a probe wants call chains, from
 * the instance when a probe does not (or ltap follows task names with it,
 * or, under -p / -c, the stack probes' targets are the subject of events
 * the running task is not one of: desc_subject_event): both rings when
 * both kinds of probe share it, each probe served by its own. */
int ltap_desc_plan(struct ltap_ctx *ctx, struct ltap_source_event **out)
{
	struct ltap_source_event *evs;
	int targets = ltap_ctx_live(ctx) && (ctx->opt.pid || ctx->command.argv);
	int n = 0;

	*out = NULL;
	if (desc_record_check(ctx))
		return -1;
	for (int id = 0; id < ctx->nids; id++) {
		struct ltap_evdesc *d = ctx->by_id[id];
		if (!d)
			continue;
		d->copies = targets && d->ev && desc_has(d, 1) && desc_subject_event(d->ev);
		n += desc_has(d, 1) + (!d->probes || d->task || desc_has(d, 0));
	}
	if (!n)
		return 0;
	evs = calloc((size_t)n, sizeof *evs);
	if (!evs)
		return -ENOMEM;
	n = 0;
	for (int id = 0; id < ctx->nids; id++) {
		struct ltap_evdesc *d = ctx->by_id[id];
		if (!d)
			continue;
		for (int perf = 1; perf >= 0; perf--) {
			if (perf ? !desc_has(d, 1) : !(!d->probes || d->task || desc_has(d, 0)))
				continue;
			if (desc_plan_one(d, &evs[n++], perf)) {
				ltap_desc_plan_free(evs, n);
				return -ENOMEM;
			}
		}
	}
	*out = evs;
	return n;
}

void ltap_desc_plan_free(struct ltap_source_event *evs, int n)
{
	for (int i = 0; evs && i < n; i++) {
		free((char *)evs[i].filter);
		free((void *)evs[i].parts);
	}
	free(evs);
}

/* COMM in a user-space filter: the task's name as ltap follows it */
static const char *desc_comm(void *ud, int tid)
{
	struct ltap_ctx *ctx = ud;
	return ltap_proc_comm(ctx->proc, tid);
}

/* p's filter in user space (the kernel applies another one), compiled
 * once; 0, or -1 with a logged reason */
static int desc_user_filter(struct ltap_ctx *ctx, struct ltap_evdesc *d, struct ltap_probe *p)
{
	char why[1400];

	if (p->ufilter)
		return 0;
	p->ufilter = ltap_filter_new(d->ev, p->filter, desc_comm, ctx, why, sizeof why);
	if (p->ufilter)
		return 0;
	ltap_err("%sprobe %s:%s: bad filter '%s': %s%s", p->where, d->ev->system, d->ev->name, p->filter, why,
		 ltap_ctx_live(ctx) && strstr(why, "kernel only") ?
		 " (another probe shares the event, so each filter is applied again in user space)" : "");
	return -1;
}

int ltap_desc_user_filters(struct ltap_ctx *ctx, struct ltap_evdesc *d, const char *kernel)
{
	for (struct ltap_probe *p = d->probes; p; p = p->next_same)
		if (p->filter && !(kernel && strcmp(kernel, p->filter) == 0) && desc_user_filter(ctx, d, p))
			return -1;
	return 0;
}

/* Each probe whose filter is not the whole kernel filter of a ring that
 * serves it gets it applied in user space. */
int ltap_desc_plan_filters(struct ltap_ctx *ctx, const struct ltap_source_event *evs, int n)
{
	for (int i = 0; i < n; i++) {
		struct ltap_evdesc *d = ctx->by_id[evs[i].id];
		const char *kernel = evs[i].in_kernel ? evs[i].filter : NULL;
		if (!d->ev)
			continue;
		for (struct ltap_probe *p = d->probes; p; p = p->next_same)
			if (p->filter && desc_serves(d, p, evs[i].perf) && !(kernel && strcmp(kernel, p->filter) == 0) &&
			    desc_user_filter(ctx, d, p))
				return -1;
	}
	return 0;
}

void ltap_descs_free(struct ltap_ctx *ctx)
{
	struct ltap_probe *p = ctx->probes, *next;

	for (; p; p = next) {
		next = p->next;
		if (p->ufilter)
			ltap_filter_free(p->ufilter);
		if (p->cdata_owned)
			free(p->cdata);
		ltap_lower_free(p);
		free(p->filter);
		free(p);
	}
	ctx->probes = NULL;
	ctx->probes_tail = &ctx->probes;
	ctx->lower_armed = NULL; /* the list of lowered probes went with them */
	for (int id = 0; id < ctx->nids; id++) {
		struct ltap_evdesc *d = ctx->by_id[id];
		if (!d)
			continue;
		if (d->ops->free)
			d->ops->free(d);
		ltap_symfields_free(d->sym);
		free(d->fields);
		free(d->task);
		free(d);
	}
	free(ctx->by_id);
	ctx->by_id = NULL;
	ctx->nids = 0;
}

void ltap_open_desc(lua_State *L, struct ltap_ctx *ctx)
{
	(void)ctx;
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.handlers");
}

